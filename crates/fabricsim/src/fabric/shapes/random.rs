//! Random connected networks of 5-port switches with one endpoint each by
//! default, at seed 003's density (23 links per 15 switches), with no
//! constraint on how many cycles a switch is on (for seed 003's own
//! networks, where each switch is on one or two, see `irregular`).
//!
//! Generated reproducibly from the seed: a random spanning tree (each
//! switch in a random order joins a random earlier one with a free port),
//! then extra single links between random pairs of non-adjacent switches
//! with free ports. Connected and within the radix by construction; not a
//! uniform draw over all such graphs.

use super::irregular::{default_links, endpoints, shuffle, DEFAULT_RADIX, DEFAULT_SWITCHES};
use super::{Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;
use crate::kernel::RandomStream;

pub(super) const SHAPE: Shape = Shape {
    name: "random",
    description: "random connected network of `switches` switches (radix 5) with `links` links, one endpoint each \
                  by default, switches on any number of cycles",
    params: &["switches", "links", "nodes"],
    build,
};

fn build(params: &ShapeParams) -> Result<Topology> {
    let radix = params.radix.unwrap_or(DEFAULT_RADIX);
    let n = params.switches.unwrap_or(DEFAULT_SWITCHES);
    if !(2..=4096).contains(&n) {
        return Err(Error::invalid(&params.key("switches"), n, "2 to 4096 switches"));
    }
    let nodes = endpoints(params, n)?;
    let target = params.links.unwrap_or_else(|| default_links(n));
    let max_links = n * (n - 1) / 2;
    if target < n - 1 || target > max_links {
        return Err(Error::invalid(
            &params.key("links"),
            target,
            format!("{} to {max_links} links for {n} connected switches", n - 1),
        ));
    }
    let mut free: Vec<u32> = nodes.iter().map(|&e| radix.saturating_sub(e)).collect();
    let mut adjacent = vec![vec![false; n as usize]; n as usize];
    let mut groups: Vec<(u32, u32, u32)> = Vec::with_capacity(target as usize);
    let join = |a: u32, b: u32, free: &mut [u32], adjacent: &mut [Vec<bool>], groups: &mut Vec<(u32, u32, u32)>| {
        free[a as usize] -= 1;
        free[b as usize] -= 1;
        adjacent[a as usize][b as usize] = true;
        adjacent[b as usize][a as usize] = true;
        groups.push((a.min(b), a.max(b), 1));
    };
    let no_room = || {
        Error::invalid(
            &params.key("links"),
            target,
            format!("as many links as {radix}-port switches with these endpoints can hold"),
        )
    };
    let mut rng = RandomStream::new(params.seed, "fabric.irregular", 0);
    // Spanning tree over a random order of the switches.
    let mut order: Vec<u32> = (0..n).collect();
    shuffle(&mut order, &mut rng);
    for i in 1..order.len() {
        let v = order[i];
        let open: Vec<u32> = order[..i].iter().copied().filter(|&u| free[u as usize] > 0).collect();
        if open.is_empty() || free[v as usize] == 0 {
            return Err(no_room());
        }
        let u = open[rng.below(open.len() as u32) as usize];
        join(u, v, &mut free, &mut adjacent, &mut groups);
    }
    // Extra links close the independent cycles: each a uniform draw among
    // the open pairs (both ends with a free port, not yet adjacent) in
    // lexicographic order, found by counting rather than listing them all
    // (a list per link made 4,096 switches take minutes).
    // Each switch's neighbours of a higher number.
    let mut higher: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    for &(a, b, _) in &groups {
        higher[a as usize].push(b);
    }
    while (groups.len() as u32) < target {
        let open_ends: Vec<u32> = (0..n).filter(|&a| free[a as usize] > 0).collect();
        let m = open_ends.len();
        // Open pairs whose first switch is open_ends[i]: the later open
        // switches less those already adjacent (at most the radix).
        let row: Vec<u32> = open_ends
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let joined = open_ends[i + 1..].len() as u32;
                let taken = higher[a as usize].iter().filter(|&&y| free[y as usize] > 0).count() as u32;
                joined - taken
            })
            .collect();
        let total: u32 = row.iter().sum();
        if total == 0 {
            return Err(no_room());
        }
        let mut k = rng.below(total);
        let i = row
            .iter()
            .position(|&r| {
                if k < r {
                    true
                } else {
                    k -= r;
                    false
                }
            })
            .expect("k below the total");
        let a = open_ends[i];
        let b = open_ends[i + 1..m]
            .iter()
            .copied()
            .filter(|&b| !adjacent[a as usize][b as usize])
            .nth(k as usize)
            .expect("the row holds k + 1 open pairs");
        higher[a as usize].push(b);
        join(a, b, &mut free, &mut adjacent, &mut groups);
    }
    groups.sort_unstable();
    Ok(Topology::canonical(vec![radix; n as usize], &nodes, params.endpoint_kind, &groups))
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::Topology;

    fn irregular(switches: Option<u32>, seed: u64) -> Topology {
        let p = ShapeParams { switches, seed, ..ShapeParams::default() };
        build_shape("random", &p).unwrap()
    }

    #[test]
    fn fifteen_switches_have_nine_independent_cycles() {
        for seed in 0..50 {
            let t = irregular(None, seed);
            assert_eq!(t.switch_count(), 15);
            assert_eq!(t.endpoint_count(), 15);
            assert_eq!(t.links.len() - t.switch_count() + 1, 9);
            for s in 0..15 {
                assert!(t.link_ports(s) <= 4, "seed {seed}: switch {s} over its radix");
                assert!(t.links.iter().all(|l| l.multiplicity() == 1));
            }
        }
    }

    #[test]
    fn thirty_switches_keep_the_density() {
        let t = irregular(Some(30), 7);
        assert_eq!((t.switch_count(), t.endpoint_count(), t.links.len()), (30, 30, 46));
    }

    #[test]
    fn the_seed_decides_the_graph() {
        assert_eq!(irregular(None, 3), irregular(None, 3));
        assert_ne!(irregular(None, 3).links, irregular(None, 4).links);
    }

    /// The extra links by listing every open pair and drawing one, as the
    /// generator once did (minutes at 4,096 switches): the same graphs.
    fn extra_links_by_listing(t: &Topology, target: usize, seed: u64) -> Vec<(u32, u32)> {
        use super::super::irregular::shuffle;
        fn join(a: u32, b: u32, free: &mut [u32], adjacent: &mut [Vec<bool>], links: &mut Vec<(u32, u32)>) {
            free[a as usize] -= 1;
            free[b as usize] -= 1;
            adjacent[a as usize][b as usize] = true;
            adjacent[b as usize][a as usize] = true;
            links.push((a.min(b), a.max(b)));
        }
        let n = t.switch_count() as u32;
        let mut free = vec![4u32; n as usize];
        let mut adjacent = vec![vec![false; n as usize]; n as usize];
        let mut links = Vec::new();
        let mut rng = crate::kernel::RandomStream::new(seed, "fabric.irregular", 0);
        let mut order: Vec<u32> = (0..n).collect();
        shuffle(&mut order, &mut rng);
        for i in 1..order.len() {
            let open: Vec<u32> = order[..i].iter().copied().filter(|&u| free[u as usize] > 0).collect();
            let u = open[rng.below(open.len() as u32) as usize];
            join(u, order[i], &mut free, &mut adjacent, &mut links);
        }
        while links.len() < target {
            let mut open = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    if free[a as usize] > 0 && free[b as usize] > 0 && !adjacent[a as usize][b as usize] {
                        open.push((a, b));
                    }
                }
            }
            let (a, b) = open[rng.below(open.len() as u32) as usize];
            join(a, b, &mut free, &mut adjacent, &mut links);
        }
        links.sort_unstable();
        links
    }

    #[test]
    fn drawing_by_counting_gives_the_graphs_listing_gave() {
        for (switches, seeds) in [(15u32, 0..40u64), (30, 0..10), (200, 0..3)] {
            for seed in seeds {
                let p = ShapeParams { switches: Some(switches), seed, ..ShapeParams::default() };
                let t = build_shape("random", &p).unwrap();
                let mut got: Vec<(u32, u32)> = t.links.iter().map(|l| (l.a.min(l.b), l.a.max(l.b))).collect();
                got.sort_unstable();
                assert_eq!(got, extra_links_by_listing(&t, t.links.len(), seed), "{switches} switches, seed {seed}");
            }
        }
    }

    #[test]
    fn impossible_link_counts_are_refused() {
        let p = ShapeParams { switches: Some(15), links: Some(31), ..ShapeParams::default() };
        let e = build_shape("random", &p).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.links"), "{e}"); // 15 switches x 4 ports hold 30
        let p = ShapeParams { switches: Some(15), links: Some(13), ..ShapeParams::default() };
        assert!(build_shape("random", &p).is_err());
    }
}
