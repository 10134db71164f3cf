//! A fabric's wiring: switches with their own radix, endpoints by kind on
//! switch ports, and switch-to-switch links on explicit ports, each link
//! with its multiplicity (parallel lanes). Shapes (`shapes/`) build it;
//! routing algorithms (`routing/`) and the deadlock analysis read it, so
//! none of them needs to know which technology the fabric carries.

use std::sync::Arc;

use serde::Serialize;

use super::identity::Identity;

use crate::error::{Error, Result};

/// What an endpoint port of a switch is wired to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointKind {
    /// A terminal node with one port (Fibre Channel N_Port).
    Terminal,
    /// A host channel adapter port (InfiniBand HCA).
    ChannelAdapter,
}

/// An endpoint: its kind and the switch port it is cabled to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub kind: EndpointKind,
    pub switch: u32,
    pub port: u16,
}

/// Parallel lanes between two switches (a trunk group, or one cable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    /// (port on `a`, port on `b`) of every lane, lane 0 first.
    pub lanes: Vec<(u16, u16)>,
}

impl Link {
    pub fn multiplicity(&self) -> u32 {
        self.lanes.len() as u32
    }
}

/// What a switch port is wired to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortUse {
    /// Lane `lane` of the link to switch `to` (0-based).
    Link { to: u32, lane: u32 },
    /// Endpoint `e`.
    Endpoint(u32),
    /// Not connected.
    Free,
}

/// A fabric's ports as a model's links: per switch, the link on each port
/// (None: free); per endpoint, the (switch, port) it is attached to.
#[derive(Clone, Debug)]
pub struct Wiring<L> {
    pub links: Vec<Vec<Option<L>>>,
    pub attachments: Vec<(u32, u16)>,
}

/// The far end of a switch port's link: an endpoint, or port `port` of
/// switch `switch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarEnd {
    Endpoint(u32),
    Switch { switch: u32, port: u16 },
}

/// Switches, endpoints and links, all 0-based. Endpoints are numbered switch
/// by switch (all of switch 0's first), so a switch's endpoints form one
/// block, which routing partitions over next hops.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Port count of every switch.
    pub radix: Vec<u32>,
    pub endpoints: Vec<Endpoint>,
    pub links: Vec<Link>,
    /// Names, GUIDs, LIDs and cable rates of an imported subnet; None for a
    /// fabric built from a shape (see `Topology::subnet_identity`).
    pub identity: Option<Arc<Identity>>,
}

impl Topology {
    /// The recorded identity of this fabric, or the one ibsim would give it
    /// (see [`Identity::generated`]).
    pub fn subnet_identity(&self) -> std::borrow::Cow<'_, Identity> {
        match &self.identity {
            Some(id) => std::borrow::Cow::Borrowed(id),
            None => std::borrow::Cow::Owned(Identity::generated(
                self.switch_count(),
                self.endpoints.len(),
                self.links.iter().map(|l| l.lanes.len()),
            )),
        }
    }

    /// Wires `endpoints[s]` endpoints of `kind` and the link groups
    /// `(a, b, multiplicity)` onto switches the way Fibre Channel fabrics
    /// have always been laid out here: links first (by neighbour, then lane),
    /// then endpoints, then free ports. Port numbers may exceed a radix;
    /// `validate` reports that.
    pub fn canonical(radix: Vec<u32>, endpoints: &[u32], kind: EndpointKind, groups: &[(u32, u32, u32)]) -> Topology {
        let n = radix.len();
        let mut next_port = vec![0u16; n];
        // Each switch's groups in neighbour order, as (group index, is side a).
        let mut by_switch: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
        for (i, &(a, b, _)) in groups.iter().enumerate() {
            by_switch[a as usize].push((b, i));
            by_switch[b as usize].push((a, i));
        }
        let mut lanes: Vec<Vec<(u16, u16)>> = groups.iter().map(|&(_, _, m)| vec![(0, 0); m as usize]).collect();
        for (s, list) in by_switch.iter_mut().enumerate() {
            list.sort_by_key(|&(t, _)| t);
            for &(_, i) in list.iter() {
                let side_a = groups[i].0 as usize == s;
                for lane in lanes[i].iter_mut() {
                    let p = next_port[s];
                    next_port[s] += 1;
                    if side_a {
                        lane.0 = p;
                    } else {
                        lane.1 = p;
                    }
                }
            }
        }
        let links = groups.iter().zip(lanes).map(|(&(a, b, _), lanes)| Link { a, b, lanes }).collect();
        let mut eps = Vec::with_capacity(endpoints.iter().sum::<u32>() as usize);
        for (s, &count) in endpoints.iter().enumerate() {
            for _ in 0..count {
                eps.push(Endpoint { kind, switch: s as u32, port: next_port[s] });
                next_port[s] += 1;
            }
        }
        Topology { radix, endpoints: eps, links, identity: None }
    }

    pub fn switch_count(&self) -> usize {
        self.radix.len()
    }

    pub fn endpoint_count(&self) -> u32 {
        self.endpoints.len() as u32
    }

    /// The scenario's name for `endpoint_count` (terminal nodes).
    pub fn node_count(&self) -> u32 {
        self.endpoint_count()
    }

    /// Endpoints on each switch.
    pub fn endpoints_per_switch(&self) -> Vec<u32> {
        let mut count = vec![0; self.switch_count()];
        for e in &self.endpoints {
            count[e.switch as usize] += 1;
        }
        count
    }

    /// Switch of every endpoint.
    pub fn endpoint_switch(&self) -> Vec<u32> {
        self.endpoints.iter().map(|e| e.switch).collect()
    }

    /// First endpoint number on each switch (endpoints are numbered switch by switch).
    pub fn first_endpoint(&self) -> Vec<u32> {
        let mut first = Vec::with_capacity(self.switch_count());
        let mut acc = 0;
        for n in self.endpoints_per_switch() {
            first.push(acc);
            acc += n;
        }
        first
    }

    /// Link ports used on switch `s`.
    pub fn link_ports(&self, s: u32) -> u32 {
        self.links.iter().filter(|l| l.a == s || l.b == s).map(Link::multiplicity).sum()
    }

    /// Lanes between switches `a` and `b` (0 if not joined).
    pub fn multiplicity(&self, a: u32, b: u32) -> u32 {
        let (x, y) = (a.min(b), a.max(b));
        self.links.iter().find(|l| (l.a.min(l.b), l.a.max(l.b)) == (x, y)).map(Link::multiplicity).unwrap_or(0)
    }

    /// Every switch's neighbours in increasing order, in one pass over the
    /// links (`neighbours` for every switch, without a pass per switch).
    pub fn adjacency(&self) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); self.switch_count()];
        for l in &self.links {
            adj[l.a as usize].push(l.b);
            adj[l.b as usize].push(l.a);
        }
        adj.iter_mut().for_each(|v| v.sort_unstable());
        adj
    }

    /// Every switch's ports on link lanes, in one pass over the links.
    pub fn link_ports_per_switch(&self) -> Vec<u32> {
        let mut ports = vec![0; self.switch_count()];
        for l in &self.links {
            ports[l.a as usize] += l.multiplicity();
            ports[l.b as usize] += l.multiplicity();
        }
        ports
    }

    /// Switches joined to `s`, in increasing order.
    pub fn neighbours(&self, s: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .links
            .iter()
            .filter_map(|l| {
                if l.a == s {
                    Some(l.b)
                } else if l.b == s {
                    Some(l.a)
                } else {
                    None
                }
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// For every switch port on a link lane, the port at its far end (on
    /// the switch `port_map` names); None for endpoint and free ports.
    pub fn peer_ports(&self) -> Vec<Vec<Option<u16>>> {
        let mut peer: Vec<Vec<Option<u16>>> = self.radix.iter().map(|&r| vec![None; r as usize]).collect();
        for l in &self.links {
            for &(pa, pb) in &l.lanes {
                peer[l.a as usize][pa as usize] = Some(pb);
                peer[l.b as usize][pb as usize] = Some(pa);
            }
        }
        peer
    }

    /// Every switch's ports as the links `link` builds from each port's far
    /// end, and where each endpoint is attached: what a model wires its
    /// components from.
    pub fn wire<L>(&self, mut link: impl FnMut(FarEnd) -> L) -> Wiring<L> {
        let peer = self.peer_ports();
        let mut attachments = vec![(0u32, 0u16); self.endpoint_count() as usize];
        let mut links = Vec::with_capacity(self.switch_count());
        for (s, ports) in self.port_map().into_iter().enumerate() {
            let mut row = Vec::with_capacity(ports.len());
            for (p, u) in ports.into_iter().enumerate() {
                row.push(match u {
                    PortUse::Endpoint(n) => {
                        attachments[n as usize] = (s as u32, p as u16);
                        Some(link(FarEnd::Endpoint(n)))
                    }
                    PortUse::Link { to, .. } => {
                        let port = peer[s][p].expect("links are wired both ways");
                        Some(link(FarEnd::Switch { switch: to, port }))
                    }
                    PortUse::Free => None,
                });
            }
            links.push(row);
        }
        Wiring { links, attachments }
    }

    /// What every port of every switch is wired to.
    pub fn port_map(&self) -> Vec<Vec<PortUse>> {
        let mut map: Vec<Vec<PortUse>> = self.radix.iter().map(|&r| vec![PortUse::Free; r as usize]).collect();
        for l in &self.links {
            for (lane, &(pa, pb)) in l.lanes.iter().enumerate() {
                map[l.a as usize][pa as usize] = PortUse::Link { to: l.b, lane: lane as u32 };
                map[l.b as usize][pb as usize] = PortUse::Link { to: l.a, lane: lane as u32 };
            }
        }
        for (i, e) in self.endpoints.iter().enumerate() {
            map[e.switch as usize][e.port as usize] = PortUse::Endpoint(i as u32);
        }
        map
    }

    /// Hop counts between switches (breadth-first search).
    pub fn distances(&self) -> Vec<Vec<u32>> {
        let adj = self.adjacency();
        (0..self.switch_count() as u32).map(|src| bfs(&adj, src)).collect()
    }

    /// Hops from switch `src` to every switch (`u32::MAX`: unreachable):
    /// one row of [`Topology::distances`], without the rest.
    pub fn distances_from(&self, src: u32) -> Vec<u32> {
        bfs(&self.adjacency(), src)
    }

    /// Heap bytes of [`Topology::distances`]: a row of hops per switch.
    pub fn distances_bytes(&self) -> u64 {
        let n = self.switch_count() as u64;
        n * (std::mem::size_of::<Vec<u32>>() as u64 + 4 * n)
    }

    /// Port budgets, wiring and connectivity. Errors name `section` keys
    /// (`section.nodes`, `section.trunks`) and the key of the radix.
    pub fn validate(&self, section: &str, radix_key: &str) -> Result<()> {
        self.validate_ends(section)?;
        let per_switch = self.endpoints_per_switch();
        let link_ports = self.link_ports_per_switch();
        for s in 0..self.switch_count() as u32 {
            let used = link_ports[s as usize] + per_switch[s as usize];
            let radix = self.radix[s as usize];
            if used > radix {
                return Err(Error::invalid(
                    section,
                    format!(
                        "switch {} with {} trunk ports and {} nodes",
                        s + 1,
                        link_ports[s as usize],
                        per_switch[s as usize]
                    ),
                    format!("at most {radix} ports per switch ({radix_key})"),
                ));
            }
        }
        self.validate_ports(section)?;
        if self.endpoint_count() < 2 {
            return Err(Error::invalid(
                &format!("{section}.nodes"),
                self.endpoint_count(),
                "at least 2 terminal nodes in the fabric",
            ));
        }
        if let Some(s) = self.distances_from(0).iter().position(|&x| x == u32::MAX) {
            return Err(Error::invalid(
                &format!("{section}.trunks"),
                format!("switch {} unreachable from switch 1", s + 1),
                "a connected fabric",
            ));
        }
        Ok(())
    }

    /// Links join two different existing switches, each pair once (parallel
    /// cables are lanes of one link), with at least one lane; endpoints sit
    /// on existing switches and are numbered switch by switch.
    fn validate_ends(&self, section: &str) -> Result<()> {
        let n = self.switch_count() as u32;
        let mut pairs = std::collections::HashSet::new();
        for l in &self.links {
            let ok = l.a < n && l.b < n && l.a != l.b && !l.lanes.is_empty();
            if !ok || !pairs.insert((l.a.min(l.b), l.a.max(l.b))) {
                return Err(Error::invalid(
                    section,
                    format!("link {}-{} with {} lanes", l.a + 1, l.b + 1, l.lanes.len()),
                    "one link between each pair of different switches, with at least one lane",
                ));
            }
        }
        if let Some((i, e)) = self.endpoints.iter().enumerate().find(|(_, e)| e.switch >= n) {
            return Err(Error::invalid(
                section,
                format!("endpoint {i} on switch {}", e.switch + 1),
                "existing switches",
            ));
        }
        if self.endpoints.windows(2).any(|w| w[0].switch > w[1].switch) {
            return Err(Error::invalid(
                section,
                "endpoints out of switch order",
                "endpoints numbered switch by switch",
            ));
        }
        Ok(())
    }

    /// Every port within its switch's radix and wired once.
    fn validate_ports(&self, section: &str) -> Result<()> {
        let mut used: Vec<Vec<bool>> = self.radix.iter().map(|&r| vec![false; r as usize]).collect();
        let mut claim = |s: u32, p: u16, what: String| -> Result<()> {
            match used[s as usize].get_mut(p as usize) {
                Some(taken) if !*taken => {
                    *taken = true;
                    Ok(())
                }
                Some(_) => Err(Error::invalid(section, what, "each switch port wired once")),
                None => Err(Error::invalid(section, what, "ports below the switch's radix")),
            }
        };
        for l in &self.links {
            for &(pa, pb) in &l.lanes {
                claim(l.a, pa, format!("switch {} port {pa} (link to switch {})", l.a + 1, l.b + 1))?;
                claim(l.b, pb, format!("switch {} port {pb} (link to switch {})", l.b + 1, l.a + 1))?;
            }
        }
        for (i, e) in self.endpoints.iter().enumerate() {
            claim(e.switch, e.port, format!("switch {} port {} (endpoint {i})", e.switch + 1, e.port))?;
        }
        Ok(())
    }
}

/// Breadth-first hop counts from `src` over the adjacency lists `adj` (`u32::MAX`: unreachable).
pub fn bfs(adj: &[Vec<u32>], src: u32) -> Vec<u32> {
    let mut d = vec![u32::MAX; adj.len()];
    d[src as usize] = 0;
    let mut queue = std::collections::VecDeque::from([src]);
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u as usize] {
            if d[v as usize] == u32::MAX {
                d[v as usize] = d[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_layout_is_links_by_neighbour_then_endpoints() {
        // Switch 1 joins 0 by two lanes and 2 by one; group order must not matter.
        let t = Topology::canonical(vec![6, 6, 6], &[2, 1, 3], EndpointKind::Terminal, &[(1, 2, 1), (0, 1, 2)]);
        let map = t.port_map();
        assert_eq!(map[1][0], PortUse::Link { to: 0, lane: 0 });
        assert_eq!(map[1][1], PortUse::Link { to: 0, lane: 1 });
        assert_eq!(map[1][2], PortUse::Link { to: 2, lane: 0 });
        assert_eq!(map[1][3], PortUse::Endpoint(2));
        assert_eq!(map[1][4], PortUse::Free);
        assert_eq!(map[0][2], PortUse::Endpoint(0));
        assert_eq!(t.links[1].lanes, vec![(0, 0), (1, 1)]);
        assert_eq!(t.first_endpoint(), vec![0, 2, 3]);
        assert_eq!(t.multiplicity(1, 0), 2);
        t.validate("topology", "switch.ports").unwrap();
    }

    #[test]
    fn wiring_leads_each_port_to_its_far_end_and_attaches_each_endpoint() {
        let t = Topology::canonical(vec![6, 6, 6], &[2, 1, 3], EndpointKind::Terminal, &[(1, 2, 1), (0, 1, 2)]);
        let w = t.wire(|end| end);
        // Switch 1's lanes to switch 0 end on switch 0's ports 0 and 1.
        assert_eq!(w.links[1][0], Some(FarEnd::Switch { switch: 0, port: 0 }));
        assert_eq!(w.links[1][1], Some(FarEnd::Switch { switch: 0, port: 1 }));
        assert_eq!(w.links[2][0], Some(FarEnd::Switch { switch: 1, port: 2 }));
        assert_eq!(w.links[1][3], Some(FarEnd::Endpoint(2)));
        assert_eq!(w.links[1][4], None);
        assert_eq!(w.attachments, t.endpoints.iter().map(|e| (e.switch, e.port)).collect::<Vec<_>>());
        assert_eq!(w.attachments[2], (1, 3));
    }

    #[test]
    fn explicit_ports_are_checked() {
        let mut t = Topology::canonical(vec![4, 4], &[1, 1], EndpointKind::ChannelAdapter, &[(0, 1, 1)]);
        t.endpoints[1].port = 0; // the link's port on switch 1
        let e = t.validate("topology", "topology.radix").unwrap_err();
        assert!(e.to_string().contains("wired once"), "{e}");
        t.endpoints[1].port = 4;
        let e = t.validate("topology", "topology.radix").unwrap_err();
        assert!(e.to_string().contains("below the switch's radix"), "{e}");
        t.endpoints[1].port = 1;
        t.links.push(Link { a: 1, b: 0, lanes: vec![(2, 2)] });
        let e = t.validate("topology", "topology.radix").unwrap_err();
        assert!(e.to_string().contains("each pair"), "{e}");
    }

    #[test]
    fn port_budget_names_the_switch() {
        let t = Topology::canonical(vec![2, 4], &[2, 1], EndpointKind::Terminal, &[(0, 1, 1)]);
        let e = t.validate("topology", "switch.ports").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology"));
        assert!(e.to_string().contains("switch 1 with 1 trunk ports and 2 nodes"), "{e}");
    }
}
