//! `[topology]`: the shape of a switched fabric. Switch numbers are
//! 1-based, as in seed 000's figures; terminal nodes are numbered from 0,
//! switch 1's nodes first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// One switch with one terminal node on every port.
    Switch,
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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TopologySpec {
    /// The shape: one switch, or seed 000's cascaded fabrics, or `custom`.
    pub kind: TopologyKind,
    /// Parallel trunks between joined switches (star, house, envelope);
    /// default: star 2, house and envelope 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiplicity: Option<u32>,
    /// Number of switches of a complete fabric (default 5).
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

impl Default for TopologySpec {
    fn default() -> Self {
        TopologySpec { kind: TopologyKind::Switch, multiplicity: None, switches: None, nodes: None, trunks: None }
    }
}
