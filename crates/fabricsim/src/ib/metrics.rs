//! Probes of the InfiniBand model, as seed 003 section 4 defines them:
//! - packet latency per class, from the message's arrival at the source
//!   HCA's send queue to the packet's tail at the destination HCA;
//! - Deadline Missing Probability: frames that missed their deadline over
//!   frames generated, where a frame refused at its source's full buffer
//!   never arrives and so misses (with a batch-means interval); beside it
//!   the seed's literal figure over delivered frames only, which a source
//!   that refuses most frames would make look good; and Deadline Missing
//!   Time (mean lateness of the delivered frames that missed);
//! - accepted and offered load, link utilization, and the occupancy of the
//!   switches' input VL buffers.
//!
//! Counters are totals over the whole run (the conservation audit needs
//! them); everything else restarts at the end of warm-up.

use super::congestion::CongestionCounters;
use super::lifetime::DropReason;
use super::packet::{Packet, TrafficClass};
use super::vl_numbers::VlNumbers;
use crate::kernel::stats::BatchMeans;
use crate::kernel::Time;
use crate::sim::metric_set::{DurationId, SeriesId, TallyId};
use crate::sim::MetricSet;

/// Totals over the whole run, per class (real-time, best-effort, control).
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub messages_generated: [u64; 3],
    pub messages_refused: [u64; 3],
    pub packets_injected: [u64; 3],
    pub packets_delivered: [u64; 3],
    /// Packets discarded because their SL has no VL.
    pub packets_discarded: u64,
    /// Packets a switch dropped past a lifetime limit, per class and reason.
    pub packets_dropped: [[u64; 2]; 3],
    /// Video frames delivered with a packet dropped on the way.
    pub frames_damaged: u64,
    /// Deliveries out of the order of sending: video frames of a stream,
    /// and (multipath) reliable and unreliable datagrams of a source and
    /// destination. The IBA requires order for the first two.
    pub frames_out_of_order: u64,
    pub reliable_out_of_order: u64,
    pub unreliable_out_of_order: u64,
    pub frames_delivered: u64,
    pub frames_missed: u64,
    /// Video frames refused at their source's full buffer.
    pub frames_refused: u64,
    /// Congestion control's counters (zero without it).
    pub congestion: CongestionCounters,
}

pub struct IbMetrics {
    pub counters: Counters,
    pub set: MetricSet,
    pub latency: [DurationId; 3],
    pub deadline_missing_time: DurationId,
    pub frame_delay: DurationId,
    /// 1 per missed frame, 0 per frame on time, over delivered frames: its
    /// mean is seed 003's DMP.
    missing_delivered: BatchMeans,
    /// The same with every refused frame counted missed, over frames generated.
    missing: BatchMeans,
    /// Wire bytes delivered and wire bytes offered (real-time and best-effort).
    delivered_bytes: SeriesId,
    offered_bytes: TallyId,
    /// Bytes held in switch input VL buffers.
    buffered: SeriesId,
    buffered_bytes: i64,
    /// Busy time of switch-to-switch links and of links to and from HCAs.
    switch_link_busy: TallyId,
    hca_link_busy: TallyId,
    /// Wire bytes sent on each VL over every link.
    vl_bytes: [TallyId; 16],
    /// Latency of the packets of multicast frames (with multicast only).
    multicast_latency: Option<DurationId>,
}

impl IbMetrics {
    /// The metrics of a fabric whose model VLs are `vls` (each VL's bytes
    /// are named by its scenario number).
    pub fn new(batches: u32, batch_ps: Time, vls: &VlNumbers) -> Self {
        let mut set = MetricSet::new(batches);
        let latency = [
            set.duration("real_time_latency_us", true),
            set.duration("best_effort_latency_us", true),
            set.duration("control_latency_us", false),
        ];
        let deadline_missing_time = set.duration("deadline_missing_time_us", false);
        let frame_delay = set.duration("frame_delay_us", false);
        let delivered_bytes = set.series("delivered_bytes", batch_ps, false);
        let offered_bytes = set.tally("offered_bytes");
        let buffered = set.series("input_vl_buffered_bytes", batch_ps, false);
        let switch_link_busy = set.tally("switch_link_busy_ps");
        let hca_link_busy = set.tally("hca_link_busy_ps");
        let by_scenario: [TallyId; 16] = std::array::from_fn(|v| set.tally(format!("vl{v}.bytes_sent")));
        let vl_bytes = std::array::from_fn(|v| by_scenario[vls.outer(v as u8) as usize]);
        IbMetrics {
            counters: Counters::default(),
            set,
            latency,
            deadline_missing_time,
            frame_delay,
            missing: BatchMeans::new(batches),
            missing_delivered: BatchMeans::new(batches),
            delivered_bytes,
            offered_bytes,
            buffered,
            buffered_bytes: 0,
            switch_link_busy,
            hca_link_busy,
            vl_bytes,
            multicast_latency: None,
        }
    }

    /// Measures the latency of multicast packets too (seed 003 Fig. 10c).
    pub fn with_multicast(mut self) -> Self {
        self.multicast_latency = Some(self.set.duration("multicast_latency_us", true));
        self
    }

    /// A packet of a multicast frame reached a member `latency` after its creation.
    #[inline]
    pub fn multicast_delivered(&mut self, latency: Time) {
        if let Some(id) = self.multicast_latency {
            self.set.record(id, latency);
        }
    }

    pub fn multicast_latency(&self) -> Option<DurationId> {
        self.multicast_latency
    }

    /// A multicast frame refused at its source misses at `extra` more members than one.
    pub fn frame_refused_at_members(&mut self, extra: u32) {
        for _ in 0..extra {
            self.counters.frames_refused += 1;
            self.missing.add(1.0);
        }
    }

    pub fn reset(&mut self, now: Time) {
        self.set.reset(now);
        self.missing.reset();
        self.missing_delivered.reset();
        self.set.set_level(self.buffered, now, self.buffered_bytes as f64);
    }

    #[inline]
    pub fn message_generated(&mut self, class: TrafficClass, wire_bytes: u64, accepted: bool) {
        let c = class as usize;
        self.counters.messages_generated[c] += 1;
        if !accepted {
            self.counters.messages_refused[c] += 1;
            if class == TrafficClass::RealTime {
                self.counters.frames_refused += 1;
                self.missing.add(1.0);
            }
        }
        if class != TrafficClass::Control {
            self.set.add(self.offered_bytes, wire_bytes);
        }
    }

    /// A packet leaves its source HCA.
    #[inline]
    pub fn injected(&mut self, p: &Packet, wire: Time) {
        self.counters.packets_injected[p.class as usize] += 1;
        self.set.add(self.hca_link_busy, wire);
        self.set.add(self.vl_bytes[p.vl as usize], p.bytes as u64);
    }

    /// A congestion notification packet leaves the HCA that owes it: its
    /// link time, apart from the traffic's packets.
    #[inline]
    pub fn injected_cnp(&mut self, p: &Packet, wire: Time) {
        self.counters.congestion.cnps_sent[p.sl.get() as usize] += 1;
        self.set.add(self.hca_link_busy, wire);
        self.set.add(self.vl_bytes[p.vl as usize], p.bytes as u64);
    }

    /// A switch output starts sending a packet.
    #[inline]
    pub fn forwarded(&mut self, p: &Packet, wire: Time, to_switch: bool) {
        self.set.add(if to_switch { self.switch_link_busy } else { self.hca_link_busy }, wire);
        self.set.add(self.vl_bytes[p.vl as usize], p.bytes as u64);
    }

    #[inline]
    pub fn delivered(&mut self, now: Time, p: &Packet) {
        self.counters.packets_delivered[p.class as usize] += 1;
        self.set.record(self.latency[p.class as usize], now - p.t_created);
        if p.class != TrafficClass::Control {
            self.set.impulse(self.delivered_bytes, now, p.bytes as f64);
        }
    }

    pub fn dropped(&mut self, p: &Packet, reason: DropReason) {
        self.counters.packets_dropped[p.class as usize][reason as usize] += 1;
    }

    /// Packets dropped, over every class and reason.
    pub fn packets_dropped(&self) -> u64 {
        self.counters.packets_dropped.iter().flatten().sum()
    }

    #[inline]
    pub fn discarded(&mut self) {
        self.counters.packets_discarded += 1;
    }

    /// A video frame's last packet arrived `delay` after its release; `late`
    /// is how far past its deadline, if it missed; `damaged` if a packet of
    /// it was dropped (it is judged by its deadline all the same, as the
    /// seed's DMP counts delivered frames).
    pub fn frame(&mut self, delay: Time, late: Option<Time>, damaged: bool) {
        self.counters.frames_delivered += 1;
        self.counters.frames_damaged += damaged as u64;
        self.set.record(self.frame_delay, delay);
        let missed = late.is_some() as u8 as f64;
        self.missing.add(missed);
        self.missing_delivered.add(missed);
        if let Some(t) = late {
            self.counters.frames_missed += 1;
            self.set.record(self.deadline_missing_time, t);
        }
    }

    /// A packet of `bytes` starts crossing the crossbar at `now` and leaves
    /// its input VL buffer at `end`: the buffer's level drops now, and what
    /// it would have added to the time integral until `end` is added now
    /// (into the batch of `now`: a crossing is far shorter than a batch).
    #[inline]
    pub fn input_crossing(&mut self, now: Time, end: Time, bytes: u32) {
        self.buffered_bytes -= bytes as i64;
        let area = bytes as f64 * (end - now) as f64;
        self.set.set_level_adding(self.buffered, now, self.buffered_bytes as f64, area);
    }

    #[inline]
    pub fn input_buffered(&mut self, now: Time, delta: i64) {
        self.buffered_bytes += delta;
        self.set.set_level(self.buffered, now, self.buffered_bytes as f64);
    }

    /// Missed or refused frames per frame generated (the alternative to
    /// the study's DMP, which counts delivered frames only).
    pub fn missing_generated(&self) -> &BatchMeans {
        &self.missing
    }

    /// Missed frames per frame delivered: seed 003's DMP.
    pub fn missing_delivered(&self) -> &BatchMeans {
        &self.missing_delivered
    }

    pub fn delivered_bytes(&self) -> SeriesId {
        self.delivered_bytes
    }

    pub fn buffered(&self) -> SeriesId {
        self.buffered
    }

    pub fn offered_bytes(&self) -> u64 {
        self.set.tally_value(self.offered_bytes)
    }

    pub fn link_busy_ps(&self) -> (u64, u64) {
        (self.set.tally_value(self.switch_link_busy), self.set.tally_value(self.hca_link_busy))
    }

    pub fn vl_bytes_sent(&self, vl: usize) -> u64 {
        self.set.tally_value(self.vl_bytes[vl])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crossing counted at its start adds to the input buffers' time
    /// average what the packet's bytes would have until its end: the same
    /// mean as a level that drops at the end.
    #[test]
    fn a_crossing_counted_at_its_start_keeps_the_buffer_time_average() {
        let mut m = IbMetrics::new(2, 1_000_000, &VlNumbers::used_first(&[], 15));
        m.input_buffered(0, 100);
        m.input_buffered(10, 60);
        m.input_crossing(50, 80, 100);
        m.input_crossing(70, 90, 60);
        // 100 bytes over [0, 80], 60 over [10, 90]: (8000 + 4800) / 100.
        assert_eq!(m.set.time_series(m.buffered()).mean(100), 128.0);
    }
}
