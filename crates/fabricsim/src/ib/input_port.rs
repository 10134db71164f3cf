//! A switch's input port, the OMNeT++ IB model's input buffer: per VL its
//! packets in arrival order and the crossbar request of its head, the
//! crossbar transfer under way from the port, and where the credits its
//! packets free go back. The crossbar (`switch/crossbar.rs`) reads and
//! writes it; its layout is the cache's (see [`InPort`]).

use super::output_port::lane;
use super::packed_port::PackedPort;
use super::packet::Packet;
use super::ring::Ring;
use super::vl::VLS;
use super::wire::Wire;
use crate::kernel::{Arena, Time};

/// One VL of an input port: its packets in arrival order, the output its
/// requesting head wants (IBA port numbers are 8 bits) and the credit
/// blocks that head takes ([`MANY_BLOCKS`]: 255 or more, with credit
/// blocks of a few bytes, kept in `InPort::many_blocks`; VL15: none). Six
/// bytes (`packed`: the queue is read and written by value), so that a
/// VL's state is found by one scaled index and eight VLs share a line with
/// the port's own fields.
#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
pub(super) struct InLane {
    pub(super) queue: Ring<Packet>,
    pub(super) out: u8,
    pub(super) blocks: u8,
}

/// A head's credit blocks too many for a byte: `InPort::many_blocks` says.
pub(super) const MANY_BLOCKS: u8 = u8::MAX;

/// One input port: its VL queues and the crossbar state of their heads.
/// The first cache line holds all an offer or a transfer's start reads
/// (the port's transfer, where credits go back, and each VL's request
/// and queue) for VLs 0-7, so a packet through an input whose traffic
/// keeps to those VLs reads that one line (a fabric's build numbers the
/// VLs its traffic uses first: `ib/vl_numbers.rs`); VLs 8-15 are in the
/// second, and the cable follows.
#[repr(C, align(64))]
pub(super) struct InPort {
    /// Until when a crossbar transfer from this input is under way: the
    /// input is idle from then on, with no event for the transfer's end
    /// unless something waits for it (`armed`; see `IbSwitch::arm`). On a
    /// replicating switch, [`Time::MAX`] until the end's event.
    pub(super) busy_until: Time,
    /// VLs whose head packet requests the crossbar (bit mask).
    pub(super) ready: u16,
    /// The output of the transfer (a switch has at most 254 ports;
    /// `switch/replication.rs`'s `MULTICAST_TRANSFER`: a multicast transfer).
    pub(super) transfer_out: u8,
    /// Whether the transfer's end is an event.
    pub(super) armed: bool,
    /// The port that feeds this one (a free port: none that exists): a
    /// transfer's start returns the credits its packet frees at its end, a
    /// propagation delay later (every cable of a fabric has the fabric's
    /// propagation).
    pub(super) feeder: PackedPort,
    /// Per VL, its queue and its head's request: VLs 0-7 end this line.
    pub(super) lanes: [InLane; VLS],
    /// The cable that feeds this port (None: a free port).
    pub(super) peer: Option<Wire>,
    /// Wire bytes of a multicast transfer (its end counts them out of the buffer).
    pub(super) transfer_bytes: u16,
    /// Per data VL, its head's credit blocks where they are [`MANY_BLOCKS`]
    /// or more (credit blocks of under 5 bytes: byte-exact accounting).
    pub(super) many_blocks: [u16; VLS - 1],
}

impl InPort {
    /// `vl`'s packets in arrival order (a copy: pushing and popping go
    /// through [`InPort::push`] and [`InPort::pop`]).
    #[inline(always)]
    pub(super) fn queue(&self, vl: u8) -> Ring<Packet> {
        self.lanes[lane(vl)].queue
    }

    /// Queues packet `id` on `vl`; whether it is alone there.
    #[inline(always)]
    pub(super) fn push(&mut self, vl: u8, packets: &mut Arena<Packet>, id: u32) -> bool {
        let l = &mut self.lanes[lane(vl)];
        let mut q = l.queue;
        let alone = q.is_empty();
        q.push_back(packets, id);
        l.queue = q;
        alone
    }

    /// Takes `vl`'s head packet off its queue.
    #[inline(always)]
    pub(super) fn pop(&mut self, vl: u8, packets: &mut Arena<Packet>) -> Option<u32> {
        let l = &mut self.lanes[lane(vl)];
        let mut q = l.queue;
        let id = q.pop_front(packets);
        l.queue = q;
        id
    }

    /// Every VL's queue, VL 0 first.
    pub(super) fn queues(&self) -> impl Iterator<Item = Ring<Packet>> + '_ {
        self.lanes.iter().map(|l| l.queue)
    }

    /// The output `vl`'s requesting head wants.
    #[inline(always)]
    pub(super) fn head_out(&self, vl: u8) -> usize {
        self.lanes[lane(vl)].out as usize
    }

    /// `vl`'s head requests output `out` and takes `blocks` credit blocks.
    #[inline(always)]
    pub(super) fn set_head(&mut self, vl: u8, out: u8, blocks: u16) {
        let l = &mut self.lanes[lane(vl)];
        l.out = out;
        if blocks < MANY_BLOCKS as u16 {
            l.blocks = blocks as u8;
        } else {
            self.set_many_blocks(vl, blocks);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn set_many_blocks(&mut self, vl: u8, blocks: u16) {
        self.lanes[lane(vl)].blocks = MANY_BLOCKS;
        self.many_blocks[vl as usize] = blocks;
    }

    /// Credit blocks of `vl`'s requesting head (VL15: none).
    #[inline(always)]
    pub(super) fn head_blocks(&self, vl: u8) -> u16 {
        match self.lanes[lane(vl)].blocks {
            MANY_BLOCKS => self.many_blocks(vl),
            b => b as u16,
        }
    }

    /// Out of line: else the compiler may read the field on every call
    /// (a select), and with it a line no other access needs.
    #[cold]
    #[inline(never)]
    pub(super) fn many_blocks(&self, vl: u8) -> u16 {
        self.many_blocks[vl as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::vl::VL15;
    use std::mem::{offset_of, size_of};

    /// What an offer or a transfer's start reads sits in the port's first
    /// line: its transfer, where its credits go and, VLs 0-7, each VL's
    /// queue and head request; a port starts a line.
    #[test]
    fn hot_fields_share_the_first_line() {
        assert_eq!((offset_of!(InPort, busy_until), offset_of!(InPort, feeder) + size_of::<PackedPort>()), (0, 16));
        assert_eq!((offset_of!(InPort, lanes), size_of::<InLane>()), (16, 6));
        assert_eq!((size_of::<InPort>(), std::mem::align_of::<InPort>()), (192, 64));
    }

    /// A head's credit blocks are kept whole however many they are: in a
    /// byte below 255, else in the port's cold line (byte-exact credits).
    #[test]
    fn a_head_of_many_credit_blocks_keeps_its_count() {
        let mut p = InPort {
            busy_until: 0,
            ready: 0,
            transfer_out: 0,
            armed: false,
            feeder: PackedPort::NOWHERE,
            lanes: Default::default(),
            peer: None,
            transfer_bytes: 0,
            many_blocks: [0; VLS - 1],
        };
        for (vl, out, blocks) in [(3, 7, 254), (3, 9, 255), (3, 9, 1050), (3, 2, 17), (14, 200, 4096), (0, 1, 0)] {
            p.set_head(vl, out, blocks);
            assert_eq!((p.head_out(vl), p.head_blocks(vl)), (out as usize, blocks), "VL {vl}");
        }
        assert_eq!(p.head_blocks(14), 4096, "one VL's count leaves the others' alone");
        p.set_head(VL15, 5, 0);
        assert_eq!((p.head_out(VL15), p.head_blocks(VL15)), (5, 0));
    }
}
