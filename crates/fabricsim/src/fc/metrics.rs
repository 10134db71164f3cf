//! Probes of the Fibre Channel models, measuring exactly what section 3.1
//! of the HP study defines:
//! - frame latency: injection start at the source to complete receipt;
//! - acknowledgement latency: ACK generation to its receipt at the source;
//! - round-trip latency: data injection start to receipt of its ACK;
//! - total message latency: message generation to the last frame received
//!   and (class 2) the last ACK back at the source.
//!
//! Plus the message's wait in the source queue, accepted throughput and
//! receive-buffer usage. Counters are never reset (conservation needs
//! totals); everything else restarts at the end of warm-up.

use serde::Serialize;

use super::frame::{Frame, Message};
use crate::kernel::stats::ConfidenceInterval;
use crate::kernel::Time;
use crate::report::MetricSummary;
use crate::sim::metric_set::{DurationId, LevelsId, MeanId, SeriesId, TallyId};
use crate::sim::MetricSet;

/// Totals over the whole run, warm-up included.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counters {
    pub messages_generated: u64,
    pub messages_completed: u64,
    pub data_frames_injected: u64,
    pub data_frames_delivered: u64,
    pub ack_frames_generated: u64,
    pub ack_frames_injected: u64,
    pub ack_frames_delivered: u64,
    /// Class 1 connect requests refused (F_BSY): dropped with that reason.
    pub data_frames_refused: u64,
    pub connect_requests: u64,
    /// Crossbar transfers: one per frame per switch crossed.
    pub switch_traversals: u64,
}

pub struct FcMetrics {
    pub counters: Counters,
    /// Every statistic of the measurement window.
    pub set: MetricSet,
    pub frame_latency: DurationId,
    /// Classes 1 and 2 only: ACK generation to receipt, and data injection to ACK receipt.
    pub ack_latency: Option<DurationId>,
    pub round_trip_latency: Option<DurationId>,
    pub message_latency: DurationId,
    pub message_wait: DurationId,
    /// Class 1 only: from the first connect request to the connection's ACK.
    pub connection_setup: Option<DurationId>,
    /// Data bytes delivered (impulses): mean is bytes per picosecond.
    throughput: SeriesId,
    /// Receive buffers in use, summed over every switch port.
    buffers: SeriesId,
    buffers_in_use: u64,
    /// Time at each buffer level, per switch port (`switchS.portP.buffers`).
    buffer_levels: Vec<LevelsId>,
    /// First flattened port index of each switch.
    port_base: Vec<usize>,
    pub max_buffers_used: u32,
    /// Busy time of trunk outputs and of outputs to terminal nodes, counted
    /// when a transfer starts.
    trunk_busy_ps: TallyId,
    node_link_busy_ps: TallyId,
    /// Per source node: data frames delivered and message latency (us).
    source_frames: Vec<TallyId>,
    source_latency: Vec<MeanId>,
}

/// What sizes the probes of a fabric.
#[derive(Clone, Copy, Debug)]
pub struct FcMetricsSpec {
    /// Receive buffers per switch port.
    pub buffers: u32,
    /// Target number of batch means.
    pub batches: u32,
    /// Initial duration of time batches.
    pub batch_ps: Time,
    /// Terminal nodes (per-source statistics).
    pub nodes: usize,
    /// Class of service: decides which latencies exist.
    pub class: u8,
}

impl FcMetrics {
    /// The probes of a fabric with `ports_per_switch[s]` ports on switch `s`.
    pub fn new(ports_per_switch: &[usize], spec: FcMetricsSpec) -> Self {
        let FcMetricsSpec { buffers, batches, batch_ps, nodes, class } = spec;
        let mut set = MetricSet::new(batches);
        let message_latency = set.duration("message_latency_us", true);
        let message_wait = set.duration("message_wait_us", false);
        let frame_latency = set.duration("frame_latency_us", true);
        let ack_latency = (class != 3).then(|| set.duration("ack_latency_us", false));
        let round_trip_latency = (class != 3).then(|| set.duration("round_trip_latency_us", false));
        let connection_setup = (class == 1).then(|| set.duration("connection_setup_us", false));
        let throughput = set.series("throughput", batch_ps, true);
        let buffers_series = set.series("buffers", batch_ps, false);
        let mut port_base = Vec::with_capacity(ports_per_switch.len());
        let mut buffer_levels = Vec::new();
        for (s, &p) in ports_per_switch.iter().enumerate() {
            port_base.push(buffer_levels.len());
            for port in 0..p {
                buffer_levels.push(set.levels(format!("switch{}.port{port}.buffers", s + 1), buffers as usize));
            }
        }
        let trunk_busy_ps = set.tally("trunk_busy_ps");
        let node_link_busy_ps = set.tally("node_link_busy_ps");
        let source_frames = (0..nodes).map(|n| set.tally(format!("node{n}.data_frames_delivered"))).collect();
        let source_latency = (0..nodes).map(|n| set.mean(format!("node{n}.message_latency_us"))).collect();
        FcMetrics {
            counters: Counters::default(),
            set,
            frame_latency,
            ack_latency,
            round_trip_latency,
            message_latency,
            message_wait,
            connection_setup,
            throughput,
            buffers: buffers_series,
            buffers_in_use: 0,
            buffer_levels,
            port_base,
            max_buffers_used: 0,
            trunk_busy_ps,
            node_link_busy_ps,
            source_frames,
            source_latency,
        }
    }

    /// Warm-up deletion: forget every observation made before `now`.
    pub fn reset(&mut self, now: Time) {
        self.set.reset(now);
    }

    pub fn measure_start(&self) -> Time {
        self.set.measure_start()
    }

    #[inline(always)]
    pub fn buffers_changed(&mut self, now: Time, switch: u32, port: usize, level: u32, delta: i32) {
        self.buffers_in_use = (self.buffers_in_use as i64 + delta as i64) as u64;
        self.set.set_level(self.buffers, now, self.buffers_in_use as f64);
        self.set.set_levels(self.buffer_levels[self.port_base[switch as usize] + port], now, level as usize);
        self.max_buffers_used = self.max_buffers_used.max(level);
    }

    #[inline]
    pub fn output_busy(&mut self, duration: Time, trunk: bool) {
        self.counters.switch_traversals += 1;
        self.set.add(if trunk { self.trunk_busy_ps } else { self.node_link_busy_ps }, duration);
    }

    #[inline]
    pub fn message_started(&mut self, waited: Time) {
        self.set.record(self.message_wait, waited);
    }

    #[inline]
    pub fn data_delivered(&mut self, now: Time, f: &Frame) {
        self.counters.data_frames_delivered += 1;
        self.set.add(self.source_frames[f.src as usize], 1);
        self.set.record(self.frame_latency, now - f.t_inject);
        self.set.impulse(self.throughput, now, f.bytes as f64);
    }

    #[inline]
    pub fn ack_delivered(&mut self, now: Time, f: &Frame) {
        self.counters.ack_frames_delivered += 1;
        if let (Some(ack), Some(rt)) = (self.ack_latency, self.round_trip_latency) {
            self.set.record(ack, now - f.t_created);
            self.set.record(rt, now - f.t_inject);
        }
    }

    #[inline]
    pub fn message_completed(&mut self, now: Time, m: &Message) {
        self.counters.messages_completed += 1;
        self.set.observe(self.source_latency[m.src as usize], (now - m.t_created) as f64 * 1e-6);
        self.set.record(self.message_latency, now - m.t_created);
    }

    #[inline]
    pub fn connection_set_up(&mut self, took: Time) {
        if let Some(id) = self.connection_setup {
            self.set.record(id, took);
        }
    }

    /// Per source node: data frames delivered, and the message latency (us) with its count.
    pub fn source(&self, node: usize) -> (u64, f64, u64) {
        let m = self.set.running_mean(self.source_latency[node]);
        (self.set.tally_value(self.source_frames[node]), m.mean(), m.count())
    }

    pub fn trunk_busy_ps(&self) -> u64 {
        self.set.tally_value(self.trunk_busy_ps)
    }

    pub fn node_link_busy_ps(&self) -> u64 {
        self.set.tally_value(self.node_link_busy_ps)
    }

    /// Throughput interval, in bytes per picosecond.
    pub fn throughput_interval(&self) -> Option<ConfidenceInterval> {
        self.set.time_series(self.throughput).interval()
    }

    /// Closes time batches at `now` before reading results.
    pub fn finish(&mut self, now: Time) {
        self.set.finish(now);
    }

    /// Accepted throughput as a percentage of the bandwidth of `ports` ports.
    pub fn throughput_summary(&self, now: Time, ps_per_byte: f64, ports: f64) -> MetricSummary {
        let scale = ps_per_byte / ports * 100.0;
        let t = self.set.time_series(self.throughput);
        MetricSummary::with_ci(t.mean(now) * scale, t.interval().map(|c| c.half_width * scale))
    }

    /// Mean receive buffers in use per port, with the time distribution of levels.
    pub fn buffer_summary(&self, now: Time) -> MetricSummary {
        let ports = self.buffer_levels.len() as f64;
        let levels = self.buffer_levels.first().map(|&h| self.set.level_histogram(h).max_level() + 1).unwrap_or(0);
        let mut distribution = vec![0.0; levels];
        let mut scratch = vec![0.0; levels];
        for &h in &self.buffer_levels {
            self.set.level_histogram(h).fractions_into(now, &mut scratch);
            for (d, s) in distribution.iter_mut().zip(&scratch) {
                *d += s / ports;
            }
        }
        let b = self.set.time_series(self.buffers);
        let mut s = MetricSummary::with_ci(b.mean(now) / ports, b.interval().map(|c| c.half_width / ports));
        s.max = Some(self.max_buffers_used as f64);
        s.distribution = Some(distribution);
        s
    }
}
