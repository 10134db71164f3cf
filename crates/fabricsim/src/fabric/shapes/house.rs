//! Seed 000 Fig. 15/17: the square 1-2-4-3 with both diagonals and the roof
//! 1-5-2. Its port budget (12, 12, 13, 13, 14 nodes with single trunks)
//! admits only this graph.

use super::{fill_free_ports, pairs, Shape, ShapeParams};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape = Shape {
    name: "house",
    description: "switches 1-4 a square with both diagonals, switch 5 the roof over 1 and 2 (seed 000 Fig. 15)",
    params: &["multiplicity", "nodes"],
    build,
};

/// The house's links, 1-based as in the figure.
const HOUSE: [(u32, u32); 8] = [(1, 2), (1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5), (3, 4)];

fn build(params: &ShapeParams) -> Result<Topology> {
    fill_free_ports(params, 5, &pairs(&HOUSE, params.multiplicity_or(1)?))
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn node_counts_match_the_study() {
        let house = |m| {
            let p = ShapeParams { radix: Some(16), multiplicity: Some(m), ..ShapeParams::default() };
            build_shape("house", &p).unwrap().endpoints_per_switch()
        };
        assert_eq!(house(1), vec![12, 12, 13, 13, 14]); // 64
        assert_eq!(house(2), vec![8, 8, 10, 10, 12]); // 48
    }
}
