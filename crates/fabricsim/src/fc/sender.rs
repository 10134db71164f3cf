//! A port's transmitter towards a switch port, under buffer-to-buffer
//! credit: one frame on the fibre at a time, each taking one of the free
//! receive buffers at the far end (BB_Credit), which come back as R_RDYs.
//! N_Ports, loop bridges and hosts' FC interfaces send through one; what to
//! send next (ACKs first, a message's frames, a queue) is their own affair.
//!
//! An owner whose frame's end matters only when something waits to go may
//! send quietly ([`Sender::send_quiet`]): the end is then an event only if
//! asked for ([`Sender::wake_when_sent`]), under the key it would have had.

use crate::kernel::Time;
use crate::sim::{Clocked, Deferred, Delivery, Link, Schedule};

#[derive(Clone, Debug)]
pub struct Sender {
    /// The fibre to the switch port.
    link: Link,
    /// Free receive buffers at the switch port, and how many it has.
    credit: u32,
    buffers: u32,
    /// A frame is on the fibre (or was, for a quiet send whose end has passed).
    transmitting: bool,
    /// The quiet send's end; NOT_QUIET for a send whose done event is scheduled.
    done: Deferred,
    /// The quiet send's end has been scheduled as the owner's event.
    woken: bool,
}

const NOT_QUIET: Deferred = Deferred::NEVER;

impl Sender {
    /// A transmitter on `link` to a port of `buffers` receive buffers.
    pub fn new(link: Link, buffers: u32) -> Self {
        Sender { link, credit: buffers, buffers, transmitting: false, done: NOT_QUIET, woken: false }
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
        self.done = NOT_QUIET;
        cx.push(cx.now() + duration, me, done);
    }

    /// As [`Sender::send`], but the frame's end, `duration` from now, is
    /// not scheduled: the fibre is busy until the event handled is past it
    /// ([`Sender::busy_now`]). The key of the end is taken now, so a done
    /// event asked for later runs in the order it would have run in.
    #[inline]
    pub fn send_quiet(&mut self, cx: &mut impl Schedule<Delivery>, frame: u32, duration: Time) {
        debug_assert!(!self.transmitting && self.credit > 0);
        self.credit -= 1;
        self.transmitting = true;
        self.done = Deferred::reserve(cx, cx.now() + duration);
        self.woken = false;
        self.link.send_head(cx, frame);
    }

    /// A frame is on the fibre at the event being handled (a quiet send's
    /// end that has passed frees it).
    #[inline]
    pub fn busy_now(&mut self, cx: &impl Clocked) -> bool {
        if self.transmitting && self.done != NOT_QUIET && self.done.is_before(cx.current_key()) {
            self.sent();
        }
        self.transmitting
    }

    /// The frame on the fibre went quietly and its end is not scheduled yet.
    #[inline]
    pub fn quiet(&self) -> bool {
        self.transmitting && self.done != NOT_QUIET && !self.woken
    }

    /// Schedules the owner's `done` event for the end of the quiet send on
    /// the fibre (once), because something will be waiting to go then.
    #[inline]
    pub fn wake_when_sent<Ev>(&mut self, cx: &mut impl Schedule<Ev>, me: u32, done: Ev) {
        if self.quiet() {
            self.woken = true;
            self.done.schedule(cx, me, done);
        }
    }

    /// The frame's last byte has gone: the fibre is free.
    #[inline]
    pub fn sent(&mut self) {
        self.transmitting = false;
        self.woken = false;
    }

    /// An R_RDY: the switch port freed a buffer.
    #[inline]
    pub fn credit_returned(&mut self) {
        self.credits_returned(1);
    }

    /// `n` R_RDYs.
    #[inline]
    pub fn credits_returned(&mut self, n: u32) {
        self.credit += n;
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

    /// The queue with one event taken, as when that event is being handled.
    fn handling(at: Time) -> EventQueue<Ev> {
        let mut q = EventQueue::with_capacity(8);
        q.push(at, Ev::Done(0));
        q.pop();
        q
    }

    #[test]
    fn a_quiet_send_ends_as_an_event_only_when_asked_and_in_its_place() {
        let mut s = Sender::new(Link::new(PortRef::switch(0, 3), 0), 2);
        let mut q = handling(0);
        let mut cx = Context::new(0, &mut q);
        s.send_quiet(&mut cx, 100, 40);
        assert!(s.busy_now(&cx) && s.quiet());
        // Scheduled after the send, but the send's end was keyed first.
        cx.push(40, 7, ());
        s.wake_when_sent(&mut cx, 9, ());
        s.wake_when_sent(&mut cx, 9, ());
        assert!(!s.quiet(), "woken once");
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(Time::MAX)).collect();
        let head = Ev::Delivered(0, Delivery::Head { kind: crate::sim::ComponentKind::Switch, port: 3, frame: 100 });
        assert_eq!(got, vec![(0, head), (40, Ev::Done(9)), (40, Ev::Done(7))]);
    }

    #[test]
    fn an_unwoken_quiet_send_frees_the_fibre_once_its_end_has_passed() {
        let mut s = Sender::new(Link::new(PortRef::switch(0, 0), 0), 2);
        let mut q = handling(0);
        s.send_quiet(&mut Context::new(0, &mut q), 100, 40);
        q.pop();
        q.push(40, Ev::Done(1));
        q.pop();
        assert!(!s.busy_now(&Context::new(40, &mut q)), "an event keyed after the end");
        let mut q = handling(0);
        s.send_quiet(&mut Context::new(0, &mut q), 101, 40);
        q.pop();
        q.push(39, Ev::Done(1));
        q.pop();
        assert!(s.busy_now(&Context::new(39, &mut q)), "an event before the end");
    }

    #[test]
    #[should_panic(expected = "more R_RDYs than buffers")]
    fn a_credit_beyond_the_buffers_is_a_bug() {
        Sender::new(Link::new(PortRef::switch(0, 0), 0), 1).credit_returned();
    }
}
