//! Seed 003's irregular networks (section 4, Fig. 6, section 5.1): 5-port
//! switches with one host channel adapter each; the 15-switch network has
//! nine independent cycles (nine path bits), so 23 links, and each switch
//! is on one or two of them (its multipath table has 15 x 2^1 or 15 x 2^2
//! entries). The 30-switch network's link count is not given; the default
//! keeps Fig. 6's density (46 links: 17 cycles).
//!
//! What those numbers force. Nine cycles of at least three switches, each
//! switch on at most two, add up to between 27 and 30 switch places, so
//! nearly all cycles are triangles. Cycles of one block (a 2-connected
//! piece) can only form a chain, a ladder, in which each cycle shares one
//! link with the next, an inner cycle sharing two links apart (so it has
//! four switches or more); blocks meet at single switches (a switch on one
//! cycle of each, with four links) or through a bridge link. Counting
//! switches, 15 switches and 23 links allow exactly two such networks up to
//! the order of blocks: four pairs of triangles and one triangle, or three
//! pairs and a triangle-square-triangle ladder, joined at switches in a
//! tree. Larger networks leave room for longer cycles and ladders and for
//! bridges. So the generator draws, reproducibly from the seed, such a tree
//! of blocks: how many ladders and how long, how the spare switches
//! lengthen cycles or become bridge ends, which block joins which at which
//! switch, and the switch numbering. Every switch is then on one or two of
//! the shortest independent cycles ([`crate::fabric::cycles`]).

use super::{Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;
use crate::kernel::RandomStream;

pub(super) const SHAPE: Shape = Shape {
    name: "irregular",
    description:
        "seed 003's irregular network: `switches` switches (radix 5) with `links` links, one endpoint each by \
                  default, each switch on one or two independent cycles (Fig. 6)",
    params: &["switches", "links", "nodes"],
    build,
};

/// Seed 003's switches have 5 ports.
pub(super) const DEFAULT_RADIX: u32 = 5;
pub(super) const DEFAULT_SWITCHES: u32 = 15;

/// Fig. 6's density: 23 links for 15 switches, rounded.
pub(super) fn default_links(switches: u32) -> u32 {
    (switches * 23 + 7) / 15
}

/// The fewest switches that hold `cycles` cycles with every switch on one
/// or two, `chains` of the blocks being chains of cycles.
fn fewest_switches(cycles: u32, chains: u32) -> u32 {
    2 * cycles - chains + 1
}

/// A block of the tree: one cycle of some length, or a chain (a ladder) of
/// cycles of the given lengths, each sharing one link with the next; a
/// cycle inside the chain shares two links, apart, so it has four or more.
#[derive(Clone, Debug)]
enum Block {
    Cycle(u32),
    Chain(Vec<u32>),
}

impl Block {
    fn switches(&self) -> u32 {
        match self {
            Block::Cycle(len) => *len,
            Block::Chain(cells) => cells.iter().sum::<u32>() - 2 * (cells.len() as u32 - 1),
        }
    }
}

fn build(params: &ShapeParams) -> Result<Topology> {
    let radix = params.radix.unwrap_or(DEFAULT_RADIX);
    let n = params.switches.unwrap_or(DEFAULT_SWITCHES);
    if !(3..=4096).contains(&n) {
        return Err(Error::invalid(&params.key("switches"), n, "3 to 4096 switches"));
    }
    let nodes = endpoints(params, n)?;
    // The most cycles n switches hold, each on one or two.
    let max_cycles = (1..=n).take_while(|&c| fewest_switches(c, c / 2) <= n).last().unwrap_or(1);
    let target = params.links.unwrap_or_else(|| default_links(n));
    if target < n || target > n - 1 + max_cycles {
        return Err(Error::invalid(
            &params.key("links"),
            target,
            format!(
                "{n} to {} links for {n} switches each on one or two cycles (\"random\" has no such limit)",
                n - 1 + max_cycles
            ),
        ));
    }
    let cycles = target - n + 1;
    let mut rng = RandomStream::new(params.seed, "fabric.irregular.blocks", 0);
    // Each chain saves a switch; cycles beyond two per chain cost the same
    // in a chain (the cycle it extends grows to four) as on their own.
    let fewest_chains = (2 * cycles + 1).saturating_sub(n);
    let chains = fewest_chains + rng.below(cycles / 2 - fewest_chains + 1);
    let mut blocks: Vec<Block> = (0..chains).map(|_| Block::Chain(vec![3, 3])).collect();
    for _ in 0..cycles - 2 * chains {
        if chains > 0 && rng.below(2) == 0 {
            let Block::Chain(cells) = &mut blocks[rng.below(chains) as usize] else { unreachable!() };
            let last = cells.len() - 1;
            cells[last] = cells[last].max(4);
            cells.push(3);
        } else {
            blocks.push(Block::Cycle(3));
        }
    }
    shuffle(&mut blocks, &mut rng);
    let used = blocks.iter().map(Block::switches).sum::<u32>() - (blocks.len() as u32 - 1);
    debug_assert_eq!(used, fewest_switches(cycles, chains));
    // Junction k joins block k + 1 to an earlier one: at a shared switch, or through a bridge link.
    let mut bridge = vec![false; blocks.len().saturating_sub(1)];
    for _ in 0..n - used {
        let open: Vec<usize> = (0..bridge.len()).filter(|&j| !bridge[j]).collect();
        if !open.is_empty() && rng.below(3) == 0 {
            bridge[open[rng.below(open.len() as u32) as usize]] = true;
            continue;
        }
        let b = rng.below(blocks.len() as u32) as usize;
        match &mut blocks[b] {
            Block::Cycle(len) => *len += 1,
            Block::Chain(cells) => {
                let c = rng.below(cells.len() as u32) as usize;
                cells[c] += 1;
            }
        }
    }
    // Switch numbers in creation order, drawn at random.
    let mut label: Vec<u32> = (0..n).collect();
    shuffle(&mut label, &mut rng);
    let mut g = Builder { label, next: 0, groups: Vec::new(), degree: vec![0; n as usize], joinable: Vec::new() };
    for (k, block) in blocks.iter().enumerate() {
        let attach = if k == 0 {
            None
        } else {
            if g.joinable.is_empty() {
                return Err(no_room(params, target, radix));
            }
            let at = g.joinable.swap_remove(rng.below(g.joinable.len() as u32) as usize);
            Some((at, bridge[k - 1]))
        };
        g.add(block, attach, &mut rng);
    }
    debug_assert_eq!(g.next, n);
    for (s, &d) in g.degree.iter().enumerate() {
        if d + nodes[s] > radix {
            return Err(no_room(params, target, radix));
        }
    }
    g.groups.sort_unstable();
    debug_assert_eq!(g.groups.len() as u32, target);
    Ok(Topology::canonical(vec![radix; n as usize], &nodes, params.endpoint_kind, &g.groups))
}

fn no_room(params: &ShapeParams, target: u32, radix: u32) -> Error {
    Error::invalid(
        &params.key("links"),
        target,
        format!("a network whose joining switches have 4 free {radix}-port links (fewer endpoints on them)"),
    )
}

/// Endpoints per switch: as given (one count per switch), or one each.
pub(super) fn endpoints(params: &ShapeParams, n: u32) -> Result<Vec<u32>> {
    match &params.nodes {
        Some(v) if v.len() != n as usize => {
            Err(Error::invalid(&params.key("nodes"), format!("{v:?}"), format!("{n} counts, one per switch")))
        }
        Some(v) => Ok(v.clone()),
        None => Ok(vec![1; n as usize]),
    }
}

/// Fisher-Yates, drawing from `rng`.
pub(super) fn shuffle<T>(v: &mut [T], rng: &mut RandomStream) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

struct Builder {
    label: Vec<u32>,
    next: u32,
    groups: Vec<(u32, u32, u32)>,
    degree: Vec<u32>,
    /// Switches on exactly one cycle and joined to nothing else: where the next block may join.
    joinable: Vec<u32>,
}

impl Builder {
    fn switch(&mut self) -> u32 {
        let s = self.label[self.next as usize];
        self.next += 1;
        s
    }

    fn link(&mut self, a: u32, b: u32) {
        self.degree[a as usize] += 1;
        self.degree[b as usize] += 1;
        self.groups.push((a.min(b), a.max(b), 1));
    }

    /// A path of `len` links from `a` to `b` through new switches; returns them.
    fn path(&mut self, a: u32, b: u32, len: u32) -> Vec<u32> {
        self.path_with(a, b, len, None)
    }

    /// Adds `block`, joined at switch `at` of an earlier block (sharing it,
    /// or through a new bridge link when the flag says so).
    fn add(&mut self, block: &Block, attach: Option<(u32, bool)>, rng: &mut RandomStream) {
        // The block's switch that meets the earlier block: shared, or a bridge end.
        let first = match attach {
            Some((at, false)) => at,
            Some((at, true)) => {
                let s = self.switch();
                self.link(at, s);
                s
            }
            None => self.switch(),
        };
        // A switch shared with, or bridged to, the earlier block has no two
        // links left for another block to share it.
        let joined = attach.is_some();
        match *block {
            Block::Cycle(len) => {
                let inner = self.path(first, first, len);
                // The block's own switches on its one cycle; `first` too unless it is joined.
                self.joinable.extend(inner);
                if !joined {
                    self.joinable.push(first);
                }
            }
            Block::Chain(ref cells) => {
                // The shared links, then each cycle's other paths: the end
                // cycles' one path between their shared link's ends, and the
                // two sides of an inner cycle between its two shared links.
                let k = cells.len();
                let rungs: Vec<(u32, u32)> = (0..k - 1)
                    .map(|_| {
                        let (u, v) = (self.switch(), self.switch());
                        self.link(u, v);
                        (u, v)
                    })
                    .collect();
                let mut paths: Vec<(u32, u32, u32)> = vec![(rungs[0].0, rungs[0].1, cells[0] - 1)];
                for i in 1..k - 1 {
                    let side = 1 + rng.below(cells[i] - 3);
                    paths.push((rungs[i - 1].1, rungs[i].1, side));
                    paths.push((rungs[i].0, rungs[i - 1].0, cells[i] - 2 - side));
                }
                paths.push((rungs[k - 2].0, rungs[k - 2].1, cells[k - 1] - 1));
                // The joining switch goes inside a path, where switches are on one cycle.
                let hosts: Vec<usize> = (0..paths.len()).filter(|&i| paths[i].2 >= 2).collect();
                let host = hosts[rng.below(hosts.len() as u32) as usize];
                for (i, &(a, b, len)) in paths.iter().enumerate() {
                    let inner = if i == host {
                        let along = rng.below(len - 1);
                        self.path_with(a, b, len, Some((along, first)))
                    } else {
                        self.path(a, b, len)
                    };
                    self.joinable.extend(inner.into_iter().filter(|&s| s != first || !joined));
                }
            }
        }
    }

    /// A path of `len` links from `a` to `b` whose inner switches are new,
    /// but for `splice` = (k, switch): inner switch number k is that one;
    /// returns the inner switches.
    fn path_with(&mut self, a: u32, b: u32, len: u32, splice: Option<(u32, u32)>) -> Vec<u32> {
        let inner: Vec<u32> = (0..len - 1)
            .map(|k| match splice {
                Some((at, switch)) if at == k => switch,
                _ => self.switch(),
            })
            .collect();
        let mut prev = a;
        for &s in &inner {
            self.link(prev, s);
            prev = s;
        }
        self.link(prev, b);
        inner
    }
}

#[cfg(test)]
mod tests {
    use crate::fabric::cycles::independent_cycles;
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::Topology;

    fn irregular(switches: Option<u32>, seed: u64) -> Topology {
        let p = ShapeParams { switches, seed, ..ShapeParams::default() };
        build_shape("irregular", &p).unwrap()
    }

    /// How many of the independent cycles each switch is on.
    fn cycles_per_switch(t: &Topology) -> Vec<usize> {
        let mut on = vec![0; t.switch_count()];
        for cycle in independent_cycles(t) {
            let mut switches: Vec<u32> = cycle.iter().flat_map(|&i| [t.links[i].a, t.links[i].b]).collect();
            switches.sort_unstable();
            switches.dedup();
            for s in switches {
                on[s as usize] += 1;
            }
        }
        on
    }

    #[test]
    fn fifteen_switches_have_nine_cycles_and_each_switch_is_on_one_or_two() {
        for seed in 0..100 {
            let t = irregular(None, seed);
            assert_eq!((t.switch_count(), t.endpoint_count(), t.links.len()), (15, 15, 23), "seed {seed}");
            assert_eq!(independent_cycles(&t).len(), 9);
            let on = cycles_per_switch(&t);
            assert!(on.iter().all(|&c| c == 1 || c == 2), "seed {seed}: {on:?}");
            for s in 0..15 {
                assert!(t.link_ports(s) <= 4, "seed {seed}: switch {s} over its radix");
            }
            assert!(t.links.iter().all(|l| l.multiplicity() == 1));
        }
    }

    #[test]
    fn thirty_switches_keep_the_density_and_the_one_or_two_cycles() {
        for seed in 0..100 {
            let t = irregular(Some(30), seed);
            assert_eq!((t.switch_count(), t.endpoint_count(), t.links.len()), (30, 30, 46));
            let on = cycles_per_switch(&t);
            assert!(on.iter().all(|&c| c == 1 || c == 2), "seed {seed}: {on:?}");
        }
    }

    #[test]
    fn the_seed_decides_the_graph() {
        assert_eq!(irregular(None, 3), irregular(None, 3));
        assert_ne!(irregular(None, 3).links, irregular(None, 4).links);
    }

    #[test]
    fn more_cycles_than_the_switches_can_hold_are_refused() {
        let p = ShapeParams { switches: Some(15), links: Some(24), ..ShapeParams::default() };
        let e = build_shape("irregular", &p).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.links"), "{e}");
        assert!(e.allowed.as_deref().unwrap().starts_with("15 to 23 links"), "{e}");
        let p = ShapeParams { switches: Some(15), links: Some(14), ..ShapeParams::default() };
        assert!(build_shape("irregular", &p).is_err());
    }
}
