//! The model-independent measurement driver: warm-up deletion, the stop
//! rule on every headline interval, the simulated-time cap, quiet-period
//! checks (run-time deadlock detection), drain, the conservation audit and
//! the run information. Every model implements [`Model`]; [`run_model`] is
//! generic over it, so the event loop is monomorphized per model and no
//! virtual call happens per event.

use std::time::Instant;

use super::metric_set::MetricSet;
use crate::error::{Error, Result};
use crate::kernel::stats::{StopDecision, StopRule};
use crate::kernel::{time, Time};
use crate::report::{MetricSummary, RunInfo, RunReport, StopReason};
use crate::scenario::RunPlan;

/// Events run between two looks at the plan: cheap, and fine-grained enough.
const CHECK_EVERY: u32 = 1024;

/// How long to measure, in the model's own unit of observation.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasurementPlan {
    /// Observations before statistics are reset (warm-up deletion).
    pub warmup: u64,
    /// Stop after this many observations past warm-up.
    pub max: u64,
    /// Never stop on precision before this many observations past warm-up.
    pub min: u64,
    /// Stop when every headline interval is within ±this fraction of its mean (0: run to `max`).
    pub precision: f64,
    /// Cap on simulated time.
    pub max_time: Time,
    /// After stopping, stop the sources and run until nothing is left in flight.
    pub drain: bool,
    /// Fixed work: no warm-up and no stop rule; the run ends when the work is done.
    pub fixed_work: bool,
}

impl MeasurementPlan {
    /// The plan of a scenario's `[run]` section (defaults already filled in).
    pub fn from_run(run: &RunPlan, fixed_work: bool) -> Self {
        let (warmup, max, min) = run.counts();
        MeasurementPlan {
            warmup,
            max,
            min,
            precision: run.precision,
            max_time: (run.max_time_ms * time::MILLISECOND as f64) as Time,
            drain: run.drain,
            fixed_work,
        }
    }
}

/// Named metric summaries, in report order.
pub type Metrics = Vec<(String, MetricSummary)>;
/// Named report sections (per-node tables, a deadlock report, ...).
pub type Sections = Vec<(String, serde_json::Value)>;

/// What the driver needs of a model. Everything per event stays inside the
/// model's own `step`; the driver calls the rest once per `CHECK_EVERY` events.
pub trait Model {
    /// What one observation is, for the run information ("data frames", "I/Os", "packets").
    fn unit(&self) -> &'static str;
    /// Schedules the first events; returns the time the workload starts at.
    fn start(&mut self) -> Time;
    /// Runs the next event if it is due no later than `limit`; false when
    /// none is left or the next one is later.
    fn step(&mut self, limit: Time) -> bool;
    fn now(&self) -> Time;
    fn events(&self) -> u64;
    /// No event is left to run.
    fn idle(&self) -> bool;
    /// Observations completed since the start (warm-up included).
    fn observations(&self) -> u64;
    /// Frames, packets or I/Os generated and not yet finished.
    fn in_flight(&self) -> u64;
    /// Frames or packets moved, for the frames-per-second figure.
    fn frames_moved(&self) -> u64;
    fn metrics(&self) -> &MetricSet;
    /// Warm-up deletion: resets the metric set and any measured state of the model.
    fn reset_statistics(&mut self, now: Time);
    /// No observation for this long with something in flight triggers
    /// [`Model::find_deadlock`]; None: the model cannot deadlock.
    fn quiet_window(&self) -> Option<Time> {
        None
    }
    /// Looks for a cycle of waits that stops all progress; describes it.
    fn find_deadlock(&self) -> Option<serde_json::Value> {
        None
    }
    /// When the measurement ends, given the time the run stopped at.
    fn stop_time(&self, now: Time) -> Time {
        now
    }
    /// Closes the measurement at `stop`: metric summaries and report sections.
    fn summaries(&mut self, stop: Time) -> (Metrics, Sections);
    /// Stops generating new work (drain).
    fn stop_sources(&mut self);
    /// Totals, after checking conservation: every item generated is finished,
    /// dropped with a reason, or still in flight.
    fn audit(&self) -> Result<Vec<(String, i64)>>;
    fn scenario_json(&self) -> serde_json::Value;
}

/// Runs `model` under `plan` and reports.
pub fn run_model<M: Model>(model: &mut M, plan: &MeasurementPlan) -> Result<RunReport> {
    let wall = Instant::now();
    let rule = StopRule { relative_precision: plan.precision, max_observations: plan.max, min_observations: plan.min };
    let start = model.start();
    model.reset_statistics(start);
    let quiet_window = model.quiet_window();
    let mut last_seen = 0;
    let mut last_progress = start;
    let mut warmed = plan.fixed_work || plan.warmup == 0;
    let mut warmup_end = start;
    let mut observations_at_reset = 0;
    let mut deadlock = None;
    let mut intervals = Vec::new();
    let reason = loop {
        let mut alive = true;
        for _ in 0..CHECK_EVERY {
            if !model.step(plan.max_time) {
                alive = false;
                break;
            }
        }
        let seen = model.observations();
        if let Some(window) = quiet_window {
            if seen != last_seen {
                last_seen = seen;
                last_progress = model.now();
            }
            let stalled = !alive || model.now() - last_progress > window;
            if stalled && model.in_flight() > 0 {
                if let Some(report) = model.find_deadlock() {
                    deadlock = Some(report);
                    break StopReason::Deadlock;
                }
                last_progress = model.now(); // look again only after another quiet window
            }
        }
        if !alive {
            break if model.idle() { StopReason::Idle } else { StopReason::MaxTime };
        }
        if plan.fixed_work {
            continue;
        }
        if !warmed {
            if seen >= plan.warmup {
                model.reset_statistics(model.now());
                warmup_end = model.now();
                observations_at_reset = seen;
                warmed = true;
            }
            continue;
        }
        model.metrics().headline_intervals(&mut intervals);
        match rule.decide(seen - observations_at_reset, &intervals) {
            StopDecision::Continue => {}
            StopDecision::PrecisionReached => break StopReason::Precision,
            StopDecision::MaxObservations => break StopReason::MaxObservations,
        }
    };
    let measured = model.observations() - observations_at_reset;
    let stop = model.stop_time(model.now());
    let (metrics, mut sections) = model.summaries(stop);
    let names: Vec<&str> = metrics.iter().map(|(n, _)| n.as_str()).collect();
    if let Some(missing) = model.metrics().reportable_names().find(|n| !names.contains(n)) {
        return Err(Error::model(format!("metric `{missing}` is registered but missing from the report")));
    }
    let measure_start = model.metrics().measure_start();
    if let Some(d) = deadlock {
        sections.push(("deadlock".to_string(), d));
    } else if plan.drain {
        model.stop_sources();
        while model.step(Time::MAX) {}
    }
    let counters = model.audit()?;
    let wall_s = wall.elapsed().as_secs_f64();
    let events = model.events();
    Ok(RunReport {
        scenario: model.scenario_json(),
        metrics,
        counters,
        run: RunInfo {
            sim_time_us: time::to_us(stop),
            warmup_time_us: time::to_us(warmup_end),
            measured_time_us: time::to_us(stop - measure_start),
            wall_time_s: wall_s,
            events,
            events_per_s: events as f64 / wall_s.max(1e-9),
            frames_per_s: model.frames_moved() as f64 / wall_s.max(1e-9),
            observation_unit: model.unit(),
            observations: measured,
            stop_reason: reason,
        },
        sections,
    })
}
