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
        let (mut hops, mut pairs) = (0.0, 0.0);
        for (a, &sources) in per_switch.iter().enumerate() {
            if sources == 0 {
                continue;
            }
            for (dest, &d) in switch_of.iter().enumerate() {
                if d as usize != a {
                    let path = self.path(topo, &map, a as u32, dest as u32)?;
                    hops += sources as f64 * (path.len() - 1) as f64;
                    pairs += sources as f64;
                }
            }
        }
        Some(if pairs > 0.0 { hops / pairs } else { 0.0 })
    }
}
