//! One disk drive as a SCSI target's back end: a tagged command queue in
//! front of one mechanism (arm + spindle), with the read cache beside it.
//! The loop model asks it two things: "is this read a cache hit, and when
//! is the data there?" and "start the next queued media access": the answer
//! is the access's overhead, seek, rotation and media times.

use super::cache::Cache;
use super::drive_params::DriveParams;
use super::mechanics::{Location, Mechanics};
use crate::kernel::{time, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// Commands in arrival order.
    Fifo,
    /// Shortest seek (cylinder distance) first among queued commands.
    Sstf,
}

#[derive(Clone, Copy, Debug)]
pub struct MechJob {
    /// Exchange it serves (`u32::MAX`: a background destage of cached writes).
    pub xid: u32,
    pub lbn: u64,
    pub blocks: u32,
    pub write: bool,
    pub queued_at: Time,
}

/// Timing of one media access, all in picoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Service {
    pub job: MechJob,
    pub start: Time,
    pub overhead: Time,
    pub seek: Time,
    pub rotation: Time,
    pub media: Time,
    /// First block under the head.
    pub media_start: Time,
    pub location: Location,
}

impl Service {
    pub fn end(&self) -> Time {
        self.media_start + self.media
    }
}

#[derive(Clone, Debug)]
pub struct Disk {
    pub mech: Mechanics,
    pub cache: Cache,
    read_hit_overhead: Time,
    read_miss_overhead: Time,
    pub write_overhead: Time,
    queue: Vec<MechJob>,
    busy: bool,
    cylinder: u32,
    scheduler: Scheduler,
    cache_enabled: bool,
}

impl Disk {
    pub fn new(
        p: &DriveParams,
        scheduler: Scheduler,
        read_cache: bool,
        read_ahead: bool,
        queue_capacity: usize,
    ) -> Self {
        let ms = |v: f64| time::from_us(v * 1000.0);
        let ra = if read_ahead { p.max_read_ahead_blocks } else { 0 };
        Disk {
            mech: Mechanics::new(p),
            cache: Cache::new(if read_cache { p.cache_segments } else { 0 }, p.segment_blocks, ra),
            read_hit_overhead: ms(p.read_hit_overhead_ms),
            read_miss_overhead: ms(p.read_miss_overhead_ms),
            write_overhead: ms(p.write_miss_overhead_ms),
            queue: Vec::with_capacity(queue_capacity),
            busy: false,
            cylinder: 0,
            scheduler,
            cache_enabled: read_cache,
        }
    }

    /// When a read of `[lbn, lbn + blocks)` is a cache hit: the time its data is in the buffer.
    pub fn read_hit(&mut self, now: Time, lbn: u64, blocks: u32) -> Option<Time> {
        if !self.cache_enabled {
            return None;
        }
        let at = now + self.read_hit_overhead;
        self.cache.lookup(at, lbn, blocks).map(|ready| ready.max(at))
    }

    pub fn enqueue(&mut self, job: MechJob) {
        self.queue.push(job);
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Starts the next media access if the mechanism is free.
    pub fn start_next(&mut self, now: Time) -> Option<Service> {
        if self.busy || self.queue.is_empty() {
            return None;
        }
        let i = match self.scheduler {
            Scheduler::Fifo => 0,
            Scheduler::Sstf => {
                let cyl = self.cylinder;
                let mech = &self.mech;
                (0..self.queue.len())
                    .min_by_key(|&i| mech.locate(self.queue[i].lbn).cylinder.abs_diff(cyl))
                    .unwrap_or(0)
            }
        };
        let job = self.queue.remove(i);
        self.busy = true;
        self.cache.preempt(now);
        let location = self.mech.locate(job.lbn);
        let overhead = if job.write { 0 } else { self.read_miss_overhead };
        let seek = self.mech.seek(self.cylinder, location.cylinder);
        let rotation = self.mech.rotational_latency(now + overhead + seek, location);
        let media = self.mech.media_time(location, job.blocks);
        let media_start = now + overhead + seek + rotation;
        self.cylinder = self.mech.locate(job.lbn + job.blocks as u64 - 1).cylinder;
        if job.write {
            self.cache.invalidate(job.lbn, job.blocks);
        } else if self.cache_enabled {
            self.cache.start_fill(media_start, job.lbn, job.blocks, self.mech.block_time(location));
        }
        Some(Service { job, start: now, overhead, seek, rotation, media, media_start, location })
    }

    /// The mechanism has finished its access (read-ahead carries on in the cache).
    pub fn finish(&mut self) {
        self.busy = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::drives::drive;
    use super::*;

    #[test]
    fn miss_then_sequential_hit_and_seek_accounting() {
        let p = drive("cheetah9lp").unwrap();
        let mut d = Disk::new(&p, Scheduler::Fifo, true, true, 8);
        assert_eq!(d.read_hit(0, 1000, 2), None);
        d.enqueue(MechJob { xid: 0, lbn: 1000, blocks: 2, write: false, queued_at: 0 });
        let s = d.start_next(0).unwrap();
        assert!(d.start_next(0).is_none(), "one access at a time");
        assert_eq!(s.overhead, 283_620_000);
        assert_eq!(s.seek, 0, "block 1000 is on cylinder 0");
        assert!(s.rotation < d.mech.revolution);
        d.finish();
        // The next two blocks arrive by read-ahead: a hit once they are read.
        let ready = d.read_hit(s.end(), 1002, 2).unwrap();
        assert!(ready >= s.end() && ready <= s.end() + 3 * d.mech.block_time(s.location) + 66_000_000);
        d.enqueue(MechJob { xid: 1, lbn: 17_000_000, blocks: 2, write: true, queued_at: 0 });
        let w = d.start_next(s.end()).unwrap();
        assert!(w.seek > 10_000_000_000 && w.overhead == 0);
    }
}
