//! A terminal node (N_Port) attached to a switch port.
//!
//! The node keeps a FIFO queue of messages and injects their frames one at
//! a time, and only when the three conditions of the study (section 3.1)
//! hold: its link is free, it holds a buffer-to-buffer credit for a receive
//! buffer at the switch port, and (class 2) an end-to-end credit remains for
//! the destination. Acknowledgements it owes go ahead of data frames, since an
//! N_Port answers as soon as its transmitter is free. On receiving a class 2
//! data frame it generates an ACK; on receiving an ACK it regains the
//! end-to-end credit.

use std::collections::VecDeque;

use super::fabric::{Ctx, Event};
use super::frame::{Frame, FrameId, FrameKind, Message, MessageId};
use crate::traffic::MessageSource;

pub struct NPort {
    pub id: u32,
    switch: u32,
    port: u16,
    class: u8,
    transmitting: bool,
    /// Free receive buffers at the attached switch port (BB_Credit).
    bb_credit: u32,
    /// End-to-end credit per destination node (class 2).
    e2e_credit: Vec<u32>,
    e2e_initial: u32,
    bb_initial: u32,
    acks: VecDeque<FrameId>,
    messages: VecDeque<MessageId>,
    /// Smallest end-to-end credit ever seen (audits that it never goes negative).
    pub min_e2e_credit: u32,
}

impl NPort {
    pub fn new(id: u32, switch: u32, port: u16, class: u8, bb_credit: u32, e2e_credit: u32, nodes: u32) -> Self {
        NPort {
            id,
            switch,
            port,
            class,
            transmitting: false,
            bb_credit,
            e2e_credit: vec![e2e_credit; nodes as usize],
            e2e_initial: e2e_credit,
            bb_initial: bb_credit,
            acks: VecDeque::with_capacity(64),
            messages: VecDeque::with_capacity(64),
            min_e2e_credit: e2e_credit,
        }
    }

    /// Messages waiting (including the one being sent).
    pub fn queued_messages(&self) -> usize {
        self.messages.len()
    }

    pub fn enqueue_message(&mut self, ctx: &mut Ctx, source: &mut MessageSource, message: MessageId) {
        self.messages.push_back(message);
        self.try_send(ctx, source);
    }

    /// The transmitter finished a frame.
    pub fn on_transmit_done(&mut self, ctx: &mut Ctx, source: &mut MessageSource) {
        self.transmitting = false;
        self.try_send(ctx, source);
    }

    /// The switch freed a buffer of our port (R_RDY).
    pub fn on_credit(&mut self, ctx: &mut Ctx, source: &mut MessageSource) {
        self.bb_credit += 1;
        assert!(self.bb_credit <= self.bb_initial, "node {}: more R_RDYs than buffers", self.id);
        self.try_send(ctx, source);
    }

    /// A frame has been completely received.
    pub fn on_frame_delivered(&mut self, ctx: &mut Ctx, source: &mut MessageSource, frame: FrameId) {
        let f = ctx.frames[frame];
        ctx.frames.remove(frame);
        match f.kind {
            FrameKind::Data => {
                ctx.metrics.data_delivered(ctx.now, &f);
                let m = &mut ctx.messages[f.message];
                m.received += 1;
                if self.class == 2 {
                    let ack = ctx.frames.insert(Frame {
                        kind: FrameKind::Ack,
                        src: self.id,
                        dst: f.src,
                        bytes: ctx.timing.ack_bytes,
                        message: f.message,
                        in_port: 0,
                        t_inject: f.t_inject,
                        t_created: ctx.now,
                        t_tail_in: 0,
                    });
                    ctx.metrics.counters.ack_frames_generated += 1;
                    self.acks.push_back(ack);
                    self.try_send(ctx, source);
                } else if m.received == m.frames {
                    complete_message(ctx, f.message);
                }
            }
            FrameKind::Ack => {
                ctx.metrics.ack_delivered(ctx.now, &f);
                // The ACK comes from the data frame's destination.
                let credit = &mut self.e2e_credit[f.src as usize];
                *credit += 1;
                assert!(*credit <= self.e2e_initial, "node {}: end-to-end credit above its login value", self.id);
                let m = &mut ctx.messages[f.message];
                m.acked += 1;
                if m.acked == m.frames {
                    complete_message(ctx, f.message);
                }
                self.try_send(ctx, source);
            }
        }
    }

    /// Injects the next frame if the link, a BB credit and (class 2) an
    /// end-to-end credit allow it.
    fn try_send(&mut self, ctx: &mut Ctx, source: &mut MessageSource) {
        if self.transmitting || self.bb_credit == 0 {
            return;
        }
        let frame = if let Some(ack) = self.acks.pop_front() {
            ctx.metrics.counters.ack_frames_injected += 1;
            ack
        } else if let Some(&mid) = self.messages.front() {
            let m = &mut ctx.messages[mid];
            let dst = m.dst;
            if self.class == 2 {
                let credit = &mut self.e2e_credit[dst as usize];
                if *credit == 0 {
                    return; // the head message waits for an ACK; FIFO keeps the rest behind it
                }
                *credit -= 1;
                self.min_e2e_credit = self.min_e2e_credit.min(*credit);
            }
            if m.sent == 0 {
                m.t_first_sent = ctx.now;
                ctx.metrics.message_started(ctx.now - m.t_created);
            }
            m.sent += 1;
            if m.sent == m.frames {
                self.messages.pop_front();
                if source.refills() {
                    let next = new_message(ctx, source, self.id);
                    self.messages.push_back(next);
                }
            }
            ctx.metrics.counters.data_frames_injected += 1;
            ctx.frames.insert(Frame {
                kind: FrameKind::Data,
                src: self.id,
                dst,
                bytes: ctx.timing.data_bytes,
                message: mid,
                in_port: 0,
                t_inject: ctx.now,
                t_created: ctx.now,
                t_tail_in: 0,
            })
        } else {
            return;
        };
        self.transmitting = true;
        self.bb_credit -= 1;
        let bytes = ctx.frames[frame].bytes;
        ctx.queue.push(ctx.now + ctx.timing.frame_time(bytes), Event::TransmitDone { node: self.id });
        ctx.queue.push(
            ctx.now + ctx.timing.propagation,
            Event::FrameStart { switch: self.switch, port: self.port, frame },
        );
    }
}

/// Creates a message at `node` with the source's next length and destination.
pub fn new_message(ctx: &mut Ctx, source: &mut MessageSource, node: u32) -> MessageId {
    let frames = source.next_frames();
    let dst = source.next_destination();
    ctx.metrics.counters.messages_generated += 1;
    ctx.messages.insert(Message {
        src: node,
        dst,
        frames,
        sent: 0,
        received: 0,
        acked: 0,
        t_created: ctx.now,
        t_first_sent: 0,
    })
}

fn complete_message(ctx: &mut Ctx, mid: MessageId) {
    let m = ctx.messages[mid];
    ctx.metrics.message_completed(ctx.now, &m);
    ctx.messages.remove(mid);
}
