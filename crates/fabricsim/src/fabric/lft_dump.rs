//! Linear forwarding tables in the text form OpenSM dumps them
//! (`opensm-lfts.dump`, written with `--dump_files_dir` or `-D 0x43`) and
//! `dump_fts`/`ibroute` print them: per switch a header
//! `Unicast lids [0-N] of switch Lid L guid 0xG ('description'):`, then one
//! line per routed LID, `0xLLLL PPP # <type> portguid 0xG: 'description'`
//! (`dump_fts`: `0xLLLL PPP : (<type> portguid 0xG: 'description')`), and a
//! closing `N lids dumped` (OpenSM: N is the top LID).
//!
//! Reading one routes a simulation exactly as the subnet it came from: the
//! switches are found by GUID, and the LIDs by the port GUIDs the lines
//! name, so the tables need not have the LIDs this crate would assign.

use std::collections::HashMap;
use std::fmt::Write;

use super::forwarding::{LinearTables, NO_ROUTE};
use super::identity::{opensm_guid_order, Identity};
use super::import::line_error;
use super::lids::{LidOwner, Lids, MAX_UNICAST_LID};
use super::topology::{PortUse, Topology};
use crate::error::{Error, Result};

/// `tables` over `topo` in OpenSM's dump format, switches in the order of
/// OpenSM's switch map, so the two can be compared line by line.
pub fn export(topo: &Topology, tables: &LinearTables) -> String {
    let id = topo.subnet_identity();
    let owners = tables.owners();
    let label = |o: LidOwner| match o {
        LidOwner::Switch(s) => {
            let n = &id.switches[s as usize].node;
            ("Switch", n.guid, n.description.as_deref().unwrap_or(&n.name))
        }
        LidOwner::Endpoint(e) => {
            let ep = &id.endpoints[e as usize];
            ("Channel Adapter", ep.port_guid, ep.node.description.as_deref().unwrap_or(&ep.node.name))
        }
    };
    let mut order: Vec<usize> = (0..topo.switch_count()).collect();
    order.sort_by_key(|&s| (opensm_guid_order(id.switches[s].node.guid), s));
    let mut out = String::new();
    for s in order {
        let (_, guid, desc) = label(LidOwner::Switch(s as u32));
        let _ = writeln!(
            out,
            "Unicast lids [0-{}] of switch Lid {} guid 0x{guid:016x} ('{desc}'):",
            tables.top(),
            tables.lids.switch[s]
        );
        for (lid, &port) in tables.row(s).iter().enumerate() {
            let Some(owner) = owners[lid] else { continue };
            if port == NO_ROUTE {
                continue;
            }
            let (kind, guid, desc) = label(owner);
            let _ = writeln!(out, "0x{lid:04x} {port:03} # {kind} portguid 0x{guid:016x}: '{desc}'");
        }
        // OpenSM closes with the table's top LID, whatever it printed.
        let _ = writeln!(out, "{} lids dumped", tables.top());
    }
    out
}

/// An error about the dump as a whole: the dump's name leads the message, as
/// `line_error`'s, so the scenario key that names the dump (`ib.routing.lft_file`) can be put on it.
fn dump_error(file: &str, found: impl std::fmt::Display, expected: impl Into<String>) -> Error {
    Error { allowed: Some(expected.into()), ..Error::scenario(format!("{file}: {found}")) }
}

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    u64::from_str_radix(s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s), 16).ok()
}

/// The hexadecimal number after `word ` in `text`.
fn hex_after(text: &str, word: &str) -> Option<u64> {
    let at = text.find(word)? + word.len();
    hex(text[at..].trim_start().split(|c: char| !c.is_ascii_hexdigit() && c != 'x' && c != 'X').next()?)
}

/// A switch's table as read: its entries as (line, LID, port, port GUID).
type Entries = Vec<(usize, u16, u8, Option<u64>)>;

/// Whether a dump may leave a pair of adapters without a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrouted {
    /// As OpenSM leaves some on irregular fabrics: to compare its tables.
    Allowed,
    /// To run on: every adapter's traffic must reach every other.
    Refused,
}

/// Reads a dump of the tables of `topo`'s switches; `file` names it in
/// errors. Every switch must have a table and every endpoint a LID, and
/// every route an adapter's LID has must reach that adapter; `unrouted`
/// says whether a route may be missing (see [`check_routes`]).
pub fn import(text: &str, file: &str, topo: &Topology, unrouted: Unrouted) -> Result<LinearTables> {
    let id = topo.subnet_identity();
    let switch_by_guid: HashMap<u64, u32> =
        id.switches.iter().enumerate().map(|(s, sw)| (sw.node.guid, s as u32)).collect();
    let endpoint_by_guid: HashMap<u64, u32> =
        id.endpoints.iter().enumerate().map(|(e, ep)| (ep.port_guid, e as u32)).collect();
    let map = topo.port_map();
    // Per table: (switch, header line) and its entries.
    let mut blocks: Vec<((u32, usize), Entries)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.ends_with("lids dumped") || t.starts_with("Lid ") || t.starts_with("Port ") {
            continue;
        }
        if t.starts_with("Unicast lids") {
            let guid = hex_after(t, "guid ").ok_or_else(|| {
                line_error(file, line, "a switch header without `guid 0x...`", "`... guid 0x<GUID> ...`")
            })?;
            let s = *switch_by_guid.get(&guid).ok_or_else(|| {
                line_error(file, line, format!("switch GUID 0x{guid:016x}"), "the GUID of a switch of the topology")
            })?;
            if let Some(((_, first), _)) = blocks.iter().find(|((b, _), _)| *b == s) {
                return Err(line_error(
                    file,
                    line,
                    format!("a second table for switch 0x{guid:016x}"),
                    format!("one table per switch (line {first} starts its table)"),
                ));
            }
            blocks.push(((s, line), Vec::new()));
            continue;
        }
        if t.starts_with("0x") {
            let mut words = t.split_whitespace();
            let lid = words.next().and_then(hex).filter(|&l| (1..=MAX_UNICAST_LID as u64).contains(&l));
            let port = words.next().and_then(|p| p.parse::<u8>().ok());
            let (Some(lid), Some(port)) = (lid, port) else {
                return Err(line_error(file, line, format!("`{t}`"), "`0x<LID> <port> ...` with a unicast LID"));
            };
            let Some((_, entries)) = blocks.last_mut() else {
                return Err(line_error(file, line, "an entry before any switch header", "`Unicast lids ...` first"));
            };
            entries.push((line, lid as u16, port, hex_after(t, "portguid ")));
            continue;
        }
        return Err(line_error(
            file,
            line,
            format!("`{t}`"),
            "a `Unicast lids ... guid 0x...` header, a `0x<LID> <port>` entry or `N lids dumped`",
        ));
    }
    // LIDs from the port GUIDs the entries name.
    let mut owner_of: HashMap<u16, LidOwner> = HashMap::new();
    for (_, entries) in &blocks {
        for &(line, lid, _, guid) in entries {
            let Some(guid) = guid else { continue };
            let owner = match (switch_by_guid.get(&guid), endpoint_by_guid.get(&guid)) {
                (Some(&s), _) => LidOwner::Switch(s),
                (None, Some(&e)) => LidOwner::Endpoint(e),
                (None, None) => {
                    return Err(line_error(
                        file,
                        line,
                        format!("LID {lid} of port GUID 0x{guid:016x}"),
                        "the port GUID of a switch or cabled adapter port of the topology",
                    ));
                }
            };
            if let Some(&other) = owner_of.get(&lid).filter(|&&o| o != owner) {
                return Err(line_error(
                    file,
                    line,
                    format!("LID {lid} named for two ports ({other:?} and {owner:?})"),
                    "one port per LID",
                ));
            }
            owner_of.insert(lid, owner);
        }
    }
    let mut lids = Lids { switch: vec![0; topo.switch_count()], endpoint: vec![0; topo.endpoints.len()] };
    // A port of several LIDs (LMC above 0) keeps its base LID, the lowest.
    for (&lid, &owner) in &owner_of {
        let kept = match owner {
            LidOwner::Switch(s) => &mut lids.switch[s as usize],
            LidOwner::Endpoint(e) => &mut lids.endpoint[e as usize],
        };
        if *kept == 0 || lid < *kept {
            *kept = lid;
        }
    }
    if let Some(e) = lids.endpoint.iter().position(|&l| l == 0) {
        let ep = &id.endpoints[e];
        return Err(dump_error(
            file,
            format!("no entry names adapter port \"{}\" port {} (GUID 0x{:016x})", ep.node.name, ep.port, ep.port_guid),
            "a LID for every cabled adapter port (entries with `portguid 0x...`)",
        ));
    }
    if let Some(s) = (0..topo.switch_count()).find(|&s| !blocks.iter().any(|((b, _), _)| *b as usize == s)) {
        return Err(dump_error(
            file,
            format!("no table for switch \"{}\"", id.switches[s].node.name),
            "a `Unicast lids` table for every switch of the topology",
        ));
    }
    // A switch LID that no line names keeps none: its entries cannot be placed.
    let mut tables = LinearTables::empty(topo.switch_count(), lids.clone());
    for ((s, _), entries) in &blocks {
        let s = *s as usize;
        for &(line, lid, port, _) in entries {
            if lid > tables.top() {
                continue; // a LID no port of this subnet holds
            }
            let ok = port == 0 || map[s].get(port as usize - 1).is_some_and(|u| *u != PortUse::Free);
            if !ok {
                return Err(line_error(
                    file,
                    line,
                    format!("port {port} of switch \"{}\" for LID {lid}", id.switches[s].node.name),
                    format!("a cabled port of the switch (1 to {}) or 0", map[s].len()),
                ));
            }
            tables.set(s, lid, port);
        }
    }
    check_routes(file, &id, &map, &tables, &blocks, unrouted)?;
    Ok(tables)
}

/// Checks that every route the tables hold for an adapter's LID ends at
/// that adapter: no entry leads it to another adapter or to the switch
/// itself (port 0), and no chain of entries goes round in a loop; with
/// [`Unrouted::Refused`], also that the route from every switch an adapter
/// is cabled to has an entry at every switch it crosses. An error names
/// the line of the entry at fault (or the table that lacks one). Linear in
/// switches x adapters: a switch whose route is known is not walked again.
fn check_routes(
    file: &str,
    id: &Identity,
    map: &[Vec<PortUse>],
    tables: &LinearTables,
    blocks: &[((u32, usize), Entries)],
    unrouted: Unrouted,
) -> Result<()> {
    let table_of = |s: usize| blocks.iter().find(|((b, _), _)| *b as usize == s).expect("every switch has a table");
    let line_of = |s: usize, lid: u16| table_of(s).1.iter().rev().find(|e| e.1 == lid).map_or(0, |e| e.0);
    let switch = |s: usize| &id.switches[s].node.name;
    let adapter = |e: usize| format!("adapter \"{}\" port {}", id.endpoints[e].node.name, id.endpoints[e].port);
    let cabled: Vec<bool> = map.iter().map(|ports| ports.iter().any(|u| matches!(u, PortUse::Endpoint(_)))).collect();
    // Per switch, the walk that reached it last, for adapter e: `3e + 1`
    // while walking, `3e + 2` once known to lead there, `3e + 3` to no route.
    let mut mark = vec![0u64; map.len()];
    // For a switch whose route leads to no route: the switch without the entry.
    let mut missing = vec![0usize; map.len()];
    let mut path = Vec::new();
    for (e, &lid) in tables.lids.endpoint.iter().enumerate() {
        let (walking, reaches, dead) = (3 * e as u64 + 1, 3 * e as u64 + 2, 3 * e as u64 + 3);
        for (start, &has_adapters) in cabled.iter().enumerate() {
            let mut s = start;
            path.clear();
            let end = loop {
                if mark[s] == reaches || mark[s] == dead {
                    break mark[s];
                }
                if mark[s] == walking {
                    // Any entry of the loop may be the wrong one: each is named with its line,
                    // and the error's own line is the entry that closes it.
                    let round: Vec<String> = path
                        .iter()
                        .skip_while(|&&p| p != s)
                        .map(|&p| format!("\"{}\" (line {})", switch(p), line_of(p, lid)))
                        .collect();
                    let closing = *path.last().expect("a loop has entries");
                    return Err(line_error(
                        file,
                        line_of(closing, lid),
                        format!("LID {lid} ({}) going round switches {}", adapter(e), round.join(", ")),
                        "routes that reach their adapter (no loop)",
                    ));
                }
                mark[s] = walking;
                path.push(s);
                let port = tables.port(s, lid);
                if port == NO_ROUTE {
                    missing[s] = s;
                    break dead;
                }
                let wrong = |what: String| {
                    line_error(
                        file,
                        line_of(s, lid),
                        format!("port {port} of switch \"{}\" for LID {lid}, {what}", switch(s)),
                        format!("the port toward {}, which LID {lid} is", adapter(e)),
                    )
                };
                match port.checked_sub(1).map(|p| map[s][p as usize]) {
                    None => return Err(wrong("the switch itself".into())),
                    Some(PortUse::Endpoint(to)) if to as usize == e => break reaches,
                    Some(PortUse::Endpoint(to)) => {
                        return Err(wrong(format!("which leads to {}", adapter(to as usize))))
                    }
                    Some(PortUse::Link { to, .. }) => s = to as usize,
                    Some(PortUse::Free) => unreachable!("imported entries name cabled ports"),
                }
            };
            // `s` is where the walk ended: the adapter's switch, a switch without
            // the entry, or one whose route was known; on a route to no entry, the
            // switch without it (read only then).
            let at = missing[s];
            if end == dead && unrouted == Unrouted::Refused && has_adapters {
                let ((_, header), _) = table_of(at);
                return Err(line_error(
                    file,
                    *header,
                    format!(
                        "no entry for LID {lid} ({}) in the table of switch \"{}\", which the route from switch \"{}\" \
                         reaches",
                        adapter(e),
                        switch(at),
                        switch(start)
                    ),
                    "a route from every switch with adapters to every adapter",
                ));
            }
            for &p in &path {
                mark[p] = end;
                missing[p] = at;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::{linear_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn export_reads_back() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }).unwrap();
        let t = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        let text = export(&topo, &t);
        assert!(
            text.starts_with("Unicast lids [0-20] of switch Lid 1 guid 0x0000000000200000 ('Switch0'):\n"),
            "{text}"
        );
        assert!(text.contains("0x0001 000 # Switch portguid 0x0000000000200000: 'Switch0'\n"), "{text}");
        assert_eq!(import(&text, "t.dump", &topo, Unrouted::Refused).unwrap(), t);
        let e = import(&text.replace("0x0002 001", "0x0002 007"), "t.dump", &topo, Unrouted::Refused)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.dump, line 3: port 7 of switch \"Switch0\" for LID 2"), "{e}");
    }

    /// A dump without a switch's table or an adapter's LID is refused with
    /// the dump's name in the message and no key, so the scenario's key
    /// that names the dump is put on the error (it once stood as the key).
    #[test]
    fn a_table_or_lid_missing_from_the_dump_names_the_dump_not_a_key() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }).unwrap();
        let text = export(&topo, &linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap());
        let last_table = text.rfind("Unicast lids").unwrap();
        let no_switch = import(&text[..last_table], "t.dump", &topo, Unrouted::Refused).unwrap_err();
        let no_hca: String =
            text.lines().filter(|l| !l.contains("Channel Adapter")).map(|l| format!("{l}\n")).collect();
        let no_lid = import(&no_hca, "t.dump", &topo, Unrouted::Refused).unwrap_err();
        for (e, found) in
            [(no_switch, "t.dump: no table for switch \"Switch"), (no_lid, "t.dump: no entry names adapter port")]
        {
            assert!(e.key.is_none() && e.message.starts_with(found), "{e:?}");
        }
    }

    /// An entry that sends an adapter's LID to another adapter, to the
    /// switch itself, or round a loop is an error naming its line.
    #[test]
    fn routes_must_reach_their_adapter() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }).unwrap();
        let text = export(&topo, &linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap());
        let line = |n: usize| text.lines().nth(n - 1).unwrap().to_string();
        let err = |from: &str, to: &str| {
            assert!(text.contains(from), "{from} in\n{text}");
            import(&text.replacen(from, to, 1), "t.dump", &topo, Unrouted::Refused).unwrap_err().to_string()
        };
        // Switch0's table (lines 1-22) sends LID 2 (Hca0) out port 1, LID 5 (Hca1) out port 2.
        assert!(line(3).starts_with("0x0002 001 ") && line(6).starts_with("0x0005 002 "), "{text}");
        let e = err("0x0002 001 ", "0x0002 002 ");
        assert!(e.contains("t.dump, line 3: port 2 of switch \"Switch0\" for LID 2, which leads to adapter"), "{e}");
        assert!(e.contains("allowed: the port toward adapter \"Hca0\" port 1, which LID 2 is"), "{e}");
        let e = err("0x0002 001 ", "0x0002 000 ");
        assert!(e.contains("line 3: port 0 of switch \"Switch0\" for LID 2, the switch itself"), "{e}");
        // Switch0 sends LID 8 (Hca2) up to a switch; that one sending it back makes a loop.
        let up = line(9)[7..10].parse::<usize>().unwrap();
        let map = topo.port_map();
        let PortUse::Link { to, .. } = map[0][up - 1] else { panic!("LID 8 leaves Switch0 by a link") };
        let back = map[to as usize].iter().position(|u| matches!(u, PortUse::Link { to: 0, .. })).unwrap() + 1;
        let name = format!("('Switch{to}')");
        let (at, _) = text.lines().enumerate().find(|(_, l)| l.contains(&name)).unwrap();
        let entry = text.lines().skip(at).find(|l| l.starts_with("0x0008 ")).unwrap();
        let e = err(&format!("{entry}\n"), &format!("0x0008 {back:03}{}\n", &entry[10..]));
        let line_to = text.lines().position(|l| l == entry).unwrap() + 1;
        let want = format!(
            "line {line_to}: LID 8 (adapter \"Hca2\" port 1) going round switches \"Switch0\" (line 9), \"Switch{to}\" \
             (line {line_to})"
        );
        assert!(e.contains(&want), "{e}");
        // Without Switch{to}'s entry for LID 8, Switch0's adapters cannot reach Hca2: allowed
        // only to compare tables.
        let unrouted = text.replacen(&format!("{entry}\n"), "", 1);
        assert!(import(&unrouted, "t.dump", &topo, Unrouted::Allowed).is_ok());
        let e = import(&unrouted, "t.dump", &topo, Unrouted::Refused).unwrap_err().to_string();
        let want = format!(
            "line {}: no entry for LID 8 (adapter \"Hca2\" port 1) in the table of switch \"Switch{to}\", which the \
             route from switch \"Switch0\" reaches",
            at + 1
        );
        assert!(e.contains(&want), "{e}");
    }

    /// The memoized walk against a plain one, which follows every route
    /// from every switch for every adapter: on tables with random entries
    /// sent elsewhere, to the switch itself or to no route, both accept
    /// the same tables, allowing unrouted pairs or not.
    #[test]
    fn the_route_check_agrees_with_walking_every_route() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(26);
        let fat = ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() };
        let shapes = [("fat_tree", fat), ("irregular", ShapeParams { seed: 3, ..Default::default() })];
        for (name, params) in shapes {
            let topo = build_shape(name, &params).unwrap();
            let (id, map) = (topo.subnet_identity(), topo.port_map());
            let good = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
            let mut verdicts = [0; 2];
            for _ in 0..300 {
                let mut t = good.clone();
                for _ in 0..rng.random_range(1..4) {
                    let s = rng.random_range(0..map.len());
                    let lid = t.lids.endpoint[rng.random_range(0..t.lids.endpoint.len())];
                    let cabled: Vec<u8> =
                        (0..map[s].len()).filter(|&p| map[s][p] != PortUse::Free).map(|p| p as u8 + 1).collect();
                    let port = match rng.random_range(0..4) {
                        0 => 0,
                        1 => NO_ROUTE,
                        _ => cabled[rng.random_range(0..cabled.len())],
                    };
                    t.set(s, lid, port);
                }
                // Every entry on a line of its own, a table a switch.
                let blocks: Vec<((u32, usize), Entries)> = (0..map.len())
                    .map(|s| {
                        let entries = (1..=t.top()).map(|lid| (0, lid, t.port(s, lid), None)).collect();
                        ((s as u32, 0), entries)
                    })
                    .collect();
                let (all, some) = walk_every_route(&map, &t);
                let checked = check_routes("t.dump", &id, &map, &t, &blocks, Unrouted::Allowed).is_ok();
                assert_eq!(checked, some, "{name}, unrouted allowed");
                let checked = check_routes("t.dump", &id, &map, &t, &blocks, Unrouted::Refused).is_ok();
                assert_eq!(checked, all, "{name}, unrouted refused");
                verdicts[all as usize] += 1;
            }
            assert!(verdicts[0] > 30 && verdicts[1] > 30, "{name}: both kinds of tables drawn ({verdicts:?})");
        }
    }

    /// Whether every route from a switch with adapters reaches its adapter,
    /// and else whether every route that fails does so only for want of an
    /// entry (not into another adapter, the switch itself, or a loop).
    fn walk_every_route(map: &[Vec<PortUse>], t: &LinearTables) -> (bool, bool) {
        let (mut all, mut only_unrouted) = (true, true);
        for (e, &lid) in t.lids.endpoint.iter().enumerate() {
            for start in 0..map.len() {
                let has_adapters = map[start].iter().any(|u| matches!(u, PortUse::Endpoint(_)));
                let mut s = start;
                for hop in 0..=map.len() {
                    match t.port(s, lid) {
                        NO_ROUTE => {
                            all &= !has_adapters;
                            break;
                        }
                        0 => only_unrouted = false,
                        p => match map[s][p as usize - 1] {
                            PortUse::Endpoint(to) if to as usize == e => break,
                            PortUse::Link { to, .. } if hop < map.len() => {
                                s = to as usize;
                                continue;
                            }
                            _ => only_unrouted = false,
                        },
                    }
                    all = false;
                    break;
                }
            }
        }
        (all, only_unrouted)
    }
}
