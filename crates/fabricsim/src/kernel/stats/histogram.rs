//! Log-linear (HDR-style) histogram of `u64` values, for latency percentiles.
//!
//! Latencies span many orders of magnitude (nanoseconds to milliseconds in
//! picoseconds), and percentiles need bounded *relative* error, not absolute.
//! Values are bucketed by their power of two (exponent group) and then
//! linearly into `2^SUB_BITS` sub-buckets, so every bucket is at most 1/32 of
//! its lower bound wide (≈3.1%; the midpoint is within ≈1.6%). Values below
//! 64 are recorded exactly. The bucket array has a fixed size, allocated
//! once, so recording never allocates.

/// log2 of the number of linear sub-buckets per power of two.
pub const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const SUB_MASK: u64 = SUB - 1;
/// Values below this are recorded exactly (one bucket per value).
const EXACT_LIMIT: u64 = 2 * SUB;
/// Exponent groups: group 0 holds `0..SUB`, group `g >= 1` holds
/// `[2^(g+SUB_BITS-1), 2^(g+SUB_BITS))`, up to `2^63..=u64::MAX`.
const GROUPS: usize = (64 - SUB_BITS + 1) as usize;
/// Total number of buckets.
pub const BUCKETS: usize = GROUPS << SUB_BITS;

/// Fixed-size log-linear histogram of `u64` values with exact count, sum,
/// min and max.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Bucket index of `v`.
#[inline]
fn index_of(v: u64) -> usize {
    if v < EXACT_LIMIT {
        v as usize
    } else {
        // Position of the leading one (>= SUB_BITS + 1 here).
        let e = 63 - v.leading_zeros();
        let group = (e - SUB_BITS + 1) as usize;
        (group << SUB_BITS) | ((v >> (e - SUB_BITS)) & SUB_MASK) as usize
    }
}

/// Lowest value and width of bucket `idx`.
#[inline]
fn bucket_bounds(idx: usize) -> (u64, u64) {
    if idx < EXACT_LIMIT as usize {
        (idx as u64, 1)
    } else {
        let group = (idx >> SUB_BITS) as u32;
        let sub = idx as u64 & SUB_MASK;
        let shift = group - 1;
        ((SUB + sub) << shift, 1u64 << shift)
    }
}

impl LogHistogram {
    /// An empty histogram (allocates the bucket array once).
    pub fn new() -> Self {
        let counts: Box<[u64; BUCKETS]> =
            vec![0u64; BUCKETS].into_boxed_slice().try_into().expect("bucket array length");
        Self { counts, count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    /// Records one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.record_n(v, 1);
    }

    /// Records `n` occurrences of the same value.
    #[inline]
    pub fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.counts[index_of(v)] += n;
        self.count += n;
        self.sum += v as u128 * n as u128;
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
    }

    /// Number of recorded values.
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact sum of the recorded values.
    #[inline]
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Smallest recorded value (0 when empty).
    #[inline]
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest recorded value (0 when empty).
    #[inline]
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact mean of the recorded values (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Value at percentile `p` (0..=100): the midpoint of the bucket holding
    /// the `ceil(p% · count)`-th smallest value, clamped to `[min, max]`.
    /// `p <= 0` gives `min()`, `p >= 100` gives `max()`; 0 when empty.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        if p.is_nan() || p <= 0.0 {
            return self.min;
        }
        if p >= 100.0 {
            return self.max;
        }
        let rank = ((p / 100.0 * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        let last = index_of(self.max);
        for idx in index_of(self.min)..=last {
            seen += self.counts[idx];
            if seen >= rank {
                let (low, width) = bucket_bounds(idx);
                let mid = low + (width - 1) / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Adds all of `other`'s values to this histogram.
    pub fn merge(&mut self, other: &LogHistogram) {
        if other.count == 0 {
            return;
        }
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Forgets all values, keeping the allocation.
    pub fn reset(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.sum = 0;
        self.min = u64::MAX;
        self.max = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_layout() {
        assert_eq!(BUCKETS, 1920);
        assert_eq!(index_of(0), 0);
        assert_eq!(index_of(63), 63);
        assert_eq!(index_of(64), 64);
        assert_eq!(index_of(65), 64);
        assert_eq!(index_of(66), 65);
        assert_eq!(index_of(u64::MAX), BUCKETS - 1);
        assert_eq!(bucket_bounds(64), (64, 2));
        let (low, width) = bucket_bounds(BUCKETS - 1);
        assert_eq!(low + (width - 1), u64::MAX);
        // Contiguous, non-overlapping buckets.
        for idx in 0..BUCKETS - 1 {
            let (low, width) = bucket_bounds(idx);
            assert_eq!(bucket_bounds(idx + 1).0, low + width, "gap after bucket {idx}");
            assert_eq!(index_of(low), idx);
            assert_eq!(index_of(low + (width - 1)), idx);
        }
        // Relative width bound.
        let mut v = 1u64;
        while v < u64::MAX / 3 {
            let (low, width) = bucket_bounds(index_of(v));
            assert!(low <= v && v - low < width);
            assert!(width == 1 || (width as f64) / (low as f64) <= 1.0 / 32.0);
            v = v * 3 + 1;
        }
    }

    #[test]
    fn exact_small_values() {
        let mut h = LogHistogram::new();
        for v in [5u64, 1, 3, 3, 9, 60, 0] {
            h.record(v);
        }
        assert_eq!(h.count(), 7);
        assert_eq!(h.min(), 0);
        assert_eq!(h.max(), 60);
        assert_eq!(h.sum(), 81);
        assert!((h.mean() - 81.0 / 7.0).abs() < 1e-12);
        // Sorted: 0 1 3 3 5 9 60.
        assert_eq!(h.percentile(0.0), 0);
        assert_eq!(h.percentile(10.0), 0);
        assert_eq!(h.percentile(20.0), 1);
        assert_eq!(h.percentile(50.0), 3);
        assert_eq!(h.percentile(60.0), 5);
        assert_eq!(h.percentile(80.0), 9);
        assert_eq!(h.percentile(90.0), 60);
        assert_eq!(h.percentile(100.0), 60);
    }

    #[test]
    fn empty() {
        let h = LogHistogram::default();
        assert_eq!((h.count(), h.min(), h.max(), h.percentile(50.0)), (0, 0, 0, 0));
        assert_eq!(h.mean(), 0.0);
    }

    #[test]
    fn uniform_percentiles() {
        let mut h = LogHistogram::new();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        assert_eq!(h.count(), 100_000);
        assert_eq!(h.mean(), 50_000.5);
        for (p, want) in [(50.0, 50_000.0), (95.0, 95_000.0), (99.0, 99_000.0), (1.0, 1000.0)] {
            let got = h.percentile(p) as f64;
            let err = (got - want).abs() / want;
            assert!(err < 0.035, "p{p}: {got} vs {want}");
            // Midpoints actually do better than the bucket width.
            assert!(err < 0.016, "p{p}: {got} vs {want}");
        }
        assert_eq!(h.percentile(0.0), 1);
        assert_eq!(h.percentile(100.0), 100_000);
    }

    #[test]
    fn clamped_to_min_max() {
        let mut h = LogHistogram::new();
        h.record(1_000_001);
        assert_eq!(h.percentile(50.0), 1_000_001);
        h.record(u64::MAX);
        assert_eq!(h.percentile(100.0), u64::MAX);
        // Top bucket is [63·2^58, 2^64): midpoint 2^64 - 1 - 2^57.
        assert_eq!(h.percentile(99.0), u64::MAX - (1u64 << 57));
        assert!(h.mean() > 9.2e18);
    }

    #[test]
    fn merge_and_reset() {
        let mut a = LogHistogram::new();
        let mut b = LogHistogram::new();
        let mut all = LogHistogram::new();
        for v in 0..5000u64 {
            let x = v * v + 7;
            all.record(x);
            if v % 3 == 0 {
                a.record(x);
            } else {
                b.record(x);
            }
        }
        a.merge(&b);
        assert_eq!((a.count(), a.sum(), a.min(), a.max()), (all.count(), all.sum(), all.min(), all.max()));
        for p in [0.0, 12.5, 50.0, 90.0, 99.9, 100.0] {
            assert_eq!(a.percentile(p), all.percentile(p));
        }
        a.merge(&LogHistogram::new());
        assert_eq!(a.count(), all.count());
        a.reset();
        assert_eq!((a.count(), a.min(), a.max()), (0, 0, 0));
        a.record(42);
        assert_eq!((a.percentile(1.0), a.min(), a.max()), (42, 42, 42));
    }
}
