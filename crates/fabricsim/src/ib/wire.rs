//! One direction of an InfiniBand cable between two ports: where it leads,
//! when what a sender starts on it takes effect at the far end, and what it
//! delivers there (a packet or flow-control credits) as a [`Delivery`] to
//! the far component, whatever its kind.
//!
//! A switch is a cut-through receiver: it acts on a packet once its 8-byte
//! LRH is in and its own input stages (forwarding and crossbar arbitration)
//! are through. The cable knows when the LRH is in (`propagation + LRH
//! time` after the first byte went out) and stamps the packet with it
//! ([`Packet::t_arrived`]); the switch's stage time is the switch's figure
//! ([`SwitchConfig::input_stages`](super::switch_config::SwitchConfig)),
//! which the wiring hands the cable so that the switch's one event for
//! the packet comes when its stages are through: added there alone, and
//! never taken off again. An HCA's sink takes packets whole: propagation
//! plus the packet's serialization. Credits travel back without taking bandwidth (the IBA's
//! flow-control packets are not modelled as traffic): propagation only.
//! A cable runs at one rate both ways: its [`Rate`] names the serialization
//! table its sender uses.

use super::packet::Packet;
use super::timing::Rate;
use crate::kernel::Time;
use crate::sim::{Clocked, ComponentKind, Deferred, PortRef, Schedule};

/// What a cable delivers to the port at its far end; carried with the far
/// component's index, and the assembly turns it into that component's event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// `packet` takes effect at port `port` of a component of kind `kind`.
    Packet { kind: ComponentKind, port: u16, packet: u32 },
    /// `blocks` credits for `vl` reach the sending port `port`.
    Credit { kind: ComponentKind, port: u16, vl: u8, blocks: u16 },
}

impl Delivery {
    /// Credits for the sending port `to`.
    #[inline]
    pub fn credit(to: PortRef, vl: u8, blocks: u16) -> Self {
        Delivery::Credit { kind: to.kind, port: to.port, vl, blocks }
    }
}

/// Credits an event has freed at a receiver, for the assembly to hand to
/// their sender once the event is handled (see `credit_return`): a
/// component cannot reach another's state. Their arrival is deferred (its
/// key reserved when they were freed), so event order is as if they had
/// been scheduled then.
#[derive(Clone, Copy, Debug)]
pub struct FreedCredit {
    pub to: PortRef,
    pub key: Deferred,
    pub vl: u8,
    pub blocks: u16,
}

impl FreedCredit {
    /// `blocks` credits for `vl` freed now, for the sender `to` at the far
    /// end of a cable of `propagation`: their arrival is deferred.
    #[inline]
    pub fn reserve(cx: &mut impl Clocked, to: PortRef, propagation: Time, vl: u8, blocks: u16) -> Self {
        let key = Deferred::reserve(cx, cx.now() + propagation);
        FreedCredit { to, key, vl, blocks }
    }
}

/// The cables of a fabric at its reference rate, by what they lead to:
/// each is known from its far end alone, so a switch whose cables all run
/// at that rate keeps only the far end in its output port's first cache
/// line, not the cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceCables {
    /// A cable to a switch and one to an HCA, but for their far end (built
    /// once, so that a send builds its cable without checking its figures).
    to_switch: Wire,
    to_hca: Wire,
}

impl ReferenceCables {
    /// Cables of `propagation`, over which an LRH takes `header`, to switches
    /// that act `input_stages` after it is in.
    pub fn new(propagation: Time, header: Time, input_stages: Time) -> Self {
        let nowhere = PortRef::switch(u32::MAX, u16::MAX);
        ReferenceCables {
            to_switch: Wire::cut_through(nowhere, propagation, header, input_stages),
            to_hca: Wire::whole(nowhere, propagation),
        }
    }

    /// Every cable's propagation delay (the fabric's).
    #[inline(always)]
    pub fn propagation(&self) -> Time {
        self.to_switch.propagation
    }

    /// The reference-rate cable to `to` (a switch: cut-through; an HCA: whole).
    #[inline(always)]
    pub fn wire(&self, to: PortRef) -> Wire {
        let cable = if to.kind == ComponentKind::Switch { self.to_switch } else { self.to_hca };
        Wire { to, ..cable }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wire {
    pub to: PortRef,
    pub propagation: Time,
    /// A cut-through receiver: the LRH's serialization on this link (its
    /// LRH is in a propagation and this after the first byte went out),
    /// and the receiver's own stage time (it acts on the packet this long
    /// after its LRH is in); both 0 for a whole receiver. 32 bits of
    /// picoseconds each, so a cable is 32 bytes, as an HCA's line wants
    /// (an LRH takes nanoseconds; a scenario's stages, at most 2 ms).
    header: u32,
    stages: u32,
    /// The receiver takes packets whole (an HCA's sink).
    whole: bool,
    /// The cable's rate (the reference rate unless set by [`Wire::at`]).
    pub rate: Rate,
}

impl Wire {
    /// A cable to a cut-through receiver that acts `input_stages` (its own
    /// figure) after a packet's LRH (`header` long on this link) is in.
    pub fn cut_through(to: PortRef, propagation: Time, header: Time, input_stages: Time) -> Self {
        let header = u32::try_from(header).expect("an LRH's time fits 32 bits of picoseconds");
        let stages = u32::try_from(input_stages).expect("a switch's stages fit 32 bits of picoseconds");
        Wire { to, propagation, header, stages, whole: false, rate: Rate::default() }
    }

    /// A cable to a receiver that takes packets whole.
    pub fn whole(to: PortRef, propagation: Time) -> Self {
        Wire { to, propagation, header: 0, stages: 0, whole: true, rate: Rate::default() }
    }

    /// The cable at rate `rate` (a cut-through cable's `header` must be that rate's).
    pub fn at(self, rate: Rate) -> Self {
        Wire { rate, ..self }
    }

    /// When a packet whose first byte goes out at `now` and whose
    /// serialization takes `wire` takes effect at the far end.
    #[inline]
    pub fn arrival(&self, now: Time, wire: Time) -> Time {
        self.lrh_in(now) + self.stages as Time + if self.whole { wire } else { 0 }
    }

    /// When the LRH of a packet whose first byte goes out at `start` is in
    /// at the far end (a whole receiver: its first byte).
    #[inline(always)]
    fn lrh_in(&self, start: Time) -> Time {
        start + self.propagation + self.header as Time
    }

    /// Puts packet `id` (`p`) on the cable now; its serialization takes `wire`.
    #[inline]
    pub fn send(&self, cx: &mut impl Schedule<Delivery>, id: u32, p: &mut Packet, wire: Time) {
        let now = cx.now();
        self.send_from(cx, now, id, p, wire);
    }

    /// Puts packet `id` (`p`) on the cable, its first byte going out at
    /// `start` (not before now); its serialization takes `wire`. A
    /// cut-through receiver's packet is stamped with when its LRH is in.
    #[inline]
    pub fn send_from(&self, cx: &mut impl Schedule<Delivery>, start: Time, id: u32, p: &mut Packet, wire: Time) {
        if !self.whole {
            p.t_arrived = self.lrh_in(start);
        }
        let at = self.arrival(start, wire);
        cx.push(at, self.to.index, Delivery::Packet { kind: self.to.kind, port: self.to.port, packet: id });
    }

    /// `blocks` credits for `vl` go back over this cable to the sender at
    /// its far end: their key is reserved now, the assembly hands them over
    /// after the event.
    #[inline]
    pub fn return_credit(&self, cx: &mut impl Clocked, vl: u8, blocks: u16) -> FreedCredit {
        FreedCredit::reserve(cx, self.to, self.propagation, vl, blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;
    use crate::sim::composite::At;
    use crate::sim::Context;

    #[test]
    fn cut_through_receivers_act_on_the_header_sinks_on_the_whole_packet() {
        let to_switch = Wire::cut_through(PortRef::switch(3, 2), 100, 32, 1_000);
        let to_hca = Wire::whole(PortRef::new(ComponentKind::Hca, 7, 0), 100);
        let mut q = EventQueue::with_capacity(4);
        let mut cx = Context::new(10, &mut q);
        let (mut p5, mut p6) = (Packet::default(), Packet::default());
        to_switch.send(&mut cx, 5, &mut p5, 4_000);
        to_hca.send(&mut cx, 6, &mut p6, 4_000);
        assert_eq!((p5.t_arrived, p6.t_arrived), (142, 0), "the switch's packet stamped with its LRH in");
        let freed = to_hca.return_credit(&mut cx, 1, 3);
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(Time::MAX)).collect();
        assert_eq!(
            got,
            vec![
                (1_142, At(3, Delivery::Packet { kind: ComponentKind::Switch, port: 2, packet: 5 })),
                (4_110, At(7, Delivery::Packet { kind: ComponentKind::Hca, port: 0, packet: 6 })),
            ]
        );
        assert_eq!((freed.to.index, freed.vl, freed.blocks), (7, 1, 3));
        assert_eq!(freed.key.time(), 110, "credits take propagation only");
    }
}
