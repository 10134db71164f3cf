//! Congestion control at the HCAs (IBA Annex A10, as an opensm.conf
//! configures it): a destination answers each packet marked with FECN with
//! a CNP to its source, through the fabric; the source's flow raises its
//! CCTI per BECN and spaces its packets by the congestion control table, so
//! the queue moves out of the fabric into the sources while the congested
//! link stays busy. Every packet, CNPs included, is accounted for.

mod common;

use common::{conf, counter, parking_lot, run, section, shares};
use fabricsim::RunReport;

/// An opensm.conf marking at `threshold` on every port; `ca`: the HCAs'
/// lines (empty: they do not react).
fn opensm(name: &str, threshold: u32, ca: &str) -> String {
    let text = format!(
        "congestion_control TRUE\ncc_sw_cong_setting_control_map 0x15\ncc_sw_cong_setting_threshold {threshold}\n\
         cc_sw_cong_setting_marking_rate 0\ncc_sw_cong_setting_packet_size 8\n{ca}"
    );
    format!("[ib.congestion_control]\nopensm_conf = \"{}\"\n", conf(name, &text))
}

/// Every SL reacts, per flow: CCTI +1 per BECN, -1 every `timer` x 1.024
/// us; entry i of the table waits i/4 packet times after a packet.
fn reacting(timer: u32) -> String {
    let mut ca = String::from("cc_ca_cong_setting_port_control 0\ncc_ca_cong_setting_control_map 0xFFFF\n");
    for sl in 0..16 {
        ca += &format!("cc_ca_cong_setting_ccti_timer {sl} {timer}\ncc_ca_cong_setting_ccti_increase {sl} 1\n");
        ca += &format!("cc_ca_cong_setting_trigger_threshold {sl} 4\n");
    }
    let cct: Vec<String> = (0..64).map(|i| format!("2:{i}")).collect();
    ca + &format!("cc_cct {}\n", cct.join(","))
}

/// One CNP per marked packet received, and each becomes a BECN at its
/// source (those still queued or on their way aside); the run's audit
/// (every packet delivered, dropped or in flight, CNPs included) holds.
#[test]
fn every_marked_packet_is_answered_and_every_packet_accounted_for() {
    let r = run(&parking_lot(&opensm("answer", 15, &reacting(20)), 2));
    let (received, sent, becns) =
        (counter(&r, "fecn_received"), counter(&r, "cnps_sent"), counter(&r, "becn_received"));
    assert!(received > 100, "marked packets arrive: {received}");
    assert!(sent <= received && sent + 4 >= received, "a CNP per marked packet: {sent} of {received}");
    assert!(becns <= sent && becns + 8 >= sent, "the CNPs reach their sources: {becns} of {sent}");
    assert!(counter(&r, "ccti_triggers") > 0, "the flows' CCTIs pass the trigger threshold");
    let s = section(&r);
    assert_eq!(s["hca_reaction"]["per"], "flow", "{s}");
    assert_eq!(s["hca_reaction"]["ccti_limit"], 63, "{s}");
    // What each HCA received, CNPs aside: every data packet delivered, all of them to D (HCA 2).
    let by_hca = &s["hca_reaction"]["packets_received_by_hca"];
    assert_eq!(by_hca[0][0], 2, "{by_hca}");
    assert_eq!(by_hca[0][1].as_i64(), Some(counter(&r, "best_effort_packets_delivered")), "{by_hca}");
}

/// Marking alone leaves the fabric to hold the excess: switch 1's trunk
/// waits for credit half the time. With the sources reacting at threshold
/// 8 (a VL's queue, its output buffer and the input heads waiting for it,
/// at half a VL buffer), the packets wait in the sources instead: the
/// credit waits fall by more than half while HCA 2's link delivers as
/// much. Counting the output buffer alone, this switch (whose buffer holds
/// about a packet) marks nothing at threshold 8; at 15 it marks every
/// packet of a busy output and the flows throttle far below the link.
#[test]
fn reacting_sources_take_the_queue_out_of_the_fabric() {
    let wait = |r: &RunReport| section(r)["port_xmit_wait_us"].as_f64().expect("PortXmitWait");
    let delivered = |r: &RunReport| counter(r, "best_effort_packets_delivered") as f64;
    let marking = run(&parking_lot(&opensm("mark", 8, ""), 10));
    let react = run(&parking_lot(&opensm("react", 8, &reacting(20)), 10));
    let (w_mark, w_react) = (wait(&marking), wait(&react));
    assert!(w_mark > 2_000.0, "the trunk waits for credit without the sources reacting: {w_mark} us of 10 ms");
    assert!(w_react < 0.5 * w_mark, "PortXmitWait {w_react} us reacting against {w_mark} us marking only");
    assert!(
        delivered(&react) >= 0.95 * delivered(&marking),
        "HCA 2's link stays busy: {} against {} packets",
        delivered(&react),
        delivered(&marking)
    );
    let buffer_only = |name: &str, threshold: u32| {
        let cc = opensm(name, threshold, &reacting(150)) + "queue = \"output_buffer\"\n";
        run(&parking_lot(&cc, 10))
    };
    assert_eq!(counter(&buffer_only("b8", 8), "fecn_marked"), 0);
    let b15 = buffer_only("b15", 15);
    assert!(delivered(&b15) < 0.5 * delivered(&marking), "over-throttled: {} packets", delivered(&b15));
}

/// Runs with the sources reacting are deterministic: the same scenario, the same bits.
#[test]
fn reacting_runs_are_deterministic() {
    let toml = parking_lot(&opensm("same", 8, &reacting(5)), 1);
    let outcome = |r: RunReport| format!("{:?}{:?}", r.counters, r.metrics);
    assert_eq!(outcome(run(&toml)), outcome(run(&toml)));
}

/// The parking lot (Gran et al., IPDPS 2010): A and B (HCAs 0 and 1)
/// reach switch 2 over one trunk, C (HCA 3) on its own port, all to D (HCA
/// 2), each offering 60% of a link for 20 ms. Switch 2 serves its two
/// inputs in turn, so without throttling D's link splits 1/2 to the trunk,
/// 1/4 each for A and B, and 1/2 to C (here the flows queue per flow but
/// no SL they use is controlled). With every flow marked at the same rate
/// per packet and throttled per flow (threshold 8, CCTI timer 20.5 us,
/// entry i a gap of i/4 packet times), each gets about a third while D's
/// link stays busy: 0.346, 0.340 and 0.315 of 97% of the link; within 10%
/// of a third here, not yet the 5% the experiment asks (a timer of 10 us
/// leaves C 0.41, of 41 us takes D's link to 94.5% and C to 0.25).
#[test]
fn the_parking_lot_splits_by_inputs_without_throttling_and_by_flows_with_it() {
    let shares = |name: &str, ca: &str| {
        let r = run(&parking_lot(&opensm(name, 8, ca), 20));
        let s = shares(&r);
        assert_eq!(s.len(), 3, "A, B and C sent: {}", section(&r));
        (s, counter(&r, "best_effort_packets_delivered") as f64)
    };
    let (off, d_off) = shares("pl-off", "cc_ca_cong_setting_port_control 0\ncc_ca_cong_setting_control_map 0x8000\n");
    for (share, want) in off.iter().zip([0.25, 0.25, 0.5]) {
        assert!((share - want).abs() < 0.02 * want, "without throttling {off:?}");
    }
    let (on, d_on) = shares("pl-on", &reacting(20));
    assert!(on.iter().all(|s| (s - 1.0 / 3.0).abs() < 0.1 / 3.0), "with throttling {on:?}");
    assert!(d_on >= 0.95 * d_off, "D's link stays busy: {d_on} packets against {d_off}");
}
