//! Shortest Path First (seed 003 section 3.1): every switch computes a
//! shortest-path tree of the fabric with Dijkstra's algorithm, link cost one
//! hop, and its linear forwarding table sends each destination endpoint to
//! the first hop of its tree path. Ties go to the lower-numbered switch, so
//! tables are reproducible. Each hop shortens the distance by one, so every
//! route is minimal; but nothing forbids cyclic channel dependencies, and
//! SPF may deadlock (the study pairs it with packet dropping).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::shortest::{partitioned, NextSwitches};
use super::{Algorithm, ForwardingTables, RoutingParams};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "spf",
    description: "shortest path first: each switch's Dijkstra tree on hop count, one port per destination \
                  (may deadlock)",
    params: &[],
    tables,
    lfts: None,
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let n = topo.switch_count();
    let mut next: NextSwitches = vec![vec![None; n]; n];
    let adj: Vec<Vec<u32>> = (0..n as u32).map(|s| topo.neighbours(s)).collect();
    for (s, row) in next.iter_mut().enumerate() {
        *row = first_hops_in(&adj, s as u32).into_iter().map(|hop| hop.map(|t| vec![t])).collect();
    }
    Ok(partitioned(topo, &next, params.lanes))
}

/// Dijkstra from `source` over hop counts: the first hop of the tree path
/// to every switch (None for the source and unreachable switches). A switch
/// joins the tree through the first settled neighbour that reaches it at
/// least cost; neighbours settle in (distance, number) order.
pub fn first_hops(topo: &Topology, source: u32) -> Vec<Option<u32>> {
    let adj: Vec<Vec<u32>> = (0..topo.switch_count() as u32).map(|s| topo.neighbours(s)).collect();
    first_hops_in(&adj, source)
}

/// [`first_hops`] over an adjacency list (neighbours in increasing order).
fn first_hops_in(adj: &[Vec<u32>], source: u32) -> Vec<Option<u32>> {
    let n = adj.len();
    let mut dist = vec![u32::MAX; n];
    let mut first: Vec<Option<u32>> = vec![None; n];
    let mut settled = vec![false; n];
    let mut heap = BinaryHeap::from([Reverse((0u32, source))]);
    dist[source as usize] = 0;
    while let Some(Reverse((d, u))) = heap.pop() {
        if std::mem::replace(&mut settled[u as usize], true) {
            continue;
        }
        for &v in &adj[u as usize] {
            let cost = d + 1;
            if cost < dist[v as usize] {
                dist[v as usize] = cost;
                first[v as usize] = if u == source { Some(v) } else { first[u as usize] };
                heap.push(Reverse((cost, v)));
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::routing_tables;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn every_route_is_a_shortest_path() {
        for seed in 0..20 {
            let topo = build_shape("irregular", &ShapeParams { seed, ..ShapeParams::default() }).unwrap();
            let t = routing_tables("spf", &topo, &RoutingParams::default()).unwrap();
            let (map, dist) = (topo.port_map(), topo.distances());
            for s in 0..15u32 {
                for e in 0..15u32 {
                    let path = t.path(&topo, &map, s, e).expect("a route");
                    assert_eq!(path.len() as u32 - 1, dist[s as usize][topo.endpoints[e as usize].switch as usize]);
                    assert_eq!(t.ports[s as usize][e as usize].len(), 1, "one port per entry");
                }
            }
        }
    }

    #[test]
    fn ties_go_to_the_lower_numbered_switch() {
        // A square 0-1-3-2-0: from 0, switch 3 is two hops via 1 or 2.
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![1; 4]), ..ShapeParams::default() };
        let shape = ShapeParams { trunks: Some(vec![[1, 2, 1], [2, 4, 1], [4, 3, 1], [3, 1, 1]]), ..shape };
        let topo = build_shape("custom", &shape).unwrap();
        assert_eq!(first_hops(&topo, 0), vec![None, Some(1), Some(2), Some(1)]);
    }
}
