//! The uniform-traffic saturation bound of a routing: every endpoint
//! offers a share `r` of its link rate, spread evenly over every other
//! endpoint; a switch output carries `r / (n - 1)` for each source and
//! destination pair routed through it, so no output is overloaded while
//! `r <= (n - 1) / pairs` for the busiest (at most 1: an endpoint's own
//! link carries all n - 1 pairs towards it). Queueing makes a real fabric
//! saturate earlier (bursts, head-of-line blocking); no routing carries
//! more. Used to choose networks that can carry a study's plotted loads
//! before any run. With links of several rates, an output's pairs are
//! weighed against its rate relative to the one the share is of
//! ([`uniform_bound_at`]).

use super::forwarding::Routes;
use super::topology::{PortUse, Topology};

/// The bound and where it binds.
#[derive(Clone, Debug, PartialEq)]
pub struct UniformBound {
    /// The highest offered share of the link rate no output exceeds.
    pub injection_rate: f64,
    /// The busiest switch output (switch, port) and the pairs routed through it.
    pub busiest: (u32, u16),
    pub pairs: u32,
}

/// The bound of `tables` over `topo` (first port of every entry), every
/// link at the rate the share is of; None when some pair has no route or
/// there are fewer than two endpoints.
pub fn uniform_bound(topo: &Topology, tables: &impl Routes) -> Option<UniformBound> {
    uniform_bound_at(topo, tables, |_, _| 1.0)
}

/// [`uniform_bound`] with the output (switch, port) carrying `capacity`
/// times the rate the share is of: the busiest output is the one with the
/// most pairs per capacity.
pub fn uniform_bound_at(
    topo: &Topology,
    tables: &impl Routes,
    capacity: impl Fn(u32, u16) -> f64,
) -> Option<UniformBound> {
    let n = topo.endpoint_count();
    if n < 2 {
        return None;
    }
    let map = topo.port_map();
    let mut pairs: Vec<Vec<u32>> = map.iter().map(|ports| vec![0; ports.len()]).collect();
    for (src, e) in topo.endpoints.iter().enumerate() {
        for dest in (0..n).filter(|&d| d != src as u32) {
            let mut s = e.switch;
            for _ in 0..=topo.switch_count() {
                let p = tables.first_port(s as usize, dest as usize)?;
                pairs[s as usize][p as usize] += 1;
                match map[s as usize][p as usize] {
                    PortUse::Link { to, .. } => s = to,
                    PortUse::Endpoint(d) if d == dest => break,
                    _ => return None,
                }
            }
        }
    }
    let (busiest, most, load) = pairs
        .iter()
        .enumerate()
        .flat_map(|(s, ports)| {
            let capacity = &capacity;
            ports.iter().enumerate().map(move |(p, &k)| {
                let at = (s as u32, p as u16);
                (at, k, k as f64 / capacity(at.0, at.1))
            })
        })
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)))?;
    Some(UniformBound { injection_rate: (n - 1) as f64 / load.max(1.0), busiest, pairs: most })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    /// A chain of three switches with two endpoints each: a trunk from the
    /// middle to an end carries the 4 x 2 pairs from the four other
    /// endpoints to that end's two, so the bound is (6 - 1) / 8; an
    /// endpoint's own output carries 5 pairs (bound 1, the link itself).
    #[test]
    fn the_busiest_output_sets_the_bound() {
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![2; 3]), ..ShapeParams::default() };
        let chain = build_shape("custom", &ShapeParams { trunks: Some(vec![[1, 2, 1], [2, 3, 1]]), ..shape }).unwrap();
        let t = routing_tables("spf", &chain, &RoutingParams::default()).unwrap();
        let b = uniform_bound(&chain, &t).unwrap();
        assert_eq!((b.injection_rate, b.pairs), (5.0 / 8.0, 8));
        assert!(matches!(chain.port_map()[b.busiest.0 as usize][b.busiest.1 as usize], PortUse::Link { .. }));
        let shape = ShapeParams { radix: Some(8), nodes: Some(vec![5]), ..ShapeParams::default() };
        let one = build_shape("custom", &ShapeParams { trunks: Some(vec![]), ..shape }).unwrap();
        let t = routing_tables("spf", &one, &RoutingParams::default()).unwrap();
        assert_eq!(uniform_bound(&one, &t).unwrap().injection_rate, 1.0, "each endpoint's own link");
    }
}
