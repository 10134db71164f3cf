//! Stage 5, the output link: the VL arbiter picks among output VLs whose
//! head has credit downstream; a packet sent frees its output VL space
//! when its tail has gone (settled lazily when it went with its crossbar
//! transfer); credits coming back restart an output that waits for them.

use super::*;

impl IbSwitch {
    /// The packet output `out` sends with its crossbar transfer has gone
    /// once the transfer has ended: its output VL space is free then. Done
    /// here, when the output is next looked at, not by an event.
    #[inline(always)]
    pub(super) fn settle(&mut self, out: usize, now: Time) {
        let o = &mut self.outputs[out];
        if let Some(w) = o.gone_with_transfer(now) {
            o.on_wire = None;
            o.blocked = false;
            o.give(w.vl, w.blocks);
        }
    }

    /// Output VL (`out`, `vl`)'s free blocks at `now`, with the space a
    /// packet sent with its ended transfer freed (for views between events).
    pub(super) fn free_at(&self, out: usize, vl: u8, now: Time) -> u16 {
        let o = &self.outputs[out];
        let gone = o.gone_with_transfer(now).filter(|w| w.vl == vl);
        o.free(vl).saturating_add(gone.map_or(0, |w| w.blocks))
    }

    /// Stage 5: if output `out` is idle, the VL arbiter picks the next packet
    /// to send. `merge` is a packet whose crossbar transfer starts now and
    /// ends when its transmission would: if it is the one sent, the transfer's
    /// end event also ends the transmission.
    pub(super) fn try_link(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, merge: Option<u32>) {
        // Nothing to send: a packet gone with its transfer is settled when
        // the output is next offered to, or next has something to send.
        if self.outputs[out].queued == 0 {
            return;
        }
        self.settle(out, cx.now());
        let o = &mut self.outputs[out];
        if o.on_wire.is_some() {
            return;
        }
        let Some(vl) = o.port.pick(cx, o.queued_vls, ctx.switch.capacity) else {
            if self.marks {
                self.wait_for_credit(out, cx.now());
            }
            return;
        };
        let q = o.port.queue_mut(vl);
        let id = q.pop_front(&mut ctx.packets).expect("the arbiter chose a VL with a packet");
        let next = q.front(&ctx.packets);
        let bytes = ctx.packets[id].bytes as u32;
        let blocks = o.port.sent(vl, bytes);
        if let Some(next) = next {
            o.port.set_head_blocks(vl, credit_blocks(&ctx.packets[next], vl, ctx.switch.block));
        } else {
            o.queued_vls &= !(1 << vl);
        }
        o.queued -= 1;
        if self.routes_multipath {
            self.forwarding.sent(out, vl, cx.now());
        }
        let with_transfer = merge == Some(id);
        o.on_wire = Some(OnWire { vl, blocks, with_transfer });
        let wire =
            if self.mixed { o.wire.expect("forwarding tables use cabled ports") } else { ctx.cables.wire(o.to.get()) };
        debug_assert!(o.wire.is_some(), "forwarding tables use cabled ports");
        let (t, start) = match self.mixed {
            false => (ctx.timing.wire(bytes), cx.now()),
            true => (ctx.timing.wire_at(wire.rate, bytes), self.start_of(out, id, cx.now())),
        };
        if self.marks {
            // Its output VL space is free when its tail has gone.
            let gone = if with_transfer { self.outputs[out].busy_until } else { start + t };
            self.mark_chosen(ctx, out, vl, id, blocks, gone, cx.now());
        }
        ctx.metrics.forwarded(&ctx.packets[id], t, wire.to.kind == ComponentKind::Switch);
        if !with_transfer {
            cx.push(start + t, self.index, SwitchEvent::Sent { port: out as u16 });
        }
        wire.send_from(cx, start, id, &mut ctx.packets[id], t);
        self.head_changed(cx, ctx, out, vl, next);
    }

    /// The head of output VL (`out`, `vl`) is now `head` (None: the VL is
    /// empty): its head-of-queue clock restarts, and the port's timer is
    /// brought forward if the new head expires first. Nothing without limits.
    #[inline(always)]
    pub(super) fn head_changed(
        &mut self,
        cx: &mut impl SwitchContext,
        ctx: &Shared,
        out: usize,
        vl: u8,
        head: Option<u32>,
    ) {
        if let Some(l) = ctx.switch.lifetime {
            self.arm_expiry(cx, ctx, l, out, vl, head);
        }
    }

    /// [`Self::head_changed`] under lifetime limits (out of line: most
    /// fabrics have none, and the send path stays short).
    #[inline(never)]
    pub(super) fn arm_expiry(
        &mut self,
        cx: &mut impl SwitchContext,
        ctx: &Shared,
        l: Lifetime,
        out: usize,
        vl: u8,
        head: Option<u32>,
    ) {
        let now = cx.now();
        let e = &mut self.expiry[out];
        let at = head.and_then(|id| l.expiry(&ctx.packets[id], now)).unwrap_or((Time::MAX, DropReason::HeadOfQueue));
        e.at[lane(vl)] = at;
        if at.0 < e.armed {
            e.armed = at.0;
            cx.push(at.0, self.index, SwitchEvent::Expire { port: out as u16 });
        }
    }

    /// Output `out` has sent a packet's last byte: its output VL space is free.
    pub(super) fn on_sent(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        self.free_output(out);
        self.try_output(cx, ctx, out);
        self.try_link(cx, ctx, out, None);
    }

    /// The packet on output `out`'s wire has gone: its output VL space is free.
    #[inline]
    pub(super) fn free_output(&mut self, out: usize) {
        let o = &mut self.outputs[out];
        let w = o.on_wire.take().expect("a packet was on the wire");
        o.blocked = false;
        o.give(w.vl, w.blocks);
    }

    /// Credits for `vl` come back to output `out`.
    pub fn on_credit(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, vl: u8, blocks: u32) {
        self.outputs[out].port.on_credit(vl, blocks, ctx.switch.capacity);
        self.try_link(cx, ctx, out, None);
    }
}
