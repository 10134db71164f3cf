//! InfiniBand physical links: width (lanes) and speed (per-lane signalling
//! rate and line code), and the serialization time of a packet.
//!
//! Seed 003 (Table 1) runs every link at 2.5 Gbit/s, the 1x SDR link of the
//! IBA: one lane of 2.5 Gbit/s signalling with 8b/10b coding, 2 Gbit/s or
//! 250 MB/s of data, so one byte takes exactly 4 ns. The other rates are the
//! IBTA's per-lane signalling rates:
//!
//! | speed | signalling (Gbit/s per lane) | line code | data (Gbit/s per lane) |
//! |-------|------------------------------|-----------|------------------------|
//! | SDR   | 2.5                          | 8b/10b    | 2                      |
//! | DDR   | 5                            | 8b/10b    | 4                      |
//! | QDR   | 10                           | 8b/10b    | 8                      |
//! | FDR10 | 10.3125                      | 64b/66b   | 10                     |
//! | FDR   | 14.0625                      | 64b/66b   | 13.636...              |
//! | EDR   | 25.78125                     | 64b/66b   | 25                     |
//! | HDR   | 53.125 (PAM4, 26.5625 GBd)   | 16/17     | 50                     |
//! | NDR   | 106.25 (PAM4, 53.125 GBd)    | 16/17     | 100                    |
//!
//! HDR and NDR carry 64b/66b blocks transcoded to 256b/257b and protected by
//! RS(544,514) forward error correction: 256/257 x 514/544 = 16/17 exactly,
//! which is why their data rates are the round 50 and 100 Gbit/s (64b/66b
//! alone would give 51.5 and 103 Gbit/s).
//!
//! Serialization times are computed in exact integer arithmetic and rounded
//! to the nearest picosecond once per packet, so a 12x link (a third of a
//! nanosecond per byte at SDR) does not accumulate float error. Packet
//! delimiters, idles and skip ordered sets are not modelled, as in the seed.

use crate::error::{Error, Result};
use crate::kernel::time::SECOND;
use crate::kernel::{LineRate, Time};

/// Number of lanes of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LinkWidth {
    #[default]
    X1,
    X4,
    X8,
    X12,
}

impl LinkWidth {
    pub const ALL: [LinkWidth; 4] = [LinkWidth::X1, LinkWidth::X4, LinkWidth::X8, LinkWidth::X12];

    pub const fn lanes(self) -> u32 {
        match self {
            LinkWidth::X1 => 1,
            LinkWidth::X4 => 4,
            LinkWidth::X8 => 8,
            LinkWidth::X12 => 12,
        }
    }

    /// `"1x"`, `"4x"`, `"8x"` or `"12x"` (case-insensitive), as in `ibnetdiscover` comments.
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "1x" => Ok(LinkWidth::X1),
            "4x" => Ok(LinkWidth::X4),
            "8x" => Ok(LinkWidth::X8),
            "12x" => Ok(LinkWidth::X12),
            _ => Err(Error::invalid("ib.link.width", format!("\"{s}\""), "1x, 4x, 8x, 12x")),
        }
    }
}

/// Per-lane speed generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LinkSpeed {
    #[default]
    Sdr,
    Ddr,
    Qdr,
    Fdr10,
    Fdr,
    Edr,
    Hdr,
    Ndr,
}

impl LinkSpeed {
    pub const ALL: [LinkSpeed; 8] = [
        LinkSpeed::Sdr,
        LinkSpeed::Ddr,
        LinkSpeed::Qdr,
        LinkSpeed::Fdr10,
        LinkSpeed::Fdr,
        LinkSpeed::Edr,
        LinkSpeed::Hdr,
        LinkSpeed::Ndr,
    ];

    /// Line bits per second on one lane.
    pub const fn signalling_bits_per_second(self) -> u64 {
        match self {
            LinkSpeed::Sdr => 2_500_000_000,
            LinkSpeed::Ddr => 5_000_000_000,
            LinkSpeed::Qdr => 10_000_000_000,
            LinkSpeed::Fdr10 => 10_312_500_000,
            LinkSpeed::Fdr => 14_062_500_000,
            LinkSpeed::Edr => 25_781_250_000,
            LinkSpeed::Hdr => 53_125_000_000,
            LinkSpeed::Ndr => 106_250_000_000,
        }
    }

    /// Line-code efficiency as (data bits, line bits).
    pub const fn coding(self) -> (u64, u64) {
        match self {
            LinkSpeed::Sdr | LinkSpeed::Ddr | LinkSpeed::Qdr => (8, 10),
            LinkSpeed::Fdr10 | LinkSpeed::Fdr | LinkSpeed::Edr => (64, 66),
            LinkSpeed::Hdr | LinkSpeed::Ndr => (16, 17),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LinkSpeed::Sdr => "SDR",
            LinkSpeed::Ddr => "DDR",
            LinkSpeed::Qdr => "QDR",
            LinkSpeed::Fdr10 => "FDR10",
            LinkSpeed::Fdr => "FDR",
            LinkSpeed::Edr => "EDR",
            LinkSpeed::Hdr => "HDR",
            LinkSpeed::Ndr => "NDR",
        }
    }

    /// A speed by name (case-insensitive): SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR.
    pub fn parse(s: &str) -> Result<Self> {
        let upper = s.to_ascii_uppercase();
        LinkSpeed::ALL.into_iter().find(|v| v.name() == upper).ok_or_else(|| {
            Error::invalid("ib.link.speed", format!("\"{s}\""), "SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR")
        })
    }
}

/// One direction of an InfiniBand link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct IbLink {
    pub width: LinkWidth,
    pub speed: LinkSpeed,
}

impl IbLink {
    /// The link of seed 003, Table 1: 2.5 Gbit/s, i.e. 1x SDR.
    pub const PAPER: IbLink = IbLink { width: LinkWidth::X1, speed: LinkSpeed::Sdr };

    pub const fn new(width: LinkWidth, speed: LinkSpeed) -> Self {
        IbLink { width, speed }
    }

    /// A link written as in `ibnetdiscover` comments, e.g. `"4xQDR"`, `"4xFDR10"`, `"1xSDR"`.
    pub fn parse(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        let split = lower.find('x').map(|i| i + 1).ok_or_else(|| {
            Error::invalid("ib.link", format!("\"{s}\""), "<width><speed>, e.g. 1xSDR, 4xQDR, 4xFDR10")
        })?;
        Ok(IbLink { width: LinkWidth::parse(&s[..split])?, speed: LinkSpeed::parse(&s[split..])? })
    }

    /// Line bits per second over all lanes.
    pub fn signalling_bits_per_second(&self) -> u64 {
        self.speed.signalling_bits_per_second() * self.width.lanes() as u64
    }

    /// Data (payload of the line code) bits per second over all lanes.
    pub fn data_bits_per_second(&self) -> f64 {
        let (data, line) = self.speed.coding();
        self.signalling_bits_per_second() as f64 * data as f64 / line as f64
    }

    pub fn bytes_per_second(&self) -> f64 {
        self.data_bits_per_second() / 8.0
    }

    /// Data bytes per picosecond of simulated time.
    pub fn bytes_per_picosecond(&self) -> f64 {
        self.bytes_per_second() / SECOND as f64
    }

    /// The kernel's view of this rate, for code written against [`LineRate`].
    pub fn line_rate(&self) -> LineRate {
        LineRate::from_bytes_per_second(self.bytes_per_second())
    }

    /// Time to serialize `bytes` bytes, to the nearest picosecond (halves up).
    ///
    /// `bytes * 8 / (lanes * rate * data / line)` seconds, evaluated in
    /// 128-bit integers: exact before the single rounding.
    #[inline]
    pub fn serialization_time(&self, bytes: u64) -> Time {
        let (data, line) = self.speed.coding();
        let num = bytes as u128 * 8 * SECOND as u128 * line as u128;
        let den = self.signalling_bits_per_second() as u128 * data as u128;
        ((num + den / 2) / den) as Time
    }
}

impl std::fmt::Display for IbLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width.lanes(), self.speed.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::time::NANOSECOND;

    #[test]
    fn paper_link_is_250_megabytes_per_second() {
        let l = IbLink::PAPER;
        assert_eq!(l.signalling_bits_per_second(), 2_500_000_000);
        assert_eq!(l.data_bits_per_second(), 2.0e9);
        assert_eq!(l.bytes_per_second(), 250.0e6);
        assert_eq!(l.serialization_time(1), 4 * NANOSECOND);
        // A full 1024-byte MTU packet with its 26 header bytes: 1050 x 4 ns.
        assert_eq!(l.serialization_time(1050), 4_200 * NANOSECOND);
        assert_eq!(IbLink::default(), IbLink::PAPER);
    }

    #[test]
    fn per_lane_data_rates_match_the_ibta_table() {
        let gbps = [2.0, 4.0, 8.0, 10.0, 14.0625 * 64.0 / 66.0, 25.0, 50.0, 100.0];
        for (speed, want) in LinkSpeed::ALL.into_iter().zip(gbps) {
            let l = IbLink::new(LinkWidth::X1, speed);
            assert!((l.data_bits_per_second() / 1e9 - want).abs() < 1e-9, "{speed:?}");
        }
        // The 16/17 of HDR and NDR is 64b/66b -> 256b/257b transcoding with RS(544,514) FEC.
        assert_eq!(256 * 514 * 17, 257 * 544 * 16);
    }

    #[test]
    fn width_multiplies_rate() {
        for speed in LinkSpeed::ALL {
            let one = IbLink::new(LinkWidth::X1, speed).data_bits_per_second();
            for w in LinkWidth::ALL {
                let r = IbLink::new(w, speed).data_bits_per_second();
                assert!((r / one - w.lanes() as f64).abs() < 1e-12);
            }
        }
        // 4x EDR = 100 Gbit/s: 8 bytes per 640 ps.
        assert_eq!(IbLink::new(LinkWidth::X4, LinkSpeed::Edr).serialization_time(8), 640);
        // 4x QDR = 32 Gbit/s: 4 GB/s, 250 ps per byte.
        assert_eq!(IbLink::new(LinkWidth::X4, LinkSpeed::Qdr).serialization_time(1050), 262_500);
    }

    #[test]
    fn serialization_rounds_once_to_nearest_picosecond() {
        // 12x SDR: 24 Gbit/s, 1/3 ns per byte.
        let l = IbLink::new(LinkWidth::X12, LinkSpeed::Sdr);
        assert_eq!(l.serialization_time(1), 333);
        assert_eq!(l.serialization_time(2), 667);
        assert_eq!(l.serialization_time(3), 1_000);
        assert_eq!(l.serialization_time(3_000_000), 1_000_000_000);
        // FDR: 1050 bytes = 8662.5 line bits = 616 ns exactly at 14.0625 Gbit/s.
        let fdr = IbLink::new(LinkWidth::X1, LinkSpeed::Fdr);
        assert_eq!(fdr.serialization_time(1050), 616_000);
        assert_eq!(fdr.serialization_time(0), 0);
    }

    #[test]
    fn agrees_with_the_kernel_line_rate() {
        for speed in LinkSpeed::ALL {
            for w in LinkWidth::ALL {
                let l = IbLink::new(w, speed);
                let r = l.line_rate();
                for bytes in [0u64, 1, 26, 282, 1050, 4122, 1 << 20] {
                    let a = l.serialization_time(bytes) as i64;
                    let b = r.time_for(bytes) as i64;
                    assert!((a - b).abs() <= 1, "{l} {bytes}: {a} vs {b}");
                }
                assert!((l.bytes_per_picosecond() * r.ps_per_byte() - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn parses_ibnetdiscover_names() {
        assert_eq!(IbLink::parse("4xQDR").unwrap(), IbLink::new(LinkWidth::X4, LinkSpeed::Qdr));
        assert_eq!(IbLink::parse("4xFDR10").unwrap(), IbLink::new(LinkWidth::X4, LinkSpeed::Fdr10));
        assert_eq!(IbLink::parse("12xhdr").unwrap(), IbLink::new(LinkWidth::X12, LinkSpeed::Hdr));
        assert_eq!(IbLink::PAPER.to_string(), "1xSDR");
        let e = IbLink::parse("4xXDR").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.link.speed"));
        assert!(IbLink::parse("QDR").is_err());
        assert!(IbLink::parse("3xQDR").is_err());
    }
}
