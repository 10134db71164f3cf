//! Class 1 connections: a dedicated path through the fabric for one message.
//!
//! The connect request (the message's first frame, SOFc1) is routed and
//! buffered like any frame; each switch it crosses reserves its input and
//! output ports for the connection in both directions (data one way, ACKs
//! the other), or refuses it (F_BSY) when one of them is held by another
//! connection. Once the destination's ACK is back, the rest of the sequence
//! crosses the reserved path at full bandwidth: no router, no queue, no
//! buffer; each switch only adds the time to take in a header. The path is
//! released (teardown) when the last ACK reaches the source.
//!
//! The connection records live here with their events: a refusal (F_BSY)
//! travels back to the source, which releases what the request reserved and
//! retries after a random back-off; a teardown releases the whole path. The
//! switches hold the ports; the assembly hands each switch on a path its
//! part of a release.

use super::timing::FcTiming;
use crate::kernel::{Arena, RandomStream, Time};

/// Longest path a connection can reserve, in switches.
pub const MAX_HOPS: usize = 16;

pub type ConnectionId = u32;
pub const NO_CONNECTION: ConnectionId = ConnectionId::MAX;

#[derive(Clone, Copy, Debug)]
pub struct Connection {
    pub src: u32,
    pub dst: u32,
    /// When the connect request started.
    pub t_request: Time,
    /// Switches reserved so far: (switch, input port, output port).
    pub path: [(u32, u16, u16); MAX_HOPS],
    pub hops: u8,
}

impl Default for Connection {
    fn default() -> Self {
        Connection { src: 0, dst: 0, t_request: 0, path: [(0, 0, 0); MAX_HOPS], hops: 0 }
    }
}

impl Connection {
    pub fn reserved(&self) -> &[(u32, u16, u16)] {
        &self.path[..self.hops as usize]
    }
}

/// The F_BSY answering a connect request reaches its source: an event
/// carried with the connection's id (a switch schedules it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal;

/// Release a finished connection's path: an event carried with the
/// connection's id (its source schedules it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Teardown;

/// The connections of one fabric: their records and the back-off of
/// refused sources (one stream for the fabric, drawn in refusal order).
pub struct Connections {
    records: Arena<Connection>,
    backoff_rng: RandomStream,
    /// Mean back-off, in picoseconds.
    backoff_mean_ps: f64,
}

impl Connections {
    /// Connections whose refused sources back off for a uniform time of
    /// mean `backoff_mean_ps`, drawn from stream `class1.backoff` of `seed`.
    pub fn new(seed: u64, backoff_mean_ps: f64) -> Self {
        Connections {
            records: Arena::with_capacity(256),
            backoff_rng: RandomStream::new(seed, "class1.backoff", 0),
            backoff_mean_ps,
        }
    }

    /// A connect request from `src` to `dst` starts now.
    pub fn open(&mut self, src: u32, dst: u32, now: Time) -> ConnectionId {
        self.records.insert(Connection { src, dst, t_request: now, ..Connection::default() })
    }

    /// A refused request is sent again: its path starts afresh.
    pub fn restart(&mut self, c: ConnectionId) {
        self.records.get_mut(c).hops = 0;
    }

    #[inline]
    pub fn get(&self, c: ConnectionId) -> &Connection {
        self.records.get(c)
    }

    /// Connection records alive.
    pub fn live(&self) -> usize {
        self.records.live()
    }

    pub fn memory_bytes(&self) -> u64 {
        self.records.memory_bytes()
    }

    /// Adds switch `switch`'s ports `input` and `output` to the path; false
    /// (nothing added) when the path is already as long as a path can be.
    pub fn reserve_hop(&mut self, c: ConnectionId, switch: u32, input: u16, output: u16) -> bool {
        let r = self.records.get_mut(c);
        if r.hops as usize >= MAX_HOPS {
            return false;
        }
        r.path[r.hops as usize] = (switch, input, output);
        r.hops += 1;
        true
    }

    /// Whether the path is as long as a path can be.
    pub fn full(&self, c: ConnectionId) -> bool {
        self.records.get(c).hops as usize >= MAX_HOPS
    }

    /// How long the F_BSY answering `c`'s request at the switch after its
    /// reserved hops takes to reach the source: back hop by hop, taking in a
    /// header and being routed at each switch, without queueing.
    pub fn busy_trip(&self, c: ConnectionId, timing: &FcTiming) -> Time {
        let hops = self.records.get(c).hops as u64 + 1;
        hops * (timing.header_time + timing.route_time + timing.propagation) + timing.ack_time
    }

    /// The F_BSY is back: `release` frees each reserved hop (switch, input,
    /// output); the path starts afresh. Returns the source.
    pub fn refused(&mut self, c: ConnectionId, release: impl FnMut(u32, u16, u16)) -> u32 {
        self.release(c, release);
        let r = self.records.get_mut(c);
        r.hops = 0;
        r.src
    }

    /// When a source refused now retries: after a back-off drawn uniformly
    /// from zero to twice the mean.
    pub fn retry_time(&mut self, now: Time) -> Time {
        now + (self.backoff_rng.uniform() * 2.0 * self.backoff_mean_ps).round() as Time
    }

    /// Teardown: `release` frees each reserved hop and the record goes. No
    /// frame waits for held ports (connect requests are refused at once), so
    /// releasing them starts nothing.
    pub fn tear_down(&mut self, c: ConnectionId, release: impl FnMut(u32, u16, u16)) {
        self.release(c, release);
        self.records.remove(c);
    }

    fn release(&self, c: ConnectionId, mut release: impl FnMut(u32, u16, u16)) {
        for &(sw, i, o) in self.records.get(c).reserved() {
            release(sw, i, o);
        }
    }
}

/// Where a node stands with its class 1 connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConnectionState {
    #[default]
    Idle,
    /// Connect request sent; waiting for its ACK or a refusal.
    Requesting,
    /// Path reserved: frames flow without routing or queueing.
    Established,
    /// Refused; waiting for the back-off to end before retrying.
    BackingOff,
}
