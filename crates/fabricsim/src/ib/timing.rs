//! The times of an InfiniBand fabric: serialization at each link's rate
//! (one table lookup per packet, exact to the picosecond), propagation, the
//! arrival of the 8-byte LRH that starts header processing (stages 2-3
//! overlap the packet's reception, seed 003 section 2.2), and the
//! forwarding and crossbar-arbitration stages.
//!
//! A fabric has a few distinct link rates (one, unless an imported subnet's
//! cables differ): each has its own serialization table, all of them end to
//! end in one vector, and a port names its link's table by a [`Rate`], the
//! table's offset, so a lookup costs the same as with one rate.

use super::link::IbLink;
use super::packet::{Mtu, TrafficClass, LRH_BYTES};
use crate::error::Result;
use crate::kernel::{time, Time};
use crate::scenario::IbSpec;

/// Entries of one serialization table: every packet size up to the largest.
const TABLE: usize = Mtu::B4096.max_packet_bytes() as usize + 1;

/// A link rate of the fabric: the offset of its serialization table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rate(u32);

#[derive(Clone, Debug)]
pub struct IbTiming {
    /// The reference rate ([`Rate::default`]): `ib.link`, or for a subnet
    /// whose cables run at the file's rates, its slowest HCA link. Offered
    /// loads are fractions of it.
    pub link: IbLink,
    pub propagation: Time,
    /// Time for the LRH to arrive on a reference-rate link.
    pub header: Time,
    /// Stage 2: forwarding-table lookup.
    pub forwarding: Time,
    /// Stage 3: crossbar arbitration request.
    pub arbitration: Time,
    /// The fabric's rates, the reference first, and their LRH times.
    rates: Vec<IbLink>,
    headers: Vec<Time>,
    /// Serialization time of every packet size up to the largest packet, per rate.
    serialization: Vec<Time>,
}

impl IbTiming {
    /// The timing of `spec` with `link` as the reference rate.
    pub fn new(spec: &IbSpec, link: IbLink) -> Result<Self> {
        Ok(Self::with(
            link,
            time::from_ns(spec.propagation_ns),
            time::from_ns(spec.switch.forwarding_ns),
            time::from_ns(spec.switch.arbitration_ns),
        ))
    }

    pub fn with(link: IbLink, propagation: Time, forwarding: Time, arbitration: Time) -> Self {
        let mut t = IbTiming {
            link,
            propagation,
            header: link.serialization_time(LRH_BYTES as u64),
            forwarding,
            arbitration,
            rates: Vec::new(),
            headers: Vec::new(),
            serialization: Vec::new(),
        };
        t.rate(link);
        t
    }

    /// The rate of `link`, its table added if the fabric has no link of it yet.
    pub fn rate(&mut self, link: IbLink) -> Rate {
        if let Some(i) = self.rates.iter().position(|&l| l == link) {
            return Rate((i * TABLE) as u32);
        }
        self.rates.push(link);
        self.headers.push(link.serialization_time(LRH_BYTES as u64));
        self.serialization.extend((0..TABLE as u64).map(|b| link.serialization_time(b)));
        Rate(((self.rates.len() - 1) * TABLE) as u32)
    }

    /// The link of rate `r`.
    pub fn link_at(&self, r: Rate) -> IbLink {
        self.rates[r.0 as usize / TABLE]
    }

    /// The fabric's distinct rates, the reference first.
    pub fn rates(&self) -> &[IbLink] {
        &self.rates
    }

    /// Time to serialize a packet of `bytes` bytes at the reference rate.
    #[inline]
    pub fn wire(&self, bytes: u32) -> Time {
        self.serialization[bytes as usize]
    }

    /// Time to serialize a packet of `bytes` bytes at rate `r`.
    #[inline]
    pub fn wire_at(&self, r: Rate, bytes: u32) -> Time {
        self.serialization[r.0 as usize + bytes as usize]
    }

    /// Time for the LRH to arrive at rate `r`.
    #[inline]
    pub fn header_at(&self, r: Rate) -> Time {
        self.headers[r.0 as usize / TABLE]
    }

    /// The longest real-time or best-effort packet's serialization on the
    /// fabric's slowest link: the scale of its periodic looks and queue span.
    pub fn largest_packet(&self) -> Time {
        let bytes = TrafficClass::RealTime.mtu().max_packet_bytes() as usize;
        (0..self.rates.len()).map(|i| self.serialization[i * TABLE + bytes]).max().expect("a fabric has a rate")
    }

    /// From the LRH's arrival to the crossbar request: stages 2 and 3.
    #[inline]
    pub fn pipeline(&self) -> Time {
        self.forwarding + self.arbitration
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::link::{LinkSpeed, LinkWidth};

    #[test]
    fn each_rate_has_its_own_table_and_the_reference_is_the_first() {
        let qdr = IbLink::new(LinkWidth::X4, LinkSpeed::Qdr);
        let fdr10 = IbLink::new(LinkWidth::X4, LinkSpeed::Fdr10);
        let mut t = IbTiming::with(qdr, 5_000, 0, 0);
        assert_eq!(t.rate(qdr), Rate::default());
        let f = t.rate(fdr10);
        assert_eq!(t.rate(fdr10), f, "a rate's table is added once");
        assert_eq!(t.rates(), &[qdr, fdr10]);
        assert_eq!(t.link_at(f), fdr10);
        // 4x QDR: 250 ps a byte; 4x FDR10: 40 Gbit/s of data, 200 ps a byte.
        assert_eq!((t.wire(1050), t.wire_at(Rate::default(), 1050), t.wire_at(f, 1050)), (262_500, 262_500, 210_000));
        assert_eq!((t.header, t.header_at(f)), (2_000, 1_600));
        assert_eq!(t.largest_packet(), 262_500, "the slowest rate's");
    }
}
