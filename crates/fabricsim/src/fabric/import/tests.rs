//! Reading, checking and writing back subnet files.

use super::*;
use crate::fabric::identity::SmPort;
use crate::fabric::shapes::{build_shape, ShapeParams};
use crate::fabric::topology::{Link, PortUse};

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
    let ft = build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(3), ..Default::default() }).unwrap();
    let back = parse(&export_net(&ft), "ft.net").unwrap();
    assert_eq!(
        (back.radix.clone(), back.endpoints.clone(), back.links.clone()),
        (ft.radix.clone(), ft.endpoints.clone(), ft.links.clone())
    );
    assert_eq!(*back.identity.unwrap(), *ft.subnet_identity());
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

#[test]
fn a_guid_given_twice_is_refused_with_both_lines() {
    // Two switches with one GUID: an LFT dump keyed by switch GUID could not tell their tables apart.
    let twice = SMALL.replace("Switch\t8 \"S-b\"", "switchguid=0x10\nSwitch\t8 \"S-b\"");
    let e = err(&twice);
    assert!(e.contains("t.net, line 8: GUID 0x10 of switch \"S-b\", which line 2 gives switch \"S-a\""), "{e}");
    assert!(e.contains("allowed: a node GUID of its own for every switch and channel adapter"), "{e}");
    // An adapter whose GUID a switch has (here by ibsim's counter: S-b follows S-a's 0x10).
    let e = err(&SMALL.replace("caguid=0x20", "caguid=0x11"));
    assert!(e.contains("line 13: GUID 0x11 of channel adapter \"H-x\", which line 7 gives switch \"S-b\""), "{e}");
    // The LFT dump of a fabric with unique GUIDs reads back.
    let t = parse(SMALL, "t.net").unwrap();
    let lfts = crate::fabric::routing::linear_tables("min_hop", &t, &Default::default()).unwrap();
    let text = crate::fabric::lft_dump::export(&t, &lfts);
    crate::fabric::lft_dump::import(&text, "t.lfts", &t, crate::fabric::lft_dump::Unrouted::Refused).unwrap();
}
