//! Forwarding tables: for every switch and destination endpoint, the output
//! ports a frame or packet for that endpoint may leave by. One port is a
//! deterministic route (an InfiniBand linear forwarding table entry); several
//! are drawn from uniformly per frame (Fibre Channel's randomized trunk
//! choice). Every routing algorithm produces this one type, so the models,
//! the deadlock analysis and the report read any of them alike.

use serde::Serialize;

use super::topology::{PortUse, Topology};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ForwardingTables {
    /// `ports[s][e]`: output ports of switch `s` towards endpoint `e`.
    pub ports: Vec<Vec<Vec<u16>>>,
}

impl ForwardingTables {
    /// The switches a packet for endpoint `dest` visits from switch `from`
    /// (both included), taking the first port of every entry; None when an
    /// entry is missing, leads to a free port or another endpoint, or the
    /// route loops.
    pub fn path(&self, topo: &Topology, map: &[Vec<PortUse>], from: u32, dest: u32) -> Option<Vec<u32>> {
        let mut path = vec![from];
        let mut s = from;
        loop {
            let &p = self.ports[s as usize][dest as usize].first()?;
            match map[s as usize].get(p as usize)? {
                PortUse::Endpoint(e) if *e == dest => return Some(path),
                PortUse::Link { to, .. } => {
                    s = *to;
                    path.push(s);
                    if path.len() > topo.switch_count() {
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }

    /// Mean switch-to-switch hops over all pairs of endpoints on different
    /// switches (first port of every entry): a yardstick to compare routings
    /// of one topology, e.g. Up*/Down* from several roots. None when some
    /// endpoint is unreachable.
    pub fn mean_hops(&self, topo: &Topology) -> Option<f64> {
        let map = topo.port_map();
        let switch_of = topo.endpoint_switch();
        let per_switch = topo.endpoints_per_switch();
        let (mut hops, mut pairs) = (0u64, 0u64);
        // Hops from each switch to the destination, found once per
        // destination (routes to it share their tails); UNKNOWN marks a
        // switch not reached yet, ON_PATH one on the walk in progress.
        const UNKNOWN: u32 = u32::MAX;
        const ON_PATH: u32 = u32::MAX - 1;
        let mut to_dest = vec![UNKNOWN; topo.switch_count()];
        let mut walk: Vec<u32> = Vec::new();
        for (dest, &d) in switch_of.iter().enumerate() {
            to_dest.fill(UNKNOWN);
            for (a, &sources) in per_switch.iter().enumerate() {
                if sources == 0 || d as usize == a {
                    continue;
                }
                let mut s = a as u32;
                let mut known = loop {
                    match to_dest[s as usize] {
                        UNKNOWN => {}
                        ON_PATH => return None, // the route loops
                        h => break h + 1,       // for the last switch walked
                    }
                    to_dest[s as usize] = ON_PATH;
                    walk.push(s);
                    let &p = self.ports[s as usize][dest].first()?;
                    match map[s as usize].get(p as usize)? {
                        PortUse::Endpoint(e) if *e as usize == dest => break 0,
                        PortUse::Link { to, .. } => s = *to,
                        _ => return None,
                    }
                };
                while let Some(s) = walk.pop() {
                    to_dest[s as usize] = known;
                    known += 1;
                }
                hops += sources as u64 * to_dest[a] as u64;
                pairs += sources as u64;
            }
        }
        Some(if pairs > 0 { hops as f64 / pairs as f64 } else { 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    /// The shared-tail count equals the mean of every route's own length.
    #[test]
    fn mean_hops_is_the_mean_route_length() {
        for seed in 0..8u64 {
            let shape = ShapeParams { switches: Some(30), seed, ..ShapeParams::default() };
            let topo = build_shape("irregular", &shape).unwrap();
            let t = routing_tables("updown", &topo, &RoutingParams::default()).unwrap();
            let map = topo.port_map();
            let (mut hops, mut pairs) = (0usize, 0usize);
            for e in &topo.endpoints {
                for (dest, d) in topo.endpoints.iter().enumerate() {
                    if d.switch != e.switch {
                        hops += t.path(&topo, &map, e.switch, dest as u32).unwrap().len() - 1;
                        pairs += 1;
                    }
                }
            }
            assert_eq!(t.mean_hops(&topo), Some(hops as f64 / pairs as f64), "seed {seed}");
        }
    }
}
