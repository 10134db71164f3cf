//! Node records into a topology: every cable checked from both ends,
//! switches and endpoints numbered, identities and rates kept, and the
//! fabric checked to be connected.

use std::collections::HashMap;
use std::sync::Arc;

use super::line_error;
use super::read::{Kind, Node};
use crate::error::Result;
use crate::fabric::identity::{EndpointIdentity, Identity, SmPort, SwitchIdentity};
use crate::fabric::topology::{Endpoint, EndpointKind, Link, Topology};

/// One end of a cable: (node index, port number from 1).
type End = (usize, u32);

pub(super) fn build(nodes: &[Node], file: &str) -> Result<Topology> {
    let by_name: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id.name.as_str(), i)).collect();
    let describe = |i: usize| format!("{} \"{}\"", nodes[i].kind.word(), nodes[i].id.name);
    // Every cable's two ends, checked; keyed by the end with the lower (node, port).
    let mut cables: Vec<(End, End, Option<String>)> = Vec::new();
    let cable_at = |i: usize, port: u32| nodes[i].cables.iter().find(|c| c.port == port);
    for (i, node) in nodes.iter().enumerate() {
        for c in &node.cables {
            if c.port == 0 || c.port > node.ports {
                return Err(line_error(
                    file,
                    c.line,
                    format!("port {} of {} of {} ports", c.port, describe(i), node.ports),
                    format!("ports 1 to {} (the radix in its header, line {})", node.ports, node.line),
                ));
            }
            let Some(&j) = by_name.get(c.remote.as_str()) else {
                return Err(line_error(
                    file,
                    c.line,
                    format!("a cable to \"{}\", which no node header names", c.remote),
                    "the name of a switch or channel adapter of the file",
                ));
            };
            let far = &nodes[j];
            if c.remote_port == 0 || c.remote_port > far.ports {
                return Err(line_error(
                    file,
                    c.line,
                    format!("a cable to port {} of {} of {} ports", c.remote_port, describe(j), far.ports),
                    format!("ports 1 to {} (its header, line {})", far.ports, far.line),
                ));
            }
            if (j, c.remote_port) == (i, c.port) {
                return Err(line_error(file, c.line, "a port cabled to itself", "a cable between two ports"));
            }
            match cable_at(j, c.remote_port) {
                Some(back) if (back.remote.as_str(), back.remote_port) != (node.id.name.as_str(), c.port) => {
                    return Err(line_error(
                        file,
                        c.line,
                        format!(
                            "port {} of \"{}\" cabled to port {} of \"{}\", whose line {} cables it to port {} of \"{}\"",
                            c.port, node.id.name, c.remote_port, far.id.name, back.line, back.remote_port, back.remote
                        ),
                        "both ends of a cable naming each other",
                    ));
                }
                Some(back) if back.rate.is_some() && c.rate.is_some() && back.rate != c.rate => {
                    return Err(line_error(
                        file,
                        c.line,
                        format!(
                            "port {} of \"{}\" at {}, but line {} gives its far end {}",
                            c.port,
                            node.id.name,
                            c.rate.as_deref().unwrap_or_default(),
                            back.line,
                            back.rate.as_deref().unwrap_or_default()
                        ),
                        "both ends of a cable at one width and speed",
                    ));
                }
                Some(_) if (j, c.remote_port) < (i, c.port) => continue, // recorded from the other end
                Some(back) => cables.push(((i, c.port), (j, c.remote_port), c.rate.clone().or(back.rate.clone()))),
                None => cables.push(((i, c.port), (j, c.remote_port), c.rate.clone())),
            }
        }
    }
    // Switches in file order; lanes between each pair of switches.
    let switch_of: Vec<Option<u32>> = {
        let mut n = 0u32;
        nodes
            .iter()
            .map(|node| {
                (node.kind == Kind::Switch).then(|| {
                    n += 1;
                    n - 1
                })
            })
            .collect()
    };
    let switch_nodes: Vec<usize> = (0..nodes.len()).filter(|&i| switch_of[i].is_some()).collect();
    if switch_nodes.is_empty() {
        return Err(line_error(file, text_lines(nodes), "no switch", "at least one `Switch` record"));
    }
    // (port on a, port on b, rate) of the cables between switches a < b.
    type Lanes = Vec<(u16, u16, Option<String>)>;
    let mut lanes: std::collections::BTreeMap<(u32, u32), Lanes> = Default::default();
    // (switch, switch port from 0, adapter node, adapter port from 1, rate)
    let mut attached: Vec<(u32, u16, usize, u32, Option<String>)> = Vec::new();
    for ((i, p), (j, q), rate) in cables {
        match (switch_of[i], switch_of[j]) {
            (Some(a), Some(b)) if a == b => {
                return Err(line_error(
                    file,
                    cable_at(i, p).map_or(nodes[i].line, |c| c.line),
                    format!("a cable from port {p} to port {q} of the same switch \"{}\"", nodes[i].id.name),
                    "cables between two different nodes",
                ));
            }
            (Some(a), Some(b)) => {
                let (a, pa, b, pb) = if a < b { (a, p, b, q) } else { (b, q, a, p) };
                lanes.entry((a, b)).or_default().push(((pa - 1) as u16, (pb - 1) as u16, rate));
            }
            (Some(s), None) => attached.push((s, (p - 1) as u16, j, q, rate)),
            (None, Some(s)) => attached.push((s, (q - 1) as u16, i, p, rate)),
            (None, None) => {
                return Err(line_error(
                    file,
                    cable_at(i, p).or_else(|| cable_at(j, q)).map_or(nodes[i].line, |c| c.line),
                    format!(
                        "a cable between two channel adapters, \"{}\" and \"{}\"",
                        nodes[i].id.name, nodes[j].id.name
                    ),
                    "every adapter port cabled to a switch",
                ));
            }
        }
    }
    attached.sort_by_key(|&(s, p, ..)| (s, p));
    let mut links = Vec::with_capacity(lanes.len());
    let mut lane_rates = Vec::with_capacity(lanes.len());
    for ((a, b), mut l) in lanes {
        l.sort_by_key(|&(pa, ..)| pa);
        links.push(Link { a, b, lanes: l.iter().map(|&(pa, pb, _)| (pa, pb)).collect() });
        lane_rates.push(l.into_iter().map(|(.., r)| r).collect());
    }
    let radix: Vec<u32> = switch_nodes.iter().map(|&i| nodes[i].ports).collect();
    let endpoints: Vec<Endpoint> = attached
        .iter()
        .map(|&(s, p, ..)| Endpoint { kind: EndpointKind::ChannelAdapter, switch: s, port: p })
        .collect();
    let endpoint_ids: Vec<EndpointIdentity> = attached
        .iter()
        .map(|&(_, _, ca, port, _)| EndpointIdentity {
            node: nodes[ca].id.clone(),
            node_ports: nodes[ca].ports as u8,
            port: port as u8,
            port_guid: nodes[ca].id.guid + port as u64,
            lid: cable_at(ca, port).and_then(|c| c.lid),
        })
        .collect();
    check_connected(nodes, &switch_nodes, &links, &attached, file)?;
    let first = &nodes[0];
    let sm = match first.kind {
        Kind::Switch => SmPort::Switch(0),
        Kind::Ca => {
            let e = attached.iter().enumerate().filter(|(_, a)| a.2 == 0).min_by_key(|(_, a)| a.3).map(|(e, _)| e);
            SmPort::Endpoint(e.expect("connected adapters have a cabled port") as u32)
        }
    };
    let identity = Identity {
        switches: switch_nodes
            .iter()
            .map(|&i| SwitchIdentity { node: nodes[i].id.clone(), lid: nodes[i].lid })
            .collect(),
        endpoints: endpoint_ids,
        lane_rates,
        endpoint_rates: attached.into_iter().map(|a| a.4).collect(),
        sm,
    };
    Ok(Topology { radix, endpoints, links, identity: Some(Arc::new(identity)) })
}

/// The line of the last node header (where a missing record was due).
fn text_lines(nodes: &[Node]) -> usize {
    nodes.last().map_or(1, |n| n.line)
}

/// Every switch reachable from the first, and every adapter cabled.
fn check_connected(
    nodes: &[Node],
    switch_nodes: &[usize],
    links: &[Link],
    attached: &[(u32, u16, usize, u32, Option<String>)],
    file: &str,
) -> Result<()> {
    if let Some(i) = (0..nodes.len()).find(|&i| nodes[i].kind == Kind::Ca && !attached.iter().any(|a| a.2 == i)) {
        return Err(line_error(
            file,
            nodes[i].line,
            format!("channel adapter \"{}\" with no cabled port", nodes[i].id.name),
            "a connected fabric: every adapter cabled to a switch",
        ));
    }
    let n = switch_nodes.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for l in links {
        adj[l.a as usize].push(l.b);
        adj[l.b as usize].push(l.a);
    }
    let mut seen = vec![false; n];
    seen[0] = true;
    let mut stack = vec![0u32];
    while let Some(s) = stack.pop() {
        for &t in &adj[s as usize] {
            if !seen[t as usize] {
                seen[t as usize] = true;
                stack.push(t);
            }
        }
    }
    if let Some(s) = seen.iter().position(|&v| !v) {
        let (lost, home) = (&nodes[switch_nodes[s]], &nodes[switch_nodes[0]]);
        return Err(line_error(
            file,
            lost.line,
            format!(
                "switch \"{}\", which no chain of cables joins to switch \"{}\" (line {})",
                lost.id.name, home.id.name, home.line
            ),
            "a connected fabric: every switch reachable from every other",
        ));
    }
    Ok(())
}
