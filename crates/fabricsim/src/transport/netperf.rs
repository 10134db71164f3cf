//! Two workstations running TCP/IP over the Fibre Channel switch, measured
//! the way netperf measures (ong-farrell-fc): TCP_STREAM (bytes sent over
//! the elapsed time) and TCP_RR (transactions per second).
//!
//! Each host ([`Host`]: one CPU, the socket calls, the TCP endpoint) has an
//! FC interface on its I/O bus ([`FcInterface`]) cabled to a port of the
//! switch model of `fc/switch.rs`. One segment travels as follows: the
//! sending application's call copies data into the send buffer; tcp_output's
//! segment costs output processing and checksum on the CPU; the interface
//! moves the IP packet across the bus and sends it as an FC sequence of
//! class 3 frames under buffer-to-buffer credit; the receiving interface
//! collects the sequence, moves it across its bus and interrupts; input
//! processing puts the data in the receive buffer, and the receiving
//! application's call copies it out. This file keeps netperf's test roles
//! (what each application does when a call returns) and the measurement;
//! every event runs on one event set in (time, sequence) order.

use super::fc_interface::{FcInterface, InterfaceEvent, InterfaceSpec};
use super::host::{Host, HostCounters, HostEvent, HostReport, HostSpec};
use super::machine::Machine;
use super::packet::Packet;
use super::tcp::{TcpConfig, TcpEndpoint};
use crate::error::{Error, Result};
use crate::fc::connection::{Connections, Refusal};
use crate::fc::metrics::{FcMetrics, FcMetricsSpec};
use crate::fc::shared::Shared;
use crate::fc::switch::{FcSwitch, FcSwitchSpec, SwitchEvent};
use crate::fc::timing::FcTiming;
use crate::kernel::{time, Arena, EventQueue, LineRate, Time};
use crate::report::MetricSummary;
use crate::scenario::hosts::TCP_IP_HEADER_BYTES;
use crate::scenario::{FcFabricSpec, NetperfTest, Scenario, TcpNetperfSpec};
use crate::sim::model::{Metrics, Sections};
use crate::sim::{
    Carries, ComponentKind, Context, Delivery, Link, MetricSet, Model, ModelInfo, PortRef, Status, Summary,
};

pub use super::host::{COPY_CHUNK, PERSIST_TIME};

/// RFC 2625: the FC network header (16) and LLC/SNAP (8) ahead of the IP datagram.
pub const IP_OVER_FC_HEADER: u32 = 24;

/// Host index of netperf (local, sender of TCP_STREAM) and of netserver.
const LOCAL: usize = 0;
const REMOTE: usize = 1;

/// Every event of the model: each component's own events and what the
/// switch's links deliver, with the index of the component they are for.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// An event of host `host`'s CPU and stack.
    Host { host: u8, ev: HostEvent },
    /// An event of host `host`'s FC interface.
    Interface { host: u8, ev: InterfaceEvent },
    /// netperf's test length is over.
    TestEnd,
    /// An event of the switch.
    Switch(SwitchEvent),
    /// The first byte of `frame` reaches switch port `port`.
    SwitchFrame { port: u16, frame: u32 },
    /// A buffer-to-buffer credit reaches switch port `port`.
    SwitchCredit { port: u16 },
    /// Host `host`'s interface has received `frame` whole.
    HostFrame { host: u8, frame: u32 },
    /// A buffer-to-buffer credit reaches host `host`'s interface.
    HostCredit { host: u8 },
}

impl Carries<HostEvent> for Event {
    #[inline]
    fn wrap(host: u32, ev: HostEvent) -> Self {
        Event::Host { host: host as u8, ev }
    }
}

impl Carries<InterfaceEvent> for Event {
    #[inline]
    fn wrap(host: u32, ev: InterfaceEvent) -> Self {
        Event::Interface { host: host as u8, ev }
    }
}

impl Carries<SwitchEvent> for Event {
    #[inline]
    fn wrap(_: u32, ev: SwitchEvent) -> Self {
        Event::Switch(ev)
    }
}

/// The switch's links lead to the two hosts' interfaces, which take frames whole.
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

/// The assembly's context: the driver's clock and event set.
type Cx<'a> = Context<'a, Event, EventQueue<Event>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    StreamSender,
    StreamReceiver,
    RrClient,
    RrServer,
}

/// One side of the test: its role and where it stands.
#[derive(Clone, Copy, Debug)]
struct App {
    role: Role,
    /// Bytes of the current request or response received so far (TCP_RR).
    got: u64,
    /// Sending: no further message or transaction starts.
    stopped: bool,
}

pub struct NetperfModel {
    switch: FcSwitch,
    /// The frames the switch carries, with its timing and counters.
    sh: Shared,
    hosts: [Host; 2],
    interfaces: [FcInterface; 2],
    apps: [App; 2],
    packets: Arena<Packet>,
    spec: TcpNetperfSpec,
    /// netperf's -l has passed.
    test_over: bool,
    /// The measurement is complete: timers stop, what is in flight drains.
    finished: bool,
    /// When the measurement ended: the test length (TCP_RR) or the stream's
    /// last byte read (TCP_STREAM); None while it runs.
    end_time: Option<Time>,
    transactions: u64,
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
        let local_shift = TcpConfig::shift_for(n.local_socket_bytes, n.window_scale);
        let remote_shift = TcpConfig::shift_for(n.remote_socket_bytes, n.window_scale);
        let cfg = |buffer: u32, shift: u8| TcpConfig {
            mss: n.mss(),
            send_buffer: buffer,
            receive_buffer: buffer,
            nodelay: n.nodelay,
            window_shift: shift,
        };
        let local_cfg = cfg(n.local_socket_bytes, local_shift);
        let remote_cfg = cfg(n.remote_socket_bytes, remote_shift);
        let tcp = [
            TcpEndpoint::new(local_cfg, TcpEndpoint::initial_window(&remote_cfg), remote_shift),
            TcpEndpoint::new(remote_cfg, TcpEndpoint::initial_window(&local_cfg), local_shift),
        ];
        let roles = match n.test {
            NetperfTest::TcpStream => [Role::StreamSender, Role::StreamReceiver],
            NetperfTest::TcpRr => [Role::RrClient, Role::RrServer],
        };
        let h = &spec.hosts;
        let kinds = [(h.sender, h.sender_background_load), (h.receiver, h.receiver_background_load)];
        let packet_overhead = TCP_IP_HEADER_BYTES + n.option_bytes() + IP_OVER_FC_HEADER;
        let hosts = [0, 1].map(|i| {
            let machine = Machine::of(kinds[i].0);
            Host::new(HostSpec {
                index: i as u32,
                machine,
                tcp: tcp[i].clone(),
                packet_overhead,
                background_burst_ps: h.background_burst_us * time::MICROSECOND as f64,
                background_load: kinds[i].1.unwrap_or(machine.background_load),
                delayed_ack_period: time::from_us(n.delayed_ack_ms * 1000.0),
                seed: scenario.run.seed,
            })
        });
        let interfaces = [0u32, 1].map(|i| {
            FcInterface::new(InterfaceSpec {
                host: i,
                peer: 1 - i,
                link: Link::new(PortRef::switch(0, i as u16), timing.propagation),
                buffers,
                bus_rate: LineRate::from_bytes_per_second(h.bus_mb_s * 1e6),
                adapter_send: time::from_us(h.adapter_send_us),
                adapter_receive: time::from_us(h.adapter_receive_us),
            })
        });
        Ok(NetperfModel {
            switch,
            sh: Shared {
                frames: Arena::with_capacity(1024),
                messages: Arena::with_capacity(16),
                connections: Connections::new(scenario.run.seed, 0.0),
                timing,
                metrics,
                credit_mail: Vec::new(),
            },
            hosts,
            interfaces,
            apps: roles.map(|role| App { role, got: 0, stopped: false }),
            packets: Arena::with_capacity(256),
            test_over: false,
            finished: false,
            end_time: None,
            transactions: 0,
            metrics: MetricSet::new(scenario.run.batches),
            scenario: scenario.clone(),
            spec,
        })
    }

    fn receive_size(&self) -> u64 {
        let n = &self.spec.netperf;
        n.receive_bytes.unwrap_or(n.remote_socket_bytes) as u64
    }

    /// A host total summed over both hosts.
    fn total(&self, f: impl Fn(&HostCounters) -> u64) -> u64 {
        self.hosts.iter().map(|h| f(&h.counters)).sum()
    }

    fn start_send(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        self.hosts[h].start_send(cx, &self.packets, bytes);
    }

    fn start_recv(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        self.hosts[h].start_recv(cx, &self.packets, bytes);
    }

    /// Hands on what a host's CPU job produced, then lets the CPU go on.
    fn host_event(&mut self, cx: &mut Cx, h: usize, ev: HostEvent) {
        match self.hosts[h].handle(cx, &mut self.packets, ev) {
            HostReport::Nothing => {}
            HostReport::PacketOut(packet) => self.interfaces[h].send(cx, packet),
            HostReport::SendReturned => self.send_returned(cx, h),
            HostReport::RecvReturned { bytes } => self.recv_returned(cx, h, bytes),
            HostReport::SegmentIn => self.check_stream_done(cx),
        }
        if ev == HostEvent::CpuDone {
            self.hosts[h].resume(cx, &self.packets);
        }
    }

    /// The measurement is complete: the hosts' timers and other work stop.
    fn finish(&mut self) {
        self.finished = true;
        self.hosts.iter_mut().for_each(Host::quiet);
    }

    /// A send call returned: the next call of the application's role.
    fn send_returned(&mut self, cx: &mut Cx, h: usize) {
        let (request, response) = self.spec.netperf.rr_sizes();
        match self.apps[h].role {
            Role::StreamSender => {
                if self.test_over {
                    self.apps[h].stopped = true;
                    self.check_stream_done(cx);
                } else {
                    self.start_send(cx, h, self.spec.netperf.message_bytes as u64);
                }
            }
            Role::RrClient => {
                self.apps[h].got = 0;
                self.start_recv(cx, h, response as u64);
            }
            Role::RrServer => {
                self.apps[h].got = 0;
                self.start_recv(cx, h, request as u64);
            }
            Role::StreamReceiver => unreachable!("the stream receiver does not send"),
        }
    }

    /// A receive call returned with `bytes`: the next call of the role.
    fn recv_returned(&mut self, cx: &mut Cx, h: usize, bytes: u64) {
        self.apps[h].got += bytes;
        let got = self.apps[h].got;
        let (request, response) = self.spec.netperf.rr_sizes();
        match self.apps[h].role {
            Role::StreamReceiver => {
                self.check_stream_done(cx);
                if !self.finished {
                    self.start_recv(cx, h, self.receive_size());
                }
            }
            Role::RrServer => {
                if got < request as u64 {
                    self.start_recv(cx, h, request as u64 - got);
                } else {
                    self.start_send(cx, h, response as u64);
                }
            }
            Role::RrClient => {
                if got < response as u64 {
                    self.start_recv(cx, h, response as u64 - got);
                    return;
                }
                if self.test_over {
                    self.apps[h].stopped = true;
                    self.finish();
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
        if self.finished || self.apps[LOCAL].role != Role::StreamSender {
            return;
        }
        let written = self.hosts[LOCAL].counters.bytes_written;
        if self.apps[LOCAL].stopped && self.hosts[REMOTE].counters.bytes_read == written {
            self.finish();
            self.end_measurement(cx.now());
        }
    }

    fn on_test_end(&mut self, cx: &mut Cx) {
        self.test_over = true;
        if self.apps[LOCAL].role == Role::RrClient {
            // netperf's alarm interrupts the transaction in progress: it is
            // not counted, and the elapsed time is the test length.
            self.end_measurement(cx.now());
        }
    }

    /// The measurement ends now.
    fn end_measurement(&mut self, now: Time) {
        self.end_time = Some(now);
        for host in &mut self.hosts {
            host.end_measurement(now);
        }
    }

    /// The measured figure, as netperf computes it, over a measurement that
    /// ended at `stop`: Mbit/s (TCP_STREAM) or transactions per second.
    fn figure(&self, stop: Time) -> f64 {
        let elapsed = time::to_us(stop) / 1e6;
        match self.spec.netperf.test {
            NetperfTest::TcpStream => self.hosts[LOCAL].counters.bytes_written as f64 * 8.0 / 1e6 / elapsed,
            NetperfTest::TcpRr => self.transactions as f64 / elapsed,
        }
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
        for host in &mut self.hosts {
            host.start(cx, self.scenario.run.seed);
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

    /// Hands each component its events, and what one hands on to another.
    fn dispatch(&mut self, cx: &mut Cx, event: Event) {
        match event {
            Event::Host { host, ev } => self.host_event(cx, host as usize, ev),
            Event::Interface { host, ev } => {
                let h = host as usize;
                if let Some(packet) = self.interfaces[h].handle(cx, &mut self.sh, &mut self.packets, ev) {
                    self.hosts[h].packet_in(cx, &mut self.packets, packet);
                    self.interfaces[h].resume_receive(cx);
                }
            }
            Event::TestEnd => self.on_test_end(cx),
            Event::Switch(ev) => self.switch.handle(cx, &mut self.sh, ev),
            Event::SwitchFrame { port, frame } => self.switch.on_frame_start(cx, &mut self.sh, port as usize, frame),
            Event::SwitchCredit { port } => self.switch.on_credit(cx, &mut self.sh, port as usize),
            Event::HostFrame { host, frame } => self.interfaces[host as usize].on_frame(cx, &mut self.sh, frame),
            Event::HostCredit { host } => self.interfaces[host as usize].on_credit(cx, &mut self.sh),
        }
    }

    fn status(&self) -> Status {
        Status {
            observations: self.total(|c| c.segments_received),
            in_flight: self.packets.live() as u64,
            memory_bytes: self.packets.memory_bytes() + self.sh.memory_bytes(),
        }
    }

    fn frames_moved(&self) -> u64 {
        self.interfaces.iter().map(|i| i.frames_received).sum()
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
        self.finish();
    }

    fn audit(&self, events_pending: usize) -> Result<Vec<(String, i64)>> {
        self.counters(events_pending == 0)
    }
}

impl NetperfModel {
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
            let u = self.hosts[h].busy_by(stop) as f64 / stop as f64 * 100.0;
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
            "bytes_sent": self.hosts[LOCAL].counters.bytes_written,
            "bytes_received": self.hosts[REMOTE].counters.bytes_read,
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
            let written = self.hosts[a].counters.bytes_written;
            let read = self.hosts[b].counters.bytes_read + self.hosts[b].tcp.rcv_unread;
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
            ("bytes_sent".into(), self.hosts[LOCAL].counters.bytes_written as i64),
            ("bytes_received".into(), self.hosts[REMOTE].counters.bytes_read as i64),
            ("bytes_returned".into(), self.hosts[REMOTE].counters.bytes_written as i64),
            ("transactions".into(), self.transactions as i64),
            ("segments_delivered".into(), self.total(|c| c.segments_received) as i64),
            ("pure_acks".into(), self.total(|c| c.pure_acks) as i64),
            ("delayed_acks_by_timer".into(), self.total(|c| c.timer_acks) as i64),
            ("persist_probes".into(), self.total(|c| c.persist_probes) as i64),
            ("data_frames_injected".into(), c.data_frames_injected as i64),
            ("data_frames_delivered".into(), c.data_frames_delivered as i64),
            ("frames_in_flight".into(), self.sh.frames.live() as i64),
        ])
    }
}
