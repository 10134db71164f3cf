//! A host channel adapter (seed 003 Fig. 2). Send side: work requests
//! from the traffic sources are offered to its send queues (`flows.rs`:
//! a queue per SL, the HCA's buffer, every message counted, accepted or
//! refused); the port's VL arbiter picks a VL among those whose next packet
//! has credit for all of it at the switch's input VL; the send queues name
//! the message whose next MTU packet is cut (DMA is taken to outrun the
//! link, so a packet is ready as soon as the link can take it). Control
//! packets wait in their own queue and go on VL15, which has no credits.
//!
//! Receive side: the sink (`sink.rs`).

mod flow_queues;
mod flow_series;
mod flows;
mod reaction;
mod sink;
pub mod throttle;

use flow_queues::FlowQueues;
pub use flow_series::SeriesRow;
use flows::{Offered, SendQueues, SlBytes};

pub use super::hca_config::HcaConfig;
use super::message::Message;
use super::multicast::MULTICAST_LID;
use super::output_port::OutputPort;
use super::packet::{Packet, TrafficClass, DROPPABLE, MULTICAST, MULTIPATH};
use super::shared::Shared;
use super::vl::PortCredits;
use super::vl_arbiter::VlArbiter;
use super::wire::{Delivery, Wire};
use crate::kernel::Time;
use crate::sim::{ComponentKind, PortRef, Schedule};
use crate::traffic::video::PlayoutDeadlines;

/// The HCA's own events, carried with its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HcaEvent {
    /// The link has sent a packet's last byte, and something waits for it
    /// (a queued message, or credits that came back meanwhile).
    Sent,
    /// A flow held back by congestion control may send.
    Ready,
}

/// What an HCA schedules: its own events and deliveries over its cable.
pub trait HcaContext: Schedule<HcaEvent> + Schedule<Delivery> {}
impl<C: Schedule<HcaEvent> + Schedule<Delivery>> HcaContext for C {}

/// What an HCA needs at construction.
pub struct HcaSpec {
    pub index: u32,
    /// The cable to its switch port.
    pub wire: Wire,
    pub credits: PortCredits,
    pub arbiter: VlArbiter,
    /// Video streams it receives.
    pub streams: usize,
    /// Sources whose datagrams it checks for order (multipath; else 0).
    pub datagram_sources: usize,
    /// Per multicast stream (switch-replicated), its slot among the streams
    /// this HCA receives, or `NO_STREAM` if it is not a member.
    pub multicast_slots: Vec<u32>,
    /// Whether its sources react to BECNs (IBA Annex A10), with one CCTI
    /// per SL (`per_sl`) or per flow, and the interval of each flow's
    /// recorded series (0: none).
    pub reaction: Option<Reaction>,
}

/// How an HCA's sources react to congestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reaction {
    pub per_sl: bool,
    pub series_bin: Time,
}

/// An HCA. Its first cache line holds the SLs' send queues; its second
/// the rest of the send queues' state and all that a packet's delivery
/// reads of it and what a send reads besides its SL's queue and its port's
/// two hot lines, which follow (`repr(C)` keeps the order, and the port
/// aligns the HCA to a line). On a fabric of thousands of HCAs a send then
/// reads its first four lines, which the look ahead asks for, and a
/// delivery reads one.
#[repr(C)]
pub struct Hca {
    /// Its send queues and buffer: line 0 and the start of line 1.
    flows: SendQueues,
    /// The cable to this HCA's switch port.
    wire: Wire,
    /// Until when the link is sending a packet. Its end is an event only if
    /// something waits for the link then (`armed`): an idle HCA's next
    /// message finds the link free by the time alone.
    busy_until: Time,
    index: u32,
    armed: bool,
    /// Whether its sources react to congestion (`reaction` is set).
    throttled: bool,
    /// Whether it checks datagrams for order (`last_datagram` is not empty).
    checks_order: bool,
    /// Credits, held returns, VL arbiter and each VL's next-packet blocks.
    port: OutputPort,
    // Beyond: what only some packets read.
    /// The playout deadlines of the video streams this HCA receives, by
    /// their slot here (a frame's message carries it), and each stream's
    /// last frame number.
    deadlines: Vec<PlayoutDeadlines>,
    last_frame: Vec<u32>,
    /// Multipath: per source HCA, when the last reliable and unreliable
    /// datagram delivered here was created (empty otherwise).
    last_datagram: Vec<[Time; 2]>,
    /// See [`HcaSpec::multicast_slots`].
    multicast_slots: Vec<u32>,
    /// Bytes each SL queue holds when each has a buffer of its own.
    sl_bytes: SlBytes,
    /// Under congestion control, its data messages per flow and the BECNs it owes.
    reaction: Option<Box<FlowQueues>>,
}

impl Hca {
    /// Bytes of an HCA receiving `streams` video streams, before it is built.
    pub fn bytes_for(streams: u64) -> u64 {
        (std::mem::size_of::<Self>() as u64) + streams * (std::mem::size_of::<PlayoutDeadlines>() as u64 + 4)
    }

    pub fn new(spec: HcaSpec) -> Self {
        let HcaSpec { index, wire, credits, arbiter, streams, datagram_sources, multicast_slots, reaction } = spec;
        Hca {
            flows: SendQueues::new(),
            wire,
            busy_until: 0,
            index,
            armed: false,
            throttled: reaction.is_some(),
            checks_order: datagram_sources > 0,
            port: OutputPort::new(PortRef::new(ComponentKind::Hca, index, 0), credits, arbiter),
            deadlines: vec![PlayoutDeadlines::new(); streams],
            last_frame: vec![0; streams],
            last_datagram: vec![[0; 2]; datagram_sources],
            multicast_slots,
            sl_bytes: [0; 17],
            reaction: reaction.map(|r| Box::new(FlowQueues::new(r.per_sl, r.series_bin))),
        }
    }

    /// The sending side (its switch frees credits for it).
    #[inline]
    pub fn output_port(&mut self) -> &mut OutputPort {
        &mut self.port
    }

    pub fn queued_bytes(&self) -> u64 {
        self.flows.queued_bytes()
    }

    /// Bytes of the HCA's state (its queues are linked through the messages).
    pub fn memory_bytes(&self) -> u64 {
        (std::mem::size_of::<Self>()
            + self.deadlines.len() * (std::mem::size_of::<PlayoutDeadlines>() + 4)
            + self.last_datagram.len() * 16) as u64
    }

    /// Handles one of the HCA's own events.
    #[inline]
    pub fn handle(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, ev: HcaEvent) {
        match ev {
            HcaEvent::Sent => {
                self.armed = false;
                self.try_send(cx, sh);
            }
            HcaEvent::Ready => self.on_ready(cx, sh),
        }
    }

    /// A message from this HCA's sources (or a tool) is offered to its
    /// send queues, which count it; returns whether it was accepted.
    pub fn offer(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, msg: Message) -> bool {
        // Under congestion control data messages queue per flow, not per SL.
        let by_flow = self.throttled && msg.class != TrafficClass::Control;
        let Offered::Queued { id, heads } =
            self.flows.offer(&mut sh.messages, &sh.hca, &mut sh.metrics, &mut self.sl_bytes, msg, by_flow)
        else {
            return false;
        };
        sh.queued_messages += 1;
        if by_flow {
            let t = sh.throttling.as_deref().expect("a reacting HCA has the fabric's throttling");
            self.reaction.as_deref_mut().expect("a reacting HCA has flows").push(&mut sh.messages, t, &sh.hca, id);
        } else if let Some(vl) = heads {
            self.port.set_head_blocks(vl, sh.hca.blocks_of_next(&sh.messages[id]));
        }
        self.try_send(cx, sh);
        true
    }

    /// Starts the next packet if the link is idle and some VL can send; a
    /// busy link ends with an event, as something now waits for it.
    fn try_send(&mut self, cx: &mut impl HcaContext, sh: &mut Shared) {
        let now = cx.now();
        if now < self.busy_until {
            self.arm(cx);
            return;
        }
        if self.throttled {
            self.try_send_throttled(cx, sh, now);
            return;
        }
        let Some(vl) = self.port.pick(cx, self.flows.waiting_vls(), sh.hca.capacity) else {
            return;
        };
        self.send_queued(cx, sh, vl, now);
    }

    /// Sends the next packet of the message heading `vl` in the SL (or
    /// control) queues, chosen at `now`.
    #[inline(always)]
    fn send_queued(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, vl: u8, now: Time) {
        let m = self.flows.head(&sh.messages, &sh.hca, vl).expect("the arbiter chose a VL with a message");
        let (packet, payload, last, copies) = Self::cut(sh, vl, m, now);
        self.port.sent(vl, packet.bytes as u32);
        // After its last packet, the message's queue has a new head, or none.
        sh.queued_messages -= last as u64;
        if let Some(next) = self.flows.sent(&mut sh.messages, &sh.hca, &mut self.sl_bytes, vl, m, payload, last) {
            self.port.set_head_blocks(vl, sh.hca.blocks_of_next(&sh.messages[next]));
        }
        self.launch(cx, sh, packet, copies, false);
    }

    /// Cuts message `m`'s next packet, on `vl` at `now`: the packet, its
    /// payload bytes, whether it is the message's last, and the members a
    /// switch-replicated one is delivered to (0: unicast).
    #[inline(always)]
    fn cut(sh: &mut Shared, vl: u8, m: u32, now: Time) -> (Packet, u64, bool, u16) {
        let msg = &mut sh.messages[m];
        let i = msg.sent;
        let bytes = msg.seg.wire_bytes(i);
        let mut packet = Packet {
            t_created: msg.t_created,
            t_arrived: now,
            message: m,
            next: 0,
            dlid: msg.dst as u16,
            bytes: bytes as u16,
            sl: msg.sl,
            vl,
            class: msg.class,
            flags: Packet::flags_in_frame(&msg.seg, i, msg.class, msg.protected, msg.frame_edges)
                | if msg.multipath { MULTIPATH } else { 0 },
        };
        let copies = msg.copies;
        if copies > 0 {
            // Switch-replicated: to the group's multicast LID, never dropped
            // (a copy's loss would have to be counted at every member below it).
            packet.dlid = MULTICAST_LID + msg.group;
            packet.flags = (packet.flags & !DROPPABLE) | MULTICAST;
        }
        msg.sent += 1;
        (packet, msg.seg.payload(i) as u64, msg.sent == msg.seg.packets, copies)
    }

    /// Puts `packet` on the link now, counted as injected (`cnp`: as a
    /// congestion notification, apart from the traffic's packets).
    #[inline(always)]
    fn launch(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, packet: Packet, copies: u16, cnp: bool) {
        let id = sh.packets.insert(packet);
        let t = sh.timing.wire_at(self.wire.rate, packet.bytes as u32);
        self.busy_until = packet.t_arrived + t;
        if cnp {
            sh.metrics.injected_cnp(&packet, t);
        } else {
            sh.metrics.injected(&packet, t);
        }
        if copies > 0 {
            sh.mc_set(id, copies);
            sh.metrics.counters.packets_injected[packet.class as usize] += copies as u64 - 1;
        }
        self.arm(cx);
        self.wire.send(cx, id, &mut sh.packets[id], t);
    }

    /// The link's end is an event if a message waits for it (one not
    /// yet handled: an earlier one may be due at this instant still).
    #[inline(always)]
    fn arm(&mut self, cx: &mut impl HcaContext) {
        if !self.armed && (self.flows.waiting_vls() != 0 || self.throttled && self.flows_waiting()) {
            self.armed = true;
            cx.push(self.busy_until, self.index, HcaEvent::Sent);
        }
    }

    /// Credits for `vl` come back from the switch.
    pub fn on_credit(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, vl: u8, blocks: u32) {
        self.port.on_credit(vl, blocks, sh.hca.capacity);
        self.try_send(cx, sh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn a_delivery_reads_one_line_and_a_send_four() {
        // Every SL's queue in line 0, everything else but the port in line 1,
        // then the port's two hot lines.
        assert_eq!(align_of::<Hca>(), 64);
        assert_eq!((offset_of!(Hca, flows), size_of::<[crate::ib::ring::Ring<Message>; 16]>()), (0, 64));
        for end in [
            offset_of!(Hca, flows) + size_of::<SendQueues>(),
            offset_of!(Hca, wire) + size_of::<Wire>(),
            offset_of!(Hca, index) + 4,
            offset_of!(Hca, busy_until) + 8,
            offset_of!(Hca, armed) + 1,
            offset_of!(Hca, checks_order) + 1,
        ] {
            assert!((64..=128).contains(&end), "a line-1 field ends at byte {end}");
        }
        assert_eq!(offset_of!(Hca, port), 128);
        assert!(offset_of!(Hca, deadlines) >= offset_of!(Hca, port) + size_of::<OutputPort>());
    }
}
