//! The switch-connected node (SCN) of switched-fcal: one port on its loop, one
//! on the switch. It has the highest priority on its loop (AL_PA 0x01),
//! never uses the access fairness algorithm and has more receive buffers
//! than a normal node. It intercepts every OPN for a port on another loop.
//!
//! Towards the switch the bridge is an FC port like any other: it sends
//! frames one at a time under the buffer-to-buffer credit of its switch
//! port, and takes frames into its inbound buffers, for which the switch
//! holds credit. The switch model (`fc::switch`) routes, queues and
//! reserves; the bridge never decides for it.
//!
//! Circuit switching: the bridge sends a class 1 connect request (SOFc1)
//! for the remote bridge's port. The switch refuses it (F_BSY) when either
//! port is held by another connection (the remote loop is busy with another
//! global request, or the local bridge is opening its own loop for one); the
//! refusal travels back and the bridge closes the initiator's tenancy, which
//! arbitrates again. Otherwise the connection holds both ports, the remote
//! bridge arbitrates on its loop, opens the target, and the target's R_RDYs
//! travel back to the initiator: the frames then run end to end under the
//! initiator's tenancy, both loops held, until CLS, which releases the
//! connection.
//!
//! Packet switching: the bridge answers the initiator itself (when it has
//! buffers for the whole phase; otherwise it closes the tenancy, and the
//! initiator arbitrates again), stores the phase, then asks the remote
//! bridge for buffers for all of it, end to end (as FC's end-to-end credit
//! does frame by frame). Granted, it sends the phase's frames into the
//! switch as class 3 frames; refused, the request waits until the remote
//! bridge frees buffers (a second attempt). Reserving the whole phase
//! first matters: frames of several phases interleave at the switch
//! output, and buffers given frame by frame could fill the remote bridge
//! with parts of phases none of which is complete, which it could never
//! deliver. The remote bridge stores the phase, delivers it in its own
//! tenancy, then returns its buffers' credit to the switch. Segment by
//! segment: nothing is torn down.
//!
//! [`Bridges`] is the bridges of one join as a component: their state, the
//! stored phases (segments) and the circuit and packet protocols, with
//! [`BridgeEvent`]. A bridge acts on its own loop (a job at its port, an
//! open it answers or refuses) and on the switch (frames, credits, a
//! connection released) through the [`Join`] the assembly lends it.

use std::collections::VecDeque;

use super::port::Job;
use super::ring::{Closed, Ring, RingEvent, TenancyPath};
use crate::fc::frame::{Frame, FrameKind, Message};
use crate::fc::sender::Sender;
use crate::fc::shared::Shared;
use crate::fc::switch::FcSwitch;
use crate::kernel::{Arena, Time};
use crate::scenario::switched_loops::Switching;
use crate::sim::{Delivery, Link, Schedule};
use crate::storage::exchange::Exchange;
use crate::storage::scsi::Phase;

/// A bridge's events, carried in the assembly's event with its loop's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BridgeEvent {
    /// Circuit: the initiator's OPN for a remote port has reached the bridge.
    Intercept,
    /// Circuit: connect request `frame` is wholly in this (remote) bridge.
    Connect { frame: u32 },
    /// The bridge's switch port has sent a frame's last byte.
    TransmitDone,
    /// Packet: segment `seg` is all in this (remote) bridge's buffers.
    Arrived { seg: u32 },
}

/// What bridges schedule: their own events, their loops' and frames and
/// credits over their links to the switch.
pub trait BridgeContext: Schedule<BridgeEvent> + Schedule<RingEvent> + Schedule<Delivery> {}
impl<C: Schedule<BridgeEvent> + Schedule<RingEvent> + Schedule<Delivery>> BridgeContext for C {}

/// What the bridges act on besides their own state, lent by the assembly
/// for one event: the switch and the records it carries, the loops, and
/// the exchanges (whose retries and switch requests they count).
pub struct Join<'a> {
    pub sh: &'a mut Shared,
    pub switch: &'a mut FcSwitch,
    pub rings: &'a mut [Ring],
    pub exchanges: &'a mut Arena<Exchange>,
}

/// A phase crossing the switch: the circuit an initiator asked for, or a
/// segment a bridge stored and forwards.
#[derive(Clone, Copy, Debug, Default)]
pub struct Crossing {
    pub xid: u32,
    pub phase: Option<Phase>,
    pub bytes: u32,
    /// Frames of the phase.
    pub frames: u32,
    /// Loop it comes from, and the port that opened it there.
    pub src: u32,
    pub opener: u32,
    /// Loop it goes to, and the target port there.
    pub dst: u32,
    pub target: u32,
    /// Packet: the remote bridge refused it buffers once (it waits), and
    /// its frames in the remote bridge.
    pub refused: bool,
    pub received: u32,
}

#[derive(Clone, Debug)]
struct Bridge {
    /// Free receive buffers (frames) in each direction:
    /// phases from the loop waiting for the switch, and phases from the
    /// switch waiting for the loop. Separate pools: two bridges full of
    /// phases for each other would otherwise wait for each other forever.
    free_out: u32,
    free_in: u32,
    /// Its transmitter towards its switch port, and the frames waiting for it.
    sender: Sender,
    queue: VecDeque<u32>,
    /// The frame on the fibre is a stored phase's (its buffer frees when it has left).
    sending_stored: bool,
    /// Circuit: the request this loop's initiator made, while it stands,
    /// its class 1 connection, and the connect request's message until the
    /// remote bridge has it.
    outbound: Option<Crossing>,
    connection: Option<u32>,
    connect_message: Option<u32>,
    /// Circuit: the loop whose circuit this bridge is opening its own loop for.
    inbound: Option<u32>,
    /// Packet: stored phases (segments) not yet granted remote buffers, in order.
    pending: VecDeque<u32>,
}

/// Totals the bridges count.
#[derive(Clone, Copy, Debug, Default)]
pub struct BridgeCounters {
    pub circuits: u64,
    pub refused_circuits: u64,
    pub segments: u64,
    pub refused_segments: u64,
    pub refused_bridge_opens: u64,
    pub switch_frames: u64,
}

/// How the bridges of a join are built.
pub struct BridgesSpec {
    pub switching: Switching,
    /// The bridge's port on every loop.
    pub port: u32,
    /// Receive buffers each way at every bridge, and at its switch port.
    pub buffers: u32,
    pub switch_buffers: u32,
    /// One way over an established circuit: a header time and two fibres.
    pub circuit_latency: Time,
    /// The link from loop `l`'s bridge to its switch port.
    pub links: Vec<Link>,
}

pub struct Bridges {
    bridges: Vec<Bridge>,
    segments: Arena<Crossing>,
    switching: Switching,
    port: u32,
    circuit_latency: Time,
    pub counters: BridgeCounters,
}

impl Bridges {
    pub fn new(spec: BridgesSpec) -> Self {
        let bridges = spec
            .links
            .iter()
            .map(|&link| Bridge {
                free_out: spec.buffers,
                free_in: spec.buffers,
                sender: Sender::new(link, spec.switch_buffers),
                queue: VecDeque::with_capacity(64),
                sending_stored: false,
                outbound: None,
                connection: None,
                connect_message: None,
                inbound: None,
                pending: VecDeque::with_capacity(16),
            })
            .collect();
        Bridges {
            bridges,
            segments: Arena::with_capacity(64),
            switching: spec.switching,
            port: spec.port,
            circuit_latency: spec.circuit_latency,
            counters: BridgeCounters::default(),
        }
    }

    /// Stored phases on their way through the switch.
    pub fn segments_live(&self) -> usize {
        self.segments.live()
    }

    /// The bridge of loop `l`'s port `opener` won loop `l` for a phase to
    /// port `target` of loop `dst`: a circuit starts, or the bridge stores
    /// the phase if it has buffers for all `frames`, else refuses the open.
    /// `credit_at`: when the bridge's first R_RDY reaches the opener.
    /// Returns whether the phase was taken then (its establishment ends).
    #[allow(clippy::too_many_arguments)]
    pub fn opened(
        &mut self,
        cx: &mut impl BridgeContext,
        j: &mut Join,
        l: u32,
        opener: u32,
        job: Job,
        (dst, target): (u32, u32),
        frames: u32,
        credit_at: Time,
    ) -> bool {
        let now = cx.now();
        let t = j.rings[l as usize].timing();
        let word = t.word;
        let crossing = Crossing {
            xid: job.xid,
            phase: Some(job.phase),
            bytes: job.bytes,
            frames,
            src: l,
            opener,
            dst,
            target,
            ..Crossing::default()
        };
        match self.switching {
            Switching::Circuit => {
                let at = now + word + t.delay(opener, self.port);
                self.bridges[l as usize].outbound = Some(crossing);
                cx.push(at, l, BridgeEvent::Intercept);
                false
            }
            Switching::Packet => {
                let b = &mut self.bridges[l as usize];
                if b.free_out >= frames {
                    // The bridge answers with an R_RDY per buffer it holds for the phase.
                    b.free_out -= frames;
                    let path = TenancyPath {
                        credit: t.trip() + word,
                        deliver: t.delay(opener, self.port),
                        close: 2 * word + t.trip(),
                    };
                    j.rings[l as usize].connect(credit_at, frames, path, cx);
                    true
                } else {
                    // No room: the bridge closes at once (OPN in, CLS back, the opener's CLS).
                    self.counters.refused_bridge_opens += 1;
                    j.exchanges[job.xid].retries += 1;
                    let at = now + 3 * word + t.trip();
                    j.rings[l as usize].release_at(at, true, cx);
                    false
                }
            }
        }
    }

    /// Circuit: the remote bridge won its loop `d`: it opens the target,
    /// whose R_RDYs travel back through the switch to the initiator.
    /// Returns the exchange and when the first R_RDY reaches the opener.
    pub fn remote_won(&mut self, cx: &mut impl BridgeContext, j: &mut Join, d: u32, job: Job) -> (u32, Time) {
        let now = cx.now();
        let src = self.bridges[d as usize].inbound.expect("a remote open serves an inbound circuit");
        let c = self.bridges[src as usize].outbound.expect("the circuit's request stands");
        debug_assert_eq!((c.xid, c.target), (job.xid, job.target));
        let (bp, sw) = (self.port, self.circuit_latency);
        let (rd, rs) = (j.rings[d as usize].timing(), j.rings[src as usize].timing());
        let w = rd.word;
        let target = &j.rings[d as usize].ports()[c.target as usize];
        let (n, rrdy_at_bridge) = if target.login_bb_credit > 0 {
            (target.login_bb_credit, now + w + rd.delay(bp, c.target))
        } else {
            (target.receive_buffers, now + 2 * w + rd.trip())
        };
        let credit_at = rrdy_at_bridge + sw + rs.delay(bp, c.opener);
        let path = TenancyPath {
            credit: rs.trip() + rd.trip() + 2 * sw + w,
            deliver: rs.delay(c.opener, bp) + sw + rd.delay(bp, c.target),
            close: rs.trip() + rd.trip() + 2 * sw + 2 * w,
        };
        self.counters.circuits += 1;
        j.rings[src as usize].connect(credit_at, n, path, cx);
        (c.xid, credit_at)
    }

    /// A phase's frames reached the end of a tenancy on loop `l`, for port
    /// `dp` of loop `dl`: over a circuit they are at the remote target,
    /// whose CLS will release the remote loop; a packet-switched bridge has
    /// stored them, and they go into the switch.
    #[allow(clippy::too_many_arguments)]
    pub fn delivered(
        &mut self,
        cx: &mut impl BridgeContext,
        j: &mut Join,
        l: u32,
        (dl, dp): (u32, u32),
        xid: u32,
        phase: Phase,
        bytes: u32,
        frames: u32,
    ) {
        match self.switching {
            Switching::Circuit => {
                let r = j.rings[dl as usize].timing();
                let at = cx.now() + 2 * r.word + r.delay(dp, self.port);
                j.rings[dl as usize].release_at(at, false, cx);
            }
            Switching::Packet => {
                let c = Crossing {
                    xid,
                    phase: Some(phase),
                    bytes,
                    frames,
                    src: l,
                    opener: 0,
                    dst: dl,
                    target: dp,
                    ..Crossing::default()
                };
                let seg = self.segments.insert(c);
                self.counters.segments += 1;
                self.bridges[l as usize].pending.push_back(seg);
                self.admit(cx, j, l);
            }
        }
    }

    /// Whether phases that cross the switch arrive at their target in the
    /// opener's own tenancy (a circuit) rather than stored by the bridges.
    pub fn circuits(&self) -> bool {
        self.switching == Switching::Circuit
    }

    /// A tenancy of loop `l` for a phase crossing the switch closed: a
    /// circuit's CLS frees both switch ports; a remote bridge that
    /// delivered a stored phase of `frames` frames gives its buffers back
    /// to the switch as credit and lets waiting requests in.
    pub fn closed(&mut self, cx: &mut impl BridgeContext, j: &mut Join, l: u32, c: &Closed, frames: u32) {
        if c.opener != self.port {
            if self.switching == Switching::Circuit {
                let b = &mut self.bridges[l as usize];
                let dst = b.outbound.take().expect("a circuit ends").dst;
                let conn = b.connection.take().expect("a circuit has its connection");
                self.bridges[dst as usize].inbound = None;
                release(j, conn);
            }
            return;
        }
        let b = &mut self.bridges[l as usize];
        b.free_in += frames;
        let link = *b.sender.link();
        for _ in 0..frames {
            link.return_credit(cx);
        }
        // Requests waiting for this bridge's buffers, from the next loop on.
        let loops = self.bridges.len() as u32;
        for k in 1..loops {
            let src = (l + k) % loops;
            if self.bridges[src as usize].pending.front().is_some_and(|&s| self.segments.get(s).dst == l) {
                self.admit(cx, j, src);
            }
        }
    }

    /// Handles one of the bridges' own events.
    pub fn handle(&mut self, cx: &mut impl BridgeContext, j: &mut Join, l: u32, ev: BridgeEvent) {
        let now = cx.now();
        match ev {
            BridgeEvent::Intercept => {
                // A class 1 connect request for the remote bridge's port.
                let c = self.bridges[l as usize].outbound.expect("an intercepted open");
                j.exchanges[c.xid].switch_requests += 1;
                let conn = j.sh.connections.open(l, c.dst, now);
                let message = j.sh.messages.insert(Message {
                    src: l,
                    dst: c.dst,
                    frames: 1,
                    t_created: now,
                    connection: conn,
                    ..Message::default()
                });
                let bytes = j.sh.timing.header_bytes;
                let frame = new_frame(now, j.sh, (l, c.dst), bytes, message, true);
                let b = &mut self.bridges[l as usize];
                b.connection = Some(conn);
                b.connect_message = Some(message);
                b.queue.push_back(frame);
                self.pump(cx, j.sh, l);
            }
            BridgeEvent::Connect { frame } => {
                // The connection holds both ports: open this loop for the initiator's phase.
                let f = *j.sh.frames.get(frame);
                j.sh.frames.remove(frame);
                j.sh.messages.remove(f.message);
                self.bridges[f.src as usize].connect_message = None;
                let link = *self.bridges[l as usize].sender.link();
                link.return_credit(cx);
                let from = f.src;
                let c = self.bridges[from as usize].outbound.expect("a circuit being connected");
                self.bridges[l as usize].inbound = Some(from);
                let phase = c.phase.expect("a phase");
                let job = Job { xid: c.xid, phase, bytes: c.bytes, target: c.target, queued_at: now, external: true };
                j.rings[l as usize].enqueue(self.port, job, cx);
            }
            BridgeEvent::TransmitDone => {
                let b = &mut self.bridges[l as usize];
                b.sender.sent();
                if b.sending_stored {
                    // A stored frame's tail has left: its buffer is free.
                    b.free_out += 1;
                }
                self.pump(cx, j.sh, l);
            }
            BridgeEvent::Arrived { seg } => {
                let c = *self.segments.get(seg);
                self.segments.remove(seg);
                let phase = c.phase.expect("a phase");
                let job = Job { xid: c.xid, phase, bytes: c.bytes, target: c.target, queued_at: now, external: false };
                j.rings[c.dst as usize].enqueue(self.port, job, cx);
            }
        }
    }

    /// The first byte of `frame` reaches loop `l`'s bridge from the switch.
    pub fn on_frame(&mut self, cx: &mut impl BridgeContext, sh: &mut Shared, l: u32, frame: u32) {
        let f = *sh.frames.get(frame);
        let tail = cx.now() + sh.timing.frame_time(f.bytes);
        if f.connect {
            cx.push(tail, l, BridgeEvent::Connect { frame });
            return;
        }
        sh.frames.remove(frame);
        let c = self.segments.get_mut(f.message);
        c.received += 1;
        if c.received == c.frames {
            cx.push(tail, l, BridgeEvent::Arrived { seg: f.message });
        }
    }

    /// The switch port freed a buffer of loop `l`'s bridge (R_RDY).
    pub fn on_credit(&mut self, cx: &mut impl BridgeContext, sh: &Shared, l: u32) {
        self.bridges[l as usize].sender.credit_returned();
        self.pump(cx, sh, l);
    }

    /// F_BSY: the bridge's CLS reaches the opener, which answers with its own.
    pub fn refused(&mut self, cx: &mut impl BridgeContext, j: &mut Join, connection: u32) {
        let now = cx.now();
        let l = j.sh.connections.get(connection).src;
        release(j, connection);
        let b = &mut self.bridges[l as usize];
        b.connection = None;
        let message = b.connect_message.take().expect("a refused request has its message");
        let c = b.outbound.take().expect("a refused open");
        j.sh.messages.remove(message);
        self.counters.refused_circuits += 1;
        j.exchanges[c.xid].retries += 1;
        let t = j.rings[l as usize].timing();
        let at = now + t.delay(self.port, c.opener) + t.word;
        j.rings[l as usize].release_at(at, true, cx);
    }

    /// Packet: bridge `l` asks, for its stored phases in order, the remote
    /// bridge for buffers for a whole phase; each one granted has its frames
    /// queued for the switch. A refusal (the remote bridge has too few free
    /// buffers) holds this bridge's later phases back, so a read's status
    /// never overtakes its data; the request stands, and is granted (its
    /// second attempt) when the remote bridge has delivered enough.
    fn admit(&mut self, cx: &mut impl BridgeContext, j: &mut Join, l: u32) {
        while let Some(&seg) = self.bridges[l as usize].pending.front() {
            let c = *self.segments.get(seg);
            let d = &mut self.bridges[c.dst as usize];
            let fits = d.free_in >= c.frames;
            if fits {
                d.free_in -= c.frames;
            }
            if !c.refused {
                let ex = &mut j.exchanges[c.xid];
                ex.switch_requests += 1;
                if !fits {
                    self.counters.refused_segments += 1;
                    ex.retries += 1;
                    ex.switch_requests += 1;
                    self.segments.get_mut(seg).refused = true;
                }
            }
            if !fits {
                return;
            }
            self.bridges[l as usize].pending.pop_front();
            let phase = c.phase.expect("a phase");
            let t = j.rings[0].timing();
            for k in 0..c.frames {
                let payload = if phase == Phase::Data { t.payload_of(c.bytes, k) } else { phase.control_bytes() };
                let bytes = payload + j.sh.timing.header_bytes;
                let frame = new_frame(cx.now(), j.sh, (l, c.dst), bytes, seg, false);
                self.bridges[l as usize].queue.push_back(frame);
            }
            self.pump(cx, j.sh, l);
        }
    }

    /// Bridge `l` sends its next frame into the switch if its fibre is free
    /// and its switch port has a buffer.
    fn pump(&mut self, cx: &mut impl BridgeContext, sh: &Shared, l: u32) {
        let b = &mut self.bridges[l as usize];
        if !b.sender.ready() {
            return;
        }
        let Some(frame) = b.queue.pop_front() else { return };
        let f = sh.frames.get(frame);
        b.sending_stored = !f.connect;
        self.counters.switch_frames += 1;
        b.sender.send(cx, l, BridgeEvent::TransmitDone, frame, sh.timing.frame_time(f.bytes));
    }

    /// Circuits that hold their opener's loop `l` while waiting for their
    /// remote loop: (l, remote loop, the circuit), for a wait-for graph.
    pub fn circuit_waits(&self) -> impl Iterator<Item = (u32, Crossing)> + '_ {
        self.bridges.iter().enumerate().filter_map(|(l, b)| match (b.outbound, b.connection) {
            (Some(c), Some(_)) => Some((l as u32, c)),
            _ => None,
        })
    }

    /// Loop `l`'s circuit request, while it stands.
    pub fn outbound(&self, l: u32) -> Option<Crossing> {
        self.bridges[l as usize].outbound
    }
}

/// Frees the ports circuit `conn` holds at the switch; the record goes.
fn release(j: &mut Join, conn: u32) {
    let switch = &mut *j.switch;
    j.sh.connections.tear_down(conn, |_, i, o| switch.release(conn, i as usize, o as usize));
}

/// A frame for the switch from bridge `src` to bridge `dst`: a phase's
/// (`carried` its segment) or a connect request (`carried` its message).
fn new_frame(now: Time, sh: &mut Shared, (src, dst): (u32, u32), bytes: u32, carried: u32, connect: bool) -> u32 {
    sh.frames.insert(Frame {
        kind: FrameKind::Data,
        src,
        dst,
        bytes,
        message: carried,
        connect,
        t_inject: now,
        t_created: now,
        ..Frame::default()
    })
}
