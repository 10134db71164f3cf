//! Buffer-to-buffer credits (R_RDYs) on their way back to a terminal node,
//! kept as keys instead of events.
//!
//! A node needs an R_RDY's arrival as an event only when it waits for
//! credit (a frame ready to go and none left); otherwise the R_RDY only
//! counts. So the switch takes, for each R_RDY it returns, the key the
//! arrival event would have ([`Clocked::reserve_key`]) and posts it here;
//! the node counts those keyed behind the event it is handling before it
//! looks at its credit. While the node waits, the next R_RDY is scheduled
//! as an event under its key, so the node sees every credit exactly when it
//! would with an event per R_RDY.

use std::collections::VecDeque;

use crate::kernel::Time;
use crate::sim::{Clocked, ComponentKind, Deferred, Delivery, Schedule};

#[derive(Clone, Debug, Default)]
pub struct CreditMail {
    /// The R_RDYs posted and not yet counted, in order.
    posted: VecDeque<Deferred>,
    /// The node waits for credit: the next R_RDY posted is an event.
    waiting: bool,
    /// An R_RDY's arrival is scheduled as the node's event.
    scheduled: bool,
}

impl CreditMail {
    /// Room for the R_RDYs of a switch port of `buffers` buffers.
    pub fn new(buffers: u32) -> Self {
        CreditMail { posted: VecDeque::with_capacity(buffers as usize), waiting: false, scheduled: false }
    }

    /// An R_RDY for `node` leaves now, arriving `propagation` later.
    #[inline]
    pub fn post(&mut self, cx: &mut impl Schedule<Delivery>, node: u32, propagation: Time) {
        let r_rdy = Deferred::reserve(cx, cx.now() + propagation);
        self.posted.push_back(r_rdy);
        if self.waiting {
            self.waiting = false;
            self.scheduled = true;
            r_rdy.schedule(cx, node, Delivery::Credit { kind: ComponentKind::Node, port: 0 });
        }
    }

    /// R_RDYs arrived by the event being handled, now counted by the node.
    #[inline]
    pub fn collect(&mut self, cx: &impl Clocked) -> u32 {
        let now = cx.current_key();
        let mut n = 0;
        while self.posted.front().is_some_and(|r| r.is_by(now)) {
            self.posted.pop_front();
            n += 1;
        }
        n
    }

    /// `node` waits for credit: it hears of the next R_RDY as an event.
    #[inline]
    pub fn wait(&mut self, cx: &mut impl Schedule<Delivery>, node: u32) {
        if self.scheduled {
            return;
        }
        match self.posted.front() {
            // Posted while nobody waited: its arrival becomes the event.
            Some(&r_rdy) => {
                self.scheduled = true;
                r_rdy.schedule(cx, node, Delivery::Credit { kind: ComponentKind::Node, port: 0 });
            }
            None => self.waiting = true,
        }
    }

    /// The scheduled arrival is being handled.
    #[inline]
    pub fn arrived(&mut self) {
        self.scheduled = false;
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> u64 {
        (self.posted.capacity() * 16) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;
    use crate::sim::composite::At;
    use crate::sim::Context;

    const CREDIT: Delivery = Delivery::Credit { kind: ComponentKind::Node, port: 0 };

    /// Takes the next event, as the driver does before handling it.
    fn next(q: &mut EventQueue<At<Delivery>>) -> Option<(Time, At<Delivery>)> {
        q.pop_until(Time::MAX)
    }

    #[test]
    fn r_rdys_count_once_their_keys_pass_and_are_events_only_for_a_waiting_node() {
        let mut mail = CreditMail::new(4);
        let mut q = EventQueue::with_capacity(8);
        q.push(0, At(9, CREDIT));
        next(&mut q);
        let mut cx = Context::new(0, &mut q);
        mail.post(&mut cx, 5, 10);
        mail.post(&mut cx, 5, 10);
        assert_eq!(mail.collect(&cx), 0, "still on the fibre");
        cx.push(10, 9, CREDIT);
        assert_eq!(q.len(), 1, "nobody waits: no event");
        let (_, _) = next(&mut q).unwrap();
        let mut cx = Context::new(10, &mut q);
        assert_eq!(mail.collect(&cx), 2, "both keyed before the event handled");
        // The node waits: the next R_RDY posted is its event.
        mail.wait(&mut cx, 5);
        mail.post(&mut cx, 5, 3);
        mail.post(&mut cx, 5, 3);
        assert_eq!(next(&mut q), Some((13, At(5, CREDIT))));
        mail.arrived();
        assert_eq!(mail.collect(&Context::new(13, &mut q)), 1, "the second is keyed after the first");
        assert!(q.is_empty());
    }

    #[test]
    fn a_node_that_waits_after_an_r_rdy_left_hears_of_that_one_once() {
        let mut mail = CreditMail::new(2);
        let mut q = EventQueue::with_capacity(8);
        let mut cx = Context::new(0, &mut q);
        mail.post(&mut cx, 1, 10);
        mail.wait(&mut cx, 1);
        mail.wait(&mut cx, 1);
        assert_eq!(next(&mut q), Some((10, At(1, CREDIT))));
        assert!(q.is_empty(), "scheduled once");
    }
}
