//! The VL arbiter's sharing, priority and limit rules.

use super::*;
use crate::kernel::RandomStream;

/// Runs `decisions` grants with every VL in `busy` always ready; packet
/// sizes come from `size(vl)`. Returns bytes sent per VL and the grant sequence.
fn saturate(
    arb: &mut VlArbiter,
    busy: &[u8],
    decisions: usize,
    mut size: impl FnMut(u8) -> u32,
) -> ([u64; 16], Vec<u8>) {
    let mut bytes = [0u64; 16];
    let mut seq = Vec::with_capacity(decisions);
    for _ in 0..decisions {
        let vl = arb.select(|v| busy.contains(&v)).expect("a busy VL is always served");
        let b = size(vl);
        arb.on_sent(vl, b);
        bytes[vl as usize] += b as u64;
        seq.push(vl);
    }
    (bytes, seq)
}

fn shares(bytes: &[u64; 16], vls: &[u8]) -> Vec<f64> {
    let total: u64 = vls.iter().map(|&v| bytes[v as usize]).sum();
    vls.iter().map(|&v| bytes[v as usize] as f64 / total as f64).collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    for (g, w) in got.iter().zip(want) {
        assert!((g / w - 1.0).abs() < tol, "shares {got:?}, expected {want:?}");
    }
}

fn low_only(entries: &[ArbEntry], overrun: Overrun) -> VlArbiter {
    VlArbiter::new(&[], entries, UNLIMITED_HIGH_PRIORITY, 15).unwrap().with_overrun(overrun)
}

#[test]
fn weights_that_fit_whole_packets_share_exactly_in_ratio() {
    // 4096 / 8192 / 12288-byte turns with 1024-byte packets: 4, 8, 12 packets.
    let entries = [ArbEntry::new(0, 64), ArbEntry::new(1, 128), ArbEntry::new(2, 192)];
    for overrun in [Overrun::Forgive, Overrun::Carry] {
        let mut arb = low_only(&entries, overrun);
        let (bytes, seq) = saturate(&mut arb, &[0, 1, 2], 24 * 1000, |_| 1024);
        assert_eq!(&seq[..24], &[vec![0; 4], vec![1; 8], vec![2; 12]].concat()[..]);
        assert_eq!(shares(&bytes, &[0, 1, 2]), vec![1.0 / 6.0, 2.0 / 6.0, 3.0 / 6.0]);
    }
}

#[test]
fn iba_rule_rounds_each_turn_up_to_whole_packets() {
    // Forgiven overrun: a turn of weight W sends ceil(W / s) packets of s bytes.
    let s = 1050u32;
    for weights in [[17u8, 34, 51], [1, 2, 3], [40, 64, 255], [20, 100, 200]] {
        let entries: Vec<_> = (0..3).map(|i| ArbEntry::new(i as u8, weights[i])).collect();
        let mut arb = low_only(&entries, Overrun::Forgive);
        let (bytes, _) = saturate(&mut arb, &[0, 1, 2], 60_000, |_| s);
        let per_turn: Vec<f64> = weights.iter().map(|&w| (w as u32 * 64).div_ceil(s) as f64).collect();
        let total: f64 = per_turn.iter().sum();
        let want: Vec<f64> = per_turn.iter().map(|p| p / total).collect();
        assert_close(&shares(&bytes, &[0, 1, 2]), &want, 0.01);
    }
    // So weights 1:2:3 (64..192 bytes) under 1050-byte packets share 1:1:1.
}

#[test]
fn carried_overrun_shares_in_weight_ratio_with_constant_packets() {
    for weights in [[17u8, 34, 51], [1, 2, 3], [40, 64, 255], [20, 100, 200], [3, 5, 7]] {
        let entries: Vec<_> = (0..3).map(|i| ArbEntry::new(i as u8, weights[i])).collect();
        let mut arb = low_only(&entries, Overrun::Carry);
        let (bytes, _) = saturate(&mut arb, &[0, 1, 2], 200_000, |_| 1050);
        let total: f64 = weights.iter().map(|&w| w as f64).sum();
        let want: Vec<f64> = weights.iter().map(|&w| w as f64 / total).collect();
        assert_close(&shares(&bytes, &[0, 1, 2]), &want, 0.01);
    }
}

#[test]
fn carried_overrun_shares_in_weight_ratio_with_mixed_packets() {
    let mut rng = RandomStream::new(3, "vl_arbiter.test", 0);
    // Each VL its own size mix, from control-sized to full packets.
    let mut size = |vl: u8| match vl {
        0 => 26 + rng.below(1025),
        1 => [282, 1050][rng.below(2) as usize],
        _ => 26 + 64 * rng.below(17),
    };
    let weights = [10u8, 30, 60];
    let entries: Vec<_> = (0..3).map(|i| ArbEntry::new(i as u8, weights[i])).collect();
    let mut arb = low_only(&entries, Overrun::Carry);
    let (bytes, _) = saturate(&mut arb, &[0, 1, 2], 300_000, &mut size);
    assert_close(&shares(&bytes, &[0, 1, 2]), &[0.1, 0.3, 0.6], 0.01);
}

/// Expected bytes one forgiving turn of `budget` bytes sends when packet
/// sizes are drawn from `sizes` uniformly: f(r) = mean over s of s + f(r - s), f(r <= 0) = 0.
fn expected_turn_bytes(budget: u32, sizes: &[u32]) -> f64 {
    let mut f = vec![0.0f64; budget as usize + 1];
    for r in 1..=budget as usize {
        let sum: f64 = sizes.iter().map(|&s| s as f64 + if r > s as usize { f[r - s as usize] } else { 0.0 }).sum();
        f[r] = sum / sizes.len() as f64;
    }
    f[budget as usize]
}

#[test]
fn iba_rule_with_mixed_packets_matches_renewal_theory() {
    let sizes = [282u32, 538, 794, 1050];
    let mut rng = RandomStream::new(5, "vl_arbiter.test", 1);
    let weights = [32u8, 100, 255];
    let entries: Vec<_> = (0..3).map(|i| ArbEntry::new(i as u8, weights[i])).collect();
    let mut arb = low_only(&entries, Overrun::Forgive);
    let (bytes, _) = saturate(&mut arb, &[0, 1, 2], 300_000, |_| sizes[rng.below(4) as usize]);
    let per_turn: Vec<f64> = weights.iter().map(|&w| expected_turn_bytes(w as u32 * 64, &sizes)).collect();
    let total: f64 = per_turn.iter().sum();
    let want: Vec<f64> = per_turn.iter().map(|t| t / total).collect();
    assert_close(&shares(&bytes, &[0, 1, 2]), &want, 0.01);
}

#[test]
fn high_priority_limit_lets_one_low_packet_through() {
    // Both tables saturated with 1050-byte packets. A high run lasts while
    // fewer than limit x 4096 bytes have gone (at least one packet).
    for limit in 0u8..=12 {
        let mut arb = VlArbiter::new(&[ArbEntry::new(1, 255)], &[ArbEntry::new(0, 255)], limit, 15).unwrap();
        let (bytes, seq) = saturate(&mut arb, &[0, 1], 5_000, |_| 1050);
        let run = if limit == 0 { 1 } else { (limit as usize * 4096).div_ceil(1050) };
        for (k, &vl) in seq.iter().enumerate() {
            let want = if k % (run + 1) == run { 0 } else { 1 };
            assert_eq!(vl, want, "limit {limit}, grant {k}");
        }
        let high_share = bytes[1] as f64 / (bytes[0] + bytes[1]) as f64;
        assert!((high_share - run as f64 / (run + 1) as f64).abs() < 0.01);
    }
}

#[test]
fn unlimited_high_priority_starves_low_and_low_runs_when_high_is_idle() {
    let mut arb = VlArbiter::new(&[ArbEntry::new(1, 1)], &[ArbEntry::new(0, 255)], 255, 15).unwrap();
    let (bytes, _) = saturate(&mut arb, &[0, 1], 10_000, |_| 1050);
    assert_eq!(bytes[0], 0);
    // A limit with nothing low-priority ready never stalls the high table.
    let mut arb = VlArbiter::new(&[ArbEntry::new(1, 1)], &[ArbEntry::new(0, 255)], 0, 15).unwrap();
    let (bytes, _) = saturate(&mut arb, &[1], 1_000, |_| 1050);
    assert_eq!(bytes[1], 1_000 * 1050);
    assert_eq!(arb.high_bytes_since_low(), 1_000 * 1050);
    // Then the first low packet that shows up goes next, and resets the count.
    assert_eq!(arb.select(|v| v < 2), Some(0));
    arb.on_sent(0, 1050);
    assert_eq!(arb.high_bytes_since_low(), 0);
    let (_, seq) = saturate(&mut arb, &[0], 10, |_| 1050);
    assert!(seq.iter().all(|&v| v == 0));
}

#[test]
fn vl15_always_wins_and_is_not_counted() {
    let mut arb = VlArbiter::new(&[ArbEntry::new(1, 255)], &[ArbEntry::new(0, 255)], 1, 15).unwrap();
    let (_, seq) = saturate(&mut arb, &[0, 1, 15], 1_000, |v| if v == 15 { 282 } else { 1050 });
    assert!(seq.iter().all(|&v| v == 15));
    assert_eq!(arb.high_bytes_since_low(), 0);
    assert_eq!(arb.select(|v| v == 15 || v == 1), Some(15));
    assert_eq!(arb.pending(), Some(Priority::Management));
    arb.on_sent(15, 282);
    // Interleaved management packets leave the data pattern unchanged.
    let mut pattern = Vec::new();
    for k in 0..20 {
        let vl = arb.select(|v| v < 2 || (v == 15 && k % 3 == 0)).unwrap();
        arb.on_sent(vl, if vl == 15 { 282 } else { 1050 });
        if vl != 15 {
            pattern.push(vl);
        }
    }
    assert_eq!(&pattern[..10], &[1, 1, 1, 1, 0, 1, 1, 1, 1, 0]);
}

#[test]
fn skips_entries_that_cannot_send_and_disabled_entries() {
    let entries = [ArbEntry::new(0, 0), ArbEntry::new(1, 16), ArbEntry::new(2, 16), ArbEntry::new(3, 16)];
    let mut arb = low_only(&entries, Overrun::Forgive);
    // VL2 has no credit: VL1 and VL3 alternate; VL0's entry is disabled.
    let (bytes, seq) = saturate(&mut arb, &[0, 1, 3], 1_000, |_| 1024);
    assert_eq!(bytes[0] + bytes[2], 0);
    assert!(seq.windows(2).all(|w| w[0] != w[1]));
    // A VL in no entry is never granted even when it alone is ready.
    assert_eq!(arb.select(|v| v == 5 || v == 0), None);
}

#[test]
fn idle_select_changes_nothing_and_ready_closure_is_asked_once_per_vl() {
    let entries: Vec<_> = (0..8).map(|v| ArbEntry::new(v % 4, 3)).collect();
    let mut arb = low_only(&entries, Overrun::Carry);
    saturate(&mut arb, &[0, 1, 2, 3], 37, |v| 300 + 200 * v as u32);
    let before = arb.clone();
    let mut asked = [0u32; 16];
    assert_eq!(
        arb.select(|v| {
            asked[v as usize] += 1;
            false
        }),
        None
    );
    assert_eq!(arb, before);
    assert!(asked.iter().all(|&n| n <= 1));
    asked = [0; 16];
    let vl = arb.select(|v| {
        asked[v as usize] += 1;
        v == 3
    });
    assert_eq!(vl, Some(3));
    assert!(asked.iter().all(|&n| n <= 1));
}

/// The IBA rules written as plainly as possible: every entry has its
/// own balance, and a pick walks the table entry by entry.
struct Reference {
    entries: Vec<ArbEntry>,
    balance: Vec<i32>,
    cur: usize,
    open: bool,
}

impl Reference {
    fn new(entries: &[ArbEntry]) -> Self {
        let n = entries.len();
        Reference { entries: entries.to_vec(), balance: vec![0; n], cur: n.saturating_sub(1), open: false }
    }

    fn close(&mut self, i: usize, overrun: Overrun) {
        if i == self.cur {
            self.open = false;
        }
        if overrun == Overrun::Carry {
            self.balance[i] = self.balance[i].min(0);
        }
    }

    fn pick(&mut self, overrun: Overrun, ready: u16) -> Option<usize> {
        let ready = |vl: u8| ready & (1 << vl) != 0;
        if !self.entries.iter().any(|e| e.weight > 0 && ready(e.vl)) {
            return None;
        }
        if self.open {
            let c = self.cur;
            if self.balance[c] > 0 && ready(self.entries[c].vl) {
                return Some(c);
            }
            self.close(c, overrun);
        }
        let mut i = self.cur;
        loop {
            i = (i + 1) % self.entries.len();
            let e = self.entries[i];
            if e.weight == 0 {
                continue;
            }
            if !ready(e.vl) {
                self.close(i, overrun);
                continue;
            }
            let q = e.weight as i32 * WEIGHT_UNIT_BYTES as i32;
            self.balance[i] = if overrun == Overrun::Forgive { q } else { self.balance[i] + q };
            if self.balance[i] > 0 {
                self.cur = i;
                self.open = true;
                return Some(i);
            }
        }
    }

    fn charge(&mut self, bytes: u32, overrun: Overrun) {
        self.balance[self.cur] -= bytes as i32;
        if self.balance[self.cur] <= 0 {
            self.close(self.cur, overrun);
        }
    }
}

#[test]
fn picks_as_the_plain_per_entry_rules_do_on_random_tables() {
    let mut rng = RandomStream::new(5, "vl_arbiter.reference", 0);
    for table in 0..200 {
        // Up to 64 entries over 4 VLs: repeated VLs, disabled entries, small and large weights.
        let n = 1 + rng.below(64) as usize;
        let entries: Vec<ArbEntry> =
            (0..n).map(|_| ArbEntry::new(rng.below(4) as u8, [0, 1, 3, 16, 64, 255][rng.below(6) as usize])).collect();
        for overrun in [Overrun::Forgive, Overrun::Carry] {
            let mut arb = VlArbiter::new(&[], &entries, UNLIMITED_HIGH_PRIORITY, 4).unwrap().with_overrun(overrun);
            let mut reference = Reference::new(&entries);
            for step in 0..2_000 {
                let ready = rng.below(16) as u16;
                let want = reference.pick(overrun, ready).map(|i| entries[i].vl);
                assert_eq!(arb.select_mask(ready), want, "table {table}, {overrun:?}, step {step}");
                if let Some(vl) = want {
                    let bytes = 26 + rng.below(4097);
                    reference.charge(bytes, overrun);
                    arb.on_sent(vl, bytes);
                }
            }
        }
    }
}

#[test]
fn work_conserving_under_random_readiness() {
    let mut rng = RandomStream::new(11, "vl_arbiter.test", 2);
    let high = [ArbEntry::new(2, 10), ArbEntry::new(3, 1)];
    let low = [ArbEntry::new(0, 5), ArbEntry::new(1, 200), ArbEntry::new(0, 7)];
    for overrun in [Overrun::Forgive, Overrun::Carry] {
        let mut arb = VlArbiter::new(&high, &low, 2, 4).unwrap().with_overrun(overrun);
        for _ in 0..50_000 {
            let mask = rng.below(32) as u16;
            let ready = |v: u8| (v < 4 && mask & (1 << v) != 0) || (v == 15 && mask & 16 != 0);
            match arb.select(ready) {
                Some(vl) => {
                    assert!(ready(vl));
                    arb.on_sent(vl, 26 + rng.below(1025));
                }
                None => assert_eq!(mask & 0b1_1111, 0),
            }
        }
    }
}

#[test]
fn configuration_errors_name_the_entry() {
    let e = VlArbiter::new(&[ArbEntry::new(0, 1)], &[ArbEntry::new(1, 1), ArbEntry::new(4, 1)], 0, 4).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration.low[1].vl"));
    assert_eq!(e.allowed.as_deref(), Some("a data VL of the port, 0..=3"));
    let e = VlArbiter::new(&[ArbEntry::new(15, 1)], &[], 0, 15).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration.high[0].vl"));
    let e = VlArbiter::new(&[ArbEntry::new(0, 1); 65], &[], 0, 15).unwrap_err();
    assert_eq!(e.value.as_deref(), Some("65 entries"));
    assert!(VlArbiter::new(&[], &[], 0, 1).unwrap().select(|_| true) == Some(15));
}

#[test]
fn paper_configuration_orders_the_classes() {
    let mut arb = VlArbiter::paper();
    assert_eq!(arb.select(|_| true), Some(15));
    arb.on_sent(15, 282);
    assert_eq!(arb.select(|v| v < 2), Some(1));
    arb.on_sent(1, 1050);
    assert_eq!(arb.select(|v| v == 0), Some(0));
}

#[test]
#[should_panic(expected = "select before on_sent")]
fn a_grant_must_be_confirmed() {
    let mut arb = VlArbiter::paper();
    arb.select(|_| true);
    arb.select(|_| true);
}

/// A pick reads the arbiter's first 16 bytes only: the shared tables'
/// pointer and both tables' turns (with the pending grant in their flags).
#[test]
fn a_pick_reads_sixteen_bytes() {
    use std::mem::{offset_of, size_of};
    assert_eq!(size_of::<table::Turn>(), 4);
    assert_eq!((offset_of!(VlArbiter, low), offset_of!(VlArbiter, high_sent)), (12, 16));
    assert_eq!(size_of::<VlArbiter>(), 32);
}
