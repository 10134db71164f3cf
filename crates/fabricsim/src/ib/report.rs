//! What an InfiniBand run reports: the metric summaries (offered and
//! accepted load, latencies per class, the video metrics, link and buffer
//! utilization), the network and routing sections, the conservation audit
//! with its counters, the description of a run-time deadlock (a cycle of
//! waits, each named, and its cause: the unicast routing or replication),
//! and where an overloaded fabric's backlog sits.

use serde_json::json;

use super::fabric::IbFabric;
use super::lifetime::DropReason;
use super::packet::TrafficClass;
use super::switch::{InputVl, Wait, WaitKind, INPUT_BUFFER, OUTPUT_FIFO};
use crate::error::{Error, Result};
use crate::kernel::{time, Time};
use crate::report::MetricSummary;
use crate::sim::model::{accepted_below_offered, Metrics, Sections};

impl IbFabric {
    /// The waits a deadlock is made of (see `ib/switch/waits.rs`): a wait
    /// across a link holds only while no credit for the input VL across it
    /// is on its way back (the sender's view of that buffer is what it holds).
    fn hard_waits(&self, now: Time) -> Vec<Wait> {
        let mut waits = Vec::new();
        for sw in &self.switches {
            for w in sw.waits(&self.sh.packets, self.sh.switch.block, now) {
                let hard = w.through.is_none_or(|out| {
                    let (s, p, vl) = w.to;
                    let held =
                        self.switches[s as usize].input_blocks(&self.sh.packets, self.sh.switch.block, p as usize, vl);
                    sw.credits_used(out as usize, vl, now) == held
                });
                if hard {
                    waits.push(w);
                }
            }
        }
        waits
    }

    /// A run-time deadlock: a cycle of hard waits (see [`Self::hard_waits`])
    /// every one of which was there at the previous look too (a cycle seen
    /// at one look only may dissolve a few microseconds later). Its cause,
    /// over every cycle of the deadlock: a replication reservation if one is
    /// on a cycle (the deadlock seed 003 prevents by FCFS preemption), else
    /// multicast copies if any wait exists only because switches replicate
    /// (a copy on a full output VL, a multicast buffer), else the unicast routing.
    pub(super) fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        let waits = self.hard_waits(now);
        let mut kinds: Vec<((InputVl, InputVl), WaitKind)> = waits.iter().map(|w| ((w.from, w.to), w.kind)).collect();
        kinds.sort_unstable();
        let (cycle, on_cycles) = self.watch.waits.look_in_cycles(waits.iter().map(|w| (w.from, w.to)).collect())?;
        let kind = |pair: (InputVl, InputVl)| {
            let at = kinds.partition_point(|&(p, _)| p < pair);
            kinds[at].1
        };
        let cycle_kinds: Vec<&str> =
            (0..cycle.len()).map(|i| kind((cycle[i], cycle[(i + 1) % cycle.len()])).name()).collect();
        let replication = on_cycles.iter().filter(|&&pair| kind(pair).of_replication()).count();
        let reservation = on_cycles.iter().any(|&pair| kind(pair) == WaitKind::Reservation);
        let cause = match (reservation, replication) {
            (true, _) => "replication reservation",
            (false, 0) => "unicast routing",
            (false, _) => "multicast copies",
        };
        let names: Vec<String> = cycle.iter().map(|&node| self.node_name(node)).collect();
        Some(json!({
            "time_us": time::to_us(now),
            "cycle": names,
            "cycle_waits": cycle_kinds,
            "cause": cause,
            "waits_on_cycles": on_cycles.len(),
            "replication_waits_on_cycles": replication,
            "seen_at_two_looks_us_apart": time::to_us(self.watch.period),
            "transient_wait_cycles": self.watch.waits.transient,
            "packets_in_fabric": self.sh.packets.live(),
        }))
    }

    /// A node of the wait-for graph by name: an input VL by the link into
    /// it, or a multicast buffer by its port.
    fn node_name(&self, (s, p, vl): InputVl) -> String {
        match vl {
            INPUT_BUFFER => format!("switch {} input port {p} multicast buffer", s + 1),
            OUTPUT_FIFO => format!("switch {} output port {p} multicast FIFO", s + 1),
            vl => {
                let name = self.vl_numbers.outer(vl);
                match self.switches[s as usize].peer(p as usize).map(|to| to.index) {
                    Some(f) => format!("switch {} -> switch {} (input port {p}, VL {name} full)", f + 1, s + 1),
                    None => format!("switch {} input port {p} VL {name}", s + 1),
                }
            }
        }
    }

    pub(super) fn summaries_at(&self, now: Time) -> Metrics {
        let m = &self.sh.metrics;
        let span = (now - m.set.measure_start()).max(1) as f64;
        let rate = self.sh.timing.link.bytes_per_picosecond();
        let n = self.hcas.len() as f64;
        let mut out: Metrics = Vec::new();
        let offered = m.offered_bytes() as f64 / (span * rate * n) * 100.0;
        out.push(("offered_load_pct".into(), MetricSummary::value(offered)));
        let t = m.set.time_series(m.delivered_bytes());
        let scale = 100.0 / (rate * n);
        out.push((
            "accepted_load_pct".into(),
            MetricSummary::with_ci(t.mean(now) * scale, t.interval().map(|c| c.half_width * scale)),
        ));
        for id in m.latency.into_iter().chain(m.multicast_latency()) {
            out.push((m.set.duration_name(id).to_string(), m.set.duration_summary(id)));
        }
        for (name, dmp) in [
            ("deadline_missing_probability", m.missing_delivered()),
            ("deadline_missing_probability_generated", m.missing_generated()),
        ] {
            let mut s = MetricSummary::with_ci(
                if dmp.count() > 0 { dmp.mean() } else { f64::NAN },
                dmp.interval().map(|c| c.half_width),
            );
            s.count = Some(dmp.count());
            out.push((name.into(), s));
        }
        for id in [m.deadline_missing_time, m.frame_delay] {
            out.push((m.set.duration_name(id).to_string(), m.set.duration_summary(id)));
        }
        let (switch_busy, hca_busy) = m.link_busy_ps();
        let switch_links = 2 * self.topo.links.iter().map(|l| l.multiplicity() as u64).sum::<u64>();
        if switch_links > 0 {
            let u = switch_busy as f64 / (switch_links as f64 * span) * 100.0;
            out.push(("switch_link_utilization_pct".into(), MetricSummary::value(u)));
        }
        out.push(("hca_link_utilization_pct".into(), MetricSummary::value(hca_busy as f64 / (2.0 * n * span) * 100.0)));
        let cabled: usize = self.switches.iter().map(|s| (0..s.ports()).filter(|&p| s.peer(p).is_some()).count()).sum();
        let capacity = (cabled * self.used_vls.len().max(1)) as f64 * self.spec().vl_buffer_bytes as f64;
        let b = m.set.time_series(m.buffered());
        out.push((
            "input_vl_buffer_utilization_pct".into(),
            MetricSummary::with_ci(
                b.mean(now) / capacity * 100.0,
                b.interval().map(|c| c.half_width / capacity * 100.0),
            ),
        ));
        out
    }

    pub(super) fn sections(&self, stop: Time) -> Sections {
        // By the scenario's VL numbers, in their order.
        let per_vl: Vec<serde_json::Value> = (0..16)
            .map(|v| self.vl_numbers.inner(v) as usize)
            .filter(|&v| self.sh.metrics.vl_bytes_sent(v) > 0)
            .map(|v| json!({"vl": self.vl_numbers.outer(v as u8), "bytes_sent": self.sh.metrics.vl_bytes_sent(v)}))
            .collect();
        let streams = self.sources.video.len();
        let network = json!({
            "switches": self.topo.switch_count(),
            "hcas": self.hcas.len(),
            "links": self.topo.links.iter().map(|l| json!([l.a + 1, l.b + 1, l.multiplicity()])).collect::<Vec<_>>(),
            "video_streams": streams,
            "video_streams_per_hca": streams as f64 / self.hcas.len() as f64,
        });
        let watch = json!({
            "look_every_us": time::to_us(self.watch.period),
            "looks": self.watch.waits.looks,
            "transient_wait_cycles": self.watch.waits.transient,
        });
        let mut out = vec![
            ("network".into(), network),
            ("routing".into(), self.routing.clone()),
            ("per_vl".into(), per_vl.into()),
            ("deadlock_watch".into(), watch),
        ];
        if let Some(s) = &self.congestion {
            out.push(("congestion_control".into(), self.congestion_section(s, stop)));
        }
        out
    }

    pub(super) fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.sh.metrics.counters;
        // CNPs on their way are packets alive too.
        let injected: u64 = c.packets_injected.iter().sum::<u64>() + c.congestion.cnps_in_flight();
        let delivered: u64 = c.packets_delivered.iter().sum();
        let dropped = self.sh.metrics.packets_dropped();
        let in_flight = injected as i64 - delivered as i64 - c.packets_discarded as i64 - dropped as i64;
        // A multicast packet counts once per member: injected, and then
        // delivered, dropped or in flight (a copy stands for the members it leads to).
        if self.sh.deliveries_in_flight() as i64 != in_flight {
            return Err(Error::model(format!(
                "packet conservation violated: {} packets alive ({} deliveries due), but {injected} injected - \
                 {delivered} delivered - {} discarded - {dropped} dropped = {in_flight}",
                self.sh.packets.live(),
                self.sh.deliveries_in_flight(),
                c.packets_discarded
            )));
        }
        let held: usize = self.switches.iter().map(|s| s.packets_held(&self.sh.packets)).sum();
        if held > self.sh.packets.live() {
            return Err(Error::model(format!(
                "switches hold {held} packets, more than the {} alive",
                self.sh.packets.live()
            )));
        }
        let generated: u64 = c.messages_generated.iter().sum();
        let refused: u64 = c.messages_refused.iter().sum();
        let mut out = Vec::new();
        for (k, class) in TrafficClass::ALL.iter().enumerate() {
            let name = class.name();
            out.push((format!("{name}_messages_generated"), c.messages_generated[k] as i64));
            out.push((format!("{name}_messages_refused"), c.messages_refused[k] as i64));
            out.push((format!("{name}_packets_injected"), c.packets_injected[k] as i64));
            out.push((format!("{name}_packets_delivered"), c.packets_delivered[k] as i64));
            for reason in DropReason::ALL {
                let n = c.packets_dropped[k][reason as usize];
                out.push((format!("{name}_packets_dropped_{}", reason.name()), n as i64));
            }
        }
        out.extend([
            ("messages_in_progress".into(), (generated - refused) as i64 - self.completed_messages() as i64),
            ("packets_discarded".into(), c.packets_discarded as i64),
            ("packets_in_flight".into(), in_flight),
            ("frames_delivered".into(), c.frames_delivered as i64),
            ("frames_missed".into(), c.frames_missed as i64),
            ("frames_refused".into(), c.frames_refused as i64),
            ("frames_damaged".into(), c.frames_damaged as i64),
            ("frames_out_of_order".into(), c.frames_out_of_order as i64),
            ("reliable_datagrams_out_of_order".into(), c.reliable_out_of_order as i64),
            ("unreliable_datagrams_out_of_order".into(), c.unreliable_out_of_order as i64),
            ("crossbar_transfers".into(), self.packet_hops() as i64),
        ]);
        if self.congestion.is_some() {
            let cc = &c.congestion;
            out.push(("fecn_marked".into(), cc.fecn_marked.iter().sum::<u64>() as i64));
            out.push(("fecn_received".into(), cc.fecn_received.iter().sum::<u64>() as i64));
            if self.sh.throttling.is_some() {
                out.push(("cnps_sent".into(), cc.cnps_sent.iter().sum::<u64>() as i64));
                out.push(("becn_received".into(), cc.becn_received.iter().sum::<u64>() as i64));
                out.push(("ccti_triggers".into(), cc.triggers as i64));
            }
        }
        Ok(out)
    }

    /// Messages finished: generated and accepted, minus those alive.
    fn completed_messages(&self) -> u64 {
        let c = &self.sh.metrics.counters;
        let accepted: u64 = c.messages_generated.iter().sum::<u64>() - c.messages_refused.iter().sum::<u64>();
        accepted - self.sh.messages.live() as u64
    }

    pub(super) fn result_flags(&self, metrics: &Metrics) -> Vec<String> {
        let mut flags = Vec::new();
        let c = &self.sh.metrics.counters;
        if c.packets_injected.iter().sum::<u64>() == 0 {
            flags.push("no_traffic".to_string());
        }
        if c.messages_refused.iter().any(|&r| r > 0) {
            flags.push("source_overflow".to_string());
        }
        if accepted_below_offered(metrics, "offered_load_pct", "accepted_load_pct") {
            flags.push("accepted_below_offered".to_string());
        }
        flags
    }

    pub(super) fn overload_report(&self, now: Time) -> serde_json::Value {
        let (hca, longest) =
            self.hcas.iter().enumerate().map(|(i, h)| (i, h.queued_bytes())).max_by_key(|&(_, q)| q).unwrap_or((0, 0));
        let span = now.max(1) as f64;
        let (switch_busy, hca_busy) = self.sh.metrics.link_busy_ps();
        json!({
            "messages_waiting": crate::sim::Model::backlog(self),
            "longest_queue": {"hca": hca, "bytes": longest},
            "switch_link_utilization": switch_busy as f64 / span,
            "hca_link_utilization": hca_busy as f64 / span,
        })
    }
}
