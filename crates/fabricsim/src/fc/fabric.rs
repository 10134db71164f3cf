//! A Fibre Channel fabric: switches and terminal nodes wired port to port,
//! with the event loop that drives them.
//!
//! Components own their protocol state (the crossbar scheduler inside the
//! switch, credits inside the N_Port); they talk only by scheduling events
//! for one another, so a reader can follow one frame from `NPort::try_send`
//! through `FcSwitch` to `NPort::on_frame_delivered`.

use std::time::Instant;

use super::frame::{Frame, Message};
use super::metrics::FcMetrics;
use super::node::{new_message, NPort};
use super::switch::{FcSwitch, Peer};
use super::timing::FcTiming;
use crate::kernel::stats::{StopDecision, StopRule};
use crate::kernel::{time, Arena, EventQueue, Time};
use crate::report::{MetricSummary, RunInfo, RunReport, StopReason};
use crate::scenario::{Error, FabricKind, Result, Scenario};
use crate::traffic::MessageSource;

/// Everything that happens in a Fibre Channel fabric. Frames travel by
/// arena index, keeping an event at 12 bytes.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A Poisson message arrival at `node`.
    MessageArrival { node: u32 },
    /// `node`'s transmitter has sent a frame's last byte.
    TransmitDone { node: u32 },
    /// The first byte of `frame` reaches input `port` of `switch`.
    FrameStart { switch: u32, port: u16, frame: u32 },
    /// The header of `frame` is complete at input `port` of `switch`.
    HeaderArrived { switch: u32, port: u16, frame: u32 },
    /// The router of `switch` has read a header.
    RouteDone { switch: u32 },
    /// The last byte of the frame crossing to output `port` has left `switch`.
    TransferDone { switch: u32, port: u16 },
    /// `node` has completely received `frame`.
    FrameDelivered { node: u32, frame: u32 },
    /// A buffer-to-buffer credit (R_RDY) reaches `node`.
    CreditToNode { node: u32 },
    /// A buffer-to-buffer credit reaches output `port` of `switch`.
    CreditToSwitch { switch: u32, port: u16 },
}

/// What a component may touch while handling an event.
pub struct Ctx<'a> {
    pub now: Time,
    pub queue: &'a mut EventQueue<Event>,
    pub frames: &'a mut Arena<Frame>,
    pub messages: &'a mut Arena<Message>,
    pub timing: &'a FcTiming,
    pub metrics: &'a mut FcMetrics,
}

pub struct FcFabric {
    now: Time,
    queue: EventQueue<Event>,
    frames: Arena<Frame>,
    messages: Arena<Message>,
    timing: FcTiming,
    pub metrics: FcMetrics,
    switches: Vec<FcSwitch>,
    nodes: Vec<NPort>,
    sources: Vec<MessageSource>,
    events: u64,
    scenario: Scenario,
}

macro_rules! ctx {
    ($s:ident) => {
        Ctx {
            now: $s.now,
            queue: &mut $s.queue,
            frames: &mut $s.frames,
            messages: &mut $s.messages,
            timing: &$s.timing,
            metrics: &mut $s.metrics,
        }
    };
}

impl FcFabric {
    /// Builds the fabric a (validated) scenario describes.
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let timing = FcTiming::new(scenario);
        let buffers = scenario.switch.buffers_per_port;
        let (switches, attachments) = match scenario.fabric.kind {
            FabricKind::Switch => {
                let ports = scenario.switch.ports;
                let peers: Vec<Peer> = (0..ports).map(Peer::Node).collect();
                let forwarding = (0..ports as u16).collect();
                let sw = FcSwitch::new(0, &peers, buffers, buffers, forwarding);
                let attachments: Vec<(u32, u16)> = (0..ports).map(|p| (0, p as u16)).collect();
                (vec![sw], attachments)
            }
        };
        let n = attachments.len() as u32;
        let p = &scenario.protocol;
        let nodes = attachments
            .iter()
            .enumerate()
            .map(|(i, &(sw, port))| NPort::new(i as u32, sw, port, p.class, buffers, p.end_to_end_credit, n))
            .collect();
        let sources = (0..n)
            .map(|i| MessageSource::new(&scenario.workload, scenario.run.seed, i, n, timing.data_time))
            .collect();
        let ports: Vec<usize> = switches.iter().map(|s| s.ports()).collect();
        let metrics = FcMetrics::new(&ports, buffers, scenario.run.batches, 10 * timing.data_time);
        Ok(FcFabric {
            now: 0,
            queue: EventQueue::with_capacity(4096),
            frames: Arena::with_capacity(4096),
            messages: Arena::with_capacity(4096),
            timing,
            metrics,
            switches,
            nodes,
            sources,
            events: 0,
            scenario: scenario.clone(),
        })
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn switch(&self, i: usize) -> &FcSwitch {
        &self.switches[i]
    }

    /// Frames currently allocated (generated and not yet delivered).
    pub fn frames_alive(&self) -> usize {
        self.frames.live()
    }

    /// Schedules the first message of every active source.
    fn start(&mut self) {
        for i in 0..self.sources.len() {
            if !self.sources[i].is_active() {
                continue;
            }
            if self.sources[i].is_saturated() {
                let mut ctx = ctx!(self);
                let m = new_message(&mut ctx, &mut self.sources[i], i as u32);
                self.nodes[i].enqueue_message(&mut ctx, &mut self.sources[i], m);
            } else {
                let t = self.sources[i].next_interarrival();
                self.queue.push(t, Event::MessageArrival { node: i as u32 });
            }
        }
    }

    /// Runs one event; returns false when none is left or the next is past `limit`.
    #[inline]
    fn step(&mut self, limit: Time) -> bool {
        match self.queue.peek_time() {
            Some(t) if t <= limit => {}
            _ => return false,
        }
        let (t, ev) = self.queue.pop().expect("peeked");
        self.now = t;
        self.events += 1;
        self.dispatch(ev);
        true
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let mut ctx = ctx!(self);
        match ev {
            Event::MessageArrival { node } => {
                let n = node as usize;
                let source = &mut self.sources[n];
                if source.is_stopped() {
                    return;
                }
                let next = ctx.now + source.next_interarrival();
                ctx.queue.push(next, Event::MessageArrival { node });
                let m = new_message(&mut ctx, source, node);
                self.nodes[n].enqueue_message(&mut ctx, source, m);
            }
            Event::TransmitDone { node } => {
                let n = node as usize;
                self.nodes[n].on_transmit_done(&mut ctx, &mut self.sources[n]);
            }
            Event::FrameStart { switch, port, frame } => {
                self.switches[switch as usize].on_frame_start(&mut ctx, port as usize, frame);
            }
            Event::HeaderArrived { switch, port, frame } => {
                self.switches[switch as usize].on_header_arrived(&mut ctx, port as usize, frame);
            }
            Event::RouteDone { switch } => self.switches[switch as usize].on_route_done(&mut ctx),
            Event::TransferDone { switch, port } => {
                self.switches[switch as usize].on_transfer_done(&mut ctx, port as usize);
            }
            Event::FrameDelivered { node, frame } => {
                let n = node as usize;
                self.nodes[n].on_frame_delivered(&mut ctx, &mut self.sources[n], frame);
            }
            Event::CreditToNode { node } => {
                let n = node as usize;
                self.nodes[n].on_credit(&mut ctx, &mut self.sources[n]);
            }
            Event::CreditToSwitch { switch, port } => {
                self.switches[switch as usize].on_credit(&mut ctx, port as usize);
            }
        }
    }

    /// Runs the measurement plan: warm-up, then until the stop rule fires.
    pub fn run(&mut self) -> Result<RunReport> {
        let wall = Instant::now();
        let plan = self.scenario.run.clone();
        let max_time = (plan.max_time_ms * time::MILLISECOND as f64) as Time;
        let rule = StopRule {
            relative_precision: plan.precision,
            max_observations: plan.max_frames,
            min_observations: plan.min_frames,
        };
        self.start();
        let mut warmed = plan.warmup_frames == 0;
        let mut warmup_end = 0;
        let reason = loop {
            // Check the plan every 1024 events: cheap, and fine-grained enough.
            let mut alive = true;
            for _ in 0..1024 {
                if !self.step(max_time) {
                    alive = false;
                    break;
                }
            }
            if !alive {
                break if self.queue.is_empty() { StopReason::Idle } else { StopReason::MaxTime };
            }
            if !warmed {
                if self.metrics.counters.data_frames_delivered >= plan.warmup_frames {
                    self.metrics.reset(self.now);
                    warmup_end = self.now;
                    warmed = true;
                }
                continue;
            }
            let intervals = [
                self.metrics.frame_latency.interval(),
                self.metrics.message_latency.interval(),
                self.metrics.throughput_interval(),
            ];
            match rule.decide(self.metrics.measured_frames(), &intervals) {
                StopDecision::Continue => {}
                StopDecision::PrecisionReached => break StopReason::Precision,
                StopDecision::MaxObservations => break StopReason::MaxFrames,
            }
        };
        let stop_time = self.now;
        self.metrics.finish(stop_time);
        let metrics = self.metric_summaries(stop_time);
        if plan.drain {
            self.sources.iter_mut().for_each(MessageSource::stop);
            while self.step(Time::MAX) {}
        }
        let counters = self.counters()?;
        let wall_s = wall.elapsed().as_secs_f64();
        let c = &self.metrics.counters;
        let frames = (c.data_frames_delivered + c.ack_frames_delivered) as f64;
        Ok(RunReport {
            scenario: self.scenario.to_json(),
            metrics,
            counters,
            run: RunInfo {
                sim_time_us: time::to_us(stop_time),
                warmup_time_us: time::to_us(warmup_end),
                measured_time_us: time::to_us(stop_time - self.metrics.measure_start()),
                wall_time_s: wall_s,
                events: self.events,
                events_per_s: self.events as f64 / wall_s.max(1e-9),
                frames_per_s: frames / wall_s.max(1e-9),
                stop_reason: reason,
            },
        })
    }

    fn metric_summaries(&self, now: Time) -> Vec<(String, MetricSummary)> {
        let m = &self.metrics;
        let sources = self.sources.iter().filter(|s| s.is_active()).count().max(1) as f64;
        let mut out = vec![
            ("throughput_pct".to_string(), m.throughput_summary(now, self.timing.rate.ps_per_byte(), sources)),
            ("offered_load_pct".to_string(), MetricSummary::value(self.scenario.workload.offered_load * 100.0)),
            ("message_latency_us".to_string(), m.message_latency.summary()),
            ("message_wait_us".to_string(), m.message_wait.summary()),
            ("frame_latency_us".to_string(), m.frame_latency.summary()),
        ];
        if self.scenario.protocol.class == 2 {
            out.push(("ack_latency_us".to_string(), m.ack_latency.summary()));
            out.push(("round_trip_latency_us".to_string(), m.round_trip_latency.summary()));
        }
        out.push(("buffer_usage".to_string(), m.buffer_summary(now)));
        out
    }

    /// Totals and the conservation audit: every generated frame is either
    /// delivered or still in the fabric, and the frame arena agrees.
    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.metrics.counters;
        let data_in_flight = c.data_frames_injected as i64 - c.data_frames_delivered as i64;
        let ack_in_flight = c.ack_frames_generated as i64 - c.ack_frames_delivered as i64;
        if self.frames.live() as i64 != data_in_flight + ack_in_flight {
            return Err(Error::model(format!(
                "frame conservation violated: {} frames alive, but {} data + {} ACK frames unaccounted for",
                self.frames.live(),
                data_in_flight,
                ack_in_flight
            )));
        }
        let min_credit = self.nodes.iter().map(|n| n.min_e2e_credit).min().unwrap_or(0);
        Ok(vec![
            ("messages_generated".into(), c.messages_generated as i64),
            ("messages_completed".into(), c.messages_completed as i64),
            ("messages_in_progress".into(), c.messages_generated as i64 - c.messages_completed as i64),
            ("data_frames_injected".into(), c.data_frames_injected as i64),
            ("data_frames_delivered".into(), c.data_frames_delivered as i64),
            ("data_frames_in_flight".into(), data_in_flight),
            ("ack_frames_generated".into(), c.ack_frames_generated as i64),
            ("ack_frames_delivered".into(), c.ack_frames_delivered as i64),
            ("ack_frames_in_flight".into(), ack_in_flight),
            ("frames_in_flight".into(), self.frames.live() as i64),
            ("max_buffers_used".into(), self.metrics.max_buffers_used as i64),
            ("min_end_to_end_credit".into(), min_credit as i64),
            ("events".into(), self.events as i64),
        ])
    }
}
