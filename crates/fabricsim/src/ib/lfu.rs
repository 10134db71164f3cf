//! Seed 003's least-frequently-used selection (section 3.4): "one counter
//! for each VL" at every output, so a packet adapting on a VL goes where
//! that VL has sent least. The counts are kept over a sliding horizon so
//! that they follow the load now, not the whole run's history: each count
//! halves every [`HALF_LIFE_PS`] (an exponentially decayed count, applied
//! lazily when the counter is next touched, so no timer events). The half
//! life, 2^28 ps = 268 us, is about 64 full-packet times at 1x SDR (4.2 us
//! each), the time one HOQLife (HV 6, 262 us) spans: long enough to count
//! a burst's packets, short enough that one burst does not steer the
//! choices of the next 33.3 ms video frame period.

use crate::kernel::Time;

/// The decay's period: counts halve each 2^28 ps (268 us).
pub const HALF_LIFE_SHIFT: u32 = 28;
pub const HALF_LIFE_PS: Time = 1 << HALF_LIFE_SHIFT;

/// Data VLs counted per output (VL15 never adapts).
const VLS: usize = 16;

/// An output's packets sent on one VL, decayed to the last epoch it was touched.
#[derive(Clone, Copy, Debug, Default)]
struct Count {
    packets: u32,
    epoch: u32,
}

impl Count {
    #[inline]
    fn at(self, epoch: u32) -> u32 {
        let age = epoch.saturating_sub(self.epoch);
        if age >= 32 {
            0
        } else {
            self.packets >> age
        }
    }
}

/// The decayed per-VL counts of a switch's outputs.
#[derive(Clone, Debug)]
pub struct LfuCounters {
    counts: Vec<Count>,
}

#[inline]
fn epoch(now: Time) -> u32 {
    (now >> HALF_LIFE_SHIFT) as u32
}

impl LfuCounters {
    pub fn new(ports: usize) -> Self {
        LfuCounters { counts: vec![Count::default(); ports * VLS] }
    }

    /// Output `out` has sent a packet on `vl` at `now`.
    #[inline]
    pub fn sent(&mut self, out: usize, vl: u8, now: Time) {
        if (vl as usize) < VLS {
            let e = epoch(now);
            let c = &mut self.counts[out * VLS + vl as usize];
            *c = Count { packets: c.at(e).saturating_add(1), epoch: e };
        }
    }

    /// Packets output `out` has sent on `vl`, decayed to `now`.
    #[inline]
    pub fn used(&self, out: usize, vl: u8, now: Time) -> u32 {
        self.counts[out * VLS + (vl as usize).min(VLS - 1)].at(epoch(now))
    }

    /// Of `choices` (output, path bits), the output least used lately on
    /// `vl`; ties to the lower port.
    #[inline]
    pub fn least_used(&self, choices: &[(u16, u64)], vl: u8, now: Time) -> (u16, u64) {
        choices.iter().copied().min_by_key(|&(q, _)| (self.used(q as usize, vl, now), q)).expect("a choice")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_vl_and_halve_each_half_life() {
        let mut c = LfuCounters::new(3);
        for _ in 0..8 {
            c.sent(1, 0, 0);
        }
        c.sent(1, 2, 0);
        assert_eq!((c.used(1, 0, 0), c.used(1, 2, 0), c.used(1, 1, 0), c.used(0, 0, 0)), (8, 1, 0, 0));
        assert_eq!(c.used(1, 0, HALF_LIFE_PS), 4);
        assert_eq!(c.used(1, 0, 3 * HALF_LIFE_PS), 1);
        assert_eq!(c.used(1, 0, 40 * HALF_LIFE_PS), 0);
        // A packet sent later adds to the decayed count.
        c.sent(1, 0, 2 * HALF_LIFE_PS);
        assert_eq!(c.used(1, 0, 2 * HALF_LIFE_PS), 3);
    }

    /// A burst on one VL alternates over the outputs offered; another VL's
    /// traffic does not steer it; an old burst is forgotten.
    #[test]
    fn a_burst_spreads_over_the_alternatives() {
        let mut c = LfuCounters::new(4);
        let choices = [(1u16, 0b0u64), (3, 0b1)];
        // Output 1 carried a burst on VL 1: VL 0's choices ignore it.
        for _ in 0..50 {
            c.sent(1, 1, 0);
        }
        let mut taken = [0u32; 4];
        for k in 0..20u64 {
            let now = k * 4_200_000; // one full packet time apart
            let (out, _) = c.least_used(&choices, 0, now);
            taken[out as usize] += 1;
            c.sent(out as usize, 0, now);
        }
        assert_eq!((taken[1], taken[3]), (10, 10));
        // Output 3 alone carries a burst on VL 0, then the VL is quiet for
        // 32 half lives: the burst no longer counts and ties go low.
        for _ in 0..40 {
            c.sent(3, 0, 1 << 30);
        }
        assert_eq!(c.least_used(&choices, 0, 1 << 30).0, 1);
        assert_eq!(c.least_used(&choices, 0, (1 << 30) + 40 * HALF_LIFE_PS).0, 1);
        assert_eq!(c.used(3, 0, (1 << 30) + 40 * HALF_LIFE_PS), 0);
    }
}
