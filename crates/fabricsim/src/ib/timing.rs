//! The times of an InfiniBand fabric: serialization at the link rate (one
//! table lookup per packet, exact to the picosecond), propagation, the
//! arrival of the 8-byte LRH that starts header processing (stages 2-3
//! overlap the packet's reception, seed 003 section 2.2), and the
//! forwarding and crossbar-arbitration stages.

use super::link::IbLink;
use super::packet::{Mtu, LRH_BYTES};
use crate::error::Result;
use crate::kernel::{time, Time};
use crate::scenario::IbSpec;

#[derive(Clone, Debug)]
pub struct IbTiming {
    pub link: IbLink,
    pub propagation: Time,
    /// Time for the LRH to arrive: forwarding starts then.
    pub header: Time,
    /// Stage 2: forwarding-table lookup.
    pub forwarding: Time,
    /// Stage 3: crossbar arbitration request.
    pub arbitration: Time,
    /// Serialization time of every packet size up to the largest packet.
    serialization: Vec<Time>,
}

impl IbTiming {
    pub fn new(spec: &IbSpec) -> Result<Self> {
        let link = IbLink::parse(&spec.link).map_err(|e| e.with_key("ib.link"))?;
        Ok(Self::with(
            link,
            time::from_ns(spec.propagation_ns),
            time::from_ns(spec.switch.forwarding_ns),
            time::from_ns(spec.switch.arbitration_ns),
        ))
    }

    pub fn with(link: IbLink, propagation: Time, forwarding: Time, arbitration: Time) -> Self {
        let largest = Mtu::B4096.max_packet_bytes() as u64;
        let serialization = (0..=largest).map(|b| link.serialization_time(b)).collect();
        IbTiming {
            link,
            propagation,
            header: link.serialization_time(LRH_BYTES as u64),
            forwarding,
            arbitration,
            serialization,
        }
    }

    /// Time to serialize a packet of `bytes` bytes.
    #[inline]
    pub fn wire(&self, bytes: u32) -> Time {
        self.serialization[bytes as usize]
    }

    /// From the LRH's arrival to the crossbar request: stages 2 and 3.
    #[inline]
    pub fn pipeline(&self) -> Time {
        self.forwarding + self.arbitration
    }
}
