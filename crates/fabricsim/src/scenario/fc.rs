//! `[switch]`, `[link]` and `[protocol]`: the Fibre Channel switch of seed
//! 000 (section 2), its fibres, and the class of service with its credits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require_duration, Range};
use crate::error::Result;

/// Which transfer the crossbar starts first when several output queues have
/// a head waiting for the same input port (seed 000 does not say).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    /// Outputs are served in a rotating order, one place further on every
    /// scheduling pass, whatever the age of their heads.
    #[default]
    Rotating,
    /// The head that entered the scheduler table first goes first (ties in
    /// rotating order).
    Oldest,
}

/// The Fibre Channel switch of the HP study (seed 000, section 2).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSpec {
    /// Ports of every switch (2-256).
    pub ports: u32,
    /// Receive buffers per port (buffer-to-buffer credit granted to the attached port).
    pub buffers_per_port: u32,
    /// Time the router spends reading one header into the scheduler table.
    /// The study gives no figure; the default, about two header times, is an
    /// assumption the published numbers do not fix (the class 2 credit curve
    /// fits 0 to 4.5 us; see README).
    pub routing_time_ns: f64,
    /// Crossbar arbitration among output queues whose heads wait for the
    /// same input port.
    pub arbitration: Arbitration,
}

pub const DEFAULT_ROUTING_TIME_NS: f64 = 3000.0;

impl Default for SwitchSpec {
    fn default() -> Self {
        SwitchSpec {
            ports: 16,
            buffers_per_port: 15,
            routing_time_ns: DEFAULT_ROUTING_TIME_NS,
            arbitration: Arbitration::Rotating,
        }
    }
}

/// The Fibre Channel speeds by their names (FC-PI-2 to FC-PI-7): line rate
/// and code give the data rate. 1-8GFC: 8b/10b, ten line bits per byte.
/// 16GFC: 64b/66b. 32GFC: 64b/66b blocks transcoded to 256b/257b and
/// protected by RS(528,514) FEC; 64GFC: the same with RS(544,514), on PAM4
/// (two bits per symbol, 28.9 GBd). Each is twice the one before from 16GFC
/// up (1700, 3400, 6800 MB/s); 1-8GFC carry 106.25 MB/s per GBd.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
pub enum FcRate {
    #[serde(rename = "1GFC")]
    G1,
    #[serde(rename = "2GFC")]
    G2,
    #[serde(rename = "4GFC")]
    G4,
    #[serde(rename = "8GFC")]
    G8,
    #[serde(rename = "16GFC")]
    G16,
    #[serde(rename = "32GFC")]
    G32,
    #[serde(rename = "64GFC")]
    G64,
}

impl FcRate {
    /// Line bits per second.
    pub fn line_bits_per_second(self) -> f64 {
        match self {
            FcRate::G1 => 1.0625e9,
            FcRate::G2 => 2.125e9,
            FcRate::G4 => 4.25e9,
            FcRate::G8 => 8.5e9,
            FcRate::G16 => 14.025e9,
            FcRate::G32 => 28.05e9,
            FcRate::G64 => 57.8e9,
        }
    }

    /// Data bits per line bit of the code (and forward error correction).
    pub fn code_efficiency(self) -> f64 {
        match self {
            FcRate::G1 | FcRate::G2 | FcRate::G4 | FcRate::G8 => 8.0 / 10.0,
            FcRate::G16 => 64.0 / 66.0,
            FcRate::G32 => 256.0 / 257.0 * 514.0 / 528.0,
            FcRate::G64 => 256.0 / 257.0 * 514.0 / 544.0,
        }
    }

    /// Data rate in MB/s (10^6 bytes per second).
    pub fn data_mb_s(self) -> f64 {
        self.line_bits_per_second() * self.code_efficiency() / 8.0 / 1e6
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkSpec {
    /// Data rate of every port and fibre, in MB/s (10^6 bytes per second);
    /// default 26.6, quarter-speed FC (265.625 MBaud with 8b/10b), as in
    /// seed 000. Give this or `rate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_mb_s: Option<f64>,
    /// A Fibre Channel speed by name: "1GFC", "2GFC", "4GFC", "8GFC"
    /// (8b/10b), "16GFC", "32GFC", "64GFC" (64b/66b; 32 and 64GFC with FEC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<FcRate>,
    /// One-way propagation delay of every fibre.
    pub propagation_ns: f64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec { bandwidth_mb_s: None, rate: None, propagation_ns: 0.0 }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ProtocolSpec {
    /// Fibre Channel class of service: 1, a dedicated connection per message;
    /// 2, every data frame acknowledged under end-to-end credit; 3, no ACKs,
    /// credit ignored.
    pub class: u8,
    /// End-to-end credit per destination (classes 1 and 2).
    pub end_to_end_credit: u32,
    /// Header and framing bytes of every frame (an ACK is a header alone).
    pub frame_header_bytes: u32,
    /// Payload bytes of a full data frame.
    pub frame_payload_bytes: u32,
    /// Class 1: mean back-off before a refused connect request is retried
    /// (drawn uniformly from 0 to twice this, so retries do not synchronise).
    pub class1_retry_us: f64,
}

impl Default for ProtocolSpec {
    fn default() -> Self {
        ProtocolSpec {
            class: 2,
            end_to_end_credit: 2,
            frame_header_bytes: 36,
            frame_payload_bytes: 2048,
            class1_retry_us: 20.0,
        }
    }
}

pub const PORTS: Range = Range::int("switch.ports", 2, 256);
pub const BUFFERS_PER_PORT: Range = Range::int("switch.buffers_per_port", 1, 1024);
pub const ROUTING_TIME_NS: Range = Range::num("switch.routing_time_ns", 0.0, 1e9).unit("ns").note("up to 1 s");
pub const BANDWIDTH_MB_S: Range =
    Range::num("link.bandwidth_mb_s", 0.1, 1e5).unit("MB/s").note("100 kB/s to 100 GB/s, 800 Gb/s");
pub const PROPAGATION_NS: Range =
    Range::num("link.propagation_ns", 0.0, 1e9).unit("ns").note("up to 1 s, 200000 km of fibre");
pub const CLASS: Range = Range::int("protocol.class", 1, 3).text("1, 2 or 3");
pub const END_TO_END_CREDIT: Range = Range::int("protocol.end_to_end_credit", 1, 65535);
pub const FRAME_HEADER_BYTES: Range =
    Range::int("protocol.frame_header_bytes", 1, 1024).unit("bytes").note("Fibre Channel: 36 with SOF, CRC and EOF");
pub const FRAME_PAYLOAD_BYTES: Range =
    Range::int("protocol.frame_payload_bytes", 1, 65536).unit("bytes").note("Fibre Channel: at most 2112");
pub const CLASS1_RETRY_US: Range = Range::num("protocol.class1_retry_us", 0.0, 1e6).unit("us").note("up to 1 s");

pub const RANGES: &[Range] = &[
    PORTS,
    BUFFERS_PER_PORT,
    ROUTING_TIME_NS,
    BANDWIDTH_MB_S,
    PROPAGATION_NS,
    CLASS,
    END_TO_END_CREDIT,
    FRAME_HEADER_BYTES,
    FRAME_PAYLOAD_BYTES,
    CLASS1_RETRY_US,
];

impl SwitchSpec {
    pub fn validate(&self) -> Result<()> {
        PORTS.check_int(self.ports)?;
        BUFFERS_PER_PORT.check_int(self.buffers_per_port)?;
        ROUTING_TIME_NS.check(self.routing_time_ns)
    }
}

/// Seed 000's quarter-speed links, the default.
pub const DEFAULT_BANDWIDTH_MB_S: f64 = 26.6;

impl LinkSpec {
    pub fn validate(&self) -> Result<()> {
        if let (Some(b), Some(r)) = (self.bandwidth_mb_s, self.rate) {
            let name = serde_json::to_value(r).expect("rates serialize");
            return Err(crate::error::Error::invalid(
                "link.rate",
                name,
                format!("link.rate or link.bandwidth_mb_s (= {b}), not both"),
            ));
        }
        if let Some(b) = self.bandwidth_mb_s {
            BANDWIDTH_MB_S.check(b)?;
        }
        PROPAGATION_NS.check(self.propagation_ns)
    }

    /// Data rate in MB/s: the named rate's, the given one or the default.
    pub fn data_mb_s(&self) -> f64 {
        self.rate.map(FcRate::data_mb_s).or(self.bandwidth_mb_s).unwrap_or(DEFAULT_BANDWIDTH_MB_S)
    }

    /// Picoseconds to serialize one byte.
    pub fn ps_per_byte(&self) -> f64 {
        1e6 / self.data_mb_s()
    }
}

impl ProtocolSpec {
    pub fn validate(&self) -> Result<()> {
        CLASS.check_int(self.class)?;
        CLASS1_RETRY_US.check(self.class1_retry_us)?;
        END_TO_END_CREDIT.check_int(self.end_to_end_credit)?;
        FRAME_HEADER_BYTES.check_int(self.frame_header_bytes)?;
        FRAME_PAYLOAD_BYTES.check_int(self.frame_payload_bytes)
    }

    /// Bytes of a full data frame, header included.
    pub fn data_frame_bytes(&self) -> u64 {
        self.frame_header_bytes as u64 + self.frame_payload_bytes as u64
    }
}

/// The times the switched fabric derives from several keys: every frame's
/// serialization at the link rate (an ACK is a header alone) lies between
/// 1 ps and 10^4 s. Called once each section is valid.
pub fn check_frame_times(link: &LinkSpec, protocol: &ProtocolSpec) -> Result<()> {
    let bw = link.data_mb_s();
    let fix = "change link.bandwidth_mb_s or the frame sizes";
    let data = protocol.data_frame_bytes() as f64 * link.ps_per_byte();
    require_duration(data, "a full data frame takes", "link.bandwidth_mb_s", bw, fix)?;
    let ack = protocol.frame_header_bytes as f64 * link.ps_per_byte();
    require_duration(ack, "a frame header takes", "link.bandwidth_mb_s", bw, fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_rates_carry_their_standard_data_rates() {
        let mb: Vec<f64> = [FcRate::G1, FcRate::G2, FcRate::G4, FcRate::G8, FcRate::G16, FcRate::G32, FcRate::G64]
            .iter()
            .map(|r| (r.data_mb_s() * 100.0).round() / 100.0)
            .collect();
        assert_eq!(mb, vec![106.25, 212.5, 425.0, 850.0, 1700.0, 3400.0, 6800.0]);
        let link = LinkSpec { rate: Some(FcRate::G16), ..LinkSpec::default() };
        assert!((link.ps_per_byte() - 1e6 / 1700.0).abs() < 1e-9);
        let both = LinkSpec { bandwidth_mb_s: Some(100.0), ..link };
        assert_eq!(both.validate().unwrap_err().key.as_deref(), Some("link.rate"));
        assert_eq!(LinkSpec::default().data_mb_s(), 26.6);
        let s = crate::Scenario::from_toml_str("[link]\nrate = \"8GFC\"\n", "t.toml").unwrap();
        assert_eq!(s.to_json()["link"]["rate"], "8GFC");
        let e = crate::Scenario::from_toml_str("[link]\nrate = \"10GFC\"\n", "t.toml").unwrap_err();
        assert!(e.to_string().contains("link.rate"), "{e}");
    }
}
