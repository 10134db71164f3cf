//! The host's SCSI initiator (seed 004's host bus adapter and its
//! application): the I/O workload and the exchanges it runs.
//!
//! The workload has slots, each an application thread with one I/O
//! outstanding: closed mode keeps `outstanding` slots per active disk, light
//! mode one slot that picks a disk at random for every I/O. An I/O draws its
//! address (random or sequential) and whether it reads, pays the host's
//! command overhead, then goes out as a command phase; the status phase
//! ends it after the completion overhead, and the slot issues the next. The
//! exchange record lives until both the application has seen the status and
//! the status tenancy has closed, so that its loop figures are complete.

use super::exchange::Exchange;
use super::io_stats::IoStats;
use super::scsi::{blocks_for, Phase};
use crate::kernel::{time, Arena, RandomStream, Time};
use crate::scenario::loops::{Access, InitiatorSpec, IoMode};
use crate::sim::{ComponentPath, MetricSet, Schedule};

/// The initiator's events, carried in the assembly's event with its index.
#[derive(Clone, Copy, Debug)]
pub enum InitiatorEvent {
    /// The application in `slot` issues its next I/O.
    Issue { slot: u32 },
    /// Host overhead done: the command is queued at the adapter.
    Send { xid: u32 },
    /// The application sees the status.
    Complete { xid: u32 },
}

pub struct ScsiInitiator {
    index: u32,
    spec: InitiatorSpec,
    active_disks: u32,
    /// Per target disk: its capacity in blocks.
    capacity: Vec<u64>,
    /// Per active disk: I/Os issued so far and the next sequential block.
    issued_per_disk: Vec<u64>,
    next_lbn: Vec<u64>,
    address_rng: Vec<RandomStream>,
    kind_rng: Vec<RandomStream>,
    target_rng: RandomStream,
    exchanges: Arena<Exchange>,
    stopping: bool,
    /// Exchanges completed whose status tenancy has not closed yet.
    lingering: u64,
    pub stats: IoStats,
}

impl ScsiInitiator {
    /// Initiator `index`, named `path`, in front of disks of `capacity`
    /// blocks each; its random streams derive from `seed` and `path`, its
    /// statistics go into `set` (throughput in batches of initially `batch_ps`).
    pub fn new(
        path: &ComponentPath,
        index: u32,
        spec: &InitiatorSpec,
        capacity: Vec<u64>,
        seed: u64,
        set: &mut MetricSet,
        batch_ps: Time,
    ) -> Self {
        let active = spec.active_disks.unwrap_or(capacity.len() as u32);
        ScsiInitiator {
            index,
            spec: spec.clone(),
            active_disks: active,
            issued_per_disk: vec![0; active as usize],
            next_lbn: vec![0; active as usize],
            address_rng: (0..active as u64).map(|d| path.stream(seed, "loop-io-address", d)).collect(),
            kind_rng: (0..active as u64).map(|d| path.stream(seed, "loop-io-kind", d)).collect(),
            target_rng: path.stream(seed, "loop-io-target", 0),
            exchanges: Arena::with_capacity(1024),
            stopping: false,
            lingering: 0,
            stats: IoStats::new(set, path, capacity.len(), batch_ps),
            capacity,
        }
    }

    pub fn spec(&self) -> &InitiatorSpec {
        &self.spec
    }

    /// Disks the workload addresses (the first `active_disks`).
    pub fn active_disks(&self) -> u32 {
        self.active_disks
    }

    /// Fixed work: a set number of I/Os per disk, run to completion.
    pub fn fixed_work(&self) -> bool {
        self.spec.fixed_work()
    }

    #[inline]
    pub fn exchange(&self, xid: u32) -> &Exchange {
        &self.exchanges[xid]
    }

    /// The exchange records, for the disk targets to work on.
    #[inline]
    pub fn exchanges_mut(&mut self) -> &mut Arena<Exchange> {
        &mut self.exchanges
    }

    /// Exchanges alive (in flight, or completed and awaiting their status close).
    pub fn live(&self) -> usize {
        self.exchanges.live()
    }

    /// Exchanges completed whose status tenancy has not closed yet.
    pub fn lingering(&self) -> u64 {
        self.lingering
    }

    /// Stops issuing new I/Os (drain).
    pub fn stop_sources(&mut self) {
        self.stopping = true;
    }

    // Every scheduled event passes here; left to itself the compiler makes
    // this a call, which the hand-written pushes it replaced were not.
    #[inline(always)]
    fn push(&self, cx: &mut impl Schedule<InitiatorEvent>, at: Time, ev: InitiatorEvent) {
        cx.push(at, self.index, ev);
    }

    fn slots(&self) -> u32 {
        match self.spec.mode {
            IoMode::Closed => self.active_disks * self.spec.outstanding,
            IoMode::Light => 1,
        }
    }

    /// Every slot issues its first I/O at `start`.
    pub fn start(&self, start: Time, cx: &mut impl Schedule<InitiatorEvent>) {
        for slot in 0..self.slots() {
            self.push(cx, start, InitiatorEvent::Issue { slot });
        }
    }

    pub fn issue(&mut self, slot: u32, cx: &mut impl Schedule<InitiatorEvent>) {
        let now = cx.now();
        if self.stopping {
            return;
        }
        let d = match self.spec.mode {
            IoMode::Closed => slot / self.spec.outstanding,
            IoMode::Light => self.target_rng.below(self.active_disks),
        } as usize;
        if self.spec.fixed_work() && self.issued_per_disk[d] >= self.spec.ios_per_disk {
            return;
        }
        self.issued_per_disk[d] += 1;
        let bytes = self.spec.request_bytes;
        let blocks = blocks_for(bytes);
        let capacity = self.capacity[d];
        let span = (capacity / blocks as u64).max(1);
        let lbn = match self.spec.access {
            Access::Random => (self.address_rng[d].next_u64() % span) * blocks as u64,
            Access::Sequential => {
                let l = self.next_lbn[d];
                self.next_lbn[d] = if l + 2 * blocks as u64 > capacity { 0 } else { l + blocks as u64 };
                l
            }
        };
        let read = self.spec.read_fraction >= 1.0 || self.kind_rng[d].bernoulli(self.spec.read_fraction);
        let xid = self.exchanges.insert(Exchange {
            disk: d as u32,
            slot,
            read,
            lbn,
            blocks,
            bytes,
            issued: now,
            ..Exchange::default()
        });
        self.stats.counters.ios_issued += 1;
        let overhead = time::from_us(self.spec.command_overhead_us);
        self.exchanges[xid].parts[0] += overhead;
        self.push(cx, now + overhead, InitiatorEvent::Send { xid });
    }

    /// The status has arrived: the application sees it after the completion overhead.
    pub fn status_received(&mut self, xid: u32, cx: &mut impl Schedule<InitiatorEvent>) {
        let now = cx.now();
        let overhead = time::from_us(self.spec.completion_overhead_us);
        let ex = &mut self.exchanges[xid];
        ex.parts[0] += overhead;
        ex.done_at = now + overhead;
        self.push(cx, now + overhead, InitiatorEvent::Complete { xid });
    }

    /// Read data has arrived.
    #[inline]
    pub fn data_received(&mut self, xid: u32, bytes: u32) {
        self.exchanges[xid].delivered += bytes;
    }

    /// The application sees the status: the I/O is done and its slot issues the next.
    pub fn complete(&mut self, xid: u32, cx: &mut impl Schedule<InitiatorEvent>, set: &mut MetricSet) {
        let now = cx.now();
        let ex = self.exchanges[xid];
        let m = &mut self.stats;
        m.counters.ios_completed += 1;
        m.counters.bytes_completed += ex.bytes as u64;
        let t = now - ex.issued;
        set.record(m.io_time, t);
        set.record(if ex.read { m.read_time } else { m.write_time }, t);
        set.impulse(m.throughput, now, ex.bytes as f64);
        let dev = m.devices[ex.disk as usize];
        set.add(dev.ios, 1);
        set.add(dev.bytes, ex.bytes as u64);
        set.raise(dev.last_completion, now);
        set.observe(dev.io_time, t as f64 * 1e-6);
        self.exchanges[xid].completed = true;
        self.lingering += 1;
        self.maybe_free(xid, set);
        self.issue(ex.slot, cx);
    }

    /// Phase `phase` of exchange `xid`, queued at its port at `queued_at`,
    /// won the loop at `now`, as the phase's record sees it from `seen_from`
    /// (its opener's ARB passing the adapter): its arbitration wait, and the
    /// loop trips the tenancy costs.
    #[inline]
    pub fn tenancy_won(&mut self, xid: u32, phase: Phase, queued_at: Time, seen_from: Time, trips: f64, now: Time) {
        let ex = &mut self.exchanges[xid];
        ex.parts[6] += now - queued_at;
        ex.tenancies += 1;
        ex.trips += trips;
        let ph = phase as usize;
        if ex.phase_first[ph].is_none() {
            ex.phase_first[ph] = Some(seen_from);
        }
    }

    /// The tenancy of phase `phase` of exchange `xid` closed after holding
    /// the loop for `held`, its last CLS passing the adapter at `seen_until`;
    /// a status close may free the record.
    #[inline]
    pub fn tenancy_closed(&mut self, xid: u32, phase: Phase, held: Time, seen_until: Time, set: &mut MetricSet) {
        let ex = &mut self.exchanges[xid];
        ex.parts[7] += held;
        ex.phase_last[phase as usize] = seen_until;
        if phase == Phase::Status {
            ex.status_closed = true;
            self.maybe_free(xid, set);
        }
    }

    /// Once the status tenancy has also closed, the exchange's loop-side
    /// figures are final: record them and free the record.
    fn maybe_free(&mut self, xid: u32, set: &mut MetricSet) {
        let ex = self.exchanges[xid];
        if !(ex.completed && ex.status_closed) {
            return;
        }
        self.exchanges.remove(xid);
        self.lingering -= 1;
        let m = &self.stats;
        for (&id, &part) in m.parts.iter().zip(&ex.parts) {
            set.observe(id, part as f64 * 1e-6);
        }
        for p in 0..4 {
            if let Some(first) = ex.phase_first[p] {
                set.record(m.phases[p], ex.phase_last[p] - first);
            }
        }
        if let (Some(d), Some(_)) = (ex.phase_first[Phase::Data as usize], ex.phase_first[Phase::Command as usize]) {
            if ex.read {
                set.record(m.idle_command_data, d.saturating_sub(ex.phase_last[Phase::Command as usize]));
                if let Some(s) = ex.phase_first[Phase::Status as usize] {
                    set.record(m.idle_data_status, s.saturating_sub(ex.phase_last[Phase::Data as usize]));
                }
            }
        }
        set.observe(m.trips_per_io, ex.trips);
        set.observe(m.tenancies_per_io, ex.tenancies as f64);
    }
}
