//! Arbitrated loops on a switch (seed 001, "Switched FC-AL"): any number of
//! loops, each a ring of one host (SCSI initiator, port 0), its disks
//! (ports 1..=n) and a bridge (switch-connected node, the last port)
//! attached to one switch port; circuit or packet switching between loops
//! (see [`crate::fc::arbitrated_loop::bridge`]).
//!
//! Hosts read (and write, with `read_fraction` below 1): each command goes
//! to a disk on another loop with the scenario's global share (that loop
//! uniform among the others, drawn from one stream) and to a uniform disk
//! of the loop (a second stream). A read is three phases, each its own
//! tenancy: the command (host to disk), the data (the disk re-arbitrates
//! once its blocks are in the buffer; it is the opener, seed 001 footnote
//! 3) and the status. A write is four: the command, the disk's
//! transfer-ready, the host's data and the status. A phase for a port on
//! another loop goes through the bridges.
//!
//! The switch is the FC switch model ([`crate::fc::switch`]), on the same
//! event set as the loops, with each bridge on one of its ports: it
//! routes every frame a bridge sends, holds class 1 connections for
//! circuits and refuses a connect request whose port another connection
//! holds, and queues class 3 frames of stored phases until the remote
//! bridge has buffers. Over an established circuit, R_RDYs, frames and CLS
//! cross it the way class 1 frames cross a reserved path: a header time
//! plus the two fibres.
//!
//! Metrics follow the seed: disk time (queueing, overhead, seek, rotation,
//! media), loop time (the rest of the I/O: arbitration, opens, frames,
//! circuits and bridges), total time, re-attempts and switch requests per
//! I/O, the longest circuit establishment (first ARB to the first R_RDY
//! back at the opener) of the command and the data phase, throughput.

use super::arbitrated_loop::bridge::{BridgeEvent, Bridges, BridgesSpec, Join};
use super::arbitrated_loop::initialization::InitPort;
use super::arbitrated_loop::port::{Job, PortConfig};
use super::arbitrated_loop::ring::{Closed, Ring, RingEvent, RingReport, Won};
use super::arbitrated_loop::timing::{LoopTiming, FRAME_OVERHEAD_BYTES};
use super::connection::{Connections, Refusal};
use super::metrics::{FcMetrics, FcMetricsSpec};
use super::shared::Shared;
use super::switch::{FcSwitch, FcSwitchSpec, SwitchEvent};
use super::timing::FcTiming;
use crate::error::{Error, Result};
use crate::fabric::deadlock::wait_for_cycle;
use crate::fc::arbitrated_loop::al_pa::VALID_AL_PAS;
use crate::kernel::{time, Arena, EventQueue, RandomStream, Time};
use crate::report::MetricSummary;
use crate::scenario::loops::DiskScheduler;
use crate::scenario::switched_loops::{LightScope, SwitchedLoad};
use crate::scenario::{Scenario, SwitchedLoopModelSpec};
use crate::sim::driver::Metrics;
use crate::sim::metric_set::{DurationId, MeanId, SeriesId};
use crate::sim::{
    Carries, ComponentKind, ComponentPath, Context, Delivery, Link, MetricSet, Model, ModelInfo, PortRef, Status,
    Summary,
};
use crate::storage::disk_target::{DiskEvent, DiskTarget, WriteData};
use crate::storage::exchange::Exchange;
use crate::storage::scsi::{blocks_for, Phase};
use crate::storage::scsi_initiator::InitiatorEvent;
use crate::storage::{drive, Disk, Scheduler};

/// The host's port on every loop.
const HOST: u32 = 0;
/// AL_PA of every bridge: the highest NL_Port priority.
const BRIDGE_AL_PA: u8 = 0x01;

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
        Join { sh: &mut $s.sh, switch: &mut $s.switch, rings: &mut $s.rings, exchanges: &mut $s.exchanges }
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

/// A host's workload streams: which loop, which disk, which block.
struct Host {
    loop_rng: RandomStream,
    disk_rng: RandomStream,
    address_rng: RandomStream,
    /// Read or write, when the workload mixes them.
    kind_rng: RandomStream,
}

struct Stats {
    io_time: DurationId,
    global_io_time: DurationId,
    local_io_time: DurationId,
    disk_time: DurationId,
    loop_time: DurationId,
    retries_per_io: MeanId,
    retries_per_global_io: MeanId,
    switch_requests_per_global_io: MeanId,
    global_share: MeanId,
    /// Circuit establishment of the command (phase 1) and data (phase 2) tenancies.
    establish: [DurationId; 2],
    throughput: SeriesId,
}

#[derive(Clone, Debug, Default)]
struct Counters {
    ios_issued: u64,
    ios_completed: u64,
    bytes_completed: u64,
    /// Completed reads whose data did not all arrive (must stay 0).
    short_reads: u64,
}

pub struct SwitchedLoopModel {
    set: MetricSet,
    rings: Vec<Ring>,
    bridges: Bridges,
    hosts: Vec<Host>,
    disks: Vec<DiskTarget>,
    exchanges: Arena<Exchange>,
    /// The switch the bridges attach to, and the frames, connect requests
    /// and connections it carries.
    switch: FcSwitch,
    sh: Shared,
    spec: SwitchedLoopModelSpec,
    disks_per_loop: u32,
    slots_per_host: u32,
    system_rng: RandomStream,
    stopping: bool,
    stats: Stats,
    counters: Counters,
}

/// The switch of the join: the scenario's `[switch]` (ports, buffers per
/// port, routing time, arbitration) running at the loops' line rate, with
/// the bridge of loop `l` on port `l`. Its frames are the loops' (a frame
/// header, the payload, the fill words between frames); a connect request
/// is a frame without payload.
fn switch(spec: &SwitchedLoopModelSpec, ring: &LoopTiming, fibre: Time, scenario: &Scenario) -> (FcSwitch, Shared) {
    let sw = &spec.switch;
    let loops = spec.switched.loops;
    let timing = FcTiming::at_rate(
        ring.rate,
        FRAME_OVERHEAD_BYTES,
        FRAME_OVERHEAD_BYTES + 4 * ring.fill_words,
        ring.max_payload,
        time::from_ns(sw.routing_time_ns),
        fibre,
    );
    let peers: Vec<Option<Link>> = (0..sw.ports)
        .map(|p| (p < loops).then(|| Link::new(PortRef::new(ComponentKind::LoopBridge, p, 0), fibre)))
        .collect();
    let forwarding: Vec<Vec<u16>> = (0..loops).map(|l| vec![l as u16]).collect();
    let switch = FcSwitch::new(FcSwitchSpec {
        id: 0,
        peers: &peers,
        buffers_per_port: sw.buffers_per_port,
        peer_buffers: spec.switched.bridge_buffers,
        forwarding: &forwarding,
        arbitration: sw.arbitration,
        seed: scenario.run.seed,
    });
    let metrics = FcMetrics::new(
        &[peers.len()],
        FcMetricsSpec {
            buffers: sw.buffers_per_port,
            batches: scenario.run.batches,
            batch_ps: 10 * timing.data_time,
            nodes: forwarding.len(),
            class: 3,
        },
    );
    let sh = Shared {
        frames: Arena::with_capacity(1024),
        messages: Arena::with_capacity(16),
        // A refused bridge closes its opener's tenancy, which arbitrates again: no back-off.
        connections: Connections::new(scenario.run.seed, 0.0),
        timing,
        metrics,
    };
    (switch, sh)
}

/// `n` distinct AL_PAs below the bridge's priority, in a random order.
fn random_al_pas(rng: &mut RandomStream, n: usize) -> Vec<u8> {
    let mut pool: Vec<u8> = VALID_AL_PAS.iter().copied().filter(|&a| a > BRIDGE_AL_PA).collect();
    for i in 0..n.min(pool.len()) {
        let j = i + rng.below((pool.len() - i) as u32) as usize;
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}

impl SwitchedLoopModel {
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let spec = scenario.switched_loop()?.clone();
        let s = &spec.switched;
        let seed = scenario.run.seed;
        let root = ComponentPath::root();
        let mut set = MetricSet::new(scenario.run.batches);
        let dpl = spec.disks_per_loop();
        let bridge_port = dpl + 1;
        let mut rings = Vec::with_capacity(s.loops as usize);
        let mut links = Vec::with_capacity(s.loops as usize);
        let mut disks = Vec::with_capacity((s.loops * dpl) as usize);
        let mut hosts = Vec::with_capacity(s.loops as usize);
        let ring_timing = LoopTiming::new(&spec.ring, dpl + 2);
        // The bridge sits as near its switch port as loop neighbours are to each other.
        let switch_fibre = ring_timing.fibre / (dpl + 2) as Time;
        for l in 0..s.loops {
            let path = root.child(format!("loop_{l:02}"));
            let mut al_pas = random_al_pas(&mut path.stream(seed, "al-pa", 0), dpl as usize + 1).into_iter();
            let port = |name: u64, al_pa: u8, fair: bool, receive_buffers: u32, login_bb_credit: u32| PortConfig {
                init: InitPort {
                    port_name: 0x2000_0000_0000_0000 + ((l as u64) << 16) + name,
                    fl_port: false,
                    hard_al_pa: Some(al_pa),
                    previous_al_pa: None,
                },
                fair,
                receive_buffers,
                login_bb_credit,
            };
            let mut ports =
                vec![port(0, al_pas.next().expect("an AL_PA per port"), s.host_fair, s.host_receive_buffers, 0)];
            for (i, g) in spec.disks.iter().enumerate() {
                let params = drive(&g.model).ok_or_else(|| {
                    Error::invalid(
                        &format!("disks[{i}].model"),
                        &g.model,
                        crate::storage::drive_params::drive_names().join(", "),
                    )
                })?;
                for _ in 0..g.count {
                    let k = ports.len() as u64;
                    ports.push(port(
                        k,
                        al_pas.next().expect("an AL_PA per port"),
                        g.fair,
                        g.receive_buffers,
                        g.login_bb_credit,
                    ));
                    let scheduler = match g.scheduler {
                        DiskScheduler::Fifo => Scheduler::Fifo,
                        DiskScheduler::Sstf => Scheduler::Sstf,
                    };
                    let disk = Disk::new(&params, scheduler, g.read_cache, g.read_ahead, g.queue_depth as usize);
                    disks.push(DiskTarget::new(disks.len() as u32, disk, g));
                }
            }
            ports.push(port(bridge_port as u64, BRIDGE_AL_PA, false, s.bridge_buffers, 0));
            rings.push(Ring::new(path.clone(), l, &spec.ring, &ports, &mut set)?);
            let to_switch = Link::new(PortRef::switch(0, l as u16), switch_fibre);
            links.push(to_switch);
            let host = path.child("host");
            hosts.push(Host {
                loop_rng: host.stream(seed, "target-loop", 0),
                disk_rng: host.stream(seed, "target-disk", 0),
                address_rng: host.stream(seed, "address", 0),
                kind_rng: host.stream(seed, "read-or-write", 0),
            });
        }
        let slots_per_host = match s.load {
            SwitchedLoad::Heavy => s.outstanding_per_disk * dpl,
            SwitchedLoad::Light => 1,
        };
        let batch_ps = 100 * rings[0].timing().frame_time(spec.ring.frame_payload_bytes);
        let stats = Stats {
            io_time: set.duration("io_time_us", true),
            global_io_time: set.duration("global_io_time_us", false),
            local_io_time: set.duration("local_io_time_us", false),
            disk_time: set.duration("disk_time_us", false),
            loop_time: set.duration("loop_time_us", false),
            retries_per_io: set.mean("retries_per_io"),
            retries_per_global_io: set.mean("retries_per_global_io"),
            switch_requests_per_global_io: set.mean("switch_requests_per_global_io"),
            global_share: set.mean("global_share"),
            establish: [set.duration("establish_command_us", false), set.duration("establish_data_us", false)],
            throughput: set.series("throughput", batch_ps, true),
        };
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
            hosts,
            disks,
            exchanges: Arena::with_capacity(1024),
            switch,
            sh,
            disks_per_loop: dpl,
            slots_per_host,
            system_rng: root.stream(seed, "light-host", 0),
            stopping: false,
            stats,
            counters: Counters::default(),
            spec,
        })
    }

    #[inline]
    fn bridge_port(&self) -> u32 {
        self.disks_per_loop + 1
    }

    /// Where phase `phase` of exchange `xid` ends: (loop, port). The
    /// command and a write's data go to the disk; a read's data, a write's
    /// transfer-ready and the status to the host.
    #[inline]
    fn destination(&self, xid: u32, phase: Phase) -> (u32, u32) {
        let ex = &self.exchanges[xid];
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

    fn issue(&mut self, cx: &mut Cx, slot: u32) {
        if self.stopping {
            return;
        }
        let now = cx.now();
        let s = &self.spec.switched;
        let loops = s.loops;
        let h = match s.light_scope {
            LightScope::System if s.load == SwitchedLoad::Light => self.system_rng.below(loops),
            _ => slot / self.slots_per_host,
        };
        let host = &mut self.hosts[h as usize];
        let dl = if loops > 1 && host.loop_rng.bernoulli(s.global_fraction) {
            let o = host.loop_rng.below(loops - 1);
            if o >= h {
                o + 1
            } else {
                o
            }
        } else {
            h
        };
        let disk = dl * self.disks_per_loop + host.disk_rng.below(self.disks_per_loop);
        let bytes = s.request_bytes;
        let blocks = blocks_for(bytes);
        let span = (self.disks[disk as usize].capacity_blocks() / blocks as u64).max(1);
        let lbn = (host.address_rng.next_u64() % span) * blocks as u64;
        // Reads only (the seed's workload) draw nothing, so their streams stay as they were.
        let read = s.read_fraction >= 1.0 || host.kind_rng.bernoulli(s.read_fraction);
        let xid = self.exchanges.insert(Exchange {
            disk,
            slot,
            read,
            lbn,
            blocks,
            bytes,
            issued: now,
            initiator: h,
            ..Exchange::default()
        });
        self.counters.ios_issued += 1;
        self.send(cx, h, HOST, xid, Phase::Command, 0);
    }

    /// The status is at the host: the read is done and its slot issues the next.
    fn complete(&mut self, cx: &mut Cx, xid: u32) {
        let now = cx.now();
        let ex = self.exchanges[xid];
        self.exchanges.remove(xid);
        let c = &mut self.counters;
        c.ios_completed += 1;
        c.bytes_completed += ex.bytes as u64;
        if ex.delivered != ex.bytes {
            c.short_reads += 1;
        }
        let total = now - ex.issued;
        let disk: Time = ex.parts[1..=5].iter().sum();
        let global = ex.disk / self.disks_per_loop != ex.initiator;
        let st = &self.stats;
        let set = &mut self.set;
        set.record(st.io_time, total);
        set.record(if global { st.global_io_time } else { st.local_io_time }, total);
        set.record(st.disk_time, disk);
        set.record(st.loop_time, total.saturating_sub(disk));
        set.observe(st.retries_per_io, ex.retries as f64);
        set.observe(st.global_share, if global { 1.0 } else { 0.0 });
        if global {
            set.observe(st.retries_per_global_io, ex.retries as f64);
            set.observe(st.switch_requests_per_global_io, ex.switch_requests as f64);
        }
        set.impulse(st.throughput, now, ex.bytes as f64);
        self.issue(cx, ex.slot);
    }

    // ---- the ring's reports --------------------------------------------------

    /// Records the establishment of the command or data phase of `xid`,
    /// its first R_RDY reaching the opener at `credit_at`.
    fn establish(&mut self, xid: u32, phase: Phase, credit_at: Time) {
        let i = match phase {
            Phase::Command => 0,
            Phase::Data => 1,
            _ => return,
        };
        if let Some(first) = self.exchanges[xid].phase_first[phase as usize] {
            self.set.record(self.stats.establish[i], credit_at.saturating_sub(first));
        }
    }

    fn on_won(&mut self, cx: &mut Cx, l: u32, opener: u32, w: Won) {
        let now = cx.now();
        let job = w.job;
        let bp = self.bridge_port();
        let first = &mut self.exchanges[job.xid].phase_first[job.phase as usize];
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
        let ex = self.exchanges[xid];
        let (disk, read) = (ex.disk, ex.read);
        let target = &mut self.disks[disk as usize];
        match phase {
            Phase::Command if read => target.read_command(xid, &mut self.exchanges, cx),
            Phase::Command => target.write_command(xid, &mut self.exchanges[xid], cx),
            // The host sends the data the transfer-ready asks for.
            Phase::TransferReady => self.send(cx, ex.initiator, HOST, xid, Phase::Data, bytes),
            Phase::Data if read => self.exchanges[xid].delivered += bytes,
            Phase::Data => match target.write_data(xid, bytes, now, &mut self.exchanges[xid]) {
                WriteData::More => self.disk_sends(cx, disk, xid, Phase::TransferReady),
                WriteData::Received { status_now } => {
                    if status_now {
                        self.disk_sends(cx, disk, xid, Phase::Status);
                    }
                    self.disks[disk as usize].start_mechanism(&mut self.exchanges, cx);
                }
            },
            Phase::Status => self.complete(cx, xid),
        }
    }

    /// Disk `disk` queues phase `phase` of `xid` at its port: a status, or
    /// its next burst (read data, or a transfer-ready asking for write data).
    fn disk_sends(&mut self, cx: &mut Cx, disk: u32, xid: u32, phase: Phase) {
        let bytes = match phase {
            Phase::Status => 0,
            _ => self.disks[disk as usize].next_burst(&mut self.exchanges[xid]),
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
        if c.opener == HOST || c.job.phase != Phase::Data || !self.exchanges[c.job.xid].read {
            return;
        }
        let xid = c.job.xid;
        let disk = self.exchanges[xid].disk;
        if self.disks[disk as usize].read_burst_sent(xid, c.sent_at, &mut self.exchanges, cx) {
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
            Event::Host(_, InitiatorEvent::Issue { slot }) => self.issue(cx, slot),
            Event::Host(_, InitiatorEvent::Send { .. } | InitiatorEvent::Complete { .. }) => {
                unreachable!("hosts send at once and complete on the status")
            }
            Event::Disk(disk, DiskEvent::BurstReady { xid }) => self.disk_sends(cx, disk, xid, Phase::Data),
            Event::Disk(disk, DiskEvent::WriteSetup { xid }) => self.disk_sends(cx, disk, xid, Phase::TransferReady),
            Event::Disk(disk, DiskEvent::StatusReady { xid }) => self.disk_sends(cx, disk, xid, Phase::Status),
            Event::Disk(disk, DiskEvent::MechDone { xid }) => {
                // A write-through write is on the media: its status goes now.
                if self.disks[disk as usize].mech_done(xid) {
                    self.disk_sends(cx, disk, xid, Phase::Status);
                }
                self.disks[disk as usize].start_mechanism(&mut self.exchanges, cx);
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

    fn metric_summaries(&self, stop: Time) -> Metrics {
        let set = &self.set;
        let st = &self.stats;
        let elapsed = (stop - set.measure_start()).max(1);
        let mut out: Metrics = Vec::new();
        for id in [st.io_time, st.global_io_time, st.local_io_time, st.disk_time, st.loop_time] {
            out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
        }
        for id in [st.retries_per_io, st.retries_per_global_io, st.switch_requests_per_global_io, st.global_share] {
            out.push((set.mean_name(id).to_string(), set.mean_summary(id)));
        }
        for id in st.establish {
            out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
        }
        let tp = set.time_series(st.throughput);
        let ci = tp.interval().map(|c| c.half_width * 1e12 / 1e6);
        out.push(("throughput_mb_s".into(), MetricSummary::with_ci(tp.mean(stop) * 1e12 / 1e6, ci)));
        let ios = set.duration_summary(st.io_time).count.unwrap_or(0) as f64;
        out.push(("iops".into(), MetricSummary::value(ios / (elapsed as f64 * 1e-12))));
        let mut util = 0.0;
        for r in &self.rings {
            let u = r.stats.owned_time(set) as f64 / elapsed as f64;
            util += u;
            out.push((r.path().metric("utilization"), MetricSummary::value(u)));
            for id in [r.stats.tenancy, r.stats.arbitration_wait, r.stats.open_round_trip] {
                out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
            }
        }
        out.push(("loop_utilization".into(), MetricSummary::value(util / self.rings.len() as f64)));
        out.push(("loop_trip_us".into(), MetricSummary::value(time::to_us(self.rings[0].timing().trip()))));
        out
    }

    fn section(&self) -> serde_json::Value {
        serde_json::json!({
            "loops": self.rings.len(),
            "switching": self.spec.switched.switching,
            "ports_per_loop": self.rings[0].ports().len(),
            "trip_us": time::to_us(self.rings[0].timing().trip()),
            "al_pas": self.rings.iter().map(|r| r.ports().iter().map(|p| p.al_pa).collect::<Vec<_>>()).collect::<Vec<_>>(),
        })
    }

    fn counters(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        let c = &self.counters;
        let in_flight = c.ios_issued - c.ios_completed;
        if self.exchanges.live() as u64 != in_flight {
            return Err(Error::model(format!(
                "I/O conservation violated: {} exchanges alive, {} issued - {} completed",
                self.exchanges.live(),
                c.ios_issued,
                c.ios_completed
            )));
        }
        if c.short_reads > 0 {
            return Err(Error::model(format!("{} reads completed before all their data arrived", c.short_reads)));
        }
        let segments = self.bridges.segments_live();
        if events_pending == 0 && (self.sh.frames.live() > 0 || self.sh.connections.live() > 0 || segments > 0) {
            return Err(Error::model(format!(
                "an idle switch holds {} frames, {} connections and {segments} segments",
                self.sh.frames.live(),
                self.sh.connections.live(),
            )));
        }
        let b = &self.bridges.counters;
        let frames: u64 = self.rings.iter().map(|r| r.stats.counters.frames).sum();
        // Refusals the bridges made: closed by the rings, or still closing.
        let refused: u64 = self.rings.iter().map(|r| r.stats.counters.refused_opens + r.refusal_pending() as u64).sum();
        if refused != b.refused_circuits + b.refused_bridge_opens {
            return Err(Error::model(format!(
                "refused opens: the rings closed {refused}, the bridges refused {}",
                b.refused_circuits + b.refused_bridge_opens
            )));
        }
        Ok(vec![
            ("ios_issued".to_string(), c.ios_issued as i64),
            ("ios_completed".into(), c.ios_completed as i64),
            ("ios_in_flight".into(), in_flight as i64),
            ("bytes_completed".into(), c.bytes_completed as i64),
            ("loop_frames".into(), frames as i64),
            ("switch_frames".into(), b.switch_frames as i64),
            ("circuits".into(), b.circuits as i64),
            ("refused_circuits".into(), b.refused_circuits as i64),
            ("segments".into(), b.segments as i64),
            ("refused_segments".into(), b.refused_segments as i64),
            ("refused_bridge_opens".into(), b.refused_bridge_opens as i64),
            ("segments_in_switch".into(), segments as i64),
            ("frames_in_switch".into(), self.sh.frames.live() as i64),
            ("connections_held".into(), self.sh.connections.live() as i64),
            ("switch_headers_routed".into(), self.switch.headers_routed as i64),
        ])
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
        let slots = match (self.spec.switched.load, self.spec.switched.light_scope) {
            (SwitchedLoad::Light, LightScope::System) => 1,
            _ => self.slots_per_host * self.rings.len() as u32,
        };
        for slot in 0..slots {
            let host = slot / self.slots_per_host;
            cx.schedule(start, Event::Host(host, InitiatorEvent::Issue { slot }));
        }
        start
    }

    #[inline]
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    fn status(&self) -> Status {
        Status { observations: self.counters.ios_completed, in_flight: self.exchanges.live() as u64, memory_bytes: 0 }
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
        self.stopping = true;
    }

    /// A cycle of loops, each held by a tenancy that waits for the next.
    /// Only a circuit holds one loop while waiting for another: its opener
    /// owns its loop until the remote bridge has won the remote loop. The
    /// switch refuses a connect request whose port another connection holds,
    /// so the protocol never closes such a cycle; the search is the proof at
    /// run time. Packet switching holds nothing while it waits: a stored
    /// phase waiting for remote buffers holds only its own bridge's buffers,
    /// and the bridge refuses an opener it has no room for.
    fn find_deadlock(&mut self, now: Time) -> Option<serde_json::Value> {
        let bp = self.bridge_port();
        let waits = self.bridges.circuit_waits().filter_map(|(l, c)| {
            let remote_won = self.rings[c.dst as usize].owner() == Some(bp);
            (self.rings[l as usize].owner() == Some(c.opener) && !remote_won).then_some((l, c.dst))
        });
        let cycle = wait_for_cycle(waits)?;
        let names: Vec<String> = cycle
            .iter()
            .map(|&l| {
                let c = self.bridges.outbound(l).expect("a waiting loop has its circuit");
                let owner = self.rings[c.dst as usize].owner().map_or("nobody".to_string(), |p| format!("port {p}"));
                format!(
                    "loop {l} -> loop {}: port {}'s circuit to port {} holds loop {l} and waits for loop {}, owned by {owner}",
                    c.dst, c.opener, c.target, c.dst
                )
            })
            .collect();
        Some(serde_json::json!({
            "time_us": time::to_us(now),
            "cycle": names,
            "ios_in_flight": self.exchanges.live(),
        }))
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
