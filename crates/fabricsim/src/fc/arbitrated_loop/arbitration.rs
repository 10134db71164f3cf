//! Loop arbitration with ARB(x) propagation.
//!
//! An arbitrating port replaces fill words (IDLE, ARB(F0), lower-priority
//! ARBs) with its own ARB(x) and wins when its ARB comes back. At any moment
//! at most one ARB "front" can win: it starts at an origin (the arbitrating
//! port itself on an idle loop, or the closing owner, which forwards the
//! highest-priority ARB it sees when it releases the loop) and wins on
//! reaching its port. A higher-priority port that starts arbitrating before
//! the front passes it replaces the front with its own ARB, which then needs
//! a full trip; one that starts after the front has passed is too late and
//! waits for the next release. Ports arbitrating during a tenancy are
//! assumed visible to the owner by the time it closes (their ARBs circulate
//! in the fill words for at least the closing round trip).

use super::al_pa::higher_priority;
use super::port::LoopPort;
use super::timing::LoopTiming;
use crate::kernel::Time;

#[derive(Clone, Copy, Debug)]
struct Front {
    port: u32,
    origin: u32,
    t0: Time,
}

#[derive(Clone, Debug, Default)]
pub struct Arbiter {
    pub owner: Option<u32>,
    front: Option<Front>,
    /// Generation of the current front; stale win events carry an older one.
    pub generation: u32,
}

/// A scheduled win: `port` wins at `at` if the front is still `generation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingWin {
    pub port: u32,
    pub at: Time,
    pub generation: u32,
    /// Fraction of a loop trip the winning ARB travelled (1 on an idle loop).
    pub origin: u32,
}

impl Arbiter {
    fn hops(origin: u32, to: u32, ports: u32) -> u32 {
        (to + ports - origin) % ports
    }

    /// `x` starts arbitrating at `now`; returns a new pending win if the front changes.
    pub fn on_start(&mut self, x: u32, now: Time, ports: &[LoopPort], timing: &LoopTiming) -> Option<PendingWin> {
        if self.owner.is_some() {
            return None;
        }
        let p = ports.len() as u32;
        let replace = match self.front {
            None => true,
            Some(f) => {
                let to_winner = if f.origin == f.port { p } else { Self::hops(f.origin, f.port, p) };
                let to_x = Self::hops(f.origin, x, p);
                let passes_x_at = if to_x == 0 { f.t0 } else { f.t0 + timing.delay(f.origin, x) };
                to_x < to_winner
                    && now < passes_x_at
                    && higher_priority(ports[x as usize].al_pa, ports[f.port as usize].al_pa)
            }
        };
        if !replace {
            return None;
        }
        self.generation = self.generation.wrapping_add(1);
        self.front = Some(Front { port: x, origin: x, t0: now });
        Some(PendingWin { port: x, at: now + timing.trip(), generation: self.generation, origin: x })
    }

    /// The owner closes at `now`; the highest-priority arbitrating port (if any) will win.
    pub fn on_release(&mut self, owner: u32, now: Time, ports: &[LoopPort], timing: &LoopTiming) -> Option<PendingWin> {
        debug_assert_eq!(self.owner, Some(owner));
        self.owner = None;
        let best = (0..ports.len() as u32)
            .filter(|&i| ports[i as usize].arbitrating)
            .min_by_key(|&i| ports[i as usize].al_pa)?;
        self.generation = self.generation.wrapping_add(1);
        self.front = Some(Front { port: best, origin: owner, t0: now });
        Some(PendingWin { port: best, at: now + timing.delay(owner, best), generation: self.generation, origin: owner })
    }

    /// A scheduled win fires; true if it still stands (the port now owns the loop).
    pub fn on_win(&mut self, port: u32, generation: u32) -> bool {
        match self.front {
            Some(f) if f.port == port && generation == self.generation && self.owner.is_none() => {
                self.front = None;
                self.owner = Some(port);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LoopSpec;

    fn ring(al_pas: &[u8]) -> Vec<LoopPort> {
        al_pas.iter().map(|&a| LoopPort::new(a, true, 1, 0)).collect()
    }

    #[test]
    fn idle_race_higher_priority_replaces_front_only_before_it_passes() {
        let t = LoopTiming::new(&LoopSpec { length_m: 0.0, ..LoopSpec::default() }, 4);
        let mut ports = ring(&[0x01, 0xEF, 0xE8, 0xE4]);
        let mut a = Arbiter::default();
        ports[2].arbitrating = true;
        let w = a.on_start(2, 0, &ports, &t).unwrap();
        assert_eq!(w.at, t.trip());
        // Port 0 (higher priority) starts before the front reaches it: it takes over.
        ports[0].arbitrating = true;
        let w0 = a.on_start(0, t.delay(2, 0) - 1, &ports, &t).unwrap();
        assert!(!a.on_win(2, w.generation));
        assert!(a.on_win(0, w0.generation));
        // At release port 2 is the only one arbitrating: it wins one partial trip later.
        ports[0].arbitrating = false;
        let r = a.on_release(0, 1000, &ports, &t).unwrap();
        assert_eq!((r.port, r.at), (2, 1000 + t.delay(0, 2)));
        // Too late: port 1 (higher than 2? no, 0xEF is lower) never replaces.
        ports[1].arbitrating = true;
        assert!(a.on_start(1, 1001, &ports, &t).is_none());
        assert!(a.on_win(2, r.generation));
    }
}
