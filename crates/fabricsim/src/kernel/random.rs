//! Named, independent random streams derived from (master seed, stream id).
//!
//! Each component draws from its own stream, so adding a component or a
//! draw in one place does not shift the numbers seen anywhere else. Stream
//! ids are hashed with FNV-1a (stable across Rust versions, unlike std's
//! hasher) and mixed with the master seed by SplitMix64 before seeding
//! xoshiro256++.

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A reproducible random number stream.
#[derive(Clone, Debug)]
pub struct RandomStream {
    rng: Xoshiro256PlusPlus,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl RandomStream {
    /// The stream `name`/`index` of the master seed `seed`.
    pub fn new(seed: u64, name: &str, index: u64) -> Self {
        let id = fnv1a(name.as_bytes()) ^ splitmix64(index);
        let s = splitmix64(seed ^ splitmix64(id));
        RandomStream { rng: Xoshiro256PlusPlus::seed_from_u64(s) }
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Exponentially distributed with the given mean.
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Uniform integer in [0, n).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        self.rng.random_range(0..n)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Standard normal (Box-Muller; one of the pair is used, so every call
    /// takes two uniforms).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform(); // (0, 1]: the logarithm is finite
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Raw 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_same_sequence() {
        let mut a = RandomStream::new(42, "arrivals", 3);
        let mut b = RandomStream::new(42, "arrivals", 3);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_differ_by_name_index_and_seed() {
        let first = |s: &mut RandomStream| (0..4).map(|_| s.next_u64()).collect::<Vec<_>>();
        let base = first(&mut RandomStream::new(1, "a", 0));
        assert_ne!(base, first(&mut RandomStream::new(1, "b", 0)));
        assert_ne!(base, first(&mut RandomStream::new(1, "a", 1)));
        assert_ne!(base, first(&mut RandomStream::new(2, "a", 0)));
    }

    #[test]
    fn exponential_mean_and_uniform_range() {
        let mut s = RandomStream::new(7, "exp", 0);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| s.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((mean - 3.0).abs() < 0.05, "mean {mean}");
        for _ in 0..10_000 {
            let k = s.below(15);
            assert!(k < 15);
        }
    }
}
