//! An InfiniBand fabric: HCAs, their sources and switches cabled port to
//! port, and the one `match` that hands each component its events. A
//! packet is followed through `Sources::handle` (a message built),
//! `Hca::offer` .. `try_send` (cut, VL arbitration, credits), over a
//! [`Wire`] to `IbSwitch::on_packet` .. `try_link` (the five pipeline
//! stages) at every switch, and to `Hca::on_packet`, the destination's sink.
//! Credits a receiver frees are handed to their sender after the event
//! ([`IbFabric::return_credit`]).

use serde_json::json;

use super::congestion::{Marking, Throttling};
use super::footprint::Footprint;
use super::hca::{Hca, HcaConfig, HcaEvent, HcaSpec, Reaction};
use super::lft::LftBuilder;
use super::lifetime::Lifetime;
use super::message::{Message, NO_STREAM};
use super::metrics::IbMetrics;
use super::multicast::{self, Groups, SwitchMulticast};
use super::multipath::{PathChoice, Selection, SwitchTable};
use super::output_port::OutputPort;
use super::packet::{Segmentation, ServiceLevel, TrafficClass};
use super::shared::{FreedCredits, Shared};
use super::sources::{MulticastStreams, SourceEvent, Sources};
use super::switch::{IbSwitch, InputVl, SwitchConfig, SwitchEvent, SwitchSpec};
use super::timing::{IbTiming, Rate};
use super::vl::{PortCredits, SlToVl, VL15};
use super::vl_arbiter::{ArbEntry, VlArbiter};
use super::vl_numbers::VlNumbers;
use super::wire::{Delivery, FreedCredit, ReferenceCables, Wire};
use super::wiring;
use crate::error::{Error, Result};
use crate::fabric::deadlock::analyze;
use crate::fabric::forwarding::NO_PORT;
use crate::fabric::routing::multipath::MultipathTables;
use crate::fabric::wait_for::WaitWatch;
use crate::fabric::{FarEnd, Routes, Topology, Wiring};
use crate::kernel::{time, Arena, CalendarQueue, Time};
use crate::scenario::ib::{BufferScope, IbRouting, MulticastScheme, OnDeadlock, PathSelection};
use crate::scenario::ib_congestion::CongestionSettings;
use crate::scenario::ib_congestion_spec::{CongestionQueue, CongestionRoot};
use crate::scenario::ib_multicast::DEFAULT_CENTRAL_BUFFER;
use crate::scenario::{IbSpec, Scenario};
use crate::sim::{Carries, ComponentKind, Context, MetricSet, Model, ModelInfo, PortRef, Simulation, Status, Summary};

mod build;
mod look_ahead;
pub use build::DEFAULT_RELIABLE_SHARE;
use look_ahead::LookAhead;

/// Every event of the fabric in 12 bytes (a calendar node of 32): what
/// happens, to which component (a switch or an HCA, by index), at which
/// port, and its argument. Every kind keeps these in the same fields, so
/// the look ahead (`look_ahead.rs`) reads the next event without a branch
/// on its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    kind: Kind,
    /// The VL of a credit; the source event of a `Source`.
    vl: u8,
    port: u16,
    /// The switch or HCA the event is for.
    index: u32,
    /// The packet of a `Header` or a `Delivered`; the blocks of a credit.
    arg: u32,
}

/// What an [`Event`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    /// A source event (`vl`: which) of HCA `index`'s sources.
    Source,
    /// HCA `index`'s link has sent a packet's last byte.
    HcaSent,
    /// Credits (`arg` blocks) for `vl` reach HCA `index` from its switch.
    HcaCredit,
    /// The tail of packet `arg` reaches HCA `index`'s sink.
    Delivered,
    /// Packet `arg` is through stages 1-3 at input `port` of switch `index`.
    Header,
    /// The crossbar transfer from input `port` into output `arg` has ended.
    TransferDone,
    /// Output `port` has sent a packet's last byte.
    SwitchSent,
    /// A head of output `port` may have outlived its lifetime limit.
    SwitchExpire,
    /// Output `port` has moved a multicast copy out of its central FIFO.
    CentralDone,
    /// Credits (`arg` blocks) for `vl` reach output `port`.
    SwitchCredit,
    /// A flow of HCA `index` held back by congestion control may send.
    HcaReady,
}

impl Event {
    #[inline(always)]
    const fn new(kind: Kind, index: u32, port: u16, vl: u8, arg: u32) -> Self {
        Event { kind, vl, port, index, arg }
    }
}

impl Carries<SourceEvent> for Event {
    #[inline(always)]
    fn wrap(hca: u32, ev: SourceEvent) -> Self {
        Event::new(Kind::Source, hca, 0, ev.code(), 0)
    }
}

impl Carries<HcaEvent> for Event {
    #[inline(always)]
    fn wrap(hca: u32, ev: HcaEvent) -> Self {
        match ev {
            HcaEvent::Sent => Event::new(Kind::HcaSent, hca, 0, 0, 0),
            HcaEvent::Ready => Event::new(Kind::HcaReady, hca, 0, 0, 0),
        }
    }
}

impl Carries<SwitchEvent> for Event {
    #[inline(always)]
    fn wrap(switch: u32, ev: SwitchEvent) -> Self {
        let (kind, port, arg) = match ev {
            SwitchEvent::TransferDone { port, out } => (Kind::TransferDone, port, out as u32),
            SwitchEvent::Sent { port } => (Kind::SwitchSent, port, 0),
            SwitchEvent::Expire { port } => (Kind::SwitchExpire, port, 0),
            SwitchEvent::CentralDone { port } => (Kind::CentralDone, port, 0),
        };
        Event::new(kind, switch, port, 0, arg)
    }
}

impl Carries<Delivery> for Event {
    #[inline(always)]
    fn wrap(index: u32, ev: Delivery) -> Self {
        match ev {
            Delivery::Packet { kind: ComponentKind::Switch, port, packet } => {
                Event::new(Kind::Header, index, port, 0, packet)
            }
            Delivery::Packet { kind: ComponentKind::Hca, packet, .. } => {
                Event::new(Kind::Delivered, index, 0, 0, packet)
            }
            Delivery::Credit { kind: ComponentKind::Switch, port, vl, blocks } => {
                Event::new(Kind::SwitchCredit, index, port, vl, blocks as u32)
            }
            Delivery::Credit { kind: ComponentKind::Hca, vl, blocks, .. } => {
                Event::new(Kind::HcaCredit, index, 0, vl, blocks as u32)
            }
            Delivery::Packet { kind, .. } | Delivery::Credit { kind, .. } => {
                unreachable!("no {kind:?} in an InfiniBand fabric")
            }
        }
    }
}

/// The assembly's context: the driver's clock and event set.
pub type Cx<'a> = Context<'a, Event, CalendarQueue<Event>>;

/// What the deadlock search keeps between two looks.
#[derive(Debug)]
pub(super) struct DeadlockWatch {
    pub(super) waits: WaitWatch<InputVl>,
    /// Simulated time between two looks.
    pub(super) period: Time,
}

impl DeadlockWatch {
    pub(super) fn new(period: Time) -> Self {
        DeadlockWatch { waits: WaitWatch::default(), period }
    }
}

pub struct IbFabric {
    /// Calendar bucket width: 2^this picoseconds.
    bucket_shift: u32,
    /// Calendar buckets: 2^this, so that the ring spans a few packet times.
    ring_bits: u32,
    pub(super) sh: Shared,
    pub(super) switches: Vec<IbSwitch>,
    pub(super) hcas: Vec<Hca>,
    pub(super) sources: Sources,
    pub(super) topo: Topology,
    /// Static channel-dependency verdict of the data tables, and their mean hops.
    pub(super) routing: serde_json::Value,
    /// Data VLs the workload's SLs use (buffer utilization is over these).
    pub(super) used_vls: Vec<u8>,
    /// The model's VL numbers against the scenario's (reports use the scenario's).
    pub(super) vl_numbers: VlNumbers,
    /// SLs whose VL some arbitration table entry serves (bit mask).
    sendable_sls: u16,
    /// The switches' and HCAs' own state, fixed in size: measured once at build.
    fixed_bytes: u64,
    pub(super) watch: DeadlockWatch,
    /// The multicast groups (with `[ib.multicast]`).
    groups: Option<Groups>,
    /// Where each switch's ports are, for the hint of the next event's state.
    look_ahead: LookAhead,
    scenario: Scenario,
    /// Congestion control's settings, as the scenario's opensm.conf gives them.
    pub(super) congestion: Option<CongestionSettings>,
}

impl IbFabric {
    pub(super) fn spec(&self) -> &IbSpec {
        self.scenario.infiniband().expect("built from an InfiniBand scenario")
    }

    pub fn hca_count(&self) -> usize {
        self.hcas.len()
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn timing(&self) -> &IbTiming {
        &self.sh.timing
    }

    pub fn ib_metrics(&self) -> &IbMetrics {
        &self.sh.metrics
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
        let ok = self.hcas[src as usize].offer(cx, &mut self.sh, msg);
        self.return_credits(cx);
        ok
    }

    /// Puts a message of `bytes` payload bytes of `class` on `sl` for
    /// multicast group `group` into `src`'s send queue now, as the scheme
    /// sends it (one message replicated by the switches, or one per member).
    /// False if a message was refused, or there is no such group.
    pub fn inject_multicast(
        &mut self,
        cx: &mut Cx,
        src: u32,
        group: u16,
        class: TrafficClass,
        sl: u8,
        bytes: u64,
    ) -> bool {
        let Some(groups) = self.groups.as_ref().filter(|g| (group as usize) < g.len()) else {
            return false;
        };
        let members: Vec<u32> = groups.destinations(group as usize, src).collect();
        let at_source = self.spec().multicast.as_ref().is_some_and(|m| m.scheme == MulticastScheme::ReplicatedUnicast);
        let msg = Message {
            t_created: cx.now(),
            seg: Segmentation::new(bytes, class.mtu()),
            src,
            dst: group as u32,
            stream: NO_STREAM,
            class,
            sl: ServiceLevel::new(sl as u32, "sl").expect("an SL below 16"),
            group,
            copies: members.len() as u16,
            ..Message::default()
        };
        let mut ok = true;
        if at_source {
            for dst in members {
                ok &= self.hcas[src as usize].offer(cx, &mut self.sh, Message { dst, copies: 0, ..msg });
            }
        } else {
            ok = self.hcas[src as usize].offer(cx, &mut self.sh, msg);
        }
        self.return_credits(cx);
        ok
    }

    /// Hands the credits the event freed to their senders.
    #[inline(always)]
    fn return_credits(&mut self, cx: &mut Cx) {
        let n = self.sh.freed.len;
        if n == 0 {
            return;
        }
        self.sh.freed.len = 0;
        for i in 0..n.min(FreedCredits::INLINE) {
            let c = self.sh.freed.inline[i];
            self.return_credit(cx, c);
        }
        if n > FreedCredits::INLINE {
            self.return_more_credits(cx);
        }
    }

    /// The credits an event freed beyond those kept in place.
    #[cold]
    #[inline(never)]
    fn return_more_credits(&mut self, cx: &mut Cx) {
        let more = std::mem::take(&mut self.sh.freed.more);
        for &c in &more {
            self.return_credit(cx, c);
        }
        self.sh.freed.more = more;
        self.sh.freed.more.clear();
    }

    /// Hands a freed credit to its sender: as an event under its reserved
    /// key if the sender waits for credit, else held until the sender next
    /// picks (see `credit_return`).
    #[inline]
    fn return_credit(&mut self, cx: &mut Cx, c: FreedCredit) {
        match c.to.kind {
            ComponentKind::Switch => {
                hand_credit(self.switches[c.to.index as usize].output_port(c.to.port as usize), cx, c)
            }
            ComponentKind::Hca => hand_credit(self.hcas[c.to.index as usize].output_port(), cx, c),
            other => unreachable!("no {other:?} in an InfiniBand fabric"),
        }
    }

    /// Crossbar transfers over all switches: one per packet per switch crossed.
    pub fn packet_hops(&self) -> u64 {
        self.sh.transfers
    }

    pub fn packets_delivered(&self) -> u64 {
        self.sh.metrics.counters.packets_delivered.iter().sum()
    }
}

/// Hands freed credit `c` to its sender's `port`: see `IbFabric::return_credit`.
#[inline(always)]
fn hand_credit<Q: Copy + Default>(port: &mut OutputPort<Q>, cx: &mut Cx, c: FreedCredit) {
    if port.waiting_for_credit() {
        c.key.schedule(cx, c.to.index, Delivery::credit(c.to, c.vl, c.blocks));
    } else {
        port.hold(c.key, c.vl, c.blocks);
    }
}

impl Simulation<IbFabric> {
    /// [`IbFabric::inject`] now.
    pub fn inject(&mut self, src: u32, dst: u32, class: TrafficClass, sl: u8, bytes: u64) -> bool {
        self.with(|f, cx| f.inject(cx, src, dst, class, sl, bytes))
    }

    /// [`IbFabric::inject_multicast`] now.
    pub fn inject_multicast(&mut self, src: u32, group: u16, class: TrafficClass, sl: u8, bytes: u64) -> bool {
        self.with(|f, cx| f.inject_multicast(cx, src, group, class, sl, bytes))
    }
}

impl Model for IbFabric {
    type Event = Event;
    type Queue = CalendarQueue<Event>;

    /// No packet delivered for a check period (1000 full-packet times by
    /// default) while packets are in flight: look for a cycle of full VL
    /// buffers; and, as a cycle on one VL stops only that VL's traffic,
    /// look that often whatever else flows.
    fn info(&self) -> ModelInfo {
        let period = self.watch.period;
        ModelInfo { unit: "packets", quiet_window: Some(period), deadlock_check_period: Some(period) }
    }

    fn event_set(&self) -> CalendarQueue<Event> {
        CalendarQueue::with_ring(1 << 14, self.bucket_shift, self.ring_bits)
    }

    fn start(&mut self, cx: &mut Cx) -> Time {
        self.sources.start(cx);
        0
    }

    /// Hands each component its events; then the credits the event freed
    /// go to their sender. Always inlined into the event loop: left to
    /// itself the compiler made it a call in the Python extension's build
    /// (2% more instructions in that event loop) but not in the bench's.
    #[inline(always)]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        let sh = &mut self.sh;
        let Event { kind, vl, port, index, arg } = event;
        let i = index as usize;
        match kind {
            Kind::Source => {
                let h = &mut self.hcas[i];
                self.sources.handle(cx, index, SourceEvent::from_code(vl), |cx, msg| {
                    h.offer(cx, sh, msg);
                });
            }
            Kind::HcaSent => self.hcas[i].handle(cx, sh, HcaEvent::Sent),
            Kind::HcaCredit => self.hcas[i].on_credit(cx, sh, vl, arg),
            Kind::Delivered => self.hcas[i].on_packet(cx, sh, arg),
            Kind::Header => self.switches[i].on_packet(cx, sh, port as usize, arg),
            Kind::TransferDone => self.switches[i].handle(cx, sh, SwitchEvent::TransferDone { port, out: arg as u16 }),
            Kind::SwitchSent => self.switches[i].handle(cx, sh, SwitchEvent::Sent { port }),
            Kind::SwitchExpire => self.switches[i].handle(cx, sh, SwitchEvent::Expire { port }),
            Kind::CentralDone => self.switches[i].handle(cx, sh, SwitchEvent::CentralDone { port }),
            Kind::SwitchCredit => self.switches[i].on_credit(cx, sh, port as usize, vl, arg),
            Kind::HcaReady => self.hcas[i].handle(cx, sh, HcaEvent::Ready),
        }
        self.return_credits(cx);
    }

    #[inline(always)]
    fn prefetch(&self, event: &Event) {
        self.look_ahead.prefetch(self, event);
    }

    #[inline(always)]
    fn looks_ahead(&self) -> bool {
        self.look_ahead.is_on()
    }

    /// Constant time, as the driver asks every 1024 events: what grows with
    /// a backlog is counted as it is (packets and messages; queues are
    /// linked through them). The ports' lists of held credits are not
    /// counted: the credits bound them, so they cannot grow with a backlog.
    fn status(&self) -> Status {
        Status {
            observations: self.packets_delivered(),
            in_flight: self.sh.packets.live() as u64,
            memory_bytes: self.sh.packets.memory_bytes() + self.sh.messages.memory_bytes() + self.fixed_bytes,
        }
    }

    fn metrics(&self) -> &MetricSet {
        &self.sh.metrics.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.sh.metrics.reset(now);
    }

    fn stops_on_deadlock(&self) -> bool {
        self.spec().on_deadlock == OnDeadlock::Stop
    }

    fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        IbFabric::find_deadlock(self, now)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        self.sh.metrics.set.finish(stop);
        let metrics = self.summaries_at(stop);
        let flags = self.result_flags(&metrics);
        Summary { metrics, sections: self.sections(stop), flags }
    }

    fn stop_sources(&mut self) {
        self.sources.stop();
    }

    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        let out = self.counters()?;
        if self.sh.packets.live() == 0 && events_pending == 0 {
            // Drained: every buffer empty and every credit home (every
            // transfer has ended: its packet has been delivered since).
            if let Some(s) = self.switches.iter().position(|s| !s.is_quiescent(&self.sh.switch, Time::MAX)) {
                return Err(Error::model(format!("switch {} holds buffer space or credits after the drain", s + 1)));
            }
        }
        Ok(out)
    }

    fn backlog(&self) -> u64 {
        self.sh.queued_messages
    }

    fn overload_report(&self, now: Time) -> serde_json::Value {
        IbFabric::overload_report(self, now)
    }
}
