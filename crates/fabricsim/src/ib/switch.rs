//! An InfiniBand switch: the five-stage pipeline of seed 003 Fig. 1, with
//! virtual cut-through.
//!
//! 1. The LRH has arrived; the packet joins the input VL its SL maps to
//!    (control packets: VL15). Its upstream sender held credit for all of
//!    it, so the input VL buffer has room.
//! 2. Forwarding and 3. arbitration take the switch's own input-stage time
//!    ([`SwitchConfig::input_stages`]); the cable to a switch port stamps
//!    the packet with when its LRH is in and delivers it that much later
//!    ([`Wire::cut_through`]), so
//!    `on_packet` runs at the end of stage 3: the packet, once at the head of
//!    its input VL, asks the switch's forwarding where it goes, once
//!    ([`Forwarding::route`]: the linear forwarding table for its DLID, the
//!    shortest-path table for control packets, the multipath table, or a
//!    multicast tree's outputs), and requests that crossbar output.
//! 4. The crossbar moves one packet per input and per output at a time, at
//!    link rate. An output serves the requesting inputs round robin; an
//!    input offers its VLs in priority order (VL15, then the high-priority
//!    table's VLs, then the low-priority table's). A transfer starts only
//!    when the output VL buffer has room for the whole packet. The packet
//!    joins the output VL as soon as its transfer starts (cut-through);
//!    when the transfer ends its input VL space is free and its credits go
//!    back upstream.
//! 5. `try_link`: the output port ([`OutputPort`]) picks among output VLs
//!    whose head packet has credit for all of it downstream; the CRC check
//!    (last stage) costs no time. The output VL space is freed when the
//!    packet's tail has left.
//!
//! Where each part is: the input ports in `ib/input_port.rs`, forwarding in
//! `ib/forwarding.rs`, stage 4 in `crossbar.rs`, stage 5 in
//! `output_link.rs`, the output ports' crossbar state in `output.rs`, and
//! beside them multicast replication, mixed link rates, lifetime drops,
//! and what reports read (`replication.rs`, `rates.rs`, `drops.rs`,
//! `inspect.rs`, `waits.rs`).

mod build;
mod crossbar;
mod drops;
mod inspect;
mod marking;
mod output;
mod output_link;
mod rates;
mod replication;
mod waits;

pub use super::switch_config::SwitchConfig;
pub use build::SwitchSpec;
use output::{OnWire, OutPort};
use rates::Hold;
pub use waits::{Wait, WaitKind, INPUT_BUFFER, OUTPUT_FIFO};

use super::congestion::PortCongestion;
use super::forwarding::{Forwarding, OutputView, Route};
use super::input_port::{InPort, MANY_BLOCKS};
use super::lft;
use super::lifetime::{DropReason, Lifetime, PortExpiry};
use super::multicast::SwitchMulticast;
use super::multipath::{Selection, SwitchTable};
use super::output_port::{lane, OutputPort};
use super::packed_port::PackedPort;
use super::packet::{Packet, TrafficClass};
use super::ring::Ring;
use super::shared::Shared;
use super::vl::{blocks_for, PortCredits, VL15, VLS};
use super::vl_arbiter::VlArbiter;
use super::wire::{Delivery, FreedCredit, ReferenceCables, Wire};
use crate::kernel::{Arena, Time};
use crate::sim::{ComponentKind, PortRef, Schedule};

/// The switch's own events, carried with its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchEvent {
    /// The crossbar transfer from input `port` into output `out` has ended
    /// (`out`: [`replication::MULTICAST_TRANSFER`] for a multicast transfer).
    TransferDone { port: u16, out: u16 },
    /// Output `port` has sent a packet's last byte.
    Sent { port: u16 },
    /// A head packet of output `port` may have outlived its lifetime limit.
    Expire { port: u16 },
    /// Output `port` has moved a multicast copy out of its central FIFO.
    CentralDone { port: u16 },
}

/// What a switch schedules: its own events and deliveries over its cables.
pub trait SwitchContext: Schedule<SwitchEvent> + Schedule<Delivery> {}
impl<C: Schedule<SwitchEvent> + Schedule<Delivery>> SwitchContext for C {}

/// An input VL buffer: (switch, input port, VL).
pub type InputVl = (u32, u16, u8);

/// Whether a port of a replicating switch is busy with a crossbar transfer:
/// there, every transfer's end is an event, and the port is busy until it.
trait EagerBusy {
    fn busy(&self) -> bool;
}

impl EagerBusy for InPort {
    #[inline]
    fn busy(&self) -> bool {
        self.busy_until == Time::MAX
    }
}

impl EagerBusy for OutPort {
    #[inline]
    fn busy(&self) -> bool {
        self.busy_until == Time::MAX
    }
}

/// Credit blocks of `block` bytes packet `p` takes in a buffer of `vl`
/// (VL15: none, it is not flow controlled).
#[inline]
pub(super) fn credit_blocks(p: &Packet, vl: u8, block: u32) -> u16 {
    if vl == VL15 {
        0
    } else {
        blocks_for(p.bytes as u32, block) as u16
    }
}

/// A switch: its ports, forwarding tables and crossbar state. Every event
/// reads the fields it needs from the switch's first cache line (`repr(C)`
/// keeps them there, and each switch starts a line); what all switches
/// share is in [`SwitchConfig`], and what only some fabrics use (control
/// packets' table, mixed rates, lifetimes' timers, more than 64 ports)
/// follows.
#[repr(C, align(64))]
pub struct IbSwitch {
    // Line 0.
    inputs: Box<[InPort]>,
    outputs: Box<[OutPort]>,
    /// The data table: per 64 LIDs, its block in `Shared::lft` (`lft.rs`).
    data_table: Box<[u32]>,
    index: u32,
    /// Whether some cable of it runs at another rate than the fabric's
    /// reference (see `rates.rs`); false on every one-rate fabric.
    mixed: bool,
    /// Whether some packets route by a multipath table (read on every
    /// send: the forwarding counts what each output sends).
    routes_multipath: bool,
    /// Whether the fabric runs congestion control (read on every send and
    /// buffer change; in the line's padding before `replication`).
    marks: bool,
    replication: Option<Box<replication::Replication>>,
    // Beyond: what only some fabrics use.
    /// Where heads go, beyond the data table (`ib/forwarding.rs`).
    forwarding: Forwarding,
    /// Switches of more than 64 ports: per output, the inputs from 64 on
    /// with a requesting head for it (bit mask, `words - 1` u64 per output).
    wanting_high: Vec<u64>,
    /// Per output, the packet held for its tail (see [`Hold`]).
    holds: Vec<Hold>,
    /// Per output port, when its VLs' heads expire (empty without limits).
    expiry: Vec<PortExpiry>,
    /// Per output port, its congestion marking state (empty without congestion control).
    congestion: Vec<PortCongestion>,
}

impl IbSwitch {
    /// Where an output port's lines are beyond its first, as offsets: the
    /// per-VL lines of VLs 0-7 and of VLs 8-15 (queues, heads, credits),
    /// and the held credits with the arbiter's turns.
    pub const OUTPUT_LINES: [usize; 3] = {
        let (at, [low, high, held]) = (std::mem::offset_of!(OutPort, port), OutputPort::<Ring<Packet>>::LINES);
        [at + low, at + high, at + held]
    };

    /// The sending side of output `port` (its receiver frees credits for it).
    #[inline]
    pub fn output_port(&mut self, port: usize) -> &mut OutputPort<Ring<Packet>> {
        &mut self.outputs[port].port
    }

    /// Where its input and its output ports start in memory, and the
    /// bytes of each (see `fabric/look_ahead.rs`).
    pub fn port_addresses(&self) -> [(usize, usize); 2] {
        [
            (self.inputs.as_ptr() as usize, std::mem::size_of::<InPort>()),
            (self.outputs.as_ptr() as usize, std::mem::size_of::<OutPort>()),
        ]
    }

    /// Where input `port` is in memory.
    #[cfg(test)]
    pub fn input_address(&self, port: usize) -> usize {
        &self.inputs[port] as *const InPort as usize
    }

    /// Where output `port` is in memory.
    #[cfg(test)]
    pub fn output_address(&self, port: usize) -> usize {
        &self.outputs[port] as *const OutPort as usize
    }

    /// The output the data table gives for `dlid` (the look ahead's guess
    /// of where a header goes: multipath and control packets may go elsewhere).
    #[inline(always)]
    pub fn data_route(&self, lft: &[[u8; lft::BLOCK]], dlid: u16) -> usize {
        lft::checked_port(lft, &self.data_table, dlid as usize).map_or(0, usize::from)
    }

    /// Handles one of the switch's own events.
    #[inline(always)]
    pub fn handle(&mut self, cx: &mut impl SwitchContext, sh: &mut Shared, ev: SwitchEvent) {
        match ev {
            SwitchEvent::TransferDone { port, out } => self.on_transfer_done(cx, sh, port as usize, out),
            SwitchEvent::Sent { port } => self.on_sent(cx, sh, port as usize),
            SwitchEvent::Expire { port } => self.on_expire(cx, sh, port as usize),
            SwitchEvent::CentralDone { port } => self.on_central_done(cx, sh, port as usize),
        }
    }

    /// Stages 1-3 of `packet` at input `port`: its LRH arrived the switch's
    /// input-stage time (forwarding + arbitration) ago. The cable delivers
    /// it at the end of stage 3 because nothing can happen to the packet
    /// before: it joins its input VL (FIFO order is that of arrival, all
    /// packets taking the same stage time) and, at the head, requests the
    /// crossbar. Its buffer space was reserved by the sender's credits
    /// already; only the buffer-occupancy statistic sees it a stage time late.
    #[inline]
    pub fn on_packet(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, port: usize, id: u32) {
        let (class, sl) = (ctx.packets[id].class, ctx.packets[id].sl);
        let vl = if class == TrafficClass::Control {
            VL15
        } else {
            match ctx.switch.sl_to_vl.vl(sl) {
                Some(vl) => vl,
                None => {
                    // IBA: a packet whose SL has no VL on this port is discarded.
                    let p = ctx.packets[id];
                    ctx.discard(id);
                    let now = cx.now();
                    self.return_credits(cx, ctx, port, p.vl, blocks_for(p.bytes as u32, ctx.switch.block), now);
                    return;
                }
            }
        };
        let now = cx.now();
        let p = &mut ctx.packets[id];
        p.vl = vl;
        let bytes = p.bytes as u32;
        let alone = self.inputs[port].push(vl, &mut ctx.packets, id);
        ctx.metrics.input_buffered(now, bytes as i64);
        // Only the head of an input VL requests the crossbar; a packet that
        // arrives behind others requests when it becomes the head.
        if alone {
            match self.request(cx, ctx, port, vl, id) {
                Some(out) => self.try_output_for(cx, ctx, out, port),
                None => self.mc_pump(cx, ctx),
            }
        }
    }

    /// The packet now at the head of input VL (`input`, `vl`), if any,
    /// requests its output (or, multicast, its tree's outputs).
    #[inline(always)]
    fn next_head(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize, vl: u8) {
        if let Some(next) = self.inputs[input].queue(vl).front(&ctx.packets) {
            self.request(cx, ctx, input, vl, next);
        }
    }

    /// Packet `id`, now the head of input VL (`input`, `vl`), asks the
    /// forwarding where it goes (once: a head keeps its route) and requests
    /// that: one output, returned, or (multicast) its tree's outputs, which
    /// the replication serves.
    #[inline(always)]
    fn request(
        &mut self,
        cx: &mut impl SwitchContext,
        ctx: &mut Shared,
        input: usize,
        vl: u8,
        id: u32,
    ) -> Option<usize> {
        let p = &ctx.packets[id];
        match self.forwarding.route(cx.now(), &self.data_table, &ctx.lft, vl, p, &mut ctx.messages, &*self.outputs) {
            Route::Output(out) => {
                self.set_ready(cx, ctx, input, vl, id, out);
                Some(out)
            }
            Route::Copies(outs) => {
                self.mc_request(ctx, input, vl, id, outs);
                None
            }
        }
    }

    /// Packet `id` at the head of input VL (`input`, `vl`) requests output
    /// `out`. A transfer under way from the input or into the output now
    /// has a head waiting for its end.
    #[inline(always)]
    fn set_ready(&mut self, cx: &mut impl SwitchContext, ctx: &Shared, input: usize, vl: u8, id: u32, out: usize) {
        let p = &ctx.packets[id];
        let port = &mut self.inputs[input];
        let blocks = credit_blocks(p, vl, ctx.switch.block);
        port.set_head(vl, out as u8, blocks);
        port.ready |= 1 << vl;
        if self.marks {
            self.head_waits(out, vl, blocks as i32, cx.now());
        }
        if input < 64 {
            self.outputs[out].wanting |= 1 << input;
        } else {
            let w = self.high_word(out, input);
            self.wanting_high[w] |= 1 << (input % 64);
        }
        self.arm(cx, input);
        if cx.now() < self.outputs[out].busy_until {
            self.arm(cx, self.outputs[out].transfer_from as usize);
        }
    }

    /// The transfer under way from `input` ends as an event: something
    /// waits for its input or its output (a requesting head, a queued
    /// packet). Unarmed, its end changes nothing but what the time tells
    /// (`busy_until`, `settle`): no event is needed. Nothing on a replicating
    /// switch, where every transfer's end is an event.
    #[inline(always)]
    fn arm(&mut self, cx: &mut impl SwitchContext, input: usize) {
        let p = &mut self.inputs[input];
        if !p.armed && cx.now() < p.busy_until && p.busy_until != Time::MAX {
            p.armed = true;
            let ev = SwitchEvent::TransferDone { port: input as u16, out: p.transfer_out as u16 };
            cx.push(p.busy_until, self.index, ev);
        }
    }

    /// Whether input `i` is idle at `now`.
    #[inline(always)]
    fn input_idle(&self, i: usize, now: Time) -> bool {
        now >= self.inputs[i].busy_until
    }

    /// The crossbar transfer from `input` into `out` has ended, and
    /// something waits for one of them: both crossbar ports can take the
    /// next. (Its credits and statistics were done at its start; events at
    /// this instant before this one may have started another transfer
    /// from the input already, and the tries below then find it busy.)
    fn on_transfer_done(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize, out: u16) {
        if out == replication::MULTICAST_TRANSFER {
            self.mc_transfer_done(cx, ctx, input);
            return;
        }
        if out == replication::MULTICAST_BUFFER_READ {
            self.mc_buffer_read_done(cx, ctx, input);
            return;
        }
        let (now, out) = (cx.now(), out as usize);
        let port = &mut self.inputs[input];
        if port.busy_until == Time::MAX {
            // A replicating switch's transfer: idle from its end's event on.
            port.busy_until = now;
            self.outputs[out].busy_until = now;
        } else if now >= port.busy_until {
            port.armed = false;
        }
        self.settle(out, now);
        // The input is idle again: a multicast head of it may start now,
        // but at a held output only after control (VL15), which comes first.
        if self.replication.is_some() {
            if self.outputs[out].mc_held {
                self.try_control(cx, ctx, out);
            }
            self.mc_pump(cx, ctx);
        }
        self.try_output(cx, ctx, out);
        self.try_input(cx, ctx, input);
        self.try_link(cx, ctx, out, None);
    }

    /// Sends `blocks` credits on `vl`, freed at `at` (now or later), back to
    /// whoever feeds input `port`.
    fn return_credits(
        &self,
        cx: &mut impl SwitchContext,
        ctx: &mut Shared,
        port: usize,
        vl: u8,
        blocks: u32,
        at: Time,
    ) {
        if vl != VL15 {
            debug_assert!(self.inputs[port].peer.is_some(), "packets arrive on cabled ports");
            let feeder = self.inputs[port].feeder.get();
            ctx.free(FreedCredit::reserve(cx, feeder, at - cx.now() + ctx.cables.propagation(), vl, blocks as u16));
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::offset_of;

    /// A switch's hot fields sit in its first line, and each switch starts
    /// one (its ports pin their own layouts: `input_port.rs`, `output.rs`).
    #[test]
    fn hot_fields_share_the_switchs_first_line() {
        assert_eq!(offset_of!(IbSwitch, replication) + 8, 64);
        assert!(offset_of!(IbSwitch, marks) < offset_of!(IbSwitch, replication));
        assert_eq!(std::mem::align_of::<IbSwitch>(), 64);
    }
}
