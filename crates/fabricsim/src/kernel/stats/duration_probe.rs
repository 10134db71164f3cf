//! The one duration probe of every model: exact count, sum, minimum and
//! maximum, log-linear percentiles, and batch means for a 95% confidence
//! interval of the mean. Durations are recorded in picoseconds and reported
//! in microseconds.

use super::{BatchMeans, ConfidenceInterval, LogHistogram};
use crate::kernel::Time;

#[derive(Clone, Debug)]
pub struct DurationProbe {
    hist: LogHistogram,
    batches: BatchMeans,
}

impl DurationProbe {
    /// A probe whose batch means aim at `batches` batches.
    pub fn new(batches: u32) -> Self {
        DurationProbe { hist: LogHistogram::new(), batches: BatchMeans::new(batches) }
    }

    #[inline]
    pub fn record(&mut self, ps: Time) {
        self.hist.record(ps);
        self.batches.add(ps as f64 * 1e-6);
    }

    pub fn count(&self) -> u64 {
        self.hist.count()
    }

    /// Exact mean in microseconds (NaN when empty).
    pub fn mean_us(&self) -> f64 {
        if self.hist.count() > 0 {
            self.hist.mean() * 1e-6
        } else {
            f64::NAN
        }
    }

    /// Confidence interval of the mean, in microseconds.
    pub fn interval(&self) -> Option<ConfidenceInterval> {
        self.batches.interval()
    }

    /// Value at percentile `p` in microseconds (None when empty).
    pub fn percentile_us(&self, p: f64) -> Option<f64> {
        (self.hist.count() > 0).then(|| self.hist.percentile(p) as f64 * 1e-6)
    }

    pub fn reset(&mut self) {
        self.hist.reset();
        self.batches.reset();
    }
}
