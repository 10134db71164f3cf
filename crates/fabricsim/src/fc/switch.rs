//! The 16-port Fibre Channel switch of the HP study (seed 000, section 2).
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

use std::collections::VecDeque;

use super::connection::{ConnectionId, MAX_HOPS, NO_CONNECTION};
use super::fabric::{Ctx, Event};
use super::frame::FrameId;
use crate::kernel::{RandomStream, Time};
use crate::scenario::fc::Arbitration;
use crate::sim::{ComponentKind, Link, PortRef};

const NO_FRAME: FrameId = FrameId::MAX;

struct InputPort {
    /// Back to whoever feeds this input: where its buffer credits go.
    peer: Option<Link>,
    buffers_used: u32,
    /// Frames whose header has arrived but that the router has not read yet.
    unrouted: VecDeque<FrameId>,
    /// The crossbar is moving a frame out of this port's buffers.
    in_crossbar: bool,
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
    queue: VecDeque<FrameId>,
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
    router_busy: bool,
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

impl FcSwitch {
    /// A switch whose port `i` is wired by the link `peers[i]` (None: unused);
    /// `forwarding[n]` lists the output ports towards terminal node `n`;
    /// `peer_buffers` is the buffer pool of a buffering peer's input port;
    /// `seed` feeds the random trunk choice.
    pub fn new(
        id: u32,
        peers: &[Option<Link>],
        buffers_per_port: u32,
        peer_buffers: u32,
        forwarding: &[Vec<u16>],
        arbitration: Arbitration,
        seed: u64,
    ) -> Self {
        let queue_capacity = peers.len() * buffers_per_port as usize;
        let inputs = peers
            .iter()
            .map(|&peer| InputPort {
                peer,
                buffers_used: 0,
                unrouted: VecDeque::with_capacity(buffers_per_port as usize),
                in_crossbar: false,
                held_by: NO_CONNECTION,
            })
            .collect();
        let outputs = peers
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
        FcSwitch {
            id,
            buffers_per_port,
            inputs,
            outputs,
            router_busy: false,
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
    #[inline]
    fn output_for(&mut self, dst: u32) -> usize {
        let (start, count) = self.forwarding[dst as usize];
        let k = if count == 1 { 0 } else { self.trunk_rng.below(count) };
        self.forwarding_ports[(start + k) as usize] as usize
    }

    /// Edges of the wait-for graph between full trunk input ports: input `i`
    /// here waits for the input at the far end of output `o` when a frame
    /// that came in on `i` is queued for `o` and `o` has no buffer credit.
    pub fn blocked_trunk_waits(
        &self,
        frames: &crate::kernel::Arena<super::frame::Frame>,
    ) -> Vec<((u32, u16), (u32, u16))> {
        let mut edges = Vec::new();
        for out in &self.outputs {
            let Some(to) = out.peer.map(|l| l.to).filter(|to| to.kind == ComponentKind::Switch) else { continue };
            if out.credit > 0 {
                continue;
            }
            for &f in &out.queue {
                let i = frames[f].in_port as usize;
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

    /// A connect request cannot have its path: drop it (F_BSY) and free its
    /// buffer; the source hears of it after the busy frame's trip back.
    fn refuse_connect(&mut self, ctx: &mut Ctx, o: usize, frame: FrameId, conn: ConnectionId) {
        self.outputs[o].queue.pop_front();
        self.free_buffer(ctx, ctx.frames[frame].in_port as usize);
        ctx.frames.remove(frame);
        ctx.metrics.counters.data_frames_refused += 1;
        // The F_BSY frame goes back hop by hop, taking in a header and being
        // routed at each switch, without queueing.
        let hops = ctx.connections[conn].hops as u64 + 1;
        let back =
            hops * (ctx.timing.header_time + ctx.timing.route_time + ctx.timing.propagation) + ctx.timing.ack_time;
        ctx.queue.push(ctx.now + back, Event::ConnectRefused { connection: conn });
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

    /// Frames queued in the scheduler table for output `port`.
    pub fn queued(&self, port: usize) -> usize {
        self.outputs[port].queue.len()
    }

    /// The first byte of `frame` reaches input `port`: it takes a buffer.
    pub fn on_frame_start(&mut self, ctx: &mut Ctx, port: usize, frame: FrameId) {
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
        ctx.metrics.buffers_changed(ctx.now, self.id, port, used, 1);
        let f = &mut ctx.frames[frame];
        f.in_port = port as u16;
        f.t_tail_in = ctx.now + ctx.timing.frame_time(f.bytes);
        ctx.queue
            .push(ctx.now + ctx.timing.header_time, Event::HeaderArrived { switch: self.id, port: port as u16, frame });
    }

    /// The header of `frame` is complete at input `port`: it may be routed.
    pub fn on_header_arrived(&mut self, ctx: &mut Ctx, port: usize, frame: FrameId) {
        self.inputs[port].unrouted.push_back(frame);
        if !self.router_busy {
            self.start_routing(ctx);
        }
    }

    /// The router has read a header: enqueue the frame for its output.
    pub fn on_route_done(&mut self, ctx: &mut Ctx) {
        let (port, frame) = self.routing;
        self.router_busy = false;
        self.headers_routed += 1;
        self.router_next = (port + 1) % self.inputs.len();
        let out = self.output_for(ctx.frames[frame].dst);
        ctx.frames[frame].t_queued = ctx.now;
        self.outputs[out].queue.push_back(frame);
        self.start_routing(ctx);
        self.schedule(ctx);
    }

    /// The tail of the frame crossing to output `port` has left the switch.
    pub fn on_transfer_done(&mut self, ctx: &mut Ctx, port: usize) {
        let out = &mut self.outputs[port];
        let frame = out.sending;
        out.sending = NO_FRAME;
        let out_peer = out.peer;
        let in_port = out.sending_from as usize;
        self.inputs[in_port].in_crossbar = false;
        self.free_buffer(ctx, in_port);
        // A terminal receiver has the frame once its tail is in; a buffering
        // one was told of its head when the transfer started.
        match out_peer {
            Some(link) if !link.credited() => link.send_tail(ctx, frame, ctx.now),
            _ => {}
        }
        self.schedule(ctx);
    }

    /// Frees a receive buffer of input `port` and returns it to whoever feeds
    /// that input as a buffer-to-buffer credit (R_RDY).
    fn free_buffer(&mut self, ctx: &mut Ctx, port: usize) {
        let input = &mut self.inputs[port];
        input.buffers_used -= 1;
        ctx.metrics.buffers_changed(ctx.now, self.id, port, input.buffers_used, -1);
        let link = input.peer.expect("a frame arrived on an unconnected port");
        link.return_credit(ctx, ctx.now);
    }

    /// A trunk peer freed one of its buffers: output `port` may send again.
    pub fn on_credit(&mut self, ctx: &mut Ctx, port: usize) {
        self.outputs[port].credit += 1;
        self.schedule(ctx);
    }

    /// Cyclic polling: read the first unrouted header at or after `router_next`.
    fn start_routing(&mut self, ctx: &mut Ctx) {
        let n = self.inputs.len();
        for k in 0..n {
            let port = (self.router_next + k) % n;
            if let Some(frame) = self.inputs[port].unrouted.pop_front() {
                self.router_busy = true;
                self.routing = (port, frame);
                ctx.queue.push(ctx.now + ctx.timing.route_time, Event::RouteDone { switch: self.id });
                return;
            }
        }
    }

    /// Starts every crossbar transfer the three constraints allow. Where
    /// heads of several outputs wait for the same input, the arbitration
    /// decides: outputs in a rotating order (so none is favoured), or the
    /// head queued first.
    fn schedule(&mut self, ctx: &mut Ctx) {
        let n = self.outputs.len();
        let start = self.scheduler_next;
        self.scheduler_next = (start + 1) % n;
        match self.arbitration {
            Arbitration::Rotating => {
                for k in 0..n {
                    self.try_start(ctx, (start + k) % n);
                }
            }
            Arbitration::Oldest => {
                let mut candidates = std::mem::take(&mut self.candidates);
                candidates.clear();
                for k in 0..n {
                    let o = (start + k) % n;
                    if let Some(frame) = self.startable_head(ctx, o) {
                        candidates.push((ctx.frames[frame].t_queued, o as u16));
                    }
                }
                // Stable: equal ages keep the rotating order.
                candidates.sort_by_key(|&(t, _)| t);
                for &(_, o) in &candidates {
                    self.try_start(ctx, o as usize);
                }
                self.candidates = candidates;
            }
        }
    }

    /// The head of output `o`'s queue if the output is free, has credit, and
    /// the head's input is not busy in the crossbar.
    #[inline]
    fn startable_head(&self, ctx: &Ctx, o: usize) -> Option<FrameId> {
        let out = &self.outputs[o];
        if out.sending != NO_FRAME || out.credit == 0 {
            return None;
        }
        let &frame = out.queue.front()?;
        // Head-of-line blocked while its input is busy elsewhere.
        (!self.inputs[ctx.frames[frame].in_port as usize].in_crossbar).then_some(frame)
    }

    /// Starts the transfer at the head of output `o`, if it can start now.
    fn try_start(&mut self, ctx: &mut Ctx, o: usize) {
        let Some(frame) = self.startable_head(ctx, o) else { return };
        let f = ctx.frames[frame];
        let i = f.in_port as usize;
        if f.connect && !self.reserve(ctx, i, o, frame, ctx.messages[f.message].connection) {
            return;
        }
        let out = &mut self.outputs[o];
        self.inputs[i].in_crossbar = true;
        out.queue.pop_front();
        out.sending = frame;
        out.sending_from = f.in_port;
        // Equal port rates make the tail arrive before it must leave; the
        // max keeps cut-through honest should rates ever differ.
        let end = (ctx.now + ctx.timing.frame_time(f.bytes)).max(f.t_tail_in);
        ctx.queue.push(end, Event::TransferDone { switch: self.id, port: o as u16 });
        ctx.metrics.output_busy(end - ctx.now, out.trunk);
        if out.credited {
            out.credit -= 1;
            if let Some(link) = out.peer {
                link.send_head(ctx, frame, ctx.now);
            }
        }
    }

    /// A class 1 connect request at the head of output `o`'s queue: reserve
    /// ports `i` and `o` in both directions (data i -> o, ACKs o -> i) for
    /// its connection, or refuse it when another connection holds either.
    fn reserve(&mut self, ctx: &mut Ctx, i: usize, o: usize, frame: FrameId, conn: ConnectionId) -> bool {
        let free = |held: ConnectionId| held == NO_CONNECTION || held == conn;
        let path_free = free(self.outputs[o].held_by)
            && free(self.inputs[o].held_by)
            && free(self.inputs[i].held_by)
            && free(self.outputs[i].held_by)
            && (ctx.connections[conn].hops as usize) < MAX_HOPS;
        if !path_free {
            self.refuse_connect(ctx, o, frame, conn);
            return false;
        }
        self.inputs[i].held_by = conn;
        self.inputs[o].held_by = conn;
        self.outputs[o].held_by = conn;
        self.outputs[i].held_by = conn;
        let c = &mut ctx.connections[conn];
        c.path[c.hops as usize] = (self.id, i as u16, o as u16);
        c.hops += 1;
        true
    }
}
