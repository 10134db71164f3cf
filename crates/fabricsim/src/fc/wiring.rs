//! The fabric a Fibre Channel scenario describes, in `fabric/` terms: its
//! `[topology]` and `[routing]` sections mapped onto the shape and routing
//! registries (the registry name of each `TopologyKind` and `PathPolicy`,
//! the section keys errors name), the per-entry overrides a scenario may
//! write over the computed tables, and the printable routing report.

use serde_json::json;

use crate::error::{Error, Result};
use crate::fabric::report::switch_tables;
use crate::fabric::routing::{routing_tables, LaneChoice, RoutingParams, Ties};
use crate::fabric::shapes::{build_shape, ShapeParams};
use crate::fabric::topology::{EndpointKind, PortUse, Topology};
use crate::fabric::ForwardingTables;
use crate::scenario::{LaneAssignment, PathPolicy, RoutingSpec, Scenario, TopologyKind, TopologySpec, TrunkChoice};

/// The shape registry's name for a topology kind.
pub fn shape_name(kind: TopologyKind) -> &'static str {
    match kind {
        TopologyKind::Switch => "switch",
        TopologyKind::Star => "star",
        TopologyKind::House => "house",
        TopologyKind::Envelope => "envelope",
        TopologyKind::Complete => "complete",
        TopologyKind::Custom => "custom",
    }
}

/// The routing registry's name for a path policy.
pub fn routing_name(paths: PathPolicy) -> &'static str {
    match paths {
        PathPolicy::Shortest => "shortest",
        PathPolicy::Clockwise => "clockwise",
        PathPolicy::Central => "central",
        PathPolicy::Smart => "smart",
    }
}

/// The fabric a scenario describes; `ports` is the port count of every switch.
pub fn topology(spec: &TopologySpec, ports: u32) -> Result<Topology> {
    let params = ShapeParams {
        section: "topology".into(),
        radix_key: "switch.ports".into(),
        radix: Some(ports),
        endpoint_kind: EndpointKind::Terminal,
        multiplicity: spec.multiplicity,
        switches: spec.switches,
        // The single switch has always put a node on every port, whatever `nodes` says.
        nodes: if spec.kind == TopologyKind::Switch { None } else { spec.nodes.clone() },
        trunks: spec.trunks.clone(),
        ..ShapeParams::default()
    };
    build_shape(shape_name(spec.kind), &params)
}

/// The tables a scenario's routing section asks for over `topo`, a fabric
/// of `kind`, with its overrides applied.
pub fn tables(topo: &Topology, kind: TopologyKind, routing: &RoutingSpec) -> Result<ForwardingTables> {
    let ring_policy = matches!(routing.paths, PathPolicy::Clockwise | PathPolicy::Central);
    if ring_policy && kind != TopologyKind::Envelope {
        return Err(Error::invalid(
            "routing.paths",
            format!("{:?}", routing.paths).to_lowercase(),
            "\"clockwise\" and \"central\" only with topology.kind = \"envelope\"; otherwise \"shortest\" or \"smart\"",
        ));
    }
    let params = RoutingParams {
        section: "routing".into(),
        selector: "paths".into(),
        lanes: match (routing.trunk_choice, routing.lane_assignment.unwrap_or_default()) {
            (TrunkChoice::Randomized, _) => LaneChoice::Randomized,
            (_, LaneAssignment::Aligned) => LaneChoice::Deterministic,
            (_, LaneAssignment::Partition) => LaneChoice::Partition,
            (_, LaneAssignment::Staggered) => LaneChoice::Staggered,
        },
        root: None,
        ties: Ties::Lowest,
        roots: None,
    };
    let mut tables = routing_tables(routing_name(routing.paths), topo, &params)?;
    apply_overrides(&mut tables, topo, routing)?;
    Ok(tables)
}

/// Writes the scenario's `[[routing.override]]` entries over the tables.
fn apply_overrides(tables: &mut ForwardingTables, topo: &Topology, routing: &RoutingSpec) -> Result<()> {
    let map = topo.port_map();
    for (i, o) in routing.overrides.iter().enumerate() {
        let key = format!("routing.override[{i}]");
        let n_sw = topo.switch_count() as u32;
        if o.switch < 1 || o.switch > n_sw {
            return Err(Error::invalid(&format!("{key}.switch"), o.switch, format!("a switch from 1 to {n_sw}")));
        }
        if o.node >= topo.endpoint_count() {
            return Err(Error::invalid(
                &format!("{key}.node"),
                o.node,
                format!("a node below {}", topo.endpoint_count()),
            ));
        }
        let s = (o.switch - 1) as usize;
        if o.ports.is_empty() {
            return Err(Error::invalid(&format!("{key}.ports"), "[]", "at least one port"));
        }
        for &p in &o.ports {
            let ok = (p as usize) < map[s].len()
                && match map[s][p as usize] {
                    PortUse::Link { .. } => true,
                    PortUse::Endpoint(n) => n == o.node,
                    PortUse::Free => false,
                };
            if !ok {
                return Err(Error::invalid(
                    &format!("{key}.ports"),
                    p,
                    format!(
                        "a trunk port of switch {} or the port of node {} (see `fabricsim routing`)",
                        o.switch, o.node
                    ),
                ));
            }
        }
        tables.ports[s][o.node as usize] = o.ports.iter().map(|&p| p as u16).collect();
    }
    Ok(())
}

/// Ports, forwarding tables (switches 1-based, nodes 0-based) and the
/// deadlock analysis of a Fibre Channel fabric scenario, as JSON.
pub fn routing_report(scenario: &Scenario) -> Result<serde_json::Value> {
    let fc = scenario.fc_fabric()?;
    let topo = topology(&fc.topology, fc.switch.ports)?;
    let tables = tables(&topo, fc.topology.kind, &fc.routing)?;
    let (switches, deps) = switch_tables(&topo, &tables, "node")?;
    Ok(json!({
        "kind": fc.topology.kind,
        "terminal_nodes": topo.endpoint_count(),
        "trunks": topo.links.iter().map(|l| json!([l.a + 1, l.b + 1, l.multiplicity()])).collect::<Vec<_>>(),
        "trunk_choice": fc.routing.trunk_choice,
        "lane_assignment": match fc.routing.trunk_choice {
            crate::scenario::TrunkChoice::Deterministic => Some(fc.routing.lane_assignment.unwrap_or_default()),
            crate::scenario::TrunkChoice::Randomized => None,
        },
        "paths": fc.routing.paths,
        "switches": switches,
        "channel_dependencies": deps,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::ALGORITHMS;
    use crate::fabric::shapes::SHAPES;

    #[test]
    fn every_kind_and_policy_names_a_registry_entry() {
        for kind in [
            TopologyKind::Switch,
            TopologyKind::Star,
            TopologyKind::House,
            TopologyKind::Envelope,
            TopologyKind::Complete,
            TopologyKind::Custom,
        ] {
            let name = shape_name(kind);
            assert!(SHAPES.iter().any(|s| s.name == name), "{name}");
            // The registry name is the scenario's own spelling of the kind.
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
        }
        for paths in [PathPolicy::Shortest, PathPolicy::Clockwise, PathPolicy::Central, PathPolicy::Smart] {
            let name = routing_name(paths);
            assert!(ALGORITHMS.iter().any(|a| a.name == name), "{name}");
            assert_eq!(serde_json::to_value(paths).unwrap(), name);
        }
    }

    #[test]
    fn ring_policies_need_the_envelope_kind() {
        let spec = TopologySpec { kind: TopologyKind::House, ..TopologySpec::default() };
        let topo = topology(&spec, 16).unwrap();
        let routing = RoutingSpec { paths: PathPolicy::Clockwise, ..RoutingSpec::default() };
        let e = tables(&topo, TopologyKind::House, &routing).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("routing.paths"));
    }

    #[test]
    fn a_zero_multiplicity_is_refused_by_key() {
        let spec = TopologySpec { kind: TopologyKind::House, multiplicity: Some(0), ..TopologySpec::default() };
        let e = topology(&spec, 16).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.multiplicity"));
    }
}
