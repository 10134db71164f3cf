//! Throughput benchmarks shared by criterion and `fabricsim bench`, so both
//! measure the same workloads.

use std::time::Instant;

use serde::Serialize;

use crate::kernel::hold_benchmark::run_hold;
use crate::scenario::{Result, Scenario};

#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub name: String,
    pub events: u64,
    pub frames: u64,
    pub wall_s: f64,
    pub events_per_s: f64,
    pub frames_per_s: f64,
}

/// The kernel's hold model: `steps` pop/push pairs on a queue of 1024 events.
pub fn kernel_hold(steps: u64) -> BenchResult {
    let start = Instant::now();
    let checksum = run_hold(1024, steps, 1);
    let wall_s = start.elapsed().as_secs_f64();
    std::hint::black_box(checksum);
    BenchResult {
        name: "kernel-hold".into(),
        events: steps,
        frames: 0,
        wall_s,
        events_per_s: steps as f64 / wall_s,
        frames_per_s: 0.0,
    }
}

/// The scenario of the switch benchmark: class 2 at 50% offered load,
/// uniform single-frame messages, stopping after `data_frames` delivered.
pub fn fc_switch_scenario(data_frames: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_frames = 0\nmax_frames = {data_frames}\nmin_frames = 0\nprecision = 0\n\
         [protocol]\nclass = 2\nend_to_end_credit = 2\n[workload]\noffered_load = 0.5\n"
    );
    Scenario::from_toml_str(&toml, "<fc-switch benchmark>").expect("benchmark scenario is valid")
}

/// One class 2 run at 50% load delivering `data_frames` data frames (plus their ACKs).
pub fn fc_switch(data_frames: u64) -> Result<BenchResult> {
    let report = crate::run(&fc_switch_scenario(data_frames))?;
    let frames = (report.counter("data_frames_delivered").unwrap_or(0) + report.counter("ack_frames_delivered").unwrap_or(0)) as u64;
    Ok(BenchResult {
        name: "fc-switch".into(),
        events: report.run.events,
        frames,
        wall_s: report.run.wall_time_s,
        events_per_s: report.run.events_per_s,
        frames_per_s: report.run.frames_per_s,
    })
}
