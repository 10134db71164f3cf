//! Probes of the Fibre Channel models, measuring exactly what section 3.1
//! of the HP study defines:
//! - frame latency: injection start at the source to complete receipt;
//! - acknowledgement latency: ACK generation to its receipt at the source;
//! - round-trip latency: data injection start to receipt of its ACK;
//! - total message latency: message generation to the last frame received
//!   and (class 2) the last ACK back at the source;
//! plus the message's wait in the source queue, accepted throughput and
//! receive-buffer usage. Counters are never reset (conservation needs
//! totals); everything else restarts at the end of warm-up.

use serde::Serialize;

use super::frame::{Frame, Message};
use crate::kernel::stats::{BatchMeans, ConfidenceInterval, LevelHistogram, LogHistogram, TimeBatchMeans, Welford};
use crate::kernel::Time;
use crate::report::MetricSummary;

/// One latency metric: percentiles from a histogram, a CI from batch means.
pub struct LatencyProbe {
    hist: LogHistogram,
    batches: BatchMeans,
}

impl LatencyProbe {
    fn new(batches: u32) -> Self {
        LatencyProbe { hist: LogHistogram::new(), batches: BatchMeans::new(batches) }
    }

    #[inline]
    pub fn record(&mut self, ps: Time) {
        self.hist.record(ps);
        self.batches.add(ps as f64 * 1e-6);
    }

    pub fn interval(&self) -> Option<ConfidenceInterval> {
        self.batches.interval()
    }

    pub fn count(&self) -> u64 {
        self.hist.count()
    }

    fn reset(&mut self) {
        self.hist.reset();
        self.batches.reset();
    }

    /// Summary in microseconds.
    pub fn summary(&self) -> MetricSummary {
        let us = |ps: u64| ps as f64 * 1e-6;
        let n = self.hist.count();
        let pct = |p: f64| if n > 0 { Some(us(self.hist.percentile(p))) } else { None };
        MetricSummary {
            mean: if n > 0 { self.hist.mean() * 1e-6 } else { f64::NAN },
            ci_half_width: self.batches.interval().map(|ci| ci.half_width),
            count: Some(n),
            min: pct(0.0),
            p50: pct(50.0),
            p95: pct(95.0),
            p99: pct(99.0),
            max: pct(100.0),
            distribution: None,
        }
    }
}

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
    pub frame_latency: LatencyProbe,
    pub ack_latency: LatencyProbe,
    pub round_trip_latency: LatencyProbe,
    pub message_latency: LatencyProbe,
    pub message_wait: LatencyProbe,
    /// Class 1: from the first connect request to the connection's ACK.
    pub connection_setup: LatencyProbe,
    /// Data bytes delivered (impulses): mean is bytes per picosecond.
    throughput: TimeBatchMeans,
    /// Receive buffers in use, summed over every switch port.
    buffers: TimeBatchMeans,
    buffers_in_use: u64,
    /// Time at each buffer level, per switch port.
    buffer_levels: Vec<LevelHistogram>,
    /// First flattened port index of each switch.
    port_base: Vec<usize>,
    pub max_buffers_used: u32,
    /// Busy time of trunk outputs and of outputs to terminal nodes, counted
    /// when a transfer starts.
    pub trunk_busy_ps: u64,
    pub node_link_busy_ps: u64,
    /// Per source node: data frames delivered and message latency (us).
    pub per_source: Vec<(u64, Welford)>,
    measure_start: Time,
    delivered_at_reset: u64,
}

impl FcMetrics {
    /// `ports_per_switch[s]` ports on switch `s`, `buffers` buffers each;
    /// `batch_ps` is the initial duration of time batches.
    pub fn new(ports_per_switch: &[usize], buffers: u32, batches: u32, batch_ps: Time, nodes: usize) -> Self {
        let mut port_base = Vec::with_capacity(ports_per_switch.len());
        let mut total = 0;
        for &p in ports_per_switch {
            port_base.push(total);
            total += p;
        }
        FcMetrics {
            counters: Counters::default(),
            frame_latency: LatencyProbe::new(batches),
            ack_latency: LatencyProbe::new(batches),
            round_trip_latency: LatencyProbe::new(batches),
            message_latency: LatencyProbe::new(batches),
            message_wait: LatencyProbe::new(batches),
            connection_setup: LatencyProbe::new(batches),
            throughput: TimeBatchMeans::new(0, batch_ps, batches),
            buffers: TimeBatchMeans::new(0, batch_ps, batches),
            buffers_in_use: 0,
            buffer_levels: (0..total).map(|_| LevelHistogram::new(buffers as usize, 0)).collect(),
            port_base,
            max_buffers_used: 0,
            trunk_busy_ps: 0,
            node_link_busy_ps: 0,
            per_source: vec![(0, Welford::new()); nodes],
            measure_start: 0,
            delivered_at_reset: 0,
        }
    }

    /// Warm-up deletion: forget every observation made before `now`.
    pub fn reset(&mut self, now: Time) {
        self.frame_latency.reset();
        self.ack_latency.reset();
        self.round_trip_latency.reset();
        self.message_latency.reset();
        self.message_wait.reset();
        self.connection_setup.reset();
        self.throughput.reset(now);
        self.buffers.reset(now);
        for h in &mut self.buffer_levels {
            h.reset(now);
        }
        for (frames, latency) in &mut self.per_source {
            *frames = 0;
            latency.reset();
        }
        self.trunk_busy_ps = 0;
        self.node_link_busy_ps = 0;
        self.measure_start = now;
        self.delivered_at_reset = self.counters.data_frames_delivered;
    }

    pub fn measure_start(&self) -> Time {
        self.measure_start
    }

    /// Data frames delivered since the end of warm-up.
    pub fn measured_frames(&self) -> u64 {
        self.counters.data_frames_delivered - self.delivered_at_reset
    }

    #[inline]
    pub fn buffers_changed(&mut self, now: Time, switch: u32, port: usize, level: u32, delta: i32) {
        self.buffers_in_use = (self.buffers_in_use as i64 + delta as i64) as u64;
        self.buffers.set_level(now, self.buffers_in_use as f64);
        self.buffer_levels[self.port_base[switch as usize] + port].set(now, level as usize);
        self.max_buffers_used = self.max_buffers_used.max(level);
    }

    #[inline]
    pub fn output_busy(&mut self, duration: Time, trunk: bool) {
        self.counters.switch_traversals += 1;
        if trunk {
            self.trunk_busy_ps += duration;
        } else {
            self.node_link_busy_ps += duration;
        }
    }

    #[inline]
    pub fn message_started(&mut self, waited: Time) {
        self.message_wait.record(waited);
    }

    #[inline]
    pub fn data_delivered(&mut self, now: Time, f: &Frame) {
        self.counters.data_frames_delivered += 1;
        self.per_source[f.src as usize].0 += 1;
        self.frame_latency.record(now - f.t_inject);
        self.throughput.add_impulse(now, f.bytes as f64);
    }

    #[inline]
    pub fn ack_delivered(&mut self, now: Time, f: &Frame) {
        self.counters.ack_frames_delivered += 1;
        self.ack_latency.record(now - f.t_created);
        self.round_trip_latency.record(now - f.t_inject);
    }

    #[inline]
    pub fn message_completed(&mut self, now: Time, m: &Message) {
        self.counters.messages_completed += 1;
        self.per_source[m.src as usize].1.add((now - m.t_created) as f64 * 1e-6);
        self.message_latency.record(now - m.t_created);
    }

    /// Throughput interval, in bytes per picosecond.
    pub fn throughput_interval(&self) -> Option<ConfidenceInterval> {
        self.throughput.interval()
    }

    /// Closes time batches at `now` before reading results.
    pub fn finish(&mut self, now: Time) {
        self.throughput.finish(now);
        self.buffers.finish(now);
    }

    /// Accepted throughput as a percentage of the bandwidth of `ports` ports.
    pub fn throughput_summary(&self, now: Time, ps_per_byte: f64, ports: f64) -> MetricSummary {
        let scale = ps_per_byte / ports * 100.0;
        MetricSummary::with_ci(
            self.throughput.mean(now) * scale,
            self.throughput.interval().map(|c| c.half_width * scale),
        )
    }

    /// Mean receive buffers in use per port, with the time distribution of levels.
    pub fn buffer_summary(&self, now: Time) -> MetricSummary {
        let ports = self.buffer_levels.len() as f64;
        let levels = self.buffer_levels.first().map(|h| h.max_level() + 1).unwrap_or(0);
        let mut distribution = vec![0.0; levels];
        let mut scratch = vec![0.0; levels];
        for h in &self.buffer_levels {
            h.fractions_into(now, &mut scratch);
            for (d, s) in distribution.iter_mut().zip(&scratch) {
                *d += s / ports;
            }
        }
        let mut s = MetricSummary::with_ci(
            self.buffers.mean(now) / ports,
            self.buffers.interval().map(|c| c.half_width / ports),
        );
        s.max = Some(self.max_buffers_used as f64);
        s.distribution = Some(distribution);
        s
    }
}
