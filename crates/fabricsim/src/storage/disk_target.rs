//! A disk's SCSI target behaviour (seed 004's disks): what the drive does
//! with each phase of an exchange. A read command is a cache hit (data ready
//! after the hit overhead) or joins the mechanism's queue; read data goes
//! out in bursts, each as soon as its blocks are in the buffer, then the
//! status. A write command is answered, after the write overhead, with a
//! transfer-ready per burst; once all data is in, a write cache answers at
//! once and destages on its own, write-through answers after the media.
//!
//! The target never touches the loop: it returns what it must send (a burst
//! size, whether the status is due) and the assembly queues the phase at
//! the disk's port.

use super::disk::{MechJob, Service};
use super::exchange::Exchange;
use super::scsi::BLOCK_BYTES;
use super::Disk;
use crate::kernel::{Arena, Time};
use crate::sim::Schedule;

/// The exchange of a background destage of cached writes (no exchange waits on it).
pub const NO_XID: u32 = u32::MAX;

/// A disk target's events, carried in the assembly's event with the disk's index.
#[derive(Clone, Copy, Debug)]
pub enum DiskEvent {
    /// The next read burst is in the disk's buffer.
    BurstReady { xid: u32 },
    /// The disk has processed a write command: ask for data.
    WriteSetup { xid: u32 },
    /// The media access for `xid` is over.
    MechDone { xid: u32 },
}

/// Where a write's data phase leaves the exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteData {
    /// More to come: ask for the next burst.
    More,
    /// All data is in and queued for the media; `status_now` when a write
    /// cache answers at once.
    Received { status_now: bool },
}

pub struct DiskTarget {
    index: u32,
    pub disk: Disk,
    burst: u32,
    write_cache: bool,
    /// The media access in progress.
    service: Option<Service>,
    cache_hits: u64,
}

impl DiskTarget {
    /// Disk `index` of its model, sending read data in bursts of `burst` bytes.
    pub fn new(index: u32, disk: Disk, burst: u32, write_cache: bool) -> Self {
        DiskTarget { index, disk, burst, write_cache, service: None, cache_hits: 0 }
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> u64 {
        self.disk.mech.capacity_blocks
    }

    /// Reads served from the cache so far (never reset).
    pub fn cache_hits(&self) -> u64 {
        self.cache_hits
    }

    // Every scheduled event passes here; left to itself the compiler makes
    // this a call, which the hand-written pushes it replaced were not.
    #[inline(always)]
    fn push(&self, cx: &mut impl Schedule<DiskEvent>, at: Time, ev: DiskEvent) {
        cx.push(at, self.index, ev);
    }

    /// A read command has arrived: a cache hit schedules its data, a miss
    /// waits for the mechanism.
    pub fn read_command(&mut self, xid: u32, exchanges: &mut Arena<Exchange>, cx: &mut impl Schedule<DiskEvent>) {
        let now = cx.now();
        let (lbn, blocks) = (exchanges[xid].lbn, exchanges[xid].blocks);
        if let Some(ready) = self.disk.read_hit(now, lbn, blocks) {
            self.cache_hits += 1;
            let ex = &mut exchanges[xid];
            ex.hit_ready = Some(ready);
            ex.parts[2] += ready - now;
            self.schedule_next_burst(&exchanges[xid], xid, cx);
        } else {
            self.disk.enqueue(MechJob { xid, lbn, blocks, write: false, queued_at: now });
            self.start_mechanism(exchanges, cx);
        }
    }

    /// A write command has arrived: data is asked for after the write overhead.
    pub fn write_command(&mut self, xid: u32, ex: &mut Exchange, cx: &mut impl Schedule<DiskEvent>) {
        let now = cx.now();
        let overhead = self.disk.write_overhead;
        ex.parts[2] += overhead;
        self.push(cx, now + overhead, DiskEvent::WriteSetup { xid });
    }

    /// Write data has arrived. Once all of it is in, the write is queued for
    /// the media: the caller sends the status if it is due at once, then
    /// calls [`DiskTarget::start_mechanism`].
    pub fn write_data(&mut self, xid: u32, bytes: u32, now: Time, ex: &mut Exchange) -> WriteData {
        ex.delivered += bytes;
        if ex.delivered < ex.bytes {
            return WriteData::More;
        }
        // A write cache answers at once and destages on its own (no exchange
        // waits on it); write-through answers after the media.
        let cached = self.write_cache;
        self.disk.enqueue(MechJob {
            xid: if cached { NO_XID } else { xid },
            lbn: ex.lbn,
            blocks: ex.blocks,
            write: true,
            queued_at: now,
        });
        WriteData::Received { status_now: cached }
    }

    /// Size of the exchange's next burst (read data, or the data a
    /// transfer-ready asks for), now handed out.
    #[inline]
    pub fn next_burst(&self, ex: &mut Exchange) -> u32 {
        let burst = self.burst.min(ex.bytes - ex.scheduled);
        ex.scheduled += burst;
        burst
    }

    /// Starts the next queued media access if the mechanism is free.
    pub fn start_mechanism(&mut self, exchanges: &mut Arena<Exchange>, cx: &mut impl Schedule<DiskEvent>) {
        let now = cx.now();
        let Some(s) = self.disk.start_next(now) else {
            return;
        };
        self.service = Some(s);
        self.push(cx, s.end(), DiskEvent::MechDone { xid: s.job.xid });
        if s.job.xid == NO_XID {
            return;
        }
        let ex = &mut exchanges[s.job.xid];
        ex.parts[1] += s.start - s.job.queued_at;
        ex.parts[2] += s.overhead;
        ex.parts[3] += s.seek;
        ex.parts[4] += s.rotation;
        ex.parts[5] += s.media;
        if !s.job.write {
            ex.media_start = s.media_start;
            ex.location = Some(s.location);
            self.schedule_next_burst(&exchanges[s.job.xid], s.job.xid, cx);
        }
    }

    /// The media access is over; true when a write-through's status is now
    /// due. The caller sends it, then calls [`DiskTarget::start_mechanism`].
    pub fn mech_done(&mut self, xid: u32) -> bool {
        self.disk.finish();
        self.service.take().is_some_and(|s| s.job.write) && xid != NO_XID
    }

    /// Schedules the disk's next read burst for when its data is in the buffer.
    fn schedule_next_burst(&self, ex: &Exchange, xid: u32, cx: &mut impl Schedule<DiskEvent>) {
        let now = cx.now();
        let end = (ex.scheduled + self.burst).min(ex.bytes);
        let ready = match (ex.hit_ready, ex.location) {
            (Some(t), _) => t,
            (None, Some(loc)) => ex.media_start + self.disk.mech.media_time(loc, end.div_ceil(BLOCK_BYTES).max(1)),
            (None, None) => unreachable!("read data comes from the cache or the media"),
        };
        self.push(cx, ready.max(now), DiskEvent::BurstReady { xid });
    }

    /// A read burst's tenancy has closed: schedules the next burst, or
    /// returns true when all data is out and the status is due.
    pub fn read_burst_sent(&mut self, xid: u32, ex: &Exchange, cx: &mut impl Schedule<DiskEvent>) -> bool {
        if ex.scheduled < ex.bytes {
            self.schedule_next_burst(ex, xid, cx);
            false
        } else {
            true
        }
    }
}
