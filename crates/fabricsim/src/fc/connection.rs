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

use crate::kernel::Time;

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
