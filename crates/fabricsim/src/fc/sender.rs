//! A port's transmitter towards a switch port, under buffer-to-buffer
//! credit: one frame on the fibre at a time, each taking one of the free
//! receive buffers at the far end (BB_Credit), which come back as R_RDYs.
//! N_Ports, loop bridges and hosts' FC interfaces send through one; what to
//! send next (ACKs first, a message's frames, a queue) is their own affair.

use crate::kernel::Time;
use crate::sim::{Delivery, Link, Schedule};

#[derive(Clone, Debug)]
pub struct Sender {
    /// The fibre to the switch port.
    link: Link,
    /// Free receive buffers at the switch port, and how many it has.
    credit: u32,
    buffers: u32,
    /// A frame is on the fibre.
    transmitting: bool,
}

impl Sender {
    /// A transmitter on `link` to a port of `buffers` receive buffers.
    pub fn new(link: Link, buffers: u32) -> Self {
        Sender { link, credit: buffers, buffers, transmitting: false }
    }

    pub fn link(&self) -> &Link {
        &self.link
    }

    /// A frame is on the fibre.
    #[inline]
    pub fn busy(&self) -> bool {
        self.transmitting
    }

    /// The fibre is free and the switch port has a buffer for a frame.
    #[inline]
    pub fn ready(&self) -> bool {
        !self.transmitting && self.credit > 0
    }

    /// Free receive buffers at the switch port.
    pub fn credit(&self) -> u32 {
        self.credit
    }

    /// Puts `frame` on the fibre now under a credit (the caller has checked
    /// [`Sender::ready`]): its last byte goes `duration` later, when the
    /// owner's `done` event (for instance `me`) clears the fibre with
    /// [`Sender::sent`]; its head reaches the switch port a fibre later.
    #[inline]
    pub fn send<Ev>(
        &mut self,
        cx: &mut (impl Schedule<Ev> + Schedule<Delivery>),
        me: u32,
        done: Ev,
        frame: u32,
        duration: Time,
    ) {
        debug_assert!(self.ready());
        self.credit -= 1;
        self.occupy(cx, me, done, duration);
        self.link.send_head(cx, frame);
    }

    /// Occupies the fibre for `duration` without a buffer at the switch
    /// port (class 1 frames over a reserved path).
    #[inline]
    pub fn occupy<Ev>(&mut self, cx: &mut impl Schedule<Ev>, me: u32, done: Ev, duration: Time) {
        self.transmitting = true;
        cx.push(cx.now() + duration, me, done);
    }

    /// The frame's last byte has gone: the fibre is free.
    #[inline]
    pub fn sent(&mut self) {
        self.transmitting = false;
    }

    /// An R_RDY: the switch port freed a buffer.
    #[inline]
    pub fn credit_returned(&mut self) {
        self.credit += 1;
        assert!(self.credit <= self.buffers, "more R_RDYs than buffers at {:?}", self.link.to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;
    use crate::sim::{Carries, Context, PortRef};

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ev {
        Done(u32),
        Delivered(u32, Delivery),
    }

    impl Carries<Delivery> for Ev {
        fn wrap(index: u32, ev: Delivery) -> Self {
            Ev::Delivered(index, ev)
        }
    }

    impl Carries<()> for Ev {
        fn wrap(index: u32, _: ()) -> Self {
            Ev::Done(index)
        }
    }

    #[test]
    fn one_frame_at_a_time_under_credit() {
        let mut s = Sender::new(Link::new(PortRef::switch(0, 3), 5), 2);
        let mut q = EventQueue::with_capacity(8);
        let mut cx = Context::new(0, &mut q);
        s.send(&mut cx, 9, (), 100, 40);
        assert!(!s.ready(), "the fibre is busy");
        s.sent();
        s.send(&mut cx, 9, (), 101, 40);
        s.sent();
        assert!(!s.ready() && !s.busy(), "no buffer left at the switch port");
        s.credit_returned();
        assert!(s.ready());
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(Time::MAX)).collect();
        let head = |frame| Ev::Delivered(0, Delivery::Head { kind: crate::sim::ComponentKind::Switch, port: 3, frame });
        assert_eq!(got, vec![(5, head(100)), (5, head(101)), (40, Ev::Done(9)), (40, Ev::Done(9))]);
    }

    #[test]
    #[should_panic(expected = "more R_RDYs than buffers")]
    fn a_credit_beyond_the_buffers_is_a_bug() {
        Sender::new(Link::new(PortRef::switch(0, 0), 0), 1).credit_returned();
    }
}
