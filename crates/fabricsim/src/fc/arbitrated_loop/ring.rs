//! One arbitrated loop (seed 004; one of several loops in seed 001): its
//! ports in ring order, the arbiter, loop timing, initialization, and the
//! one tenancy the loop carries at a time.
//!
//! A tenancy: the opener wins arbitration, sends OPN; the target answers
//! with an R_RDY per free receive buffer (alternate credit model, login
//! BB_Credit 0) or the opener uses its login credit at once; frames follow
//! as credit allows, each R_RDY coming back one loop trip after its frame;
//! then CLS goes out and the loop is released when the target's CLS returns.
//! So an idle-loop phase with one frame costs three loop trips (ARB, OPN and
//! R_RDY, CLS and CLS) plus the frame, as seed 004's analyzer traces show.
//!
//! The ring knows phases ([`Job`]s), not what they mean. It tells the layer
//! above three things, as the value [`Ring::handle`] returns: a port won the
//! loop for a phase, a phase's frames reached their target port, and a
//! tenancy closed. After a close the assembly reacts (queueing the phases
//! that follow, which then compete in the same arbitration) and calls
//! [`Ring::pass_on`], which hands the loop to the next winner or leaves it
//! idle.

use super::arbitration::{Arbiter, PendingWin};
use super::initialization::{initialize, LoopInit};
use super::metrics::RingStats;
use super::port::{Job, LoopPort, PortConfig};
use super::timing::LoopTiming;
use crate::error::{Error, Result};
use crate::kernel::Time;
use crate::scenario::loops::LoopSpec;
use crate::sim::{ComponentPath, MetricSet, Schedule};
use crate::storage::scsi::Phase;

/// The ring's own events, scheduled through [`Carries`] with the ring's index.
#[derive(Clone, Copy, Debug)]
pub enum RingEvent {
    /// `port`'s ARB comes back to it, if the front is still `generation`.
    Win { port: u32, generation: u32 },
    /// An IDLE reaches `port`: its access window reopens.
    WindowReset { port: u32 },
    /// `n` credits (login credit or R_RDYs) reach the opener of tenancy `seq`.
    Credit { seq: u32, n: u32 },
    /// The opener of tenancy `seq` has sent a frame.
    TxDone { seq: u32 },
    /// The last frame of a phase is in the target's buffer.
    Delivered { xid: u32, phase: Phase, bytes: u32 },
    /// The target's CLS is back: tenancy `seq` is over.
    Release { seq: u32 },
}

/// A port won the loop for `job`.
#[derive(Clone, Copy, Debug)]
pub struct Won {
    pub job: Job,
    /// When the port started arbitrating for it.
    pub arb_start: Time,
    /// Loop trips the tenancy costs: the winning ARB's travel plus OPN and CLS.
    pub trips: f64,
}

/// A tenancy closed; the loop is still owned until [`Ring::pass_on`].
#[derive(Clone, Copy, Debug)]
pub struct Closed {
    pub opener: u32,
    pub job: Job,
    /// Time the loop was held, from the win to the release.
    pub held: Time,
    /// When the opener's last frame left (the win, for a tenancy without
    /// frames of its own).
    pub sent_at: Time,
    /// The open was refused and the job is back at the front of the
    /// opener's queue: it will arbitrate for it again.
    pub refused: bool,
}

/// Where a tenancy's frames and credits travel beyond the ring's own trip
/// (a circuit through a switch into another loop): each a delay counted
/// from the end of a frame's transmission at the opener.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TenancyPath {
    /// Until the frame's R_RDY is back at the opener.
    pub credit: Time,
    /// Until the frame is in the target's buffer.
    pub deliver: Time,
    /// After the last frame: until the target's CLS is back (the release).
    pub close: Time,
}

/// What the layer above must hear of an event.
#[must_use]
#[derive(Clone, Copy, Debug)]
pub enum RingReport {
    Nothing,
    Won(Won),
    /// A phase's frames reached the target port.
    Delivered {
        xid: u32,
        phase: Phase,
        bytes: u32,
    },
    Closed(Closed),
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
    /// When the last frame left.
    sent_at: Time,
    first_credit: Option<Time>,
    path: TenancyPath,
    /// Released by [`Ring::release_at`] with the job put back in the queue.
    refused: bool,
}

pub struct Ring {
    path: ComponentPath,
    index: u32,
    timing: LoopTiming,
    ports: Vec<LoopPort>,
    arbiter: Arbiter,
    tenancy: Tenancy,
    /// Origin of the ARB front that will win next.
    pending_origin: u32,
    init: LoopInit,
    pub stats: RingStats,
}

impl Ring {
    /// Ring `index` of its model, named `path`, with `ports` in ring order;
    /// initializes the loop (AL_PAs, loop master, duration) and registers
    /// the ring's statistics in `set`.
    pub fn new(
        path: ComponentPath,
        index: u32,
        spec: &LoopSpec,
        ports: &[PortConfig],
        set: &mut MetricSet,
    ) -> Result<Self> {
        let timing = LoopTiming::new(spec, ports.len() as u32);
        let init_ports: Vec<_> = ports.iter().map(|p| p.init.clone()).collect();
        let mut init = initialize(&init_ports, &timing, spec.init_store_and_forward, spec.position_map);
        if !spec.initialize {
            init.duration = 0;
        }
        let ports = ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let al_pa = init.al_pas[i].ok_or_else(|| Error::model(format!("port {i} acquired no AL_PA")))?;
                Ok(LoopPort::new(al_pa, p.fair, p.receive_buffers, p.login_bb_credit))
            })
            .collect::<Result<Vec<_>>>()?;
        let stats = RingStats::new(set, &path);
        Ok(Ring {
            path,
            index,
            timing,
            ports,
            arbiter: Arbiter::default(),
            tenancy: Tenancy::default(),
            pending_origin: 0,
            init,
            stats,
        })
    }

    pub fn path(&self) -> &ComponentPath {
        &self.path
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn timing(&self) -> &LoopTiming {
        &self.timing
    }

    pub fn ports(&self) -> &[LoopPort] {
        &self.ports
    }

    pub fn al_pa(&self, port: usize) -> u8 {
        self.ports[port].al_pa
    }

    /// Loop initialization: addresses, loop master and how long it took.
    pub fn init(&self) -> &LoopInit {
        &self.init
    }

    /// The port that owns the loop, if any.
    pub fn owner(&self) -> Option<u32> {
        self.arbiter.owner
    }

    /// The tenancy in progress has been refused and awaits its release.
    pub fn refusal_pending(&self) -> bool {
        self.tenancy.refused && self.tenancy.job.is_some()
    }

    /// Some port owns the loop.
    pub fn is_owned(&self) -> bool {
        self.arbiter.owner.is_some()
    }

    /// Closes the measurement at `stop`: a tenancy in progress counts up to it.
    pub fn close_measurement(&mut self, set: &mut MetricSet, stop: Time) {
        if self.is_owned() {
            self.stats.loop_released(set, stop);
            self.stats.owned_since = stop;
        }
    }

    // Every scheduled event passes here; left to itself the compiler makes
    // this a call, which the hand-written pushes it replaced were not.
    #[inline(always)]
    fn push(&self, cx: &mut impl Schedule<RingEvent>, at: Time, ev: RingEvent) {
        cx.push(at, self.index, ev);
    }

    // ---- ports and arbitration -------------------------------------------

    /// Queues `job` at `port`, which arbitrates for it if it may.
    pub fn enqueue(&mut self, port: u32, job: Job, cx: &mut impl Schedule<RingEvent>) {
        self.ports[port as usize].jobs.push_back(job);
        self.try_arbitrate(port, cx);
    }

    fn try_arbitrate(&mut self, port: u32, cx: &mut impl Schedule<RingEvent>) {
        let now = cx.now();
        let p = &mut self.ports[port as usize];
        if p.arbitrating || !p.wants_loop() || self.arbiter.owner == Some(port) {
            return;
        }
        p.arbitrating = true;
        p.arb_start = now;
        if let Some(w) = self.arbiter.on_start(port, now, &self.ports, &self.timing) {
            self.schedule_win(w, cx);
        }
    }

    fn schedule_win(&mut self, w: PendingWin, cx: &mut impl Schedule<RingEvent>) {
        self.push(cx, w.at, RingEvent::Win { port: w.port, generation: w.generation });
        self.pending_origin = w.origin; // where the winning ARB set out, for trip accounting
    }

    /// Runs one of the ring's events.
    #[inline]
    pub fn handle(&mut self, ev: RingEvent, cx: &mut impl Schedule<RingEvent>, set: &mut MetricSet) -> RingReport {
        let now = cx.now();
        match ev {
            RingEvent::Win { port, generation } => self.on_win(port, generation, cx, set),
            RingEvent::WindowReset { port } => {
                self.on_window_reset(port, cx);
                RingReport::Nothing
            }
            RingEvent::Credit { seq, n } => {
                self.on_credit(seq, n, cx, set);
                RingReport::Nothing
            }
            RingEvent::TxDone { seq } => {
                self.on_tx_done(seq, cx);
                RingReport::Nothing
            }
            RingEvent::Delivered { xid, phase, bytes } => RingReport::Delivered { xid, phase, bytes },
            RingEvent::Release { seq } => self.on_release(seq, now, set),
        }
    }

    fn on_win(
        &mut self,
        port: u32,
        generation: u32,
        cx: &mut impl Schedule<RingEvent>,
        set: &mut MetricSet,
    ) -> RingReport {
        let now = cx.now();
        if !self.arbiter.on_win(port, generation) {
            self.stats.counters.stale_wins += 1;
            return RingReport::Nothing;
        }
        let origin = self.pending_origin;
        let p = &mut self.ports[port as usize];
        p.arbitrating = false;
        if p.fair {
            p.window_open = false;
        }
        let job = p.jobs.pop_front().expect("a winning port has a job");
        let arb_start = p.arb_start;
        self.stats.owned_since = now;
        set.record(self.stats.arbitration_wait, now - arb_start);
        self.stats.counters.tenancies += 1;
        let trips = self.timing.delay(origin, port) as f64 / self.timing.trip() as f64 + 2.0;
        let frames = if job.phase == Phase::Data { self.timing.frames_for(job.bytes) } else { 1 };
        let seq = self.tenancy.seq.wrapping_add(1);
        let w = self.timing.word;
        let trip = self.timing.trip();
        let path = TenancyPath { credit: trip + w, deliver: self.timing.delay(port, job.target), close: 2 * w + trip };
        self.tenancy = Tenancy {
            seq,
            opener: port,
            job: Some(job),
            frames,
            sent: 0,
            credit: 0,
            sending: false,
            won_at: now,
            sent_at: now,
            first_credit: None,
            path,
            refused: false,
        };
        let target = &self.ports[job.target as usize];
        if job.external {
            // The bridge answers: it connects or refuses the tenancy.
        } else if target.login_bb_credit > 0 {
            // Login credit: frames may follow OPN at once.
            self.push(cx, now + w, RingEvent::Credit { seq, n: target.login_bb_credit });
        } else {
            // Alternate credit model: OPN out, one R_RDY per free buffer back.
            let n = target.receive_buffers;
            self.push(cx, now + 2 * w + self.timing.trip(), RingEvent::Credit { seq, n });
        }
        RingReport::Won(Won { job, arb_start, trips })
    }

    fn on_credit(&mut self, seq: u32, n: u32, cx: &mut impl Schedule<RingEvent>, set: &mut MetricSet) {
        let now = cx.now();
        if seq != self.tenancy.seq {
            return;
        }
        if self.tenancy.first_credit.is_none() {
            self.tenancy.first_credit = Some(now);
            set.record(self.stats.open_round_trip, now - self.tenancy.won_at);
        }
        self.tenancy.credit += n;
        if !self.tenancy.sending {
            self.send_frame(cx);
        }
    }

    fn send_frame(&mut self, cx: &mut impl Schedule<RingEvent>) {
        let now = cx.now();
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
        let credit = t.path.credit;
        self.stats.counters.frames += 1;
        self.push(cx, now + ft, RingEvent::TxDone { seq });
        // The target frees the buffer on receipt; its R_RDY needs the rest of the trip.
        self.push(cx, now + ft + credit, RingEvent::Credit { seq, n: 1 });
    }

    fn on_tx_done(&mut self, seq: u32, cx: &mut impl Schedule<RingEvent>) {
        let now = cx.now();
        if seq != self.tenancy.seq {
            return;
        }
        self.tenancy.sent += 1;
        if self.tenancy.sent < self.tenancy.frames {
            self.tenancy.sending = false;
            self.send_frame(cx);
            return;
        }
        self.tenancy.sending = false;
        self.tenancy.sent_at = now;
        let job = self.tenancy.job.expect("tenancy has a job");
        let path = self.tenancy.path;
        self.push(cx, now + path.deliver, RingEvent::Delivered { xid: job.xid, phase: job.phase, bytes: job.bytes });
        // CLS out, the target's CLS back.
        self.push(cx, now + path.close, RingEvent::Release { seq });
    }

    fn on_release(&mut self, seq: u32, now: Time, set: &mut MetricSet) -> RingReport {
        if seq != self.tenancy.seq {
            return RingReport::Nothing;
        }
        let t = self.tenancy;
        let job = t.job.expect("tenancy has a job");
        self.tenancy.job = None;
        self.stats.loop_released(set, now);
        set.record(self.stats.tenancy, now - t.won_at);
        if t.refused {
            self.stats.counters.refused_opens += 1;
            self.ports[t.opener as usize].jobs.push_front(job);
        }
        RingReport::Closed(Closed {
            opener: t.opener,
            job,
            held: now - t.won_at,
            sent_at: t.sent_at,
            refused: t.refused,
        })
    }

    // ---- tenancies a bridge answers ----------------------------------------

    /// Connects the current (external) tenancy: `n` credits reach the opener
    /// at `credit_at`, and its frames travel along `path`.
    pub fn connect(&mut self, credit_at: Time, n: u32, path: TenancyPath, cx: &mut impl Schedule<RingEvent>) {
        debug_assert!(self.tenancy.job.is_some_and(|j| j.external), "only an external tenancy is connected");
        self.tenancy.path = path;
        let seq = self.tenancy.seq;
        self.push(cx, credit_at, RingEvent::Credit { seq, n });
    }

    /// Ends the current tenancy at `at` without frames of its own (a bridge
    /// holding its loop for a circuit, or an open refused); `refused` puts
    /// the job back at the front of the opener's queue.
    pub fn release_at(&mut self, at: Time, refused: bool, cx: &mut impl Schedule<RingEvent>) {
        debug_assert!(self.tenancy.job.is_some(), "a tenancy to release");
        self.tenancy.refused = refused;
        let seq = self.tenancy.seq;
        self.push(cx, at, RingEvent::Release { seq });
    }

    /// After a closed tenancy: the opener arbitrates again if it may; then
    /// the loop passes to the highest-priority arbitrating port or goes idle.
    pub fn pass_on(&mut self, opener: u32, cx: &mut impl Schedule<RingEvent>) {
        let now = cx.now();
        let o = opener;
        let p = &mut self.ports[o as usize];
        if p.wants_loop() {
            p.arbitrating = true;
            p.arb_start = now;
        }
        match self.arbiter.on_release(o, now, &self.ports, &self.timing) {
            Some(w) => self.schedule_win(w, cx),
            None => {
                // Nobody arbitrates: the owner sends IDLEs, which reopen every access
                // window as they pass. The owner itself knows no one else is waiting
                // (its ARB(F0) came back), so its own window reopens at once.
                self.ports[o as usize].window_open = true;
                self.try_arbitrate(o, cx);
                for i in 0..self.ports.len() as u32 {
                    let p = &mut self.ports[i as usize];
                    if !p.window_open && !p.reset_pending {
                        p.reset_pending = true;
                        self.push(cx, now + self.timing.delay(o, i), RingEvent::WindowReset { port: i });
                    }
                }
            }
        }
    }

    fn on_window_reset(&mut self, port: u32, cx: &mut impl Schedule<RingEvent>) {
        let p = &mut self.ports[port as usize];
        p.window_open = true;
        p.reset_pending = false;
        self.try_arbitrate(port, cx);
    }
}
