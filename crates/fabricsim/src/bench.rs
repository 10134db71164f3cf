//! Throughput benchmarks shared by criterion and `fabricsim bench`, so both
//! measure the same workloads.

use std::time::Instant;

use serde::Serialize;

use crate::error::Result;
use crate::kernel::hold_benchmark::run_hold;
use crate::scenario::Scenario;

#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    pub name: String,
    pub events: u64,
    /// Frames (FC) or packets (InfiniBand) delivered; for fc-switch, data plus ACKs.
    pub frames: u64,
    /// Of `frames`, data frames and acknowledgements (FC fabrics only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_frames: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_frames: Option<u64>,
    /// Frame-hops: frames times switches crossed (switched fabrics only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<u64>,
    pub wall_s: f64,
    pub events_per_s: f64,
    pub frames_per_s: f64,
    /// Simulated I/Os completed per wall second (storage benchmarks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ios_per_s: Option<f64>,
    /// Frames times switches crossed, per wall second (switched fabrics only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_hops_per_s: Option<f64>,
    /// Simulated seconds per wall second (TCP over FC only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_s_per_wall_s: Option<f64>,
}

/// Every benchmark's name, in the order `fabricsim bench` runs them.
pub const NAMES: [&str; 10] = [
    "kernel-hold",
    "fc-switch",
    "fc-envelope",
    "fc-loop",
    "switched-loop",
    "ib-irregular",
    "ib-fat-tree",
    "ib-multipath",
    "ib-multicast",
    "tcp-stream",
];

/// Runs benchmark `name` at `size`: hold operations (`kernel-hold`), data
/// frames delivered (`fc-switch`, `fc-envelope`), I/Os (`fc-loop`,
/// `switched-loop`), packets delivered (`ib-irregular`, `ib-fat-tree`, `ib-multipath`,
/// `ib-multicast`: a multicast packet once per member) or
/// simulated milliseconds of netperf TCP_STREAM (`tcp-stream`). An unknown
/// name is an error listing the known ones.
pub fn by_name(name: &str, size: u64) -> std::result::Result<BenchResult, String> {
    let run = |r: Result<BenchResult>| r.map_err(|e| e.to_string());
    match name {
        "kernel-hold" => Ok(kernel_hold(size)),
        "fc-switch" => run(fc_switch(size)),
        "fc-envelope" => run(fc_envelope(size)),
        "fc-loop" => run(fc_loop(size)),
        "switched-loop" => run(switched_loop(size)),
        "ib-irregular" => run(ib_irregular(size)),
        "ib-fat-tree" => run(ib_fat_tree(size)),
        "ib-multipath" => run(ib_multipath(size)),
        "ib-multicast" => run(ib_multicast(size)),
        "tcp-stream" => run(tcp_stream(size as f64 / 1000.0)),
        other => Err(format!("unknown benchmark `{other}`; allowed: {}", NAMES.join(", "))),
    }
}

impl BenchResult {
    /// The figures every run reports, `frames` its frames or packets; the
    /// model-specific ones are left for the caller.
    fn of_run(name: &str, report: &crate::RunReport, frames: u64) -> BenchResult {
        BenchResult {
            name: name.into(),
            events: report.run.events,
            frames,
            data_frames: None,
            ack_frames: None,
            hops: None,
            wall_s: report.run.wall_time_s,
            events_per_s: report.run.events_per_s,
            frames_per_s: report.run.frames_per_s,
            ios_per_s: None,
            frame_hops_per_s: None,
            sim_s_per_wall_s: None,
        }
    }
}

/// `count` per wall second of `report`'s run.
fn per_wall_s(report: &crate::RunReport, count: f64) -> f64 {
    count / report.run.wall_time_s.max(1e-9)
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
        data_frames: None,
        ack_frames: None,
        hops: None,
        wall_s,
        events_per_s: steps as f64 / wall_s,
        frames_per_s: 0.0,
        ios_per_s: None,
        frame_hops_per_s: None,
        sim_s_per_wall_s: None,
    }
}

/// The scenario of the switch benchmark: class 2 at 50% offered load,
/// uniform single-frame messages, stopping after `data_frames` delivered.
pub fn fc_switch_scenario(data_frames: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {data_frames}\nmin_observations = 0\nprecision = 0\n\
         [protocol]\nclass = 2\nend_to_end_credit = 2\n[workload]\noffered_load = 0.5\n"
    );
    Scenario::from_toml_str(&toml, "<fc-switch benchmark>").expect("benchmark scenario is valid")
}

/// One class 2 run at 50% load delivering `data_frames` data frames (plus their ACKs).
pub fn fc_switch(data_frames: u64) -> Result<BenchResult> {
    Ok(frame_result("fc-switch", &crate::run(&fc_switch_scenario(data_frames))?))
}

/// Frames (data and ACK) delivered, events and frame-hops of a switched-fabric run.
fn frame_result(name: &str, report: &crate::RunReport) -> BenchResult {
    let data = report.counter("data_frames_delivered").unwrap_or(0) as u64;
    let acks = report.counter("ack_frames_delivered").unwrap_or(0) as u64;
    let hops = report.counter("switch_traversals").map(|h| h as u64);
    BenchResult {
        data_frames: Some(data),
        ack_frames: Some(acks),
        hops,
        frame_hops_per_s: hops.map(|h| per_wall_s(report, h as f64)),
        ..BenchResult::of_run(name, report, data + acks)
    }
}

/// The 64-node envelope (smart routing) at saturation under the bursty
/// workload, stopping after `data_frames` delivered: the fabric benchmark.
pub fn fc_envelope(data_frames: u64) -> Result<BenchResult> {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {data_frames}\nmin_observations = 0\nprecision = 0\n\
         [topology]\nkind = \"envelope\"\n[routing]\npaths = \"smart\"\n\
         [workload]\narrivals = \"saturated\"\n[workload.sizes]\nkind = \"bimodal\"\n"
    );
    Ok(frame_result("fc-envelope", &crate::run(&Scenario::from_toml_str(&toml, "<fc-envelope benchmark>")?)?))
}

/// The loop benchmark: 96 Cheetah 9LP disks on a 50 m loop, eight 64 KB
/// random reads outstanding per disk (loop saturated), `ios` I/Os measured.
pub fn fc_loop_scenario(ios: u64) -> Scenario {
    let toml = format!(
        "[run]\nprecision = 0\nwarmup_observations = 0\nmax_observations = {ios}\nmin_observations = 0\n\
         [loop]\nlength_m = 50.0\n[[disks]]\ncount = 96\nmodel = \"cheetah9lp\"\n\
         [initiator]\noutstanding = 8\nrequest_bytes = 65536\n"
    );
    Scenario::from_toml_str(&toml, "<fc-loop benchmark>").expect("benchmark scenario is valid")
}

/// One saturated 96-disk loop run completing `ios` I/Os.
pub fn fc_loop(ios: u64) -> Result<BenchResult> {
    let report = crate::run(&fc_loop_scenario(ios))?;
    let frames = report.counter("frames").unwrap_or(0) as u64;
    Ok(io_result("fc-loop", &report, frames))
}

/// The switched-loop benchmark (seed 001 heavy load): 8 loops of 12
/// type-1 disks on a switch, circuit switching, 30% global traffic, eight
/// 64 KB reads outstanding per disk at every host, `ios` I/Os measured.
pub fn switched_loop_scenario(ios: u64) -> Scenario {
    let toml = format!(
        "[run]\nprecision = 0\nwarmup_observations = 0\nmax_observations = {ios}\nmin_observations = 0\n\
         [switched_loop]\nloops = 8\nglobal_fraction = 0.3\nload = \"heavy\"\noutstanding_per_disk = 8\n\
         [loop]\nbaud = 1.0e9\nlength_m = 14.0\npropagation_ns_per_m = 3.5\n\
         [[disks]]\ncount = 12\nmodel = \"sinha-disk1\"\nqueue_depth = 256\n"
    );
    Scenario::from_toml_str(&toml, "<switched-loop benchmark>").expect("benchmark scenario is valid")
}

/// One heavy-load run of 8 switched loops completing `ios` I/Os.
pub fn switched_loop(ios: u64) -> Result<BenchResult> {
    let report = crate::run(&switched_loop_scenario(ios))?;
    let frames = report.counter("loop_frames").unwrap_or(0) + report.counter("switch_frames").unwrap_or(0);
    Ok(io_result("switched-loop", &report, frames as u64))
}

/// A storage run's figures: I/Os completed per wall second beside the frames.
fn io_result(name: &str, report: &crate::RunReport, frames: u64) -> BenchResult {
    let done = report.counter("ios_completed").unwrap_or(0) as f64;
    BenchResult { ios_per_s: Some(per_wall_s(report, done)), ..BenchResult::of_run(name, report, frames) }
}

/// Packets delivered, events and packet-hops (crossbar transfers) of an InfiniBand run.
fn packet_result(name: &str, report: &crate::RunReport) -> BenchResult {
    let delivered = ["real_time", "best_effort", "control"]
        .iter()
        .map(|c| report.counter(&format!("{c}_packets_delivered")).unwrap_or(0) as u64)
        .sum();
    let hops = report.counter("crossbar_transfers").map(|h| h as u64);
    BenchResult {
        hops,
        frame_hops_per_s: hops.map(|h| per_wall_s(report, h as f64)),
        ..BenchResult::of_run(name, report, delivered)
    }
}

/// A 15-switch network at seed 003's density (the `random` kind, which
/// carries 50% injection; the study's own networks saturate near 27%) at
/// 50% injection, 70:30 video to best-effort plus control traffic,
/// Up*/Down* routing, stopping after `packets` delivered.
pub fn ib_irregular_scenario(packets: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         [ib.topology]\nkind = \"random\"\n[ib.routing]\nalgorithm = \"updown\"\n[ib.workload]\ninjection_rate = 0.5\n"
    );
    Scenario::from_toml_str(&toml, "<ib-irregular benchmark>").expect("benchmark scenario is valid")
}

pub fn ib_irregular(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-irregular", &crate::run(&ib_irregular_scenario(packets))?))
}

/// A 4-ary 4-tree (256 HCAs on 256 8-port switches), D-Mod-K routing
/// (OpenSM's fat-tree engine: minimal, up then down, so deadlock-free, and
/// balanced over every link), the 70:30 mix at 50% injection, stopping
/// after `packets` delivered.
pub fn ib_fat_tree_scenario(packets: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         [ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 4\n[ib.routing]\nalgorithm = \"ftree\"\n[ib.workload]\ninjection_rate = 0.5\n"
    );
    Scenario::from_toml_str(&toml, "<ib-fat-tree benchmark>").expect("benchmark scenario is valid")
}

pub fn ib_fat_tree(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-fat-tree", &crate::run(&ib_fat_tree_scenario(packets))?))
}

/// Seed 003's Multipath+LFU+Drop on the first network of its family
/// (random, 15 switches, seed 1): multipath tables, adaptive unreliable
/// datagrams, HOQLife 6, the 70:30 mix at 40% injection, which it carries
/// (no run flag), stopping after `packets` delivered.
pub fn ib_multipath_scenario(packets: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         [ib.switch]\nhoq_life = 6\n[ib.topology]\nkind = \"random\"\nseed = 1\n\
         [ib.routing]\nalgorithm = \"multipath\"\nselection = \"lfu\"\n[ib.workload]\ninjection_rate = 0.4\n"
    );
    Scenario::from_toml_str(&toml, "<ib-multipath benchmark>").expect("benchmark scenario is valid")
}

pub fn ib_multipath(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-multipath", &crate::run(&ib_multipath_scenario(packets))?))
}

/// Seed 003's multicast (Fig. 10) with synchronous replication under FCFS:
/// the 70:30 mix with 20% of the video multicast to three groups (2, 4 and
/// 4 members), on the family's first network (random, 15 switches, seed 1)
/// with Up*/Down* tables at 20% injection, which it carries (no run flag),
/// stopping after `packets` delivered (a multicast packet once per member).
pub fn ib_multicast_scenario(packets: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         [ib.topology]\nkind = \"random\"\nseed = 1\n[ib.routing]\nalgorithm = \"updown\"\n\
         [ib.workload]\ninjection_rate = 0.2\n[ib.multicast]\nscheme = \"synchronous\"\n"
    );
    Scenario::from_toml_str(&toml, "<ib-multicast benchmark>").expect("benchmark scenario is valid")
}

pub fn ib_multicast(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-multicast", &crate::run(&ib_multicast_scenario(packets))?))
}

/// Seed 002's headline test: netperf TCP_STREAM, C110 to C110, 2 MB
/// messages, 262143-byte socket buffers, `seconds` of simulated time.
pub fn tcp_stream_scenario(seconds: f64) -> Scenario {
    let toml = format!(
        "[netperf]\ntest = \"TCP_STREAM\"\nlength_s = {seconds}\nmessage_bytes = 2097152\n\
         local_socket_bytes = 262143\nremote_socket_bytes = 262143\n"
    );
    Scenario::from_toml_str(&toml, "<tcp-stream benchmark>").expect("benchmark scenario is valid")
}

/// One TCP_STREAM run of `seconds` simulated seconds; reports simulated
/// seconds per wall second and FC frames moved.
pub fn tcp_stream(seconds: f64) -> Result<BenchResult> {
    let report = crate::run(&tcp_stream_scenario(seconds))?;
    let frames = report.counter("data_frames_delivered").unwrap_or(0) as u64;
    Ok(BenchResult {
        sim_s_per_wall_s: Some(per_wall_s(&report, report.run.sim_time_us / 1e6)),
        ..BenchResult::of_run("tcp-stream", &report, frames)
    })
}
