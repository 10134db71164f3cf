//! Links between component ports. A port faces another component through a
//! [`PortRef`] (which component, which of its ports); a [`Link`] is one
//! direction of a fibre and adds its propagation delay; frames and credits
//! reach the far end through [`PortEvents`], which each assembled model
//! implements by turning them into its own events. So a switch port neither
//! knows nor cares whether a terminal node, another switch, a loop bridge or
//! an HCA is at the other end: it asks the kind only whether the far end
//! takes frames as they stream in (and so grants buffer credit) or whole.

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

/// How frames and credits reach the far end of a link, as the assembled
/// model's events.
pub trait PortEvents {
    /// The first byte of `frame` reaches `to` at `at` (receivers that buffer in flight).
    fn frame_head(&mut self, to: PortRef, frame: u32, at: Time);
    /// `frame` has been wholly received at `to` at `at` (terminal receivers).
    fn frame_received(&mut self, to: PortRef, frame: u32, at: Time);
    /// A buffer-to-buffer credit (R_RDY, or IB flow-control credits) reaches `to` at `at`.
    fn credit(&mut self, to: PortRef, at: Time);
}

impl Link {
    pub fn new(to: PortRef, propagation: Time) -> Self {
        Link { to, propagation }
    }

    /// Whether the far end holds frames in receive buffers the sender needs credit for.
    pub fn credited(&self) -> bool {
        self.to.kind.buffers_in_flight()
    }

    /// A frame's first byte goes on the fibre at `now`: a buffering receiver
    /// learns of it one propagation delay later.
    #[inline(always)]
    pub fn send_head(&self, events: &mut impl PortEvents, frame: u32, now: Time) {
        events.frame_head(self.to, frame, now + self.propagation);
    }

    /// A frame's last byte goes on the fibre at `now`: a terminal receiver
    /// has it whole one propagation delay later.
    #[inline]
    pub fn send_tail(&self, events: &mut impl PortEvents, frame: u32, now: Time) {
        events.frame_received(self.to, frame, now + self.propagation);
    }

    /// A freed receive buffer is announced at `now` to the sender at the far end.
    #[inline]
    pub fn return_credit(&self, events: &mut impl PortEvents, now: Time) {
        events.credit(self.to, now + self.propagation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<(&'static str, PortRef, Time)>);

    impl PortEvents for Log {
        fn frame_head(&mut self, to: PortRef, _: u32, at: Time) {
            self.0.push(("head", to, at));
        }
        fn frame_received(&mut self, to: PortRef, _: u32, at: Time) {
            self.0.push(("whole", to, at));
        }
        fn credit(&mut self, to: PortRef, at: Time) {
            self.0.push(("credit", to, at));
        }
    }

    #[test]
    fn links_add_their_delay_and_tell_buffering_receivers_apart() {
        let trunk = Link::new(PortRef::switch(2, 5), 1_000);
        let drop = Link::new(PortRef::node(7), 250);
        assert!(trunk.credited() && !drop.credited());
        let mut log = Log::default();
        trunk.send_head(&mut log, 0, 10);
        drop.send_tail(&mut log, 0, 10);
        trunk.return_credit(&mut log, 20);
        assert_eq!(
            log.0,
            vec![
                ("head", PortRef::switch(2, 5), 1_010),
                ("whole", PortRef::node(7), 260),
                ("credit", PortRef::switch(2, 5), 1_020)
            ]
        );
    }
}
