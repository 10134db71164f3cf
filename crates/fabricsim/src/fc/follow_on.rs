//! Same-instant follow-ons: over a fibre of no length, a frame's head
//! reaches the switch the instant it is sent, and its tail reaches a
//! terminal node the instant its transfer ends. Neither is a decision of
//! its own; each is the rest of the event that caused it, so it runs there,
//! right after the handler that sent it, under that event's key (nothing
//! else runs between them) instead of as an event of its own.
//!
//! [`FollowOns`] is the context the fabric hands its components: it keeps
//! those two deliveries when they are due now and schedules everything
//! else as the driver's context would.

use super::fabric::Event;
use crate::kernel::{EventSet, Time};
use crate::sim::{Carries, Clocked, Context, Schedule};

/// A component's context that keeps same-instant head and tail deliveries
/// for the fabric to run after the handler (in the order they were sent).
pub(super) struct FollowOns<'a, 'c, Q> {
    cx: &'a mut Context<'c, Event, Q>,
    kept: &'a mut Vec<Event>,
}

impl<'a, 'c, Q: EventSet<Event>> FollowOns<'a, 'c, Q> {
    #[inline(always)]
    pub(super) fn new(cx: &'a mut Context<'c, Event, Q>, kept: &'a mut Vec<Event>) -> Self {
        FollowOns { cx, kept }
    }
}

/// Whether `ev`, due now, runs as part of the event that caused it.
#[inline(always)]
fn follows_on(ev: &Event) -> bool {
    matches!(ev, Event::FrameStart { .. } | Event::FrameDelivered { .. })
}

impl<Q: EventSet<Event>> Clocked for FollowOns<'_, '_, Q> {
    #[inline(always)]
    fn now(&self) -> Time {
        self.cx.now()
    }

    #[inline(always)]
    fn reserve_key(&mut self, at: Time) -> u128 {
        self.cx.reserve_key(at)
    }

    #[inline(always)]
    fn current_key(&self) -> u128 {
        self.cx.current_key()
    }
}

impl<Ev, Q: EventSet<Event>> Schedule<Ev> for FollowOns<'_, '_, Q>
where
    Event: Carries<Ev>,
{
    #[inline(always)]
    fn push(&mut self, at: Time, index: u32, ev: Ev) {
        let ev = Event::wrap(index, ev);
        if at == self.cx.now() && follows_on(&ev) {
            self.kept.push(ev);
        } else {
            self.cx.schedule(at, ev);
        }
    }

    #[inline(always)]
    fn push_keyed(&mut self, key: u128, index: u32, ev: Ev) {
        self.cx.schedule_keyed(key, Event::wrap(index, ev));
    }
}
