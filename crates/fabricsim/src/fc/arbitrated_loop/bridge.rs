//! The switch-connected node (SCN) of seed 001: one port on its loop, one
//! on the switch. It has the highest priority on its loop (AL_PA 0x01),
//! never uses the access fairness algorithm and has more receive buffers
//! than a normal node. It intercepts every OPN for a port on another loop.
//!
//! Towards the switch the bridge is an FC port like any other: it sends
//! frames one at a time under the buffer-to-buffer credit of its switch
//! port, and takes frames into its inbound buffers, for which the switch
//! holds credit. The switch model (`fc::switch`) routes, queues and
//! reserves; the bridge never decides for it.
//!
//! Circuit switching: the bridge sends a class 1 connect request (SOFc1)
//! for the remote bridge's port. The switch refuses it (F_BSY) when either
//! port is held by another connection (the remote loop is busy with another
//! global request, or the local bridge is opening its own loop for one); the
//! refusal travels back and the bridge closes the initiator's tenancy, which
//! arbitrates again. Otherwise the connection holds both ports, the remote
//! bridge arbitrates on its loop, opens the target, and the target's R_RDYs
//! travel back to the initiator: the frames then run end to end under the
//! initiator's tenancy, both loops held, until CLS, which releases the
//! connection.
//!
//! Packet switching: the bridge answers the initiator itself (when it has
//! buffers for the whole phase; otherwise it closes the tenancy, and the
//! initiator arbitrates again), stores the phase, then asks the remote
//! bridge for buffers for all of it, end to end (as FC's end-to-end credit
//! does frame by frame). Granted, it sends the phase's frames into the
//! switch as class 3 frames; refused, the request waits until the remote
//! bridge frees buffers (a second attempt). Reserving the whole phase
//! first matters: frames of several phases interleave at the switch
//! output, and buffers given frame by frame could fill the remote bridge
//! with parts of phases none of which is complete, which it could never
//! deliver. The remote bridge stores the phase, delivers it in its own
//! tenancy, then returns its buffers' credit to the switch. Segment by
//! segment: nothing is torn down.
//!
//! The switched-loop assembly ([`crate::fc::switched_loop`]) moves phases
//! between the loops, the bridges and the switch.

use std::collections::VecDeque;

use crate::fc::sender::Sender;
use crate::storage::scsi::Phase;

/// A bridge's events, carried in the assembly's event with its loop's index.
#[derive(Clone, Copy, Debug)]
pub enum BridgeEvent {
    /// Circuit: the initiator's OPN for a remote port has reached the bridge.
    Intercept,
    /// Circuit: connect request `frame` is wholly in this (remote) bridge.
    Connect { frame: u32 },
    /// The bridge's switch port has sent a frame's last byte.
    TransmitDone,
    /// Packet: segment `seg` is all in this (remote) bridge's buffers.
    Arrived { seg: u32 },
}

/// A phase crossing the switch: the circuit an initiator asked for, or a
/// segment a bridge stored and forwards.
#[derive(Clone, Copy, Debug, Default)]
pub struct Crossing {
    pub xid: u32,
    pub phase: Option<Phase>,
    pub bytes: u32,
    /// Frames of the phase.
    pub frames: u32,
    /// Loop it comes from, and the port that opened it there.
    pub src: u32,
    pub opener: u32,
    /// Loop it goes to, and the target port there.
    pub dst: u32,
    pub target: u32,
    /// Packet: the remote bridge refused it buffers once (it waits), and
    /// its frames in the remote bridge.
    pub refused: bool,
    pub received: u32,
}

#[derive(Clone, Debug)]
pub struct Bridge {
    /// Free receive buffers (frames) in each direction:
    /// phases from the loop waiting for the switch, and phases from the
    /// switch waiting for the loop. Separate pools: two bridges full of
    /// phases for each other would otherwise wait for each other forever.
    pub free_out: u32,
    pub free_in: u32,
    /// Its transmitter towards its switch port, and the frames waiting for it.
    pub sender: Sender,
    pub queue: VecDeque<u32>,
    /// The frame on the fibre is a stored phase's (its buffer frees when it has left).
    pub sending_stored: bool,
    /// Circuit: the request this loop's initiator made, while it stands,
    /// its class 1 connection, and the connect request's message until the
    /// remote bridge has it.
    pub outbound: Option<Crossing>,
    pub connection: Option<u32>,
    pub connect_message: Option<u32>,
    /// Circuit: the loop whose circuit this bridge is opening its own loop for.
    pub inbound: Option<u32>,
    /// Packet: stored phases (segments) not yet granted remote buffers, in order.
    pub pending: VecDeque<u32>,
}

impl Bridge {
    /// A bridge with `buffers` receive buffers each way.
    pub fn new(buffers: u32, sender: Sender) -> Self {
        Bridge {
            free_out: buffers,
            free_in: buffers,
            sender,
            queue: VecDeque::with_capacity(64),
            sending_stored: false,
            outbound: None,
            connection: None,
            connect_message: None,
            inbound: None,
            pending: VecDeque::with_capacity(16),
        }
    }
}
