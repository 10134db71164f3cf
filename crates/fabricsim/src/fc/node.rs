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

use super::connection::{Connection, ConnectionState, NO_CONNECTION};
use super::fabric::{Ctx, Event};
use super::frame::{Frame, FrameId, FrameKind, Message, MessageId};
use crate::sim::Link;
use crate::traffic::MessageSource;

/// What an N_Port is configured with, besides its identity and link.
#[derive(Clone, Copy, Debug)]
pub struct NPortSpec {
    /// Class of service (1, 2 or 3).
    pub class: u8,
    /// Receive buffers at the attached switch port (initial BB_Credit).
    pub bb_credit: u32,
    /// End-to-end credit per destination.
    pub e2e_credit: u32,
    /// Terminal nodes in the fabric (destinations).
    pub nodes: u32,
}

pub struct NPort {
    pub id: u32,
    /// The fibre to the attached switch port.
    link: Link,
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
    /// Class 1: the state of this node's own connection.
    c1_state: ConnectionState,
}

impl NPort {
    pub fn new(id: u32, link: Link, spec: NPortSpec) -> Self {
        NPort {
            id,
            link,
            class: spec.class,
            transmitting: false,
            bb_credit: spec.bb_credit,
            e2e_credit: vec![spec.e2e_credit; spec.nodes as usize],
            e2e_initial: spec.e2e_credit,
            bb_initial: spec.bb_credit,
            acks: VecDeque::with_capacity(64),
            messages: VecDeque::with_capacity(64),
            min_e2e_credit: spec.e2e_credit,
            c1_state: ConnectionState::Idle,
        }
    }

    /// Bytes held by the node's queues.
    pub fn memory_bytes(&self) -> u64 {
        ((self.messages.capacity() + self.acks.capacity()) * 4 + self.e2e_credit.capacity() * 4) as u64
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
                if self.class != 3 {
                    let ack = ctx.frames.insert(Frame {
                        kind: FrameKind::Ack,
                        src: self.id,
                        dst: f.src,
                        bytes: ctx.timing.ack_bytes,
                        message: f.message,
                        connect: false,
                        in_port: 0,
                        t_inject: f.t_inject,
                        t_created: ctx.now,
                        t_tail_in: 0,
                        t_queued: 0,
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
                let done = m.acked == m.frames;
                let connection = m.connection;
                if self.class == 1 && self.c1_state == ConnectionState::Requesting {
                    self.c1_state = ConnectionState::Established;
                    let setup = ctx.now - ctx.connections[connection].t_request;
                    ctx.metrics.connection_set_up(setup);
                }
                if done {
                    complete_message(ctx, f.message);
                    if self.class == 1 {
                        // Teardown: the message is complete, release the path.
                        self.messages.pop_front();
                        self.c1_state = ConnectionState::Idle;
                        ctx.queue.push(ctx.now, Event::Teardown { connection });
                        if source.refills() {
                            let next = new_message(ctx, source, self.id);
                            self.messages.push_back(next);
                        }
                    }
                }
                self.try_send(ctx, source);
            }
        }
    }

    /// Injects the next frame if the link, a BB credit and (class 2) an
    /// end-to-end credit allow it.
    fn try_send(&mut self, ctx: &mut Ctx, source: &mut MessageSource) {
        if self.class == 1 {
            return self.try_send_class1(ctx);
        }
        if self.transmitting || self.bb_credit == 0 {
            return;
        }
        let frame = if let Some(ack) = self.acks.pop_front() {
            ctx.metrics.counters.ack_frames_injected += 1;
            ack
        } else if let Some(&mid) = self.messages.front() {
            let m = ctx.messages[mid];
            if self.class == 2 && self.e2e_credit[m.dst as usize] == 0 {
                return; // the head message waits for an ACK; FIFO keeps the rest behind it
            }
            let frame = self.data_frame(ctx, mid, false);
            if m.sent + 1 == m.frames {
                self.messages.pop_front();
                if source.refills() {
                    let next = new_message(ctx, source, self.id);
                    self.messages.push_back(next);
                }
            }
            frame
        } else {
            return;
        };
        self.transmitting = true;
        self.bb_credit -= 1;
        let bytes = ctx.frames[frame].bytes;
        ctx.queue.push(ctx.now + ctx.timing.frame_time(bytes), Event::TransmitDone { node: self.id });
        self.link.send_head(ctx, frame, ctx.now);
    }
}

impl NPort {
    /// Class 1: ACKs and established-connection frames cross the reserved
    /// path directly; otherwise the head message's first frame goes out as a
    /// connect request through the switch's buffers and router.
    fn try_send_class1(&mut self, ctx: &mut Ctx) {
        if self.transmitting {
            return;
        }
        if let Some(ack) = self.acks.pop_front() {
            ctx.metrics.counters.ack_frames_injected += 1;
            let connection = ctx.messages[ctx.frames[ack].message].connection;
            return self.send_on_connection(ctx, ack, connection);
        }
        let Some(&mid) = self.messages.front() else { return };
        let m = ctx.messages[mid];
        match self.c1_state {
            ConnectionState::Requesting | ConnectionState::BackingOff => {}
            ConnectionState::Idle => {
                if self.bb_credit == 0 || self.e2e_credit[m.dst as usize] == 0 {
                    return;
                }
                let connection = if m.connection == NO_CONNECTION {
                    let c = ctx.connections.insert(Connection {
                        src: self.id,
                        dst: m.dst,
                        t_request: ctx.now,
                        ..Connection::default()
                    });
                    ctx.messages[mid].connection = c;
                    c
                } else {
                    ctx.connections[m.connection].hops = 0;
                    m.connection
                };
                let frame = self.data_frame(ctx, mid, true);
                debug_assert_eq!(ctx.messages[mid].connection, connection);
                ctx.metrics.counters.connect_requests += 1;
                self.c1_state = ConnectionState::Requesting;
                self.transmitting = true;
                self.bb_credit -= 1;
                let bytes = ctx.frames[frame].bytes;
                ctx.queue.push(ctx.now + ctx.timing.frame_time(bytes), Event::TransmitDone { node: self.id });
                self.link.send_head(ctx, frame, ctx.now);
            }
            ConnectionState::Established => {
                if m.sent == m.frames || self.e2e_credit[m.dst as usize] == 0 {
                    return;
                }
                let frame = self.data_frame(ctx, mid, false);
                self.send_on_connection(ctx, frame, m.connection);
            }
        }
    }

    /// Takes the next frame of message `mid`, with its end-to-end credit
    /// (classes 1 and 2; the caller has checked one is left).
    fn data_frame(&mut self, ctx: &mut Ctx, mid: MessageId, connect: bool) -> FrameId {
        let m = &mut ctx.messages[mid];
        if self.class != 3 {
            let credit = &mut self.e2e_credit[m.dst as usize];
            *credit -= 1;
            self.min_e2e_credit = self.min_e2e_credit.min(*credit);
        }
        if m.sent == 0 {
            m.t_first_sent = ctx.now;
            ctx.metrics.message_started(ctx.now - m.t_created);
        }
        m.sent += 1;
        ctx.metrics.counters.data_frames_injected += 1;
        let dst = m.dst;
        ctx.frames.insert(Frame {
            kind: FrameKind::Data,
            src: self.id,
            dst,
            bytes: ctx.timing.data_bytes,
            message: mid,
            connect,
            in_port: 0,
            t_inject: ctx.now,
            t_created: ctx.now,
            t_tail_in: 0,
            t_queued: 0,
        })
    }

    /// Sends `frame` over an established connection: it arrives after its
    /// serialization plus, at each reserved switch, the time to take in a header.
    fn send_on_connection(&mut self, ctx: &mut Ctx, frame: FrameId, connection: u32) {
        let hops = ctx.connections[connection].hops as u64;
        let f = ctx.frames[frame];
        let t = ctx.timing.frame_time(f.bytes);
        let arrive = ctx.now + t + hops * ctx.timing.header_time + (hops + 1) * ctx.timing.propagation;
        self.transmitting = true;
        ctx.queue.push(ctx.now + t, Event::TransmitDone { node: self.id });
        ctx.queue.push(arrive, Event::FrameDelivered { node: f.dst, frame });
    }

    /// The fabric refused our connect request (F_BSY): give back its credit
    /// and retry after a random back-off.
    pub fn on_connect_refused(&mut self, ctx: &mut Ctx, retry_at: crate::kernel::Time) {
        let mid = *self.messages.front().expect("a refused request belongs to the head message");
        let m = &mut ctx.messages[mid];
        m.sent -= 1;
        self.e2e_credit[m.dst as usize] += 1;
        self.c1_state = ConnectionState::BackingOff;
        ctx.queue.push(retry_at, Event::RetryConnect { node: self.id });
    }

    /// The back-off after a refusal has ended.
    pub fn on_retry(&mut self, ctx: &mut Ctx, source: &mut MessageSource) {
        self.c1_state = ConnectionState::Idle;
        self.try_send(ctx, source);
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
        connection: NO_CONNECTION,
    })
}

fn complete_message(ctx: &mut Ctx, mid: MessageId) {
    let m = ctx.messages[mid];
    ctx.metrics.message_completed(ctx.now, &m);
    ctx.messages.remove(mid);
}
