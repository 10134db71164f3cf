//! A set of switch ports as bits, so a switch finds the ports in a given
//! state (outputs free, credited and queued; inputs with unrouted headers)
//! with a few word operations instead of asking every port, and walks them
//! in the rotating order its arbitration uses.

/// Ports a switch may have (`switch.ports` allows up to 256).
pub const MAX_PORTS: usize = 256;
const WORDS: usize = MAX_PORTS / 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortSet([u64; WORDS]);

impl PortSet {
    #[inline(always)]
    pub fn insert(&mut self, port: usize) {
        self.0[port >> 6] |= 1 << (port & 63);
    }

    #[inline(always)]
    pub fn remove(&mut self, port: usize) {
        self.0[port >> 6] &= !(1 << (port & 63));
    }

    #[inline(always)]
    pub fn contains(&self, port: usize) -> bool {
        self.0[port >> 6] >> (port & 63) & 1 != 0
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Adds every port of `other`.
    #[inline(always)]
    pub fn union_with(&mut self, other: &PortSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// Removes every port of `other`.
    #[inline(always)]
    pub fn subtract(&mut self, other: &PortSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= !b;
        }
    }

    /// The ports in all three sets.
    #[inline(always)]
    pub fn and3(a: &PortSet, b: &PortSet, c: &PortSet) -> PortSet {
        PortSet(std::array::from_fn(|w| a.0[w] & b.0[w] & c.0[w]))
    }

    /// The first port at or after `start`, wrapping round after `ports`.
    #[inline]
    pub fn first_from(&self, start: usize, ports: usize) -> Option<usize> {
        self.iter_from(start, ports).next()
    }

    /// The ports of a switch of `ports` ports in rotating order: `start`,
    /// `start + 1`, ... wrapping round (every port of the set is below `ports`).
    #[inline]
    pub fn iter_from(&self, start: usize, ports: usize) -> RotatingIter<'_> {
        let w = start >> 6;
        let low = (1u64 << (start & 63)) - 1;
        RotatingIter {
            set: &self.0,
            words: ports.div_ceil(64),
            word: w,
            bits: self.0[w] & !low,
            last_bits: self.0[w] & low,
            steps: 0,
        }
    }
}

/// Ports of a set from a start, wrapping round (see [`PortSet::iter_from`]).
pub struct RotatingIter<'a> {
    set: &'a [u64; WORDS],
    /// Words the switch's ports take.
    words: usize,
    /// The word being walked and its bits not yet given.
    word: usize,
    bits: u64,
    /// The start's word's bits below the start, which come last.
    last_bits: u64,
    /// Words moved past, so the walk ends after going round once.
    steps: usize,
}

impl Iterator for RotatingIter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.bits != 0 {
                let b = self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                return Some(self.word * 64 + b);
            }
            if self.steps == self.words {
                return None;
            }
            self.steps += 1;
            self.word = if self.word + 1 == self.words { 0 } else { self.word + 1 };
            self.bits = if self.steps == self.words { self.last_bits } else { self.set[self.word] };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain walk the set replaces: every port from `start`, wrapping.
    fn plain(ports: &[usize], start: usize, n: usize) -> Vec<usize> {
        (0..n).map(|k| (start + k) % n).filter(|p| ports.contains(p)).collect()
    }

    #[test]
    fn walks_in_rotating_order_as_a_scan_of_every_port_does() {
        let mut rng = crate::kernel::RandomStream::new(7, "port-set", 0);
        for _ in 0..500 {
            let n = 2 + rng.below(MAX_PORTS as u32 - 1) as usize;
            let ports: Vec<usize> = (0..n).filter(|_| rng.bernoulli(0.2)).collect();
            let mut set = PortSet::default();
            ports.iter().for_each(|&p| set.insert(p));
            let start = rng.below(n as u32) as usize;
            assert_eq!(set.iter_from(start, n).collect::<Vec<_>>(), plain(&ports, start, n), "n {n} start {start}");
            assert_eq!(set.first_from(start, n), plain(&ports, start, n).first().copied());
            assert_eq!(set.is_empty(), ports.is_empty());
        }
    }

    #[test]
    fn sets_intersect_and_forget() {
        let (mut a, mut b, mut c) = (PortSet::default(), PortSet::default(), PortSet::default());
        for p in [3, 70, 200] {
            a.insert(p);
            b.insert(p);
            c.insert(p);
        }
        b.remove(70);
        assert!(!b.contains(70) && b.contains(200));
        assert_eq!(PortSet::and3(&a, &b, &c).iter_from(0, 256).collect::<Vec<_>>(), vec![3, 200]);
        let mut d = PortSet::default();
        d.insert(5);
        d.union_with(&b);
        d.subtract(&c);
        assert_eq!(d.iter_from(0, 256).collect::<Vec<_>>(), vec![5]);
    }
}
