//! The fabric an `[ib]` scenario describes, in `fabric/` terms: its
//! topology (from the shape registry, or the scenario's own cables) and the
//! linear forwarding tables of its routing. Data traffic takes the tables of
//! `ib.routing.algorithm`; control traffic (VL15) always takes SPF tables,
//! the shortest path, as seed 003 section 4 specifies.

use crate::error::{Error, Result};
use crate::fabric::routing::multipath::{multipath_tables, MultipathTables};
use crate::fabric::routing::spf::next_switches;
use crate::fabric::routing::{endpoint_tables, LaneChoice, RoutingParams, Ties};
use crate::fabric::shapes::{build_shape, ShapeParams};
use crate::fabric::topology::{EndpointKind, Topology};
use crate::fabric::{import, lft_dump, EndpointTables, Routes};
use crate::ib::link::IbLink;
use crate::scenario::ib::{IbRouting, IbSpec, IbTopologyKind, SpfTies};

/// Seed 003's switches have 5 ports.
pub const PAPER_SWITCH_PORTS: u32 = 5;

/// The topology of an `[ib]` scenario, checked: port budgets, connectivity,
/// at least two HCAs.
pub fn topology(spec: &IbSpec) -> Result<Topology> {
    let t = &spec.topology;
    let params = ShapeParams {
        section: "ib.topology".into(),
        radix_key: "ib.topology.ports".into(),
        radix: t.ports,
        endpoint_kind: EndpointKind::ChannelAdapter,
        switches: t.switches,
        nodes: t.hcas.clone(),
        links: t.links,
        arity: t.arity,
        levels: t.levels.or(Some(3)),
        seed: t.seed,
        ..ShapeParams::default()
    };
    let topo = match t.kind {
        IbTopologyKind::Irregular | IbTopologyKind::Random => build_shape(
            if t.kind == IbTopologyKind::Irregular { "irregular" } else { "random" },
            &ShapeParams { radix: Some(t.ports.unwrap_or(PAPER_SWITCH_PORTS)), levels: None, ..params },
        )?,
        IbTopologyKind::FatTree => build_shape("fat_tree", &ShapeParams { nodes: None, ..params })?,
        IbTopologyKind::Clos => build_shape(
            "clos",
            &ShapeParams {
                nodes: None,
                levels: t.levels,
                hcas_per_leaf: t.hcas_per_leaf,
                oversubscription: t.oversubscription,
                ..params
            },
        )?,
        IbTopologyKind::Custom => custom(spec)?,
        IbTopologyKind::Import => {
            let file = t.file.as_deref().expect("validated: an imported topology names its file");
            import::load(file, "ib.topology.file").map_err(|e| keyed(e, "ib.topology.file"))?
        }
    };
    check(&topo, t.ports)?;
    Ok(topo)
}

/// The rate of every switch port's cable (the same at both ends of it), and
/// the reference rate offered loads are fractions of.
pub struct LinkRates {
    pub reference: IbLink,
    /// Per switch, per port (free ports included).
    pub ports: Vec<Vec<IbLink>>,
}

/// Every cable at `ib.link`, or, for an imported subnet with `ib.link =
/// "import"` (its default), at the width and speed its file gives (1xSDR
/// where it gives none); the reference is then its slowest HCA link.
pub fn link_rates(spec: &IbSpec, topo: &Topology) -> Result<LinkRates> {
    let every = |link: IbLink| topo.radix.iter().map(|&r| vec![link; r as usize]).collect();
    if !spec.links_from_file() {
        let link = IbLink::parse(spec.link_name()).map_err(|e| e.with_key("ib.link"))?;
        return Ok(LinkRates { reference: link, ports: every(link) });
    }
    let file = spec.topology.file.as_deref().expect("validated: rates from a file only for imported topologies");
    let id = topo.identity.as_ref().expect("imported topologies have an identity");
    let parse = |rate: &Option<String>| -> Result<IbLink> {
        match rate {
            None => Ok(IbLink::PAPER),
            Some(r) => IbLink::parse(r).map_err(|_| {
                Error::invalid(
                    "ib.topology.file",
                    format!("\"{file}\": a cable at \"{r}\""),
                    "cables at a width (1x, 4x, 8x, 12x) and speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR), \
                     or ib.link set to the one rate to run every cable at",
                )
            }),
        }
    };
    let mut ports: Vec<Vec<IbLink>> = every(IbLink::PAPER);
    for (l, rates) in topo.links.iter().zip(&id.lane_rates) {
        for (&(pa, pb), r) in l.lanes.iter().zip(rates) {
            let link = parse(r)?;
            ports[l.a as usize][pa as usize] = link;
            ports[l.b as usize][pb as usize] = link;
        }
    }
    let mut reference: Option<IbLink> = None;
    for (e, r) in topo.endpoints.iter().zip(&id.endpoint_rates) {
        let link = parse(r)?;
        ports[e.switch as usize][e.port as usize] = link;
        if reference.is_none_or(|s| link.data_bits_per_second() < s.data_bits_per_second()) {
            reference = Some(link);
        }
    }
    Ok(LinkRates { reference: reference.unwrap_or(IbLink::PAPER), ports })
}

/// A custom topology: parallel cables between one pair become lanes of one link.
fn custom(spec: &IbSpec) -> Result<Topology> {
    let t = &spec.topology;
    let hcas = t.hcas.clone().expect("validated: custom topologies list their HCAs");
    let ports = t.ports.unwrap_or(PAPER_SWITCH_PORTS);
    let mut groups: std::collections::BTreeMap<(u32, u32), u32> = std::collections::BTreeMap::new();
    for &[a, b] in t.cables.iter().flatten() {
        *groups.entry((a.min(b) - 1, a.max(b) - 1)).or_default() += 1;
    }
    let groups: Vec<(u32, u32, u32)> = groups.into_iter().map(|((a, b), m)| (a, b, m)).collect();
    Ok(Topology::canonical(vec![ports; hcas.len()], &hcas, EndpointKind::ChannelAdapter, &groups))
}

/// Port budgets (a switch with more links and HCAs than ports), at least
/// two HCAs, and every HCA reachable from every other.
fn check(topo: &Topology, ports: Option<u32>) -> Result<()> {
    let (per_switch, link_ports) = (topo.endpoints_per_switch(), topo.link_ports_per_switch());
    for s in 0..topo.switch_count() as u32 {
        let (links, hcas, radix) = (link_ports[s as usize], per_switch[s as usize], topo.radix[s as usize]);
        if links + hcas > radix {
            return Err(Error::invalid(
                "ib.topology.cables",
                format!(
                    "switch {} with {links} link{} and {hcas} HCA{}: {} ports",
                    s + 1,
                    if links == 1 { "" } else { "s" },
                    if hcas == 1 { "" } else { "s" },
                    links + hcas
                ),
                format!(
                    "at most {radix} ports per switch (ib.topology.ports{})",
                    if ports.is_none() { ", default 5" } else { "" }
                ),
            ));
        }
    }
    if topo.endpoint_count() < 2 {
        return Err(Error::invalid("ib.topology.hcas", topo.endpoint_count(), "at least 2 HCAs in the fabric"));
    }
    let first = topo.endpoints[0].switch;
    let d = topo.distances_from(first);
    if let Some(e) = topo.endpoints.iter().position(|e| d[e.switch as usize] == u32::MAX) {
        let s = topo.endpoints[e].switch;
        return Err(Error::invalid(
            "ib.topology.cables",
            format!("HCA {e} on switch {}, which no cable joins to switch {} (HCA 0)", s + 1, first + 1),
            "a connected fabric: every HCA reachable from every other",
        ));
    }
    Ok(())
}

/// The data tables (by `ib.routing`) and the control tables (SPF), a port
/// byte per switch and HCA.
pub fn tables(spec: &IbSpec, topo: &Topology) -> Result<(EndpointTables, EndpointTables)> {
    let n = topo.switch_count() as u32;
    if let Some(r) = spec.routing.root.filter(|&r| r > n) {
        return Err(Error::invalid("ib.routing.root", r, format!("a switch of the fabric, 1 to {n}")));
    }
    if let Some(r) = spec.routing.roots.iter().flatten().find(|&&r| r > n) {
        return Err(Error::invalid("ib.routing.roots", r, format!("switches of the fabric, 1 to {n}")));
    }
    let params = routing_params(spec);
    let control = endpoint_tables("spf", topo, &RoutingParams { root: None, roots: None, ..params.clone() })?;
    let data = match spec.routing_algorithm() {
        IbRouting::Imported => imported_tables(spec, topo)?.to_endpoint_tables(),
        // Multipath packets take the multipath tables; the linear ones are
        // SPF's, the default the study's flag bit selects.
        IbRouting::Multipath => control.clone(),
        other => endpoint_tables(other.name(), topo, &params)?,
    };
    Ok((data, control))
}

/// Multipath routing's tables (`ib.routing.algorithm = "multipath"`), the
/// cycles found from BFS root `ib.routing.root` (default switch 1), in at
/// most `budget_bytes`.
pub fn multipath(spec: &IbSpec, topo: &Topology, budget_bytes: u64) -> Result<MultipathTables> {
    let ties = match spec.routing.spf_ties() {
        SpfTies::Balanced => Ties::Balanced,
        SpfTies::Lowest => Ties::Lowest,
    };
    let spf = next_switches(topo, ties);
    let root = spec.routing.root.map_or(0, |r| r - 1);
    multipath_tables(topo, root, spec.routing.slack.unwrap_or(DEFAULT_SLACK), &spf, budget_bytes)
}

/// Paths up to this many hops longer than the shortest fill multipath tables.
pub const DEFAULT_SLACK: u32 = 2;

/// An error about the contents of a file `key` names, put under that key.
fn keyed(e: Error, key: &str) -> Error {
    if e.key.is_some() {
        e
    } else {
        e.with_key(key)
    }
}

/// The routing parameters of the scenario (switches counted from 0).
fn routing_params(spec: &IbSpec) -> RoutingParams {
    RoutingParams {
        section: "ib.routing".into(),
        selector: "algorithm".into(),
        lanes: LaneChoice::Deterministic,
        // The scenario counts switches from 1, the routing code from 0.
        root: spec.routing.root.map(|r| r - 1),
        ties: match spec.routing.spf_ties() {
            SpfTies::Balanced => Ties::Balanced,
            SpfTies::Lowest => Ties::Lowest,
        },
        roots: spec.routing.roots.as_ref().map(|r| r.iter().map(|&r| r - 1).collect()),
    }
}

/// The tables of `ib.routing.lft_file`.
fn imported_tables(spec: &IbSpec, topo: &Topology) -> Result<crate::fabric::LinearTables> {
    let file = spec.routing.lft_file.as_deref().expect("validated: imported routing names its dump");
    let text = import::read_found(file, "ib.routing.lft_file", "OpenSM LFT dump")?;
    lft_dump::import(&text, file, topo, lft_dump::Unrouted::Refused).map_err(|e| keyed(e, "ib.routing.lft_file"))
}

/// The fabric of an `[ib]` scenario as text: `"net"` (an ibnetdiscover
/// dump, as ibsim reads it), `"dot"` (Graphviz) or `"lfts"` (the data
/// routing's linear forwarding tables as OpenSM dumps them).
pub fn export(spec: &IbSpec, format: &str) -> Result<String> {
    let topo = topology(spec)?;
    match format {
        "net" => Ok(import::export_net(&topo)),
        "dot" => Ok(import::export_dot(&topo)),
        "lfts" => Ok(lft_dump::export(&topo, &linear(spec, &topo)?)),
        _ => Err(Error::invalid("format", format!("\"{format}\""), "net, dot or lfts")),
    }
}

/// The data routing's tables keyed by LID.
fn linear(spec: &IbSpec, topo: &Topology) -> Result<crate::fabric::LinearTables> {
    match spec.routing_algorithm() {
        IbRouting::Imported => imported_tables(spec, topo),
        _ => {
            let (data, _) = tables(spec, topo)?;
            match spec.routing_algorithm().name() {
                // Engines that route switch LIDs too: their own tables.
                name @ ("min_hop" | "updn") => crate::fabric::routing::linear_tables(name, topo, &routing_params(spec)),
                _ => Ok(crate::fabric::LinearTables::from_forwarding_tables(
                    &data,
                    crate::fabric::lids::Lids::assign(topo)?,
                )),
            }
        }
    }
}

/// What `fabricsim routing` prints for an `[ib]` scenario: the network, every
/// switch's ports and linear forwarding table (data traffic), and the channel
/// dependency verdict (a cycle for SPF where one exists; Up*/Down* acyclic).
pub fn routing_report(spec: &IbSpec) -> Result<serde_json::Value> {
    let topo = topology(spec)?;
    let (data, _) = tables(spec, &topo)?;
    let (switches, deps) = crate::fabric::report::switch_tables(&topo, &data.to_forwarding_tables(), "HCA")?;
    let rates = link_rates(spec, &topo)?;
    Ok(serde_json::json!({
        "kind": spec.topology.kind,
        "terminal_nodes": topo.endpoint_count(),
        "trunks": topo.links.iter().map(|l| serde_json::json!([l.a + 1, l.b + 1, l.multiplicity()])).collect::<Vec<_>>(),
        "paths": spec.routing_algorithm(),
        "root": spec.routing_algorithm().has_root().then(|| spec.routing.root.unwrap_or(1)),
        "mean_hops": data.mean_hops(&topo)?,
        "uniform_saturation": uniform_saturation(&topo, &data, &rates),
        "multipath_saturation": multipath_saturation(spec, &topo, &rates)?,
        "switches": switches,
        "channel_dependencies": deps,
        "channel_dependencies_per_vl": per_vl(spec, &topo, &data)?,
    }))
}

/// Multipath routing's uniform-traffic bound with random path bits
/// (`fabric::routing::multipath_bound`, 4096 settings per pair), where
/// the routing is multipath and every cable runs at one rate; else null.
fn multipath_saturation(spec: &IbSpec, topo: &Topology, rates: &LinkRates) -> Result<serde_json::Value> {
    if spec.routing_algorithm() != IbRouting::Multipath || rates.ports.iter().flatten().any(|&r| r != rates.reference) {
        return Ok(serde_json::Value::Null);
    }
    let tables = multipath(spec, topo, u64::MAX)?;
    Ok(match crate::fabric::routing::multipath_bound::random_bits_bound(topo, &tables, 4096) {
        Some(b) => serde_json::json!({
            "injection_rate": b.injection_rate,
            "busiest_output": {"switch": b.busiest.0 + 1, "port": b.busiest.1, "pairs": b.pairs},
        }),
        None => serde_json::Value::Null,
    })
}

/// The deadlock verdict on each data VL the workload uses (imported tables
/// included): `[{"vl": v, "acyclic": ..., "cycle": [...]}]`.
fn per_vl(spec: &IbSpec, topo: &Topology, data: &EndpointTables) -> Result<serde_json::Value> {
    let vls: Vec<u8> = spec.data_vls_in_use().into_iter().map(|v| v as u8).collect();
    let reports = crate::fabric::deadlock::analyze_per_lane(topo, data, &vls)?;
    Ok(reports
        .into_iter()
        .map(|(vl, r)| serde_json::json!({"vl": vl, "acyclic": r.acyclic, "cycle": r.cycle}))
        .collect())
}

/// The routing's uniform-traffic saturation bound (`fabric::saturation`),
/// as a share of the reference rate, each output at its cable's rate, with
/// the switch output where it binds (switches from 1).
pub fn uniform_saturation(topo: &Topology, tables: &impl Routes, rates: &LinkRates) -> serde_json::Value {
    let reference = rates.reference.data_bits_per_second();
    let capacity = |s: u32, p: u16| rates.ports[s as usize][p as usize].data_bits_per_second() / reference;
    match crate::fabric::saturation::uniform_bound_at(topo, tables, capacity) {
        Some(b) => serde_json::json!({
            "injection_rate": b.injection_rate,
            "busiest_output": {"switch": b.busiest.0 + 1, "port": b.busiest.1, "pairs": b.pairs},
        }),
        None => serde_json::Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::lft_dump;
    use crate::fabric::routing::linear_tables;
    use crate::scenario::Scenario;

    const CLUSTER_144: &str = "../shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover";
    const FAT_TREE: &str = "../shared/data/topologies/fattree-k4-n3-80sw-128hca.net";

    fn spec(text: &str) -> IbSpec {
        Scenario::from_toml_str(text, "t.toml").unwrap().infiniband().unwrap().clone()
    }

    #[test]
    fn an_imported_fabric_keeps_its_ports_and_its_cables_rates() {
        let s = spec(&format!("[ib]\nlink = \"4xSDR\"\n[ib.topology]\nkind = \"import\"\nfile = \"{FAT_TREE}\"\n"));
        let topo = topology(&s).unwrap();
        assert_eq!((topo.switch_count(), topo.endpoint_count()), (80, 128));
        // Switch0's port [1] goes to Switch16's port [5]: topology ports 0 and 4.
        assert_eq!(topo.port_map()[0][0], crate::fabric::PortUse::Link { to: 16, lane: 0 });
        assert_eq!(topo.peer_ports()[0][0], Some(4));
        // The 144-HCA cluster cables its switches at 4xFDR10 and its HCAs at
        // 4xQDR: each cable runs at its own rate, the HCAs' is the reference.
        let (qdr, fdr10) = (IbLink::parse("4xQDR").unwrap(), IbLink::parse("4xFDR10").unwrap());
        let s = spec(&format!("[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER_144}\"\n"));
        assert_eq!(s.link.as_deref(), Some("import"), "the default for an imported topology");
        let topo = topology(&s).unwrap();
        let rates = link_rates(&s, &topo).unwrap();
        assert_eq!(rates.reference, qdr);
        let map = topo.port_map();
        let mut seen = std::collections::HashMap::new();
        for (row, uses) in rates.ports.iter().zip(&map) {
            for (&link, u) in row.iter().zip(uses) {
                match u {
                    crate::fabric::PortUse::Link { .. } => assert_eq!(link, fdr10),
                    crate::fabric::PortUse::Endpoint(_) => assert_eq!(link, qdr),
                    crate::fabric::PortUse::Free => continue,
                }
                *seen.entry(link.to_string()).or_insert(0) += 1;
            }
        }
        // 94 FDR10 cable ends between switches, a QDR link per HCA port (145: one HCA has two cabled).
        assert_eq!((seen["4xFDR10"], seen["4xQDR"]), (94, topo.endpoint_count() as usize));
        // An explicit ib.link runs every cable at it.
        let s = spec(&format!("[ib]\nlink = \"4xEDR\"\n[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER_144}\"\n"));
        let rates = link_rates(&s, &topology(&s).unwrap()).unwrap();
        let edr = IbLink::parse("4xEDR").unwrap();
        assert_eq!(rates.reference, edr);
        assert!(rates.ports.iter().flatten().all(|&l| l == edr));
        // The saturation bound weighs each output's pairs against its cable's rate.
        let bound = |link: &str| {
            let s = spec(&format!(
                "{link}[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER_144}\"\n[ib.routing]\nalgorithm = \"min_hop\"\n"
            ));
            routing_report(&s).unwrap()["uniform_saturation"].clone()
        };
        let (file, qdr) = (bound(""), bound("[ib]\nlink = \"4xQDR\"\n"));
        // Both bind on an FDR10 trunk (472 of the 145 x 144 pairs between
        // the 145 HCA ports), which carries 40 Gbit/s against the HCAs' 32:
        // 1.25 times the share.
        assert_eq!(file["busiest_output"], qdr["busiest_output"]);
        assert_eq!(qdr["injection_rate"].as_f64().unwrap(), 144.0 / 472.0);
        let (f, q) = (file["injection_rate"].as_f64().unwrap(), qdr["injection_rate"].as_f64().unwrap());
        assert!((f / q - 1.25).abs() < 1e-12, "{f} against {q}");
    }

    #[test]
    fn the_deadlock_check_runs_per_vl_on_imported_tables() {
        // SPF on the first of seed 003's irregular networks where it closes a
        // cycle; written out as a dump and read back, the imported tables show
        // it on every VL in use.
        let dir = std::env::temp_dir().join(format!("fabricsim-vl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (topo, spf) = (1..100)
            .map(|seed| {
                let s = spec(&format!("[ib.topology]\nseed = {seed}\n"));
                let topo = topology(&s).unwrap();
                let (spf, _) = tables(&s, &topo).unwrap();
                (topo, spf)
            })
            .find(|(topo, spf)| !crate::fabric::deadlock::analyze(topo, spf).unwrap().acyclic)
            .expect("SPF closes a cycle on some irregular network");
        let net = dir.join("net");
        std::fs::write(&net, import::export_net(&topo)).unwrap();
        let dump = dir.join("lfts");
        let lids = crate::fabric::lids::Lids::assign(&topo).unwrap();
        std::fs::write(
            &dump,
            lft_dump::export(&topo, &crate::fabric::LinearTables::from_forwarding_tables(&spf, lids)),
        )
        .unwrap();
        let imported = spec(&format!(
            "[ib]\ndata_vls = 4\n[ib.workload]\nreal_time_sls = [1]\nbest_effort_sls = [2, 6]\n[ib.topology]\nkind = \"import\"\n\
             file = \"{}\"\n[ib.routing]\nalgorithm = \"imported\"\nlft_file = \"{}\"\n",
            net.display(),
            dump.display()
        ));
        let r = routing_report(&imported).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let direct = crate::fabric::deadlock::analyze(&topo, &spf).unwrap();
        let per_vl = r["channel_dependencies_per_vl"].as_array().unwrap();
        // SLs 1, 2 and 6 on VLs 1, 2 and 2 (6 mod 4).
        assert_eq!(per_vl.iter().map(|v| v["vl"].as_u64().unwrap()).collect::<Vec<_>>(), vec![1, 2]);
        for v in per_vl {
            assert_eq!(v["acyclic"].as_bool(), Some(direct.acyclic));
        }
        assert!(!direct.acyclic);
        assert!(per_vl[1]["cycle"][0].as_str().unwrap().ends_with("on VL 2"));
    }

    #[test]
    fn clos_fabrics_take_adapters_per_leaf_and_oversubscription() {
        let s = spec("[ib.topology]\nkind = \"clos\"\nports = 8\nhcas_per_leaf = 6\noversubscription = 3\n");
        let topo = topology(&s).unwrap();
        assert_eq!((topo.endpoint_count(), topo.switch_count()), (48, 10));
        let e =
            Scenario::from_toml_str("[ib.topology]\nkind = \"fat_tree\"\nhcas_per_leaf = 6\n", "t.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.topology.hcas_per_leaf"));
        let s = spec("[ib.topology]\nkind = \"clos\"\nports = 8\nhcas_per_leaf = 6\noversubscription = 4\n");
        assert_eq!(topology(&s).unwrap_err().key.as_deref(), Some("ib.topology.hcas_per_leaf"));
    }

    #[test]
    fn imported_forwarding_tables_route_as_the_dump_says() {
        // Our own minhop tables, written as OpenSM writes them, read back.
        let dir = std::env::temp_dir().join(format!("fabricsim-lft-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dump = dir.join("opensm-lfts.dump");
        let base = format!("[ib]\nlink = \"4xSDR\"\n[ib.topology]\nkind = \"import\"\nfile = \"{FAT_TREE}\"\n");
        let s = spec(&base);
        let topo = topology(&s).unwrap();
        let ours = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        std::fs::write(&dump, lft_dump::export(&topo, &ours)).unwrap();
        let s = spec(&format!("{base}[ib.routing]\nalgorithm = \"imported\"\nlft_file = \"{}\"\n", dump.display()));
        let (data, _) = tables(&s, &topo).unwrap();
        assert_eq!(data, ours.to_endpoint_tables());
        std::fs::remove_dir_all(&dir).unwrap();
        let e =
            Scenario::from_toml_str(&format!("{base}[ib.routing]\nalgorithm = \"imported\"\n"), "t.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.routing.lft_file"));
    }
}
