//! A Fibre Channel fabric: switches and terminal nodes wired port to port,
//! with the event loop that drives them.
//!
//! Components own their protocol state (the crossbar scheduler inside the
//! switch, credits inside the N_Port); they talk only by scheduling events
//! for one another, so a reader can follow one frame from `NPort::try_send`
//! through `FcSwitch` to `NPort::on_frame_delivered`.

use super::connection::Connection;
use super::frame::{Frame, Message};
use super::metrics::{FcMetrics, FcMetricsSpec};
use super::node::{new_message, NPort, NPortSpec};
use super::switch::FcSwitch;
use super::timing::FcTiming;
use crate::error::{Error, Result};
use crate::fabric::deadlock::find_cycle;
use crate::fabric::{ForwardingTables, PortUse, Topology};
use crate::kernel::{time, Arena, EventQueue, RandomStream, Time};
use crate::report::MetricSummary;
use crate::scenario::{Arrivals, FcFabricSpec, Pattern, Scenario, WorkloadSpec};
use crate::sim::driver::{accepted_below_offered, Metrics};
use crate::sim::{ComponentKind, Context, Link, MetricSet, Model, ModelInfo, PortEvents, PortRef, Status, Summary};
use crate::traffic::{Destinations, MessageSource, SourcePlace};

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
    /// Class 1: the F_BSY answering a connect request reaches its source.
    ConnectRefused { connection: u32 },
    /// Class 1: a refused node's back-off has ended.
    RetryConnect { node: u32 },
    /// Class 1: release a finished connection's reserved path.
    Teardown { connection: u32 },
    /// The first byte of `frame` reaches loop bridge `bridge` (switched loops).
    FrameAtBridge { bridge: u32, frame: u32 },
    /// A buffer-to-buffer credit reaches loop bridge `bridge` (switched loops).
    CreditToBridge { bridge: u32 },
}

/// What a component may touch while handling an event.
pub struct Ctx<'a> {
    pub now: Time,
    pub queue: &'a mut EventQueue<Event>,
    pub frames: &'a mut Arena<Frame>,
    pub messages: &'a mut Arena<Message>,
    pub connections: &'a mut Arena<Connection>,
    pub timing: &'a FcTiming,
    pub metrics: &'a mut FcMetrics,
}

/// Frames and credits reaching the far end of a link become this fabric's events.
impl PortEvents for Ctx<'_> {
    #[inline(always)]
    fn frame_head(&mut self, to: PortRef, frame: u32, at: Time) {
        match to.kind {
            ComponentKind::Switch => self.queue.push(at, Event::FrameStart { switch: to.index, port: to.port, frame }),
            ComponentKind::LoopBridge => self.queue.push(at, Event::FrameAtBridge { bridge: to.index, frame }),
            other => {
                unreachable!("an FC fabric buffers frames in flight only at switches and bridges, not at a {other:?}")
            }
        }
    }

    #[inline]
    fn frame_received(&mut self, to: PortRef, frame: u32, at: Time) {
        match to.kind {
            ComponentKind::Node => self.queue.push(at, Event::FrameDelivered { node: to.index, frame }),
            other => unreachable!("an FC fabric delivers whole frames only to terminal nodes, not to a {other:?}"),
        }
    }

    #[inline]
    fn credit(&mut self, to: PortRef, at: Time) {
        match to.kind {
            ComponentKind::Node => self.queue.push(at, Event::CreditToNode { node: to.index }),
            ComponentKind::Switch => self.queue.push(at, Event::CreditToSwitch { switch: to.index, port: to.port }),
            ComponentKind::LoopBridge => self.queue.push(at, Event::CreditToBridge { bridge: to.index }),
            other => unreachable!("no {other:?} in an FC fabric"),
        }
    }
}

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, EventQueue<Event>>;

pub struct FcFabric {
    frames: Arena<Frame>,
    messages: Arena<Message>,
    connections: Arena<Connection>,
    /// Class 1 back-off draws and their mean, in picoseconds.
    backoff_rng: RandomStream,
    backoff_mean_ps: f64,
    timing: FcTiming,
    pub metrics: FcMetrics,
    switches: Vec<FcSwitch>,
    nodes: Vec<NPort>,
    sources: Vec<MessageSource>,
    node_switch: Vec<u32>,
    scenario: Scenario,
}

macro_rules! ctx {
    ($s:ident, $cx:ident) => {
        Ctx {
            now: $cx.now(),
            queue: $cx.queue_mut(),
            frames: &mut $s.frames,
            messages: &mut $s.messages,
            connections: &mut $s.connections,
            timing: &$s.timing,
            metrics: &mut $s.metrics,
        }
    };
}

impl FcFabric {
    /// Builds the fabric a (validated) scenario describes.
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let fc = scenario.fc_fabric()?;
        let timing = FcTiming::new(fc);
        let buffers = fc.switch.buffers_per_port;
        let topo = Topology::from_spec(&fc.topology, fc.switch.ports)?;
        let tables = ForwardingTables::build(&topo, fc.topology.kind, &fc.routing)?;
        let map = topo.port_map();
        let peer = topo.peer_ports();
        let mut attachments = vec![(0u32, 0u16); topo.endpoint_count() as usize];
        let mut switches = Vec::with_capacity(map.len());
        for (s, ports) in map.iter().enumerate() {
            let peers: Vec<Option<Link>> = ports
                .iter()
                .enumerate()
                .map(|(p, u)| match *u {
                    PortUse::Endpoint(n) => {
                        attachments[n as usize] = (s as u32, p as u16);
                        Some(Link::new(PortRef::node(n), timing.propagation))
                    }
                    PortUse::Link { to, .. } => {
                        let q = peer[s][p].expect("trunks are wired both ways");
                        Some(Link::new(PortRef::switch(to, q), timing.propagation))
                    }
                    PortUse::Free => None,
                })
                .collect();
            switches.push(FcSwitch::new(
                s as u32,
                &peers,
                buffers,
                buffers,
                &tables.ports[s],
                fc.switch.arbitration,
                scenario.run.seed,
            ));
        }
        let n = attachments.len() as u32;
        let p = &fc.protocol;
        let spec = NPortSpec { class: p.class, bb_credit: buffers, e2e_credit: p.end_to_end_credit, nodes: n };
        let nodes = attachments
            .iter()
            .enumerate()
            .map(|(i, &(sw, port))| {
                NPort::new(i as u32, Link::new(PortRef::switch(sw, port), timing.propagation), spec)
            })
            .collect();
        let destinations = destinations(&fc.workload, &topo)?;
        let sources = destinations
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let place =
                    SourcePlace { seed: scenario.run.seed, node: i as u32, nodes: n, frame_time: timing.data_time };
                MessageSource::new(&fc.workload, place, d)
            })
            .collect();
        let ports: Vec<usize> = switches.iter().map(|s| s.ports()).collect();
        let metrics = FcMetrics::new(
            &ports,
            FcMetricsSpec {
                buffers,
                batches: scenario.run.batches,
                batch_ps: 10 * timing.data_time,
                nodes: n as usize,
                class: p.class,
            },
        );
        Ok(FcFabric {
            frames: Arena::with_capacity(4096),
            messages: Arena::with_capacity(4096),
            connections: Arena::with_capacity(256),
            backoff_rng: RandomStream::new(scenario.run.seed, "class1.backoff", 0),
            backoff_mean_ps: p.class1_retry_us * time::MICROSECOND as f64,
            timing,
            metrics,
            switches,
            nodes,
            sources,
            node_switch: topo.endpoint_switch(),
            scenario: scenario.clone(),
        })
    }

    fn spec(&self) -> &FcFabricSpec {
        self.scenario.fc_fabric().expect("built from a Fibre Channel fabric scenario")
    }

    pub fn switch(&self, i: usize) -> &FcSwitch {
        &self.switches[i]
    }

    /// Frames currently allocated (generated and not yet delivered).
    pub fn frames_alive(&self) -> usize {
        self.frames.live()
    }

    /// Schedules the first message of every active source.
    fn start(&mut self, cx: &mut Cx) {
        for i in 0..self.sources.len() {
            if !self.sources[i].is_active() {
                continue;
            }
            if self.sources[i].is_saturated() {
                let mut ctx = ctx!(self, cx);
                let m = new_message(&mut ctx, &mut self.sources[i], i as u32);
                self.nodes[i].enqueue_message(&mut ctx, &mut self.sources[i], m);
            } else {
                let t = self.sources[i].next_interarrival();
                cx.schedule(t, Event::MessageArrival { node: i as u32 });
            }
        }
    }

    #[inline]
    fn handle(&mut self, cx: &mut Cx, ev: Event) {
        let mut ctx = ctx!(self, cx);
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
            Event::ConnectRefused { connection } => {
                let c = ctx.connections[connection];
                for &(sw, i, o) in c.reserved() {
                    self.switches[sw as usize].release(connection, i as usize, o as usize);
                }
                ctx.connections[connection].hops = 0;
                let backoff = (self.backoff_rng.uniform() * 2.0 * self.backoff_mean_ps).round() as Time;
                let retry_at = ctx.now + backoff;
                self.nodes[c.src as usize].on_connect_refused(&mut ctx, retry_at);
            }
            Event::RetryConnect { node } => {
                let n = node as usize;
                self.nodes[n].on_retry(&mut ctx, &mut self.sources[n]);
            }
            Event::Teardown { connection } => {
                let c = ctx.connections[connection];
                for &(sw, i, o) in c.reserved() {
                    self.switches[sw as usize].release(connection, i as usize, o as usize);
                }
                // No frame waits for held ports (connect requests are refused
                // at once), so releasing them starts nothing.
                ctx.connections.remove(connection);
            }
            e @ (Event::FrameAtBridge { .. } | Event::CreditToBridge { .. }) => {
                unreachable!("an FC fabric has no loop bridges: {e:?}")
            }
        }
    }

    /// Looks for a cycle in the wait-for graph of trunk input buffers; on one,
    /// describes it (time, the trunks of the cycle, the frames stuck in them).
    fn find_deadlock(&self, now: Time) -> Option<serde_json::Value> {
        let mut g: petgraph::graphmap::DiGraphMap<(u32, u16), ()> = petgraph::graphmap::DiGraphMap::new();
        for sw in &self.switches {
            for (a, b) in sw.blocked_trunk_waits(&self.frames) {
                g.add_edge(a, b, ());
            }
        }
        let cycle = find_cycle(&g)?;
        let mut stuck = 0;
        let trunks: Vec<String> = cycle
            .iter()
            .map(|&(s, p)| {
                let sw = &self.switches[s as usize];
                stuck += sw.buffers_used(p as usize);
                match sw.input_peer(p as usize) {
                    Some(from) if from.kind == ComponentKind::Switch => format!(
                        "switch {} -> switch {} (input port {p} of switch {}, {} buffers full)",
                        from.index + 1,
                        s + 1,
                        s + 1,
                        sw.buffers_used(p as usize)
                    ),
                    _ => format!("switch {} input port {p}", s + 1),
                }
            })
            .collect();
        Some(serde_json::json!({
            "time_us": time::to_us(now),
            "cycle": trunks,
            "frames_stuck_in_cycle": stuck,
            "frames_in_fabric": self.frames.live(),
        }))
    }

    /// Per terminal node: its switch, accepted throughput and message latency
    /// as a source, and Jain's fairness index over the sending nodes.
    fn per_node_table(&self, now: Time) -> serde_json::Value {
        let span = (now - self.metrics.measure_start()).max(1) as f64;
        let frame_ps = self.timing.data_time as f64;
        let rows: Vec<serde_json::Value> = self
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_active())
            .map(|(i, _)| {
                let (frames, latency, completed) = self.metrics.source(i);
                serde_json::json!({
                    "node": i,
                    "switch": self.node_switch[i] + 1,
                    "data_frames_delivered": frames,
                    "throughput_pct": frames as f64 * frame_ps / span * 100.0,
                    "message_latency_us": latency,
                    "messages_completed": completed,
                })
            })
            .collect();
        serde_json::Value::Array(rows)
    }

    /// Jain's fairness index of per-source throughput: 1 when every sending
    /// node gets the same, 1/n when one node gets everything.
    fn jain_index(&self) -> f64 {
        let xs: Vec<f64> = self
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_active())
            .map(|(i, _)| self.metrics.source(i).0 as f64)
            .collect();
        let sum: f64 = xs.iter().sum();
        let sq: f64 = xs.iter().map(|x| x * x).sum();
        if sq == 0.0 {
            f64::NAN
        } else {
            sum * sum / (xs.len() as f64 * sq)
        }
    }

    fn metric_summaries(&self, now: Time) -> Vec<(String, MetricSummary)> {
        let m = &self.metrics;
        let sources = self.sources.iter().filter(|s| s.is_active()).count().max(1) as f64;
        let mut out =
            vec![("throughput_pct".to_string(), m.throughput_summary(now, self.timing.rate.ps_per_byte(), sources))];
        // Saturated sources offer whatever the fabric takes: no offered load to show.
        if self.spec().workload.arrivals == Arrivals::Poisson {
            out.push(("offered_load_pct".to_string(), MetricSummary::value(self.spec().workload.offered_load * 100.0)));
        }
        // Every latency probe the class has, in registration order.
        out.extend(m.set.duration_summaries());
        out.push(("buffer_usage".to_string(), m.buffer_summary(now)));
        out.push(("fairness_jain".to_string(), MetricSummary::value(self.jain_index())));
        // Link utilization: the share of time outputs spent sending frames.
        let span = (now - m.measure_start()).max(1) as f64;
        let trunks: usize = self.switches.iter().map(|s| s.trunk_ports()).sum();
        let node_links: usize = self.switches.iter().map(|s| s.node_ports()).sum();
        if trunks > 0 {
            let u = m.trunk_busy_ps() as f64 / (trunks as f64 * span) * 100.0;
            out.push(("trunk_utilization_pct".to_string(), MetricSummary::value(u)));
        }
        let u = m.node_link_busy_ps() as f64 / (node_links.max(1) as f64 * span) * 100.0;
        out.push(("node_link_utilization_pct".to_string(), MetricSummary::value(u)));
        out
    }

    /// Totals and the conservation audit: every generated frame is either
    /// delivered or still in the fabric, and the frame arena agrees.
    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.metrics.counters;
        let data_in_flight =
            c.data_frames_injected as i64 - c.data_frames_delivered as i64 - c.data_frames_refused as i64;
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
            ("data_frames_refused".into(), c.data_frames_refused as i64),
            ("data_frames_in_flight".into(), data_in_flight),
            ("connect_requests".into(), c.connect_requests as i64),
            ("ack_frames_generated".into(), c.ack_frames_generated as i64),
            ("ack_frames_delivered".into(), c.ack_frames_delivered as i64),
            ("ack_frames_in_flight".into(), ack_in_flight),
            ("frames_in_flight".into(), self.frames.live() as i64),
            ("switch_traversals".into(), c.switch_traversals as i64),
            ("max_buffers_used".into(), self.metrics.max_buffers_used as i64),
            ("min_end_to_end_credit".into(), min_credit as i64),
        ])
    }

    fn result_flags(&self, metrics: &Metrics) -> Vec<String> {
        let mut flags = Vec::new();
        if self.metrics.counters.data_frames_injected == 0 {
            flags.push("no_traffic".to_string());
        }
        // Poisson sources should see their offered load accepted.
        if accepted_below_offered(metrics, "offered_load_pct", "throughput_pct") {
            flags.push("accepted_below_offered".to_string());
        }
        flags
    }
}

impl Model for FcFabric {
    type Event = Event;
    type Queue = EventQueue<Event>;

    /// No data frame delivered for 1000 frame times while frames are in
    /// flight means something is stuck: look for a cycle of full trunk buffers.
    fn info(&self) -> ModelInfo {
        ModelInfo { unit: "data frames", quiet_window: Some(1000 * self.timing.data_time), deadlock_check_period: None }
    }

    fn event_set(&self) -> EventQueue<Event> {
        EventQueue::with_capacity(4096)
    }

    fn start(&mut self, cx: &mut Cx) -> Time {
        FcFabric::start(self, cx);
        0
    }

    #[inline]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    fn status(&self) -> Status {
        Status {
            observations: self.metrics.counters.data_frames_delivered,
            in_flight: self.frames.live() as u64,
            memory_bytes: self.frames.memory_bytes()
                + self.messages.memory_bytes()
                + self.connections.memory_bytes()
                + self.nodes.iter().map(NPort::memory_bytes).sum::<u64>(),
        }
    }

    fn frames_moved(&self) -> u64 {
        let c = &self.metrics.counters;
        c.data_frames_delivered + c.ack_frames_delivered
    }

    fn metrics(&self) -> &MetricSet {
        &self.metrics.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.metrics.reset(now);
    }

    fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        FcFabric::find_deadlock(self, now)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        self.metrics.finish(stop);
        let metrics = self.metric_summaries(stop);
        let flags = self.result_flags(&metrics);
        Summary { metrics, sections: vec![("per_node".to_string(), self.per_node_table(stop))], flags }
    }

    fn stop_sources(&mut self) {
        self.sources.iter_mut().for_each(MessageSource::stop);
    }

    fn audit(&self, _events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters()
    }

    fn backlog(&self) -> u64 {
        let c = &self.metrics.counters;
        c.messages_generated - c.messages_completed
    }

    /// The longest source queue, and the busiest router and links since the
    /// start: with a backlog that keeps growing, one of them is saturated.
    fn overload_report(&self, now: Time) -> serde_json::Value {
        let span = now.max(1) as f64;
        let (node, longest) = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (i, n.queued_messages()))
            .max_by_key(|&(_, q)| q)
            .unwrap_or((0, 0));
        let (router, router_busy) = self
            .switches
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.headers_routed as f64 * self.timing.route_time as f64 / span))
            .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
        let injected = self.metrics.counters.data_frames_injected as f64;
        let node_links = injected * self.timing.data_time as f64
            / span
            / self.sources.iter().filter(|s| s.is_active()).count().max(1) as f64;
        let saturated = if router_busy >= node_links {
            format!("the router of switch {} ({:.1}% busy reading headers)", router + 1, router_busy * 100.0)
        } else {
            format!("the sending nodes' links ({:.1}% busy on average)", node_links * 100.0)
        };
        serde_json::json!({
            "messages_waiting": self.backlog(),
            "longest_queue": {"node": node, "messages": longest},
            "busiest_router": {"switch": router + 1, "utilization": router_busy},
            "node_link_utilization": node_links,
            "saturated": saturated,
        })
    }
}

/// Where each node's messages go under the scenario's traffic pattern.
fn destinations(w: &WorkloadSpec, topo: &Topology) -> Result<Vec<Destinations>> {
    let n = topo.endpoint_count();
    let node_switch = topo.endpoint_switch();
    Ok(match w.pattern {
        Pattern::Uniform => vec![Destinations::AllOthers; n as usize],
        Pattern::Pair => {
            let [src, dst] = w.pair.expect("validated: pair given");
            if src >= n || dst >= n {
                return Err(Error::invalid(
                    "workload.pair",
                    format!("[{src}, {dst}]"),
                    format!("node numbers below {n}"),
                ));
            }
            (0..n).map(|i| if i == src { Destinations::Among(vec![dst]) } else { Destinations::Silent }).collect()
        }
        Pattern::ToSwitch => {
            let switches = topo.switch_count() as u32;
            let d = w.destination_switch.expect("validated: destination_switch given");
            if d < 1 || d > switches {
                return Err(Error::invalid("workload.destination_switch", d, format!("a switch from 1 to {switches}")));
            }
            let sources: Vec<u32> = match &w.source_switches {
                Some(list) => {
                    for &s in list {
                        if s < 1 || s > switches {
                            return Err(Error::invalid(
                                "workload.source_switches",
                                s,
                                format!("switches from 1 to {switches}"),
                            ));
                        }
                    }
                    list.clone()
                }
                None => (1..=switches).filter(|&s| s != d).collect(),
            };
            let targets: Vec<u32> = (0..n).filter(|&i| node_switch[i as usize] + 1 == d).collect();
            if targets.is_empty() {
                return Err(Error::invalid("workload.destination_switch", d, "a switch with terminal nodes"));
            }
            (0..n)
                .map(|i| {
                    if sources.contains(&(node_switch[i as usize] + 1)) {
                        Destinations::Among(targets.iter().copied().filter(|&t| t != i).collect())
                    } else {
                        Destinations::Silent
                    }
                })
                .collect()
        }
    })
}
