//! A Fibre Channel fabric: switches and terminal nodes wired port to port,
//! with the event loop that drives them.
//!
//! Components own their protocol state (the crossbar scheduler inside the
//! switch, credits inside the N_Port); they talk only by scheduling events
//! for one another, so a reader can follow one frame from `NPort::try_send`
//! through `FcSwitch` to `NPort::on_frame_delivered`.

use super::connection::{Connections, Refusal, Teardown};
use super::credit_mail::CreditMail;
use super::follow_on::FollowOns;
use super::frame::FrameId;
use super::metrics::{FcMetrics, FcMetricsSpec};
use super::node::{NPort, NPortSpec, NodeEvent};
use super::shared::Shared;
use super::switch::{FcSwitch, FcSwitchSpec, SwitchEvent};
use super::timing::FcTiming;
use super::wiring;
use crate::error::{Error, Result};
use crate::fabric::wait_for::wait_for_cycle;
use crate::fabric::{FarEnd, Wiring};
use crate::kernel::{time, Arena, CalendarQueue, EventSet, Time};
use crate::report::MetricSummary;
use crate::scenario::{Arrivals, FcFabricSpec, Scenario};
use crate::sim::model::{accepted_below_offered, Metrics};
use crate::sim::{
    Carries, Clocked, ComponentKind, Context, Delivery, Link, MetricSet, Model, ModelInfo, PortRef, Status, Summary,
};
use crate::traffic::patterns::jain_index;
use crate::traffic::workload::fabric_destinations;
use crate::traffic::{MessageSource, SourcePlace};

/// Every event of the fabric, flat so that it stays 12 bytes: each
/// component's own events and what its links deliver, with the index of the
/// component they are for. Frames travel by arena index.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// An event of terminal node `node`.
    Node { node: u32, ev: NodeEvent },
    /// `node` has completely received `frame`.
    FrameDelivered { node: u32, frame: FrameId },
    /// A buffer-to-buffer credit (R_RDY) reaches `node`.
    CreditToNode { node: u32 },
    /// The first byte of `frame` reaches input `port` of `switch`.
    FrameStart { switch: u32, port: u16, frame: FrameId },
    /// The earliest header not yet in reaches the idle router of `switch`.
    HeaderArrived { switch: u32 },
    /// The router of `switch` has read a header.
    RouteDone { switch: u32 },
    /// The last byte of the frame crossing to output `port` has left `switch`.
    TransferDone { switch: u32, port: u16 },
    /// A buffer-to-buffer credit reaches output `port` of `switch`.
    CreditToSwitch { switch: u32, port: u16 },
    /// Class 1: the F_BSY answering `connection`'s request reaches its source.
    Refused { connection: u32 },
    /// Class 1: release the finished `connection`'s path.
    Teardown { connection: u32 },
}

impl Carries<NodeEvent> for Event {
    #[inline(always)]
    fn wrap(node: u32, ev: NodeEvent) -> Self {
        Event::Node { node, ev }
    }
}

impl Carries<SwitchEvent> for Event {
    #[inline(always)]
    fn wrap(switch: u32, ev: SwitchEvent) -> Self {
        match ev {
            SwitchEvent::HeaderArrived => Event::HeaderArrived { switch },
            SwitchEvent::RouteDone => Event::RouteDone { switch },
            SwitchEvent::TransferDone { port } => Event::TransferDone { switch, port },
        }
    }
}

impl Carries<Refusal> for Event {
    #[inline(always)]
    fn wrap(connection: u32, _: Refusal) -> Self {
        Event::Refused { connection }
    }
}

impl Carries<Teardown> for Event {
    #[inline(always)]
    fn wrap(connection: u32, _: Teardown) -> Self {
        Event::Teardown { connection }
    }
}

/// A fabric's links lead to switches and terminal nodes only.
impl Carries<Delivery> for Event {
    #[inline(always)]
    fn wrap(index: u32, ev: Delivery) -> Self {
        match ev {
            Delivery::Head { port, frame, kind } => {
                debug_assert_eq!(kind, ComponentKind::Switch, "only switches buffer frames in flight here");
                Event::FrameStart { switch: index, port, frame }
            }
            Delivery::Whole { frame, kind, .. } => {
                debug_assert_eq!(kind, ComponentKind::Node, "only nodes take frames whole here");
                Event::FrameDelivered { node: index, frame }
            }
            Delivery::Credit { kind: ComponentKind::Switch, port } => Event::CreditToSwitch { switch: index, port },
            Delivery::Credit { .. } => Event::CreditToNode { node: index },
        }
    }
}

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, Queue>;

/// Most events cross a fibre of no length: the lane's pushes go inline.
type Queue = CalendarQueue<Event, true>;

pub struct FcFabric {
    sh: Shared,
    switches: Vec<FcSwitch>,
    nodes: Vec<NPort>,
    node_switch: Vec<u32>,
    scenario: Scenario,
    /// Same-instant deliveries kept while an event runs (`follow_on.rs`).
    follow_ons: Vec<Event>,
}

impl FcFabric {
    /// Builds the fabric a (validated) scenario describes.
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let fc = scenario.fc_fabric()?;
        let timing = FcTiming::new(fc);
        let buffers = fc.switch.buffers_per_port;
        let topo = wiring::topology(&fc.topology, fc.switch.ports)?;
        let tables = wiring::tables(&topo, fc.topology.kind, &fc.routing)?;
        let prop = timing.propagation;
        let Wiring { links, attachments } = topo.wire(|end| match end {
            FarEnd::Endpoint(n) => Link::new(PortRef::node(n), prop),
            FarEnd::Switch { switch, port } => Link::new(PortRef::switch(switch, port), prop),
        });
        let mut switches = Vec::with_capacity(links.len());
        for (s, peers) in links.iter().enumerate() {
            switches.push(FcSwitch::new(FcSwitchSpec {
                id: s as u32,
                peers,
                buffers_per_port: buffers,
                peer_buffers: buffers,
                forwarding: &tables.ports[s],
                arbitration: fc.switch.arbitration,
                seed: scenario.run.seed,
            }));
        }
        let n = attachments.len() as u32;
        let p = &fc.protocol;
        let spec = NPortSpec { class: p.class, bb_credit: buffers, e2e_credit: p.end_to_end_credit, nodes: n };
        let destinations = fabric_destinations(&fc.workload, &topo.endpoint_switch(), topo.switch_count() as u32)?;
        let nodes = attachments
            .iter()
            .zip(destinations)
            .enumerate()
            .map(|(i, (&(sw, port), d))| {
                let place =
                    SourcePlace { seed: scenario.run.seed, node: i as u32, nodes: n, frame_time: timing.data_time };
                let source = MessageSource::new(&fc.workload, place, d);
                NPort::new(i as u32, Link::new(PortRef::switch(sw, port), timing.propagation), spec, source)
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
            sh: Shared {
                frames: Arena::with_capacity(4096),
                messages: Arena::with_capacity(4096),
                connections: Connections::new(scenario.run.seed, p.class1_retry_us * time::MICROSECOND as f64),
                timing,
                metrics,
                // Class 1 nodes hear of every R_RDY (their connect requests wait on it).
                credit_mail: if p.class == 1 { Vec::new() } else { vec![CreditMail::new(buffers); n as usize] },
            },
            switches,
            nodes,
            node_switch: topo.endpoint_switch(),
            scenario: scenario.clone(),
            follow_ons: Vec::with_capacity(16),
        })
    }

    fn spec(&self) -> &FcFabricSpec {
        self.scenario.fc_fabric().expect("built from a Fibre Channel fabric scenario")
    }

    /// Runs `ev` and the same-instant deliveries it causes (`follow_on.rs`),
    /// in the order they were sent.
    #[inline]
    fn handle(&mut self, cx: &mut Cx, ev: Event) {
        let mut kept = std::mem::take(&mut self.follow_ons);
        self.handle_one(&mut FollowOns::new(cx, &mut kept), ev);
        let mut next = 0;
        while let Some(&ev) = kept.get(next) {
            next += 1;
            self.handle_one(&mut FollowOns::new(cx, &mut kept), ev);
        }
        kept.clear();
        self.follow_ons = kept;
    }

    /// Hands each component its events, and a connection's release to the
    /// switches on its path.
    #[inline(always)]
    fn handle_one<Q: EventSet<Event>>(&mut self, cx: &mut FollowOns<Q>, ev: Event) {
        let sh = &mut self.sh;
        match ev {
            Event::Node { node, ev } => self.nodes[node as usize].handle(cx, sh, ev),
            Event::FrameDelivered { node, frame } => self.nodes[node as usize].on_frame_delivered(cx, sh, frame),
            Event::CreditToNode { node } => self.nodes[node as usize].on_credit(cx, sh),
            Event::FrameStart { switch, port, frame } => {
                self.switches[switch as usize].on_frame_start(cx, sh, port as usize, frame)
            }
            Event::HeaderArrived { switch } => {
                self.switches[switch as usize].handle(cx, sh, SwitchEvent::HeaderArrived)
            }
            Event::RouteDone { switch } => self.switches[switch as usize].handle(cx, sh, SwitchEvent::RouteDone),
            Event::TransferDone { switch, port } => {
                self.switches[switch as usize].handle(cx, sh, SwitchEvent::TransferDone { port })
            }
            Event::CreditToSwitch { switch, port } => self.switches[switch as usize].on_credit(cx, sh, port as usize),
            Event::Refused { connection } => {
                let switches = &mut self.switches;
                let src = sh
                    .connections
                    .refused(connection, |sw, i, o| switches[sw as usize].release(connection, i as usize, o as usize));
                let retry_at = sh.connections.retry_time(cx.now());
                self.nodes[src as usize].on_connect_refused(cx, sh, retry_at);
            }
            Event::Teardown { connection } => {
                let switches = &mut self.switches;
                sh.connections.tear_down(connection, |sw, i, o| {
                    switches[sw as usize].release(connection, i as usize, o as usize)
                });
            }
        }
    }

    /// Looks for a cycle in the wait-for graph of trunk input buffers; on one,
    /// describes it (time, the trunks of the cycle, the frames stuck in them).
    fn find_deadlock(&self, now: Time) -> Option<serde_json::Value> {
        let cycle = wait_for_cycle(self.switches.iter().flat_map(FcSwitch::blocked_trunk_waits))?;
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
            "frames_in_fabric": self.sh.frames.live(),
        }))
    }

    /// Per terminal node: its switch, accepted throughput and message latency
    /// as a source, and Jain's fairness index over the sending nodes.
    fn per_node_table(&self, now: Time) -> serde_json::Value {
        let span = (now - self.sh.metrics.measure_start()).max(1) as f64;
        let frame_ps = self.sh.timing.data_time as f64;
        let rows: Vec<serde_json::Value> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.source().is_active())
            .map(|(i, _)| {
                let (frames, latency, completed) = self.sh.metrics.source(i);
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
    /// node gets the same, 1/n when one node gets everything; NaN when no
    /// node got anything.
    fn jain_index(&self) -> f64 {
        let xs: Vec<f64> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.source().is_active())
            .map(|(i, _)| self.sh.metrics.source(i).0 as f64)
            .collect();
        if xs.iter().all(|&x| x == 0.0) {
            f64::NAN
        } else {
            jain_index(&xs)
        }
    }

    fn metric_summaries(&self, now: Time) -> Vec<(String, MetricSummary)> {
        let m = &self.sh.metrics;
        let sources = self.nodes.iter().filter(|n| n.source().is_active()).count().max(1) as f64;
        let mut out =
            vec![("throughput_pct".to_string(), m.throughput_summary(now, self.sh.timing.rate.ps_per_byte(), sources))];
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
        let c = &self.sh.metrics.counters;
        let data_in_flight =
            c.data_frames_injected as i64 - c.data_frames_delivered as i64 - c.data_frames_refused as i64;
        let ack_in_flight = c.ack_frames_generated as i64 - c.ack_frames_delivered as i64;
        if self.sh.frames.live() as i64 != data_in_flight + ack_in_flight {
            return Err(Error::model(format!(
                "frame conservation violated: {} frames alive, but {} data + {} ACK frames unaccounted for",
                self.sh.frames.live(),
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
            ("frames_in_flight".into(), self.sh.frames.live() as i64),
            ("switch_traversals".into(), c.switch_traversals as i64),
            ("max_buffers_used".into(), self.sh.metrics.max_buffers_used as i64),
            ("min_end_to_end_credit".into(), min_credit as i64),
        ])
    }

    fn result_flags(&self, metrics: &Metrics) -> Vec<String> {
        let mut flags = Vec::new();
        if self.sh.metrics.counters.data_frames_injected == 0 {
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
    type Queue = Queue;

    /// No data frame delivered for 1000 frame times while frames are in
    /// flight means something is stuck: look for a cycle of full trunk buffers.
    fn info(&self) -> ModelInfo {
        ModelInfo {
            unit: "data frames",
            quiet_window: Some(1000 * self.sh.timing.data_time),
            deadlock_check_period: None,
        }
    }

    fn event_set(&self) -> Queue {
        // Buckets of about 1/128 of a data frame's time: most events are a
        // header, a routing or a frame time ahead (any width gives the same run).
        CalendarQueue::new(4096, CalendarQueue::<Event>::shift_for(self.sh.timing.data_time / 128))
    }

    fn start(&mut self, cx: &mut Cx) -> Time {
        for node in &mut self.nodes {
            node.start(cx, &mut self.sh);
        }
        0
    }

    #[inline]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    fn status(&self) -> Status {
        Status {
            observations: self.sh.metrics.counters.data_frames_delivered,
            in_flight: self.sh.frames.live() as u64,
            memory_bytes: self.sh.memory_bytes() + self.nodes.iter().map(NPort::memory_bytes).sum::<u64>(),
        }
    }

    fn frames_moved(&self) -> u64 {
        let c = &self.sh.metrics.counters;
        c.data_frames_delivered + c.ack_frames_delivered
    }

    fn metrics(&self) -> &MetricSet {
        &self.sh.metrics.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.sh.metrics.reset(now);
    }

    fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        FcFabric::find_deadlock(self, now)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        self.sh.metrics.finish(stop);
        let metrics = self.metric_summaries(stop);
        let flags = self.result_flags(&metrics);
        Summary { metrics, sections: vec![("per_node".to_string(), self.per_node_table(stop))], flags }
    }

    fn stop_sources(&mut self) {
        self.nodes.iter_mut().for_each(NPort::stop_source);
    }

    fn audit(&self, _events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters()
    }

    fn backlog(&self) -> u64 {
        let c = &self.sh.metrics.counters;
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
            .map(|(i, s)| (i, s.headers_routed as f64 * self.sh.timing.route_time as f64 / span))
            .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
        let injected = self.sh.metrics.counters.data_frames_injected as f64;
        let node_links = injected * self.sh.timing.data_time as f64
            / span
            / self.nodes.iter().filter(|n| n.source().is_active()).count().max(1) as f64;
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
