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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkSpec {
    /// Data rate of every port and fibre, in MB/s (10^6 bytes per second);
    /// 26.6 is quarter-speed FC (265.625 MBaud with 8b/10b), as in seed 000.
    pub bandwidth_mb_s: f64,
    /// One-way propagation delay of every fibre.
    pub propagation_ns: f64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec { bandwidth_mb_s: 26.6, propagation_ns: 0.0 }
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

impl LinkSpec {
    pub fn validate(&self) -> Result<()> {
        BANDWIDTH_MB_S.check(self.bandwidth_mb_s)?;
        PROPAGATION_NS.check(self.propagation_ns)
    }

    /// Picoseconds to serialize one byte.
    pub fn ps_per_byte(&self) -> f64 {
        1e6 / self.bandwidth_mb_s
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
    let bw = link.bandwidth_mb_s;
    let fix = "change link.bandwidth_mb_s or the frame sizes";
    let data = protocol.data_frame_bytes() as f64 * link.ps_per_byte();
    require_duration(data, "a full data frame takes", "link.bandwidth_mb_s", bw, fix)?;
    let ack = protocol.frame_header_bytes as f64 * link.ps_per_byte();
    require_duration(ack, "a frame header takes", "link.bandwidth_mb_s", bw, fix)
}
