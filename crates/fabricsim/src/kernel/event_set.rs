//! What the driver and the models need of a future-event set, so a model
//! picks the structure that suits its event pattern under static dispatch:
//! [`EventQueue`](super::EventQueue), a binary heap, for any pattern, or
//! [`CalendarQueue`](super::CalendarQueue), a ring of time buckets, for
//! dense events scheduled a short, bounded time ahead.
//!
//! Both order events by (time, insertion sequence) and give the same run
//! bit for bit; they differ only in cost.

use super::time::Time;

/// The order key of an event: time in the high 64 bits, insertion sequence in the low.
#[inline]
pub fn key(time: Time, seq: u64) -> u128 {
    ((time as u128) << 64) | seq as u128
}

/// The time of an event key.
#[inline]
pub fn key_time(key: u128) -> Time {
    (key >> 64) as Time
}

pub trait EventSet<E: Copy> {
    /// Schedules `event` at absolute time `time`.
    fn push(&mut self, time: Time, event: E);
    /// Removes and returns the earliest event if it is due no later than `limit`.
    fn pop_until(&mut self, limit: Time) -> Option<(Time, E)>;
    /// Time of the earliest pending event.
    fn peek_time(&self) -> Option<Time>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes held.
    fn memory_bytes(&self) -> u64;
    /// Number of events ever scheduled or keyed (the next sequence number).
    fn scheduled(&self) -> u64;
    /// The key an event scheduled now at `time` would have, taken without
    /// scheduling it: a model that may not need the event holds the key, and
    /// pushes it with [`Self::push_keyed`] only if it turns out to be needed,
    /// in the same order among simultaneous events as if it had been pushed now.
    fn reserve_key(&mut self, time: Time) -> u128;
    /// Schedules `event` under a key from [`Self::reserve_key`] (still in the future).
    fn push_keyed(&mut self, key: u128, event: E);
    /// Key of the event being handled (the last one popped): every event
    /// keyed below it has run, every event keyed above it has not.
    fn current_key(&self) -> u128;
    /// The earliest pending event, if the set can name it: what a model that
    /// looks ahead is shown ([`Model::prefetch`](crate::sim::Model::prefetch));
    /// None is always allowed.
    #[inline(always)]
    fn peek_event(&self) -> Option<&E> {
        None
    }
}
