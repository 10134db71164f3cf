//! `[topology]`: the shape of a switched fabric. Switch numbers are
//! 1-based, as in seed 000's figures; terminal nodes are numbered from 0,
//! switch 1's nodes first.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::Result;

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

/// Switches in one fabric: Fibre Channel has 239 domain IDs.
pub const MAX_SWITCHES: u64 = 239;
/// Terminal nodes in one fabric: every node keeps per-destination state
/// (end-to-end credit), so the model grows with the square of this.
pub const MAX_NODES: u64 = 4096;

pub const MULTIPLICITY: Range = Range::int("topology.multiplicity", 1, 256).note("within switch.ports");
pub const SWITCHES: Range =
    Range::int("topology.switches", 2, MAX_SWITCHES).note("239 Fibre Channel domain IDs; within switch.ports");
pub const NODES: Range = Range::int_list("topology.nodes", 0, 256)
    .note("one count per switch, at most 239 switches and 4096 nodes in all, within switch.ports");
pub const TRUNKS: Range = Range::int_list("topology.trunks", 1, 256).text(
    "a list of [switch a, switch b, multiplicity]: two different switches from 1 to the number of switches, \
     each pair once, multiplicity 1 to 256, within switch.ports",
);

pub const RANGES: &[Range] = &[MULTIPLICITY, SWITCHES, NODES, TRUNKS];

impl TopologySpec {
    /// Bounds every count and checks, in 64-bit sums that cannot wrap, that
    /// trunks and nodes fit the switches' `ports` and that the fabric stays
    /// within [`MAX_NODES`]. Which switches a built-in shape joins is checked
    /// when the fabric is built.
    pub fn validate(&self, ports: u32) -> Result<()> {
        if let Some(m) = self.multiplicity {
            MULTIPLICITY.check_int(m)?;
        }
        if let Some(n) = self.switches {
            SWITCHES.check_int(n)?;
        }
        if let Some(nodes) = &self.nodes {
            let n = nodes.len() as u64;
            require((1..=MAX_SWITCHES).contains(&n), "topology.nodes", format!("{n} switches"), &NODES.allowed())?;
            NODES.check_list(nodes)?;
        }
        let switches = match self.kind {
            TopologyKind::Custom => self.nodes.as_ref().map_or(MAX_SWITCHES, |n| n.len() as u64),
            TopologyKind::Complete => self.switches.unwrap_or(5) as u64,
            _ => 5,
        };
        // Other shapes refuse `trunks` when the fabric is built.
        if let (TopologyKind::Custom, Some(trunks)) = (self.kind, &self.trunks) {
            let mut seen = HashSet::new();
            for (i, &[a, b, m]) in trunks.iter().enumerate() {
                let key = format!("topology.trunks[{i}]");
                let t = format!("[{a}, {b}, {m}]");
                let sw = |x: u32| (1..=switches).contains(&(x as u64));
                require(sw(a) && sw(b) && a != b && (1..=256).contains(&m), &key, &t, TRUNKS.text)?;
                require(seen.insert((a.min(b), a.max(b))), &key, &t, "each pair of switches once")?;
            }
        }
        let ports = ports as u64;
        let budget = |s: u64, trunk_ports: u64, nodes: u64, key: &str| {
            require(
                trunk_ports + nodes <= ports,
                key,
                format!("switch {s} with {trunk_ports} trunk ports and {nodes} nodes"),
                &format!("at most {ports} ports per switch (switch.ports)"),
            )
        };
        let total_nodes: u64 = match self.kind {
            TopologyKind::Custom => {
                let nodes = self.nodes.as_deref().unwrap_or_default();
                for (s, &n) in nodes.iter().enumerate() {
                    let s = s as u64 + 1;
                    let trunk_ports: u64 = self
                        .trunks
                        .iter()
                        .flatten()
                        .filter(|t| t[0] as u64 == s || t[1] as u64 == s)
                        .map(|t| t[2] as u64)
                        .sum();
                    budget(s, trunk_ports, n as u64, "topology.trunks")?;
                }
                nodes.iter().map(|&n| n as u64).sum()
            }
            TopologyKind::Complete => {
                let trunk_ports = (switches - 1) * self.multiplicity.unwrap_or(1) as u64;
                let key = if self.multiplicity.is_some() { "topology.multiplicity" } else { "topology.switches" };
                match &self.nodes {
                    Some(nodes) => {
                        for (s, &n) in nodes.iter().enumerate() {
                            budget(s as u64 + 1, trunk_ports, n as u64, key)?;
                        }
                        nodes.iter().map(|&n| n as u64).sum()
                    }
                    None => {
                        budget(1, trunk_ports, 0, key)?;
                        switches * (ports - trunk_ports)
                    }
                }
            }
            TopologyKind::Switch => ports,
            // Five switches of at most 256 nodes each.
            _ => self.nodes.iter().flatten().map(|&n| n as u64).sum(),
        };
        require(
            total_nodes <= MAX_NODES,
            "topology.nodes",
            format!("{total_nodes} terminal nodes"),
            &format!("at most {MAX_NODES} terminal nodes in the fabric"),
        )
    }
}
