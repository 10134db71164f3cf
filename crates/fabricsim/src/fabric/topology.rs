//! Fabric shapes: how many terminal nodes each switch has and which
//! switches are joined by how many trunks, with the seed's built-in
//! topologies and validation of user-defined ones.

use crate::error::{Error, Result};
use crate::scenario::{TopologyKind, TopologySpec};

/// What a switch port is wired to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortUse {
    /// Lane `lane` of the trunk to switch `to` (0-based).
    Trunk { to: u32, lane: u32 },
    /// Terminal node `n`.
    Node(u32),
    /// Not connected.
    Free,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Terminal nodes on each switch.
    pub nodes: Vec<u32>,
    /// Trunk groups (switch a, switch b, multiplicity), 0-based, a < b.
    pub trunks: Vec<(u32, u32, u32)>,
    /// Ports per switch.
    pub ports: u32,
}

/// The house of seed 000 Fig. 15 (1-based): the square 1-2-4-3 with both
/// diagonals and the roof 1-5-2. Its port budget (12, 12, 13, 13, 14 nodes
/// with single trunks) admits only this graph.
const HOUSE: [(u32, u32); 8] = [(1, 2), (1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5), (3, 4)];
/// The envelope of seed 000 Fig. 19 (1-based): the ring 1-2-3-4 and switch 5 joined to each.
const ENVELOPE: [(u32, u32); 8] = [(1, 2), (2, 3), (3, 4), (1, 4), (1, 5), (2, 5), (3, 5), (4, 5)];

impl Topology {
    /// The fabric a scenario describes; `ports` is the port count of every switch.
    pub fn from_spec(spec: &TopologySpec, ports: u32) -> Result<Topology> {
        let need = |key: &str, ok: bool, value: String, allowed: &str| -> Result<()> {
            if ok {
                Ok(())
            } else {
                Err(Error::invalid(key, value, allowed))
            }
        };
        let forbid = |key: &str, present: bool| -> Result<()> {
            need(
                key,
                !present,
                "given".into(),
                &format!("not used with topology.kind = \"{:?}\"", spec.kind).to_lowercase(),
            )
        };
        let mult = |default: u32| spec.multiplicity.unwrap_or(default);
        let pairs = |edges: &[(u32, u32)], m: u32| edges.iter().map(|&(a, b)| (a - 1, b - 1, m)).collect::<Vec<_>>();
        let mut topo = match spec.kind {
            TopologyKind::Switch => {
                forbid("topology.multiplicity", spec.multiplicity.is_some())?;
                forbid("topology.switches", spec.switches.is_some())?;
                forbid("topology.trunks", spec.trunks.is_some())?;
                Topology { nodes: vec![ports], trunks: vec![], ports }
            }
            TopologyKind::Star => {
                forbid("topology.switches", spec.switches.is_some())?;
                forbid("topology.trunks", spec.trunks.is_some())?;
                let m = mult(2);
                need(
                    "topology.multiplicity",
                    (1..=4).contains(&m),
                    m.to_string(),
                    "1 to 4 for a star of 16-port switches",
                )?;
                let trunks = (0..4).map(|s| (s, 4, m)).collect();
                Topology { nodes: vec![0; 5], trunks, ports }
            }
            TopologyKind::House => {
                forbid("topology.switches", spec.switches.is_some())?;
                forbid("topology.trunks", spec.trunks.is_some())?;
                Topology { nodes: vec![0; 5], trunks: pairs(&HOUSE, mult(1)), ports }
            }
            TopologyKind::Envelope => {
                forbid("topology.switches", spec.switches.is_some())?;
                forbid("topology.trunks", spec.trunks.is_some())?;
                Topology { nodes: vec![0; 5], trunks: pairs(&ENVELOPE, mult(1)), ports }
            }
            TopologyKind::Complete => {
                forbid("topology.trunks", spec.trunks.is_some())?;
                let n = spec.switches.unwrap_or(5);
                need("topology.switches", (2..=ports).contains(&n), n.to_string(), &format!("2 to {ports} switches"))?;
                let m = mult(1);
                let trunks = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b, m))).collect();
                Topology { nodes: vec![0; n as usize], trunks, ports }
            }
            TopologyKind::Custom => {
                forbid("topology.multiplicity", spec.multiplicity.is_some())?;
                forbid("topology.switches", spec.switches.is_some())?;
                let nodes = spec.nodes.clone().ok_or_else(|| {
                    Error::invalid("topology.nodes", "missing", "terminal nodes per switch, e.g. [12, 12, 12]")
                })?;
                need("topology.nodes", !nodes.is_empty(), "[]".into(), "at least one switch")?;
                let n = nodes.len() as u32;
                let mut trunks = Vec::new();
                for (i, t) in spec.trunks.clone().unwrap_or_default().iter().enumerate() {
                    let key = format!("topology.trunks[{i}]");
                    let [a, b, m] = *t;
                    need(
                        &key,
                        a >= 1 && a <= n && b >= 1 && b <= n,
                        format!("{t:?}"),
                        &format!("switch numbers from 1 to {n}"),
                    )?;
                    need(&key, a != b, format!("{t:?}"), "two different switches")?;
                    need(&key, m >= 1, format!("{t:?}"), "a multiplicity of at least 1")?;
                    let (a, b) = (a.min(b) - 1, a.max(b) - 1);
                    need(
                        &key,
                        !trunks.iter().any(|&(x, y, _)| (x, y) == (a, b)),
                        format!("{t:?}"),
                        "each pair of switches once",
                    )?;
                    trunks.push((a, b, m));
                }
                Topology { nodes, trunks, ports }
            }
        };
        if !matches!(spec.kind, TopologyKind::Switch | TopologyKind::Custom) {
            // Built-in shapes fill every port left after the trunks, as the study does.
            let default_nodes: Vec<u32> =
                (0..topo.nodes.len() as u32).map(|s| ports.saturating_sub(topo.trunk_ports(s))).collect();
            topo.nodes = match &spec.nodes {
                Some(n) => {
                    need(
                        "topology.nodes",
                        n.len() == default_nodes.len(),
                        format!("{n:?}"),
                        &format!("{} counts, one per switch", default_nodes.len()),
                    )?;
                    n.clone()
                }
                None => default_nodes,
            };
        }
        topo.validate()?;
        Ok(topo)
    }

    pub fn switch_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn node_count(&self) -> u32 {
        self.nodes.iter().sum()
    }

    /// Trunk ports used on switch `s`.
    pub fn trunk_ports(&self, s: u32) -> u32 {
        self.trunks.iter().filter(|&&(a, b, _)| a == s || b == s).map(|&(_, _, m)| m).sum()
    }

    /// Trunk multiplicity between switches `a` and `b` (0 if not joined).
    pub fn multiplicity(&self, a: u32, b: u32) -> u32 {
        let (x, y) = (a.min(b), a.max(b));
        self.trunks.iter().find(|&&(p, q, _)| (p, q) == (x, y)).map(|&(_, _, m)| m).unwrap_or(0)
    }

    /// Switches joined to `s`, in increasing order.
    pub fn neighbours(&self, s: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .trunks
            .iter()
            .filter_map(|&(a, b, _)| {
                if a == s {
                    Some(b)
                } else if b == s {
                    Some(a)
                } else {
                    None
                }
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// Switch of every terminal node (nodes numbered switch by switch).
    pub fn node_switch(&self) -> Vec<u32> {
        self.nodes.iter().enumerate().flat_map(|(s, &n)| std::iter::repeat_n(s as u32, n as usize)).collect()
    }

    /// First node number on each switch.
    pub fn first_node(&self) -> Vec<u32> {
        let mut first = Vec::with_capacity(self.nodes.len());
        let mut acc = 0;
        for &n in &self.nodes {
            first.push(acc);
            acc += n;
        }
        first
    }

    /// Port assignment of every switch: trunks first (by neighbour, then
    /// lane), then terminal nodes, then free ports.
    pub fn port_map(&self) -> Vec<Vec<PortUse>> {
        let first = self.first_node();
        (0..self.nodes.len() as u32)
            .map(|s| {
                let mut ports = Vec::with_capacity(self.ports as usize);
                for t in self.neighbours(s) {
                    for lane in 0..self.multiplicity(s, t) {
                        ports.push(PortUse::Trunk { to: t, lane });
                    }
                }
                for k in 0..self.nodes[s as usize] {
                    ports.push(PortUse::Node(first[s as usize] + k));
                }
                ports.resize(self.ports as usize, PortUse::Free);
                ports
            })
            .collect()
    }

    /// Hop counts between switches (breadth-first search).
    pub fn distances(&self) -> Vec<Vec<u32>> {
        let n = self.nodes.len();
        let adj: Vec<Vec<u32>> = (0..n as u32).map(|s| self.neighbours(s)).collect();
        (0..n)
            .map(|src| {
                let mut d = vec![u32::MAX; n];
                d[src] = 0;
                let mut queue = std::collections::VecDeque::from([src as u32]);
                while let Some(u) = queue.pop_front() {
                    for &v in &adj[u as usize] {
                        if d[v as usize] == u32::MAX {
                            d[v as usize] = d[u as usize] + 1;
                            queue.push_back(v);
                        }
                    }
                }
                d
            })
            .collect()
    }

    /// Port budget per switch and connectivity.
    pub fn validate(&self) -> Result<()> {
        for s in 0..self.nodes.len() as u32 {
            let used = self.trunk_ports(s) + self.nodes[s as usize];
            if used > self.ports {
                return Err(Error::invalid(
                    "fabric",
                    format!(
                        "switch {} with {} trunk ports and {} nodes",
                        s + 1,
                        self.trunk_ports(s),
                        self.nodes[s as usize]
                    ),
                    format!("at most {} ports per switch (switch.ports)", self.ports),
                ));
            }
        }
        if self.node_count() < 2 {
            return Err(Error::invalid("topology.nodes", self.node_count(), "at least 2 terminal nodes in the fabric"));
        }
        let d = self.distances();
        if let Some(s) = d[0].iter().position(|&x| x == u32::MAX) {
            return Err(Error::invalid(
                "topology.trunks",
                format!("switch {} unreachable from switch 1", s + 1),
                "a connected fabric",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: TopologyKind, multiplicity: Option<u32>, switches: Option<u32>) -> TopologySpec {
        TopologySpec { kind, multiplicity, switches, nodes: None, trunks: None }
    }

    fn nodes(kind: TopologyKind, m: Option<u32>, n: Option<u32>) -> Vec<u32> {
        Topology::from_spec(&spec(kind, m, n), 16).unwrap().nodes
    }

    #[test]
    fn node_counts_match_the_study() {
        assert_eq!(nodes(TopologyKind::Star, Some(2), None), vec![14, 14, 14, 14, 8]); // 64
        assert_eq!(nodes(TopologyKind::Star, Some(3), None), vec![13, 13, 13, 13, 4]); // 56
        assert_eq!(nodes(TopologyKind::Star, Some(4), None), vec![12, 12, 12, 12, 0]); // 48
        assert_eq!(nodes(TopologyKind::Star, Some(1), None), vec![15, 15, 15, 15, 12]);
        assert_eq!(nodes(TopologyKind::House, Some(1), None), vec![12, 12, 13, 13, 14]); // 64
        assert_eq!(nodes(TopologyKind::House, Some(2), None), vec![8, 8, 10, 10, 12]); // 48
        assert_eq!(nodes(TopologyKind::Envelope, Some(1), None), vec![13, 13, 13, 13, 12]); // 64
        assert_eq!(nodes(TopologyKind::Envelope, Some(2), None).iter().sum::<u32>(), 48);
        let complete: Vec<u32> = (5..=11).map(|n| nodes(TopologyKind::Complete, None, Some(n)).iter().sum()).collect();
        assert_eq!(complete, vec![60, 66, 70, 72, 72, 70, 66]);
    }

    #[test]
    fn custom_fabric_is_checked() {
        let mut s = spec(TopologyKind::Custom, None, None);
        s.nodes = Some(vec![15, 15]);
        s.trunks = Some(vec![[1, 2, 2]]);
        let e = Topology::from_spec(&s, 16).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("fabric"), "{e}");
        s.trunks = Some(vec![[1, 3, 1]]);
        let e = Topology::from_spec(&s, 16).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.trunks[0]"), "{e}");
        s.nodes = Some(vec![10, 10, 10]);
        s.trunks = Some(vec![[1, 2, 1]]);
        let e = Topology::from_spec(&s, 16).unwrap_err();
        assert!(e.to_string().contains("unreachable"), "{e}");
        s.trunks = Some(vec![[1, 2, 1], [3, 2, 2]]);
        let t = Topology::from_spec(&s, 16).unwrap();
        assert_eq!(t.multiplicity(2, 1), 2);
        assert_eq!(t.distances()[0][2], 2);
    }

    #[test]
    fn ports_are_trunks_then_nodes() {
        let t = Topology::from_spec(&spec(TopologyKind::Star, Some(2), None), 16).unwrap();
        let map = t.port_map();
        assert_eq!(map[0][0], PortUse::Trunk { to: 4, lane: 0 });
        assert_eq!(map[0][1], PortUse::Trunk { to: 4, lane: 1 });
        assert_eq!(map[0][2], PortUse::Node(0));
        assert_eq!(map[4][7], PortUse::Trunk { to: 3, lane: 1 });
        assert_eq!(map[4][8], PortUse::Node(56));
    }
}
