//! A model's clock: simulated time, the future-event set and the count of
//! events run. The driver steps a model through it ([`Clock::next`]), so the
//! bookkeeping every event loop needs is written once. The event set is the
//! binary heap unless the model picks another ([`EventSet`]).

use crate::kernel::{EventQueue, EventSet, Time};

pub struct Clock<E, Q = EventQueue<E>> {
    /// The time of the event being handled.
    pub now: Time,
    pub queue: Q,
    /// Events run so far.
    pub events: u64,
    _event: std::marker::PhantomData<E>,
}

impl<E: Copy> Clock<E> {
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_queue(EventQueue::with_capacity(capacity))
    }
}

impl<E: Copy, Q: EventSet<E>> Clock<E, Q> {
    pub fn with_queue(queue: Q) -> Self {
        Clock { now: 0, queue, events: 0, _event: std::marker::PhantomData }
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
