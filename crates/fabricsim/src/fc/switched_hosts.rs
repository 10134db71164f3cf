//! The hosts of switched loops as one SCSI initiator's application
//! (switched-fcal): every loop's host issues reads (and writes, with
//! `read_fraction` below 1), each to a disk on another loop with the
//! scenario's global share (that loop uniform among the others) and a
//! uniform disk of the loop, at a uniform address, with no host overhead.
//! Light load keeps one I/O outstanding per host (`light_scope = "host"`)
//! or in the whole system (`"system"`, each I/O from a host drawn at
//! random); heavy load keeps `outstanding_per_disk` per disk of a loop at
//! every host. It measures the I/O time (global and local), its disk and
//! loop parts, re-attempts and switch requests, the global share and the
//! throughput; the assembly records circuit establishment beside them.

use crate::kernel::{RandomStream, Time};
use crate::scenario::switched_loops::{LightScope, SwitchedLoad, SwitchedLoopSpec};
use crate::sim::metric_set::{DurationId, MeanId, SeriesId};
use crate::sim::{ComponentPath, MetricSet};
use crate::storage::exchange::Exchange;
use crate::storage::scsi::blocks_for;
use crate::storage::scsi_initiator::{Application, Request};

/// A host's workload streams: which loop, which disk, which block.
struct Streams {
    loop_rng: RandomStream,
    disk_rng: RandomStream,
    address_rng: RandomStream,
    /// Read or write, when the workload mixes them.
    kind_rng: RandomStream,
}

pub struct SwitchedStats {
    pub io_time: DurationId,
    pub global_io_time: DurationId,
    pub local_io_time: DurationId,
    pub disk_time: DurationId,
    pub loop_time: DurationId,
    pub retries_per_io: MeanId,
    pub retries_per_global_io: MeanId,
    pub switch_requests_per_global_io: MeanId,
    pub global_share: MeanId,
    /// Circuit establishment of the command (phase 1) and data (phase 2) tenancies.
    pub establish: [DurationId; 2],
    pub throughput: SeriesId,
}

pub struct SwitchedHosts {
    streams: Vec<Streams>,
    system_rng: RandomStream,
    loops: u32,
    disks_per_loop: u32,
    slots_per_host: u32,
    system_wide: bool,
    global_fraction: f64,
    read_fraction: f64,
    request_bytes: u32,
    /// Per disk (loop by loop): its capacity in blocks.
    capacity: Vec<u64>,
    pub stats: SwitchedStats,
    /// Completed reads whose data did not all arrive (must stay 0).
    pub short_reads: u64,
}

impl SwitchedHosts {
    /// The hosts of `s.loops` loops of `disks_per_loop` disks of `capacity`
    /// blocks; loop `l`'s host draws from streams under `loop_{l:02}/host`;
    /// statistics go into `set` (throughput in batches of initially `batch_ps`).
    pub fn new(
        s: &SwitchedLoopSpec,
        disks_per_loop: u32,
        capacity: Vec<u64>,
        seed: u64,
        set: &mut MetricSet,
        batch_ps: Time,
    ) -> Self {
        let root = ComponentPath::root();
        let streams = (0..s.loops)
            .map(|l| {
                let host = root.child(format!("loop_{l:02}")).child("host");
                Streams {
                    loop_rng: host.stream(seed, "target-loop", 0),
                    disk_rng: host.stream(seed, "target-disk", 0),
                    address_rng: host.stream(seed, "address", 0),
                    kind_rng: host.stream(seed, "read-or-write", 0),
                }
            })
            .collect();
        let stats = SwitchedStats {
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
        SwitchedHosts {
            streams,
            system_rng: root.stream(seed, "light-host", 0),
            loops: s.loops,
            disks_per_loop,
            slots_per_host: match s.load {
                SwitchedLoad::Heavy => s.outstanding_per_disk * disks_per_loop,
                SwitchedLoad::Light => 1,
            },
            system_wide: s.load == SwitchedLoad::Light && s.light_scope == LightScope::System,
            global_fraction: s.global_fraction,
            read_fraction: s.read_fraction,
            request_bytes: s.request_bytes,
            capacity,
            stats,
            short_reads: 0,
        }
    }

    /// Whether `ex` went to a disk on another loop than its host's.
    pub fn global(&self, ex: &Exchange) -> bool {
        ex.disk / self.disks_per_loop != ex.initiator
    }
}

impl Application for SwitchedHosts {
    fn slots(&self) -> u32 {
        if self.system_wide {
            1
        } else {
            self.slots_per_host * self.loops
        }
    }

    fn next(&mut self, slot: u32) -> Option<Request> {
        let loops = self.loops;
        let h = if self.system_wide { self.system_rng.below(loops) } else { slot / self.slots_per_host };
        let host = &mut self.streams[h as usize];
        let dl = if loops > 1 && host.loop_rng.bernoulli(self.global_fraction) {
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
        let bytes = self.request_bytes;
        let blocks = blocks_for(bytes) as u64;
        let span = (self.capacity[disk as usize] / blocks).max(1);
        let lbn = (host.address_rng.next_u64() % span) * blocks;
        // Reads only (the seed's workload) draw nothing, so their streams stay as they were.
        let read = self.read_fraction >= 1.0 || host.kind_rng.bernoulli(self.read_fraction);
        Some(Request { initiator: h, disk, lbn, read, bytes })
    }

    /// The seed's hosts issue at once and complete on the status.
    fn overheads(&self) -> Option<(Time, Time)> {
        None
    }

    fn completed(&mut self, ex: &Exchange, now: Time, set: &mut MetricSet) {
        if ex.delivered != ex.bytes {
            self.short_reads += 1;
        }
        let total = now - ex.issued;
        let disk: Time = ex.parts[1..=5].iter().sum();
        let global = self.global(ex);
        let st = &self.stats;
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
    }

    fn lingers(&self) -> bool {
        false
    }
}
