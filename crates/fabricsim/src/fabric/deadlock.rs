//! Static deadlock analysis: the channel dependency graph of a routing.
//!
//! A channel is one link lane in one direction on one virtual lane (switch,
//! output port, VL). A packet that enters a switch on channel A and may
//! leave on channel B makes B's buffers something A's packets wait for: the
//! dependency A -> B. Routing with credit-based flow control is
//! deadlock-free when this graph is acyclic (Dally and Seitz); a cycle names
//! the lanes that can fill with packets waiting on one another, as the
//! envelope's clockwise routing does. Virtual lanes are separate channels,
//! so a VL assignment can break a routing's cycles; with one VL (Fibre
//! Channel) the graph is over (switch, port).

use petgraph::algo::is_cyclic_directed;
use petgraph::graphmap::DiGraphMap;
use serde::Serialize;

use super::forwarding::Routes;
use super::topology::{PortUse, Topology};
use super::wait_for::find_cycle;
use crate::error::{Error, Result};

/// A directed switch-to-switch link (0-based switches).
pub type SwitchLink = (u32, u32);
/// A channel: (switch, output port, virtual lane) of a link lane.
pub type Channel = (u32, u16, u8);
/// A dependency: a packet holding the first channel may wait for the second.
pub type Dependency = (Channel, Channel);

/// Whether the dependency graph over switch links has no cycle.
pub fn link_graph_is_acyclic(deps: &[(SwitchLink, SwitchLink)]) -> bool {
    let g: DiGraphMap<SwitchLink, ()> = DiGraphMap::from_edges(deps.iter().copied());
    !is_cyclic_directed(&g)
}

/// One hop of a route through a switch, as a VL assignment sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Source and destination endpoints of the packet.
    pub source: u32,
    pub destination: u32,
    pub switch: u32,
    pub in_port: u16,
    /// VL the packet arrived on; None on the first switch (from its source).
    pub in_lane: Option<u8>,
    pub out_port: u16,
}

/// Which virtual lane a packet takes out of each switch: InfiniBand's
/// SL-to-VL tables (service level chosen per source and destination), or
/// any scheme that changes lane along the way.
pub trait VirtualLanes {
    /// Number of data VLs (channels per link lane).
    fn count(&self) -> u8;
    /// The VL of the channel a packet leaves `hop.switch` on.
    fn lane(&self, hop: &Hop) -> u8;
    /// Whether `lane` never reads `hop.source` (nor, on the source's own
    /// switch, the port it is on): then routes to one destination share
    /// their dependencies wherever they meet, from the first switch on, and
    /// the analysis walks each destination's routes once.
    fn ignores_source(&self) -> bool {
        false
    }
}

/// Every packet on VL 0: Fibre Channel, or InfiniBand with one data VL.
pub struct OneLane;

impl VirtualLanes for OneLane {
    fn count(&self) -> u8 {
        1
    }

    fn lane(&self, _: &Hop) -> u8 {
        0
    }

    fn ignores_source(&self) -> bool {
        true
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DependencyReport {
    pub acyclic: bool,
    pub channels: usize,
    pub dependencies: usize,
    /// One cycle, as link lanes "switch a -> switch b (port p, lane l)", if any.
    pub cycle: Vec<String>,
}

/// Names a channel the way the study's figures number switches (1-based);
/// the VL only where there are several.
pub fn channel_name(map: &[Vec<PortUse>], c: Channel, lanes: u8) -> String {
    let vl = if lanes > 1 { format!(", VL {}", c.2) } else { String::new() };
    match map[c.0 as usize][c.1 as usize] {
        PortUse::Link { to, lane } => {
            format!("switch {} -> switch {} (port {}, lane {}{vl})", c.0 + 1, to + 1, c.1, lane + 1)
        }
        other => format!("switch {} port {} ({other:?}{vl})", c.0 + 1, c.1),
    }
}

/// The verdict on every VL of `vls`, for packets that keep one VL from
/// source to destination (an SL mapped to the same VL at every hop): tables
/// keyed by destination send every VL's packets along the same routes, so
/// each VL's channels form a copy of the one-VL graph, and one analysis
/// decides them all (a cycle is named on each VL it closes on).
pub fn analyze_per_lane(topo: &Topology, tables: &impl Routes, vls: &[u8]) -> Result<Vec<(u8, DependencyReport)>> {
    let one = analyze(topo, tables)?;
    Ok(vls
        .iter()
        .map(|&vl| {
            let mut r = one.clone();
            r.cycle = r.cycle.iter().map(|c| format!("{c} on VL {vl}")).collect();
            (vl, r)
        })
        .collect())
}

/// Builds the channel dependency graph of `tables` over `topo` with one VL
/// and looks for a cycle.
pub fn analyze(topo: &Topology, tables: &impl Routes) -> Result<DependencyReport> {
    analyze_with_lanes(topo, tables, &OneLane)
}

/// Builds the channel dependency graph of `tables` over `topo`, each hop on
/// the VL `lanes` assigns, and looks for a cycle. Most routings have none:
/// their dependencies are checked as a sorted list, in a tenth of the
/// memory of the hashed graph that names a cycle, which is built only when
/// there is one to name.
pub fn analyze_with_lanes(topo: &Topology, tables: &impl Routes, lanes: &dyn VirtualLanes) -> Result<DependencyReport> {
    let map = topo.port_map();
    let (channels, edges) = dependencies(topo, &map, tables, lanes)?;
    if is_acyclic(&channels, &edges)? {
        return Ok(DependencyReport {
            acyclic: true,
            channels: channels.len(),
            dependencies: edges.len(),
            cycle: Vec::new(),
        });
    }
    let g = graph_of(&channels, edges)?;
    let cycle: Vec<String> = find_cycle(&g)
        .map(|c| c.into_iter().map(|ch| channel_name(&map, ch, lanes.count())).collect())
        .unwrap_or_default();
    Ok(DependencyReport { acyclic: cycle.is_empty(), channels: g.node_count(), dependencies: g.edge_count(), cycle })
}

/// Whether the dependencies `edges` (sorted, each once) among `channels`
/// (sorted) have no cycle: Kahn's algorithm, every channel removed once
/// nothing leads to it. A build's watcher may stop it.
fn is_acyclic(channels: &[Channel], edges: &[Dependency]) -> Result<bool> {
    const STAGE: &str = "a cycle of channel dependencies";
    let index = |c: &Channel| channels.binary_search(c).expect("a dependency joins two channels") as u32;
    // Edges come sorted by their first channel: the graph in compressed rows.
    let mut first = vec![0u32; channels.len() + 1];
    let mut to = Vec::with_capacity(edges.len());
    let mut into = vec![0u32; channels.len()];
    for (k, (a, b)) in edges.iter().enumerate() {
        if k % (1 << 16) == 0 {
            crate::sim::build_watch::step(STAGE, k, 2 * edges.len())?;
        }
        first[index(a) as usize + 1] += 1;
        let b = index(b);
        to.push(b);
        into[b as usize] += 1;
    }
    for c in 0..channels.len() {
        first[c + 1] += first[c];
    }
    let mut free: Vec<u32> = (0..channels.len() as u32).filter(|&c| into[c as usize] == 0).collect();
    let (mut removed, mut followed) = (0usize, 0usize);
    while let Some(c) = free.pop() {
        removed += 1;
        for &b in &to[first[c as usize] as usize..first[c as usize + 1] as usize] {
            into[b as usize] -= 1;
            if into[b as usize] == 0 {
                free.push(b);
            }
        }
        followed += (first[c as usize + 1] - first[c as usize]) as usize;
        if removed % (1 << 12) == 0 {
            crate::sim::build_watch::step(STAGE, edges.len() + followed, 2 * edges.len())?;
        }
    }
    Ok(removed == channels.len())
}

/// Bytes the check of a routing's dependencies over `topo` (one VL) holds
/// at most: the walk's state per switch port and kind of arrival, its bit
/// per possible dependency, the channels, and the dependencies as a sorted
/// list with Kahn's rows, each link port's from every other link port of its
/// switch. A routing that has a cycle also builds a hashed graph of its
/// dependencies (about 60 bytes each) to name one: not counted, as most
/// have none.
pub fn dependency_check_bytes(topo: &Topology) -> u64 {
    let (mut states, mut bits, mut channels, mut edges) = (0u64, 0u64, 0u64, 0u64);
    for (&radix, links) in topo.radix.iter().zip(topo.link_ports_per_switch()) {
        let (ports, links) = (radix as u64, links as u64);
        states += 2 * ports;
        bits += 2 * ports * ports;
        channels += links;
        edges += links * links.saturating_sub(1);
    }
    16 * states + bits / 8 + 16 * channels + 20 * edges
}

/// The channel dependency graph: every link lane on every VL a channel,
/// and an edge for each pair of consecutive channels on some route.
/// Follows every route choice from every endpoint to every endpoint on
/// another switch.
///
/// Routes to one destination merge into a tree, so the walk visits each
/// (switch, input port, input VL) once per destination when the VLs do not
/// depend on the source, and once per route otherwise: linear in the
/// endpoints rather than quadratic for the usual one-VL or per-destination
/// lanes. Edges are added in channel order, so the graph (and the cycle
/// reported) does not depend on the order of the walk.
pub fn dependency_graph(
    topo: &Topology,
    map: &[Vec<PortUse>],
    tables: &impl Routes,
    lanes: &dyn VirtualLanes,
) -> Result<DiGraphMap<Channel, ()>> {
    let (channels, edges) = dependencies(topo, map, tables, lanes)?;
    graph_of(&channels, edges)
}

/// The graph of `channels` and their dependencies `edges` (in that order,
/// so that the graph, and the cycle named, do not depend on the walk).
fn graph_of(channels: &[Channel], edges: Vec<Dependency>) -> Result<DiGraphMap<Channel, ()>> {
    let mut g: DiGraphMap<Channel, ()> = DiGraphMap::new();
    for &c in channels {
        g.add_node(c);
    }
    let total = edges.len();
    for (done, (i, c)) in edges.into_iter().enumerate() {
        if done % (1 << 16) == 0 {
            crate::sim::build_watch::step("the channel dependency graph", done, total)?;
        }
        g.add_edge(i, c, ());
    }
    Ok(g)
}

/// The graph's channels (sorted) and dependencies (sorted, each once), as
/// [`dependency_graph`] walks them.
fn dependencies(
    topo: &Topology,
    map: &[Vec<PortUse>],
    tables: &impl Routes,
    lanes: &dyn VirtualLanes,
) -> Result<(Vec<Channel>, Vec<Dependency>)> {
    let endpoint_switch = topo.endpoint_switch();
    let mut channels: Vec<Channel> = Vec::new();
    for (s, ports) in map.iter().enumerate() {
        for (p, u) in ports.iter().enumerate() {
            if matches!(u, PortUse::Link { .. }) {
                for vl in 0..lanes.count() {
                    channels.push((s as u32, p as u16, vl));
                }
            }
        }
    }
    let peer = topo.peer_ports();
    // A walk state is (switch, input port, input VL or none from a source).
    let mut first_state = Vec::with_capacity(map.len());
    let per_port = lanes.count() as usize + 1;
    let mut states = 0;
    for ports in map {
        first_state.push(states);
        states += ports.len() * per_port;
    }
    let state = |s: u32, port: u16, lane: Option<u8>| {
        first_state[s as usize] + port as usize * per_port + lane.map_or(0, |l| l as usize + 1)
    };
    // Stamps instead of clearing: a state is on the walk's current path while
    // entered == stamp > finished, and done once finished == stamp.
    let (mut entered, mut finished) = (vec![0u64; states], vec![0u64; states]);
    let mut stamp = 0u64;
    // Edges found so far: a bit matrix per switch, its walk states by its
    // output channels, so that each edge is kept once without hashing.
    let lane_count = lanes.count() as usize;
    let mut first_bit = Vec::with_capacity(map.len());
    let mut bits = 0usize;
    for ports in map {
        first_bit.push(bits);
        bits += ports.len() * per_port * ports.len() * lane_count;
    }
    let mut seen = vec![0u64; bits.div_ceil(64)];
    let mut edges: Vec<Dependency> = Vec::new();
    enum Step {
        Enter(u32, u16, Option<Channel>),
        Leave(usize),
    }
    let mut stack: Vec<Step> = Vec::new();
    let by_destination = lanes.ignores_source();
    // By destination, the sources of one switch leave it alike: the first
    // walks for all (so the walk is linear in switches x endpoints).
    let mut started = vec![0u64; map.len()];
    for (n, &d) in endpoint_switch.iter().enumerate() {
        crate::sim::build_watch::step("channel dependencies", n, endpoint_switch.len())?;
        if by_destination {
            stamp += 1;
        }
        for (src, source) in topo.endpoints.iter().enumerate() {
            let a = source.switch;
            if a == d || (by_destination && started[a as usize] == stamp) {
                continue;
            }
            if by_destination {
                started[a as usize] = stamp;
            } else {
                stamp += 1;
            }
            stack.push(Step::Enter(a, source.port, None));
            while let Some(step) = stack.pop() {
                let (s, in_port, incoming) = match step {
                    Step::Leave(at) => {
                        finished[at] = stamp;
                        continue;
                    }
                    Step::Enter(s, in_port, incoming) => (s, in_port, incoming),
                };
                let at = state(s, in_port, incoming.map(|c| c.2));
                if finished[at] == stamp {
                    continue;
                }
                if entered[at] == stamp {
                    return Err(Error::invalid(
                        "routing",
                        format!("node {n} from switch {}", a + 1),
                        "forwarding tables without loops (a frame must reach its node)",
                    ));
                }
                entered[at] = stamp;
                stack.push(Step::Leave(at));
                for p in tables.ports_of(s as usize, n) {
                    match map[s as usize][p as usize] {
                        PortUse::Endpoint(_) => {}
                        PortUse::Link { to, .. } => {
                            let hop = Hop {
                                source: src as u32,
                                destination: n as u32,
                                switch: s,
                                in_port,
                                in_lane: incoming.map(|c| c.2),
                                out_port: p,
                            };
                            let c = (s, p, lanes.lane(&hop));
                            if let Some(i) = incoming {
                                let outputs = map[s as usize].len() * lane_count;
                                let local = at - first_state[s as usize];
                                let b =
                                    first_bit[s as usize] + local * outputs + p as usize * lane_count + c.2 as usize;
                                if seen[b / 64] & (1 << (b % 64)) == 0 {
                                    seen[b / 64] |= 1 << (b % 64);
                                    edges.push((i, c));
                                }
                            }
                            let q = peer[s as usize][p as usize].expect("links are wired both ways");
                            stack.push(Step::Enter(to, q, Some(c)));
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
    edges.sort_unstable();
    Ok((channels, edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{routing_tables, LaneChoice, RoutingParams};
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

    /// A VL per hop count (VL = hops taken so far) turns the clockwise
    /// ring's cycle into a chain: each VL is a separate channel.
    #[test]
    fn virtual_lanes_are_separate_channels() {
        struct ByHop;
        impl VirtualLanes for ByHop {
            fn count(&self) -> u8 {
                2
            }
            fn lane(&self, hop: &Hop) -> u8 {
                hop.in_lane.map_or(0, |vl| vl + 1)
            }
        }
        let params = ShapeParams { radix: Some(16), ..ShapeParams::default() };
        let topo = build_shape("envelope", &params).unwrap();
        let t = routing_tables("clockwise", &topo, &RoutingParams::default()).unwrap();
        let one = analyze(&topo, &t).unwrap();
        let two = analyze_with_lanes(&topo, &t, &ByHop).unwrap();
        assert!(!one.acyclic && two.acyclic);
        assert_eq!(two.channels, 2 * one.channels);
        assert_eq!(two.dependencies, one.dependencies);
    }

    /// Over many irregular networks of seed 003's kind, Up*/Down* never has
    /// a dependency cycle, whatever the root; SPF has one on some.
    #[test]
    fn updown_is_always_acyclic_and_spf_sometimes_cyclic() {
        let (mut graphs, mut spf_cyclic) = (0, 0);
        for seed in 0..120u64 {
            let switches = if seed % 3 == 0 { 30 } else { 15 };
            let shape = ShapeParams { switches: Some(switches), seed, ..ShapeParams::default() };
            let topo = build_shape("irregular", &shape).unwrap();
            let root = (seed * 7 % switches as u64) as u32;
            let updown = RoutingParams { root: Some(root), ..RoutingParams::default() };
            let r = analyze(&topo, &routing_tables("updown", &topo, &updown).unwrap()).unwrap();
            assert!(r.acyclic, "seed {seed}, root {root}: {:?}", r.cycle);
            let r = analyze(&topo, &routing_tables("spf", &topo, &RoutingParams::default()).unwrap()).unwrap();
            spf_cyclic += !r.acyclic as u32;
            graphs += 1;
        }
        assert!(graphs >= 100);
        assert!(spf_cyclic > 0, "SPF acyclic on all {graphs} networks");
    }

    /// The list check (Kahn's algorithm) and the graph's search agree on
    /// whether there is a cycle, on SPF's routes (cyclic on some networks)
    /// and Up*/Down*'s (never); the counts are the graph's.
    #[test]
    fn the_sorted_list_check_agrees_with_the_graphs_cycle_search() {
        let mut cyclic = 0;
        for seed in 0..40u64 {
            let shape = ShapeParams { switches: Some(30), seed, ..ShapeParams::default() };
            let topo = build_shape("irregular", &shape).unwrap();
            let map = topo.port_map();
            for algorithm in ["spf", "updown"] {
                let t = routing_tables(algorithm, &topo, &RoutingParams::default()).unwrap();
                let (channels, edges) = dependencies(&topo, &map, &t, &OneLane).unwrap();
                let g = dependency_graph(&topo, &map, &t, &OneLane).unwrap();
                assert_eq!((channels.len(), edges.len()), (g.node_count(), g.edge_count()));
                let acyclic = is_acyclic(&channels, &edges).unwrap();
                assert_eq!(acyclic, find_cycle(&g).is_none(), "seed {seed}, {algorithm}");
                cyclic += !acyclic as u32;
            }
        }
        assert!(cyclic > 0, "some SPF routing has a cycle");
    }

    /// The walk shared by every route to a destination finds exactly the
    /// dependencies of the walk along each route on its own, with one lane
    /// per entry (SPF, Up*/Down*) and with several (randomized trunks).
    #[test]
    fn walking_per_destination_finds_every_route_dependency() {
        struct PerRoute;
        impl VirtualLanes for PerRoute {
            fn count(&self) -> u8 {
                1
            }
            fn lane(&self, _: &Hop) -> u8 {
                0
            }
        }
        let edges = |g: DiGraphMap<Channel, ()>| {
            let mut e: Vec<(Channel, Channel)> = g.all_edges().map(|(a, b, _)| (a, b)).collect();
            e.sort_unstable();
            e
        };
        for seed in 0..12u64 {
            let shape = ShapeParams { switches: Some(15), seed, ..ShapeParams::default() };
            let topo = build_shape("irregular", &shape).unwrap();
            let map = topo.port_map();
            for algorithm in ["spf", "updown"] {
                let t = routing_tables(algorithm, &topo, &RoutingParams::default()).unwrap();
                let shared = edges(dependency_graph(&topo, &map, &t, &OneLane).unwrap());
                assert!(!shared.is_empty());
                assert_eq!(shared, edges(dependency_graph(&topo, &map, &t, &PerRoute).unwrap()), "seed {seed}");
            }
        }
        let params = ShapeParams { radix: Some(16), multiplicity: Some(3), ..ShapeParams::default() };
        let topo = build_shape("star", &params).unwrap();
        let randomized = RoutingParams { lanes: LaneChoice::Randomized, ..RoutingParams::default() };
        let t = routing_tables("shortest", &topo, &randomized).unwrap();
        assert!(t.ports.iter().flatten().any(|e| e.len() > 1), "several trunk lanes per entry");
        let map = topo.port_map();
        let shared = edges(dependency_graph(&topo, &map, &t, &OneLane).unwrap());
        assert_eq!(shared, edges(dependency_graph(&topo, &map, &t, &PerRoute).unwrap()));
    }

    #[test]
    fn a_routing_loop_is_an_error_naming_the_node() {
        let params = ShapeParams { radix: Some(16), ..ShapeParams::default() };
        let topo = build_shape("envelope", &params).unwrap();
        let mut t = routing_tables("shortest", &topo, &RoutingParams::default()).unwrap();
        let map = topo.port_map();
        // Send switch 1's traffic for a node of switch 3 to switch 2, and
        // switch 2's back to switch 1.
        let node = topo.endpoints.iter().position(|e| e.switch == 2).unwrap();
        let port_to =
            |s: usize, to: u32| map[s].iter().position(|u| matches!(u, PortUse::Link { to: t, .. } if *t == to));
        let (p01, p10) = (port_to(0, 1).unwrap(), port_to(1, 0).unwrap());
        t.ports[0][node] = vec![p01 as u16];
        t.ports[1][node] = vec![p10 as u16];
        let e = analyze(&topo, &t).unwrap_err().to_string();
        assert!(e.contains(&format!("node {node}")) && e.contains("without loops"), "{e}");
        assert_eq!(t.mean_hops(&topo).unwrap(), None);
    }
}
