//! The workload of seed 003 section 4 at every HCA: real-time VBR video
//! streams, Poisson best-effort messages and periodic control packets.
//!
//! How the load axis maps onto sources (documented in
//! `docs/infiniband-model.md`): the injection rate r is the wire bytes
//! (payload and headers, real-time and best-effort, control excluded) an
//! HCA offers per second as a fraction of the link's data rate. A share s of
//! it is video, 1 - s best-effort.
//! - Video: the seven stream profiles of `traffic::video::paper_streams`
//!   (the real trace scaled by (k+1)/4, k = 0..6). An HCA carries m streams,
//!   m = round(s r R / w) where w is the mean wire rate of the seven and R the
//!   link rate (or `streams_per_hca`); stream j of HCA i takes profile
//!   (i + j) mod 7, and every frame size of the HCA's streams is scaled by
//!   one factor so that their mean wire rate over the trace is s r R. Each
//!   stream starts at the first I frame after a random trace position (so
//!   streams are not in step), with a random phase in the first frame
//!   period, and sends to one uniformly chosen other HCA for its life.
//! - Best-effort: Poisson arrivals of fixed-size messages at the rate that
//!   carries (1 - s) r R wire bytes, on an SL drawn from `best_effort_sls`,
//!   to uniform other HCAs or as `pattern` says (`traffic::patterns`: shift,
//!   permutation, hot spot, incast, whose non-senders send none).
//! - Control: one 256-byte packet every `control_period_ms` per HCA, random
//!   phase, uniform destination, on VL15.
//!
//! - Video frames enter the HCA whole, or paced: a message per packet,
//!   evenly over the frame's period (`pacing.rs`).
//!
//! The sources of each HCA are one component with its own events
//! ([`SourceEvent`], carried with the HCA's index); each event builds the
//! messages due and hands them to the HCA's send queues.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;

use super::message::{Message, NO_STREAM};
use super::multicast::{Groups, NO_GROUP};
use super::multipath::{PathChoice, StreamDemand};
use super::packet::{Segmentation, ServiceLevel, TrafficClass};
use crate::error::{Error, Result};
use crate::fabric::import::find_upwards;
use crate::kernel::{time, RandomStream, Time};
use crate::scenario::ib::{IbWorkloadSpec, VideoInjection, BUILTIN_TRACE};
use crate::sim::Schedule;
use crate::traffic::patterns::PatternDestinations;
use crate::traffic::trace_model::TraceModel;
use crate::traffic::video::{frame_time, paper_streams, StreamProfile, VideoStream, VideoTrace, PAPER_STREAM_COUNT};
use pacing::PacedFrame;

/// The sources' own events, carried with the index of the HCA they feed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceEvent {
    /// The HCA's video streams release their next frames.
    VideoFrame,
    /// A best-effort message arrives (Poisson).
    BestEffort,
    /// The HCA sends its periodic control packet.
    Control,
}

impl SourceEvent {
    /// A byte for the event's slot in the fabric's flat event.
    #[inline(always)]
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The event a [`Self::code`] stands for.
    #[inline(always)]
    pub fn from_code(code: u8) -> Self {
        debug_assert!(code <= SourceEvent::Control as u8, "source event code {code}");
        match code {
            0 => SourceEvent::VideoFrame,
            1 => SourceEvent::BestEffort,
            _ => SourceEvent::Control,
        }
    }
}

/// Video streams in one fabric at most: each keeps about 100 bytes of
/// state, so this bounds the sources' memory to a few hundred MB however
/// fast the links and however many HCAs.
pub const MAX_STREAMS: u64 = 4_000_000;

/// Fixed-point denominator of a stream's scale factor.
const SCALE_UNIT: u32 = 1 << 14;

/// One video stream: its source and destination HCAs and its frames.
#[derive(Clone, Debug)]
pub struct VideoSource {
    pub hca: u32,
    pub dst: u32,
    /// Mean wire bytes per second over the trace.
    pub bytes_per_s: f64,
    /// The stream's slot among those its destination receives (where the
    /// destination keeps its playout deadlines).
    pub slot: u32,
    pub stream: VideoStream,
    /// Release time of frame 0.
    pub phase: Time,
    /// A multicast stream's group (else `NO_GROUP`; `dst` is then unused)
    /// and its index among the multicast streams.
    pub group: u16,
    pub multicast: u32,
}

/// Which video streams go to a multicast group, and how they are sent.
pub struct MulticastStreams<'a> {
    pub groups: &'a Groups,
    /// The share of each HCA's streams that are multicast.
    pub share: f64,
    /// Replicated unicast: the source sends one message per member.
    pub at_source: bool,
    /// Separate multicast VLs: per group, the SLs its streams take in turn (empty: the unicast video SLs).
    pub sls: Vec<Vec<ServiceLevel>>,
}

impl VideoSource {
    /// Release time of frame `i`.
    #[inline]
    pub fn release(&self, i: u64) -> Time {
        self.phase + frame_time(i)
    }
}

mod frames;
mod pacing;

/// Every source of every HCA.
pub struct Sources {
    pub video: Vec<VideoSource>,
    /// Paced video: each stream's frame in progress (empty: whole frames).
    paced: Vec<PacedFrame>,
    /// Per HCA: its streams by next release time (one event per HCA keeps
    /// the event set small however many streams there are).
    video_due: Vec<BinaryHeap<Reverse<(Time, u32)>>>,
    /// Per HCA: best-effort inter-arrivals, SLs and destinations.
    best_effort_rng: Vec<RandomStream>,
    /// Mean time between best-effort messages of one HCA (0: none).
    best_effort_mean_ps: f64,
    pub best_effort_bytes: u32,
    best_effort_sls: Vec<ServiceLevel>,
    /// Per HCA: control destinations.
    control_rng: Vec<RandomStream>,
    pub control_period: Time,
    pub control_phase: Vec<Time>,
    /// SL of each video stream.
    pub stream_sl: Vec<ServiceLevel>,
    /// Per HCA: the video streams it receives.
    received: Vec<u32>,
    /// Multipath routing: the path bits messages carry.
    paths: Option<PathChoice>,
    /// Best-effort destinations by `ib.workload.pattern` (None: uniform).
    pattern: Option<PatternDestinations>,
    /// Per multicast stream: each member it is sent to and the stream's slot there.
    pub multicast_members: Vec<Vec<(u32, u32)>>,
    /// Multicast frames leave their source as one message per member.
    replicate_at_source: bool,
    hcas: u32,
    stopped: bool,
}

/// A trace path: as given if absolute or found from the working directory;
/// else looked up from each directory above it.
pub fn find_trace(path: &str) -> Result<PathBuf> {
    find_upwards(path).map_err(|tried| {
        Error::invalid(
            "ib.workload.trace",
            format!("\"{path}\""),
            format!(
                "a readable video trace: an absolute path, or a relative one found from the working directory or \
                 a directory above it (looked for {}), or \"{BUILTIN_TRACE}\" (the default, shipped with fabricsim)",
                tried.iter().take(4).map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// The trace `ib.workload.trace` names: the built-in one, or a file whose
/// faults are errors about the key (the path as its value).
fn load_trace(name: &str) -> Result<std::sync::Arc<VideoTrace>> {
    if name == BUILTIN_TRACE {
        return Ok(TraceModel::builtin_trace());
    }
    let path = find_trace(name)?;
    VideoTrace::shared(&path).map_err(|e| Error {
        message: e.message,
        file: None,
        ..Error::invalid(
            "ib.workload.trace",
            format!("\"{}\"", path.display()),
            "a video trace: text lines of frame index, time (ms), type (I, P or B) and size (bytes), tab separated",
        )
    })
}

/// Mean wire bytes per second of a stream profile over one pass of the trace.
fn wire_rate(trace: &VideoTrace, profile: StreamProfile) -> f64 {
    let total: u64 = trace
        .frames()
        .iter()
        .map(|f| Segmentation::new(profile.scaled(f.bytes) as u64, TrafficClass::RealTime.mtu()).total_wire_bytes())
        .sum();
    total as f64 / trace.len() as f64 * crate::traffic::video::FRAMES_PER_SECOND as f64
}

impl Sources {
    /// The sources of `hcas` HCAs on links of `link_bytes_per_second`.
    pub fn new(
        spec: &IbWorkloadSpec,
        hcas: u32,
        link_bytes_per_second: f64,
        seed: u64,
        multicast: Option<MulticastStreams>,
    ) -> Result<Self> {
        let real_time = spec.injection_rate * spec.real_time_share * link_bytes_per_second;
        let best_effort = spec.injection_rate * (1.0 - spec.real_time_share) * link_bytes_per_second;
        let mut video = Vec::new();
        let wants_video = real_time > 0.0 && spec.streams_per_hca != Some(0);
        if wants_video {
            let trace = load_trace(&spec.trace)?;
            let profiles = paper_streams(&trace);
            let rates: Vec<f64> = profiles.iter().map(|&p| wire_rate(&trace, p)).collect();
            let mean_rate = rates.iter().sum::<f64>() / PAPER_STREAM_COUNT as f64;
            let wanted = spec.streams_per_hca.map_or_else(|| (real_time / mean_rate).round().max(1.0), f64::from);
            if wanted * hcas as f64 > MAX_STREAMS as f64 {
                let (key, value) = match spec.streams_per_hca {
                    Some(m) => ("ib.workload.streams_per_hca", m.to_string()),
                    None => ("ib.workload.injection_rate", spec.injection_rate.to_string()),
                };
                return Err(Error::invalid(
                    key,
                    value,
                    format!(
                        "at most {MAX_STREAMS} video streams in the fabric ({wanted} per HCA x {hcas} HCAs asked; \
                         each carries {:.2} MB/s): a lower injection rate or real-time share, or fewer streams_per_hca",
                        mean_rate / 1e6
                    ),
                ));
            }
            let m = wanted as u32;
            for i in 0..hcas {
                let mut rng = RandomStream::new(seed, "ib.video", i as u64);
                let mut group_rng = RandomStream::new(seed, "ib.multicast.stream", i as u64);
                let chosen: Vec<usize> = (0..m).map(|j| (i + j) as usize % PAPER_STREAM_COUNT).collect();
                let sum: f64 = chosen.iter().map(|&k| rates[k]).sum();
                // Headers make the wire rate slightly sub-linear in the
                // scale; the measured offered load is reported beside it.
                let factor = real_time / sum;
                for (j, &k) in chosen.iter().enumerate() {
                    let p = profiles[k];
                    let num = (p.scale() * factor * SCALE_UNIT as f64).round().max(1.0) as u32;
                    let start = rng.below(trace.len() as u32);
                    let profile = StreamProfile { scale_num: num, scale_den: SCALE_UNIT, start };
                    let phase = (rng.uniform() * frame_time(1) as f64) as Time;
                    let dst = other(&mut rng, i, hcas);
                    // Every 1/share-th stream of the HCA is multicast, to a group drawn uniformly.
                    let group = match &multicast {
                        Some(mc) if ((j + 1) as f64 * mc.share).floor() > (j as f64 * mc.share).floor() => {
                            group_rng.below(mc.groups.len() as u32) as u16
                        }
                        _ => NO_GROUP,
                    };
                    video.push(VideoSource {
                        hca: i,
                        dst,
                        bytes_per_s: rates[k] * factor,
                        slot: 0,
                        stream: VideoStream::new(trace.clone(), profile),
                        phase,
                        group,
                        multicast: 0,
                    });
                }
            }
        }
        let be_wire =
            Segmentation::new(spec.best_effort_bytes as u64, TrafficClass::BestEffort.mtu()).total_wire_bytes();
        let best_effort_mean_ps =
            if best_effort > 0.0 { be_wire as f64 / best_effort * time::SECOND as f64 } else { 0.0 };
        let control_period = (spec.control_period_ms * time::MILLISECOND as f64).round() as Time;
        let mut control_rng: Vec<RandomStream> =
            (0..hcas).map(|i| RandomStream::new(seed, "ib.control", i as u64)).collect();
        let control_phase = control_rng.iter_mut().map(|r| (r.uniform() * control_period as f64) as Time).collect();
        let rt_sls: Vec<ServiceLevel> = spec
            .real_time_sls
            .iter()
            .map(|&s| ServiceLevel::new(s, "ib.workload.real_time_sls"))
            .collect::<Result<_>>()?;
        let mut stream_sl = Vec::with_capacity(video.len());
        let mut per_hca = vec![0usize; hcas as usize];
        // Separate multicast VLs: a group's streams take its SLs in turn.
        let mc_sls: &[Vec<ServiceLevel>] = multicast.as_ref().map_or(&[], |m| &m.sls);
        let mut per_group = vec![0usize; hcas as usize * mc_sls.len()];
        for v in &video {
            match mc_sls.get(v.group as usize).filter(|s| !s.is_empty()) {
                Some(sls) => {
                    let k = v.hca as usize * mc_sls.len() + v.group as usize;
                    stream_sl.push(sls[per_group[k] % sls.len()]);
                    per_group[k] += 1;
                }
                None => {
                    stream_sl.push(rt_sls[per_hca[v.hca as usize] % rt_sls.len()]);
                    per_hca[v.hca as usize] += 1;
                }
            }
        }
        let mut received = vec![0u32; hcas as usize];
        let mut multicast_members = Vec::new();
        for v in &mut video {
            if v.group == NO_GROUP {
                v.slot = received[v.dst as usize];
                received[v.dst as usize] += 1;
            } else {
                let groups = multicast.as_ref().expect("multicast streams only with groups").groups;
                let members: Vec<(u32, u32)> = groups
                    .destinations(v.group as usize, v.hca)
                    .map(|d| {
                        received[d as usize] += 1;
                        (d, received[d as usize] - 1)
                    })
                    .collect();
                v.multicast = multicast_members.len() as u32;
                multicast_members.push(members);
            }
        }
        let pattern = match spec.destinations(hcas)? {
            Some(p) => {
                let mut rng = RandomStream::new(seed, "ib.pattern", 0);
                Some(PatternDestinations::new(p, hcas, &mut rng, "ib.workload.pattern")?)
            }
            None => None,
        };
        let mut video_due = vec![BinaryHeap::new(); hcas as usize];
        for (k, v) in video.iter().enumerate() {
            video_due[v.hca as usize].push(Reverse((v.release(0), k as u32)));
        }
        let paced = match spec.video_injection {
            VideoInjection::Whole => Vec::new(),
            VideoInjection::Paced => vec![PacedFrame::default(); video.len()],
        };
        Ok(Sources {
            video,
            paced,
            video_due,
            best_effort_rng: (0..hcas).map(|i| RandomStream::new(seed, "ib.best_effort", i as u64)).collect(),
            best_effort_mean_ps,
            best_effort_bytes: spec.best_effort_bytes,
            best_effort_sls: spec
                .best_effort_sls
                .iter()
                .map(|&s| ServiceLevel::new(s, "ib.workload.best_effort_sls"))
                .collect::<Result<_>>()?,
            control_rng,
            control_period,
            control_phase,
            stream_sl,
            received,
            paths: None,
            pattern,
            multicast_members,
            replicate_at_source: multicast.as_ref().is_some_and(|m| m.at_source),
            hcas,
            stopped: false,
        })
    }

    /// The SLs best-effort messages are drawn from.
    pub fn best_effort_sls(&self) -> &[ServiceLevel] {
        &self.best_effort_sls
    }

    /// Every stream's source, destination and mean rate, in stream order.
    pub fn stream_demands(&self) -> Vec<StreamDemand> {
        self.video.iter().map(|v| StreamDemand { src: v.hca, dst: v.dst, bytes_per_s: v.bytes_per_s }).collect()
    }

    /// Messages carry multipath bits from `paths` from now on.
    pub fn route_by(&mut self, paths: PathChoice) {
        self.paths = Some(paths);
    }

    pub fn paths(&self) -> Option<&PathChoice> {
        self.paths.as_ref()
    }

    /// Video streams HCA `hca` receives.
    pub fn streams_to(&self, hca: u32) -> usize {
        self.received[hca as usize] as usize
    }

    /// Heap bytes of the sources: every stream, each HCA's release heap and random streams.
    pub fn memory_bytes(&self) -> u64 {
        use std::mem::size_of;
        // The pattern's partner and message count per HCA.
        let pattern = if self.pattern.is_some() { 8 } else { 0 };
        let per_hca = size_of::<BinaryHeap<Reverse<(Time, u32)>>>() + 2 * size_of::<RandomStream>() + 4 + pattern;
        (self.video.capacity() * (size_of::<VideoSource>() + size_of::<Reverse<(Time, u32)>>())
            + self.paced.capacity() * size_of::<PacedFrame>()
            + self.hcas as usize * per_hca) as u64
    }

    /// Schedules every HCA's first source events.
    pub fn start(&mut self, cx: &mut impl Schedule<SourceEvent>) {
        for h in 0..self.hcas {
            if let Some(t) = self.next_video(h) {
                cx.push(t, h, SourceEvent::VideoFrame);
            }
            if self.has_best_effort() && self.pattern.as_ref().is_none_or(|p| p.sends(h)) {
                let t = self.best_effort_gap(h);
                cx.push(t, h, SourceEvent::BestEffort);
            }
            if self.has_control() {
                cx.push(self.control_phase[h as usize], h, SourceEvent::Control);
            }
        }
    }

    /// Runs `hca`'s source event `ev`: each message due is built and handed
    /// to `emit` (with the context, for the HCA to send at once), and the
    /// source's next event scheduled.
    #[inline]
    pub fn handle<C: Schedule<SourceEvent>>(
        &mut self,
        cx: &mut C,
        hca: u32,
        ev: SourceEvent,
        mut emit: impl FnMut(&mut C, Message),
    ) {
        if self.stopped {
            return;
        }
        let now = cx.now();
        match ev {
            SourceEvent::VideoFrame => {
                while let Some(stream) = self.due_stream(hca, now) {
                    let mut msg = self.video_message(stream, now);
                    let v = &self.video[stream as usize];
                    if v.group != NO_GROUP {
                        let members = &self.multicast_members[v.multicast as usize];
                        msg.group = v.group;
                        if self.replicate_at_source {
                            for &(dst, slot) in members {
                                emit(cx, Message { dst, stream: slot, ..msg });
                            }
                        } else {
                            // One message for the group's multicast LID, replicated by the switches.
                            emit(
                                cx,
                                Message {
                                    dst: v.group as u32,
                                    stream: v.multicast,
                                    copies: members.len() as u16,
                                    ..msg
                                },
                            );
                        }
                        continue;
                    }
                    if let Some(p) = &self.paths {
                        p.stream(stream, &mut msg);
                    }
                    emit(cx, msg);
                }
                if let Some(t) = self.next_video(hca) {
                    cx.push(t, hca, SourceEvent::VideoFrame);
                }
            }
            SourceEvent::BestEffort => {
                let next = now + self.best_effort_gap(hca);
                cx.push(next, hca, SourceEvent::BestEffort);
                let (sl, dst) = self.best_effort_message(hca);
                let mut msg = Message {
                    t_created: now,
                    seg: Segmentation::new(self.best_effort_bytes as u64, TrafficClass::BestEffort.mtu()),
                    src: hca,
                    dst,
                    stream: NO_STREAM,
                    class: TrafficClass::BestEffort,
                    sl,
                    ..Message::default()
                };
                if let Some(p) = &mut self.paths {
                    p.best_effort(&mut msg);
                }
                emit(cx, msg);
            }
            SourceEvent::Control => {
                cx.push(now + self.control_period, hca, SourceEvent::Control);
                let dst = self.control_destination(hca);
                let class = TrafficClass::Control;
                let msg = Message {
                    t_created: now,
                    seg: Segmentation::new(class.mtu().bytes() as u64, class.mtu()),
                    src: hca,
                    dst,
                    stream: NO_STREAM,
                    class,
                    sl: class.default_sl(),
                    ..Message::default()
                };
                emit(cx, msg);
            }
        }
    }

    /// When `hca`'s next video frame is released.
    pub fn next_video(&self, hca: u32) -> Option<Time> {
        self.video_due[hca as usize].peek().map(|r| r.0 .0)
    }

    /// The next stream of `hca` due no later than `now` ([`Self::video_message`] reschedules it).
    #[inline]
    pub fn due_stream(&mut self, hca: u32, now: Time) -> Option<u32> {
        let heap = &mut self.video_due[hca as usize];
        let &Reverse((t, k)) = heap.peek()?;
        if t > now {
            return None;
        }
        heap.pop();
        Some(k)
    }

    pub fn has_best_effort(&self) -> bool {
        self.best_effort_mean_ps > 0.0
    }

    pub fn has_control(&self) -> bool {
        self.control_period > 0
    }

    /// Time to the next best-effort message of `hca`.
    #[inline]
    pub fn best_effort_gap(&mut self, hca: u32) -> Time {
        (self.best_effort_rng[hca as usize].exponential(self.best_effort_mean_ps).round() as Time).max(1)
    }

    /// SL and destination of a best-effort message of `hca`.
    #[inline]
    pub fn best_effort_message(&mut self, hca: u32) -> (ServiceLevel, u32) {
        let rng = &mut self.best_effort_rng[hca as usize];
        let sl = match self.best_effort_sls.len() {
            1 => self.best_effort_sls[0],
            n => self.best_effort_sls[rng.below(n as u32) as usize],
        };
        let dst = match &mut self.pattern {
            None => other(rng, hca, self.hcas),
            Some(p) => p.next(hca, rng),
        };
        (sl, dst)
    }

    /// Destination of the next control packet of `hca`.
    #[inline]
    pub fn control_destination(&mut self, hca: u32) -> u32 {
        other(&mut self.control_rng[hca as usize], hca, self.hcas)
    }

    pub fn stop(&mut self) {
        self.stopped = true;
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }
}

/// A uniformly drawn HCA other than `me`.
#[inline]
fn other(rng: &mut RandomStream, me: u32, n: u32) -> u32 {
    let d = rng.below(n - 1);
    if d >= me {
        d + 1
    } else {
        d
    }
}

#[cfg(test)]
mod tests;
