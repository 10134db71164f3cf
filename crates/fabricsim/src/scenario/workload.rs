//! `[workload]`: message sources of the switched fabric: who sends to
//! whom, when messages arrive, and how long they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, require_duration, Range};
use super::topology::{MAX_NODES, MAX_SWITCHES};
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Every node sends to the other nodes with equal probability.
    Uniform,
    /// Only `pair[0]` sends, always to `pair[1]`.
    Pair,
    /// Nodes on `source_switches` send to nodes on `destination_switch`
    /// (uniformly): the study's fairness experiment.
    ToSwitch,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// Poisson message arrivals at the rate that makes `offered_load`.
    Poisson,
    /// Every source always has a message waiting: measures saturation throughput.
    Saturated,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadSpec {
    /// Who sends to whom.
    pub pattern: Pattern,
    /// Source and destination node with `pattern = "pair"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<[u32; 2]>,
    /// Destination switch (1-based) with `pattern = "to_switch"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_switch: Option<u32>,
    /// Sending switches with `pattern = "to_switch"` (default: all others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_switches: Option<Vec<u32>>,
    /// When messages arrive at a source.
    pub arrivals: Arrivals,
    /// Offered load per source as a fraction of port bandwidth, counted in
    /// full data frames (0 < x <= 2).
    pub offered_load: f64,
    pub sizes: MessageSizes,
}

impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            pattern: Pattern::Uniform,
            pair: None,
            destination_switch: None,
            source_switches: None,
            arrivals: Arrivals::Poisson,
            offered_load: 0.3,
            sizes: MessageSizes::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeKind {
    /// Every message has `frames` frames (1 = the study's uniform random traffic).
    Fixed,
    /// Seed 000's bursty workload: short messages of `short_min_frames` to
    /// `short_max_frames` frames (equally likely) and long ones of `long_frames`.
    Bimodal,
}

/// Message length distribution, in full frames. The keys of the kind not
/// chosen are refused; those of the chosen kind default as documented.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MessageSizes {
    /// `fixed` or `bimodal` (seed 000's bursty workload).
    pub kind: SizeKind,
    /// fixed: frames per message (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames: Option<u32>,
    /// bimodal: fraction of long messages (default 0.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_fraction: Option<f64>,
    /// bimodal: shortest short message, frames (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_min_frames: Option<u32>,
    /// bimodal: longest short message, frames (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_max_frames: Option<u32>,
    /// bimodal: long message length, frames (default 25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_frames: Option<u32>,
}

impl Default for MessageSizes {
    fn default() -> Self {
        MessageSizes {
            kind: SizeKind::Fixed,
            frames: None,
            long_fraction: None,
            short_min_frames: None,
            short_max_frames: None,
            long_frames: None,
        }
    }
}

/// The distribution a validated `MessageSizes` describes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDistribution {
    Fixed { frames: u32 },
    Bimodal { long_fraction: f64, short_min_frames: u32, short_max_frames: u32, long_frames: u32 },
}

impl MessageSizes {
    /// Every message `frames` frames long.
    pub fn fixed(frames: u32) -> Self {
        MessageSizes { frames: Some(frames), ..Self::default() }
    }

    /// Seed 000's bimodal sizes.
    pub fn bimodal(long_fraction: f64, short_min_frames: u32, short_max_frames: u32, long_frames: u32) -> Self {
        MessageSizes {
            kind: SizeKind::Bimodal,
            frames: None,
            long_fraction: Some(long_fraction),
            short_min_frames: Some(short_min_frames),
            short_max_frames: Some(short_max_frames),
            long_frames: Some(long_frames),
        }
    }

    pub fn distribution(&self) -> SizeDistribution {
        match self.kind {
            SizeKind::Fixed => SizeDistribution::Fixed { frames: self.frames.unwrap_or(1) },
            SizeKind::Bimodal => SizeDistribution::Bimodal {
                long_fraction: self.long_fraction.unwrap_or(0.1),
                short_min_frames: self.short_min_frames.unwrap_or(1),
                short_max_frames: self.short_max_frames.unwrap_or(5),
                long_frames: self.long_frames.unwrap_or(25),
            },
        }
    }

    /// Writes the defaults of the chosen kind into the keys left out.
    pub fn fill_defaults(&mut self) {
        *self = match self.distribution() {
            SizeDistribution::Fixed { frames } => Self::fixed(frames),
            SizeDistribution::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                Self::bimodal(long_fraction, short_min_frames, short_max_frames, long_frames)
            }
        };
    }

    /// Mean message length in frames.
    pub fn mean_frames(&self) -> f64 {
        match self.distribution() {
            SizeDistribution::Fixed { frames } => frames as f64,
            SizeDistribution::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                let short = (short_min_frames + short_max_frames) as f64 / 2.0;
                (1.0 - long_fraction) * short + long_fraction * long_frames as f64
            }
        }
    }

    fn validate(&self) -> Result<()> {
        let other_kind = match self.kind {
            SizeKind::Fixed => [
                ("long_fraction", self.long_fraction.is_some()),
                ("short_min_frames", self.short_min_frames.is_some()),
                ("short_max_frames", self.short_max_frames.is_some()),
                ("long_frames", self.long_frames.is_some()),
            ]
            .into_iter()
            .find(|(_, set)| *set)
            .map(|(k, _)| (k, "bimodal")),
            SizeKind::Bimodal => self.frames.map(|_| ("frames", "fixed")),
        };
        if let Some((key, kind)) = other_kind {
            return Err(Error::invalid(
                &format!("workload.sizes.{key}"),
                "present",
                format!("only with workload.sizes.kind = \"{kind}\""),
            ));
        }
        match self.distribution() {
            SizeDistribution::Fixed { frames } => FRAMES.check_int(frames),
            SizeDistribution::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                LONG_FRACTION.check(long_fraction)?;
                SHORT_MIN_FRAMES.check_int(short_min_frames)?;
                SHORT_MAX_FRAMES.check_int(short_max_frames)?;
                require(
                    short_max_frames >= short_min_frames,
                    "workload.sizes.short_max_frames",
                    short_max_frames,
                    "an integer from workload.sizes.short_min_frames to 1000000",
                )?;
                LONG_FRAMES.check_int(long_frames)
            }
        }
    }
}

pub const OFFERED_LOAD: Range =
    Range::num("workload.offered_load", 0.0, 2.0).above().note("fraction of port bandwidth");
pub const PAIR: Range =
    Range::int_list("workload.pair", 0, MAX_NODES - 1).note("[source, destination]: two different nodes");
pub const DESTINATION_SWITCH: Range =
    Range::int("workload.destination_switch", 1, MAX_SWITCHES).note("a switch of the fabric");
pub const SOURCE_SWITCHES: Range =
    Range::int_list("workload.source_switches", 1, MAX_SWITCHES).note("switches of the fabric");
pub const FRAMES: Range = Range::int("workload.sizes.frames", 1, 1_000_000).unit("frames");
pub const LONG_FRACTION: Range = Range::num("workload.sizes.long_fraction", 0.0, 1.0);
pub const SHORT_MIN_FRAMES: Range = Range::int("workload.sizes.short_min_frames", 1, 1_000_000).unit("frames");
pub const SHORT_MAX_FRAMES: Range = Range::int("workload.sizes.short_max_frames", 1, 1_000_000)
    .unit("frames")
    .note("at least workload.sizes.short_min_frames");
pub const LONG_FRAMES: Range = Range::int("workload.sizes.long_frames", 1, 1_000_000).unit("frames");

pub const RANGES: &[Range] = &[
    OFFERED_LOAD,
    PAIR,
    DESTINATION_SWITCH,
    SOURCE_SWITCHES,
    FRAMES,
    LONG_FRACTION,
    SHORT_MIN_FRAMES,
    SHORT_MAX_FRAMES,
    LONG_FRAMES,
];

impl WorkloadSpec {
    /// Checks what the section alone can tell; node and switch numbers are
    /// checked against the topology when the model is built.
    pub fn validate(&self) -> Result<()> {
        OFFERED_LOAD.check(self.offered_load)?;
        if let Some(pair) = &self.pair {
            PAIR.check_list(pair)?;
        }
        if let Some(d) = self.destination_switch {
            DESTINATION_SWITCH.check_int(d)?;
        }
        if let Some(s) = &self.source_switches {
            require(s.len() as u64 <= MAX_SWITCHES, "workload.source_switches", s.len(), &SOURCE_SWITCHES.allowed())?;
            SOURCE_SWITCHES.check_list(s)?;
        }
        let only = |key: &str, value: String, pattern: &str| {
            Err(Error::invalid(key, value, format!("only with workload.pattern = \"{pattern}\"")))
        };
        if self.pattern != Pattern::ToSwitch {
            if let Some(d) = self.destination_switch {
                return only("workload.destination_switch", d.to_string(), "to_switch");
            }
            if let Some(s) = &self.source_switches {
                return only("workload.source_switches", format!("{s:?}"), "to_switch");
            }
        }
        if self.pattern != Pattern::Pair {
            if let Some(pair) = self.pair {
                return only("workload.pair", format!("{pair:?}"), "pair");
            }
        }
        match self.pattern {
            Pattern::ToSwitch if self.destination_switch.is_none() => {
                return Err(Error::invalid(
                    "workload.destination_switch",
                    "missing",
                    "a switch number with pattern = \"to_switch\"",
                ));
            }
            Pattern::Pair => {
                let pair = self.pair.ok_or_else(|| {
                    Error::invalid(
                        "workload.pair",
                        "missing",
                        "[source, destination] node numbers with pattern = \"pair\"",
                    )
                })?;
                require(pair[0] != pair[1], "workload.pair", format!("{pair:?}"), "two different node numbers")?;
            }
            _ => {}
        }
        self.sizes.validate()
    }
}

impl WorkloadSpec {
    /// With Poisson arrivals, the mean time between a source's messages
    /// (message length times `data_frame_ps`, over the load) must be a delay
    /// the models can schedule. Called once the sections are valid.
    pub fn check_arrivals(&self, data_frame_ps: f64) -> Result<()> {
        if self.arrivals != Arrivals::Poisson {
            return Ok(());
        }
        let mean = self.sizes.mean_frames() * data_frame_ps / self.offered_load;
        require_duration(
            mean,
            "the mean time between a source's messages is",
            "workload.offered_load",
            self.offered_load,
            &format!(
                "raise the load above {:.2e} or shorten messages or frames",
                self.sizes.mean_frames() * data_frame_ps / super::check::MAX_DELAY_PS
            ),
        )
    }
}
