//! Shortest switch paths with destinations partitioned over the choices
//! (seed 000's default routing), and the partitioning every other algorithm
//! here reuses once it has picked next switches.
//!
//! Where a switch has several lanes to the next switch (or several equally
//! short next switches), deterministic routing partitions the destination
//! endpoints over them as evenly as possible: 13 nodes over 3 trunks go 5, 4,
//! 4, the study's example of an unbalanced split. Next switches take
//! contiguous blocks of destinations and parallel lanes take them in turn,
//! so a block arriving in transit stays balanced.

use super::{Algorithm, ForwardingTables, LaneChoice, RoutingParams};
use crate::error::Result;
use crate::fabric::topology::{PortUse, Topology};

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "shortest",
    description: "shortest switch paths, destinations split evenly over equal next switches and parallel lanes",
    params: &[],
    tables,
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

/// Neighbours of switch `s` (from `adj`, the neighbour lists in increasing
/// order) one hop closer to switch `d`, in increasing order.
pub fn shortest_next(adj: &[Vec<u32>], dist: &[Vec<u32>], s: usize, d: usize) -> Vec<u32> {
    adj[s].iter().copied().filter(|&t| dist[t as usize][d] + 1 == dist[s][d]).collect()
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
    let adj: Vec<Vec<u32>> = (0..n_sw as u32).map(|s| topo.neighbours(s)).collect();
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
            for (c, &t) in cands.iter().enumerate() {
                let lane_ports = &link_ports[s][t as usize];
                for k in (0..on_d).filter(|&k| block_of(k, on_d, cands.len() as u32) == c as u32) {
                    let e = (first[d] + k) as usize;
                    // Lanes take destinations in turn (k mod lanes): as even as
                    // possible, and a block of destinations that reaches this
                    // switch in transit is spread evenly too.
                    ports[s][e] = match lanes {
                        LaneChoice::Randomized => lane_ports.clone(),
                        LaneChoice::Deterministic => vec![lane_ports[k as usize % lane_ports.len()]],
                    };
                }
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

    #[test]
    fn randomized_star_offers_every_parallel_trunk() {
        let (_, t) = star(2, LaneChoice::Randomized);
        assert_eq!(t.ports[0][40], vec![0, 1]);
        assert_eq!(t.ports[0][3], vec![5]); // own node: its port
    }
}
