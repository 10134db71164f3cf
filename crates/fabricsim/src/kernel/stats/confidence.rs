//! Confidence intervals produced by the batch-means estimators.
//!
//! Kept as a plain `Copy` value so that stopping rules and reports can collect
//! intervals from heterogeneous estimators without borrowing them.

use super::student_t::t_quantile_975;

/// A symmetric 95% confidence interval `mean ± half_width` for a steady-state
/// mean, estimated from `batches` batch means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConfidenceInterval {
    /// Point estimate (mean of the batch means).
    pub mean: f64,
    /// Half-width of the 95% interval.
    pub half_width: f64,
    /// Number of batches the interval was computed from.
    pub batches: u32,
}

impl ConfidenceInterval {
    /// Builds the interval from batch *sums* of equal-size batches: batch `i`
    /// has mean `sums[i] / batch_size`. Returns `None` with fewer than 2
    /// batches.
    ///
    /// Uses the sample standard deviation of the batch means and
    /// `t_quantile_975(k - 1) / sqrt(k)`. Deviations are taken relative to the
    /// first batch (shifted data), so identical batches give exactly zero
    /// half-width and large offsets do not cancel catastrophically.
    pub fn from_batch_sums(sums: &[f64], batch_size: f64) -> Option<Self> {
        let k = sums.len();
        if k < 2 {
            return None;
        }
        let kf = k as f64;
        let s0 = sums[0];
        let mean_d = sums.iter().map(|&s| s - s0).sum::<f64>() / kf;
        let ss: f64 = sums
            .iter()
            .map(|&s| {
                let d = s - s0 - mean_d;
                d * d
            })
            .sum();
        let inv = 1.0 / batch_size;
        let sd = (ss / (kf - 1.0)).sqrt() * inv;
        Some(Self {
            mean: (s0 + mean_d) * inv,
            half_width: t_quantile_975(k as u64 - 1) * sd / kf.sqrt(),
            batches: u32::try_from(k).unwrap_or(u32::MAX),
        })
    }

    /// Half-width relative to the mean, `half_width / |mean|`.
    ///
    /// `0` when both are zero (a quantity that is identically zero is known
    /// exactly) and `+∞` when only the mean is zero.
    #[inline]
    pub fn relative_half_width(&self) -> f64 {
        if self.mean == 0.0 {
            if self.half_width == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            self.half_width / self.mean.abs()
        }
    }

    /// Lower end `mean - half_width`.
    #[inline]
    pub fn lower(&self) -> f64 {
        self.mean - self.half_width
    }

    /// Upper end `mean + half_width`.
    #[inline]
    pub fn upper(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Whether `x` lies in the closed interval.
    #[inline]
    pub fn contains(&self, x: f64) -> bool {
        (x - self.mean).abs() <= self.half_width
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(mean: f64, half_width: f64) -> ConfidenceInterval {
        ConfidenceInterval { mean, half_width, batches: 10 }
    }

    #[test]
    fn relative_half_width_cases() {
        assert_eq!(ci(10.0, 1.0).relative_half_width(), 0.1);
        assert_eq!(ci(-4.0, 1.0).relative_half_width(), 0.25);
        assert_eq!(ci(0.0, 0.5).relative_half_width(), f64::INFINITY);
        assert_eq!(ci(0.0, 0.0).relative_half_width(), 0.0);
    }

    #[test]
    fn contains_bounds() {
        let c = ci(5.0, 2.0);
        assert!(c.contains(5.0));
        assert!(c.contains(3.0));
        assert!(c.contains(7.0));
        assert!(!c.contains(7.01));
        assert!(!c.contains(2.99));
        assert_eq!(c.lower(), 3.0);
        assert_eq!(c.upper(), 7.0);
    }

    #[test]
    fn from_batch_sums_known() {
        // Batch means 1, 2, 3, 4 (batch size 2): mean 2.5, s² = 5/3.
        let c = ConfidenceInterval::from_batch_sums(&[2.0, 4.0, 6.0, 8.0], 2.0).unwrap();
        assert_eq!(c.batches, 4);
        assert!((c.mean - 2.5).abs() < 1e-15);
        let want = 3.182_446_305 * (5.0f64 / 3.0).sqrt() / 2.0;
        assert!((c.half_width - want).abs() < 1e-12, "{}", c.half_width);

        let same = ConfidenceInterval::from_batch_sums(&[0.3; 7], 3.0).unwrap();
        assert_eq!(same.half_width, 0.0);
        assert!(ConfidenceInterval::from_batch_sums(&[1.0], 1.0).is_none());
        assert!(ConfidenceInterval::from_batch_sums(&[], 1.0).is_none());
    }
}
