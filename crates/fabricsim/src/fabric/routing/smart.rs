//! The "smart" routing of seed 000 section 4.2: for each (switch,
//! destination switch) pair, a subset of the equally short next switches
//! over which the destination's nodes are split, chosen by exhaustive search
//! so the channel dependency graph is acyclic (no deadlock) and the busiest
//! trunk carries the least uniform traffic.

use super::shortest::{partitioned, shortest_next, NextSwitches};
use super::{Algorithm, ForwardingTables, RoutingParams};
use crate::error::{Error, Result};
use crate::fabric::deadlock::{link_graph_is_acyclic, SwitchLink};
use crate::fabric::topology::Topology;

pub(super) const ALGORITHM: Algorithm = Algorithm {
    name: "smart",
    description: "shortest paths chosen per switch pair for an acyclic dependency graph and the least busiest-link \
                  load (exhaustive: small fabrics)",
    params: &[],
    tables,
    lfts: None,
    endpoint_tables: None,
};

/// Largest number of combinations the smart search tries exhaustively.
const SMART_SEARCH_LIMIT: u64 = 1 << 20;

fn tables(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let dist = topo.distances();
    let next = smart_next_hops(topo, &dist, params)?;
    Ok(partitioned(topo, &next, params.lanes))
}

/// Chooses, for every (switch, destination switch) pair with several
/// shortest next switches, the subset of them its destination nodes are
/// split over: the choice whose switch-level channel dependency graph is
/// acyclic and whose busiest link carries the least uniform all-to-all
/// traffic (ties: least sum of squared loads, then the first found).
/// Exhaustive, so limited to small fabrics.
fn smart_next_hops(topo: &Topology, dist: &[Vec<u32>], params: &RoutingParams) -> Result<NextSwitches> {
    let n = topo.switch_count();
    let mut next: NextSwitches = vec![vec![None; n]; n];
    // Each open pair's options: every non-empty subset of its candidates.
    let mut choices: Vec<(usize, usize, Vec<Vec<u32>>)> = Vec::new();
    let adj = topo.adjacency();
    for (s, row) in next.iter_mut().enumerate() {
        for (d, entry) in row.iter_mut().enumerate() {
            if s == d {
                continue;
            }
            let c = shortest_next(&adj, dist, s, d);
            if c.len() == 1 {
                *entry = Some(c);
            } else {
                let subsets = (1u32..(1 << c.len()))
                    .map(|mask| c.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &t)| t).collect())
                    .collect();
                choices.push((s, d, subsets));
            }
        }
    }
    let combos: u64 =
        choices.iter().map(|c| c.2.len() as u64).try_fold(1u64, |a, b| a.checked_mul(b)).unwrap_or(u64::MAX);
    if combos > SMART_SEARCH_LIMIT {
        return Err(Error::invalid(
            &params.selector_key(),
            "smart",
            format!(
                "fabrics with at most {SMART_SEARCH_LIMIT} path combinations (this one has {combos}); use \"shortest\""
            ),
        ));
    }
    let mut best: Option<((f64, f64), Vec<usize>)> = None;
    let mut pick = vec![0usize; choices.len()];
    for _ in 0..combos {
        for (i, (s, d, c)) in choices.iter().enumerate() {
            next[*s][*d] = Some(c[pick[i]].clone());
        }
        if let Some(score) = score_routing(topo, dist, &next) {
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, pick.clone()));
            }
        }
        // Odometer increment over the choice lists.
        for (i, (_, _, c)) in choices.iter().enumerate() {
            pick[i] += 1;
            if pick[i] < c.len() {
                break;
            }
            pick[i] = 0;
        }
    }
    let Some((_, pick)) = best else {
        return Err(Error::invalid(
            &params.selector_key(),
            "smart",
            "a fabric with a deadlock-free shortest-path routing",
        ));
    };
    for (i, (s, d, c)) in choices.iter().enumerate() {
        next[*s][*d] = Some(c[pick[i]].clone());
    }
    Ok(next)
}

/// (max load per trunk, sum of squared loads) of uniform all-to-all traffic
/// split evenly over each pair's next switches, or None when the routing's
/// switch-level dependency graph has a cycle.
fn score_routing(topo: &Topology, dist: &[Vec<u32>], next: &NextSwitches) -> Option<(f64, f64)> {
    let n = topo.switch_count();
    let nodes = topo.endpoints_per_switch();
    let mut load = vec![vec![0.0f64; n]; n];
    let mut deps: Vec<(SwitchLink, SwitchLink)> = Vec::new();
    for a in 0..n {
        for d in 0..n {
            if a == d || nodes[a] == 0 || nodes[d] == 0 {
                continue;
            }
            let weight = (nodes[a] * nodes[d]) as f64;
            // (switch, incoming link, share of the pair's traffic)
            let mut stack: Vec<(usize, Option<SwitchLink>, f64)> = vec![(a, None, weight)];
            while let Some((cur, prev, w)) = stack.pop() {
                if cur == d {
                    continue;
                }
                let hops = next[cur][d].as_ref().expect("every pair has next switches");
                for &t in hops {
                    let t = t as usize;
                    let share = w / hops.len() as f64;
                    load[cur][t] += share / topo.multiplicity(cur as u32, t as u32) as f64;
                    let link = (cur as u32, t as u32);
                    if let Some(p) = prev {
                        deps.push((p, link));
                    }
                    if dist[t][d] < dist[cur][d] {
                        stack.push((t, Some(link), share));
                    }
                }
            }
        }
    }
    if !link_graph_is_acyclic(&deps) {
        return None;
    }
    let flat = load.iter().flatten();
    let max = flat.clone().fold(0.0f64, |m, &x| m.max(x));
    let sq = flat.map(|x| x * x).sum();
    Some((max, sq))
}

#[cfg(test)]
mod tests {
    use crate::fabric::deadlock::analyze;
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn smart_envelope_routings_are_deadlock_free() {
        for m in [1, 2] {
            let shape = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
            let topo = build_shape("envelope", &shape).unwrap();
            let t = routing_tables("smart", &topo, &RoutingParams::default()).unwrap();
            assert!(analyze(&topo, &t).unwrap().acyclic);
        }
    }

    #[test]
    fn large_fabrics_are_refused_by_name() {
        let topo = build_shape("fat_tree", &ShapeParams::default()).unwrap();
        let e = routing_tables("smart", &topo, &RoutingParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.algorithm"));
    }
}
