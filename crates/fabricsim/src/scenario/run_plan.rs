//! `[run]`: the seed and the measurement plan, common to every model.
//! Observations are counted in the model's own unit (data frames delivered
//! for the FC fabric, I/Os completed for the loop); the counts a user leaves
//! out take the model's defaults, and the minimum follows the maximum the
//! user set.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, require_finite_positive};
use crate::error::Result;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RunPlan {
    /// Master seed; every component draws from its own named stream of it.
    pub seed: u64,
    /// Observations (data frames, I/Os) before statistics are reset (warm-up
    /// deletion). Default: 20000 frames (FC fabric), 200 I/Os (loop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_observations: Option<u64>,
    /// Stop after this many observations past warm-up. Default: 1000000
    /// frames (FC fabric), 20000 I/Os (loop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_observations: Option<u64>,
    /// Never stop on precision before this many observations past warm-up.
    /// Default: 50000 frames (FC fabric) or 1000 I/Os (loop), at most `max_observations`.
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
    /// that grows without bound ends the run, not the machine.
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
        let (_, max, min) = self.counts();
        require(max >= 1, "run.max_observations", max, "an integer >= 1")?;
        require(min <= max, "run.min_observations", min, "an integer <= run.max_observations")?;
        require(
            self.precision >= 0.0 && self.precision < 1.0,
            "run.precision",
            self.precision,
            "0 (run to max_observations) or a relative half-width in (0, 1)",
        )?;
        require((2..=1024).contains(&self.batches), "run.batches", self.batches, "an integer from 2 to 1024")?;
        require_finite_positive(self.max_time_ms, "run.max_time_ms", "a positive number of milliseconds")?;
        require(
            (16.0..=1_048_576.0).contains(&self.memory_budget_mb),
            "run.memory_budget_mb",
            self.memory_budget_mb,
            "16 to 1048576 MiB",
        )
    }
}
