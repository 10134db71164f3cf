//! Multipath routing in the InfiniBand model (seed 003 sections 3.3-3.4):
//! every switch holds its multipath table (`fabric::routing::multipath`)
//! beside its linear one, and a packet's path bits select the entry.
//!
//! How each kind of traffic chooses its path bits:
//! - control: none; VL15 takes the shortest path (the SPF tables);
//! - real-time (a connection, in order): at set-up, before any frame, the
//!   stream takes the shortest path with room for it: a probe reserves the
//!   stream's mean wire rate on every link of the path, and a link already
//!   reserved to its rate refuses it (NACK), so the next longer path is
//!   tried; among equally short paths with room, the one with the most
//!   room left on its fullest link; a stream no path admits takes the
//!   shortest one (counted). Its frames carry the path's bits;
//! - reliable datagrams (a share of best-effort, in order per end-to-end
//!   context): "randomly chooses one of the 2^9 paths in the verb layer":
//!   one random setting of every bit per source and destination, drawn
//!   once, and one SL per source and destination (an end-to-end context is
//!   on one SL; messages on different VLs could overtake each other);
//! - unreliable datagrams (the rest): no bits at the source; every switch
//!   sets the bits it examines that are still unset by choosing among the
//!   ports its entries offer, by Least Frequently Used (the output that has
//!   sent fewest packets) or Max-Credit (the output with the most credits
//!   for the packet's VL at the next switch).

use super::message::Message;
use super::packet::ServiceLevel;
use crate::fabric::routing::multipath::{index_of, setting, MultipathTables, Pattern};
use crate::fabric::topology::{PortUse, Topology};
use crate::kernel::RandomStream;

/// How an unreliable datagram chooses among the ports a switch offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The output that has sent the fewest packets on the packet's VL lately
    /// (`ib::lfu`: counts that halve every 268 us).
    LeastFrequentlyUsed,
    /// The output with the most credits for the packet's VL downstream.
    MaxCredit,
}

/// One switch's multipath table: for every destination HCA, an output port
/// per setting of the bits the switch examines.
#[derive(Clone, Debug)]
pub struct SwitchTable {
    examined: u64,
    settings: usize,
    ports: Vec<u16>,
}

impl SwitchTable {
    /// Switch `v`'s table from the fabric's `tables`; `lft` is its linear
    /// table (for the HCAs on `v` itself).
    pub fn new(v: u32, tables: &MultipathTables, topo: &Topology, lft: &[u16]) -> Self {
        let examined = tables.examined[v as usize];
        let settings = 1usize << examined.count_ones();
        let map = topo.port_map();
        let port_to = |w: u32| -> u16 {
            map[v as usize]
                .iter()
                .position(|u| matches!(u, PortUse::Link { to, .. } if *to == w))
                .expect("a next switch is a neighbour") as u16
        };
        let mut ports = Vec::with_capacity(topo.endpoints.len() * settings);
        for (h, e) in topo.endpoints.iter().enumerate() {
            if e.switch == v {
                ports.extend(std::iter::repeat_n(lft[h], settings));
            } else {
                ports.extend(tables.next[v as usize][e.switch as usize].iter().map(|&w| port_to(w)));
            }
        }
        SwitchTable { examined, settings, ports }
    }

    /// The bits this switch examines.
    #[inline]
    pub fn examined(&self) -> u64 {
        self.examined
    }

    /// The output towards HCA `dlid` for a packet whose examined bits are `bits`.
    #[inline]
    pub fn port(&self, dlid: u16, bits: u64) -> u16 {
        self.ports[dlid as usize * self.settings + index_of(self.examined, bits)]
    }

    /// The outputs a packet towards `dlid` whose bits agree with `known`
    /// may take here, each with the first setting of the examined bits
    /// leading there; written to `out`, their number returned.
    pub fn choices(&self, dlid: u16, known: Pattern, out: &mut Vec<(u16, u64)>) {
        out.clear();
        let row = &self.ports[dlid as usize * self.settings..][..self.settings];
        for (i, &p) in row.iter().enumerate() {
            let bits = setting(self.examined, i);
            let agrees = Pattern { value: bits, mask: self.examined }.agrees(known);
            if agrees && !out.iter().any(|&(q, _)| q == p) {
                out.push((p, bits));
            }
        }
    }

    /// Entries held (one port per destination and setting).
    pub fn len(&self) -> usize {
        self.ports.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }
}

/// What the stream set-up found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetUp {
    /// Streams set up, and those no path had room for (they take the shortest).
    pub streams: u64,
    pub refused_everywhere: u64,
    /// Probes refused on the way (NACKs) before a stream found its path.
    pub nacks: u64,
    /// Streams on a path longer than the shortest.
    pub detoured: u64,
}

/// A route: its switches, and a setting of the bits that takes it.
pub type Route = (Vec<u32>, u64);

/// Every distinct route from switch `s` to switch `d` the tables give, with
/// a setting of the bits that takes it (unexamined bits 0), shortest first
/// (then by setting).
pub fn routes(tables: &MultipathTables, s: u32, d: u32) -> Vec<Route> {
    let mut out: Vec<Route> = Vec::new();
    let mut walk = vec![s];
    follow(tables, d, Pattern::default(), &mut walk, &mut out);
    out.sort_by_key(|r| (r.0.len(), r.1));
    out
}

fn follow(tables: &MultipathTables, d: u32, known: Pattern, walk: &mut Vec<u32>, out: &mut Vec<Route>) {
    let v = *walk.last().expect("a walk has a switch");
    if v == d {
        if !out.iter().any(|(p, _)| p == walk) {
            out.push((walk.clone(), known.value));
        }
        return;
    }
    let mask = tables.examined[v as usize];
    let free = mask & !known.mask;
    for j in 0..1usize << free.count_ones() {
        let bits = (known.value & mask) | setting(free, j);
        let w = tables.hop(v, d, bits);
        let k = Pattern { value: known.value | bits, mask: known.mask | mask };
        walk.push(w);
        follow(tables, d, k, walk, out);
        walk.pop();
    }
}

/// The path bits sources put on their packets.
pub struct PathChoice {
    /// Every stream's bits (all of them set).
    stream_bits: Vec<u64>,
    /// Reliable datagrams' bits and SL per source and destination HCA.
    pair_bits: Vec<u64>,
    pair_sl: Vec<ServiceLevel>,
    all_bits: u64,
    hcas: u32,
    reliable_share: f64,
    /// Per HCA: whether a best-effort message is reliable.
    kind_rng: Vec<RandomStream>,
    pub set_up: SetUp,
}

/// A stream to set up: source and destination HCA, and its mean wire rate.
#[derive(Clone, Copy, Debug)]
pub struct StreamDemand {
    pub src: u32,
    pub dst: u32,
    pub bytes_per_s: f64,
}

impl PathChoice {
    /// Sets up `streams` in order on links of `link_bytes_per_s` and draws
    /// the reliable datagrams' bits of every pair.
    pub fn new(
        tables: &MultipathTables,
        topo: &Topology,
        streams: &[StreamDemand],
        link_bytes_per_s: f64,
        reliable_share: f64,
        best_effort_sls: &[ServiceLevel],
        seed: u64,
    ) -> Self {
        let n = topo.switch_count();
        let hcas = topo.endpoint_count();
        let switch_of = topo.endpoint_switch();
        let all_bits = if tables.cycles.count() == 64 { u64::MAX } else { (1u64 << tables.cycles.count()) - 1 };
        let mut reserved = vec![vec![0.0f64; n]; n];
        let mut cache: std::collections::HashMap<(u32, u32), Vec<Route>> = Default::default();
        let mut set_up = SetUp::default();
        let mut stream_bits = Vec::with_capacity(streams.len());
        for st in streams {
            let (s, d) = (switch_of[st.src as usize], switch_of[st.dst as usize]);
            set_up.streams += 1;
            if s == d {
                stream_bits.push(0);
                continue;
            }
            let candidates = cache.entry((s, d)).or_insert_with(|| routes(tables, s, d));
            // Room left on a path's fullest link after this stream.
            let room = |p: &[u32]| {
                p.windows(2)
                    .map(|l| link_bytes_per_s - reserved[l[0] as usize][l[1] as usize] - st.bytes_per_s)
                    .fold(f64::INFINITY, f64::min)
            };
            let first_fit = candidates.iter().position(|(p, _)| room(p) >= 0.0);
            let chosen = match first_fit {
                Some(i) => {
                    set_up.nacks += i as u64;
                    // Equally short paths with room: the one with the most room.
                    let len = candidates[i].0.len();
                    (i..candidates.len())
                        .take_while(|&j| candidates[j].0.len() == len)
                        .filter(|&j| room(&candidates[j].0) >= 0.0)
                        .max_by(|&a, &b| room(&candidates[a].0).total_cmp(&room(&candidates[b].0)).then(b.cmp(&a)))
                        .expect("the first fit is among them")
                }
                None => {
                    set_up.nacks += candidates.len() as u64;
                    set_up.refused_everywhere += 1;
                    0
                }
            };
            let (path, bits) = &candidates[chosen];
            if path.len() > candidates[0].0.len() {
                set_up.detoured += 1;
            }
            for l in path.windows(2) {
                reserved[l[0] as usize][l[1] as usize] += st.bytes_per_s;
            }
            stream_bits.push(*bits);
        }
        let mut pair_rng = RandomStream::new(seed, "ib.multipath.reliable_paths", 0);
        let pair_bits = (0..hcas as u64 * hcas as u64).map(|_| pair_rng.next_u64() & all_bits).collect();
        let pair_sl = (0..hcas as u64 * hcas as u64)
            .map(|_| best_effort_sls[pair_rng.below(best_effort_sls.len() as u32) as usize])
            .collect();
        let kind_rng = (0..hcas).map(|h| RandomStream::new(seed, "ib.multipath.datagram_kind", h as u64)).collect();
        PathChoice { stream_bits, pair_bits, pair_sl, all_bits, hcas, reliable_share, kind_rng, set_up }
    }

    /// Sets a video frame's path: its stream's.
    #[inline]
    pub fn stream(&self, stream: u32, msg: &mut Message) {
        msg.path = Pattern { value: self.stream_bits[stream as usize], mask: self.all_bits };
        msg.multipath = true;
    }

    /// Sets a best-effort message's path: a reliable datagram takes its
    /// pair's bits and SL, an unreliable one no bits (switches choose).
    #[inline]
    pub fn best_effort(&mut self, msg: &mut Message) {
        let reliable = self.kind_rng[msg.src as usize].bernoulli(self.reliable_share);
        msg.reliable = reliable;
        msg.path = if reliable {
            let pair = (msg.src * self.hcas + msg.dst) as usize;
            msg.sl = self.pair_sl[pair];
            Pattern { value: self.pair_bits[pair], mask: self.all_bits }
        } else {
            Pattern::default()
        };
        msg.multipath = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::multipath::multipath_tables;
    use crate::fabric::routing::spf::next_switches;
    use crate::fabric::routing::Ties;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    fn network() -> (Topology, MultipathTables) {
        let topo = build_shape("random", &ShapeParams { seed: 1, ..ShapeParams::default() }).unwrap();
        let t = multipath_tables(&topo, 0, 2, &next_switches(&topo, Ties::Balanced), u64::MAX).unwrap();
        (topo, t)
    }

    #[test]
    fn routes_are_distinct_simple_and_shortest_first() {
        let (topo, t) = network();
        let dist = topo.distances();
        for (s, d) in [(0u32, 7u32), (3, 12), (14, 2)] {
            let r = routes(&t, s, d);
            assert!(!r.is_empty());
            assert_eq!(r[0].0.len() as u32 - 1, dist[s as usize][d as usize], "the shortest first");
            for (path, bits) in &r {
                let mut seen = path.clone();
                seen.sort();
                seen.dedup();
                assert_eq!(seen.len(), path.len(), "simple");
                // The bits take the packet along the path.
                let mut v = s;
                for &w in &path[1..] {
                    v = t.hop(v, d, bits & t.examined[v as usize]);
                    assert_eq!(v, w);
                }
            }
            assert!(r.windows(2).all(|w| w[0].0.len() <= w[1].0.len()));
        }
    }

    /// Streams that fill the shortest path push the next onto a longer
    /// one with room; a stream no path has room for takes the shortest.
    #[test]
    fn set_up_takes_the_shortest_path_with_room() {
        let (topo, t) = network();
        // A pair with a longer route sharing no link with the only shortest one.
        let links = |p: &[u32]| p.windows(2).map(|l| (l[0], l[1])).collect::<Vec<_>>();
        let (s, d, longer) = (0..15u32)
            .flat_map(|s| (0..15u32).map(move |d| (s, d)))
            .filter(|&(s, d)| s != d)
            .find_map(|(s, d)| {
                let r = routes(&t, s, d);
                let shortest: Vec<_> = r.iter().filter(|x| x.0.len() == r[0].0.len()).collect();
                if shortest.len() != 1 {
                    return None;
                }
                let own = links(&r[0].0);
                r.iter().find(|x| links(&x.0).iter().all(|l| !own.contains(l))).map(|x| (s, d, x.clone()))
            })
            .expect("such a pair on this network");
        let demand = StreamDemand { src: s, dst: d, bytes_per_s: 100e6 };
        let sls = [ServiceLevel::new(8, "").unwrap()];
        let p = PathChoice::new(&t, &topo, &[demand; 3], 250e6, 0.5, &sls, 1);
        let r = routes(&t, s, d);
        assert_eq!(&p.stream_bits[..2], &[r[0].1, r[0].1], "two fit the shortest path");
        assert_ne!(p.stream_bits[2], r[0].1, "the third does not");
        assert_eq!((p.set_up.detoured, p.set_up.refused_everywhere), (1, 0));
        assert!(r.iter().position(|x| x.1 == p.stream_bits[2]) <= r.iter().position(|x| x.1 == longer.1));
        // Streams of a whole link each: only the first finds room anywhere.
        let big = StreamDemand { bytes_per_s: 250e6, ..demand };
        let p = PathChoice::new(&t, &topo, &[big; 40], 250e6, 0.5, &sls, 1);
        assert!(p.set_up.refused_everywhere > 0 && p.stream_bits[0] == r[0].1, "{:?}", p.set_up);
    }

    #[test]
    fn a_switch_table_offers_every_port_its_settings_lead_to() {
        let (topo, t) = network();
        let v = (0..15).max_by_key(|&v| t.examined[v as usize].count_ones()).unwrap();
        let lft = vec![0u16; 15];
        let table = SwitchTable::new(v, &t, &topo, &lft);
        assert_eq!(table.len(), 15 << t.examined[v as usize].count_ones());
        let mut out = Vec::new();
        let d = (0..15u16).find(|&d| d as u32 != v).unwrap();
        table.choices(d, Pattern::default(), &mut out);
        assert!(!out.is_empty());
        for &(port, bits) in &out {
            assert_eq!(table.port(d, bits), port);
        }
        // Knowing every bit leaves one choice.
        let known = Pattern { value: out[0].1, mask: u64::MAX };
        table.choices(d, known, &mut out);
        assert_eq!(out.len(), 1);
    }
}
