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
pub use table::{ArbEntry, Overrun, MAX_ENTRIES, WEIGHT_UNIT_BYTES};
use table::{Carried, Entries, Turn, GRANTED, GRANTED_VL15};

mod table;
#[cfg(test)]
mod tests;

/// Bytes per unit of LimitOfHighPriority.
pub const HIGH_LIMIT_UNIT_BYTES: u64 = 4096;
/// LimitOfHighPriority meaning "no limit".
pub const UNLIMITED_HIGH_PRIORITY: u8 = 255;

/// Which part of the arbiter granted a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    Management,
    High,
    Low,
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

/// The VL arbiter of one output port: the fabric's shared tables and this
/// port's turns in them. A pick reads the first 16 bytes only (`repr(C)`
/// keeps them first); the high-priority byte count (kept only under a
/// LimitOfHighPriority) and the debts of `Overrun::Carry` follow.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct VlArbiter {
    config: Arc<Config>,
    /// Each table's turn; with the grant `select` made that `on_sent` has
    /// not confirmed yet (`table::GRANTED`, `table::GRANTED_VL15`).
    high: Turn,
    low: Turn,
    /// High-priority bytes sent since the last low-priority packet.
    high_sent: u64,
    /// Under `Carry`: the high and the low table's debts.
    carried: Option<Box<[Carried; 2]>>,
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
            high: Turn::new(high.len()),
            low: Turn::new(low.len()),
            high_sent: 0,
            carried: None,
        })
    }

    pub fn with_overrun(mut self, overrun: Overrun) -> Self {
        Arc::make_mut(&mut self.config).overrun = overrun;
        self.high = Turn::new(self.config.high.entries.len());
        self.low = Turn::new(self.config.low.entries.len());
        self.carried = (overrun == Overrun::Carry).then(|| Box::new([[0; MAX_ENTRIES]; 2]));
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
        assert!(self.pending().is_none(), "VL arbiter: select before on_sent of the previous grant");
        if ready & (1 << VL15) != 0 {
            self.high.set_flags(self.high.flags() | GRANTED_VL15);
            return Some(VL15);
        }
        let c = &*self.config;
        let high_allowed = match c.limit_bytes {
            None => true,
            Some(limit) => self.below_limit(limit),
        };
        let [high_debts, low_debts] = debts(c.overrun, &mut self.carried);
        if high_allowed || !c.low.any_ready(ready) {
            if let Some(i) = self.high.pick(&c.high, c.overrun, ready, high_debts) {
                self.high.set_flags(self.high.flags() | GRANTED);
                return Some(c.high.entries[i].vl);
            }
        }
        let i = self.low.pick(&c.low, c.overrun, ready, low_debts)?;
        self.low.set_flags(self.low.flags() | GRANTED);
        Some(c.low.entries[i].vl)
    }

    /// Records that the packet `select` granted, `bytes` long on the wire, has started.
    pub fn on_sent(&mut self, vl: u8, bytes: u32) {
        let (hf, lf) = (self.high.flags(), self.low.flags());
        let priority = match (hf & (GRANTED | GRANTED_VL15), lf & GRANTED) {
            (0, 0) => panic!("VL arbiter: on_sent without a grant"),
            (GRANTED, _) => Priority::High,
            (0, _) => Priority::Low,
            _ => Priority::Management,
        };
        let c = &*self.config;
        let granted = match priority {
            Priority::Management => VL15,
            Priority::High => c.high.entries[self.high.current()].vl,
            Priority::Low => c.low.entries[self.low.current()].vl,
        };
        assert_eq!(vl, granted, "VL arbiter: sent on VL{vl}, granted VL{granted}");
        self.high.set_flags(hf & !(GRANTED | GRANTED_VL15));
        self.low.set_flags(lf & !GRANTED);
        let [high_debts, low_debts] = debts(c.overrun, &mut self.carried);
        // The count matters only under a limit: without one, this port's
        // arbitration reads nothing beyond its first 16 bytes.
        let counted = c.limit_bytes.is_some();
        match priority {
            Priority::Management => {}
            Priority::High => {
                self.high.charge(bytes, c.overrun, high_debts);
                if counted {
                    self.count_high(Some(bytes));
                }
            }
            Priority::Low => {
                self.low.charge(bytes, c.overrun, low_debts);
                if counted {
                    self.count_high(None);
                }
            }
        }
    }

    /// Whether the high table may send under a limit (out of line: the
    /// count lies beyond what a pick reads without one).
    #[cold]
    #[inline(never)]
    fn below_limit(&self, limit: u64) -> bool {
        self.high_sent == 0 || self.high_sent < limit
    }

    /// Counts a high-priority packet of `bytes`, or (None) a low-priority one.
    #[cold]
    #[inline(never)]
    fn count_high(&mut self, bytes: Option<u32>) {
        self.high_sent = bytes.map_or(0, |b| self.high_sent + b as u64);
    }

    /// The table of the grant awaiting [`Self::on_sent`].
    pub fn pending(&self) -> Option<Priority> {
        if self.high.flags() & GRANTED_VL15 != 0 {
            Some(Priority::Management)
        } else if self.high.flags() & GRANTED != 0 {
            Some(Priority::High)
        } else if self.low.flags() & GRANTED != 0 {
            Some(Priority::Low)
        } else {
            None
        }
    }

    /// High-priority bytes sent since the last low-priority packet (kept
    /// under a LimitOfHighPriority only; 0 without one).
    pub fn high_bytes_since_low(&self) -> u64 {
        self.high_sent
    }
}

/// Each table's debts under `Carry`; under the IBA rule none, and the
/// arbiter's field for them is not read (it lies beyond what a pick reads).
#[inline(always)]
fn debts(overrun: Overrun, carried: &mut Option<Box<[Carried; 2]>>) -> [Option<&mut Carried>; 2] {
    if overrun != Overrun::Carry {
        return [None, None];
    }
    carried_debts(carried)
}

/// [`debts`] under `Carry`, out of line, so that the field is read only then.
#[cold]
#[inline(never)]
fn carried_debts(carried: &mut Option<Box<[Carried; 2]>>) -> [Option<&mut Carried>; 2] {
    match carried.as_deref_mut() {
        Some([h, l]) => [Some(h), Some(l)],
        None => [None, None],
    }
}
