//! Congestion control at the switches (IBA Annex A10, as an opensm.conf
//! configures it): marking changes nothing but the packets' FECN bit, so a
//! run marks and otherwise runs bit for bit as without it; the marking rate,
//! packet size and victim mask act as docs/infiniband-congestion-control.md
//! declares; the PMA's clocks run where a port waits; and what the model
//! does not do yet is refused, naming the option.

mod common;

use common::{conf, counter, run, section};
use fabricsim::Scenario;

/// Two switches, two HCAs each (HCAs 0-1 on switch 1, 2-3 on switch 2):
/// HCAs 0, 1 and 3 send best-effort traffic to HCA 2 at 60% of the link
/// each, so switch 2's port to HCA 2 is the congestion's root and switch
/// 1's port to switch 2, held back by credit, its victim.
fn base(cc: &str) -> String {
    format!(
        "[run]\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\nprecision = 0\n\
         max_time_ms = 1\n\
         [ib.topology]\nkind = \"custom\"\nhcas = [2, 2]\ncables = [[1, 2]]\n\
         [ib.workload]\ninjection_rate = 0.6\nreal_time_share = 0\ncontrol_period_ms = 0\n\
         pattern = \"incast\"\nincast_target = 2\n{cc}"
    )
}

fn marking(name: &str, threshold: u32, rate: u32, packet_size: u32, victims: &str) -> String {
    let path = conf(
        name,
        &format!(
            "# congestion control, switches only\ncongestion_control TRUE\ncc_sw_cong_setting_control_map 0x15\n\
             cc_sw_cong_setting_victim_mask {victims}\ncc_sw_cong_setting_threshold {threshold}\n\
             cc_sw_cong_setting_marking_rate {rate}\ncc_sw_cong_setting_packet_size {packet_size}\n\
             cc_ca_cong_setting_control_map 0\nsm_priority 1\n"
        ),
    );
    format!("[ib.congestion_control]\nopensm_conf = \"{path}\"\n")
}

/// Marking sets a bit and nothing else: every metric is what the run
/// without congestion control measures, bit for bit. Every marked packet
/// that arrived was counted at its HCA; the rest are still in flight.
#[test]
fn marking_changes_only_the_fecn_bit() {
    let off = run(&base(""));
    let on = run(&base(&marking("bit", 15, 0, 8, "0")));
    assert_eq!(format!("{:?}", off.metrics), format!("{:?}", on.metrics));
    let (marked, received) = (counter(&on, "fecn_marked"), counter(&on, "fecn_received"));
    let in_flight = counter(&on, "packets_in_flight");
    assert!(marked > 100, "the root marks: {marked}");
    assert!(received <= marked && received + in_flight >= marked, "{received} of {marked} ({in_flight} in flight)");
    assert!(off.counter("fecn_marked").is_none(), "no congestion counters without congestion control");
    let s = section(&on);
    assert!(s["vl_congested"].as_array().is_some_and(|v| !v.is_empty()), "{s}");
    assert_eq!(s["not_modelled"], serde_json::json!(["sm_priority"]));
}

/// After a marked packet, `Marking_Rate` eligible packets go unmarked: the
/// traffic is the same whatever the rate, so a rate of 3 marks a quarter
/// of what a rate of 0 marks, plus at most one per port and VL where a
/// count ends early; a `Packet_Size` above every packet marks none.
#[test]
fn the_rate_and_the_packet_size_decide_which_eligible_packets_are_marked() {
    let every = counter(&run(&base(&marking("every", 15, 0, 8, "0"))), "fecn_marked");
    let quarter = counter(&run(&base(&marking("quarter", 15, 3, 8, "0"))), "fecn_marked");
    // Two switches of three ports, one VL of best-effort per packet's SL: at most 6 x 15 port-VLs.
    assert!(quarter * 4 >= every && quarter <= every / 4 + 90, "rate 3 marked {quarter} of {every}");
    assert_eq!(counter(&run(&base(&marking("big", 15, 0, 255, "0"))), "fecn_marked"), 0);
}

/// Switch 1's port to switch 2 waits for credit (PortXmitWait runs) and,
/// its VL full, is a victim: it marks only where the victim mask names it,
/// so marking there too marks more. The least aggressive threshold (1:
/// fifteen sixteenths of the buffer) marks less than the most (15).
#[test]
fn victims_mark_only_where_the_mask_says_and_the_threshold_sets_how_full() {
    let roots = run(&base(&marking("roots", 15, 0, 8, "0")));
    let victims = run(&base(&marking("victims", 15, 0, 8, "0xFFFF")));
    let wait = section(&roots)["port_xmit_wait_us"].as_f64().expect("a PortXmitWait");
    assert!(wait > 10.0, "switch 1's trunk waited {wait} us for credit in a 1 ms run");
    let (r, v) = (counter(&roots, "fecn_marked"), counter(&victims, "fecn_marked"));
    assert!(v > r, "victims marked too: {v} against {r}");
    let lenient = counter(&run(&base(&marking("lenient", 1, 0, 8, "0"))), "fecn_marked");
    assert!(lenient < r, "threshold 1 marked {lenient}, threshold 15 {r}");
}

/// Under `root = "no_credit_wait"` a port is a victim when it waited for
/// credit since its last packet, not when the packet leaves no credit for
/// another: with every port marking as a victim too the reading cannot
/// matter (the same marks), and with none it does (switch 1's trunk waits).
#[test]
fn the_root_reading_decides_only_where_victims_do_not_mark() {
    let no_wait = "root = \"no_credit_wait\"\n";
    let all =
        |name: &str, extra: &str| counter(&run(&base(&(marking(name, 15, 0, 8, "0xFFFF") + extra))), "fecn_marked");
    assert_eq!(all("all-left", ""), all("all-wait", no_wait));
    let roots = |name: &str, extra: &str| counter(&run(&base(&(marking(name, 15, 0, 8, "0") + extra))), "fecn_marked");
    let (left, wait) = (roots("roots-left", ""), roots("roots-wait", no_wait));
    assert!(wait != left && wait > 0, "credit left: {left} marked; no credit wait: {wait}");
}

fn refused(cc_text: &str, name: &str) -> String {
    let path = conf(name, cc_text);
    let toml = base(&format!("[ib.congestion_control]\nopensm_conf = \"{path}\"\n"));
    match Scenario::from_toml_str(&toml, "cc.toml") {
        Ok(s) => fabricsim::run(&s).err().map(|e| e.to_string()).unwrap_or_default(),
        Err(e) => e.to_string(),
    }
}

/// What the model cannot do (credit starvation) is refused, naming the
/// file, option and value; a file that is not there names the key.
#[test]
fn what_is_not_modelled_is_refused_never_ignored() {
    let e = refused(
        "congestion_control TRUE\ncc_sw_cong_setting_control_map 0x2\ncc_sw_cong_setting_credit_mask 0x4\n",
        "cm",
    );
    assert!(e.contains("cc_sw_cong_setting_credit_mask") && e.contains("credit starvation"), "{e}");
    let e = refused("congestion_control TRUE\ncc_sw_cong_setting_threshold 16\n", "range");
    assert!(e.contains("cc_sw_cong_setting_threshold") && e.contains(":2"), "{e}");
    let toml = base("[ib.congestion_control]\nopensm_conf = \"no/such/opensm.conf\"\n");
    let e = Scenario::from_toml_str(&toml, "cc.toml").map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("ib.congestion_control.opensm_conf") && e.contains("no/such/opensm.conf"), "{e}");
    // Off in the file: no marking, the settings still reported.
    let off = run(&base(&format!(
        "[ib.congestion_control]\nopensm_conf = \"{}\"\n",
        conf("off", "congestion_control FALSE\ncc_sw_cong_setting_control_map 0x15\ncc_sw_cong_setting_threshold 15\n")
    )));
    assert_eq!(counter(&off, "fecn_marked"), 0);
    assert_eq!(section(&off)["enabled"], serde_json::json!(false));
}
