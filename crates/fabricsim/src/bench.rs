//! Throughput benchmarks shared by criterion and `fabricsim bench`, so both
//! measure the same workloads.

use std::time::Instant;

use serde::Serialize;

use crate::error::Result;
use crate::kernel::hold_benchmark::run_hold;
use crate::scenario::Scenario;

mod peers;
pub use peers::{
    fc_simpy_switch, fc_simpy_switch_scenario, ib_booksim_fat_tree, ib_booksim_fat_tree_scenario, ib_booksim_irregular,
    ib_booksim_irregular_scenario,
};

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
    /// The run's flags (`backlog_growing` and the like): a row measures a steady state only without any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Scale rows: seconds to build the fabric (topology, routing, switches, sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_s: Option<f64>,
    /// Scale rows: the process's peak resident memory over the row (Linux; reset before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// Scale rows: ports in use, switch ports (HCA and link) plus one per HCA.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<u64>,
    /// Scale rows: peak resident memory per port in use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_port: Option<f64>,
}

/// Every benchmark's name, in the order `fabricsim bench` runs them.
pub const NAMES: [&str; 14] = [
    "kernel-hold",
    "fc-switch",
    "fc-envelope",
    "fc-loop",
    "switched-loop",
    "ib-irregular",
    "ib-fat-tree",
    "ib-multipath",
    "ib-multicast",
    "ib-congestion-control",
    "tcp-stream",
    "fc-simpy-switch",
    "ib-booksim-irregular",
    "ib-booksim-fat-tree",
];

/// The rows of the scale targets, run by name (or `fabricsim bench --which
/// scale`), not with the others: each builds a fabric of thousands of HCAs.
/// Best-effort messages to uniform destinations after a warm-up of half the
/// measured packets, at loads each fabric carries in steady state.
pub const SCALE_NAMES: [&str; 5] =
    ["ib-fat-tree-16", "ib-fat-tree-4096", "ib-cluster-144", "ib-cluster-1356", "ib-fat-tree-32768"];

/// Runs benchmark `name` at `size`: hold operations (`kernel-hold`), data
/// frames delivered (`fc-switch`, `fc-envelope`, `fc-simpy-switch`), I/Os (`fc-loop`,
/// `switched-loop`), packets delivered (`ib-irregular`, `ib-fat-tree`, `ib-multipath`,
/// `ib-multicast`: a multicast packet once per member; `ib-congestion-control`, `ib-booksim-irregular`,
/// `ib-booksim-fat-tree`) or
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
        "ib-congestion-control" => run(ib_congestion_control(size)),
        "tcp-stream" => run(tcp_stream(size as f64 / 1000.0)),
        "fc-simpy-switch" => run(fc_simpy_switch(size)),
        "ib-booksim-irregular" => run(ib_booksim_irregular(size)),
        "ib-booksim-fat-tree" => run(ib_booksim_fat_tree(size)),
        "ib-fat-tree-16" | "ib-fat-tree-4096" | "ib-cluster-144" | "ib-cluster-1356" | "ib-fat-tree-32768" => {
            run(ib_scale(name, size))
        }
        other => Err(format!("unknown benchmark `{other}`; allowed: {}, {}", NAMES.join(", "), SCALE_NAMES.join(", "))),
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
            flags: report.run.flags.clone(),
            build_s: None,
            peak_rss_bytes: None,
            ports: None,
            bytes_per_port: None,
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
        flags: Vec::new(),
        build_s: None,
        peak_rss_bytes: None,
        ports: None,
        bytes_per_port: None,
    }
}

/// The scenario of the switch benchmark: class 2 at 50% offered load,
/// uniform single-frame messages, stopping after `data_frames` delivered.
/// The SimPy peer models this switch and workload with a router of 0.5 us
/// per header instead of 3 us: `fc-simpy-switch` is this row with its
/// router, and says where the two still differ.
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
/// balanced over every link), the 70:30 mix at 40% injection, which it
/// carries (at 50% the run ended flagged `backlog_growing`), stopping after
/// `packets` delivered.
pub fn ib_fat_tree_scenario(packets: u64) -> Scenario {
    Scenario::from_toml_str(&ib_fat_tree_toml(packets), "<ib-fat-tree benchmark>").expect("benchmark scenario is valid")
}

fn ib_fat_tree_toml(packets: u64) -> String {
    format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         [ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 4\n[ib.routing]\nalgorithm = \"dmodk\"\n[ib.workload]\ninjection_rate = 0.4\n"
    )
}

pub fn ib_fat_tree(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-fat-tree", &crate::run(&ib_fat_tree_scenario(packets))?))
}

/// `ib-fat-tree`'s fabric and traffic with congestion control on, at the
/// vendor's defaults (every switch marking, every HCA reacting per flow):
/// beside `ib-fat-tree`, what control costs per packet-hop.
pub fn ib_congestion_control_scenario(packets: u64) -> Scenario {
    let toml = ib_fat_tree_toml(packets) + "[ib.congestion_control]\n";
    Scenario::from_toml_str(&toml, "<ib-congestion-control benchmark>").expect("benchmark scenario is valid")
}

pub fn ib_congestion_control(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-congestion-control", &crate::run(&ib_congestion_control_scenario(packets))?))
}

/// The scenario of scale row `name` measuring `packets` packets: the
/// topology and routing of the row, 1xSDR links but the clusters' own rates.
pub fn ib_scale_scenario(name: &str, packets: u64) -> Scenario {
    let (fabric, load) = match name {
        // 4-ary 2-tree and 8-ary 4-tree under D-Mod-K: the same per-hop work at 16 and 4,096 HCAs.
        "ib-fat-tree-16" => {
            ("[ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 2\n[ib.routing]\nalgorithm = \"dmodk\"\n", 0.4)
        }
        "ib-fat-tree-4096" => {
            ("[ib.topology]\nkind = \"fat_tree\"\narity = 8\nlevels = 4\n[ib.routing]\nalgorithm = \"dmodk\"\n", 0.4)
        }
        // The 144-HCA cluster as cabled, each cable at its own rate (FDR10
        // between switches, QDR to the HCAs), OpenSM's minhop tables.
        "ib-cluster-144" => (
            "[ib.topology]\nkind = \"import\"\n\
             file = \"../shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover\"\n\
             [ib.routing]\nalgorithm = \"min_hop\"\n",
            0.3,
        ),
        // The production cluster as cabled, OpenSM's minhop tables; those
        // have channel-dependency cycles on every VL: runs of 1.5 million
        // packets deadlocked at 15% and 20% load, not at 5% or 10%.
        "ib-cluster-1356" => (
            "[ib]\nlink = \"4xQDR\"\n[ib.topology]\nkind = \"import\"\n\
             file = \"../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover\"\n\
             [ib.routing]\nalgorithm = \"min_hop\"\n",
            0.1,
        ),
        // 3,072 64-port switches, the shape of the largest NDR clusters; within a 4 GiB budget.
        "ib-fat-tree-32768" => {
            ("[ib.topology]\nkind = \"fat_tree\"\narity = 32\nlevels = 3\n[ib.routing]\nalgorithm = \"dmodk\"\n", 0.4)
        }
        other => panic!("no scale row {other}"),
    };
    let toml = format!(
        "[run]\nwarmup_observations = {}\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         memory_budget_mb = 4096\n{fabric}[ib.workload]\ninjection_rate = {load}\nreal_time_share = 0\n",
        packets / 2
    );
    Scenario::from_toml_str(&toml, &format!("<{name} benchmark>")).expect("benchmark scenario is valid")
}

/// Scale row `name`: packet-hops per wall second as the other InfiniBand
/// rows, with the build time, the peak resident memory and its share per port.
pub fn ib_scale(name: &str, packets: u64) -> Result<BenchResult> {
    let scenario = ib_scale_scenario(name, packets);
    let topo = crate::ib::wiring::topology(scenario.infiniband()?)?;
    let ports = topo.port_map().iter().flatten().filter(|u| **u != crate::fabric::PortUse::Free).count() as u64
        + topo.endpoint_count() as u64;
    drop(topo);
    reset_peak_rss();
    let start = Instant::now();
    let report = crate::run(&scenario)?;
    let total = start.elapsed().as_secs_f64();
    let peak = peak_rss();
    Ok(BenchResult {
        build_s: Some((total - report.run.wall_time_s).max(0.0)),
        peak_rss_bytes: peak,
        ports: Some(ports),
        bytes_per_port: peak.map(|b| b as f64 / ports as f64),
        ..packet_result(name, &report)
    })
}

/// Resets the process's peak resident set to its current one (Linux: `5` to
/// `/proc/self/clear_refs`), after handing the heap that earlier rows freed
/// back to the system, so a row run after a larger one is not charged for it.
fn reset_peak_rss() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim only returns free heap pages to the system.
        unsafe { malloc_trim(0) };
    }
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak resident set in bytes (`VmHWM`), where the system tells it.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Seed 003's Multipath+LFU+Drop on random network seed 1 (15 switches;
/// the first network of seed 003's earlier family): multipath tables, adaptive unreliable
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
/// 4 members), on random network seed 1 (15 switches; the first network of seed 003's earlier family)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scale_row_is_a_valid_scenario_and_a_small_one_runs_with_its_memory() {
        for name in SCALE_NAMES {
            let s = ib_scale_scenario(name, 1000);
            assert_eq!(s.run.warmup_observations, Some(500), "{name}");
            assert_eq!(s.infiniband().unwrap().workload.real_time_share, 0.0);
        }
        // The 1,356-HCA cluster as cabled: 4,168 cables, so 8,336 ports with its HCAs'.
        let r = ib_scale("ib-cluster-1356", 2000).unwrap();
        assert_eq!(r.ports, Some(8336));
        assert!(r.frames >= 3000 && r.hops.unwrap() > r.frames, "{r:?}");
        assert!(r.build_s.unwrap() > 0.0);
        if let Some(peak) = r.peak_rss_bytes {
            assert!(peak > 1 << 20 && r.bytes_per_port.unwrap() > 0.0, "{r:?}");
        }
        assert!(by_name("ib-fat-tree-8", 10).unwrap_err().contains("ib-fat-tree-32768"));
    }
}
