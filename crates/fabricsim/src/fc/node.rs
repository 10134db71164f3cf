//! A terminal node (N_Port) attached to a switch port, with the source of
//! its messages.
//!
//! The node keeps a FIFO queue of messages and injects their frames one at
//! a time, and only when the three conditions of the study (section 3.1)
//! hold: its link is free, it holds a buffer-to-buffer credit for a receive
//! buffer at the switch port (its [`Sender`]), and (class 2) an end-to-end
//! credit remains for the destination. Acknowledgements it owes go ahead of
//! data frames, since an N_Port answers as soon as its transmitter is free.
//! On receiving a class 2 data frame it generates an ACK; on receiving an
//! ACK it regains the end-to-end credit. Class 1 ([`super::connection`]):
//! the head message's first frame goes out as a connect request; once its
//! ACK is back, the rest crosses the reserved path directly.

use std::collections::VecDeque;

use super::connection::{ConnectionState, Teardown, NO_CONNECTION};
use super::frame::{Frame, FrameId, FrameKind, Message, MessageId};
use super::sender::Sender;
use super::shared::Shared;
use crate::kernel::Time;
use crate::sim::{ComponentKind, Delivery, Link, Schedule};
use crate::traffic::MessageSource;

/// The node's own events, carried with its index. Frames and credits reach
/// it over its link ([`Delivery`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeEvent {
    /// A Poisson message arrival.
    MessageArrival,
    /// The transmitter has sent a frame's last byte.
    TransmitDone,
    /// Class 1: the back-off after a refusal has ended.
    RetryConnect,
}

/// What a node schedules: its own events, frames over its link (or a
/// reserved path), and the teardown of its class 1 connection.
pub trait NodeContext: Schedule<NodeEvent> + Schedule<Delivery> + Schedule<Teardown> {}
impl<C: Schedule<NodeEvent> + Schedule<Delivery> + Schedule<Teardown>> NodeContext for C {}

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
    /// The transmitter towards the attached switch port.
    sender: Sender,
    class: u8,
    /// End-to-end credit per destination node (class 2).
    e2e_credit: Vec<u32>,
    e2e_initial: u32,
    acks: VecDeque<FrameId>,
    messages: VecDeque<MessageId>,
    source: MessageSource,
    /// Smallest end-to-end credit ever seen (audits that it never goes negative).
    pub min_e2e_credit: u32,
    /// Class 1: the state of this node's own connection.
    c1_state: ConnectionState,
}

impl NPort {
    pub fn new(id: u32, link: Link, spec: NPortSpec, source: MessageSource) -> Self {
        NPort {
            id,
            sender: Sender::new(link, spec.bb_credit),
            class: spec.class,
            e2e_credit: vec![spec.e2e_credit; spec.nodes as usize],
            e2e_initial: spec.e2e_credit,
            acks: VecDeque::with_capacity(64),
            messages: VecDeque::with_capacity(64),
            source,
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

    pub fn source(&self) -> &MessageSource {
        &self.source
    }

    /// Stops generating messages (drain).
    pub fn stop_source(&mut self) {
        self.source.stop();
    }

    /// The first message of an active source: at once when saturated, else
    /// after the first interarrival time.
    pub fn start(&mut self, cx: &mut impl NodeContext, sh: &mut Shared) {
        if !self.source.is_active() {
            return;
        }
        if self.source.is_saturated() {
            let m = self.new_message(cx.now(), sh);
            self.enqueue_message(cx, sh, m);
        } else {
            let t = self.source.next_interarrival();
            cx.push(t, self.id, NodeEvent::MessageArrival);
        }
    }

    /// Handles one of the node's own events.
    #[inline]
    pub fn handle(&mut self, cx: &mut impl NodeContext, sh: &mut Shared, ev: NodeEvent) {
        match ev {
            NodeEvent::MessageArrival => {
                if self.source.is_stopped() {
                    return;
                }
                let next = cx.now() + self.source.next_interarrival();
                cx.push(next, self.id, NodeEvent::MessageArrival);
                let m = self.new_message(cx.now(), sh);
                self.enqueue_message(cx, sh, m);
            }
            NodeEvent::TransmitDone => {
                self.sender.sent();
                self.try_send(cx, sh);
            }
            NodeEvent::RetryConnect => {
                self.c1_state = ConnectionState::Idle;
                self.try_send(cx, sh);
            }
        }
    }

    fn enqueue_message(&mut self, cx: &mut impl NodeContext, sh: &mut Shared, message: MessageId) {
        self.messages.push_back(message);
        self.try_send(cx, sh);
    }

    /// The switch freed a buffer of our port (R_RDY): as an event of its
    /// own, or (classes 2 and 3) the one posted while we wait for credit.
    pub fn on_credit(&mut self, cx: &mut impl NodeContext, sh: &mut Shared) {
        match sh.credit_mail.get_mut(self.id as usize) {
            Some(mail) => mail.arrived(),
            None => self.sender.credit_returned(),
        }
        self.try_send(cx, sh);
    }

    /// A frame has been completely received.
    pub fn on_frame_delivered(&mut self, cx: &mut impl NodeContext, sh: &mut Shared, frame: FrameId) {
        let now = cx.now();
        let f = *sh.frames.get(frame);
        sh.frames.remove(frame);
        match f.kind {
            FrameKind::Data => {
                sh.metrics.data_delivered(now, &f);
                let m = sh.messages.get_mut(f.message);
                m.received += 1;
                if self.class != 3 {
                    let ack = sh.frames.insert(Frame {
                        kind: FrameKind::Ack,
                        src: self.id,
                        dst: f.src,
                        bytes: sh.timing.ack_bytes,
                        message: f.message,
                        connect: false,
                        in_port: 0,
                        t_inject: f.t_inject,
                        t_created: now,
                        t_tail_in: 0,
                        t_queued: 0,
                    });
                    sh.metrics.counters.ack_frames_generated += 1;
                    self.acks.push_back(ack);
                    self.try_send(cx, sh);
                } else if m.received == m.frames {
                    complete_message(now, sh, f.message);
                }
            }
            FrameKind::Ack => {
                sh.metrics.ack_delivered(now, &f);
                // The ACK comes from the data frame's destination.
                let credit = &mut self.e2e_credit[f.src as usize];
                *credit += 1;
                assert!(*credit <= self.e2e_initial, "node {}: end-to-end credit above its login value", self.id);
                let m = sh.messages.get_mut(f.message);
                m.acked += 1;
                let done = m.acked == m.frames;
                let connection = m.connection;
                if self.class == 1 && self.c1_state == ConnectionState::Requesting {
                    self.c1_state = ConnectionState::Established;
                    let setup = now - sh.connections.get(connection).t_request;
                    sh.metrics.connection_set_up(setup);
                }
                if done {
                    complete_message(now, sh, f.message);
                    if self.class == 1 {
                        // Teardown: the message is complete, release the path.
                        self.messages.pop_front();
                        self.c1_state = ConnectionState::Idle;
                        cx.push(now, connection, Teardown);
                        if self.source.refills() {
                            let next = self.new_message(now, sh);
                            self.messages.push_back(next);
                        }
                    }
                }
                self.try_send(cx, sh);
            }
        }
    }

    /// Injects the next frame if the link, a BB credit and (class 2) an
    /// end-to-end credit allow it. Frames go quietly: the end of one is an
    /// event only when a frame could follow it (every change that lets one
    /// follow comes through here while the link is busy).
    fn try_send(&mut self, cx: &mut impl NodeContext, sh: &mut Shared) {
        if self.class == 1 {
            return self.try_send_class1(cx, sh);
        }
        let arrived = sh.credit_mail[self.id as usize].collect(cx);
        if arrived > 0 {
            self.sender.credits_returned(arrived);
        }
        self.send_next(cx, sh);
        // Out of credit with a frame to go: the next R_RDY must be an event.
        if self.sender.credit() == 0 && self.can_send(sh, None) {
            sh.credit_mail[self.id as usize].wait(cx, self.id);
        }
    }

    /// Classes 2 and 3: [`NPort::try_send`] with the credits counted.
    #[inline]
    fn send_next(&mut self, cx: &mut impl NodeContext, sh: &mut Shared) {
        if self.sender.busy_now(cx) {
            if self.sender.quiet() && self.can_send(sh, Some(0)) {
                self.sender.wake_when_sent(cx, self.id, NodeEvent::TransmitDone);
            }
            return;
        }
        if self.sender.credit() == 0 {
            return;
        }
        let frame = if let Some(ack) = self.acks.pop_front() {
            sh.metrics.counters.ack_frames_injected += 1;
            ack
        } else if let Some(&mid) = self.messages.front() {
            if self.class == 2 && self.e2e_credit[sh.messages.get(mid).dst as usize] == 0 {
                return; // the head message waits for an ACK; FIFO keeps the rest behind it
            }
            let frame = self.data_frame(cx.now(), sh, mid, false);
            let m = sh.messages.get(mid);
            if m.sent == m.frames {
                self.messages.pop_front();
                if self.source.refills() {
                    let next = self.new_message(cx.now(), sh);
                    self.messages.push_back(next);
                }
            }
            frame
        } else {
            return;
        };
        let duration = sh.timing.frame_time(sh.frames.get(frame).bytes);
        if self.can_send(sh, Some(1)) {
            self.sender.send(cx, self.id, NodeEvent::TransmitDone, frame, duration);
        } else {
            self.sender.send_quiet(cx, frame, duration);
        }
    }

    /// Classes 2 and 3: a frame could go on a free link once `taking` more
    /// BB credits are gone (a credit left, and an ACK owed or a head message
    /// with end-to-end credit where needed); `None`: whatever the credit.
    #[inline]
    fn can_send(&self, sh: &Shared, taking: Option<u32>) -> bool {
        taking.is_none_or(|t| self.sender.credit() > t)
            && (!self.acks.is_empty()
                || self
                    .messages
                    .front()
                    .is_some_and(|&m| self.class == 3 || self.e2e_credit[sh.messages.get(m).dst as usize] > 0))
    }

    /// Class 1: puts `frame` on the link under a BB credit.
    #[inline]
    fn transmit(&mut self, cx: &mut impl NodeContext, sh: &Shared, frame: FrameId) {
        let duration = sh.timing.frame_time(sh.frames.get(frame).bytes);
        self.sender.send(cx, self.id, NodeEvent::TransmitDone, frame, duration);
    }

    /// Class 1: ACKs and established-connection frames cross the reserved
    /// path directly; otherwise the head message's first frame goes out as a
    /// connect request through the switch's buffers and router.
    fn try_send_class1(&mut self, cx: &mut impl NodeContext, sh: &mut Shared) {
        if self.sender.busy() {
            return;
        }
        let now = cx.now();
        if let Some(ack) = self.acks.pop_front() {
            sh.metrics.counters.ack_frames_injected += 1;
            let connection = sh.messages.get(sh.frames.get(ack).message).connection;
            return self.send_on_connection(cx, sh, ack, connection);
        }
        let Some(&mid) = self.messages.front() else { return };
        let m = sh.messages.get(mid);
        let (dst, connection, unsent) = (m.dst, m.connection, m.sent < m.frames);
        match self.c1_state {
            ConnectionState::Requesting | ConnectionState::BackingOff => {}
            ConnectionState::Idle => {
                if !self.sender.ready() || self.e2e_credit[dst as usize] == 0 {
                    return;
                }
                if connection == NO_CONNECTION {
                    let c = sh.connections.open(self.id, dst, now);
                    sh.messages.get_mut(mid).connection = c;
                } else {
                    sh.connections.restart(connection);
                }
                let frame = self.data_frame(now, sh, mid, true);
                sh.metrics.counters.connect_requests += 1;
                self.c1_state = ConnectionState::Requesting;
                self.transmit(cx, sh, frame);
            }
            ConnectionState::Established => {
                if !unsent || self.e2e_credit[dst as usize] == 0 {
                    return;
                }
                let frame = self.data_frame(now, sh, mid, false);
                self.send_on_connection(cx, sh, frame, connection);
            }
        }
    }

    /// Takes the next frame of message `mid`, with its end-to-end credit
    /// (classes 1 and 2; the caller has checked one is left).
    fn data_frame(&mut self, now: Time, sh: &mut Shared, mid: MessageId, connect: bool) -> FrameId {
        let m = sh.messages.get_mut(mid);
        if self.class != 3 {
            let credit = &mut self.e2e_credit[m.dst as usize];
            *credit -= 1;
            self.min_e2e_credit = self.min_e2e_credit.min(*credit);
        }
        if m.sent == 0 {
            m.t_first_sent = now;
            sh.metrics.message_started(now - m.t_created);
        }
        m.sent += 1;
        sh.metrics.counters.data_frames_injected += 1;
        let dst = m.dst;
        sh.frames.insert(Frame {
            kind: FrameKind::Data,
            src: self.id,
            dst,
            bytes: sh.timing.data_bytes,
            message: mid,
            connect,
            in_port: 0,
            t_inject: now,
            t_created: now,
            t_tail_in: 0,
            t_queued: 0,
        })
    }

    /// Sends `frame` over an established connection: it arrives after its
    /// serialization plus, at each reserved switch, the time to take in a header.
    fn send_on_connection(&mut self, cx: &mut impl NodeContext, sh: &Shared, frame: FrameId, connection: u32) {
        let hops = sh.connections.get(connection).hops as u64;
        let f = sh.frames.get(frame);
        let t = sh.timing.frame_time(f.bytes);
        let arrive = cx.now() + t + hops * sh.timing.header_time + (hops + 1) * sh.timing.propagation;
        self.sender.occupy(cx, self.id, NodeEvent::TransmitDone, t);
        cx.push(arrive, f.dst, Delivery::Whole { kind: ComponentKind::Node, port: 0, frame });
    }

    /// The fabric refused our connect request (F_BSY): give back its credit
    /// and retry at `retry_at`, after a random back-off.
    pub fn on_connect_refused(&mut self, cx: &mut impl NodeContext, sh: &mut Shared, retry_at: Time) {
        let mid = *self.messages.front().expect("a refused request belongs to the head message");
        let m = sh.messages.get_mut(mid);
        m.sent -= 1;
        self.e2e_credit[m.dst as usize] += 1;
        self.c1_state = ConnectionState::BackingOff;
        cx.push(retry_at, self.id, NodeEvent::RetryConnect);
    }

    /// Creates a message with the source's next length and destination.
    fn new_message(&mut self, now: Time, sh: &mut Shared) -> MessageId {
        let frames = self.source.next_frames();
        let dst = self.source.next_destination();
        sh.metrics.counters.messages_generated += 1;
        sh.messages.insert(Message {
            src: self.id,
            dst,
            frames,
            sent: 0,
            received: 0,
            acked: 0,
            t_created: now,
            t_first_sent: 0,
            connection: NO_CONNECTION,
        })
    }
}

fn complete_message(now: Time, sh: &mut Shared, mid: MessageId) {
    sh.metrics.message_completed(now, sh.messages.get(mid));
    sh.messages.remove(mid);
}
