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
use super::{Algorithm, EndpointTables, ForwardingTables, LaneChoice, RoutingParams, Ties};
use crate::error::Result;
use crate::fabric::topology::{bfs, PortUse, Topology};
use crate::sim::build_watch::step;

/// The stage of a build these tables are (control traffic's, under any data routing).
const STAGE: &str = "shortest-path tables";

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "spf",
    description: "shortest path first: each switch's Dijkstra tree on hop count, one port per destination \
                  (may deadlock); equal paths by `ties`",
    params: &["ties"],
    tables,
    lfts: None,
    endpoint_tables: Some(endpoint_tables),
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    if params.lanes == LaneChoice::Deterministic {
        return Ok(endpoint_tables(topo, params)?.to_forwarding_tables());
    }
    Ok(partitioned(topo, &next_switches(topo, params.ties), params.lanes))
}

/// The tables with deterministic lanes, as [`partitioned`] makes them from
/// [`next_switches`] (destination `k` of its switch on lane `k mod m` of
/// the link to its next switch), without the matrices of next switches,
/// hops and link ports between every pair of switches: the first hops of
/// one switch at a time (lowest-numbered ties) or the distances to one
/// destination switch at a time (balanced ties). Memory is the tables.
fn endpoint_tables(topo: &Topology, params: &RoutingParams) -> Result<EndpointTables> {
    let n = topo.switch_count();
    let adj = topo.adjacency();
    let (first, per_switch) = (topo.first_endpoint(), topo.endpoints_per_switch());
    // Each switch's link lanes as (neighbour, port), in port order per neighbour.
    let lanes: Vec<Vec<(u32, u16)>> = topo
        .port_map()
        .iter()
        .map(|row| {
            let mut l: Vec<(u32, u16)> = row
                .iter()
                .enumerate()
                .filter_map(|(p, u)| match *u {
                    PortUse::Link { to, .. } => Some((to, p as u16)),
                    _ => None,
                })
                .collect();
            l.sort_unstable();
            l
        })
        .collect();
    let mut t = EndpointTables::empty(n, topo.endpoint_count() as usize);
    for (e, ep) in topo.endpoints.iter().enumerate() {
        t.set(ep.switch as usize, e, ep.port);
    }
    // Switch `s` sends switch `d`'s endpoints to neighbour `next`.
    let route = |t: &mut EndpointTables, s: usize, d: usize, next: u32| {
        let to_next = &lanes[s][lanes[s].partition_point(|l| l.0 < next)..];
        let m = to_next.iter().take_while(|l| l.0 == next).count() as u32;
        for k in 0..per_switch[d] {
            t.set(s, (first[d] + k) as usize, to_next[(k % m) as usize].1);
        }
    };
    match params.ties {
        Ties::Lowest => {
            for s in 0..n {
                step(STAGE, s, n)?;
                for (d, hop) in first_hops_in(&adj, s as u32).into_iter().enumerate() {
                    if let Some(next) = hop.filter(|_| per_switch[d] > 0) {
                        route(&mut t, s, d, next);
                    }
                }
            }
        }
        Ties::Balanced => {
            let destinations = per_switch.iter().filter(|&&k| k > 0).count();
            for (done, d) in (0..n).filter(|&d| per_switch[d] > 0).enumerate() {
                step(STAGE, done, destinations)?;
                let dist = bfs(&adj, d as u32);
                for s in (0..n).filter(|&s| s != d && dist[s] != u32::MAX) {
                    let equal = || adj[s].iter().copied().filter(|&v| dist[v as usize].checked_add(1) == Some(dist[s]));
                    let k = equal().count();
                    if let Some(next) = equal().nth(d % k.max(1)) {
                        route(&mut t, s, d, next);
                    }
                }
            }
        }
    }
    Ok(t)
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
    use crate::fabric::Routes;

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

    #[test]
    fn the_compact_tables_are_those_of_the_next_switch_matrix() {
        // The deterministic tables built a switch (or destination switch) at
        // a time, against `partitioned` over `next_switches`, on networks
        // with parallel lanes, fat trees and both tie rules.
        let mut topos: Vec<Topology> = (0..24u64)
            .map(|seed| {
                let kind = if seed % 2 == 0 { "irregular" } else { "random" };
                build_shape(kind, &ShapeParams { seed, switches: Some(12 + seed as u32), ..ShapeParams::default() })
                    .unwrap()
            })
            .collect();
        for kind in ["star", "house"] {
            let shape = ShapeParams { radix: Some(16), multiplicity: Some(3), ..ShapeParams::default() };
            topos.push(build_shape(kind, &shape).unwrap());
        }
        let tree = ShapeParams { arity: Some(3), levels: Some(3), ..ShapeParams::default() };
        topos.push(build_shape("fat_tree", &tree).unwrap());
        for (i, topo) in topos.iter().enumerate() {
            for ties in [Ties::Lowest, Ties::Balanced] {
                let params = RoutingParams { ties, ..RoutingParams::default() };
                let matrix = partitioned(topo, &next_switches(topo, ties), LaneChoice::Deterministic);
                assert_eq!(routing_tables("spf", topo, &params).unwrap(), matrix, "network {i}, {ties:?}");
            }
        }
    }
}
