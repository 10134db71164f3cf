//! `[hosts]` and `[netperf]`: two workstations running TCP/IP over the
//! Fibre Channel switch, measured the way netperf measures (seed 002,
//! sections 3 and 4). The machine types' costs live with the model
//! (`transport::machine`); here are the choices a user makes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::Result;

/// The machine types of seed 002, section 3.1.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MachineType {
    /// HP 9000 C110: 120 MHz PA-7300LC, 128 MB, HP-UX 10.20.
    C110,
    /// HP 9000 C180: 180 MHz PA-8000, 128 MB, HP-UX 10.20.
    C180,
    /// HP 9000 J210: 120 MHz PA-7200, 3 x 128 MB, HP-UX 10.20.
    J210,
    /// HP 9000/735: 125 MHz PA-7150, 128 MB, HP-UX 10.01.
    Hp735,
}

/// The two hosts of a netperf test: netperf runs on `sender` (the local
/// host), netserver on `receiver` (the remote host, netperf's -H).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HostsSpec {
    /// Machine type of the local host (netperf; the sender of TCP_STREAM).
    pub sender: MachineType,
    /// Machine type of the remote host (netserver, netperf's -H).
    pub receiver: MachineType,
    /// Background load on the sender: the share of its CPU taken by other
    /// work (Poisson bursts); unset: the machine type's default (the paper's
    /// "lightly to moderately loaded" machines, see docs/tcp-netperf-model.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sender_background_load: Option<f64>,
    /// Background load on the receiver, as `sender_background_load`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver_background_load: Option<f64>,
    /// Mean length of one burst of background work, in microseconds.
    pub background_burst_us: f64,
    /// Data rate of the FC interface's transfers across the I/O bus (EISA),
    /// in MB/s, each way; calibrated (see docs/tcp-netperf-model.md).
    pub bus_mb_s: f64,
    /// Interface firmware time per IP packet sent (set-up of the sequence).
    pub adapter_send_us: f64,
    /// Interface firmware time per IP packet received, before its interrupt.
    pub adapter_receive_us: f64,
}

impl Default for HostsSpec {
    fn default() -> Self {
        HostsSpec {
            sender: MachineType::C110,
            receiver: MachineType::C110,
            sender_background_load: None,
            receiver_background_load: None,
            background_burst_us: 500.0,
            bus_mb_s: CALIBRATED_BUS_MB_S,
            adapter_send_us: CALIBRATED_ADAPTER_US,
            adapter_receive_us: CALIBRATED_ADAPTER_US,
        }
    }
}

/// Calibrated on the C110 to C110 stream with 262143-byte socket buffers
/// and 2 MB messages (82 Mbit/s, seed 002 section 4.1.2).
pub const CALIBRATED_BUS_MB_S: f64 = 10.8;
/// Calibrated on the C110 to C110 one-byte TCP_RR latency (about 340 us,
/// seed 002 section 4.2.2).
pub const CALIBRATED_ADAPTER_US: f64 = 67.0;

/// The two tests of the paper.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
pub enum NetperfTest {
    /// Bulk transfer: send `message_bytes` messages for `length_s` seconds.
    #[serde(rename = "TCP_STREAM")]
    TcpStream,
    /// Request/response: one request of `request_bytes`, one response of
    /// `response_bytes`, one transaction at a time.
    #[serde(rename = "TCP_RR")]
    TcpRr,
}

/// netperf's options (`netperf -t TEST -l LEN -- -m -s -S -D`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NetperfSpec {
    /// netperf -t.
    pub test: NetperfTest,
    /// netperf -l: test length in seconds of simulated time.
    pub length_s: f64,
    /// netperf -m: bytes per send call (TCP_STREAM).
    pub message_bytes: u32,
    /// netperf -r (first value): request bytes of TCP_RR; unset: `message_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_bytes: Option<u32>,
    /// netperf -r (second value): response bytes of TCP_RR; unset: `request_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_bytes: Option<u32>,
    /// netperf -s: send and receive socket buffer of the local host, bytes.
    pub local_socket_bytes: u32,
    /// netperf -S: socket buffers of the remote host, bytes.
    pub remote_socket_bytes: u32,
    /// netperf -M: bytes per receive call on the remote host; unset: its
    /// socket buffer size (netperf's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive_bytes: Option<u32>,
    /// netperf -D: TCP_NODELAY on the sender (Nagle off).
    pub nodelay: bool,
    /// RFC 1323 window scale option on both hosts (the paper enables it).
    pub window_scale: bool,
    /// IP MTU of IP over Fibre Channel, bytes: sets the MSS (MTU less 40
    /// bytes of IP and TCP headers, rounded down to whole 4096-byte
    /// clusters as HP-UX's `tcp_mss` does, less 12 bytes of the RFC 1323
    /// timestamp option). Default: RFC 2625's 65280 (see docs/tcp-netperf-model.md).
    pub mtu_bytes: u32,
    /// Period of the delayed-ACK timer (BSD's fast timer): an ACK held back
    /// goes at the next tick unless a window update or data to send takes it first.
    pub delayed_ack_ms: f64,
}

impl Default for NetperfSpec {
    fn default() -> Self {
        NetperfSpec {
            test: NetperfTest::TcpStream,
            length_s: 10.0,
            message_bytes: 2 * 1024 * 1024,
            request_bytes: None,
            response_bytes: None,
            local_socket_bytes: 262143,
            remote_socket_bytes: 262143,
            receive_bytes: None,
            nodelay: true,
            window_scale: true,
            mtu_bytes: DEFAULT_MTU_BYTES,
            delayed_ack_ms: 200.0,
        }
    }
}

pub const DEFAULT_MTU_BYTES: u32 = 65280;
/// HP-UX's mbuf cluster (MCLBYTES, a 4 KB page): an MSS above it is rounded down to whole clusters.
pub const CLUSTER_BYTES: u32 = 4096;
/// IP and TCP headers.
pub const TCP_IP_HEADER_BYTES: u32 = 40;
/// The RFC 1323 timestamp option, on every segment when the extensions are on.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

const LOAD_NOTE: &str = "a share of the CPU";
pub const SENDER_BACKGROUND_LOAD: Range = Range::num("hosts.sender_background_load", 0.0, 0.9).note(LOAD_NOTE);
pub const RECEIVER_BACKGROUND_LOAD: Range = Range::num("hosts.receiver_background_load", 0.0, 0.9).note(LOAD_NOTE);
pub const BACKGROUND_BURST_US: Range = Range::num("hosts.background_burst_us", 1.0, 1e6).unit("us");
pub const BUS_MB_S: Range = Range::num("hosts.bus_mb_s", 0.1, 1e4).unit("MB/s").note("EISA: at most 33");
pub const ADAPTER_SEND_US: Range = Range::num("hosts.adapter_send_us", 0.0, 1e5).unit("us");
pub const ADAPTER_RECEIVE_US: Range = Range::num("hosts.adapter_receive_us", 0.0, 1e5).unit("us");
pub const LENGTH_S: Range = Range::num("netperf.length_s", 0.0, 3600.0).above().unit("s").note("up to an hour");
pub const MESSAGE_BYTES: Range = Range::int("netperf.message_bytes", 1, 1 << 26).unit("bytes").note("up to 64 MiB");
pub const REQUEST_BYTES: Range = Range::int("netperf.request_bytes", 1, 1 << 26).unit("bytes");
pub const RESPONSE_BYTES: Range = Range::int("netperf.response_bytes", 1, 1 << 26).unit("bytes");
pub const LOCAL_SOCKET_BYTES: Range =
    Range::int("netperf.local_socket_bytes", 4096, 262143).unit("bytes").note("HP-UX 10.20 limits");
pub const REMOTE_SOCKET_BYTES: Range =
    Range::int("netperf.remote_socket_bytes", 4096, 262143).unit("bytes").note("HP-UX 10.20 limits");
pub const RECEIVE_BYTES: Range = Range::int("netperf.receive_bytes", 1, 1 << 26).unit("bytes");
pub const MTU_BYTES: Range =
    Range::int("netperf.mtu_bytes", 576, 65280).unit("bytes").note("IP over Fibre Channel, RFC 2625: at most 65280");
/// The delayed-ACK timer is a kernel timer, run from the clock interrupt:
/// no faster than its tick, 1 ms at the 1000 Hz of the fastest clocks
/// (HP-UX 10.20's is 100 Hz; BSD's fast timer, the default, 200 ms). The
/// model ticks it whether or not an ACK waits, so a shorter period would
/// only add work: 10^10 ticks in a 10 s test at 1 ns.
pub const DELAYED_ACK_MS: Range = Range::num("netperf.delayed_ack_ms", 1.0, 10_000.0)
    .unit("ms")
    .note("a kernel timer: no shorter than a 1000 Hz clock's tick");

pub const RANGES: &[Range] = &[
    SENDER_BACKGROUND_LOAD,
    RECEIVER_BACKGROUND_LOAD,
    BACKGROUND_BURST_US,
    BUS_MB_S,
    ADAPTER_SEND_US,
    ADAPTER_RECEIVE_US,
    LENGTH_S,
    MESSAGE_BYTES,
    REQUEST_BYTES,
    RESPONSE_BYTES,
    LOCAL_SOCKET_BYTES,
    REMOTE_SOCKET_BYTES,
    RECEIVE_BYTES,
    MTU_BYTES,
    DELAYED_ACK_MS,
];

impl HostsSpec {
    pub fn validate(&self) -> Result<()> {
        if let Some(l) = self.sender_background_load {
            SENDER_BACKGROUND_LOAD.check(l)?;
        }
        if let Some(l) = self.receiver_background_load {
            RECEIVER_BACKGROUND_LOAD.check(l)?;
        }
        BACKGROUND_BURST_US.check(self.background_burst_us)?;
        BUS_MB_S.check(self.bus_mb_s)?;
        ADAPTER_SEND_US.check(self.adapter_send_us)?;
        ADAPTER_RECEIVE_US.check(self.adapter_receive_us)
    }
}

impl NetperfSpec {
    pub fn validate(&self) -> Result<()> {
        LENGTH_S.check(self.length_s)?;
        MESSAGE_BYTES.check_int(self.message_bytes)?;
        if let Some(r) = self.request_bytes {
            REQUEST_BYTES.check_int(r)?;
        }
        if let Some(r) = self.response_bytes {
            RESPONSE_BYTES.check_int(r)?;
        }
        LOCAL_SOCKET_BYTES.check_int(self.local_socket_bytes)?;
        REMOTE_SOCKET_BYTES.check_int(self.remote_socket_bytes)?;
        if let Some(r) = self.receive_bytes {
            RECEIVE_BYTES.check_int(r)?;
        }
        MTU_BYTES.check_int(self.mtu_bytes)?;
        DELAYED_ACK_MS.check(self.delayed_ack_ms)?;
        if !self.window_scale {
            for (key, v) in [
                ("netperf.local_socket_bytes", self.local_socket_bytes),
                ("netperf.remote_socket_bytes", self.remote_socket_bytes),
            ] {
                require(v <= 65535, key, v, "at most 65535 bytes without netperf.window_scale (RFC 1323)")?;
            }
        }
        Ok(())
    }

    /// Request and response sizes of TCP_RR.
    pub fn rr_sizes(&self) -> (u32, u32) {
        let req = self.request_bytes.unwrap_or(self.message_bytes);
        (req, self.response_bytes.unwrap_or(req))
    }

    /// TCP header options on every segment, bytes.
    pub fn option_bytes(&self) -> u32 {
        if self.window_scale {
            TIMESTAMP_OPTION_BYTES
        } else {
            0
        }
    }

    /// Data bytes per full segment: HP-UX's `tcp_mss` takes the MTU less
    /// the headers and rounds it down to whole clusters when it exceeds
    /// one; the timestamp option then takes its 12 bytes.
    pub fn mss(&self) -> u32 {
        let mut maxseg = self.mtu_bytes - TCP_IP_HEADER_BYTES;
        if maxseg > CLUSTER_BYTES {
            maxseg &= !(CLUSTER_BYTES - 1);
        }
        maxseg - self.option_bytes()
    }
}
