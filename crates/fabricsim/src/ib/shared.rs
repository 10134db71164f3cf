//! What every component of one InfiniBand fabric reads and writes besides
//! its own state: the packet and message records (packets travel by arena
//! index), the link timing, the metrics, and the credits the event being
//! handled has freed at a receiver, which the assembly hands to their
//! sender once the event is done (a component cannot reach another's state).

use super::congestion::Throttling;
use super::hca_config::HcaConfig;
use super::lft::BLOCK;
use super::lifetime::DropReason;
use super::message::{Message, NO_STREAM};
use super::metrics::IbMetrics;
use super::packet::{Packet, MULTICAST};
use super::switch_config::SwitchConfig;
use super::timing::IbTiming;
use super::wire::{FreedCredit, ReferenceCables};
use crate::kernel::Arena;
use crate::sim::{Deferred, PortRef};

pub struct Shared {
    pub packets: Arena<Packet>,
    pub messages: Arena<Message>,
    pub timing: IbTiming,
    /// The fabric's cables at its reference rate (a one-rate switch sends over these).
    pub cables: ReferenceCables,
    /// What every switch shares.
    pub switch: SwitchConfig,
    /// What every HCA shares.
    pub hca: HcaConfig,
    /// How the HCAs react to BECNs (IBA Annex A10), when they do.
    pub throttling: Option<Box<Throttling>>,
    /// Messages waiting in the HCAs' send queues, over all HCAs.
    pub queued_messages: u64,
    /// Packets through the crossbars, over all switches (one per packet per
    /// switch crossed), for utilization and bench figures.
    pub transfers: u64,
    pub metrics: IbMetrics,
    /// Credits freed by the event being handled.
    pub freed: FreedCredits,
    /// The blocks of every switch's forwarding tables (`lft.rs`).
    pub lft: Box<[[u8; BLOCK]]>,
    /// Multicast: per packet record, the member deliveries it stands for
    /// (a copy on its way to k members counts k in the audit); the live
    /// multicast records and the sum of what they stand for.
    pub cover: Vec<u16>,
    pub mc_records: u64,
    pub mc_cover: u64,
    /// Per video stream at its destination (entry `slot_base[dst] + slot`),
    /// the number + 1 of its latest frame that lost a packet to a switch (0:
    /// none): a paced frame is a message per packet, so the message with its
    /// last packet learns here that an earlier one was dropped.
    pub frame_damage: Vec<u32>,
    pub slot_base: Vec<u32>,
}

/// Credits the event being handled has freed, in the order freed: a few
/// packets' at most (each crossbar transfer the event starts frees its
/// packet's at its start), so kept in place; any beyond in a list.
#[derive(Debug)]
pub struct FreedCredits {
    pub len: usize,
    pub inline: [FreedCredit; FreedCredits::INLINE],
    pub more: Vec<FreedCredit>,
}

impl FreedCredits {
    pub const INLINE: usize = 4;

    pub fn new() -> Self {
        let none = FreedCredit { to: PortRef::switch(u32::MAX, u16::MAX), key: Deferred::NEVER, vl: 0, blocks: 0 };
        FreedCredits { len: 0, inline: [none; Self::INLINE], more: Vec::new() }
    }

    #[inline(always)]
    fn push(&mut self, c: FreedCredit) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = c,
            None => self.more.push(c),
        }
        self.len += 1;
    }
}

impl Default for FreedCredits {
    fn default() -> Self {
        Self::new()
    }
}

impl Shared {
    /// Records credits freed by this event.
    #[inline]
    pub fn free(&mut self, c: FreedCredit) {
        self.freed.push(c);
    }

    /// Multicast record `id` now stands for `members` deliveries.
    #[inline]
    pub fn mc_set(&mut self, id: u32, members: u16) {
        let i = id as usize;
        if i >= self.cover.len() {
            self.cover.resize((i + 1).next_power_of_two(), 0);
        }
        self.cover[i] = members;
        self.mc_records += 1;
        self.mc_cover += members as u64;
    }

    /// Multicast record `id` is gone (delivered, or replaced by its copies);
    /// returns the deliveries it stood for.
    #[inline]
    pub fn mc_clear(&mut self, id: u32) -> u16 {
        let c = self.cover[id as usize];
        self.mc_records -= 1;
        self.mc_cover -= c as u64;
        c
    }

    /// Packet records alive counted as deliveries still due: a multicast
    /// record counts the members it stands for.
    pub fn deliveries_in_flight(&self) -> u64 {
        self.packets.live() as u64 - self.mc_records + self.mc_cover
    }

    /// Drops a packet a switch held past its lifetime limit: counted by
    /// class and reason; its message (a video frame) is damaged.
    pub fn drop_packet(&mut self, packet: u32, reason: DropReason) {
        let p = self.packets[packet];
        self.metrics.dropped(&p, reason);
        self.packets.remove(packet);
        let m = &mut self.messages[p.message];
        m.dropped += 1;
        if m.stream != NO_STREAM && m.copies == 0 {
            self.frame_damage[(self.slot_base[m.dst as usize] + m.stream) as usize] = m.frame + 1;
        }
        if m.packet_done() {
            self.messages.remove(p.message);
        }
    }

    /// Discards a packet (its SL has no VL here) and counts it.
    pub fn discard(&mut self, packet: u32) {
        let p = self.packets[packet];
        let n = if p.flags & MULTICAST != 0 { self.mc_clear(packet) } else { 1 };
        self.packets.remove(packet);
        for _ in 0..n {
            self.metrics.discarded();
            if self.messages[p.message].packet_done() {
                self.messages.remove(p.message);
            }
        }
    }
}
