//! Reading a subnet file into node records: node headers, their port
//! lines with comments and ibsim options, and the GUIDs ibsim would assign.

use super::{line_error, MAX_PORTS};
use crate::error::Result;
use crate::fabric::identity::{NodeId, IBSIM_CA_GUID, IBSIM_SWITCH_GUID};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Switch,
    Ca,
}

impl Kind {
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Switch => "switch",
            Kind::Ca => "channel adapter",
        }
    }
}

/// One `[port] "remote"[port]` line.
#[derive(Clone, Debug)]
pub(super) struct PortLine {
    pub(super) port: u32,
    pub(super) remote: String,
    pub(super) remote_port: u32,
    pub(super) rate: Option<String>,
    pub(super) lid: Option<u16>,
    pub(super) line: usize,
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    pub(super) ports: u32,
    pub(super) id: NodeId,
    pub(super) lid: Option<u16>,
    pub(super) line: usize,
    pub(super) cables: Vec<PortLine>,
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

pub(super) fn read_nodes(text: &str, file: &str) -> Result<Vec<Node>> {
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
    unique_guids(&nodes, file)?;
    Ok(nodes)
}

/// Refuses a node GUID two nodes share (given twice, or given to one that
/// ibsim's counter gives another): the subnet manager and an LFT dump,
/// keyed by it, would take the two for one node.
fn unique_guids(nodes: &[Node], file: &str) -> Result<()> {
    let mut first: std::collections::HashMap<u64, &Node> = std::collections::HashMap::with_capacity(nodes.len());
    for node in nodes {
        let other = *first.entry(node.id.guid).or_insert(node);
        if !std::ptr::eq(other, node) {
            return Err(line_error(
                file,
                node.line,
                format!(
                    "GUID 0x{:x} of {} \"{}\", which line {} gives {} \"{}\" already",
                    node.id.guid,
                    node.kind.word(),
                    node.id.name,
                    other.line,
                    other.kind.word(),
                    other.id.name
                ),
                "a node GUID of its own for every switch and channel adapter (`switchguid=`, `caguid=`, or ibsim's \
                 count from the last one)",
            ));
        }
    }
    Ok(())
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
