//! The original Up/Down routing as seed 003 section 3.1 describes it: a
//! packet climbs a spanning tree towards the root until it reaches an
//! ancestor of its destination, then descends, and "since the original
//! Up/Down routing algorithm allows to use channels in a spanning tree only,
//! the other channels in the network are forbidden to route packets". The
//! study's own example agrees: its Up/Down table for vertex a (Fig. 5b,
//! root b) sends c by b although a and c are neighbours. Every route is the
//! unique tree path, so it is deadlock-free; cross links carry nothing.
//! `updown` is Autonet's Up*/Down*, which uses every link.
//!
//! The tree is the breadth-first tree from the root, each switch joining
//! through its lowest-numbered neighbour one level nearer the root.

use super::shortest::{partitioned, NextSwitches};
use super::{Algorithm, ForwardingTables, RoutingParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "updown_tree",
    description: "the original Up/Down: the breadth-first spanning tree from switch `root` (default 0) only, \
                  cross links unused; deadlock-free",
    params: &["root"],
    tables,
    lfts: None,
    endpoint_tables: None,
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let n = topo.switch_count() as u32;
    let root = params.root.unwrap_or(0);
    if root >= n {
        return Err(Error::invalid(&params.key("root"), root, format!("a switch from 0 to {}", n - 1)));
    }
    Ok(partitioned(topo, &tree_next_switches(topo, root), params.lanes))
}

/// The breadth-first tree from `root`: every switch's parent (None for the root).
pub fn parents(topo: &Topology, root: u32) -> Vec<Option<u32>> {
    let level = topo.distances().swap_remove(root as usize);
    (0..topo.switch_count() as u32)
        .map(|s| topo.neighbours(s).into_iter().find(|&t| level[t as usize] + 1 == level[s as usize]))
        .collect()
}

/// The next switch of every switch towards every other along the tree.
fn tree_next_switches(topo: &Topology, root: u32) -> NextSwitches {
    let n = topo.switch_count();
    let parent = parents(topo, root);
    // ancestors[s]: s, its parent, ..., the root.
    let ancestors: Vec<Vec<u32>> =
        (0..n as u32).map(|s| std::iter::successors(Some(s), |&a| parent[a as usize]).collect()).collect();
    let mut next: NextSwitches = vec![vec![None; n]; n];
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            // Down when s is an ancestor of d: to the child of s on d's branch; else up.
            let hop = match ancestors[d].iter().position(|&a| a as usize == s) {
                Some(i) => ancestors[d][i - 1],
                None => parent[s].expect("a switch that is no ancestor of another is not the root"),
            };
            next[s][d] = Some(vec![hop]);
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::routing_tables;
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::Routes;

    /// Fig. 4a (a-b, a-c, b-c, b-d, c-d) from root b: a's table sends b, c
    /// and d all by b (Fig. 5b), the cross link a-c unused.
    #[test]
    fn the_studys_example_table_uses_tree_links_only() {
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![1; 4]), ..ShapeParams::default() };
        let shape = ShapeParams { trunks: Some(vec![[1, 2, 1], [1, 3, 1], [2, 3, 1], [2, 4, 1], [3, 4, 1]]), ..shape };
        let topo = build_shape("custom", &shape).unwrap();
        let next = tree_next_switches(&topo, 1);
        assert_eq!((1..4).map(|d| next[0][d].as_ref().unwrap()[0]).collect::<Vec<_>>(), vec![1, 1, 1]);
        assert_eq!(next[2][3].as_ref().unwrap()[0], 1, "c to d through the root, not the c-d link");
    }

    #[test]
    fn routes_follow_the_tree_and_never_go_up_after_down() {
        for seed in 0..10 {
            let topo = build_shape("irregular", &ShapeParams { seed, ..ShapeParams::default() }).unwrap();
            let params = RoutingParams { root: Some(3), ..RoutingParams::default() };
            let t = routing_tables("updown_tree", &topo, &params).unwrap();
            let parent = parents(&topo, 3);
            let map = topo.port_map();
            for s in 0..topo.switch_count() as u32 {
                for e in 0..topo.endpoint_count() {
                    let path = t.path(&topo, &map, s, e).expect("a route");
                    let mut down = false;
                    for w in path.windows(2) {
                        let up = parent[w[0] as usize] == Some(w[1]);
                        assert!(up || parent[w[1] as usize] == Some(w[0]), "a tree link");
                        assert!(!(down && up), "up after down");
                        down |= !up;
                    }
                }
            }
        }
    }
}
