//! How a switch copies a multicast packet to the outputs of its group's
//! tree (seed 003 section 3.6.1). A multicast packet at the head of its
//! input VL becomes a request for the outputs its entry names, served
//! before the unicast crossbar looks at those outputs:
//!
//! - synchronous: the request reserves its outputs against unicast
//!   packets; among multicast requests the first in `order` (FCFS: the
//!   earliest arrival; or the inputs round robin) holds an output, a later
//!   one may take it only while the earlier has not started; the copies
//!   cross in lock-step, once the input and every output are idle and every
//!   output VL has room; a request reserves only once every output VL has
//!   room for it (`hold_and_wait`: at once, holding outputs while it waits);
//! - asynchronous: copies cross one output at a time, whichever is free
//!   first; the first copy moves the packet out of its input VL (its credits
//!   go back) into the input's one-packet buffer, a counter of remaining
//!   outputs frees it after the last; one multicast packet per input at a time.
//!   The later copies are read from that buffer, which has its own path to
//!   the crossbar: the input port is held one packet time per multicast
//!   packet, not one per copy, and carries unicast packets meanwhile (the
//!   study finds synchronous and asynchronous "equally competitive", which
//!   an input held k packet times per k-way copy would not be);
//! - central buffer: the input writes the packet into a multicast FIFO of
//!   every output (once each has room), freeing its input VL; each output
//!   serves its FIFO before the unicast input VLs.
//!
//! A copy stands for the members its output leads to (`Shared::mc_set`), so
//! the conservation audit counts a multicast packet once per member.

use super::{EagerBusy, IbSwitch, SwitchContext, SwitchEvent};
use crate::ib::multicast::{SwitchMulticast, MULTICAST_LID};
use crate::ib::output_port::lane;
use crate::ib::packet::Packet;
use crate::ib::ring::Ring;
use crate::ib::shared::Shared;
use crate::ib::timing::Rate;
use crate::ib::vl::VL15;
use crate::kernel::Time;
use crate::scenario::ib::{MulticastOrder, MulticastScheme};
use std::collections::VecDeque;

/// `InPort::transfer_out` of a multicast transfer (its outputs are the replication's).
pub(super) const MULTICAST_TRANSFER: u16 = u8::MAX as u16;
/// The `TransferDone` output of a copy read from an asynchronous input's buffer.
pub(super) const MULTICAST_BUFFER_READ: u16 = MULTICAST_TRANSFER - 1;

/// A multicast packet at the head of an input VL, or (asynchronous) in its input's buffer.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Request {
    pub(super) input: u16,
    pub(super) vl: u8,
    pub(super) id: u32,
    /// When its header reached this switch (FCFS order).
    pub(super) t: Time,
    group: u16,
    src: u32,
    /// Outputs still to be given a copy.
    pub(super) remaining: u64,
    pub(super) blocks: u16,
    /// Asynchronous: the first copy has taken it out of its input VL.
    pub(super) buffered: bool,
    /// Asynchronous: a copy of it is crossing now (one at a time).
    pub(super) copying: bool,
}

/// An output's multicast FIFO (central buffer).
#[derive(Clone, Debug, Default)]
pub(super) struct Central {
    pub(super) fifo: Ring<Packet>,
    /// Per copy in the FIFO, in its order: the rate of the link it came in
    /// on (a copy still being written may leave only as its tail allows).
    from: VecDeque<Rate>,
    pub(super) bytes: u32,
    /// Bytes of the copy crossing from the FIFO to the output VL.
    moving: u32,
}

pub(in crate::ib) struct Replication {
    pub(super) scheme: MulticastScheme,
    pub(super) order: MulticastOrder,
    /// Synchronous: a request reserves its outputs before they have room.
    pub(super) hold_and_wait: bool,
    /// Requests in arrival order (FCFS order for synchronous replication).
    pub(super) requests: Vec<Request>,
    /// Round robin: the input first in turn.
    pub(super) next_input: usize,
    /// Per input: the outputs of its multicast transfer under way, whether
    /// that transfer takes the packet out of its input VL, and its request.
    transfer: Vec<(u64, bool, Request)>,
    /// Asynchronous, per input: the output of the copy being read from its buffer.
    buffer_read: Vec<u64>,
    pub(super) central: Vec<Central>,
    pub(super) central_bytes: u32,
    /// Scratch: request indices in service order (no allocation per event).
    order_scratch: Vec<usize>,
    /// Synchronous: the outputs multicast packets have reserved against
    /// unicast ones (as of the last look).
    reserved: u64,
}

impl Replication {
    pub(in crate::ib) fn new(m: &SwitchMulticast, ports: usize) -> Self {
        let none = Request::default();
        Replication {
            scheme: m.scheme,
            order: m.order,
            hold_and_wait: m.hold_and_wait,
            requests: Vec::with_capacity(4 * ports),
            next_input: 0,
            transfer: vec![(0, false, none); ports],
            buffer_read: vec![0; ports],
            central: vec![Central::default(); ports],
            central_bytes: m.central_bytes,
            order_scratch: Vec::with_capacity(4 * ports),
            reserved: 0,
        }
    }

    /// Request indices in service order: FCFS, the earliest arrival first;
    /// round robin, the inputs in turn from the one after the last served.
    pub(super) fn service_order(&self, ports: usize, order: &mut Vec<usize>) {
        order.clear();
        order.extend(0..self.requests.len());
        if self.order == MulticastOrder::RoundRobin {
            let (reqs, start) = (&self.requests, self.next_input);
            order.sort_by_key(|&k| ((reqs[k].input as usize + ports - start) % ports, reqs[k].t));
        }
    }
}

impl IbSwitch {
    /// An idle output multicast wants takes a control packet (VL15, the
    /// first rank) first if an idle input has one for it.
    #[cold]
    #[inline(never)]
    pub(super) fn try_control(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        if self.outputs[out].busy() || ctx.switch.rank[lane(VL15)] != 0 {
            return;
        }
        let i = (0..self.ports()).find(|&i| !self.inputs[i].busy() && self.wanting_vls(i, out) & 1 << VL15 != 0);
        if let Some(i) = i {
            self.start_transfer(cx, ctx, i, VL15, out);
        }
    }

    fn rep(&mut self) -> &mut Replication {
        self.replication.as_mut().expect("multicast packets only where switches replicate")
    }

    /// Multicast packet `id` is the head of input VL (`input`, `vl`): it
    /// requests `outputs`, those of its tree here.
    #[cold]
    #[inline(never)]
    pub(super) fn mc_request(&mut self, ctx: &Shared, input: usize, vl: u8, id: u32, outputs: u64) {
        let p = &ctx.packets[id];
        let group = p.dlid - MULTICAST_LID;
        let src = ctx.messages[p.message].src;
        let blocks = super::credit_blocks(p, vl, ctx.switch.block);
        let t = p.t_arrived;
        let r = self.rep();
        let remaining = outputs;
        // Kept in arrival order (heads may request later than they arrived).
        let at = r.requests.iter().rposition(|q| q.t <= t).map_or(0, |k| k + 1);
        r.requests.insert(
            at,
            Request { input: input as u16, vl, id, t, group, src, remaining, blocks, buffered: false, copying: false },
        );
        self.mc_refresh_held();
    }

    /// Marks the outputs a multicast packet waits for (central buffer: the
    /// outputs with copies in their FIFO): the unicast crossbar asks the
    /// replication first there.
    fn mc_refresh_held(&mut self) {
        let r = self.replication.as_ref().expect("replicating switch");
        let held = if r.scheme == MulticastScheme::CentralBuffer {
            r.central.iter().enumerate().filter(|(_, c)| !c.fifo.is_empty()).fold(0u64, |m, (o, _)| m | 1 << o)
        } else {
            r.requests.iter().fold(0u64, |m, q| m | q.remaining)
        };
        for (o, out) in self.outputs.iter_mut().enumerate() {
            out.mc_held = held & (1 << o) != 0;
        }
    }

    /// Output `out`, idle and wanted by multicast: whatever multicast work
    /// can start does; true if unicast packets must not take the output now
    /// (it is busy, or reserved by a synchronous request).
    #[cold]
    #[inline(never)]
    pub(super) fn mc_output(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) -> bool {
        if self.rep().scheme == MulticastScheme::CentralBuffer {
            self.serve_central(cx, ctx, out);
        } else {
            self.mc_pump(cx, ctx);
        }
        self.outputs[out].busy() || self.rep().reserved & (1 << out) != 0
    }

    /// Starts every multicast transfer that can start, in service order.
    #[cold]
    #[inline(never)]
    pub(super) fn mc_pump(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared) {
        // One start at a time: a start changes what the others may do (and
        // may add the next head's request), so the order is taken afresh.
        while let Some((k, outs)) = self.next_start(ctx) {
            let r = self.rep();
            let q = r.requests[k];
            match r.scheme {
                MulticastScheme::Synchronous => {
                    r.requests.remove(k);
                    self.start_copies(cx, ctx, q, outs, true);
                }
                MulticastScheme::Asynchronous => {
                    let rq = &mut r.requests[k];
                    rq.remaining &= !outs;
                    rq.buffered = true;
                    rq.copying = true;
                    if q.buffered {
                        self.read_buffer(cx, ctx, q, outs);
                    } else {
                        self.start_copies(cx, ctx, q, outs, true);
                    }
                }
                MulticastScheme::CentralBuffer => {
                    r.requests.remove(k);
                    self.write_central(cx, ctx, q);
                }
                MulticastScheme::ReplicatedUnicast => unreachable!("no switch replication"),
            }
            self.mc_refresh_held();
        }
    }

    /// The first request in service order that can start now, and the
    /// outputs it starts to (central buffer: its FIFOs).
    fn next_start(&mut self, ctx: &Shared) -> Option<(usize, u64)> {
        let r = self.replication.as_mut().expect("replicating switch");
        if r.requests.is_empty() {
            return None;
        }
        let mut order = std::mem::take(&mut r.order_scratch);
        let r = self.replication.as_ref().expect("replicating switch");
        r.service_order(self.inputs.len(), &mut order);
        // Inputs whose buffer holds a packet (asynchronous: one at a time).
        let buffered = r.requests.iter().filter(|q| q.buffered).fold(0u64, |m, q| m | 1 << q.input);
        // Outputs held by a request earlier in order (synchronous).
        let mut claimed = 0u64;
        let mut found = None;
        for &k in &order {
            let q = &r.requests[k];
            let input = q.input as usize;
            let idle = !self.inputs[input].busy();
            match r.scheme {
                MulticastScheme::Synchronous => {
                    // Only a packet every output has room for reserves them
                    // (so a full VL buffer holds no output from other VLs),
                    // unless requests hold and wait.
                    let room = self.has_room(q.remaining, q.vl, q.blocks);
                    if !room && !r.hold_and_wait {
                        continue;
                    }
                    if room && idle && q.remaining & claimed == 0 && self.all_idle(q.remaining) {
                        found = Some((k, q.remaining));
                        break;
                    }
                    claimed |= q.remaining;
                }
                MulticastScheme::Asynchronous => {
                    // The first copy needs the input port; the others its
                    // buffer, free when no copy of it is crossing.
                    let free = if q.buffered { !q.copying } else { idle && buffered & (1 << input) == 0 };
                    if !free {
                        continue;
                    }
                    let mut outs = q.remaining;
                    while outs != 0 {
                        let o = outs.trailing_zeros() as usize;
                        outs &= outs - 1;
                        if self.all_ready(1 << o, q.vl, q.blocks) {
                            found = Some((k, 1 << o));
                            break;
                        }
                    }
                    if found.is_some() {
                        break;
                    }
                }
                MulticastScheme::CentralBuffer => {
                    let bytes = ctx.packets[q.id].bytes as u32;
                    let mut outs = q.remaining;
                    let mut room = true;
                    while outs != 0 {
                        let o = outs.trailing_zeros() as usize;
                        outs &= outs - 1;
                        room &= r.central[o].bytes + bytes <= r.central_bytes;
                    }
                    if idle && room {
                        found = Some((k, q.remaining));
                        break;
                    }
                }
                MulticastScheme::ReplicatedUnicast => unreachable!("no switch replication"),
            }
        }
        let r = self.replication.as_mut().expect("replicating switch");
        r.order_scratch = order;
        r.reserved = claimed;
        found
    }

    /// Whether every output of `outs` has room for `blocks` on `vl`.
    pub(super) fn has_room(&self, mut outs: u64, vl: u8, blocks: u16) -> bool {
        while outs != 0 {
            let o = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            if self.outputs[o].free(vl) < blocks {
                return false;
            }
        }
        true
    }

    /// Whether no crossbar transfer goes into any output of `outs`.
    fn all_idle(&self, mut outs: u64) -> bool {
        while outs != 0 {
            let o = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            if self.outputs[o].busy() {
                return false;
            }
        }
        true
    }

    /// Whether every output of `outs` is idle and has room for `blocks` on `vl`.
    fn all_ready(&self, mut outs: u64, vl: u8, blocks: u16) -> bool {
        while outs != 0 {
            let o = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            let out = &self.outputs[o];
            if out.busy() || out.free(vl) < blocks {
                return false;
            }
        }
        true
    }

    /// The copies of request `q` to `outs` cross the crossbar now; `first`:
    /// this transfer takes the packet out of its input VL.
    fn start_copies(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, q: Request, outs: u64, first: bool) {
        let input = q.input as usize;
        if first {
            let popped = self.inputs[input].pop(q.vl, &mut ctx.packets);
            debug_assert_eq!(popped, Some(q.id), "the request is its input VL's head");
        }
        let p = ctx.packets[q.id];
        let bytes = p.bytes as u32;
        // Whether these are the packet's last copies here (`q` is the request before this start).
        let last = q.remaining == outs;
        // The crossing ends when the copy to the slowest output is through.
        let (now, from) = (cx.now(), self.input_rate(input));
        let mut end = now;
        let mut left = outs;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            let id = self.copy_record(ctx, q, p, o, last && left == 0);
            end = end.max(self.crossing_from(ctx, now, from, o, id, &p).0);
            self.enter_output(cx, ctx, o, q.vl, id, q.blocks);
            self.outputs[o].busy_until = Time::MAX;
        }
        let port = &mut self.inputs[input];
        port.busy_until = Time::MAX;
        port.armed = true;
        port.transfer_out = MULTICAST_TRANSFER as u8;
        port.transfer_bytes = bytes as u16;
        let ports = self.ports();
        let r = self.rep();
        r.transfer[input] = (outs, first, q);
        if r.order == MulticastOrder::RoundRobin {
            r.next_input = if input + 1 == ports { 0 } else { input + 1 };
        }
        cx.push(end, self.index, SwitchEvent::TransferDone { port: input as u16, out: MULTICAST_TRANSFER });
        if first {
            self.next_head(cx, ctx, input, q.vl);
        }
        let mut left = outs;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            self.try_link(cx, ctx, o, None);
        }
    }

    /// Asynchronous: a later copy of request `q` crosses from its input's
    /// buffer to output `outs` (one output) now, leaving the input port free.
    fn read_buffer(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, q: Request, outs: u64) {
        let input = q.input as usize;
        let p = ctx.packets[q.id];
        let o = outs.trailing_zeros() as usize;
        let id = self.copy_record(ctx, q, p, o, q.remaining == outs);
        // The packet is whole in the buffer: the crossing is as from the input's rate.
        let (now, from) = (cx.now(), self.input_rate(input));
        let end = now.max(self.crossing_from(ctx, now, from, o, id, &p).0);
        self.enter_output(cx, ctx, o, q.vl, id, q.blocks);
        self.outputs[o].busy_until = Time::MAX;
        self.rep().buffer_read[input] = outs;
        cx.push(end, self.index, SwitchEvent::TransferDone { port: input as u16, out: MULTICAST_BUFFER_READ });
        self.try_link(cx, ctx, o, None);
    }

    /// Asynchronous: the copy read from `input`'s buffer is through; the
    /// buffer is free for the next copy, or for the input's next multicast
    /// packet after the last.
    #[cold]
    #[inline(never)]
    pub(super) fn mc_buffer_read_done(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize) {
        let now = cx.now();
        let r = self.rep();
        let o = r.buffer_read[input].trailing_zeros() as usize;
        r.buffer_read[input] = 0;
        self.outputs[o].busy_until = now;
        self.copy_done(input);
        self.mc_pump(cx, ctx);
        self.try_output(cx, ctx, o);
        self.try_link(cx, ctx, o, None);
        self.try_input(cx, ctx, input);
    }

    /// Asynchronous: the copy crossing for `input`'s buffered packet is
    /// through; after its last copy the packet leaves the buffer.
    fn copy_done(&mut self, input: usize) {
        let r = self.rep();
        if let Some(k) = r.requests.iter().position(|x| x.buffered && x.input as usize == input) {
            r.requests[k].copying = false;
            if r.requests[k].remaining == 0 {
                r.requests.remove(k);
            }
        }
        self.mc_refresh_held();
    }

    /// The record of request `q`'s copy to output `o`, covering the members
    /// behind `o`: the packet's own record for its last copy here (`last`),
    /// else a new record whose members are taken from the packet's.
    fn copy_record(&mut self, ctx: &mut Shared, q: Request, p: Packet, o: usize, last: bool) -> u32 {
        let cover = self.forwarding.members_beyond(q.group, q.src, o);
        let id = if last {
            ctx.mc_clear(q.id);
            q.id
        } else {
            let c = ctx.mc_clear(q.id);
            ctx.mc_set(q.id, c - cover);
            ctx.packets.insert(p)
        };
        ctx.mc_set(id, cover);
        id
    }

    /// Central buffer: input `q.input` writes the packet into the FIFO of
    /// every output of its request.
    fn write_central(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, q: Request) {
        let input = q.input as usize;
        let popped = self.inputs[input].pop(q.vl, &mut ctx.packets);
        debug_assert_eq!(popped, Some(q.id), "the request is its input VL's head");
        let p = ctx.packets[q.id];
        let mut left = q.remaining;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            let id = self.copy_record(ctx, q, p, o, left == 0);
            let from = self.input_rate(input);
            let c = &mut self.rep().central[o];
            c.from.push_back(from);
            c.fifo.push_back(&mut ctx.packets, id);
            c.bytes += p.bytes as u32;
        }
        let port = &mut self.inputs[input];
        port.busy_until = Time::MAX;
        port.armed = true;
        port.transfer_out = MULTICAST_TRANSFER as u8;
        port.transfer_bytes = p.bytes;
        self.rep().transfer[input] = (0, true, q);
        // Written at the input's rate: the tail is in by then.
        let end = cx.now() + ctx.timing.wire_at(self.input_rate(input), p.bytes as u32);
        cx.push(end, self.index, SwitchEvent::TransferDone { port: input as u16, out: MULTICAST_TRANSFER });
        self.next_head(cx, ctx, input, q.vl);
        let mut left = q.remaining;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            self.outputs[o].mc_held = true;
            if !self.outputs[o].busy() {
                self.serve_central(cx, ctx, o);
            }
        }
    }

    /// Central buffer: idle output `out` moves its FIFO's head copy to its
    /// output VL if it has room.
    fn serve_central(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        if self.outputs[out].busy() {
            return;
        }
        let Some(id) = self.rep().central[out].fifo.front(&ctx.packets) else {
            return;
        };
        let p = ctx.packets[id];
        let blocks = super::credit_blocks(&p, p.vl, ctx.switch.block);
        if self.outputs[out].free(p.vl) < blocks {
            return;
        }
        let c = &mut self.rep().central[out];
        c.fifo.pop_front(&mut ctx.packets);
        let from = c.from.pop_front().expect("a rate per copy in the FIFO");
        c.moving = p.bytes as u32;
        self.enter_output(cx, ctx, out, p.vl, id, blocks);
        self.outputs[out].busy_until = Time::MAX;
        // Out of the FIFO at the output's rate, and as the copy's tail allows.
        let wire = ctx.timing.wire_at(self.output_rate(out), p.bytes as u32);
        let end = (cx.now() + wire).max(self.hold_for_tail(ctx, cx.now(), wire, from, out, id, &p));
        cx.push(end, self.index, SwitchEvent::CentralDone { port: out as u16 });
        self.try_link(cx, ctx, out, None);
    }

    /// Central buffer: output `out` has moved a copy out of its FIFO.
    #[cold]
    #[inline(never)]
    pub(super) fn on_central_done(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        let c = &mut self.rep().central[out];
        c.bytes -= c.moving;
        c.moving = 0;
        self.outputs[out].busy_until = cx.now();
        self.mc_refresh_held();
        self.mc_pump(cx, ctx);
        self.try_output(cx, ctx, out);
        self.try_link(cx, ctx, out, None);
    }

    /// The multicast transfer from `input` has ended: its outputs are idle
    /// again; if it took the packet out of its input VL, that space is free
    /// (credits go upstream).
    #[cold]
    #[inline(never)]
    pub(super) fn mc_transfer_done(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize) {
        let (outs, first, q) = self.rep().transfer[input];
        let now = cx.now();
        let port = &mut self.inputs[input];
        port.busy_until = now;
        port.armed = false;
        let bytes = port.transfer_bytes;
        let mut left = outs;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            self.outputs[o].busy_until = now;
        }
        if first {
            ctx.metrics.input_buffered(cx.now(), -(bytes as i64));
            self.return_credits(cx, ctx, input, q.vl, q.blocks as u32, now);
        }
        let r = self.rep();
        if r.scheme == MulticastScheme::Asynchronous {
            self.copy_done(input);
        }
        self.mc_pump(cx, ctx);
        let mut left = outs;
        while left != 0 {
            let o = left.trailing_zeros() as usize;
            left &= left - 1;
            self.try_output(cx, ctx, o);
            self.try_link(cx, ctx, o, None);
        }
        self.try_input(cx, ctx, input);
    }

    /// Multicast packets in the switch outside the VL buffers (an
    /// asynchronous input's buffer, central FIFOs), for the audit.
    pub(super) fn mc_packets_held(&self, packets: &crate::kernel::Arena<Packet>) -> usize {
        self.replication.as_ref().map_or(0, |r| {
            r.central.iter().map(|c| c.fifo.len(packets)).sum::<usize>()
                + r.requests.iter().filter(|q| q.buffered && q.remaining != 0).count()
        })
    }
}
