//! Built-in topology shapes, one per file, picked by name from one table
//! (as BookSim picks routing functions from `gRoutingFunctionMap`): the
//! single switch and seed 000's star, house, envelope and complete fabrics,
//! any custom fabric, seed 003's irregular networks, random networks, k-ary n-trees
//! and fat trees of fixed-radix switches with oversubscribed leaves (`clos`).

mod clos;
mod complete;
mod custom;
mod envelope;
mod fat_tree;
mod house;
mod irregular;
mod random;
mod star;
mod switch;

use super::topology::{EndpointKind, Topology};
use crate::error::{Error, Result};

/// The parameters a shape may read. Each shape declares which optional
/// ones it uses; giving it any other is an error, so a typo in a scenario
/// never silently builds a different fabric.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeParams {
    /// Scenario section the parameters come from; errors name
    /// `section.kind`, `section.multiplicity`, ...
    pub section: String,
    /// Scenario key of the radix, for error messages.
    pub radix_key: String,
    /// Ports per switch; shapes with a natural radix (irregular, fat tree) have a default.
    pub radix: Option<u32>,
    /// Kind of every endpoint the shape attaches.
    pub endpoint_kind: EndpointKind,
    /// Parallel lanes between joined switches.
    pub multiplicity: Option<u32>,
    /// Number of switches.
    pub switches: Option<u32>,
    /// Endpoints on each switch, in switch order.
    pub nodes: Option<Vec<u32>>,
    /// Links as [switch a, switch b, multiplicity], switches 1-based.
    pub trunks: Option<Vec<[u32; 3]>>,
    /// Number of switch-to-switch links (irregular).
    pub links: Option<u32>,
    /// Fat tree arity k: each switch has k down and k up ports.
    pub arity: Option<u32>,
    /// Fat tree levels n.
    pub levels: Option<u32>,
    /// Clos: adapters on each leaf switch.
    pub hcas_per_leaf: Option<u32>,
    /// Clos: adapters per leaf uplink (1 = non-blocking).
    pub oversubscription: Option<f64>,
    /// Master seed of randomly generated shapes.
    pub seed: u64,
}

impl Default for ShapeParams {
    fn default() -> Self {
        ShapeParams {
            section: "topology".into(),
            radix_key: "topology.radix".into(),
            radix: None,
            endpoint_kind: EndpointKind::ChannelAdapter,
            multiplicity: None,
            switches: None,
            nodes: None,
            trunks: None,
            links: None,
            arity: None,
            levels: None,
            hcas_per_leaf: None,
            oversubscription: None,
            seed: 0,
        }
    }
}

impl ShapeParams {
    /// The scenario key of parameter `name`.
    pub fn key(&self, name: &str) -> String {
        format!("{}.{name}", self.section)
    }

    /// The radix, which this shape cannot do without.
    fn required_radix(&self) -> Result<u32> {
        self.radix.ok_or_else(|| Error::invalid(&self.radix_key, "missing", "the port count of every switch"))
    }

    /// `multiplicity` or `default`, at least 1.
    fn multiplicity_or(&self, default: u32) -> Result<u32> {
        let m = self.multiplicity.unwrap_or(default);
        if m == 0 {
            return Err(Error::invalid(&self.key("multiplicity"), m, "at least 1 lane between joined switches"));
        }
        Ok(m)
    }

    /// Which optional parameters are given, in the order errors report them.
    fn given(&self) -> [(&'static str, bool); 9] {
        [
            ("multiplicity", self.multiplicity.is_some()),
            ("switches", self.switches.is_some()),
            ("trunks", self.trunks.is_some()),
            ("nodes", self.nodes.is_some()),
            ("links", self.links.is_some()),
            ("arity", self.arity.is_some()),
            ("levels", self.levels.is_some()),
            ("hcas_per_leaf", self.hcas_per_leaf.is_some()),
            ("oversubscription", self.oversubscription.is_some()),
        ]
    }
}

/// A named shape: what it builds, which optional parameters it reads, and
/// the function that builds it.
pub struct Shape {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [&'static str],
    pub build: fn(&ShapeParams) -> Result<Topology>,
}

/// Every built-in shape, by name.
pub static SHAPES: &[Shape] = &[
    switch::SHAPE,
    star::SHAPE,
    house::SHAPE,
    envelope::SHAPE,
    complete::SHAPE,
    custom::SHAPE,
    irregular::SHAPE,
    random::SHAPE,
    fat_tree::SHAPE,
    clos::SHAPE,
];

/// The shape called `name`; `key` is the scenario key that chose it.
pub fn shape(name: &str, key: &str) -> Result<&'static Shape> {
    SHAPES.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = SHAPES.iter().map(|s| s.name).collect();
        Error::invalid(key, format!("\"{name}\""), format!("one of: {}", names.join(", ")))
    })
}

/// Builds and validates the shape called `name`.
pub fn build_shape(name: &str, params: &ShapeParams) -> Result<Topology> {
    let shape = shape(name, &params.key("kind"))?;
    for (param, given) in params.given() {
        if given && !shape.params.contains(&param) {
            return Err(Error::invalid(
                &params.key(param),
                "given",
                format!("not used with {} = \"{name}\"", params.key("kind")),
            ));
        }
    }
    let topo = (shape.build)(params)?;
    topo.validate(&params.section, &params.radix_key)?;
    Ok(topo)
}

/// A fabric of `groups` links whose switches fill every port the links
/// leave free with endpoints, as seed 000's built-in shapes do, unless the
/// `nodes` parameter gives the counts.
fn fill_free_ports(params: &ShapeParams, switches: u32, groups: &[(u32, u32, u32)]) -> Result<Topology> {
    let radix = params.required_radix()?;
    let link_ports = |s: u32| -> u32 { groups.iter().filter(|&&(a, b, _)| a == s || b == s).map(|&(_, _, m)| m).sum() };
    let nodes = match &params.nodes {
        Some(n) => {
            if n.len() != switches as usize {
                return Err(Error::invalid(
                    &params.key("nodes"),
                    format!("{n:?}"),
                    format!("{switches} counts, one per switch"),
                ));
            }
            n.clone()
        }
        None => (0..switches).map(|s| radix.saturating_sub(link_ports(s))).collect(),
    };
    Ok(Topology::canonical(vec![radix; switches as usize], &nodes, params.endpoint_kind, groups))
}

/// 1-based switch pairs, each joined by `m` lanes, as 0-based groups.
fn pairs(edges: &[(u32, u32)], m: u32) -> Vec<(u32, u32, u32)> {
    edges.iter().map(|&(a, b)| (a - 1, b - 1, m)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_shape_lists_the_registry() {
        let e = build_shape("torus", &ShapeParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.kind"));
        assert_eq!(
            e.allowed.as_deref(),
            Some("one of: switch, star, house, envelope, complete, custom, irregular, random, fat_tree, clos")
        );
    }

    #[test]
    fn parameters_a_shape_does_not_read_are_refused() {
        let params = ShapeParams { radix: Some(16), switches: Some(4), ..ShapeParams::default() };
        let e = build_shape("house", &params).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.switches"));
        assert_eq!(e.allowed.as_deref(), Some("not used with topology.kind = \"house\""));
    }

    #[test]
    fn every_shape_has_a_unique_name_and_a_description() {
        for (i, s) in SHAPES.iter().enumerate() {
            assert!(!s.description.is_empty(), "{}", s.name);
            assert!(SHAPES[..i].iter().all(|t| t.name != s.name), "{}", s.name);
        }
    }
}
