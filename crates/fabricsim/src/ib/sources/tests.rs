use super::*;
use crate::scenario::ib::IbPattern;
use crate::sim::Clocked;

/// Collects what the sources schedule at time 0.
#[derive(Default)]
struct Scheduled(Vec<(u32, SourceEvent)>);

impl Clocked for Scheduled {
    fn now(&self) -> Time {
        0
    }
    fn reserve_key(&mut self, _at: Time) -> u128 {
        0
    }
    fn current_key(&self) -> u128 {
        0
    }
}

impl Schedule<SourceEvent> for Scheduled {
    fn push(&mut self, _at: Time, index: u32, ev: SourceEvent) {
        self.0.push((index, ev));
    }
    fn push_keyed(&mut self, _key: u128, index: u32, ev: SourceEvent) {
        self.0.push((index, ev));
    }
}

/// Best-effort only sources of `hcas` HCAs under `pattern`.
fn sources(hcas: u32, spec: IbWorkloadSpec) -> Sources {
    let spec = IbWorkloadSpec { real_time_share: 0.0, control_period_ms: 0.0, ..spec };
    Sources::new(&spec, hcas, 250e6, 7, None).unwrap()
}

/// The HCAs whose best-effort source starts, in order.
fn best_effort_senders(s: &mut Sources) -> Vec<u32> {
    let mut cx = Scheduled::default();
    s.start(&mut cx);
    cx.0.iter().filter(|e| e.1 == SourceEvent::BestEffort).map(|e| e.0).collect()
}

#[test]
fn best_effort_destinations_follow_the_pattern() {
    let n = 12;
    let pattern = |pattern| IbWorkloadSpec { pattern, ..IbWorkloadSpec::default() };
    // Shift: every round of n - 1 messages reaches every other HCA once, in order.
    let mut s = sources(n, pattern(IbPattern::Shift));
    for h in 0..n {
        let got: Vec<u32> = (0..n - 1).map(|_| s.best_effort_message(h).1).collect();
        assert_eq!(got, (1..n).map(|k| (h + k) % n).collect::<Vec<_>>(), "HCA {h}");
    }
    // Permutation: one partner per HCA, never itself, each HCA someone's partner.
    let mut s = sources(n, pattern(IbPattern::Permutation));
    let partners: Vec<u32> = (0..n).map(|h| s.best_effort_message(h).1).collect();
    let mut sorted = partners.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..n).collect::<Vec<_>>());
    for h in 0..n {
        assert_ne!(partners[h as usize], h);
        assert_eq!(s.best_effort_message(h).1, partners[h as usize]);
    }
    // Hot spot: about the share to the hot HCA, the rest uniform over all others.
    let spec = IbWorkloadSpec { hot_spot_hca: Some(3), hot_spot_share: Some(0.5), ..pattern(IbPattern::HotSpot) };
    let mut s = sources(n, spec);
    let draws = 20_000;
    let hot = (0..draws).filter(|_| s.best_effort_message(0).1 == 3).count() as f64 / draws as f64;
    // 0.5 + 0.5 / 11 = 0.545; the standard error is 0.0035.
    assert!((hot - (0.5 + 0.5 / 11.0)).abs() < 0.02, "{hot}");
    // Uniform stays the study's draw: no pattern state at all.
    assert!(sources(n, IbWorkloadSpec::default()).pattern.is_none());
}

#[test]
fn incast_senders_alone_send_and_only_to_the_target() {
    let spec = IbWorkloadSpec {
        pattern: IbPattern::Incast,
        incast_target: Some(10),
        incast_senders: Some(3),
        ..IbWorkloadSpec::default()
    };
    let mut s = sources(12, spec);
    let senders = best_effort_senders(&mut s);
    assert_eq!(senders, vec![0, 1, 11]);
    for h in senders {
        assert_eq!(s.best_effort_message(h).1, 10);
    }
}

#[test]
fn flows_send_to_their_destinations_in_turn_and_no_one_else_sends() {
    let spec = IbWorkloadSpec {
        pattern: IbPattern::Flows,
        flows: Some(vec![[1, 0], [2, 0], [2, 5], [7, 3]]),
        ..IbWorkloadSpec::default()
    };
    let mut s = sources(8, spec);
    let senders = best_effort_senders(&mut s);
    assert_eq!(senders, vec![1, 2, 7]);
    let to = |s: &mut Sources, h| (0..4).map(|_| s.best_effort_message(h).1).collect::<Vec<_>>();
    assert_eq!(to(&mut s, 1), [0, 0, 0, 0]);
    assert_eq!(to(&mut s, 2), [0, 5, 0, 5]);
    assert_eq!(to(&mut s, 7), [3, 3, 3, 3]);
}

#[test]
fn pattern_keys_are_checked_against_the_fabric() {
    let spec = |toml: &str| {
        let s = crate::Scenario::from_toml_str(&format!("[ib.workload]\n{toml}"), "t.toml")?;
        Sources::new(&s.infiniband().unwrap().workload, 8, 250e6, 1, None).map(|_| ())
    };
    let e = spec("pattern = \"incast\"\nincast_target = 8\n").unwrap_err();
    assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.workload.incast_target"), Some("8")), "{e}");
    assert!(e.allowed.as_deref().unwrap().contains("0 to 7"), "{e}");
    let e = spec("pattern = \"incast\"\nincast_senders = 8\n").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.incast_senders"), "{e}");
    let e = spec("pattern = \"hot_spot\"\nhot_spot_hca = 9\n").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.hot_spot_hca"), "{e}");
    let e = spec("pattern = \"hot_spot\"\nhot_spot_share = 1.5\n").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.hot_spot_share"), "{e}");
    let e = spec("pattern = \"shift\"\nhot_spot_hca = 1\n").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.hot_spot_hca"), "{e}");
    assert!(e.allowed.as_deref().unwrap().contains("hot_spot"), "{e}");
    spec("pattern = \"hot_spot\"\nhot_spot_hca = 7\nhot_spot_share = 0.3\n").unwrap();
    for (flows, value) in [("[[1, 8]]", "[1, 8]"), ("[[3, 3]]", "[3, 3]"), ("[[1, 2], [1, 2]]", "[1, 2]"), ("[]", "[]")]
    {
        let e = spec(&format!("pattern = \"flows\"\nflows = {flows}\n")).unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.workload.flows"), Some(value)), "{e}");
    }
    let e = spec("pattern = \"flows\"\n").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.workload.flows"), "{e}");
    let e = spec("flows = [[1, 2]]\n").unwrap_err();
    assert!(e.allowed.as_deref().unwrap().contains("flows"), "{e}");
    spec("pattern = \"flows\"\nflows = [[1, 2], [7, 0]]\n").unwrap();
}
