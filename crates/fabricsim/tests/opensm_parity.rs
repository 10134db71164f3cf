//! The routing engines against OpenSM itself: the shared real clusters and
//! fat tree are handed to ibsim (Debian's `ibsim-utils`), which simulates
//! their management plane, and OpenSM (Debian's `opensm`) routes them and
//! dumps its linear forwarding tables; those are read with the LFT import
//! and compared entry by entry with ours. Nothing OpenSM writes is kept.
//!
//! Each run has a network namespace of its own (`unshare -n`), because
//! ibsim listens on fixed abstract socket names.
//!
//! Where OpenSM, ibsim or a namespace of our own (root) is missing, each
//! test says on stderr that it was not run and why, and passes; with
//! `FABRICSIM_REQUIRE_EXTERNAL=1` (`.ci/run`, which installs them) it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use fabricsim::fabric::import::{find_upwards, load};
use fabricsim::fabric::lft_compare::{compare, Parity};
use fabricsim::fabric::lft_dump::{self, Unrouted};
use fabricsim::fabric::routing::{linear_tables, RoutingParams};
use fabricsim::fabric::{LinearTables, Topology};

const CLUSTER_144: &str = "../shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover";
const CLUSTER_1356: &str = "../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover";
const FAT_TREE: &str = "../shared/data/topologies/fattree-k4-n3-80sw-128hca.net";

const SCRIPT: &str = r#"
set -e
cd "$1"
ibsim -s -n "$2" > ibsim.log 2>&1 &
sim=$!
# Wait for ibsim's control socket (it parses the whole fabric first).
for i in $(seq 600); do grep -q 'sim:ctl' /proc/net/unix && break; sleep 0.05; done
shift 2
OSM_TMP_DIR="$PWD" OSM_CACHE_DIR="$PWD" LD_PRELOAD="$UMAD2SIM" \
    timeout 300 opensm -o -D 0x43 -f "$PWD/osm.log" --dump_files_dir "$PWD" "$@" > osm.out 2>&1 || status=$?
kill $sim
exit ${status:-0}
"#;

/// ibsim's stand-in for the kernel's umad interface, which OpenSM talks through.
const UMAD2SIM: &str = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

/// Whether OpenSM can run here under ibsim; if not, `test` says on stderr
/// (past the harness's capture, so it shows for a passing test) that it was
/// not run and why, or fails where `FABRICSIM_REQUIRE_EXTERNAL=1` requires it.
fn opensm_runs(test: &str) -> bool {
    static MISSING: OnceLock<Option<String>> = OnceLock::new();
    let Some(why) = MISSING.get_or_init(|| missing_tools(&std::env::var_os("PATH").unwrap_or_default())) else {
        return true;
    };
    let required = std::env::var("FABRICSIM_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
    assert!(!required, "{test}: {why}, and FABRICSIM_REQUIRE_EXTERNAL=1 requires OpenSM and ibsim");
    let _ = writeln!(
        std::io::stderr(),
        "opensm_parity::{test}: NOT RUN: {why} (as root: apt-get install opensm ibsim-utils, as .ci/run does)"
    );
    false
}

/// What keeps OpenSM from running under ibsim here with `path` as PATH, if anything.
fn missing_tools(path: &std::ffi::OsStr) -> Option<String> {
    let on_path = |tool: &str| std::env::split_paths(path).any(|d| d.join(tool).is_file());
    if let Some(tool) = ["opensm", "ibsim", "unshare"].into_iter().find(|t| !on_path(t)) {
        return Some(format!("`{tool}` is not on the PATH"));
    }
    if !Path::new(UMAD2SIM).is_file() {
        return Some(format!("{UMAD2SIM} (ibsim-utils) is missing"));
    }
    let own_namespace = Command::new("unshare").args(["-n", "true"]).output();
    if !own_namespace.is_ok_and(|o| o.status.success()) {
        return Some("`unshare -n` cannot make a network namespace (it needs root)".into());
    }
    None
}

/// A machine without the tools is told what is missing (here: no PATH at all).
#[test]
fn without_opensm_the_tests_name_what_is_missing() {
    let empty = std::env::temp_dir().join(format!("fabricsim-no-tools-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(missing_tools(empty.as_os_str()).as_deref(), Some("`opensm` is not on the PATH"));
    std::fs::remove_dir(&empty).unwrap();
}

/// OpenSM's `opensm-lfts.dump` for the fabric in `net`, run with `args`.
fn opensm_lfts(net: &str, args: &[&str]) -> String {
    opensm_dumps(net, args, &[]).remove(0)
}

/// OpenSM's `opensm-lfts.dump` and the other dump files named in `more`.
fn opensm_dumps(net: &str, args: &[&str], more: &[&str]) -> Vec<String> {
    let net: PathBuf = find_upwards(net).unwrap_or_else(|_| panic!("{net} not found"));
    let dir = std::env::temp_dir().join(format!(
        "fabricsim-opensm-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("unshare")
        .args(["-n", "sh", "-c", SCRIPT, "opensm-run"])
        .env("UMAD2SIM", UMAD2SIM)
        .arg(&dir)
        .arg(net.canonicalize().unwrap())
        .args(args)
        .output()
        .expect("unshare runs (the tests need root, ibsim-utils and opensm: see .ci/run)");
    let log = std::fs::read_to_string(dir.join("osm.out")).unwrap_or_default();
    let dumps: Vec<std::io::Result<String>> =
        ["opensm-lfts.dump"].iter().chain(more).map(|f| std::fs::read_to_string(dir.join(f))).collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "opensm failed: {}{}\n{log}", String::from_utf8_lossy(&out.stderr), out.status);
    dumps.into_iter().map(|d| d.unwrap_or_else(|e| panic!("a dump is missing ({e}): {log}"))).collect()
}

fn parity(topo: &Topology, ours: &LinearTables, dump: &str, what: &str) -> Parity {
    let theirs = lft_dump::import(dump, "opensm-lfts.dump", topo, Unrouted::Allowed).unwrap();
    let p = compare(topo, ours, &theirs);
    println!(
        "{what}: {} entries, same port {:.2}%, same hops {:.2}%; routes per link port: ours max {} mean {:.1} \
         Jain {:.3} ({} of {} ports used), OpenSM max {} mean {:.1} Jain {:.3} ({} used)",
        p.entries,
        100.0 * p.same_port_share(),
        100.0 * p.same_hops_share(),
        p.ours.max_routes,
        p.ours.mean_routes,
        p.ours.jain,
        p.ours.used_ports,
        p.ours.link_ports,
        p.theirs.max_routes,
        p.theirs.mean_routes,
        p.theirs.jain,
        p.theirs.used_ports,
    );
    p
}

/// minhop: every entry of every switch, ports and LIDs as OpenSM's.
#[test]
fn min_hop_is_opensms_minhop_on_the_shared_fabrics() {
    if !opensm_runs("min_hop_is_opensms_minhop_on_the_shared_fabrics") {
        return;
    }
    for file in [CLUSTER_144, FAT_TREE, CLUSTER_1356] {
        let topo = load(file, "file").unwrap();
        let ours = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        let dump = opensm_lfts(file, &["-R", "minhop"]);
        let p = parity(&topo, &ours, &dump, &format!("minhop {file}"));
        assert_eq!((p.same_port, p.same_hops), (p.entries, p.entries), "{file}");
        assert_eq!(p.ours, p.theirs);
        // And the LIDs are OpenSM's, so the dumps agree line by line.
        let theirs = lft_dump::import(&dump, "opensm-lfts.dump", &topo, Unrouted::Allowed).unwrap();
        assert_eq!(theirs.lids, ours.lids, "{file}");
        let ours_text = lft_dump::export(&topo, &ours);
        let first_difference = ours_text.lines().zip(dump.lines()).position(|(a, b)| a != b);
        assert_eq!(
            first_difference,
            None,
            "{file}: {:?}",
            first_difference.map(|i| (ours_text.lines().nth(i), dump.lines().nth(i)))
        );
        assert_eq!(ours_text.len(), dump.len(), "{file}");
    }
}

/// A generated fabric exported as a net file: ibsim gives it the GUIDs and
/// OpenSM the LIDs and routes this crate assumed for it.
#[test]
fn a_generated_fat_tree_exports_as_opensm_sees_it() {
    if !opensm_runs("a_generated_fat_tree_exports_as_opensm_sees_it") {
        return;
    }
    use fabricsim::fabric::import::export_net;
    use fabricsim::fabric::shapes::{build_shape, ShapeParams};
    let topo = build_shape("fat_tree", &ShapeParams { arity: Some(4), levels: Some(3), ..Default::default() }).unwrap();
    let path = std::env::temp_dir().join(format!("fabricsim-tree-{}.net", std::process::id()));
    std::fs::write(&path, export_net(&topo)).unwrap();
    let dump = opensm_lfts(path.to_str().unwrap(), &["-R", "minhop"]);
    std::fs::remove_file(&path).unwrap();
    let ours = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
    assert_eq!(lft_dump::export(&topo, &ours), dump);
}

/// updn from the roots OpenSM picks for itself, which are those ours finds
/// without `roots`: the same hop counts and ports wherever OpenSM keeps to
/// the up/down rule; its tables break the rule on the 1356-HCA cluster, ours
/// never do.
#[test]
fn updn_from_opensms_roots_follows_the_rule_opensm_bends() {
    if !opensm_runs("updn_from_opensms_roots_follows_the_rule_opensm_bends") {
        return;
    }
    use fabricsim::fabric::routing::updn::{down_up_turns, opensm_roots, Ranks};
    for file in [CLUSTER_144, FAT_TREE, CLUSTER_1356] {
        let topo = load(file, "file").unwrap();
        let mut dumps = opensm_dumps(file, &["-R", "updn"], &["opensm-updn-roots.dump"]);
        let (roots_text, dump) = (dumps.pop().unwrap(), dumps.pop().unwrap());
        let id = topo.subnet_identity();
        let roots: Vec<u32> = roots_text
            .lines()
            .map(|l| u64::from_str_radix(l.trim().trim_start_matches("0x"), 16).unwrap())
            .map(|g| id.switches.iter().position(|s| s.node.guid == g).unwrap() as u32)
            .collect();
        let mut sorted = roots.clone();
        sorted.sort_unstable();
        assert_eq!(opensm_roots(&topo), sorted, "{file}");
        let params = RoutingParams { roots: Some(roots.clone()), ..RoutingParams::default() };
        let ours = linear_tables("updn", &topo, &params).unwrap();
        // Without roots, the ones OpenSM finds: the same tables.
        assert_eq!(linear_tables("updn", &topo, &RoutingParams::default()).unwrap(), ours, "{file}");
        let p = parity(&topo, &ours, &dump, &format!("updn ({} roots) {file}", roots.len()));
        let theirs = lft_dump::import(&dump, "opensm-lfts.dump", &topo, Unrouted::Allowed).unwrap();
        let ranks = Ranks::new(&topo, &fabricsim::fabric::routing::switch_links(&topo), &roots);
        let (our_turns, their_turns) = (down_up_turns(&topo, &ours, &ranks), down_up_turns(&topo, &theirs, &ranks));
        println!("  down-then-up turns: ours {our_turns}, OpenSM {their_turns}");
        assert_eq!(our_turns, 0, "{file}");
        assert_eq!(p.ours.unrouted_pairs, 0, "{file}");
        let verdict = fabricsim::fabric::deadlock::analyze(&topo, &ours.to_forwarding_tables()).unwrap();
        assert!(verdict.acyclic, "{file}");
        if their_turns == 0 {
            assert_eq!((p.same_port, p.same_hops), (p.entries, p.entries), "{file}");
        }
    }
}

/// Irregular networks (the study's kind, 30 switches) rooted at switch 0, and
/// random ones rooted at switches 0-3: ours keep to the rule and route every
/// pair; OpenSM's agree entry for entry except where it breaks the rule, takes
/// a link between roots as up both ways, or misses a legal route.
#[test]
fn updn_on_irregular_networks_and_where_opensm_differs() {
    if !opensm_runs("updn_on_irregular_networks_and_where_opensm_differs") {
        return;
    }
    use fabricsim::fabric::import::export_net;
    use fabricsim::fabric::routing::updn::{down_up_turns, Ranks};
    use fabricsim::fabric::shapes::{build_shape, ShapeParams};
    let dir = std::env::temp_dir().join(format!("fabricsim-irregular-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let roots_file = dir.join("roots");
    let (mut broken, mut networks) = (0, 0);
    for (kind, seed, roots) in
        (1..=12u64).map(|s| ("irregular", s, vec![0u32])).chain((1..=12).map(|s| ("random", s, vec![0, 1, 2, 3])))
    {
        std::fs::write(&roots_file, roots.iter().map(|r| format!("0x{:x}\n", 0x200000 + r)).collect::<String>())
            .unwrap();
        let shape = ShapeParams { switches: Some(30), seed, ..ShapeParams::default() };
        let topo = build_shape(kind, &shape).unwrap();
        let net = dir.join(format!("irregular-{seed}.net"));
        std::fs::write(&net, export_net(&topo)).unwrap();
        let dump = opensm_lfts(net.to_str().unwrap(), &["-R", "updn", "-a", roots_file.to_str().unwrap()]);
        let params = RoutingParams { roots: Some(roots.clone()), ..RoutingParams::default() };
        let ours = linear_tables("updn", &topo, &params).unwrap();
        let p = parity(&topo, &ours, &dump, &format!("updn {kind} seed {seed} roots {roots:?}"));
        let theirs = lft_dump::import(&dump, "opensm-lfts.dump", &topo, Unrouted::Allowed).unwrap();
        let ranks = Ranks::new(&topo, &fabricsim::fabric::routing::switch_links(&topo), &roots);
        let (our_turns, their_turns) = (down_up_turns(&topo, &ours, &ranks), down_up_turns(&topo, &theirs, &ranks));
        println!("  down-then-up turns: ours {our_turns}, OpenSM {their_turns}");
        assert_eq!(our_turns, 0);
        assert!(fabricsim::fabric::deadlock::analyze(&topo, &ours.to_forwarding_tables()).unwrap().acyclic);
        networks += 1;
        // OpenSM takes a link between two roots as up both ways (its
        // `updn_get_dir`); the rule makes one direction down.
        let roots_joined = topo.links.iter().any(|l| roots.contains(&l.a) && roots.contains(&l.b));
        // Its search from each destination keeps one direction per switch,
        // so it can also miss legal routes altogether.
        let misses = p.theirs.unrouted_pairs > 0;
        if their_turns > 0 || p.same_hops < p.entries {
            broken += 1;
            println!(
                "  OpenSM: {their_turns} turns, {} unrouted pairs, roots joined: {roots_joined}",
                p.theirs.unrouted_pairs
            );
            assert!(their_turns > 0 || roots_joined || misses, "{kind} seed {seed}: OpenSM differs for another reason");
        }
        if !roots_joined && their_turns == 0 && !misses {
            assert_eq!((p.same_port, p.same_hops), (p.entries, p.entries), "{kind} seed {seed}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    println!("OpenSM's updn differs from the rule on {broken} of {networks} networks");
}

/// ftree on fat trees (the shared file, and generated k-ary n-trees and a
/// Clos tree exported for ibsim): every entry names OpenSM's port, which
/// its counters decide from the routes before it; the balance of both is
/// printed beside each other.
#[test]
fn ftree_is_opensms_fat_tree_engine_port_for_port() {
    if !opensm_runs("ftree_is_opensms_fat_tree_engine_port_for_port") {
        return;
    }
    use fabricsim::fabric::import::export_net;
    use fabricsim::fabric::shapes::{build_shape, ShapeParams};
    let dir = std::env::temp_dir().join(format!("fabricsim-ftree-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases = vec![(FAT_TREE.to_string(), FAT_TREE.to_string(), load(FAT_TREE, "file").unwrap())];
    for (name, shape, p) in [
        ("4-ary 3-tree", "fat_tree", ShapeParams { arity: Some(4), levels: Some(3), ..Default::default() }),
        ("2-ary 3-tree", "fat_tree", ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }),
        ("4-ary 4-tree", "fat_tree", ShapeParams { arity: Some(4), levels: Some(4), ..Default::default() }),
        (
            "3-level Clos of 8-port switches, 2:1",
            "clos",
            ShapeParams { radix: Some(8), levels: Some(3), oversubscription: Some(2.0), ..Default::default() },
        ),
    ] {
        let topo = build_shape(shape, &p).unwrap();
        let net = dir.join(format!("{}.net", name.replace([' ', ':', ','], "-")));
        std::fs::write(&net, export_net(&topo)).unwrap();
        cases.push((name.to_string(), net.display().to_string(), parse_file(&net)));
    }
    for (name, file, topo) in cases {
        let dump = opensm_lfts(&file, &["-R", "ftree"]);
        let ours = linear_tables("ftree", &topo, &RoutingParams::default()).unwrap();
        let p = parity(&topo, &ours, &dump, &format!("ftree {name}"));
        assert_eq!((p.same_port, p.same_hops), (p.entries, p.entries), "{name}");
        assert_eq!((p.ours.unrouted_pairs, p.theirs.unrouted_pairs), (0, 0));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn parse_file(path: &std::path::Path) -> Topology {
    fabricsim::fabric::import::parse(&std::fs::read_to_string(path).unwrap(), "net").unwrap()
}
