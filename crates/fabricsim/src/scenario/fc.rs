//! `[switch]`, `[link]` and `[protocol]`: the Fibre Channel switch of seed
//! 000 (section 2), its fibres, and the class of service with its credits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, require_finite_nonneg, require_finite_positive};
use crate::error::Result;

/// The Fibre Channel switch of the HP study (seed 000, section 2).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSpec {
    /// Ports of every switch (2-256).
    pub ports: u32,
    /// Receive buffers per port (buffer-to-buffer credit granted to the attached port).
    pub buffers_per_port: u32,
    /// Time the router spends reading one header into the scheduler table.
    /// The study gives no figure; the default is calibrated so that class 2
    /// loses about 10 points of saturation throughput to class 3, which the
    /// study attributes to the scheduler's limited speed (see README).
    pub routing_time_ns: f64,
}

pub const CALIBRATED_ROUTING_TIME_NS: f64 = 3000.0;

impl Default for SwitchSpec {
    fn default() -> Self {
        SwitchSpec { ports: 16, buffers_per_port: 15, routing_time_ns: CALIBRATED_ROUTING_TIME_NS }
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

impl SwitchSpec {
    pub fn validate(&self) -> Result<()> {
        require((2..=256).contains(&self.ports), "switch.ports", self.ports, "an integer from 2 to 256")?;
        require(
            (1..=1024).contains(&self.buffers_per_port),
            "switch.buffers_per_port",
            self.buffers_per_port,
            "an integer from 1 to 1024",
        )?;
        require_finite_nonneg(self.routing_time_ns, "switch.routing_time_ns", "a non-negative number of nanoseconds")
    }
}

impl LinkSpec {
    pub fn validate(&self) -> Result<()> {
        require_finite_positive(self.bandwidth_mb_s, "link.bandwidth_mb_s", "a positive rate in MB/s")?;
        require_finite_nonneg(self.propagation_ns, "link.propagation_ns", "a non-negative number of nanoseconds")
    }
}

impl ProtocolSpec {
    pub fn validate(&self) -> Result<()> {
        require((1..=3).contains(&self.class), "protocol.class", self.class, "1, 2 or 3")?;
        require_finite_nonneg(
            self.class1_retry_us,
            "protocol.class1_retry_us",
            "a non-negative number of microseconds",
        )?;
        require(
            (1..=65535).contains(&self.end_to_end_credit),
            "protocol.end_to_end_credit",
            self.end_to_end_credit,
            "an integer from 1 to 65535",
        )?;
        require(
            self.frame_header_bytes >= 1,
            "protocol.frame_header_bytes",
            self.frame_header_bytes,
            "an integer >= 1",
        )?;
        require(
            self.frame_payload_bytes >= 1,
            "protocol.frame_payload_bytes",
            self.frame_payload_bytes,
            "an integer >= 1",
        )
    }
}
