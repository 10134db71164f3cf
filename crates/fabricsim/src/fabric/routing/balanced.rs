//! How OpenSM fills linear forwarding tables once a routing engine has told
//! it which ports of each switch lead towards each destination switch by the
//! fewest hops (`osm_ucast_mgr.c`, `osm_switch_recommend_path` with LMC 0,
//! no port shifting, no scatter): the minhop and Up*/Down* engines differ
//! only in those candidate ports.
//!
//! - Destinations are taken in OpenSM's port order: switches by the number
//!   of adapter ports cabled to them, most first (ties in the order of
//!   OpenSM's switch GUID map), each switch's adapter ports by port number;
//!   then the switches' own LIDs.
//! - Each switch routes an adapter port on its own switch out of the port it
//!   is cabled to, and any other out of the candidate port that carries the
//!   fewest adapter destinations so far, the lowest-numbered on a tie, then
//!   counts it there. Routes to switch LIDs are chosen the same way but not
//!   counted (OpenSM's `port_profile_switch_nodes` is off by default).
//!
//! Work is linear in switches x LIDs x candidate ports; memory is the
//! tables themselves (a byte per switch and LID) and a count per switch port.

use crate::error::Result;
use crate::fabric::forwarding::LinearTables;
use crate::fabric::identity::{opensm_guid_order, Identity};
use crate::fabric::lids::Lids;
use crate::fabric::topology::{PortUse, Topology};

/// The candidate ports (IBA numbers, increasing) of every switch towards one
/// destination switch; a routing engine fills it.
pub struct Candidates {
    start: Vec<u32>,
    ports: Vec<u8>,
}

impl Candidates {
    pub fn new(switches: usize) -> Candidates {
        Candidates { start: vec![0; switches + 1], ports: Vec::new() }
    }

    /// Starts over; then `push` every switch's ports in switch order and `end_switch` after each.
    pub fn clear(&mut self) {
        self.ports.clear();
        self.start.truncate(1);
    }

    pub fn push(&mut self, port: u8) {
        self.ports.push(port);
    }

    pub fn end_switch(&mut self) {
        self.start.push(self.ports.len() as u32);
    }

    pub fn of(&self, s: usize) -> &[u8] {
        &self.ports[self.start[s] as usize..self.start[s + 1] as usize]
    }
}

/// Every switch's link ports as (IBA port, switch at the far end), in port order.
pub fn switch_links(topo: &Topology) -> Vec<Vec<(u8, u32)>> {
    topo.port_map()
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .filter_map(|(p, u)| match *u {
                    PortUse::Link { to, .. } => Some((p as u8 + 1, to)),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Switches in the order OpenSM takes their adapter ports as destinations
/// (switches without any are left out).
pub fn destination_switch_order(topo: &Topology, id: &Identity) -> Vec<u32> {
    let per_switch = topo.endpoints_per_switch();
    let mut order: Vec<u32> = (0..topo.switch_count() as u32).filter(|&s| per_switch[s as usize] > 0).collect();
    order.sort_by_key(|&s| {
        (std::cmp::Reverse(per_switch[s as usize]), opensm_guid_order(id.switches[s as usize].node.guid), s)
    });
    order
}

/// Which ports each switch may route a destination through: a routing
/// engine's part in `balanced_tables`.
pub trait PortRule {
    /// Prepares the routes towards destination switch `d`.
    fn towards(&mut self, d: u32);
    /// Starts one destination (an adapter port or the switch itself) of that switch.
    fn start(&mut self) {}
    /// The order in which switches choose, for rules where one switch's
    /// choice narrows another's (every switch, once).
    fn order(&self) -> &[u32];
    /// The ports switch `s` may choose from (IBA numbers, increasing).
    fn candidates(&self, s: u32) -> &[u8];
    /// Switch `s` routes the destination out of port `p`.
    fn chose(&mut self, _s: u32, _p: u8) {}
}

/// A rule whose candidates do not depend on other switches' choices.
pub struct FixedCandidates {
    pub cand: Candidates,
    order: Vec<u32>,
}

impl FixedCandidates {
    pub fn new(switches: usize) -> FixedCandidates {
        FixedCandidates { cand: Candidates::new(switches), order: (0..switches as u32).collect() }
    }
}

/// Linear forwarding tables at `lids`, each switch choosing among the ports
/// `rule` allows towards each destination.
pub fn balanced_tables(topo: &Topology, lids: Lids, rule: &mut impl PortRule) -> Result<LinearTables> {
    let n = topo.switch_count();
    let id = topo.subnet_identity();
    let mut tables = LinearTables::empty(n, lids);
    // Destinations routed out of each switch port so far (port 0 unused).
    let mut first_port = Vec::with_capacity(n + 1);
    let mut total = 0usize;
    for &r in &topo.radix {
        first_port.push(total);
        total += r as usize + 1;
    }
    let mut paths = vec![0u32; total];
    // Each switch's endpoints in port order.
    let mut on_switch: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (e, ep) in topo.endpoints.iter().enumerate() {
        on_switch[ep.switch as usize].push(e as u32);
    }
    for list in &mut on_switch {
        list.sort_by_key(|&e| topo.endpoints[e as usize].port);
    }
    let pick = |paths: &[u32], s: usize, ports: &[u8]| -> Option<u8> {
        // The first port of least count: min_by_key keeps the first of equals.
        ports.iter().copied().min_by_key(|&p| paths[first_port[s] + p as usize])
    };
    let mut order = Vec::with_capacity(n);
    for (done, d) in destination_switch_order(topo, &id).into_iter().enumerate() {
        crate::sim::build_watch::step("balanced tables", done, n)?;
        rule.towards(d);
        order.clear();
        order.extend_from_slice(rule.order());
        for &e in &on_switch[d as usize] {
            rule.start();
            let lid = tables.lids.endpoint[e as usize];
            for &s in &order {
                let s = s as usize;
                let port = if s == d as usize {
                    Some(topo.endpoints[e as usize].port as u8 + 1)
                } else {
                    pick(&paths, s, rule.candidates(s as u32))
                };
                if let Some(p) = port {
                    paths[first_port[s] + p as usize] += 1;
                    tables.set(s, lid, p);
                    rule.chose(s as u32, p);
                }
            }
        }
    }
    for d in 0..n as u32 {
        crate::sim::build_watch::step("switch LIDs' routes", d as usize, n)?;
        rule.towards(d);
        rule.start();
        order.clear();
        order.extend_from_slice(rule.order());
        let lid = tables.lids.switch[d as usize];
        for &s in &order {
            let s = s as usize;
            let port = if s == d as usize { Some(0) } else { pick(&paths, s, rule.candidates(s as u32)) };
            if let Some(p) = port {
                tables.set(s, lid, p);
                rule.chose(s as u32, p);
            }
        }
    }
    Ok(tables)
}

impl PortRule for FixedCandidates {
    fn towards(&mut self, _d: u32) {}

    fn order(&self) -> &[u32] {
        &self.order
    }

    fn candidates(&self, s: u32) -> &[u8] {
        self.cand.of(s as usize)
    }
}
