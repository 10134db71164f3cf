//! The independent cycles of a fabric's switch graph, as seed 003 section
//! 3.2 finds them (Algorithms 1 and 2): a BFS spanning tree from switch 0;
//! every link outside the tree (a back edge) closes one cycle, made of the
//! back edge and the tree paths from its two ends to their lowest common
//! ancestor. There are |E| - |V| + 1 of them, which sets the number of path
//! bits; a link's cycle list is the set of these cycles that contain it.
//! (The seed notes that in "two-dimensional" irregular networks no link is
//! on more than two cycles: that holds for the faces of a planar graph, not
//! for this tree basis, where the links near the root are on many.)

use std::collections::VecDeque;

use super::topology::Topology;

/// The fundamental cycles of a connected topology's switch graph, each as
/// the indices (into `topo.links`) of its links, in back-edge order.
pub fn fundamental_cycles(topo: &Topology) -> Vec<Vec<usize>> {
    let n = topo.switch_count();
    // adjacency: (neighbour, link index), neighbours in increasing order.
    let mut adj: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    for (i, l) in topo.links.iter().enumerate() {
        adj[l.a as usize].push((l.b, i));
        adj[l.b as usize].push((l.a, i));
    }
    for a in &mut adj {
        a.sort_unstable();
    }
    let mut parent: Vec<Option<(u32, usize)>> = vec![None; n];
    let mut depth = vec![u32::MAX; n];
    let mut tree_link = vec![false; topo.links.len()];
    if n == 0 {
        return Vec::new();
    }
    depth[0] = 0;
    let mut queue = VecDeque::from([0u32]);
    while let Some(u) = queue.pop_front() {
        for &(v, i) in &adj[u as usize] {
            if depth[v as usize] == u32::MAX {
                depth[v as usize] = depth[u as usize] + 1;
                parent[v as usize] = Some((u, i));
                tree_link[i] = true;
                queue.push_back(v);
            }
        }
    }
    let mut cycles = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        if tree_link[i] || depth[l.a as usize] == u32::MAX || depth[l.b as usize] == u32::MAX {
            continue;
        }
        let mut cycle = vec![i];
        let (mut a, mut b) = (l.a, l.b);
        while a != b {
            // Climb from the deeper end (either when level).
            if depth[a as usize] >= depth[b as usize] {
                let (p, link) = parent[a as usize].expect("a non-root switch has a parent");
                cycle.push(link);
                a = p;
            } else {
                let (p, link) = parent[b as usize].expect("a non-root switch has a parent");
                cycle.push(link);
                b = p;
            }
        }
        cycles.push(cycle);
    }
    cycles
}

/// For every link, how many fundamental cycles contain it (its cycle list's size).
pub fn cycle_list_sizes(topo: &Topology) -> Vec<usize> {
    let mut sizes = vec![0; topo.links.len()];
    for cycle in fundamental_cycles(topo) {
        for i in cycle {
            sizes[i] += 1;
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::topology::EndpointKind;

    #[test]
    fn a_square_with_a_diagonal_has_two_cycles_sharing_the_diagonal() {
        // 0-1, 1-2, 2-3, 3-0 and the diagonal 0-2.
        let groups = [(0, 1, 1), (0, 2, 1), (0, 3, 1), (1, 2, 1), (2, 3, 1)];
        let t = Topology::canonical(vec![8; 4], &[1; 4], EndpointKind::ChannelAdapter, &groups);
        let cycles = fundamental_cycles(&t);
        assert_eq!(cycles.len(), t.links.len() - t.switch_count() + 1);
        assert!(cycles.iter().all(|c| c.len() == 3), "{cycles:?}");
        // BFS from 0 takes 0-1, 0-2, 0-3 into the tree; 1-2 and 2-3 close triangles through 0-2.
        assert_eq!(cycle_list_sizes(&t), vec![1, 2, 1, 1, 1]);
    }

    #[test]
    fn a_tree_has_no_cycles() {
        let t = Topology::canonical(vec![8; 3], &[1; 3], EndpointKind::ChannelAdapter, &[(0, 1, 1), (1, 2, 1)]);
        assert!(fundamental_cycles(&t).is_empty());
    }
}
