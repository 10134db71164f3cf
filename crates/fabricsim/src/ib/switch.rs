//! An InfiniBand switch: the five-stage pipeline of seed 003 Fig. 1, with
//! virtual cut-through.
//!
//! 1. The LRH has arrived; the packet joins the input VL its SL maps to
//!    (control packets: VL15). Its upstream sender held credit for all of
//!    it, so the input VL buffer has room.
//! 2. Forwarding and 3. arbitration take the switch's own input-stage time
//!    ([`IbSwitch::input_stages`]); the cable to a switch port delivers the
//!    packet that much after its LRH is in ([`Wire::cut_through`]), so
//!    `on_packet` runs at the end of stage 3: the packet, once at the head of
//!    its input VL, requests the crossbar output the linear forwarding table
//!    gives for its DLID (control packets use the shortest-path table).
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

mod build;
mod config;
mod drops;
mod inspect;
mod paths;
mod rates;
mod replication;

pub use build::SwitchSpec;
pub use config::SwitchConfig;
use paths::Multipath;
use rates::Hold;

use super::lft;
use super::lifetime::{DropReason, Lifetime, PortExpiry};
use super::multicast::SwitchMulticast;
use super::multipath::{Selection, SwitchTable};
use super::output_port::{lane, OutputPort};
use super::packed_port::PackedPort;
use super::packet::{Packet, TrafficClass, MULTICAST, MULTIPATH};
use super::ring::Ring;
use super::shared::Shared;
use super::vl::{blocks_for, PortCredits, SlToVl, VL15};
use super::vl_arbiter::VlArbiter;
use super::wire::{Delivery, FreedCredit, ReferenceCables, Wire};
use crate::fabric::routing::multipath::Pattern;
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

/// The packet an output port is sending: its VL, its output-buffer blocks,
/// and whether its crossbar transfer ends at the same instant (one event, the
/// transfer's, then ends both).
#[derive(Clone, Copy, Debug)]
struct OnWire {
    vl: u8,
    blocks: u16,
    with_transfer: bool,
}

/// VL slots per port: 15 data VLs and VL15.
const VLS: usize = 16;

/// One VL of an input port: its packets in arrival order, the output its
/// requesting head wants (IBA port numbers are 8 bits) and the credit
/// blocks that head takes ([`MANY_BLOCKS`]: 255 or more, with credit
/// blocks of a few bytes, kept in `InPort::many_blocks`; VL15: none). Six
/// bytes (`packed`: the queue is read and written by value), so that a
/// VL's state is found by one scaled index and eight VLs share a line with
/// the port's own fields.
#[derive(Clone, Copy, Default)]
#[repr(C, packed)]
struct InLane {
    queue: Ring<Packet>,
    out: u8,
    blocks: u8,
}

/// A head's credit blocks too many for a byte: `InPort::many_blocks` says.
const MANY_BLOCKS: u8 = u8::MAX;

/// One input port: its VL queues and the crossbar state of their heads.
/// The first cache line holds all an offer or a transfer's start reads
/// (the port's transfer, where credits go back, and each VL's request
/// and queue) for VLs 0-7, so a packet through an input whose traffic
/// keeps to those VLs reads that one line (a fabric's build numbers the
/// VLs its traffic uses first: `ib/vl_numbers.rs`); VLs 8-15 are in the
/// second, and the cable follows.
#[repr(C, align(64))]
struct InPort {
    /// Until when a crossbar transfer from this input is under way: the
    /// input is idle from then on, with no event for the transfer's end
    /// unless something waits for it (`armed`; see `IbSwitch::arm`). On a
    /// replicating switch, [`Time::MAX`] until the end's event.
    busy_until: Time,
    /// VLs whose head packet requests the crossbar (bit mask).
    ready: u16,
    /// The output of the transfer (a switch has at most 254 ports;
    /// [`replication::MULTICAST_TRANSFER`]: a multicast transfer).
    transfer_out: u8,
    /// Whether the transfer's end is an event.
    armed: bool,
    /// The port that feeds this one (a free port: none that exists): a
    /// transfer's start returns the credits its packet frees at its end, a
    /// propagation delay later (every cable of a fabric has the fabric's
    /// propagation).
    feeder: PackedPort,
    /// Per VL, its queue and its head's request: VLs 0-7 end this line.
    lanes: [InLane; VLS],
    /// The cable that feeds this port (None: a free port).
    peer: Option<Wire>,
    /// Wire bytes of a multicast transfer (its end counts them out of the buffer).
    transfer_bytes: u16,
    /// Per data VL, its head's credit blocks where they are [`MANY_BLOCKS`]
    /// or more (credit blocks of under 5 bytes: byte-exact accounting).
    many_blocks: [u16; VLS - 1],
}

impl InPort {
    /// `vl`'s packets in arrival order (a copy: pushing and popping go
    /// through [`InPort::push`] and [`InPort::pop`]).
    #[inline(always)]
    fn queue(&self, vl: u8) -> Ring<Packet> {
        self.lanes[lane(vl)].queue
    }

    /// Queues packet `id` on `vl`; whether it is alone there.
    #[inline(always)]
    fn push(&mut self, vl: u8, packets: &mut Arena<Packet>, id: u32) -> bool {
        let l = &mut self.lanes[lane(vl)];
        let mut q = l.queue;
        let alone = q.is_empty();
        q.push_back(packets, id);
        l.queue = q;
        alone
    }

    /// Takes `vl`'s head packet off its queue.
    #[inline(always)]
    fn pop(&mut self, vl: u8, packets: &mut Arena<Packet>) -> Option<u32> {
        let l = &mut self.lanes[lane(vl)];
        let mut q = l.queue;
        let id = q.pop_front(packets);
        l.queue = q;
        id
    }

    /// Every VL's queue, VL 0 first.
    fn queues(&self) -> impl Iterator<Item = Ring<Packet>> + '_ {
        self.lanes.iter().map(|l| l.queue)
    }

    /// The output `vl`'s requesting head wants.
    #[inline(always)]
    fn head_out(&self, vl: u8) -> usize {
        self.lanes[lane(vl)].out as usize
    }

    /// `vl`'s head requests output `out` and takes `blocks` credit blocks.
    #[inline(always)]
    fn set_head(&mut self, vl: u8, out: u8, blocks: u16) {
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
    fn set_many_blocks(&mut self, vl: u8, blocks: u16) {
        self.lanes[lane(vl)].blocks = MANY_BLOCKS;
        self.many_blocks[vl as usize] = blocks;
    }

    /// Credit blocks of `vl`'s requesting head (VL15: none).
    #[inline(always)]
    fn head_blocks(&self, vl: u8) -> u16 {
        match self.lanes[lane(vl)].blocks {
            MANY_BLOCKS => self.many_blocks(vl),
            b => b as u16,
        }
    }

    /// Out of line: else the compiler may read the field on every call
    /// (a select), and with it a line no other access needs.
    #[cold]
    #[inline(never)]
    fn many_blocks(&self, vl: u8) -> u16 {
        self.many_blocks[vl as usize]
    }
}

impl OutPort {
    /// The packet on the wire if it was sent with a crossbar transfer that
    /// has ended by `now`: it has gone, though not yet settled.
    #[inline(always)]
    fn gone_with_transfer(&self, now: Time) -> Option<OnWire> {
        self.on_wire.filter(|w| w.with_transfer && now >= self.busy_until)
    }

    /// `vl`'s free space in credit blocks (VL15: unbounded).
    #[inline(always)]
    fn free(&self, vl: u8) -> u16 {
        self.free.get(vl as usize).copied().unwrap_or(u16::MAX)
    }

    /// `blocks` of `vl`'s space are taken (VL15: none to take).
    #[inline(always)]
    fn take(&mut self, vl: u8, blocks: u16) {
        if let Some(f) = self.free.get_mut(vl as usize) {
            *f -= blocks;
        }
    }

    /// `blocks` of `vl`'s space are free again.
    #[inline(always)]
    fn give(&mut self, vl: u8, blocks: u16) {
        if let Some(f) = self.free.get_mut(vl as usize) {
            *f += blocks;
        }
    }
}

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

/// One output port: its crossbar and link state, its sending side (per VL
/// its queue, head blocks and credits, eight VLs to a line; the held
/// credits and the arbiter) and its cable, in the order an arbitration
/// reads them (`repr(C)` keeps it, and each port starts a cache line): a
/// packet through it reads its first line, its VL's line and the held
/// credits' line, three lines the look ahead asks for together (four if
/// the traffic's VLs are in both halves).
#[repr(C, align(64))]
struct OutPort {
    /// Until when a crossbar transfer into this output is under way (as
    /// `InPort::busy_until`; a multicast copy: [`Time::MAX`] until its end's event).
    busy_until: Time,
    /// The inputs 0-63 with a requesting head for this output (bit mask; a
    /// switch of more ports keeps the rest in `IbSwitch::wanting_high`).
    wanting: u64,
    /// The packet on the wire, if any. One sent with its crossbar transfer
    /// has gone once the transfer has ended (see `IbSwitch::settle`).
    on_wire: Option<OnWire>,
    /// Packets queued over all VLs, and the VLs with any (bit mask).
    queued: u32,
    queued_vls: u16,
    /// The input whose unicast transfer into this output is under way
    /// (switches have at most 255 ports).
    transfer_from: u8,
    /// The input to consider first (round robin).
    next_input: u8,
    /// A multicast packet waits for this output: the replication is asked first.
    mc_held: bool,
    /// The last round found no requesting idle input whose head fits its
    /// output VL, and no output VL space has been freed since. Then only an
    /// input that has changed (a new head, or idle again) can win, and only
    /// it is offered: the same choice as a full round, without re-offering
    /// the inputs known to fail. Under congestion most rounds fail, so this
    /// saves most offers.
    blocked: bool,
    /// Each data VL's free space in credit blocks (VL15 takes no credits:
    /// its space is unbounded). Beside the fields above: a transfer's end
    /// frees space in the line that says when the output is idle, and an
    /// offer reads it with `blocked`.
    free: [u16; VLS - 1],
    /// Where the port sends (a free port: nowhere that exists); on a
    /// one-rate switch this names the cable (`Shared::cables`), so a send
    /// reads no more of the port than this line and its sending side (the
    /// VL's queue among it).
    to: PackedPort,
    /// Its sending side, with its packets per VL.
    port: OutputPort<Ring<Packet>>,
    /// Where the port sends (None: a free port).
    wire: Option<Wire>,
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
    /// Whether `multipath` is set (read on every send).
    routes_multipath: bool,
    replication: Option<Box<replication::Replication>>,
    // Beyond: what only some fabrics use.
    multipath: Option<Box<Multipath>>,
    control_table: Box<[u32]>,
    /// Switches of more than 64 ports: per output, the inputs from 64 on
    /// with a requesting head for it (bit mask, `words - 1` u64 per output).
    wanting_high: Vec<u64>,
    /// Per output, the packet held for its tail (see [`Hold`]).
    holds: Vec<Hold>,
    /// Per output port, when its VLs' heads expire (empty without limits).
    expiry: Vec<PortExpiry>,
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
        p.t_arrived = now - ctx.switch.input_stages;
        let bytes = p.bytes as u32;
        let multicast = p.flags & MULTICAST != 0;
        let alone = self.inputs[port].push(vl, &mut ctx.packets, id);
        ctx.metrics.input_buffered(now, bytes as i64);
        // Only the head of an input VL requests the crossbar; a packet that
        // arrives behind others requests when it becomes the head.
        if alone {
            if multicast {
                self.mc_request(ctx, port, vl, id);
                self.mc_pump(cx, ctx);
                return;
            }
            let out = self.set_ready(cx, ctx, port, vl, id);
            self.try_output_for(cx, ctx, out, port);
        }
    }

    /// The packet now at the head of input VL (`input`, `vl`), if any,
    /// requests its output (or, multicast, its tree's outputs).
    #[inline(always)]
    fn next_head(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize, vl: u8) {
        if let Some(next) = self.inputs[input].queue(vl).front(&ctx.packets) {
            if ctx.packets[next].flags & MULTICAST != 0 {
                self.mc_request(ctx, input, vl, next);
            } else {
                self.set_ready(cx, ctx, input, vl, next);
            }
        }
    }

    /// Packet `id` at the head of input VL (`input`, `vl`) requests the
    /// output its forwarding table gives (control packets: the
    /// shortest-path table; multipath packets: the multipath table with
    /// their path bits); returns that output. A transfer under way from the
    /// input or into the output now has a head waiting for its end.
    #[inline(always)]
    fn set_ready(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize, vl: u8, id: u32) -> usize {
        let p = &ctx.packets[id];
        let out = if vl == VL15 {
            lft::port(&ctx.lft, &self.control_table, p.dlid as usize) as u16
        } else if p.flags & MULTIPATH == 0 {
            lft::port(&ctx.lft, &self.data_table, p.dlid as usize) as u16
        } else {
            self.route_multipath(ctx, vl, id)
        };
        let p = &ctx.packets[id];
        let port = &mut self.inputs[input];
        port.set_head(vl, out as u8, credit_blocks(p, vl, ctx.switch.block));
        port.ready |= 1 << vl;
        if input < 64 {
            self.outputs[out as usize].wanting |= 1 << input;
        } else {
            let w = self.high_word(out as usize, input);
            self.wanting_high[w] |= 1 << (input % 64);
        }
        let out = out as usize;
        self.arm(cx, input);
        if cx.now() < self.outputs[out].busy_until {
            self.arm(cx, self.outputs[out].transfer_from as usize);
        }
        out
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

    /// The packet output `out` sends with its crossbar transfer has gone
    /// once the transfer has ended: its output VL space is free then. Done
    /// here, when the output is next looked at, not by an event.
    #[inline(always)]
    fn settle(&mut self, out: usize, now: Time) {
        let o = &mut self.outputs[out];
        if let Some(w) = o.gone_with_transfer(now) {
            o.on_wire = None;
            o.blocked = false;
            o.give(w.vl, w.blocks);
        }
    }

    /// Output VL (`out`, `vl`)'s free blocks at `now`, with the space a
    /// packet sent with its ended transfer freed (for views between events).
    fn free_at(&self, out: usize, vl: u8, now: Time) -> u16 {
        let o = &self.outputs[out];
        let gone = o.gone_with_transfer(now).filter(|w| w.vl == vl);
        o.free(vl).saturating_add(gone.map_or(0, |w| w.blocks))
    }

    /// Input VL (`input`, `vl`)'s head has gone; the input still wants its
    /// output if another of its VLs' heads requests it.
    #[inline]
    fn clear_ready(&mut self, input: usize, vl: u8) {
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
    fn wanting_vls(&self, input: usize, out: usize) -> u16 {
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
    fn wants(&self, out: usize, input: usize) -> bool {
        if input < 64 {
            self.outputs[out].wanting & (1 << input) != 0
        } else {
            self.wanting_high[self.high_word(out, input)] & (1 << (input % 64)) != 0
        }
    }

    /// The word of `wanting_high` that holds input `input` (64 or more) for output `out`.
    #[inline]
    fn high_word(&self, out: usize, input: usize) -> usize {
        out * (self.words() - 1) + input / 64 - 1
    }

    /// Whether the requesting head of input VL (`i`, `vl`) fits output VL
    /// (`out`, `vl`) (VL15 always does: it takes no blocks).
    #[inline]
    fn fits(&self, i: usize, out: usize, vl: u8) -> bool {
        // The head's byte first: most heads that do not fit fail on it, and
        // a byte of `MANY_BLOCKS` (255 or more) fits only where the whole count does.
        let (input, free) = (&self.inputs[i], self.outputs[out].free(vl));
        let byte = input.lanes[lane(vl)].blocks;
        byte as u16 <= free && (byte != MANY_BLOCKS || input.many_blocks(vl) <= free)
    }

    /// Stage 4: gives a free crossbar output to the next requesting input, round robin.
    fn try_output(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        let now = cx.now();
        if now < self.outputs[out].busy_until {
            return;
        }
        self.settle(out, now);
        self.serve_output(cx, ctx, out, now);
    }

    /// [`Self::try_output`] for output `out`, idle and settled at `now`.
    fn serve_output(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, now: Time) {
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
    fn try_output_for(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, i: usize) {
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
    fn offer(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, i: usize, out: usize) -> bool {
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
    fn try_input(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize) {
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
    fn start_transfer(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, input: usize, vl: u8, out: usize) {
        let now = cx.now();
        let port = &mut self.inputs[input];
        let blocks = port.head_blocks(vl);
        let id = port.pop(vl, &mut ctx.packets).expect("a requesting VL has a head packet");
        self.clear_ready(input, vl);
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
    fn enter_output(
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

    /// Stage 5: if output `out` is idle, the VL arbiter picks the next packet
    /// to send. `merge` is a packet whose crossbar transfer starts now and
    /// ends when its transmission would: if it is the one sent, the transfer's
    /// end event also ends the transmission.
    fn try_link(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize, merge: Option<u32>) {
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
            if let Some(mp) = &mut self.multipath {
                mp.used[out] += 1;
            }
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
        ctx.metrics.forwarded(&ctx.packets[id], t, wire.to.kind == ComponentKind::Switch);
        if !with_transfer {
            cx.push(start + t, self.index, SwitchEvent::Sent { port: out as u16 });
        }
        wire.send_from(cx, start, id, t);
        self.head_changed(cx, ctx, out, vl, next);
    }

    /// The head of output VL (`out`, `vl`) is now `head` (None: the VL is
    /// empty): its head-of-queue clock restarts, and the port's timer is
    /// brought forward if the new head expires first. Nothing without limits.
    #[inline(always)]
    fn head_changed(&mut self, cx: &mut impl SwitchContext, ctx: &Shared, out: usize, vl: u8, head: Option<u32>) {
        if let Some(l) = ctx.switch.lifetime {
            self.arm_expiry(cx, ctx, l, out, vl, head);
        }
    }

    /// [`Self::head_changed`] under lifetime limits (out of line: most
    /// fabrics have none, and the send path stays short).
    #[inline(never)]
    fn arm_expiry(
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
    fn on_sent(&mut self, cx: &mut impl SwitchContext, ctx: &mut Shared, out: usize) {
        self.free_output(out);
        self.try_output(cx, ctx, out);
        self.try_link(cx, ctx, out, None);
    }

    /// The packet on output `out`'s wire has gone: its output VL space is free.
    #[inline]
    fn free_output(&mut self, out: usize) {
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

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// What an event reads sits in the lines the layout promises: an input
    /// port's transfer, its heads' requests and where its credits go in its
    /// first line; an output port's state, requesting inputs, free space
    /// and where it sends in its first, then its sending side (a line per
    /// eight VLs' queues, heads and credits, then the held credits and the
    /// arbiter: `output_port.rs`); a
    /// switch's hot fields in its first; ports and switches start lines.
    #[test]
    fn hot_fields_share_the_lines_the_layout_promises() {
        assert_eq!((offset_of!(InPort, busy_until), offset_of!(InPort, feeder) + size_of::<PackedPort>()), (0, 16));
        assert_eq!((offset_of!(InPort, lanes), size_of::<InLane>()), (16, 6));
        assert_eq!((size_of::<InPort>(), std::mem::align_of::<InPort>()), (192, 64));
        assert_eq!(offset_of!(OutPort, to) + size_of::<PackedPort>(), 64);
        assert!(offset_of!(OutPort, free) < 64 && offset_of!(OutPort, busy_until) < 64);
        assert_eq!((offset_of!(OutPort, port), IbSwitch::OUTPUT_LINES), (64, [64, 128, 192]));
        assert_eq!((size_of::<OutPort>(), std::mem::align_of::<OutPort>()), (384, 64));
        assert_eq!(offset_of!(IbSwitch, replication) + 8, 64);
        assert_eq!(std::mem::align_of::<IbSwitch>(), 64);
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
