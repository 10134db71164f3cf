//! Lifetime limits in a switch (seed 003 section 3.5, the IBA's HOQLife and
//! SwitchLifetime): a packet at the head of an output VL for longer than
//! the Head of Queue Lifetime Limit (HLL), or in the switch for longer than
//! the Switch Lifetime Limit (SLL), is dropped if it may be. Both limits are
//! 4.096 us x 2^v for v = 0..=19; a larger v means no limit.
//!
//! The study drops "selectively": never control packets, never packets of an
//! MPEG I frame, never the first or last packet of a B or P frame
//! ([`Packet::is_droppable`]); a protected packet at the head waits as long
//! as it takes. The HLL clock of a VL (its *HQLifetime* stamp) restarts
//! whenever its head leaves or is dropped, or a packet arrives at an empty
//! VL. The IBA places HOQLife at switch output ports, where a packet waits
//! for credit; so does the model. SLL is checked there too, from the
//! packet's arrival at the switch.
//!
//! A switch with limits keeps, per output port, the time each VL's head
//! expires and one pending timer event at the earliest; a port without
//! limits keeps nothing and schedules nothing.

use super::packet::Packet;
use crate::kernel::{time, Time};

/// Values of v above this mean no limit (IBA).
pub const UNLIMITED_ABOVE: u32 = 19;

/// Why a switch dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// At the head of its output VL for longer than HLL.
    HeadOfQueue,
    /// In the switch for longer than SLL.
    SwitchLifetime,
}

impl DropReason {
    pub const ALL: [DropReason; 2] = [DropReason::HeadOfQueue, DropReason::SwitchLifetime];

    pub const fn name(self) -> &'static str {
        match self {
            DropReason::HeadOfQueue => "head_of_queue",
            DropReason::SwitchLifetime => "switch_lifetime",
        }
    }
}

/// 4.096 us x 2^v, or None (no limit) for v above 19.
pub fn limit(v: u32) -> Option<Time> {
    (v <= UNLIMITED_ABOVE).then(|| (4_096 * time::NANOSECOND) << v)
}

/// A switch's lifetime limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    pub head_of_queue: Option<Time>,
    pub switch: Option<Time>,
}

impl Lifetime {
    /// The limits of HOQLife `hoq` and SwitchLifetime `switch` (each absent:
    /// none); None when neither limits anything.
    pub fn new(hoq: Option<u32>, switch: Option<u32>) -> Option<Lifetime> {
        let l = Lifetime { head_of_queue: hoq.and_then(limit), switch: switch.and_then(limit) };
        (l.head_of_queue.is_some() || l.switch.is_some()).then_some(l)
    }

    /// When `p`, at the head of its output VL since `since`, is dropped and
    /// why; None if never (it is protected, or nothing limits it).
    #[inline]
    pub fn expiry(&self, p: &Packet, since: Time) -> Option<(Time, DropReason)> {
        if !p.is_droppable() {
            return None;
        }
        let hoq = self.head_of_queue.map(|l| (since + l, DropReason::HeadOfQueue));
        let sll = self.switch.map(|l| (p.t_arrived + l, DropReason::SwitchLifetime));
        match (hoq, sll) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// The expiry state of one output port: each VL head's expiry and the
/// timer pending for the earliest.
#[derive(Clone, Debug)]
pub struct PortExpiry {
    /// Per VL: when its head expires and why (Time::MAX: never).
    pub at: [(Time, DropReason); 16],
    /// The time of the pending timer event (Time::MAX: none).
    pub armed: Time,
}

impl Default for PortExpiry {
    fn default() -> Self {
        PortExpiry { at: [(Time::MAX, DropReason::HeadOfQueue); 16], armed: Time::MAX }
    }
}

impl PortExpiry {
    /// The earliest expiry of any head.
    pub fn earliest(&self) -> Time {
        self.at.iter().map(|e| e.0).min().unwrap_or(Time::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::{Segmentation, TrafficClass};
    use crate::ib::packet::{DROPPABLE, FIRST};

    #[test]
    fn limits_double_with_each_step_and_stop_above_19() {
        assert_eq!(limit(0), Some(4_096_000));
        assert_eq!(limit(6), Some(262_144_000), "HV 6: 262 us");
        assert_eq!(limit(19), Some(4_096_000 << 19), "2.1 s");
        assert_eq!(limit(20), None);
        assert!(Lifetime::new(None, Some(25)).is_none(), "no limit at all");
    }

    #[test]
    fn the_earlier_limit_drops_and_protected_packets_never() {
        let l = Lifetime::new(Some(0), Some(1)).unwrap();
        let p = Packet { t_arrived: 1_000, flags: DROPPABLE, ..Packet::default() };
        // HLL from the head stamp, SLL from the arrival: 4.096 us and 8.192 us.
        assert_eq!(l.expiry(&p, 5_000_000), Some((8_193_000, DropReason::SwitchLifetime)));
        assert_eq!(l.expiry(&p, 2_000), Some((4_098_000, DropReason::HeadOfQueue)));
        let seg = Segmentation::new(3000, TrafficClass::RealTime.mtu());
        let first = Packet { flags: Packet::flags_for(&seg, 0, TrafficClass::RealTime, false), ..p };
        assert_eq!(first.flags & FIRST, FIRST);
        assert_eq!(l.expiry(&first, 0), None, "the first packet of a frame is never dropped");
        let middle = Packet { flags: Packet::flags_for(&seg, 1, TrafficClass::RealTime, true), ..p };
        assert_eq!(l.expiry(&middle, 0), None, "an I frame's packets are never dropped");
    }
}
