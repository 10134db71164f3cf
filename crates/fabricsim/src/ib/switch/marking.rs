//! Congestion control at an output port (`ib/congestion.rs`): marking a
//! packet as it is chosen to go, and the clocks of the PMA's counters.
//! Every entry is reached only when the fabric runs congestion control
//! (`IbSwitch::marks`), out of line so that the paths without it stay as
//! short as before.

use super::*;
use crate::ib::packet::FECN;

/// `Packet_Size`'s unit, the IBA's credit of 64 bytes (whatever the fabric's credit block).
const PACKET_SIZE_UNIT: u32 = 64;

impl IbSwitch {
    /// Packet `id` of VL `vl`, `blocks` of its output buffer, is chosen at
    /// `now` to go from output `out`, its credits downstream charged; its
    /// space is free at `gone`. It is marked with FECN if the VL is
    /// congested (the packet's own space counted), the packet eligible, the
    /// port the root of the congestion (credit left for another such
    /// packet; under `root = "no_credit_wait"`, no wait for credit since its
    /// last packet) or a victim that marks (its `Victim_Mask` bit set), and
    /// its turn has come. A wait for credit ends here.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn mark_chosen(
        &mut self,
        ctx: &mut Shared,
        out: usize,
        vl: u8,
        id: u32,
        blocks: u16,
        gone: Time,
        now: Time,
    ) {
        let m = ctx.switch.marking.as_ref().expect("marking on");
        let cc = &mut self.congestion[out];
        let waited = cc.sends(now);
        if vl == VL15 {
            return;
        }
        let taken = cc.taken(vl, now);
        debug_assert_eq!(taken, ctx.switch.capacity - self.outputs[out].free(vl), "the port's count of VL {vl}");
        cc.leaves(vl, blocks, gone, now);
        debug_assert!(
            m.hysteresis > 0 || cc.is_congested(vl) == cc.congested(cc.queue(vl)),
            "the state follows the queue"
        );
        let p = &mut ctx.packets[id];
        if !cc.is_congested(vl) || !m.eligible(p, blocks_for(p.bytes as u32, PACKET_SIZE_UNIT) as u16) {
            return;
        }
        // Its own credit blocks are `blocks` (what the pick charged).
        let victim =
            if m.victim_if_waited { waited } else { self.outputs[out].port.available_blocks(vl) < blocks as u32 };
        if victim && !m.victim_mask.has(out + 1) {
            return;
        }
        // A packet marked upstream keeps its bit; it counts where first marked.
        if cc.take_turn(m, vl) && p.flags & FECN == 0 {
            p.flags |= FECN;
            ctx.metrics.counters.congestion.fecn_marked[p.sl.get() as usize] += 1;
        }
    }

    /// An input head of `blocks` on `vl` starts (positive) or stops waiting
    /// for output `out` at `now`: part of the VL's queue.
    #[inline(never)]
    pub(super) fn head_waits(&mut self, out: usize, vl: u8, blocks: i32, now: Time) {
        self.congestion[out].heads_changed(vl, blocks, now);
    }

    /// Output `out` has packets and no credit for any: PortXmitWait runs from `now`.
    #[inline(never)]
    pub(super) fn wait_for_credit(&mut self, out: usize, now: Time) {
        self.congestion[out].wait_for_credit(now);
    }

    /// Over this switch's outputs, PortXmitWait and per VL the time
    /// congested, with the spells still open at `stop` counted up to it.
    pub fn congestion_times(&self, stop: Time) -> (Time, [Time; 16]) {
        let mut wait = 0;
        let mut vls = [0; 16];
        for cc in &self.congestion {
            let (w, v) = cc.times(stop);
            wait += w;
            vls.iter_mut().zip(v).for_each(|(t, x)| *t += x);
        }
        (wait, vls)
    }
}
