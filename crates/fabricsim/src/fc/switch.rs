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

use super::fabric::{Ctx, Event};
use super::frame::FrameId;

/// What the far end of a port's fibre is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A terminal node (N_Port): it always has room to receive.
    Node(u32),
    /// Another switch's port (a trunk): sending needs a buffer credit from it.
    Switch { switch: u32, port: u16 },
}

const NO_FRAME: FrameId = FrameId::MAX;

struct InputPort {
    peer: Peer,
    buffers_used: u32,
    /// Frames whose header has arrived but that the router has not read yet.
    unrouted: VecDeque<FrameId>,
    /// The crossbar is moving a frame out of this port's buffers.
    in_crossbar: bool,
}

struct OutputPort {
    peer: Peer,
    /// This output's queue of the scheduler table.
    queue: VecDeque<FrameId>,
    /// Frame crossing the crossbar to this output, or NO_FRAME.
    sending: FrameId,
    /// Free receive buffers at the peer; unbounded for terminal nodes.
    credit: u32,
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
    /// Output port towards each terminal node.
    forwarding: Vec<u16>,
}

impl FcSwitch {
    /// A switch whose port `i` is wired to `peers[i]`; `forwarding[n]` is the
    /// output port towards terminal node `n`; `peer_buffers` is the buffer
    /// pool of a trunk peer's input port.
    pub fn new(id: u32, peers: &[Peer], buffers_per_port: u32, peer_buffers: u32, forwarding: Vec<u16>) -> Self {
        let queue_capacity = peers.len() * buffers_per_port as usize;
        let inputs = peers
            .iter()
            .map(|&peer| InputPort {
                peer,
                buffers_used: 0,
                unrouted: VecDeque::with_capacity(buffers_per_port as usize),
                in_crossbar: false,
            })
            .collect();
        let outputs = peers
            .iter()
            .map(|&peer| OutputPort {
                peer,
                queue: VecDeque::with_capacity(queue_capacity),
                sending: NO_FRAME,
                credit: match peer {
                    Peer::Node(_) => u32::MAX,
                    Peer::Switch { .. } => peer_buffers,
                },
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
            forwarding,
        }
    }

    pub fn ports(&self) -> usize {
        self.inputs.len()
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
        ctx.queue.push(ctx.now + ctx.timing.header_time, Event::HeaderArrived { switch: self.id, port: port as u16, frame });
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
        self.router_next = (port + 1) % self.inputs.len();
        let out = self.forwarding[ctx.frames[frame].dst as usize] as usize;
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
        let in_port = ctx.frames[frame].in_port as usize;
        let input = &mut self.inputs[in_port];
        input.in_crossbar = false;
        input.buffers_used -= 1;
        let used = input.buffers_used;
        let in_peer = input.peer;
        ctx.metrics.buffers_changed(ctx.now, self.id, in_port, used, -1);
        let t = ctx.now + ctx.timing.propagation;
        // The freed buffer goes back to whoever feeds this input (R_RDY).
        match in_peer {
            Peer::Node(node) => ctx.queue.push(t, Event::CreditToNode { node }),
            Peer::Switch { switch, port } => ctx.queue.push(t, Event::CreditToSwitch { switch, port }),
        }
        if let Peer::Node(node) = out_peer {
            ctx.queue.push(t, Event::FrameDelivered { node, frame });
        }
        self.schedule(ctx);
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

    /// Starts every crossbar transfer the three constraints allow, giving
    /// outputs a rotating priority so no output is favoured when two heads
    /// come from the same input port.
    fn schedule(&mut self, ctx: &mut Ctx) {
        let n = self.outputs.len();
        let start = self.scheduler_next;
        self.scheduler_next = (start + 1) % n;
        for k in 0..n {
            let o = (start + k) % n;
            let out = &mut self.outputs[o];
            if out.sending != NO_FRAME || out.credit == 0 {
                continue;
            }
            let Some(&frame) = out.queue.front() else { continue };
            let f = &ctx.frames[frame];
            let input = &mut self.inputs[f.in_port as usize];
            if input.in_crossbar {
                continue; // head-of-line blocked: its input is busy elsewhere
            }
            input.in_crossbar = true;
            out.queue.pop_front();
            out.sending = frame;
            // Equal port rates make the tail arrive before it must leave; the
            // max keeps cut-through honest should rates ever differ.
            let end = (ctx.now + ctx.timing.frame_time(f.bytes)).max(f.t_tail_in);
            ctx.queue.push(end, Event::TransferDone { switch: self.id, port: o as u16 });
            if let Peer::Switch { switch, port } = out.peer {
                out.credit -= 1;
                ctx.queue.push(ctx.now + ctx.timing.propagation, Event::FrameStart { switch, port, frame });
            }
        }
    }
}
