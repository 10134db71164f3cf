//! A host's Fibre Channel interface (HP's Tachyon-based EISA card): its
//! firmware, its side of the I/O bus and its link to the switch.
//!
//! The interface moves frames, not packets, across the bus: its firmware
//! sets a packet up once (`adapter_send_us`), then each frame is read from
//! host memory as it is sent; inbound frames are written to host memory as
//! they arrive, and the firmware completes the sequence
//! (`adapter_receive_us`) before it interrupts. Firmware and bus work side
//! by side, so one packet's set-up overlaps another's frames; the bus
//! carries both directions. A packet goes out as an FC sequence of class 3
//! frames of at most the frame payload, each under buffer-to-buffer credit
//! ([`Sender`]).

use std::collections::VecDeque;

use super::packet::Packet;
use crate::fc::frame::{Frame, FrameKind};
use crate::fc::sender::Sender;
use crate::fc::shared::Shared;
use crate::kernel::{Arena, LineRate, Time};
use crate::sim::{Delivery, Link, Schedule};

/// The interface's own events, carried with its host's index. Frames and
/// credits reach it over its link ([`Delivery`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterfaceEvent {
    /// The firmware finished a packet (`rx`: a received one).
    FirmwareDone { rx: bool },
    /// The bus finished moving a frame.
    BusDone,
    /// The link has sent a frame's last byte.
    Sent,
}

/// What an interface schedules: its own events and frames over its link.
pub trait InterfaceContext: Schedule<InterfaceEvent> + Schedule<Delivery> {}
impl<C: Schedule<InterfaceEvent> + Schedule<Delivery>> InterfaceContext for C {}

/// How an interface is built.
pub struct InterfaceSpec {
    /// Its host, and the host at the far end (frames' source and destination).
    pub host: u32,
    pub peer: u32,
    /// The link to its switch port, with that port's receive buffers.
    pub link: Link,
    pub buffers: u32,
    pub bus_rate: LineRate,
    pub adapter_send: Time,
    pub adapter_receive: Time,
}

pub struct FcInterface {
    host: u32,
    peer: u32,
    /// Frames waiting for the bus: (frame, outbound).
    bus_queue: VecDeque<(u32, bool)>,
    bus_busy: bool,
    bus_rate: LineRate,
    /// Packets waiting for the firmware, outbound [0] and inbound [1].
    firmware_queue: [VecDeque<u32>; 2],
    firmware_busy: [bool; 2],
    adapter_send: Time,
    adapter_receive: Time,
    /// The transmitter towards the switch, and the frames that have
    /// crossed the bus waiting for it.
    sender: Sender,
    link_queue: VecDeque<u32>,
    /// Frames received whole.
    pub frames_received: u64,
}

impl FcInterface {
    pub fn new(spec: InterfaceSpec) -> Self {
        FcInterface {
            host: spec.host,
            peer: spec.peer,
            bus_queue: VecDeque::with_capacity(64),
            bus_busy: false,
            bus_rate: spec.bus_rate,
            firmware_queue: [VecDeque::with_capacity(16), VecDeque::with_capacity(16)],
            firmware_busy: [false; 2],
            adapter_send: spec.adapter_send,
            adapter_receive: spec.adapter_receive,
            sender: Sender::new(spec.link, spec.buffers),
            link_queue: VecDeque::with_capacity(64),
            frames_received: 0,
        }
    }

    /// The host hands `packet` over for sending.
    pub fn send(&mut self, cx: &mut impl InterfaceContext, packet: u32) {
        self.firmware_push(cx, packet, false);
    }

    /// Handles one of the interface's own events; returns a packet received
    /// whole, for the host (an interrupt).
    pub fn handle(
        &mut self,
        cx: &mut impl InterfaceContext,
        sh: &mut Shared,
        packets: &mut Arena<Packet>,
        ev: InterfaceEvent,
    ) -> Option<u32> {
        match ev {
            InterfaceEvent::FirmwareDone { rx } => return self.on_firmware_done(cx, sh, packets, rx),
            InterfaceEvent::BusDone => self.on_bus_done(cx, sh, packets),
            InterfaceEvent::Sent => {
                self.sender.sent();
                self.try_transmit(cx, sh);
            }
        }
        None
    }

    /// `frame` has been received whole from the switch: it crosses the bus.
    pub fn on_frame(&mut self, cx: &mut impl InterfaceContext, sh: &mut Shared, frame: u32) {
        sh.metrics.counters.data_frames_delivered += 1;
        self.frames_received += 1;
        self.bus_push(cx, sh, frame, false);
    }

    /// The switch port freed a buffer (R_RDY).
    pub fn on_credit(&mut self, cx: &mut impl InterfaceContext, sh: &mut Shared) {
        self.sender.credit_returned();
        self.try_transmit(cx, sh);
    }

    fn firmware_push(&mut self, cx: &mut impl InterfaceContext, packet: u32, rx: bool) {
        self.firmware_queue[rx as usize].push_back(packet);
        if !self.firmware_busy[rx as usize] {
            self.firmware_start(cx, rx);
        }
    }

    fn firmware_start(&mut self, cx: &mut impl InterfaceContext, rx: bool) {
        if self.firmware_queue[rx as usize].is_empty() {
            return;
        }
        let t = if rx { self.adapter_receive } else { self.adapter_send };
        self.firmware_busy[rx as usize] = true;
        cx.push(cx.now() + t, self.host, InterfaceEvent::FirmwareDone { rx });
    }

    fn on_firmware_done(
        &mut self,
        cx: &mut impl InterfaceContext,
        sh: &mut Shared,
        packets: &mut Arena<Packet>,
        rx: bool,
    ) -> Option<u32> {
        let packet = self.firmware_queue[rx as usize].pop_front().expect("a packet was being set up");
        self.firmware_busy[rx as usize] = false;
        if rx {
            // The host takes it before the firmware starts on the next.
            return Some(packet);
        }
        self.queue_frames(cx, sh, packets, packet);
        self.firmware_start(cx, rx);
        None
    }

    /// After a received packet went to the host: the firmware takes the next.
    pub fn resume_receive(&mut self, cx: &mut impl InterfaceContext) {
        self.firmware_start(cx, true);
    }

    /// Splits a packet into its FC sequence of frames, each to cross the bus.
    fn queue_frames(
        &mut self,
        cx: &mut impl InterfaceContext,
        sh: &mut Shared,
        packets: &mut Arena<Packet>,
        packet: u32,
    ) {
        let max_payload = sh.timing.data_bytes - sh.timing.header_bytes;
        let p = packets.get_mut(packet);
        p.frames_left = p.payload.div_ceil(max_payload);
        let mut left = p.payload;
        while left > 0 {
            let chunk = left.min(max_payload);
            left -= chunk;
            let frame = sh.frames.insert(Frame {
                kind: FrameKind::Data,
                src: self.host,
                dst: self.peer,
                bytes: chunk + sh.timing.header_bytes,
                message: packet,
                t_inject: cx.now(),
                ..Frame::default()
            });
            self.bus_push(cx, sh, frame, true);
        }
    }

    fn bus_push(&mut self, cx: &mut impl InterfaceContext, sh: &Shared, frame: u32, outbound: bool) {
        self.bus_queue.push_back((frame, outbound));
        if !self.bus_busy {
            self.bus_start(cx, sh);
        }
    }

    fn bus_start(&mut self, cx: &mut impl InterfaceContext, sh: &Shared) {
        let Some(&(frame, _)) = self.bus_queue.front() else { return };
        let payload = sh.frames.get(frame).bytes - sh.timing.header_bytes;
        self.bus_busy = true;
        cx.push(cx.now() + self.bus_rate.time_for(payload as u64), self.host, InterfaceEvent::BusDone);
    }

    fn on_bus_done(&mut self, cx: &mut impl InterfaceContext, sh: &mut Shared, packets: &mut Arena<Packet>) {
        let (frame, outbound) = self.bus_queue.pop_front().expect("a transfer was under way");
        self.bus_busy = false;
        if outbound {
            self.link_queue.push_back(frame);
            self.try_transmit(cx, sh);
        } else {
            let packet = sh.frames.get(frame).message;
            sh.frames.remove(frame);
            let p = packets.get_mut(packet);
            p.frames_left -= 1;
            if p.frames_left == 0 {
                self.firmware_push(cx, packet, true);
            }
        }
        self.bus_start(cx, sh);
    }

    /// Sends the next frame that has crossed the bus, if the link and a
    /// buffer at the switch port allow.
    fn try_transmit(&mut self, cx: &mut impl InterfaceContext, sh: &mut Shared) {
        if !self.sender.ready() {
            return;
        }
        let Some(frame) = self.link_queue.pop_front() else { return };
        sh.metrics.counters.data_frames_injected += 1;
        let duration = sh.timing.frame_time(sh.frames.get(frame).bytes);
        self.sender.send(cx, self.host, InterfaceEvent::Sent, frame, duration);
    }
}
