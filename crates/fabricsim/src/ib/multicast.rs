//! Multicast groups and their forwarding tables (seed 003 section 3.6):
//! static groups of HCAs, and per source a distribution tree built over the
//! unicast routing in force ("the source-based distribution tree algorithm
//! assuming static membership groups"), so every switch has one entry per
//! group and source HCA (the study's 3 x 15) naming the outputs a packet is
//! copied to. How a switch replicates is `switch/replication.rs`.
//!
//! A tree from source s: the members are taken in order; the unicast route
//! from s's switch to a member is followed back from the member to the last
//! switch already in the tree, and only the part after it is added. As
//! unicast routes depend on the destination alone, the added part is the
//! route from that switch on, so every switch of the tree has one parent
//! and every member is reached exactly once, on unicast links.

use crate::error::{Error, Result};
use crate::fabric::PortUse;
use crate::kernel::RandomStream;
use crate::scenario::ib::{IbMulticastSpec, MulticastOrder, MulticastScheme};

/// IBA multicast LIDs start here (0xC000 to 0xFFFE); group g is `MULTICAST_LID + g`.
pub const MULTICAST_LID: u16 = 0xC000;

/// `Message::group` of a message that belongs to no group.
pub const NO_GROUP: u16 = u16::MAX;

/// The groups' members, HCA indices in ascending order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    pub members: Vec<Vec<u32>>,
}

impl Groups {
    /// The scenario's groups, or groups of its sizes drawn from `hcas` HCAs with `seed`.
    pub fn new(spec: &IbMulticastSpec, hcas: u32, seed: u64) -> Result<Self> {
        let members: Vec<Vec<u32>> = match &spec.groups {
            Some(groups) => {
                for (g, m) in groups.iter().enumerate() {
                    if let Some(&bad) = m.iter().find(|&&h| h >= hcas) {
                        return Err(Error::invalid(
                            &format!("ib.multicast.groups[{g}]"),
                            bad,
                            format!("HCA indices 0..={} (the fabric has {hcas} HCAs)", hcas - 1),
                        ));
                    }
                }
                groups.iter().map(|m| sorted(m.clone())).collect()
            }
            None => {
                let mut out = Vec::new();
                for (g, &size) in spec.group_sizes.iter().enumerate() {
                    if size > hcas {
                        return Err(Error::invalid(
                            "ib.multicast.group_sizes",
                            format!("{:?}", spec.group_sizes),
                            format!("groups of 2 to {hcas} members (the fabric has {hcas} HCAs)"),
                        ));
                    }
                    // A partial Fisher-Yates shuffle: `size` different HCAs.
                    let mut rng = RandomStream::new(seed, "ib.multicast.group", g as u64);
                    let mut all: Vec<u32> = (0..hcas).collect();
                    for i in 0..size as usize {
                        let j = i + rng.below(hcas - i as u32) as usize;
                        all.swap(i, j);
                    }
                    out.push(sorted(all[..size as usize].to_vec()));
                }
                out
            }
        };
        if members.len() > (u16::MAX - MULTICAST_LID) as usize {
            return Err(Error::invalid(
                "ib.multicast.group_sizes",
                members.len(),
                format!("at most {} groups (IBA multicast LIDs)", u16::MAX - MULTICAST_LID),
            ));
        }
        Ok(Groups { members })
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members of group `g` a packet from `src` goes to (every member but the source).
    pub fn destinations(&self, g: usize, src: u32) -> impl Iterator<Item = u32> + '_ {
        self.members[g].iter().copied().filter(move |&m| m != src)
    }
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// One switch's multicast forwarding table: per (group, source HCA) the
/// outputs a packet is copied to, and how many members each output leads
/// to (a copy stands for that many deliveries in the conservation audit).
#[derive(Clone, Debug, Default)]
pub struct McTable {
    ports: usize,
    hcas: usize,
    /// Outputs per entry (bit mask; switches of up to 64 ports).
    outputs: Vec<u64>,
    /// Members reached through each output, per entry.
    cover: Vec<u16>,
}

impl McTable {
    #[inline]
    fn entry(&self, group: usize, src: u32) -> usize {
        group * self.hcas + src as usize
    }

    /// The outputs of group `group`'s packets from `src`.
    #[inline]
    pub fn outputs(&self, group: usize, src: u32) -> u64 {
        self.outputs[self.entry(group, src)]
    }

    /// Members a copy through output `port` reaches.
    #[inline]
    pub fn cover(&self, group: usize, src: u32, port: usize) -> u16 {
        self.cover[self.entry(group, src) * self.ports + port]
    }

    /// Entries of the table (groups x HCAs).
    pub fn entries(&self) -> usize {
        self.outputs.len()
    }
}

/// What a switch needs to replicate: its table and the scheme.
#[derive(Clone, Debug)]
pub struct SwitchMulticast {
    pub table: McTable,
    pub scheme: MulticastScheme,
    pub order: MulticastOrder,
    /// Synchronous: a request reserves its outputs before they have room.
    pub hold_and_wait: bool,
    /// Central buffer: bytes of each output's multicast FIFO.
    pub central_bytes: u32,
}

/// Every switch's table for `groups`, over the linear forwarding tables
/// `lft` (per switch, the output per DLID) of the fabric `map` describes
/// (per switch, what each port leads to); `attach` is each HCA's switch and port.
pub fn tables(groups: &Groups, lft: &[Vec<u16>], map: &[Vec<PortUse>], attach: &[(u32, u16)]) -> Result<Vec<McTable>> {
    let hcas = attach.len();
    let ports = map.iter().map(Vec::len).max().unwrap_or(0);
    if ports > 64 {
        return Err(Error::invalid(
            "ib.multicast",
            "given",
            format!("switches of at most 64 ports (this fabric has {ports})"),
        ));
    }
    let entries = groups.len() * hcas;
    let mut out: Vec<McTable> = map
        .iter()
        .map(|_| McTable { ports, hcas, outputs: vec![0; entries], cover: vec![0; entries * ports] })
        .collect();
    let switches = map.len();
    let mut in_tree = vec![false; switches];
    let mut path: Vec<(u32, u16)> = Vec::new();
    for (g, _) in groups.members.iter().enumerate() {
        for src in 0..hcas as u32 {
            let e = g * hcas + src as usize;
            in_tree.iter_mut().for_each(|t| *t = false);
            let root = attach[src as usize].0;
            in_tree[root as usize] = true;
            for m in groups.destinations(g, src) {
                // The unicast route from the root to m's switch, as (switch, output).
                path.clear();
                let (last, hca_port) = attach[m as usize];
                let mut x = root;
                while x != last {
                    let p = lft[x as usize][m as usize];
                    path.push((x, p));
                    match map[x as usize].get(p as usize) {
                        Some(PortUse::Link { to, .. }) => x = *to,
                        _ => return Err(Error::model(format!("no route from switch {} to HCA {m}", x + 1))),
                    }
                    if path.len() > switches {
                        return Err(Error::model(format!("the route to HCA {m} loops")));
                    }
                }
                // Graft the part after the last switch already in the tree
                // (the member's own switch may be in it: then nothing).
                let j = if in_tree[last as usize] {
                    path.len()
                } else {
                    path.iter().rposition(|&(s, _)| in_tree[s as usize]).unwrap_or(0)
                };
                for &(s, p) in &path[j..] {
                    out[s as usize].outputs[e] |= 1 << p;
                    if let PortUse::Link { to, .. } = map[s as usize][p as usize] {
                        in_tree[to as usize] = true;
                    }
                }
                out[last as usize].outputs[e] |= 1 << hca_port;
            }
            // Members below each output, leaves first.
            cover(&mut out, map, e, root);
        }
    }
    Ok(out)
}

/// Fills entry `e`'s cover below switch `s`; returns the members under it.
fn cover(t: &mut [McTable], map: &[Vec<PortUse>], e: usize, s: u32) -> u16 {
    let mut outs = t[s as usize].outputs[e];
    let mut total = 0;
    while outs != 0 {
        let p = outs.trailing_zeros() as usize;
        outs &= outs - 1;
        let n = match map[s as usize][p] {
            PortUse::Link { to, .. } => cover(t, map, e, to),
            _ => 1,
        };
        let ports = t[s as usize].ports;
        t[s as usize].cover[e * ports + p] = n;
        total += n;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ib::IbMulticastSpec;

    /// A chain 0 - 1 - 2 of switches, port 0 to the HCA, port 1 left, port 2 right;
    /// and a fourth switch 3 hanging off switch 1's port 3.
    type Fabric = (Vec<Vec<PortUse>>, Vec<(u32, u16)>, Vec<Vec<u16>>);

    fn star() -> Fabric {
        use PortUse::*;
        let map = vec![
            vec![Endpoint(0), Free, Link { to: 1, lane: 0 }, Free],
            vec![Endpoint(1), Link { to: 0, lane: 0 }, Link { to: 2, lane: 0 }, Link { to: 3, lane: 0 }],
            vec![Endpoint(2), Link { to: 1, lane: 0 }, Free, Free],
            vec![Endpoint(3), Link { to: 1, lane: 0 }, Free, Free],
        ];
        let attach = vec![(0, 0), (1, 0), (2, 0), (3, 0)];
        // Shortest paths: from 0 everything goes right; 2 and 3 go left to 1.
        let lft = vec![vec![0, 2, 2, 2], vec![1, 0, 2, 3], vec![1, 1, 0, 1], vec![1, 1, 1, 0]];
        (map, attach, lft)
    }

    #[test]
    fn trees_follow_the_unicast_routes_and_reach_each_member_once() {
        let (map, attach, lft) = star();
        let groups = Groups { members: vec![vec![0, 2, 3], vec![1, 2]] };
        let t = tables(&groups, &lft, &map, &attach).unwrap();
        // Group 0 from HCA 0: switch 0 -> 1, which copies to 2 and 3, each to its HCA.
        assert_eq!(t[0].outputs(0, 0), 1 << 2);
        assert_eq!(t[1].outputs(0, 0), (1 << 2) | (1 << 3));
        assert_eq!((t[2].outputs(0, 0), t[3].outputs(0, 0)), (1, 1));
        assert_eq!(t[0].cover(0, 0, 2), 2);
        assert_eq!((t[1].cover(0, 0, 2), t[1].cover(0, 0, 3)), (1, 1));
        // From HCA 2 (a member): to 1, then to 0 and 3; nothing back to 2.
        assert_eq!(t[2].outputs(0, 2), 1 << 1);
        assert_eq!(t[1].outputs(0, 2), (1 << 1) | (1 << 3));
        assert_eq!(t[0].outputs(0, 2), 1);
        // From HCA 3, not a member of group 1: 3 -> 1 -> HCA 1 and switch 2.
        assert_eq!(t[3].outputs(1, 3), 1 << 1);
        assert_eq!(t[1].outputs(1, 3), 1 | (1 << 2));
        assert_eq!(t[1].cover(1, 3, 0) + t[1].cover(1, 3, 2), 2);
        assert_eq!(t[0].entries(), 2 * 4);
    }

    #[test]
    fn drawn_groups_have_their_sizes_and_distinct_members() {
        let spec = IbMulticastSpec::default();
        let g = Groups::new(&spec, 15, 1).unwrap();
        assert_eq!(g.members.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 4, 4]);
        for m in &g.members {
            assert!(m.windows(2).all(|w| w[0] < w[1]) && m.iter().all(|&h| h < 15));
        }
        assert_ne!(g, Groups::new(&spec, 15, 2).unwrap(), "another seed draws other members");
        let e = Groups::new(&IbMulticastSpec { group_sizes: vec![20], ..spec.clone() }, 15, 1).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.multicast.group_sizes"));
        let e = Groups::new(&IbMulticastSpec { groups: Some(vec![vec![0, 15]]), ..spec }, 15, 1).unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.multicast.groups[0]"), Some("15")));
    }
}
