//! Forwarding tables: for every switch and terminal node, the output ports a
//! frame for that node may leave by. One port is a deterministic route;
//! several are drawn from uniformly per frame (randomized trunk choice).
//!
//! Routes follow shortest switch paths. Where a switch has several trunks to
//! the next switch (or several equally short next switches), deterministic
//! routing partitions the destination nodes over them as evenly as possible:
//! 13 nodes over 3 trunks go 5, 4, 4, the study's example of an unbalanced
//! split. Next switches take contiguous blocks of destinations and parallel
//! trunks take them in turn, so a block arriving in transit stays balanced. The envelope's named policies and the "smart" search choose the
//! next switch per (switch, destination switch) pair instead.

use serde::Serialize;

use super::deadlock::{link_graph_is_acyclic, SwitchLink};
use super::topology::{PortUse, Topology};
use crate::error::{Error, Result};
use crate::scenario::{PathPolicy, RoutingSpec, TopologyKind, TrunkChoice};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ForwardingTables {
    /// `ports[s][n]`: output ports of switch `s` towards terminal node `n`.
    pub ports: Vec<Vec<Vec<u16>>>,
}

/// Splits `n` items into `parts` contiguous blocks as evenly as possible
/// (larger blocks first) and returns the block of item `k`.
pub fn block_of(k: u32, n: u32, parts: u32) -> u32 {
    let small = n / parts;
    let big = n % parts; // this many blocks hold small + 1
    let cut = big * (small + 1);
    if k < cut {
        k / (small + 1)
    } else {
        big + (k - cut) / small.max(1)
    }
}

/// Largest number of combinations the smart search tries exhaustively.
const SMART_SEARCH_LIMIT: u64 = 1 << 20;

impl ForwardingTables {
    pub fn build(topo: &Topology, kind: TopologyKind, routing: &RoutingSpec) -> Result<Self> {
        let n_sw = topo.switch_count();
        let map = topo.port_map();
        let node_switch = topo.node_switch();
        let first = topo.first_node();
        let dist = topo.distances();
        // lanes[s][t]: ports of switch s on trunks to switch t.
        let mut lanes = vec![vec![Vec::<u16>::new(); n_sw]; n_sw];
        let mut node_port = vec![0u16; node_switch.len()];
        for (s, ports) in map.iter().enumerate() {
            for (p, u) in ports.iter().enumerate() {
                match *u {
                    PortUse::Trunk { to, .. } => lanes[s][to as usize].push(p as u16),
                    PortUse::Node(n) => node_port[n as usize] = p as u16,
                    PortUse::Free => {}
                }
            }
        }
        let candidates = |s: usize, d: usize| -> Vec<u32> {
            topo.neighbours(s as u32).into_iter().filter(|&t| dist[t as usize][d] + 1 == dist[s][d]).collect()
        };
        let ring_policy = matches!(routing.paths, PathPolicy::Clockwise | PathPolicy::Central);
        if ring_policy && kind != TopologyKind::Envelope {
            return Err(Error::invalid(
                "routing.paths",
                format!("{:?}", routing.paths).to_lowercase(),
                "\"clockwise\" and \"central\" only with topology.kind = \"envelope\"; otherwise \"shortest\" or \"smart\"",
            ));
        }
        // next[s][d]: the next switches a policy allows (destination nodes are
        // partitioned over them), or None for every shortest candidate.
        let mut next: Vec<Vec<Option<Vec<u32>>>> = vec![vec![None; n_sw]; n_sw];
        match routing.paths {
            PathPolicy::Shortest => {}
            PathPolicy::Clockwise | PathPolicy::Central => {
                for s in 0..4usize {
                    let opposite = (s + 2) % 4;
                    next[s][opposite] =
                        Some(vec![if routing.paths == PathPolicy::Clockwise { ((s + 1) % 4) as u32 } else { 4 }]);
                }
            }
            PathPolicy::Smart => next = smart_next_hops(topo, &dist, &candidates)?,
        }
        let mut ports = vec![vec![Vec::new(); node_switch.len()]; n_sw];
        for s in 0..n_sw {
            for d in 0..n_sw {
                let nodes_d = topo.nodes[d];
                if s == d {
                    for k in 0..nodes_d {
                        let n = (first[d] + k) as usize;
                        ports[s][n] = vec![node_port[n]];
                    }
                    continue;
                }
                let cands = match &next[s][d] {
                    Some(subset) => subset.clone(),
                    None => candidates(s, d),
                };
                // Destination nodes of d are split over the next switches, then
                // each group over that switch's parallel trunks.
                let groups: Vec<Vec<u32>> = (0..cands.len() as u32)
                    .map(|c| (0..nodes_d).filter(|&k| block_of(k, nodes_d, cands.len() as u32) == c).collect())
                    .collect();
                for (c, group) in groups.iter().enumerate() {
                    let trunk = &lanes[s][cands[c] as usize];
                    for &k in group {
                        let n = (first[d] + k) as usize;
                        // Lanes take destination nodes in turn (k mod lanes): as
                        // even as possible, and a block of destinations that
                        // reaches this switch in transit is spread evenly too.
                        ports[s][n] = match routing.trunk_choice {
                            TrunkChoice::Randomized => trunk.clone(),
                            TrunkChoice::Deterministic => vec![trunk[k as usize % trunk.len()]],
                        };
                    }
                }
            }
        }
        let mut tables = ForwardingTables { ports };
        tables.apply_overrides(topo, &map, routing)?;
        Ok(tables)
    }

    fn apply_overrides(&mut self, topo: &Topology, map: &[Vec<PortUse>], routing: &RoutingSpec) -> Result<()> {
        for (i, o) in routing.overrides.iter().enumerate() {
            let key = format!("routing.override[{i}]");
            let n_sw = topo.switch_count() as u32;
            if o.switch < 1 || o.switch > n_sw {
                return Err(Error::invalid(&format!("{key}.switch"), o.switch, format!("a switch from 1 to {n_sw}")));
            }
            if o.node >= topo.node_count() {
                return Err(Error::invalid(
                    &format!("{key}.node"),
                    o.node,
                    format!("a node below {}", topo.node_count()),
                ));
            }
            let s = (o.switch - 1) as usize;
            if o.ports.is_empty() {
                return Err(Error::invalid(&format!("{key}.ports"), "[]", "at least one port"));
            }
            for &p in &o.ports {
                let ok = (p as usize) < map[s].len()
                    && match map[s][p as usize] {
                        PortUse::Trunk { .. } => true,
                        PortUse::Node(n) => n == o.node,
                        PortUse::Free => false,
                    };
                if !ok {
                    return Err(Error::invalid(
                        &format!("{key}.ports"),
                        p,
                        format!(
                            "a trunk port of switch {} or the port of node {} (see `fabricsim routing`)",
                            o.switch, o.node
                        ),
                    ));
                }
            }
            self.ports[s][o.node as usize] = o.ports.iter().map(|&p| p as u16).collect();
        }
        Ok(())
    }
}

/// Chooses, for every (switch, destination switch) pair with several
/// shortest next switches, the subset of them its destination nodes are
/// split over: the choice whose switch-level channel dependency graph is
/// acyclic and whose busiest link carries the least uniform all-to-all
/// traffic (ties: least sum of squared loads, then the first found).
/// Exhaustive, so limited to small fabrics.
fn smart_next_hops(
    topo: &Topology,
    dist: &[Vec<u32>],
    candidates: &dyn Fn(usize, usize) -> Vec<u32>,
) -> Result<Vec<Vec<Option<Vec<u32>>>>> {
    let n = topo.switch_count();
    let mut next: Vec<Vec<Option<Vec<u32>>>> = vec![vec![None; n]; n];
    // Each open pair's options: every non-empty subset of its candidates.
    let mut choices: Vec<(usize, usize, Vec<Vec<u32>>)> = Vec::new();
    for s in 0..n {
        for d in 0..n {
            if s == d {
                continue;
            }
            let c = candidates(s, d);
            if c.len() == 1 {
                next[s][d] = Some(c);
            } else {
                let subsets = (1u32..(1 << c.len()))
                    .map(|mask| c.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &t)| t).collect())
                    .collect();
                choices.push((s, d, subsets));
            }
        }
    }
    let combos: u64 =
        choices.iter().map(|c| c.2.len() as u64).try_fold(1u64, |a, b| a.checked_mul(b)).unwrap_or(u64::MAX);
    if combos > SMART_SEARCH_LIMIT {
        return Err(Error::invalid(
            "routing.paths",
            "smart",
            format!(
                "fabrics with at most {SMART_SEARCH_LIMIT} path combinations (this one has {combos}); use \"shortest\""
            ),
        ));
    }
    let mut best: Option<((f64, f64), Vec<usize>)> = None;
    let mut pick = vec![0usize; choices.len()];
    for _ in 0..combos {
        for (i, (s, d, c)) in choices.iter().enumerate() {
            next[*s][*d] = Some(c[pick[i]].clone());
        }
        if let Some(score) = score_routing(topo, dist, &next) {
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, pick.clone()));
            }
        }
        // Odometer increment over the choice lists.
        for (i, (_, _, c)) in choices.iter().enumerate() {
            pick[i] += 1;
            if pick[i] < c.len() {
                break;
            }
            pick[i] = 0;
        }
    }
    let Some((_, pick)) = best else {
        return Err(Error::invalid("routing.paths", "smart", "a fabric with a deadlock-free shortest-path routing"));
    };
    for (i, (s, d, c)) in choices.iter().enumerate() {
        next[*s][*d] = Some(c[pick[i]].clone());
    }
    Ok(next)
}

/// (max load per trunk, sum of squared loads) of uniform all-to-all traffic
/// split evenly over each pair's next switches, or None when the routing's
/// switch-level dependency graph has a cycle.
fn score_routing(topo: &Topology, dist: &[Vec<u32>], next: &[Vec<Option<Vec<u32>>>]) -> Option<(f64, f64)> {
    let n = topo.switch_count();
    let mut load = vec![vec![0.0f64; n]; n];
    let mut deps: Vec<(SwitchLink, SwitchLink)> = Vec::new();
    for a in 0..n {
        for d in 0..n {
            if a == d || topo.nodes[a] == 0 || topo.nodes[d] == 0 {
                continue;
            }
            let weight = (topo.nodes[a] * topo.nodes[d]) as f64;
            // (switch, incoming link, share of the pair's traffic)
            let mut stack: Vec<(usize, Option<SwitchLink>, f64)> = vec![(a, None, weight)];
            while let Some((cur, prev, w)) = stack.pop() {
                if cur == d {
                    continue;
                }
                let hops = next[cur][d].as_ref().expect("every pair has next switches");
                for &t in hops {
                    let t = t as usize;
                    let share = w / hops.len() as f64;
                    load[cur][t] += share / topo.multiplicity(cur as u32, t as u32) as f64;
                    let link = (cur as u32, t as u32);
                    if let Some(p) = prev {
                        deps.push((p, link));
                    }
                    if dist[t][d] < dist[cur][d] {
                        stack.push((t, Some(link), share));
                    }
                }
            }
        }
    }
    if !link_graph_is_acyclic(&deps) {
        return None;
    }
    let flat = load.iter().flatten();
    let max = flat.clone().fold(0.0f64, |m, &x| m.max(x));
    let sq = flat.map(|x| x * x).sum();
    Some((max, sq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::TopologySpec;

    fn tables(kind: TopologyKind, m: u32, routing: RoutingSpec) -> (Topology, ForwardingTables) {
        let spec = TopologySpec { kind, multiplicity: Some(m), switches: None, nodes: None, trunks: None };
        let topo = Topology::from_spec(&spec, 16).unwrap();
        let t = ForwardingTables::build(&topo, kind, &routing).unwrap();
        (topo, t)
    }

    #[test]
    fn blocks_split_as_evenly_as_possible() {
        let sizes = |n: u32, parts: u32| {
            let mut c = vec![0; parts as usize];
            for k in 0..n {
                c[block_of(k, n, parts) as usize] += 1;
            }
            c
        };
        assert_eq!(sizes(13, 3), vec![5, 4, 4]);
        assert_eq!(sizes(14, 2), vec![7, 7]);
        assert_eq!(sizes(12, 4), vec![3, 3, 3, 3]);
        assert_eq!(sizes(2, 3), vec![1, 1, 0]);
    }

    #[test]
    fn deterministic_star_splits_destinations_over_trunks() {
        let (topo, t) = tables(TopologyKind::Star, 3, RoutingSpec::default());
        // From switch 1 to the 13 nodes of switch 3: 5, 4, 4 over its three hub trunks.
        let first = topo.first_node()[2];
        let mut count = std::collections::BTreeMap::new();
        for n in first..first + 13 {
            let p = &t.ports[0][n as usize];
            assert_eq!(p.len(), 1);
            *count.entry(p[0]).or_insert(0) += 1;
        }
        assert_eq!(count.values().copied().collect::<Vec<_>>(), vec![5, 4, 4]);
    }

    #[test]
    fn randomized_star_offers_every_parallel_trunk() {
        let routing = RoutingSpec { trunk_choice: TrunkChoice::Randomized, ..RoutingSpec::default() };
        let (_, t) = tables(TopologyKind::Star, 2, routing);
        assert_eq!(t.ports[0][40], vec![0, 1]);
        assert_eq!(t.ports[0][3], vec![5]); // own node: its port
    }

    #[test]
    fn envelope_policies_pick_the_named_intermediate() {
        let policy = |paths| RoutingSpec { paths, ..RoutingSpec::default() };
        let (topo, cw) = tables(TopologyKind::Envelope, 1, policy(PathPolicy::Clockwise));
        let map = topo.port_map();
        let node_on_3 = topo.first_node()[2] as usize;
        let port = cw.ports[0][node_on_3][0] as usize;
        assert_eq!(map[0][port], PortUse::Trunk { to: 1, lane: 0 }); // 1 -> 3 via 2
        let (_, central) = tables(TopologyKind::Envelope, 1, policy(PathPolicy::Central));
        let port = central.ports[0][node_on_3][0] as usize;
        assert_eq!(map[0][port], PortUse::Trunk { to: 4, lane: 0 }); // via 5
        let e = ForwardingTables::build(&topo, TopologyKind::House, &policy(PathPolicy::Clockwise)).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.paths"));
    }
}
