//! Method of batch means over observations, with bounded memory.
//!
//! Successive observations of a simulation (e.g. per-frame latencies) are
//! correlated, so their sample variance says nothing about the precision of
//! the mean. Grouping them into large batches makes the batch means nearly
//! independent. Since the run length is not known in advance, batches start
//! at one observation and the batch size doubles (merging adjacent pairs)
//! whenever `2 * target` batches are complete, so memory stays fixed and the
//! number of batches stays in `[target, 2 * target)`.

use super::confidence::ConfidenceInterval;

/// Batch-means estimator over a stream of observations.
///
/// Allocates its batch buffer once in [`new`](Self::new); `add`, `interval`
/// and `reset` never allocate.
#[derive(Clone, Debug)]
pub struct BatchMeans {
    /// Sums of the complete batches; only `sums[..complete]` is meaningful.
    sums: Box<[f64]>,
    complete: usize,
    target: usize,
    batch_size: u64,
    cur_sum: f64,
    cur_n: u64,
    total_sum: f64,
    total_n: u64,
}

impl BatchMeans {
    /// Creates an estimator aiming at `target_batches` batches (e.g. 32).
    ///
    /// # Panics
    /// If `target_batches < 2` (a variance needs at least two batches).
    pub fn new(target_batches: u32) -> Self {
        assert!(target_batches >= 2, "BatchMeans needs target_batches >= 2");
        let target = target_batches as usize;
        Self {
            sums: vec![0.0; 2 * target].into_boxed_slice(),
            complete: 0,
            target,
            batch_size: 1,
            cur_sum: 0.0,
            cur_n: 0,
            total_sum: 0.0,
            total_n: 0,
        }
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.total_sum += x;
        self.total_n += 1;
        self.cur_sum += x;
        self.cur_n += 1;
        if self.cur_n == self.batch_size {
            self.close_batch();
        }
    }

    #[inline]
    fn close_batch(&mut self) {
        self.sums[self.complete] = self.cur_sum;
        self.complete += 1;
        self.cur_sum = 0.0;
        self.cur_n = 0;
        if self.complete == self.sums.len() {
            for i in 0..self.target {
                self.sums[i] = self.sums[2 * i] + self.sums[2 * i + 1];
            }
            self.complete = self.target;
            self.batch_size *= 2;
        }
    }

    /// Number of observations since construction or the last reset.
    #[inline]
    pub fn count(&self) -> u64 {
        self.total_n
    }

    /// Mean of all observations, including the incomplete batch (0 if none).
    #[inline]
    pub fn mean(&self) -> f64 {
        if self.total_n == 0 {
            0.0
        } else {
            self.total_sum / self.total_n as f64
        }
    }

    /// Number of complete batches.
    #[inline]
    pub fn batches(&self) -> u32 {
        self.complete as u32
    }

    /// Current number of observations per batch.
    #[inline]
    pub fn batch_size(&self) -> u64 {
        self.batch_size
    }

    /// Batch-buffer capacity (`2 * target_batches`); never changes.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.sums.len()
    }

    /// 95% confidence interval over the complete batches; `None` while fewer
    /// than `target_batches` batches are complete. Its `mean` is the mean of
    /// the complete batches (the incomplete batch is excluded).
    pub fn interval(&self) -> Option<ConfidenceInterval> {
        if self.complete < self.target {
            return None;
        }
        ConfidenceInterval::from_batch_sums(&self.sums[..self.complete], self.batch_size as f64)
    }

    /// Forgets every observation (warm-up deletion) and returns to batch size
    /// 1, keeping the allocation.
    pub fn reset(&mut self) {
        self.complete = 0;
        self.batch_size = 1;
        self.cur_sum = 0.0;
        self.cur_n = 0;
        self.total_sum = 0.0;
        self.total_n = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64* + Box-Muller: enough for tests, no external crates.
    struct Rng(u64);
    impl Rng {
        fn next_u64(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Uniform in (0, 1].
        fn uniform(&mut self) -> f64 {
            ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
        }
        fn normal(&mut self) -> f64 {
            let r = (-2.0 * self.uniform().ln()).sqrt();
            r * (2.0 * std::f64::consts::PI * self.uniform()).cos()
        }
    }

    #[test]
    fn small_case_by_hand() {
        let mut b = BatchMeans::new(2);
        for x in [1.0, 2.0, 3.0] {
            b.add(x);
        }
        // Batches {1}, {2}, {3}; target 2 reached, no merge yet.
        assert_eq!((b.batches(), b.batch_size()), (3, 1));
        let ci = b.interval().unwrap();
        assert_eq!(ci.mean, 2.0);
        assert!((ci.half_width - 4.302_652_730 * 1.0 / 3f64.sqrt()).abs() < 1e-12);
        b.add(4.0);
        // 4 complete batches = 2 * target → merged into {1,2}, {3,4}.
        assert_eq!((b.batches(), b.batch_size()), (2, 2));
        let ci = b.interval().unwrap();
        assert_eq!(ci.mean, 2.5);
        // Batch means 1.5, 3.5: s = sqrt(2), t(1) * s / sqrt(2) = 12.706...
        assert!((ci.half_width - 12.706_204_736).abs() < 1e-9);
        b.add(100.0);
        // Incomplete batch is in mean() but not in the interval.
        assert_eq!(b.count(), 5);
        assert_eq!(b.mean(), 110.0 / 5.0);
        assert_eq!(b.interval().unwrap().mean, 2.5);
    }

    #[test]
    fn none_before_target() {
        let mut b = BatchMeans::new(32);
        assert!(b.interval().is_none());
        assert_eq!(b.mean(), 0.0);
        for i in 0..31 {
            b.add(i as f64);
        }
        assert!(b.interval().is_none());
        b.add(0.0);
        assert_eq!(b.interval().unwrap().batches, 32);
    }

    #[test]
    fn constant_input_zero_half_width() {
        let mut b = BatchMeans::new(32);
        for _ in 0..100_000 {
            b.add(0.75);
        }
        let ci = b.interval().unwrap();
        assert_eq!(ci.half_width, 0.0);
        assert_eq!(ci.mean, 0.75);
        assert_eq!(b.mean(), 0.75);

        // Inexact constants only differ by rounding.
        let mut b = BatchMeans::new(32);
        for _ in 0..100_000 {
            b.add(0.1);
        }
        let ci = b.interval().unwrap();
        assert!(ci.half_width < 1e-12, "{}", ci.half_width);
        assert!((ci.mean - 0.1).abs() < 1e-12);
    }

    #[test]
    fn batch_count_and_memory_bounded() {
        let mut b = BatchMeans::new(32);
        let ptr = b.sums.as_ptr();
        let cap = b.capacity();
        assert_eq!(cap, 64);
        let mut rng = Rng(7);
        for i in 0..1_000_000u64 {
            b.add(rng.uniform());
            if i >= 31 {
                let k = b.batches();
                assert!((32..64).contains(&k), "k={k} at i={i}");
            }
        }
        assert_eq!(b.capacity(), cap);
        assert_eq!(b.sums.as_ptr(), ptr);
        assert_eq!(b.count(), 1_000_000);
        // Observations in complete batches + incomplete batch = count.
        assert_eq!(b.batches() as u64 * b.batch_size() + b.cur_n, b.count());
        b.reset();
        assert_eq!((b.count(), b.batches(), b.batch_size()), (0, 0, 1));
        assert_eq!(b.sums.as_ptr(), ptr);
        assert!(b.interval().is_none());
        b.add(3.0);
        assert_eq!(b.mean(), 3.0);
    }

    #[test]
    fn coverage_of_iid_normal() {
        let true_mean = 5.0;
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut b = BatchMeans::new(32);
        let reps = 400;
        let mut covered = 0;
        for rep in 0..reps {
            b.reset();
            // Vary the length so the batch count varies between replications.
            let n = 3000 + 37 * rep;
            for _ in 0..n {
                b.add(true_mean + 2.0 * rng.normal());
            }
            if b.interval().unwrap().contains(true_mean) {
                covered += 1;
            }
        }
        let frac = covered as f64 / reps as f64;
        assert!((0.90..=0.99).contains(&frac), "coverage {frac}");
    }

    #[test]
    #[should_panic]
    fn target_one_rejected() {
        let _ = BatchMeans::new(1);
    }
}
