//! The envelope's named two-hop policies (seed 000 section 4.2, Fig. 19/21):
//! frames between opposite ring switches go clockwise round the ring (whose
//! four trunks then form a dependency cycle and deadlock) or through the
//! central switch 5. Every other pair takes its shortest paths.

use super::shortest::{partitioned, NextSwitches};
use super::{Algorithm, ForwardingTables, RoutingParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const CLOCKWISE: Algorithm = Algorithm {
    name: "clockwise",
    description: "envelope only: two-hop frames go clockwise round the ring 1-2-3-4 (deadlocks)",
    params: &[],
    tables: clockwise,
    lfts: None,
    endpoint_tables: None,
};

pub(super) const CENTRAL: Algorithm = Algorithm {
    name: "central",
    description: "envelope only: two-hop frames go through the central switch 5",
    params: &[],
    tables: central,
    lfts: None,
    endpoint_tables: None,
};

fn clockwise(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    via(topo, params, "clockwise", |s| (s + 1) % 4)
}

fn central(topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    via(topo, params, "central", |_| 4)
}

/// Routes ring switch `s` to its opposite `(s + 2) % 4` through `middle(s)`.
fn via(topo: &Topology, params: &RoutingParams, name: &str, middle: fn(u32) -> u32) -> Result<ForwardingTables> {
    let is_envelope = topo.switch_count() == 5
        && (0..4).all(|s| {
            topo.multiplicity(s, (s + 1) % 4) > 0
                && topo.multiplicity(s, 4) > 0
                && topo.multiplicity(s, (s + 2) % 4) == 0
        });
    if !is_envelope {
        return Err(Error::invalid(
            &params.selector_key(),
            name,
            "a fabric whose switches 1-4 form a ring, each joined to switch 5 (the envelope)",
        ));
    }
    let mut next: NextSwitches = vec![vec![None; 5]; 5];
    for s in 0..4u32 {
        next[s as usize][((s + 2) % 4) as usize] = Some(vec![middle(s)]);
    }
    Ok(partitioned(topo, &next, params.lanes))
}

#[cfg(test)]
mod tests {
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::topology::PortUse;

    #[test]
    fn envelope_policies_pick_the_named_intermediate() {
        let shape = ShapeParams { radix: Some(16), ..ShapeParams::default() };
        let topo = build_shape("envelope", &shape).unwrap();
        let map = topo.port_map();
        let node_on_3 = topo.first_endpoint()[2] as usize;
        let cw = routing_tables("clockwise", &topo, &RoutingParams::default()).unwrap();
        let port = cw.ports[0][node_on_3][0] as usize;
        assert_eq!(map[0][port], PortUse::Link { to: 1, lane: 0 }); // 1 -> 3 via 2
        let central = routing_tables("central", &topo, &RoutingParams::default()).unwrap();
        let port = central.ports[0][node_on_3][0] as usize;
        assert_eq!(map[0][port], PortUse::Link { to: 4, lane: 0 }); // via 5
        let house = build_shape("house", &shape).unwrap();
        let e = routing_tables("clockwise", &house, &RoutingParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.algorithm"));
    }
}
