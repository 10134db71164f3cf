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
//! Receive side: the sink takes packets at link rate and frees their VL
//! space at once, returning credits to the switch.

use super::credit_return::CreditReturn;
use super::fabric::{Ctx, Event};
use super::fifo::Fifo;
use super::message::Message;
use super::packet::{Packet, TrafficClass};
use super::vl::{blocks_for, PortCredits, SlToVl, VL15};
use super::vl_arbiter::VlArbiter;
use crate::kernel::{Arena, EventSet};
use crate::sim::Link;

/// `SendQueues::sl_vl` of an SL that maps to no VL.
const NO_VL: u8 = 16;

/// Messages waiting to be sent, per SL, and the control queue, linked
/// through the messages themselves (8 bytes a queue).
struct SendQueues {
    /// Per data VL: whether some SL of it has a message waiting (bit mask,
    /// VL15 for the control queue).
    waiting_vls: u16,
    /// Messages waiting over all queues.
    len: u32,
    /// Per data VL: the SLs that map onto it, as a bit mask.
    vl_sls: [u16; 16],
    /// The VL of each SL ([`NO_VL`] for an SL without one).
    sl_vl: [u8; 16],
    /// Messages waiting, per SL (FCFS).
    sl: [Fifo<Message>; 16],
    control: Fifo<Message>,
}

impl SendQueues {
    /// The message whose next packet goes on `vl`: the highest SL of the VL with one waiting.
    #[inline]
    fn head(&self, vl: u8) -> Option<u32> {
        if vl == VL15 {
            return self.control.front();
        }
        let mut mask = self.vl_sls[vl as usize];
        while mask != 0 {
            let sl = 15 - mask.leading_zeros() as usize;
            if let Some(m) = self.sl[sl].front() {
                return Some(m);
            }
            mask &= !(1 << sl);
        }
        None
    }

    fn push(&mut self, messages: &mut Arena<Message>, m: u32, class: TrafficClass, sl: usize) {
        self.len += 1;
        if class == TrafficClass::Control {
            self.control.push_back(messages, m);
            self.waiting_vls |= 1 << VL15;
        } else {
            self.sl[sl].push_back(messages, m);
            // An SL without a VL is never sent (as the arbiter never sees it).
            if self.sl_vl[sl] != NO_VL {
                self.waiting_vls |= 1 << self.sl_vl[sl];
            }
        }
    }

    /// The head message of `vl` has sent its last packet.
    fn pop(&mut self, messages: &Arena<Message>, vl: u8, sl: usize) {
        self.len -= 1;
        if vl == VL15 {
            self.control.pop_front(messages);
        } else {
            self.sl[sl].pop_front(messages);
        }
        if self.head(vl).is_none() {
            self.waiting_vls &= !(1 << vl);
        }
    }
}

pub struct Hca {
    index: u32,
    /// The cable to this HCA's switch port.
    link: Link,
    queues: SendQueues,
    credits: PortCredits,
    /// Credits the switch has freed and this HCA has not taken yet.
    returns: CreditReturn,
    /// Per data VL: credit blocks of its head message's next packet, kept
    /// as the head changes or sends, so a pick reads no message to test credits.
    next_blocks: [u16; 16],
    /// Bytes per credit block.
    block: u32,
    arbiter: VlArbiter,
    sending: bool,
    /// Payload bytes of messages waiting to be sent, against the buffer.
    queued_bytes: u64,
    buffer_bytes: u64,
    /// Messages refused for want of buffer space, per class.
    pub refused: [u64; 3],
}

impl Hca {
    pub fn new(
        index: u32,
        link: Link,
        sl_to_vl: &SlToVl,
        credits: PortCredits,
        arbiter: VlArbiter,
        buffer_bytes: u64,
    ) -> Self {
        let mut vl_sls = [0u16; 16];
        let mut sl_vl = [NO_VL; 16];
        for sl in 0..16u8 {
            if let Some(vl) = sl_to_vl.vl(super::packet::ServiceLevel::new(sl as u32, "").expect("SL below 16")) {
                vl_sls[vl as usize] |= 1 << sl;
                sl_vl[sl as usize] = vl;
            }
        }
        Hca {
            index,
            link,
            queues: SendQueues {
                waiting_vls: 0,
                len: 0,
                vl_sls,
                sl_vl,
                sl: Default::default(),
                control: Fifo::default(),
            },
            credits,
            returns: CreditReturn::default(),
            next_blocks: [0; 16],
            block: credits.vl(0).block_bytes(),
            arbiter,
            sending: false,
            queued_bytes: 0,
            buffer_bytes,
            refused: [0; 3],
        }
    }

    /// Credit blocks of `msg`'s next packet.
    #[inline]
    fn blocks_of_next(&self, msg: &Message) -> u16 {
        blocks_for(msg.next_packet_bytes(), self.block) as u16
    }

    /// The credits held for this HCA (its switch frees them).
    #[inline]
    pub fn returns_mut(&mut self) -> &mut CreditReturn {
        &mut self.returns
    }

    pub fn link(&self) -> Link {
        self.link
    }

    /// Messages waiting at this HCA.
    pub fn queued_messages(&self) -> usize {
        self.queues.len as usize
    }

    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Bytes of the HCA's state (its queues are linked through the messages).
    pub fn memory_bytes(&self) -> u64 {
        std::mem::size_of::<Self>() as u64
    }

    /// A new message `m` from this HCA's sources: queued, or refused if the
    /// buffer is full. Returns whether it was accepted.
    pub fn enqueue(&mut self, ctx: &mut Ctx, m: u32) -> bool {
        let msg = ctx.messages[m];
        let bytes = msg.seg.payload_bytes();
        if self.queued_bytes + bytes > self.buffer_bytes {
            self.refused[msg.class as usize] += 1;
            return false;
        }
        self.queued_bytes += bytes;
        let sl = msg.sl.get() as usize;
        self.queues.push(ctx.messages, m, msg.class, sl);
        let vl = self.queues.sl_vl[sl];
        if msg.class != TrafficClass::Control && vl != NO_VL && self.queues.head(vl) == Some(m) {
            self.next_blocks[vl as usize] = self.blocks_of_next(&msg);
        }
        self.try_send(ctx);
        true
    }

    /// Starts the next packet if the link is idle and some VL can send.
    pub fn try_send(&mut self, ctx: &mut Ctx) {
        if self.sending {
            return;
        }
        let credits = &mut self.credits;
        self.returns.take_due(ctx.queue.current_key(), |vl, blocks| credits.restore(vl, blocks));
        // The VLs whose next packet has credit for all of it, found once.
        let mut sendable = 0u16;
        let mut waiting = self.queues.waiting_vls;
        while waiting != 0 {
            let vl = waiting.trailing_zeros() as u8;
            waiting &= waiting - 1;
            if credits.can_send_blocks(vl, self.next_blocks[(vl & 15) as usize]) {
                sendable |= 1 << vl;
            }
        }
        let picked = if sendable == 0 { None } else { self.arbiter.select_mask(sendable) };
        // Waiting for credit only with something to send.
        let hca = self.index;
        self.returns.set_waiting(picked.is_none() && self.queues.waiting_vls != 0, ctx.queue, |vl, blocks| {
            Event::HcaCredit { hca, vl, blocks }
        });
        let Some(vl) = picked else {
            return;
        };
        let m = self.queues.head(vl).expect("the arbiter chose a VL with a message");
        let msg = &mut ctx.messages[m];
        let i = msg.sent;
        let bytes = msg.seg.wire_bytes(i);
        let packet = Packet {
            t_created: msg.t_created,
            t_arrived: ctx.now,
            message: m,
            next: 0,
            dlid: msg.dst as u16,
            bytes: bytes as u16,
            sl: msg.sl,
            vl,
            class: msg.class,
            flags: Packet::flags_for(&msg.seg, i, msg.class, msg.protected),
        };
        msg.sent += 1;
        let blocks = self.next_blocks[(vl & 15) as usize];
        self.queued_bytes -= msg.seg.payload(i) as u64;
        if msg.sent == msg.seg.packets {
            let sl = msg.sl.get() as usize;
            self.queues.pop(ctx.messages, vl, sl);
            if let Some(next) = self.queues.head(vl) {
                self.next_blocks[(vl & 15) as usize] = self.blocks_of_next(&ctx.messages[next]);
            }
        } else {
            self.next_blocks[(vl & 15) as usize] = self.blocks_of_next(msg);
        }
        self.credits.consume_blocks(vl, blocks);
        self.arbiter.on_sent(vl, bytes);
        self.sending = true;
        let id = ctx.packets.insert(packet);
        let wire = ctx.timing.wire(bytes);
        ctx.metrics.injected(&packet, wire);
        ctx.queue.push(ctx.now + wire, Event::HcaSent { hca: self.index });
        ctx.transmit(self.link, id, bytes);
    }

    /// The link has sent a packet's last byte.
    pub fn on_sent(&mut self, ctx: &mut Ctx) {
        self.sending = false;
        self.try_send(ctx);
    }

    /// Credits for `vl` come back from the switch.
    pub fn on_credit(&mut self, ctx: &mut Ctx, vl: u8, blocks: u32) {
        self.credits.restore(vl, blocks);
        self.try_send(ctx);
    }
}
