//! Credits on their way back to a sending port (a switch output or an HCA),
//! held without an event while the sender has no use for them.
//!
//! A returned credit changes what a sender does only when it next picks a
//! packet. A sender that is sending, or has nothing queued, picks again at
//! an event of its own (its link frees, a packet arrives); a sender idle
//! with packets queued waits for credit and needs the credit's event. So a
//! credit returned to a waiting sender is scheduled as an event, as the
//! link delivers it; any other is held here under the event key it would
//! have had ([`crate::kernel::EventSet::reserve_key`]). Before a sender picks, it takes
//! every held credit keyed below the event being handled: exactly those the
//! credit events would have delivered by then. If it then finds itself
//! waiting, the earliest held credit is scheduled under its own key. Every
//! decision sees the same credits, in the same order among simultaneous
//! events, as with one event per credit: the run is the same, with about
//! one event per packet hop fewer.

use std::collections::VecDeque;

use crate::kernel::Time;
use crate::sim::Deferred;

/// A credit held for a sender: `blocks` for `vl`, due at `key`.
#[derive(Clone, Copy, Debug)]
pub struct HeldCredit {
    pub key: Deferred,
    pub vl: u8,
    pub blocks: u16,
}

/// Credits held in the port's own state before they spill to the heap: a
/// port that holds any holds one or two at 99.4% of holds or more (bench
/// rows `ib-fat-tree-16`, `ib-fat-tree-4096`, `ib-cluster-1356`), and the
/// holds written in place are one cache line fewer per packet hop than a
/// list on the heap.
const INLINE: usize = 2;

/// `len` when the held credits are in the spill list (read inline, so a
/// pick with nothing held reads no heap memory).
const SPILLED: u8 = u8::MAX;

/// The credits held for one sending port (a switch output or an HCA), kept
/// in the port's own state: the sender reads them at every pick, and the
/// receiver writes them when it frees buffer space. Oldest first: inline
/// while at most [`INLINE`] are held; once more are, all of them in the
/// spill list until it is empty again. 48 bytes.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct CreditReturn {
    keys: [Deferred; INLINE],
    blocks: [u16; INLINE],
    vls: [u8; INLINE],
    /// Credits held inline, or [`SPILLED`]: all are in the spill list.
    len: u8,
    /// Whether the sender is idle with packets queued and none it can send.
    waiting: bool,
    /// Boxed, header and all, and only once the port first spills: 8
    /// bytes in the port instead of 32, for a list most ports never use.
    #[allow(clippy::box_collection)]
    spill: Option<Box<VecDeque<HeldCredit>>>,
}

impl CreditReturn {
    /// Whether a credit for this sender must travel as an event.
    #[inline]
    pub fn sender_waiting(&self) -> bool {
        self.waiting
    }

    /// Holds a credit due under `key` (the sender is not waiting).
    #[inline]
    pub fn hold(&mut self, key: Deferred, vl: u8, blocks: u16) {
        debug_assert!(!self.waiting);
        let n = self.len as usize;
        if n < INLINE && (n == 0 || self.keys[n - 1] < key) {
            self.keys[n] = key;
            self.blocks[n] = blocks;
            self.vls[n] = vl;
            self.len += 1;
        } else {
            self.hold_spilled(key, vl, blocks);
        }
    }

    /// Holds a credit in the spill list, in key order: a receiver returns
    /// a transfer's credits at its start, keyed for its end, so a packet
    /// it discards meanwhile may return its own keyed before them.
    #[cold]
    fn hold_spilled(&mut self, key: Deferred, vl: u8, blocks: u16) {
        let spill = self.spill_all();
        let at = spill.partition_point(|h| h.key < key);
        spill.insert(at, HeldCredit { key, vl, blocks });
    }

    /// Moves the inline credits to the spill list (cold: more than
    /// [`INLINE`] held).
    #[cold]
    fn spill_all(&mut self) -> &mut VecDeque<HeldCredit> {
        if self.len != SPILLED {
            let inline: [HeldCredit; INLINE] = std::array::from_fn(|i| self.inline(i));
            let n = self.len as usize;
            self.spill.get_or_insert_with(Default::default).extend(&inline[..n]);
            self.len = SPILLED;
        }
        self.spilled()
    }

    /// The spill list, while the credits are in it.
    fn spilled(&mut self) -> &mut VecDeque<HeldCredit> {
        self.spill.as_mut().expect("a port with spilled credits has a spill list")
    }

    /// Hands over every held credit due before the event being handled
    /// (keyed below `current`), oldest first.
    #[inline]
    pub fn take_due(&mut self, current: u128, mut apply: impl FnMut(u8, u32)) {
        if self.len == 0 {
            return;
        }
        if self.len == SPILLED {
            self.take_spilled(current, apply);
            return;
        }
        let n = self.len as usize;
        let mut due = 0;
        while due < n && self.keys[due].is_before(current) {
            apply(self.vls[due], self.blocks[due] as u32);
            due += 1;
        }
        if due > 0 {
            self.drop_front(due);
        }
    }

    #[cold]
    fn take_spilled(&mut self, current: u128, mut apply: impl FnMut(u8, u32)) {
        let spill = self.spilled();
        while let Some(&h) = spill.front() {
            if !h.key.is_before(current) {
                break;
            }
            apply(h.vl, h.blocks as u32);
            spill.pop_front();
        }
        if spill.is_empty() {
            self.len = 0;
        }
    }

    /// Takes the oldest held credit.
    #[inline]
    fn pop_front(&mut self) -> Option<HeldCredit> {
        if self.len == 0 {
            return None;
        }
        if self.len == SPILLED {
            let spill = self.spilled();
            let h = spill.pop_front();
            if spill.is_empty() {
                self.len = 0;
            }
            return h;
        }
        let h = self.inline(0);
        self.drop_front(1);
        Some(h)
    }

    /// Inline credit `i` (0: the oldest).
    #[inline(always)]
    fn inline(&self, i: usize) -> HeldCredit {
        HeldCredit { key: self.keys[i], vl: self.vls[i], blocks: self.blocks[i] }
    }

    /// Drops the `k` oldest inline credits.
    #[inline(always)]
    fn drop_front(&mut self, k: usize) {
        // Element by element: `copy_within` would call `memmove` for a slot or two.
        for j in k..self.len as usize {
            self.keys[j - k] = self.keys[j];
            self.blocks[j - k] = self.blocks[j];
            self.vls[j - k] = self.vls[j];
        }
        self.len -= k as u8;
    }

    /// Records whether the sender, having just picked, waits for credit. A
    /// waiting sender must get its earliest held credit back as an event,
    /// scheduled under the credit's own key: that credit is returned for
    /// the caller to schedule.
    #[inline]
    pub fn set_waiting(&mut self, waiting: bool) -> Option<HeldCredit> {
        self.waiting = waiting;
        if waiting {
            self.pop_front()
        } else {
            None
        }
    }

    /// The held credits, oldest first.
    fn held(&self) -> impl Iterator<Item = HeldCredit> + '_ {
        let n = if self.len == SPILLED { 0 } else { self.len as usize };
        (0..n).map(|i| self.inline(i)).chain(self.spill.iter().flat_map(|s| s.iter().copied()))
    }

    /// Blocks for `vl` held and due by time `now` (for views between events).
    pub fn due_blocks(&self, vl: u8, now: Time) -> u32 {
        self.held().filter(|h| h.vl == vl && h.key.time() <= now).map(|h| h.blocks as u32).sum()
    }

    /// Blocks for `vl` held, due or not.
    pub fn held_blocks(&self, vl: u8) -> u32 {
        self.held().filter(|h| h.vl == vl).map(|h| h.blocks as u32).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;

    #[test]
    fn due_credits_are_taken_in_order_and_a_waiting_sender_gets_the_next_as_its_own_event() {
        let mut q: EventQueue<(u8, u16)> = EventQueue::new();
        let mut r = CreditReturn::default();
        let keys: Vec<Deferred> = (1..=3).map(|t| Deferred::from_reserved(q.reserve_key(t * 10))).collect();
        for (i, &k) in keys.iter().enumerate() {
            r.hold(k, i as u8, 2);
        }
        // An event at time 20 scheduled before the credits: only the first is due before it.
        q.push(20, (9, 9));
        q.push(5, (8, 8));
        assert_eq!(q.pop(), Some((5, (8, 8))));
        let mut taken = Vec::new();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert!(taken.is_empty(), "nothing is due at time 5");
        let h = r.set_waiting(true).expect("a held credit to schedule");
        q.push_keyed(h.key.key(), (h.vl, h.blocks));
        assert!(r.sender_waiting());
        // The credit at 10 now travels as an event under its own key, before the event at 20.
        assert_eq!(q.pop(), Some((10, (0, 2))));
        assert_eq!(q.pop(), Some((20, (9, 9))));
        assert_eq!(r.due_blocks(1, 20), 2);
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        // The credit at 20 was keyed before the event at 20 (reserved first): it is due.
        assert_eq!(taken, vec![(1, 2)]);
        assert!(r.set_waiting(false).is_none(), "a sender that is not waiting gets no event");
        assert_eq!(r.held_blocks(2), 2);
        assert!(q.is_empty(), "a sender that is not waiting gets no event");
        q.push(30, (7, 7));
        q.pop();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(1, 2), (2, 2)]);
        assert_eq!(r.held_blocks(2), 0);
    }

    #[test]
    fn when_all_are_due_they_come_back_oldest_first_and_the_next_hold_starts_afresh() {
        let mut q: EventQueue<u8> = EventQueue::new();
        let mut r = CreditReturn::default();
        for (t, vl, blocks) in [(10, 3, 1), (11, 1, 4), (12, 3, 2), (13, 1, 1)] {
            r.hold(Deferred::from_reserved(q.reserve_key(t)), vl, blocks);
        }
        q.push(50, 0);
        q.pop();
        let mut taken = Vec::new();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(3, 1), (1, 4), (3, 2), (1, 1)], "oldest first");
        taken.clear();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert!(taken.is_empty(), "nothing is taken twice");
        assert_eq!(r.held_blocks(3), 0, "a taken list holds no live credit");
        // After a take of everything, new credits are held and taken alone.
        let k = Deferred::from_reserved(q.reserve_key(60));
        r.hold(k, 2, 7);
        let h = r.set_waiting(true).expect("a held credit to schedule");
        q.push_keyed(h.key.key(), h.vl);
        assert_eq!(q.pop(), Some((60, 2)), "the new credit, not a taken one, becomes the event");
    }

    /// A receiver returns a transfer's credits at its start, keyed for its
    /// end; a packet it discards meanwhile returns its own keyed earlier.
    /// Held out of order, they come back in key order, inline or spilled.
    #[test]
    fn credits_held_out_of_key_order_come_back_in_it() {
        let mut q: EventQueue<u8> = EventQueue::new();
        let mut r = CreditReturn::default();
        let (late, early) = (Deferred::from_reserved(q.reserve_key(40)), Deferred::from_reserved(q.reserve_key(20)));
        r.hold(late, 1, 4);
        r.hold(early, 2, 1);
        r.hold(Deferred::from_reserved(q.reserve_key(30)), 3, 2);
        q.push(35, 0);
        q.pop();
        let mut taken = Vec::new();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(2, 1), (3, 2)], "the two keyed before 35, earliest first");
        let h = r.set_waiting(true).expect("the credit keyed at 40");
        assert_eq!((h.key, h.vl, h.blocks), (late, 1, 4));
    }

    /// The held credits take 48 bytes of their port: under a cache line,
    /// beside the port's other state.
    #[test]
    fn held_credits_take_48_bytes_of_their_port() {
        assert_eq!(std::mem::size_of::<CreditReturn>(), 48);
    }

    /// More credits than fit inline spill to the list, keep their order
    /// through partial takes and a waiting sender's pop, and once all are
    /// taken the next holds are inline again.
    #[test]
    fn credits_beyond_the_inline_slots_spill_in_order_and_come_back_inline() {
        let mut q: EventQueue<u8> = EventQueue::new();
        let mut r = CreditReturn::default();
        let keys: Vec<Deferred> = (1..=5).map(|t| Deferred::from_reserved(q.reserve_key(t * 10))).collect();
        for (i, &k) in keys.iter().enumerate() {
            r.hold(k, (i % 2) as u8, i as u16 + 1);
        }
        assert!(r.len == SPILLED && r.spill.as_ref().unwrap().len() == 5, "all five spilled");
        assert_eq!((r.held_blocks(0), r.held_blocks(1), r.due_blocks(0, 30)), (1 + 3 + 5, 2 + 4, 1 + 3));
        q.push(25, 9);
        q.pop();
        let mut taken = Vec::new();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(0, 1), (1, 2)]);
        let h = r.set_waiting(true).expect("the oldest held credit");
        assert_eq!((h.key, h.vl, h.blocks), (keys[2], 0, 3));
        r.set_waiting(false);
        q.push(60, 9);
        q.pop();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(0, 1), (1, 2), (1, 4), (0, 5)]);
        r.hold(Deferred::from_reserved(q.reserve_key(70)), 3, 7);
        assert!(r.len == 1 && r.spill.as_ref().unwrap().is_empty(), "held inline again");
        assert_eq!(r.held_blocks(3), 7);
    }
}
