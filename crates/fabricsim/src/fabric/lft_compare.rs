//! Two sets of linear forwarding tables of one fabric side by side: how
//! many (switch, adapter port) entries take the same output port and the
//! same number of hops, and how evenly each spreads the routes of all
//! adapter pairs over the switch-to-switch ports. Used to hold the routing
//! engines to OpenSM's own tables.

use serde::Serialize;

use super::forwarding::{LinearTables, NO_ROUTE};
use super::topology::{PortUse, Topology};

/// How the routes of every ordered pair of adapter ports on different
/// switches spread over the switch-to-switch output ports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Balance {
    /// Switch-to-switch output ports in the fabric.
    pub link_ports: usize,
    /// Of them, the ports some route leaves by.
    pub used_ports: usize,
    /// Routes out of the busiest port, and the mean over all link ports.
    pub max_routes: u64,
    pub mean_routes: f64,
    /// Jain's fairness index of the routes per link port (1 = even).
    pub jain: f64,
    /// Pairs whose route does not arrive (no entry, a loop, a wrong port).
    pub unrouted_pairs: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Parity {
    /// (switch, adapter port) entries compared.
    pub entries: u64,
    pub same_port: u64,
    /// Entries whose routes take as many hops, or neither arrives.
    pub same_hops: u64,
    pub ours: Balance,
    pub theirs: Balance,
}

impl Parity {
    pub fn same_port_share(&self) -> f64 {
        self.same_port as f64 / self.entries.max(1) as f64
    }

    pub fn same_hops_share(&self) -> f64 {
        self.same_hops as f64 / self.entries.max(1) as f64
    }
}

/// Switch hops from every switch to endpoint `e` under `t` (None: never arrives).
fn hops_to(topo: &Topology, map: &[Vec<PortUse>], t: &LinearTables, e: u32, out: &mut [Option<u32>]) {
    const UNKNOWN: u32 = u32::MAX;
    let lid = t.lids.endpoint[e as usize];
    let n = topo.switch_count();
    // state: UNKNOWN, or ON_PATH while walking, or hops + 1 (0 = never arrives).
    let mut state = vec![UNKNOWN; n];
    let mut walk = Vec::new();
    for start in 0..n {
        let mut s = start;
        let result = loop {
            match state[s] {
                UNKNOWN => {}
                x if x == UNKNOWN - 1 => break 0, // a loop
                x => break if x == 0 { 0 } else { x + 1 },
            }
            state[s] = UNKNOWN - 1;
            walk.push(s);
            let p = t.port(s, lid);
            if p == 0 || p == NO_ROUTE {
                break 0;
            }
            match map[s].get(p as usize - 1) {
                Some(PortUse::Endpoint(x)) if *x == e => break 1,
                Some(PortUse::Link { to, .. }) => s = *to as usize,
                _ => break 0,
            }
        };
        // `result` is the state of the last switch walked: hops + 1, or 0.
        let mut value = result;
        while let Some(w) = walk.pop() {
            state[w] = value;
            value = if value == 0 { 0 } else { value + 1 };
        }
    }
    for (o, &st) in out.iter_mut().zip(&state) {
        *o = if st == 0 || st == UNKNOWN { None } else { Some(st - 1) };
    }
}

fn balance(topo: &Topology, map: &[Vec<PortUse>], t: &LinearTables) -> Balance {
    let mut first = Vec::with_capacity(map.len());
    let mut total = 0;
    for row in map {
        first.push(total);
        total += row.len();
    }
    let mut routes = vec![0u64; total];
    let per_switch = topo.endpoints_per_switch();
    let mut unrouted = 0u64;
    let mut hops = vec![None; topo.switch_count()];
    for (e, dest) in topo.endpoints.iter().enumerate() {
        hops_to(topo, map, t, e as u32, &mut hops);
        let lid = t.lids.endpoint[e];
        for (a, &sources) in per_switch.iter().enumerate() {
            if sources == 0 || a == dest.switch as usize {
                continue;
            }
            if hops[a].is_none() {
                unrouted += sources as u64;
                continue;
            }
            let mut s = a;
            while s != dest.switch as usize {
                let p = t.port(s, lid) as usize - 1;
                routes[first[s] + p] += sources as u64;
                let PortUse::Link { to, .. } = map[s][p] else { break };
                s = to as usize;
            }
        }
    }
    let link: Vec<u64> = map
        .iter()
        .enumerate()
        .flat_map(|(s, row)| {
            let routes = &routes;
            let f = first[s];
            row.iter().enumerate().filter(|(_, u)| matches!(u, PortUse::Link { .. })).map(move |(p, _)| routes[f + p])
        })
        .collect();
    let n = link.len().max(1) as f64;
    let sum: f64 = link.iter().map(|&r| r as f64).sum();
    let loads: Vec<f64> = link.iter().map(|&r| r as f64).collect();
    Balance {
        link_ports: link.len(),
        used_ports: link.iter().filter(|&&r| r > 0).count(),
        max_routes: link.iter().copied().max().unwrap_or(0),
        mean_routes: sum / n,
        jain: crate::traffic::patterns::jain_index(&loads),
        unrouted_pairs: unrouted,
    }
}

/// Compares `ours` with `theirs`, both over `topo` (each with its own LIDs).
pub fn compare(topo: &Topology, ours: &LinearTables, theirs: &LinearTables) -> Parity {
    let map = topo.port_map();
    let n = topo.switch_count();
    let (mut a, mut b) = (vec![None; n], vec![None; n]);
    let (mut entries, mut same_port, mut same_hops) = (0, 0, 0);
    for e in 0..topo.endpoints.len() {
        hops_to(topo, &map, ours, e as u32, &mut a);
        hops_to(topo, &map, theirs, e as u32, &mut b);
        let (la, lb) = (ours.lids.endpoint[e], theirs.lids.endpoint[e]);
        for s in 0..n {
            entries += 1;
            same_port += (ours.port(s, la) == theirs.port(s, lb)) as u64;
            // Two entries with no route at all (a root to a root under
            // Up*/Down*) agree too.
            same_hops += (a[s] == b[s]) as u64;
        }
    }
    Parity { entries, same_port, same_hops, ours: balance(topo, &map, ours), theirs: balance(topo, &map, theirs) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{linear_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn tables_match_themselves_and_minhop_and_ftree_differ_in_balance() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(4), levels: Some(3), ..Default::default() }).unwrap();
        let min_hop = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        let ftree = linear_tables("ftree", &topo, &RoutingParams::default()).unwrap();
        let same = compare(&topo, &min_hop, &min_hop);
        assert_eq!((same.same_port, same.same_hops), (same.entries, same.entries));
        assert_eq!(same.entries, 48 * 64);
        let p = compare(&topo, &min_hop, &ftree);
        // Both minimal: every hop count agrees, not every port.
        assert_eq!(p.same_hops, p.entries);
        assert!(p.same_port < p.entries);
        assert_eq!(p.ours.unrouted_pairs, 0);
        // Every route crosses the same number of links: equal means. D-Mod-K
        // uses every link port (levels differ: leaf up ports carry 60 routes,
        // the upper 48); minhop leaves 96 unused and piles 192 on some.
        assert!((p.ours.mean_routes - p.theirs.mean_routes).abs() < 1e-9);
        assert_eq!((p.ours.used_ports, p.theirs.used_ports, p.theirs.link_ports), (160, 256, 256));
        assert_eq!((p.ours.max_routes, p.theirs.max_routes), (192, 60));
        assert!(p.theirs.jain > 0.98 && p.ours.jain < 0.5, "{p:?}");
    }
}
