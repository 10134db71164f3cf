//! Arbitrated loops on a switch (switched-fcal, "Switched FC-AL"): any
//! number of loops, each a ring of one host (SCSI initiator, port 0), its
//! disks (ports 1..=n) and a bridge (switch-connected node, the last port)
//! attached to one switch port; circuit or packet switching between loops.
//!
//! The parts are components, each with its own state and events: the
//! rings (`arbitrated_loop/ring.rs`), the hosts as one SCSI initiator
//! whose application spans the loops (`switched_hosts.rs` over
//! `storage/scsi_initiator.rs`), the disk targets, the bridges
//! (`arbitrated_loop/bridge.rs`) and the FC switch (`switch.rs`); the join
//! is built in `switched_wiring.rs` and reported in `switched_report.rs`.
//! This assembly routes each phase: a read is three phases, each its own
//! tenancy (the command, host to disk; the data, the disk re-arbitrating
//! once its blocks are in the buffer, as the opener; the status); a write
//! is four (the command, the disk's transfer-ready, the host's data, the
//! status). A phase for a port on another loop goes through the bridges.
//! Every event runs on one event set in (time, sequence) order.

use super::arbitrated_loop::bridge::{BridgeEvent, Bridges, BridgesSpec, Join};
use super::arbitrated_loop::port::Job;
use super::arbitrated_loop::ring::{Closed, Ring, RingEvent, RingReport, Won};
use super::arbitrated_loop::timing::LoopTiming;
use super::connection::Refusal;
use super::shared::Shared;
use super::switch::{FcSwitch, SwitchEvent};
use super::switched_hosts::SwitchedHosts;
use super::switched_wiring::{loops, switch};
use crate::error::Result;
use crate::kernel::{time, EventQueue, Time};
use crate::scenario::{Scenario, SwitchedLoopModelSpec};
use crate::sim::{Carries, ComponentKind, Context, Delivery, MetricSet, Model, ModelInfo, Status, Summary};
use crate::storage::disk_target::{DiskEvent, DiskTarget, WriteData};
use crate::storage::scsi::Phase;
use crate::storage::scsi_initiator::{InitiatorEvent, ScsiInitiator};

/// The host's port on every loop.
const HOST: u32 = 0;

/// Every event of the model, tagged by the component that handles it,
/// and what the switch's links deliver.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    Ring(u32, RingEvent),
    Host(u32, InitiatorEvent),
    Disk(u32, DiskEvent),
    Bridge(u32, BridgeEvent),
    Switch(SwitchEvent),
    /// The first byte of `frame` reaches switch port `port`.
    SwitchFrame {
        port: u16,
        frame: u32,
    },
    /// A buffer-to-buffer credit reaches switch port `port`.
    SwitchCredit {
        port: u16,
    },
    /// The first byte of `frame` reaches loop `bridge`'s bridge.
    BridgeFrame {
        bridge: u32,
        frame: u32,
    },
    /// A buffer-to-buffer credit reaches loop `bridge`'s bridge.
    BridgeCredit {
        bridge: u32,
    },
    /// The F_BSY answering a bridge's connect request is back.
    Refused {
        connection: u32,
    },
}

impl Carries<BridgeEvent> for Event {
    #[inline]
    fn wrap(bridge: u32, ev: BridgeEvent) -> Self {
        Event::Bridge(bridge, ev)
    }
}

impl Carries<SwitchEvent> for Event {
    #[inline]
    fn wrap(_: u32, ev: SwitchEvent) -> Self {
        Event::Switch(ev)
    }
}

impl Carries<Refusal> for Event {
    #[inline]
    fn wrap(connection: u32, _: Refusal) -> Self {
        Event::Refused { connection }
    }
}

/// The switch's links lead to bridges only, which buffer frames in flight.
impl Carries<Delivery> for Event {
    #[inline]
    fn wrap(index: u32, ev: Delivery) -> Self {
        match ev {
            Delivery::Head { kind: ComponentKind::Switch, port, frame } => Event::SwitchFrame { port, frame },
            Delivery::Credit { kind: ComponentKind::Switch, port } => Event::SwitchCredit { port },
            Delivery::Head { frame, kind, .. } | Delivery::Whole { frame, kind, .. } => {
                debug_assert_eq!(kind, ComponentKind::LoopBridge, "only bridges are on the switch");
                Event::BridgeFrame { bridge: index, frame }
            }
            Delivery::Credit { .. } => Event::BridgeCredit { bridge: index },
        }
    }
}

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, EventQueue<Event>>;

/// What the bridges act on, lent for one call.
macro_rules! join {
    ($s:ident) => {
        Join { sh: &mut $s.sh, switch: &mut $s.switch, rings: &mut $s.rings, exchanges: $s.initiator.exchanges_mut() }
    };
}

impl Carries<RingEvent> for Event {
    #[inline]
    fn wrap(ring: u32, ev: RingEvent) -> Self {
        Event::Ring(ring, ev)
    }
}

impl Carries<InitiatorEvent> for Event {
    #[inline]
    fn wrap(host: u32, ev: InitiatorEvent) -> Self {
        Event::Host(host, ev)
    }
}

impl Carries<DiskEvent> for Event {
    #[inline]
    fn wrap(disk: u32, ev: DiskEvent) -> Self {
        Event::Disk(disk, ev)
    }
}

pub struct SwitchedLoopModel {
    pub(super) set: MetricSet,
    pub(super) rings: Vec<Ring>,
    pub(super) bridges: Bridges,
    pub(super) disks: Vec<DiskTarget>,
    /// The hosts, as one initiator whose application spans the loops.
    pub(super) initiator: ScsiInitiator<SwitchedHosts>,
    /// The switch the bridges attach to, and the frames, connect requests
    /// and connections it carries.
    pub(super) switch: FcSwitch,
    pub(super) sh: Shared,
    pub(super) spec: SwitchedLoopModelSpec,
    pub(super) disks_per_loop: u32,
}

impl SwitchedLoopModel {
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let spec = scenario.switched_loop()?.clone();
        let s = &spec.switched;
        let seed = scenario.run.seed;
        let mut set = MetricSet::new(scenario.run.batches);
        let dpl = spec.disks_per_loop();
        let bridge_port = dpl + 1;
        let ring_timing = LoopTiming::new(&spec.ring, dpl + 2);
        // The bridge sits as near its switch port as loop neighbours are to each other.
        let switch_fibre = ring_timing.fibre / (dpl + 2) as Time;
        let (rings, disks, links) = loops(&spec, seed, switch_fibre, &mut set)?;
        let batch_ps = 100 * rings[0].timing().frame_time(spec.ring.frame_payload_bytes);
        let capacity = disks.iter().map(DiskTarget::capacity_blocks).collect();
        let hosts = SwitchedHosts::new(s, dpl, capacity, seed, &mut set, batch_ps);
        let (switch, sh) = switch(&spec, &ring_timing, switch_fibre, scenario);
        let bridges = Bridges::new(BridgesSpec {
            switching: s.switching,
            port: bridge_port,
            buffers: s.bridge_buffers,
            switch_buffers: spec.switch.buffers_per_port,
            circuit_latency: sh.timing.header_time + 2 * switch_fibre,
            links,
        });
        Ok(SwitchedLoopModel {
            set,
            rings,
            bridges,
            initiator: ScsiInitiator::new(0, hosts),
            disks,
            switch,
            sh,
            disks_per_loop: dpl,
            spec,
        })
    }

    #[inline]
    pub(super) fn bridge_port(&self) -> u32 {
        self.disks_per_loop + 1
    }

    /// Where phase `phase` of exchange `xid` ends: (loop, port). The
    /// command and a write's data go to the disk; a read's data, a write's
    /// transfer-ready and the status to the host.
    #[inline]
    fn destination(&self, xid: u32, phase: Phase) -> (u32, u32) {
        let ex = self.initiator.exchange(xid);
        let to_disk = match phase {
            Phase::Command => true,
            Phase::Data => !ex.read,
            Phase::TransferReady | Phase::Status => false,
        };
        if to_disk {
            (ex.disk / self.disks_per_loop, ex.disk % self.disks_per_loop + 1)
        } else {
            (ex.initiator, HOST)
        }
    }

    /// Frames of a phase of `bytes`.
    #[inline]
    fn frames(&self, phase: Phase, bytes: u32) -> u32 {
        if phase == Phase::Data {
            self.rings[0].timing().frames_for(bytes)
        } else {
            1
        }
    }

    /// Queues phase `phase` of `xid` at `port` of loop `l`: for its target
    /// there, or for the bridge when the target is on another loop.
    fn send(&mut self, cx: &mut Cx, l: u32, port: u32, xid: u32, phase: Phase, bytes: u32) {
        let (dl, dp) = self.destination(xid, phase);
        let (target, external) = if dl == l { (dp, false) } else { (self.bridge_port(), true) };
        let now = cx.now();
        let job = Job { xid, phase, bytes, target, queued_at: now, external };
        self.rings[l as usize].enqueue(port, job, cx);
    }

    // ---- hosts -------------------------------------------------------------

    /// The command of exchange `xid`, if one is due, goes out at its host.
    fn command(&mut self, cx: &mut Cx, xid: Option<u32>) {
        if let Some(xid) = xid {
            let h = self.initiator.exchange(xid).initiator;
            self.send(cx, h, HOST, xid, Phase::Command, 0);
        }
    }

    /// Records the establishment of the command or data phase of `xid`,
    /// its first R_RDY reaching the opener at `credit_at`.
    fn establish(&mut self, xid: u32, phase: Phase, credit_at: Time) {
        let i = match phase {
            Phase::Command => 0,
            Phase::Data => 1,
            _ => return,
        };
        if let Some(first) = self.initiator.exchange(xid).phase_first[phase as usize] {
            self.set.record(self.initiator.app().stats.establish[i], credit_at.saturating_sub(first));
        }
    }

    fn on_won(&mut self, cx: &mut Cx, l: u32, opener: u32, w: Won) {
        let now = cx.now();
        let job = w.job;
        let bp = self.bridge_port();
        let first = &mut self.initiator.exchanges_mut()[job.xid].phase_first[job.phase as usize];
        if first.is_none() && opener != bp {
            *first = Some(w.arb_start.max(job.queued_at));
        }
        let ring = &self.rings[l as usize];
        let t = ring.timing();
        let word = t.word;
        let target = &ring.ports()[job.target as usize];
        let credit_at = if target.login_bb_credit > 0 { now + word } else { now + 2 * word + t.trip() };
        if !job.external {
            if opener != self.bridge_port() {
                self.establish(job.xid, job.phase, credit_at);
            }
            return;
        }
        if opener == bp {
            let (xid, credit_at) = self.bridges.remote_won(cx, &mut join!(self), l, job);
            self.establish(xid, job.phase, credit_at);
            return;
        }
        let destination = self.destination(job.xid, job.phase);
        let frames = self.frames(job.phase, job.bytes);
        if self.bridges.opened(cx, &mut join!(self), l, opener, job, destination, frames, credit_at) {
            self.establish(job.xid, job.phase, credit_at);
        }
    }

    /// A phase's frames reached the end of a tenancy on loop `l`.
    fn on_delivered(&mut self, cx: &mut Cx, l: u32, xid: u32, phase: Phase, bytes: u32) {
        let (dl, dp) = self.destination(xid, phase);
        if dl != l {
            let frames = self.frames(phase, bytes);
            self.bridges.delivered(cx, &mut join!(self), l, (dl, dp), xid, phase, bytes, frames);
            if !self.bridges.circuits() {
                return;
            }
        }
        self.arrived(cx, xid, phase, bytes);
    }

    /// Phase `phase` of `xid` is in its target's buffer: the target acts on it.
    fn arrived(&mut self, cx: &mut Cx, xid: u32, phase: Phase, bytes: u32) {
        let now = cx.now();
        let ex = *self.initiator.exchange(xid);
        let (disk, read) = (ex.disk, ex.read);
        let target = &mut self.disks[disk as usize];
        match phase {
            Phase::Command if read => target.read_command(xid, self.initiator.exchanges_mut(), cx),
            Phase::Command => target.write_command(xid, &mut self.initiator.exchanges_mut()[xid], cx),
            // The host sends the data the transfer-ready asks for.
            Phase::TransferReady => self.send(cx, ex.initiator, HOST, xid, Phase::Data, bytes),
            Phase::Data if read => self.initiator.data_received(xid, bytes),
            Phase::Data => match target.write_data(xid, bytes, now, &mut self.initiator.exchanges_mut()[xid]) {
                WriteData::More => self.disk_sends(cx, disk, xid, Phase::TransferReady),
                WriteData::Received { status_now } => {
                    if status_now {
                        self.disk_sends(cx, disk, xid, Phase::Status);
                    }
                    self.disks[disk as usize].start_mechanism(self.initiator.exchanges_mut(), cx);
                }
            },
            Phase::Status => {
                let issued = self.initiator.status_received(xid, cx, &mut self.set);
                self.command(cx, issued);
            }
        }
    }

    /// Disk `disk` queues phase `phase` of `xid` at its port: a status, or
    /// its next burst (read data, or a transfer-ready asking for write data).
    fn disk_sends(&mut self, cx: &mut Cx, disk: u32, xid: u32, phase: Phase) {
        let bytes = match phase {
            Phase::Status => 0,
            _ => self.disks[disk as usize].next_burst(&mut self.initiator.exchanges_mut()[xid]),
        };
        let port = disk % self.disks_per_loop + 1;
        self.send(cx, disk / self.disks_per_loop, port, xid, phase, bytes);
    }

    fn on_closed(&mut self, cx: &mut Cx, l: u32, c: Closed) {
        let bp = self.bridge_port();
        let job = c.job;
        if !c.refused {
            match (job.external, c.opener == bp) {
                // Circuit: the remote bridge's hold ends; nothing else to do.
                (true, true) => {}
                (true, false) => {
                    self.bridges.closed(cx, &mut join!(self), l, &c, 0);
                    self.phase_closed(cx, c);
                }
                (false, true) => {
                    let frames = self.frames(job.phase, job.bytes);
                    self.bridges.closed(cx, &mut join!(self), l, &c, frames);
                }
                (false, false) => self.phase_closed(cx, c),
            }
        }
        self.rings[l as usize].pass_on(c.opener, cx);
    }

    /// An opener's phase is out: a disk's next read burst or its status.
    fn phase_closed(&mut self, cx: &mut Cx, c: Closed) {
        if c.opener == HOST || c.job.phase != Phase::Data || !self.initiator.exchange(c.job.xid).read {
            return;
        }
        let xid = c.job.xid;
        let disk = self.initiator.exchange(xid).disk;
        if self.disks[disk as usize].read_burst_sent(xid, c.sent_at, self.initiator.exchanges_mut(), cx) {
            self.send(cx, disk / self.disks_per_loop, c.opener, xid, Phase::Status, 0);
        }
    }

    // ---- event loop ------------------------------------------------------------

    #[inline]
    fn handle(&mut self, cx: &mut Cx, ev: Event) {
        match ev {
            Event::Ring(l, ev) => match self.rings[l as usize].handle(ev, cx, &mut self.set) {
                RingReport::Nothing => {}
                RingReport::Won(w) => {
                    let opener = self.rings[l as usize].owner().expect("a winner owns the loop");
                    self.on_won(cx, l, opener, w)
                }
                RingReport::Delivered { xid, phase, bytes } => self.on_delivered(cx, l, xid, phase, bytes),
                RingReport::Closed(c) => self.on_closed(cx, l, c),
            },
            Event::Host(_, InitiatorEvent::Issue { slot }) => {
                let issued = self.initiator.issue(slot, cx);
                self.command(cx, issued);
            }
            Event::Host(_, InitiatorEvent::Send { xid }) => self.command(cx, Some(xid)),
            Event::Host(_, InitiatorEvent::Complete { xid }) => {
                let issued = self.initiator.complete(xid, cx, &mut self.set);
                self.command(cx, issued);
            }
            Event::Disk(disk, DiskEvent::BurstReady { xid }) => self.disk_sends(cx, disk, xid, Phase::Data),
            Event::Disk(disk, DiskEvent::WriteSetup { xid }) => self.disk_sends(cx, disk, xid, Phase::TransferReady),
            Event::Disk(disk, DiskEvent::StatusReady { xid }) => self.disk_sends(cx, disk, xid, Phase::Status),
            Event::Disk(disk, DiskEvent::MechDone { xid }) => {
                // A write-through write is on the media: its status goes now.
                if self.disks[disk as usize].mech_done(xid) {
                    self.disk_sends(cx, disk, xid, Phase::Status);
                }
                self.disks[disk as usize].start_mechanism(self.initiator.exchanges_mut(), cx);
            }
            Event::Bridge(l, ev) => self.bridges.handle(cx, &mut join!(self), l, ev),
            Event::Switch(ev) => self.switch.handle(cx, &mut self.sh, ev),
            Event::SwitchFrame { port, frame } => self.switch.on_frame_start(cx, &mut self.sh, port as usize, frame),
            Event::SwitchCredit { port } => self.switch.on_credit(cx, &mut self.sh, port as usize),
            Event::BridgeFrame { bridge, frame } => self.bridges.on_frame(cx, &mut self.sh, bridge, frame),
            Event::BridgeCredit { bridge } => self.bridges.on_credit(cx, &self.sh, bridge),
            Event::Refused { connection } => self.bridges.refused(cx, &mut join!(self), connection),
        }
    }
}

impl Model for SwitchedLoopModel {
    type Event = Event;
    type Queue = EventQueue<Event>;

    /// A read takes milliseconds even at saturation: two simulated seconds
    /// without one completing, I/Os in flight, is worth a look for a cycle
    /// of waits ([`Model::find_deadlock`]). Often there is none: a slow router,
    /// or thousands of commands queued at one host, make I/Os longer than
    /// that, and the run goes on.
    fn info(&self) -> ModelInfo {
        ModelInfo { unit: "I/Os", quiet_window: Some(2 * time::SECOND), deadlock_check_period: None }
    }

    fn event_set(&self) -> EventQueue<Event> {
        EventQueue::with_capacity(4096)
    }

    /// I/O starts once every loop has initialized.
    fn start(&mut self, cx: &mut Cx) -> Time {
        let start = self.rings.iter().map(|r| r.init().duration).max().unwrap_or(0);
        self.initiator.start(start, cx);
        start
    }

    #[inline]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    fn status(&self) -> Status {
        Status {
            observations: self.initiator.counters.ios_completed,
            in_flight: self.initiator.live() as u64,
            memory_bytes: 0,
        }
    }

    fn frames_moved(&self) -> u64 {
        self.rings.iter().map(|r| r.stats.counters.frames).sum::<u64>() + self.bridges.counters.switch_frames
    }

    fn metrics(&self) -> &MetricSet {
        &self.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.set.reset(now);
        for r in &mut self.rings {
            r.stats.reset(now);
        }
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        for r in &mut self.rings {
            r.close_measurement(&mut self.set, stop);
        }
        self.set.finish(stop);
        Summary {
            metrics: self.metric_summaries(stop),
            sections: vec![("switched_loop".into(), self.section())],
            flags: Vec::new(),
        }
    }

    fn stop_sources(&mut self) {
        self.initiator.stop_sources();
    }

    /// A cycle of loops, each held by a tenancy that waits for the next
    /// (see `switched_report.rs`).
    fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        self.deadlock(now)
    }

    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters(events_pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_event_stays_small() {
        assert!(std::mem::size_of::<Event>() <= 24);
    }
}
