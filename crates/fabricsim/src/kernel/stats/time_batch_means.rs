//! Method of batch means over simulated time, with bounded memory.
//!
//! Time-averaged outputs (throughput, buffer occupancy) are not sequences of
//! observations but integrals over time, so batches are intervals of
//! simulated time: each complete batch contributes
//! `(integral over the batch) / (batch duration)` as one batch mean. As in
//! [`BatchMeans`](super::BatchMeans), the batch duration doubles (merging
//! adjacent pairs) whenever `2 * target` batches are complete, keeping memory
//! fixed and the batch count in `[target, 2 * target)`.

use super::confidence::ConfidenceInterval;

/// Batch-means estimator of a time average over simulated picoseconds.
///
/// Feed it with [`add_impulse`](Self::add_impulse) for rates (mean = amount
/// per picosecond) and/or [`set_level`](Self::set_level) for piecewise-constant
/// levels (mean = time average). Times must be non-decreasing. Allocates once
/// in [`new`](Self::new).
#[derive(Clone, Debug)]
pub struct TimeBatchMeans {
    /// Integrals of the complete batches; only `sums[..complete]` is meaningful.
    sums: Box<[f64]>,
    complete: usize,
    target: usize,
    initial_batch_ps: u64,
    batch_ps: u64,
    /// Start of the measurement span.
    start_ps: u64,
    /// End of the current (incomplete) batch.
    batch_end: u64,
    /// Time up to which `cur_integral` has been accumulated.
    last_t: u64,
    level: f64,
    /// Integral over the current batch from its start to `last_t`.
    cur_integral: f64,
    /// Integral over all complete batches.
    closed_integral: f64,
}

impl TimeBatchMeans {
    /// Starts measuring at `start_ps` with batches of `initial_batch_ps`,
    /// aiming at `target_batches` batches (e.g. 32). The level starts at 0.
    ///
    /// # Panics
    /// If `target_batches < 2` or `initial_batch_ps == 0`.
    pub fn new(start_ps: u64, initial_batch_ps: u64, target_batches: u32) -> Self {
        assert!(target_batches >= 2, "TimeBatchMeans needs target_batches >= 2");
        assert!(initial_batch_ps > 0, "TimeBatchMeans needs a positive batch duration");
        let target = target_batches as usize;
        Self {
            sums: vec![0.0; 2 * target].into_boxed_slice(),
            complete: 0,
            target,
            initial_batch_ps,
            batch_ps: initial_batch_ps,
            start_ps,
            batch_end: start_ps.saturating_add(initial_batch_ps),
            last_t: start_ps,
            level: 0.0,
            cur_integral: 0.0,
            closed_integral: 0.0,
        }
    }

    /// Brings the integral up to `t_ps`, closing every batch boundary passed.
    #[inline]
    fn advance(&mut self, t_ps: u64) {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        while t_ps >= self.batch_end {
            self.close_batch();
        }
        self.cur_integral += self.level * t_ps.saturating_sub(self.last_t) as f64;
        self.last_t = t_ps;
    }

    #[cold]
    fn close_batch(&mut self) {
        let end = self.batch_end;
        let sum = self.cur_integral + self.level * (end - self.last_t) as f64;
        self.sums[self.complete] = sum;
        self.complete += 1;
        self.closed_integral += sum;
        self.cur_integral = 0.0;
        self.last_t = end;
        if self.complete == self.sums.len() {
            for i in 0..self.target {
                self.sums[i] = self.sums[2 * i] + self.sums[2 * i + 1];
            }
            self.complete = self.target;
            self.batch_ps = self.batch_ps.saturating_mul(2);
        }
        self.batch_end = end.saturating_add(self.batch_ps);
    }

    /// Adds `amount` at instant `t_ps` (e.g. bytes delivered). It belongs to
    /// the batch containing `t_ps`; an instant on a boundary starts the next
    /// batch.
    #[inline]
    pub fn add_impulse(&mut self, t_ps: u64, amount: f64) {
        self.advance(t_ps);
        self.cur_integral += amount;
    }

    /// Sets the piecewise-constant level to `level` from `t_ps` on.
    #[inline]
    pub fn set_level(&mut self, t_ps: u64, level: f64) {
        self.advance(t_ps);
        self.level = level;
    }

    /// Sets the level to `level` from `t_ps` on and adds `amount` at `t_ps`
    /// (a level change whose effect until a later time is known now).
    #[inline]
    pub fn set_level_adding(&mut self, t_ps: u64, level: f64, amount: f64) {
        self.advance(t_ps);
        self.cur_integral += amount;
        self.level = level;
    }

    /// Current level.
    #[inline]
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Advances to `t_ps`, closing the batches completed by then; the partial
    /// batch remains open and does not count in [`interval`](Self::interval).
    pub fn finish(&mut self, t_ps: u64) {
        self.advance(t_ps);
    }

    /// Number of complete batches.
    #[inline]
    pub fn batches(&self) -> u32 {
        self.complete as u32
    }

    /// Current batch duration in picoseconds.
    #[inline]
    pub fn batch_ps(&self) -> u64 {
        self.batch_ps
    }

    /// Start of the measurement span.
    #[inline]
    pub fn start_ps(&self) -> u64 {
        self.start_ps
    }

    /// Batch-buffer capacity (`2 * target_batches`); never changes.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.sums.len()
    }

    /// 95% confidence interval over the complete batches (call
    /// [`finish`](Self::finish) first to close batches up to "now"); `None`
    /// while fewer than `target_batches` batches are complete.
    pub fn interval(&self) -> Option<ConfidenceInterval> {
        if self.complete < self.target {
            return None;
        }
        ConfidenceInterval::from_batch_sums(&self.sums[..self.complete], self.batch_ps as f64)
    }

    /// Time average (or rate per picosecond) over the whole span from the
    /// start to `t_ps`, including the partial batch. `t_ps` must not precede
    /// the last update; returns 0 for an empty span.
    pub fn mean(&self, t_ps: u64) -> f64 {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        let span = t_ps.saturating_sub(self.start_ps);
        if span == 0 {
            return 0.0;
        }
        let tail = self.level * t_ps.saturating_sub(self.last_t) as f64;
        (self.closed_integral + self.cur_integral + tail) / span as f64
    }

    /// Restarts measuring at `t_ps` (warm-up deletion) with the initial batch
    /// duration, keeping the current level and the allocation.
    pub fn reset(&mut self, t_ps: u64) {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        self.complete = 0;
        self.batch_ps = self.initial_batch_ps;
        self.start_ps = t_ps;
        self.batch_end = t_ps.saturating_add(self.initial_batch_ps);
        self.last_t = t_ps;
        self.cur_integral = 0.0;
        self.closed_integral = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch_means(t: &TimeBatchMeans) -> Vec<f64> {
        t.sums[..t.complete].iter().map(|s| s / t.batch_ps as f64).collect()
    }

    #[test]
    fn split_across_boundaries_by_hand() {
        let mut t = TimeBatchMeans::new(0, 10, 2);
        t.set_level(0, 1.0);
        t.set_level(15, 3.0);
        t.add_impulse(20, 5.0); // exactly on a boundary: goes to [20, 30)
        t.set_level(25, 0.0);
        t.finish(30);
        // [0,10): 10·1; [10,20): 5·1 + 5·3; [20,30): 5 + 5·3 + 5·0.
        assert_eq!(&t.sums[..t.complete], &[10.0, 20.0, 20.0]);
        assert_eq!(batch_means(&t), vec![1.0, 2.0, 2.0]);
        assert_eq!(t.mean(30), 50.0 / 30.0);
        assert_eq!(t.mean(35), 50.0 / 35.0); // level 0 in the tail
        t.finish(40);
        // 4th batch [30,40) = 0 → merge into [0,20) = 30, [20,40) = 20.
        assert_eq!((t.batches(), t.batch_ps()), (2, 20));
        assert_eq!(&t.sums[..2], &[30.0, 20.0]);
        let ci = t.interval().unwrap();
        assert_eq!(ci.mean, 1.25);
        // Batch means 1.5, 1.0: s = 0.5/sqrt 2; hw = t(1)·s/sqrt 2 = 12.706/4.
        assert!((ci.half_width - 12.706_204_736 / 4.0).abs() < 1e-9);
        assert_eq!(t.mean(40), 1.25);
        // A level spanning several boundaries.
        t.set_level(45, 2.0);
        t.finish(100);
        // [40,60): 15·2 = 30; [60,80): 40 → 4 batches → merge to
        // [0,40) = 50, [40,80) = 70; [80,120) is still open.
        assert_eq!((t.batches(), t.batch_ps()), (2, 40));
        assert_eq!(&t.sums[..2], &[50.0, 70.0]);
        assert_eq!(t.mean(100), 1.6);
        t.finish(120);
        assert_eq!(&t.sums[..3], &[50.0, 70.0, 80.0]);
        assert_eq!(t.mean(120), 200.0 / 120.0);
    }

    #[test]
    fn nonzero_start() {
        let mut t = TimeBatchMeans::new(1_000, 100, 2);
        t.set_level(1_050, 4.0);
        t.finish(1_200);
        assert_eq!(&t.sums[..t.complete], &[200.0, 400.0]);
        assert_eq!(t.mean(1_200), 3.0);
        assert_eq!(TimeBatchMeans::new(1_000, 100, 2).mean(1_000), 0.0);
    }

    #[test]
    fn constant_level() {
        let mut t = TimeBatchMeans::new(0, 1_000, 32);
        t.set_level(0, 0.3);
        assert!(t.interval().is_none());
        t.finish(10_000_000);
        let ci = t.interval().unwrap();
        assert_eq!(ci.half_width, 0.0);
        assert!((ci.mean - 0.3).abs() < 1e-15);
        assert!((t.mean(10_000_000) - 0.3).abs() < 1e-12);
        assert!((32..64).contains(&t.batches()));
    }

    #[test]
    fn impulse_rate() {
        let mut t = TimeBatchMeans::new(0, 1_000, 32);
        let cap = t.capacity();
        let ptr = t.sums.as_ptr();
        let mut now = 0;
        // Impulses at 0, 10, 20, ...: exactly 100 per 1000 ps.
        while now < 5_000_000 {
            t.add_impulse(now, 1.0);
            now += 10;
        }
        t.finish(now);
        let ci = t.interval().unwrap();
        assert!((ci.mean - 0.1).abs() < 1e-12, "{}", ci.mean);
        assert_eq!(ci.half_width, 0.0);
        assert!((t.mean(now) - 0.1).abs() < 1e-12);
        assert!((32..64).contains(&t.batches()));
        assert_eq!((t.capacity(), t.sums.as_ptr()), (cap, ptr));
    }

    #[test]
    fn alternating_level() {
        let mut t = TimeBatchMeans::new(0, 10_000, 32);
        let mut now = 0;
        let mut on = false;
        while now < 50_000_000 {
            on = !on;
            t.set_level(now, if on { 1.0 } else { 0.0 });
            now += 7; // period 14 ps, not a divisor of the batch length
        }
        t.finish(now);
        let ci = t.interval().unwrap();
        assert!((ci.mean - 0.5).abs() < 1e-4, "{}", ci.mean);
        assert!(ci.half_width < 1e-4, "{}", ci.half_width);
        assert!(ci.contains(0.5));
        assert!((t.mean(now) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn reset_keeps_level_and_allocation() {
        let mut t = TimeBatchMeans::new(0, 10, 2);
        let ptr = t.sums.as_ptr();
        t.set_level(0, 100.0);
        t.finish(1_000);
        assert!(t.batch_ps() > 10);
        t.set_level(1_000, 2.0);
        t.reset(1_000);
        assert_eq!((t.batches(), t.batch_ps(), t.start_ps()), (0, 10, 1_000));
        assert_eq!(t.level(), 2.0);
        t.finish(1_030);
        assert_eq!(&t.sums[..t.complete], &[20.0, 20.0, 20.0]);
        assert_eq!(t.mean(1_035), 2.0);
        assert_eq!(t.sums.as_ptr(), ptr);
    }
}
