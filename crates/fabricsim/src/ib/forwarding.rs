//! Where a packet at the head of a switch's input VL goes: the one question
//! a switch asks of its forwarding, once per head (the OMNeT++ IB model's
//! packet-forwarding interface, BookSim2's routing function). The answer
//! comes from the deterministic tables (the data LFT, or the shortest-path
//! table for control packets on VL15), from the multipath table and the
//! packet's path bits (seed 003 sections 3.2-3.4: an unreliable datagram
//! whose bits this switch examines and that are not set yet adapts here, by
//! the selection rule), or, for a multicast packet, from the multicast
//! table: the outputs of its group's tree.
//!
//! A policy that adapts reads the switch's outputs through [`OutputView`]
//! and never changes them: the crossbar acts on the route it is given.

use super::lft::{self, BLOCK};
use super::lfu::LfuCounters;
use super::message::Message;
use super::multicast::{McTable, MULTICAST_LID};
use super::multipath::{Selection, SwitchTable};
use super::packet::{Packet, MULTICAST, MULTIPATH};
use super::vl::VL15;
use crate::fabric::routing::multipath::Pattern;
use crate::kernel::{Arena, Time};

/// What a forwarding policy may read of a switch's outputs.
pub trait OutputView {
    /// Credit blocks output `out`'s receiver has free for `vl`, as the
    /// output knows now (VL15: unbounded).
    fn available_blocks(&self, out: usize, vl: u8) -> u32;
    /// Packets queued at output `out`, over all its VLs.
    fn queued(&self, out: usize) -> u32;
}

/// Where a head goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// To one output port.
    Output(usize),
    /// A multicast packet: a copy to each of these outputs (bit mask).
    Copies(u64),
}

/// A switch's forwarding state beyond its data table, which the switch
/// keeps in its first cache line (every head reads it) and lends to
/// [`Forwarding::route`]: the control packets' table, multipath routing
/// and the multicast table, which only some fabrics and packets use.
pub struct Forwarding {
    control: Box<[u32]>,
    multipath: Option<Box<Multipath>>,
    multicast: Option<McTable>,
}

/// A switch's multipath routing: its table, the selection rule of adaptive
/// packets, and the packets each output has sent per VL lately (for LFU).
struct Multipath {
    table: SwitchTable,
    selection: Selection,
    used: LfuCounters,
    /// Scratch for the outputs a packet may take (no allocation per packet).
    choices: Vec<(u16, u64)>,
}

impl Forwarding {
    /// `control`: per 64 LIDs, its block of the fabric's LFT blocks;
    /// `multipath`: the switch's multipath table and selection rule.
    pub fn new(
        ports: usize,
        control: Box<[u32]>,
        multipath: Option<(SwitchTable, Selection)>,
        multicast: Option<McTable>,
    ) -> Self {
        let multipath = multipath.map(|(table, selection)| {
            Box::new(Multipath { table, selection, used: LfuCounters::new(ports), choices: Vec::with_capacity(ports) })
        });
        Forwarding { control, multipath, multicast }
    }

    /// Whether some packets route by the multipath table (then
    /// [`Forwarding::sent`] counts what each output sends).
    pub fn routes_multipath(&self) -> bool {
        self.multipath.is_some()
    }

    /// The route of packet `p` at the head of an input VL `vl`: `data` is
    /// the switch's data table and `lft` the fabric's table blocks.
    /// Multipath packets' messages carry the path bits this may set.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &mut self,
        now: Time,
        data: &[u32],
        lft: &[[u8; BLOCK]],
        vl: u8,
        p: &Packet,
        messages: &mut Arena<Message>,
        outputs: &(impl OutputView + ?Sized),
    ) -> Route {
        if p.flags & MULTICAST != 0 {
            Route::Copies(self.copies(p, messages))
        } else if vl == VL15 {
            Route::Output(lft::port(lft, &self.control, p.dlid as usize) as usize)
        } else if p.flags & MULTIPATH == 0 {
            Route::Output(lft::port(lft, data, p.dlid as usize) as usize)
        } else {
            Route::Output(self.route_multipath(now, vl, p, messages, outputs) as usize)
        }
    }

    /// Output `out` has sent a packet on `vl` at `now` (LFU counts them).
    #[inline]
    pub fn sent(&mut self, out: usize, vl: u8, now: Time) {
        if let Some(mp) = &mut self.multipath {
            mp.used.sent(out, vl, now);
        }
    }

    /// The members of `group` a copy from `src` through output `out` stands for.
    pub fn members_beyond(&self, group: u16, src: u32, out: usize) -> u16 {
        self.multicast_table().cover(group as usize, src, out)
    }

    /// Bytes of the tables this switch holds alone (the data table's are
    /// the switch's).
    pub fn memory_bytes(&self) -> u64 {
        4 * self.control.len() as u64
    }

    fn multicast_table(&self) -> &McTable {
        self.multicast.as_ref().expect("multicast packets only where switches have multicast tables")
    }

    /// The outputs of multicast packet `p`'s tree at this switch.
    #[cold]
    #[inline(never)]
    fn copies(&self, p: &Packet, messages: &Arena<Message>) -> u64 {
        let group = (p.dlid - MULTICAST_LID) as usize;
        let outputs = self.multicast_table().outputs(group, messages[p.message].src);
        debug_assert!(outputs != 0, "a tree switch copies to some output");
        outputs
    }

    /// The multipath table's output for packet `p` on `vl`: its path bits
    /// select it; bits of this switch not set yet are set here, to the
    /// setting of the output the selection rule prefers among those the
    /// table offers (an unreliable datagram adapting as it goes).
    fn route_multipath(
        &mut self,
        now: Time,
        vl: u8,
        p: &Packet,
        messages: &mut Arena<Message>,
        outputs: &(impl OutputView + ?Sized),
    ) -> u16 {
        let mp = self.multipath.as_mut().expect("multipath packets only where multipath tables are");
        let msg = &mut messages[p.message];
        let examined = mp.table.examined();
        if msg.path.mask & examined == examined {
            return mp.table.port(p.dlid, msg.path.value & examined);
        }
        mp.table.choices(p.dlid, msg.path, &mut mp.choices);
        let (port, bits) = match mp.selection {
            // The output least used lately on this VL; ties to the lower port.
            Selection::LeastFrequentlyUsed => mp.used.least_used(&mp.choices, vl, now),
            Selection::MaxCredit => mp
                .choices
                .iter()
                .copied()
                .max_by_key(|&(q, _)| (outputs.available_blocks(q as usize, vl), std::cmp::Reverse(q)))
                .expect("a choice"),
        };
        msg.path = Pattern { value: msg.path.value | (bits & !msg.path.mask), mask: msg.path.mask | examined };
        port
    }
}
