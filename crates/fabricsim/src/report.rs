//! What a run returns: metric summaries with confidence intervals, counters
//! and run information, serializable to the JSON the Python package reads.

use serde::Serialize;

/// One metric: its mean, the 95% CI half-width (batch means) and, where it
/// is a distribution, percentiles or the time fraction at each level.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MetricSummary {
    pub mean: f64,
    pub ci_half_width: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p95: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Vec<f64>>,
}

impl MetricSummary {
    pub fn with_ci(mean: f64, ci_half_width: Option<f64>) -> Self {
        MetricSummary {
            mean,
            ci_half_width,
            count: None,
            min: None,
            p50: None,
            p95: None,
            p99: None,
            max: None,
            distribution: None,
        }
    }

    pub fn value(mean: f64) -> Self {
        Self::with_ci(mean, None)
    }
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every headline confidence interval reached the requested precision.
    Precision,
    /// The plan's maximum number of observations was reached after warm-up.
    MaxObservations,
    /// The simulated-time cap `run.max_time_ms` was reached.
    MaxTime,
    /// A cycle of full buffers stopped all progress (see the `deadlock` section).
    Deadlock,
    /// No event was left to run.
    Idle,
    /// No event was left to run, yet work was unfinished and no cycle of
    /// waits held it (see the `stall` section).
    Stalled,
    /// The model's backlog outgrew `run.memory_budget_mb` (see the `overload` section).
    Overload,
    /// The caller stopped the run (Ctrl-C).
    Interrupted,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    pub sim_time_us: f64,
    pub warmup_time_us: f64,
    pub measured_time_us: f64,
    pub wall_time_s: f64,
    pub events: u64,
    pub events_per_s: f64,
    /// Frames (data and ACK) delivered per second of wall time.
    pub frames_per_s: f64,
    /// What the measurement plan counts: "data frames", "I/Os", "packets".
    pub observation_unit: &'static str,
    /// Observations measured after warm-up.
    pub observations: u64,
    pub stop_reason: StopReason,
    /// Marks of a result that is not what was asked: `precision_not_reached`,
    /// `warmup_not_finished`, `no_observations`, `no_traffic`,
    /// `accepted_below_offered`, `backlog_growing`, `overload`, `deadlock`, `stalled`,
    /// `max_time`, `interrupted`, `drain_not_finished`, and the model's own.
    /// Empty for a clean result.
    pub flags: Vec<String>,
}

/// The result of one run. Metrics and counters keep the order the model
/// reports them in, so summaries read in a sensible order.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub scenario: serde_json::Value,
    pub metrics: Vec<(String, MetricSummary)>,
    pub counters: Vec<(String, i64)>,
    pub run: RunInfo,
    /// Further sections by name (per-node tables, a deadlock report, ...).
    pub sections: Vec<(String, serde_json::Value)>,
}

impl RunReport {
    pub fn metric(&self, name: &str) -> Option<&MetricSummary> {
        self.metrics.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }

    pub fn counter(&self, name: &str) -> Option<i64> {
        self.counters.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
    }

    /// The report as JSON, metrics and counters as objects in model order.
    pub fn to_json(&self) -> serde_json::Value {
        let mut metrics = serde_json::Map::new();
        for (name, m) in &self.metrics {
            metrics.insert(name.clone(), serde_json::to_value(m).expect("metric serializes"));
        }
        let mut counters = serde_json::Map::new();
        for (name, c) in &self.counters {
            counters.insert(name.clone(), (*c).into());
        }
        let mut out = serde_json::json!({
            "scenario": self.scenario,
            "metrics": metrics,
            "counters": counters,
            "run": self.run,
        });
        for (name, value) in &self.sections {
            out[name.as_str()] = value.clone();
        }
        out
    }
}
