//! A video stream's next message: its next frame whole, or, paced, its
//! frame's next packet (`pacing.rs`), and when the stream is due again.

use std::cmp::Reverse;

use super::super::message::Message;
use super::super::packet::{Segmentation, TrafficClass};
use super::pacing::PacedFrame;
use super::Sources;
use crate::kernel::Time;

impl Sources {
    /// The message stream `k` releases at `now` (its next frame whole, or
    /// its frame's next packet when paced), to its unicast destination;
    /// the stream is due again at its next release.
    pub(super) fn video_message(&mut self, k: u32, now: Time) -> Message {
        let v = &mut self.video[k as usize];
        let mut msg = Message {
            t_created: now,
            frame_release: now,
            src: v.hca,
            dst: v.dst,
            stream: v.slot,
            class: TrafficClass::RealTime,
            sl: self.stream_sl[k as usize],
            ..Message::default()
        };
        let next = match self.paced.get_mut(k as usize) {
            None => {
                let (number, frame) = v.stream.next_frame();
                msg.seg = Segmentation::new(frame.bytes as u64, TrafficClass::RealTime.mtu());
                msg.frame = number as u32;
                msg.protected = frame.kind.is_protected();
                v.release(v.stream.frames_sent())
            }
            Some(paced) => {
                if paced.done() {
                    let (number, frame) = v.stream.next_frame();
                    let next_frame = v.release(v.stream.frames_sent());
                    *paced = PacedFrame::new(now, next_frame, number as u32, frame.bytes, frame.kind.is_protected());
                }
                let packet = paced.take();
                msg.seg = packet.seg;
                msg.frame_edges = packet.edges;
                msg.frame_release = packet.frame_release;
                msg.frame = paced.number;
                msg.protected = paced.protected;
                paced.next_release()
            }
        };
        self.video_due[v.hca as usize].push(Reverse((next, k)));
        msg
    }
}
