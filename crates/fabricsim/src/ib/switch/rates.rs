//! Virtual cut-through across links of different rates. A packet crosses
//! the crossbar at the faster of its input's and its output's rates (the
//! crossbar keeps up with its fastest port; at one rate this is the seed's
//! crossing at link rate), and not before its tail has come in on the
//! input; its tail cannot leave before that either: the output may start
//! it no earlier than the tail's arrival less the output's serialization
//! time. At one rate neither bound binds (a packet is acted on a header
//! time and the input stages after its first byte came in, so its tail is
//! in before a send started then would end); from a slower input to a
//! faster output both do, and the output holds the packet until then. From
//! a faster input to a slower output the crossing ends first and the
//! packet waits out its sending in the output VL buffer.

use super::IbSwitch;
use crate::ib::packet::Packet;
use crate::ib::shared::Shared;
use crate::ib::timing::Rate;
use crate::kernel::Time;

/// A packet an output may not start before a time: its tail comes in
/// slower than it leaves (see `rates.rs`). Kept beside the ports, not in
/// them: only fabrics of several rates read it, and the ports' lines stay few.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hold {
    pub(super) packet: u32,
    pub(super) start_by: Time,
}

/// No packet held.
pub(super) const NO_HOLD: Hold = Hold { packet: u32::MAX, start_by: 0 };

impl IbSwitch {
    /// The rate of the cable at input `input`.
    #[inline(always)]
    pub(super) fn input_rate(&self, input: usize) -> Rate {
        self.inputs[input].peer.map_or(Rate::default(), |w| w.rate)
    }

    /// The rate of the cable at output `out`.
    #[inline(always)]
    pub(super) fn output_rate(&self, out: usize) -> Rate {
        self.outputs[out].wire.map_or(Rate::default(), |w| w.rate)
    }

    /// When the crossing of packet `id` (`p`) from input `input` into output
    /// `out` that starts at `now` ends, and whether the output, if it starts
    /// the packet at once, ends sending it then too.
    #[inline(always)]
    pub(super) fn crossing(
        &mut self,
        ctx: &Shared,
        now: Time,
        input: usize,
        out: usize,
        id: u32,
        p: &Packet,
    ) -> (Time, bool) {
        match self.mixed {
            false => (now + ctx.timing.wire(p.bytes as u32), true),
            true => self.crossing_from(ctx, now, self.input_rate(input), out, id, p),
        }
    }

    /// [`IbSwitch::crossing`] for a packet come in at rate `from`. Where the
    /// tail binds, the output may start the packet only at the crossing's
    /// end less its serialization: it holds it till then.
    #[inline(never)]
    pub(super) fn crossing_from(
        &mut self,
        ctx: &Shared,
        now: Time,
        from: Rate,
        out: usize,
        id: u32,
        p: &Packet,
    ) -> (Time, bool) {
        let to = self.output_rate(out);
        let wire = ctx.timing.wire_at(to, p.bytes as u32);
        if from == to {
            return (now + wire, true);
        }
        let inbound = ctx.timing.wire_at(from, p.bytes as u32);
        let end = (now + wire.min(inbound)).max(self.hold_for_tail(ctx, now, wire, from, out, id, p));
        (end, end >= now + wire)
    }

    /// When the tail of packet `id` (`p`, come in at rate `from`) is in: a
    /// crossing into output `out` that starts at `now` ends no earlier.
    /// Where that less the output's serialization `wire` is later than now,
    /// the output holds the packet till then.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hold_for_tail(
        &mut self,
        ctx: &Shared,
        now: Time,
        wire: Time,
        from: Rate,
        out: usize,
        id: u32,
        p: &Packet,
    ) -> Time {
        let tail = p.t_arrived - ctx.timing.header_at(from) + ctx.timing.wire_at(from, p.bytes as u32);
        if tail > now + wire {
            self.holds[out] = Hold { packet: id, start_by: tail - wire };
        }
        tail
    }

    /// When output `out` may start packet `id`: now, or later if it waits
    /// for its tail (see [`IbSwitch::crossing_from`]).
    #[inline(always)]
    pub(super) fn start_of(&self, out: usize, id: u32, now: Time) -> Time {
        let h = self.holds[out];
        if h.packet == id {
            h.start_by.max(now)
        } else {
            now
        }
    }
}
