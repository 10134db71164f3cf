//! A workstation's CPU and protocol stack: one CPU doing all protocol work
//! (interrupt-level work first, then process-level work in order, neither
//! preempted), the socket calls it runs for the application, the TCP
//! endpoint (`tcp.rs`) and its timers, and the machine's other work.
//!
//! The application's send call copies its message into the send buffer in
//! passes of whole clusters (`COPY_CHUNK`), each pass taking as much as the
//! buffer had room for at its start, and calls tcp_output once per pass
//! (HP-UX `tcp_usrsend` and `sobuildsnd`); tcp_output's segment costs output
//! processing and checksum, then goes to the interface as a packet; a
//! received packet costs the interrupt, input processing and checksum, and
//! the receive call copies the data out. What the application does when a
//! call returns is its own affair ([`HostReport`]).

use std::collections::VecDeque;

use super::machine::{HostCosts, Machine};
use super::packet::Packet;
use super::tcp::{Segment, TcpEndpoint};
use crate::kernel::{time, Arena, RandomStream, Time};
use crate::sim::Schedule;

/// Bytes the send and receive calls copy at a time: one mbuf cluster
/// (MCLBYTES, a 4 KB page on HP-UX).
pub const COPY_CHUNK: u64 = 4096;
/// BSD's shortest persist interval (TCPTV_PERSMIN).
pub const PERSIST_TIME: Time = 5 * time::SECOND;

/// The host's own events, carried with its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostEvent {
    /// The CPU finished its current job.
    CpuDone,
    /// A tick of the delayed-ACK timer.
    DelayedAckTick,
    /// The persist timer fired.
    Persist,
    /// A burst of other work arrives.
    Background,
}

/// What the host hands on when a CPU job ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostReport {
    /// Nothing for anyone else.
    Nothing,
    /// tcp_output is done with `packet`: the interface takes it.
    PacketOut(u32),
    /// The application's send call returned.
    SendReturned,
    /// The application's receive call returned with `bytes`.
    RecvReturned { bytes: u64 },
    /// A segment went through TCP input.
    SegmentIn,
}

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

/// A socket call in progress.
#[derive(Clone, Copy, Debug, Default)]
struct Calls {
    /// Bytes left to copy in the current send call (0: not sending).
    send_left: u64,
    /// Room the current pass of the send call may still fill.
    pass_space: u64,
    blocked_send: bool,
    /// Bytes the current receive call may still take, and has taken.
    recv_left: u64,
    recv_taken: u64,
    blocked_recv: bool,
}

/// What a host is built from.
pub struct HostSpec {
    pub index: u32,
    pub machine: Machine,
    pub tcp: TcpEndpoint,
    /// Bytes of TCP, IP and FC encapsulation ahead of a segment's data.
    pub packet_overhead: u32,
    /// Other work: bursts of this mean (ps) taking this share of the CPU.
    pub background_burst_ps: f64,
    pub background_load: f64,
    pub delayed_ack_period: Time,
    pub seed: u64,
}

/// Totals a host counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostCounters {
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub segments_received: u64,
    pub pure_acks: u64,
    /// ACKs the delayed-ACK timer sent, and segments the persist timer forced.
    pub timer_acks: u64,
    pub persist_probes: u64,
}

pub struct Host {
    index: u32,
    pub machine: Machine,
    costs: HostCosts,
    pub tcp: TcpEndpoint,
    calls: Calls,
    packet_overhead: u32,
    interrupt_queue: VecDeque<Job>,
    process_queue: VecDeque<Job>,
    /// The job on the CPU and the bytes it copies.
    running: Option<(Job, u64)>,
    cpu_busy: Time,
    /// When the job on the CPU ends (busy time past it is not yet spent).
    busy_until: Time,
    /// CPU time spent by the end of the measurement, once it has ended.
    busy_at_end: Option<Time>,
    persist_armed: bool,
    delayed_ack_period: Time,
    background_rng: RandomStream,
    background_burst_ps: f64,
    background_load: f64,
    /// The measurement is over: the timers and the other work stop.
    quiet: bool,
    pub counters: HostCounters,
}

impl Host {
    pub fn new(spec: HostSpec) -> Self {
        Host {
            index: spec.index,
            machine: spec.machine,
            costs: HostCosts::new(&spec.machine),
            tcp: spec.tcp,
            calls: Calls::default(),
            packet_overhead: spec.packet_overhead,
            interrupt_queue: VecDeque::with_capacity(64),
            process_queue: VecDeque::with_capacity(64),
            running: None,
            cpu_busy: 0,
            busy_until: 0,
            busy_at_end: None,
            persist_armed: false,
            delayed_ack_period: spec.delayed_ack_period,
            background_rng: RandomStream::new(spec.seed, "hosts.background", spec.index as u64),
            background_burst_ps: spec.background_burst_ps,
            background_load: spec.background_load,
            quiet: false,
            counters: HostCounters::default(),
        }
    }

    /// The delayed-ACK timer ticks on its own phase (drawn per host), and
    /// the first burst of other work is due.
    pub fn start(&mut self, cx: &mut impl Schedule<HostEvent>, seed: u64) {
        let mut rng = RandomStream::new(seed, "hosts.delayed_ack_phase", self.index as u64);
        let phase = (rng.uniform() * self.delayed_ack_period as f64) as Time;
        cx.push(phase, self.index, HostEvent::DelayedAckTick);
        self.schedule_background(cx);
    }

    /// The measurement is over: timers stop, what is in flight drains.
    pub fn quiet(&mut self) {
        self.quiet = true;
    }

    /// The measurement ends now: the CPU time spent so far is what netperf
    /// reports utilization from (the job on the CPU counts up to now).
    pub fn end_measurement(&mut self, now: Time) {
        self.busy_at_end = Some(self.cpu_busy - self.busy_until.saturating_sub(now));
    }

    /// CPU time spent by `stop`.
    pub fn busy_by(&self, stop: Time) -> Time {
        self.busy_at_end.unwrap_or(self.cpu_busy - self.busy_until.saturating_sub(stop))
    }

    /// Handles one of the host's own events; a CPU job's end may hand
    /// something on, after which the caller lets the CPU go on ([`Host::resume`]).
    pub fn handle(
        &mut self,
        cx: &mut impl Schedule<HostEvent>,
        packets: &mut Arena<Packet>,
        ev: HostEvent,
    ) -> HostReport {
        match ev {
            HostEvent::CpuDone => return self.on_cpu_done(cx, packets),
            HostEvent::DelayedAckTick => {
                if self.tcp.delayed_ack {
                    self.counters.timer_acks += 1;
                    self.tcp.ack_now = true;
                    self.tcp_output(cx, packets);
                }
                if !self.quiet {
                    cx.push(cx.now() + self.delayed_ack_period, self.index, HostEvent::DelayedAckTick);
                }
            }
            HostEvent::Persist => {
                self.persist_armed = false;
                if self.tcp.needs_persist() {
                    let len = self.tcp.persist_segment();
                    let seg = self.tcp.send_data(len);
                    self.counters.persist_probes += 1;
                    self.emit(cx, packets, seg);
                }
                self.tcp_output(cx, packets);
            }
            HostEvent::Background => {
                if self.quiet {
                    return HostReport::Nothing;
                }
                let burst = self.background_rng.exponential(self.background_burst_ps) as Time;
                self.push_job(cx, packets, Job::Background { duration: burst.max(1) });
                self.schedule_background(cx);
            }
        }
        HostReport::Nothing
    }

    /// The CPU takes its next job if it is free.
    pub fn resume(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>) {
        if self.running.is_none() {
            self.start_job(cx, packets);
        }
    }

    /// The interface has received `packet` whole: an interrupt.
    pub fn packet_in(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &mut Arena<Packet>, packet: u32) {
        self.push_job(cx, packets, Job::Input { packet });
    }

    fn schedule_background(&mut self, cx: &mut impl Schedule<HostEvent>) {
        if self.background_load <= 0.0 {
            return;
        }
        let gap = self.background_rng.exponential(self.background_burst_ps / self.background_load) as Time;
        cx.push(cx.now() + gap, self.index, HostEvent::Background);
    }

    // ---- CPU ----

    fn push_job(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>, job: Job) {
        match job {
            Job::Output { .. } | Job::Input { .. } => self.interrupt_queue.push_back(job),
            _ => self.process_queue.push_back(job),
        }
        if self.running.is_none() {
            self.start_job(cx, packets);
        }
    }

    fn start_job(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>) {
        let Some(job) = self.interrupt_queue.pop_front().or_else(|| self.process_queue.pop_front()) else {
            return;
        };
        let c = self.costs;
        let calls = &self.calls;
        let (duration, bytes) = match job {
            Job::SendChunk { syscall, wake } => {
                // A pass copies whole clusters until its room is used up.
                let n = if calls.pass_space == 0 { 0 } else { COPY_CHUNK.min(calls.send_left) };
                let ends_pass = n >= calls.pass_space || n == calls.send_left;
                let fixed = if syscall { c.syscall } else { 0 } + if wake { c.wakeup } else { 0 };
                (fixed + c.copy(n) + if ends_pass { c.output_check } else { 0 }, n)
            }
            Job::RecvChunk { syscall, wake } => {
                let n = COPY_CHUNK.min(calls.recv_left).min(self.tcp.rcv_unread);
                let fixed = if syscall { c.syscall } else { 0 } + if wake { c.wakeup } else { 0 };
                (fixed + c.copy(n), n)
            }
            Job::Output { packet } => (c.output(packets.get(packet).seg.len as u64), 0),
            Job::Input { packet } => (c.interrupt + c.packet_input + c.checksum(packets.get(packet).seg.len as u64), 0),
            Job::Background { duration } => (duration, 0),
        };
        self.running = Some((job, bytes));
        self.cpu_busy += duration;
        let now = cx.now();
        self.busy_until = now + duration;
        cx.push(now + duration, self.index, HostEvent::CpuDone);
    }

    fn on_cpu_done(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &mut Arena<Packet>) -> HostReport {
        let (job, bytes) = self.running.take().expect("a job was running");
        match job {
            Job::SendChunk { .. } => self.send_chunk_done(cx, packets, bytes),
            Job::RecvChunk { .. } => self.recv_chunk_done(cx, packets, bytes),
            Job::Output { packet } => HostReport::PacketOut(packet),
            Job::Input { packet } => self.input_done(cx, packets, packet),
            Job::Background { .. } => HostReport::Nothing,
        }
    }

    // ---- TCP ----

    /// tcp_output: every data segment the rules allow, then an ACK if one is owed.
    fn tcp_output(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &mut Arena<Packet>) {
        while let Some(len) = self.tcp.next_data_segment() {
            let seg = self.tcp.send_data(len);
            self.emit(cx, packets, seg);
        }
        if self.tcp.ack_now {
            let seg = self.tcp.stamp(self.tcp.snd_nxt, 0);
            self.counters.pure_acks += 1;
            self.emit(cx, packets, seg);
        }
        if self.tcp.needs_persist() && !self.persist_armed {
            self.persist_armed = true;
            cx.push(cx.now() + PERSIST_TIME, self.index, HostEvent::Persist);
        }
    }

    /// A segment becomes a packet, and its output a job for the CPU.
    fn emit(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &mut Arena<Packet>, seg: Segment) {
        let packet = packets.insert(Packet { seg, frames_left: 0, payload: seg.len + self.packet_overhead });
        self.push_job(cx, packets, Job::Output { packet });
    }

    fn input_done(
        &mut self,
        cx: &mut impl Schedule<HostEvent>,
        packets: &mut Arena<Packet>,
        packet: u32,
    ) -> HostReport {
        let seg = packets.get(packet).seg;
        packets.remove(packet);
        self.counters.segments_received += 1;
        let freed = self.tcp.receive(&seg);
        if freed > 0 {
            self.wake_sender(cx, packets);
        }
        if seg.len > 0 && self.calls.blocked_recv {
            self.calls.blocked_recv = false;
            self.push_job(cx, packets, Job::RecvChunk { syscall: true, wake: true });
        }
        self.tcp_output(cx, packets);
        HostReport::SegmentIn
    }

    // ---- socket calls ----

    /// HP-UX `tcp_usrsend` waits while the send buffer is full, or while
    /// it has less than a cluster free, holds a cluster and a cluster or
    /// more is left to send; otherwise a pass may take what is free.
    fn send_room(&self) -> u64 {
        let space = self.tcp.send_space();
        let waits = self.calls.send_left >= COPY_CHUNK && space < COPY_CHUNK && self.tcp.send_buffered() >= COPY_CHUNK;
        if waits {
            0
        } else {
            space
        }
    }

    /// Starts the next pass of a send call if the buffer has room for one;
    /// false: the call must wait.
    fn begin_pass(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>, wake: bool) -> bool {
        let room = self.send_room();
        if room == 0 {
            return false;
        }
        self.calls.pass_space = room;
        self.push_job(cx, packets, Job::SendChunk { syscall: false, wake });
        true
    }

    /// A sender blocked on a full send buffer wakes when an ACK frees room
    /// for a pass (`sowwakeup` on every ACK that frees data).
    fn wake_sender(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>) {
        if self.calls.blocked_send && self.begin_pass(cx, packets, true) {
            self.calls.blocked_send = false;
        }
    }

    /// The application's send call of `bytes`.
    pub fn start_send(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>, bytes: u64) {
        self.calls.send_left = bytes;
        self.calls.pass_space = self.send_room();
        self.push_job(cx, packets, Job::SendChunk { syscall: true, wake: false });
    }

    /// The application's receive call for at most `bytes`; it blocks if nothing is there.
    pub fn start_recv(&mut self, cx: &mut impl Schedule<HostEvent>, packets: &Arena<Packet>, bytes: u64) {
        self.calls.recv_left = bytes;
        self.calls.recv_taken = 0;
        if self.tcp.rcv_unread > 0 {
            self.push_job(cx, packets, Job::RecvChunk { syscall: true, wake: false });
        } else {
            self.calls.blocked_recv = true;
        }
    }

    fn send_chunk_done(
        &mut self,
        cx: &mut impl Schedule<HostEvent>,
        packets: &mut Arena<Packet>,
        bytes: u64,
    ) -> HostReport {
        self.tcp.write(bytes);
        let calls = &mut self.calls;
        calls.send_left -= bytes;
        calls.pass_space = calls.pass_space.saturating_sub(bytes);
        self.counters.bytes_written += bytes;
        if calls.send_left > 0 && calls.pass_space > 0 {
            // The pass goes on: tcp_output runs once it ends.
            self.push_job(cx, packets, Job::SendChunk { syscall: false, wake: false });
            return HostReport::Nothing;
        }
        if bytes > 0 {
            self.tcp_output(cx, packets);
        }
        if self.calls.send_left > 0 {
            if !self.begin_pass(cx, packets, false) {
                self.calls.blocked_send = true;
            }
            return HostReport::Nothing;
        }
        HostReport::SendReturned
    }

    fn recv_chunk_done(
        &mut self,
        cx: &mut impl Schedule<HostEvent>,
        packets: &mut Arena<Packet>,
        bytes: u64,
    ) -> HostReport {
        self.tcp.read(bytes);
        self.calls.recv_left -= bytes;
        self.calls.recv_taken += bytes;
        self.counters.bytes_read += bytes;
        if self.calls.recv_left > 0 && self.tcp.rcv_unread > 0 {
            self.push_job(cx, packets, Job::RecvChunk { syscall: false, wake: false });
            return HostReport::Nothing;
        }
        // The receive call returned: tell TCP (a window update may be due).
        if self.tcp.window_update_due() {
            self.tcp.ack_now = true;
        }
        self.tcp_output(cx, packets);
        HostReport::RecvReturned { bytes: self.calls.recv_taken }
    }
}
