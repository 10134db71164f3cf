//! Multipath routing with path bits (seed 003 sections 3.2-3.3).
//!
//! - Algorithm 1: a breadth-first tree from a root switch; every link not in
//!   it (a back edge) closes one independent cycle, so there are
//!   `|E| - |V| + 1` of them and a packet carries that many path bits.
//! - Algorithm 2: the cycle of back edge (v, w), v the lower-numbered end,
//!   is v, w, then the shortest way from w back to v without that link
//!   (lower-numbered switches first on ties): `C_k = v w ... v`, taken
//!   clockwise in that order.
//! - Definition 1: the cycle list of a directed link x -> y holds `+k` if
//!   x -> y is a step of `C_k` clockwise and `-k` if counterclockwise.
//! - Definition 2 and Algorithm 3: a path's lists are united left to right,
//!   a contradicting pair (`k` and `-k`) removed as the study's four cases
//!   say; path bit `k` is 1 if `+k` is left, 0 if `-k` is, else X.
//!
//! The multipath table of switch v has, for every destination switch and
//! every setting of the bits of the cycles through v (the only bits v
//! examines), the first hop of the shortest path from v whose bits agree
//! with that setting (paths up to `slack` hops longer than the shortest are
//! considered; ties go to the lower-numbered next switch). A setting no such
//! path agrees with takes the SPF hop. So a table has `2^(cycles through v)`
//! entries per destination, as the study counts them; merged where settings
//! share a port (the study's don't-cares), it has fewer.
//!
//! A packet's route follows the tables with its bits; bits a switch examines
//! that are not yet set are set there (an adaptive packet chooses them). The
//! study does not show that every setting leads to the destination without
//! a loop, and in general some do not: the tables are checked for every
//! setting, and an entry on a loop is replaced by its SPF hop (which is one
//! hop nearer) until none is left; the count is reported.

use std::collections::VecDeque;

use super::shortest::NextSwitches;
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

/// Path bits of a packet or a path: `value` on the bits in `mask`, the rest X.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub value: u64,
    pub mask: u64,
}

impl Pattern {
    /// Whether two patterns agree wherever both are set.
    pub fn agrees(self, other: Pattern) -> bool {
        (self.value ^ other.value) & self.mask & other.mask == 0
    }

    /// The study's notation, bit 1 first: "1X", "01".
    pub fn to_bits(self, cycles: usize) -> String {
        (0..cycles)
            .map(|k| match (self.mask >> k & 1, self.value >> k & 1) {
                (0, _) => 'X',
                (_, 1) => '1',
                _ => '0',
            })
            .collect()
    }
}

/// The independent cycles of a network (Algorithms 1 and 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycles {
    pub root: u32,
    /// Each cycle as its switches in clockwise order (the first one not repeated at the end).
    pub cycles: Vec<Vec<u32>>,
}

/// Algorithms 1 and 2 over the switch graph `adj` (neighbours in increasing order).
pub fn find_cycles(adj: &[Vec<u32>], root: u32) -> Cycles {
    let n = adj.len();
    // Algorithm 1: the BFS tree; every other link is a back edge.
    let mut parent = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    seen[root as usize] = true;
    let mut queue = VecDeque::from([root]);
    while let Some(u) = queue.pop_front() {
        for &w in &adj[u as usize] {
            if !seen[w as usize] {
                seen[w as usize] = true;
                parent[w as usize] = u;
                queue.push_back(w);
            }
        }
    }
    let mut back: Vec<(u32, u32)> = Vec::new();
    for (v, ns) in adj.iter().enumerate() {
        for &w in ns {
            let v = v as u32;
            if v < w && parent[w as usize] != v && parent[v as usize] != w {
                back.push((v, w));
            }
        }
    }
    // Algorithm 2: the shortest way back from w to v without the back edge.
    let cycles = back
        .iter()
        .map(|&(v, w)| {
            let mut prev = vec![u32::MAX; n];
            prev[w as usize] = w;
            let mut queue = VecDeque::from([w]);
            while let Some(u) = queue.pop_front() {
                if u == v {
                    break;
                }
                for &x in &adj[u as usize] {
                    if prev[x as usize] == u32::MAX && !(u == w && x == v) {
                        prev[x as usize] = u;
                        queue.push_back(x);
                    }
                }
            }
            // v, w, ..., back to v: the BFS path from w to v, reversed onto v.
            let mut back_path = vec![v];
            let mut x = v;
            while x != w {
                x = prev[x as usize];
                back_path.push(x);
            }
            back_path.reverse(); // w ... v
            back_path.pop(); // drop the closing v
            let mut cycle = vec![v];
            cycle.extend(back_path);
            cycle
        })
        .collect();
    Cycles { root, cycles }
}

impl Cycles {
    pub fn count(&self) -> usize {
        self.cycles.len()
    }

    /// Definition 1: the cycle list of the directed link `x -> y`, as signed
    /// cycle numbers from 1 (`+k`: clockwise in `C_k`, `-k`: counterclockwise).
    pub fn cycle_list(&self, x: u32, y: u32) -> Vec<i32> {
        let mut out = Vec::new();
        for (k, c) in self.cycles.iter().enumerate() {
            let len = c.len();
            for i in 0..len {
                let (a, b) = (c[i], c[(i + 1) % len]);
                if (a, b) == (x, y) {
                    out.push(k as i32 + 1);
                } else if (b, a) == (x, y) {
                    out.push(-(k as i32 + 1));
                }
            }
        }
        out
    }

    /// The bits of the cycles through switch `v`.
    pub fn bits_at(&self, v: u32) -> u64 {
        self.cycles.iter().enumerate().filter(|(_, c)| c.contains(&v)).fold(0, |m, (k, _)| m | 1 << k)
    }

    /// Algorithm 3: the path bits of the path through `switches`.
    pub fn path_bits(&self, switches: &[u32]) -> Pattern {
        let mut union: Vec<i32> = Vec::new();
        for hop in switches.windows(2) {
            union = cycle_list_union(&union, &self.cycle_list(hop[0], hop[1]));
        }
        union.iter().fold(Pattern::default(), |p, &c| {
            let bit = 1u64 << (c.unsigned_abs() - 1);
            Pattern { value: if c > 0 { p.value | bit } else { p.value }, mask: p.mask | bit }
        })
    }
}

/// Definition 2: the union of two cycle lists without contradicting
/// members. For a contradicting pair `a` in `a1` and `-a` in `a2`: both go
/// when both lists have more than one member; otherwise the member from the
/// longer list goes (the single one is the path's own direction there).
/// The study leaves two singletons undefined; a simple path cannot make
/// them on consecutive links, and elsewhere both go.
pub fn cycle_list_union(a1: &[i32], a2: &[i32]) -> Vec<i32> {
    let mut out: Vec<i32> = Vec::new();
    let contradicted = |c: i32, other: &[i32]| other.contains(&-c);
    for &c in a1 {
        let drop = contradicted(c, a2) && (a1.len() > 1 || a2.len() == 1);
        if !drop && !out.contains(&c) {
            out.push(c);
        }
    }
    for &c in a2 {
        let drop = contradicted(c, a1) && (a2.len() > 1 || a1.len() == 1);
        if !drop && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The multipath tables of a network.
#[derive(Clone, Debug)]
pub struct MultipathTables {
    pub cycles: Cycles,
    /// Per switch: the bits it examines (the cycles through it).
    pub examined: Vec<u64>,
    /// `next[v][d][i]`: the next switch from `v` towards switch `d` for the
    /// `i`-th setting of `v`'s examined bits (bit j of `i` is the j-th
    /// examined bit, lowest first); empty when `v == d`.
    pub next: Vec<Vec<Vec<u32>>>,
    /// Entries no path within the slack agrees with (they take the SPF hop).
    pub unmatched: usize,
    /// Entries replaced by their SPF hop because they lay on a loop.
    pub looping: usize,
}

/// The `i`-th setting of the bits in `mask` (bit j of `i` on the j-th set bit of `mask`).
pub fn setting(mask: u64, i: usize) -> u64 {
    let mut out = 0;
    let mut m = mask;
    let mut j = 0;
    while m != 0 {
        let bit = m & m.wrapping_neg();
        if i >> j & 1 == 1 {
            out |= bit;
        }
        m &= m - 1;
        j += 1;
    }
    out
}

/// The index of the setting of `bits` on the bits in `mask` (the inverse of [`setting`]).
#[inline]
pub fn index_of(mask: u64, bits: u64) -> usize {
    let mut i = 0;
    let mut m = mask;
    let mut j = 0;
    while m != 0 {
        let bit = m & m.wrapping_neg();
        if bits & bit != 0 {
            i |= 1 << j;
        }
        m &= m - 1;
        j += 1;
    }
    i
}

/// At most this many cycles: path bits ride in 64 bits.
pub const MAX_CYCLES: usize = 64;
/// At most this many cycles through one switch (2^this entries per destination).
pub const MAX_CYCLES_PER_SWITCH: u32 = 16;

/// The bytes the tables of switches examining `examined` take: the next
/// switch per destination switch and setting here, and a port per HCA and
/// setting in each switch's own table (`ib::multipath::SwitchTable`).
pub fn table_bytes(examined: &[u64], endpoints: u64) -> u64 {
    let switches = examined.len() as u64;
    examined.iter().map(|m| (1u64 << m.count_ones()) * (switches * 4 + endpoints * 2)).sum()
}

/// The multipath tables of `topo` from BFS root `root`, considering paths
/// up to `slack` hops longer than the shortest; `spf` gives the default hop.
/// Tables larger than `budget_bytes` (what `run.memory_budget_mb` leaves
/// beside the rest of the fabric) are refused before they are built: their
/// size is known once the cycles are, and doubles with every cycle a switch
/// is on.
pub fn multipath_tables(
    topo: &Topology,
    root: u32,
    slack: u32,
    spf: &NextSwitches,
    budget_bytes: u64,
) -> Result<MultipathTables> {
    let n = topo.switch_count();
    let adj: Vec<Vec<u32>> = (0..n as u32).map(|s| topo.neighbours(s)).collect();
    let cycles = find_cycles(&adj, root);
    if cycles.count() > MAX_CYCLES {
        return Err(Error::invalid(
            "ib.routing.algorithm",
            "\"multipath\"",
            format!("a network of at most {MAX_CYCLES} independent cycles (this one has {})", cycles.count()),
        ));
    }
    let examined: Vec<u64> = (0..n as u32).map(|v| cycles.bits_at(v)).collect();
    if let Some(v) = examined.iter().position(|m| m.count_ones() > MAX_CYCLES_PER_SWITCH) {
        return Err(Error::invalid(
            "ib.routing.algorithm",
            "\"multipath\"",
            format!(
                "at most {MAX_CYCLES_PER_SWITCH} cycles through a switch (switch {} is on {})",
                v + 1,
                examined[v].count_ones()
            ),
        ));
    }
    let bytes = table_bytes(&examined, topo.endpoint_count() as u64);
    if bytes > budget_bytes {
        const MIB: f64 = 1024.0 * 1024.0;
        return Err(Error::invalid(
            "run.memory_budget_mb",
            format!("{:.0} MiB left beside the rest of the fabric", budget_bytes as f64 / MIB),
            format!(
                "room for the multipath tables, an estimated {:.0} MiB (2^(cycles through a switch) entries per \
                 destination; the most cycles through one switch is {}); raise run.memory_budget_mb if the machine \
                 holds them",
                bytes as f64 / MIB,
                examined.iter().map(|m| m.count_ones()).max().unwrap_or(0)
            ),
        ));
    }
    let dist = topo.distances();
    let mut next = vec![vec![Vec::new(); n]; n];
    let mut unmatched = 0;
    let mut path = Vec::new();
    for v in 0..n {
        let settings = 1usize << examined[v].count_ones();
        for d in (0..n).filter(|&d| d != v) {
            // best[i]: (length, next switch) of the shortest agreeing path.
            let mut best = vec![(u32::MAX, u32::MAX); settings];
            let limit = dist[v][d] + slack;
            path.clear();
            path.push(v as u32);
            simple_paths(&adj, &dist, d as u32, limit, &mut path, &mut |p| {
                let bits = cycles.path_bits(p);
                let len = p.len() as u32 - 1;
                let hop = p[1];
                for (i, b) in best.iter_mut().enumerate() {
                    let s = Pattern { value: setting(examined[v], i), mask: examined[v] };
                    if s.agrees(bits) && (len, hop) < *b {
                        *b = (len, hop);
                    }
                }
            });
            let spf_hop = spf[v][d].as_ref().and_then(|h| h.first().copied()).expect("SPF routes every pair");
            next[v][d] = best
                .iter()
                .map(|&(len, hop)| {
                    if len == u32::MAX {
                        unmatched += 1;
                        spf_hop
                    } else {
                        hop
                    }
                })
                .collect();
        }
    }
    let mut tables = MultipathTables { cycles, examined, next, unmatched, looping: 0 };
    tables.remove_loops(&dist, spf);
    Ok(tables)
}

/// Calls `each` with every simple path from the last switch of `path` to
/// `d` of at most `limit` hops in all (pruned by the distance still to go).
fn simple_paths(
    adj: &[Vec<u32>],
    dist: &[Vec<u32>],
    d: u32,
    limit: u32,
    path: &mut Vec<u32>,
    each: &mut impl FnMut(&[u32]),
) {
    let u = *path.last().expect("a path has a switch");
    if u == d {
        each(path);
        return;
    }
    for &w in &adj[u as usize] {
        let hops = path.len() as u32; // hops so far, plus this one
        if hops + dist[w as usize][d as usize] > limit || path.contains(&w) {
            continue;
        }
        path.push(w);
        simple_paths(adj, dist, d, limit, path, each);
        path.pop();
    }
}

impl MultipathTables {
    /// The next switch from `v` towards `d` for a packet with `bits` (all
    /// the bits `v` examines set).
    #[inline]
    pub fn hop(&self, v: u32, d: u32, bits: u64) -> u32 {
        self.next[v as usize][d as usize][index_of(self.examined[v as usize], bits)]
    }

    /// Replaces entries that put some setting of the bits on a loop with
    /// their SPF hop, until no setting loops.
    fn remove_loops(&mut self, dist: &[Vec<u32>], spf: &NextSwitches) {
        let n = self.next.len();
        for d in 0..n as u32 {
            while let Some((v, i)) = self.find_loop(d, dist) {
                let spf_hop = spf[v as usize][d as usize].as_ref().and_then(|h| h.first().copied()).expect("SPF route");
                self.next[v as usize][d as usize][i] = spf_hop;
                self.looping += 1;
            }
        }
    }

    /// An entry towards `d` on a loop: one that does not bring a packet
    /// nearer `d` on a walk that revisits a switch, for some bits.
    fn find_loop(&self, d: u32, dist: &[Vec<u32>]) -> Option<(u32, usize)> {
        let n = self.next.len() as u32;
        let mut walk: Vec<(u32, usize)> = Vec::new();
        for s in (0..n).filter(|&s| s != d) {
            if let Some(e) = self.loop_from(s, d, Pattern::default(), dist, &mut walk) {
                return Some(e);
            }
        }
        None
    }

    /// Depth-first over the settings of the bits switches set as a packet
    /// goes: every walk from `v` with bits agreeing with `known`.
    fn loop_from(
        &self,
        v: u32,
        d: u32,
        known: Pattern,
        dist: &[Vec<u32>],
        walk: &mut Vec<(u32, usize)>,
    ) -> Option<(u32, usize)> {
        if v == d {
            return None;
        }
        if let Some(at) = walk.iter().position(|&(u, _)| u == v) {
            // A loop: the first entry on it that does not step nearer d.
            let on_loop = &walk[at..];
            return on_loop.iter().copied().find(|&(u, i)| {
                let w = self.next[u as usize][d as usize][i];
                dist[w as usize][d as usize] >= dist[u as usize][d as usize]
            });
        }
        let mask = self.examined[v as usize];
        let free = mask & !known.mask;
        let settings = 1usize << free.count_ones();
        for j in 0..settings {
            let bits = (known.value & mask) | setting(free, j);
            let i = index_of(mask, bits);
            let w = self.next[v as usize][d as usize][i];
            walk.push((v, i));
            let k = Pattern { value: known.value | bits, mask: known.mask | mask };
            let found = self.loop_from(w, d, k, dist, walk);
            walk.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Entries per switch with don't-cares merged: for every destination, the
    /// settings are grouped by port as a binary decision over the examined
    /// bits (the study's `b0X` for all of `b00`, `b01`), counted.
    pub fn merged_entries(&self, v: u32) -> usize {
        let mask = self.examined[v as usize];
        let k = mask.count_ones();
        self.next[v as usize].iter().filter(|e| !e.is_empty()).map(|e| merged(e, k)).sum()
    }
}

/// Entries needed for one destination's `2^k` settings when a run of
/// settings agreeing on their top bits and on their port merges into one
/// (bits examined from the lowest): the leaves of the smallest decision tree.
fn merged(ports: &[u32], k: u32) -> usize {
    if k == 0 || ports.iter().all(|&p| p == ports[0]) {
        return 1;
    }
    let half = ports.len() / 2;
    // Bit j of the index is the j-th examined bit: split on the highest.
    merged(&ports[..half], k - 1) + merged(&ports[half..], k - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::spf::next_switches;
    use crate::fabric::routing::Ties;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    /// The study's Fig. 4a: a-b, a-c, b-c, b-d, c-d as switches 0-3.
    fn figure_4a() -> Topology {
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![1; 4]), ..ShapeParams::default() };
        let shape = ShapeParams { trunks: Some(vec![[1, 2, 1], [1, 3, 1], [2, 3, 1], [2, 4, 1], [3, 4, 1]]), ..shape };
        build_shape("custom", &shape).unwrap()
    }

    const A: u32 = 0;
    const B: u32 = 1;
    const C: u32 = 2;
    const D: u32 = 3;

    /// Section 3.2's worked example, from the BFS tree rooted at b: back
    /// edges (a, c) and (c, d); cycles C1 = acba and C2 = cdbc; the cycle
    /// list of bc is {C1-bar, C2}; from b to a the paths ba, bca and bdca
    /// have bits 1X, 01 and 00; from a to b, ab, acb and acdb have 0X, 10
    /// and 11; a is on C1 only, so its table has 2^1 x 3 = 6 entries, its
    /// entries for b being b0X (by b) and b1X (by c: acb and acdb merged).
    #[test]
    fn the_studys_worked_example() {
        let topo = figure_4a();
        let adj: Vec<Vec<u32>> = (0..4).map(|s| topo.neighbours(s)).collect();
        let c = find_cycles(&adj, B);
        assert_eq!(c.cycles, vec![vec![A, C, B], vec![C, D, B]]);
        assert_eq!(c.cycle_list(B, C), vec![-1, 2]);
        let bits = |p: &[u32]| c.path_bits(p).to_bits(2);
        assert_eq!((bits(&[B, A]), bits(&[B, C, A]), bits(&[B, D, C, A])), ("1X".into(), "01".into(), "00".into()));
        assert_eq!((bits(&[A, B]), bits(&[A, C, B]), bits(&[A, C, D, B])), ("0X".into(), "10".into(), "11".into()));
        let spf = next_switches(&topo, Ties::Balanced);
        let t = multipath_tables(&topo, B, 3, &spf, u64::MAX).unwrap();
        assert_eq!(t.examined[A as usize], 0b01, "a is on C1 only");
        let entries: usize = t.next[A as usize].iter().map(Vec::len).sum();
        assert_eq!(entries, 6, "2^1 x 3 destinations");
        // a's table for b: bit 1 = 0 by b itself (ab), 1 by c (acb, acdb).
        assert_eq!(t.next[A as usize][B as usize], vec![B, C]);
        // b examines both bits: for a, 1X by a, 01 by c, 00 by d.
        assert_eq!((t.hop(B, A, 0b01), t.hop(B, A, 0b11)), (A, A));
        assert_eq!((t.hop(B, A, 0b10), t.hop(B, A, 0b00)), (C, D));
        assert_eq!(t.looping, 0);
        // Following the tables with bits 00 from b reaches a by d and c.
        let walk = |mut v: u32, bits: u64| {
            let mut path = vec![v];
            while v != A {
                v = t.hop(v, A, bits & t.examined[v as usize]);
                path.push(v);
            }
            path
        };
        assert_eq!(walk(B, 0b00), vec![B, D, C, A]);
        assert_eq!(walk(B, 0b10), vec![B, C, A]);
        assert_eq!(t.merged_entries(A), 6, "two per destination, one bit examined");
        assert_eq!(t.next[A as usize][C as usize], vec![B, C], "c: 0X by b (abc, abdc), 1X direct");
    }

    #[test]
    fn a_network_has_edges_minus_switches_plus_one_cycles_and_no_setting_loops() {
        for seed in 1..6 {
            let topo = build_shape("random", &ShapeParams { seed, ..ShapeParams::default() }).unwrap();
            let spf = next_switches(&topo, Ties::Balanced);
            let t = multipath_tables(&topo, 0, 2, &spf, u64::MAX).unwrap();
            assert_eq!(t.cycles.count(), 23 - 15 + 1);
            let dist = topo.distances();
            // Every full setting of the 9 bits reaches every destination.
            for bits in 0..1u64 << 9 {
                for s in 0..15u32 {
                    for d in (0..15u32).filter(|&d| d != s) {
                        let (mut v, mut hops) = (s, 0);
                        while v != d {
                            v = t.hop(v, d, bits & t.examined[v as usize]);
                            hops += 1;
                            assert!(hops <= 15, "seed {seed}: a loop from {s} to {d} with bits {bits:b}");
                        }
                        assert!(hops >= dist[s as usize][d as usize]);
                    }
                }
            }
        }
    }

    #[test]
    fn tables_beyond_the_budget_are_refused_before_they_are_built() {
        let topo = build_shape("random", &ShapeParams { seed: 1, ..ShapeParams::default() }).unwrap();
        let spf = next_switches(&topo, Ties::Balanced);
        let t = multipath_tables(&topo, 0, 2, &spf, u64::MAX).unwrap();
        let need = table_bytes(&t.examined, 15);
        // 15 switches, one HCA each: (15 x 4 + 15 x 2) bytes per setting and switch.
        let settings: u64 = t.examined.iter().map(|m| 1u64 << m.count_ones()).sum();
        assert_eq!(need, settings * 90);
        assert!(multipath_tables(&topo, 0, 2, &spf, need).is_ok());
        let err = multipath_tables(&topo, 0, 2, &spf, need - 1).unwrap_err().to_string();
        assert!(err.contains("run.memory_budget_mb") && err.contains("multipath tables"), "{err}");
    }

    #[test]
    fn contradicting_members_leave_as_the_four_cases_say() {
        assert_eq!(cycle_list_union(&[1, 2], &[-1, 3]), vec![2, 3], "both longer than one: both go");
        assert_eq!(cycle_list_union(&[1, 2], &[-1]), vec![2, -1], "a1 longer: its member goes");
        assert_eq!(cycle_list_union(&[1], &[-1, 3]), vec![1, 3], "a2 longer: its member goes");
        assert_eq!(cycle_list_union(&[1], &[2]), vec![1, 2], "no contradiction: the union");
    }

    #[test]
    fn settings_and_indices_are_inverse() {
        let mask = 0b1011_0100;
        for i in 0..16 {
            assert_eq!(index_of(mask, setting(mask, i)), i);
            assert_eq!(setting(mask, i) & !mask, 0);
        }
    }
}
