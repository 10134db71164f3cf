//! Congestion control with no opensm.conf (the Mellanox Congestion Control
//! Manager's documented defaults, with the model's declared table and
//! timer), and each flow's recorded series of CCTI and throughput.

mod common;

use common::{conf, parking_lot, run, section, shares};
use fabricsim::{RunReport, Scenario};

/// Without a file, control is on with the vendor's documented settings:
/// the switches mark one eligible packet in 11 at threshold 15, every SL's
/// flows react per flow, and the table is the model's (128 entries).
#[test]
fn no_file_takes_the_vendor_defaults() {
    let r = run(&parking_lot("[ib.congestion_control]\n", 5));
    let s = section(&r);
    assert_eq!(s["enabled"], true);
    let m = &s["switch_marking"];
    assert_eq!(
        (m["threshold"].as_u64(), m["marking_rate"].as_u64(), m["packet_size_credits"].as_u64()),
        (Some(15), Some(10), Some(8))
    );
    let h = &s["hca_reaction"];
    assert_eq!((h["per"].as_str(), h["ccti_limit"].as_u64()), (Some("flow"), Some(127)));
    assert_eq!(h["sls"].as_array().map(|a| a.len()), Some(16));
    let marked = r.counter("fecn_marked").expect("marked");
    assert!(marked > 0 && r.counter("becn_received").expect("BECNs") > 0, "{s}");
    assert!(h["series"].is_null(), "no series unless asked");
}

/// The parking lot under the vendor's settings: threshold 15 counts an
/// output busy with one packet as congested, so one packet in 11 of a busy
/// output is marked whatever waits behind it, and a flow's CCTI follows its
/// own share of the link. With the model's timer the split moves a third of
/// the way from the inputs' round robin (0.25, 0.25, 0.5) towards a third
/// each, D's link as busy as without control
/// (docs/infiniband-congestion-control.md, section 3).
#[test]
fn the_vendor_defaults_even_the_parking_lot_partly() {
    let path = conf("defaults-off", "cc_ca_cong_setting_control_map 0\n");
    let off =
        run(&parking_lot(&format!("[ib.congestion_control]\ndefaults = \"mellanox\"\nopensm_conf = \"{path}\"\n"), 60));
    let on = run(&parking_lot("[ib.congestion_control]\n", 60));
    let delivered = |r: &RunReport| r.counter("best_effort_packets_delivered").expect("delivered");
    assert_eq!(delivered(&on), delivered(&off), "D's link as busy");
    let (a, b, c) = (shares(&on)[0], shares(&on)[1], shares(&on)[2]);
    assert!(c < 0.46 && c > 0.40 && (a - b).abs() < 0.01 && a > 0.27, "{:?}", shares(&on));
}

/// The series records, per flow and interval, the packets sent, their
/// share of the link, the CCTI that spaced them and the BECNs that came;
/// asking for it adds no event and changes nothing the run measures.
#[test]
fn the_series_adds_nothing_and_sums_to_what_was_sent() {
    let plain = run(&parking_lot("[ib.congestion_control]\n", 10));
    let with = run(&parking_lot("[ib.congestion_control]\nseries_us = 500\n", 10));
    let counters = |r: &RunReport| serde_json::to_string(&r.counters).expect("counters serialize");
    assert_eq!(counters(&plain), counters(&with), "the series changes no counter");
    let metrics = |r: &RunReport| format!("{:?}", r.metrics);
    assert_eq!(metrics(&plain), metrics(&with), "nor any metric");
    let series = &section(&with)["hca_reaction"]["series"];
    assert_eq!(series["interval_us"].as_f64(), Some(500.0));
    let cols: Vec<&str> = series["columns"].as_array().expect("columns").iter().map(|c| c.as_str().unwrap()).collect();
    let col = |name: &str| cols.iter().position(|&c| c == name).expect(name);
    let rows = series["rows"].as_array().expect("rows");
    // Three flows (A, B and C to D) over 20 intervals of 500 us.
    let flows: std::collections::BTreeSet<(u64, i64)> =
        rows.iter().map(|r| (r[col("hca")].as_u64().unwrap(), r[col("dst")].as_i64().unwrap())).collect();
    assert_eq!(flows.into_iter().collect::<Vec<_>>(), vec![(0, 2), (1, 2), (3, 2)]);
    assert!(rows.len() <= 3 * 20 && rows.len() >= 3 * 19, "{} rows", rows.len());
    let sent: f64 = rows.iter().map(|r| r[col("packets")].as_f64().unwrap()).sum();
    let by_hca: f64 = section(&with)["hca_reaction"]["data_packets_sent_by_hca"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v[1].as_f64().unwrap())
        .sum();
    assert_eq!(sent, by_hca, "every data packet sent is in one row");
    for r in rows {
        let share = r[col("link_share")].as_f64().unwrap();
        assert!((0.0..=1.0 + 1e-9).contains(&share), "a flow's share of its link: {r}");
        assert!(r[col("max_ccti")].as_u64().unwrap() <= 127);
    }
    assert!(rows.iter().any(|r| r[col("max_ccti")].as_u64().unwrap() > 0), "some flow was slowed");
}

/// The options of an opensm.conf given in the scenario run as the file
/// does, so a sweep can set them with --set.
#[test]
fn options_in_the_scenario_are_the_file_s() {
    let lines = "congestion_control TRUE\ncc_sw_cong_setting_control_map 0x15\ncc_sw_cong_setting_threshold 8\n\
                 cc_sw_cong_setting_marking_rate 0\ncc_ca_cong_setting_control_map 0x100\n\
                 cc_ca_cong_setting_ccti_timer 8 20\ncc_ca_cong_setting_ccti_increase 8 1\ncc_cct 0:0,2:1,2:2,2:3,2:4\n";
    let path = conf("options", lines);
    let by_file = run(&parking_lot(&format!("[ib.congestion_control]\nopensm_conf = \"{path}\"\n"), 5));
    let by_options = run(&parking_lot(
        "[ib.congestion_control]\ndefaults = \"opensm\"\n\
         [ib.congestion_control.options]\ncongestion_control = \"TRUE\"\ncc_sw_cong_setting_control_map = \"0x15\"\n\
         cc_sw_cong_setting_threshold = 8\ncc_sw_cong_setting_marking_rate = 0\ncc_ca_cong_setting_control_map = 256\n\
         cc_ca_cong_setting_ccti_timer = [\"8 20\"]\ncc_ca_cong_setting_ccti_increase = [\"8 1\"]\n\
         cc_cct = \"0:0,2:1,2:2,2:3,2:4\"\n",
        5,
    ));
    let counters = |r: &RunReport| serde_json::to_string(&r.counters).expect("counters serialize");
    assert_eq!(counters(&by_file), counters(&by_options));
    assert!(by_file.counter("becn_received").expect("BECNs") > 0);
}

/// Bad values name the key, the value and what is allowed.
#[test]
fn bad_congestion_keys_are_clear_errors() {
    let cases = [
        ("series_us = -1\n", "ib.congestion_control.series_us", "0 < value"),
        ("series_us = 0\n", "ib.congestion_control.series_us", "0 < value"),
        ("defaults = \"opensm\"\n", "ib.congestion_control.defaults", "mellanox"),
        ("options = { routing_engine = \"updn\" }\n", "ib.congestion_control.options.routing_engine", "cc_cct"),
        (
            "options = { cc_sw_cong_setting_threshold = 16 }\n",
            "ib.congestion_control.options.cc_sw_cong_setting_threshold",
            "0 to 15",
        ),
        (
            "options = { cc_ca_cong_setting_ccti_timer = \"20\" }\n",
            "ib.congestion_control.options.cc_ca_cong_setting_ccti_timer",
            "SL",
        ),
        (
            "options = { cc_sw_cong_setting_threshold = [8, 15] }\n",
            "ib.congestion_control.options.cc_sw_cong_setting_threshold",
            "a number, a string",
        ),
    ];
    for (line, key, allowed) in cases {
        let toml = parking_lot(&format!("[ib.congestion_control]\n{line}"), 1);
        let e = Scenario::from_toml_str(&toml, "cc.toml").and_then(|s| fabricsim::run(&s).map(|_| ())).expect_err(line);
        let text = e.to_string();
        assert!(text.contains(key) && text.contains(allowed), "{line}: {text}");
    }
    let toml = parking_lot("[ib.congestion_control]\ndefaults = \"vendor\"\n", 1);
    let e = Scenario::from_toml_str(&toml, "cc.toml").expect_err("an unknown defaults").to_string();
    assert!(e.contains("defaults") && e.contains("mellanox") && e.contains("opensm"), "{e}");
}

/// On a fabric large enough that the event loop asks for the next event's
/// lines ahead (the real 1,356-HCA cluster), the HCAs' wake-ups under
/// congestion control are events like any other: the run completes and
/// every packet is accounted for.
#[test]
fn control_runs_on_the_real_cluster() {
    let toml = "[run]\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\nprecision = 0\n\
                max_time_ms = 0.2\n[ib]\nlink = \"4xQDR\"\non_deadlock = \"continue\"\n[ib.topology]\nkind = \"import\"\n\
                file = \"../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover\"\n\
                [ib.routing]\nalgorithm = \"updn\"\n[ib.workload]\ninjection_rate = 0.3\nreal_time_share = 0\n\
                control_period_ms = 0\npattern = \"hot_spot\"\nhot_spot_share = 0.05\nbest_effort_sls = [8]\n\
                [ib.congestion_control]\noptions = { cc_sw_cong_setting_marking_rate = 0 }\n";
    let r = run(toml);
    assert!(r.counter("becn_received").expect("BECNs") > 0, "the HCAs reacted");
    assert!(r.counter("best_effort_packets_delivered").expect("delivered") > 0);
}
