//! Up*/Down* routing (Autonet; seed 003 section 3.1), deadlock-free on any
//! topology.
//!
//! A breadth-first spanning tree from a root switch gives every switch a
//! level; every link (tree or not) is then directed: its up end is the
//! switch nearer the root, or at equal levels the lower-numbered one, as
//! Autonet and OpenSM break ties. A legal route takes zero or more up hops,
//! then zero or more down hops, never up after down. Up hops strictly
//! decrease (level, number) and down hops strictly increase it, so channel
//! dependencies cannot close a cycle.
//!
//! Tables are keyed by destination only, so a switch's route must also
//! serve every route that passes through it. For each destination a
//! breadth-first search outwards labels every switch with its route kind:
//! all-down, or starting up. A switch may step down only onto an all-down
//! switch, and up onto any; each switch takes the shortest such step, an
//! all-down one on ties (more switches can extend it), then the
//! lower-numbered next switch. Every switch gets a route (it can always
//! climb towards the root, which reaches everything going down), and each
//! is the shortest legal path given the routes already fixed nearer the
//! destination. Destination-keyed tables cannot always give every switch
//! its own unconstrained shortest legal path at once (one whose shortest
//! route starts up cannot also be another's all-down continuation), so a
//! few routes may be longer than that; the tests bound how many.
//!
//! Which root is best depends on the topology (the study tried three and
//! kept the best): `tables_for_roots` computes several for a caller to pick.

use std::collections::{BTreeMap, VecDeque};

use super::shortest::{partitioned, NextSwitches};
use super::{Algorithm, ForwardingTables, LaneChoice, RoutingParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "updown",
    description: "Up*/Down* on a BFS spanning tree from switch `root` (default 0): never up after down, \
                  deadlock-free",
    params: &["root"],
    tables,
    lfts: None,
    endpoint_tables: None,
};

/// The direction of every link under one root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orientation {
    pub root: u32,
    /// Breadth-first distance of every switch from the root.
    pub level: Vec<u32>,
}

impl Orientation {
    pub fn new(topo: &Topology, root: u32) -> Orientation {
        let level = topo.distances().swap_remove(root as usize);
        Orientation { root, level }
    }

    /// Whether the hop from switch `from` to its neighbour `to` goes up.
    pub fn is_up(&self, from: u32, to: u32) -> bool {
        (self.level[to as usize], to) < (self.level[from as usize], from)
    }
}

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let root = params.root.unwrap_or(0);
    check_root(topo, root, params)?;
    Ok(updown_tables(topo, root, params.lanes))
}

fn check_root(topo: &Topology, root: u32, params: &RoutingParams) -> Result<()> {
    let n = topo.switch_count() as u32;
    if root >= n {
        return Err(Error::invalid(&params.key("root"), root, format!("a switch from 0 to {}", n - 1)));
    }
    Ok(())
}

/// Up*/Down* tables of a connected topology from switch `root`.
pub fn updown_tables(topo: &Topology, root: u32, lanes: LaneChoice) -> ForwardingTables {
    let orientation = Orientation::new(topo, root);
    let n = topo.switch_count();
    let adj = topo.adjacency();
    let mut next: NextSwitches = vec![vec![None; n]; n];
    for d in 0..n as u32 {
        for (s, hop) in routes_to(&adj, &orientation, d).into_iter().enumerate() {
            next[s][d as usize] = Some(hop.into_iter().collect());
        }
    }
    partitioned(topo, &next, lanes)
}

/// Up*/Down* tables from each of `roots`, in order, for the caller to
/// compare (e.g. by `ForwardingTables::mean_hops` or simulated latency).
pub fn tables_for_roots(
    topo: &Topology,
    roots: &[u32],
    params: &RoutingParams,
) -> Result<Vec<(u32, ForwardingTables)>> {
    roots
        .iter()
        .map(|&root| {
            check_root(topo, root, params)?;
            Ok((root, updown_tables(topo, root, params.lanes)))
        })
        .collect()
}

/// The next switch of every switch towards destination switch `d` (None
/// for `d` itself), by the labelling search the module doc describes.
fn routes_to(adj: &[Vec<u32>], orientation: &Orientation, d: u32) -> Vec<Option<u32>> {
    // label[s]: (route is all down, next switch).
    let mut label: Vec<Option<(bool, u32)>> = vec![None; adj.len()];
    label[d as usize] = Some((true, d));
    let mut frontier = vec![d];
    while !frontier.is_empty() {
        let mut found: BTreeMap<u32, (bool, u32)> = BTreeMap::new();
        for &v in &frontier {
            let v_all_down = label[v as usize].expect("frontier switches are labelled").0;
            for &u in &adj[v as usize] {
                if label[u as usize].is_some() {
                    continue;
                }
                let step = if orientation.is_up(u, v) {
                    (false, v)
                } else if v_all_down {
                    (true, v)
                } else {
                    continue; // down onto a route that climbs: illegal
                };
                found
                    .entry(u)
                    .and_modify(|best| {
                        if step.0 && !best.0 {
                            *best = step
                        }
                    })
                    .or_insert(step);
            }
        }
        for (&u, &step) in &found {
            label[u as usize] = Some(step);
        }
        frontier = found.into_keys().collect();
    }
    label.into_iter().enumerate().map(|(s, l)| l.filter(|_| s as u32 != d).map(|(_, t)| t)).collect()
}

/// Length of the shortest legal (up*, then down*) path between every
/// ordered pair of switches, ignoring tables: the bound routes are measured
/// against.
pub fn legal_distances(topo: &Topology, orientation: &Orientation) -> Vec<Vec<u32>> {
    let n = topo.switch_count();
    let adj = topo.adjacency();
    (0..n as u32)
        .map(|s| {
            // States (switch, has gone down).
            let mut dist = vec![[u32::MAX; 2]; n];
            dist[s as usize][0] = 0;
            let mut queue = VecDeque::from([(s, 0usize)]);
            while let Some((u, down)) = queue.pop_front() {
                for &v in &adj[u as usize] {
                    let up = orientation.is_up(u, v);
                    if up && down == 1 {
                        continue;
                    }
                    let state = if up { 0 } else { 1 };
                    if dist[v as usize][state] == u32::MAX {
                        dist[v as usize][state] = dist[u as usize][down] + 1;
                        queue.push_back((v, state));
                    }
                }
            }
            dist.iter().map(|d| d[0].min(d[1])).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::routing_tables;
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::Routes;

    fn irregular(switches: u32, seed: u64) -> Topology {
        build_shape("irregular", &ShapeParams { switches: Some(switches), seed, ..ShapeParams::default() }).unwrap()
    }

    /// Every route is legal, and (counted over many networks) almost every
    /// route is as short as the shortest legal path.
    #[test]
    fn routes_are_legal_and_nearly_always_minimal() {
        let (mut routes, mut longer) = (0, 0);
        for seed in 0..40 {
            for switches in [15, 30] {
                let topo = irregular(switches, seed);
                let root = (seed % switches as u64) as u32;
                let orientation = Orientation::new(&topo, root);
                let legal = legal_distances(&topo, &orientation);
                let t = updown_tables(&topo, root, LaneChoice::Deterministic);
                let map = topo.port_map();
                for s in 0..switches {
                    for e in 0..topo.endpoint_count() {
                        let path = t.path(&topo, &map, s, e).expect("every switch has a route");
                        let ups: Vec<bool> = path.windows(2).map(|w| orientation.is_up(w[0], w[1])).collect();
                        assert!(ups.windows(2).all(|w| w[0] || !w[1]), "up after down: {path:?}");
                        let d = topo.endpoints[e as usize].switch as usize;
                        let hops = path.len() as u32 - 1;
                        assert!(hops >= legal[s as usize][d]);
                        routes += 1;
                        longer += (hops > legal[s as usize][d]) as u32;
                    }
                }
            }
        }
        assert!(longer * 100 <= routes, "{longer} of {routes} routes longer than the shortest legal path");
    }

    #[test]
    fn levels_and_ties_follow_the_root() {
        // A triangle 0-1-2 with a tail 2-3, rooted at 1.
        let shape = ShapeParams {
            radix: Some(4),
            nodes: Some(vec![1; 4]),
            trunks: Some(vec![[1, 2, 1], [2, 3, 1], [1, 3, 1], [3, 4, 1]]),
            ..ShapeParams::default()
        };
        let topo = build_shape("custom", &shape).unwrap();
        let o = Orientation::new(&topo, 1);
        assert_eq!(o.level, vec![1, 0, 1, 2]);
        assert!(o.is_up(0, 1) && o.is_up(2, 0) && !o.is_up(0, 2) && o.is_up(3, 2));
        // From 3 to 0: up to 2, then up to 0 (equal level, lower number).
        let t = routing_tables("updown", &topo, &RoutingParams { root: Some(1), ..RoutingParams::default() }).unwrap();
        assert_eq!(t.path(&topo, &topo.port_map(), 3, 0), Some(vec![3, 2, 0]));
        // From 0 to 3: down to 2, down to 3.
        assert_eq!(t.path(&topo, &topo.port_map(), 0, 3), Some(vec![0, 2, 3]));
    }

    #[test]
    fn several_roots_give_several_tables() {
        let topo = irregular(15, 5);
        let all = tables_for_roots(&topo, &[0, 4, 9], &RoutingParams::default()).unwrap();
        assert_eq!(all.iter().map(|(r, _)| *r).collect::<Vec<_>>(), vec![0, 4, 9]);
        let best = all.iter().map(|(_, t)| t.mean_hops(&topo).unwrap().unwrap()).fold(f64::INFINITY, f64::min);
        assert!(best >= 1.0);
        let e = tables_for_roots(&topo, &[15], &RoutingParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.root"));
    }
}
