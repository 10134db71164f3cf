//! Forwarding tables: for every switch and destination endpoint, the output
//! ports a frame or packet for that endpoint may leave by. One port is a
//! deterministic route (an InfiniBand linear forwarding table entry); several
//! are drawn from uniformly per frame (Fibre Channel's randomized trunk
//! choice). Every routing algorithm produces this one type, so the models,
//! the deadlock analysis and the report read any of them alike.

use serde::Serialize;

use super::lids::{LidOwner, Lids};
use super::topology::{PortUse, Topology};

/// A linear forwarding table entry for a LID the switch has no route to.
pub const NO_ROUTE: u8 = 255;

/// Linear forwarding tables as InfiniBand switches hold them: one output
/// port byte per destination LID (IBA port numbers: 0 is the switch itself,
/// 1 to 254 its ports, 255 no route), every switch a row of `top + 1`
/// bytes, up to the 48K unicast LIDs. Entries for switch LIDs are kept too,
/// as a subnet manager writes them (management traffic uses them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearTables {
    pub lids: Lids,
    width: usize,
    ports: Vec<u8>,
}

impl LinearTables {
    /// Tables of `switches` switches with no route anywhere.
    pub fn empty(switches: usize, lids: Lids) -> LinearTables {
        let width = lids.top() as usize + 1;
        LinearTables { lids, width, ports: vec![NO_ROUTE; switches * width] }
    }

    pub fn switch_count(&self) -> usize {
        self.ports.len() / self.width.max(1)
    }

    /// The highest LID of the tables.
    pub fn top(&self) -> u16 {
        (self.width - 1) as u16
    }

    /// Switch `s`'s port for `lid` (an IBA port number, or `NO_ROUTE`).
    pub fn port(&self, s: usize, lid: u16) -> u8 {
        self.ports[s * self.width + lid as usize]
    }

    pub fn set(&mut self, s: usize, lid: u16, port: u8) {
        self.ports[s * self.width + lid as usize] = port;
    }

    /// Switch `s`'s whole table, indexed by LID.
    pub fn row(&self, s: usize) -> &[u8] {
        &self.ports[s * self.width..(s + 1) * self.width]
    }

    /// Heap bytes held: one per (switch, LID) and the LID lists.
    pub fn memory_bytes(&self) -> u64 {
        (self.ports.capacity() + 2 * (self.lids.switch.capacity() + self.lids.endpoint.capacity())) as u64
    }

    /// The same routes keyed by endpoint, with topology port numbers
    /// (an IBA port minus one): what a switch of the model holds.
    pub fn to_endpoint_tables(&self) -> EndpointTables {
        let mut t = EndpointTables::empty(self.switch_count(), self.lids.endpoint.len());
        for s in 0..self.switch_count() {
            for (e, &lid) in self.lids.endpoint.iter().enumerate() {
                if let p @ 1..=254 = self.port(s, lid) {
                    t.set(s, e, p as u16 - 1);
                }
            }
        }
        t
    }

    /// The same routes keyed by endpoint, for what reads `ForwardingTables`.
    pub fn to_forwarding_tables(&self) -> ForwardingTables {
        self.to_endpoint_tables().to_forwarding_tables()
    }

    /// Tables keyed by LID from per-endpoint tables (the first port of
    /// every entry): endpoints at `lids`, each switch's own LID on port 0;
    /// other switches' LIDs get no route (the per-endpoint tables say none).
    pub fn from_forwarding_tables(tables: &impl Routes, lids: Lids) -> LinearTables {
        let mut t = LinearTables::empty(lids.switch.len(), lids);
        for s in 0..t.switch_count() {
            t.set(s, t.lids.switch[s], 0);
            for e in 0..t.lids.endpoint.len() {
                if let Some(p) = tables.first_port(s, e) {
                    t.set(s, t.lids.endpoint[e], (p + 1) as u8);
                }
            }
        }
        t
    }

    /// Where every LID of the tables leads.
    pub fn owners(&self) -> Vec<Option<LidOwner>> {
        self.lids.owners()
    }
}

/// What the analyses read of any forwarding tables (the per-endpoint lists
/// of [`ForwardingTables`], the port bytes of [`EndpointTables`]): the
/// output ports of a switch towards a destination endpoint.
pub trait Routes {
    /// Every port a frame for endpoint `e` may leave switch `s` by (none: no route).
    fn ports_of(&self, s: usize, e: usize) -> impl Iterator<Item = u16> + '_;

    /// The first of them (a deterministic routing's only one).
    fn first_port(&self, s: usize, e: usize) -> Option<u16> {
        self.ports_of(s, e).next()
    }

    /// The switches a packet for endpoint `dest` visits from switch `from`
    /// (both included), taking the first port of every entry; None when an
    /// entry is missing, leads to a free port or another endpoint, or the
    /// route loops.
    fn path(&self, topo: &Topology, map: &[Vec<PortUse>], from: u32, dest: u32) -> Option<Vec<u32>> {
        let mut path = vec![from];
        let mut s = from;
        loop {
            let p = self.first_port(s as usize, dest as usize)?;
            match map[s as usize].get(p as usize)? {
                PortUse::Endpoint(e) if *e == dest => return Some(path),
                PortUse::Link { to, .. } => {
                    s = *to;
                    path.push(s);
                    if path.len() > topo.switch_count() {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }

    /// Mean switch-to-switch hops over all pairs of endpoints on different
    /// switches (first port of every entry): a yardstick to compare routings
    /// of one topology, e.g. Up*/Down* from several roots. None when some
    /// endpoint is unreachable; an error only when a build's watcher stops it.
    fn mean_hops(&self, topo: &Topology) -> crate::error::Result<Option<f64>> {
        let map = topo.port_map();
        let switch_of = topo.endpoint_switch();
        let per_switch = topo.endpoints_per_switch();
        let (mut hops, mut pairs) = (0u64, 0u64);
        // Hops from each switch to the destination, found once per
        // destination (routes to it share their tails); UNKNOWN marks a
        // switch not reached yet, ON_PATH one on the walk in progress.
        const UNKNOWN: u32 = u32::MAX;
        const ON_PATH: u32 = u32::MAX - 1;
        let mut to_dest = vec![UNKNOWN; topo.switch_count()];
        let mut walk: Vec<u32> = Vec::new();
        for (dest, &d) in switch_of.iter().enumerate() {
            crate::sim::build_watch::step("route lengths", dest, switch_of.len())?;
            to_dest.fill(UNKNOWN);
            // Every source switch's route to `dest`: None if one loops or ends elsewhere.
            let mut walk_all = || -> Option<()> {
                for (a, &sources) in per_switch.iter().enumerate() {
                    if sources == 0 || d as usize == a {
                        continue;
                    }
                    let mut s = a as u32;
                    let mut known = loop {
                        match to_dest[s as usize] {
                            UNKNOWN => {}
                            ON_PATH => return None, // the route loops
                            h => break h + 1,       // for the last switch walked
                        }
                        to_dest[s as usize] = ON_PATH;
                        walk.push(s);
                        let p = self.first_port(s as usize, dest)?;
                        match map[s as usize].get(p as usize)? {
                            PortUse::Endpoint(e) if *e as usize == dest => break 0,
                            PortUse::Link { to, .. } => s = *to,
                            _ => return None,
                        }
                    };
                    while let Some(s) = walk.pop() {
                        to_dest[s as usize] = known;
                        known += 1;
                    }
                    hops += sources as u64 * to_dest[a] as u64;
                    pairs += sources as u64;
                }
                Some(())
            };
            if walk_all().is_none() {
                return Ok(None);
            }
        }
        Ok(Some(if pairs > 0 { hops as f64 / pairs as f64 } else { 0.0 }))
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ForwardingTables {
    /// `ports[s][e]`: output ports of switch `s` towards endpoint `e`.
    pub ports: Vec<Vec<Vec<u16>>>,
}

/// The smallest heap block glibc's allocator hands out: what an entry's
/// one-port list takes.
const MIN_HEAP_BLOCK: u64 = 32;

impl ForwardingTables {
    /// Heap bytes of the tables of `switches` switches to `endpoints`
    /// endpoints with one port per entry (a deterministic routing), before
    /// they are built.
    pub fn bytes_for(switches: u64, endpoints: u64) -> u64 {
        let entry = std::mem::size_of::<Vec<u16>>() as u64 + MIN_HEAP_BLOCK;
        switches * (std::mem::size_of::<Vec<Vec<u16>>>() as u64 + endpoints * entry)
    }
}

impl Routes for ForwardingTables {
    fn ports_of(&self, s: usize, e: usize) -> impl Iterator<Item = u16> + '_ {
        self.ports[s][e].iter().copied()
    }
}

/// A switch port byte that routes nowhere.
pub const NO_PORT: u8 = u8::MAX;

/// Deterministic forwarding tables keyed by destination endpoint, as
/// compact as a switch's linear forwarding table: one output port byte
/// (a topology port number, below 255; [`NO_PORT`]: no route) per switch
/// and endpoint, every switch a row. What an InfiniBand switch of the model
/// holds, and what the routings of large fabrics build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointTables {
    endpoints: usize,
    ports: Vec<u8>,
}

impl EndpointTables {
    /// Tables of `switches` switches to `endpoints` endpoints with no route anywhere.
    pub fn empty(switches: usize, endpoints: usize) -> EndpointTables {
        EndpointTables { endpoints, ports: vec![NO_PORT; switches * endpoints] }
    }

    /// Heap bytes of the tables of `switches` switches to `endpoints` endpoints.
    pub fn bytes_for(switches: u64, endpoints: u64) -> u64 {
        switches * endpoints
    }

    pub fn switch_count(&self) -> usize {
        self.ports.len().checked_div(self.endpoints).unwrap_or(0)
    }

    pub fn endpoint_count(&self) -> usize {
        self.endpoints
    }

    /// Switch `s`'s port towards endpoint `e`.
    #[inline]
    pub fn port(&self, s: usize, e: usize) -> Option<u16> {
        match self.ports[s * self.endpoints + e] {
            NO_PORT => None,
            p => Some(p as u16),
        }
    }

    /// Switch `s` sends endpoint `e`'s frames out of `port` (below 255: an IBA switch has at most 254 ports).
    #[inline]
    pub fn set(&mut self, s: usize, e: usize, port: u16) {
        debug_assert!(port < NO_PORT as u16, "port {port} beyond a port byte");
        self.ports[s * self.endpoints + e] = port as u8;
    }

    /// Switch `s`'s whole table, indexed by endpoint.
    pub fn row(&self, s: usize) -> &[u8] {
        &self.ports[s * self.endpoints..(s + 1) * self.endpoints]
    }

    /// Heap bytes held: one per (switch, endpoint).
    pub fn memory_bytes(&self) -> u64 {
        self.ports.capacity() as u64
    }

    /// The first port of every entry of `tables` over `switches` switches.
    pub fn from_routes(tables: &impl Routes, switches: usize, endpoints: usize) -> EndpointTables {
        let mut t = EndpointTables::empty(switches, endpoints);
        for s in 0..switches {
            for e in 0..endpoints {
                if let Some(p) = tables.first_port(s, e) {
                    t.set(s, e, p);
                }
            }
        }
        t
    }

    /// The same routes as per-endpoint lists, for what reads `ForwardingTables`.
    pub fn to_forwarding_tables(&self) -> ForwardingTables {
        let ports = (0..self.switch_count())
            .map(|s| (0..self.endpoints).map(|e| self.port(s, e).into_iter().collect()).collect())
            .collect();
        ForwardingTables { ports }
    }
}

impl Routes for EndpointTables {
    fn ports_of(&self, s: usize, e: usize) -> impl Iterator<Item = u16> + '_ {
        self.port(s, e).into_iter()
    }

    fn first_port(&self, s: usize, e: usize) -> Option<u16> {
        self.port(s, e)
    }
}

#[cfg(test)]
mod tests {
    use super::Routes;
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    /// The shared-tail count equals the mean of every route's own length.
    #[test]
    fn mean_hops_is_the_mean_route_length() {
        for seed in 0..8u64 {
            let shape = ShapeParams { switches: Some(30), seed, ..ShapeParams::default() };
            let topo = build_shape("irregular", &shape).unwrap();
            let t = routing_tables("updown", &topo, &RoutingParams::default()).unwrap();
            let map = topo.port_map();
            let (mut hops, mut pairs) = (0usize, 0usize);
            for e in &topo.endpoints {
                for (dest, d) in topo.endpoints.iter().enumerate() {
                    if d.switch != e.switch {
                        hops += t.path(&topo, &map, e.switch, dest as u32).unwrap().len() - 1;
                        pairs += 1;
                    }
                }
            }
            assert_eq!(t.mean_hops(&topo).unwrap(), Some(hops as f64 / pairs as f64), "seed {seed}");
        }
    }
}
