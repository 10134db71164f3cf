//! The arbitrated loop model: an initiator (host bus adapter) and disks on
//! one ring, SCSI exchanges carried as FCP phases, each phase in its own
//! loop tenancy, and the event loop that runs them.
//!
//! A tenancy: the opener wins arbitration, sends OPN; the target answers
//! with an R_RDY per free receive buffer (alternate credit model, login
//! BB_Credit 0) or the opener uses its login credit at once; frames follow
//! as credit allows, each R_RDY coming back one loop trip after its frame;
//! then CLS goes out and the loop is released when the target's CLS returns.
//! So an idle-loop phase with one frame costs three loop trips (ARB, OPN and
//! R_RDY, CLS and CLS) plus the frame, as seed 004's analyzer traces show.
//! Only one tenancy exists at a time, so its state lives in the model.

use super::arbitration::{Arbiter, PendingWin};
use super::initialization::{initialize, InitPort, LoopInit};
use super::metrics::LoopMetrics;
use super::port::{Job, LoopPort};
use super::timing::LoopTiming;
use crate::error::{Error, Result};
use crate::kernel::{time, Arena, EventQueue, RandomStream, Time};
use crate::report::{MetricSummary, RunReport};
use crate::scenario::loops::{Access, Addressing, DiskScheduler, InitiatorSpec, IoMode};
use crate::scenario::Scenario;
use crate::sim::driver::{Metrics, Sections};
use crate::sim::{run_model, MeasurementPlan, MetricSet, Model};
use crate::storage::disk::{MechJob, Service};
use crate::storage::mechanics::Location;
use crate::storage::scsi::{blocks_for, Phase, BLOCK_BYTES};
use crate::storage::{drive, Disk, Scheduler};

const HOST: u32 = 0;
const NO_XID: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The application in `slot` issues its next I/O.
    Issue {
        slot: u32,
    },
    /// Host overhead done: the command is queued at the adapter.
    Send {
        xid: u32,
    },
    Win {
        port: u32,
        generation: u32,
    },
    /// An IDLE reaches `port`: its access window reopens.
    WindowReset {
        port: u32,
    },
    Credit {
        seq: u32,
        n: u32,
    },
    TxDone {
        seq: u32,
    },
    /// The last frame of a phase is in the target's buffer.
    Delivered {
        xid: u32,
        phase: Phase,
        bytes: u32,
    },
    Release {
        seq: u32,
    },
    /// The next read burst is in the disk's buffer.
    BurstReady {
        xid: u32,
    },
    /// The disk has processed a write command: ask for data.
    WriteSetup {
        xid: u32,
    },
    MechDone {
        disk: u32,
        xid: u32,
    },
    Complete {
        xid: u32,
    },
}

/// One SCSI exchange (an I/O), from the application's request to its completion.
#[derive(Clone, Copy, Debug, Default)]
struct Exchange {
    disk: u32,
    slot: u32,
    read: bool,
    lbn: u64,
    blocks: u32,
    bytes: u32,
    issued: Time,
    /// Bytes handed to bursts (read) or requested by XFER_RDY (write).
    scheduled: u32,
    /// Bytes delivered to their receiver.
    delivered: u32,
    /// Read data: media start and location (or, for cache hits, `hit_ready`).
    media_start: Time,
    location: Option<Location>,
    hit_ready: Option<Time>,
    parts: [Time; 8],
    phase_first: [Option<Time>; 4],
    phase_last: [Time; 4],
    tenancies: u32,
    trips: f64,
    /// The application has seen the status (at `done_at`).
    completed: bool,
    done_at: Time,
    /// The status tenancy has closed; the record is freed once both hold.
    status_closed: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Tenancy {
    seq: u32,
    opener: u32,
    job: Option<Job>,
    frames: u32,
    sent: u32,
    credit: u32,
    sending: bool,
    won_at: Time,
    first_credit: Option<Time>,
}

struct DiskState {
    disk: Disk,
    burst: u32,
    write_cache: bool,
    /// The media access in progress.
    service: Option<Service>,
}

pub struct LoopModel {
    now: Time,
    queue: EventQueue<Event>,
    timing: LoopTiming,
    ports: Vec<LoopPort>,
    arbiter: Arbiter,
    tenancy: Tenancy,
    disks: Vec<DiskState>,
    exchanges: Arena<Exchange>,
    host: InitiatorSpec,
    active_disks: u32,
    /// Per active disk: I/Os issued so far and the next sequential block.
    issued_per_disk: Vec<u64>,
    next_lbn: Vec<u64>,
    address_rng: Vec<RandomStream>,
    kind_rng: Vec<RandomStream>,
    target_rng: RandomStream,
    stopping: bool,
    /// Exchanges completed whose status tenancy has not closed yet.
    lingering: u64,
    /// Origin of the ARB front that will win next.
    pending_origin: u32,
    pub init: LoopInit,
    pub metrics: LoopMetrics,
    events: u64,
    scenario: Scenario,
}

impl LoopModel {
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let model = scenario.arbitrated_loop()?;
        let spec = &model.ring;
        let groups = &model.disks;
        let host = model.initiator.clone();
        let n_disks = model.disk_count() as u32;
        let n_ports = n_disks + 1;
        let timing = LoopTiming::new(
            spec.baud,
            n_ports,
            spec.node_delay_words,
            spec.length_m,
            spec.propagation_ns_per_m,
            spec.fill_words,
            spec.frame_payload_bytes,
        );
        // Ring order: the adapter, then the disk groups as listed.
        let hard = spec.addressing == Addressing::Hard;
        let mut init_ports = vec![InitPort {
            port_name: 0x2000_0000_0000_0000,
            fl_port: false,
            hard_al_pa: if hard { super::al_pa::al_pa_of_loop_id(host.loop_id) } else { None },
            previous_al_pa: None,
        }];
        let mut disks = Vec::with_capacity(n_disks as usize);
        let mut port_cfg = vec![(host.fair, host.receive_buffers, host.login_bb_credit)];
        for (i, g) in groups.iter().enumerate() {
            let params = drive(&g.model).ok_or_else(|| {
                Error::invalid(
                    &format!("disks[{i}].model"),
                    &g.model,
                    crate::storage::drive_params::drive_names().join(", "),
                )
            })?;
            for _ in 0..g.count {
                let k = disks.len() as u8;
                init_ports.push(InitPort {
                    port_name: 0x2100_0000_0000_0000 + k as u64,
                    fl_port: false,
                    hard_al_pa: if hard { super::al_pa::al_pa_of_loop_id(k) } else { None },
                    previous_al_pa: None,
                });
                let scheduler = match g.scheduler {
                    DiskScheduler::Fifo => Scheduler::Fifo,
                    DiskScheduler::Sstf => Scheduler::Sstf,
                };
                disks.push(DiskState {
                    disk: Disk::new(&params, scheduler, g.read_cache, g.read_ahead, g.queue_depth as usize),
                    burst: g.burst_bytes,
                    write_cache: g.write_cache,
                    service: None,
                });
                port_cfg.push((g.fair, g.receive_buffers, g.login_bb_credit));
            }
        }
        let mut init = initialize(&init_ports, &timing, spec.init_store_and_forward, spec.position_map);
        if !spec.initialize {
            init.duration = 0;
        }
        let mut ports = Vec::with_capacity(n_ports as usize);
        for (i, &(fair, buffers, credit)) in port_cfg.iter().enumerate() {
            let al_pa = init.al_pas[i].ok_or_else(|| Error::model(format!("port {i} acquired no AL_PA")))?;
            ports.push(LoopPort::new(al_pa, fair, buffers, credit));
        }
        let active = host.active_disks.unwrap_or(n_disks);
        let seed = scenario.run.seed;
        let metrics =
            LoopMetrics::new(n_disks as usize, scenario.run.batches, 100 * timing.frame_time(spec.frame_payload_bytes));
        Ok(LoopModel {
            now: 0,
            queue: EventQueue::with_capacity(4096),
            timing,
            ports,
            arbiter: Arbiter::default(),
            tenancy: Tenancy::default(),
            disks,
            exchanges: Arena::with_capacity(1024),
            active_disks: active,
            issued_per_disk: vec![0; active as usize],
            next_lbn: vec![0; active as usize],
            address_rng: (0..active as u64).map(|d| RandomStream::new(seed, "loop-io-address", d)).collect(),
            kind_rng: (0..active as u64).map(|d| RandomStream::new(seed, "loop-io-kind", d)).collect(),
            target_rng: RandomStream::new(seed, "loop-io-target", 0),
            host,
            stopping: false,
            lingering: 0,
            pending_origin: 0,
            init,
            metrics,
            events: 0,
            scenario: scenario.clone(),
        })
    }

    pub fn timing(&self) -> &LoopTiming {
        &self.timing
    }

    pub fn al_pa(&self, port: usize) -> u8 {
        self.ports[port].al_pa
    }

    // ---- workload -------------------------------------------------------

    fn slots(&self) -> u32 {
        match self.host.mode {
            IoMode::Closed => self.active_disks * self.host.outstanding,
            IoMode::Light => 1,
        }
    }

    fn issue(&mut self, slot: u32) {
        if self.stopping {
            return;
        }
        let d = match self.host.mode {
            IoMode::Closed => slot / self.host.outstanding,
            IoMode::Light => self.target_rng.below(self.active_disks),
        } as usize;
        if self.host.ios_per_disk > 0 && self.issued_per_disk[d] >= self.host.ios_per_disk {
            return;
        }
        self.issued_per_disk[d] += 1;
        let bytes = self.host.request_bytes;
        let blocks = blocks_for(bytes);
        let capacity = self.disks[d].disk.mech.capacity_blocks;
        let span = (capacity / blocks as u64).max(1);
        let lbn = match self.host.access {
            Access::Random => (self.address_rng[d].next_u64() % span) * blocks as u64,
            Access::Sequential => {
                let l = self.next_lbn[d];
                self.next_lbn[d] = if l + 2 * blocks as u64 > capacity { 0 } else { l + blocks as u64 };
                l
            }
        };
        let read = self.host.read_fraction >= 1.0 || self.kind_rng[d].bernoulli(self.host.read_fraction);
        let xid = self.exchanges.insert(Exchange {
            disk: d as u32,
            slot,
            read,
            lbn,
            blocks,
            bytes,
            issued: self.now,
            ..Exchange::default()
        });
        self.metrics.counters.ios_issued += 1;
        let overhead = time::from_us(self.host.command_overhead_us);
        self.exchanges[xid].parts[0] += overhead;
        self.queue.push(self.now + overhead, Event::Send { xid });
    }

    /// The application sees the status: the I/O is done and its slot issues the next.
    fn complete(&mut self, xid: u32) {
        let ex = self.exchanges[xid];
        let m = &mut self.metrics;
        m.counters.ios_completed += 1;
        m.counters.bytes_completed += ex.bytes as u64;
        let t = self.now - ex.issued;
        m.record(m.io_time, t);
        m.record(if ex.read { m.read_time } else { m.write_time }, t);
        m.set.impulse(m.throughput, self.now, ex.bytes as f64);
        let dev = m.devices[ex.disk as usize];
        m.set.add(dev.ios, 1);
        m.set.add(dev.bytes, ex.bytes as u64);
        m.set.raise(dev.last_completion, self.now);
        m.set.observe(dev.io_time, t as f64 * 1e-6);
        self.exchanges[xid].completed = true;
        self.lingering += 1;
        self.maybe_free(xid);
        self.issue(ex.slot);
    }

    /// Once the status tenancy has also closed, the exchange's loop-side
    /// figures are final: record them and free the record.
    fn maybe_free(&mut self, xid: u32) {
        let ex = self.exchanges[xid];
        if !(ex.completed && ex.status_closed) {
            return;
        }
        self.exchanges.remove(xid);
        self.lingering -= 1;
        let m = &mut self.metrics;
        for (&id, &part) in m.parts.iter().zip(&ex.parts) {
            m.set.observe(id, part as f64 * 1e-6);
        }
        for p in 0..4 {
            if let Some(first) = ex.phase_first[p] {
                m.record(m.phases[p], ex.phase_last[p] - first);
            }
        }
        if let (Some(d), Some(_)) = (ex.phase_first[Phase::Data as usize], ex.phase_first[Phase::Command as usize]) {
            if ex.read {
                m.record(m.idle_command_data, d.saturating_sub(ex.phase_last[Phase::Command as usize]));
                if let Some(s) = ex.phase_first[Phase::Status as usize] {
                    m.record(m.idle_data_status, s.saturating_sub(ex.phase_last[Phase::Data as usize]));
                }
            }
        }
        m.set.observe(m.trips_per_io, ex.trips);
        m.set.observe(m.tenancies_per_io, ex.tenancies as f64);
    }

    // ---- ports and arbitration -------------------------------------------

    fn enqueue_job(&mut self, port: u32, xid: u32, phase: Phase, bytes: u32, target: u32) {
        self.ports[port as usize].jobs.push_back(Job { xid, phase, bytes, target, queued_at: self.now });
        self.try_arbitrate(port);
    }

    fn try_arbitrate(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if p.arbitrating || !p.wants_loop() || self.arbiter.owner == Some(port) {
            return;
        }
        p.arbitrating = true;
        p.arb_start = self.now;
        if let Some(w) = self.arbiter.on_start(port, self.now, &self.ports, &self.timing) {
            self.schedule_win(w);
        }
    }

    fn schedule_win(&mut self, w: PendingWin) {
        self.queue.push(w.at, Event::Win { port: w.port, generation: w.generation });
        self.pending_origin = w.origin; // where the winning ARB set out, for trip accounting
    }

    fn on_win(&mut self, port: u32, generation: u32) {
        if !self.arbiter.on_win(port, generation) {
            self.metrics.counters.stale_wins += 1;
            return;
        }
        let origin = self.pending_origin;
        let p = &mut self.ports[port as usize];
        p.arbitrating = false;
        if p.fair {
            p.window_open = false;
        }
        let job = p.jobs.pop_front().expect("a winning port has a job");
        let arb_start = p.arb_start;
        self.metrics.owned_since = self.now;
        self.metrics.record(self.metrics.arbitration_wait, self.now - arb_start);
        self.metrics.counters.tenancies += 1;
        let ex = &mut self.exchanges[job.xid];
        ex.parts[6] += self.now - job.queued_at;
        ex.tenancies += 1;
        ex.trips += self.timing.delay(origin, port) as f64 / self.timing.trip() as f64 + 2.0;
        let ph = job.phase as usize;
        if ex.phase_first[ph].is_none() {
            ex.phase_first[ph] = Some(arb_start.max(job.queued_at));
        }
        let frames = if job.phase == Phase::Data { self.timing.frames_for(job.bytes) } else { 1 };
        let seq = self.tenancy.seq.wrapping_add(1);
        self.tenancy = Tenancy {
            seq,
            opener: port,
            job: Some(job),
            frames,
            sent: 0,
            credit: 0,
            sending: false,
            won_at: self.now,
            first_credit: None,
        };
        let target = &self.ports[job.target as usize];
        let w = self.timing.word;
        if target.login_bb_credit > 0 {
            // Login credit: frames may follow OPN at once.
            self.queue.push(self.now + w, Event::Credit { seq, n: target.login_bb_credit });
        } else {
            // Alternate credit model: OPN out, one R_RDY per free buffer back.
            self.queue.push(self.now + 2 * w + self.timing.trip(), Event::Credit { seq, n: target.receive_buffers });
        }
    }

    fn on_credit(&mut self, seq: u32, n: u32) {
        if seq != self.tenancy.seq {
            return;
        }
        if self.tenancy.first_credit.is_none() {
            self.tenancy.first_credit = Some(self.now);
            self.metrics.record(self.metrics.open_round_trip, self.now - self.tenancy.won_at);
        }
        self.tenancy.credit += n;
        if !self.tenancy.sending {
            self.send_frame();
        }
    }

    fn send_frame(&mut self) {
        let t = &mut self.tenancy;
        let job = t.job.expect("tenancy has a job");
        if t.sent >= t.frames || t.credit == 0 {
            t.sending = false;
            return;
        }
        let payload = if job.phase == Phase::Data {
            self.timing.payload_of(job.bytes, t.sent)
        } else {
            job.phase.control_bytes()
        };
        let ft = self.timing.frame_time(payload);
        t.credit -= 1;
        t.sending = true;
        let seq = t.seq;
        self.metrics.counters.frames += 1;
        self.queue.push(self.now + ft, Event::TxDone { seq });
        // The target frees the buffer on receipt; its R_RDY needs the rest of the trip.
        self.queue.push(self.now + ft + self.timing.trip() + self.timing.word, Event::Credit { seq, n: 1 });
    }

    fn on_tx_done(&mut self, seq: u32) {
        if seq != self.tenancy.seq {
            return;
        }
        self.tenancy.sent += 1;
        if self.tenancy.sent < self.tenancy.frames {
            self.tenancy.sending = false;
            self.send_frame();
            return;
        }
        self.tenancy.sending = false;
        let job = self.tenancy.job.expect("tenancy has a job");
        let opener = self.tenancy.opener;
        let d = self.timing.delay(opener, job.target);
        self.queue.push(self.now + d, Event::Delivered { xid: job.xid, phase: job.phase, bytes: job.bytes });
        // CLS out, the target's CLS back.
        self.queue.push(self.now + 2 * self.timing.word + self.timing.trip(), Event::Release { seq });
    }

    fn on_release(&mut self, seq: u32) {
        if seq != self.tenancy.seq {
            return;
        }
        let t = self.tenancy;
        let job = t.job.expect("tenancy has a job");
        self.tenancy.job = None;
        self.metrics.loop_released(self.now);
        self.metrics.record(self.metrics.tenancy, self.now - t.won_at);
        {
            let ex = &mut self.exchanges[job.xid];
            ex.parts[7] += self.now - t.won_at;
            ex.phase_last[job.phase as usize] = self.now;
        }
        if t.opener != HOST && job.phase == Phase::Data {
            self.read_burst_sent(job.xid);
        }
        if job.phase == Phase::Status {
            self.exchanges[job.xid].status_closed = true;
            self.maybe_free(job.xid);
        }
        // The opener arbitrates again if it may; then the loop passes on or goes idle.
        let o = t.opener;
        let p = &mut self.ports[o as usize];
        if p.wants_loop() {
            p.arbitrating = true;
            p.arb_start = self.now;
        }
        match self.arbiter.on_release(o, self.now, &self.ports, &self.timing) {
            Some(w) => self.schedule_win(w),
            None => {
                // Nobody arbitrates: the owner sends IDLEs, which reopen every access
                // window as they pass. The owner itself knows no one else is waiting
                // (its ARB(F0) came back), so its own window reopens at once.
                self.ports[o as usize].window_open = true;
                self.try_arbitrate(o);
                for i in 0..self.ports.len() as u32 {
                    let p = &mut self.ports[i as usize];
                    if !p.window_open && !p.reset_pending {
                        p.reset_pending = true;
                        self.queue.push(self.now + self.timing.delay(o, i), Event::WindowReset { port: i });
                    }
                }
            }
        }
    }

    fn on_window_reset(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        p.window_open = true;
        p.reset_pending = false;
        self.try_arbitrate(port);
    }

    // ---- SCSI target and initiator behaviour -----------------------------

    fn on_delivered(&mut self, xid: u32, phase: Phase, bytes: u32) {
        let (disk, read, total) = {
            let ex = &self.exchanges[xid];
            (ex.disk, ex.read, ex.bytes)
        };
        let disk_port = disk + 1;
        match phase {
            Phase::Command if read => {
                let (lbn, blocks) = (self.exchanges[xid].lbn, self.exchanges[xid].blocks);
                let ds = &mut self.disks[disk as usize];
                if let Some(ready) = ds.disk.read_hit(self.now, lbn, blocks) {
                    self.metrics.counters.cache_hits += 1;
                    let ex = &mut self.exchanges[xid];
                    ex.hit_ready = Some(ready);
                    ex.parts[2] += ready - self.now;
                    self.schedule_next_burst(xid);
                } else {
                    ds.disk.enqueue(MechJob { xid, lbn, blocks, write: false, queued_at: self.now });
                    self.start_mechanism(disk);
                }
            }
            Phase::Command => {
                let overhead = self.disks[disk as usize].disk.write_overhead;
                self.exchanges[xid].parts[2] += overhead;
                self.queue.push(self.now + overhead, Event::WriteSetup { xid });
            }
            Phase::TransferReady => self.enqueue_job(HOST, xid, Phase::Data, bytes, disk_port),
            Phase::Data if read => self.exchanges[xid].delivered += bytes,
            Phase::Data => {
                let ex = &mut self.exchanges[xid];
                ex.delivered += bytes;
                if ex.delivered < total {
                    self.send_next_burst(xid, Phase::TransferReady);
                } else {
                    let (lbn, blocks) = (ex.lbn, ex.blocks);
                    let ds = &mut self.disks[disk as usize];
                    // A write cache answers at once and destages on its own
                    // (no exchange waits on it); write-through answers after the media.
                    let cached = ds.write_cache;
                    ds.disk.enqueue(MechJob {
                        xid: if cached { NO_XID } else { xid },
                        lbn,
                        blocks,
                        write: true,
                        queued_at: self.now,
                    });
                    if cached {
                        self.enqueue_job(disk_port, xid, Phase::Status, 0, HOST);
                    }
                    self.start_mechanism(disk);
                }
            }
            Phase::Status => {
                let overhead = time::from_us(self.host.completion_overhead_us);
                let ex = &mut self.exchanges[xid];
                ex.parts[0] += overhead;
                ex.done_at = self.now + overhead;
                self.queue.push(self.now + overhead, Event::Complete { xid });
            }
        }
    }

    /// Hands the next burst of exchange `xid` to the disk's port: a transfer
    /// ready for writes, the data itself for reads.
    fn send_next_burst(&mut self, xid: u32, phase: Phase) {
        let ex = &mut self.exchanges[xid];
        let burst = self.disks[ex.disk as usize].burst.min(ex.bytes - ex.scheduled);
        ex.scheduled += burst;
        let port = ex.disk + 1;
        self.enqueue_job(port, xid, phase, burst, HOST);
    }

    fn start_mechanism(&mut self, disk: u32) {
        let ds = &mut self.disks[disk as usize];
        let Some(s) = ds.disk.start_next(self.now) else {
            return;
        };
        ds.service = Some(s);
        self.queue.push(s.end(), Event::MechDone { disk, xid: s.job.xid });
        if s.job.xid == NO_XID {
            return;
        }
        let ex = &mut self.exchanges[s.job.xid];
        ex.parts[1] += s.start - s.job.queued_at;
        ex.parts[2] += s.overhead;
        ex.parts[3] += s.seek;
        ex.parts[4] += s.rotation;
        ex.parts[5] += s.media;
        if !s.job.write {
            ex.media_start = s.media_start;
            ex.location = Some(s.location);
            self.schedule_next_burst(s.job.xid);
        }
    }

    fn on_mech_done(&mut self, disk: u32, xid: u32) {
        let ds = &mut self.disks[disk as usize];
        ds.disk.finish();
        let write_through = ds.service.take().is_some_and(|s| s.job.write) && xid != NO_XID;
        if write_through {
            self.enqueue_job(disk + 1, xid, Phase::Status, 0, HOST);
        }
        self.start_mechanism(disk);
    }

    /// Schedules the disk's next read burst for when its data is in the buffer.
    fn schedule_next_burst(&mut self, xid: u32) {
        let ex = &self.exchanges[xid];
        let ds = &self.disks[ex.disk as usize];
        let end = (ex.scheduled + ds.burst).min(ex.bytes);
        let ready = match (ex.hit_ready, ex.location) {
            (Some(t), _) => t,
            (None, Some(loc)) => ex.media_start + ds.disk.mech.media_time(loc, end.div_ceil(BLOCK_BYTES).max(1)),
            (None, None) => unreachable!("read data comes from the cache or the media"),
        };
        self.queue.push(ready.max(self.now), Event::BurstReady { xid });
    }

    /// The disk has sent a read burst: the next one, or the status.
    fn read_burst_sent(&mut self, xid: u32) {
        let ex = &self.exchanges[xid];
        if ex.scheduled < ex.bytes {
            self.schedule_next_burst(xid);
        } else {
            let port = ex.disk + 1;
            self.enqueue_job(port, xid, Phase::Status, 0, HOST);
        }
    }

    // ---- event loop --------------------------------------------------------

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Issue { slot } => self.issue(slot),
            Event::Send { xid } => {
                let target = self.exchanges[xid].disk + 1;
                self.enqueue_job(HOST, xid, Phase::Command, 0, target);
            }
            Event::Win { port, generation } => self.on_win(port, generation),
            Event::WindowReset { port } => self.on_window_reset(port),
            Event::Credit { seq, n } => self.on_credit(seq, n),
            Event::TxDone { seq } => self.on_tx_done(seq),
            Event::Delivered { xid, phase, bytes } => self.on_delivered(xid, phase, bytes),
            Event::Release { seq } => self.on_release(seq),
            Event::BurstReady { xid } => self.send_next_burst(xid, Phase::Data),
            Event::WriteSetup { xid } => self.send_next_burst(xid, Phase::TransferReady),
            Event::MechDone { disk, xid } => self.on_mech_done(disk, xid),
            Event::Complete { xid } => self.complete(xid),
        }
    }

    #[inline]
    fn step(&mut self, limit: Time) -> bool {
        let Some((t, ev)) = self.queue.pop_until(limit) else { return false };
        self.now = t;
        self.events += 1;
        self.dispatch(ev);
        true
    }

    /// Runs the workload under the driver: fixed work to completion, or
    /// warm-up then the stop rule, counted in I/Os completed.
    pub fn run(&mut self) -> Result<RunReport> {
        let plan = MeasurementPlan::from_run(&self.scenario.run, self.host.ios_per_disk > 0);
        run_model(self, &plan)
    }

    fn metric_summaries(&self, stop: Time, fixed: bool) -> Vec<(String, MetricSummary)> {
        let m = &self.metrics;
        let measure_start = m.measure_start();
        let elapsed_s = (stop - measure_start) as f64 * 1e-12;
        let mut out: Vec<(String, MetricSummary)> = [m.io_time, m.read_time, m.write_time]
            .into_iter()
            .map(|id| (m.set.duration_name(id).to_string(), m.summary(id)))
            .collect();
        for &id in &m.parts {
            out.push((m.set.mean_name(id).to_string(), m.set.mean_summary(id)));
        }
        let throughput = m.set.time_series(m.throughput);
        let bytes_per_ps = throughput.mean(stop);
        let tput_ci = throughput.interval().map(|c| c.half_width * 1e12 / 1e6);
        out.push(("throughput_mb_s".into(), MetricSummary::with_ci(bytes_per_ps * 1e12 / 1e6, tput_ci)));
        let ios = m.devices.iter().map(|d| m.set.tally_value(d.ios)).sum::<u64>() as f64;
        out.push(("iops".into(), MetricSummary::value(if elapsed_s > 0.0 { ios / elapsed_s } else { f64::NAN })));
        let window = (stop - measure_start).max(1) as f64;
        out.push(("loop_utilization".into(), MetricSummary::value(m.owned_time() as f64 / window)));
        let probes = [m.idle_command_data, m.idle_data_status, m.tenancy, m.arbitration_wait, m.open_round_trip];
        for id in m.phases.into_iter().chain(probes) {
            out.push((m.set.duration_name(id).to_string(), m.summary(id)));
        }
        out.push(("loop_trip_us".into(), MetricSummary::value(time::to_us(self.timing.trip()))));
        for id in [m.trips_per_io, m.tenancies_per_io] {
            out.push((m.set.mean_name(id).to_string(), m.set.mean_summary(id)));
        }
        out.push(("loop_init_us".into(), MetricSummary::value(time::to_us(self.init.duration))));
        for (name, t) in &self.init.phases {
            out.push((format!("loop_init.{name}_us"), MetricSummary::value(time::to_us(*t))));
        }
        let width = if m.devices.len() > 100 { 3 } else { 2 };
        for (d, dev) in m.devices.iter().enumerate().take(self.active_disks as usize) {
            let last = m.set.tally_value(dev.last_completion);
            let span_s = if fixed { (last.saturating_sub(measure_start)) as f64 * 1e-12 } else { elapsed_s };
            let bytes = m.set.tally_value(dev.bytes);
            let mb_s = if span_s > 0.0 { bytes as f64 / span_s / 1e6 } else { f64::NAN };
            out.push((format!("disk_{d:0width$}.mb_s"), MetricSummary::value(mb_s)));
            out.push((m.set.mean_name(dev.io_time).to_string(), m.set.mean_summary(dev.io_time)));
            if fixed {
                let done = time::to_us(last.saturating_sub(measure_start)) / 1000.0;
                out.push((format!("disk_{d:0width$}.completion_ms"), MetricSummary::value(done)));
            }
        }
        out
    }

    /// Loop initialization and the address map, as a report section.
    fn section(&self) -> serde_json::Value {
        serde_json::json!({
            "ports": self.ports.len(),
            "trip_us": time::to_us(self.timing.trip()),
            "loop_master": self.init.master,
            "al_pas": self.ports.iter().map(|p| p.al_pa).collect::<Vec<_>>(),
            "fair": self.ports.iter().map(|p| p.fair).collect::<Vec<_>>(),
            "init_phases_us": self.init.phases.iter().map(|(n, t)| (n.to_string(), time::to_us(*t))).collect::<std::collections::BTreeMap<_, _>>(),
        })
    }

    /// Totals and the conservation audit: every issued I/O completed or is in flight.
    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.metrics.counters;
        let in_flight = c.ios_issued as i64 - c.ios_completed as i64;
        if self.exchanges.live() as i64 != in_flight + self.lingering as i64 {
            return Err(Error::model(format!(
                "I/O conservation violated: {} exchanges alive, {} issued - {} completed",
                self.exchanges.live(),
                c.ios_issued,
                c.ios_completed
            )));
        }
        let mut out = vec![
            ("ios_issued".to_string(), c.ios_issued as i64),
            ("ios_completed".into(), c.ios_completed as i64),
            ("ios_in_flight".into(), in_flight),
            ("bytes_completed".into(), c.bytes_completed as i64),
            ("tenancies".into(), c.tenancies as i64),
            ("frames".into(), c.frames as i64),
            ("cache_hits".into(), c.cache_hits as i64),
            ("stale_arbitration_wins".into(), c.stale_wins as i64),
            ("loop_master_port".into(), self.init.master as i64),
            ("hard_address_conflicts".into(), self.init.hard_conflicts as i64),
            ("initiator.al_pa".into(), self.ports[0].al_pa as i64),
        ];
        let width = if self.disks.len() > 100 { 3 } else { 2 };
        for d in 0..self.disks.len() {
            out.push((format!("disk_{d:0width$}.al_pa"), self.ports[d + 1].al_pa as i64));
        }
        out.push(("events".into(), self.events as i64));
        Ok(out)
    }
}

impl Model for LoopModel {
    fn unit(&self) -> &'static str {
        "I/Os"
    }

    /// I/O starts once loop initialization has finished.
    fn start(&mut self) -> Time {
        let start = self.init.duration;
        self.now = start;
        for slot in 0..self.slots() {
            self.queue.push(start, Event::Issue { slot });
        }
        start
    }

    #[inline]
    fn step(&mut self, limit: Time) -> bool {
        LoopModel::step(self, limit)
    }

    fn now(&self) -> Time {
        self.now
    }

    fn events(&self) -> u64 {
        self.events
    }

    fn idle(&self) -> bool {
        self.queue.is_empty()
    }

    fn observations(&self) -> u64 {
        self.metrics.counters.ios_completed
    }

    fn in_flight(&self) -> u64 {
        self.exchanges.live() as u64
    }

    fn frames_moved(&self) -> u64 {
        self.metrics.counters.frames
    }

    fn metrics(&self) -> &MetricSet {
        &self.metrics.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.metrics.reset(now);
    }

    /// Fixed work ends at the last completion, not when the last event ran.
    fn stop_time(&self, now: Time) -> Time {
        if self.host.ios_per_disk == 0 {
            return now;
        }
        self.metrics.devices.iter().map(|d| self.metrics.set.tally_value(d.last_completion)).max().unwrap_or(now)
    }

    fn summaries(&mut self, stop: Time) -> (Metrics, Sections) {
        if self.arbiter.owner.is_some() {
            self.metrics.loop_released(stop);
            self.metrics.owned_since = stop;
        }
        self.metrics.set.finish(stop);
        (self.metric_summaries(stop, self.host.ios_per_disk > 0), vec![("loop".into(), self.section())])
    }

    fn stop_sources(&mut self) {
        self.stopping = true;
    }

    fn audit(&self) -> Result<Vec<(String, i64)>> {
        self.counters()
    }

    fn scenario_json(&self) -> serde_json::Value {
        self.scenario.to_json()
    }
}
