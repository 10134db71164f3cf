//! A host's SCSI initiator (its host bus adapter): it runs the exchanges
//! its applications ask for ([`Application`]: how many I/Os they keep
//! outstanding, what each asks for, and what they measure of it).
//!
//! Each slot is an application thread with one I/O outstanding. An I/O
//! becomes an exchange record, pays the host's command overhead (if the
//! application has one), then goes out as a command phase; the status phase
//! ends it after the completion overhead, and the slot issues the next. An
//! application that measures loop figures keeps the record until the status
//! tenancy has closed as well.

use super::exchange::Exchange;
use super::scsi::{blocks_for, Phase};
use crate::kernel::{Arena, Time};
use crate::sim::{MetricSet, Schedule};

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

/// An I/O as an application asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The host that issues it, in assemblies of several.
    pub initiator: u32,
    pub disk: u32,
    pub lbn: u64,
    pub read: bool,
    pub bytes: u32,
}

/// The applications behind an initiator.
pub trait Application {
    /// Application threads, each with one I/O outstanding.
    fn slots(&self) -> u32;
    /// The next I/O of `slot`; None when the slot has done its work.
    fn next(&mut self, slot: u32) -> Option<Request>;
    /// The host's command and completion overheads; None: the adapter acts at once.
    fn overheads(&self) -> Option<(Time, Time)>;
    /// The application has seen the status of `ex` at `now`.
    fn completed(&mut self, ex: &Exchange, now: Time, set: &mut MetricSet);
    /// Whether a completed record stays until its status tenancy has
    /// closed, for [`Application::freed`]'s loop figures.
    fn lingers(&self) -> bool;
    /// The record of a lingering exchange is complete and goes.
    fn freed(&mut self, _ex: &Exchange, _set: &mut MetricSet) {}
}

/// Totals over the whole run (never reset).
#[derive(Clone, Debug, Default)]
pub struct IoCounters {
    pub ios_issued: u64,
    pub ios_completed: u64,
    pub bytes_completed: u64,
}

pub struct ScsiInitiator<A> {
    index: u32,
    app: A,
    exchanges: Arena<Exchange>,
    stopping: bool,
    /// Exchanges completed whose status tenancy has not closed yet.
    lingering: u64,
    pub counters: IoCounters,
}

impl<A: Application> ScsiInitiator<A> {
    /// Initiator `index` running `app`'s I/Os.
    pub fn new(index: u32, app: A) -> Self {
        ScsiInitiator {
            index,
            app,
            exchanges: Arena::with_capacity(1024),
            stopping: false,
            lingering: 0,
            counters: IoCounters::default(),
        }
    }

    pub fn app(&self) -> &A {
        &self.app
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

    /// Every slot issues its first I/O at `start`.
    pub fn start(&self, start: Time, cx: &mut impl Schedule<InitiatorEvent>) {
        for slot in 0..self.app.slots() {
            self.push(cx, start, InitiatorEvent::Issue { slot });
        }
    }

    /// `slot` issues its next I/O. Returns the exchange when its command
    /// goes out at once (no host overhead); else a `Send` follows.
    pub fn issue(&mut self, slot: u32, cx: &mut impl Schedule<InitiatorEvent>) -> Option<u32> {
        let now = cx.now();
        if self.stopping {
            return None;
        }
        let r = self.app.next(slot)?;
        let xid = self.exchanges.insert(Exchange {
            disk: r.disk,
            slot,
            read: r.read,
            lbn: r.lbn,
            blocks: blocks_for(r.bytes),
            bytes: r.bytes,
            issued: now,
            initiator: r.initiator,
            ..Exchange::default()
        });
        self.counters.ios_issued += 1;
        let Some((overhead, _)) = self.app.overheads() else { return Some(xid) };
        self.exchanges[xid].parts[0] += overhead;
        self.push(cx, now + overhead, InitiatorEvent::Send { xid });
        None
    }

    /// The status has arrived: the application sees it after the completion
    /// overhead, or at once. Returns an exchange whose command goes out at once.
    pub fn status_received(
        &mut self,
        xid: u32,
        cx: &mut impl Schedule<InitiatorEvent>,
        set: &mut MetricSet,
    ) -> Option<u32> {
        let now = cx.now();
        let Some((_, overhead)) = self.app.overheads() else { return self.complete(xid, cx, set) };
        let ex = &mut self.exchanges[xid];
        ex.parts[0] += overhead;
        ex.done_at = now + overhead;
        self.push(cx, now + overhead, InitiatorEvent::Complete { xid });
        None
    }

    /// Read data has arrived.
    #[inline]
    pub fn data_received(&mut self, xid: u32, bytes: u32) {
        self.exchanges[xid].delivered += bytes;
    }

    /// The application sees the status: the I/O is done and its slot
    /// issues the next (returned when its command goes out at once).
    pub fn complete(&mut self, xid: u32, cx: &mut impl Schedule<InitiatorEvent>, set: &mut MetricSet) -> Option<u32> {
        let ex = self.exchanges[xid];
        self.counters.ios_completed += 1;
        self.counters.bytes_completed += ex.bytes as u64;
        self.app.completed(&ex, cx.now(), set);
        if self.app.lingers() {
            self.exchanges[xid].completed = true;
            self.lingering += 1;
            self.maybe_free(xid, set);
        } else {
            self.exchanges.remove(xid);
        }
        self.issue(ex.slot, cx)
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
    /// figures are final: the application records them and the record goes.
    fn maybe_free(&mut self, xid: u32, set: &mut MetricSet) {
        let ex = self.exchanges[xid];
        if !(ex.completed && ex.status_closed) {
            return;
        }
        self.exchanges.remove(xid);
        self.lingering -= 1;
        self.app.freed(&ex, set);
    }
}
