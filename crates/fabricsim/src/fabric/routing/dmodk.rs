//! D-Mod-K (Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic for
//! Shift Permutations on Real Life Fat Trees", 2010), the closed form that
//! OpenSM's fat-tree engine ([`super::ftree`]) balances towards on k-ary
//! n-trees without its counters' history: a packet for destination
//! endpoint `d` climbing from a switch at level `l` takes up port
//! `(d / k^l) mod k`, and comes down the one minimal path. Each level uses
//! the next digit of `d`, so the destinations spread over every root and
//! every link of a level carries the same number of routes: the tree keeps
//! its full bisection under uniform traffic, where [`super::min_hop`] uses
//! the same digit at every level.
//!
//! Written for any graph: a switch's level is its hop distance to the
//! nearest switch with endpoints, and its least-hop ports towards `d`, in
//! port order, play the up ports (`k` is their count). On a fat tree that
//! is exactly D-Mod-K; elsewhere routes stay minimal but the balance and
//! deadlock freedom of a tree are not promised.

use super::balanced::switch_links;
use super::min_hop::least_hop_tables;
use super::{Algorithm, EndpointTables, ForwardingTables, RoutingParams};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "dmodk",
    description: "D-Mod-K minimal routing for fat trees: level l climbs by digit l of the destination (one \
                  search per destination switch: the fast engine for the largest trees)",
    params: &[],
    tables,
    lfts: None,
    endpoint_tables: Some(endpoint_tables),
};

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    Ok(endpoint_tables(topo, params)?.to_forwarding_tables())
}

fn endpoint_tables(topo: &Topology, _params: &RoutingParams) -> Result<EndpointTables> {
    let level = levels(topo);
    least_hop_tables(topo, |s, e, closer| {
        let k = closer.len() as u64;
        // Digit `level` of `e` in base k (k^level may overflow on deep graphs: saturate).
        let place = k.checked_pow(level[s]).unwrap_or(u64::MAX).max(1);
        closer[((e as u64 / place) % k) as usize]
    })
}

/// Every switch's hops to the nearest switch with endpoints (one
/// breadth-first search from all of them; `u32::MAX`: none reachable).
fn levels(topo: &Topology) -> Vec<u32> {
    let links = switch_links(topo);
    let mut level = vec![u32::MAX; links.len()];
    let mut queue = std::collections::VecDeque::new();
    for (s, &k) in topo.endpoints_per_switch().iter().enumerate() {
        if k > 0 {
            level[s] = 0;
            queue.push_back(s as u32);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &(_, v) in &links[u as usize] {
            if level[v as usize] == u32::MAX {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}

#[cfg(test)]
mod tests {
    use crate::fabric::routing::min_hop::tests::assert_fat_trees_balanced;

    /// Minimal, deadlock-free, every link used, and every up and every down link of a level alike.
    #[test]
    fn fat_trees_get_minimal_acyclic_routes_with_every_link_equally_loaded() {
        assert_fat_trees_balanced("dmodk", true);
    }
}
