//! `[run]`: the seed and the measurement plan, common to every model.
//! Observations are counted in the model's own unit (data frames delivered
//! for the FC fabric, I/Os completed for the loop); the counts a user leaves
//! out take the model's defaults, and the minimum follows the maximum the
//! user set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::Result;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RunPlan {
    /// Master seed; every component draws from its own named stream of it.
    pub seed: u64,
    /// Observations (data frames, I/Os, packets) before statistics are reset
    /// (warm-up deletion). Default: the model's (see the opening of this reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_observations: Option<u64>,
    /// Stop after this many observations past warm-up. Default: the model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_observations: Option<u64>,
    /// Never stop on precision before this many observations past warm-up.
    /// Default: the model's, at most `max_observations` (so it follows a lower maximum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_observations: Option<u64>,
    /// Stop once every headline 95% confidence interval is within ±this
    /// fraction of its mean (0.01 = ±1%); 0 runs to `max_observations`.
    pub precision: f64,
    /// Batch means keep between this many and twice this many batches.
    pub batches: u32,
    /// Cap on simulated time, in milliseconds.
    pub max_time_ms: f64,
    /// After stopping, stop new work and run until nothing is in flight
    /// (conservation: every injected frame or I/O finished).
    pub drain: bool,
    /// The run stops with `stop_reason = "overload"` when the model's state
    /// (waiting messages, frames, events) grows past this, in MiB: a backlog
    /// that grows without bound ends the run, not the machine. An InfiniBand
    /// fabric whose estimated build (forwarding tables, routing work,
    /// switches, HCAs, sources) exceeds it is refused before it is built.
    pub memory_budget_mb: f64,
}

impl Default for RunPlan {
    fn default() -> Self {
        RunPlan {
            seed: 1,
            warmup_observations: None,
            max_observations: None,
            min_observations: None,
            precision: 0.01,
            batches: 32,
            max_time_ms: 1.0e7,
            drain: false,
            memory_budget_mb: 1024.0,
        }
    }
}

/// A model's default observation counts: warm-up, maximum, and the minimum
/// (capped by the maximum in force).
#[derive(Clone, Copy, Debug)]
pub struct ObservationDefaults {
    pub warmup: u64,
    pub max: u64,
    pub min: u64,
}

pub const SEED: Range = Range::int("run.seed", 0, u64::MAX);
/// Observation counts: a million frames a second for eleven days.
pub const WARMUP: Range = Range::int("run.warmup_observations", 0, 1_000_000_000_000);
pub const MAX_OBSERVATIONS: Range = Range::int("run.max_observations", 1, 1_000_000_000_000);
pub const MIN_OBSERVATIONS: Range =
    Range::int("run.min_observations", 0, 1_000_000_000_000).note("at most run.max_observations");
pub const PRECISION: Range = Range::num("run.precision", 0.0, 0.5).note("0: run to run.max_observations");
pub const BATCHES: Range = Range::int("run.batches", 2, 1024);
/// 10^9 ms = 10^18 ps, a tenth of what u64 picoseconds hold.
pub const MAX_TIME_MS: Range = Range::num("run.max_time_ms", 0.0, 1e9).above().unit("ms").note("up to 11.6 days");

pub const MEMORY_BUDGET_MB: Range = Range::num("run.memory_budget_mb", 16.0, 1_048_576.0).unit("MiB");

pub const RANGES: &[Range] =
    &[SEED, WARMUP, MAX_OBSERVATIONS, MIN_OBSERVATIONS, PRECISION, BATCHES, MAX_TIME_MS, MEMORY_BUDGET_MB];

impl RunPlan {
    /// Fills the counts the user left out with `defaults`.
    pub fn fill_defaults(&mut self, defaults: ObservationDefaults) {
        let max = *self.max_observations.get_or_insert(defaults.max);
        self.warmup_observations.get_or_insert(defaults.warmup);
        self.min_observations.get_or_insert(defaults.min.min(max));
    }

    /// Warm-up, maximum and minimum observations (after `fill_defaults`).
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.warmup_observations.unwrap_or(0), self.max_observations.unwrap_or(1), self.min_observations.unwrap_or(0))
    }

    pub fn validate(&self) -> Result<()> {
        let (warmup, max, min) = self.counts();
        WARMUP.check_int(warmup)?;
        MAX_OBSERVATIONS.check_int(max)?;
        MIN_OBSERVATIONS.check_int(min)?;
        require(min <= max, "run.min_observations", min, "an integer <= run.max_observations")?;
        PRECISION.check(self.precision)?;
        BATCHES.check_int(self.batches)?;
        MAX_TIME_MS.check(self.max_time_ms)?;
        MEMORY_BUDGET_MB.check(self.memory_budget_mb)
    }
}
