//! The standalone arbitrated loop (seed 004): one ring carrying an
//! initiator (host bus adapter) on port 0 and the disks on the ports that
//! follow, SCSI exchanges carried as FCP phases, each phase in its own loop
//! tenancy.
//!
//! The assembly owns the event queue and the metric set and glues the
//! components together: it runs one composite [`Event`] through a `match`,
//! hands a phase the ring delivered to the initiator or the disk it was
//! for, and queues at the right port what those answer. The order of the
//! calls in each handler is the order in which events are scheduled, which
//! decides simultaneous events; keep it when changing the glue.

use super::al_pa::al_pa_of_loop_id;
use super::initialization::{InitPort, LoopInit};
use super::port::{Job, PortConfig};
use super::ring::{Closed, Ring, RingEvent, RingReport};
use super::timing::LoopTiming;
use crate::error::{Error, Result};
use crate::kernel::{time, EventQueue, Time};
use crate::report::MetricSummary;
use crate::scenario::loops::{Addressing, DiskScheduler};
use crate::scenario::Scenario;
use crate::sim::{Carries, ComponentPath, Context, MetricSet, Model, ModelInfo, Status, Summary};
use crate::storage::disk_target::{DiskEvent, DiskTarget, WriteData};
use crate::storage::io_stats::device_digits;
use crate::storage::loop_workload::LoopWorkload;
use crate::storage::scsi::Phase;
use crate::storage::scsi_initiator::{InitiatorEvent, ScsiInitiator};
use crate::storage::{drive, Disk, Scheduler};

/// The initiator's port; disk `d` sits on port `d + 1`.
const HOST: u32 = 0;

#[inline]
fn disk_port(disk: u32) -> u32 {
    disk + 1
}

/// Every event of the model, tagged by the component that handles it. With
/// one ring and one initiator, their events need no index: carrying the
/// ring's made the run execute about 1% more instructions. An assembly of
/// several rings carries it (see [`Carries`]).
#[derive(Clone, Copy, Debug)]
pub enum Event {
    Ring(RingEvent),
    Initiator(InitiatorEvent),
    Disk(u32, DiskEvent),
}

impl Carries<RingEvent> for Event {
    #[inline]
    fn wrap(ring: u32, ev: RingEvent) -> Self {
        debug_assert_eq!(ring, 0, "one ring");
        Event::Ring(ev)
    }
}

impl Carries<InitiatorEvent> for Event {
    #[inline]
    fn wrap(initiator: u32, ev: InitiatorEvent) -> Self {
        debug_assert_eq!(initiator, 0, "one initiator");
        Event::Initiator(ev)
    }
}

impl Carries<DiskEvent> for Event {
    #[inline]
    fn wrap(disk: u32, ev: DiskEvent) -> Self {
        Event::Disk(disk, ev)
    }
}

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, EventQueue<Event>>;

pub struct LoopModel {
    set: MetricSet,
    ring: Ring,
    initiator: ScsiInitiator<LoopWorkload>,
    disks: Vec<DiskTarget>,
}

impl LoopModel {
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let model = scenario.arbitrated_loop()?;
        let spec = &model.ring;
        let host = &model.initiator;
        // Ring order: the adapter, then the disk groups as listed.
        let hard = spec.addressing == Addressing::Hard;
        let mut ports = vec![PortConfig {
            init: InitPort {
                port_name: 0x2000_0000_0000_0000,
                fl_port: false,
                hard_al_pa: if hard { al_pa_of_loop_id(host.loop_id) } else { None },
                previous_al_pa: None,
            },
            fair: host.fair,
            receive_buffers: host.receive_buffers,
            login_bb_credit: host.login_bb_credit,
        }];
        let mut disks = Vec::with_capacity(model.disk_count() as usize);
        for (i, g) in model.disks.iter().enumerate() {
            let params = drive(&g.model).ok_or_else(|| {
                Error::invalid(&format!("disks[{i}].model"), &g.model, crate::storage::drive_names().join(", "))
            })?;
            for _ in 0..g.count {
                let k = disks.len() as u8;
                ports.push(PortConfig {
                    init: InitPort {
                        port_name: 0x2100_0000_0000_0000 + k as u64,
                        fl_port: false,
                        hard_al_pa: if hard { al_pa_of_loop_id(k) } else { None },
                        previous_al_pa: None,
                    },
                    fair: g.fair,
                    receive_buffers: g.receive_buffers,
                    login_bb_credit: g.login_bb_credit,
                });
                let scheduler = match g.scheduler {
                    DiskScheduler::Fifo => Scheduler::Fifo,
                    DiskScheduler::Sstf => Scheduler::Sstf,
                };
                let disk = Disk::new(&params, scheduler, g.read_cache, g.read_ahead, g.queue_depth as usize);
                disks.push(DiskTarget::new(disks.len() as u32, disk, g));
            }
        }
        let root = ComponentPath::root();
        let mut set = MetricSet::new(scenario.run.batches);
        let ring = Ring::new(root.clone(), 0, spec, &ports, &mut set)?;
        let batch_ps = 100 * ring.timing().frame_time(spec.frame_payload_bytes);
        let capacity = disks.iter().map(DiskTarget::capacity_blocks).collect();
        let workload = LoopWorkload::new(&root, host, capacity, scenario.run.seed, &mut set, batch_ps);
        let initiator = ScsiInitiator::new(0, workload);
        Ok(LoopModel { set, ring, initiator, disks })
    }

    pub fn timing(&self) -> &LoopTiming {
        self.ring.timing()
    }

    pub fn al_pa(&self, port: usize) -> u8 {
        self.ring.al_pa(port)
    }

    /// Loop initialization: addresses, loop master and how long it took.
    pub fn init(&self) -> &LoopInit {
        self.ring.init()
    }

    // ---- glue: phases between the ring and the SCSI ends -----------------

    /// Queues phase `phase` of exchange `xid` at `port`, for `target`.
    #[inline]
    fn send(&mut self, cx: &mut Cx, port: u32, xid: u32, phase: Phase, bytes: u32, target: u32) {
        let job = Job { xid, phase, bytes, target, queued_at: cx.now(), external: false };
        self.ring.enqueue(port, job, cx);
    }

    /// The adapter queues exchange `xid`'s command, if one is due.
    fn command(&mut self, cx: &mut Cx, xid: Option<u32>) {
        if let Some(xid) = xid {
            let target = disk_port(self.initiator.exchange(xid).disk);
            self.send(cx, HOST, xid, Phase::Command, 0, target);
        }
    }

    /// Hands the next burst of exchange `xid` to the disk's port: a transfer
    /// ready for writes, the data itself for reads.
    fn send_next_burst(&mut self, cx: &mut Cx, xid: u32, phase: Phase) {
        let ex = &mut self.initiator.exchanges_mut()[xid];
        let disk = ex.disk;
        let burst = self.disks[disk as usize].next_burst(ex);
        self.send(cx, disk_port(disk), xid, phase, burst, HOST);
    }

    /// A phase's frames are in the target's buffer: the target acts on it.
    fn on_delivered(&mut self, cx: &mut Cx, xid: u32, phase: Phase, bytes: u32) {
        let now = cx.now();
        let (disk, read) = {
            let ex = self.initiator.exchange(xid);
            (ex.disk, ex.read)
        };
        let port = disk_port(disk);
        let target = &mut self.disks[disk as usize];
        let exchanges = self.initiator.exchanges_mut();
        match phase {
            Phase::Command if read => target.read_command(xid, exchanges, cx),
            Phase::Command => target.write_command(xid, &mut exchanges[xid], cx),
            Phase::TransferReady => self.send(cx, HOST, xid, Phase::Data, bytes, port),
            Phase::Data if read => self.initiator.data_received(xid, bytes),
            Phase::Data => match target.write_data(xid, bytes, now, &mut exchanges[xid]) {
                WriteData::More => self.send_next_burst(cx, xid, Phase::TransferReady),
                WriteData::Received { status_now } => {
                    if status_now {
                        self.send(cx, port, xid, Phase::Status, 0, HOST);
                    }
                    let exchanges = self.initiator.exchanges_mut();
                    self.disks[disk as usize].start_mechanism(exchanges, cx);
                }
            },
            Phase::Status => {
                let issued = self.initiator.status_received(xid, cx, &mut self.set);
                self.command(cx, issued);
            }
        }
    }

    /// A tenancy closed: the exchange's accounting, a disk's next read burst
    /// or its status, then the loop passes on.
    fn on_closed(&mut self, cx: &mut Cx, c: Closed) {
        let now = cx.now();
        // The last CLS to pass the adapter: the target's, back at the adapter
        // when it opened; else the adapter's own answer to the opener's CLS.
        let t = self.ring.timing();
        let seen_until = if c.opener == HOST { now } else { c.sent_at + 2 * t.word + t.delay(c.opener, HOST) };
        self.initiator.tenancy_closed(c.job.xid, c.job.phase, c.held, seen_until, &mut self.set);
        if c.opener != HOST && c.job.phase == Phase::Data {
            let xid = c.job.xid;
            let disk = self.initiator.exchange(xid).disk;
            let exchanges = self.initiator.exchanges_mut();
            if self.disks[disk as usize].read_burst_sent(xid, c.sent_at, exchanges, cx) {
                self.send(cx, disk_port(disk), xid, Phase::Status, 0, HOST);
            }
        }
        self.ring.pass_on(c.opener, cx);
    }

    fn on_mech_done(&mut self, cx: &mut Cx, disk: u32, xid: u32) {
        if self.disks[disk as usize].mech_done(xid) {
            self.send(cx, disk_port(disk), xid, Phase::Status, 0, HOST);
        }
        let exchanges = self.initiator.exchanges_mut();
        self.disks[disk as usize].start_mechanism(exchanges, cx);
    }

    // ---- event loop --------------------------------------------------------

    #[inline]
    fn handle(&mut self, cx: &mut Cx, ev: Event) {
        let now = cx.now();
        match ev {
            Event::Ring(ev) => match self.ring.handle(ev, cx, &mut self.set) {
                RingReport::Nothing => {}
                RingReport::Won(w) => {
                    let j = w.job;
                    // Phases as an analyzer on the adapter's link sees them: from the
                    // opener's ARB passing the adapter (seed 004's Table 1).
                    let opener = self.ring.owner().expect("a winner owns the loop");
                    let to_adapter = if opener == HOST { 0 } else { self.ring.timing().delay(opener, HOST) };
                    let seen_from = w.arb_start.max(j.queued_at) + to_adapter;
                    self.initiator.tenancy_won(j.xid, j.phase, j.queued_at, seen_from, w.trips, now);
                }
                RingReport::Delivered { xid, phase, bytes } => self.on_delivered(cx, xid, phase, bytes),
                RingReport::Closed(c) => self.on_closed(cx, c),
            },
            Event::Initiator(InitiatorEvent::Issue { slot }) => {
                let issued = self.initiator.issue(slot, cx);
                self.command(cx, issued);
            }
            Event::Initiator(InitiatorEvent::Send { xid }) => self.command(cx, Some(xid)),
            Event::Initiator(InitiatorEvent::Complete { xid }) => {
                let issued = self.initiator.complete(xid, cx, &mut self.set);
                self.command(cx, issued);
            }
            Event::Disk(_, DiskEvent::BurstReady { xid }) => self.send_next_burst(cx, xid, Phase::Data),
            Event::Disk(_, DiskEvent::WriteSetup { xid }) => self.send_next_burst(cx, xid, Phase::TransferReady),
            Event::Disk(disk, DiskEvent::MechDone { xid }) => self.on_mech_done(cx, disk, xid),
            Event::Disk(disk, DiskEvent::StatusReady { xid }) => {
                self.send(cx, disk_port(disk), xid, Phase::Status, 0, HOST)
            }
        }
    }

    fn metric_summaries(&self, stop: Time, fixed: bool) -> Vec<(String, MetricSummary)> {
        let set = &self.set;
        let m = &self.initiator.app().stats;
        let r = &self.ring.stats;
        let measure_start = set.measure_start();
        let elapsed_s = (stop - measure_start) as f64 * 1e-12;
        let mut out: Vec<(String, MetricSummary)> = [m.io_time, m.read_time, m.write_time]
            .into_iter()
            .map(|id| (set.duration_name(id).to_string(), set.duration_summary(id)))
            .collect();
        for &id in &m.parts {
            out.push((set.mean_name(id).to_string(), set.mean_summary(id)));
        }
        let throughput = set.time_series(m.throughput);
        let bytes_per_ps = throughput.mean(stop);
        let tput_ci = throughput.interval().map(|c| c.half_width * 1e12 / 1e6);
        out.push(("throughput_mb_s".into(), MetricSummary::with_ci(bytes_per_ps * 1e12 / 1e6, tput_ci)));
        let ios = m.devices.iter().map(|d| set.tally_value(d.ios)).sum::<u64>() as f64;
        out.push(("iops".into(), MetricSummary::value(if elapsed_s > 0.0 { ios / elapsed_s } else { f64::NAN })));
        let window = (stop - measure_start).max(1) as f64;
        out.push(("loop_utilization".into(), MetricSummary::value(r.owned_time(set) as f64 / window)));
        let probes = [m.idle_command_data, m.idle_data_status, r.tenancy, r.arbitration_wait, r.open_round_trip];
        for id in m.phases.into_iter().chain(probes) {
            out.push((set.duration_name(id).to_string(), set.duration_summary(id)));
        }
        out.push(("loop_trip_us".into(), MetricSummary::value(time::to_us(self.ring.timing().trip()))));
        for id in [m.trips_per_io, m.tenancies_per_io] {
            out.push((set.mean_name(id).to_string(), set.mean_summary(id)));
        }
        let init = self.ring.init();
        out.push(("loop_init_us".into(), MetricSummary::value(time::to_us(init.duration))));
        for (name, t) in &init.phases {
            out.push((format!("loop_init.{name}_us"), MetricSummary::value(time::to_us(*t))));
        }
        let width = device_digits(m.devices.len());
        for (d, dev) in m.devices.iter().enumerate().take(self.initiator.app().active_disks() as usize) {
            let last = set.tally_value(dev.last_completion);
            let span_s = if fixed { (last.saturating_sub(measure_start)) as f64 * 1e-12 } else { elapsed_s };
            let bytes = set.tally_value(dev.bytes);
            let mb_s = if span_s > 0.0 { bytes as f64 / span_s / 1e6 } else { f64::NAN };
            out.push((format!("disk_{d:0width$}.mb_s"), MetricSummary::value(mb_s)));
            out.push((set.mean_name(dev.io_time).to_string(), set.mean_summary(dev.io_time)));
            if fixed {
                let done = time::to_us(last.saturating_sub(measure_start)) / 1000.0;
                out.push((format!("disk_{d:0width$}.completion_ms"), MetricSummary::value(done)));
            }
        }
        out
    }

    /// Loop initialization and the address map, as a report section.
    fn section(&self) -> serde_json::Value {
        let ports = self.ring.ports();
        let init = self.ring.init();
        serde_json::json!({
            "ports": ports.len(),
            "trip_us": time::to_us(self.ring.timing().trip()),
            "loop_master": init.master,
            "al_pas": ports.iter().map(|p| p.al_pa).collect::<Vec<_>>(),
            "fair": ports.iter().map(|p| p.fair).collect::<Vec<_>>(),
            "init_phases_us": init.phases.iter().map(|(n, t)| (n.to_string(), time::to_us(*t))).collect::<std::collections::BTreeMap<_, _>>(),
        })
    }

    /// Totals and the conservation audit: every issued I/O completed or is in flight.
    fn counters(&self) -> Result<Vec<(String, i64)>> {
        let c = &self.initiator.counters;
        let r = &self.ring.stats.counters;
        let in_flight = c.ios_issued as i64 - c.ios_completed as i64;
        if self.initiator.live() as i64 != in_flight + self.initiator.lingering() as i64 {
            return Err(Error::model(format!(
                "I/O conservation violated: {} exchanges alive, {} issued - {} completed",
                self.initiator.live(),
                c.ios_issued,
                c.ios_completed
            )));
        }
        let init = self.ring.init();
        let cache_hits: u64 = self.disks.iter().map(DiskTarget::cache_hits).sum();
        let mut out = vec![
            ("ios_issued".to_string(), c.ios_issued as i64),
            ("ios_completed".into(), c.ios_completed as i64),
            ("ios_in_flight".into(), in_flight),
            ("bytes_completed".into(), c.bytes_completed as i64),
            ("tenancies".into(), r.tenancies as i64),
            ("frames".into(), r.frames as i64),
            ("cache_hits".into(), cache_hits as i64),
            ("stale_arbitration_wins".into(), r.stale_wins as i64),
            ("loop_master_port".into(), init.master as i64),
            ("hard_address_conflicts".into(), init.hard_conflicts as i64),
            ("initiator.al_pa".into(), self.ring.al_pa(HOST as usize) as i64),
        ];
        let width = device_digits(self.disks.len());
        for d in 0..self.disks.len() {
            out.push((format!("disk_{d:0width$}.al_pa"), self.ring.al_pa(disk_port(d as u32) as usize) as i64));
        }
        Ok(out)
    }
}

impl Model for LoopModel {
    type Event = Event;
    type Queue = EventQueue<Event>;

    fn info(&self) -> ModelInfo {
        ModelInfo { unit: "I/Os", quiet_window: None, deadlock_check_period: None }
    }

    fn event_set(&self) -> EventQueue<Event> {
        EventQueue::with_capacity(4096)
    }

    /// I/O starts once loop initialization has finished.
    fn start(&mut self, cx: &mut Cx) -> Time {
        let start = self.ring.init().duration;
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
        self.ring.stats.counters.frames
    }

    fn metrics(&self) -> &MetricSet {
        &self.set
    }

    fn reset_statistics(&mut self, now: Time) {
        self.set.reset(now);
        self.ring.stats.reset(now);
    }

    /// Fixed work ends at the last completion, not when the last event ran.
    fn stop_time(&self, now: Time) -> Time {
        if !self.initiator.app().fixed_work() {
            return now;
        }
        self.initiator.app().stats.devices.iter().map(|d| self.set.tally_value(d.last_completion)).max().unwrap_or(now)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        self.ring.close_measurement(&mut self.set, stop);
        self.set.finish(stop);
        Summary {
            metrics: self.metric_summaries(stop, self.initiator.app().fixed_work()),
            sections: vec![("loop".into(), self.section())],
            flags: Vec::new(),
        }
    }

    fn stop_sources(&mut self) {
        self.initiator.stop_sources();
    }

    fn audit(&self, _events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_event_stays_small() {
        // A queue entry is a 16-byte key plus the event: up to 16 bytes keep it at 32.
        assert!(std::mem::size_of::<Event>() <= 16);
    }
}
