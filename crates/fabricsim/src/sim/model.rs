//! What the driver needs of a model: the [`Model`] trait every model
//! implements, the constants it gives once ([`ModelInfo`]), where it stands
//! ([`Status`]) and what a closed measurement reports ([`Summary`]).

use super::component::Context;
use super::metric_set::MetricSet;
use crate::error::Result;
use crate::kernel::{EventSet, Time};
use crate::report::MetricSummary;

/// Named metric summaries, in report order.
pub type Metrics = Vec<(String, MetricSummary)>;
/// Named report sections (per-node tables, a deadlock report, ...).
pub type Sections = Vec<(String, serde_json::Value)>;

/// Whether the load a model accepted (metric `accepted`) fell short of what
/// its sources offered (metric `offered`) by more than the interval (or 5%
/// of the offer without one) and 3%: the fabric could not carry the offer.
/// False when either metric is missing (saturated sources offer no load).
pub fn accepted_below_offered(metrics: &Metrics, offered: &str, accepted: &str) -> bool {
    let get = |name: &str| metrics.iter().find(|(n, _)| n == name).map(|(_, m)| m);
    match (get(offered), get(accepted)) {
        (Some(offered), Some(accepted)) => {
            let margin = accepted.ci_half_width.unwrap_or(0.05 * offered.mean);
            accepted.mean + margin < 0.97 * offered.mean
        }
        _ => false,
    }
}

/// The per-model constants the driver needs, given once.
#[derive(Clone, Copy, Debug)]
pub struct ModelInfo {
    /// What one observation is, for the run information ("data frames", "I/Os", "packets").
    pub unit: &'static str,
    /// No observation for this long with something in flight triggers
    /// [`Model::find_deadlock`]; None: the model cannot deadlock.
    pub quiet_window: Option<Time>,
    /// Look for a deadlock this often (simulated time) even while other work
    /// progresses: a model whose traffic classes use separate buffers (VLs)
    /// can deadlock in one while the others flow. None: only when quiet.
    pub deadlock_check_period: Option<Time>,
}

/// Where a model stands, read by the driver every thousand events or so.
#[derive(Clone, Copy, Debug, Default)]
pub struct Status {
    /// Observations completed since the start (warm-up included).
    pub observations: u64,
    /// Frames, packets or I/Os generated and not yet finished.
    pub in_flight: u64,
    /// Bytes the model's state (records, queues; not the event set) occupies now.
    pub memory_bytes: u64,
}

/// A closed measurement: metric summaries, report sections, and the
/// model's marks of a result that is not what was asked (for example
/// accepted load below offered load).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub metrics: Metrics,
    pub sections: Sections,
    pub flags: Vec<String>,
}

/// What the driver needs of a model. The driver owns the clock and the
/// event set and lends them to the model for every event ([`Context`]);
/// everything per event stays inside [`Model::dispatch`], the rest is
/// called once per thousand events or so, or once per run.
pub trait Model {
    /// The model's composite event, dispatched with one `match`.
    type Event: Copy;
    /// The model's future-event set ([`EventQueue`](crate::kernel::EventQueue) for most).
    type Queue: EventSet<Self::Event>;
    fn info(&self) -> ModelInfo;
    /// An empty event set of the kind and shape this model runs on.
    fn event_set(&self) -> Self::Queue;
    /// Schedules the first events; returns the time the workload starts at.
    fn start(&mut self, cx: &mut Context<Self::Event, Self::Queue>) -> Time;
    /// Handles one event.
    fn dispatch(&mut self, cx: &mut Context<Self::Event, Self::Queue>, event: Self::Event);
    /// The next event, shown before the current one runs: a model may ask
    /// the caches for the state it will read (see [`crate::kernel::prefetch`]).
    /// A hint only, that must not change the run.
    #[inline(always)]
    fn prefetch(&self, _event: &Self::Event) {}
    /// Whether [`Self::prefetch`] does anything: else the driver does not
    /// look for the next event.
    #[inline(always)]
    fn looks_ahead(&self) -> bool {
        false
    }
    fn status(&self) -> Status;
    fn metrics(&self) -> &MetricSet;
    /// Warm-up deletion: resets the metric set and any measured state of the model.
    fn reset_statistics(&mut self, now: Time);
    /// Closes the measurement at `stop`.
    fn summaries(&mut self, stop: Time) -> Summary;
    /// Stops generating new work (drain).
    fn stop_sources(&mut self);
    /// Totals, after checking conservation: every item generated is
    /// finished, dropped with a reason, or still in flight. `events_pending`
    /// is the size of the event set (0 after a full drain).
    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>>;

    /// Frames or packets moved, for the frames-per-second figure.
    fn frames_moved(&self) -> u64 {
        self.status().observations
    }
    /// Work waiting at the sources (messages, I/Os); a backlog that keeps
    /// growing means the offered load exceeds what the model can carry.
    fn backlog(&self) -> u64 {
        0
    }
    /// Whether a deadlock ends the run (else it is reported, flagged, and
    /// the run goes on measuring what still moves).
    fn stops_on_deadlock(&self) -> bool {
        true
    }
    /// Looks for a cycle of waits that stops all progress at `now`;
    /// describes it. A model may keep what it saw at earlier looks (a
    /// cycle must persist to count).
    fn find_deadlock(&mut self, _now: Time) -> Option<serde_json::Value> {
        None
    }
    /// Where an overloaded model's backlog sits and which resource is
    /// saturated, for the `overload` section.
    fn overload_report(&self, _now: Time) -> serde_json::Value {
        serde_json::json!({})
    }
    /// When the measurement ends, given the time the run stopped at.
    fn stop_time(&self, now: Time) -> Time {
        now
    }
}
