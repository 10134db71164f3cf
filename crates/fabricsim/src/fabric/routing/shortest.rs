//! Shortest switch paths with destinations partitioned over the choices
//! (seed 000's default routing), and the partitioning every other algorithm
//! here reuses once it has picked next switches.
//!
//! Where a switch has several lanes to the next switch (or several equally
//! short next switches), deterministic routing partitions the destination
//! endpoints over them as evenly as possible: 13 nodes over 3 trunks go 5, 4,
//! 4, the study's example of an unbalanced split. Next switches take
//! contiguous blocks of destinations (interleaved under the partition lane
//! assignment); how parallel lanes take them is the lane assignment
//! ([`LaneChoice`]): aligned, partition or staggered.

use super::{Algorithm, ForwardingTables, LaneChoice, RoutingParams};
use crate::error::Result;
use crate::fabric::topology::{PortUse, Topology};

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "shortest",
    description: "shortest switch paths, destinations split evenly over equal next switches and parallel lanes",
    params: &[],
    tables,
    lfts: None,
    endpoint_tables: None,
};

/// `next[s][d]`: the next switches a route from switch `s` to destination
/// switch `d` may take (its destination endpoints are partitioned over
/// them), or None for every neighbour on a shortest path.
pub type NextSwitches = Vec<Vec<Option<Vec<u32>>>>;

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let n = topo.switch_count();
    Ok(partitioned(topo, &vec![vec![None; n]; n], params.lanes))
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

/// The lane (of `m`) a deterministic assignment gives destination `k` of the
/// `n` on its switch; `round`: `k` counted among the destinations that take
/// the same next switch (Partition); `last_hop`: the link leads into the
/// destination's switch.
pub fn lane_of(lanes: LaneChoice, k: u32, round: u32, n: u32, last_hop: bool, m: u32) -> usize {
    let lane = match lanes {
        LaneChoice::Partition if last_hop => block_of(k, n, m),
        LaneChoice::Partition => round % m,
        LaneChoice::Staggered if !last_hop => (k + k / m) % m,
        _ => k % m,
    };
    lane as usize
}

/// Neighbours of switch `s` (from `adj`, the neighbour lists in increasing
/// order) one hop closer to switch `d`, in increasing order.
pub fn shortest_next(adj: &[Vec<u32>], dist: &[Vec<u32>], s: usize, d: usize) -> Vec<u32> {
    adj[s].iter().copied().filter(|&t| dist[t as usize][d] + 1 == dist[s][d]).collect()
}

/// Heap bytes of the working state of [`partitioned`] over `switches`
/// switches (the hop matrix apart: [`Topology::distances_bytes`]): its matrix
/// of link ports between switch pairs, and next-switch choices of one
/// switch per pair, as SPF gives (glibc's smallest heap block, 32 bytes, per list).
pub fn partitioned_bytes(switches: u64) -> u64 {
    use std::mem::size_of;
    let pair = size_of::<Vec<u16>>() + size_of::<Option<Vec<u32>>>() + 32;
    switches * switches * pair as u64
}

/// Forwarding tables from next-switch choices: a switch's own endpoints by
/// their ports; another switch's endpoints split into contiguous blocks over
/// the next switches, each block over that link's lanes in turn (or every
/// lane, randomized).
pub fn partitioned(topo: &Topology, next: &NextSwitches, lanes: LaneChoice) -> ForwardingTables {
    let n_sw = topo.switch_count();
    let map = topo.port_map();
    let per_switch = topo.endpoints_per_switch();
    let first = topo.first_endpoint();
    let dist = topo.distances();
    let adj = topo.adjacency();
    // link_ports[s][t]: ports of switch s on the lanes to switch t, in port order.
    let mut link_ports = vec![vec![Vec::<u16>::new(); n_sw]; n_sw];
    let mut endpoint_port = vec![0u16; topo.endpoints.len()];
    for (s, ports) in map.iter().enumerate() {
        for (p, u) in ports.iter().enumerate() {
            match *u {
                PortUse::Link { to, .. } => link_ports[s][to as usize].push(p as u16),
                PortUse::Endpoint(e) => endpoint_port[e as usize] = p as u16,
                PortUse::Free => {}
            }
        }
    }
    let mut ports = vec![vec![Vec::new(); topo.endpoints.len()]; n_sw];
    for s in 0..n_sw {
        for d in 0..n_sw {
            let on_d = per_switch[d];
            if s == d {
                for k in 0..on_d {
                    let e = (first[d] + k) as usize;
                    ports[s][e] = vec![endpoint_port[e]];
                }
                continue;
            }
            let cands = match &next[s][d] {
                Some(subset) => subset.clone(),
                None => shortest_next(&adj, &dist, s, d),
            };
            let parts = cands.len() as u32;
            for k in 0..on_d {
                // Partition interleaves the split over next switches, so that
                // the contiguous blocks of the last hop's trunks are each fed
                // by every earlier choice.
                let (c, round) = match lanes {
                    LaneChoice::Partition => (k % parts, k / parts),
                    _ => (block_of(k, on_d, parts), k),
                };
                let t = cands[c as usize];
                let lane_ports = &link_ports[s][t as usize];
                let e = (first[d] + k) as usize;
                ports[s][e] = match lanes {
                    LaneChoice::Randomized => lane_ports.clone(),
                    _ => vec![lane_ports[lane_of(lanes, k, round, on_d, t as usize == d, lane_ports.len() as u32)]],
                };
            }
        }
    }
    ForwardingTables { ports }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::routing_tables;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    fn star(m: u32, lanes: LaneChoice) -> (Topology, ForwardingTables) {
        let shape = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
        let topo = build_shape("star", &shape).unwrap();
        let t = routing_tables("shortest", &topo, &RoutingParams { lanes, ..RoutingParams::default() }).unwrap();
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
        let (topo, t) = star(3, LaneChoice::Deterministic);
        // From switch 1 to the 13 nodes of switch 3: 5, 4, 4 over its three hub trunks.
        let first = topo.first_endpoint()[2];
        let mut count = std::collections::BTreeMap::new();
        for n in first..first + 13 {
            let p = &t.ports[0][n as usize];
            assert_eq!(p.len(), 1);
            *count.entry(p[0]).or_insert(0) += 1;
        }
        assert_eq!(count.values().copied().collect::<Vec<_>>(), vec![5, 4, 4]);
    }

    /// (satellite lane into the hub, hub lane out) pairs the frames from
    /// switch 1 to the other satellites' nodes use, and the count of
    /// destinations per hub lane towards switch 3.
    fn hub_lane_pairs(m: u32, lanes: LaneChoice) -> (std::collections::BTreeSet<(u32, u32)>, Vec<u32>) {
        let (topo, t) = star(m, lanes);
        let map = topo.port_map();
        let lane = |s: usize, port: u16| match map[s][port as usize] {
            PortUse::Link { lane, .. } => lane,
            other => panic!("switch {s} port {port} is not a trunk: {other:?}"),
        };
        let first = topo.first_endpoint();
        let per = topo.endpoints_per_switch();
        let mut pairs = std::collections::BTreeSet::new();
        let mut to_3 = vec![0; m as usize];
        for d in 1..4 {
            for e in first[d]..first[d] + per[d] {
                let (a, b) = (t.ports[0][e as usize][0], t.ports[4][e as usize][0]);
                pairs.insert((lane(0, a), lane(4, b)));
                if d == 2 {
                    to_3[lane(4, b) as usize] += 1;
                }
            }
        }
        (pairs, to_3)
    }

    #[test]
    fn lane_assignments_differ_only_in_how_lanes_line_up() {
        // Aligned: a frame on lane j into the hub leaves on lane j, so the hub
        // of a multiplicity-4 star is four separate switches.
        let (aligned, split) = hub_lane_pairs(4, LaneChoice::Deterministic);
        assert!(aligned.iter().all(|&(a, b)| a == b), "{aligned:?}");
        assert_eq!(split, vec![3, 3, 3, 3]);
        for lanes in [LaneChoice::Partition, LaneChoice::Staggered] {
            let (pairs, split) = hub_lane_pairs(4, lanes);
            assert_eq!(split, vec![3, 3, 3, 3], "{lanes:?}");
            for a in 0..4 {
                let fed = pairs.iter().filter(|p| p.0 == a).count();
                assert!(fed >= 3, "{lanes:?}: satellite lane {a} feeds {fed} hub lanes: {pairs:?}");
            }
        }
        // Partition: the last hop takes contiguous blocks, 5, 4, 4 of 13.
        let (topo, t) = star(3, LaneChoice::Partition);
        let first = topo.first_endpoint()[2] as usize;
        let ports: Vec<u16> = (first..first + 13).map(|e| t.ports[4][e][0]).collect();
        let runs = ports.windows(2).filter(|w| w[0] != w[1]).count();
        assert_eq!(runs, 2, "contiguous blocks: {ports:?}");
        let (_, split) = hub_lane_pairs(3, LaneChoice::Staggered);
        let mut sorted = split.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![4, 4, 5]);
    }

    #[test]
    fn every_first_hop_choice_feeds_every_last_hop_lane() {
        // House, multiplicity 2: switch 5 reaches switch 3 through 1 or 2; the
        // nodes sent through either must use both trunks from there to 3.
        let shape = ShapeParams { radix: Some(16), multiplicity: Some(2), ..ShapeParams::default() };
        let topo = build_shape("house", &shape).unwrap();
        let map = topo.port_map();
        let (first, per) = (topo.first_endpoint(), topo.endpoints_per_switch());
        for lanes in [LaneChoice::Deterministic, LaneChoice::Partition, LaneChoice::Staggered] {
            let t = routing_tables("shortest", &topo, &RoutingParams { lanes, ..RoutingParams::default() }).unwrap();
            let mut used = std::collections::BTreeMap::<u32, std::collections::BTreeSet<u32>>::new();
            for e in first[2]..first[2] + per[2] {
                let PortUse::Link { to: via, .. } = map[4][t.ports[4][e as usize][0] as usize] else {
                    panic!("not a trunk")
                };
                let PortUse::Link { to, lane } = map[via as usize][t.ports[via as usize][e as usize][0] as usize]
                else {
                    panic!("not a trunk")
                };
                assert_eq!(to, 2);
                used.entry(via).or_default().insert(lane);
            }
            assert_eq!(used.len(), 2, "{lanes:?}: {used:?}");
            assert!(used.values().all(|l| l.len() == 2), "{lanes:?}: {used:?}");
        }
    }

    #[test]
    fn randomized_star_offers_every_parallel_trunk() {
        let (_, t) = star(2, LaneChoice::Randomized);
        assert_eq!(t.ports[0][40], vec![0, 1]);
        assert_eq!(t.ports[0][3], vec![5]); // own node: its port
    }
}
