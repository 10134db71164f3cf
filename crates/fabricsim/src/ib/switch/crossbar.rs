//! Stage 4, the crossbar: an idle output serves the inputs whose heads
//! request it, round robin; an input offers its requesting VLs in priority
//! order; a transfer starts only when the output VL has room for the whole
//! packet, and all it changes is known at its start.

use super::*;

impl IbSwitch {
    /// Input VL (`input`, `vl`)'s head has gone; the input still wants its
    /// output if another of its VLs' heads requests it.
    #[inline]
    pub(super) fn clear_ready(&mut self, input: usize, vl: u8) {
        let port = &mut self.inputs[input];
        let out = port.head_out(vl);
        port.ready &= !(1 << vl);
        if self.wanting_vls(input, out) != 0 {
            return;
        }
        if input < 64 {
            self.outputs[out].wanting &= !(1 << input);
        } else {
            let w = self.high_word(out, input);
            self.wanting_high[w] &= !(1 << (input % 64));
        }
    }

    /// The VLs of input `input` whose requesting head wants output `out`
    /// (bit mask): read from the input's first line, where an offer looks anyway.
    #[inline]
    pub(super) fn wanting_vls(&self, input: usize, out: usize) -> u16 {
        let port = &self.inputs[input];
        let mut ready = port.ready;
        let mut vls = 0;
        while ready != 0 {
            let vl = ready.trailing_zeros() as u8;
            ready &= ready - 1;
            if port.head_out(vl) == out {
                vls |= 1 << vl;
            }
        }
        vls
    }

    /// Whether input `input` has a requesting head for output `out`.
    #[inline]
    pub(super) fn wants(&self, out: usize, input: usize) -> bool {
        if input < 64 {
            self.outputs[out].wanting & (1 << input) != 0
        } else {
            self.wanting_high[self.high_word(out, input)] & (1 << (input % 64)) != 0
        }
    }

    /// The word of `wanting_high` that holds input `input` (64 or more) for output `out`.
    #[inline]
    pub(super) fn high_word(&self, out: usize, input: usize) -> usize {
        out * (self.words() - 1) + input / 64 - 1
    }

    /// Whether the requesting head of input VL (`i`, `vl`) fits output VL
    /// (`out`, `vl`) (VL15 always does: it takes no blocks).
    #[inline]
    pub(super) fn fits(&self, i: usize, out: usize, vl: u8) -> bool {
        // The head's byte first: most heads that do not fit fail on it, and
        // a byte of `MANY_BLOCKS` (255 or more) fits only where the whole count does.
        let (input, free) = (&self.inputs[i], self.outputs[out].free(vl));
        let byte = input.lanes[lane(vl)].blocks;
        byte as u16 <= free && (byte != MANY_BLOCKS || input.many_blocks(vl) <= free)
    }

    /// Stage 4: gives a free crossbar output to the next requesting input, round robin.
    pub(super) fn try_output(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        let now = cx.now();
        if now < self.outputs[out].busy_until {
            return;
        }
        self.settle(out, now);
        self.serve_output(cx, ctx, out, now);
    }

    /// [`Self::try_output`] for output `out`, idle and settled at `now`.
    pub(super) fn serve_output(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, now: Time) {
        // Control packets (VL15, the highest priority) first, then multicast
        // (which may reserve the output against the other unicast packets).
        if self.outputs[out].mc_held {
            self.try_control(cx, ctx, out);
            if now < self.outputs[out].busy_until || self.mc_output(cx, ctx, out) {
                return;
            }
        }
        let start = self.outputs[out].next_input as usize;
        if self.inputs.len() <= 64 {
            // Up to 64 ports: walk only the inputs that want this output, in
            // round-robin order from `start`.
            let w = self.outputs[out].wanting;
            let (low, high) = (w & ((1u64 << start) - 1), w >> start);
            for (mut bits, base) in [(high, start), (low, 0)] {
                while bits != 0 {
                    let i = base + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if self.input_idle(i, now) && self.offer(cx, ctx, i, out) {
                        return;
                    }
                }
            }
        } else {
            let ports = self.inputs.len();
            for k in 0..ports {
                let i = (start + k) % ports;
                if self.wants(out, i) && self.input_idle(i, now) && self.offer(cx, ctx, i, out) {
                    return;
                }
            }
        }
        self.outputs[out].blocked = true;
    }

    /// Stage 4 after input `i` has changed (a new head requests, or it is
    /// idle again): a blocked output need only offer to `i`.
    #[inline]
    pub(super) fn try_output_for(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, i: usize) {
        let now = cx.now();
        if now < self.outputs[out].busy_until {
            return;
        }
        self.settle(out, now);
        if !self.outputs[out].blocked || self.outputs[out].mc_held {
            self.serve_output(cx, ctx, out, now);
        } else if self.input_idle(i, now) && self.wants(out, i) {
            self.offer(cx, ctx, i, out);
        }
    }

    /// Input `i`'s highest-priority VL whose head wants `out` and fits its
    /// output VL crosses now; false if none fits.
    #[inline]
    pub(super) fn offer(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, i: usize, out: usize) -> bool {
        // The VLs that want `out` as priority ranks (bit 0 = the highest).
        let mut vls = self.wanting_vls(i, out);
        let mut m = 0u16;
        while vls != 0 {
            m |= 1 << ctx.switch.rank[lane(vls.trailing_zeros() as u8)];
            vls &= vls - 1;
        }
        while m != 0 {
            let vl = ctx.switch.by_rank[lane(m.trailing_zeros() as u8)];
            m &= m - 1;
            if self.fits(i, out, vl) {
                // The next input round robin (a compare, not a division).
                self.outputs[out].next_input = if i + 1 == self.inputs.len() { 0 } else { i as u8 + 1 };
                self.start_transfer(cx, ctx, i, vl, out);
                return true;
            }
        }
        false
    }

    /// An idle input offers its requesting VLs, in priority order, to their outputs.
    #[inline(always)]
    pub(super) fn try_input(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize) {
        // The requesting VLs as priority ranks (only VLs some arbitration
        // table serves, as the order lists); an offer that fails changes
        // nothing here, one that succeeds makes the input busy.
        let mut ranks = 0u16;
        let mut ready = self.inputs[input].ready;
        while ready != 0 {
            ranks |= 1 << ctx.switch.rank[lane(ready.trailing_zeros() as u8)];
            ready &= ready - 1;
        }
        ranks &= ctx.switch.served_ranks;
        // Each wanted output once (several VLs may want the same one), in VL priority order.
        let mut tried = 0u64;
        while ranks != 0 && self.input_idle(input, cx.now()) {
            let vl = ctx.switch.by_rank[lane(ranks.trailing_zeros() as u8)];
            ranks &= ranks - 1;
            let out = self.inputs[input].head_out(vl);
            let bit = if out < 64 { 1u64 << out } else { 0 };
            if tried & bit == 0 {
                tried |= bit;
                self.try_output_for(cx, ctx, out, input);
            }
        }
    }

    /// Input `input`'s head of `vl` crosses into output `out` now. Its end
    /// is known now, and so is all it changes: the input and the crossbar
    /// output are idle from then on, the input VL space is free then (its
    /// credits go upstream now, keyed for then plus the propagation; the
    /// buffer statistic counts the packet until then), and a packet the
    /// output sends with it has gone then. So the end is an event only if
    /// something waits for it ([`IbSwitch::arm`]), here or later.
    #[inline(always)]
    pub(super) fn start_transfer(
        &mut self,
        cx: &mut impl SwitchContext,
        ctx: &mut Shared,
        input: usize,
        vl: u8,
        out: usize,
    ) {
        let now = cx.now();
        let port = &mut self.inputs[input];
        let blocks = port.head_blocks(vl);
        let id = port.pop(vl, &mut ctx.packets).expect("a requesting VL has a head packet");
        self.clear_ready(input, vl);
        if self.marks {
            self.head_waits(out, vl, -(blocks as i32), now);
        }
        let p = ctx.packets[id];
        self.enter_output(cx, ctx, out, vl, id, blocks);
        // At the faster port's rate, and not before the tail is in (rates.rs).
        let (end, together) = self.crossing(ctx, now, input, out, id, &p);
        // A replicating switch ends every transfer with an event, which its
        // multicast bookkeeping reads (`replication.rs`).
        let eager = self.replication.is_some();
        let until = if eager { Time::MAX } else { end };
        let port = &mut self.inputs[input];
        port.busy_until = until;
        port.transfer_out = out as u8;
        port.armed = eager;
        self.outputs[out].busy_until = until;
        self.outputs[out].transfer_from = input as u8;
        if eager {
            cx.push(end, self.index, SwitchEvent::TransferDone { port: input as u16, out: out as u16 });
        }
        ctx.metrics.input_crossing(now, end, p.bytes as u32);
        self.return_credits(cx, ctx, input, vl, blocks as u32, end);
        // The next packet of this VL is through stages 2-3 (it is queued): it requests now.
        self.next_head(cx, ctx, input, vl);
        // The output link may start this packet at once (cut-through): its
        // transfer and its transmission then end together.
        self.try_link(cx, ctx, out, together.then_some(id));
        // At the end the input offers its other heads, the output takes the
        // next input that wants it, and (its packet gone with the transfer)
        // sends its next packet: an event if any of them waits already.
        let o = &self.outputs[out];
        let link_waits = o.queued != 0 && o.on_wire.is_some_and(|w| w.with_transfer);
        if self.inputs[input].ready != 0 || o.wanting != 0 || link_waits || self.inputs.len() > 64 {
            self.arm(cx, input);
        }
    }

    /// Packet `id` crosses into output VL (`out`, `vl`), taking `blocks`
    /// of its space (the caller marks the output busy until the crossing ends).
    #[inline(always)]
    pub(super) fn enter_output(
        &mut self,
        cx: &mut impl SwitchContext,
        ctx: &mut Shared,
        out: usize,
        vl: u8,
        id: u32,
        blocks: u16,
    ) {
        let o = &mut self.outputs[out];
        o.blocked = false;
        o.take(vl, blocks);
        let q = o.port.queue_mut(vl);
        let alone = q.is_empty();
        q.push_back(&mut ctx.packets, id);
        if alone {
            o.port.set_head_blocks(vl, blocks);
        }
        o.queued += 1;
        o.queued_vls |= 1 << vl;
        ctx.transfers += 1;
        if alone {
            self.head_changed(cx, ctx, out, vl, Some(id));
        }
        if self.marks {
            self.congestion[out].buffer_changed(vl, blocks as i32, cx.now());
        }
    }
}
