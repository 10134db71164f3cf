//! A topology written out: as a subnet file `parse` reads back, and as a
//! Graphviz graph.

use std::collections::HashMap;
use std::fmt::Write;

use crate::fabric::identity::NodeId;
use crate::fabric::topology::{PortUse, Topology};

/// `topo` in the file format `parse` reads (an `ibnetdiscover` dump as
/// ibsim takes it): GUID lines, node headers with descriptions and LIDs,
/// every cable from both ends with its rate. Switches first, in index
/// order, then adapters in the order of their first endpoint.
pub fn export_net(topo: &Topology) -> String {
    let id = topo.subnet_identity();
    let map = topo.port_map();
    let peer = topo.peer_ports();
    let mut out = String::new();
    let lid_text = |lid: Option<u16>| lid.map(|l| format!(" lid {l}")).unwrap_or_default();
    let desc_text = |n: &NodeId| n.description.as_ref().map(|d| format!(" \"{d}\"")).unwrap_or_default();
    let mut lane_rate: HashMap<(u32, u16), Option<&String>> = HashMap::new();
    for (l, rates) in topo.links.iter().zip(&id.lane_rates) {
        for (&(pa, pb), r) in l.lanes.iter().zip(rates) {
            lane_rate.insert((l.a, pa), r.as_ref());
            lane_rate.insert((l.b, pb), r.as_ref());
        }
    }
    let tail = |rate: Option<&String>| rate.map(|r| format!(" {r}")).unwrap_or_default();
    for (s, sw) in id.switches.iter().enumerate() {
        let _ = writeln!(out, "switchguid=0x{:x}", sw.node.guid);
        let _ = write!(out, "Switch\t{} \"{}\"", topo.radix[s], sw.node.name);
        let comment = format!(
            "{}{}",
            desc_text(&sw.node),
            sw.lid.map(|l| format!(" base port 0 lid {l} lmc 0")).unwrap_or_default()
        );
        let _ = writeln!(out, "{}", if comment.is_empty() { String::new() } else { format!("\t\t#{comment}") });
        for (p, u) in map[s].iter().enumerate() {
            let (name, remote_port, guid, desc, lid, rate) = match *u {
                PortUse::Link { to, .. } => {
                    let far = &id.switches[to as usize];
                    let q = peer[s][p].expect("links are wired both ways") as u32 + 1;
                    (&far.node.name, q, String::new(), desc_text(&far.node), far.lid, lane_rate[&(s as u32, p as u16)])
                }
                PortUse::Endpoint(e) => {
                    let ep = &id.endpoints[e as usize];
                    let rate = id.endpoint_rates[e as usize].as_ref();
                    (&ep.node.name, ep.port as u32, format!("({:x})", ep.port_guid), desc_text(&ep.node), ep.lid, rate)
                }
                PortUse::Free => continue,
            };
            let comment = format!("{desc}{}{}", lid_text(lid), tail(rate));
            let comment = if comment.is_empty() { String::new() } else { format!("\t\t#{comment}") };
            let _ = writeln!(out, "[{}]\t\"{name}\"[{remote_port}]{guid}{comment}", p + 1);
        }
        out.push('\n');
    }
    // Adapters: each node once, with every cabled port.
    let mut done: HashMap<&str, ()> = HashMap::new();
    for (e, ep) in id.endpoints.iter().enumerate() {
        if done.insert(ep.node.name.as_str(), ()).is_some() {
            continue;
        }
        let _ = writeln!(out, "caguid=0x{:x}", ep.node.guid);
        let _ = writeln!(
            out,
            "Ca\t{} \"{}\"{}",
            ep.node_ports,
            ep.node.name,
            ep.node.description.as_ref().map(|d| format!("\t\t# \"{d}\"")).unwrap_or_default()
        );
        let mut ports: Vec<usize> =
            (e..id.endpoints.len()).filter(|&f| id.endpoints[f].node.name == ep.node.name).collect();
        ports.sort_by_key(|&f| id.endpoints[f].port);
        for f in ports {
            let me = &id.endpoints[f];
            let at = topo.endpoints[f];
            let sw = &id.switches[at.switch as usize];
            // The adapter's own LID comes first; the switch's only after it.
            let lids = match me.lid {
                Some(l) => format!(" lid {l} lmc 0{}{}", desc_text(&sw.node), lid_text(sw.lid)),
                None => desc_text(&sw.node),
            };
            let comment = format!("{lids}{}", tail(id.endpoint_rates[f].as_ref()));
            let comment = if comment.is_empty() { String::new() } else { format!("\t\t#{comment}") };
            let _ = writeln!(out, "[{}]({:x}) \t\"{}\"[{}]{comment}", me.port, me.port_guid, sw.node.name, at.port + 1);
        }
        out.push('\n');
    }
    out
}

/// `topo` as a Graphviz graph: switches as boxes, adapters as ellipses, one
/// edge per cable labelled with its port numbers at each end and its rate.
pub fn export_dot(topo: &Topology) -> String {
    let id = topo.subnet_identity();
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = String::from("graph fabric {\n  node [shape=box];\n");
    for sw in &id.switches {
        let _ = writeln!(out, "  {};", quote(&sw.node.name));
    }
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for ep in &id.endpoints {
        if seen.insert(&ep.node.name, ()).is_none() {
            let _ = writeln!(out, "  {} [shape=ellipse];", quote(&ep.node.name));
        }
    }
    let label = |rate: Option<&String>| rate.map(|r| format!(", label={}", quote(r))).unwrap_or_default();
    for (l, rates) in topo.links.iter().zip(&id.lane_rates) {
        for (&(pa, pb), r) in l.lanes.iter().zip(rates) {
            let _ = writeln!(
                out,
                "  {} -- {} [taillabel=\"{}\", headlabel=\"{}\"{}];",
                quote(&id.switches[l.a as usize].node.name),
                quote(&id.switches[l.b as usize].node.name),
                pa + 1,
                pb + 1,
                label(r.as_ref())
            );
        }
    }
    for (e, at) in topo.endpoints.iter().enumerate() {
        let ep = &id.endpoints[e];
        let _ = writeln!(
            out,
            "  {} -- {} [taillabel=\"{}\", headlabel=\"{}\"{}];",
            quote(&id.switches[at.switch as usize].node.name),
            quote(&ep.node.name),
            at.port + 1,
            ep.port,
            label(id.endpoint_rates[e].as_ref())
        );
    }
    out.push_str("}\n");
    out
}
