//! An HCA's receive side: the sink takes packets whole at link rate and
//! frees their VL space at once, returning credits to the switch; it
//! records each packet's latency and, for the last packet of a video frame,
//! judges the frame against its stream's playout deadline; with multipath,
//! it checks datagrams for order.

use super::Hca;
use super::HcaContext;
use crate::ib::message::{FRAME_LAST, NO_STREAM};
use crate::ib::multicast::NO_GROUP;
use crate::ib::packet::{Packet, TrafficClass, BECN, FECN, MULTICAST};
use crate::ib::shared::Shared;
use crate::ib::vl::{blocks_for, VL15};

impl Hca {
    /// `p`'s VL space is free at once: its credits go back to the switch
    /// (VL15 takes none).
    #[inline(always)]
    pub(super) fn free_space(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, p: &Packet) {
        if p.vl != VL15 {
            sh.free(self.wire.return_credit(cx, p.vl, blocks_for(p.bytes as u32, sh.hca.block) as u16));
        }
    }

    /// The sink takes `packet` whole: its latency, its VL space free at
    /// once (credits back to the switch), and for a frame's last packet
    /// its playout deadline.
    #[inline]
    pub fn on_packet(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, packet: u32) {
        let now = cx.now();
        let p = sh.packets[packet];
        // Congestion control's bits: one test on the path without it.
        if p.flags & (BECN | FECN) != 0 && self.congestion_bits(cx, sh, packet, &p) {
            return;
        }
        if self.throttled {
            self.count_received();
        }
        let multicast = p.flags & MULTICAST != 0;
        debug_assert!(multicast || p.dlid as u32 == self.index, "packet delivered to the wrong HCA");
        sh.metrics.delivered(now, &p);
        self.free_space(cx, sh, &p);
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
        // follows the others on their path; paced, by the message holding it.
        if p.is_last() && msg.stream != NO_STREAM && msg.frame_edges & FRAME_LAST != 0 {
            let slot = if multicast { self.multicast_slots[msg.stream as usize] } else { msg.stream } as usize;
            debug_assert_ne!(slot, NO_STREAM as usize, "a multicast frame delivered to a non-member");
            let late = self.deadlines[slot].on_frame_number(msg.frame as u64, msg.frame_release, now);
            // (Read field by field: `msg` borrows the messages.)
            let marked =
                !multicast && sh.frame_damage[sh.slot_base[self.index as usize] as usize + slot] == msg.frame + 1;
            let damaged = msg.dropped > 0 || marked;
            sh.metrics.frame(now - msg.frame_release, late, damaged);
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
