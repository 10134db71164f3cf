//! Paced video (`ib.workload.video_injection = "paced"`): a frame's packets
//! leave its source evenly over the frame's period, each handed to the HCA
//! as a message of its own when it is released, as a stream sent at its
//! own rate does (docs/infiniband-model.md, "Seed 003's readings under
//! test"). Packet i of a frame of k released at r, with the next frame due
//! at r', is released at r + floor((r' - r) i / k), so the last leaves a
//! period's k-th part before the next frame's first.
//!
//! Every message of a frame carries the frame's number, its release and
//! which of its edge packets it holds: the frame's first and last packets
//! stay undroppable, and the frame is judged (delay from its release,
//! deadline) when the message holding its last packet arrives.

use super::super::message::{FRAME_FIRST, FRAME_LAST};
use super::super::packet::{Segmentation, TrafficClass};
use crate::kernel::Time;

/// A paced stream's frame in progress.
#[derive(Clone, Copy, Debug)]
pub struct PacedFrame {
    /// When the frame was released, and when the stream's next frame is.
    release: Time,
    next_frame: Time,
    /// The whole frame, cut as a whole-frame message would be.
    seg: Segmentation,
    /// Packets released so far.
    sent: u32,
    pub number: u32,
    pub protected: bool,
}

/// The next packet of a paced frame, as its own message.
pub struct PacedPacket {
    pub seg: Segmentation,
    /// [`FRAME_FIRST`] / [`FRAME_LAST`] of the frame's edge packets it holds.
    pub edges: u8,
    pub frame_release: Time,
}

/// A stream before its first frame: done, so that its first release starts one.
impl Default for PacedFrame {
    fn default() -> Self {
        PacedFrame { release: 0, next_frame: 0, seg: Segmentation::default(), sent: 1, number: 0, protected: false }
    }
}

impl PacedFrame {
    /// Frame `number` of `bytes`, released at `release`, the stream's next at `next_frame`.
    pub fn new(release: Time, next_frame: Time, number: u32, bytes: u32, protected: bool) -> Self {
        let seg = Segmentation::new(bytes as u64, TrafficClass::RealTime.mtu());
        PacedFrame { release, next_frame, seg, sent: 0, number, protected }
    }

    /// Every packet of the frame has been released (a new stream has no frame yet).
    pub fn done(&self) -> bool {
        self.sent >= self.seg.packets.max(1)
    }

    /// Releases the frame's next packet.
    pub fn take(&mut self) -> PacedPacket {
        debug_assert!(!self.done());
        let (k, i) = (self.seg.packets, self.sent);
        self.sent += 1;
        let payload = self.seg.payload(i);
        let edges = if i == 0 { FRAME_FIRST } else { 0 } | if i + 1 >= k { FRAME_LAST } else { 0 };
        PacedPacket {
            seg: Segmentation::new(payload as u64, TrafficClass::RealTime.mtu()),
            edges,
            frame_release: self.release,
        }
    }

    /// When the next packet is released: the frame's own next, or the next frame's release.
    pub fn next_release(&self) -> Time {
        if self.done() {
            return self.next_frame;
        }
        let span = (self.next_frame - self.release) as u128;
        self.release + (span * self.sent as u128 / self.seg.packets as u128) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::message::WHOLE_FRAME;

    #[test]
    fn a_frames_packets_leave_evenly_over_its_period_with_its_edges_marked() {
        // 3000 bytes at a 1024-byte MTU: three packets over a 3000 ps period.
        let mut f = PacedFrame::new(1_000, 4_000, 7, 3000, false);
        let mut seen = Vec::new();
        let mut at = 1_000;
        while !f.done() {
            let p = f.take();
            seen.push((at, p.seg.packets, p.seg.payload_bytes(), p.edges, p.frame_release));
            at = f.next_release();
        }
        assert_eq!(
            seen,
            vec![(1_000, 1, 1024, FRAME_FIRST, 1_000), (2_000, 1, 1024, 0, 1_000), (3_000, 1, 952, FRAME_LAST, 1_000)]
        );
        assert_eq!(at, 4_000, "after its last packet, the stream's next frame");
        let mut one = PacedFrame::new(0, 33, 1, 100, true);
        assert_eq!(one.take().edges, WHOLE_FRAME);
        assert!(one.done() && PacedFrame::default().done());
    }
}
