//! Sequential stopping rule for steady-state runs.
//!
//! A run should last until every tracked estimate is precise enough (relative
//! half-width of its 95% interval), but never less than a minimum (batch-means
//! intervals are unreliable early) nor more than a hard budget.

use super::confidence::ConfidenceInterval;

/// When to stop a simulation run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    /// Target relative half-width (e.g. 0.05 for ±5%); `<= 0` disables the
    /// precision criterion so that only `max_observations` stops the run.
    pub relative_precision: f64,
    /// Hard budget: stop once this many observations have been made.
    pub max_observations: u64,
    /// No precision stop before this many observations.
    pub min_observations: u64,
}

/// Outcome of [`StopRule::decide`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopDecision {
    /// Keep simulating.
    Continue,
    /// Every interval is within the requested relative precision.
    PrecisionReached,
    /// The observation budget is exhausted.
    MaxObservations,
}

impl StopDecision {
    /// Whether the run should stop.
    #[inline]
    pub fn is_stop(self) -> bool {
        self != StopDecision::Continue
    }
}

impl StopRule {
    /// Decides from the observation count and the current intervals of all
    /// tracked estimates (`None` = not yet available).
    ///
    /// `MaxObservations` has priority; `PrecisionReached` needs
    /// `relative_precision > 0`, at least `min_observations`, and every
    /// interval present with `relative_half_width() <= relative_precision`
    /// (vacuously true for an empty slice).
    pub fn decide(&self, observations: u64, intervals: &[Option<ConfidenceInterval>]) -> StopDecision {
        if observations >= self.max_observations {
            return StopDecision::MaxObservations;
        }
        if self.relative_precision > 0.0
            && observations >= self.min_observations
            && intervals.iter().all(|ci| ci.is_some_and(|ci| ci.relative_half_width() <= self.relative_precision))
        {
            return StopDecision::PrecisionReached;
        }
        StopDecision::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(mean: f64, half_width: f64) -> Option<ConfidenceInterval> {
        Some(ConfidenceInterval { mean, half_width, batches: 32 })
    }

    const RULE: StopRule = StopRule { relative_precision: 0.05, max_observations: 1_000, min_observations: 100 };

    #[test]
    fn max_observations_wins() {
        assert_eq!(RULE.decide(1_000, &[None]), StopDecision::MaxObservations);
        assert_eq!(RULE.decide(5_000, &[ci(1.0, 0.0)]), StopDecision::MaxObservations);
        assert!(RULE.decide(1_000, &[]).is_stop());
    }

    #[test]
    fn precision_reached() {
        assert_eq!(RULE.decide(100, &[ci(10.0, 0.5), ci(-2.0, 0.01)]), StopDecision::PrecisionReached);
        assert_eq!(RULE.decide(999, &[ci(0.0, 0.0)]), StopDecision::PrecisionReached);
    }

    #[test]
    fn continue_cases() {
        // Too few observations.
        assert_eq!(RULE.decide(99, &[ci(10.0, 0.1)]), StopDecision::Continue);
        // One interval missing.
        assert_eq!(RULE.decide(500, &[ci(10.0, 0.1), None]), StopDecision::Continue);
        // One interval too wide.
        assert_eq!(RULE.decide(500, &[ci(10.0, 0.1), ci(10.0, 0.51)]), StopDecision::Continue);
        // Zero mean with positive half-width is never precise.
        assert_eq!(RULE.decide(500, &[ci(0.0, 1e-9)]), StopDecision::Continue);
        // Precision criterion disabled.
        let off = StopRule { relative_precision: 0.0, ..RULE };
        assert_eq!(off.decide(500, &[ci(10.0, 0.0)]), StopDecision::Continue);
        assert!(!off.decide(500, &[]).is_stop());
    }
}
