//! InfiniBand subnets as `ibnetdiscover` dumps and ibsim `net` files: read
//! into a topology with its identity (real port numbers, radix, names,
//! GUIDs, LIDs, cable rates), and written back in the same format or as
//! Graphviz DOT.
//!
//! The format: optional `switchguid=`/`caguid=` lines (and `vendid=`,
//! `devid=`, `sysimgguid=`, which do not matter here), a node header
//! `Switch|Ca|Hca <ports> "<name>"`, then one line per cabled port,
//! `[port] "remote-name"[remote-port]`, with optional `(port guid)` after
//! either port, ibsim's `w=`/`s=`/`e=` options and a `# comment` tail. Real
//! dumps carry the description of a node, its LID (`lid N`) and the cable's
//! width and speed (`4xQDR`) in the comments. A cable appears at both ends
//! or at one; it is recorded once, and the two ends must agree.
//!
//! Switch ports keep their numbers: port `p` of the file is port `p - 1` of
//! the topology (port 0, a switch's management port, is never cabled).
//! Switches are numbered in file order, endpoints (one per cabled adapter
//! port) switch by switch in port order. GUIDs not given follow ibsim's
//! rule (see `identity`), so OpenSM under ibsim sees the same subnet.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::identity::{EndpointIdentity, Identity, NodeId, SmPort, SwitchIdentity, IBSIM_CA_GUID, IBSIM_SWITCH_GUID};
use super::topology::{Endpoint, EndpointKind, Link, Topology};
use crate::error::{Error, ErrorKind, Result};

/// The largest port count of an IBA node (port numbers are a byte; 255 is reserved).
pub const MAX_PORTS: u32 = 254;

/// An error about line `line` (from 1) of `file`: what was found, and what was expected there.
fn line_error(file: &str, line: usize, found: impl std::fmt::Display, expected: impl Into<String>) -> Error {
    Error {
        kind: ErrorKind::Scenario,
        // The file in the message: a scenario that names it puts its own name in `file`.
        message: format!("{file}, line {line}: {found}"),
        file: None,
        key: None,
        value: None,
        allowed: Some(expected.into()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Switch,
    Ca,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Switch => "switch",
            Kind::Ca => "channel adapter",
        }
    }
}

/// One `[port] "remote"[port]` line.
#[derive(Clone, Debug)]
struct PortLine {
    port: u32,
    remote: String,
    remote_port: u32,
    rate: Option<String>,
    lid: Option<u16>,
    line: usize,
}

#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    ports: u32,
    id: NodeId,
    lid: Option<u16>,
    line: usize,
    cables: Vec<PortLine>,
}

/// Reads a subnet file (see `read_found` for where it is looked for).
pub fn load(path: &str, key: &str) -> Result<Topology> {
    parse(&read_found(path, key, "ibnetdiscover or ibsim net file")?, path)
}

/// The text of `path`, as given if absolute or found from the working
/// directory, else looked up from each directory above it (the shared data
/// sits beside the repository); errors name `key` and `what` was wanted.
pub fn read_found(path: &str, key: &str, what: &str) -> Result<String> {
    let found = find_upwards(path).map_err(|tried| {
        Error::invalid(
            key,
            format!("\"{path}\""),
            format!(
                "a readable {what}: an absolute path, or a relative one found from the working directory or a \
                 directory above it (looked for {})",
                tried.iter().take(4).map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    std::fs::read_to_string(&found).map_err(|e| {
        Error::invalid(key, format!("\"{path}\""), format!("a readable UTF-8 {what} ({}: {e})", found.display()))
    })
}

/// `path` if absolute or present from the working directory, else the first
/// directory above the working directory that holds it; the places tried otherwise.
pub fn find_upwards(path: &str) -> std::result::Result<PathBuf, Vec<PathBuf>> {
    let p = Path::new(path);
    let mut tried = Vec::new();
    if p.is_absolute() {
        tried.push(p.to_path_buf());
    } else if let Ok(cwd) = std::env::current_dir() {
        tried.extend(cwd.ancestors().map(|d| d.join(p)));
    }
    tried.iter().find(|c| c.is_file()).cloned().ok_or(tried)
}

/// Splits a line at its first `#` outside quotes: (body, comment).
fn split_comment(text: &str) -> (&str, Option<&str>) {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return (&text[..i], Some(&text[i + 1..])),
            _ => {}
        }
    }
    (text, None)
}

/// A number as C's `strtoull(s, 0)` reads it: `0x` hexadecimal, else decimal.
fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The first quoted string of a comment.
fn first_quoted(comment: &str) -> Option<String> {
    let start = comment.find('"')? + 1;
    let len = comment[start..].find('"')?;
    Some(comment[start..start + len].to_string())
}

/// The number after the first `lid ` of a comment, outside quotes.
fn comment_lid(comment: &str) -> Option<u16> {
    let mut quoted = false;
    let words: Vec<&str> = comment
        .split(|c: char| {
            if c == '"' {
                quoted = !quoted;
            }
            c.is_whitespace() && !quoted
        })
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|&w| w == "lid")?;
    words.get(at + 1).and_then(|w| parse_number(w)).and_then(|l| u16::try_from(l).ok())
}

/// Whether `word` names a width and speed, as `4xQDR`.
fn is_rate(word: &str) -> bool {
    match word.find(['x', 'X']) {
        Some(i) => {
            i > 0
                && word[..i].bytes().all(|b| b.is_ascii_digit())
                && word.len() > i + 1
                && word[i + 1..].bytes().all(|b| b.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// The cable rate at the end of a comment (`... lid 1113 4xQDR`).
fn comment_rate(comment: &str) -> Option<String> {
    comment.split_whitespace().last().filter(|w| is_rate(w)).map(str::to_string)
}

/// ibsim's `w=`, `s=` and `e=` port options as a rate: width w (default 4x),
/// speed by the highest bit of e (FDR, EDR, HDR, NDR) or of s (SDR, DDR, QDR).
fn option_rate(width: Option<u64>, speed: Option<u64>, ext: Option<u64>) -> Option<String> {
    if width.is_none() && speed.is_none() && ext.is_none() {
        return None;
    }
    let top = |v: u64, names: &[&'static str]| -> &'static str {
        let bit = 63 - v.leading_zeros() as usize;
        names[bit.min(names.len() - 1)]
    };
    let name = match (ext.filter(|&e| e > 0), speed.filter(|&s| s > 0)) {
        (Some(e), _) => top(e, &["FDR", "EDR", "HDR", "NDR"]),
        (None, Some(s)) => top(s, &["SDR", "DDR", "QDR"]),
        (None, None) => "SDR",
    };
    Some(format!("{}x{name}", width.unwrap_or(4)))
}

/// Reads `"name"[port]` at the start of `s`: (name, port, rest).
fn quoted_port<'a>(s: &'a str, what: &str) -> std::result::Result<(String, u32, &'a str), String> {
    let s = s.trim_start();
    let body = s.strip_prefix('"').ok_or_else(|| format!("no quoted {what} name"))?;
    let end = body.find('"').ok_or_else(|| format!("an unterminated {what} name"))?;
    let name = body[..end].to_string();
    let (port, rest) = bracketed(&body[end + 1..]).ok_or_else(|| format!("no [port] after the {what} name"))?;
    Ok((name, port, rest))
}

/// Reads `[number]` at the start of `s` (after blanks): (number, rest).
fn bracketed(s: &str) -> Option<(u32, &str)> {
    let s = s.trim_start().strip_prefix('[')?;
    let end = s.find(']')?;
    Some((s[..end].trim().parse().ok()?, &s[end + 1..]))
}

/// Skips `(hex guid)` at the start of `s`, if there.
fn skip_guid(s: &str) -> &str {
    let t = s.trim_start();
    match t.strip_prefix('(').and_then(|r| r.find(')').map(|e| &r[e + 1..])) {
        Some(rest) => rest,
        None => s,
    }
}

/// The ibsim GUID counters: the next switch and adapter GUID, and the base
/// a relative assignment (`switchguid+N`) adds to.
struct Guids {
    next: [u64; 2],
    base: [u64; 2],
}

impl Guids {
    fn slot(kind: Kind) -> usize {
        match kind {
            Kind::Switch => 0,
            Kind::Ca => 1,
        }
    }

    /// Takes the GUID of a new node of `ports` ports.
    fn take(&mut self, kind: Kind, ports: u32) -> u64 {
        let i = Self::slot(kind);
        let g = self.next[i];
        self.next[i] += if kind == Kind::Switch { 1 } else { ports as u64 + 1 };
        g
    }
}

/// Parses a subnet file; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Topology> {
    let nodes = read_nodes(text, file)?;
    build(&nodes, file)
}

fn read_nodes(text: &str, file: &str) -> Result<Vec<Node>> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut guids = Guids { next: [IBSIM_SWITCH_GUID, IBSIM_CA_GUID], base: [IBSIM_SWITCH_GUID, IBSIM_CA_GUID] };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
        let (body, comment) = split_comment(raw);
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        let word: String = body.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let after = &body[word.len()..];
        if after.trim_start().starts_with(['=', '+']) && !word.is_empty() {
            let value = after.trim_start()[1..].trim_start();
            let relative = after.trim_start().starts_with('+');
            let kind = match word.as_str() {
                "switchguid" => Some(Kind::Switch),
                "caguid" | "hcaguids" => Some(Kind::Ca),
                "vendid" | "devid" | "sysimgguid" => None,
                "rtguid" => {
                    return Err(line_error(file, line, "a router GUID", "switches and channel adapters only"));
                }
                _ => {
                    return Err(line_error(
                        file,
                        line,
                        format!("unknown assignment `{word}`"),
                        "switchguid=, caguid=, hcaguids=, vendid=, devid= or sysimgguid=",
                    ));
                }
            };
            let number = value.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or("");
            let Some(g) = parse_number(number) else {
                return Err(line_error(file, line, format!("`{word}` = `{value}`"), "a number, e.g. 0x2c90200419cb8"));
            };
            if let Some(kind) = kind {
                let s = Guids::slot(kind);
                if relative {
                    guids.next[s] = guids.base[s] + g;
                } else {
                    guids.base[s] = g;
                    guids.next[s] = g;
                }
            }
            continue;
        }
        match word.as_str() {
            "Switch" | "Ca" | "Hca" => {
                let kind = if word == "Switch" { Kind::Switch } else { Kind::Ca };
                let rest = after.trim_start();
                let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                let ports: u32 = digits.parse().unwrap_or(0);
                if !(1..=MAX_PORTS).contains(&ports) {
                    return Err(line_error(
                        file,
                        line,
                        format!(
                            "a {} of {} ports",
                            kind.word(),
                            if digits.is_empty() { "no number of" } else { &digits }
                        ),
                        format!("`{word} <ports> \"<name>\"` with 1 to {MAX_PORTS} ports"),
                    ));
                }
                let name_part = rest[digits.len()..].trim_start();
                let name = name_part
                    .strip_prefix('"')
                    .and_then(|b| b.find('"').map(|e| b[..e].to_string()))
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| {
                        line_error(file, line, format!("`{body}`"), format!("`{word} <ports> \"<name>\"`"))
                    })?;
                if let Some(other) = nodes.iter().find(|n| n.id.name == name) {
                    return Err(line_error(
                        file,
                        line,
                        format!("a second node named \"{name}\""),
                        format!("a unique name per node (line {} has it already)", other.line),
                    ));
                }
                let guid = guids.take(kind, ports);
                let description = comment.and_then(first_quoted);
                let lid = if kind == Kind::Switch { comment.and_then(comment_lid) } else { None };
                nodes.push(Node { kind, ports, id: NodeId { name, guid, description }, lid, line, cables: Vec::new() });
            }
            "Rt" => return Err(line_error(file, line, "a router", "switches and channel adapters only")),
            "include" | "do" => {
                return Err(line_error(
                    file,
                    line,
                    format!("ibsim's `{word}` command"),
                    "node records only (concatenate included files)",
                ));
            }
            _ if body.starts_with('[') => {
                let Some(node) = nodes.last_mut() else {
                    return Err(line_error(file, line, "a port line before any node", "a node header first"));
                };
                let cable = read_port_line(body, comment, node.kind, line)
                    .map_err(|found| line_error(file, line, found, "`[port] \"remote name\"[remote port]`"))?;
                if let Some(other) = node.cables.iter().find(|c| c.port == cable.port) {
                    return Err(line_error(
                        file,
                        line,
                        format!("port {} of \"{}\" listed again", cable.port, node.id.name),
                        format!("one line per port (line {} lists it)", other.line),
                    ));
                }
                node.cables.push(cable);
            }
            _ => {
                return Err(line_error(
                    file,
                    line,
                    format!("`{body}`"),
                    "a node header (`Switch|Ca|Hca <ports> \"<name>\"`), a port line (`[port] \"remote\"[port]`), a \
                     GUID assignment or a comment",
                ));
            }
        }
    }
    Ok(nodes)
}

fn read_port_line(body: &str, comment: Option<&str>, kind: Kind, line: usize) -> std::result::Result<PortLine, String> {
    let (port, rest) = bracketed(body).ok_or("no [port] number")?;
    let rest = skip_guid(rest);
    let (remote, remote_port, rest) = quoted_port(rest, "remote")?;
    let mut rest = skip_guid(rest).trim();
    if let Some(r) = rest.strip_prefix("[ext") {
        rest = r.split_once(']').map(|(_, t)| t.trim()).ok_or("an unterminated [ext N]")?;
    }
    let (mut width, mut speed, mut ext) = (None, None, None);
    for option in rest.split_whitespace() {
        let (name, value) = option.split_once('=').ok_or_else(|| format!("`{option}` after the remote port"))?;
        let value = parse_number(value).ok_or_else(|| format!("option `{option}` without a number"))?;
        match name {
            "w" => width = Some(value),
            "s" => speed = Some(value),
            "e" => ext = Some(value),
            _ => return Err(format!("unknown option `{option}` (ibsim knows w=, s=, e=)")),
        }
    }
    let rate = comment.and_then(comment_rate).or_else(|| option_rate(width, speed, ext));
    // An adapter's port line records its own LID first; a switch's, the far end's.
    let lid = if kind == Kind::Ca { comment.and_then(comment_lid) } else { None };
    Ok(PortLine { port, remote, remote_port, rate, lid, line })
}

/// One end of a cable: (node index, port number from 1).
type End = (usize, u32);

fn build(nodes: &[Node], file: &str) -> Result<Topology> {
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

/// `topo` in the file format `parse` reads (an `ibnetdiscover` dump as
/// ibsim takes it): GUID lines, node headers with descriptions and LIDs,
/// every cable from both ends with its rate. Switches first, in index
/// order, then adapters in the order of their first endpoint.
pub fn export_net(topo: &Topology) -> String {
    let id = Identity::of(topo);
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
                super::topology::PortUse::Link { to, .. } => {
                    let far = &id.switches[to as usize];
                    let q = peer[s][p].expect("links are wired both ways") as u32 + 1;
                    (&far.node.name, q, String::new(), desc_text(&far.node), far.lid, lane_rate[&(s as u32, p as u16)])
                }
                super::topology::PortUse::Endpoint(e) => {
                    let ep = &id.endpoints[e as usize];
                    let rate = id.endpoint_rates[e as usize].as_ref();
                    (&ep.node.name, ep.port as u32, format!("({:x})", ep.port_guid), desc_text(&ep.node), ep.lid, rate)
                }
                super::topology::PortUse::Free => continue,
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
    let id = Identity::of(topo);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::topology::PortUse;

    const SMALL: &str = "\
switchguid=0x10(10)
Switch\t8 \"S-a\"\t\t# \"leaf one\" base port 0 lid 3 lmc 0
[1]\t\"H-x\"[1](21) \t\t# \"host x\" lid 7 4xQDR
[3]\t\"S-b\"[5]\t\t# \"leaf two\" lid 4 4xFDR10
[4]\t\"S-b\"[6]\t\t# \"leaf two\" lid 4 4xFDR10

Switch\t8 \"S-b\"
[5]\t\"S-a\"[3]
[6]\t\"S-a\"[4]
[2]\t\"H-y\"[2]

caguid=0x20
Ca\t2 \"H-x\"\t\t# \"host x\"
[1](21) \t\"S-a\"[1]\t\t# lid 7 lmc 0 \"leaf one\" lid 3 4xQDR

Hca\t2 \"H-y\"
[2]\t\"S-b\"[2]\tw=12
";

    fn err(text: &str) -> String {
        parse(text, "t.net").unwrap_err().to_string()
    }

    #[test]
    fn a_small_subnet_keeps_ports_names_guids_lids_and_rates() {
        let t = parse(SMALL, "t.net").unwrap();
        assert_eq!(t.radix, vec![8, 8]);
        assert_eq!(t.links, vec![Link { a: 0, b: 1, lanes: vec![(2, 4), (3, 5)] }]);
        let map = t.port_map();
        assert_eq!(map[0][0], PortUse::Endpoint(0));
        assert_eq!(map[1][1], PortUse::Endpoint(1));
        let id = t.identity.as_ref().unwrap();
        assert_eq!(id.switches[0].node.guid, 0x10);
        assert_eq!(id.switches[1].node.guid, 0x11); // ibsim's counter after 0x10
        assert_eq!((id.switches[0].lid, id.switches[1].lid), (Some(3), None));
        assert_eq!(id.switches[0].node.description.as_deref(), Some("leaf one"));
        assert_eq!((id.endpoints[0].port_guid, id.endpoints[0].lid), (0x21, Some(7)));
        // H-y: no GUID line, so the counter after H-x (0x20 + 2 ports + 1), port 2.
        assert_eq!((id.endpoints[1].node.guid, id.endpoints[1].port_guid, id.endpoints[1].port), (0x23, 0x25, 2));
        assert_eq!(id.lane_rates, vec![vec![Some("4xFDR10".to_string()); 2]]);
        assert_eq!(id.endpoint_rates, vec![Some("4xQDR".into()), Some("12xSDR".into())]);
        assert_eq!(id.sm, SmPort::Switch(0));
    }

    #[test]
    fn export_reads_back_to_the_same_fabric() {
        let t = parse(SMALL, "t.net").unwrap();
        let text = export_net(&t);
        assert_eq!(parse(&text, "again.net").unwrap(), t, "{text}");
        // A generated fabric exports with ibsim's names and GUIDs and reads back.
        let ft =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }).unwrap();
        let back = parse(&export_net(&ft), "ft.net").unwrap();
        assert_eq!(
            (back.radix.clone(), back.endpoints.clone(), back.links.clone()),
            (ft.radix.clone(), ft.endpoints.clone(), ft.links.clone())
        );
        assert_eq!(*back.identity.unwrap(), Identity::generated(&ft));
        let dot = export_dot(&t);
        assert!(dot.contains("\"S-a\" -- \"S-b\" [taillabel=\"3\", headlabel=\"5\", label=\"4xFDR10\"];"), "{dot}");
        assert!(dot.contains("\"S-b\" -- \"H-y\" [taillabel=\"2\", headlabel=\"2\", label=\"12xSDR\"];"), "{dot}");
    }

    #[test]
    fn damaged_files_name_the_line_and_what_was_expected() {
        let e = err(&SMALL.replace("[4]\t\"S-b\"[6]", "[40]\t\"S-b\"[6]"));
        assert!(e.contains("t.net, line 5: port 40 of switch \"S-a\" of 8 ports"), "{e}");
        assert!(e.contains("allowed: ports 1 to 8"), "{e}");
        let e = err(&SMALL.replace("[6]\t\"S-a\"[4]", "[6]\t\"S-a\"[7]"));
        assert!(
            e.contains("line 5: port 4 of \"S-a\" cabled to port 6 of \"S-b\", whose line 9 cables it to port 7"),
            "{e}"
        );
        let e = err(&SMALL.replace("[5]\t\"S-a\"[3]", "[5]\t\"S-a\"[3]\t\t# lid 3 4xQDR"));
        assert!(e.contains("line 4: port 3 of \"S-a\" at 4xFDR10, but line 8 gives its far end 4xQDR"), "{e}");
        let e = err(&SMALL.replace("[3]\t\"S-b\"[5]", "[3] S-b 5"));
        assert!(e.contains("line 4: no quoted remote name; allowed: `[port] \"remote name\"[remote port]`"), "{e}");
        let e = err(&SMALL.replace("\"S-b\"[5]\t\t#", "\"S-c\"[5]\t\t#"));
        assert!(e.contains("line 4: a cable to \"S-c\", which no node header names"), "{e}");
        let e = err(&SMALL.replace("Switch\t8 \"S-b\"", "Switch\t300 \"S-b\""));
        assert!(e.contains("line 7: a switch of 300 ports"), "{e}");
        let e = err(&SMALL.replace("Hca\t2", "Router\t2"));
        assert!(e.contains("line 16: `Router"), "{e}");
        // Without the cables between the two switches the fabric falls apart.
        let cut: String = SMALL
            .lines()
            .filter(|l| {
                !l.contains("S-b\"[5]") && !l.contains("S-b\"[6]") && !l.contains("S-a\"[3]") && !l.contains("S-a\"[4]")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let e = err(&cut);
        assert!(e.contains("switch \"S-b\", which no chain of cables joins to switch \"S-a\" (line 2)"), "{e}");
        assert!(e.contains("allowed: a connected fabric"), "{e}");
    }

    #[test]
    fn the_shared_clusters_import() {
        let path = "../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover";
        let t = load(path, "file").unwrap();
        assert_eq!((t.switch_count(), t.endpoints.len()), (214, 1356));
        let id = t.identity.as_ref().unwrap();
        assert!(id.endpoints.iter().all(|e| e.lid.is_some()) && id.switches.iter().all(|s| s.lid.is_some()));
        assert!(id.endpoint_rates.iter().all(|r| r.as_deref() == Some("4xQDR")));
        let t = load("../shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover", "file").unwrap();
        // 144 adapters; one (tank1) has both ports cabled.
        assert_eq!((t.switch_count(), t.endpoints.len()), (8, 145));
        let id = t.identity.as_ref().unwrap();
        assert!(id.lane_rates.iter().flatten().all(|r| r.as_deref() == Some("4xFDR10")));
        assert_eq!(parse(&export_net(&t), "again").unwrap(), t);
        let t = load("../shared/data/topologies/fattree-k4-n3-80sw-128hca.net", "file").unwrap();
        assert_eq!((t.switch_count(), t.endpoints.len(), t.radix[0]), (80, 128, 8));
    }
}
