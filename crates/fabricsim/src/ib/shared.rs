//! What every component of one InfiniBand fabric reads and writes besides
//! its own state: the packet and message records (packets travel by arena
//! index), the link timing, the metrics, and the credits the event being
//! handled has freed at a receiver, which the assembly hands to their
//! sender once the event is done (a component cannot reach another's state).

use super::lifetime::DropReason;
use super::message::Message;
use super::metrics::IbMetrics;
use super::packet::Packet;
use super::timing::IbTiming;
use super::wire::FreedCredit;
use crate::kernel::Arena;

pub struct Shared {
    pub packets: Arena<Packet>,
    pub messages: Arena<Message>,
    pub timing: IbTiming,
    pub metrics: IbMetrics,
    /// Credits freed by the event being handled (one packet's at most).
    pub freed: Option<FreedCredit>,
}

impl Shared {
    /// Records credits freed by this event.
    #[inline]
    pub fn free(&mut self, c: FreedCredit) {
        debug_assert!(self.freed.is_none(), "an event frees one packet's credits");
        self.freed = Some(c);
    }

    /// Drops a packet a switch held past its lifetime limit: counted by
    /// class and reason; its message (a video frame) is damaged.
    pub fn drop_packet(&mut self, packet: u32, reason: DropReason) {
        let p = self.packets[packet];
        self.metrics.dropped(&p, reason);
        self.packets.remove(packet);
        let m = &mut self.messages[p.message];
        m.dropped += 1;
        if m.packet_done() {
            self.messages.remove(p.message);
        }
    }

    /// Discards a packet (its SL has no VL here) and counts it.
    pub fn discard(&mut self, packet: u32) {
        self.metrics.discarded();
        let m = self.packets[packet].message;
        self.packets.remove(packet);
        if self.messages[m].packet_done() {
            self.messages.remove(m);
        }
    }
}
