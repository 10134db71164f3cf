//! Video at its source HCA. Frames enter whole or paced
//! (`ib.workload.video_injection`): a paced frame's packets leave over its
//! period, each a message of its own, and the frame keeps its delay from
//! its release, its deadline and its damage when a switch drops one of its
//! packets. The HCA's buffer is shared by its SL queues or one per SL
//! (`ib.hca.buffer_scope`): per SL, a best-effort backlog cannot refuse video.

use fabricsim::{RunReport, Scenario};

fn run(toml: &str) -> RunReport {
    let sc = Scenario::from_toml_str(toml, "video.toml").unwrap_or_else(|e| panic!("valid scenario: {e}\n{toml}"));
    fabricsim::run(&sc).unwrap_or_else(|e| panic!("run succeeds: {e}\n{toml}"))
}

fn mean(r: &RunReport, name: &str) -> f64 {
    r.metric(name).unwrap_or_else(|| panic!("metric {name}")).mean
}

fn count(r: &RunReport, name: &str) -> u64 {
    r.counter(name).unwrap_or_else(|| panic!("counter {name}")) as u64
}

/// Seed 003's 15-switch network at 20%, video only, 70 ms simulated.
const LIGHT: &str = "[run]\nwarmup_observations = 0\nmax_observations = 100000000\nmin_observations = 0\n\
                     precision = 0\nmax_time_ms = 70.0\n[ib.workload]\ninjection_rate = 0.2\nreal_time_share = 1.0\n";

/// At light load a whole frame waits at its source behind its own packets
/// and the other streams' frames; paced, its packets meet an idle link, so
/// the real-time packet latency falls to about a header per switch and a
/// packet time, while the frame's delay from its release grows to most of
/// its period (its last packet leaves a k-th of a period before the next
/// frame). Every paced message is one packet; nothing is refused or lost,
/// and every packet injected is delivered or still in flight.
#[test]
fn paced_frames_leave_over_their_period_and_keep_their_delay_from_release() {
    let whole = run(&format!("{LIGHT}video_injection = \"whole\"\n"));
    let paced = run(&format!("{LIGHT}video_injection = \"paced\"\n"));
    let period_us = 1e6 / 30.0;
    assert!(mean(&whole, "frame_delay_us") < 0.1 * period_us, "{}", mean(&whole, "frame_delay_us"));
    let delay = mean(&paced, "frame_delay_us");
    assert!(delay > 0.5 * period_us && delay < period_us, "paced frame delay {delay} us");
    let (w, p) = (mean(&whole, "real_time_latency_us"), mean(&paced, "real_time_latency_us"));
    assert!(p < 30.0 && p < 0.2 * w, "real-time latency whole {w} us, paced {p} us");
    assert_eq!(count(&paced, "real_time_messages_generated"), count(&paced, "real_time_packets_injected"));
    assert_eq!(count(&paced, "real_time_messages_refused"), 0);
    assert_eq!(count(&paced, "frames_missed"), 0);
    assert!(count(&paced, "frames_delivered") > 500, "{}", count(&paced, "frames_delivered"));
    for r in [&whole, &paced] {
        let classes = |what: &str| {
            ["real_time", "best_effort", "control"].iter().map(|c| count(r, &format!("{c}_{what}"))).sum::<u64>()
        };
        assert_eq!(classes("packets_injected"), classes("packets_delivered") + count(r, "packets_in_flight"));
    }
    // At most one more event per packet at the source.
    assert!(paced.run.events <= whole.run.events + count(&paced, "real_time_packets_injected"));
}

/// Under dropping, a switch may drop a paced frame's middle packets but
/// never its first or last, and the frame is counted damaged when the
/// message with its last packet arrives, though an earlier message lost
/// the packet.
#[test]
fn a_paced_frame_that_lost_a_packet_is_damaged() {
    let r = run("[run]\nseed = 1\nwarmup_observations = 0\nmax_observations = 200000\nprecision = 0\n\
                 [ib]\non_deadlock = \"continue\"\n[ib.switch]\nhoq_life = 1\n\
                 [ib.topology]\nkind = \"random\"\nseed = 1\n\
                 [ib.workload]\ninjection_rate = 0.6\nreal_time_share = 0.7\nvideo_injection = \"paced\"\n");
    let dropped =
        count(&r, "real_time_packets_dropped_head_of_queue") + count(&r, "real_time_packets_dropped_switch_lifetime");
    let damaged = count(&r, "frames_damaged");
    assert!(dropped > 100 && damaged > 10, "dropped {dropped}, damaged {damaged}");
    assert!(damaged <= dropped && damaged < count(&r, "frames_delivered"));
}

/// Every HCA's best-effort messages go to one HCA (an incast), so their
/// backlog grows at every source without bound. With one buffer for every
/// SL it fills and the video frames are refused with the best-effort
/// messages; with a buffer per SL, the backlog fills the best-effort SLs'
/// buffers alone and the video sources go on.
#[test]
fn a_best_effort_backlog_refuses_video_only_with_a_shared_buffer() {
    let incast = |scope: &str| {
        run(&format!(
            "[run]\nseed = 1\nwarmup_observations = 0\nmax_observations = 1000000000\nmin_observations = 0\n\
             precision = 0\nmax_time_ms = 400.0\n[ib.hca]\nbuffer_mb = 2.0\nbuffer_scope = \"{scope}\"\n\
             [ib.workload]\ninjection_rate = 0.5\nreal_time_share = 0.3\npattern = \"incast\"\n"
        ))
    };
    let (shared, split) = (incast("shared"), incast("per_sl"));
    for r in [&shared, &split] {
        assert!(count(r, "best_effort_messages_refused") > 100_000, "the backlog fills its buffer");
    }
    let (s, p) = (count(&shared, "frames_refused"), count(&split, "frames_refused"));
    assert!(s > 1000 && p == 0, "video frames refused: shared {s}, per SL {p}");
    assert!(count(&split, "frames_delivered") > count(&shared, "frames_delivered"));
}
