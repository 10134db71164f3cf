//! The 16-port Fibre Channel switch of the HP study (hp-fc-1995, section 2).
//!
//! Each input port has a pool of receive buffers. A router polls the input
//! ports cyclically and, for the first unrouted frame whose header has
//! arrived, spends `route_time` reading the header into the scheduler table:
//! one FIFO queue per output port. The scheduler moves frames through a
//! crossbar under the study's three constraints: at most one frame from each
//! input port at a time, at most one frame to each output port at a time,
//! and only the head of an output queue may move (head-of-line blocking).
//! Frames cut through: a transfer may start once the header is in and routed,
//! while the tail is still arriving. A receive buffer is freed when the
//! frame's tail leaves it, and the freed buffer is returned to the sender of
//! that input port as a buffer-to-buffer credit (R_RDY).
//!
//! A header's arrival is an event only when it finds the router idle: at
//! the frame's start the switch takes the key the arrival event would have
//! (`reserve_key`) and files the frame under it; a busy router counts a
//! header as in once that key lies behind the event being handled, and an
//! idle one is woken under the earliest such key. So the router sees
//! exactly the headers it would with an event per header, in the same order.
//!
//! The scheduler keeps, as bit sets, the outputs that are free, those with
//! credit and those whose queue's head comes from an input not busy in the
//! crossbar (per input, the outputs whose head it holds), and the inputs
//! with unrouted headers: a pass tries only the outputs in all three sets,
//! in the rotating order a pass over every output would take, and the
//! router finds its next port the same way. A transfer or a refusal never
//! makes another output startable, so the set taken at the start of a pass
//! holds every output the full pass could start.

use std::collections::VecDeque;

use super::connection::{ConnectionId, Refusal, NO_CONNECTION};
use super::frame::{Frame, FrameId};
use super::port_set::{PortSet, MAX_PORTS};
use super::shared::Shared;
use crate::kernel::{RandomStream, Time};
use crate::scenario::fc::Arbitration;
use crate::sim::{ComponentKind, Deferred, Delivery, Link, PortRef, Schedule};

/// The switch's own events, carried with its index. Frames and credits
/// reach it over its links ([`Delivery`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchEvent {
    /// The earliest header not yet in reaches the idle router.
    HeaderArrived,
    /// The router has read a header.
    RouteDone,
    /// The last byte of the frame crossing to output `port` has left.
    TransferDone { port: u16 },
}

/// What a switch schedules: its own events, frames and credits over its
/// links, and the refusal of a class 1 connect request.
pub trait SwitchContext: Schedule<SwitchEvent> + Schedule<Delivery> + Schedule<Refusal> {}
impl<C: Schedule<SwitchEvent> + Schedule<Delivery> + Schedule<Refusal>> SwitchContext for C {}

const NO_FRAME: FrameId = FrameId::MAX;
/// No pending wake, no unrouted header.
const NO_KEY: Deferred = Deferred::NEVER;

/// A frame in an output's queue of the scheduler table, with the input
/// whose buffer holds it (so a pass need not read the frame).
#[derive(Clone, Copy, Debug)]
struct Queued {
    frame: FrameId,
    input: u16,
}

struct InputPort {
    /// Back to whoever feeds this input: where its buffer credits go.
    peer: Option<Link>,
    buffers_used: u32,
    /// Frames the router has not read yet, each with its header's arrival:
    /// those that have happened by the current event are in.
    unrouted: VecDeque<(Deferred, FrameId)>,
    /// The first one's header (NO_KEY: none), for the router's poll.
    next_header: Deferred,
    /// Class 1 connection holding this port's receive side, if any.
    held_by: ConnectionId,
}

struct OutputPort {
    peer: Option<Link>,
    /// The far end buffers frames in flight (needs credit, hears of the head).
    credited: bool,
    /// The far end is another switch (a trunk), for link utilization.
    trunk: bool,
    /// This output's queue of the scheduler table.
    queue: VecDeque<Queued>,
    /// Frame crossing the crossbar to this output, or NO_FRAME.
    sending: FrameId,
    /// Input port that frame is leaving (the frame's own `in_port` moves on
    /// to the next switch as soon as its head gets there).
    sending_from: u16,
    /// Free receive buffers at the peer; unbounded for terminal receivers.
    credit: u32,
    /// Class 1 connection holding this port's send side, if any.
    held_by: ConnectionId,
}

pub struct FcSwitch {
    pub id: u32,
    buffers_per_port: u32,
    inputs: Vec<InputPort>,
    outputs: Vec<OutputPort>,
    /// Outputs not sending, and outputs with credit.
    idle: PortSet,
    credited: PortSet,
    /// Outputs whose queue's head comes from an input not in the crossbar.
    head_ready: PortSet,
    /// Per input, the outputs whose queue's head it holds.
    heads_from: Vec<PortSet>,
    /// Inputs moving a frame through the crossbar.
    in_crossbar: PortSet,
    /// Inputs with frames the router has not read (their headers in or not).
    unrouted: PortSet,
    router_busy: bool,
    /// The pending event waking the idle router, or NO_KEY.
    router_wake: Deferred,
    /// Next port the router polls.
    router_next: usize,
    /// (input port, frame) the router is reading.
    routing: (usize, FrameId),
    /// First output the scheduler considers on its next pass (rotating priority).
    scheduler_next: usize,
    arbitration: Arbitration,
    /// Oldest-first arbitration: (head's queueing time, output) of the
    /// outputs that could start, reused from pass to pass.
    candidates: Vec<(Time, u16)>,
    /// Candidate output ports towards each terminal node, as (start, count)
    /// into `forwarding_ports`; several candidates are drawn from per frame.
    forwarding: Vec<(u32, u32)>,
    forwarding_ports: Vec<u16>,
    trunk_rng: RandomStream,
    /// Headers the router has read (its busy time is this times the router time).
    pub headers_routed: u64,
}

/// How a switch is built: its ports' far ends, buffers and forwarding.
pub struct FcSwitchSpec<'a> {
    pub id: u32,
    /// The link on each port (None: unused).
    pub peers: &'a [Option<Link>],
    pub buffers_per_port: u32,
    /// The buffer pool of a buffering peer's input port.
    pub peer_buffers: u32,
    /// `forwarding[n]`: the output ports towards terminal node `n`.
    pub forwarding: &'a [Vec<u16>],
    pub arbitration: Arbitration,
    /// Feeds the random trunk choice.
    pub seed: u64,
}

impl FcSwitch {
    pub fn new(spec: FcSwitchSpec) -> Self {
        let FcSwitchSpec { id, peers, buffers_per_port, peer_buffers, forwarding, arbitration, seed } = spec;
        assert!(peers.len() <= MAX_PORTS, "a switch has at most {MAX_PORTS} ports");
        let queue_capacity = peers.len() * buffers_per_port as usize;
        let inputs = peers
            .iter()
            .map(|&peer| InputPort {
                peer,
                buffers_used: 0,
                unrouted: VecDeque::with_capacity(buffers_per_port as usize),
                next_header: NO_KEY,
                held_by: NO_CONNECTION,
            })
            .collect();
        let outputs: Vec<OutputPort> = peers
            .iter()
            .map(|&peer| OutputPort {
                peer,
                credited: peer.is_some_and(|l| l.credited()),
                trunk: peer.is_some_and(|l| l.to.kind == ComponentKind::Switch),
                queue: VecDeque::with_capacity(queue_capacity),
                sending: NO_FRAME,
                sending_from: 0,
                credit: match peer {
                    Some(link) if link.credited() => peer_buffers,
                    Some(_) => u32::MAX,
                    None => 0,
                },
                held_by: NO_CONNECTION,
            })
            .collect();
        let (mut idle, mut credited) = (PortSet::default(), PortSet::default());
        for (o, out) in outputs.iter().enumerate() {
            idle.insert(o);
            if out.credit > 0 {
                credited.insert(o);
            }
        }
        FcSwitch {
            id,
            buffers_per_port,
            inputs,
            outputs,
            idle,
            credited,
            head_ready: PortSet::default(),
            heads_from: vec![PortSet::default(); peers.len()],
            in_crossbar: PortSet::default(),
            unrouted: PortSet::default(),
            router_busy: false,
            router_wake: NO_KEY,
            router_next: 0,
            routing: (0, NO_FRAME),
            scheduler_next: 0,
            arbitration,
            candidates: Vec::with_capacity(peers.len()),
            forwarding: forwarding
                .iter()
                .scan(0u32, |start, ports| {
                    let entry = (*start, ports.len() as u32);
                    *start += ports.len() as u32;
                    Some(entry)
                })
                .collect(),
            forwarding_ports: forwarding.iter().flatten().copied().collect(),
            trunk_rng: RandomStream::new(seed, "routing.trunks", id as u64),
            headers_routed: 0,
        }
    }

    /// The output port for a frame to terminal node `dst`: the table's only
    /// entry, or one drawn uniformly (randomized trunk choice).
    #[inline(always)]
    fn output_for(&mut self, dst: u32) -> usize {
        let (start, count) = self.forwarding[dst as usize];
        let k = if count == 1 { 0 } else { self.trunk_rng.below(count) };
        self.forwarding_ports[(start + k) as usize] as usize
    }

    /// Edges of the wait-for graph between full trunk input ports: input `i`
    /// here waits for the input at the far end of output `o` when a frame
    /// that came in on `i` is queued for `o` and `o` has no buffer credit.
    pub fn blocked_trunk_waits(&self) -> Vec<((u32, u16), (u32, u16))> {
        let mut edges = Vec::new();
        for out in &self.outputs {
            let Some(to) = out.peer.map(|l| l.to).filter(|to| to.kind == ComponentKind::Switch) else { continue };
            if out.credit > 0 {
                continue;
            }
            for q in &out.queue {
                let i = q.input as usize;
                let input = &self.inputs[i];
                if input.peer.is_some_and(|l| l.to.kind == ComponentKind::Switch)
                    && input.buffers_used == self.buffers_per_port
                {
                    edges.push(((self.id, i as u16), (to.index, to.port)));
                }
            }
        }
        edges
    }

    /// Releases the ports a connection reserved here (teardown or refusal).
    pub fn release(&mut self, conn: ConnectionId, input: usize, output: usize) {
        let clear = |held: &mut ConnectionId| {
            if *held == conn {
                *held = NO_CONNECTION;
            }
        };
        for port in [input, output] {
            clear(&mut self.inputs[port].held_by);
            clear(&mut self.outputs[port].held_by);
        }
    }

    /// The far end of input `port`.
    pub fn input_peer(&self, port: usize) -> Option<PortRef> {
        self.inputs[port].peer.map(|l| l.to)
    }

    pub fn ports(&self) -> usize {
        self.inputs.len()
    }

    /// Output ports wired to another switch.
    pub fn trunk_ports(&self) -> usize {
        self.outputs.iter().filter(|o| o.peer.is_some_and(|l| l.to.kind == ComponentKind::Switch)).count()
    }

    /// Output ports wired to terminal nodes.
    pub fn node_ports(&self) -> usize {
        self.outputs.iter().filter(|o| o.peer.is_some_and(|l| l.to.kind == ComponentKind::Node)).count()
    }

    /// Receive buffers in use at input port `port`.
    pub fn buffers_used(&self, port: usize) -> u32 {
        self.inputs[port].buffers_used
    }

    /// Handles one of the switch's own events.
    #[inline]
    pub fn handle(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, ev: SwitchEvent) {
        match ev {
            SwitchEvent::HeaderArrived => {
                self.router_wake = NO_KEY;
                self.start_routing(cx, sh);
            }
            SwitchEvent::RouteDone => self.on_route_done(cx, sh),
            SwitchEvent::TransferDone { port } => self.on_transfer_done(cx, sh, port as usize),
        }
    }

    /// The first byte of `frame` reaches input `port`: it takes a buffer,
    /// and its header will be in a header time later.
    pub fn on_frame_start(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, port: usize, frame: FrameId) {
        let now = cx.now();
        let input = &mut self.inputs[port];
        input.buffers_used += 1;
        assert!(
            input.buffers_used <= self.buffers_per_port,
            "switch {} port {port}: buffer overrun ({} > {})",
            self.id,
            input.buffers_used,
            self.buffers_per_port
        );
        let used = input.buffers_used;
        sh.metrics.buffers_changed(now, self.id, port, used, 1);
        let f = sh.frames.get_mut(frame);
        f.in_port = port as u16;
        f.t_tail_in = now + sh.timing.frame_time(f.bytes);
        let header_in = Deferred::reserve(cx, now + sh.timing.header_time);
        let input = &mut self.inputs[port];
        if input.unrouted.is_empty() {
            input.next_header = header_in;
        }
        input.unrouted.push_back((header_in, frame));
        self.unrouted.insert(port);
        if !self.router_busy && self.router_wake == NO_KEY {
            self.wake_router(cx, header_in);
        }
    }

    /// Wakes the idle router when `header` is in.
    #[inline]
    fn wake_router(&mut self, cx: &mut impl SwitchContext, header: Deferred) {
        self.router_wake = header;
        header.schedule(cx, self.id, SwitchEvent::HeaderArrived);
    }

    /// The router has read a header: enqueue the frame for its output.
    fn on_route_done(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared) {
        let (port, frame) = self.routing;
        self.router_busy = false;
        self.headers_routed += 1;
        self.router_next = if port + 1 == self.inputs.len() { 0 } else { port + 1 };
        let f = sh.frames.get_mut(frame);
        let out = self.output_for(f.dst);
        f.t_queued = cx.now();
        let queue = &mut self.outputs[out].queue;
        queue.push_back(Queued { frame, input: port as u16 });
        if queue.len() == 1 {
            self.new_head(out);
        }
        self.start_routing(cx, sh);
        self.schedule(cx, sh);
    }

    /// The tail of the frame crossing to output `port` has left the switch.
    fn on_transfer_done(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, port: usize) {
        let out = &mut self.outputs[port];
        let frame = out.sending;
        out.sending = NO_FRAME;
        self.idle.insert(port);
        let out_peer = out.peer;
        let in_port = out.sending_from as usize;
        self.in_crossbar.remove(in_port);
        self.head_ready.union_with(&self.heads_from[in_port]);
        self.free_buffer(cx, sh, in_port);
        // A terminal receiver has the frame once its tail is in; a buffering
        // one was told of its head when the transfer started.
        match out_peer {
            Some(link) if !link.credited() => link.send_tail(cx, frame),
            _ => {}
        }
        self.schedule(cx, sh);
    }

    /// Frees a receive buffer of input `port` and returns it to whoever feeds
    /// that input as a buffer-to-buffer credit (R_RDY), by mail to a
    /// terminal node that takes it so.
    fn free_buffer(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, port: usize) {
        let input = &mut self.inputs[port];
        input.buffers_used -= 1;
        sh.metrics.buffers_changed(cx.now(), self.id, port, input.buffers_used, -1);
        let link = input.peer.expect("a frame arrived on an unconnected port");
        match sh.credit_mail.get_mut(link.to.index as usize) {
            Some(mail) if link.to.kind == ComponentKind::Node => mail.post(cx, link.to.index, link.propagation),
            _ => link.return_credit(cx),
        }
    }

    /// A trunk peer freed one of its buffers: output `port` may send again.
    pub fn on_credit(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, port: usize) {
        self.outputs[port].credit += 1;
        self.credited.insert(port);
        self.schedule(cx, sh);
    }

    /// Cyclic polling: read the first unrouted header in at or after
    /// `router_next`; with none in, sleep until the earliest one is.
    fn start_routing(&mut self, cx: &mut impl SwitchContext, sh: &Shared) {
        let now = cx.current_key();
        let n = self.inputs.len();
        let inputs = &self.inputs;
        let Some(port) = self.unrouted.iter_from(self.router_next, n).find(|&p| inputs[p].next_header.is_by(now))
        else {
            // Headers are keyed in the order their frames started.
            if let Some(next) = self.unrouted.iter_from(0, n).map(|p| inputs[p].next_header).min() {
                self.wake_router(cx, next);
            }
            return;
        };
        let input = &mut self.inputs[port];
        let (_, frame) = input.unrouted.pop_front().expect("a port with unrouted headers");
        input.next_header = input.unrouted.front().map_or(NO_KEY, |&(key, _)| key);
        if input.unrouted.is_empty() {
            self.unrouted.remove(port);
        }
        self.router_busy = true;
        self.routing = (port, frame);
        cx.push(cx.now() + sh.timing.route_time, self.id, SwitchEvent::RouteDone);
    }

    /// Starts every crossbar transfer the three constraints allow. Where
    /// heads of several outputs wait for the same input, the arbitration
    /// decides: outputs in a rotating order (so none is favoured), or the
    /// head queued first.
    fn schedule(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared) {
        let n = self.outputs.len();
        let start = self.scheduler_next;
        self.scheduler_next = if start + 1 == n { 0 } else { start + 1 };
        let ready = PortSet::and3(&self.idle, &self.credited, &self.head_ready);
        if ready.is_empty() {
            return;
        }
        match self.arbitration {
            Arbitration::Rotating => {
                for o in ready.iter_from(start, n) {
                    // A start this pass may have made the head's input busy.
                    if self.head_ready.contains(o) {
                        self.try_start(cx, sh, o);
                    }
                }
            }
            Arbitration::Oldest => {
                let mut candidates = std::mem::take(&mut self.candidates);
                candidates.clear();
                for o in ready.iter_from(start, n) {
                    if let Some(frame) = self.startable_head(o) {
                        candidates.push((sh.frames.get(frame).t_queued, o as u16));
                    }
                }
                // Stable: equal ages keep the rotating order.
                candidates.sort_by_key(|&(t, _)| t);
                for &(_, o) in &candidates {
                    self.try_start(cx, sh, o as usize);
                }
                self.candidates = candidates;
            }
        }
    }

    /// The head of output `o`'s queue if the output is free, has credit, and
    /// the head's input is not busy in the crossbar.
    #[inline]
    fn startable_head(&self, o: usize) -> Option<FrameId> {
        // Head-of-line blocked while its input is busy elsewhere.
        let ready = self.idle.contains(o) && self.credited.contains(o) && self.head_ready.contains(o);
        ready.then(|| self.outputs[o].queue.front().expect("a ready output has a head").frame)
    }

    /// Starts the transfer at the head of output `o`, if it can start now.
    fn try_start(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, o: usize) {
        let Some(frame) = self.startable_head(o) else { return };
        let f: &Frame = sh.frames.get(frame);
        let (i, bytes, t_tail_in) = (f.in_port as usize, f.bytes, f.t_tail_in);
        if f.connect {
            let conn = sh.messages.get(f.message).connection;
            if !self.reserve(cx, sh, i, o, frame, conn) {
                return;
            }
        }
        let now = cx.now();
        self.in_crossbar.insert(i);
        self.head_ready.subtract(&self.heads_from[i]);
        self.idle.remove(o);
        self.pop_head(o);
        let out = &mut self.outputs[o];
        out.sending = frame;
        out.sending_from = i as u16;
        // Equal port rates make the tail arrive before it must leave; the
        // max keeps cut-through honest should rates ever differ.
        let end = (now + sh.timing.frame_time(bytes)).max(t_tail_in);
        cx.push(end, self.id, SwitchEvent::TransferDone { port: o as u16 });
        sh.metrics.output_busy(end - now, out.trunk);
        if out.credited {
            out.credit -= 1;
            if out.credit == 0 {
                self.credited.remove(o);
            }
            if let Some(link) = out.peer {
                link.send_head(cx, frame);
            }
        }
    }

    /// Takes the head off output `o`'s queue; returns the input it came from.
    #[inline]
    fn pop_head(&mut self, o: usize) -> usize {
        let head = self.outputs[o].queue.pop_front().expect("a queued head");
        self.heads_from[head.input as usize].remove(o);
        self.head_ready.remove(o);
        if !self.outputs[o].queue.is_empty() {
            self.new_head(o);
        }
        head.input as usize
    }

    /// Output `o`'s queue has a new head: note its input, and whether that
    /// input is free.
    #[inline]
    fn new_head(&mut self, o: usize) {
        let i = self.outputs[o].queue.front().expect("a queued head").input as usize;
        self.heads_from[i].insert(o);
        if !self.in_crossbar.contains(i) {
            self.head_ready.insert(o);
        }
    }

    /// A class 1 connect request at the head of output `o`'s queue: reserve
    /// ports `i` and `o` in both directions (data i -> o, ACKs o -> i) for
    /// its connection, or refuse it when another connection holds either.
    fn reserve(
        &mut self,
        cx: &mut impl SwitchContext,
        sh: &mut Shared,
        i: usize,
        o: usize,
        frame: FrameId,
        conn: ConnectionId,
    ) -> bool {
        let free = |held: ConnectionId| held == NO_CONNECTION || held == conn;
        let path_free = free(self.outputs[o].held_by)
            && free(self.inputs[o].held_by)
            && free(self.inputs[i].held_by)
            && free(self.outputs[i].held_by)
            && !sh.connections.full(conn);
        if !path_free {
            self.refuse_connect(cx, sh, o, frame, conn);
            return false;
        }
        self.inputs[i].held_by = conn;
        self.inputs[o].held_by = conn;
        self.outputs[o].held_by = conn;
        self.outputs[i].held_by = conn;
        sh.connections.reserve_hop(conn, self.id, i as u16, o as u16);
        true
    }

    /// A connect request cannot have its path: drop it (F_BSY) and free its
    /// buffer; the source hears of it after the busy frame's trip back.
    fn refuse_connect(
        &mut self,
        cx: &mut impl SwitchContext,
        sh: &mut Shared,
        o: usize,
        frame: FrameId,
        conn: ConnectionId,
    ) {
        let input = self.pop_head(o);
        self.free_buffer(cx, sh, input);
        sh.frames.remove(frame);
        sh.metrics.counters.data_frames_refused += 1;
        let back = sh.connections.busy_trip(conn, &sh.timing);
        cx.push(cx.now() + back, conn, Refusal);
    }
}
