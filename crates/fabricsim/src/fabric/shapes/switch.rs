//! One switch with an endpoint on every port: the single-switch fabric of
//! seed 000 section 4.1.

use super::{Shape, ShapeParams};
use crate::error::Result;
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape =
    Shape { name: "switch", description: "one switch with an endpoint on every port", params: &[], build };

fn build(params: &ShapeParams) -> Result<Topology> {
    let radix = params.required_radix()?;
    Ok(Topology::canonical(vec![radix], &[radix], params.endpoint_kind, &[]))
}
