//! The independent cycles of a fabric's switch graph, the cycles seed 003
//! section 3.2 numbers and gives a path bit each (Algorithms 1 and 2). There
//! are |E| - |V| + 1 of them in a connected graph (Algorithm 1); like
//! Algorithm 2, which keeps the shortest cycle a back edge closes ("acba is
//! the shortest cycle ... another larger cycle acdba ... can be obtained
//! from the combination of the two smaller cycles, we do not use it"), the
//! basis is made of short cycles: the shortest cycle through each link,
//! taken shortest first while independent of those taken (over GF(2)), and
//! completed if need be by the cycles the links outside a BFS tree close.
//! A link's cycle list is the set of these cycles that contain it. On the
//! seed's networks every switch is then on one or two cycles
//! (`shapes/irregular.rs`).

use std::collections::VecDeque;

use super::topology::Topology;

/// Independent cycles of the topology's switch graph, each as the sorted
/// indices (into `topo.links`) of its links, shortest first.
pub fn independent_cycles(topo: &Topology) -> Vec<Vec<usize>> {
    let n = topo.switch_count();
    let m = topo.links.len();
    let mut adj: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    for (i, l) in topo.links.iter().enumerate() {
        if l.a != l.b {
            adj[l.a as usize].push((l.b, i));
            adj[l.b as usize].push((l.a, i));
        }
    }
    for a in &mut adj {
        a.sort_unstable();
    }
    let mut candidates: Vec<Vec<usize>> = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        if let Some(mut path) = shortest_path(&adj, l.a, l.b, Some(i)) {
            path.push(i);
            path.sort_unstable();
            candidates.push(path);
        }
    }
    candidates.sort_by(|x, y| x.len().cmp(&y.len()).then_with(|| x.cmp(y)));
    candidates.dedup();
    candidates.extend(tree_cycles(&adj, topo));
    let words = m.div_ceil(64);
    // Rows of the reduced basis, each with its pivot (lowest set bit).
    let mut rows: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut basis = Vec::new();
    for cycle in candidates {
        let mut v = vec![0u64; words];
        for &i in &cycle {
            v[i / 64] ^= 1 << (i % 64);
        }
        for (pivot, row) in &rows {
            if v[pivot / 64] & (1 << (pivot % 64)) != 0 {
                for (a, b) in v.iter_mut().zip(row) {
                    *a ^= b;
                }
            }
        }
        let Some(w) = v.iter().position(|&x| x != 0) else { continue };
        let pivot = w * 64 + v[w].trailing_zeros() as usize;
        // Keep rows reduced at every pivot so one pass eliminates.
        for (_, row) in rows.iter_mut() {
            if row[pivot / 64] & (1 << (pivot % 64)) != 0 {
                for (a, b) in row.iter_mut().zip(&v) {
                    *a ^= b;
                }
            }
        }
        rows.push((pivot, v));
        basis.push(cycle);
    }
    basis
}

/// A shortest path (fewest links) from `from` to `to`, not using link
/// `avoid`, as link indices; ties go to lower-numbered neighbours.
fn shortest_path(adj: &[Vec<(u32, usize)>], from: u32, to: u32, avoid: Option<usize>) -> Option<Vec<usize>> {
    let mut prev: Vec<Option<(u32, usize)>> = vec![None; adj.len()];
    let mut seen = vec![false; adj.len()];
    seen[from as usize] = true;
    let mut queue = VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        if u == to {
            break;
        }
        for &(v, i) in &adj[u as usize] {
            if Some(i) != avoid && !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = Some((u, i));
                queue.push_back(v);
            }
        }
    }
    if !seen[to as usize] {
        return None;
    }
    let mut path = Vec::new();
    let mut at = to;
    while at != from {
        let (p, i) = prev[at as usize].expect("a reached switch has a predecessor");
        path.push(i);
        at = p;
    }
    Some(path)
}

/// The cycles the links outside a BFS spanning forest close with the tree
/// paths between their ends: a basis by themselves.
fn tree_cycles(adj: &[Vec<(u32, usize)>], topo: &Topology) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut parent: Vec<Option<(u32, usize)>> = vec![None; n];
    let mut depth = vec![u32::MAX; n];
    let mut tree_link = vec![false; topo.links.len()];
    for root in 0..n {
        if depth[root] != u32::MAX {
            continue;
        }
        depth[root] = 0;
        let mut queue = VecDeque::from([root as u32]);
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
    }
    let mut cycles = Vec::new();
    for (i, l) in topo.links.iter().enumerate() {
        if tree_link[i] || l.a == l.b {
            continue;
        }
        let mut cycle = vec![i];
        let (mut a, mut b) = (l.a, l.b);
        while a != b {
            let deeper = if depth[a as usize] >= depth[b as usize] { &mut a } else { &mut b };
            let (p, link) = parent[*deeper as usize].expect("a non-root switch has a parent");
            cycle.push(link);
            *deeper = p;
        }
        cycle.sort_unstable();
        cycles.push(cycle);
    }
    cycles
}

/// For every link, how many of the independent cycles contain it (its cycle list's size).
pub fn cycle_list_sizes(topo: &Topology) -> Vec<usize> {
    let mut sizes = vec![0; topo.links.len()];
    for cycle in independent_cycles(topo) {
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
    fn a_square_with_a_diagonal_has_two_triangles_sharing_the_diagonal() {
        // 0-1, 1-2, 2-3, 3-0 and the diagonal 0-2.
        let groups = [(0, 1, 1), (0, 2, 1), (0, 3, 1), (1, 2, 1), (2, 3, 1)];
        let t = Topology::canonical(vec![8; 4], &[1; 4], EndpointKind::ChannelAdapter, &groups);
        let cycles = independent_cycles(&t);
        assert_eq!(cycles.len(), t.links.len() - t.switch_count() + 1);
        assert!(cycles.iter().all(|c| c.len() == 3), "{cycles:?}");
        assert_eq!(cycle_list_sizes(&t), vec![1, 2, 1, 1, 1]);
    }

    #[test]
    fn the_short_cycles_are_kept_not_the_long_combination() {
        // Seed 003 Fig. 4a: a-b, a-c, b-c, b-d, c-d (a=0, b=1, c=2, d=3):
        // the cycles acba and cdbc, not acdba.
        let groups = [(0, 1, 1), (0, 2, 1), (1, 2, 1), (1, 3, 1), (2, 3, 1)];
        let t = Topology::canonical(vec![8; 4], &[1; 4], EndpointKind::ChannelAdapter, &groups);
        let mut cycles = independent_cycles(&t);
        cycles.sort();
        let link = |a: u32, b: u32| t.links.iter().position(|l| (l.a, l.b) == (a, b)).unwrap();
        let mut abc = vec![link(0, 1), link(0, 2), link(1, 2)];
        let mut bcd = vec![link(1, 2), link(1, 3), link(2, 3)];
        abc.sort();
        bcd.sort();
        let mut want = vec![abc, bcd];
        want.sort();
        assert_eq!(cycles, want);
    }

    #[test]
    fn the_cycles_are_a_basis_of_the_cycle_space() {
        // A 3x3 grid: 12 links, 9 switches, 4 independent squares.
        let mut groups = Vec::new();
        for r in 0..3u32 {
            for c in 0..3u32 {
                let s = r * 3 + c;
                if c < 2 {
                    groups.push((s, s + 1, 1));
                }
                if r < 2 {
                    groups.push((s, s + 3, 1));
                }
            }
        }
        let t = Topology::canonical(vec![8; 9], &[1; 9], EndpointKind::ChannelAdapter, &groups);
        let cycles = independent_cycles(&t);
        assert_eq!(cycles.len(), 4);
        assert!(cycles.iter().all(|c| c.len() == 4), "{cycles:?}");
    }

    #[test]
    fn a_tree_has_no_cycles() {
        let t = Topology::canonical(vec![8; 3], &[1; 3], EndpointKind::ChannelAdapter, &[(0, 1, 1), (1, 2, 1)]);
        assert!(independent_cycles(&t).is_empty());
    }
}
