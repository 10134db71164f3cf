//! Two workstations running TCP/IP over the Fibre Channel switch, measured
//! the way netperf measures (seed 002): TCP_STREAM (bytes sent over the
//! elapsed time) and TCP_RR (transactions per second).
//!
//! Each host has one CPU doing all protocol work (interrupt-level work
//! first, then process-level work in order, neither preempted), an FC
//! interface on its I/O bus, and a TCP endpoint (`tcp.rs`). One segment
//! travels as follows: the application's send call copies its message into
//! the send buffer in passes of whole clusters (`COPY_CHUNK`), each pass
//! taking as much as the buffer had room for at its start, and calls
//! tcp_output once per pass (HP-UX `tcp_usrsend` and `sobuildsnd`);
//! tcp_output's segment costs output processing and checksum on the CPU;
//! the interface moves the IP packet across the bus and sends it as an FC
//! sequence of class 3 frames of at most 2048 payload bytes, each under
//! buffer-to-buffer credit, through the switch model of `fc/switch.rs`; the
//! receiving interface collects the sequence, moves it across its bus and
//! interrupts; input processing and checksum put the data in the receive
//! buffer, and the receiving application's call copies it out.
//!
//! The hosts' events and the switch's run on one event set in (time,
//! sequence) order.

use std::collections::VecDeque;

use super::machine::{HostCosts, Machine};
use super::tcp::{Segment, TcpConfig, TcpEndpoint};
use crate::error::{Error, Result};
use crate::fc::connection::{Connections, Refusal};
use crate::fc::frame::{Frame, FrameKind};
use crate::fc::metrics::{FcMetrics, FcMetricsSpec};
use crate::fc::sender::Sender;
use crate::fc::shared::Shared;
use crate::fc::switch::{FcSwitch, FcSwitchSpec, SwitchEvent};
use crate::fc::timing::FcTiming;
use crate::kernel::{time, Arena, EventQueue, LineRate, RandomStream, Time};
use crate::report::MetricSummary;
use crate::scenario::hosts::TCP_IP_HEADER_BYTES;
use crate::scenario::{FcFabricSpec, NetperfTest, Scenario, TcpNetperfSpec};
use crate::sim::driver::{Metrics, Sections};
use crate::sim::{
    Carries, ComponentKind, Context, Delivery, Link, MetricSet, Model, ModelInfo, PortRef, Status, Summary,
};

/// Bytes the send and receive calls copy at a time: one mbuf cluster
/// (MCLBYTES, a 4 KB page on HP-UX).
pub const COPY_CHUNK: u64 = 4096;
/// BSD's shortest persist interval (TCPTV_PERSMIN).
pub const PERSIST_TIME: Time = 5 * time::SECOND;
/// RFC 2625: the FC network header (16) and LLC/SNAP (8) ahead of the IP datagram.
pub const IP_OVER_FC_HEADER: u32 = 24;

/// Host index of netperf (local, sender of TCP_STREAM) and of netserver.
const LOCAL: usize = 0;
const REMOTE: usize = 1;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The CPU of `host` finished its current job.
    CpuDone { host: u8 },
    /// The I/O bus of `host` finished moving a frame.
    BusDone { host: u8 },
    /// The interface firmware of `host` finished a packet (`rx`: a received one).
    FirmwareDone { host: u8, rx: bool },
    /// The interface of `host` has sent a frame's last byte.
    TransmitDone { host: u8 },
    /// A tick of `host`'s delayed-ACK timer.
    DelayedAckTick { host: u8 },
    /// The persist timer of `host` fired.
    Persist { host: u8 },
    /// A burst of other work arrives at `host`.
    Background { host: u8 },
    /// netperf's test length is over.
    TestEnd,
    /// An event of the switch.
    Switch(SwitchEvent),
    /// The first byte of `frame` reaches switch port `port`.
    SwitchFrame { port: u16, frame: u32 },
    /// A buffer-to-buffer credit reaches switch port `port`.
    SwitchCredit { port: u16 },
    /// `host` has received `frame` whole.
    HostFrame { host: u8, frame: u32 },
    /// A buffer-to-buffer credit reaches `host`.
    HostCredit { host: u8 },
}

impl Carries<SwitchEvent> for Event {
    #[inline]
    fn wrap(_: u32, ev: SwitchEvent) -> Self {
        Event::Switch(ev)
    }
}

/// The switch's links lead to the two hosts, which take frames whole.
impl Carries<Delivery> for Event {
    #[inline]
    fn wrap(index: u32, ev: Delivery) -> Self {
        match ev {
            Delivery::Head { kind: ComponentKind::Switch, port, frame } => Event::SwitchFrame { port, frame },
            Delivery::Credit { kind: ComponentKind::Switch, port } => Event::SwitchCredit { port },
            Delivery::Whole { frame, .. } | Delivery::Head { frame, .. } => {
                Event::HostFrame { host: index as u8, frame }
            }
            Delivery::Credit { .. } => Event::HostCredit { host: index as u8 },
        }
    }
}

/// The hosts send class 3 frames only, so the switch never refuses a
/// connect request here.
impl Carries<Refusal> for Event {
    fn wrap(connection: u32, _: Refusal) -> Self {
        panic!("a TCP host sent no class 1 connect request, yet connection {connection} was refused")
    }
}

/// A host's interface has sent a frame's last byte.
#[derive(Clone, Copy, Debug)]
struct HostSent;

impl Carries<HostSent> for Event {
    #[inline]
    fn wrap(host: u32, _: HostSent) -> Self {
        Event::TransmitDone { host: host as u8 }
    }
}

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, EventQueue<Event>>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Job {
    /// The application copies the next chunk of its message into the send buffer.
    SendChunk { syscall: bool, wake: bool },
    /// The application copies the next chunk of received data out.
    RecvChunk { syscall: bool, wake: bool },
    /// tcp_output, IP and the driver for one segment.
    Output { packet: u32 },
    /// Interrupt, driver, IP and TCP input of one segment.
    Input { packet: u32 },
    /// Other work on the machine.
    Background { duration: Time },
}

#[derive(Clone, Copy, Debug, Default)]
struct Packet {
    seg: Segment,
    /// Frames of the sequence not yet received.
    frames_left: u32,
    /// Bytes of the FC payload (IP datagram with its FC encapsulation).
    payload: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    StreamSender,
    StreamReceiver,
    RrClient,
    RrServer,
}

struct App {
    role: Role,
    /// Bytes left to copy in the current send call (0: not sending).
    send_left: u64,
    /// Room the current pass of the send call may still fill.
    pass_space: u64,
    blocked_send: bool,
    /// Bytes the current receive call may still take (0: not receiving).
    recv_left: u64,
    blocked_recv: bool,
    /// Bytes of the current request or response received so far (TCP_RR).
    got: u64,
    /// Sending: no further message or transaction starts.
    stopped: bool,
    bytes_written: u64,
    bytes_read: u64,
}

struct Host {
    machine: Machine,
    costs: HostCosts,
    tcp: TcpEndpoint,
    app: App,
    interrupt_queue: VecDeque<Job>,
    process_queue: VecDeque<Job>,
    /// The job on the CPU and the bytes it copies.
    running: Option<(Job, u64)>,
    cpu_busy: Time,
    /// When the job on the CPU ends (busy time past it is not yet spent).
    busy_until: Time,
    /// CPU time spent by the end of the measurement, once it has ended.
    busy_at_end: Option<Time>,
    /// Frames waiting for the bus: (frame, outbound).
    bus_queue: VecDeque<(u32, bool)>,
    bus_busy: bool,
    /// Packets waiting for the firmware, outbound [0] and inbound [1].
    firmware_queue: [VecDeque<u32>; 2],
    firmware_busy: [bool; 2],
    /// The interface towards the switch, and the frames that have crossed
    /// the bus waiting for the link.
    sender: Sender,
    link_queue: VecDeque<u32>,
    persist_armed: bool,
    background_rng: RandomStream,
    background_load: f64,
}

pub struct NetperfModel {
    switch: FcSwitch,
    /// The frames the switch carries, with its timing and counters.
    sh: Shared,
    hosts: [Host; 2],
    packets: Arena<Packet>,
    spec: TcpNetperfSpec,
    bus_rate: LineRate,
    adapter_send: Time,
    adapter_receive: Time,
    background_burst_ps: f64,
    delayed_ack_period: Time,
    /// Bytes of TCP, IP and FC encapsulation ahead of a segment's data.
    packet_overhead: u32,
    /// netperf's -l has passed.
    test_over: bool,
    /// The measurement is complete: timers stop, what is in flight drains.
    finished: bool,
    /// When the measurement ended: the test length (TCP_RR) or the stream's
    /// last byte read (TCP_STREAM); None while it runs.
    end_time: Option<Time>,
    transactions: u64,
    segments_delivered: u64,
    frames_delivered: u64,
    /// ACKs the delayed-ACK timer sent, and segments the persist timer forced.
    timer_acks: u64,
    persist_probes: u64,
    pure_acks: u64,
    metrics: MetricSet,
    scenario: Scenario,
}

impl NetperfModel {
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let spec = scenario.tcp_netperf()?.clone();
        let fc_spec = FcFabricSpec { switch: spec.switch.clone(), link: spec.link.clone(), ..FcFabricSpec::default() };
        let timing = FcTiming::new(&fc_spec);
        let buffers = spec.switch.buffers_per_port;
        let ports = spec.switch.ports as usize;
        let peers: Vec<Option<Link>> =
            (0..ports).map(|p| (p < 2).then(|| Link::new(PortRef::node(p as u32), timing.propagation))).collect();
        let switch = FcSwitch::new(FcSwitchSpec {
            id: 0,
            peers: &peers,
            buffers_per_port: buffers,
            peer_buffers: buffers,
            forwarding: &[vec![0], vec![1]],
            arbitration: spec.switch.arbitration,
            seed: scenario.run.seed,
        });
        let metrics = FcMetrics::new(
            &[ports],
            FcMetricsSpec {
                buffers,
                batches: scenario.run.batches,
                batch_ps: 10 * timing.data_time,
                nodes: 2,
                class: 3,
            },
        );
        let n = &spec.netperf;
        let mss = n.mss();
        let local_shift = TcpConfig::shift_for(n.local_socket_bytes, n.window_scale);
        let remote_shift = TcpConfig::shift_for(n.remote_socket_bytes, n.window_scale);
        let cfg = |buffer: u32, shift: u8| TcpConfig {
            mss,
            send_buffer: buffer,
            receive_buffer: buffer,
            nodelay: n.nodelay,
            window_shift: shift,
        };
        let local_cfg = cfg(n.local_socket_bytes, local_shift);
        let remote_cfg = cfg(n.remote_socket_bytes, remote_shift);
        let local_tcp = TcpEndpoint::new(local_cfg, TcpEndpoint::initial_window(&remote_cfg), remote_shift);
        let remote_tcp = TcpEndpoint::new(remote_cfg, TcpEndpoint::initial_window(&local_cfg), local_shift);
        let roles = match n.test {
            NetperfTest::TcpStream => [Role::StreamSender, Role::StreamReceiver],
            NetperfTest::TcpRr => [Role::RrClient, Role::RrServer],
        };
        let h = &spec.hosts;
        let kinds = [(h.sender, h.sender_background_load), (h.receiver, h.receiver_background_load)];
        let hosts = [0, 1].map(|i| {
            let machine = Machine::of(kinds[i].0);
            Host {
                machine,
                costs: HostCosts::new(&machine),
                tcp: if i == LOCAL { local_tcp.clone() } else { remote_tcp.clone() },
                app: App {
                    role: roles[i],
                    send_left: 0,
                    pass_space: 0,
                    blocked_send: false,
                    recv_left: 0,
                    blocked_recv: false,
                    got: 0,
                    stopped: false,
                    bytes_written: 0,
                    bytes_read: 0,
                },
                interrupt_queue: VecDeque::with_capacity(64),
                process_queue: VecDeque::with_capacity(64),
                running: None,
                cpu_busy: 0,
                busy_until: 0,
                busy_at_end: None,
                bus_queue: VecDeque::with_capacity(64),
                bus_busy: false,
                firmware_queue: [VecDeque::with_capacity(16), VecDeque::with_capacity(16)],
                firmware_busy: [false; 2],
                sender: Sender::new(Link::new(PortRef::switch(0, i as u16), timing.propagation), buffers),
                link_queue: VecDeque::with_capacity(64),
                persist_armed: false,
                background_rng: RandomStream::new(scenario.run.seed, "hosts.background", i as u64),
                background_load: kinds[i].1.unwrap_or(machine.background_load),
            }
        });
        let packet_overhead = TCP_IP_HEADER_BYTES + n.option_bytes() + IP_OVER_FC_HEADER;
        let period = time::from_us(n.delayed_ack_ms * 1000.0);
        Ok(NetperfModel {
            switch,
            sh: Shared {
                frames: Arena::with_capacity(1024),
                messages: Arena::with_capacity(16),
                connections: Connections::new(scenario.run.seed, 0.0),
                timing,
                metrics,
            },
            hosts,
            packets: Arena::with_capacity(256),
            bus_rate: LineRate::from_bytes_per_second(h.bus_mb_s * 1e6),
            adapter_send: time::from_us(h.adapter_send_us),
            adapter_receive: time::from_us(h.adapter_receive_us),
            background_burst_ps: h.background_burst_us * time::MICROSECOND as f64,
            delayed_ack_period: period,
            packet_overhead,
            test_over: false,
            finished: false,
            end_time: None,
            transactions: 0,
            segments_delivered: 0,
            frames_delivered: 0,
            timer_acks: 0,
            persist_probes: 0,
            pure_acks: 0,
            metrics: MetricSet::new(scenario.run.batches),
            scenario: scenario.clone(),
            spec,
        })
    }

    fn receive_size(&self) -> u64 {
        let n = &self.spec.netperf;
        n.receive_bytes.unwrap_or(n.remote_socket_bytes) as u64
    }

    // ---- CPU ----

    fn push_job(&mut self, cx: &mut Cx, h: usize, job: Job) {
        match job {
            Job::Output { .. } | Job::Input { .. } => self.hosts[h].interrupt_queue.push_back(job),
            _ => self.hosts[h].process_queue.push_back(job),
        }
        if self.hosts[h].running.is_none() {
            self.start_job(cx, h);
        }
    }

    fn start_job(&mut self, cx: &mut Cx, h: usize) {
        let host = &mut self.hosts[h];
        let Some(job) = host.interrupt_queue.pop_front().or_else(|| host.process_queue.pop_front()) else {
            return;
        };
        let c = host.costs;
        let (duration, bytes) = match job {
            Job::SendChunk { syscall, wake } => {
                // A pass copies whole clusters until its room is used up.
                let n = if host.app.pass_space == 0 { 0 } else { COPY_CHUNK.min(host.app.send_left) };
                let ends_pass = n >= host.app.pass_space || n == host.app.send_left;
                let fixed = if syscall { c.syscall } else { 0 } + if wake { c.wakeup } else { 0 };
                (fixed + c.copy(n) + if ends_pass { c.output_check } else { 0 }, n)
            }
            Job::RecvChunk { syscall, wake } => {
                let n = COPY_CHUNK.min(host.app.recv_left).min(host.tcp.rcv_unread);
                let fixed = if syscall { c.syscall } else { 0 } + if wake { c.wakeup } else { 0 };
                (fixed + c.copy(n), n)
            }
            Job::Output { packet } => (c.output(self.packets[packet].seg.len as u64), 0),
            Job::Input { packet } => {
                (c.interrupt + c.packet_input + c.checksum(self.packets[packet].seg.len as u64), 0)
            }
            Job::Background { duration } => (duration, 0),
        };
        host.running = Some((job, bytes));
        host.cpu_busy += duration;
        host.busy_until = cx.now() + duration;
        cx.schedule(cx.now() + duration, Event::CpuDone { host: h as u8 });
    }

    fn on_cpu_done(&mut self, cx: &mut Cx, h: usize) {
        let (job, bytes) = self.hosts[h].running.take().expect("a job was running");
        match job {
            Job::SendChunk { .. } => self.send_chunk_done(cx, h, bytes),
            Job::RecvChunk { .. } => self.recv_chunk_done(cx, h, bytes),
            Job::Output { packet } => self.firmware_push(cx, h, packet, false),
            Job::Input { packet } => self.input_done(cx, h, packet),
            Job::Background { .. } => {}
        }
        if self.hosts[h].running.is_none() {
            self.start_job(cx, h);
        }
    }

    // ---- TCP output ----

    /// tcp_output: every data segment the rules allow, then an ACK if one is owed.
    fn tcp_output(&mut self, cx: &mut Cx, h: usize) {
        while let Some(len) = self.hosts[h].tcp.next_data_segment() {
            let seg = self.hosts[h].tcp.send_data(len);
            self.emit(cx, h, seg);
        }
        if self.hosts[h].tcp.ack_now {
            let tcp = &mut self.hosts[h].tcp;
            let seg = tcp.stamp(tcp.snd_nxt, 0);
            self.pure_acks += 1;
            self.emit(cx, h, seg);
        }
        if self.hosts[h].tcp.needs_persist() && !self.hosts[h].persist_armed {
            self.hosts[h].persist_armed = true;
            cx.schedule(cx.now() + PERSIST_TIME, Event::Persist { host: h as u8 });
        }
    }

    fn emit(&mut self, cx: &mut Cx, h: usize, seg: Segment) {
        let payload = seg.len + self.packet_overhead;
        let frames = payload.div_ceil(self.sh.timing.data_bytes - self.sh.timing.header_bytes);
        let packet = self.packets.insert(Packet { seg, frames_left: frames, payload });
        self.push_job(cx, h, Job::Output { packet });
    }

    // ---- interface and bus ----
    //
    // The interface (HP's Tachyon-based EISA card) moves frames, not
    // packets, across the bus: its firmware sets a packet up once
    // (`adapter_send_us`), then each frame is read from host memory as it
    // is sent; inbound frames are written to host memory as they arrive,
    // and the firmware completes the sequence (`adapter_receive_us`) before
    // it interrupts. Firmware and bus work side by side, so one packet's
    // set-up overlaps another's frames; the bus carries both directions.

    fn firmware_push(&mut self, cx: &mut Cx, h: usize, packet: u32, rx: bool) {
        self.hosts[h].firmware_queue[rx as usize].push_back(packet);
        if !self.hosts[h].firmware_busy[rx as usize] {
            self.firmware_start(cx, h, rx);
        }
    }

    fn firmware_start(&mut self, cx: &mut Cx, h: usize, rx: bool) {
        if self.hosts[h].firmware_queue[rx as usize].is_empty() {
            return;
        }
        let t = if rx { self.adapter_receive } else { self.adapter_send };
        self.hosts[h].firmware_busy[rx as usize] = true;
        cx.schedule(cx.now() + t, Event::FirmwareDone { host: h as u8, rx });
    }

    fn on_firmware_done(&mut self, cx: &mut Cx, h: usize, rx: bool) {
        let packet = self.hosts[h].firmware_queue[rx as usize].pop_front().expect("a packet was being set up");
        self.hosts[h].firmware_busy[rx as usize] = false;
        if rx {
            self.push_job(cx, h, Job::Input { packet });
        } else {
            self.queue_frames(cx, h, packet);
        }
        self.firmware_start(cx, h, rx);
    }

    fn bus_push(&mut self, cx: &mut Cx, h: usize, frame: u32, outbound: bool) {
        self.hosts[h].bus_queue.push_back((frame, outbound));
        if !self.hosts[h].bus_busy {
            self.bus_start(cx, h);
        }
    }

    fn bus_start(&mut self, cx: &mut Cx, h: usize) {
        let Some(&(frame, _)) = self.hosts[h].bus_queue.front() else { return };
        let payload = self.sh.frames.get(frame).bytes - self.sh.timing.header_bytes;
        self.hosts[h].bus_busy = true;
        cx.schedule(cx.now() + self.bus_rate.time_for(payload as u64), Event::BusDone { host: h as u8 });
    }

    fn on_bus_done(&mut self, cx: &mut Cx, h: usize) {
        let (frame, outbound) = self.hosts[h].bus_queue.pop_front().expect("a transfer was under way");
        self.hosts[h].bus_busy = false;
        if outbound {
            self.hosts[h].link_queue.push_back(frame);
            self.try_transmit(cx, h);
        } else {
            let packet = self.sh.frames.get(frame).message;
            self.sh.frames.remove(frame);
            let p = &mut self.packets[packet];
            p.frames_left -= 1;
            if p.frames_left == 0 {
                self.firmware_push(cx, h, packet, true);
            }
        }
        self.bus_start(cx, h);
    }

    /// Splits a packet into its FC sequence of frames, each to cross the bus.
    fn queue_frames(&mut self, cx: &mut Cx, h: usize, packet: u32) {
        let max_payload = self.sh.timing.data_bytes - self.sh.timing.header_bytes;
        let mut left = self.packets[packet].payload;
        while left > 0 {
            let chunk = left.min(max_payload);
            left -= chunk;
            let frame = self.sh.frames.insert(Frame {
                kind: FrameKind::Data,
                src: h as u32,
                dst: (1 - h) as u32,
                bytes: chunk + self.sh.timing.header_bytes,
                message: packet,
                t_inject: cx.now(),
                ..Frame::default()
            });
            self.bus_push(cx, h, frame, true);
        }
    }

    fn try_transmit(&mut self, cx: &mut Cx, h: usize) {
        let host = &mut self.hosts[h];
        if !host.sender.ready() {
            return;
        }
        let Some(frame) = host.link_queue.pop_front() else { return };
        self.sh.metrics.counters.data_frames_injected += 1;
        let duration = self.sh.timing.frame_time(self.sh.frames.get(frame).bytes);
        host.sender.send(cx, h as u32, HostSent, frame, duration);
    }

    fn on_frame_delivered(&mut self, cx: &mut Cx, h: usize, frame: u32) {
        self.sh.metrics.counters.data_frames_delivered += 1;
        self.frames_delivered += 1;
        self.bus_push(cx, h, frame, false);
    }

    // ---- TCP input and the applications ----

    fn input_done(&mut self, cx: &mut Cx, h: usize, packet: u32) {
        let seg = self.packets[packet].seg;
        self.packets.remove(packet);
        self.segments_delivered += 1;
        let freed = self.hosts[h].tcp.receive(&seg);
        if freed > 0 {
            self.wake_sender(cx, h);
        }
        if seg.len > 0 && self.hosts[h].app.blocked_recv {
            self.hosts[h].app.blocked_recv = false;
            self.push_job(cx, h, Job::RecvChunk { syscall: true, wake: true });
        }
        self.tcp_output(cx, h);
        self.check_stream_done(cx);
    }

    /// HP-UX `tcp_usrsend` waits while the send buffer is full, or while
    /// it has less than a cluster free, holds a cluster and a cluster or
    /// more is left to send; otherwise a pass may take what is free.
    fn send_room(host: &Host) -> u64 {
        let space = host.tcp.send_space();
        let waits = host.app.send_left >= COPY_CHUNK && space < COPY_CHUNK && host.tcp.send_buffered() >= COPY_CHUNK;
        if waits {
            0
        } else {
            space
        }
    }

    /// Starts the next pass of a send call if the buffer has room for one;
    /// false: the call must wait.
    fn begin_pass(&mut self, cx: &mut Cx, h: usize, wake: bool) -> bool {
        let room = Self::send_room(&self.hosts[h]);
        if room == 0 {
            return false;
        }
        self.hosts[h].app.pass_space = room;
        self.push_job(cx, h, Job::SendChunk { syscall: false, wake });
        true
    }

    /// A sender blocked on a full send buffer wakes when an ACK frees room
    /// for a pass (`sowwakeup` on every ACK that frees data).
    fn wake_sender(&mut self, cx: &mut Cx, h: usize) {
        if self.hosts[h].app.blocked_send && self.begin_pass(cx, h, true) {
            self.hosts[h].app.blocked_send = false;
        }
    }

    /// Starts a send call of `bytes`.
    fn start_send(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        let host = &mut self.hosts[h];
        host.app.send_left = bytes;
        host.app.pass_space = Self::send_room(host);
        self.push_job(cx, h, Job::SendChunk { syscall: true, wake: false });
    }

    /// Starts a receive call for at most `bytes`; it blocks if nothing is there.
    fn start_recv(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        let host = &mut self.hosts[h];
        host.app.recv_left = bytes;
        if host.tcp.rcv_unread > 0 {
            self.push_job(cx, h, Job::RecvChunk { syscall: true, wake: false });
        } else {
            host.app.blocked_recv = true;
        }
    }

    fn send_chunk_done(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        let host = &mut self.hosts[h];
        host.tcp.write(bytes);
        host.app.send_left -= bytes;
        host.app.bytes_written += bytes;
        host.app.pass_space = host.app.pass_space.saturating_sub(bytes);
        if host.app.send_left > 0 && host.app.pass_space > 0 {
            // The pass goes on: tcp_output runs once it ends.
            self.push_job(cx, h, Job::SendChunk { syscall: false, wake: false });
            return;
        }
        if bytes > 0 {
            self.tcp_output(cx, h);
        }
        if self.hosts[h].app.send_left > 0 {
            if !self.begin_pass(cx, h, false) {
                self.hosts[h].app.blocked_send = true;
            }
            return;
        }
        let host = &mut self.hosts[h];
        // The send call returned.
        match host.app.role {
            Role::StreamSender => {
                if self.test_over {
                    host.app.stopped = true;
                    self.check_stream_done(cx);
                } else {
                    self.start_send(cx, h, self.spec.netperf.message_bytes as u64);
                }
            }
            Role::RrClient => {
                let (_, response) = self.spec.netperf.rr_sizes();
                self.hosts[h].app.got = 0;
                self.start_recv(cx, h, response as u64);
            }
            Role::RrServer => {
                let (request, _) = self.spec.netperf.rr_sizes();
                self.hosts[h].app.got = 0;
                self.start_recv(cx, h, request as u64);
            }
            Role::StreamReceiver => unreachable!("the stream receiver does not send"),
        }
    }

    fn recv_chunk_done(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        let host = &mut self.hosts[h];
        host.tcp.read(bytes);
        host.app.recv_left -= bytes;
        host.app.bytes_read += bytes;
        host.app.got += bytes;
        if host.app.recv_left > 0 && host.tcp.rcv_unread > 0 {
            self.push_job(cx, h, Job::RecvChunk { syscall: false, wake: false });
            return;
        }
        // The receive call returned: tell TCP (a window update may be due).
        if host.tcp.window_update_due() {
            host.tcp.ack_now = true;
        }
        self.tcp_output(cx, h);
        let (request, response) = self.spec.netperf.rr_sizes();
        match self.hosts[h].app.role {
            Role::StreamReceiver => {
                self.check_stream_done(cx);
                if !self.finished {
                    self.start_recv(cx, h, self.receive_size());
                }
            }
            Role::RrServer => {
                let got = self.hosts[h].app.got;
                if got < request as u64 {
                    self.start_recv(cx, h, request as u64 - got);
                } else {
                    self.start_send(cx, h, response as u64);
                }
            }
            Role::RrClient => {
                let got = self.hosts[h].app.got;
                if got < response as u64 {
                    self.start_recv(cx, h, response as u64 - got);
                    return;
                }
                if self.test_over {
                    self.hosts[h].app.stopped = true;
                    self.finished = true;
                } else {
                    self.transactions += 1;
                    self.start_send(cx, h, request as u64);
                }
            }
            Role::StreamSender => unreachable!("the stream sender does not receive"),
        }
    }

    /// TCP_STREAM ends when the sender has stopped and the receiver has read
    /// everything (netperf's shutdown and wait for the remote close).
    fn check_stream_done(&mut self, cx: &mut Cx) {
        if self.finished || self.hosts[LOCAL].app.role != Role::StreamSender {
            return;
        }
        let sender = &self.hosts[LOCAL].app;
        if sender.stopped && self.hosts[REMOTE].app.bytes_read == sender.bytes_written {
            self.finished = true;
            self.end_measurement(cx);
        }
    }

    fn on_test_end(&mut self, cx: &mut Cx) {
        self.test_over = true;
        if self.hosts[LOCAL].app.role == Role::RrClient {
            // netperf's alarm interrupts the transaction in progress: it is
            // not counted, and the elapsed time is the test length.
            self.end_measurement(cx);
        }
    }

    /// The measurement ends now: the CPU time spent so far is what netperf
    /// reports utilization from (the job on the CPU counts up to now).
    fn end_measurement(&mut self, cx: &mut Cx) {
        let now = cx.now();
        self.end_time = Some(now);
        for host in &mut self.hosts {
            host.busy_at_end = Some(host.cpu_busy - host.busy_until.saturating_sub(now));
        }
    }

    fn on_delayed_ack_tick(&mut self, cx: &mut Cx, h: usize) {
        if self.hosts[h].tcp.delayed_ack {
            self.timer_acks += 1;
            self.hosts[h].tcp.ack_now = true;
            self.tcp_output(cx, h);
        }
        if !self.finished {
            cx.schedule(cx.now() + self.delayed_ack_period, Event::DelayedAckTick { host: h as u8 });
        }
    }

    fn on_persist(&mut self, cx: &mut Cx, h: usize) {
        self.hosts[h].persist_armed = false;
        if self.hosts[h].tcp.needs_persist() {
            let len = self.hosts[h].tcp.persist_segment();
            let seg = self.hosts[h].tcp.send_data(len);
            self.persist_probes += 1;
            self.emit(cx, h, seg);
        }
        self.tcp_output(cx, h);
    }

    fn on_background(&mut self, cx: &mut Cx, h: usize) {
        if self.finished {
            return;
        }
        let burst = self.hosts[h].background_rng.exponential(self.background_burst_ps) as Time;
        self.push_job(cx, h, Job::Background { duration: burst.max(1) });
        self.schedule_background(cx, h);
    }

    fn schedule_background(&mut self, cx: &mut Cx, h: usize) {
        let load = self.hosts[h].background_load;
        if load <= 0.0 {
            return;
        }
        let gap = self.hosts[h].background_rng.exponential(self.background_burst_ps / load) as Time;
        cx.schedule(cx.now() + gap, Event::Background { host: h as u8 });
    }

    /// The measured figure, as netperf computes it, over a measurement that
    /// ended at `stop`: Mbit/s (TCP_STREAM) or transactions per second.
    fn figure(&self, stop: Time) -> f64 {
        let elapsed = time::to_us(stop) / 1e6;
        match self.spec.netperf.test {
            NetperfTest::TcpStream => self.hosts[LOCAL].app.bytes_written as f64 * 8.0 / 1e6 / elapsed,
            NetperfTest::TcpRr => self.transactions as f64 / elapsed,
        }
    }

    /// CPU time host `h` spent by `stop`.
    fn busy_by(&self, h: usize, stop: Time) -> Time {
        let host = &self.hosts[h];
        host.busy_at_end.unwrap_or(host.cpu_busy - host.busy_until.saturating_sub(stop))
    }
}

impl Model for NetperfModel {
    type Event = Event;
    type Queue = EventQueue<Event>;

    fn info(&self) -> ModelInfo {
        ModelInfo { unit: "segments", quiet_window: None, deadlock_check_period: None }
    }

    fn event_set(&self) -> EventQueue<Event> {
        EventQueue::with_capacity(256)
    }

    fn start(&mut self, cx: &mut Cx) -> Time {
        let n = self.spec.netperf.clone();
        cx.schedule(time::from_us(n.length_s * 1e6), Event::TestEnd);
        for h in 0..2 {
            // Each host's timer ticks on its own phase.
            let mut rng = RandomStream::new(self.scenario.run.seed, "hosts.delayed_ack_phase", h as u64);
            let phase = (rng.uniform() * self.delayed_ack_period as f64) as Time;
            cx.schedule(phase, Event::DelayedAckTick { host: h as u8 });
            self.schedule_background(cx, h);
        }
        match n.test {
            NetperfTest::TcpStream => {
                self.start_send(cx, LOCAL, n.message_bytes as u64);
                self.start_recv(cx, REMOTE, self.receive_size());
            }
            NetperfTest::TcpRr => {
                let (request, _) = n.rr_sizes();
                self.start_send(cx, LOCAL, request as u64);
                self.start_recv(cx, REMOTE, request as u64);
            }
        }
        0
    }

    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        self.handle(cx, event);
    }

    fn status(&self) -> Status {
        Status {
            observations: self.segments_delivered,
            in_flight: self.packets.live() as u64,
            memory_bytes: self.packets.memory_bytes() + self.sh.memory_bytes(),
        }
    }

    fn frames_moved(&self) -> u64 {
        self.frames_delivered
    }

    fn metrics(&self) -> &MetricSet {
        &self.metrics
    }

    fn reset_statistics(&mut self, now: Time) {
        self.metrics.reset(now);
    }

    /// The measurement's end, or the time the run stopped at (a time cap
    /// before the test length: flagged `max_time` by the driver).
    fn stop_time(&self, now: Time) -> Time {
        self.end_time.unwrap_or(now).max(1)
    }

    fn summaries(&mut self, stop: Time) -> Summary {
        let (metrics, sections) = self.summaries_at(stop);
        Summary { metrics, sections, flags: self.flags() }
    }

    fn stop_sources(&mut self) {
        self.finished = true;
    }

    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters(events_pending == 0)
    }
}

impl NetperfModel {
    fn handle(&mut self, cx: &mut Cx, event: Event) {
        match event {
            Event::CpuDone { host } => self.on_cpu_done(cx, host as usize),
            Event::BusDone { host } => self.on_bus_done(cx, host as usize),
            Event::FirmwareDone { host, rx } => self.on_firmware_done(cx, host as usize, rx),
            Event::TransmitDone { host } => {
                self.hosts[host as usize].sender.sent();
                self.try_transmit(cx, host as usize);
            }
            Event::DelayedAckTick { host } => self.on_delayed_ack_tick(cx, host as usize),
            Event::Persist { host } => self.on_persist(cx, host as usize),
            Event::Background { host } => self.on_background(cx, host as usize),
            Event::TestEnd => self.on_test_end(cx),
            Event::Switch(ev) => self.switch.handle(cx, &mut self.sh, ev),
            Event::SwitchFrame { port, frame } => self.switch.on_frame_start(cx, &mut self.sh, port as usize, frame),
            Event::SwitchCredit { port } => self.switch.on_credit(cx, &mut self.sh, port as usize),
            Event::HostFrame { host, frame } => self.on_frame_delivered(cx, host as usize, frame),
            Event::HostCredit { host } => {
                self.hosts[host as usize].sender.credit_returned();
                self.try_transmit(cx, host as usize);
            }
        }
    }

    fn summaries_at(&mut self, stop: Time) -> (Metrics, Sections) {
        let n = &self.spec.netperf;
        let figure = self.figure(stop);
        let elapsed = time::to_us(stop) / 1e6;
        let mut metrics = Vec::new();
        match n.test {
            NetperfTest::TcpStream => {
                metrics.push(("throughput_mbit_s".to_string(), MetricSummary::value(figure)));
            }
            NetperfTest::TcpRr => {
                metrics.push(("transactions_per_s".to_string(), MetricSummary::value(figure)));
                // One way: half the time of a transaction (seed 002, section 4.2).
                let latency = if figure > 0.0 { 1e6 / (2.0 * figure) } else { f64::NAN };
                metrics.push(("latency_us".to_string(), MetricSummary::value(latency)));
            }
        }
        metrics.push(("elapsed_s".to_string(), MetricSummary::value(elapsed)));
        for (h, name) in [(LOCAL, "local"), (REMOTE, "remote")] {
            let u = self.busy_by(h, stop) as f64 / stop as f64 * 100.0;
            metrics.push((format!("{name}_cpu_utilization_pct"), MetricSummary::value(u)));
        }
        let (request, response) = n.rr_sizes();
        let section = serde_json::json!({
            "test": n.test,
            "local_host": self.hosts[LOCAL].machine.name,
            "remote_host": self.hosts[REMOTE].machine.name,
            "local_socket_bytes": n.local_socket_bytes,
            "remote_socket_bytes": n.remote_socket_bytes,
            "message_bytes": n.message_bytes,
            "request_bytes": request,
            "response_bytes": response,
            "receive_bytes": self.receive_size(),
            "mss_bytes": n.mss(),
            "elapsed_s": elapsed,
            "bytes_sent": self.hosts[LOCAL].app.bytes_written,
            "bytes_received": self.hosts[REMOTE].app.bytes_read,
            "transactions": self.transactions,
            "final_cwnd": self.hosts[LOCAL].tcp.cwnd,
        });
        (metrics, vec![("netperf".to_string(), section)])
    }

    /// TCP_RR that completed no transaction within its length measured
    /// nothing. (A stream always measures: its first send call completes.)
    fn flags(&self) -> Vec<String> {
        match self.spec.netperf.test {
            NetperfTest::TcpRr if self.transactions == 0 => vec!["no_transactions".to_string()],
            _ => Vec::new(),
        }
    }

    /// Conservation: whatever each application wrote, the other read (once
    /// the run has drained); no segment arrived out of order; no frame or
    /// packet is left when nothing is in flight.
    fn counters(&self, idle: bool) -> Result<Vec<(String, i64)>> {
        for (a, b) in [(LOCAL, REMOTE), (REMOTE, LOCAL)] {
            let written = self.hosts[a].app.bytes_written;
            let read = self.hosts[b].app.bytes_read + self.hosts[b].tcp.rcv_unread;
            let in_flight = self.hosts[a].tcp.written - self.hosts[b].tcp.rcv_nxt;
            if written != read + in_flight || (idle && in_flight != 0) {
                return Err(Error::model(format!(
                    "byte conservation violated: host {a} wrote {written} bytes, host {b} holds or read {read}, \
                     {in_flight} in flight"
                )));
            }
            if self.hosts[b].tcp.out_of_order > 0 {
                return Err(Error::model(format!(
                    "{} segments reached host {b} out of order",
                    self.hosts[b].tcp.out_of_order
                )));
            }
        }
        if idle && (self.sh.frames.live() > 0 || self.packets.live() > 0) {
            return Err(Error::model(format!(
                "{} frames and {} packets left in an idle fabric",
                self.sh.frames.live(),
                self.packets.live()
            )));
        }
        let c = &self.sh.metrics.counters;
        Ok(vec![
            ("bytes_sent".into(), self.hosts[LOCAL].app.bytes_written as i64),
            ("bytes_received".into(), self.hosts[REMOTE].app.bytes_read as i64),
            ("bytes_returned".into(), self.hosts[REMOTE].app.bytes_written as i64),
            ("transactions".into(), self.transactions as i64),
            ("segments_delivered".into(), self.segments_delivered as i64),
            ("pure_acks".into(), self.pure_acks as i64),
            ("delayed_acks_by_timer".into(), self.timer_acks as i64),
            ("persist_probes".into(), self.persist_probes as i64),
            ("data_frames_injected".into(), c.data_frames_injected as i64),
            ("data_frames_delivered".into(), c.data_frames_delivered as i64),
            ("frames_in_flight".into(), self.sh.frames.live() as i64),
        ])
    }
}
