//! A switch's output port: its crossbar state (the transfer into it, the
//! inputs that want it, each VL's free space) before its sending side
//! ([`OutputPort`], shared with the HCA) and its cable, laid out in the
//! order an arbitration reads them.

use super::*;

/// The packet an output port is sending: its VL, its output-buffer blocks,
/// and whether its crossbar transfer ends at the same instant (one event, the
/// transfer's, then ends both).
#[derive(Clone, Copy, Debug)]
pub(super) struct OnWire {
    pub(super) vl: u8,
    pub(super) blocks: u16,
    pub(super) with_transfer: bool,
}

/// One output port: its crossbar and link state, its sending side (per VL
/// its queue, head blocks and credits, eight VLs to a line; the held
/// credits and the arbiter) and its cable, in the order an arbitration
/// reads them (`repr(C)` keeps it, and each port starts a cache line): a
/// packet through it reads its first line, its VL's line and the held
/// credits' line, three lines the look ahead asks for together (four if
/// the traffic's VLs are in both halves).
#[repr(C, align(64))]
pub(super) struct OutPort {
    /// Until when a crossbar transfer into this output is under way (as
    /// `InPort::busy_until`; a multicast copy: [`Time::MAX`] until its end's event).
    pub(super) busy_until: Time,
    /// The inputs 0-63 with a requesting head for this output (bit mask; a
    /// switch of more ports keeps the rest in `IbSwitch::wanting_high`).
    pub(super) wanting: u64,
    /// The packet on the wire, if any. One sent with its crossbar transfer
    /// has gone once the transfer has ended (see `IbSwitch::settle`).
    pub(super) on_wire: Option<OnWire>,
    /// Packets queued over all VLs, and the VLs with any (bit mask).
    pub(super) queued: u32,
    pub(super) queued_vls: u16,
    /// The input whose unicast transfer into this output is under way
    /// (switches have at most 255 ports).
    pub(super) transfer_from: u8,
    /// The input to consider first (round robin).
    pub(super) next_input: u8,
    /// A multicast packet waits for this output: the replication is asked first.
    pub(super) mc_held: bool,
    /// The last round found no requesting idle input whose head fits its
    /// output VL, and no output VL space has been freed since. Then only an
    /// input that has changed (a new head, or idle again) can win, and only
    /// it is offered: the same choice as a full round, without re-offering
    /// the inputs known to fail. Under congestion most rounds fail, so this
    /// saves most offers.
    pub(super) blocked: bool,
    /// Each data VL's free space in credit blocks (VL15 takes no credits:
    /// its space is unbounded). Beside the fields above: a transfer's end
    /// frees space in the line that says when the output is idle, and an
    /// offer reads it with `blocked`.
    pub(super) free: [u16; VLS - 1],
    /// Where the port sends (a free port: nowhere that exists); on a
    /// one-rate switch this names the cable (`Shared::cables`), so a send
    /// reads no more of the port than this line and its sending side (the
    /// VL's queue among it).
    pub(super) to: PackedPort,
    /// Its sending side, with its packets per VL.
    pub(super) port: OutputPort<Ring<Packet>>,
    /// Where the port sends (None: a free port).
    pub(super) wire: Option<Wire>,
}

impl OutPort {
    /// The packet on the wire if it was sent with a crossbar transfer that
    /// has ended by `now`: it has gone, though not yet settled.
    #[inline(always)]
    pub(super) fn gone_with_transfer(&self, now: Time) -> Option<OnWire> {
        self.on_wire.filter(|w| w.with_transfer && now >= self.busy_until)
    }

    /// `vl`'s free space in credit blocks (VL15: unbounded).
    #[inline(always)]
    pub(super) fn free(&self, vl: u8) -> u16 {
        self.free.get(vl as usize).copied().unwrap_or(u16::MAX)
    }

    /// `blocks` of `vl`'s space are taken (VL15: none to take).
    #[inline(always)]
    pub(super) fn take(&mut self, vl: u8, blocks: u16) {
        if let Some(f) = self.free.get_mut(vl as usize) {
            *f -= blocks;
        }
    }

    /// `blocks` of `vl`'s space are free again.
    #[inline(always)]
    pub(super) fn give(&mut self, vl: u8, blocks: u16) {
        if let Some(f) = self.free.get_mut(vl as usize) {
            *f += blocks;
        }
    }
}

/// What the forwarding may read of the outputs (adaptive choices).
impl OutputView for [OutPort] {
    #[inline]
    fn available_blocks(&self, out: usize, vl: u8) -> u32 {
        self[out].port.available_blocks(vl)
    }

    #[inline]
    fn queued(&self, out: usize) -> u32 {
        self[out].queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// An output's state, requesting inputs, free space and where it sends
    /// sit in its first line, then its sending side (a line per eight VLs'
    /// queues, heads and credits, then the held credits and the arbiter:
    /// `output_port.rs`); a port starts a line.
    #[test]
    fn hot_fields_share_the_lines_the_layout_promises() {
        assert_eq!(offset_of!(OutPort, to) + size_of::<PackedPort>(), 64);
        assert!(offset_of!(OutPort, free) < 64 && offset_of!(OutPort, busy_until) < 64);
        assert_eq!((offset_of!(OutPort, port), IbSwitch::OUTPUT_LINES), (64, [64, 128, 192]));
        assert_eq!((size_of::<OutPort>(), std::mem::align_of::<OutPort>()), (384, 64));
    }
}
