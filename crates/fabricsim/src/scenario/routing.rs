//! `[routing]`: how forwarding tables are built over a switched fabric, and
//! entries that replace computed ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::Range;
use super::topology::{MAX_NODES, MAX_SWITCHES};
use crate::error::Result;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrunkChoice {
    /// Destination nodes partitioned over parallel trunks as evenly as possible.
    Deterministic,
    /// A parallel trunk drawn uniformly for every frame.
    Randomized,
}

/// How deterministic routing gives destination nodes the parallel trunks of
/// a link. Each gives every trunk its even share of a destination switch's
/// nodes; they differ in how the trunks of successive links line up, which
/// seed 000 leaves open.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LaneAssignment {
    /// Node k of its switch takes trunk k mod m on every link: a frame keeps
    /// its trunk index hop after hop, so a transit switch acts as m separate
    /// switches, one per trunk index.
    Aligned,
    /// Seed 000's partition: the trunks into the destination's switch take
    /// contiguous blocks of its nodes (14 nodes: 7 and 7); splits made
    /// earlier on the way (over equally short next switches, then over
    /// trunks) take nodes in turn, so each trunk in transit feeds every
    /// trunk out.
    #[default]
    Partition,
    /// Nodes take trunks in turn on every link, shifted by one trunk per
    /// round on links before the last ((k + k div m) mod m).
    Staggered,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PathPolicy {
    /// Shortest switch paths; where several next switches are equally short,
    /// destination nodes are partitioned over them.
    Shortest,
    /// Envelope only: two-hop frames go clockwise round the ring (deadlocks).
    Clockwise,
    /// Envelope only: two-hop frames go through the central switch 5.
    Central,
    /// Among shortest-path choices, the split of destinations over next
    /// switches whose channel dependency graph is acyclic (deadlock-free) and
    /// whose busiest trunk carries the least uniform traffic (exhaustive search).
    Smart,
}

/// An entry replacing the computed forwarding table: at `switch`, frames for
/// terminal node `node` leave by one of `ports` (several = drawn per frame).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForwardingOverride {
    /// Switch (1-based) whose table entry is replaced.
    pub switch: u32,
    /// Destination terminal node of the entry.
    pub node: u32,
    /// Output ports for that node (several: one drawn per frame).
    pub ports: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingSpec {
    /// How a frame picks among parallel trunks to the next switch.
    pub trunk_choice: TrunkChoice,
    /// Deterministic trunk choice only: how destination nodes are given the
    /// parallel trunks of each link (default "partition", seed 000's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lane_assignment: Option<LaneAssignment>,
    /// Which switch paths frames take.
    pub paths: PathPolicy,
    /// Forwarding-table entries that replace computed ones (`[[routing.override]]`).
    #[serde(rename = "override", skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<ForwardingOverride>,
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec {
            trunk_choice: TrunkChoice::Deterministic,
            lane_assignment: None,
            paths: PathPolicy::Shortest,
            overrides: Vec::new(),
        }
    }
}

pub const OVERRIDE_SWITCH: Range =
    Range::int("routing.override.switch", 1, MAX_SWITCHES).note("a switch of the fabric");
pub const OVERRIDE_NODE: Range =
    Range::int("routing.override.node", 0, MAX_NODES - 1).note("a terminal node of the fabric");
pub const OVERRIDE_PORTS: Range =
    Range::int_list("routing.override.ports", 0, 255).note("ports of the switch, at least one");

pub const RANGES: &[Range] = &[OVERRIDE_SWITCH, OVERRIDE_NODE, OVERRIDE_PORTS];

impl RoutingSpec {
    /// Bounds the numbers of every override; whether the switch, node and
    /// ports exist is checked against the fabric when it is built.
    pub fn validate(&self) -> Result<()> {
        if let (TrunkChoice::Randomized, Some(lanes)) = (self.trunk_choice, self.lane_assignment) {
            return Err(crate::error::Error::invalid(
                "routing.lane_assignment",
                format!("\"{}\"", lanes.name()),
                "only with routing.trunk_choice = \"deterministic\" (randomized draws a trunk per frame)",
            ));
        }
        for (i, o) in self.overrides.iter().enumerate() {
            let key = |f: &str| format!("routing.override[{i}].{f}");
            OVERRIDE_SWITCH.check_int_at(&key("switch"), o.switch)?;
            OVERRIDE_NODE.check_int_at(&key("node"), o.node)?;
            if o.ports.len() > 256 || o.ports.iter().any(|&p| p > 255) {
                return Err(crate::error::Error::invalid(
                    &key("ports"),
                    format!("{:?}", o.ports),
                    OVERRIDE_PORTS.allowed(),
                ));
            }
        }
        Ok(())
    }
}

impl LaneAssignment {
    pub fn name(self) -> &'static str {
        match self {
            LaneAssignment::Aligned => "aligned",
            LaneAssignment::Partition => "partition",
            LaneAssignment::Staggered => "staggered",
        }
    }
}
