//! InfiniBand links of several rates in one fabric (an imported subnet's
//! cables at the widths and speeds its file gives), checked against
//! arithmetic: zero-load latency across QDR -> FDR10 and FDR10 -> QDR hops
//! to the picosecond, each cable's throughput at its own rate, packet
//! conservation on the 144-HCA cluster that mixes the two, and `ib.link`
//! overriding every cable.

use fabricsim::ib::packet::TrafficClass;
use fabricsim::ib::IbFabric;
use fabricsim::kernel::Time;
use fabricsim::sim::Simulation;
use fabricsim::Scenario;

const CLUSTER_144: &str = "../shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover";

/// Picoseconds per byte: 4x QDR carries 32 Gbit/s of data (8b/10b on
/// 4 x 10 Gbit/s), 4x FDR10 40 Gbit/s (64b/66b on 4 x 10.3125 Gbit/s).
const QDR: Time = 250;
const FDR10: Time = 200;

/// No sources: packets come only from `IbFabric::inject`.
const NO_WORKLOAD: &str = "[ib.workload]\ninjection_rate = 0\ncontrol_period_ms = 0\n";

/// Two switches, `hcas` HCAs on each (HCAs 0.. on S-a, then those of S-b),
/// their links at `edge`, and one cable S-a to S-b at `core`, written as
/// ibnetdiscover writes a subnet; returns the file's path.
fn two_switches(name: &str, hcas: u32, edge: &str, core: &str) -> String {
    let mut text = String::new();
    for (s, other) in [("a", "b"), ("b", "a")] {
        text += &format!("Switch\t8 \"S-{s}\"\t\t# \"switch {s}\" lid 1\n");
        for h in 1..=hcas {
            text += &format!("[{h}]\t\"H-{s}{h}\"[1]\t\t# \"host\" lid 2 {edge}\n");
        }
        text += &format!("[8]\t\"S-{other}\"[8]\t\t# \"switch {other}\" lid 1 {core}\n\n");
    }
    for s in ["a", "b"] {
        for h in 1..=hcas {
            text += &format!("Ca\t1 \"H-{s}{h}\"\t\t# \"host\"\n[1]\t\"S-{s}\"[{h}]\t\t# lid 2 lmc 0 \"switch {s}\" lid 1 {edge}\n\n");
        }
    }
    let dir = std::env::temp_dir().join(format!("fabricsim-rates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.ibnetdiscover"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn fabric(file: &str, extra: &str) -> IbFabric {
    let toml = format!("{extra}[ib.topology]\nkind = \"import\"\nfile = \"{file}\"\n{NO_WORKLOAD}");
    let s = Scenario::from_toml_str(&toml, "rates.toml").unwrap_or_else(|e| panic!("{e}\n{toml}"));
    IbFabric::build(&s).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Runs `f` until just before `t` and then to `t`: exactly `before` and
/// then `before + 1` packets must have been delivered.
fn delivered_exactly_at(f: &mut Simulation<IbFabric>, t: Time, before: u64) {
    f.run_until(t - 1);
    assert_eq!(f.packets_delivered(), before, "a packet arrived before {t} ps");
    f.run_until(t);
    assert_eq!(f.packets_delivered(), before + 1, "no packet arrived at {t} ps");
}

/// One packet of `bytes` from an HCA of S-a to one of S-b, by hand. At each
/// switch the packet is acted on once its LRH is in at the input's rate and
/// stages 2-3 are through (`act`); the output starts it then, unless its
/// tail, coming in at the input's rate, would not be in by the time the
/// output (at its own rate) would send it: then the output starts it at the
/// tail's arrival less the output's serialization. The destination takes
/// it whole: propagation and its serialization on the last link.
fn by_hand(bytes: Time, edge: Time, core: Time, prop: Time, stages: Time) -> Time {
    let lrh = |ps_per_byte: Time| 8 * ps_per_byte;
    // S-a: in at `edge` from an HCA that starts it at 0, out at `core`.
    let act = prop + lrh(edge) + stages;
    let tail = prop + bytes * edge;
    let start_a = act.max(tail.saturating_sub(bytes * core));
    // S-b: in at `core`, out at `edge`.
    let act = start_a + prop + lrh(core) + stages;
    let tail = start_a + prop + bytes * core;
    let start_b = act.max(tail.saturating_sub(bytes * edge));
    start_b + prop + bytes * edge
}

#[test]
fn zero_load_latency_across_rate_changes_is_the_arithmetic_to_the_picosecond() {
    // Worked once in full: a 1024-byte payload (1050 bytes) over QDR, FDR10,
    // QDR with no stage time. S-a has the LRH at 5 + 2 ns but the tail only
    // at 5 + 262.5 ns, and sends at FDR10 (210 ns): it starts at 57.5 ns. S-b
    // has the LRH at 57.5 + 5 + 1.6 = 64.1 ns and sends at QDR, slower than
    // the tail comes in: it starts then, and the HCA has the tail
    // 5 + 262.5 ns later, at 331.6 ns.
    assert_eq!(by_hand(1050, QDR, FDR10, 5_000, 0), 331_600);
    // With the default 100 ns of stages the LRH binds at S-a as well:
    // 107 ns, 213.6 ns, and the tail at 481.1 ns.
    assert_eq!(by_hand(1050, QDR, FDR10, 5_000, 100_000), 481_100);
    let mut checked = 0;
    for (edge, core, e, c) in [("4xQDR", "4xFDR10", QDR, FDR10), ("4xFDR10", "4xQDR", FDR10, QDR)] {
        let file = two_switches(&format!("{edge}-{core}"), 1, edge, core);
        for (stages_ns, prop_ns) in [(0u64, 5u64), (100, 5), (0, 250)] {
            let extra = format!(
                "[ib]\npropagation_ns = {prop_ns}\n[ib.switch]\nforwarding_ns = {}\narbitration_ns = {}\n",
                stages_ns / 2,
                stages_ns / 2
            );
            let t = fabric(&file, &extra);
            assert_eq!(t.timing().rates().len(), 2, "{edge} and {core}");
            for payload in [0u64, 1, 100, 1000, 1024] {
                let mut f = Simulation::new(fabric(&file, &extra));
                assert!(f.inject(0, 1, TrafficClass::BestEffort, 8, payload));
                let latency = by_hand(payload + 26, e, c, prop_ns * 1000, stages_ns * 1000);
                delivered_exactly_at(&mut f, latency, 0);
                f.run_until(Time::MAX);
                assert_eq!(f.packets_delivered(), 1);
                // And back the other way: the same arithmetic.
                let mut f = Simulation::new(fabric(&file, &extra));
                assert!(f.inject(1, 0, TrafficClass::BestEffort, 8, payload));
                delivered_exactly_at(&mut f, latency, 0);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 3 * 5);
}

/// Deliveries to HCA `dst`'s side between `from` and `to`, a long message
/// (or two) flowing: the number is the window over the bottleneck's packet
/// time, within one.
fn delivered_between(f: &mut Simulation<IbFabric>, from: Time, to: Time) -> u64 {
    f.run_until(from);
    let before = f.packets_delivered();
    f.run_until(to);
    f.packets_delivered() - before
}

#[test]
fn every_cable_carries_its_own_rate() {
    let w = |ps_per_byte: Time| 1050 * ps_per_byte;
    let window = 400 * w(QDR);
    // Long messages from each (source, destination) of `flows` over `file`:
    // the packets delivered in the window are the window over `packet`.
    let check = |file: &str, flows: &[(u32, u32)], packet: Time, what: &str| {
        let mut f = Simulation::new(fabric(file, ""));
        for &(src, dst) in flows {
            assert!(f.inject(src, dst, TrafficClass::BestEffort, 8, 1024 * 1000));
        }
        let n = delivered_between(&mut f, 50 * w(QDR), 50 * w(QDR) + window);
        let want = window / packet;
        assert!(n.abs_diff(want) <= 1, "{what}: {n} packets in the window, {want} at its rate");
    };
    // One QDR HCA to another over an FDR10 cable: the HCA links bind.
    let file = two_switches("qdr-hcas", 2, "4xQDR", "4xFDR10");
    check(&file, &[(0, 2)], w(QDR), "QDR HCA link");
    // Two QDR HCAs into one FDR10 cable: 8 GB/s offered, the cable carries its 5.
    check(&file, &[(0, 2), (1, 3)], w(FDR10), "FDR10 cable");
    // FDR10 HCAs: on one switch, their own rate; across a QDR cable, its rate.
    let file = two_switches("fdr10-hcas", 2, "4xFDR10", "4xQDR");
    check(&file, &[(0, 1)], w(FDR10), "FDR10 HCA link");
    check(&file, &[(0, 2)], w(QDR), "QDR cable");
    // An explicit ib.link runs every cable at it: 4x EDR, 25 Gbit/s a lane, 80 ps a byte.
    let mut f = Simulation::new(fabric(&file, "[ib]\nlink = \"4xEDR\"\n"));
    assert_eq!(f.timing().rates().len(), 1);
    assert!(f.inject(0, 2, TrafficClass::BestEffort, 8, 1024 * 3000));
    let n = delivered_between(&mut f, 50 * w(QDR), 50 * w(QDR) + window);
    assert!(n.abs_diff(window / w(80)) <= 1, "4xEDR everywhere: {n}");
}

#[test]
fn the_144_hca_cluster_runs_its_cables_at_their_rates_and_conserves_packets() {
    let toml = format!(
        "[run]\nseed = 5\nwarmup_observations = 2000\nmax_observations = 20000\nmin_observations = 0\n\
         precision = 0\ndrain = true\n[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER_144}\"\n\
         [ib.routing]\nalgorithm = \"min_hop\"\n[ib.workload]\ninjection_rate = 0.3\nreal_time_share = 0\n"
    );
    let s = Scenario::from_toml_str(&toml, "cluster.toml").unwrap();
    let t = IbFabric::build(&s).unwrap();
    let names: Vec<String> = t.timing().rates().iter().map(|l| l.to_string()).collect();
    assert_eq!(names, ["4xQDR", "4xFDR10"], "the HCAs' rate is the reference");
    let r = fabricsim::run(&s).unwrap();
    let c = |k: &str| r.counter(k).unwrap_or_else(|| panic!("no counter {k}"));
    assert!(r.run.flags.iter().all(|f| f != "drain_not_finished"), "{:?}", r.run.flags);
    let injected = c("best_effort_packets_injected") + c("control_packets_injected");
    let delivered = c("best_effort_packets_delivered") + c("control_packets_delivered");
    assert!(injected > 10_000, "{injected}");
    assert_eq!((injected, c("packets_in_flight"), c("packets_discarded")), (delivered, 0, 0));
    // 30% of a QDR link per HCA: offered and carried.
    let accepted = r.metric("accepted_load_pct").unwrap().mean;
    assert!((accepted - 30.0).abs() < 3.0, "accepted {accepted}%");
}

/// Multicast across rate changes: every scheme's copies, on the 144-HCA
/// cluster (QDR HCAs, FDR10 between switches), reach every member once; the
/// audit finds every copy, and a drained fabric is empty.
#[test]
fn multicast_copies_cross_rate_changes_and_every_member_gets_each_once() {
    use fabricsim::sim::Model;
    let mut delivered = Vec::new();
    for scheme in ["replicated_unicast", "synchronous", "asynchronous", "central_buffer"] {
        let toml = format!(
            "[run]\nseed = 3\n[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER_144}\"\n\
             [ib.routing]\nalgorithm = \"min_hop\"\n[ib.workload]\ninjection_rate = 0.2\nreal_time_share = 0.7\n\
             [ib.multicast]\nscheme = \"{scheme}\"\n"
        );
        let mut f = Simulation::new(IbFabric::build(&Scenario::from_toml_str(&toml, "mc.toml").unwrap()).unwrap());
        f.start();
        f.run_until(3_000_000_000);
        f.model.stop_sources();
        f.run_until(Time::MAX);
        let counters = f.model.audit(f.pending()).unwrap_or_else(|e| panic!("{scheme}: audit: {e}"));
        let c = |k: &str| counters.iter().find(|(n, _)| n == k).unwrap_or_else(|| panic!("no counter {k}")).1;
        assert_eq!((c("packets_in_flight"), c("messages_in_progress")), (0, 0), "{scheme}");
        assert_eq!(c("real_time_packets_injected"), c("real_time_packets_delivered"), "{scheme}");
        let m = f.ib_metrics();
        assert!(m.set.probe(m.multicast_latency().unwrap()).count() > 100, "{scheme}");
        delivered.push(c("real_time_packets_delivered"));
    }
    assert!(
        delivered.iter().all(|&d| d == delivered[0]),
        "the same member deliveries under every scheme: {delivered:?}"
    );
}

/// A multicast packet from a QDR HCA over an FDR10 cable to two QDR members:
/// the lock-step copies and the central buffer's copy (written at the
/// input's rate, read out at the output's) both leave the first switch as
/// its tail allows, so both members have the packet when a unicast packet
/// would (the hand arithmetic above), each scheme to the picosecond.
#[test]
fn multicast_copies_leave_as_their_tails_allow_on_an_idle_fabric() {
    let file = two_switches("multicast", 2, "4xQDR", "4xFDR10");
    for stages_ns in [0u64, 100] {
        let l = by_hand(1050, QDR, FDR10, 5_000, stages_ns * 1000);
        for scheme in ["synchronous", "central_buffer"] {
            let extra = format!(
                "[ib.switch]\nforwarding_ns = {}\narbitration_ns = {}\n\
                 [ib.multicast]\nscheme = \"{scheme}\"\nshare = 0\ngroups = [[0, 2, 3]]\n",
                stages_ns / 2,
                stages_ns / 2
            );
            let mut f = Simulation::new(fabric(&file, &extra));
            assert!(f.inject_multicast(0, 0, TrafficClass::RealTime, 1, 1024), "{scheme}");
            f.run_until(l - 1);
            assert_eq!(f.packets_delivered(), 0, "{scheme}: a copy before {l} ps");
            f.run_until(l);
            assert_eq!(f.packets_delivered(), 2, "{scheme}: both copies at {l} ps");
        }
    }
}
