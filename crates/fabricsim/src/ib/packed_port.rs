//! A far end of an InfiniBand cable in four bytes: a switch port or an
//! HCA, or nowhere (a free port). Switch ports keep where they send and
//! where credits go back in their first cache line, where a `PortRef`'s
//! eight bytes do not fit beside the rest.

use std::hint::select_unpredictable;

use crate::sim::{ComponentKind, PortRef};

/// An HCA (bit 31 set: its index below); else a switch's index (bits 8-30)
/// and port (bits 0-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedPort(u32);

const HCA: u32 = 1 << 31;

impl PackedPort {
    /// No port that exists (a free port's far end).
    pub const NOWHERE: PackedPort = PackedPort(u32::MAX);

    /// `p` packed; None if it does not fit: a switch index of 2^23 or more,
    /// a switch port beyond 254, an HCA index of 2^31 - 1 or more, or an
    /// HCA port other than 0.
    pub fn new(p: PortRef) -> Option<Self> {
        match p.kind {
            ComponentKind::Switch if p.index < 1 << 23 && p.port < 255 => {
                Some(PackedPort(p.index << 8 | p.port as u32))
            }
            ComponentKind::Hca if p.index < u32::MAX >> 1 && p.port == 0 => Some(PackedPort(HCA | p.index)),
            _ => None,
        }
    }

    /// The port packed (NOWHERE: an HCA that does not exist). Without a
    /// branch: whether a switch port's far end is an HCA or a switch is as
    /// unpredictable as which port an event is at.
    #[inline(always)]
    pub fn get(self) -> PortRef {
        let v = self.0;
        let hca = v & HCA != 0;
        PortRef {
            kind: select_unpredictable(hca, ComponentKind::Hca, ComponentKind::Switch),
            index: select_unpredictable(hca, v & !HCA, v >> 8),
            port: select_unpredictable(hca, 0, (v & 0xff) as u16),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_come_back_as_packed_and_what_does_not_fit_is_refused() {
        for p in [
            PortRef::switch(0, 0),
            PortRef::switch(3071, 63),
            PortRef::switch((1 << 23) - 1, 254),
            PortRef::new(ComponentKind::Hca, 0, 0),
            PortRef::new(ComponentKind::Hca, 32767, 0),
            PortRef::new(ComponentKind::Hca, (u32::MAX >> 1) - 1, 0),
        ] {
            assert_eq!(PackedPort::new(p).map(PackedPort::get), Some(p));
        }
        for p in [
            PortRef::switch(1 << 23, 0),
            PortRef::switch(0, 255),
            PortRef::new(ComponentKind::Hca, 5, 1),
            PortRef::new(ComponentKind::Hca, u32::MAX >> 1, 0),
            PortRef::node(1),
        ] {
            assert_eq!(PackedPort::new(p), None, "{p:?}");
        }
        let nowhere = PackedPort::NOWHERE.get();
        assert_eq!((nowhere.kind, nowhere.index), (ComponentKind::Hca, u32::MAX >> 1), "no HCA's index");
    }
}
