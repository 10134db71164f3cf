//! An InfiniBand fabric: HCAs and switches cabled port to port, with the
//! event loop that drives them. A packet is followed through
//! `Hca::try_send` (cut from a message, VL arbitration, credits),
//! `IbSwitch::on_header` .. `try_link` (the five pipeline stages) at every
//! switch, to `Event::Delivered` at the destination HCA's sink, which
//! records its latency and, for the last packet of a video frame, the
//! frame's playout deadline.

use serde_json::json;

use super::credit_return::FreedCredit;
use super::hca::Hca;
use super::message::{Message, NO_STREAM};
use super::metrics::IbMetrics;
use super::packet::{Packet, Segmentation, ServiceLevel, TrafficClass};
use super::sources::Sources;
use super::switch::{IbSwitch, SwitchSpec};
use super::timing::IbTiming;
use super::vl::{blocks_for, PortCredits, SlToVl, VL15};
use super::vl_arbiter::{ArbEntry, VlArbiter};
use super::wiring;
use crate::error::{Error, Result};
use crate::fabric::deadlock::{analyze, find_cycle};
use crate::fabric::{PortUse, Topology};
use crate::kernel::{time, Arena, CalendarQueue, EventSet, Time};
use crate::report::MetricSummary;
use crate::scenario::{IbSpec, Scenario};
use crate::sim::driver::{accepted_below_offered, Metrics, Sections};
use crate::sim::{ComponentKind, Context, Link, MetricSet, Model, ModelInfo, PortRef, Simulation, Status, Summary};

/// Everything that happens in an InfiniBand fabric. Packets travel by arena
/// index; an event is 12 bytes.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Video streams of `hca` release their next frames.
    VideoFrame { hca: u32 },
    /// A best-effort message arrives at `hca` (Poisson).
    BestEffort { hca: u32 },
    /// `hca` sends its periodic control packet.
    Control { hca: u32 },
    /// `hca`'s link has sent a packet's last byte.
    HcaSent { hca: u32 },
    /// Credits for `vl` reach `hca` from its switch.
    HcaCredit { hca: u32, vl: u8, blocks: u16 },
    /// The tail of `packet` reaches `hca`'s sink.
    Delivered { hca: u32, packet: u32 },
    /// Stages 1-3 of `packet` at input `port` of `switch` are done (a
    /// pipeline time after its LRH arrived): it joins its input VL.
    Header { switch: u32, port: u16, packet: u32 },
    /// The crossbar transfer from input `port` has ended.
    TransferDone { switch: u32, port: u16 },
    /// Output `port` has sent a packet's last byte.
    SwitchSent { switch: u32, port: u16 },
    /// Credits for `vl` reach output `port` of `switch`.
    SwitchCredit { switch: u32, port: u16, vl: u8, blocks: u16 },
}

/// What a component may touch while handling an event.
pub struct Ctx<'a> {
    pub now: Time,
    pub queue: &'a mut CalendarQueue<Event>,
    pub packets: &'a mut Arena<Packet>,
    pub messages: &'a mut Arena<Message>,
    pub timing: &'a IbTiming,
    pub metrics: &'a mut IbMetrics,
    /// The credit this event has freed, for the fabric to deliver to its
    /// sender once the event is handled (a component cannot reach another's state).
    pub freed: Option<FreedCredit>,
}

impl Ctx<'_> {
    /// A packet of `bytes` starts on `link` now: a switch has its LRH after
    /// propagation and the LRH's own serialization, and is through stages
    /// 2-3 a pipeline time later; an HCA takes it whole.
    #[inline]
    pub fn transmit(&mut self, link: Link, packet: u32, bytes: u32) {
        let to = link.to;
        match to.kind {
            ComponentKind::Switch => self.queue.push(
                self.now + link.propagation + self.timing.header + self.timing.pipeline(),
                Event::Header { switch: to.index, port: to.port, packet },
            ),
            ComponentKind::Hca => self.queue.push(
                self.now + link.propagation + self.timing.wire(bytes),
                Event::Delivered { hca: to.index, packet },
            ),
            other => unreachable!("no {other:?} in an InfiniBand fabric"),
        }
    }

    /// `blocks` credits for `vl` go back over `link` (flow-control packets
    /// take no bandwidth): their key is reserved now, and the fabric hands
    /// them to the sender after this event (see [`IbFabric::return_credit`]).
    #[inline]
    pub fn credit(&mut self, link: Link, vl: u8, blocks: u32) {
        assert!(self.freed.is_none(), "an event frees one packet's credits");
        let key = self.queue.reserve_key(self.now + link.propagation);
        self.freed = Some(FreedCredit { to: link.to, key, vl, blocks: blocks as u16 });
    }

    /// Discards a packet (its SL has no VL) and counts it.
    pub fn discard(&mut self, packet: u32) {
        self.metrics.discarded();
        let m = self.packets[packet].message;
        self.packets.remove(packet);
        if self.messages[m].packet_done() {
            self.messages.remove(m);
        }
    }
}

/// The assembly's context: the driver's clock and event set.
pub type Cx<'a> = Context<'a, Event, CalendarQueue<Event>>;

pub struct IbFabric {
    /// Calendar bucket width: 2^this picoseconds.
    bucket_shift: u32,
    packets: Arena<Packet>,
    messages: Arena<Message>,
    timing: IbTiming,
    pub metrics: IbMetrics,
    switches: Vec<IbSwitch>,
    hcas: Vec<Hca>,
    sources: Sources,
    topo: Topology,
    /// Static channel-dependency verdict of the data tables, and their mean hops.
    routing: serde_json::Value,
    /// Data VLs the workload's SLs use (buffer utilization is over these).
    used_vls: Vec<u8>,
    credit_block: u32,
    /// SLs whose VL some arbitration table entry serves (bit mask).
    sendable_sls: u16,
    /// The switches' and HCAs' own state, fixed in size: measured once at build.
    fixed_bytes: u64,
    scenario: Scenario,
}

macro_rules! ctx {
    ($s:ident, $cx:ident) => {
        Ctx {
            now: $cx.now(),
            queue: $cx.queue_mut(),
            packets: &mut $s.packets,
            messages: &mut $s.messages,
            timing: &$s.timing,
            metrics: &mut $s.metrics,
            freed: None,
        }
    };
}

impl IbFabric {
    /// Builds the fabric a (validated) `[ib]` scenario describes.
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let spec = scenario.infiniband()?;
        let timing = IbTiming::new(spec)?;
        let topo = wiring::topology(spec)?;
        // The workload first: its checks need only the HCA count, and the tables take longer.
        let sources =
            Sources::new(&spec.workload, topo.endpoint_count(), timing.link.bytes_per_second(), scenario.run.seed)?;
        let (data, control) = wiring::tables(spec, &topo)?;
        let data_vls = spec.data_vls as u8;
        let sl_to_vl = match &spec.sl_to_vl {
            Some(entries) => SlToVl::from_entries(entries, data_vls)?,
            None => SlToVl::modulo(data_vls)?,
        };
        let credits = PortCredits::new(data_vls, spec.vl_buffer_bytes, spec.credit_block_bytes)?;
        // Real-time and best-effort packets are of at most one 1024-byte MTU.
        credits.check_holds(TrafficClass::RealTime.mtu().max_packet_bytes(), "ib.vl_buffer_bytes")?;
        let a = &spec.vl_arbitration;
        let entries = |t: &[crate::scenario::ib::ArbitrationEntry]| -> Vec<ArbEntry> {
            t.iter().map(|e| ArbEntry::new(e.vl as u8, e.weight as u8)).collect()
        };
        let (high, low) = (entries(&a.high), entries(&a.low));
        let arbiter = VlArbiter::new(&high, &low, a.limit_of_high_priority as u8, data_vls)?;
        let mut vl_order = vec![VL15];
        for e in high.iter().chain(&low) {
            if e.weight > 0 && !vl_order.contains(&e.vl) {
                vl_order.push(e.vl);
            }
        }
        let map = topo.port_map();
        let peer = topo.peer_ports();
        let prop = timing.propagation;
        let mut attachments = vec![(0u32, 0u16); topo.endpoint_count() as usize];
        let mut switches = Vec::with_capacity(map.len());
        for (s, ports) in map.iter().enumerate() {
            let peers: Vec<Option<Link>> = ports
                .iter()
                .enumerate()
                .map(|(p, u)| match *u {
                    PortUse::Endpoint(n) => {
                        attachments[n as usize] = (s as u32, p as u16);
                        Some(Link::new(PortRef::new(ComponentKind::Hca, n, 0), prop))
                    }
                    PortUse::Link { to, .. } => {
                        let q = peer[s][p].expect("links are wired both ways");
                        Some(Link::new(PortRef::switch(to, q), prop))
                    }
                    PortUse::Free => None,
                })
                .collect();
            let lft = |t: &crate::fabric::ForwardingTables| -> Vec<u16> {
                t.ports[s].iter().map(|p| p.first().copied().unwrap_or(u16::MAX)).collect()
            };
            switches.push(IbSwitch::new(SwitchSpec {
                index: s as u32,
                peers,
                data_table: lft(&data),
                control_table: lft(&control),
                sl_to_vl: &sl_to_vl,
                credits,
                arbiter: &arbiter,
                vl_order: &vl_order,
                vl_buffer_bytes: spec.vl_buffer_bytes,
                credit_block: spec.credit_block_bytes,
            }));
        }
        let buffer_bytes = (spec.hca.buffer_mb * 1024.0 * 1024.0) as u64;
        let hcas: Vec<Hca> = attachments
            .iter()
            .enumerate()
            .map(|(i, &(sw, port))| {
                Hca::new(
                    i as u32,
                    Link::new(PortRef::switch(sw, port), prop),
                    &sl_to_vl,
                    credits,
                    arbiter.clone(),
                    buffer_bytes,
                )
            })
            .collect();
        let largest = timing.wire(TrafficClass::RealTime.mtu().max_packet_bytes());
        let metrics = IbMetrics::new(scenario.run.batches, 100 * largest);
        let deps = analyze(&topo, &data)?;
        let routing = json!({
            "algorithm": spec.routing.algorithm,
            "root": spec.routing.root.unwrap_or(1),
            "mean_hops": data.mean_hops(&topo),
            "channel_dependencies": deps,
        });
        let w = &spec.workload;
        let mut used_vls: Vec<u8> = Vec::new();
        let mut sls: Vec<u32> = Vec::new();
        if w.real_time_share > 0.0 {
            sls.extend(&w.real_time_sls);
        }
        if w.real_time_share < 1.0 {
            sls.extend(&w.best_effort_sls);
        }
        for sl in sls {
            if let Some(v) = sl_to_vl.vl(ServiceLevel::new(sl, "ib.workload")?) {
                if !used_vls.contains(&v) {
                    used_vls.push(v);
                }
            }
        }
        let fixed_bytes =
            switches.iter().map(IbSwitch::memory_bytes).sum::<u64>() + hcas.iter().map(Hca::memory_bytes).sum::<u64>();
        // Calendar buckets of the largest power of two picoseconds within
        // eight byte times per 256 switch ports, so a bucket holds about as
        // many events whatever the fabric's size (events per unit time grow
        // with its ports). 16.4 ns on the study's networks on 1x links, where
        // 4.1 and 65.5 ns took 0.4% and 0.1% more instructions; 2 ns on the
        // 2048-port fat tree, which ran 3% faster than with 16.4 ns (any
        // width gives the same run).
        let ports: u64 = switches.iter().map(|s| s.ports() as u64).sum();
        let bucket = timing.wire(8) * 256 / ports.max(256);
        let sendable_sls = (0..16u8)
            .filter(|&sl| {
                let vl = sl_to_vl.vl(ServiceLevel::new(sl as u32, "sl").expect("SL below 16"));
                vl.is_some_and(|v| vl_order.contains(&v))
            })
            .fold(0u16, |m, sl| m | 1 << sl);
        Ok(IbFabric {
            bucket_shift: CalendarQueue::<Event>::shift_for(bucket),
            packets: Arena::with_capacity(1 << 14),
            messages: Arena::with_capacity(1 << 12),
            timing,
            metrics,
            switches,
            hcas,
            sources,
            topo,
            routing,
            used_vls,
            credit_block: spec.credit_block_bytes,
            sendable_sls,
            fixed_bytes,
            scenario: scenario.clone(),
        })
    }

    fn spec(&self) -> &IbSpec {
        self.scenario.infiniband().expect("built from an InfiniBand scenario")
    }

    pub fn hca_count(&self) -> usize {
        self.hcas.len()
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn timing(&self) -> &IbTiming {
        &self.timing
    }

    /// Puts a message of `bytes` payload bytes of `class` on `sl` into
    /// `src`'s send queue now (tests and tools drive the model this way).
    /// False if it was refused: the HCA buffer is full, or (data classes)
    /// `sl` maps to no VL or to one no arbitration table serves, so that it
    /// could never be sent.
    pub fn inject(&mut self, cx: &mut Cx, src: u32, dst: u32, class: TrafficClass, sl: u8, bytes: u64) -> bool {
        if class != TrafficClass::Control && self.sendable_sls & (1 << sl) == 0 {
            return false;
        }
        let msg = Message {
            t_created: cx.now(),
            seg: Segmentation::new(bytes, class.mtu()),
            src,
            dst,
            stream: NO_STREAM,
            class,
            sl: ServiceLevel::new(sl as u32, "sl").expect("an SL below 16"),
            ..Message::default()
        };
        self.enqueue(cx, src, msg)
    }

    fn enqueue(&mut self, cx: &mut Cx, hca: u32, msg: Message) -> bool {
        let wire = msg.seg.total_wire_bytes();
        let class = msg.class;
        let mut ctx = ctx!(self, cx);
        let m = ctx.messages.insert(msg);
        let ok = self.hcas[hca as usize].enqueue(&mut ctx, m);
        if !ok {
            ctx.messages.remove(m);
        }
        ctx.metrics.message_generated(class, wire, ok);
        ok
    }

    fn start(&mut self, cx: &mut Cx) {
        for h in 0..self.hcas.len() as u32 {
            if let Some(t) = self.sources.next_video(h) {
                cx.schedule(t, Event::VideoFrame { hca: h });
            }
            if self.sources.has_best_effort() {
                let t = self.sources.best_effort_gap(h);
                cx.schedule(t, Event::BestEffort { hca: h });
            }
            if self.sources.has_control() {
                cx.schedule(self.sources.control_phase[h as usize], Event::Control { hca: h });
            }
        }
    }

    #[inline]
    fn handle(&mut self, cx: &mut Cx, ev: Event) {
        match ev {
            Event::VideoFrame { hca } => {
                if self.sources.is_stopped() {
                    return;
                }
                let now = cx.now();
                while let Some(stream) = self.sources.due_stream(hca, now) {
                    let v = &mut self.sources.video[stream as usize];
                    let (number, frame) = v.stream.next_frame();
                    let msg = Message {
                        t_created: now,
                        seg: Segmentation::new(frame.bytes as u64, TrafficClass::RealTime.mtu()),
                        src: v.hca,
                        dst: v.dst,
                        stream,
                        frame: number as u32,
                        class: TrafficClass::RealTime,
                        sl: self.sources.stream_sl[stream as usize],
                        protected: frame.kind.is_protected(),
                        ..Message::default()
                    };
                    self.enqueue(cx, hca, msg);
                }
                if let Some(t) = self.sources.next_video(hca) {
                    cx.schedule(t, Event::VideoFrame { hca });
                }
            }
            Event::BestEffort { hca } => {
                if self.sources.is_stopped() {
                    return;
                }
                let next = cx.now() + self.sources.best_effort_gap(hca);
                cx.schedule(next, Event::BestEffort { hca });
                let (sl, dst) = self.sources.best_effort_message(hca);
                let msg = Message {
                    t_created: cx.now(),
                    seg: Segmentation::new(self.sources.best_effort_bytes as u64, TrafficClass::BestEffort.mtu()),
                    src: hca,
                    dst,
                    stream: NO_STREAM,
                    class: TrafficClass::BestEffort,
                    sl,
                    ..Message::default()
                };
                self.enqueue(cx, hca, msg);
            }
            Event::Control { hca } => {
                if self.sources.is_stopped() {
                    return;
                }
                let next = cx.now() + self.sources.control_period;
                cx.schedule(next, Event::Control { hca });
                let dst = self.sources.control_destination(hca);
                let class = TrafficClass::Control;
                let msg = Message {
                    t_created: cx.now(),
                    seg: Segmentation::new(class.mtu().bytes() as u64, class.mtu()),
                    src: hca,
                    dst,
                    stream: NO_STREAM,
                    class,
                    sl: class.default_sl(),
                    ..Message::default()
                };
                self.enqueue(cx, hca, msg);
            }
            Event::HcaSent { hca } => {
                let mut ctx = ctx!(self, cx);
                self.hcas[hca as usize].on_sent(&mut ctx);
            }
            Event::HcaCredit { hca, vl, blocks } => {
                let mut ctx = ctx!(self, cx);
                self.hcas[hca as usize].on_credit(&mut ctx, vl, blocks as u32);
            }
            Event::Delivered { hca, packet } => self.delivered(cx, hca, packet),
            Event::Header { switch, port, packet } => {
                let mut ctx = ctx!(self, cx);
                self.switches[switch as usize].on_header(&mut ctx, port as usize, packet);
                if let Some(c) = ctx.freed {
                    self.return_credit(cx, c);
                }
            }
            Event::TransferDone { switch, port } => {
                let mut ctx = ctx!(self, cx);
                self.switches[switch as usize].on_transfer_done(&mut ctx, port as usize);
                if let Some(c) = ctx.freed {
                    self.return_credit(cx, c);
                }
            }
            Event::SwitchSent { switch, port } => {
                let mut ctx = ctx!(self, cx);
                self.switches[switch as usize].on_sent(&mut ctx, port as usize);
            }
            Event::SwitchCredit { switch, port, vl, blocks } => {
                let mut ctx = ctx!(self, cx);
                self.switches[switch as usize].on_credit(&mut ctx, port as usize, vl, blocks as u32);
            }
        }
    }

    /// Hands a freed credit to its sender: as an event under its reserved
    /// key if the sender waits for credit, else held until the sender next
    /// picks (see `credit_return`).
    #[inline]
    fn return_credit(&mut self, cx: &mut Cx, c: FreedCredit) {
        let (to, vl, blocks) = (c.to, c.vl, c.blocks);
        let (returns, event) = match to.kind {
            ComponentKind::Switch => (
                self.switches[to.index as usize].output_return(to.port as usize),
                Event::SwitchCredit { switch: to.index, port: to.port, vl, blocks },
            ),
            ComponentKind::Hca => {
                (self.hcas[to.index as usize].returns_mut(), Event::HcaCredit { hca: to.index, vl, blocks })
            }
            other => unreachable!("no {other:?} in an InfiniBand fabric"),
        };
        if returns.sender_waiting() {
            cx.schedule_keyed(c.key, event);
        } else {
            returns.hold(c.key, vl, blocks);
        }
    }

    /// The sink of `hca` takes a packet whole: latency, credits back at once,
    /// and for a frame's last packet its playout deadline.
    #[inline]
    fn delivered(&mut self, cx: &mut Cx, hca: u32, packet: u32) {
        let now = cx.now();
        let p = self.packets[packet];
        debug_assert_eq!(p.dlid as u32, hca, "packet delivered to the wrong HCA");
        self.metrics.delivered(now, &p);
        let link = self.hcas[hca as usize].link();
        let block = self.credit_block;
        let mut ctx = ctx!(self, cx);
        if p.vl != VL15 {
            ctx.credit(link, p.vl, blocks_for(p.bytes as u32, block));
        }
        let freed = ctx.freed.take();
        ctx.packets.remove(packet);
        if ctx.messages[p.message].packet_done() {
            let msg = ctx.messages[p.message];
            ctx.messages.remove(p.message);
            if msg.stream != NO_STREAM {
                let deadlines = &mut self.sources.video[msg.stream as usize].deadlines;
                let late = deadlines.on_frame_number(msg.frame as u64, msg.t_created, now);
                ctx.metrics.frame(now - msg.t_created, late);
            }
        }
        if let Some(c) = freed {
            self.return_credit(cx, c);
        }
    }
}

impl IbFabric {
    /// Looks for a cycle of input VLs each waiting on a full output VL whose
    /// head has no credit downstream; describes it.
    fn find_deadlock(&self, now: Time) -> Option<serde_json::Value> {
        let mut g: petgraph::graphmap::DiGraphMap<(u32, u16, u8), ()> = petgraph::graphmap::DiGraphMap::new();
        for sw in &self.switches {
            for (a, b) in sw.blocked_waits(now) {
                g.add_edge(a, b, ());
            }
        }
        let cycle = find_cycle(&g)?;
        let names: Vec<String> = cycle
            .iter()
            .map(|&(s, p, vl)| {
                let from = self.switches[s as usize].peer(p as usize).map(|l| l.to.index);
                match from {
                    Some(f) => format!("switch {} -> switch {} (input port {p}, VL {vl} full)", f + 1, s + 1),
                    None => format!("switch {} input port {p} VL {vl}", s + 1),
                }
            })
            .collect();
        // No credit is in flight on the cycle's links (other VLs may still
        // flow): the sender's view of each receiving VL of the cycle must
        // match what the receiver holds.
        let mut mismatched = Vec::new();
        for &(s, p, vl) in &cycle {
            let sw = &self.switches[s as usize];
            let Some(up) = sw.peer(p as usize) else { continue };
            if up.to.kind != ComponentKind::Switch {
                continue;
            }
            let sender = &self.switches[up.to.index as usize];
            let sent = sender.credits_used(up.to.port as usize, vl, now);
            let held = sw.input_blocks(&self.packets, p as usize, vl);
            if sent != held {
                mismatched.push(format!("switch {} input port {p} VL {vl}: {sent} blocks sent, {held} held", s + 1));
            }
        }
        Some(json!({
            "time_us": time::to_us(now),
            "credit_mismatches": mismatched,
            "cycle": names,
            "packets_in_fabric": self.packets.live(),
        }))
    }

    fn summaries_at(&self, now: Time) -> Metrics {
        let m = &self.metrics;
        let span = (now - m.set.measure_start()).max(1) as f64;
        let rate = self.timing.link.bytes_per_picosecond();
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
        for id in m.latency {
            out.push((m.set.duration_name(id).to_string(), m.set.duration_summary(id)));
        }
        let dmp = m.missing();
        let mut s = MetricSummary::with_ci(
            if dmp.count() > 0 { dmp.mean() } else { f64::NAN },
            dmp.interval().map(|c| c.half_width),
        );
        s.count = Some(dmp.count());
        out.push(("deadline_missing_probability".into(), s));
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

    fn sections(&self) -> Sections {
        let per_vl: Vec<serde_json::Value> = (0..16)
            .filter(|&v| self.metrics.vl_bytes_sent(v) > 0)
            .map(|v| json!({"vl": v, "bytes_sent": self.metrics.vl_bytes_sent(v)}))
            .collect();
        let streams = self.sources.video.len();
        let network = json!({
            "switches": self.topo.switch_count(),
            "hcas": self.hcas.len(),
            "links": self.topo.links.iter().map(|l| json!([l.a + 1, l.b + 1, l.multiplicity()])).collect::<Vec<_>>(),
            "video_streams": streams,
            "video_streams_per_hca": streams as f64 / self.hcas.len() as f64,
        });
        vec![("network".into(), network), ("routing".into(), self.routing.clone()), ("per_vl".into(), per_vl.into())]
    }

    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.metrics.counters;
        let injected: u64 = c.packets_injected.iter().sum();
        let delivered: u64 = c.packets_delivered.iter().sum();
        let in_flight = injected as i64 - delivered as i64 - c.packets_discarded as i64;
        if self.packets.live() as i64 != in_flight {
            return Err(Error::model(format!(
                "packet conservation violated: {} packets alive, but {injected} injected - {delivered} delivered - {} discarded = {in_flight}",
                self.packets.live(),
                c.packets_discarded
            )));
        }
        let held: usize = self.switches.iter().map(|s| s.packets_held(&self.packets)).sum();
        if held > self.packets.live() {
            return Err(Error::model(format!(
                "switches hold {held} packets, more than the {} alive",
                self.packets.live()
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
        }
        out.extend([
            ("messages_in_progress".into(), (generated - refused) as i64 - self.completed_messages() as i64),
            ("packets_discarded".into(), c.packets_discarded as i64),
            ("packets_in_flight".into(), in_flight),
            ("frames_delivered".into(), c.frames_delivered as i64),
            ("frames_missed".into(), c.frames_missed as i64),
            ("crossbar_transfers".into(), self.packet_hops() as i64),
        ]);
        Ok(out)
    }

    /// Messages finished: generated and accepted, minus those alive.
    fn completed_messages(&self) -> u64 {
        let c = &self.metrics.counters;
        let accepted: u64 = c.messages_generated.iter().sum::<u64>() - c.messages_refused.iter().sum::<u64>();
        accepted - self.messages.live() as u64
    }

    /// Crossbar transfers over all switches: one per packet per switch crossed.
    pub fn packet_hops(&self) -> u64 {
        self.switches.iter().map(|s| s.transfers).sum()
    }

    pub fn packets_delivered(&self) -> u64 {
        self.metrics.counters.packets_delivered.iter().sum()
    }

    fn result_flags(&self, metrics: &Metrics) -> Vec<String> {
        let mut flags = Vec::new();
        let c = &self.metrics.counters;
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
}

impl Simulation<IbFabric> {
    /// [`IbFabric::inject`] now.
    pub fn inject(&mut self, src: u32, dst: u32, class: TrafficClass, sl: u8, bytes: u64) -> bool {
        self.with(|f, cx| f.inject(cx, src, dst, class, sl, bytes))
    }
}

impl Model for IbFabric {
    type Event = Event;
    type Queue = CalendarQueue<Event>;

    /// No packet delivered for 1000 full-packet times while packets are in
    /// flight: look for a cycle of full VL buffers; and, as a cycle on one
    /// VL stops only that VL's traffic, look that often whatever else flows.
    fn info(&self) -> ModelInfo {
        let window = 1000 * self.timing.wire(TrafficClass::RealTime.mtu().max_packet_bytes());
        ModelInfo { unit: "packets", quiet_window: Some(window), deadlock_check_period: Some(window) }
    }

    fn event_set(&self) -> CalendarQueue<Event> {
        CalendarQueue::new(1 << 14, self.bucket_shift)
    }

    fn start(&mut self, cx: &mut Cx) -> Time {
        IbFabric::start(self, cx);
        0
    }

    #[inline]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    /// Constant time, as the driver asks every 1024 events: what grows with
    /// a backlog is counted as it is (packets and messages; queues are
    /// linked through them). The ports' lists of held credits are not
    /// counted: the credits bound them, so they cannot grow with a backlog.
    fn status(&self) -> Status {
        Status {
            observations: self.packets_delivered(),
            in_flight: self.packets.live() as u64,
            memory_bytes: self.packets.memory_bytes() + self.messages.memory_bytes() + self.fixed_bytes,
        }
    }

    fn metrics(&self) -> &MetricSet {
        &self.metrics.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.metrics.reset(now);
    }

    fn find_deadlock(&self, now: Time) -> Option<serde_json::Value> {
        IbFabric::find_deadlock(self, now)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        self.metrics.set.finish(stop);
        let metrics = self.summaries_at(stop);
        let flags = self.result_flags(&metrics);
        Summary { metrics, sections: self.sections(), flags }
    }

    fn stop_sources(&mut self) {
        self.sources.stop();
    }

    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        let out = self.counters()?;
        if self.packets.live() == 0 && events_pending == 0 {
            // Drained: every buffer empty and every credit home.
            if let Some(s) = self.switches.iter().position(|s| !s.is_quiescent()) {
                return Err(Error::model(format!("switch {} holds buffer space or credits after the drain", s + 1)));
            }
        }
        Ok(out)
    }

    fn backlog(&self) -> u64 {
        self.hcas.iter().map(|h| h.queued_messages() as u64).sum()
    }

    fn overload_report(&self, now: Time) -> serde_json::Value {
        let (hca, longest) =
            self.hcas.iter().enumerate().map(|(i, h)| (i, h.queued_bytes())).max_by_key(|&(_, q)| q).unwrap_or((0, 0));
        let span = now.max(1) as f64;
        let (switch_busy, hca_busy) = self.metrics.link_busy_ps();
        json!({
            "messages_waiting": self.backlog(),
            "longest_queue": {"hca": hca, "bytes": longest},
            "switch_link_utilization": switch_busy as f64 / span,
            "hca_link_utilization": hca_busy as f64 / span,
        })
    }
}
