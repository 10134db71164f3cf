//! An HCA's send queues, between its traffic sources and its output port
//! (seed 003 Fig. 2: "a queue for each SL"). Every message offered is
//! counted here: accepted into its SL's queue (control messages into their
//! own, sent on VL15) while the HCA's buffer holds its payload, else
//! refused. The port asks which message cuts the next packet of a VL: the
//! highest SL of that VL with one waiting (the study's prioritized QP
//! scheduling), first come, first served within the SL whatever the
//! message's destination, as the study's queue pairs of one SL are served
//! in the order of their work requests.
//!
//! Congestion control will throttle flows (a destination's messages from
//! this HCA, on an SL) one by one: the head of an SL is then its first
//! message whose flow may send, so one flow's wait holds no other back,
//! and each flow keeps its own order, as a queue per flow served in
//! arrival order would.

use super::super::hca_config::{HcaConfig, NO_VL};
use super::super::message::Message;
use super::super::metrics::IbMetrics;
use super::super::packet::TrafficClass;
use super::super::ring::Ring;
use super::super::vl::VL15;
use crate::kernel::Arena;

/// The queues, their buffer and the VLs with a message waiting. The SLs'
/// queues fill the HCA's first cache line, the rest starts its second
/// (`repr(C)` keeps the order; see the HCA's layout test).
#[repr(C)]
pub(super) struct SendQueues {
    /// Messages waiting, per SL (FCFS), linked through the messages
    /// themselves: 4 bytes a queue, one line for all.
    sl: [Ring<Message>; 16],
    /// Payload bytes of messages waiting to be sent, against the buffer.
    queued_bytes: u64,
    /// Control messages waiting (they go on VL15).
    control: Ring<Message>,
    /// Per data VL: whether some SL of it has a message waiting (bit mask,
    /// VL15 for the control queue).
    waiting_vls: u16,
}

/// Bytes each SL's queue holds (the last entry: the control queue's), when
/// each has a buffer of its own (`HcaConfig::per_sl`); kept apart
/// from the queues' line, as only a message's arrival and its last packet
/// read it.
pub(super) type SlBytes = [u64; 17];
const CONTROL_QUEUE: usize = 16;

/// What offering a message did.
pub(super) enum Offered {
    /// Refused: the buffer cannot hold it.
    Refused,
    /// Queued as message `id`; `heads`: the VL it heads now (its first
    /// packet is the VL's next, whose credit blocks the port must learn).
    Queued { id: u32, heads: Option<u8> },
}

impl SendQueues {
    pub(super) fn new() -> Self {
        SendQueues { sl: Default::default(), queued_bytes: 0, control: Ring::default(), waiting_vls: 0 }
    }

    /// Payload bytes waiting to be sent.
    pub(super) fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// The VLs with a message waiting (bit mask; VL15: control).
    #[inline(always)]
    pub(super) fn waiting_vls(&self) -> u16 {
        self.waiting_vls
    }

    /// Offers `msg` from the HCA's sources (or a tool) and counts it in
    /// `metrics`, accepted or refused; an accepted one joins its queue.
    pub(super) fn offer(
        &mut self,
        messages: &mut Arena<Message>,
        config: &HcaConfig,
        metrics: &mut IbMetrics,
        sl_bytes: &mut SlBytes,
        msg: Message,
        by_flow: bool,
    ) -> Offered {
        // The record is made before the buffer is asked, and a refused
        // one's slot freed, so that records are numbered as they always were.
        let id = messages.insert(msg);
        let bytes = msg.seg.payload_bytes();
        let queue = if msg.class == TrafficClass::Control { CONTROL_QUEUE } else { msg.sl.get() as usize };
        let held = if config.per_sl { sl_bytes[queue] } else { self.queued_bytes };
        let accepted = held + bytes <= config.buffer_bytes;
        if !accepted {
            messages.remove(id);
            // A refused multicast frame misses at every member.
            if msg.copies > 1 {
                metrics.frame_refused_at_members(msg.copies as u32 - 1);
            }
        }
        metrics.message_generated(msg.class, msg.seg.total_wire_bytes(), accepted);
        if !accepted {
            return Offered::Refused;
        }
        self.queued_bytes += bytes;
        if config.per_sl {
            sl_bytes[queue] += bytes;
        }
        if msg.class == TrafficClass::Control {
            self.control.push_back(messages, id);
            self.waiting_vls |= 1 << VL15;
            return Offered::Queued { id, heads: None };
        }
        if by_flow {
            // Queued per flow by the caller (congestion control).
            return Offered::Queued { id, heads: None };
        }
        let sl = msg.sl.get() as usize;
        self.sl[sl].push_back(messages, id);
        // An SL without a VL is never sent (as the arbiter never sees it).
        let vl = config.sl_vl[sl];
        if vl == NO_VL {
            return Offered::Queued { id, heads: None };
        }
        self.waiting_vls |= 1 << vl;
        let heads = self.head(messages, config, vl) == Some(id);
        Offered::Queued { id, heads: heads.then_some(vl) }
    }

    /// The message whose next packet goes on `vl`: the highest SL of the
    /// VL with one waiting (VL15: the control queue's first).
    #[inline]
    pub(super) fn head(&self, messages: &Arena<Message>, config: &HcaConfig, vl: u8) -> Option<u32> {
        if vl == VL15 {
            return self.control.front(messages);
        }
        let mut mask = config.vl_sls[vl as usize];
        while mask != 0 {
            let sl = 15 - mask.leading_zeros() as usize;
            if let Some(m) = self.sl[sl].front(messages) {
                return Some(m);
            }
            mask &= !(1 << sl);
        }
        None
    }

    /// `payload` bytes of data message `m`, queued per flow, have gone:
    /// the buffer's share of it, and with its last packet its SL's.
    pub(super) fn sent_by_flow(
        &mut self,
        messages: &Arena<Message>,
        config: &HcaConfig,
        sl_bytes: &mut SlBytes,
        m: u32,
        payload: u64,
        last: bool,
    ) {
        self.queued_bytes -= payload;
        if last && config.per_sl {
            sl_bytes[messages[m].sl.get() as usize] -= messages[m].seg.payload_bytes();
        }
    }

    /// `payload` bytes of message `m`'s packet on `vl` have gone; if that
    /// was its last, it leaves its queue (and, with a buffer per SL, frees
    /// its bytes there), and the VL's next head is returned (None: the VL
    /// has no message waiting any more).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn sent(
        &mut self,
        messages: &mut Arena<Message>,
        config: &HcaConfig,
        sl_bytes: &mut SlBytes,
        vl: u8,
        m: u32,
        payload: u64,
        last: bool,
    ) -> Option<u32> {
        self.queued_bytes -= payload;
        if !last {
            return Some(m);
        }
        let queue = if vl == VL15 {
            self.control.pop_front(messages);
            CONTROL_QUEUE
        } else {
            let sl = messages[m].sl.get() as usize;
            self.sl[sl].pop_front(messages);
            sl
        };
        if config.per_sl {
            sl_bytes[queue] -= messages[m].seg.payload_bytes();
        }
        let next = self.head(messages, config, vl);
        if next.is_none() {
            self.waiting_vls &= !(1 << vl);
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::{Segmentation, ServiceLevel};
    use crate::ib::vl::SlToVl;
    use crate::ib::vl_numbers::VlNumbers;

    fn message(sl: u32, bytes: u64, class: TrafficClass) -> Message {
        let sl = ServiceLevel::new(sl, "sl").unwrap();
        Message { seg: Segmentation::new(bytes, class.mtu()), sl, class, ..Message::default() }
    }

    /// The buffer holds what it can and the rest is refused, each counted;
    /// a VL's head is its highest SL's first message, control goes on VL15,
    /// and a message leaves its queue with its last packet.
    #[test]
    fn messages_queue_per_sl_within_the_buffer_and_the_highest_sl_heads_its_vl() {
        // SLs 0 and 1 on VL 0, SL 2 on VL 1.
        let config = HcaConfig::new(
            &SlToVl::from_entries(&[0, 0, 1, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15], 2).unwrap(),
            64,
            66,
            10_000,
        );
        let mut metrics = IbMetrics::new(4, 1_000, &VlNumbers::used_first(&[0, 1], 2));
        let mut messages = Arena::with_capacity(8);
        let mut q = SendQueues::new();
        let mut sl_bytes = [0; 17];
        let mut offer = |q: &mut SendQueues, m| q.offer(&mut messages, &config, &mut metrics, &mut sl_bytes, m, false);
        let Offered::Queued { id: low, heads: Some(0) } = offer(&mut q, message(0, 4_000, TrafficClass::BestEffort))
        else {
            panic!("the first message heads VL 0")
        };
        let Offered::Queued { id: high, heads: Some(0) } = offer(&mut q, message(1, 4_000, TrafficClass::BestEffort))
        else {
            panic!("a higher SL of VL 0 heads it")
        };
        assert!(matches!(offer(&mut q, message(2, 4_000, TrafficClass::BestEffort)), Offered::Refused));
        let Offered::Queued { id: control, heads: None } = offer(&mut q, message(0, 100, TrafficClass::Control)) else {
            panic!("control is queued on VL15")
        };
        assert_eq!((q.queued_bytes(), q.waiting_vls()), (8_100, 1 << VL15 | 1));
        assert_eq!(metrics.counters.messages_refused, [0, 1, 0]);
        assert_eq!(metrics.counters.messages_generated, [0, 3, 1]);
        assert_eq!(q.head(&messages, &config, 0), Some(high));
        assert_eq!(q.head(&messages, &config, VL15), Some(control));
        assert_eq!(
            q.sent(&mut messages, &config, &mut [0; 17], 0, high, 2_000, false),
            Some(high),
            "not its last packet"
        );
        assert_eq!(
            q.sent(&mut messages, &config, &mut [0; 17], 0, high, 2_000, true),
            Some(low),
            "the lower SL's turn"
        );
        assert_eq!(q.sent(&mut messages, &config, &mut [0; 17], 0, low, 4_000, true), None);
        assert_eq!(q.sent(&mut messages, &config, &mut [0; 17], VL15, control, 100, true), None);
        assert_eq!((q.queued_bytes(), q.waiting_vls()), (0, 0));
    }

    /// With a buffer per SL, a queue whose buffer is full refuses only its
    /// own SL's messages: another SL's, and control, are still accepted,
    /// and a message frees its bytes when its last packet leaves.
    #[test]
    fn a_full_sl_buffer_refuses_that_sl_alone() {
        let config = HcaConfig::new(&SlToVl::modulo(15).unwrap(), 64, 66, 10_000).per_sl();
        let mut metrics = IbMetrics::new(4, 1_000, &VlNumbers::used_first(&[1, 8], 15));
        let mut messages = Arena::with_capacity(8);
        let mut sl_bytes = [0; 17];
        let mut q = SendQueues::new();
        let mut offer = |q: &mut SendQueues, messages: &mut Arena<Message>, sl_bytes: &mut SlBytes, m| {
            q.offer(messages, &config, &mut metrics, sl_bytes, m, false)
        };
        let Offered::Queued { id: backlog, .. } =
            offer(&mut q, &mut messages, &mut sl_bytes, message(8, 9_000, TrafficClass::BestEffort))
        else {
            panic!("within SL 8's 10,000 bytes")
        };
        assert!(matches!(
            offer(&mut q, &mut messages, &mut sl_bytes, message(8, 2_000, TrafficClass::BestEffort)),
            Offered::Refused
        ));
        assert!(matches!(
            offer(&mut q, &mut messages, &mut sl_bytes, message(1, 9_000, TrafficClass::RealTime)),
            Offered::Queued { .. }
        ));
        assert!(matches!(
            offer(&mut q, &mut messages, &mut sl_bytes, message(0, 200, TrafficClass::Control)),
            Offered::Queued { .. }
        ));
        assert_eq!((sl_bytes[8], sl_bytes[1], sl_bytes[16]), (9_000, 9_000, 200));
        // The backlog's message leaves with its last packet: SL 8 takes messages again.
        q.sent(&mut messages, &config, &mut sl_bytes, 8, backlog, 9_000, true);
        assert_eq!(sl_bytes[8], 0);
        assert!(matches!(
            offer(&mut q, &mut messages, &mut sl_bytes, message(8, 2_000, TrafficClass::BestEffort)),
            Offered::Queued { .. }
        ));
    }
}
