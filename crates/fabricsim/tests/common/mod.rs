//! What the congestion-control tests share: the two-switch parking lot,
//! a temporary opensm.conf, a run, and the report's congestion section.
#![allow(dead_code)] // each test file uses its own part

use fabricsim::{RunReport, Scenario};
use serde_json::Value;

/// Two switches, two HCAs each (HCAs 0-1 on switch 1, 2-3 on switch 2):
/// HCAs 0, 1 and 3 (A, B and C) send best-effort traffic to HCA 2 (D) at
/// 60% of the link each on SL 8, 180% of what D's link carries: the
/// parking lot, three flows, for `ms` milliseconds, with `cc` appended.
pub fn parking_lot(cc: &str, ms: u32) -> String {
    format!(
        "[run]\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\nprecision = 0\n\
         max_time_ms = {ms}\n\
         [ib.topology]\nkind = \"custom\"\nhcas = [2, 2]\ncables = [[1, 2]]\n\
         [ib.workload]\ninjection_rate = 0.6\nreal_time_share = 0\ncontrol_period_ms = 0\n\
         pattern = \"incast\"\nincast_target = 2\nbest_effort_sls = [8]\n{cc}"
    )
}

/// An opensm.conf holding `text` in the temporary directory, named by the
/// test (`name`) and the process; its path.
pub fn conf(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("fabricsim-cc-{}-{name}.conf", std::process::id()));
    std::fs::write(&path, text).expect("temporary opensm.conf written");
    path.display().to_string()
}

pub fn run(toml: &str) -> RunReport {
    let s = Scenario::from_toml_str(toml, "cc.toml").unwrap_or_else(|e| panic!("valid scenario: {e}\n{toml}"));
    fabricsim::run(&s).unwrap_or_else(|e| panic!("run succeeds: {e}\n{toml}"))
}

pub fn counter(r: &RunReport, k: &str) -> i64 {
    r.counter(k).unwrap_or_else(|| panic!("no counter {k}"))
}

/// The report's `congestion_control` section.
pub fn section(r: &RunReport) -> &Value {
    &r.sections.iter().find(|(k, _)| k == "congestion_control").expect("a congestion_control section").1
}

/// Each reacting HCA's share of the data packets the HCAs sent, in HCA order.
pub fn shares(r: &RunReport) -> Vec<f64> {
    let sent: Vec<f64> = section(r)["hca_reaction"]["data_packets_sent_by_hca"]
        .as_array()
        .expect("packets per HCA")
        .iter()
        .map(|v| v[1].as_f64().expect("a count"))
        .collect();
    let total: f64 = sent.iter().sum();
    sent.iter().map(|n| n / total).collect()
}
