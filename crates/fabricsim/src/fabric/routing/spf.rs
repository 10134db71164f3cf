//! Shortest Path First (seed 003 section 3.1): every switch computes a
//! shortest-path tree of the fabric with Dijkstra's algorithm, link cost one
//! hop, and its linear forwarding table sends each destination endpoint to
//! the first hop of its tree path. The study states no rule for equally
//! short paths; [`Ties`] names two: the lower-numbered next switch (the
//! first one Dijkstra settles), or destinations in turn over the equal next
//! switches (`d mod k`), which is what the study's own example table
//! (Fig. 5a: from a, destination d via c, not via the lower b) shows. Each
//! hop shortens the distance by one, so every route is minimal; but nothing
//! forbids cyclic channel dependencies, and SPF may deadlock (the study pairs
//! it with packet dropping).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::shortest::{partitioned, shortest_next, NextSwitches};
use super::{Algorithm, ForwardingTables, RoutingParams, Ties};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "spf",
    description: "shortest path first: each switch's Dijkstra tree on hop count, one port per destination \
                  (may deadlock); equal paths by `ties`",
    params: &["ties"],
    tables,
    lfts: None,
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    Ok(partitioned(topo, &next_switches(topo, params.ties), params.lanes))
}

/// The next switch of every switch towards every other under `ties`.
pub fn next_switches(topo: &Topology, ties: Ties) -> NextSwitches {
    let n = topo.switch_count();
    let mut next: NextSwitches = vec![vec![None; n]; n];
    let adj = topo.adjacency();
    match ties {
        Ties::Lowest => {
            for (s, row) in next.iter_mut().enumerate() {
                *row = first_hops_in(&adj, s as u32).into_iter().map(|hop| hop.map(|t| vec![t])).collect();
            }
        }
        Ties::Balanced => {
            let dist = topo.distances();
            for (s, row) in next.iter_mut().enumerate() {
                for (d, entry) in row.iter_mut().enumerate() {
                    let equal = shortest_next(&adj, &dist, s, d);
                    if !equal.is_empty() {
                        *entry = Some(vec![equal[d % equal.len()]]);
                    }
                }
            }
        }
    }
    next
}

/// Dijkstra from `source` over hop counts: the first hop of the tree path
/// to every switch (None for the source and unreachable switches). A switch
/// joins the tree through the first settled neighbour that reaches it at
/// least cost; neighbours settle in (distance, number) order.
pub fn first_hops(topo: &Topology, source: u32) -> Vec<Option<u32>> {
    let adj = topo.adjacency();
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

    /// The study's Fig. 4a graph: a-b, a-c, b-c, b-d, c-d (switches 0-3,
    /// one HCA each). Fig. 5a gives a's SPF table: b by port 1, c and d by
    /// port 2 (via c), though d is two hops via b as well.
    fn figure_4a() -> Topology {
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![1; 4]), ..ShapeParams::default() };
        let shape = ShapeParams { trunks: Some(vec![[1, 2, 1], [1, 3, 1], [2, 3, 1], [2, 4, 1], [3, 4, 1]]), ..shape };
        build_shape("custom", &shape).unwrap()
    }

    #[test]
    fn balanced_ties_give_the_studys_table_and_lowest_ties_do_not() {
        let topo = figure_4a();
        let towards = |ties: Ties| -> Vec<u32> {
            let next = next_switches(&topo, ties);
            (1..4).map(|d| next[0][d].as_ref().expect("a route")[0]).collect()
        };
        assert_eq!(towards(Ties::Balanced), vec![1, 2, 2], "b direct, c direct, d via c (Fig. 5a)");
        assert_eq!(towards(Ties::Lowest), vec![1, 2, 1], "d via b, the lower-numbered");
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
