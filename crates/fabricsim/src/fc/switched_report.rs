//! What a switched-loop run reports: the metric summaries (I/O times and
//! their parts, re-attempts, circuit establishment, throughput, every
//! loop's utilization and tenancy figures), the join's section, the
//! conservation audit with its counters, and the description of a
//! run-time deadlock (a cycle of loops, each held by a circuit waiting for
//! the next).

use super::switched_loop::SwitchedLoopModel;
use crate::error::{Error, Result};
use crate::fabric::wait_for::wait_for_cycle;
use crate::kernel::{time, Time};
use crate::report::MetricSummary;
use crate::sim::model::Metrics;

impl SwitchedLoopModel {
    pub(super) fn metric_summaries(&self, stop: Time) -> Metrics {
        let set = &self.set;
        let st = &self.initiator.app().stats;
        let elapsed = (stop - set.measure_start()).max(1);
        let mut out: Metrics = Vec::new();
        for id in [st.io_time, st.global_io_time, st.local_io_time, st.disk_time, st.loop_time] {
            out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
        }
        for id in [st.retries_per_io, st.retries_per_global_io, st.switch_requests_per_global_io, st.global_share] {
            out.push((set.mean_name(id).to_string(), set.mean_summary(id)));
        }
        for id in st.establish {
            out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
        }
        let tp = set.time_series(st.throughput);
        let ci = tp.interval().map(|c| c.half_width * 1e12 / 1e6);
        out.push(("throughput_mb_s".into(), MetricSummary::with_ci(tp.mean(stop) * 1e12 / 1e6, ci)));
        let ios = set.duration_summary(st.io_time).count.unwrap_or(0) as f64;
        out.push(("iops".into(), MetricSummary::value(ios / (elapsed as f64 * 1e-12))));
        let mut util = 0.0;
        for r in &self.rings {
            let u = r.stats.owned_time(set) as f64 / elapsed as f64;
            util += u;
            out.push((r.path().metric("utilization"), MetricSummary::value(u)));
            for id in [r.stats.tenancy, r.stats.arbitration_wait, r.stats.open_round_trip] {
                out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
            }
        }
        out.push(("loop_utilization".into(), MetricSummary::value(util / self.rings.len() as f64)));
        out.push(("loop_trip_us".into(), MetricSummary::value(time::to_us(self.rings[0].timing().trip()))));
        out
    }

    pub(super) fn section(&self) -> serde_json::Value {
        serde_json::json!({
            "loops": self.rings.len(),
            "switching": self.spec.switched.switching,
            "ports_per_loop": self.rings[0].ports().len(),
            "trip_us": time::to_us(self.rings[0].timing().trip()),
            "al_pas": self.rings.iter().map(|r| r.ports().iter().map(|p| p.al_pa).collect::<Vec<_>>()).collect::<Vec<_>>(),
        })
    }

    pub(super) fn counters(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        let c = &self.initiator.counters;
        let in_flight = c.ios_issued - c.ios_completed;
        if self.initiator.live() as u64 != in_flight {
            return Err(Error::model(format!(
                "I/O conservation violated: {} exchanges alive, {} issued - {} completed",
                self.initiator.live(),
                c.ios_issued,
                c.ios_completed
            )));
        }
        let short_reads = self.initiator.app().short_reads;
        if short_reads > 0 {
            return Err(Error::model(format!("{short_reads} reads completed before all their data arrived")));
        }
        let segments = self.bridges.segments_live();
        if events_pending == 0 && (self.sh.frames.live() > 0 || self.sh.connections.live() > 0 || segments > 0) {
            return Err(Error::model(format!(
                "an idle switch holds {} frames, {} connections and {segments} segments",
                self.sh.frames.live(),
                self.sh.connections.live(),
            )));
        }
        let b = &self.bridges.counters;
        let frames: u64 = self.rings.iter().map(|r| r.stats.counters.frames).sum();
        // Refusals the bridges made: closed by the rings, or still closing.
        let refused: u64 = self.rings.iter().map(|r| r.stats.counters.refused_opens + r.refusal_pending() as u64).sum();
        if refused != b.refused_circuits + b.refused_bridge_opens {
            return Err(Error::model(format!(
                "refused opens: the rings closed {refused}, the bridges refused {}",
                b.refused_circuits + b.refused_bridge_opens
            )));
        }
        Ok(vec![
            ("ios_issued".to_string(), c.ios_issued as i64),
            ("ios_completed".into(), c.ios_completed as i64),
            ("ios_in_flight".into(), in_flight as i64),
            ("bytes_completed".into(), c.bytes_completed as i64),
            ("loop_frames".into(), frames as i64),
            ("switch_frames".into(), b.switch_frames as i64),
            ("circuits".into(), b.circuits as i64),
            ("refused_circuits".into(), b.refused_circuits as i64),
            ("segments".into(), b.segments as i64),
            ("refused_segments".into(), b.refused_segments as i64),
            ("refused_bridge_opens".into(), b.refused_bridge_opens as i64),
            ("segments_in_switch".into(), segments as i64),
            ("frames_in_switch".into(), self.sh.frames.live() as i64),
            ("connections_held".into(), self.sh.connections.live() as i64),
            ("switch_headers_routed".into(), self.switch.headers_routed as i64),
        ])
    }

    /// Only a circuit holds one loop while waiting for another: its opener
    /// owns its loop until the remote bridge has won the remote loop. The
    /// switch refuses a connect request whose port another connection holds,
    /// so the protocol never closes such a cycle; the search is the proof at
    /// run time. Packet switching holds nothing while it waits: a stored
    /// phase waiting for remote buffers holds only its own bridge's buffers,
    /// and the bridge refuses an opener it has no room for.
    pub(super) fn deadlock(&self, now: Time) -> Option<serde_json::Value> {
        let bp = self.bridge_port();
        let waits = self.bridges.circuit_waits().filter_map(|(l, c)| {
            let remote_won = self.rings[c.dst as usize].owner() == Some(bp);
            (self.rings[l as usize].owner() == Some(c.opener) && !remote_won).then_some((l, c.dst))
        });
        let cycle = wait_for_cycle(waits)?;
        let names: Vec<String> = cycle
            .iter()
            .map(|&l| {
                let c = self.bridges.outbound(l).expect("a waiting loop has its circuit");
                let owner = self.rings[c.dst as usize].owner().map_or("nobody".to_string(), |p| format!("port {p}"));
                format!(
                    "loop {l} -> loop {}: port {}'s circuit to port {} holds loop {l} and waits for loop {}, owned by {owner}",
                    c.dst, c.opener, c.target, c.dst
                )
            })
            .collect();
        Some(serde_json::json!({
            "time_us": time::to_us(now),
            "cycle": names,
            "ios_in_flight": self.initiator.live(),
        }))
    }
}
