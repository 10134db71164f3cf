//! Multicast in the InfiniBand model (seed 003 sections 3.6 and 5.2): each
//! replication scheme's timing on an idle switch, every multicast packet
//! delivered once to every member and counted once per member by the
//! conservation audit, the same member deliveries whichever the scheme,
//! synchronous replication free of deadlock under heavy load on
//! deadlock-free tables, a deadlock through multicast copies found and
//! attributed, and the errors bad input gets.

use fabricsim::ib::packet::TrafficClass;
use fabricsim::ib::IbFabric;
use fabricsim::kernel::Time;
use fabricsim::sim::Simulation;
use fabricsim::{RunReport, Scenario};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, "multicast.toml").unwrap_or_else(|e| panic!("valid scenario: {e}\n{toml}"))
}

fn run(toml: &str) -> RunReport {
    fabricsim::run(&scenario(toml)).unwrap_or_else(|e| panic!("run succeeds: {e}\n{toml}"))
}

const SCHEMES: [&str; 4] = ["replicated_unicast", "synchronous", "asynchronous", "central_buffer"];

/// Switch 1 with HCA 0, switch 2 with HCAs 1 and 2; one group of all three; no sources.
fn two_switches(scheme: &str) -> String {
    format!(
        "[ib.topology]\nkind = \"custom\"\nhcas = [1, 2]\ncables = [[1, 2]]\n\
         [ib.workload]\ninjection_rate = 0\ncontrol_period_ms = 0\n\
         [ib.multicast]\nscheme = \"{scheme}\"\nshare = 0\ngroups = [[0, 1, 2]]\n"
    )
}

/// One 1024-byte packet from HCA 0 to its group on an idle fabric. A
/// unicast packet over two switches takes L = 2 (propagation + LRH +
/// forwarding + arbitration) + propagation + wire(1050). Synchronous
/// replication sends both copies at switch 2 at once, and the central
/// buffer writes the packet into both outputs' FIFOs, which serve it at
/// once (cut-through): both members have it at L. Asynchronous replication
/// sends the second copy when the first copy's crossbar transfer ends, one
/// wire time later; replicated unicast sends two packets back to back from
/// the source, the second one wire time after the first.
#[test]
fn each_scheme_times_its_copies_on_an_idle_fabric() {
    let (prop, lrh, stages, wire) = (5_000, 32_000, 100_000, 1050 * 4_000);
    let l: Time = 2 * (prop + lrh + stages) + prop + wire;
    for (scheme, second) in
        [("synchronous", l), ("central_buffer", l), ("asynchronous", l + wire), ("replicated_unicast", l + wire)]
    {
        let mut f = Simulation::new(IbFabric::build(&scenario(&two_switches(scheme))).unwrap());
        assert!(f.inject_multicast(0, 0, TrafficClass::RealTime, 1, 1024), "{scheme}");
        assert!(!f.inject_multicast(0, 1, TrafficClass::RealTime, 1, 1024), "{scheme}: there is no group 1");
        f.run_until(l - 1);
        assert_eq!(f.packets_delivered(), 0, "{scheme}: a copy before {l} ps");
        f.run_until(l);
        let at_l = if second == l { 2 } else { 1 };
        assert_eq!(f.packets_delivered(), at_l, "{scheme}: copies at {l} ps");
        f.run_until(second);
        assert_eq!(f.packets_delivered(), 2, "{scheme}: both copies by {second} ps");
        f.run_until(Time::MAX);
        assert_eq!(f.packets_delivered(), 2, "{scheme}: exactly one copy per member");
        // Switch replication crosses the first switch once, replicated unicast twice.
        let hops = if scheme == "replicated_unicast" { 4 } else { 3 };
        assert_eq!(f.packet_hops(), hops, "{scheme}");
        let probe = f.ib_metrics().set.probe(f.ib_metrics().latency[TrafficClass::RealTime as usize]);
        assert_eq!(probe.count(), 2, "{scheme}");
        assert!((probe.mean_us() - (l + second) as f64 / 2.0 * 1e-6).abs() < 1e-9, "{scheme}");
    }
}

/// The family's first 15-switch network at `load`, 70:30, with multicast
/// `scheme` and `extra` keys in `[ib.multicast]`, then `more` sections.
fn family(scheme: &str, load: f64, extra: &str, more: &str) -> String {
    format!(
        "[run]\nseed = 3\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\n\
         precision = 0\nmax_time_ms = 30\n[ib.topology]\nkind = \"random\"\nseed = 1\n\
         [ib.workload]\ninjection_rate = {load}\nreal_time_share = 0.7\n\
         [ib.multicast]\nscheme = \"{scheme}\"\n{extra}{more}"
    )
}

/// Runs the sources for `ms` simulated ms, stops them and runs until nothing
/// is left to do; returns the audit's counters (the audit fails on any
/// packet or copy unaccounted for) and whether the fabric emptied.
fn drained(toml: &str, ms: u64) -> (impl Fn(&str) -> i64, bool, Simulation<IbFabric>) {
    use fabricsim::sim::Model;
    let mut f = Simulation::new(IbFabric::build(&scenario(toml)).unwrap());
    f.start();
    f.run_until(ms * 1_000_000_000);
    f.model.stop_sources();
    f.run_until(Time::MAX);
    let counters = f.model.audit(f.pending()).unwrap_or_else(|e| panic!("audit: {e}\n{toml}"));
    let empty = f.model.ib_metrics().counters.packets_injected.iter().sum::<u64>() as i64
        == counters.iter().filter(|(k, _)| k.ends_with("_packets_delivered")).map(|(_, v)| v).sum::<i64>();
    let c = move |k: &str| counters.iter().find(|(n, _)| n == k).unwrap_or_else(|| panic!("no counter {k}")).1;
    (c, empty, f)
}

/// The same sources (seed, streams, groups) under every scheme: a drained
/// run delivers every multicast packet once to every member, so the member
/// deliveries and the frames judged at the members are the same whatever
/// the scheme, and the audit (run succeeding) found every copy. Switch
/// replication crosses fewer crossbars and loads the HCA links less.
#[test]
fn every_scheme_delivers_each_packet_once_to_every_member() {
    let mut seen: Vec<(i64, i64, i64, i64)> = Vec::new();
    for scheme in SCHEMES {
        let (c, empty, f) = drained(&family(scheme, 0.3, "", ""), 30);
        assert!(empty, "{scheme}: the fabric did not empty");
        assert_eq!(c("packets_in_flight"), 0, "{scheme}");
        assert_eq!(c("messages_in_progress"), 0, "{scheme}");
        assert_eq!(c("real_time_packets_injected"), c("real_time_packets_delivered"), "{scheme}");
        assert_eq!(c("real_time_messages_refused"), 0, "{scheme}");
        let m = f.ib_metrics();
        assert!(m.set.probe(m.multicast_latency().unwrap()).count() > 1000, "{scheme}");
        seen.push((
            c("real_time_packets_delivered"),
            c("frames_delivered"),
            c("crossbar_transfers"),
            c("frames_out_of_order"),
        ));
    }
    let unicast = seen[0];
    for (k, s) in seen.iter().enumerate().skip(1) {
        assert_eq!((s.0, s.1), (unicast.0, unicast.1), "{}: member deliveries and frames", SCHEMES[k]);
        assert!(s.2 < unicast.2, "{}: {} crossbar transfers, replicated unicast {}", SCHEMES[k], s.2, unicast.2);
        assert_eq!(s.3, 0, "{}: frames out of order", SCHEMES[k]);
    }
}

/// Stopped mid-run, copies are in flight in VL buffers, an asynchronous
/// input's buffer and central FIFOs; the audit counts each as the members
/// it leads to (the run fails if the counts disagree).
#[test]
fn undrained_runs_account_for_every_copy() {
    for scheme in SCHEMES {
        let r = run(&family(scheme, 0.5, "", ""));
        let c = |k: &str| r.counter(k).unwrap();
        let sum = |what: &str| -> i64 {
            ["real_time", "best_effort", "control"].iter().map(|k| c(&format!("{k}_packets_{what}"))).sum()
        };
        assert!(c("packets_in_flight") > 0, "{scheme}");
        assert_eq!(sum("injected"), sum("delivered") + c("packets_discarded") + c("packets_in_flight"), "{scheme}");
    }
}

/// Synchronous replication under FCFS (and round robin) at three times the
/// load the network carries, on deadlock-free Up*/Down* tables: every packet
/// still drains (a multicast packet waiting forever for outputs would stop
/// the drain), with small HCA buffers so the drain is short.
#[test]
fn synchronous_replication_does_not_deadlock_under_heavy_load() {
    for order in ["fcfs", "round_robin"] {
        let extra = format!("order = \"{order}\"\nshare = 0.5\n");
        let more = "[ib.routing]\nalgorithm = \"updown\"\n[ib.hca]\nbuffer_mb = 0.25\n";
        let (c, empty, _) = drained(&family("synchronous", 1.0, &extra, more), 30);
        assert!(c("real_time_messages_refused") > 0, "{order}: the load is above saturation");
        assert!(empty, "{order}: packets stuck after the sources stopped");
        assert_eq!(c("packets_in_flight"), 0, "{order}");
        assert!(c("real_time_packets_delivered") > 10_000, "{order}");
    }
}

/// Seed 003's Fig. 10 setting (SPF with lifetime dropping, 20% of the video
/// multicast, synchronous replication) on network seed 68 at 40%: a
/// deadlock whose cycle passes through multicast copies waiting on full
/// output VLs (the trees' channel dependencies closing a loop with SPF's)
/// is found, each wait named, and attributed to multicast copies. No
/// reservation is on it: a request reserves its outputs only when each has
/// room, so a reservation never waits on a full VL. It is real: after the
/// sources stop, packets stay in the fabric for good. Replicated unicast,
/// with the same streams as unicast packets, has no such wait to close it.
#[test]
fn a_deadlock_through_multicast_copies_is_found_and_attributed() {
    let toml = |scheme: &str, stop: &str| {
        format!(
            "[run]\nseed = 1\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\n\
             precision = 0\nmax_time_ms = 150\n[ib]\non_deadlock = \"{stop}\"\n\
             [ib.topology]\nkind = \"random\"\nseed = 68\n[ib.switch]\nhoq_life = 6\n\
             [ib.workload]\ninjection_rate = 0.4\nreal_time_share = 0.7\n[ib.multicast]\nscheme = \"{scheme}\"\n"
        )
    };
    let r = run(&toml("synchronous", "stop"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::Deadlock, "{:?}", r.run);
    let d = &r.sections.iter().find(|(n, _)| n == "deadlock").expect("a deadlock section").1;
    assert_eq!(d["cause"], "multicast copies", "{d}");
    let waits: Vec<&str> = d["cycle_waits"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(waits.len(), d["cycle"].as_array().unwrap().len(), "one wait per node: {d}");
    assert!(waits.contains(&"multicast copy on a full output VL"), "{d}");
    assert!(!waits.contains(&"output reserved by synchronous replication"), "{d}");
    assert!(d["replication_waits_on_cycles"].as_u64().unwrap() >= 1, "{d}");

    let (c, empty, _) = drained(&toml("synchronous", "continue"), 150);
    assert!(!empty && c("packets_in_flight") > 0, "stuck packets stay");

    let r = run(&toml("replicated_unicast", "stop"));
    let cause = r.sections.iter().find(|(n, _)| n == "deadlock").map(|(_, d)| d["cause"].clone());
    assert!(cause.is_none() || cause.as_ref().unwrap() == "unicast routing", "{cause:?}");
}

fn error(toml: &str) -> fabricsim::Error {
    match Scenario::from_toml_str(toml, "multicast.toml") {
        Err(e) => e,
        Ok(s) => match IbFabric::build(&s) {
            Err(e) => e,
            Ok(_) => panic!("accepted:\n{toml}"),
        },
    }
}

#[test]
fn bad_multicast_input_names_key_value_and_what_is_allowed() {
    let cases: [(&str, &str, &str); 10] = [
        (
            &format!("{SEPARATE}sls = [1]\n").replace("sls = [6, 7, 8, 9, 10, 11]\nsls", "sls"),
            "ib.multicast.sls[0]",
            "1",
        ),
        ("[ib.multicast]\nbandwidth = \"linear\"\n", "ib.multicast.bandwidth", "linear"),
        ("[ib.multicast]\nshare = 1.5\n", "ib.multicast.share", "1.5"),
        ("[ib.multicast]\ngroup_sizes = [1]\n", "ib.multicast.group_sizes", "[1]"),
        ("[ib.multicast]\ngroups = [[0, 0]]\n", "ib.multicast.groups[0]", "[0, 0]"),
        ("[ib.multicast]\ngroups = [[0, 99]]\n", "ib.multicast.groups[0]", "99"),
        ("[ib.multicast]\nscheme = \"asynchronous\"\norder = \"fcfs\"\n", "ib.multicast.order", "given"),
        ("[ib.multicast]\ncentral_buffer_bytes = 8400\n", "ib.multicast.central_buffer_bytes", "8400"),
        (
            "[ib.multicast]\nscheme = \"central_buffer\"\nreservation = \"hold_and_wait\"\n",
            "ib.multicast.reservation",
            "hold_and_wait",
        ),
        ("[ib.routing]\nalgorithm = \"multipath\"\n[ib.multicast]\n", "ib.multicast", "given"),
    ];
    for (toml, key, value) in cases {
        let e = error(toml);
        assert_eq!(e.key.as_deref(), Some(key), "{toml}: {e}");
        assert_eq!(e.value.as_deref(), Some(value), "{toml}: {e}");
        assert!(e.allowed.as_deref().is_some_and(|a| !a.is_empty()), "{toml}: {e}");
    }
    let e = error("[ib.multicast]\nscheme = \"broadcast\"\n");
    assert!(e.to_string().contains("scheme"), "{e}");
}

/// The bench row's scenario carries its load in steady state: no run flag.
#[test]
fn the_bench_scenario_carries_its_load() {
    let r = fabricsim::run(&fabricsim::bench::ib_multicast_scenario(60_000)).unwrap();
    assert!(r.run.flags.is_empty(), "{:?}", r.run.flags);
    assert!(r.counter("crossbar_transfers").unwrap() > 60_000);
}

/// Fig. 10f's VL layout: unicast video on SLs 1-5, multicast on 6-11 (6:5),
/// best-effort on 12-14 and 0.
const SEPARATE: &str = "[ib.workload]\nreal_time_sls = [1, 2, 3, 4, 5]\nbest_effort_sls = [12, 13, 14, 0]\n\
                        [ib.multicast]\nscheme = \"asynchronous\"\nsls = [6, 7, 8, 9, 10, 11]\n";

/// The bandwidth policies set the default high-priority table: unicast
/// video VLs 32 each, a group's multicast VLs (group g on positions g and
/// g + 3 of the 6) 32 (equal), 32 x members (linear) or 32 x (1 + log2
/// members) (logarithmic), with groups of 2, 4 and 4 members.
#[test]
fn bandwidth_policies_weigh_the_multicast_vls() {
    for (policy, two, four) in [("equal", 32, 32), ("linear", 64, 128), ("logarithmic", 64, 96)] {
        let s = scenario(&format!("{SEPARATE}bandwidth = \"{policy}\"\n"));
        let ib = s.infiniband().unwrap();
        let high: Vec<(u32, u32)> = ib.vl_arbitration.high().iter().map(|e| (e.vl, e.weight)).collect();
        let want: Vec<(u32, u32)> = vec![
            (1, 32),
            (2, 32),
            (3, 32),
            (4, 32),
            (5, 32),
            (6, two),
            (7, four),
            (8, four),
            (9, two),
            (10, four),
            (11, four),
        ];
        assert_eq!(high, want, "{policy}");
        let low: Vec<u32> = ib.vl_arbitration.low().iter().map(|e| e.vl).collect();
        assert_eq!(low, vec![12, 13, 14, 0], "{policy}");
    }
    // The table the policy set, given back (as a report's scenario echo does), is accepted.
    let s = scenario(&format!("{SEPARATE}bandwidth = \"linear\"\n"));
    let entries: Vec<String> = s
        .infiniband()
        .unwrap()
        .vl_arbitration
        .high()
        .iter()
        .map(|e| format!("{{vl = {}, weight = {}}}", e.vl, e.weight))
        .collect();
    let high = format!("[ib.vl_arbitration]\nhigh = [{}]\n", entries.join(", "));
    scenario(&format!("{SEPARATE}bandwidth = \"linear\"\n{high}"));
    // Another table with the policy is refused.
    let e = Scenario::from_toml_str(
        &format!("{SEPARATE}bandwidth = \"linear\"\n{}", high.replace("weight = 128", "weight = 100")),
        "m.toml",
    )
    .unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.multicast.bandwidth"), "{e}");
}

/// With separate VLs a run sends multicast packets on the multicast VLs
/// only and unicast video on its own; every copy still arrives.
#[test]
fn separate_vls_carry_the_multicast_packets() {
    let toml = format!(
        "[run]\nseed = 3\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\n\
         precision = 0\nmax_time_ms = 30\n[ib.topology]\nkind = \"random\"\nseed = 1\n{SEPARATE}bandwidth = \"logarithmic\"\n"
    );
    let (c, empty, f) = drained(&toml, 30);
    assert!(empty && c("packets_in_flight") == 0);
    let m = f.ib_metrics();
    let bytes: Vec<u64> = (0..16).map(|v| m.vl_bytes_sent(v)).collect();
    assert!((6..=11).all(|v| bytes[v] > 0), "multicast VLs: {bytes:?}");
    assert!((1..=5).all(|v| bytes[v] > 0), "unicast video VLs: {bytes:?}");
    assert!(bytes[15] > 0, "control on VL15");
}

/// Control packets (VL15) come first at an output a multicast packet holds
/// (the replication is asked before the unicast inputs there, but after
/// control). Switch 1 has HCA 0, switch 2 HCAs 1, 2 and 3. HCA 1's two
/// best-effort packets keep switch 2's output to HCA 2 busy; HCA 3's control
/// packet for HCA 2 and then HCA 0's synchronous multicast packet (group 0,
/// 1, 2) arrive there meanwhile, the multicast packet holding the output.
/// When it frees, the control packet crosses first, then the multicast
/// copies, then HCA 1's second packet.
#[test]
fn control_packets_pass_a_multicast_packet_holding_its_output() {
    for scheme in ["synchronous", "asynchronous", "central_buffer"] {
        control_passes_multicast(scheme);
    }
}

fn control_passes_multicast(scheme: &str) {
    let toml = two_switches(scheme).replace("hcas = [1, 2]", "hcas = [1, 3]");
    let mut f = Simulation::new(IbFabric::build(&scenario(&toml)).unwrap());
    let probe = |f: &Simulation<IbFabric>, id| f.ib_metrics().set.probe(id).count();
    let m = f.ib_metrics();
    let (control, unicast) = (m.latency[TrafficClass::Control as usize], m.latency[TrafficClass::BestEffort as usize]);
    let multicast = m.multicast_latency().expect("a multicast run has its latency probe");
    assert!(f.inject(1, 2, TrafficClass::BestEffort, 8, 2048), "two full packets");
    assert!(f.inject_multicast(0, 0, TrafficClass::RealTime, 1, 1024));
    f.run_until(100_000); // the unicast packet has the output first
    assert!(f.inject(3, 2, TrafficClass::Control, 15, 64));
    // Deliveries in order, sampled every 10 ns: (control, multicast copies, unicast packets).
    let mut seen = vec![(0, 0, 0)];
    let mut t: Time = 0;
    while f.packets_delivered() < 5 {
        t += 10_000;
        assert!(t < 1_000_000_000, "all five packets delivered within 1 ms");
        f.run_until(t);
        let now = (probe(&f, control), probe(&f, multicast), probe(&f, unicast));
        if now != *seen.last().unwrap() {
            seen.push(now);
        }
    }
    // Asynchronous and central-buffer replication send the copy to HCA 1 at
    // once: it is in before the held output frees.
    let mut order = vec![(0, 0, 0), (0, 0, 1), (1, 0, 1), (1, 2, 1), (1, 2, 2)];
    if scheme != "synchronous" {
        order[2..3].copy_from_slice(&[(0, 1, 1)]);
        order.insert(3, (1, 1, 1));
    }
    assert_eq!(seen, order, "{scheme}: order of deliveries");
}

/// Asynchronous replication holds the input port one packet time per
/// multicast packet, not one per copy: the later copies are read from the
/// input's buffer, and a unicast packet behind the multicast one on the
/// same input crosses meanwhile. HCA 0 sends a multicast packet to HCAs 1
/// and 2 and then a packet to HCA 3; switch 2 copies to HCA 1 at once and
/// to HCA 2 one wire time later, while the packet to HCA 3, a wire time
/// behind on the cable, crosses at once: it arrives at L + wire, as on an
/// idle fabric (held for the second copy it would arrive at L + 2 wire).
#[test]
fn asynchronous_copies_leave_the_input_port_free() {
    let (prop, lrh, stages, wire) = (5_000, 32_000, 100_000, 1050 * 4_000);
    let l: Time = 2 * (prop + lrh + stages) + prop + wire;
    let toml = two_switches("asynchronous").replace("hcas = [1, 2]", "hcas = [1, 3]");
    let mut f = Simulation::new(IbFabric::build(&scenario(&toml)).unwrap());
    let unicast = f.ib_metrics().latency[TrafficClass::BestEffort as usize];
    assert!(f.inject_multicast(0, 0, TrafficClass::RealTime, 1, 1024));
    assert!(f.inject(0, 3, TrafficClass::BestEffort, 8, 1024));
    f.run_until(l + wire - 1);
    assert_eq!(f.ib_metrics().set.probe(unicast).count(), 0, "the unicast packet before L + wire");
    f.run_until(l + wire);
    assert_eq!(f.ib_metrics().set.probe(unicast).count(), 1, "the unicast packet at L + wire");
    assert_eq!(f.packets_delivered(), 3, "both copies and the unicast packet by L + wire");
    f.run_until(Time::MAX);
    assert_eq!(f.packets_delivered(), 3);
}

/// The two readings of when a synchronous request reserves its outputs
/// (the model doc's "synchronous reservation"): `room_first`, the default,
/// runs bit for bit as without the key; `hold_and_wait` holds outputs for
/// requests still waiting for room, so unicast packets wait longer on them.
#[test]
fn synchronous_reservation_readings() {
    let toml = |extra: &str| family("synchronous", 0.4, &format!("share = 0.5\n{extra}"), "");
    // Every counter and metric, floats to the bit (Debug prints them exactly).
    let outcome = |extra: &str| {
        let r = run(&toml(extra));
        format!("{:?}{:?}", r.counters, r.metrics)
    };
    let default = outcome("");
    assert_eq!(default, outcome("reservation = \"room_first\"\n"));
    assert_ne!(default, outcome("reservation = \"hold_and_wait\"\n"), "holding outputs while waiting changes the run");
}
