//! The standalone loop's application (fcal-loop's host and its I/O
//! threads): closed mode keeps `outstanding` slots per active disk, light
//! mode one slot that picks a disk at random for every I/O; an I/O draws its
//! address (random or sequential) and whether it reads, and pays the host's
//! command and completion overheads. It measures every I/O's time, its parts
//! and phases, loop trips and tenancies, throughput and per-disk figures
//! ([`IoStats`]), the loop-side ones once the status tenancy has closed.

use super::exchange::Exchange;
use super::io_stats::IoStats;
use super::scsi::{blocks_for, Phase};
use super::scsi_initiator::{Application, Request};
use crate::kernel::{time, RandomStream, Time};
use crate::scenario::loops::{Access, InitiatorSpec, IoMode};
use crate::sim::{ComponentPath, MetricSet};

pub struct LoopWorkload {
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
    overheads: (Time, Time),
    pub stats: IoStats,
}

impl LoopWorkload {
    /// The workload of `spec`, named `path`, in front of disks of `capacity`
    /// blocks each; its random streams derive from `seed` and `path`, its
    /// statistics go into `set` (throughput in batches of initially `batch_ps`).
    pub fn new(
        path: &ComponentPath,
        spec: &InitiatorSpec,
        capacity: Vec<u64>,
        seed: u64,
        set: &mut MetricSet,
        batch_ps: Time,
    ) -> Self {
        let active = spec.active_disks.unwrap_or(capacity.len() as u32);
        LoopWorkload {
            spec: spec.clone(),
            active_disks: active,
            issued_per_disk: vec![0; active as usize],
            next_lbn: vec![0; active as usize],
            address_rng: (0..active as u64).map(|d| path.stream(seed, "loop-io-address", d)).collect(),
            kind_rng: (0..active as u64).map(|d| path.stream(seed, "loop-io-kind", d)).collect(),
            target_rng: path.stream(seed, "loop-io-target", 0),
            overheads: (time::from_us(spec.command_overhead_us), time::from_us(spec.completion_overhead_us)),
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
}

impl Application for LoopWorkload {
    fn slots(&self) -> u32 {
        match self.spec.mode {
            IoMode::Closed => self.active_disks * self.spec.outstanding,
            IoMode::Light => 1,
        }
    }

    fn next(&mut self, slot: u32) -> Option<Request> {
        let d = match self.spec.mode {
            IoMode::Closed => slot / self.spec.outstanding,
            IoMode::Light => self.target_rng.below(self.active_disks),
        } as usize;
        if self.spec.fixed_work() && self.issued_per_disk[d] >= self.spec.ios_per_disk {
            return None;
        }
        self.issued_per_disk[d] += 1;
        let bytes = self.spec.request_bytes;
        let blocks = blocks_for(bytes) as u64;
        let capacity = self.capacity[d];
        let span = (capacity / blocks).max(1);
        let lbn = match self.spec.access {
            Access::Random => (self.address_rng[d].next_u64() % span) * blocks,
            Access::Sequential => {
                let l = self.next_lbn[d];
                self.next_lbn[d] = if l + 2 * blocks > capacity { 0 } else { l + blocks };
                l
            }
        };
        let read = self.spec.read_fraction >= 1.0 || self.kind_rng[d].bernoulli(self.spec.read_fraction);
        Some(Request { initiator: 0, disk: d as u32, lbn, read, bytes })
    }

    fn overheads(&self) -> Option<(Time, Time)> {
        Some(self.overheads)
    }

    fn completed(&mut self, ex: &Exchange, now: Time, set: &mut MetricSet) {
        let m = &self.stats;
        let t = now - ex.issued;
        set.record(m.io_time, t);
        set.record(if ex.read { m.read_time } else { m.write_time }, t);
        set.impulse(m.throughput, now, ex.bytes as f64);
        let dev = m.devices[ex.disk as usize];
        set.add(dev.ios, 1);
        set.add(dev.bytes, ex.bytes as u64);
        set.raise(dev.last_completion, now);
        set.observe(dev.io_time, t as f64 * 1e-6);
    }

    fn lingers(&self) -> bool {
        true
    }

    fn freed(&mut self, ex: &Exchange, set: &mut MetricSet) {
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
