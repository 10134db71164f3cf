//! Exact time averages of piecewise-constant levels.
//!
//! Queue lengths and buffer occupancies change only at events, so their time
//! average is an exact sum of `level × duration` pieces; no sampling needed.
//! [`LevelHistogram`] additionally keeps the time spent at each integer level
//! (the occupancy distribution), in exact integer picoseconds.

/// Time average and maximum of a piecewise-constant `f64` level.
#[derive(Clone, Debug)]
pub struct TimeWeighted {
    start_ps: u64,
    last_t: u64,
    level: f64,
    integral: f64,
    max: f64,
}

impl TimeWeighted {
    /// Starts at `start_ps` with level 0.
    pub fn new(start_ps: u64) -> Self {
        Self { start_ps, last_t: start_ps, level: 0.0, integral: 0.0, max: 0.0 }
    }

    /// Sets the level to `level` from `t_ps` on (`t_ps` non-decreasing).
    #[inline]
    pub fn set(&mut self, t_ps: u64, level: f64) {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        self.integral += self.level * t_ps.saturating_sub(self.last_t) as f64;
        self.last_t = t_ps;
        self.level = level;
        if level > self.max {
            self.max = level;
        }
    }

    /// Current level.
    #[inline]
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Largest level held since the start (or last reset), including the
    /// level in force at that time.
    #[inline]
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Time average from the start to `t_ps`; the current level if no time
    /// has elapsed.
    pub fn mean(&self, t_ps: u64) -> f64 {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        let span = t_ps.saturating_sub(self.start_ps);
        if span == 0 {
            return self.level;
        }
        (self.integral + self.level * t_ps.saturating_sub(self.last_t) as f64) / span as f64
    }

    /// Restarts averaging at `t_ps`, keeping the current level.
    pub fn reset(&mut self, t_ps: u64) {
        self.start_ps = t_ps;
        self.last_t = t_ps;
        self.integral = 0.0;
        self.max = self.level;
    }
}

/// Time spent at each integer level `0..=max_level`, in picoseconds.
///
/// The per-level array is allocated once in [`new`](Self::new).
#[derive(Clone, Debug)]
pub struct LevelHistogram {
    time_ps: Box<[u64]>,
    start_ps: u64,
    last_t: u64,
    level: usize,
}

impl LevelHistogram {
    /// Levels `0..=max_level`, starting at `start_ps` at level 0.
    pub fn new(max_level: usize, start_ps: u64) -> Self {
        Self { time_ps: vec![0; max_level + 1].into_boxed_slice(), start_ps, last_t: start_ps, level: 0 }
    }

    /// Sets the level from `t_ps` on (`t_ps` non-decreasing).
    ///
    /// # Panics
    /// If `level > max_level`.
    #[inline]
    pub fn set(&mut self, t_ps: u64, level: usize) {
        assert!(level < self.time_ps.len(), "level {level} above max_level {}", self.max_level());
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        self.time_ps[self.level] += t_ps.saturating_sub(self.last_t);
        self.last_t = t_ps;
        self.level = level;
    }

    /// Highest representable level.
    #[inline]
    pub fn max_level(&self) -> usize {
        self.time_ps.len() - 1
    }

    /// Current level.
    #[inline]
    pub fn level(&self) -> usize {
        self.level
    }

    /// Picoseconds spent at `level` from the start up to `t_ps`.
    pub fn time_at(&self, level: usize, t_ps: u64) -> u64 {
        let mut t = self.time_ps[level];
        if level == self.level {
            t += t_ps.saturating_sub(self.last_t);
        }
        t
    }

    /// Writes the fraction of time at each level up to `t_ps` into `out`
    /// (length `max_level + 1`) without allocating. If no time has elapsed the
    /// current level gets fraction 1.
    pub fn fractions_into(&self, t_ps: u64, out: &mut [f64]) {
        assert_eq!(out.len(), self.time_ps.len(), "output length must be max_level + 1");
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        let span = t_ps.saturating_sub(self.start_ps);
        if span == 0 {
            out.fill(0.0);
            out[self.level] = 1.0;
            return;
        }
        // Reporting path: divide (correctly rounded) rather than multiply.
        let span = span as f64;
        for (level, o) in out.iter_mut().enumerate() {
            *o = self.time_at(level, t_ps) as f64 / span;
        }
    }

    /// Fraction of time at each level `0..=max_level` up to `t_ps` (sums to 1).
    pub fn fractions(&self, t_ps: u64) -> Vec<f64> {
        let mut out = vec![0.0; self.time_ps.len()];
        self.fractions_into(t_ps, &mut out);
        out
    }

    /// Time-average level up to `t_ps` (the current level if no time elapsed).
    pub fn mean(&self, t_ps: u64) -> f64 {
        debug_assert!(t_ps >= self.last_t, "time went backwards: {t_ps} < {}", self.last_t);
        let span = t_ps.saturating_sub(self.start_ps);
        if span == 0 {
            return self.level as f64;
        }
        let weighted: u128 = (0..self.time_ps.len()).map(|l| l as u128 * self.time_at(l, t_ps) as u128).sum();
        weighted as f64 / span as f64
    }

    /// Restarts at `t_ps`, keeping the current level and the allocation.
    pub fn reset(&mut self, t_ps: u64) {
        self.time_ps.fill(0);
        self.start_ps = t_ps;
        self.last_t = t_ps;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_by_hand() {
        let mut w = TimeWeighted::new(100);
        assert_eq!(w.mean(100), 0.0);
        w.set(100, 2.0);
        w.set(110, 5.0);
        w.set(130, 1.0);
        // 10·2 + 20·5 + 10·1 = 130 over 40.
        assert_eq!(w.mean(140), 130.0 / 40.0);
        assert_eq!(w.max(), 5.0);
        assert_eq!(w.level(), 1.0);
        w.reset(140);
        assert_eq!(w.max(), 1.0);
        assert_eq!(w.mean(140), 1.0);
        assert_eq!(w.mean(150), 1.0);
        w.set(150, 3.0);
        assert_eq!(w.mean(160), 2.0);
        assert_eq!(w.max(), 3.0);
    }

    #[test]
    fn level_histogram_by_hand() {
        let mut h = LevelHistogram::new(3, 0);
        h.set(10, 2); // level 0 for [0,10)
        h.set(40, 1); // level 2 for [10,40)
        h.set(50, 3); // level 1 for [40,50)
                      // level 3 for [50,100)
        assert_eq!(h.fractions(100), vec![0.1, 0.1, 0.3, 0.5]);
        assert_eq!(h.mean(100), (0.0 * 10.0 + 2.0 * 30.0 + 10.0 + 3.0 * 50.0) / 100.0);
        let s: f64 = h.fractions(77).iter().sum();
        assert!((s - 1.0).abs() < 1e-12);
        assert_eq!(h.time_at(3, 100), 50);
        h.reset(100);
        assert_eq!(h.fractions(100), vec![0.0, 0.0, 0.0, 1.0]);
        assert_eq!(h.mean(100), 3.0);
        h.set(120, 0);
        assert_eq!(h.fractions(140), vec![0.5, 0.0, 0.0, 0.5]);
        assert_eq!(h.mean(140), 1.5);
        let mut buf = [9.0; 4];
        h.fractions_into(140, &mut buf);
        assert_eq!(buf, [0.5, 0.0, 0.0, 0.5]);
    }

    #[test]
    #[should_panic]
    fn level_above_max_panics() {
        let mut h = LevelHistogram::new(3, 0);
        h.set(5, 4);
    }
}
