//! The classic hold model for measuring the future-event set: keep `size`
//! events pending; each step pops the earliest and schedules it again after
//! an exponentially distributed delay. Shared by the criterion benchmark and
//! `fabricsim bench` so both measure the same thing.

use super::{EventQueue, RandomStream, Time};

/// Runs `steps` hold operations on a queue of `size` pending events; returns
/// a checksum so the work cannot be optimised away.
pub fn run_hold(size: usize, steps: u64, seed: u64) -> u64 {
    let mut rng = RandomStream::new(seed, "hold", 0);
    let mut q: EventQueue<u32> = EventQueue::with_capacity(size + 1);
    // Delays are drawn in advance so the loop measures the queue, not the RNG.
    let delays: Vec<Time> = (0..4096).map(|_| 1 + rng.exponential(1_000_000.0) as Time).collect();
    for i in 0..size {
        q.push(delays[i % delays.len()], i as u32);
    }
    let mut checksum = 0u64;
    for step in 0..steps {
        let (t, e) = q.pop().expect("hold queue never empties");
        checksum = checksum.wrapping_add(t ^ e as u64);
        q.push(t + delays[(step as usize) & 4095], e);
    }
    checksum
}
