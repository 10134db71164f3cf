//! The scenario schema: one serde description shared by the CLI, Python
//! and Rust tests. Unknown keys are rejected (`deny_unknown_fields`); every
//! default is written here once and shows up in the normalized scenario.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label carried into results.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub run: RunPlan,
    #[serde(default)]
    pub fabric: FabricSpec,
    #[serde(default)]
    pub routing: RoutingSpec,
    #[serde(default)]
    pub switch: SwitchSpec,
    #[serde(default)]
    pub link: LinkSpec,
    #[serde(default)]
    pub protocol: ProtocolSpec,
    #[serde(default)]
    pub workload: WorkloadSpec,
    /// The arbitrated loop (`fabric.kind = "loop"` only), TOML key `loop`.
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    pub arbitrated_loop: Option<super::loop_schema::LoopSpec>,
    /// Disk groups on the loop, in ring order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disks: Option<Vec<super::loop_schema::DiskGroupSpec>>,
    /// The loop's host adapter and its I/O workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiator: Option<super::loop_schema::InitiatorSpec>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: String::new(),
            description: String::new(),
            run: RunPlan::default(),
            fabric: FabricSpec::default(),
            routing: RoutingSpec::default(),
            switch: SwitchSpec::default(),
            link: LinkSpec::default(),
            protocol: ProtocolSpec::default(),
            workload: WorkloadSpec::default(),
            arbitrated_loop: None,
            disks: None,
            initiator: None,
        }
    }
}

/// The measurement plan: warm-up deletion, batch means and the stop rule.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RunPlan {
    /// Master seed of every random stream.
    pub seed: u64,
    /// Data frames delivered before statistics are reset (warm-up deletion).
    pub warmup_frames: u64,
    /// Stop after this many data frames delivered past warm-up.
    pub max_frames: u64,
    /// Never stop on precision before this many data frames past warm-up
    /// (unset: 50000, or `max_frames` if that is smaller).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_frames: Option<u64>,
    /// Stop once every headline 95% confidence interval is within ±precision
    /// of its mean (0.01 = ±1%, as in the HP study); 0 runs to `max_frames`.
    pub precision: f64,
    /// Target number of batches for batch means (between this and twice this are kept).
    pub batches: u32,
    /// Safety cap on simulated time, in milliseconds.
    pub max_time_ms: f64,
    /// After stopping, stop new messages and run until the fabric is empty,
    /// so the counters show every injected frame delivered (conservation).
    pub drain: bool,
}

impl RunPlan {
    /// The minimum number of measured frames in force.
    pub fn effective_min_frames(&self) -> u64 {
        self.min_frames.unwrap_or(self.max_frames.min(50_000))
    }
}

impl Default for RunPlan {
    fn default() -> Self {
        RunPlan {
            seed: 1,
            warmup_frames: 20_000,
            max_frames: 1_000_000,
            min_frames: None,
            precision: 0.01,
            batches: 32,
            max_time_ms: 1.0e7,
            drain: false,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FabricKind {
    /// One switch with one terminal node on every port.
    Switch,
    /// A Fibre Channel arbitrated loop of an initiator and disks (`[loop]`, `[[disks]]`, `[initiator]`).
    Loop,
    /// Seed 000 Fig. 7/10/12/24: switches 1-4 joined to hub switch 5 by `multiplicity` trunks each.
    Star,
    /// Seed 000 Fig. 15/17: switches 1-4 a square with both diagonals, switch 5 the roof over 1 and 2.
    House,
    /// Seed 000 Fig. 19/21: the ring 1-2-3-4 with switch 5 joined to all four.
    Envelope,
    /// Seed 000 sections 4.3 and 5: one trunk between every pair of `switches` switches.
    Complete,
    /// Any fabric: `nodes` per switch and `trunks` between pairs.
    Custom,
}

/// The fabric's shape. Switch numbers are 1-based, as in the study's figures;
/// terminal nodes are numbered from 0, switch 1's nodes first.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FabricSpec {
    pub kind: FabricKind,
    /// Parallel trunks between joined switches (star, house, envelope).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiplicity: Option<u32>,
    /// Number of switches (complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switches: Option<u32>,
    /// Terminal nodes on each switch, in switch order (custom; for built-in
    /// shapes it overrides the study's counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
    /// Trunks as [switch a, switch b, multiplicity] (custom).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trunks: Option<Vec<[u32; 3]>>,
}

impl Default for FabricSpec {
    fn default() -> Self {
        FabricSpec { kind: FabricKind::Switch, multiplicity: None, switches: None, nodes: None, trunks: None }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TrunkChoice {
    /// Destination nodes partitioned over parallel trunks as evenly as possible.
    Deterministic,
    /// A parallel trunk drawn uniformly for every frame.
    Randomized,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PathPolicy {
    /// Shortest switch paths; where several next switches are equally short,
    /// destination nodes are partitioned over them.
    Shortest,
    /// Envelope only: two-hop frames go clockwise round the ring (deadlocks).
    Clockwise,
    /// Envelope only: two-hop frames go through the central switch 5.
    Central,
    /// One next switch per pair, chosen to balance channel load under uniform
    /// traffic with an acyclic channel dependency graph (deadlock-free).
    Smart,
}

/// An entry replacing the computed forwarding table: at `switch`, frames for
/// terminal node `node` leave by one of `ports` (several = drawn per frame).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ForwardingOverride {
    pub switch: u32,
    pub node: u32,
    pub ports: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingSpec {
    pub trunk_choice: TrunkChoice,
    pub paths: PathPolicy,
    #[serde(rename = "override", skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<ForwardingOverride>,
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec { trunk_choice: TrunkChoice::Deterministic, paths: PathPolicy::Shortest, overrides: Vec::new() }
    }
}

/// The Fibre Channel switch of the HP study (seed 000, section 2).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSpec {
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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkSpec {
    /// Data rate of every port and fibre, in MB/s (10^6 bytes per second).
    pub bandwidth_mb_s: f64,
    /// One-way propagation delay of every fibre.
    pub propagation_ns: f64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec { bandwidth_mb_s: 26.6, propagation_ns: 0.0 }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ProtocolSpec {
    /// Fibre Channel class of service: 1 (dedicated connection per message),
    /// 2 (acknowledged datagrams) or 3 (unacknowledged datagrams).
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

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
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

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// Poisson message arrivals at the rate that makes `offered_load`.
    Poisson,
    /// Every source always has a message waiting: measures saturation throughput.
    Saturated,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadSpec {
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
    pub arrivals: Arrivals,
    /// Offered load per source as a fraction of port bandwidth (full data frames).
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

/// Message length distribution, in full frames.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MessageSizes {
    /// Every message has `frames` frames (1 = the study's uniform random traffic).
    Fixed {
        #[serde(default = "one")]
        frames: u32,
    },
    /// The study's bursty workload: short messages of `short_min_frames` to
    /// `short_max_frames` frames (equally likely) and long ones of `long_frames`.
    Bimodal {
        #[serde(default = "ten_percent")]
        long_fraction: f64,
        #[serde(default = "one")]
        short_min_frames: u32,
        #[serde(default = "five")]
        short_max_frames: u32,
        #[serde(default = "twenty_five")]
        long_frames: u32,
    },
}

fn one() -> u32 {
    1
}
fn five() -> u32 {
    5
}
fn twenty_five() -> u32 {
    25
}
fn ten_percent() -> f64 {
    0.1
}

impl Default for MessageSizes {
    fn default() -> Self {
        MessageSizes::Fixed { frames: 1 }
    }
}

impl MessageSizes {
    /// Mean message length in frames.
    pub fn mean_frames(&self) -> f64 {
        match *self {
            MessageSizes::Fixed { frames } => frames as f64,
            MessageSizes::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                let short = (short_min_frames + short_max_frames) as f64 / 2.0;
                (1.0 - long_fraction) * short + long_fraction * long_frames as f64
            }
        }
    }
}
