//! Run-time deadlock detection, shared by every model: a cycle among
//! waits ("a waits for b": FC trunk buffers, circuits holding loops, IB
//! input VLs full downstream), and the watch that counts one as a deadlock
//! only when it persists from one look to the next. The static analysis of
//! a routing (`deadlock.rs`) names its cycles with the same [`find_cycle`].

use petgraph::algo::{is_cyclic_directed, tarjan_scc};
use petgraph::graph::Graph;
use petgraph::graphmap::DiGraphMap;

/// One cycle of a directed graph, if it has any: inside the first strongly
/// connected component with more than one node (or a self-loop), walk
/// successors within the component until a node repeats.
pub fn find_cycle<N: Copy + Ord + std::hash::Hash + std::fmt::Debug>(g: &DiGraphMap<N, ()>) -> Option<Vec<N>> {
    for scc in tarjan_scc(g) {
        let cyclic = scc.len() > 1 || g.contains_edge(scc[0], scc[0]);
        if !cyclic {
            continue;
        }
        let inside: std::collections::HashSet<N> = scc.iter().copied().collect();
        let mut path = vec![scc[0]];
        let mut seen = std::collections::HashMap::from([(scc[0], 0usize)]);
        let mut cur = scc[0];
        loop {
            let nxt = g
                .neighbors(cur)
                .find(|m| inside.contains(m))
                .expect("a strongly connected node has a successor inside");
            if let Some(&at) = seen.get(&nxt) {
                return Some(path[at..].to_vec());
            }
            seen.insert(nxt, path.len());
            path.push(nxt);
            cur = nxt;
        }
    }
    None
}

/// The run-time search every model shares: a cycle among waits `(a, b)`
/// ("a waits for b"), if any. Each model builds its waits from its own
/// state (FC trunk buffers, circuits holding loops, IB input VLs).
pub fn wait_for_cycle<N: Copy + Ord + std::hash::Hash + std::fmt::Debug>(
    waits: impl IntoIterator<Item = (N, N)>,
) -> Option<Vec<N>> {
    let waits: Vec<(N, N)> = waits.into_iter().collect();
    // Most looks find no cycle: then the quick test settles it, and the graph that
    // names one (hashed nodes, Tarjan) is built only when there is one.
    if !has_cycle(&waits) {
        return None;
    }
    let g: DiGraphMap<N, ()> = waits.into_iter().map(|(a, b)| (a, b, ())).collect();
    find_cycle(&g)
}

/// Whether waits `(a, b)` hold a cycle (a self-wait included), without
/// hashing: the nodes are numbered by sorting, and petgraph's
/// depth-first test runs on the indexed graph.
fn has_cycle<N: Copy + Ord>(waits: &[(N, N)]) -> bool {
    let mut nodes: Vec<N> = waits.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let at = |n: &N| nodes.binary_search(n).expect("every end is a node") as u32;
    let g: Graph<(), ()> = Graph::from_edges(waits.iter().map(|(a, b)| (at(a), at(b))));
    is_cyclic_directed(&g)
}

/// A deadlock found: one cycle named, and every wait on some cycle.
pub type Deadlock<N> = (Vec<N>, Vec<(N, N)>);

/// Run-time deadlock detection over successive looks at a model's waits
/// (edges "a waits on b" with nothing on its way to free b). A cycle of
/// waits seen at one look may dissolve a moment later (a packet on the
/// wire frees its buffer, a credit falls due); a deadlock is a cycle every
/// wait of which was there at the previous look too.
#[derive(Debug)]
pub struct WaitWatch<N> {
    /// The previous look's waits, sorted (looked up by binary search).
    previous: Vec<(N, N)>,
    /// Looks taken.
    pub looks: u64,
    /// Looks that found a cycle of waits not all there at the look before.
    pub transient: u64,
}

impl<N> Default for WaitWatch<N> {
    fn default() -> Self {
        WaitWatch { previous: Vec::new(), looks: 0, transient: 0 }
    }
}

impl<N: Copy + Ord + std::hash::Hash + std::fmt::Debug> WaitWatch<N> {
    /// Takes one look at the current waits; returns a cycle of waits that
    /// persisted since the previous look.
    pub fn look(&mut self, waits: Vec<(N, N)>) -> Option<Vec<N>> {
        self.look_in_cycles(waits).map(|(cycle, _)| cycle)
    }

    /// As [`Self::look`], with every persisted wait that lies on some
    /// cycle (both ends in one strongly connected component): what a
    /// deadlock is made of, beyond the one cycle named.
    pub fn look_in_cycles(&mut self, mut waits: Vec<(N, N)>) -> Option<Deadlock<N>> {
        self.looks += 1;
        // Most looks find no cycle at all, and then none among the waits
        // that persisted either: only the quick test runs. A cycle is named
        // only among the waits that persisted.
        let found = if has_cycle(&waits) {
            let persisted: Vec<(N, N)> =
                waits.iter().copied().filter(|w| self.previous.binary_search(w).is_ok()).collect();
            let cycle = wait_for_cycle(persisted.iter().copied());
            if cycle.is_none() {
                self.transient += 1;
            }
            cycle.map(|c| (c, waits_on_cycles(&persisted)))
        } else {
            None
        };
        waits.sort_unstable();
        self.previous = waits;
        found
    }
}

/// The waits that lie on some cycle: both ends in one strongly connected
/// component of more than one node, or a self-wait.
pub fn waits_on_cycles<N: Copy + Ord + std::hash::Hash + std::fmt::Debug>(waits: &[(N, N)]) -> Vec<(N, N)> {
    let g: DiGraphMap<N, ()> = waits.iter().map(|&(a, b)| (a, b, ())).collect();
    let mut component = std::collections::HashMap::new();
    for (i, scc) in tarjan_scc(&g).into_iter().enumerate() {
        for n in scc {
            component.insert(n, i);
        }
    }
    let mut on: Vec<(N, N)> = waits.iter().copied().filter(|(a, b)| a == b || component[a] == component[b]).collect();
    on.sort_unstable();
    on.dedup();
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test agrees with the search that names a cycle, on random
    /// wait graphs (self-waits and repeated waits among them).
    #[test]
    fn the_quick_cycle_test_agrees_with_the_search() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut cyclic, mut acyclic) = (0, 0);
        for _ in 0..2000 {
            let nodes = rng.random_range(1..12u32);
            let waits: Vec<(u32, u32)> = (0..rng.random_range(0..16))
                .map(|_| (rng.random_range(0..nodes), rng.random_range(0..nodes)))
                .collect();
            let g: DiGraphMap<u32, ()> = waits.iter().map(|&(a, b)| (a, b, ())).collect();
            let named = find_cycle(&g);
            assert_eq!(has_cycle(&waits), named.is_some(), "{waits:?}");
            assert_eq!(wait_for_cycle(waits.iter().copied()), named);
            if named.is_some() {
                cyclic += 1
            } else {
                acyclic += 1
            }
        }
        assert!(cyclic > 200 && acyclic > 200, "{cyclic} cyclic, {acyclic} acyclic");
    }

    /// A cycle that dissolves before the next look is only counted; one
    /// that persists over two looks is a deadlock, even if another
    /// transient cycle came and went in between.
    #[test]
    fn a_wait_cycle_must_persist_over_two_looks() {
        let mut w = WaitWatch::default();
        assert_eq!(w.look(vec![(1, 2), (2, 1)]), None, "first seen");
        assert_eq!(w.look(vec![(1, 3), (3, 4)]), None, "dissolved");
        assert_eq!(w.look(vec![(5, 6), (6, 5), (1, 3)]), None, "a new cycle");
        assert_eq!(w.look(vec![(6, 5), (5, 6), (7, 7)]), Some(vec![5, 6]));
        assert_eq!((w.looks, w.transient), (4, 2));
        let mut w = WaitWatch::default();
        w.look(vec![(1, 2), (2, 3), (3, 1)]);
        assert_eq!(w.look(vec![(1, 2), (2, 3), (3, 4)]), None, "one wait of the cycle gone");
    }

    /// The waits on cycles are those of every cycle, not only the one named;
    /// a wait leading into a cycle or out of it is not among them.
    #[test]
    fn waits_on_cycles_are_those_of_every_cycle() {
        let waits = [(1, 2), (2, 1), (2, 3), (3, 4), (4, 3), (5, 5), (6, 1)];
        assert_eq!(waits_on_cycles(&waits), vec![(1, 2), (2, 1), (3, 4), (4, 3), (5, 5)]);
        let mut w = WaitWatch::default();
        assert_eq!(w.look_in_cycles(waits.to_vec()), None, "first seen");
        let (cycle, on) = w.look_in_cycles(waits.to_vec()).expect("persisted");
        assert_eq!(cycle.len(), 2);
        assert_eq!(on.len(), 5);
    }

    #[test]
    fn cycle_finder_names_a_cycle() {
        let g: DiGraphMap<u32, ()> = DiGraphMap::from_edges([(1, 2), (2, 3), (3, 1), (3, 4)]);
        let mut c = find_cycle(&g).unwrap();
        c.sort();
        assert_eq!(c, vec![1, 2, 3]);
        let dag: DiGraphMap<u32, ()> = DiGraphMap::from_edges([(1, 2), (2, 3)]);
        assert!(find_cycle(&dag).is_none());
    }
}
