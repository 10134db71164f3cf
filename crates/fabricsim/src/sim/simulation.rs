//! A model with its clock: what the driver steps, and what tests and tools
//! drive directly (inject work, run to a time, look at the model).

use super::clock::Clock;
use super::component::Context;
use super::model::Model;
use crate::kernel::{EventSet, Time};

/// Derefs to the model, so its accessors read as the simulation's.
pub struct Simulation<M: Model> {
    pub model: M,
    clock: Clock<M::Event, M::Queue>,
}

impl<M: Model> Simulation<M> {
    /// The model at time 0 with an empty event set of its own kind.
    pub fn new(model: M) -> Self {
        let queue = model.event_set();
        Simulation { model, clock: Clock::with_queue(queue) }
    }

    /// Schedules the model's first events; returns the time its workload starts at.
    pub fn start(&mut self) -> Time {
        let mut cx = Context::new(self.clock.now, &mut self.clock.queue);
        let start = self.model.start(&mut cx);
        self.clock.now = start;
        start
    }

    /// Runs the next event due no later than `limit`; false when none is
    /// left or the next one is later. The model sees the event after it
    /// first, as a hint ([`Model::prefetch`]).
    #[inline]
    pub fn step(&mut self, limit: Time) -> bool {
        match self.clock.next(limit) {
            Some(event) => {
                if self.model.looks_ahead() {
                    if let Some(next) = self.clock.queue.peek_event() {
                        self.model.prefetch(next);
                    }
                }
                let mut cx = Context::new(self.clock.now, &mut self.clock.queue);
                self.model.dispatch(&mut cx, event);
                true
            }
            None => false,
        }
    }

    /// Runs every event due no later than `until`.
    pub fn run_until(&mut self, until: Time) {
        while self.step(until) {}
    }

    /// Lends the model a context at the current time (to inject work).
    pub fn with<R>(&mut self, f: impl FnOnce(&mut M, &mut Context<M::Event, M::Queue>) -> R) -> R {
        let mut cx = Context::new(self.clock.now, &mut self.clock.queue);
        f(&mut self.model, &mut cx)
    }

    /// The time of the event run last.
    pub fn now(&self) -> Time {
        self.clock.now
    }

    /// Events run so far.
    pub fn events(&self) -> u64 {
        self.clock.events
    }

    /// Events pending.
    pub fn pending(&self) -> usize {
        self.clock.queue.len()
    }

    /// No event is left to run.
    pub fn idle(&self) -> bool {
        self.clock.queue.is_empty()
    }

    /// The event set.
    pub fn event_set(&self) -> &M::Queue {
        &self.clock.queue
    }

    /// Bytes the event set holds.
    pub fn event_set_bytes(&self) -> u64 {
        self.clock.queue.memory_bytes()
    }
}

impl<M: Model> std::ops::Deref for Simulation<M> {
    type Target = M;
    fn deref(&self) -> &M {
        &self.model
    }
}

impl<M: Model> std::ops::DerefMut for Simulation<M> {
    fn deref_mut(&mut self) -> &mut M {
        &mut self.model
    }
}
