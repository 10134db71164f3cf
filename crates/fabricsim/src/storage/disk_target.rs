//! A disk's SCSI target behaviour (seed 004's disks): what the drive does
//! with each phase of an exchange. A read command is a cache hit (data ready
//! after the hit overhead) or joins the mechanism's queue; read data goes
//! out in bursts, each as soon as its blocks are in the buffer, then the
//! status. A write command is answered, after the write overhead, with a
//! transfer-ready per burst; once all data is in, a write cache answers at
//! once and destages on its own, write-through answers after the media.
//!
//! Two choices of a drive's firmware are the group's keys: how many reads'
//! data the buffer holds while they wait for the loop (`read_buffers`: when
//! it is full the mechanism waits, so the drive fetches no data while it
//! transfers; unset, read data never holds up the mechanism), and the
//! status delay, the time from a read's last data frame to its status being
//! ready (the drive building FCP_RSP), which runs while the data tenancy's
//! CLS goes round the loop.
//!
//! The target never touches the loop: it returns what it must send (a burst
//! size, whether the status is due) and the assembly queues the phase at
//! the disk's port.

use super::disk::{MechJob, Service};
use super::exchange::Exchange;
use super::scsi::BLOCK_BYTES;
use super::Disk;
use crate::kernel::{time, Arena, Time};
use crate::scenario::loops::DiskGroupSpec;
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
    /// The status of read `xid` is ready to send.
    StatusReady { xid: u32 },
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
    /// Reads from the media whose data the buffer can hold while it waits
    /// for the loop (`u32::MAX`: no limit).
    read_buffers: u32,
    /// Reads from the media started whose data is not all sent.
    buffered_reads: u32,
    /// From a read's last data frame to its status being ready.
    status_delay: Time,
    /// The media access in progress.
    service: Option<Service>,
    cache_hits: u64,
}

impl DiskTarget {
    /// Disk `index` of its model, with its group's firmware settings.
    pub fn new(index: u32, disk: Disk, group: &DiskGroupSpec) -> Self {
        DiskTarget {
            index,
            disk,
            burst: group.burst_bytes,
            write_cache: group.write_cache,
            read_buffers: group.read_buffers.unwrap_or(u32::MAX),
            buffered_reads: 0,
            status_delay: time::from_us(group.status_delay_us),
            service: None,
            cache_hits: 0,
        }
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

    /// Starts the next queued media access if the mechanism is free and
    /// the buffer has room for another read's data.
    pub fn start_mechanism(&mut self, exchanges: &mut Arena<Exchange>, cx: &mut impl Schedule<DiskEvent>) {
        let now = cx.now();
        if self.buffered_reads >= self.read_buffers {
            return;
        }
        let Some(s) = self.disk.start_next(now) else {
            return;
        };
        if !s.job.write && s.job.xid != NO_XID {
            self.buffered_reads += 1;
        }
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

    /// A read burst's tenancy, whose last frame left at `sent_at`, has
    /// closed: schedules the next burst; or, with all data out, frees the
    /// read's buffer and returns true when the status is due now (else
    /// [`DiskEvent::StatusReady`] comes when it is).
    pub fn read_burst_sent(
        &mut self,
        xid: u32,
        sent_at: Time,
        exchanges: &mut Arena<Exchange>,
        cx: &mut impl Schedule<DiskEvent>,
    ) -> bool {
        let ex = &exchanges[xid];
        if ex.scheduled < ex.bytes {
            self.schedule_next_burst(ex, xid, cx);
            return false;
        }
        let from_media = ex.hit_ready.is_none();
        if from_media {
            let was_full = self.buffered_reads >= self.read_buffers;
            self.buffered_reads -= 1;
            if was_full {
                self.start_mechanism(exchanges, cx);
            }
        }
        let ready = sent_at + self.status_delay;
        if ready > cx.now() {
            self.push(cx, ready, DiskEvent::StatusReady { xid });
            return false;
        }
        true
    }
}
