//! The root switches OpenSM's `updn` engine finds for itself when it is
//! given none (no `-a` root GUID file): a switch is a root when the hops
//! from it to the switches of the channel adapters' ports form a histogram
//! with one bar above 90% of the adapter ports, and no other bar above 5%
//! (`updn_find_root_nodes_by_min_hop` in `osm_ucast_updn.c`: it sees every
//! adapter at one distance, as a fat tree's spine does). Where no switch is
//! such a root OpenSM falls back to min-hop; here that is an error asking
//! for `roots`, so that the scenario's routing is the one it names.
//!
//! Held against OpenSM's own `opensm-updn-roots.dump` on the shared
//! clusters and fat tree (`tests/opensm_parity.rs`).

use crate::fabric::topology::{bfs, Topology};

/// OpenSM's hop-count limit (`IB_SUBNET_PATH_HOPS_MAX`): farther switches are not counted.
const PATH_HOPS_MAX: u32 = 64;

/// The switches (from 0, in index order) OpenSM's updn takes as roots of `topo`.
pub fn opensm_roots(topo: &Topology) -> Vec<u32> {
    let adapters_at = topo.endpoints_per_switch();
    let adapters: u32 = adapters_at.iter().sum();
    let (one_bar, any_bar) = (adapters as f64 * 0.9, adapters as f64 * 0.05);
    let adjacency = topo.adjacency();
    let mut histogram = vec![0u32; PATH_HOPS_MAX as usize];
    (0..topo.switch_count() as u32)
        .filter(|&s| {
            histogram.fill(0);
            for (hops, &n) in bfs(&adjacency, s).iter().zip(&adapters_at) {
                if n > 0 && *hops < PATH_HOPS_MAX {
                    histogram[*hops as usize] += n;
                }
            }
            let above = |threshold: f64| histogram.iter().filter(|&&h| h as f64 > threshold).count();
            above(one_bar) == 1 && above(any_bar) == 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn a_fat_trees_roots_are_its_spine() {
        let p = ShapeParams { arity: Some(4), levels: Some(3), ..ShapeParams::default() };
        let tree = build_shape("fat_tree", &p).unwrap();
        // Every leaf is two hops up and two down from a top switch: 32 of 48 switches are leaves and middles.
        let roots = opensm_roots(&tree);
        assert_eq!(roots.len(), 16);
        let d = tree.distances_from(roots[0]);
        let leaves: Vec<usize> = (0..tree.switch_count()).filter(|&s| tree.endpoints_per_switch()[s] > 0).collect();
        assert!(leaves.iter().all(|&l| d[l] == 2), "{roots:?}");
    }

    #[test]
    fn the_shared_cluster_has_opensms_56_roots() {
        let topo =
            crate::fabric::import::load("../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover", "file")
                .unwrap();
        assert_eq!(opensm_roots(&topo).len(), 56);
    }
}
