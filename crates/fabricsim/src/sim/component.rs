//! The one scheduling context every event handler takes.
//!
//! A model runs one event set; the driver owns it (with the clock) and
//! lends it to the model for each event as a [`Context`]. A component (a
//! ring, a switch, an HCA) defines its own event enum and schedules through
//! [`Schedule`], which wraps the event with the component's index into the
//! assembly's enum ([`Carries`]); it never names the assembly's event type
//! or the concrete event set, so one component serves any assembly and
//! either event set under static dispatch.

use std::marker::PhantomData;

use super::composite::Carries;
use crate::kernel::{EventSet, Time};

/// The time of the event being handled and the event set, lent by the
/// driver for one event (or for the start of a run).
pub struct Context<'a, E, Q> {
    now: Time,
    queue: &'a mut Q,
    _event: PhantomData<fn(E)>,
}

impl<'a, E: Copy, Q: EventSet<E>> Context<'a, E, Q> {
    #[inline]
    pub fn new(now: Time, queue: &'a mut Q) -> Self {
        Context { now, queue, _event: PhantomData }
    }

    /// The time of the event being handled.
    #[inline(always)]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules one of the assembly's own events (not a component's).
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        self.queue.push(at, event);
    }

    /// Schedules an assembly event under a key from [`Clocked::reserve_key`].
    #[inline]
    pub fn schedule_keyed(&mut self, key: u128, event: E) {
        self.queue.push_keyed(key, event);
    }

    /// Events pending.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// The event set itself, for an assembly whose components still take it.
    #[inline]
    pub fn queue_mut(&mut self) -> &mut Q {
        self.queue
    }
}

/// What every handler may ask of its context, whatever it schedules.
pub trait Clocked {
    /// The time of the event being handled.
    fn now(&self) -> Time;
    /// The key an event scheduled now at `at` would have, taken without
    /// scheduling it (see [`EventSet::reserve_key`]).
    fn reserve_key(&mut self, at: Time) -> u128;
    /// Key of the event being handled: every event keyed below it has run.
    fn current_key(&self) -> u128;
}

/// A context that can schedule the events `Ev` of a component kind, each
/// tagged with the index of the component instance it is for.
pub trait Schedule<Ev>: Clocked {
    fn push(&mut self, at: Time, index: u32, ev: Ev);
    /// Schedules under a key from [`Clocked::reserve_key`].
    fn push_keyed(&mut self, key: u128, index: u32, ev: Ev);
}

impl<E: Copy, Q: EventSet<E>> Clocked for Context<'_, E, Q> {
    #[inline(always)]
    fn now(&self) -> Time {
        self.now
    }

    #[inline(always)]
    fn reserve_key(&mut self, at: Time) -> u128 {
        self.queue.reserve_key(at)
    }

    #[inline(always)]
    fn current_key(&self) -> u128 {
        self.queue.current_key()
    }
}

impl<Ev, E: Carries<Ev>, Q: EventSet<E>> Schedule<Ev> for Context<'_, E, Q> {
    #[inline(always)]
    fn push(&mut self, at: Time, index: u32, ev: Ev) {
        self.queue.push(at, E::wrap(index, ev));
    }

    #[inline(always)]
    fn push_keyed(&mut self, key: u128, index: u32, ev: Ev) {
        self.queue.push_keyed(key, E::wrap(index, ev));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{CalendarQueue, EventQueue};

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ping {
        Tick(u8),
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Assembly {
        Ping { index: u32, ev: Ping },
        Own,
    }

    impl Carries<Ping> for Assembly {
        fn wrap(index: u32, ev: Ping) -> Self {
            Assembly::Ping { index, ev }
        }
    }

    /// A component that knows only its own events and the context's interface.
    fn tick_twice(cx: &mut impl Schedule<Ping>, me: u32) {
        let now = cx.now();
        cx.push(now + 5, me, Ping::Tick(1));
        let key = cx.reserve_key(now + 5);
        cx.push(now + 5, me, Ping::Tick(2));
        cx.push_keyed(key, me, Ping::Tick(3));
    }

    fn drain<Q: EventSet<Assembly>>(mut q: Q) -> Vec<(Time, Assembly)> {
        let mut cx = Context::new(10, &mut q);
        tick_twice(&mut cx, 7);
        cx.schedule(12, Assembly::Own);
        assert_eq!(cx.pending(), 4);
        std::iter::from_fn(|| q.pop_until(Time::MAX)).collect()
    }

    #[test]
    fn components_schedule_through_any_event_set_in_key_order() {
        let want = vec![
            (12, Assembly::Own),
            (15, Assembly::Ping { index: 7, ev: Ping::Tick(1) }),
            (15, Assembly::Ping { index: 7, ev: Ping::Tick(3) }),
            (15, Assembly::Ping { index: 7, ev: Ping::Tick(2) }),
        ];
        assert_eq!(drain(EventQueue::with_capacity(4)), want);
        assert_eq!(drain(CalendarQueue::<_>::new(4, 2)), want);
    }
}
