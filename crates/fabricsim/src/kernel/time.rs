//! Simulated time: an integer count of picoseconds.
//!
//! Integer time keeps runs bit-for-bit reproducible: no rounding drift can
//! reorder two events between platforms or builds.

/// Simulated time in picoseconds.
pub type Time = u64;

pub const PICOSECOND: Time = 1;
pub const NANOSECOND: Time = 1_000;
pub const MICROSECOND: Time = 1_000_000;
pub const MILLISECOND: Time = 1_000_000_000;
pub const SECOND: Time = 1_000_000_000_000;

/// Converts a duration in nanoseconds (possibly fractional) to picoseconds.
#[inline]
pub fn from_ns(ns: f64) -> Time {
    (ns * NANOSECOND as f64).round() as Time
}

/// Converts a duration in microseconds to picoseconds.
#[inline]
pub fn from_us(us: f64) -> Time {
    (us * MICROSECOND as f64).round() as Time
}

/// Picoseconds as fractional microseconds, for reporting.
#[inline]
pub fn to_us(t: Time) -> f64 {
    t as f64 / MICROSECOND as f64
}

/// A serial line's data rate, turning byte counts into serialization times.
///
/// The rate is the payload byte rate after line encoding, so an 8b/10b link
/// at 1.0625 GBaud is `LineRate::from_baud(1.0625e9, 10)`: ten line bits per byte.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineRate {
    ps_per_byte: f64,
}

impl LineRate {
    /// A rate of `bytes_per_second` data bytes per second.
    pub fn from_bytes_per_second(bytes_per_second: f64) -> Self {
        assert!(bytes_per_second > 0.0, "line rate must be positive");
        LineRate { ps_per_byte: SECOND as f64 / bytes_per_second }
    }

    /// A rate of `baud` line symbols per second with `bits_per_byte` line bits per data byte.
    pub fn from_baud(baud: f64, bits_per_byte: u32) -> Self {
        Self::from_bytes_per_second(baud / bits_per_byte as f64)
    }

    pub fn bytes_per_second(&self) -> f64 {
        SECOND as f64 / self.ps_per_byte
    }

    pub fn ps_per_byte(&self) -> f64 {
        self.ps_per_byte
    }

    /// Time to serialize `bytes` bytes, rounded to the nearest picosecond.
    #[inline]
    pub fn time_for(&self, bytes: u64) -> Time {
        (bytes as f64 * self.ps_per_byte).round() as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fc_quarter_speed_frame_time() {
        // 26.6 MB/s: 2084 bytes take 2084 / 26.6e6 s = 78.3459 us.
        let r = LineRate::from_bytes_per_second(26.6e6);
        let t = r.time_for(2084);
        assert_eq!(t, 78_345_865);
        assert!((to_us(t) - 78.345_865).abs() < 1e-6);
    }

    #[test]
    fn eight_b_ten_b_rate() {
        let r = LineRate::from_baud(1.0625e9, 10);
        assert!((r.bytes_per_second() - 106.25e6).abs() < 1e-3);
        // One 4-byte transmission word takes 40 bit times of 0.941 ns.
        assert_eq!(r.time_for(4), 37_647);
    }

    #[test]
    fn conversions_round_trip() {
        assert_eq!(from_ns(1.5), 1_500);
        assert_eq!(from_us(2.0), 2 * MICROSECOND);
        assert_eq!(to_us(3 * MICROSECOND), 3.0);
    }
}
