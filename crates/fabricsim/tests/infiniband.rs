//! The InfiniBand model (seed 003) checked against arithmetic: zero-load
//! latency through the cut-through pipeline, the credit window and the
//! crossbar's round robin.

use fabricsim::ib::packet::TrafficClass;
use fabricsim::ib::IbFabric;
use fabricsim::kernel::Time;
use fabricsim::Scenario;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, "infiniband.toml").unwrap_or_else(|e| panic!("valid scenario: {e}\n{toml}"))
}

/// No sources: packets come only from `IbFabric::inject`.
const NO_WORKLOAD: &str = "[ib.workload]\ninjection_rate = 0\ncontrol_period_ms = 0\n";

/// A chain of `k` switches, HCA 0 on the first and HCA 1 on the last.
fn chain(k: u32) -> String {
    let hcas: Vec<u32> = (1..=k).map(|s| if k == 1 { 2 } else { (s == 1 || s == k) as u32 }).collect();
    let cables: Vec<[u32; 2]> = (1..k).map(|s| [s, s + 1]).collect();
    format!("[ib.topology]\nkind = \"custom\"\nhcas = {hcas:?}\ncables = {cables:?}\n")
}

// ---------------------------------------------------------------------------
// 1. Zero-load latency
// ---------------------------------------------------------------------------

/// Links and the picoseconds one byte takes on them, independent of the model's tables.
const LINKS: [(&str, Time); 2] = [("1xSDR", 4_000), ("4xQDR", 250)];

/// Runs `f` until just before `t` and then to `t`: exactly `before` and
/// then `before + 1` packets must have been delivered.
fn delivered_exactly_at(f: &mut IbFabric, t: Time, before: u64) {
    f.run_until(t - 1);
    assert_eq!(f.packets_delivered(), before, "a packet arrived before {t} ps");
    f.run_until(t);
    assert_eq!(f.packets_delivered(), before + 1, "no packet arrived at {t} ps");
}

/// A packet alone in the fabric: the HCA starts it at once; at each of `k`
/// switches stages 2-3 start when the 8-byte LRH is in (propagation + LRH
/// time), forwarding and crossbar arbitration follow, and the crossbar and
/// the output link start together (cut-through); the destination HCA takes
/// the packet when its tail is in. So the latency is
/// k (propagation + LRH + forwarding + arbitration) + propagation + wire(bytes),
/// to the picosecond. A message of two packets sends them back to back: the
/// second follows the first's path exactly one wire time of the first later,
/// so it arrives one wire time of the *second* packet after the first does.
#[test]
fn zero_load_latency_is_the_pipeline_arithmetic_to_the_picosecond() {
    // (propagation, forwarding, arbitration) in ns: the defaults, odd
    // values, and no stage time at all (the switch's zero-pipeline path).
    let stages = [(5.0, 50.0, 50.0), (37.5, 12.25, 101.0), (0.0, 0.0, 0.0)];
    let mut checked = 0;
    for (link, ps_per_byte) in LINKS {
        for (prop_ns, fwd_ns, arb_ns) in stages {
            for k in 1..=3u32 {
                let toml = format!(
                    "[ib]\nlink = \"{link}\"\npropagation_ns = {prop_ns}\n\
                     [ib.switch]\nforwarding_ns = {fwd_ns}\narbitration_ns = {arb_ns}\n{}{NO_WORKLOAD}",
                    chain(k)
                );
                let s = scenario(&toml);
                let ps = |ns: f64| (ns * 1000.0) as Time;
                let (prop, fwd, arb, lrh) = (ps(prop_ns), ps(fwd_ns), ps(arb_ns), 8 * ps_per_byte);
                let wire = |bytes: u64| bytes * ps_per_byte;
                let per_switch = prop + lrh + fwd + arb;
                let t = IbFabric::build(&s).unwrap();
                assert_eq!((t.timing().header, t.timing().forwarding, t.timing().arbitration), (lrh, fwd, arb));
                assert_eq!(t.topology().switch_count(), k as usize);

                // One packet: header-only, tiny, odd and full-MTU payloads.
                for payload in [0u64, 1, 100, 333, 1000, 1024] {
                    let mut f = IbFabric::build(&s).unwrap();
                    assert!(f.inject(0, 1, TrafficClass::BestEffort, 0, payload));
                    let latency = k as Time * per_switch + prop + wire(payload + 26);
                    delivered_exactly_at(&mut f, latency, 0);
                    f.run_until(Time::MAX);
                    assert_eq!(f.packets_delivered(), 1);
                    let probe = f.metrics.set.probe(f.metrics.latency[TrafficClass::BestEffort as usize]);
                    assert_eq!(probe.count(), 1);
                    assert_eq!(probe.mean_us(), latency as f64 * 1e-6, "{link} k={k} payload {payload}");
                    checked += 1;
                }

                // Two packets of one message (full MTU, then the rest), both
                // timed from the message's creation at 0.
                for payload in [2048u64, 1024 + 300, 1025] {
                    let mut f = IbFabric::build(&s).unwrap();
                    assert!(f.inject(0, 1, TrafficClass::BestEffort, 0, payload));
                    let (w1, w2) = (wire(1050), wire(payload - 1024 + 26));
                    let first = k as Time * per_switch + prop + w1;
                    delivered_exactly_at(&mut f, first, 0);
                    delivered_exactly_at(&mut f, first + w2, 1);
                    f.run_until(Time::MAX);
                    assert_eq!(f.packets_delivered(), 2);
                    let probe = f.metrics.set.probe(f.metrics.latency[TrafficClass::BestEffort as usize]);
                    let mean = (first + first + w2) as f64 / 2.0;
                    assert!((probe.mean_us() - mean * 1e-6).abs() < 1e-9, "{link} k={k} payload {payload}");
                    checked += 1;
                }

                // A real-time packet takes its own VL and the high-priority
                // table, with the same timing; a control packet (VL15,
                // 282 bytes) too.
                let mut f = IbFabric::build(&s).unwrap();
                assert!(f.inject(0, 1, TrafficClass::RealTime, 1, 1024));
                delivered_exactly_at(&mut f, k as Time * per_switch + prop + wire(1050), 0);
                let mut f = IbFabric::build(&s).unwrap();
                assert!(f.inject(0, 1, TrafficClass::Control, 15, 256));
                delivered_exactly_at(&mut f, k as Time * per_switch + prop + wire(282), 0);
            }
        }
    }
    assert_eq!(checked, 2 * 3 * 3 * 9);
}

/// A long message on a link whose propagation delay exceeds what three
/// packets cover: the 4200-byte VL buffer advertises 65 credit blocks and a
/// 1050-byte packet takes 17, so only 3 packets may be on their way to a
/// receiver. The credits of packet i come back to its sender
/// R = 2 propagation + LRH + forwarding + arbitration + wire after it
/// started (out to the next switch, through stages 2-3, across the crossbar
/// at link rate, and back), on every hop alike, so the source starts packet i at
/// s(i) = max(s(i-1) + wire, s(i-3) + R), and every switch passes it on at
/// the same offset: packet i arrives at s(i) + the zero-load latency.
#[test]
fn credit_window_paces_a_long_message_exactly() {
    for (link, ps_per_byte, prop_ns) in [("4xQDR", 250, 1000.0), ("4xQDR", 250, 5.0), ("1xSDR", 4_000, 5_000.0)] {
        for k in 1..=3u32 {
            let toml = format!("[ib]\nlink = \"{link}\"\npropagation_ns = {prop_ns}\n{}{NO_WORKLOAD}", chain(k));
            let mut f = IbFabric::build(&scenario(&toml)).unwrap();
            let prop = (prop_ns * 1000.0) as Time;
            let (w, stages) = (1050 * ps_per_byte, 8 * ps_per_byte + 100_000);
            let latency = k as Time * (prop + stages) + prop + w;
            let r = 2 * prop + stages + w;
            let n = 12;
            assert!(f.inject(0, 1, TrafficClass::BestEffort, 0, 1024 * n as u64));
            let mut s: Vec<Time> = Vec::with_capacity(n);
            for i in 0..n {
                let t = match i {
                    0 => 0,
                    1 | 2 => s[i - 1] + w,
                    _ => (s[i - 1] + w).max(s[i - 3] + r),
                };
                s.push(t);
                delivered_exactly_at(&mut f, t + latency, i as u64);
            }
            // The window binds only when the round trip exceeds three packet times.
            assert_eq!(s[n - 1] > (n as Time - 1) * w, r > 3 * w, "{link} prop {prop_ns} ns");
        }
    }
}

/// Two HCAs send a long message each to a third on the same switch, on the
/// same VL: the crossbar output serves the two inputs round robin and the
/// output link never idles. Both headers request the output at
/// T = propagation + LRH + forwarding + arbitration; the first transfer
/// ends, and the next starts, one packet time later, so the j-th packet
/// arrives at T + propagation + (j + 1) wire, alternately from each HCA
/// (they are told apart by class; both use SL 0, so VL 0). The HCAs keep
/// their input VLs full through credits, which come back long before their
/// turn.
#[test]
fn crossbar_serves_competing_inputs_round_robin_at_full_link_rate() {
    for link in LINKS {
        let (name, ps_per_byte) = link;
        let toml = format!("[ib]\nlink = \"{name}\"\n[ib.topology]\nkind = \"custom\"\nhcas = [3]\n{NO_WORKLOAD}");
        let mut f = IbFabric::build(&scenario(&toml)).unwrap();
        let n = 30u64;
        assert!(f.inject(0, 2, TrafficClass::RealTime, 0, 1024 * n));
        assert!(f.inject(1, 2, TrafficClass::BestEffort, 0, 1024 * n));
        let w = 1050 * ps_per_byte;
        let t = 5_000 + 8 * ps_per_byte + 100_000;
        for j in 0..2 * n {
            delivered_exactly_at(&mut f, t + 5_000 + (j + 1) * w, j);
            let rt = f.metrics.counters.packets_delivered[TrafficClass::RealTime as usize];
            assert_eq!(rt, j / 2 + 1, "{name}: delivery {j} from the wrong input");
        }
        f.run_until(Time::MAX);
        assert_eq!(f.packets_delivered(), 2 * n);
    }
}
