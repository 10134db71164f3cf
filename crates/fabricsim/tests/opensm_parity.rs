//! The routing engines against OpenSM itself: the shared real clusters and
//! fat tree are handed to ibsim (Debian's `ibsim-utils`), which simulates
//! their management plane, and OpenSM (Debian's `opensm`) routes them and
//! dumps its linear forwarding tables; those are read with the LFT import
//! and compared entry by entry with ours. Nothing OpenSM writes is kept.
//!
//! Each run has a network namespace of its own (`unshare -n`), because
//! ibsim listens on fixed abstract socket names.

use std::path::PathBuf;
use std::process::Command;

use fabricsim::fabric::import::{find_upwards, load};
use fabricsim::fabric::lft_compare::{compare, Parity};
use fabricsim::fabric::routing::{linear_tables, RoutingParams};
use fabricsim::fabric::{lft_dump, LinearTables, Topology};

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
OSM_TMP_DIR="$PWD" OSM_CACHE_DIR="$PWD" LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \
    timeout 300 opensm -o -D 0x43 -f "$PWD/osm.log" --dump_files_dir "$PWD" "$@" > osm.out 2>&1 || status=$?
kill $sim
exit ${status:-0}
"#;

/// OpenSM's `opensm-lfts.dump` for the fabric in `net`, run with `args`.
fn opensm_lfts(net: &str, args: &[&str]) -> String {
    let net: PathBuf = find_upwards(net).unwrap_or_else(|_| panic!("{net} not found"));
    let dir = std::env::temp_dir().join(format!(
        "fabricsim-opensm-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("unshare")
        .args(["-n", "sh", "-c", SCRIPT, "opensm-run"])
        .arg(&dir)
        .arg(net.canonicalize().unwrap())
        .args(args)
        .output()
        .expect("unshare runs (the tests need root, ibsim-utils and opensm: see .ci/run)");
    let dump = std::fs::read_to_string(dir.join("opensm-lfts.dump"));
    let log = std::fs::read_to_string(dir.join("osm.out")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "opensm failed: {}{}\n{log}", String::from_utf8_lossy(&out.stderr), out.status);
    dump.unwrap_or_else(|e| panic!("no LFT dump ({e}): {log}"))
}

fn parity(topo: &Topology, ours: &LinearTables, dump: &str, what: &str) -> Parity {
    let theirs = lft_dump::import(dump, "opensm-lfts.dump", topo).unwrap();
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
    for file in [CLUSTER_144, FAT_TREE, CLUSTER_1356] {
        let topo = load(file, "file").unwrap();
        let ours = linear_tables("min_hop", &topo, &RoutingParams::default()).unwrap();
        let dump = opensm_lfts(file, &["-R", "minhop"]);
        let p = parity(&topo, &ours, &dump, &format!("minhop {file}"));
        assert_eq!((p.same_port, p.same_hops), (p.entries, p.entries), "{file}");
        assert_eq!(p.ours, p.theirs);
        // And the LIDs are OpenSM's, so the dumps agree line by line.
        let theirs = lft_dump::import(&dump, "opensm-lfts.dump", &topo).unwrap();
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
