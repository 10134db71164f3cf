//! The arbitrated loop and disk model against hand arithmetic, conservation,
//! determinism, fairness, flow control and the DiskSim source files.

use fabricsim::fc::arbitrated_loop::timing::LoopTiming;
use fabricsim::scenario::LoopSpec;
use fabricsim::storage::disksim::load_drive;
use fabricsim::storage::drive;
use fabricsim::storage::drives::DISKSIM_DRIVES;
use fabricsim::{RunReport, Scenario};

fn scenario(disks: &str, initiator: &str, loop_extra: &str) -> Scenario {
    let toml = format!("[loop]\n{loop_extra}\n{disks}\n[initiator]\n{initiator}\n");
    Scenario::from_toml_str(&toml, "<test>").unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn run(s: &Scenario) -> RunReport {
    fabricsim::run(s).expect("run succeeds")
}

fn min_us(r: &RunReport, name: &str) -> f64 {
    r.metric(name).unwrap_or_else(|| panic!("no metric {name}")).min.unwrap()
}

fn mean(r: &RunReport, name: &str) -> f64 {
    r.metric(name).unwrap_or_else(|| panic!("no metric {name}")).mean
}

/// One 1 KB read on an idle 13-port, 50 m loop: every phase is three loop
/// trips, four words (OPN, R_RDY, CLS, CLS) and one frame. An analyzer on
/// the adapter's link sees the disk's phases from when its ARB passes the
/// adapter, a trip less.
#[test]
fn single_read_phases_match_hand_arithmetic() {
    for (disks, length) in [(12u32, 50.0), (96, 50.0), (12, 7500.0)] {
        let s = scenario(
            &format!("[[disks]]\ncount = {disks}\nread_cache = false"),
            "active_disks = 1\nrequest_bytes = 1024\nios_per_disk = 3\naccess = \"random\"\ncommand_overhead_us = 50.0",
            &format!("length_m = {length}"),
        );
        let r = run(&s);
        let ports = disks as f64 + 1.0;
        let word_ns = 40.0 / 1.0625; // 37.647 ns
        let node_ns = 6.0 * word_ns; // 225.9 ns
        let trip_us = (ports * node_ns + length * 5.0) / 1000.0;
        assert!((mean(&r, "loop_trip_us") - trip_us).abs() < 1e-4, "{} vs {trip_us}", mean(&r, "loop_trip_us"));
        let frame_us = |payload: f64| (36.0 + payload + 24.0) * 10.0 / 1.0625 / 1000.0;
        let phase = |payload: f64| 3.0 * trip_us + 4.0 * word_ns / 1000.0 + frame_us(payload);
        assert!((min_us(&r, "phase_command_us") - phase(32.0)).abs() < 1e-3);
        assert!((min_us(&r, "phase_data_us") - (phase(1024.0) - trip_us)).abs() < 1e-3);
        assert!((min_us(&r, "phase_status_us") - (phase(24.0) - trip_us)).abs() < 1e-3);
        assert!((min_us(&r, "open_round_trip_us") - (trip_us + 2.0 * word_ns / 1000.0)).abs() < 1e-3);
        assert_eq!(mean(&r, "tenancies_per_io"), 3.0);
        assert!((mean(&r, "loop_trips_per_io") - 9.0).abs() < 1e-12);
        assert_eq!(r.counter("ios_completed"), Some(3));
        assert_eq!(r.counter("frames"), Some(9));
    }
    // 84 more ports add 84 x 225.9 ns = 18.97 us to every trip.
    let t12 = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 13).trip();
    let t96 = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 97).trip();
    assert_eq!(t96 - t12, 84 * 225_882);
}

#[test]
fn every_issued_io_completes_after_drain_and_runs_repeat_bit_for_bit() {
    let mk = || {
        let mut s = scenario(
            "[[disks]]\ncount = 6\nscheduler = \"sstf\"\n[[disks]]\ncount = 2\nmodel = \"barracuda\"\nfair = false",
            "outstanding = 4\nrequest_bytes = 65536\nread_fraction = 0.7",
            "",
        );
        s.run.drain = true;
        s.run.warmup_observations = Some(100);
        s.run.max_observations = Some(1500);
        s.run.min_observations = Some(1500);
        s
    };
    let a = run(&mk());
    assert_eq!(a.counter("ios_in_flight"), Some(0));
    assert_eq!(a.counter("ios_issued"), a.counter("ios_completed"));
    assert!(a.counter("ios_completed").unwrap() >= 1600);
    let b = run(&mk());
    assert_eq!(serde_json::to_string(&a.metrics).unwrap(), serde_json::to_string(&b.metrics).unwrap());
    assert_eq!(a.counters, b.counters);
    let u = mean(&a, "loop_utilization");
    assert!(u > 0.0 && u <= 1.0, "{u}");
    assert!(mean(&a, "throughput_mb_s") > 1.0);
}

/// Unfair ports (old firmware) let high-priority disks finish first; fair
/// ports finish together.
#[test]
fn fairness_decides_completion_order_on_a_congested_loop() {
    let spread = |fair: bool| {
        let s = scenario(
            &format!("[[disks]]\ncount = 10\nfair = {fair}"),
            "outstanding = 4\nrequest_bytes = 65536\naccess = \"sequential\"\nios_per_disk = 40",
            "length_m = 30000.0",
        );
        let r = run(&s);
        let done: Vec<f64> = (0..10).map(|d| mean(&r, &format!("disk_{d:02}.completion_ms"))).collect();
        (done, r)
    };
    let (unfair, r) = spread(false);
    // Disk k has loop ID k: disk 9 (AL_PA 0xD5) outranks disk 0 (0xEF).
    assert!(r.counter("disk_09.al_pa").unwrap() < r.counter("disk_00.al_pa").unwrap());
    let (fair, _) = spread(true);
    assert!(unfair[9] < 0.8 * unfair[0], "{unfair:?}");
    let (lo, hi) = fair.iter().fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
    assert!(hi / lo < 1.15, "{fair:?}");
}

/// Disks receive into few buffers: on a 30 km loop a write gets only a few
/// frames per loop trip, so writes need many more buffers than a short loop.
#[test]
fn long_loops_starve_writes_of_credit() {
    let tput = |buffers: u32, length: f64| {
        let s = scenario(
            &format!("[[disks]]\ncount = 1\nreceive_buffers = {buffers}\nwrite_cache = true\nburst_bytes = 1048576"),
            "request_bytes = 1048576\nread_fraction = 0.0\naccess = \"sequential\"\nios_per_disk = 6",
            &format!("length_m = {length}"),
        );
        mean(&run(&s), "throughput_mb_s")
    };
    let (w_long, w_short, w_long16) = (tput(4, 30_000.0), tput(4, 50.0), tput(16, 30_000.0));
    assert!(w_long < 0.5 * w_short, "write {w_long} vs {w_short}");
    assert!(w_long16 > 1.5 * w_long, "{w_long16} vs {w_long}");
    // Four 2 KB frames per 30 km trip (about 157 us) bound the rate.
    let trip_s = (2.0 * 225.882e-9) + 150e-6;
    assert!(w_long < 4.0 * 2048.0 / trip_s / 1e6, "{w_long}");
}

#[test]
fn built_in_drives_are_the_disksim_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/disks");
    for (name, stem) in DISKSIM_DRIVES {
        let parsed = load_drive(&dir, stem, name).unwrap();
        assert_eq!(parsed, drive(name).unwrap(), "{name}");
    }
    let c = drive("cheetah9lp").unwrap();
    assert_eq!((c.rpm, c.single_cylinder_seek_ms, c.full_strobe_seek_ms), (10045.0, 0.831, 10.627));
}

#[test]
fn loop_sections_are_validated_by_key() {
    let e = Scenario::from_toml_str("[loop]\nlength_m = 5.0\n", "x").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("disks"));
    let e = Scenario::from_toml_str("[loop]\n[initiator]\n", "x").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("disks"));
    // Drive names are the model's to know: checked when it is built.
    let s = Scenario::from_toml_str("[loop]\n[[disks]]\nmodel = \"floppy\"\n[initiator]\n", "x").unwrap();
    let e = fabricsim::run::check(&s).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("disks[0].model"));
    assert!(e.allowed.as_deref().unwrap().contains("cheetah9lp"));
    let e = Scenario::from_toml_str("[loop]\n[[disks]]\n[initiator]\noutstanding = 500\n", "x").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("initiator.outstanding"));
    let e = Scenario::from_toml_str("[loop]\nlenght_m = 3\n[[disks]]\n[initiator]\n", "x").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("loop.lenght_m"));
    // Light mode keeps one I/O in the whole system: `outstanding` would do nothing.
    let text = "[loop]\n[[disks]]\n[initiator]\nmode = \"light\"\n";
    let e = Scenario::from_toml_str(&format!("{text}outstanding = 4\n"), "x").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("initiator.outstanding"), "{e}");
    assert!(e.allowed.as_deref().unwrap().contains("initiator.mode = \"light\""), "{e}");
    let s = Scenario::from_toml_str(text, "x").unwrap();
    assert!(!s.to_toml().contains("outstanding"), "the filled-in scenario leaves it out");
    assert_eq!(Scenario::from_toml_str(&s.to_toml(), "round trip").unwrap(), s);
}

#[test]
fn loop_initialization_time_grows_with_loop_size() {
    let init = |n: u32| {
        let r = run(&scenario(&format!("[[disks]]\ncount = {n}"), "ios_per_disk = 1", ""));
        mean(&r, "loop_init_us")
    };
    let (a, b) = (init(12), init(96));
    assert!(b > 5.0 * a && a > 0.0, "{a} {b}");
}

#[test]
fn example_scenarios_are_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/fcal-loop");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let s = Scenario::from_toml_str(&text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.arbitrated_loop().is_ok());
        fabricsim::run::check(&s).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    assert!(n >= 4);
}

/// The loop trips seed 004's text quotes follow from its inputs alone: 84
/// more ports of 226 ns add 19 us to a trip, fibre adds 5 ns/m (37.5 and 150
/// us for 7.5 and 30 km, 100 to 1000 times a port's delay), and 96 disks on
/// 30 km make a 172 us trip.
#[test]
fn trips_the_study_quotes_are_input_arithmetic() {
    let trip_us = |disks: u32, km: f64| {
        let spec = LoopSpec { length_m: km * 1000.0, ..LoopSpec::default() };
        LoopTiming::new(&spec, disks + 1).trip() as f64 * 1e-6
    };
    assert!((trip_us(96, 0.05) - trip_us(12, 0.05) - 18.97).abs() < 0.01);
    assert!((trip_us(12, 7.5) - trip_us(12, 0.05) - 37.25).abs() < 0.01);
    assert!((trip_us(12, 30.0) - trip_us(12, 0.05) - 149.75).abs() < 0.01);
    assert!((trip_us(96, 30.0) - 171.9).abs() < 0.05, "{}", trip_us(96, 30.0));
    let port_us = (trip_us(13, 0.05) - trip_us(12, 0.05)).max(1e-9);
    for km in [7.5, 30.0] {
        let times = (trip_us(12, km) - trip_us(12, 0.0)) / port_us;
        assert!((100.0..1000.0).contains(&times), "{km} km: {times} times a port");
    }
}

/// A status delay runs while the data tenancy's CLS goes round. Seen from
/// the adapter's link, the disk's status follows its data after a trip
/// without one, a trip that grows with the loop; a delay longer than the
/// close absorbs it, and the idle time is the delay less the two CLS words
/// whatever the loop's size.
#[test]
fn status_delay_absorbs_the_data_close() {
    let idle = |disks: u32, delay: f64| {
        let s = scenario(
            &format!("[[disks]]\ncount = {disks}\nread_cache = false\nstatus_delay_us = {delay}"),
            "active_disks = 1\nrequest_bytes = 1024\nios_per_disk = 4",
            "length_m = 50.0",
        );
        let r = run(&s);
        (mean(&r, "idle_data_status_us"), mean(&r, "loop_trip_us"))
    };
    let two_words_us = 2.0 * 40.0 / 1.0625 / 1000.0;
    for disks in [12, 96] {
        let (plain, trip) = idle(disks, 0.0);
        assert!((plain - trip).abs() < 1e-3, "{disks} disks: {plain} vs a trip of {trip}");
        let (delayed, _) = idle(disks, 40.0);
        assert!((delayed - (40.0 - two_words_us)).abs() < 1e-3, "{disks} disks: {delayed}");
    }
}

/// With one read buffer a drive fetches nothing while its data waits for
/// or crosses the loop: every read then adds its transfer to the disk's
/// cycle, and the mechanism never runs ahead of the loop.
#[test]
fn one_read_buffer_holds_the_mechanism_while_data_is_sent() {
    let run_with = |buffers: &str| {
        let s = scenario(
            &format!("[[disks]]\ncount = 1\nread_cache = false\n{buffers}"),
            "outstanding = 4\nrequest_bytes = 65536\nios_per_disk = 200",
            "",
        );
        run(&s)
    };
    let free = run_with("");
    let held = run_with("read_buffers = 1");
    let (f, h) = (mean(&free, "iops"), mean(&held, "iops"));
    // The data tenancy of 64 KB (32 frames) takes about 0.65 ms: the held
    // drive loses about that much per read.
    let per_read_ms = 1000.0 / h - 1000.0 / f;
    assert!((0.6..0.8).contains(&per_read_ms), "{per_read_ms} ms more per read ({f} vs {h} IO/s)");
    assert_eq!(held.counter("ios_completed"), Some(200));
}
