//! Running mean and variance (Welford's algorithm).
//!
//! The naive `sum(x²) - n·mean²` formula loses all precision when the mean is
//! large relative to the spread (e.g. latencies in picoseconds); Welford's
//! update keeps the centred second moment directly and is stable.

/// Running count, mean, sample variance, minimum and maximum of `f64` samples.
///
/// All accessors return `0.0` while the accumulator is empty.
#[derive(Clone, Debug, Default)]
pub struct Welford {
    n: u64,
    mean: f64,
    /// Sum of squared deviations from the current mean.
    m2: f64,
    min: f64,
    max: f64,
}

impl Welford {
    /// An empty accumulator.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        } else {
            if x < self.min {
                self.min = x;
            }
            if x > self.max {
                self.max = x;
            }
        }
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Number of observations.
    #[inline]
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Arithmetic mean (0 when empty).
    #[inline]
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Unbiased sample variance (divides by `n - 1`; 0 with fewer than 2 samples).
    #[inline]
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }

    /// Sample standard deviation, `sqrt(variance())`.
    #[inline]
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// Smallest observation (0 when empty).
    #[inline]
    pub fn min(&self) -> f64 {
        self.min
    }

    /// Largest observation (0 when empty).
    #[inline]
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Combines another accumulator into this one (Chan et al.'s parallel
    /// formula), as if all of `other`'s observations had been added here.
    pub fn merge(&mut self, other: &Welford) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = other.clone();
            return;
        }
        let na = self.n as f64;
        let nb = other.n as f64;
        let n = self.n + other.n;
        let nf = n as f64;
        let delta = other.mean - self.mean;
        self.mean += delta * (nb / nf);
        self.m2 += other.m2 + delta * delta * (na * nb / nf);
        self.n = n;
        if other.min < self.min {
            self.min = other.min;
        }
        if other.max > self.max {
            self.max = other.max;
        }
    }

    /// Forgets all observations.
    #[inline]
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    #[test]
    fn known_values() {
        let mut w = Welford::new();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            w.add(x);
        }
        assert_eq!(w.count(), 8);
        assert!(close(w.mean(), 5.0, 1e-15));
        // Sum of squared deviations = 32, n - 1 = 7.
        assert!(close(w.variance(), 32.0 / 7.0, 1e-14));
        assert!(close(w.std_dev(), (32.0f64 / 7.0).sqrt(), 1e-14));
        assert_eq!(w.min(), 2.0);
        assert_eq!(w.max(), 9.0);
    }

    #[test]
    fn empty_and_single() {
        let mut w = Welford::default();
        assert_eq!(w.count(), 0);
        assert_eq!(w.mean(), 0.0);
        assert_eq!(w.variance(), 0.0);
        w.add(-3.5);
        assert_eq!(w.mean(), -3.5);
        assert_eq!(w.variance(), 0.0);
        assert_eq!(w.min(), -3.5);
        assert_eq!(w.max(), -3.5);
    }

    #[test]
    fn stable_with_large_offset() {
        let mut w = Welford::new();
        for x in [1e12 + 4.0, 1e12 + 7.0, 1e12 + 13.0, 1e12 + 16.0] {
            w.add(x);
        }
        assert!(close(w.mean(), 1e12 + 10.0, 1e-15));
        assert!(close(w.variance(), 30.0, 1e-9));
    }

    #[test]
    fn merge_matches_sequential() {
        let xs: Vec<f64> = (0..100).map(|i| ((i * 37) % 101) as f64 * 0.5 - 7.0).collect();
        let mut all = Welford::new();
        xs.iter().for_each(|&x| all.add(x));
        let mut a = Welford::new();
        let mut b = Welford::new();
        xs[..33].iter().for_each(|&x| a.add(x));
        xs[33..].iter().for_each(|&x| b.add(x));
        a.merge(&b);
        assert_eq!(a.count(), all.count());
        assert!(close(a.mean(), all.mean(), 1e-13));
        assert!(close(a.variance(), all.variance(), 1e-12));
        assert_eq!(a.min(), all.min());
        assert_eq!(a.max(), all.max());

        // Merging with empty either way is the identity.
        let mut e = Welford::new();
        e.merge(&all);
        assert!(close(e.variance(), all.variance(), 0.0));
        e.merge(&Welford::new());
        assert_eq!(e.count(), 100);
    }

    #[test]
    fn reset_forgets() {
        let mut w = Welford::new();
        w.add(10.0);
        w.add(20.0);
        w.reset();
        assert_eq!(w.count(), 0);
        w.add(1.0);
        assert_eq!(w.min(), 1.0);
        assert_eq!(w.max(), 1.0);
        assert_eq!(w.mean(), 1.0);
    }
}
