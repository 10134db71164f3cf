//! Selective dropping at the outputs (seed 003 section 3.5): the port
//! timer that drops every head past its lifetime.

use super::*;

impl IbSwitch {
    /// The timer of output `out`: every head that has outlived its limit is
    /// dropped (a new head may have outlived its switch lifetime already),
    /// and the timer is set for the next. A timer that is no longer the
    /// port's earliest does nothing.
    pub(super) fn on_expire(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        let now = cx.now();
        if self.expiry[out].armed != now {
            return;
        }
        self.settle(out, now);
        // No timer while dropping: the next is set once, for the earliest head left.
        self.expiry[out].armed = 0;
        while let Some(vl) = (0..16u8).find(|&v| self.expiry[out].at[lane(v)].0 <= now) {
            self.drop_head(cx, ctx, out, vl);
        }
        let next = self.expiry[out].earliest();
        self.expiry[out].armed = next;
        if next < Time::MAX {
            cx.push(next, self.index, SwitchEvent::Expire { port: out as u16 });
        }
        self.try_output(cx, ctx, out);
        self.try_link(cx, ctx, out, None);
    }

    /// Drops the head of output VL (`out`, `vl`): its output VL space is
    /// free again, and the next packet is the head.
    pub(super) fn drop_head(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, vl: u8) {
        let reason = self.expiry[out].at[lane(vl)].1;
        let o = &mut self.outputs[out];
        let id = o.port.queue_mut(vl).pop_front(&mut ctx.packets).expect("an expiring VL has a head");
        let blocks = o.port.head_blocks(vl);
        o.give(vl, blocks);
        o.queued -= 1;
        o.blocked = false;
        let next = o.port.queue(vl).front(&ctx.packets);
        if let Some(next) = next {
            o.port.set_head_blocks(vl, credit_blocks(&ctx.packets[next], vl, ctx.switch.block));
        } else {
            o.queued_vls &= !(1 << vl);
        }
        ctx.drop_packet(id, reason);
        self.head_changed(cx, ctx, out, vl, next);
        if self.marks {
            self.congestion[out].buffer_changed(vl, -(blocks as i32), cx.now());
        }
    }
}
