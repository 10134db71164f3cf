//! Seed 000 Fig. 7/10/12/24: switches 1-4 joined to hub switch 5 by
//! `multiplicity` lanes each, every other port an endpoint.

use super::{fill_free_ports, Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape = Shape {
    name: "star",
    description: "switches 1-4 joined to hub switch 5 by `multiplicity` lanes each (seed 000 Fig. 7)",
    params: &["multiplicity", "nodes"],
    build,
};

fn build(params: &ShapeParams) -> Result<Topology> {
    let m = params.multiplicity.unwrap_or(2);
    if !(1..=4).contains(&m) {
        return Err(Error::invalid(&params.key("multiplicity"), m, "1 to 4 for a star of 16-port switches"));
    }
    let groups: Vec<(u32, u32, u32)> = (0..4).map(|s| (s, 4, m)).collect();
    fill_free_ports(params, 5, &groups)
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::topology::PortUse;

    fn star(m: u32) -> crate::fabric::Topology {
        let p = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
        build_shape("star", &p).unwrap()
    }

    #[test]
    fn node_counts_match_the_study() {
        assert_eq!(star(2).endpoints_per_switch(), vec![14, 14, 14, 14, 8]); // 64
        assert_eq!(star(3).endpoints_per_switch(), vec![13, 13, 13, 13, 4]); // 56
        assert_eq!(star(4).endpoints_per_switch(), vec![12, 12, 12, 12, 0]); // 48
        assert_eq!(star(1).endpoints_per_switch(), vec![15, 15, 15, 15, 12]);
    }

    #[test]
    fn ports_are_trunks_then_nodes() {
        let map = star(2).port_map();
        assert_eq!(map[0][0], PortUse::Link { to: 4, lane: 0 });
        assert_eq!(map[0][1], PortUse::Link { to: 4, lane: 1 });
        assert_eq!(map[0][2], PortUse::Endpoint(0));
        assert_eq!(map[4][7], PortUse::Link { to: 3, lane: 1 });
        assert_eq!(map[4][8], PortUse::Endpoint(56));
    }
}
