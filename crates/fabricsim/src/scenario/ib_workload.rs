//! `[ib.workload]`: the mixed video / best-effort / control traffic of
//! seed 003 and the best-effort destination patterns.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::Result;

/// The default video trace: the frame-size model derived from the real
/// trace and shipped with the package (`traffic::trace_model`).
pub const BUILTIN_TRACE: &str = "builtin";

/// The hot spot's share of every other HCA's best-effort messages unless told.
pub const DEFAULT_HOT_SPOT_SHARE: f64 = 0.1;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbWorkloadSpec {
    /// Offered wire bytes per HCA (payload and headers, real-time and
    /// best-effort; control excluded) as a fraction of the link's data rate.
    /// The default 0.2 is a load the default network carries (it saturates
    /// near 0.23).
    pub injection_rate: f64,
    /// The real-time share of the injection rate (the seed's 70:30 is 0.7, 30:70 is 0.3).
    pub real_time_share: f64,
    /// Payload bytes of every best-effort message (one 1024-byte MTU packet by default).
    pub best_effort_bytes: u32,
    /// SLs best-effort messages take, one drawn uniformly per message
    /// (default 8-14: seed 003's links have 16 VLs, and spreading a class
    /// over several lowers head-of-line blocking).
    pub best_effort_sls: Vec<u32>,
    /// SLs of the video streams: stream k of an HCA takes the (k mod n)-th (default 1-7).
    pub real_time_sls: Vec<u32>,
    /// Video streams per HCA; default: as many as carry the real-time load
    /// at the trace's mean rate (see docs/infiniband-model.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streams_per_hca: Option<u32>,
    /// The video trace the streams are cut from: "builtin" (a frame-size
    /// model derived from the real MPEG trace, shipped with fabricsim), or
    /// a trace file such as the real one, "../shared/data/traces/movietrace.data"
    /// (relative paths are looked up from the working directory and the
    /// directories above it).
    pub trace: String,
    /// One 256-byte control packet per HCA every this many ms, on VL15 (0: no control traffic).
    pub control_period_ms: f64,
    /// Where best-effort messages go (`traffic::patterns`): "uniform" (the
    /// study's), "shift" (all-to-all as a shift permutation), "permutation"
    /// (one random derangement, from run.seed), "hot_spot", "incast" or
    /// "flows" (the pairs of `flows`).
    /// Video streams keep one uniformly drawn destination each (set
    /// real_time_share = 0 for the pattern alone); control packets stay uniform.
    pub pattern: IbPattern,
    /// hot_spot: the HCA (from 0) that draws the extra share (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_spot_hca: Option<u32>,
    /// hot_spot: the share of every other HCA's messages sent to it, the rest uniform (default 0.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_spot_share: Option<f64>,
    /// incast: the HCA (from 0) every sender sends to (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incast_target: Option<u32>,
    /// incast: how many HCAs send, those after the target in order
    /// (default: all others); the rest, the target included, send no
    /// best-effort messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incast_senders: Option<u32>,
    /// flows: [source, destination] pairs of HCAs (from 0), e.g. [[1, 0],
    /// [2, 0], [5, 9]]; each source offers injection_rate and sends to its
    /// destinations in turn; HCAs named as no source send no best-effort
    /// messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<[u32; 2]>>,
    /// How a video frame enters its source HCA: "paced" (the default: its
    /// packets released evenly over the frame's period, a message each, as
    /// a stream sent at its own rate) or "whole" (one message of the whole
    /// frame at its release, its packets cut at link rate); see
    /// docs/infiniband-model.md, "Seed 003's readings under test".
    pub video_injection: VideoInjection,
}

/// How a video frame enters its source HCA (`ib.workload.video_injection`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VideoInjection {
    /// The frame's packets released evenly over its period, a message each.
    #[default]
    Paced,
    /// One message of the whole frame at its release.
    Whole,
}

/// Destinations of best-effort messages (`traffic::patterns::Pattern`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IbPattern {
    /// Every message to an HCA drawn uniformly among the others.
    #[default]
    Uniform,
    /// All-to-all as a shift permutation: HCA i's k-th message to (i + 1 + k mod (n - 1)) mod n.
    Shift,
    /// One random derangement for the whole run: every HCA sends to its partner.
    Permutation,
    /// A share of every HCA's messages to one HCA, the rest uniform.
    HotSpot,
    /// N to 1: some HCAs all send to one.
    Incast,
    /// The source-destination pairs of `flows`.
    Flows,
}

impl Default for IbWorkloadSpec {
    fn default() -> Self {
        IbWorkloadSpec {
            injection_rate: 0.2,
            real_time_share: 0.7,
            best_effort_bytes: 1024,
            best_effort_sls: (8..=14).collect(),
            real_time_sls: (1..=7).collect(),
            streams_per_hca: None,
            trace: BUILTIN_TRACE.to_string(),
            control_period_ms: 100.0 / 3.0,
            pattern: IbPattern::Uniform,
            hot_spot_hca: None,
            hot_spot_share: None,
            incast_target: None,
            incast_senders: None,
            flows: None,
            video_injection: VideoInjection::default(),
        }
    }
}

pub const INJECTION: Range = Range::num("ib.workload.injection_rate", 0.0, 2.0).note("fraction of the link rate");
pub const SHARE: Range = Range::num("ib.workload.real_time_share", 0.0, 1.0);
pub const BE_BYTES: Range = Range::int("ib.workload.best_effort_bytes", 1, 1 << 24).unit("bytes");
pub const RT_SLS: Range = Range::int_list("ib.workload.real_time_sls", 0, 14).note("at least one; SL 15 is management");
pub const BE_SLS: Range =
    Range::int_list("ib.workload.best_effort_sls", 0, 14).note("at least one; SL 15 is management");
pub const STREAMS: Range = Range::int("ib.workload.streams_per_hca", 0, 4096);
pub const HOT_SPOT_SHARE: Range = Range::num("ib.workload.hot_spot_share", 0.0, 1.0);
pub const HOT_SPOT_HCA: Range = Range::int("ib.workload.hot_spot_hca", 0, 1 << 20).note("an HCA of the fabric, from 0");
pub const INCAST_TARGET: Range =
    Range::int("ib.workload.incast_target", 0, 1 << 20).note("an HCA of the fabric, from 0");
pub const INCAST_SENDERS: Range =
    Range::int("ib.workload.incast_senders", 1, 1 << 20).note("at most the fabric's other HCAs");
pub const FLOWS: Range = Range::int_list("ib.workload.flows", 0, 1 << 20)
    .note("[source, destination] pairs of HCAs of the fabric, a source other than its destination, each pair once");
pub const CONTROL_PERIOD: Range = Range::num("ib.workload.control_period_ms", 0.0, 1.0e6).unit("ms").note("0 = none");

impl IbWorkloadSpec {
    pub(super) fn validate(&self) -> Result<()> {
        INJECTION.check(self.injection_rate)?;
        SHARE.check(self.real_time_share)?;
        BE_BYTES.check_int(self.best_effort_bytes)?;
        require(!self.real_time_sls.is_empty(), "ib.workload.real_time_sls", "[]", &RT_SLS.allowed())?;
        RT_SLS.check_list(&self.real_time_sls)?;
        require(!self.best_effort_sls.is_empty(), "ib.workload.best_effort_sls", "[]", &BE_SLS.allowed())?;
        BE_SLS.check_list(&self.best_effort_sls)?;
        if let Some(s) = self.streams_per_hca {
            STREAMS.check_int(s)?;
        }
        CONTROL_PERIOD.check(self.control_period_ms)?;
        require(
            self.control_period_ms == 0.0 || self.control_period_ms >= 1e-3,
            "ib.workload.control_period_ms",
            self.control_period_ms,
            "0 (no control traffic) or at least 0.001 ms",
        )?;
        let given = |present: bool, key: &str, pattern: &str| {
            require(
                !present,
                &format!("ib.workload.{key}"),
                "given",
                &format!("only with ib.workload.pattern = \"{pattern}\""),
            )
        };
        let (hot, incast) = (self.pattern == IbPattern::HotSpot, self.pattern == IbPattern::Incast);
        given(self.hot_spot_hca.is_some() && !hot, "hot_spot_hca", "hot_spot")?;
        given(self.hot_spot_share.is_some() && !hot, "hot_spot_share", "hot_spot")?;
        given(self.incast_target.is_some() && !incast, "incast_target", "incast")?;
        given(self.incast_senders.is_some() && !incast, "incast_senders", "incast")?;
        given(self.flows.is_some() && self.pattern != IbPattern::Flows, "flows", "flows")?;
        if let Some(s) = self.hot_spot_share {
            HOT_SPOT_SHARE.check(s)?;
        }
        for (range, value) in [
            (HOT_SPOT_HCA, self.hot_spot_hca),
            (INCAST_TARGET, self.incast_target),
            (INCAST_SENDERS, self.incast_senders),
        ] {
            if let Some(v) = value {
                range.check_int(v)?;
            }
        }
        Ok(())
    }

    /// The destinations of best-effort messages among `hcas` HCAs, None for
    /// uniform ones; an HCA beyond the fabric is refused by key.
    pub fn destinations(&self, hcas: u32) -> Result<Option<crate::traffic::patterns::Pattern>> {
        use crate::traffic::patterns::Pattern;
        let hca = |key: &str, h: u32| {
            require(h < hcas, &format!("ib.workload.{key}"), h, &format!("an HCA of the fabric, 0 to {}", hcas - 1))
        };
        Ok(match self.pattern {
            IbPattern::Uniform => None,
            IbPattern::Shift => Some(Pattern::Shift),
            IbPattern::Permutation => Some(Pattern::Permutation),
            IbPattern::HotSpot => {
                let hot = self.hot_spot_hca.unwrap_or(0);
                hca("hot_spot_hca", hot)?;
                Some(Pattern::HotSpot { hot, share: self.hot_spot_share.unwrap_or(DEFAULT_HOT_SPOT_SHARE) })
            }
            IbPattern::Incast => {
                let target = self.incast_target.unwrap_or(0);
                hca("incast_target", target)?;
                let senders = self.incast_senders.unwrap_or(hcas - 1);
                require(
                    (1..hcas).contains(&senders),
                    "ib.workload.incast_senders",
                    senders,
                    &format!("1 to {} senders (the other HCAs)", hcas - 1),
                )?;
                Some(Pattern::Incast { target, senders })
            }
            IbPattern::Flows => {
                let pairs = self.flows.as_deref().unwrap_or_default();
                let key = "ib.workload.flows";
                require(!pairs.is_empty(), key, "[]", "one [source, destination] pair or more")?;
                let mut to = vec![Vec::new(); hcas as usize];
                for &[src, dst] in pairs {
                    let allowed = format!("HCAs of the fabric, 0 to {}, a source other than its destination", hcas - 1);
                    require(src < hcas && dst < hcas && src != dst, key, format!("[{src}, {dst}]"), &allowed)?;
                    require(!to[src as usize].contains(&dst), key, format!("[{src}, {dst}]"), "each pair once")?;
                    to[src as usize].push(dst);
                }
                Some(Pattern::Flows(to))
            }
        })
    }
}
