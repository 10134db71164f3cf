//! Seed 000 sections 4.3 and 5: one link between every pair of `switches`
//! switches, every other port an endpoint.

use super::{fill_free_ports, Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape = Shape {
    name: "complete",
    description: "`multiplicity` lanes between every pair of `switches` switches (seed 000 section 4.3)",
    params: &["multiplicity", "switches", "nodes"],
    build,
};

fn build(params: &ShapeParams) -> Result<Topology> {
    let radix = params.required_radix()?;
    let n = params.switches.unwrap_or(5);
    if !(2..=radix).contains(&n) {
        return Err(Error::invalid(&params.key("switches"), n, format!("2 to {radix} switches")));
    }
    let m = params.multiplicity_or(1)?;
    let groups: Vec<(u32, u32, u32)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b, m))).collect();
    fill_free_ports(params, n, &groups)
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn node_counts_match_the_study() {
        let total = |n| {
            let p = ShapeParams { radix: Some(16), switches: Some(n), ..ShapeParams::default() };
            build_shape("complete", &p).unwrap().endpoint_count()
        };
        let complete: Vec<u32> = (5..=11).map(total).collect();
        assert_eq!(complete, vec![60, 66, 70, 72, 72, 70, 66]);
    }
}
