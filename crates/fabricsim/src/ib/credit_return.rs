//! Credits on their way back to a sending port (a switch output or an HCA),
//! held without an event while the sender has no use for them.
//!
//! A returned credit changes what a sender does only when it next picks a
//! packet. A sender that is sending, or has nothing queued, picks again at
//! an event of its own (its link frees, a packet arrives); a sender idle
//! with packets queued waits for credit and needs the credit's event. So a
//! credit returned to a waiting sender is scheduled as an event, as the
//! link delivers it; any other is held here under the event key it would
//! have had ([`EventSet::reserve_key`]). Before a sender picks, it takes
//! every held credit keyed below the event being handled: exactly those the
//! credit events would have delivered by then. If it then finds itself
//! waiting, the earliest held credit is scheduled under its own key. Every
//! decision sees the same credits, in the same order among simultaneous
//! events, as with one event per credit: the run is the same, with about
//! one event per packet hop fewer.

use std::collections::VecDeque;

use crate::kernel::event_set::key_time;
use crate::kernel::{EventSet, Time};

/// A credit held for a sender: `blocks` for `vl`, due under `key`.
#[derive(Clone, Copy, Debug)]
pub struct HeldCredit {
    pub key: u128,
    pub vl: u8,
    pub blocks: u16,
}

/// The credits held for one sending port.
#[derive(Clone, Debug, Default)]
pub struct CreditReturn {
    /// Whether the sender is idle with packets queued and none it can send.
    waiting: bool,
    held: VecDeque<HeldCredit>,
}

impl CreditReturn {
    /// Whether a credit for this sender must travel as an event.
    #[inline]
    pub fn sender_waiting(&self) -> bool {
        self.waiting
    }

    /// Holds a credit due under `key` (the sender is not waiting).
    #[inline]
    pub fn hold(&mut self, key: u128, vl: u8, blocks: u16) {
        debug_assert!(!self.waiting);
        debug_assert!(self.held.back().is_none_or(|h| h.key < key), "credits return in link order");
        self.held.push_back(HeldCredit { key, vl, blocks });
    }

    /// Hands over, oldest first, every held credit due before the event
    /// being handled (keyed below `current`).
    #[inline]
    pub fn take_due(&mut self, current: u128, mut apply: impl FnMut(u8, u32)) {
        while let Some(h) = self.held.front() {
            if h.key >= current {
                break;
            }
            apply(h.vl, h.blocks as u32);
            self.held.pop_front();
        }
    }

    /// Records whether the sender, having just picked, waits for credit. A
    /// waiting sender gets its earliest held credit back as an event, built
    /// by `event` and scheduled under the credit's own key.
    #[inline]
    pub fn set_waiting<E: Copy>(&mut self, waiting: bool, queue: &mut impl EventSet<E>, event: impl Fn(u8, u16) -> E) {
        self.waiting = waiting;
        if waiting {
            if let Some(h) = self.held.pop_front() {
                queue.push_keyed(h.key, event(h.vl, h.blocks));
            }
        }
    }

    /// Blocks for `vl` held and due by time `now` (for views between events).
    pub fn due_blocks(&self, vl: u8, now: Time) -> u32 {
        self.held.iter().filter(|h| h.vl == vl && key_time(h.key) <= now).map(|h| h.blocks as u32).sum()
    }

    /// Blocks for `vl` held, due or not.
    pub fn held_blocks(&self, vl: u8) -> u32 {
        self.held.iter().filter(|h| h.vl == vl).map(|h| h.blocks as u32).sum()
    }

    pub fn memory_bytes(&self) -> u64 {
        (self.held.capacity() * std::mem::size_of::<HeldCredit>()) as u64
    }
}

/// The credit returns of every sending port of a fabric: the switches'
/// output ports, then the HCAs.
#[derive(Clone, Debug, Default)]
pub struct CreditReturns {
    ports: Vec<CreditReturn>,
    /// Index of each switch's port 0.
    switch_base: Vec<u32>,
    hca_base: u32,
}

impl CreditReturns {
    /// Returns for switches of the given port counts and `hcas` HCAs.
    pub fn new(switch_ports: impl IntoIterator<Item = usize>, hcas: usize) -> Self {
        let mut switch_base = Vec::new();
        let mut n = 0u32;
        for p in switch_ports {
            switch_base.push(n);
            n += p as u32;
        }
        CreditReturns { ports: vec![CreditReturn::default(); n as usize + hcas], switch_base, hca_base: n }
    }

    #[inline]
    pub fn switch_port(&mut self, switch: u32, port: u16) -> &mut CreditReturn {
        &mut self.ports[(self.switch_base[switch as usize] + port as u32) as usize]
    }

    #[inline]
    pub fn hca(&mut self, hca: u32) -> &mut CreditReturn {
        &mut self.ports[(self.hca_base + hca) as usize]
    }

    pub fn switch_port_ref(&self, switch: u32, port: u16) -> &CreditReturn {
        &self.ports[(self.switch_base[switch as usize] + port as u32) as usize]
    }

    pub fn memory_bytes(&self) -> u64 {
        self.ports.iter().map(CreditReturn::memory_bytes).sum::<u64>()
            + (self.ports.capacity() * std::mem::size_of::<CreditReturn>()) as u64
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
        r.set_waiting(true, &mut q, |vl, b| (vl, b));
        assert!(r.sender_waiting());
        // The credit at 10 now travels as an event under its own key, before the event at 20.
        assert_eq!(q.pop(), Some((10, (0, 2))));
        assert_eq!(q.pop(), Some((20, (9, 9))));
        assert_eq!(r.due_blocks(1, 20), 2);
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        // The credit at 20 was keyed before the event at 20 (reserved first): it is due.
        assert_eq!(taken, vec![(1, 2)]);
        assert_eq!(r.held_blocks(2), 2);
        r.set_waiting(false, &mut q, |vl, b| (vl, b));
        assert!(q.is_empty(), "a sender that is not waiting gets no event");
        q.push(30, (7, 7));
        q.pop();
        r.take_due(q.current_key(), |vl, b| taken.push((vl, b)));
        assert_eq!(taken, vec![(1, 2), (2, 2)]);
        assert_eq!(r.held_blocks(2), 0);
    }
}
