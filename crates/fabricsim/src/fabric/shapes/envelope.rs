//! Seed 000 Fig. 19/21: the ring 1-2-3-4 with switch 5 joined to all four;
//! the ring routings of `routing/ring.rs` are defined on it.

use super::{fill_free_ports, pairs, Shape, ShapeParams};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape = Shape {
    name: "envelope",
    description: "the ring 1-2-3-4 with switch 5 joined to all four (seed 000 Fig. 19)",
    params: &["multiplicity", "nodes"],
    build,
};

/// The envelope's links, 1-based as in the figure.
const ENVELOPE: [(u32, u32); 8] = [(1, 2), (2, 3), (3, 4), (1, 4), (1, 5), (2, 5), (3, 5), (4, 5)];

fn build(params: &ShapeParams) -> Result<Topology> {
    fill_free_ports(params, 5, &pairs(&ENVELOPE, params.multiplicity_or(1)?))
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn node_counts_match_the_study() {
        let envelope = |m| {
            let p = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
            build_shape("envelope", &p).unwrap().endpoints_per_switch()
        };
        assert_eq!(envelope(1), vec![13, 13, 13, 13, 12]); // 64
        assert_eq!(envelope(2).iter().sum::<u32>(), 48);
    }
}
