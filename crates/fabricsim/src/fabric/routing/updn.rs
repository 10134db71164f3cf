//! Up*/Down* from given root switches, as OpenSM's `updn` engine sets it up
//! and as the published rule (Schroeder et al., Autonet) says it must route.
//!
//! Ranks: a breadth-first search from all roots at once (a root has rank
//! 0). A hop goes up when it lowers the rank, or keeps it and goes to the
//! switch of lower id (the node GUID, as OpenSM's `updn_get_dir`). A legal
//! route takes zero or more up hops, then zero or more down hops.
//!
//! Per destination, every switch's shortest legal route and shortest
//! all-down route are counted; each switch then picks, among the ports that
//! start a shortest legal route, the one OpenSM would ([`super::balanced`]:
//! fewest destinations so far, lowest port), farthest switches first: a
//! switch that another enters by a down hop must itself go all the way
//! down, so its choice narrows to the ports of its shortest all-down route
//! (tables keyed by destination cannot give it a route that climbs). The
//! routes are legal by construction, so the channel dependencies are acyclic.
//!
//! Where OpenSM differs (`osm_ucast_updn.c`):
//! - its search from each destination remembers one direction per switch
//!   (that of the first path to reach it) but hop counts per port, and each
//!   switch then picks any least-hop port: a route can come down into a
//!   switch and leave it going up, which the rule forbids and which can
//!   close a cycle of channel dependencies (the parity test counts these
//!   turns in OpenSM's own tables);
//! - links between two roots are up in both directions (`updn_get_dir`'s
//!   "hack"); here they follow the rule (towards the lower id);
//! - its hop counts are those of that search, so where it breaks the rule
//!   its routes can be shorter than any legal one, and where the first path
//!   to reach a switch was the wrong kind it can miss a legal route
//!   altogether (no LFT entry).
//!
//! Measured against OpenSM 3.3.23 (`tests/opensm_parity.rs`): on the shared
//! clusters and fat tree from OpenSM's own roots, and on 12 irregular
//! networks rooted at one switch, every entry agrees; on 12 random networks
//! rooted at four switches, OpenSM leaves 278-320 adapter pairs unrouted on
//! 4 of them and turns down-then-up on 2 of those.

use super::balanced::{balanced_tables, switch_links, Candidates, PortRule};
pub use super::updn_roots::opensm_roots;
use super::{Algorithm, ForwardingTables, LinearTables, RoutingParams};
use crate::error::{Error, Result};
use crate::fabric::lids::Lids;
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "updn",
    description: "Up*/Down* from `roots` (default: the ones OpenSM finds; OpenSM's updn set-up and port balance), \
                  never up after down",
    params: &["roots"],
    tables,
    lfts: Some(lfts),
    endpoint_tables: None,
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    Ok(lfts(topo, params)?.to_forwarding_tables())
}

/// The rank of every switch and the id that breaks ties between equal ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    pub rank: Vec<u32>,
    pub id: Vec<u64>,
}

impl Ranks {
    /// Ranks from `roots` (0-based switches) over `links`; ids are node GUIDs.
    pub fn new(topo: &Topology, links: &[Vec<(u8, u32)>], roots: &[u32]) -> Ranks {
        let mut rank = vec![u32::MAX; topo.switch_count()];
        let mut queue: std::collections::VecDeque<u32> = roots.iter().copied().collect();
        for &r in roots {
            rank[r as usize] = 0;
        }
        while let Some(u) = queue.pop_front() {
            for &(_, v) in &links[u as usize] {
                if rank[v as usize] == u32::MAX {
                    rank[v as usize] = rank[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        let id = topo.subnet_identity().switches.iter().map(|s| s.node.guid).collect();
        Ranks { rank, id }
    }

    /// Whether the hop from switch `from` to its neighbour `to` goes up.
    pub fn is_up(&self, from: u32, to: u32) -> bool {
        let (f, t) = (from as usize, to as usize);
        (self.rank[t], self.id[t]) < (self.rank[f], self.id[f])
    }
}

/// The roots a scenario gives, checked; without any, those OpenSM finds.
fn roots(topo: &Topology, params: &RoutingParams) -> Result<Vec<u32>> {
    let n = topo.switch_count() as u32;
    let key = params.key("roots");
    let Some(roots) = params.roots.clone() else {
        let found = opensm_roots(topo);
        if found.is_empty() {
            return Err(Error::invalid(
                &key,
                "missing",
                "the root switches of Up*/Down* (e.g. the spine of a fat tree): OpenSM's search for them finds \
                 none on this fabric (no switch sees over 90% of the adapters at one distance)",
            ));
        }
        return Ok(found);
    };
    if roots.is_empty() {
        return Err(Error::invalid(&key, "[]", "at least one root switch"));
    }
    if let Some(&r) = roots.iter().find(|&&r| r >= n) {
        return Err(Error::invalid(&key, r, format!("switches of the fabric, 0 to {}", n - 1)));
    }
    Ok(roots)
}

fn lfts(topo: &Topology, params: &RoutingParams) -> Result<LinearTables> {
    let links = switch_links(topo);
    let ranks = Ranks::new(topo, &links, &roots(topo, params)?);
    let mut rule = LegalRoutes::new(topo, links, ranks);
    balanced_tables(topo, Lids::assign(topo)?, &mut rule)
}

/// The shortest legal routes towards one destination switch, and which of
/// them a switch may still take once others have chosen: one entered by a
/// down hop must go all the way down.
struct LegalRoutes {
    links: Vec<Vec<(u8, u32)>>,
    /// The switch behind every port (IBA numbers; u32::MAX: none).
    peer: Vec<Vec<u32>>,
    ranks: Ranks,
    /// Shortest legal route, and shortest all-down route, to the destination.
    any: Vec<u32>,
    down: Vec<u32>,
    buckets: Vec<Vec<u32>>,
    free: Candidates,
    down_only: Candidates,
    must_go_down: Vec<bool>,
    order: Vec<u32>,
}

impl LegalRoutes {
    fn new(topo: &Topology, links: Vec<Vec<(u8, u32)>>, ranks: Ranks) -> LegalRoutes {
        let n = topo.switch_count();
        let peer = links
            .iter()
            .enumerate()
            .map(|(s, l)| {
                let mut row = vec![u32::MAX; topo.radix[s] as usize + 1];
                for &(p, t) in l {
                    row[p as usize] = t;
                }
                row
            })
            .collect();
        LegalRoutes {
            links,
            peer,
            ranks,
            any: vec![u32::MAX; n],
            down: vec![u32::MAX; n],
            buckets: Vec::new(),
            free: Candidates::new(n),
            down_only: Candidates::new(n),
            must_go_down: vec![false; n],
            order: (0..n as u32).collect(),
        }
    }
}

impl PortRule for LegalRoutes {
    fn towards(&mut self, d: u32) {
        let (links, ranks) = (&self.links, &self.ranks);
        // All-down routes: a breadth-first search back along down hops.
        self.down.fill(u32::MAX);
        self.down[d as usize] = 0;
        let mut queue = std::collections::VecDeque::from([d]);
        while let Some(t) = queue.pop_front() {
            for &(_, s) in &links[t as usize] {
                if self.down[s as usize] == u32::MAX && !ranks.is_up(s, t) {
                    self.down[s as usize] = self.down[t as usize] + 1;
                    queue.push_back(s);
                }
            }
        }
        // Any legal route: up hops onto any route, from the all-down lengths (Dial's buckets).
        self.any.copy_from_slice(&self.down);
        self.buckets.iter_mut().for_each(Vec::clear);
        for (s, &l) in self.down.iter().enumerate() {
            if l != u32::MAX {
                if self.buckets.len() <= l as usize {
                    self.buckets.resize_with(l as usize + 1, Vec::new);
                }
                self.buckets[l as usize].push(s as u32);
            }
        }
        let mut v = 0;
        while v < self.buckets.len() {
            while let Some(t) = self.buckets[v].pop() {
                if self.any[t as usize] < v as u32 {
                    continue;
                }
                for &(_, s) in &links[t as usize] {
                    if ranks.is_up(s, t) && self.any[s as usize] > v as u32 + 1 {
                        self.any[s as usize] = v as u32 + 1;
                        if self.buckets.len() <= v + 1 {
                            self.buckets.resize_with(v + 2, Vec::new);
                        }
                        self.buckets[v + 1].push(s);
                    }
                }
            }
            v += 1;
        }
        self.free.clear();
        self.down_only.clear();
        for (s, ports) in links.iter().enumerate() {
            for &(p, t) in ports {
                let up = ranks.is_up(s as u32, t);
                let (a, dn) = (self.any[t as usize], self.down[t as usize]);
                let next = if up { a } else { dn };
                if next != u32::MAX && next + 1 == self.any[s] {
                    self.free.push(p);
                }
                if !up && dn != u32::MAX && dn + 1 == self.down[s] {
                    self.down_only.push(p);
                }
            }
            self.free.end_switch();
            self.down_only.end_switch();
        }
        // Farther switches choose first: their down hops bind nearer ones.
        let any = &self.any;
        self.order.sort_by_key(|&s| (std::cmp::Reverse(any[s as usize].wrapping_add(1)), s));
    }

    fn start(&mut self) {
        self.must_go_down.fill(false);
    }

    fn order(&self) -> &[u32] {
        &self.order
    }

    fn candidates(&self, s: u32) -> &[u8] {
        if self.must_go_down[s as usize] {
            self.down_only.of(s as usize)
        } else {
            self.free.of(s as usize)
        }
    }

    fn chose(&mut self, s: u32, p: u8) {
        if let Some(&t) = self.peer[s as usize].get(p as usize).filter(|&&t| t != u32::MAX) {
            if !self.ranks.is_up(s, t) {
                self.must_go_down[t as usize] = true;
            }
        }
    }
}

/// Routes of `tables` (between every switch and every endpoint on another
/// switch) that go down and then up somewhere under `ranks`: the turns
/// Up*/Down* forbids. Counted per (first switch, endpoint).
pub fn down_up_turns(topo: &Topology, tables: &LinearTables, ranks: &Ranks) -> u64 {
    let map = topo.port_map();
    let mut turns = 0;
    for (e, dest) in topo.endpoints.iter().enumerate() {
        let lid = tables.lids.endpoint[e];
        for start in 0..topo.switch_count() {
            let (mut s, mut went_down, mut hops) = (start, false, 0);
            while s != dest.switch as usize && hops <= topo.switch_count() {
                let p = tables.port(s, lid);
                let Some(crate::fabric::PortUse::Link { to, .. }) = map[s].get((p as usize).wrapping_sub(1)) else {
                    break;
                };
                let up = ranks.is_up(s as u32, *to);
                if up && went_down {
                    turns += 1;
                    break;
                }
                went_down |= !up;
                s = *to as usize;
                hops += 1;
            }
        }
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::deadlock::analyze;
    use crate::fabric::routing::{linear_tables, routing_tables};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn a_fat_tree_from_its_top_routes_minimally_like_min_hop_and_legally() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(4), levels: Some(3), ..Default::default() }).unwrap();
        let params = RoutingParams { roots: Some((32..48).collect()), ..RoutingParams::default() };
        let updn = linear_tables("updn", &topo, &params).unwrap();
        // Every minimal route of a fat tree climbs, then descends: the same
        // candidates as minhop, so the same tables for every adapter (two
        // switches of one level have no legal route between them, so their
        // switch LIDs differ).
        let min_hop = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        assert!(updn.to_forwarding_tables() == min_hop.to_forwarding_tables());
        assert_eq!(updn.port(32, updn.lids.switch[33]), crate::fabric::forwarding::NO_ROUTE);
        let links = switch_links(&topo);
        assert_eq!(down_up_turns(&topo, &updn, &Ranks::new(&topo, &links, &(32..48).collect::<Vec<_>>())), 0);
    }

    #[test]
    fn irregular_networks_get_legal_acyclic_routes_from_any_roots() {
        for seed in 0..20 {
            let topo =
                build_shape("irregular", &ShapeParams { switches: Some(30), seed, ..ShapeParams::default() }).unwrap();
            let roots = vec![(seed % 30) as u32, ((seed * 7 + 3) % 30) as u32];
            let params = RoutingParams { roots: Some(roots.clone()), ..RoutingParams::default() };
            let t = linear_tables("updn", &topo, &params).unwrap();
            let ranks = Ranks::new(&topo, &switch_links(&topo), &roots);
            assert_eq!(down_up_turns(&topo, &t, &ranks), 0, "seed {seed}");
            let verdict = analyze(&topo, &t.to_forwarding_tables()).unwrap();
            assert!(verdict.acyclic, "seed {seed}: {:?}", verdict.cycle);
        }
    }

    #[test]
    fn roots_opensm_cannot_find_are_asked_for_and_given_ones_checked() {
        // No switch of an irregular network sees 90% of the adapters at one distance.
        let topo = build_shape("irregular", &ShapeParams::default()).unwrap();
        let e = routing_tables("updn", &topo, &RoutingParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.roots"));
        assert!(e.allowed.as_deref().unwrap().contains("OpenSM's search for them finds none"), "{e}");
        let e =
            routing_tables("updn", &topo, &RoutingParams { roots: Some(vec![99]), ..Default::default() }).unwrap_err();
        assert_eq!(e.value.as_deref(), Some("99"));
    }
}
