//! A printable account of a scenario's fabric: every switch's ports and
//! forwarding table, and the channel dependency analysis of its routing.

use serde_json::json;

use super::deadlock::analyze;
use super::forwarding::ForwardingTables;
use super::topology::{PortUse, Topology};
use crate::error::Result;
use crate::scenario::Scenario;

/// Ports, forwarding tables (switches 1-based, nodes 0-based) and the
/// deadlock analysis of a Fibre Channel fabric scenario, as JSON.
pub fn routing_report(scenario: &Scenario) -> Result<serde_json::Value> {
    let fc = scenario.fc_fabric()?;
    let topo = Topology::from_spec(&fc.topology, fc.switch.ports)?;
    let tables = ForwardingTables::build(&topo, fc.topology.kind, &fc.routing)?;
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

/// Every switch's port wiring and forwarding table (endpoints called
/// `endpoint`, e.g. "node" or "HCA"), and the channel dependency analysis.
pub fn switch_tables(
    topo: &Topology,
    tables: &ForwardingTables,
    endpoint: &str,
) -> Result<(Vec<serde_json::Value>, super::deadlock::DependencyReport)> {
    let deps = analyze(topo, tables)?;
    let map = topo.port_map();
    let per_switch = topo.endpoints_per_switch();
    let switches: Vec<serde_json::Value> = map
        .iter()
        .enumerate()
        .map(|(s, ports)| {
            let wiring: Vec<String> = ports
                .iter()
                .map(|u| match *u {
                    PortUse::Link { to, lane } => format!("trunk to switch {} (lane {})", to + 1, lane + 1),
                    PortUse::Endpoint(n) => format!("{endpoint} {n}"),
                    PortUse::Free => "free".to_string(),
                })
                .collect();
            json!({
                "switch": s + 1,
                "nodes": per_switch[s],
                "ports": wiring,
                "forwarding": tables.ports[s],
            })
        })
        .collect();
    Ok((switches, deps))
}
