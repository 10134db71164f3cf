//! Static deadlock analysis: the channel dependency graph of a routing.
//!
//! A channel is one link lane in one direction (switch, output port). A
//! frame that enters a switch on channel A and may leave on channel B makes B's
//! buffers something A's frames wait for: the dependency A -> B. Routing with
//! buffer-to-buffer flow control is deadlock-free when this graph is acyclic
//! (Dally and Seitz); a cycle names the trunks that can fill with frames
//! waiting on one another, as the envelope's clockwise routing does.

use petgraph::algo::{is_cyclic_directed, tarjan_scc};
use petgraph::graphmap::DiGraphMap;
use serde::Serialize;

use super::forwarding::ForwardingTables;
use super::topology::{PortUse, Topology};
use crate::error::{Error, Result};

/// A directed switch-to-switch link (0-based switches).
pub type SwitchLink = (u32, u32);
/// A channel: (switch, output port) of a link lane.
pub type Channel = (u32, u16);

/// Whether the dependency graph over switch links has no cycle.
pub fn link_graph_is_acyclic(deps: &[(SwitchLink, SwitchLink)]) -> bool {
    let g: DiGraphMap<SwitchLink, ()> = DiGraphMap::from_edges(deps.iter().copied());
    !is_cyclic_directed(&g)
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DependencyReport {
    pub acyclic: bool,
    pub channels: usize,
    pub dependencies: usize,
    /// One cycle, as trunk lanes "switch a -> switch b (port p)", if any.
    pub cycle: Vec<String>,
}

/// Names a channel the way the study's figures number switches (1-based).
pub fn channel_name(map: &[Vec<PortUse>], c: Channel) -> String {
    match map[c.0 as usize][c.1 as usize] {
        PortUse::Link { to, lane } => {
            format!("switch {} -> switch {} (port {}, lane {})", c.0 + 1, to + 1, c.1, lane + 1)
        }
        other => format!("switch {} port {} ({other:?})", c.0 + 1, c.1),
    }
}

/// Builds the channel dependency graph of `tables` over `topo` and looks for a cycle.
pub fn analyze(topo: &Topology, tables: &ForwardingTables) -> Result<DependencyReport> {
    let map = topo.port_map();
    let node_switch = topo.endpoint_switch();
    let per_switch = topo.endpoints_per_switch();
    let mut g: DiGraphMap<Channel, ()> = DiGraphMap::new();
    for (s, ports) in map.iter().enumerate() {
        for (p, u) in ports.iter().enumerate() {
            if matches!(u, PortUse::Link { .. }) {
                g.add_node((s as u32, p as u16));
            }
        }
    }
    let max_hops = topo.switch_count() + 1;
    // Follow every route choice from every switch with terminal nodes to every
    // destination node, recording consecutive channel pairs.
    for (a, &sources) in per_switch.iter().enumerate() {
        if sources == 0 {
            continue;
        }
        for (n, &d) in node_switch.iter().enumerate() {
            if d as usize == a {
                continue;
            }
            let mut stack: Vec<(u32, Option<Channel>, usize)> = vec![(a as u32, None, 0)];
            while let Some((s, incoming, hops)) = stack.pop() {
                if hops > max_hops {
                    return Err(Error::invalid(
                        "routing",
                        format!("node {n} from switch {}", a + 1),
                        "forwarding tables without loops (a frame must reach its node)",
                    ));
                }
                for &p in &tables.ports[s as usize][n] {
                    match map[s as usize][p as usize] {
                        PortUse::Endpoint(_) => {}
                        PortUse::Link { to, .. } => {
                            let c = (s, p);
                            if let Some(i) = incoming {
                                g.add_edge(i, c, ());
                            }
                            stack.push((to, Some(c), hops + 1));
                        }
                        PortUse::Free => {
                            return Err(Error::invalid(
                                "routing",
                                format!("switch {} port {p}", s + 1),
                                "ports that are wired",
                            ));
                        }
                    }
                }
            }
        }
    }
    let cycle: Vec<String> =
        find_cycle(&g).map(|c| c.into_iter().map(|ch| channel_name(&map, ch)).collect()).unwrap_or_default();
    Ok(DependencyReport { acyclic: cycle.is_empty(), channels: g.node_count(), dependencies: g.edge_count(), cycle })
}

/// One cycle of a directed graph, if it has any: inside the first strongly
/// connected component with more than one node (or a self-loop), walk
/// successors within the component until a node repeats.
pub fn find_cycle<N: Copy + Ord + std::hash::Hash + std::fmt::Debug>(g: &DiGraphMap<N, ()>) -> Option<Vec<N>> {
    for scc in tarjan_scc(g) {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        let inside: std::collections::HashSet<N> = scc.iter().copied().collect();
        let mut path = vec![scc[0]];
        let mut seen = std::collections::HashMap::from([(scc[0], 0usize)]);
        let mut cur = scc[0];
        loop {
            let nxt = g
                .neighbors(cur)
                .find(|m| inside.contains(m))
                .expect("a strongly connected node has a successor inside");
            if let Some(&at) = seen.get(&nxt) {
                return Some(path[at..].to_vec());
            }
            seen.insert(nxt, path.len());
            path.push(nxt);
            cur = nxt;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    fn report(shape: &str, m: u32, algorithm: &str) -> DependencyReport {
        let params = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
        let topo = build_shape(shape, &params).unwrap();
        analyze(&topo, &routing_tables(algorithm, &topo, &RoutingParams::default()).unwrap()).unwrap()
    }

    #[test]
    fn clockwise_envelope_routing_has_the_ring_cycle() {
        let r = report("envelope", 1, "clockwise");
        assert!(!r.acyclic);
        assert_eq!(r.cycle.len(), 4, "{:?}", r.cycle);
        for (a, b) in [(1, 2), (2, 3), (3, 4), (4, 1)] {
            assert!(r.cycle.iter().any(|c| c.starts_with(&format!("switch {a} -> switch {b} "))), "{:?}", r.cycle);
        }
    }

    #[test]
    fn central_and_shortest_routings_are_deadlock_free() {
        assert!(report("envelope", 1, "central").acyclic);
        assert!(report("star", 2, "shortest").acyclic);
        let params = ShapeParams { radix: Some(16), switches: Some(7), ..ShapeParams::default() };
        let topo = build_shape("complete", &params).unwrap();
        let r = analyze(&topo, &routing_tables("shortest", &topo, &RoutingParams::default()).unwrap()).unwrap();
        assert!(r.acyclic);
        assert_eq!(r.dependencies, 0); // one hop everywhere
    }

    #[test]
    fn cycle_finder_names_a_cycle() {
        let g: DiGraphMap<u32, ()> = DiGraphMap::from_edges([(1, 2), (2, 3), (3, 1), (3, 4)]);
        let mut c = find_cycle(&g).unwrap();
        c.sort();
        assert_eq!(c, vec![1, 2, 3]);
        let dag: DiGraphMap<u32, ()> = DiGraphMap::from_edges([(1, 2), (2, 3)]);
        assert!(find_cycle(&dag).is_none());
    }
}
