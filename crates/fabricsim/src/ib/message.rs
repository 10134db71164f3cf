//! A message at an HCA: a video frame, a best-effort message or a control
//! packet, from its arrival at the source's send queue until its last
//! packet is delivered. Packets refer to it by arena index; what is the same
//! for all of a message's packets (sizes, class, stream) lives here once.

use super::packet::{Segmentation, ServiceLevel, TrafficClass};
use crate::fabric::routing::multipath::Pattern;
use crate::kernel::Time;

/// `Message::stream` of a message that belongs to no video stream.
pub const NO_STREAM: u32 = u32::MAX;

pub use super::packet::{FRAME_FIRST, FRAME_LAST, WHOLE_FRAME};

#[derive(Clone, Copy, Debug)]
pub struct Message {
    /// When it entered the source HCA's send queue: the origin of its packets' latency.
    pub t_created: Time,
    pub seg: Segmentation,
    pub src: u32,
    pub dst: u32,
    /// Packets cut and sent so far.
    pub sent: u32,
    /// Packets delivered (or dropped) so far.
    pub done: u32,
    /// Packets dropped by a switch: a video frame that lost one is damaged.
    pub dropped: u32,
    /// The video stream of a frame, else [`NO_STREAM`], and the frame's number in it.
    pub stream: u32,
    pub frame: u32,
    /// A video frame's release at its source: the origin of its delay and
    /// deadline (its first message's creation when paced, see
    /// `sources/pacing.rs`).
    pub frame_release: Time,
    /// Which of its frame's edge packets the message holds
    /// ([`FRAME_FIRST`], [`FRAME_LAST`]): a paced frame is a message per
    /// packet, and is judged when the one with its last packet arrives.
    pub frame_edges: u8,
    pub class: TrafficClass,
    pub sl: ServiceLevel,
    /// An I frame: its packets are never dropped (seed 003 section 3.5).
    pub protected: bool,
    /// Routed by the multipath tables with `path`'s bits (bits not set yet
    /// are set by the switches that examine them).
    pub multipath: bool,
    /// A reliable datagram (best-effort, delivered in order per source and
    /// destination); false for an unreliable one (may overtake).
    pub reliable: bool,
    pub path: Pattern,
    /// The multicast group of a frame of a multicast stream (sent as one
    /// message or, replicated at the source, as one per member), else
    /// [`super::multicast::NO_GROUP`].
    pub group: u16,
    /// Members a switch-replicated message is delivered to (its packets
    /// are counted done once per member); 0 for a unicast message.
    pub copies: u16,
    /// The message behind it in its HCA send queue ([`super::ring::Ring`]).
    pub next: u32,
}

impl Default for Message {
    fn default() -> Self {
        Message {
            t_created: 0,
            seg: Segmentation::default(),
            src: 0,
            dst: 0,
            sent: 0,
            done: 0,
            dropped: 0,
            stream: 0,
            frame: 0,
            frame_release: 0,
            frame_edges: WHOLE_FRAME,
            class: TrafficClass::default(),
            sl: ServiceLevel::default(),
            protected: false,
            multipath: false,
            reliable: false,
            path: Pattern::default(),
            group: super::multicast::NO_GROUP,
            copies: 0,
            next: 0,
        }
    }
}

impl Message {
    /// Wire bytes of the next packet to cut.
    #[inline]
    pub fn next_packet_bytes(&self) -> u32 {
        self.seg.wire_bytes(self.sent)
    }

    /// Counts one packet delivered or dropped; true when it was the last
    /// (the caller frees the message).
    #[inline]
    pub fn packet_done(&mut self) -> bool {
        self.done += 1;
        self.done == self.seg.packets * self.copies.max(1) as u32
    }
}
