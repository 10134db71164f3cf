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

use crate::kernel::event_set::key_time;
use crate::kernel::Time;

/// A credit held for a sender: `blocks` for `vl`, due under `key`.
#[derive(Clone, Copy, Debug)]
pub struct HeldCredit {
    pub key: u128,
    pub vl: u8,
    pub blocks: u16,
}

/// What a sender reads at every pick: per-VL sums of the held credits and
/// the newest one's key. Credits return in link order, so once the newest
/// is due all are, and adding them VL by VL restores the same credits as
/// one by one; only when some are not yet due does the pick read the
/// credits themselves (the list).
#[derive(Clone, Debug, Default)]
#[repr(C)]
struct ReturnState {
    newest: u128,
    /// Blocks held per VL, the VLs with any (bit mask), and how many credits.
    sums: [u16; 16],
    vls: u16,
    count: u16,
    /// Whether the sender is idle with packets queued and none it can send.
    waiting: bool,
    /// The list holds only credits already taken (a take of all of them
    /// leaves it for the next hold to clear).
    stale: bool,
}

/// The credits held for one sending port (a switch output or an HCA), kept
/// in the port's own state: the sender reads them at every pick, and the
/// receiver writes them when it frees buffer space.
#[derive(Clone, Debug, Default)]
pub struct CreditReturn {
    state: ReturnState,
    list: VecDeque<HeldCredit>,
}

impl CreditReturn {
    /// Whether a credit for this sender must travel as an event.
    #[inline]
    pub fn sender_waiting(&self) -> bool {
        self.state.waiting
    }

    /// Holds a credit due under `key` (the sender is not waiting).
    #[inline]
    pub fn hold(&mut self, key: u128, vl: u8, blocks: u16) {
        let s = &mut self.state;
        debug_assert!(!s.waiting);
        debug_assert!(s.count == 0 || s.newest < key, "credits return in link order");
        if s.stale {
            self.list.clear();
            s.stale = false;
        }
        self.list.push_back(HeldCredit { key, vl, blocks });
        s.newest = key;
        s.sums[(vl & 15) as usize] += blocks;
        s.vls |= 1 << vl;
        s.count += 1;
    }

    /// Hands over every held credit due before the event being handled
    /// (keyed below `current`): VL by VL when all are due, else oldest first.
    #[inline]
    pub fn take_due(&mut self, current: u128, mut apply: impl FnMut(u8, u32)) {
        let s = &mut self.state;
        if s.count == 0 {
            return;
        }
        if s.newest < current {
            let mut vls = s.vls;
            while vls != 0 {
                let vl = vls.trailing_zeros() as u8;
                vls &= vls - 1;
                apply(vl, s.sums[vl as usize] as u32);
                s.sums[vl as usize] = 0;
            }
            s.vls = 0;
            s.count = 0;
            s.stale = true;
            return;
        }
        while let Some(&h) = self.list.front() {
            if h.key >= current {
                break;
            }
            apply(h.vl, h.blocks as u32);
            self.pop_front();
        }
    }

    /// Takes the oldest held credit off the list and the sums.
    #[inline]
    fn pop_front(&mut self) -> Option<HeldCredit> {
        let s = &mut self.state;
        if s.count == 0 {
            return None;
        }
        let h = self.list.pop_front().expect("a held credit is listed");
        let sum = &mut s.sums[(h.vl & 15) as usize];
        *sum -= h.blocks;
        if *sum == 0 {
            s.vls &= !(1 << h.vl);
        }
        s.count -= 1;
        Some(h)
    }

    /// Records whether the sender, having just picked, waits for credit. A
    /// waiting sender must get its earliest held credit back as an event,
    /// scheduled under the credit's own key: that credit is returned for
    /// the caller to schedule.
    #[inline]
    pub fn set_waiting(&mut self, waiting: bool) -> Option<HeldCredit> {
        self.state.waiting = waiting;
        if waiting {
            self.pop_front()
        } else {
            None
        }
    }

    /// The live credits: the list's last `count` (a stale list holds none).
    fn held(&self) -> impl Iterator<Item = &HeldCredit> {
        self.list.iter().skip(self.list.len() - self.state.count as usize)
    }

    /// Blocks for `vl` held and due by time `now` (for views between events).
    pub fn due_blocks(&self, vl: u8, now: Time) -> u32 {
        self.held().filter(|h| h.vl == vl && key_time(h.key) <= now).map(|h| h.blocks as u32).sum()
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
        let keys: Vec<u128> = (1..=3).map(|t| q.reserve_key(t * 10)).collect();
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
        q.push_keyed(h.key, (h.vl, h.blocks));
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
    fn when_all_are_due_they_come_back_summed_per_vl_and_the_next_hold_starts_afresh() {
        let mut q: EventQueue<u8> = EventQueue::new();
        let mut r = CreditReturn::default();
        for (t, vl, blocks) in [(10, 3, 1), (11, 1, 4), (12, 3, 2), (13, 1, 1)] {
            r.hold(q.reserve_key(t), vl, blocks);
        }
        q.push(50, 0);
        q.pop();
        let mut taken = Vec::new();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(1, 5), (3, 3)], "VL by VL, in VL order");
        taken.clear();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert!(taken.is_empty(), "nothing is taken twice");
        assert_eq!(r.held_blocks(3), 0, "a taken list holds no live credit");
        // After a take of everything, new credits are held and taken alone.
        let k = q.reserve_key(60);
        r.hold(k, 2, 7);
        let h = r.set_waiting(true).expect("a held credit to schedule");
        q.push_keyed(h.key, h.vl);
        assert_eq!(q.pop(), Some((60, 2)), "the new credit, not a taken one, becomes the event");
    }
}
