//! One arbitration table of the VL arbiter: its (VL, weight) entries and
//! the VLs they enable (configuration shared by every port of a fabric),
//! and a port's turn in it: weighted round robin over the enabled entries
//! whose VL can send, with the overrun of a turn forgiven (the IBA rule) or
//! carried to the entry's next turn (deficit round robin).

/// Bytes per unit of an entry's weight.
pub const WEIGHT_UNIT_BYTES: u32 = 64;

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

/// One table's entries and the VLs they enable: configuration, the same
/// for every port of a fabric, so all ports share one copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entries {
    pub(super) entries: Box<[ArbEntry]>,
    /// The VLs of the enabled entries (bit mask).
    vls: u16,
    /// Per VL, its enabled entries (bit mask over at most 64 entries).
    by_vl: [u64; 16],
}

impl Entries {
    pub(super) fn new(entries: &[ArbEntry]) -> Self {
        let mut by_vl = [0u64; 16];
        for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.weight > 0) {
            by_vl[(e.vl & 15) as usize] |= 1 << i;
        }
        let vls = (0..16).filter(|&v| by_vl[v] != 0).fold(0u16, |m, v| m | 1 << v);
        Entries { entries: entries.into(), vls, by_vl }
    }

    #[inline]
    pub(super) fn any_ready(&self, ready: u16) -> bool {
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

/// A port's place in one table: the entry of the current (or last) turn,
/// whether that turn is still going, whether this table made the grant
/// `on_sent` has not confirmed yet, and the bytes left in the turn. Four
/// bytes: both tables' turns and the shared tables' pointer are the 16
/// bytes of the arbiter every pick reads. A turn's balance is at most a
/// 255-unit weight (16,320 bytes) and at least one packet (4 KiB MTU) in
/// debt, so 16 bits hold it. Under `Carry` the other entries' debts (<= 0)
/// wait in `carried` (the arbiter keeps it, apart); under the IBA rule a
/// turn starts afresh, so only the current entry's balance exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Turn {
    cur: u8,
    flags: u8,
    balance: i16,
}

/// `Turn::flags`: the current entry's turn is going.
const OPEN: u8 = 1;
/// `Turn::flags`: this table made the pending grant (the high table's
/// turn also keeps a pending VL15 grant).
pub(super) const GRANTED: u8 = 2;
pub(super) const GRANTED_VL15: u8 = 4;

/// Debts of a table's entries under `Carry`.
pub(super) type Carried = [i32; MAX_ENTRIES];

impl Turn {
    pub(super) fn new(len: usize) -> Self {
        // The first turn goes to entry 0.
        let cur = len.saturating_sub(1) as u8;
        Turn { cur, flags: 0, balance: 0 }
    }

    /// The entry of the current (or last) turn.
    pub(super) fn current(&self) -> usize {
        self.cur as usize
    }

    pub(super) fn flags(&self) -> u8 {
        self.flags
    }

    pub(super) fn set_flags(&mut self, flags: u8) {
        self.flags = flags;
    }

    /// Entry `i`'s balance (the current entry's is kept apart).
    #[inline]
    fn balance_of(&self, i: usize, carried: &Option<&mut Carried>) -> i32 {
        if i == self.cur as usize {
            self.balance as i32
        } else {
            carried.as_ref().expect("debts are carried only under Carry")[i]
        }
    }

    #[inline]
    fn set_balance(&mut self, i: usize, b: i32, carried: &mut Option<&mut Carried>) {
        if i == self.cur as usize {
            self.balance = clamp(b);
        } else {
            carried.as_mut().expect("debts are carried only under Carry")[i] = b;
        }
    }

    /// The entry of `table` to send from next, opening a new turn if
    /// needed; `None` (and no change) if no entry's VL can send.
    pub(super) fn pick(
        &mut self,
        table: &Entries,
        overrun: Overrun,
        ready: u16,
        mut carried: Option<&mut Carried>,
    ) -> Option<usize> {
        if !table.any_ready(ready) {
            return None;
        }
        let entries = &table.entries;
        if self.flags & OPEN != 0 {
            let c = self.cur as usize;
            if self.balance > 0 && ready & (1 << entries[c].vl) != 0 {
                return Some(c);
            }
            self.close(c, overrun, &mut carried);
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
                Overrun::Carry => self.balance_of(i, &carried) + quantum,
            };
            if b > 0 {
                if overrun == Overrun::Carry && i != self.cur as usize {
                    let cur = self.cur as usize;
                    carried.as_mut().expect("debts are carried only under Carry")[cur] = self.balance as i32;
                }
                self.cur = i as u8;
                self.balance = clamp(b);
                self.flags |= OPEN;
                return Some(i);
            }
            self.set_balance(i, b, &mut carried);
        }
    }

    /// Ends entry `i`'s turn. A turn never banks unused weight; under
    /// `Carry` a debt stays to be paid by later turns.
    fn close(&mut self, i: usize, overrun: Overrun, carried: &mut Option<&mut Carried>) {
        if i == self.cur as usize {
            self.flags &= !OPEN;
        }
        if overrun == Overrun::Carry {
            let b = self.balance_of(i, carried).min(0);
            self.set_balance(i, b, carried);
        }
    }

    pub(super) fn charge(&mut self, bytes: u32, overrun: Overrun, mut carried: Option<&mut Carried>) {
        debug_assert!(self.flags & OPEN != 0);
        self.balance = clamp(self.balance as i32 - bytes as i32);
        if self.balance <= 0 {
            self.close(self.cur as usize, overrun, &mut carried);
        }
    }
}

/// A balance in 16 bits: weights (at most 255 units) and packets (at most
/// a 4 KiB MTU) keep it in range (see `Turn`).
#[inline(always)]
fn clamp(b: i32) -> i16 {
    debug_assert!((i16::MIN as i32..=i16::MAX as i32).contains(&b), "turn balance {b} beyond 16 bits");
    b as i16
}
