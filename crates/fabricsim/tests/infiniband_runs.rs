//! Whole InfiniBand runs: a run-time deadlock and the looks that find it,
//! selective dropping that breaks one, multipath order, the calendar's span
//! on a thousand HCAs, an incast, and the errors bad input gets.

use fabricsim::ib::IbFabric;
use fabricsim::sim::Simulation;
use fabricsim::{RunReport, Scenario};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, "infiniband.toml").unwrap_or_else(|e| panic!("valid scenario: {e}\n{toml}"))
}

fn run(toml: &str) -> RunReport {
    fabricsim::run(&scenario(toml)).unwrap_or_else(|e| panic!("run succeeds: {e}\n{toml}"))
}

/// A random 15-switch network of the seed's density (switches on any
/// number of cycles) with SPF under the 70:30 mix at 50% injection: a
/// credit loop on one VL fills and the run stops, naming the loop of full
/// input VLs; Up*/Down* on the same network and load runs to the end. The
/// loop stops only its VL's traffic, so the driver looks for one every
/// 1000 packet times whatever else flows; a cycle of waits with no credit
/// in flight counts only when it is still there at the next look, so the
/// run stops one look after the loop is first seen.
#[test]
fn spf_deadlocks_at_run_time_and_updown_does_not() {
    let base = "[run]\nwarmup_observations = 0\nmax_observations = 300000\nmin_observations = 0\nprecision = 0\n\
                [ib.topology]\nkind = \"random\"\n[ib.workload]\ninjection_rate = 0.5\nreal_time_share = 0.7\n";
    let r = run(base);
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::Deadlock, "{:?}", r.run);
    assert!(r.run.flags.iter().any(|f| f == "deadlock"));
    let routing = &r.sections.iter().find(|(n, _)| n == "routing").unwrap().1;
    assert_eq!(routing["channel_dependencies"]["acyclic"], false, "the static analysis predicts it");
    let d = &r.sections.iter().find(|(n, _)| n == "deadlock").expect("a deadlock section").1;
    let cycle: Vec<&str> = d["cycle"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(cycle.len() >= 3, "{d}");
    // One VL: "..., VL v full)".
    let vl = |c: &str| c.rsplit("VL ").next().unwrap().to_string();
    assert!(cycle.iter().all(|c| vl(c) == vl(cycle[0])), "{cycle:?}");
    // "switch a -> switch b (input port p, VL v full)": each link leads to the next, and the last to the first.
    let ends: Vec<(u32, u32)> = cycle
        .iter()
        .map(|c| {
            let n: Vec<u32> = c.split(['(', ' ']).filter_map(|w| w.parse().ok()).collect();
            (n[0], n[1])
        })
        .collect();
    for (i, &(_, b)) in ends.iter().enumerate() {
        assert_eq!(b, ends[(i + 1) % ends.len()].0, "not a cycle: {cycle:?}");
    }
    // No multicast here: every wait on it is a unicast head's, the routing's cause.
    assert_eq!(d["cause"], "unicast routing", "{d}");
    assert!(d["cycle_waits"].as_array().unwrap().iter().all(|w| w == "unicast packet on a full output VL"), "{d}");
    // First seen at one look, confirmed at the next.
    assert!(d["transient_wait_cycles"].as_u64().unwrap() >= 1, "{d}");
    assert!(d["packets_in_fabric"].as_u64().unwrap() > 0);

    // Found while the other VLs still flow: long before the HCA buffers fill.
    assert!(r.run.sim_time_us < 200_000.0, "{:?}", r.run);
    assert!(r.run.flags.iter().all(|f| f != "source_overflow"), "{:?}", r.run.flags);

    let r = run(&format!("{base}[ib.routing]\nalgorithm = \"updown\"\n"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::MaxObservations, "{:?}", r.run);
    assert!(r.sections.iter().all(|(n, _)| n != "deadlock"));
}

/// Looking for deadlocks every 5 us (as often as the driver looks at a
/// model, every 1024 events) on the same network below its deadlock load
/// stops nothing; above it, the loop is still found, one look after it is
/// first seen.
#[test]
fn frequent_looks_stop_no_run_that_flows() {
    let base = "[run]\nwarmup_observations = 0\nmax_observations = 150000\nmin_observations = 0\nprecision = 0\n\
                [ib]\ndeadlock_check_us = 5\n[ib.topology]\nkind = \"random\"\n[ib.workload]\nreal_time_share = 0.7\n\
                video_injection = \"whole\"\n";
    let r = run(&format!("{base}injection_rate = 0.3\n"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::MaxObservations, "{:?}", r.run);
    let watch = &r.sections.iter().find(|(n, _)| n == "deadlock_watch").unwrap().1;
    assert!(watch["looks"].as_u64().unwrap() > 1000, "{watch}");
    let r = run(&format!("{base}injection_rate = 0.5\n"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::Deadlock, "{:?}", r.run);
}

/// The first network of the seed-003 family (random, 15 switches, seed 1):
/// SPF deadlocks at 40% injection (70:30, whole video frames at link rate:
/// paced frames flow there); with selective dropping at
/// HOQLife 6 (262 us at the head of an output VL) the same run completes,
/// dropping only what may be dropped, and every packet is accounted for. A
/// HOQLife above 19 is no limit: the run is the one without the key.
#[test]
fn spf_deadlocks_on_the_family_and_selective_dropping_completes_the_run() {
    let base = "[run]\nwarmup_observations = 0\nmax_observations = 300000\nmin_observations = 0\nprecision = 0\n\
                [ib.topology]\nkind = \"random\"\nseed = 1\n\
                [ib.workload]\ninjection_rate = 0.4\nreal_time_share = 0.7\nvideo_injection = \"whole\"\n";
    let plain = run(base);
    assert_eq!(plain.run.stop_reason, fabricsim::StopReason::Deadlock, "{:?}", plain.run);
    let counter = |r: &RunReport, name: &str| r.counters.iter().find(|(n, _)| n == name).unwrap().1;
    let r = run(&format!("{base}[ib.switch]\nhoq_life = 6\n"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::MaxObservations, "{:?}", r.run);
    let dropped = |class: &str| {
        counter(&r, &format!("{class}_packets_dropped_head_of_queue"))
            + counter(&r, &format!("{class}_packets_dropped_switch_lifetime"))
    };
    assert!(dropped("best_effort") > 0 && dropped("real_time") > 0, "{:?}", r.counters);
    assert_eq!(dropped("control"), 0, "control packets are never dropped");
    assert_eq!(counter(&r, "best_effort_packets_dropped_switch_lifetime"), 0, "no switch lifetime set");
    let damaged = counter(&r, "frames_damaged");
    assert!(damaged > 0 && damaged <= counter(&r, "frames_delivered"), "{:?}", r.counters);
    // Measured through the deadlock instead: the run goes on, reports and flags it.
    let through = run(&format!("{base}[ib]\non_deadlock = \"continue\"\n"));
    assert_eq!(through.run.stop_reason, fabricsim::StopReason::MaxObservations, "{:?}", through.run);
    assert!(through.run.flags.iter().any(|f| f == "deadlock"), "{:?}", through.run.flags);
    assert!(through.sections.iter().any(|(n, _)| n == "deadlock"));
    assert!(through.run.sim_time_us > plain.run.sim_time_us);
    let unlimited = run(&format!("{base}[ib.switch]\nhoq_life = 20\n"));
    assert_eq!((unlimited.run.events, unlimited.run.stop_reason), (plain.run.events, plain.run.stop_reason));
}

/// Multipath routing on the family's first network (with dropping, as
/// multipath without it can deadlock there): every switch's table has 15 x
/// 2^(cycles through it) entries and the network 23 - 15 + 1 = 9 cycles;
/// video frames of a stream and reliable datagrams of a source and
/// destination arrive in order, as the IBA requires of connections and
/// reliable datagrams, while unreliable datagrams, adapting at every
/// switch, overtake one another; some take longer paths than SPF's.
#[test]
fn multipath_routes_by_path_bits_and_keeps_the_order_the_iba_requires() {
    let base = "[run]\nwarmup_observations = 0\nmax_observations = 200000\nmin_observations = 0\nprecision = 0\n\
                [ib.switch]\nhoq_life = 6\n[ib.topology]\nkind = \"random\"\nseed = 1\n\
                [ib.workload]\ninjection_rate = 0.3\nreal_time_share = 0.7\n";
    let counter = |r: &RunReport, name: &str| r.counters.iter().find(|(n, _)| n == name).unwrap().1;
    let hops = |r: &RunReport| {
        let delivered: i64 = r.counters.iter().filter(|(n, _)| n.ends_with("packets_delivered")).map(|(_, v)| v).sum();
        counter(r, "crossbar_transfers") as f64 / delivered as f64
    };
    let spf = run(base);
    for selection in ["lfu", "max_credit"] {
        let r = run(&format!("{base}[ib.routing]\nalgorithm = \"multipath\"\nselection = \"{selection}\"\n"));
        assert_eq!(r.run.stop_reason, fabricsim::StopReason::MaxObservations, "{selection}: {:?}", r.run);
        assert_eq!(counter(&r, "frames_out_of_order"), 0);
        assert_eq!(counter(&r, "reliable_datagrams_out_of_order"), 0);
        assert!(counter(&r, "unreliable_datagrams_out_of_order") > 0, "{selection}");
        assert!(hops(&r) > hops(&spf), "{selection}: {} against SPF's {}", hops(&r), hops(&spf));
        let mp = &r.sections.iter().find(|(n, _)| n == "routing").unwrap().1["multipath"];
        assert_eq!(mp["cycles"].as_array().unwrap().len(), 9, "{mp}");
        let k = mp["cycles_per_switch"].as_array().unwrap();
        let entries = mp["entries_per_switch"].as_array().unwrap();
        for (k, e) in k.iter().zip(entries) {
            assert_eq!(e.as_u64().unwrap(), 15 << k.as_u64().unwrap());
        }
    }
}

// ---------------------------------------------------------------------------
// 8. Bad input
// ---------------------------------------------------------------------------

/// The error a scenario gets, from loading it or, if it loads, from building it.
fn error(toml: &str) -> fabricsim::Error {
    match Scenario::from_toml_str(toml, "bad.toml") {
        Err(e) => e,
        Ok(s) => fabricsim::run::check(&s).expect_err("the scenario must be refused"),
    }
}

#[track_caller]
fn assert_error(toml: &str, key: &str, value: &str, allowed: &[&str]) {
    let e = error(toml);
    assert_eq!(e.kind, fabricsim::ErrorKind::Scenario, "{e}");
    assert_eq!(e.key.as_deref(), Some(key), "{e}");
    assert_eq!(e.value.as_deref(), Some(value), "{e}");
    let a = e.allowed.as_deref().unwrap_or_else(|| panic!("no allowed in {e}"));
    for part in allowed {
        assert!(a.contains(part), "allowed `{a}` does not mention `{part}`");
    }
    let text = e.to_string();
    assert!(text.contains(key) && text.contains(value), "{text}");
}

#[test]
fn bad_input_names_key_value_and_what_is_allowed() {
    // The real-time SL left without a VL.
    let mut sl_to_vl = [0u32, 1, 2, 3].repeat(4);
    sl_to_vl[1] = 15;
    assert_error(
        &format!(
            "[ib]\ndata_vls = 4\nsl_to_vl = {sl_to_vl:?}\n[ib.vl_arbitration]\nhigh = [{{vl = 1, weight = 64}}]\n\
             low = [{{vl = 0, weight = 64}}]\n[ib.workload]\nreal_time_sls = [1]\nbest_effort_sls = [0]\n"
        ),
        "ib.sl_to_vl[1]",
        "15 (no VL)",
        &["SL 1", "ib.workload.real_time_sls"],
    );
    // A weight table naming a VL the port lacks.
    assert_error(
        "[ib]\ndata_vls = 2\n[ib.vl_arbitration]\nhigh = [{vl = 1, weight = 64}]\nlow = [{vl = 0, weight = 64}, {vl = 5, weight = 64}]\n",
        "ib.vl_arbitration.low[1].vl",
        "5",
        &["0..=1", "ib.data_vls = 2"],
    );
    // A cable to switch 9 of 3.
    assert_error(
        "[ib.topology]\nkind = \"custom\"\nhcas = [1, 1, 1]\ncables = [[1, 2], [2, 9]]\n",
        "ib.topology.cables[1]",
        "[2, 9]",
        &["1 to 3"],
    );
    // Six cables and an HCA on a 5-port switch.
    assert_error(
        "[ib.topology]\nkind = \"custom\"\nhcas = [1, 1, 1, 1, 1, 1, 1]\n\
         cables = [[1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 7]]\n",
        "ib.topology.cables",
        "switch 1 with 6 links and 1 HCA: 7 ports",
        &["at most 5 ports", "ib.topology.ports"],
    );
    // Two switches with HCAs and no cable between them.
    assert_error(
        "[ib.topology]\nkind = \"custom\"\nhcas = [1, 1]\n",
        "ib.topology.cables",
        "HCA 1 on switch 2, which no cable joins to switch 1 (HCA 0)",
        &["connected"],
    );
    // An Up*/Down* root beyond the 15 switches.
    assert_error("[ib.routing]\nalgorithm = \"updown\"\nroot = 16\n", "ib.routing.root", "16", &["1 to 15"]);
}

/// A load whose video would need more streams than the sources may hold is
/// refused by name, before anything is allocated for them.
#[test]
fn too_many_video_streams_are_refused() {
    let fast = "[ib]\nlink = \"12xNDR\"\n[ib.topology]\nkind = \"fat_tree\"\narity = 8\nlevels = 4\n\
                [ib.workload]\ninjection_rate = 1.0\n";
    let e = fabricsim::run::check(&scenario(fast)).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.injection_rate"), "{e}");
    assert!(e.allowed.as_deref().unwrap().contains("video streams"), "{e}");
    let e = fabricsim::run::check(&scenario(
        "[ib.workload]\nstreams_per_hca = 4096\n[ib.topology]\nkind = \"fat_tree\"\narity = 8\nlevels = 4\n",
    ))
    .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.streams_per_hca"), "{e}");
}

/// Arbitration tables the user never wrote follow `data_vls`: one data VL
/// carries video and best-effort alike, two split them; no error names a
/// default table written for 15 VLs. A VL buffer too small for a packet is
/// an error about the buffer the user gave, not the packet's size.
#[test]
fn default_arbitration_tables_follow_the_data_vls() {
    let short = "[run]\nwarmup_observations = 0\nmax_observations = 2000\nmin_observations = 0\nprecision = 0\n";
    for (vls, high, low) in [(1u32, vec![0u32], vec![]), (2, vec![1, 0], vec![]), (4, vec![1, 2, 3, 0], vec![])] {
        let s = scenario(&format!("{short}[ib]\ndata_vls = {vls}\n"));
        let fabricsim::scenario::ModelSpec::InfiniBand(ib) = &s.model else { panic!("an InfiniBand scenario") };
        let vl = |t: &[fabricsim::scenario::ib::ArbitrationEntry]| t.iter().map(|e| e.vl).collect::<Vec<_>>();
        assert_eq!((vl(ib.vl_arbitration.high()), vl(ib.vl_arbitration.low())), (high, low), "{vls} VLs");
        let r = run(&format!("{short}[ib]\ndata_vls = {vls}\n"));
        assert!(r.run.observations >= 2000, "{vls} VLs: {:?}", r.run);
    }
    let s = scenario("[ib]\n");
    let fabricsim::scenario::ModelSpec::InfiniBand(ib) = &s.model else { panic!() };
    let vls: Vec<u32> = ib.vl_arbitration.high().iter().chain(ib.vl_arbitration.low()).map(|e| e.vl).collect();
    assert_eq!(vls, (1..=14).collect::<Vec<_>>(), "15 data VLs: the paper's tables");
    let e = fabricsim::run::check(&scenario("[ib]\nvl_buffer_bytes = 1000\n")).unwrap_err();
    assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.vl_buffer_bytes"), Some("1000")), "{e}");
    assert!(e.allowed.as_deref().unwrap().starts_with("at least 1088 bytes"), "{e}");
}

/// A trace file that is not one is an error naming the key and the file
/// (the built-in default needs none: `tests/test_anywhere.py` runs it from
/// an empty directory).
#[test]
fn a_bad_trace_file_names_the_key_and_the_file() {
    let binary = std::env::temp_dir().join(format!("fabricsim-binary-{}.data", std::process::id()));
    std::fs::write(&binary, [0u8, 159, 146, 150, 9, 9, 9, 10]).unwrap();
    let e =
        fabricsim::run::check(&scenario(&format!("[ib.workload]\ntrace = \"{}\"\n", binary.display()))).unwrap_err();
    std::fs::remove_file(&binary).unwrap();
    assert_eq!(e.key.as_deref(), Some("ib.workload.trace"), "{e}");
    assert!(e.value.as_deref().unwrap().contains("fabricsim-binary-"), "{e}");
    assert!(e.message.contains("a binary file, not a text trace"), "{e}");
    let e = fabricsim::run::check(&scenario("[ib.workload]\ntrace = \"/no/such/trace.data\"\n")).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.trace"), "{e}");
    assert!(e.allowed.as_deref().unwrap().contains("\"builtin\" (the default"), "{e}");
}

/// The calendar queue's ring spans a few packet times at every size: on a
/// 4-ary 5-tree (1,024 HCAs, 10,240 switch ports) its buckets are 512 ps
/// wide, and with the 4,096 buckets of small fabrics (2.1 us, half a
/// 1xSDR packet time) 57% of the events of this run went to the overflow
/// heap (441,588 of 781,016); with the ring grown to four packet times,
/// 1.6% with whole video frames (the sources' next arrivals and the like),
/// and the run is the same. Paced video (the default) releases a frame's
/// packets a frame period over its packets apart, beyond the ring: 6.0%.
#[test]
fn the_calendar_spans_a_few_packet_times_on_a_thousand_hcas() {
    let toml = "[ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 5\n[ib.routing]\nalgorithm = \"ftree\"\n\
                [ib.workload]\ninjection_rate = 0.3\n";
    let mut f = Simulation::new(IbFabric::build(&scenario(toml)).unwrap());
    let packet = 1050 * 4_000;
    assert!(f.event_set().span() >= 4 * packet, "span {} ps", f.event_set().span());
    f.start();
    f.run_until(200 * packet);
    let (far, events) = (f.event_set().far_pushes(), f.events());
    assert!(events > 100_000, "{events} events");
    assert!(far * 10 < events, "{far} of {events} events went to the overflow heap");
}

/// Traffic patterns reach the fabric: four HCAs of a 16-HCA fat tree in
/// incast send a quarter of the messages all sixteen send uniformly in the
/// same 2 ms at the same rate each, and the target's link carries their
/// 4 x 20%: nothing refused or discarded, nearly all delivered by the end.
#[test]
fn an_incast_sends_from_its_senders_only_and_delivers_every_packet() {
    let toml = |pattern: &str| {
        format!(
            "[run]\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\nprecision = 0\n\
             max_time_ms = 2\n\
             [ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 2\n[ib.routing]\nalgorithm = \"ftree\"\n\
             [ib.workload]\ninjection_rate = 0.2\nreal_time_share = 0\ncontrol_period_ms = 0\n{pattern}"
        )
    };
    let incast = run(&toml("pattern = \"incast\"\nincast_target = 5\nincast_senders = 4\n"));
    let uniform = run(&toml(""));
    let c = |r: &RunReport, k: &str| r.counter(k).unwrap_or_else(|| panic!("no counter {k}"));
    for r in [&incast, &uniform] {
        assert_eq!(c(r, "best_effort_messages_refused") + c(r, "packets_discarded"), 0);
        let (injected, delivered) = (c(r, "best_effort_packets_injected"), c(r, "best_effort_packets_delivered"));
        assert!(injected > 300 && delivered * 100 >= injected * 95, "{delivered} of {injected} delivered");
    }
    let share =
        c(&incast, "best_effort_messages_generated") as f64 / c(&uniform, "best_effort_messages_generated") as f64;
    assert!((share - 0.25).abs() < 0.05, "incast sent {share} of uniform's messages");
}

/// A switch of more than 64 ports keeps the requests of inputs 64 and on
/// beside its ports' first 64 (a 33-ary 2-tree: 66-port switches, whose
/// last up ports are inputs 64 and 65): under uniform load those inputs are
/// served like the others, every packet is delivered and the drained
/// fabric is empty.
#[test]
fn a_switch_of_more_than_64_ports_serves_every_input() {
    let r = run("[run]\nseed = 2\nwarmup_observations = 0\nmax_observations = 40000\nmin_observations = 0\n\
                 precision = 0\ndrain = true\n\
                 [ib.topology]\nkind = \"fat_tree\"\narity = 33\nlevels = 2\n[ib.routing]\nalgorithm = \"ftree\"\n\
                 [ib.workload]\ninjection_rate = 0.6\nreal_time_share = 0\n");
    let c = |k: &str| r.counter(k).unwrap_or_else(|| panic!("no counter {k}"));
    assert!(r.run.flags.iter().all(|f| f != "drain_not_finished"), "{:?}", r.run.flags);
    let (injected, delivered) = (c("best_effort_packets_injected"), c("best_effort_packets_delivered"));
    assert!(injected > 40_000, "{injected}");
    assert_eq!((delivered, c("packets_in_flight"), c("packets_discarded")), (injected, 0, 0));
}
