//! A printable account of a fabric: every switch's ports and forwarding
//! table, and the channel dependency analysis of its routing.

use serde_json::json;

use super::deadlock::analyze;
use super::forwarding::ForwardingTables;
use super::topology::{PortUse, Topology};
use crate::error::Result;

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
