//! The switch-connected node (SCN) of seed 001: one port on its loop, one
//! on the switch. It has the highest priority on its loop (AL_PA 0x01),
//! never uses the access fairness algorithm and has more receive buffers
//! than a normal node. It intercepts every OPN for a port on another loop.
//!
//! Circuit switching: the bridge asks the switch for the remote loop. The
//! switch refuses when either bridge is already part of a circuit (the
//! remote loop is busy with another global request, or the local bridge is
//! waiting to open its own loop for one); the refusal travels back and the
//! bridge closes the initiator's tenancy, which arbitrates again. Otherwise
//! the remote bridge arbitrates on its loop, opens the target, and the
//! target's R_RDYs travel back to the initiator: the frames then run end to
//! end under the initiator's tenancy, both loops held, until CLS.
//!
//! Packet switching: the bridge answers the initiator itself (when it has
//! buffers for the whole phase; otherwise it closes the tenancy, and the
//! initiator arbitrates again), stores the phase, then asks the switch to
//! send it to the remote bridge. The switch refuses while the remote
//! bridge is receiving another phase or lacks buffers for this one; the
//! request then waits at the switch and is granted when the remote bridge
//! frees (two attempts). The remote bridge stores the phase and delivers it
//! in its own tenancy. Segment by segment: a refusal tears nothing down.
//!
//! The bridge keeps the state the switch decides on; the switched-loop
//! assembly ([`crate::fc::switched_loop`]) moves phases between them.

use crate::storage::scsi::Phase;

/// A bridge's events, carried in the assembly's event with its loop's index.
#[derive(Clone, Copy, Debug)]
pub enum BridgeEvent {
    /// Circuit: the initiator's OPN for a remote port has reached the bridge.
    Intercept,
    /// Circuit: the switch's refusal is back at the bridge.
    Refused,
    /// Circuit: the request from the bridge of loop `from` reached this (remote) bridge.
    Connect { from: u32 },
    /// Packet: the tail of segment `seg` has left this bridge for the switch.
    SentOut { seg: u32 },
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
    /// Packet: the bridge has asked the switch for it (it heads the
    /// bridge's outgoing segments and the bridge's sender is free).
    pub requested: bool,
}

#[derive(Clone, Debug)]
pub struct Bridge {
    /// The bridge's port on its ring.
    pub port: u32,
    /// Receive buffers (frames) in each direction, and how many are free:
    /// phases from the loop waiting for the switch, and phases from the
    /// switch waiting for the loop. Separate pools: two bridges full of
    /// phases for each other would otherwise wait for each other forever.
    pub buffers: u32,
    pub free_out: u32,
    pub free_in: u32,
    /// Circuit: part of a circuit (either end) or granted one.
    pub engaged: bool,
    /// Circuit: the request this loop's initiator made, while it stands.
    pub outbound: Option<Crossing>,
    /// Circuit: the loop whose circuit this bridge is opening its own loop for.
    pub inbound: Option<u32>,
    /// Packet: sending a segment into the switch.
    pub tx_busy: bool,
    /// Packet: receiving a segment from the switch (while its sender sends;
    /// the next may follow the tail through the switch).
    pub rx_busy: bool,
}

impl Bridge {
    pub fn new(port: u32, buffers: u32) -> Self {
        Bridge {
            port,
            buffers,
            free_out: buffers,
            free_in: buffers,
            engaged: false,
            outbound: None,
            inbound: None,
            tx_busy: false,
            rx_busy: false,
        }
    }

    /// Circuit: may a circuit join this bridge's loop with `other`'s?
    #[inline]
    pub fn circuit_free(bridges: &[Bridge], src: u32, dst: u32) -> bool {
        !bridges[src as usize].engaged && !bridges[dst as usize].engaged
    }

    /// Packet: may segment `c` cross the switch now?
    #[inline]
    pub fn segment_fits(bridges: &[Bridge], c: &Crossing) -> bool {
        let (s, d) = (&bridges[c.src as usize], &bridges[c.dst as usize]);
        !s.tx_busy && !d.rx_busy && d.free_in >= c.frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_refuses_busy_bridges() {
        let mut b = vec![Bridge::new(9, 32), Bridge::new(9, 32), Bridge::new(9, 32)];
        assert!(Bridge::circuit_free(&b, 0, 1));
        b[1].engaged = true;
        assert!(!Bridge::circuit_free(&b, 0, 1));
        assert!(!Bridge::circuit_free(&b, 1, 2));
        assert!(Bridge::circuit_free(&b, 0, 2));
        let c = Crossing { src: 0, dst: 2, frames: 32, ..Crossing::default() };
        assert!(!c.requested);
        assert!(Bridge::segment_fits(&b, &c));
        b[2].free_in = 31;
        assert!(!Bridge::segment_fits(&b, &c));
        b[2].free_in = 32;
        b[0].tx_busy = true;
        assert!(!Bridge::segment_fits(&b, &c));
    }
}
