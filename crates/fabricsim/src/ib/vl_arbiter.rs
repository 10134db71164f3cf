//! The IBA's two-level VL arbiter of an output port: which VL sends the next
//! packet on the link.
//!
//! Seed 003, section 2.1: "IBA specifies a two-level scheme for VL
//! arbitration ... a scheduling priority is adopted for different SLs. Next, a
//! Weighted Round Robin (WRR) scheduling is used ... Additionally, this scheme
//! provides a method to ensure forward progress of the low-priority VLs";
//! section 2.2: stage 5 of the switch, "VL arbitration using WRR, as specified
//! in the IBA specification, chooses one packet at a time among multiple VLs";
//! section 2.3: the HCA's port arbitrates the same way. The IBA rules:
//!
//! - VL15 (management) bypasses arbitration and always goes first.
//! - A high-priority and a low-priority table, each of up to 64 (VL, weight)
//!   entries; the weight (0..=255) is in 64-byte units, 0 disables the entry,
//!   and a VL may appear in several entries and in both tables.
//! - Within a table the arbiter serves the current entry while its weight
//!   lasts and its VL has a packet the receiver has credit for, then moves to
//!   the next entry, skipping entries whose VL cannot send. A packet is never
//!   split: the last one of a turn may overrun the weight ("rounded up to a
//!   whole packet"), and the overrun is forgiven ([`Overrun::Forgive`]).
//! - LimitOfHighPriority (0..=255, in 4096-byte units): after that many
//!   high-priority bytes, one low-priority packet is sent if one is ready.
//!   255 means no limit; 0 means one high-priority packet at a time.
//!
//! Forgiving the overrun makes a table share the link in proportion to
//! `ceil(weight / packet)` packets rather than to the weights when weights
//! are not multiples of the packet size. [`Overrun::Carry`] charges the
//! overrun to the entry's next turn (deficit round robin), which shares the
//! link in exactly the weight ratio; it is an option, not the IBA rule.
//!
//! Interface for the hot path: [`VlArbiter::select_mask`] takes the VLs that
//! can send now (a packet at its head and credit for all of it) as a bit
//! mask, allocates nothing, and returns the VL ([`VlArbiter::select`] asks a
//! closure instead); the caller starts that
//! packet and reports it with [`VlArbiter::on_sent`]. A `select` that returns
//! `None` leaves the arbiter as it was.

use std::sync::Arc;

use super::vl::VL15;
use crate::error::{Error, Result};

/// Bytes per unit of an entry's weight.
pub const WEIGHT_UNIT_BYTES: u32 = 64;
/// Bytes per unit of LimitOfHighPriority.
pub const HIGH_LIMIT_UNIT_BYTES: u64 = 4096;
/// LimitOfHighPriority meaning "no limit".
pub const UNLIMITED_HIGH_PRIORITY: u8 = 255;
/// Entries per table.
pub const MAX_ENTRIES: usize = 64;

/// One (VL, weight) entry of an arbitration table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ArbEntry {
    pub vl: u8,
    /// In units of [`WEIGHT_UNIT_BYTES`]; 0 disables the entry.
    pub weight: u8,
}

impl ArbEntry {
    pub const fn new(vl: u8, weight: u8) -> Self {
        ArbEntry { vl, weight }
    }
}

/// What happens to the part of a packet that overruns its entry's weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Overrun {
    /// The IBA rule: the turn ends and the overrun is not charged.
    #[default]
    Forgive,
    /// The overrun is charged to the entry's next turn (deficit round robin).
    Carry,
}

/// Which part of the arbiter granted a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    Management,
    High,
    Low,
}

/// One table's entries and the VLs they enable: configuration, the same
/// for every port of a fabric, so all ports share one copy.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entries {
    entries: Box<[ArbEntry]>,
    /// The VLs of the enabled entries (bit mask).
    vls: u16,
    /// Per VL, its enabled entries (bit mask over at most 64 entries).
    by_vl: [u64; 16],
}

impl Entries {
    fn new(entries: &[ArbEntry]) -> Self {
        let mut by_vl = [0u64; 16];
        for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.weight > 0) {
            by_vl[(e.vl & 15) as usize] |= 1 << i;
        }
        let vls = (0..16).filter(|&v| by_vl[v] != 0).fold(0u16, |m, v| m | 1 << v);
        Entries { entries: entries.into(), vls, by_vl }
    }

    #[inline]
    fn any_ready(&self, ready: u16) -> bool {
        self.vls & ready != 0
    }

    /// The enabled entries whose VL can send (bit mask).
    #[inline]
    fn ready_entries(&self, ready: u16) -> u64 {
        let mut vls = ready & self.vls;
        let mut m = 0;
        while vls != 0 {
            m |= self.by_vl[vls.trailing_zeros() as usize];
            vls &= vls - 1;
        }
        m
    }
}

/// The arbitration configuration of a fabric's ports.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Config {
    high: Entries,
    low: Entries,
    /// High-priority bytes allowed before a low-priority packet; `None` = no limit.
    limit_bytes: Option<u64>,
    overrun: Overrun,
}

/// A port's place in one table: the entry of the current (or last) turn,
/// whether that turn is still going, and the bytes left in it. Under
/// `Carry` the other entries' debts (<= 0) wait in `carried`; under the IBA
/// rule a turn starts afresh, so only the current entry's balance exists.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Turn {
    cur: u8,
    open: bool,
    balance: i32,
    /// A thin pointer, so that a turn is 16 bytes; `None` under the IBA rule.
    carried: Option<Box<[i32; MAX_ENTRIES]>>,
}

impl Turn {
    fn new(len: usize, overrun: Overrun) -> Self {
        // The first turn goes to entry 0.
        let cur = len.saturating_sub(1) as u8;
        let carried = (overrun == Overrun::Carry).then(|| Box::new([0; MAX_ENTRIES]));
        Turn { cur, open: false, balance: 0, carried }
    }

    /// Entry `i`'s balance (the current entry's is kept apart).
    #[inline]
    fn balance_of(&mut self, i: usize) -> &mut i32 {
        if i == self.cur as usize {
            &mut self.balance
        } else {
            &mut self.carried.as_mut().expect("debts are carried only under Carry")[i]
        }
    }

    /// The entry of `table` to send from next, opening a new turn if
    /// needed; `None` (and no change) if no entry's VL can send.
    fn pick(&mut self, table: &Entries, overrun: Overrun, ready: u16) -> Option<usize> {
        if !table.any_ready(ready) {
            return None;
        }
        let entries = &table.entries;
        if self.open {
            let c = self.cur as usize;
            if self.balance > 0 && ready & (1 << entries[c].vl) != 0 {
                return Some(c);
            }
            self.close(c, overrun);
        }
        // The next enabled entry whose VL can send, after the current one
        // and wrapping round to it. Skipping the others changes nothing:
        // their turns are closed, and under Carry their debts are <= 0.
        // Terminates: each pass adds at least 64 bytes to a ready entry's
        // balance until it is positive.
        let candidates = table.ready_entries(ready);
        let mut i = self.cur as usize;
        loop {
            let after = if i >= 63 { 0 } else { candidates & (!0u64 << (i + 1)) };
            i = if after != 0 { after } else { candidates }.trailing_zeros() as usize;
            let e = entries[i];
            let quantum = e.weight as i32 * WEIGHT_UNIT_BYTES as i32;
            let b = match overrun {
                Overrun::Forgive => quantum,
                Overrun::Carry => *self.balance_of(i) + quantum,
            };
            if b > 0 {
                if overrun == Overrun::Carry && i != self.cur as usize {
                    let cur = self.cur as usize;
                    self.carried.as_mut().expect("debts are carried only under Carry")[cur] = self.balance;
                }
                self.cur = i as u8;
                self.balance = b;
                self.open = true;
                return Some(i);
            }
            *self.balance_of(i) = b;
        }
    }

    /// Ends entry `i`'s turn. A turn never banks unused weight; under
    /// `Carry` a debt stays to be paid by later turns.
    fn close(&mut self, i: usize, overrun: Overrun) {
        if i == self.cur as usize {
            self.open = false;
        }
        if overrun == Overrun::Carry {
            let b = self.balance_of(i);
            *b = (*b).min(0);
        }
    }

    fn charge(&mut self, bytes: u32, overrun: Overrun) {
        debug_assert!(self.open);
        self.balance -= bytes as i32;
        if self.balance <= 0 {
            self.close(self.cur as usize, overrun);
        }
    }
}

/// The VL arbiter of one output port: the fabric's shared tables and this
/// port's turns in them, a few bytes (a port's arbitration reads one cache
/// line of its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VlArbiter {
    config: Arc<Config>,
    /// High-priority bytes sent since the last low-priority packet.
    high_sent: u64,
    high: Turn,
    low: Turn,
    /// The grant `select` made that `on_sent` has not confirmed yet.
    pending: Option<(Priority, u8)>,
}

impl VlArbiter {
    /// An arbiter for a port of `data_vls` data VLs. Entries must name data
    /// VLs of the port (VL15 is never arbitrated).
    pub fn new(high: &[ArbEntry], low: &[ArbEntry], limit_of_high_priority: u8, data_vls: u8) -> Result<Self> {
        for (name, table) in [("high", high), ("low", low)] {
            if table.len() > MAX_ENTRIES {
                return Err(Error::invalid(
                    &format!("ib.vl_arbitration.{name}"),
                    format!("{} entries", table.len()),
                    "at most 64 entries",
                ));
            }
            for (i, e) in table.iter().enumerate() {
                if e.vl >= data_vls || e.vl == VL15 {
                    return Err(Error::invalid(
                        &format!("ib.vl_arbitration.{name}[{i}].vl"),
                        e.vl,
                        format!("a data VL of the port, 0..={}", data_vls.min(15).saturating_sub(1)),
                    ));
                }
            }
        }
        let limit_bytes = (limit_of_high_priority != UNLIMITED_HIGH_PRIORITY)
            .then(|| limit_of_high_priority as u64 * HIGH_LIMIT_UNIT_BYTES);
        let overrun = Overrun::Forgive;
        Ok(VlArbiter {
            config: Arc::new(Config { high: Entries::new(high), low: Entries::new(low), limit_bytes, overrun }),
            high_sent: 0,
            high: Turn::new(high.len(), overrun),
            low: Turn::new(low.len(), overrun),
            pending: None,
        })
    }

    pub fn with_overrun(mut self, overrun: Overrun) -> Self {
        Arc::make_mut(&mut self.config).overrun = overrun;
        self.high = Turn::new(self.config.high.entries.len(), overrun);
        self.low = Turn::new(self.config.low.entries.len(), overrun);
        self
    }

    /// The configuration proposed for seed 003 (which leaves the tables
    /// open): real-time VL1 in the high table, best-effort VL0 in the low
    /// table, 4 KB weights, no high-priority limit, so the classes are served
    /// in the seed's priority order (control, real-time, best-effort).
    pub fn paper() -> Self {
        Self::new(&[ArbEntry::new(1, 64)], &[ArbEntry::new(0, 64)], UNLIMITED_HIGH_PRIORITY, 15)
            .expect("paper arbitration tables are valid")
    }

    /// The VL to send from next, or `None` if no VL can send. `ready(vl)`
    /// says whether `vl` has a packet at its head and credit for all of it;
    /// it is asked once per VL (VL15 included). After `Some(vl)` the caller
    /// must start that VL's head packet and call [`Self::on_sent`].
    pub fn select(&mut self, mut ready: impl FnMut(u8) -> bool) -> Option<u8> {
        let mask = (0..16u8).filter(|&vl| ready(vl)).fold(0u16, |m, vl| m | 1 << vl);
        self.select_mask(mask)
    }

    /// [`Self::select`] given the VLs that can send as a bit mask (bit `vl`):
    /// the hot path's form, bit tests instead of calls.
    #[inline]
    pub fn select_mask(&mut self, ready: u16) -> Option<u8> {
        assert!(self.pending.is_none(), "VL arbiter: select before on_sent of the previous grant");
        if ready & (1 << VL15) != 0 {
            self.pending = Some((Priority::Management, VL15));
            return Some(VL15);
        }
        let c = &*self.config;
        let high_allowed = match c.limit_bytes {
            None => true,
            Some(limit) => self.high_sent == 0 || self.high_sent < limit,
        };
        if high_allowed || !c.low.any_ready(ready) {
            if let Some(i) = self.high.pick(&c.high, c.overrun, ready) {
                let vl = c.high.entries[i].vl;
                self.pending = Some((Priority::High, vl));
                return Some(vl);
            }
        }
        let i = self.low.pick(&c.low, c.overrun, ready)?;
        let vl = c.low.entries[i].vl;
        self.pending = Some((Priority::Low, vl));
        Some(vl)
    }

    /// Records that the packet `select` granted, `bytes` long on the wire, has started.
    pub fn on_sent(&mut self, vl: u8, bytes: u32) {
        let (priority, granted) = self.pending.take().expect("VL arbiter: on_sent without a grant");
        assert_eq!(vl, granted, "VL arbiter: sent on VL{vl}, granted VL{granted}");
        let overrun = self.config.overrun;
        match priority {
            Priority::Management => {}
            Priority::High => {
                self.high.charge(bytes, overrun);
                self.high_sent += bytes as u64;
            }
            Priority::Low => {
                self.low.charge(bytes, overrun);
                self.high_sent = 0;
            }
        }
    }

    /// The table of the grant awaiting [`Self::on_sent`].
    pub fn pending(&self) -> Option<Priority> {
        self.pending.map(|(p, _)| p)
    }

    /// High-priority bytes sent since the last low-priority packet.
    pub fn high_bytes_since_low(&self) -> u64 {
        self.high_sent
    }
}

#[cfg(test)]
mod tests {
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
            let entries: Vec<ArbEntry> = (0..n)
                .map(|_| ArbEntry::new(rng.below(4) as u8, [0, 1, 3, 16, 64, 255][rng.below(6) as usize]))
                .collect();
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
}
