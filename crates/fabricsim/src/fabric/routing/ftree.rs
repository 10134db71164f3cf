//! OpenSM's fat-tree engine (`osm_ucast_ftree.c`, default options: no root
//! or compute-node files, no quasi-ftree indexing, no reverse hops), port
//! for port. Switches are ranked by hops from the roots (the switches
//! furthest from any adapter); every switch's neighbours form port groups,
//! up or down, and each switch gets a tuple from a breadth-first walk
//! that starts at the first leaf in OpenSM's GUID order, by which groups
//! and leaves are ordered. Destinations are routed leaf by leaf (leaves in
//! tuple order, adapters in port order, and "dummy" adapters up to the
//! fullest leaf's count, which move counters only): from the leaf the
//! route climbs along the up group whose counter of routes down is lowest
//! (its least-used port), the other up groups taking the destination on a
//! secondary path, and every switch reached comes down towards its own
//! subtree by the groups with the fewest routes up. Counters are never
//! reset, so where a destination goes depends on those routed before it:
//! this is not D-Mod-K, although on a k-ary n-tree it balances as well
//! (docs/opensm-ftree.md traces the differences).
//!
//! A fabric that is not a fat tree as OpenSM checks it (adapters on a
//! switch that is not a leaf, ranks outside 2-8, switches of a rank with
//! different numbers of groups or of ports per group, links between
//! switches of one rank, more than 255 values at a tuple's position) is
//! routed by minhop, as OpenSM falls back to it.

use std::collections::{HashSet, VecDeque};

use super::{Algorithm, EndpointTables, ForwardingTables, RoutingParams};
use crate::error::Result;
use crate::fabric::identity::opensm_guid_order;
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "ftree",
    description: "OpenSM's fat-tree engine, port for port (minhop where the fabric is not a fat tree by its checks)",
    params: &[],
    tables,
    lfts: None,
    endpoint_tables: Some(endpoint_tables),
};

/// No hop count yet (OpenSM's `OSM_NO_PATH`).
const NO_PATH: u8 = 0xFF;
/// A tuple's unused position.
const FREE: u8 = 0xFF;

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    Ok(endpoint_tables(topo, params)?.to_forwarding_tables())
}

fn endpoint_tables(topo: &Topology, params: &RoutingParams) -> Result<EndpointTables> {
    match FatTree::build(topo) {
        Some(mut tree) => tree.route(topo),
        None => Ok(super::min_hop::lfts(topo, params)?.to_endpoint_tables()),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Remote {
    Switch(u32),
    Endpoint(u32),
}

/// One port of a group: its number on the owner and on the far side
/// (0-based), and the routes counted through it each way.
struct GroupPort {
    port: u16,
    remote: u16,
    up: u32,
    down: u32,
}

/// A switch's ports to one neighbour, in port order.
struct Group {
    remote: Remote,
    ports: Vec<GroupPort>,
    up: u32,
    down: u32,
}

impl Group {
    /// The first port (in port order) with the fewest routes counted by `count`.
    fn least_used(&self, count: impl Fn(&GroupPort) -> u32) -> usize {
        (0..self.ports.len()).min_by_key(|&i| (count(&self.ports[i]), i)).expect("a group has a port")
    }
}

struct Switch {
    rank: u32,
    tuple: [u8; 8],
    /// Indices into `FatTree::groups`.
    up: Vec<usize>,
    down: Vec<usize>,
    /// A down group's count of routes up changed since `down` was last sorted.
    up_changed: bool,
}

struct FatTree {
    switches: Vec<Switch>,
    groups: Vec<Group>,
    /// Leaf switches in tuple order, from the first with adapters to the last.
    leaves: Vec<u32>,
    /// Adapters on the fullest leaf.
    max_adapters: usize,
    /// The destination being routed: each switch's port and hops (`NO_PATH`: none yet).
    port: Vec<u16>,
    hops: Vec<u8>,
}

impl FatTree {
    /// The fabric's ranks, groups and tuples, or None where OpenSM would fall back to minhop.
    fn build(topo: &Topology) -> Option<FatTree> {
        let n = topo.switch_count();
        let per_switch = topo.endpoints_per_switch();
        if n < 2 || topo.endpoints.len() < 2 {
            return None;
        }
        // Far ends of every switch port.
        let mut far: Vec<Vec<Option<(Remote, u16)>>> = topo.radix.iter().map(|&r| vec![None; r as usize]).collect();
        for l in &topo.links {
            for &(pa, pb) in &l.lanes {
                far[l.a as usize][pa as usize] = Some((Remote::Switch(l.b), pb));
                far[l.b as usize][pb as usize] = Some((Remote::Switch(l.a), pa));
            }
        }
        for (e, ep) in topo.endpoints.iter().enumerate() {
            far[ep.switch as usize][ep.port as usize] = Some((Remote::Endpoint(e as u32), 0));
        }
        let neighbours = |s: usize| {
            far[s].iter().filter_map(|f| match f {
                Some((Remote::Switch(r), _)) => Some(*r),
                _ => None,
            })
        };
        let bfs = |starts: Vec<usize>| {
            let mut dist = vec![u32::MAX; n];
            let mut queue = VecDeque::new();
            for s in starts {
                dist[s] = 0;
                queue.push_back(s);
            }
            while let Some(u) = queue.pop_front() {
                for v in neighbours(u) {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u] + 1;
                        queue.push_back(v as usize);
                    }
                }
            }
            dist
        };
        // Roots: the switches furthest from any adapter; ranks: hops from the roots.
        let from_adapters = bfs((0..n).filter(|&s| per_switch[s] > 0).collect());
        if from_adapters.contains(&u32::MAX) {
            return None;
        }
        let furthest = *from_adapters.iter().max()?;
        let rank = bfs((0..n).filter(|&s| from_adapters[s] == furthest).collect());
        let leaf_rank = *rank.iter().max()?;
        if !(1..=7).contains(&leaf_rank) || (0..n).any(|s| per_switch[s] > 0 && rank[s] != leaf_rank) {
            return None;
        }
        // Port groups, one per neighbour, in the order of their first ports.
        let mut switches: Vec<Switch> = (0..n)
            .map(|s| Switch { rank: rank[s], tuple: [FREE; 8], up: Vec::new(), down: Vec::new(), up_changed: false })
            .collect();
        let mut groups: Vec<Group> = Vec::new();
        for s in 0..n {
            for (p, f) in far[s].iter().enumerate() {
                let Some((remote, q)) = *f else { continue };
                let up = match remote {
                    Remote::Switch(r) if rank[r as usize] == rank[s] => return None, // siblings: not a fat tree here
                    Remote::Switch(r) => rank[r as usize] < rank[s],
                    Remote::Endpoint(_) => false,
                };
                let list = if up { &mut switches[s].up } else { &mut switches[s].down };
                let port = GroupPort { port: p as u16, remote: q, up: 0, down: 0 };
                match list.iter().find(|&&g| groups[g].remote == remote) {
                    Some(&g) => groups[g].ports.push(port),
                    None => {
                        list.push(groups.len());
                        groups.push(Group { remote, ports: vec![port], up: 0, down: 0 });
                    }
                }
            }
        }
        // OpenSM's check: a rank's switches alike in groups and ports per group.
        let shape = |s: usize| {
            let w = &switches[s];
            let ports = |list: &[usize]| list.first().map_or(0, |&g| groups[g].ports.len());
            let down = if w.rank == leaf_rank { (0, 0) } else { (w.down.len(), ports(&w.down)) };
            (w.up.len(), ports(&w.up), down)
        };
        for s in 0..n {
            let first = (0..n).find(|&t| rank[t] == rank[s]).expect("s itself");
            if shape(s) != shape(first) {
                return None;
            }
        }
        let mut tree =
            FatTree { switches, groups, leaves: Vec::new(), max_adapters: 0, port: vec![0; n], hops: vec![NO_PATH; n] };
        tree.index(topo, &per_switch, leaf_rank)?;
        Some(tree)
    }

    fn remote_switch(&self, g: usize) -> Option<usize> {
        match self.groups[g].remote {
            Remote::Switch(r) => Some(r as usize),
            Remote::Endpoint(_) => None,
        }
    }

    fn remote_tuple(&self, g: usize) -> [u8; 8] {
        self.remote_switch(g).map_or([FREE; 8], |r| self.switches[r].tuple)
    }

    /// Tuples by OpenSM's breadth-first indexing from the first leaf in GUID
    /// order; each switch's groups sorted by their far ends' tuples; the
    /// leaves. None where a position of the tuples would need more than 255
    /// values (OpenSM's bytes cannot index the fabric either).
    fn index(&mut self, topo: &Topology, per_switch: &[u32], leaf_rank: u32) -> Option<()> {
        let id = topo.subnet_identity();
        let n = self.switches.len();
        let first = (0..n)
            .filter(|&s| per_switch[s] > 0)
            .min_by_key(|&s| opensm_guid_order(id.switches[s].node.guid))
            .expect("a fat tree has adapters");
        let mut used: HashSet<[u8; 8]> = HashSet::new();
        let mut tuple = [FREE; 8];
        tuple[0] = leaf_rank as u8;
        tuple[1..=leaf_rank as usize].fill(0);
        self.switches[first].tuple = tuple;
        used.insert(tuple);
        let mut queue = VecDeque::from([first]);
        while let Some(s) = queue.pop_front() {
            let rank = self.switches[s].rank;
            for up in [false, true] {
                if (!up && rank >= leaf_rank) || (up && rank == 0) {
                    continue;
                }
                let list = if up { self.switches[s].up.clone() } else { self.switches[s].down.clone() };
                for g in list {
                    let Some(r) = self.remote_switch(g) else { continue };
                    if self.switches[r].tuple[0] != FREE {
                        continue;
                    }
                    // A copy of s's tuple one rank over, the next free value at the changed rank's position.
                    let mut t = self.switches[s].tuple;
                    let at = if up { rank as usize } else { rank as usize + 1 };
                    t[0] = if up { rank as u8 - 1 } else { rank as u8 + 1 };
                    t[at] = (0..FREE).find(|&v| {
                        let mut candidate = t;
                        candidate[at] = v;
                        !used.contains(&candidate)
                    })?;
                    self.switches[r].tuple = t;
                    used.insert(t);
                    queue.push_back(r);
                }
                let mut list = std::mem::take(if up { &mut self.switches[s].up } else { &mut self.switches[s].down });
                list.sort_by_key(|&g| self.remote_tuple(g));
                *(if up { &mut self.switches[s].up } else { &mut self.switches[s].down }) = list;
            }
        }
        let mut leaves: Vec<u32> = (0..n as u32).filter(|&s| self.switches[s as usize].rank == leaf_rank).collect();
        leaves.sort_by_key(|&s| self.switches[s as usize].tuple);
        let with = |s: &u32| per_switch[*s as usize] > 0;
        let (a, b) = (leaves.iter().position(with), leaves.iter().rposition(with));
        self.leaves = leaves[a.expect("a leaf with adapters")..=b.expect("a leaf with adapters")].to_vec();
        self.max_adapters = self.leaves.iter().map(|&s| per_switch[s as usize] as usize).max().unwrap_or(0);
        Some(())
    }

    /// Every destination, leaf by leaf, as OpenSM's `fabric_route_to_cns`.
    fn route(&mut self, topo: &Topology) -> Result<EndpointTables> {
        let mut tables = EndpointTables::empty(self.switches.len(), topo.endpoints.len());
        for (done, leaf) in self.leaves.clone().into_iter().enumerate() {
            crate::sim::build_watch::step("fat-tree tables", done, self.leaves.len())?;
            let leaf = leaf as usize;
            let adapters: Vec<(u32, u16)> = self.switches[leaf]
                .down
                .iter()
                .filter_map(|&g| match self.groups[g].remote {
                    Remote::Endpoint(e) => Some((e, self.groups[g].ports[0].port)),
                    Remote::Switch(_) => None,
                })
                .collect();
            for &(e, port) in &adapters {
                self.hops.fill(NO_PATH);
                self.port[leaf] = port;
                self.hops[leaf] = 1;
                self.down_by_going_up(leaf, None, true, 1);
                for s in 0..self.switches.len() {
                    if self.hops[s] != NO_PATH {
                        tables.set(s, e as usize, self.port[s]);
                    }
                }
            }
            // Dummy adapters up to the fullest leaf's count: they move the counters alone.
            for _ in adapters.len()..self.max_adapters {
                self.hops.fill(NO_PATH);
                self.hops[leaf] = 1;
                self.down_by_going_up(leaf, None, true, 1);
            }
        }
        Ok(tables)
    }

    /// `fabric_route_upgoing_by_going_down`: from `s`, reached in `h` hops,
    /// down every group (but the one back to `prev`) towards switches not
    /// reached as short; whether `s`'s subtree holds an adapter.
    fn up_by_going_down(&mut self, s: usize, prev: Option<usize>, h: u8) -> bool {
        if self.switches[s].down.is_empty() {
            return false;
        }
        if self.switches[s].up_changed {
            let mut down = std::mem::take(&mut self.switches[s].down);
            down.sort_by_key(|&g| (self.groups[g].up, self.remote_tuple(g)));
            self.switches[s].down = down;
            self.switches[s].up_changed = false;
        }
        let mut created = false;
        for i in 0..self.switches[s].down.len() {
            let g = self.switches[s].down[i];
            let Some(r) = self.remote_switch(g) else {
                created = true;
                continue;
            };
            if Some(r) == prev {
                continue;
            }
            let p = self.groups[g].least_used(|p| p.up);
            if self.hops[r] != NO_PATH && h + 1 >= self.hops[r] {
                continue;
            }
            self.port[r] = self.groups[g].ports[p].remote;
            self.hops[r] = h + 1;
            if self.up_by_going_down(r, None, h + 1) {
                created = true;
                self.groups[g].ports[p].up += 1;
                self.groups[g].up += 1;
                self.switches[s].up_changed = true;
            }
        }
        created
    }

    /// `fabric_route_downgoing_by_going_up`: `s`'s subtree first, then up:
    /// on the main path by the up group with the fewest routes down (its
    /// counters charged), and by every other up group where that reaches a
    /// switch shorter than before.
    fn down_by_going_up(&mut self, s: usize, prev: Option<usize>, main: bool, h: u8) {
        self.up_by_going_down(s, prev, h);
        if self.switches[s].rank == 0 {
            return;
        }
        let mut up = std::mem::take(&mut self.switches[s].up);
        up.sort_by_key(|&g| (self.groups[g].down, self.remote_tuple(g)));
        self.switches[s].up = up;
        if main {
            let g = self.switches[s].up[0];
            let p = self.groups[g].least_used(|p| p.down);
            self.groups[g].down += 1;
            self.groups[g].ports[p].down += 1;
            let r = self.remote_switch(g).expect("an up group leads to a switch");
            if self.hops[r] == NO_PATH || h + 1 < self.hops[r] {
                self.port[r] = self.groups[g].ports[p].remote;
                self.hops[r] = h + 1;
            }
            self.down_by_going_up(r, Some(s), true, h + 1);
        }
        // No call below re-sorts `s`'s up groups: only a climb from `s`'s subtree would.
        for i in main as usize..self.switches[s].up.len() {
            let g = self.switches[s].up[i];
            let r = self.remote_switch(g).expect("an up group leads to a switch");
            if self.hops[r] != NO_PATH && h + 1 >= self.hops[r] {
                continue;
            }
            let p = self.groups[g].least_used(|p| p.down);
            self.port[r] = self.groups[g].ports[p].remote;
            self.hops[r] = h + 1;
            self.down_by_going_up(r, Some(s), false, h + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fabric::routing::min_hop::tests::assert_fat_trees_balanced;

    /// Minimal, deadlock-free, every link used, and every up link of a level alike
    /// (the engine balances the up links by its counters; down links follow the destinations).
    #[test]
    fn fat_trees_get_minimal_acyclic_routes_with_every_link_equally_loaded() {
        assert_fat_trees_balanced("ftree", false);
    }
}
