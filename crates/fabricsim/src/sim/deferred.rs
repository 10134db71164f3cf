//! An event whose time is known when it is caused but which becomes an
//! event only if something waits for it: a frame's end on a fibre, a
//! header in at a switch, credits on their way back. Its key is reserved
//! when it is caused ([`Clocked::reserve_key`]), so that, scheduled later,
//! it runs exactly where it would have run had it been scheduled then; and
//! until then the component asks whether it has happened by comparing its
//! key with that of the event being handled. The run is the same as with
//! one event each, with the events nobody waits for left out.

use super::component::{Clocked, Schedule};
use crate::kernel::event_set::key_time;
use crate::kernel::Time;

/// A deferred event: the key reserved for it (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Deferred(u128);

/// No event (a slot not in use).
impl Default for Deferred {
    fn default() -> Self {
        Deferred::NEVER
    }
}

impl Deferred {
    /// No event: after every other in key order, so it never has happened.
    pub const NEVER: Deferred = Deferred(u128::MAX);

    /// An event at `at` (now or later), caused now: its key is reserved now.
    #[inline(always)]
    pub fn reserve(cx: &mut impl Clocked, at: Time) -> Self {
        Deferred(cx.reserve_key(at))
    }

    /// Whether it has happened before the event being handled, whose key is
    /// `current` (its own event, if scheduled, is not before itself).
    #[inline(always)]
    pub fn is_before(self, current: u128) -> bool {
        self.0 < current
    }

    /// Whether it has happened by the event being handled, whose key is
    /// `current`: before it, or it is that event.
    #[inline(always)]
    pub fn is_by(self, current: u128) -> bool {
        self.0 <= current
    }

    /// Makes it an event (`ev` of component `index`), at its own place.
    #[inline(always)]
    pub fn schedule<Ev>(self, cx: &mut impl Schedule<Ev>, index: u32, ev: Ev) {
        cx.push_keyed(self.0, index, ev);
    }

    /// A key from [`crate::kernel::EventSet::reserve_key`], reserved for it
    /// (tests that drive an event set directly).
    #[cfg(test)]
    pub(crate) fn from_reserved(key: u128) -> Self {
        Deferred(key)
    }

    /// Its key (tests that drive an event set directly).
    #[cfg(test)]
    pub(crate) fn key(self) -> u128 {
        self.0
    }

    /// When it happens.
    #[inline]
    pub fn time(self) -> Time {
        key_time(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;
    use crate::sim::composite::At;
    use crate::sim::Context;

    /// A deferred event scheduled late runs where it would have run if it
    /// had been scheduled when it was caused, and reads as happened from
    /// then on.
    #[test]
    fn a_deferred_event_keeps_its_place_and_reads_as_happened_after_it() {
        let mut q: EventQueue<At<u8>> = EventQueue::with_capacity(4);
        let mut cx = Context::new(0, &mut q);
        let deferred = Deferred::reserve(&mut cx, 10);
        cx.push(10, 1, 2u8);
        deferred.schedule(&mut cx, 1, 1u8);
        cx.push(10, 1, 3u8);
        assert_eq!(deferred.time(), 10);
        let mut seen = Vec::new();
        while let Some((t, At(_, ev))) = q.pop_until(Time::MAX) {
            let current = q.current_key();
            seen.push((t, ev, deferred.is_before(current), deferred.is_by(current)));
        }
        assert_eq!(seen, vec![(10, 1, false, true), (10, 2, true, true), (10, 3, true, true)]);
        assert!(!Deferred::NEVER.is_by(u128::MAX - 1));
    }
}
