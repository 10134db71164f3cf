//! A model's clock: simulated time, the future-event set and the count of
//! events run. The driver steps a model through it ([`Clock::next`]), so the
//! bookkeeping every event loop needs is written once.

use crate::kernel::{EventQueue, Time};

pub struct Clock<E> {
    /// The time of the event being handled.
    pub now: Time,
    pub queue: EventQueue<E>,
    /// Events run so far.
    pub events: u64,
}

impl<E: Copy> Clock<E> {
    pub fn with_capacity(capacity: usize) -> Self {
        Clock { now: 0, queue: EventQueue::with_capacity(capacity), events: 0 }
    }

    /// The next event due no later than `limit`, with the clock moved to its
    /// time; None when none is left or the next one is later.
    #[inline]
    pub fn next(&mut self, limit: Time) -> Option<E> {
        let (t, ev) = self.queue.pop_until(limit)?;
        self.now = t;
        self.events += 1;
        Some(ev)
    }
}
