//! Routing algorithms, one per file, picked by name from one table (as
//! BookSim picks routing functions from `gRoutingFunctionMap`). Each turns a
//! topology into forwarding tables keyed by destination endpoint; nothing
//! here runs per event, so plain function pointers do.
//!
//! - `shortest`, `smart`, `clockwise`, `central`: seed 000's cascaded Fibre
//!   Channel fabrics (destinations partitioned over equal next switches and
//!   parallel trunks).
//! - `spf`, `updown`, `updown_tree`: seed 003 section 3.1's deterministic
//!   InfiniBand routings for irregular networks (`updown_tree`: the original
//!   Up/Down on spanning-tree channels only, as the study describes it).
//! - `min_hop`, `ftree`: OpenSM's default engine (minimal paths balanced by
//!   destinations per port) and its fat-tree engine (D-Mod-K).

mod balanced;
pub use balanced::switch_links;
mod dmodk;
mod ftree;
pub(crate) mod min_hop;
pub mod multipath;
pub mod multipath_bound;
mod ring;
pub mod shortest;
mod smart;
pub mod spf;
pub mod updn;
mod updn_roots;
pub mod updown;
mod updown_tree;

pub use super::forwarding::{EndpointTables, ForwardingTables, LinearTables};
use super::lids::Lids;
use super::topology::Topology;
use crate::error::{Error, Result};

/// How a route spreads over the parallel lanes of a link. The deterministic
/// choices give each destination endpoint one lane and differ only in how
/// the lanes of successive links line up (seed 000 leaves this open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneChoice {
    /// Aligned: destination `k` of its switch takes lane `k mod m` on every
    /// link, so a frame keeps its lane index hop after hop and the lanes
    /// through a transit switch form separate switches.
    Deterministic,
    /// The link into the destination's switch takes contiguous blocks of its
    /// endpoints (seed 000: "14 terminal nodes ... 7 terminal nodes to
    /// each"); splits made earlier (over equally short next switches, then
    /// over lanes) take them in turn, so each earlier choice feeds every
    /// lane of the last link.
    Partition,
    /// Every link takes destinations in turn, earlier links with the turn
    /// shifted by one lane per round (`(k + k div m) mod m`): as balanced as
    /// `k mod m`, and a lane in transit feeds every lane out.
    Staggered,
    /// Every lane in the entry, one drawn per frame.
    Randomized,
}

/// Which of several equally short next switches a shortest-path routing
/// takes (SPF; the study states no rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ties {
    /// The lower-numbered next switch (the first one Dijkstra settles).
    #[default]
    Lowest,
    /// Destinations in turn: destination switch `d` takes the
    /// `d mod k`-th of its `k` equally short next switches, so routes to
    /// different destinations spread over the equal choices.
    Balanced,
}

/// The parameters a routing algorithm may read.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingParams {
    /// Scenario section of the routing keys; errors name `section.selector`, `section.root`.
    pub section: String,
    /// Key (within `section`) that names the algorithm.
    pub selector: String,
    pub lanes: LaneChoice,
    /// Up*/Down*: root switch of the spanning tree (0-based; default 0).
    pub root: Option<u32>,
    /// SPF: which of equally short next switches to take.
    pub ties: Ties,
    /// updn: the root switches (0-based).
    pub roots: Option<Vec<u32>>,
}

impl Default for RoutingParams {
    fn default() -> Self {
        RoutingParams {
            section: "routing".into(),
            selector: "algorithm".into(),
            lanes: LaneChoice::Deterministic,
            root: None,
            ties: Ties::Lowest,
            roots: None,
        }
    }
}

impl RoutingParams {
    /// The scenario key of parameter `name`.
    pub fn key(&self, name: &str) -> String {
        format!("{}.{name}", self.section)
    }

    /// The key that chose the algorithm.
    pub fn selector_key(&self) -> String {
        self.key(&self.selector)
    }
}

/// A named routing algorithm: what it does, which optional parameters it
/// reads, and the function that computes its tables.
pub struct Algorithm {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [&'static str],
    pub tables: fn(&Topology, &RoutingParams) -> Result<ForwardingTables>,
    /// The LID-keyed tables, for the engines that route every LID as a
    /// subnet manager does (switch LIDs included); the others' are made from
    /// `tables`.
    pub lfts: Option<fn(&Topology, &RoutingParams) -> Result<LinearTables>>,
    /// The compact tables keyed by endpoint, for the engines that build
    /// them directly, in memory linear in switches x endpoints (deterministic
    /// lanes only); the others' are made from `lfts` or `tables`.
    pub endpoint_tables: Option<fn(&Topology, &RoutingParams) -> Result<EndpointTables>>,
}

/// Every routing algorithm, by name.
pub static ALGORITHMS: &[Algorithm] = &[
    shortest::ALGORITHM,
    smart::ALGORITHM,
    ring::CLOCKWISE,
    ring::CENTRAL,
    spf::ALGORITHM,
    updown::ALGORITHM,
    updown_tree::ALGORITHM,
    updn::ALGORITHM,
    min_hop::ALGORITHM,
    ftree::ALGORITHM,
    dmodk::ALGORITHM,
];

/// The algorithm called `name`; `key` is the scenario key that chose it.
pub fn algorithm(name: &str, key: &str) -> Result<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        Error::invalid(key, format!("\"{name}\""), format!("one of: {}", names.join(", ")))
    })
}

/// The forwarding tables of algorithm `name` over `topo` (a validated topology).
pub fn routing_tables(name: &str, topo: &Topology, params: &RoutingParams) -> Result<ForwardingTables> {
    let alg = algorithm(name, &params.selector_key())?;
    routing_tables_checked(alg, params)?;
    (alg.tables)(topo, params)
}

/// Refuses parameters `alg` does not read.
fn routing_tables_checked(alg: &Algorithm, params: &RoutingParams) -> Result<()> {
    if params.root.is_some() && !alg.params.contains(&"root") {
        return Err(Error::invalid(
            &params.key("root"),
            "given",
            format!("not used with {} = \"{}\"", params.selector_key(), alg.name),
        ));
    }
    if params.roots.is_some() && !alg.params.contains(&"roots") {
        return Err(Error::invalid(
            &params.key("roots"),
            "given",
            format!("not used with {} = \"{}\"", params.selector_key(), alg.name),
        ));
    }
    Ok(())
}

/// The linear forwarding tables (keyed by LID) of algorithm `name` over `topo`.
pub fn linear_tables(name: &str, topo: &Topology, params: &RoutingParams) -> Result<LinearTables> {
    let alg = algorithm(name, &params.selector_key())?;
    match alg.lfts {
        Some(lfts) => {
            routing_tables_checked(alg, params)?;
            lfts(topo, params)
        }
        None => Ok(LinearTables::from_forwarding_tables(&routing_tables(name, topo, params)?, Lids::assign(topo)?)),
    }
}

/// The compact tables keyed by endpoint (first port of every entry) of
/// algorithm `name` over `topo`: built directly where the algorithm can,
/// else from its LID-keyed or per-endpoint tables.
pub fn endpoint_tables(name: &str, topo: &Topology, params: &RoutingParams) -> Result<EndpointTables> {
    let alg = algorithm(name, &params.selector_key())?;
    routing_tables_checked(alg, params)?;
    match (alg.endpoint_tables, alg.lfts) {
        (Some(build), _) if params.lanes == LaneChoice::Deterministic => build(topo, params),
        (_, Some(lfts)) => Ok(lfts(topo, params)?.to_endpoint_tables()),
        _ => Ok(EndpointTables::from_routes(
            &(alg.tables)(topo, params)?,
            topo.switch_count(),
            topo.endpoint_count() as usize,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::Routes;

    #[test]
    fn unknown_algorithm_lists_the_registry() {
        let topo = build_shape("irregular", &ShapeParams::default()).unwrap();
        let e = routing_tables("minhop", &topo, &RoutingParams::default()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.algorithm"));
        assert_eq!(
            e.allowed.as_deref(),
            Some("one of: shortest, smart, clockwise, central, spf, updown, updown_tree, updn, min_hop, ftree, dmodk")
        );
        let params = RoutingParams { root: Some(2), ..RoutingParams::default() };
        let e = routing_tables("spf", &topo, &params).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.root"));
        assert!(routing_tables("updown", &topo, &params).is_ok());
    }

    #[test]
    fn every_algorithm_routes_every_pair_of_an_irregular_network() {
        let topo = build_shape("irregular", &ShapeParams { seed: 11, ..ShapeParams::default() }).unwrap();
        let map = topo.port_map();
        for alg in ALGORITHMS.iter().filter(|a| !matches!(a.name, "clockwise" | "central" | "smart")) {
            let params = RoutingParams { roots: (alg.name == "updn").then(|| vec![0]), ..RoutingParams::default() };
            let t = routing_tables(alg.name, &topo, &params).unwrap();
            for s in 0..topo.switch_count() as u32 {
                for e in 0..topo.endpoint_count() {
                    assert!(t.path(&topo, &map, s, e).is_some(), "{}: switch {s} to endpoint {e}", alg.name);
                }
            }
        }
    }
}
