//! Links between component ports. A port faces another component through a
//! [`PortRef`] (which component, which of its ports); a [`Link`] is one
//! direction of a fibre and adds its propagation delay; frames and credits
//! reach the far end as a [`Delivery`] scheduled for the far component,
//! which each assembly turns into that component's event. So a switch port
//! neither knows nor cares whether a terminal node, another switch, a loop
//! bridge or a host is at the other end: it asks the kind only whether the
//! far end takes frames as they stream in (and so grants buffer credit) or
//! whole.

use super::component::Schedule;
use crate::kernel::Time;

/// The kinds of component a port can face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ComponentKind {
    /// A Fibre Channel terminal node (N_Port).
    Node,
    /// A switch (FC or InfiniBand).
    Switch,
    /// A loop's switch-connected node, bridging an arbitrated loop to a switch port.
    LoopBridge,
    /// An InfiniBand host channel adapter.
    Hca,
    /// A host running a protocol stack over a switched fabric.
    Host,
}

impl ComponentKind {
    /// Whether the component receives a frame as it streams in, into
    /// receive buffers the sender must hold credit for (switches and bridges),
    /// rather than whole, into an always-ready sink (terminal endpoints).
    pub fn buffers_in_flight(self) -> bool {
        matches!(self, ComponentKind::Switch | ComponentKind::LoopBridge)
    }
}

/// A port of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortRef {
    pub kind: ComponentKind,
    pub index: u32,
    pub port: u16,
}

impl PortRef {
    pub fn new(kind: ComponentKind, index: u32, port: u16) -> Self {
        PortRef { kind, index, port }
    }

    /// Terminal node `node` (one port).
    pub fn node(node: u32) -> Self {
        Self::new(ComponentKind::Node, node, 0)
    }

    /// Port `port` of switch `switch`.
    pub fn switch(switch: u32, port: u16) -> Self {
        Self::new(ComponentKind::Switch, switch, port)
    }
}

/// One direction of a fibre: where it leads and how long a signal takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub to: PortRef,
    pub propagation: Time,
}

/// What a link delivers to the port at its far end; carried with the far
/// component's index, and the assembly turns it into that component's event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The first byte of `frame` reaches a receiver that buffers frames in flight.
    Head { kind: ComponentKind, port: u16, frame: u32 },
    /// `frame` has been wholly received by a terminal receiver.
    Whole { kind: ComponentKind, port: u16, frame: u32 },
    /// A buffer-to-buffer credit (R_RDY) reaches the sender at the far end.
    Credit { kind: ComponentKind, port: u16 },
}

impl Link {
    pub fn new(to: PortRef, propagation: Time) -> Self {
        Link { to, propagation }
    }

    /// Whether the far end holds frames in receive buffers the sender needs credit for.
    pub fn credited(&self) -> bool {
        self.to.kind.buffers_in_flight()
    }

    /// A frame's first byte goes on the fibre now: a buffering receiver
    /// learns of it one propagation delay later.
    #[inline(always)]
    pub fn send_head(&self, cx: &mut impl Schedule<Delivery>, frame: u32) {
        let Link { to, propagation } = *self;
        cx.push(cx.now() + propagation, to.index, Delivery::Head { kind: to.kind, port: to.port, frame });
    }

    /// A frame's last byte goes on the fibre now: a terminal receiver has
    /// it whole one propagation delay later.
    #[inline]
    pub fn send_tail(&self, cx: &mut impl Schedule<Delivery>, frame: u32) {
        let Link { to, propagation } = *self;
        cx.push(cx.now() + propagation, to.index, Delivery::Whole { kind: to.kind, port: to.port, frame });
    }

    /// A freed receive buffer is announced now to the sender at the far end.
    #[inline]
    pub fn return_credit(&self, cx: &mut impl Schedule<Delivery>) {
        let Link { to, propagation } = *self;
        cx.push(cx.now() + propagation, to.index, Delivery::Credit { kind: to.kind, port: to.port });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;
    use crate::sim::composite::At;
    use crate::sim::Context;

    #[test]
    fn links_add_their_delay_and_tell_buffering_receivers_apart() {
        let trunk = Link::new(PortRef::switch(2, 5), 1_000);
        let drop = Link::new(PortRef::node(7), 250);
        assert!(trunk.credited() && !drop.credited());
        let mut q = EventQueue::with_capacity(4);
        let mut cx = Context::new(10, &mut q);
        trunk.send_head(&mut cx, 0);
        drop.send_tail(&mut cx, 0);
        let mut cx = Context::new(20, &mut q);
        trunk.return_credit(&mut cx);
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(Time::MAX)).collect();
        assert_eq!(
            got,
            vec![
                (260, At(7, Delivery::Whole { kind: ComponentKind::Node, port: 0, frame: 0 })),
                (1_010, At(2, Delivery::Head { kind: ComponentKind::Switch, port: 5, frame: 0 })),
                (1_020, At(2, Delivery::Credit { kind: ComponentKind::Switch, port: 5 })),
            ]
        );
    }
}
