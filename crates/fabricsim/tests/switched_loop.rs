//! Arbitrated loops bridged through a switch (seed 001): the zero-load
//! arithmetic of one remote read, conservation, re-attempts, determinism
//! and the refusal of bad input.

use fabricsim::fc::arbitrated_loop::timing::LoopTiming;
use fabricsim::kernel::time;
use fabricsim::scenario::LoopSpec;
use fabricsim::{RunReport, Scenario, StopReason};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

fn scenario(extra: &str, loop_keys: &str, disks: u32) -> Scenario {
    scenario_of(400, extra, loop_keys, disks)
}

/// A scenario that measures `ios` reads from the start and drains.
fn scenario_of(ios: u64, extra: &str, loop_keys: &str, disks: u32) -> Scenario {
    let text = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {ios}\nmin_observations = 0\nprecision = 0\ndrain = true\n\
         [switched_loop]\n{extra}\n\
         [loop]\nbaud = 1.0e9\nlength_m = {}\npropagation_ns_per_m = 3.5\ninitialize = false\n{loop_keys}\n\
         [[disks]]\ncount = {disks}\nmodel = \"sinha-disk1\"\nread_cache = false\nqueue_depth = 256\n",
        disks + 2
    );
    Scenario::from_toml_str(&text, "<test>").expect("valid scenario")
}

fn run(s: &Scenario) -> RunReport {
    fabricsim::run(s).expect("run succeeds")
}

fn mean(r: &RunReport, metric: &str) -> f64 {
    r.metric(metric).unwrap_or_else(|| panic!("no metric {metric}")).mean
}

/// The shortest: the first read, which nothing before it delays (later
/// ones may find a loop still closing the previous read's status).
fn min(r: &RunReport, metric: &str) -> f64 {
    r.metric(metric).and_then(|m| m.min).unwrap_or_else(|| panic!("no minimum of {metric}"))
}

/// The switch's share of a crossing, with routing time `route_ns`: a
/// frame's header, the router and the two fibres (3.5 ns each, as between
/// loop neighbours) for a routed frame; a header and the fibres over an
/// established circuit.
fn switch_times(route_ns: f64) -> (u64, u64) {
    let spec = LoopSpec { baud: 1.0e9, length_m: 3.0, propagation_ns_per_m: 3.5, ..LoopSpec::default() };
    let t = LoopTiming::new(&spec, 3);
    let (header, fibre) = (t.rate.time_for(36), t.fibre / 3);
    assert_eq!(fibre, time::from_ns(3.5));
    (2 * fibre + header + time::from_ns(route_ns), 2 * fibre + header)
}

/// The loop time of one circuit-switched read of a disk on the other loop,
/// on idle loops: every arbitration a full trip, every open and close the
/// paths the bridges add, 32 data frames back to back (16 host buffers
/// never run out of credit on a round trip of a few microseconds).
fn remote_read_loop_time_us(route_ns: f64) -> f64 {
    let spec = LoopSpec { baud: 1.0e9, length_m: 3.0, propagation_ns_per_m: 3.5, ..LoopSpec::default() };
    let t = LoopTiming::new(&spec, 3);
    let (host, disk, bridge) = (0, 1, 2);
    let (trip, w) = (t.trip(), t.word);
    let (routed, sw) = switch_times(route_ns);
    // The connect request is a frame without payload, routed by the switch.
    let request = routed + t.frame_time(0);
    let d = |a, b| t.delay(a, b);
    let data: u64 = (0..32).map(|_| t.frame_time(2048)).sum();
    let (cmd, status) = (t.frame_time(32), t.frame_time(24));
    // The opener wins, its OPN reaches its bridge, whose connect request crosses the
    // switch; the remote bridge wins its loop, OPN and R_RDY go round it, the R_RDY
    // crosses back to the opener over the circuit.
    let open = |from: u32| trip + w + d(from, bridge) + request + trip + 2 * w + trip + sw + d(bridge, from);
    let command = open(host) + cmd + d(host, bridge) + sw + d(bridge, disk);
    // The data circuit closes (CLS to the host, the host's CLS back) before the status goes.
    let data_phase = open(disk) + data + (2 * trip + 2 * sw + 2 * w);
    let status_phase = open(disk) + status + d(disk, bridge) + sw + d(bridge, host);
    time::to_us(command + data_phase + status_phase)
}

#[test]
fn one_remote_read_on_idle_loops_costs_the_circuit_arithmetic() {
    for route in [0.0, 3000.0, 25_000.0] {
        // The first read alone: the next one would overlap the closing of this one.
        let s = scenario_of(
            1,
            &format!("loops = 2\nglobal_fraction = 1.0\nlight_scope = \"system\"\n[switch]\nrouting_time_ns = {route}"),
            "",
            1,
        );
        let r = run(&s);
        let expected = remote_read_loop_time_us(route);
        let ours = min(&r, "loop_time_us");
        assert!((ours - expected).abs() < 1e-3, "routing {route} ns: loop time {ours} us, arithmetic {expected} us");
        // Later reads may find the previous read's circuit still closing: each refusal is one more request.
        let (requests, retries) = (mean(&r, "switch_requests_per_global_io"), mean(&r, "retries_per_global_io"));
        assert!((requests - 3.0 - retries).abs() < 1e-9, "{requests} requests, {retries} retries");
        assert_eq!(mean(&r, "global_share"), 1.0);
    }
}

#[test]
fn one_remote_read_packet_switched_stores_and_forwards_each_phase() {
    let route = 3000.0;
    let s = scenario_of(
        1,
        &format!(
            "loops = 2\nglobal_fraction = 1.0\nlight_scope = \"system\"\nswitching = \"packet\"\n\
             [switch]\nrouting_time_ns = {route}"
        ),
        "",
        1,
    );
    let r = run(&s);
    let spec = LoopSpec { baud: 1.0e9, length_m: 3.0, propagation_ns_per_m: 3.5, ..LoopSpec::default() };
    let t = LoopTiming::new(&spec, 3);
    // Each frame cuts through the switch: its header, the router, the two fibres.
    let (trip, w, sw) = (t.trip(), t.word, switch_times(route).0);
    let d = |a, b| t.delay(a, b);
    let (host, disk, bridge) = (0, 1, 2);
    let data: u64 = (0..32).map(|_| t.frame_time(2048)).sum();
    let (cmd, status) = (t.frame_time(32), t.frame_time(24));
    // A hop: arbitrate (a trip), OPN and R_RDY (two words and a trip), the frames, delivery.
    let hop = |from: u32, to: u32, frames: u64| trip + 2 * w + trip + frames + d(from, to);
    let command = hop(host, bridge, cmd) + cmd + sw + hop(bridge, disk, cmd);
    // The disk's status follows its data tenancy's close; the data crosses the switch and
    // the remote loop meanwhile, and the status queues behind it at the switch and the bridge.
    let data_in_bridge = hop(disk, bridge, data);
    let data_at_host = data_in_bridge + data + sw + hop(bridge, host, data);
    let status_released = data_in_bridge - d(disk, bridge) + 2 * w + trip;
    let status_in_bridge = status_released + hop(disk, bridge, status);
    // The status crosses once the bridge's sender is free (the data's tail has left),
    // then its remote tenancy follows the data's (released two words and a trip after delivery).
    let status_arrived = status_in_bridge.max(data_in_bridge + data) + status + sw;
    let remote_free = data_at_host - d(bridge, host) + 2 * w + trip;
    let status_at_host = status_arrived.max(remote_free) + hop(bridge, host, status);
    let expected = time::to_us(command + status_at_host);
    let ours = min(&r, "loop_time_us");
    assert!((ours - expected).abs() < 1e-3, "loop time {ours} us, arithmetic {expected} us");
    let (requests, retries) = (mean(&r, "switch_requests_per_global_io"), mean(&r, "retries_per_global_io"));
    assert!((requests - 3.0 - retries).abs() < 1e-9, "{requests} requests, {retries} retries");
}

#[test]
fn local_reads_never_touch_the_switch_and_both_switchings_agree() {
    let mut times = Vec::new();
    for mode in ["circuit", "packet"] {
        let s = scenario(&format!("loops = 3\nglobal_fraction = 0.0\nswitching = \"{mode}\""), "", 4);
        let r = run(&s);
        assert_eq!(r.counter("circuits"), Some(0));
        assert_eq!(r.counter("segments"), Some(0));
        assert_eq!(mean(&r, "retries_per_io"), 0.0);
        times.push((mean(&r, "io_time_us"), mean(&r, "disk_time_us")));
    }
    assert_eq!(times[0], times[1], "0% global: the switching cannot matter");
}

#[test]
fn conservation_and_refusals_at_heavy_load() {
    for mode in ["circuit", "packet"] {
        let s = scenario(
            &format!(
                "loops = 3\nglobal_fraction = 0.5\nswitching = \"{mode}\"\nload = \"heavy\"\noutstanding_per_disk = 2"
            ),
            "",
            4,
        );
        let r = run(&s);
        let issued = r.counter("ios_issued").unwrap();
        let done = r.counter("ios_completed").unwrap();
        assert_eq!(issued, done + r.counter("ios_in_flight").unwrap());
        // Drained: nothing left in flight, in the switch or in a bridge.
        assert_eq!(r.counter("ios_in_flight"), Some(0), "{mode}");
        assert_eq!(r.counter("segments_in_switch"), Some(0), "{mode}");
        assert_eq!(r.counter("bytes_completed"), Some(done * 65536));
        // Every completed read moved 32 data frames and two control frames on the loops it used.
        let loop_frames = r.counter("loop_frames").unwrap();
        let switch_frames = r.counter("switch_frames").unwrap();
        match mode {
            "circuit" => {
                assert_eq!(loop_frames, done * 34, "a circuit's frames are counted once, at the opener");
                assert!(r.counter("refused_circuits").unwrap() > 0, "half the traffic global: some circuits refused");
                assert!(mean(&r, "retries_per_global_io") > 0.0);
            }
            _ => {
                assert_eq!(loop_frames, done * 34 + switch_frames, "a forwarded phase runs on both loops");
                assert!(switch_frames > 0);
            }
        }
    }
}

/// Many phases from several loops for one bridge at once: each is granted
/// the remote bridge's buffers whole before its frames enter the switch, so
/// interleaved frames can never fill a bridge with parts of phases (which
/// it could never deliver). The run completes and drains.
#[test]
fn packet_switching_at_saturation_never_fills_a_bridge_with_partial_phases() {
    let s = scenario_of(
        1500,
        "loops = 4\nglobal_fraction = 0.5\nswitching = \"packet\"\nload = \"heavy\"\noutstanding_per_disk = 8",
        "",
        12,
    );
    let r = run(&s);
    assert_eq!(r.run.stop_reason, StopReason::MaxObservations);
    assert_eq!(r.counter("ios_in_flight"), Some(0));
    assert_eq!(r.counter("frames_in_switch"), Some(0));
    assert!(r.counter("refused_segments").unwrap() > 0, "saturated bridges refuse some phases for a while");
}

/// Writes cross the switch too: the command and the data go to the disk,
/// the transfer-ready and the status come back, each phase through the
/// bridges when the disk is on another loop.
#[test]
fn writes_cross_the_switch_both_ways() {
    for mode in ["circuit", "packet"] {
        let s = scenario(
            &format!(
                "loops = 3\nglobal_fraction = 0.5\nswitching = \"{mode}\"\nload = \"heavy\"\noutstanding_per_disk = 2\n\
                 read_fraction = 0.0"
            ),
            "",
            4,
        );
        let r = run(&s);
        let done = r.counter("ios_completed").unwrap();
        assert!(done >= 400, "{mode}: {done} writes");
        assert_eq!(r.counter("ios_in_flight"), Some(0), "{mode}");
        assert_eq!(r.counter("frames_in_switch"), Some(0), "{mode}");
        assert_eq!(r.counter("bytes_completed"), Some(done * 65536));
        // Command, transfer-ready, 32 data frames and status: 35 frames on the loops per write.
        let loop_frames = r.counter("loop_frames").unwrap();
        match mode {
            "circuit" => assert_eq!(loop_frames, done * 35),
            _ => assert_eq!(loop_frames, done * 35 + r.counter("switch_frames").unwrap()),
        }
    }
    // Reads and writes mixed: the same conservation, and both kinds complete.
    let s = scenario("loops = 2\nglobal_fraction = 0.5\nload = \"heavy\"\nread_fraction = 0.5", "", 4);
    let r = run(&s);
    let done = r.counter("ios_completed").unwrap();
    assert_eq!(r.counter("ios_in_flight"), Some(0));
    let loop_frames = r.counter("loop_frames").unwrap();
    assert!(loop_frames > done * 34 && loop_frames < done * 35, "{loop_frames} frames for {done} reads and writes");
}

#[test]
fn the_same_seed_gives_the_same_numbers() {
    let s = scenario("loops = 3\nglobal_fraction = 0.3\nload = \"heavy\"\noutstanding_per_disk = 2", "", 3);
    let (a, b) = (run(&s), run(&s));
    assert_eq!(a.counters, b.counters);
    assert_eq!(mean(&a, "io_time_us").to_bits(), mean(&b, "io_time_us").to_bits());
    let mut other = s.clone();
    other.run.seed += 1;
    assert_ne!(run(&other).counters, a.counters);
}

#[test]
fn bad_input_names_the_key() {
    let bad = |extra: &str, disks: &str| {
        let text = format!("[switched_loop]\n{extra}\n[[disks]]\n{disks}\n");
        Scenario::from_toml_str(&text, "bad.toml").unwrap_err()
    };
    let e = bad("loops = 1\nglobal_fraction = 0.2", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switched_loop.global_fraction"));
    let e = bad("bridge_buffers = 8", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switched_loop.bridge_buffers"));
    assert!(e.allowed.as_deref().unwrap().contains("32 frames"), "{e}");
    let e = bad("read_fraction = 1.5", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switched_loop.read_fraction"));
    let e = bad("loops = 0", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switched_loop.loops"));
    let e = bad("switching = \"wormhole\"", "count = 2");
    assert!(e.to_string().contains("switching"), "{e}");
    // A key of another load or scope is refused, naming the mode.
    for (key, mode) in
        [("outstanding_per_disk = 4", "load = \"light\""), ("light_scope = \"system\"", "load = \"heavy\"")]
    {
        let e = bad(&format!("{mode}\n{key}"), "count = 2");
        let name = key.split(' ').next().unwrap();
        assert_eq!(e.key.as_deref(), Some(format!("switched_loop.{name}").as_str()), "{e}");
        assert!(e.allowed.as_deref().unwrap().contains(mode), "{e}");
    }
    let e = bad("request_bytes = 131072", "count = 2");
    assert_eq!(e.key.as_deref(), Some("disks[0].burst_bytes"));
    // Each loop takes a port of the switch.
    let e = bad("loops = 9\n[switch]\nports = 8", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switched_loop.loops"));
    assert!(e.allowed.as_deref().unwrap().contains("switch.ports (8)"), "{e}");
    let e = bad("[switch]\nbuffers_per_port = 0", "count = 2");
    assert_eq!(e.key.as_deref(), Some("switch.buffers_per_port"));
    // A fabric's sections are not the switched loop's.
    let e = bad("[link]\nbandwidth_mb_s = 100.0", "count = 2");
    assert_eq!(e.key.as_deref(), Some("link"), "{e}");
    let e = bad("switch_latency_ns = 1000.0", "count = 2");
    assert!(e.to_string().contains("switch_latency_ns") && e.to_string().contains("routing_time_ns"), "{e}");
    let e = Scenario::from_toml_str("[switched_loop]\n", "s.toml").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("disks"));
    let e =
        Scenario::from_toml_str("[switched_loop]\n[[disks]]\n[initiator]\nmode = \"light\"\n", "s.toml").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("initiator"));
    let s = Scenario::from_toml_str("[switched_loop]\n[[disks]]\nmodel = \"no-such-drive\"\n", "s.toml").unwrap();
    let e = fabricsim::run(&s).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("disks[0].model"));
}

/// Random systems (loops, disks, switching, load, global and write shares,
/// request sizes, bridge and switch buffers, routing time, write caches):
/// every run reaches its count, drains, and leaves nothing in the switch.
/// Inputs are the same on every run (seed 0); `FABRICSIM_FUZZ_SEED=random`
/// draws new ones, `=N` another fixed set.
#[test]
fn any_switched_system_completes_and_drains() {
    let seed = match std::env::var("FABRICSIM_FUZZ_SEED") {
        Err(_) => RngSeed::Fixed(0),
        Ok(v) if v == "random" => RngSeed::Random,
        Ok(v) => RngSeed::Fixed(v.parse().expect("FABRICSIM_FUZZ_SEED: a whole number or \"random\"")),
    };
    let mut runner =
        TestRunner::new(Config { cases: 100, failure_persistence: None, rng_seed: seed, ..Config::default() });
    let system = (1u32..=5, 1u32..=6, any::<bool>(), any::<bool>(), 0u32..=10, 0u32..=4, 0usize..3);
    let parts = (0u32..=32, 1u32..=16, 0u32..=5000, 1u32..=3, any::<bool>(), 0u32..1000);
    runner
        .run(&(system, parts), |((loops, disks, packet, heavy, global, reads, size), more)| {
            let (spare_buffers, switch_buffers, route_ns, outstanding, write_cache, seed) = more;
            let request = [2048u32, 16384, 65536][size];
            let global = if loops == 1 { 0.0 } else { global as f64 / 10.0 };
            let text = format!(
                "[run]\nseed = {seed}\nwarmup_observations = 0\nmax_observations = 150\nmin_observations = 0\n\
                 precision = 0\ndrain = true\n\
                 [switched_loop]\nloops = {loops}\nswitching = \"{}\"\nload = \"{}\"\nglobal_fraction = {global}\n\
                 read_fraction = {}\nrequest_bytes = {request}\n{}\
                 bridge_buffers = {}\n\
                 [switch]\nbuffers_per_port = {switch_buffers}\nrouting_time_ns = {route_ns}\n\
                 [loop]\nbaud = 1.0e9\nlength_m = {}\npropagation_ns_per_m = 3.5\ninitialize = false\n\
                 [[disks]]\ncount = {disks}\nmodel = \"sinha-disk1\"\nqueue_depth = 256\nwrite_cache = {write_cache}\n",
                if packet { "packet" } else { "circuit" },
                if heavy { "heavy" } else { "light" },
                reads as f64 / 4.0,
                // Light load keeps one command per host: outstanding_per_disk is heavy load's.
                if heavy { format!("outstanding_per_disk = {outstanding}\n") } else { String::new() },
                request.div_ceil(2048) + spare_buffers,
                disks + 2
            );
            let s =
                Scenario::from_toml_str(&text, "<random system>").map_err(|e| TestCaseError::fail(e.to_string()))?;
            let r = fabricsim::run(&s).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(r.run.stop_reason, StopReason::MaxObservations, "{}", text);
            let done = r.counter("ios_completed").unwrap();
            prop_assert_eq!(r.counter("ios_in_flight"), Some(0), "{}", text);
            prop_assert_eq!(r.counter("frames_in_switch"), Some(0), "{}", text);
            prop_assert_eq!(r.counter("connections_held"), Some(0), "{}", text);
            prop_assert_eq!(r.counter("segments_in_switch"), Some(0), "{}", text);
            prop_assert_eq!(r.counter("bytes_completed"), Some(done * request as i64), "{}", text);
            Ok(())
        })
        .unwrap();
}

/// Seed 001's light load, cut short by the time cap: a capped run is
/// flagged `max_time`, not called a deadlock.
#[test]
fn a_time_cap_is_not_a_deadlock() {
    let text = std::fs::read_to_string("../../scenarios/switched-fcal/light-load.toml").expect("shipped scenario");
    let s = Scenario::from_toml_str(&text.replace("[run]\n", "[run]\nmax_time_ms = 100.0\n"), "light-load.toml")
        .expect("valid scenario");
    let r = run(&s);
    assert_eq!(r.run.stop_reason, StopReason::MaxTime);
    assert!(r.run.flags.iter().any(|f| f == "max_time"), "{:?}", r.run.flags);
    assert!(!r.run.flags.iter().any(|f| f == "deadlock"), "{:?}", r.run.flags);
    assert!(r.sections.iter().all(|(n, _)| n != "deadlock"));
    assert!(r.counter("ios_completed").unwrap() > 50);
}

/// A host with 5,120 writes outstanding (128 per disk, 40 disks): the loop
/// carries one 64 KB data phase at a time, so an I/O takes about 5,120 of
/// them (3.4 s), longer than the 2 s quiet window, and the first status
/// waits behind the host's queued data phases. That is a long queue, not a
/// deadlock: the run goes on and Little's law holds (I/Os in the system =
/// throughput x I/O time).
#[test]
fn thousands_of_writes_at_one_host_queue_but_never_deadlock() {
    for outstanding in [64u32, 128] {
        let in_system = 40 * outstanding;
        let s = scenario_of(
            10 * in_system as u64,
            &format!("loops = 1\nload = \"heavy\"\nread_fraction = 0.0\noutstanding_per_disk = {outstanding}"),
            "",
            40,
        )
        .to_toml()
        .replace("warmup_observations = 0", &format!("warmup_observations = {in_system}"));
        let r = run(&Scenario::from_toml_str(&s, "<test>").unwrap());
        assert_eq!(r.run.stop_reason, StopReason::MaxObservations, "{outstanding}: {:?}", r.run.flags);
        assert!(r.sections.iter().all(|(n, _)| n != "deadlock"));
        let (io_s, iops) = (mean(&r, "io_time_us") * 1e-6, mean(&r, "iops"));
        let in_system = in_system as f64;
        assert!((iops * io_s / in_system - 1.0).abs() < 0.03, "{outstanding}: {iops} I/Os/s x {io_s} s vs {in_system}");
        if outstanding == 128 {
            assert!(io_s > 2.0, "{io_s} s");
        }
    }
}

/// A router that takes a second per header makes every global I/O take
/// seconds: slow, not stuck.
#[test]
fn a_slow_router_is_not_a_deadlock() {
    for switching in ["circuit", "packet"] {
        let s = scenario_of(
            30,
            &format!("switching = \"{switching}\"\nglobal_fraction = 0.5\n[switch]\nrouting_time_ns = 1e9"),
            "",
            4,
        );
        let r = run(&s);
        assert_eq!(r.run.stop_reason, StopReason::MaxObservations, "{switching}: {:?}", r.run.flags);
        assert!(r.sections.iter().all(|(n, _)| n != "deadlock"));
        assert!(mean(&r, "global_io_time_us") > 2e6, "{switching}");
    }
}

/// The disk firmware keys hold in switched loops too: a status delay beyond
/// the data tenancy's close lengthens every read by the difference, and one
/// read buffer keeps every read's data in order, every read completing.
#[test]
fn disk_status_delay_and_read_buffers_in_switched_loops() {
    let run_with = |switching: &str, firmware: &str| {
        let text = format!(
            "[run]\nwarmup_observations = 0\nmax_observations = 300\nmin_observations = 0\nprecision = 0\ndrain = true\n\
             [switched_loop]\nloops = 2\nswitching = \"{switching}\"\nglobal_fraction = 0.5\nload = \"heavy\"\noutstanding_per_disk = 2\n\
             [loop]\nbaud = 1.0e9\nlength_m = 6\npropagation_ns_per_m = 3.5\ninitialize = false\n\
             [[disks]]\ncount = 4\nmodel = \"sinha-disk1\"\nread_cache = false\nqueue_depth = 256\n{firmware}\n"
        );
        run(&Scenario::from_toml_str(&text, "<test>").expect("valid scenario"))
    };
    for switching in ["circuit", "packet"] {
        let plain = run_with(switching, "");
        let firmware = run_with(switching, "status_delay_us = 200.0\nread_buffers = 1");
        for r in [&plain, &firmware] {
            assert_eq!(r.counter("ios_completed"), r.counter("ios_issued"), "{switching}");
        }
        let longer = mean(&firmware, "io_time_us") - mean(&plain, "io_time_us");
        assert!(longer > 150.0, "{switching}: reads {longer} us longer");
    }
}
