//! A host channel adapter (seed 003 Fig. 2). Send side: work requests
//! arrive as messages in one FCFS queue per SL; the port's VL arbiter picks
//! a VL among those whose next packet has credit for all of it at the
//! switch's input VL; on that VL the highest SL with a waiting message
//! goes first (the seed's prioritized QP scheduling), and its next MTU
//! packet is cut (DMA is taken to outrun the link, so a packet is ready as
//! soon as the link can take it). Control packets wait in their own queue
//! and go on VL15, which has no credits. Messages are held in the HCA's
//! buffer until sent; one that does not fit is refused.
//!
//! Receive side: the sink takes packets whole at link rate and frees their
//! VL space at once, returning credits to the switch; it records each
//! packet's latency and, for the last packet of a video frame, judges the
//! frame against its stream's playout deadline.

pub use super::hca_config::HcaConfig;
use super::hca_config::NO_VL;
use super::message::{Message, NO_STREAM};
use super::multicast::{MULTICAST_LID, NO_GROUP};
use super::output_port::OutputPort;
use super::packet::{Packet, TrafficClass, DROPPABLE, MULTICAST, MULTIPATH};
use super::ring::Ring;
use super::shared::Shared;
use super::vl::{blocks_for, PortCredits, VL15};
use super::vl_arbiter::VlArbiter;
use super::wire::{Delivery, Wire};
use crate::kernel::{Arena, Time};
use crate::sim::{ComponentKind, PortRef, Schedule};
use crate::traffic::video::PlayoutDeadlines;

/// The HCA's own events, carried with its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HcaEvent {
    /// The link has sent a packet's last byte.
    Sent,
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
    /// Its message buffer, in bytes.
    pub buffer_bytes: u64,
    /// Video streams it receives.
    pub streams: usize,
    /// Sources whose datagrams it checks for order (multipath; else 0).
    pub datagram_sources: usize,
    /// Per multicast stream (switch-replicated), its slot among the streams
    /// this HCA receives, or `NO_STREAM` if it is not a member.
    pub multicast_slots: Vec<u32>,
}

/// An HCA. Its first cache line holds the SLs' send queues; its second
/// all that a packet's delivery reads of it and what a send reads besides
/// its SL's queue and its port's two hot lines, which follow (`repr(C)`
/// keeps the order, and the port aligns the HCA to a line). On a fabric of
/// thousands of HCAs a send then reads its first four lines, which the
/// look ahead asks for, and a delivery reads one.
#[repr(C)]
pub struct Hca {
    /// Messages waiting, per SL (FCFS), linked through the messages
    /// themselves: 4 bytes a queue, one line for all.
    sl: [Ring<Message>; 16],
    // Line 1.
    /// The cable to this HCA's switch port.
    wire: Wire,
    /// Payload bytes of messages waiting to be sent, against the buffer.
    queued_bytes: u64,
    buffer_bytes: u64,
    /// Control messages waiting (they go on VL15).
    control: Ring<Message>,
    index: u32,
    /// Per data VL: whether some SL of it has a message waiting (bit mask,
    /// VL15 for the control queue).
    waiting_vls: u16,
    sending: bool,
    /// Whether it checks datagrams for order (`last_datagram` is not empty).
    checks_order: bool,
    /// Credits, held returns, VL arbiter and each VL's next-packet blocks.
    port: OutputPort,
    // Beyond: what only some packets read.
    /// Messages refused for want of buffer space, per class.
    pub refused: [u64; 3],
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
}

impl Hca {
    /// Bytes of an HCA receiving `streams` video streams, before it is built.
    pub fn bytes_for(streams: u64) -> u64 {
        (std::mem::size_of::<Self>() as u64) + streams * (std::mem::size_of::<PlayoutDeadlines>() as u64 + 4)
    }

    pub fn new(spec: HcaSpec) -> Self {
        let HcaSpec { index, wire, credits, arbiter, buffer_bytes, streams, datagram_sources, multicast_slots } = spec;
        Hca {
            wire,
            queued_bytes: 0,
            buffer_bytes,
            control: Ring::default(),
            index,
            waiting_vls: 0,
            sending: false,
            checks_order: datagram_sources > 0,
            sl: Default::default(),
            port: OutputPort::new(PortRef::new(ComponentKind::Hca, index, 0), credits, arbiter),
            refused: [0; 3],
            deadlines: vec![PlayoutDeadlines::new(); streams],
            last_frame: vec![0; streams],
            last_datagram: vec![[0; 2]; datagram_sources],
            multicast_slots,
        }
    }

    /// The sending side (its switch frees credits for it).
    #[inline]
    pub fn output_port(&mut self) -> &mut OutputPort {
        &mut self.port
    }

    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Bytes of the HCA's state (its queues are linked through the messages).
    pub fn memory_bytes(&self) -> u64 {
        (std::mem::size_of::<Self>()
            + self.deadlines.len() * (std::mem::size_of::<PlayoutDeadlines>() + 4)
            + self.last_datagram.len() * 16) as u64
    }

    /// The message whose next packet goes on `vl`: the highest SL of the VL
    /// (`sls`, a bit per SL) with one waiting.
    #[inline]
    fn head(&self, messages: &Arena<Message>, vl: u8, sls: u16) -> Option<u32> {
        if vl == VL15 {
            return self.control.front(messages);
        }
        let mut mask = sls;
        while mask != 0 {
            let sl = 15 - mask.leading_zeros() as usize;
            if let Some(m) = self.sl[sl].front(messages) {
                return Some(m);
            }
            mask &= !(1 << sl);
        }
        None
    }

    /// Handles one of the HCA's own events.
    #[inline]
    pub fn handle(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, ev: HcaEvent) {
        match ev {
            HcaEvent::Sent => {
                self.sending = false;
                self.try_send(cx, sh);
            }
        }
    }

    /// A new message `m` from this HCA's sources: queued, or refused if the
    /// buffer is full. Returns whether it was accepted.
    pub fn enqueue(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, m: u32) -> bool {
        let msg = sh.messages[m];
        let bytes = msg.seg.payload_bytes();
        if self.queued_bytes + bytes > self.buffer_bytes {
            self.refused[msg.class as usize] += 1;
            return false;
        }
        self.queued_bytes += bytes;
        sh.queued_messages += 1;
        if msg.class == TrafficClass::Control {
            self.control.push_back(&mut sh.messages, m);
            self.waiting_vls |= 1 << VL15;
        } else {
            let sl = msg.sl.get() as usize;
            self.sl[sl].push_back(&mut sh.messages, m);
            // An SL without a VL is never sent (as the arbiter never sees it).
            let vl = sh.hca.sl_vl[sl];
            if vl != NO_VL {
                self.waiting_vls |= 1 << vl;
                if self.head(&sh.messages, vl, sh.hca.vl_sls[vl as usize]) == Some(m) {
                    self.port.set_head_blocks(vl, sh.hca.blocks_of_next(&msg));
                }
            }
        }
        self.try_send(cx, sh);
        true
    }

    /// Starts the next packet if the link is idle and some VL can send.
    fn try_send(&mut self, cx: &mut impl HcaContext, sh: &mut Shared) {
        if self.sending {
            return;
        }
        let Some(vl) = self.port.pick(cx, self.waiting_vls, sh.hca.capacity) else {
            return;
        };
        let sls = if vl == VL15 { 0 } else { sh.hca.vl_sls[vl as usize] };
        let m = self.head(&sh.messages, vl, sls).expect("the arbiter chose a VL with a message");
        let msg = &mut sh.messages[m];
        let i = msg.sent;
        let bytes = msg.seg.wire_bytes(i);
        let now = cx.now();
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
            flags: Packet::flags_for(&msg.seg, i, msg.class, msg.protected) | if msg.multipath { MULTIPATH } else { 0 },
        };
        let copies = msg.copies;
        if copies > 0 {
            // Switch-replicated: to the group's multicast LID, never dropped
            // (a copy's loss would have to be counted at every member below it).
            packet.dlid = MULTICAST_LID + msg.group;
            packet.flags = (packet.flags & !DROPPABLE) | MULTICAST;
        }
        msg.sent += 1;
        self.port.sent(vl, bytes);
        self.queued_bytes -= msg.seg.payload(i) as u64;
        if msg.sent == msg.seg.packets {
            // The message has sent its last packet: the next of the VL heads it.
            sh.queued_messages -= 1;
            if vl == VL15 {
                self.control.pop_front(&mut sh.messages);
            } else {
                self.sl[msg.sl.get() as usize].pop_front(&mut sh.messages);
            }
            match self.head(&sh.messages, vl, sls) {
                Some(next) => self.port.set_head_blocks(vl, sh.hca.blocks_of_next(&sh.messages[next])),
                None => self.waiting_vls &= !(1 << vl),
            }
        } else {
            self.port.set_head_blocks(vl, sh.hca.blocks_of_next(msg));
        }
        self.sending = true;
        let id = sh.packets.insert(packet);
        let t = sh.timing.wire_at(self.wire.rate, bytes);
        sh.metrics.injected(&packet, t);
        if copies > 0 {
            sh.mc_set(id, copies);
            sh.metrics.counters.packets_injected[packet.class as usize] += copies as u64 - 1;
        }
        cx.push(now + t, self.index, HcaEvent::Sent);
        self.wire.send(cx, id, &mut sh.packets[id], t);
    }

    /// Credits for `vl` come back from the switch.
    pub fn on_credit(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, vl: u8, blocks: u32) {
        self.port.on_credit(vl, blocks, sh.hca.capacity);
        self.try_send(cx, sh);
    }

    /// The sink takes `packet` whole: its latency, its VL space free at
    /// once (credits back to the switch), and for a frame's last packet
    /// its playout deadline.
    #[inline]
    pub fn on_packet(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, packet: u32) {
        let now = cx.now();
        let p = sh.packets[packet];
        let multicast = p.flags & MULTICAST != 0;
        debug_assert!(multicast || p.dlid as u32 == self.index, "packet delivered to the wrong HCA");
        sh.metrics.delivered(now, &p);
        if p.vl != VL15 {
            sh.free(self.wire.return_credit(cx, p.vl, blocks_for(p.bytes as u32, sh.hca.block) as u16));
        }
        if multicast {
            let members = sh.mc_clear(packet);
            debug_assert_eq!(members, 1, "a copy reaching an HCA stands for that member alone");
        }
        sh.packets.remove(packet);
        let msg = &mut sh.messages[p.message];
        if msg.group != NO_GROUP {
            sh.metrics.multicast_delivered(now - p.t_created);
        }
        // A frame is judged by its last packet (never dropped), which
        // follows the others on their path.
        if p.is_last() && msg.stream != NO_STREAM {
            let slot = if multicast { self.multicast_slots[msg.stream as usize] } else { msg.stream } as usize;
            debug_assert_ne!(slot, NO_STREAM as usize, "a multicast frame delivered to a non-member");
            let late = self.deadlines[slot].on_frame_number(msg.frame as u64, msg.t_created, now);
            sh.metrics.frame(now - msg.t_created, late, msg.dropped > 0);
            let c = &mut sh.metrics.counters;
            c.frames_out_of_order += (msg.frame < self.last_frame[slot]) as u64;
            self.last_frame[slot] = self.last_frame[slot].max(msg.frame);
        } else if p.is_last() && self.checks_order && msg.class == TrafficClass::BestEffort {
            let last = &mut self.last_datagram[msg.src as usize][msg.reliable as usize];
            let c = &mut sh.metrics.counters;
            let late = (msg.t_created < *last) as u64;
            if msg.reliable {
                c.reliable_out_of_order += late;
            } else {
                c.unreliable_out_of_order += late;
            }
            *last = (*last).max(msg.t_created);
        }
        if msg.packet_done() {
            sh.messages.remove(p.message);
        }
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
        assert_eq!((offset_of!(Hca, sl), size_of::<[Ring<Message>; 16]>()), (0, 64));
        for end in [
            offset_of!(Hca, wire) + size_of::<Wire>(),
            offset_of!(Hca, queued_bytes) + 8,
            offset_of!(Hca, buffer_bytes) + 8,
            offset_of!(Hca, control) + 4,
            offset_of!(Hca, index) + 4,
            offset_of!(Hca, waiting_vls) + 2,
            offset_of!(Hca, sending) + 1,
            offset_of!(Hca, checks_order) + 1,
        ] {
            assert!((64..=128).contains(&end), "a line-1 field ends at byte {end}");
        }
        assert_eq!(offset_of!(Hca, port), 128);
        assert!(offset_of!(Hca, refused) >= offset_of!(Hca, port) + size_of::<OutputPort>());
    }
}
