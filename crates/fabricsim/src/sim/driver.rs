//! The model-independent measurement driver: warm-up deletion, the stop
//! rule on every headline interval, the simulated-time cap, quiet-period
//! checks (run-time deadlock detection), the memory budget (a backlog that
//! grows without bound stops the run instead of the machine), interruption
//! and progress for a caller, drain, the conservation audit, the run
//! information and the flags that mark a result that is not what was asked. Every model implements [`Model`]; [`run_model`] is
//! generic over it, so the event loop is monomorphized per model and no
//! virtual call happens per event.

use std::time::{Duration, Instant};

use super::model::{Model, Summary};
use super::simulation::Simulation;
use crate::error::{Error, Result};
use crate::kernel::stats::{StopDecision, StopRule};
use crate::kernel::{time, Time};
use crate::report::{RunInfo, RunReport, StopReason};
use crate::scenario::RunPlan;

/// Events run between two looks at the plan: cheap, and fine-grained enough.
const CHECK_EVERY: u32 = 1024;
/// Wall time between two calls of the observer.
const OBSERVE_EVERY: Duration = Duration::from_millis(100);

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
    /// The run stops (`overload`) when the model's state grows past this many bytes.
    pub memory_budget: u64,
}

/// Where a run stands, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub sim_time_us: f64,
    pub events: u64,
    /// Observations so far in the current phase (warm-up or measurement).
    pub observations: u64,
    /// The phase's target: the warm-up count, or the maximum to measure.
    pub target: u64,
    pub warmed_up: bool,
}

/// Watches a run from outside: called about every 100 ms of wall time.
pub trait RunObserver {
    /// Returns false to stop the run now (it ends as `interrupted`).
    fn progress(&mut self, progress: &Progress) -> bool;
}

/// An observer that lets every run finish.
pub struct Unobserved;

impl RunObserver for Unobserved {
    fn progress(&mut self, _: &Progress) -> bool {
        true
    }
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
            memory_budget: (run.memory_budget_mb * 1024.0 * 1024.0) as u64,
        }
    }
}

/// Runs `model` under `plan` and reports.
pub fn run_model<M: Model>(model: M, plan: &MeasurementPlan) -> Result<RunReport> {
    run_model_observed(model, plan, &mut Unobserved)
}

/// Runs `model` under `plan`, letting `observer` watch and stop it.
pub fn run_model_observed<M: Model, O: RunObserver>(
    model: M,
    plan: &MeasurementPlan,
    observer: &mut O,
) -> Result<RunReport> {
    // A large model reads its state at random: back it with huge pages,
    // before the run's wall clock starts (this is part of building it).
    if model.status().memory_bytes >= crate::kernel::huge_pages::MIN_MODEL_BYTES {
        crate::kernel::huge_pages::back_with_huge_pages()?;
    }
    super::build_watch::step("the first events", 0, 0)?;
    let wall = Instant::now();
    let mut last_observed = wall;
    let rule = StopRule { relative_precision: plan.precision, max_observations: plan.max, min_observations: plan.min };
    let mut sim = Simulation::new(model);
    let info = sim.model.info();
    let start = sim.start();
    sim.model.reset_statistics(start);
    let mut next_check = start + info.deadlock_check_period.unwrap_or(0);
    let mut last_seen = 0;
    let mut last_progress = start;
    let mut warmed = plan.fixed_work || plan.warmup == 0;
    let mut warmup_end = start;
    let mut observations_at_reset = 0;
    let mut deadlock = None;
    let mut overload = None;
    let mut stall = None;
    let mut backlog_at_warmup = 0;
    let mut intervals = Vec::new();
    let reason = loop {
        let mut alive = true;
        for _ in 0..CHECK_EVERY {
            if !sim.step(plan.max_time) {
                alive = false;
                break;
            }
        }
        let status = sim.model.status();
        let seen = status.observations;
        let now_sim = sim.now();
        let memory = status.memory_bytes + sim.event_set_bytes();
        if memory > plan.memory_budget {
            let mut report = sim.model.overload_report(now_sim);
            report["memory_mb"] = serde_json::json!(memory as f64 / 1048576.0);
            report["memory_budget_mb"] = serde_json::json!(plan.memory_budget as f64 / 1048576.0);
            report["backlog"] = serde_json::json!(sim.model.backlog());
            report["time_us"] = serde_json::json!(time::to_us(now_sim));
            overload = Some(report);
            break StopReason::Overload;
        }
        let now = Instant::now();
        if now.duration_since(last_observed) >= OBSERVE_EVERY {
            last_observed = now;
            let measured = seen - observations_at_reset;
            let progress = Progress {
                sim_time_us: time::to_us(now_sim),
                events: sim.events(),
                observations: if warmed { measured } else { seen },
                target: if warmed { plan.max } else { plan.warmup },
                warmed_up: warmed,
            };
            if !observer.progress(&progress) {
                break StopReason::Interrupted;
            }
        }
        if let Some(window) = info.quiet_window {
            if seen != last_seen {
                last_seen = seen;
                last_progress = now_sim;
            }
            // The time cap is no stall: only an empty event set or a quiet window is.
            let stalled = (!alive && sim.idle()) || now_sim - last_progress > window;
            let due = info.deadlock_check_period.is_some_and(|p| {
                let due = now_sim >= next_check;
                if due {
                    next_check = now_sim + p;
                }
                due
            });
            if (stalled || due) && status.in_flight > 0 && (deadlock.is_none() || sim.model.stops_on_deadlock()) {
                if let Some(report) = sim.model.find_deadlock(now_sim) {
                    deadlock = Some(report);
                    if sim.model.stops_on_deadlock() {
                        break StopReason::Deadlock;
                    }
                }
                if stalled {
                    last_progress = now_sim; // look again only after another quiet window
                }
            }
        }
        if !alive {
            if !sim.idle() {
                break StopReason::MaxTime;
            }
            if status.in_flight > 0 {
                // Nothing left to happen, yet work is unfinished: no cycle holds it, so it is lost.
                stall = Some(serde_json::json!({
                    "time_us": time::to_us(now_sim),
                    "last_observation_us": time::to_us(last_progress),
                    "in_flight": status.in_flight,
                }));
                break StopReason::Stalled;
            }
            break StopReason::Idle;
        }
        if plan.fixed_work {
            continue;
        }
        if !warmed {
            if seen >= plan.warmup {
                sim.model.reset_statistics(now_sim);
                warmup_end = now_sim;
                observations_at_reset = seen;
                backlog_at_warmup = sim.model.backlog();
                warmed = true;
            }
            continue;
        }
        sim.model.metrics().headline_intervals(&mut intervals);
        match rule.decide(seen - observations_at_reset, &intervals) {
            StopDecision::Continue => {}
            StopDecision::PrecisionReached => break StopReason::Precision,
            StopDecision::MaxObservations => break StopReason::MaxObservations,
        }
    };
    let measured = sim.model.status().observations - observations_at_reset;
    // A capped run ran to the cap, however long before it the last event was
    // (a netperf test whose first event lies past a 10 us cap measured 10 us, not 0).
    let ran_to = if reason == StopReason::MaxTime { plan.max_time.max(sim.now()) } else { sim.now() };
    let stop = sim.model.stop_time(ran_to);
    let Summary { metrics, mut sections, mut flags } = sim.model.summaries(stop);
    let names: Vec<&str> = metrics.iter().map(|(n, _)| n.as_str()).collect();
    if let Some(missing) = sim.model.metrics().reportable_names().find(|n| !names.contains(n)) {
        return Err(Error::model(format!("metric `{missing}` is registered but missing from the report")));
    }
    let measure_start = sim.model.metrics().measure_start();
    if !plan.fixed_work && !warmed {
        flags.push("warmup_not_finished".to_string());
    }
    if reason == StopReason::MaxObservations && plan.precision > 0.0 {
        flags.push("precision_not_reached".to_string());
    }
    if measured == 0 {
        flags.push("no_observations".to_string());
    }
    let backlog = sim.model.backlog();
    // A backlog that more than doubled (and by a thousand) while measuring is no steady state.
    if warmed && backlog > 2 * backlog_at_warmup + 1000 {
        flags.push("backlog_growing".to_string());
    }
    if deadlock.is_some() && reason != StopReason::Deadlock {
        // Measured through a deadlock the model does not stop on.
        flags.push("deadlock".to_string());
    }
    match reason {
        StopReason::Overload => flags.push("overload".to_string()),
        StopReason::Interrupted => flags.push("interrupted".to_string()),
        StopReason::Deadlock => flags.push("deadlock".to_string()),
        StopReason::Stalled => flags.push("stalled".to_string()),
        // Every plan asks for observations or work; the cap ended the run first.
        StopReason::MaxTime => flags.push("max_time".to_string()),
        _ => {}
    }
    if let Some(d) = deadlock {
        sections.push(("deadlock".to_string(), d));
    } else if let Some(s) = stall {
        sections.push(("stall".to_string(), s));
    } else if let Some(o) = overload {
        sections.push(("overload".to_string(), o));
    } else if plan.drain && reason != StopReason::Interrupted {
        sim.model.stop_sources();
        // The time cap holds while draining too: a fabric that cannot empty stops there.
        while sim.step(plan.max_time) {}
        if !sim.idle() {
            flags.push("drain_not_finished".to_string());
        }
    }
    let mut counters = sim.model.audit(sim.pending())?;
    let events = sim.events();
    counters.push(("events".to_string(), events as i64));
    let wall_s = wall.elapsed().as_secs_f64();
    Ok(RunReport {
        scenario: serde_json::Value::Null,
        metrics,
        counters,
        run: RunInfo {
            sim_time_us: time::to_us(stop),
            warmup_time_us: time::to_us(warmup_end),
            measured_time_us: time::to_us(stop - measure_start),
            wall_time_s: wall_s,
            events,
            events_per_s: events as f64 / wall_s.max(1e-9),
            frames_per_s: sim.model.frames_moved() as f64 / wall_s.max(1e-9),
            observation_unit: info.unit,
            observations: measured,
            stop_reason: reason,
            flags,
        },
        sections,
    })
}
