//! Virtual lanes: the SL-to-VL mapping table of a port and per-VL
//! link-level credit accounting.
//!
//! Seed 003, section 2.1: a port has 2 to 16 VLs, VL15 carries subnet
//! management and 1 to 15 are data VLs; section 2.2: stage 1 of the switch
//! maps an arriving packet to a VL from the SL in its header. Table 1: 16 VLs
//! per link (15 data VLs and VL15) and 4200-byte input and output VL buffers.
//! Section 4: control traffic "always uses VL15".
//!
//! The IBA's rules, which the seed takes as given:
//! - A port operates 1, 2, 4, 8 or 15 data VLs (the VLCap encodings).
//! - The SLtoVLMappingTable has one entry per SL; an entry of VL15 means the
//!   SL has no data VL and its packets are discarded. Management packets go
//!   on VL15 without consulting the table.
//! - Flow control is credit based, per data VL, in 64-byte blocks: a packet
//!   of `b` bytes (LRH through VCRC) occupies `ceil(b / 64)` blocks, and a
//!   sender may start it only if the receiving VL has room for all of it.
//!   VL15 is not flow controlled.
//!
//! With 64-byte blocks a 4200-byte buffer advertises 65 blocks (4160 bytes)
//! and a full 1050-byte packet takes 17 of them, so a VL holds three full
//! packets, not the four that 4200 / 1050 suggests if one counts bytes; see
//! [`VlCredits::new`] for byte-exact accounting.

use super::packet::ServiceLevel;
use crate::error::{Error, Result};

/// The management VL.
pub const VL15: u8 = 15;
/// Most data VLs a port can operate.
pub const MAX_DATA_VLS: u8 = 15;
/// IBA flow-control block.
pub const CREDIT_BLOCK_BYTES: u32 = 64;
/// Input and output VL buffer of seed 003, Table 1.
pub const PAPER_VL_BUFFER_BYTES: u32 = 4200;
/// Data VLs of seed 003, Table 1 (16 VLs per link, VL15 included).
pub const PAPER_DATA_VLS: u8 = 15;

/// The IBA's operational data-VL counts (VLCap 1..5).
const ALLOWED_DATA_VLS: [u8; 5] = [1, 2, 4, 8, 15];

/// Checks a port's data-VL count against the IBA's encodings.
pub fn check_data_vls(n: u32, key: &str) -> Result<u8> {
    if n <= MAX_DATA_VLS as u32 && ALLOWED_DATA_VLS.contains(&(n as u8)) {
        Ok(n as u8)
    } else {
        Err(Error::invalid(key, n, "1, 2, 4, 8 or 15 data VLs"))
    }
}

/// Blocks a packet of `bytes` bytes occupies in a buffer counted in blocks of `block` bytes.
#[inline]
pub const fn blocks_for(bytes: u32, block: u32) -> u32 {
    bytes.div_ceil(block)
}

/// A port's SLtoVLMappingTable: 16 SLs to the port's data VLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlToVl {
    /// VL per SL; VL15 marks an SL with no data VL (IBA: discard).
    vl: [u8; 16],
    data_vls: u8,
}

impl SlToVl {
    /// A table on a port of `data_vls` data VLs with no SL mapped.
    pub fn unmapped(data_vls: u8) -> Result<Self> {
        let data_vls = check_data_vls(data_vls as u32, "ib.data_vls")?;
        Ok(SlToVl { vl: [VL15; 16], data_vls })
    }

    /// SL `s` on VL `s mod data_vls`: every SL mapped, distinct SLs on
    /// distinct VLs as far as the port has them.
    pub fn modulo(data_vls: u8) -> Result<Self> {
        let mut t = Self::unmapped(data_vls)?;
        for (s, v) in t.vl.iter_mut().enumerate() {
            *v = s as u8 % t.data_vls;
        }
        Ok(t)
    }

    /// A table from its 16 entries, as a scenario writes it; 15 leaves an SL unmapped.
    pub fn from_entries(entries: &[u32], data_vls: u8) -> Result<Self> {
        let mut t = Self::unmapped(data_vls)?;
        if entries.len() != 16 {
            return Err(Error::invalid(
                "ib.sl_to_vl",
                format!("{} entries", entries.len()),
                "one VL for each of the 16 SLs",
            ));
        }
        for (s, &v) in entries.iter().enumerate() {
            if v != VL15 as u32 {
                t.set(ServiceLevel::new(s as u32, "ib.sl_to_vl")?, v)?;
            }
        }
        Ok(t)
    }

    /// Maps `sl` to data VL `vl`, which must exist on this port.
    pub fn set(&mut self, sl: ServiceLevel, vl: u32) -> Result<()> {
        if vl >= self.data_vls as u32 {
            return Err(Error::invalid(
                &format!("ib.sl_to_vl[{}]", sl.get()),
                vl,
                format!("a data VL of this port, 0..={}", self.data_vls - 1),
            ));
        }
        self.vl[sl.get() as usize] = vl as u8;
        Ok(())
    }

    /// The data VL of `sl`, or `None` if its packets are to be discarded.
    #[inline]
    pub fn vl(&self, sl: ServiceLevel) -> Option<u8> {
        let v = self.vl[sl.get() as usize];
        (v != VL15).then_some(v)
    }

    /// The data VL of `sl`, for validating that a traffic class can be carried at all.
    pub fn require(&self, sl: ServiceLevel) -> Result<u8> {
        self.vl(sl).ok_or_else(|| {
            Error::invalid(
                &format!("ib.sl_to_vl[{}]", sl.get()),
                "no VL",
                format!("a data VL of this port, 0..={}", self.data_vls - 1),
            )
        })
    }

    pub fn data_vls(&self) -> u8 {
        self.data_vls
    }
}

/// Link-level credits of one VL, as the sender sees the receiver's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VlCredits {
    block: u16,
    capacity: u16,
    available: u16,
}

impl VlCredits {
    /// A VL buffer of `buffer_bytes` bytes counted in `block`-byte credits:
    /// [`CREDIT_BLOCK_BYTES`] as the IBA does, or 1 to count bytes exactly.
    /// The buffer advertises the whole blocks it holds.
    pub fn new(buffer_bytes: u32, block: u32) -> Self {
        assert!((1..=u16::MAX as u32).contains(&block), "credit block of {block} bytes");
        let capacity = buffer_bytes / block;
        assert!(capacity <= u16::MAX as u32, "VL buffer of {buffer_bytes} bytes has too many {block}-byte credits");
        VlCredits { block: block as u16, capacity: capacity as u16, available: capacity as u16 }
    }

    /// The seed's 4200-byte VL buffer in IBA 64-byte blocks.
    pub fn paper() -> Self {
        Self::new(PAPER_VL_BUFFER_BYTES, CREDIT_BLOCK_BYTES)
    }

    /// Credits a packet of `packet_bytes` bytes takes.
    #[inline]
    pub fn blocks(&self, packet_bytes: u32) -> u32 {
        blocks_for(packet_bytes, self.block as u32)
    }

    /// Whether the receiving buffer has room for all of the packet.
    #[inline]
    pub fn can_send(&self, packet_bytes: u32) -> bool {
        self.blocks(packet_bytes) <= self.available as u32
    }

    /// Whether a packet of this size could ever be sent (fits an empty buffer).
    pub fn holds(&self, packet_bytes: u32) -> bool {
        self.blocks(packet_bytes) <= self.capacity as u32
    }

    /// Takes the credits of a packet the sender starts; returns how many.
    #[inline]
    pub fn consume(&mut self, packet_bytes: u32) -> u32 {
        let b = self.blocks(packet_bytes);
        self.take(b as u16);
        b
    }

    /// Takes `blocks` credits (a packet the caller has counted in this VL's blocks).
    #[inline]
    pub fn take(&mut self, blocks: u16) {
        assert!(
            blocks <= self.available,
            "VL credits would go negative: {blocks} blocks wanted, {} left",
            self.available
        );
        self.available -= blocks;
    }

    /// Returns `blocks` credits when the receiver frees them.
    #[inline]
    pub fn restore(&mut self, blocks: u32) {
        let a = self.available as u32 + blocks;
        assert!(a <= self.capacity as u32, "VL credits would exceed the buffer: {a} of {} blocks", self.capacity);
        self.available = a as u16;
    }

    pub fn available_blocks(&self) -> u32 {
        self.available as u32
    }

    pub fn capacity_blocks(&self) -> u32 {
        self.capacity as u32
    }

    pub fn used_blocks(&self) -> u32 {
        (self.capacity - self.available) as u32
    }

    pub fn block_bytes(&self) -> u32 {
        self.block as u32
    }
}

/// The credit counters of a port's data VLs, as the sender sees the
/// receiver's buffers. VL15 is not flow controlled: it can always send and
/// keeps no counter. (A sending port starts its own counters from these
/// and keeps them beside its heads and queues: `output_port.rs`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
struct CreditCounters {
    /// Per data VL, the free blocks (0 on a VL the port does not operate).
    available: [u16; MAX_DATA_VLS as usize],
    /// Every VL's buffer, in blocks.
    capacity: u16,
}

impl CreditCounters {
    /// Takes `blocks` of `vl`'s credits (a packet the sender starts; VL15: none).
    #[inline(always)]
    fn take(&mut self, vl: u8, blocks: u16) {
        if let Some(a) = self.available.get_mut(vl as usize) {
            assert!(blocks <= *a, "VL credits would go negative: {blocks} blocks wanted, {a} left");
            *a -= blocks;
        }
    }

    /// Returns `blocks` of `vl`'s credits when the receiver frees them (VL15: none).
    #[inline(always)]
    fn restore(&mut self, vl: u8, blocks: u32) {
        if let Some(a) = self.available.get_mut(vl as usize) {
            let n = *a as u32 + blocks;
            assert!(n <= self.capacity as u32, "VL credits would exceed the buffer: {n} of {} blocks", self.capacity);
            *a = n as u16;
        }
    }
}

/// The credits of every data VL of one port towards its link partner:
/// the counters, and the buffers' block and the port's data VLs, which
/// only checks and set-up read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortCredits {
    counters: CreditCounters,
    block: u16,
    data_vls: u8,
}

impl PortCredits {
    /// `data_vls` data VLs, each with a buffer of `buffer_bytes` counted in `block`-byte credits.
    pub fn new(data_vls: u8, buffer_bytes: u32, block: u32) -> Result<Self> {
        let data_vls = check_data_vls(data_vls as u32, "ib.data_vls")?;
        if buffer_bytes < block {
            return Err(Error::invalid(
                "ib.vl_buffer_bytes",
                buffer_bytes,
                format!("at least one {block}-byte credit"),
            ));
        }
        let shape = VlCredits::new(buffer_bytes, block);
        let mut available = [0; MAX_DATA_VLS as usize];
        available[..data_vls as usize].fill(shape.available);
        Ok(PortCredits {
            counters: CreditCounters { available, capacity: shape.capacity },
            block: shape.block,
            data_vls,
        })
    }

    /// Seed 003: 15 data VLs of 4200 bytes, 64-byte credits.
    pub fn paper() -> Self {
        Self::new(PAPER_DATA_VLS, PAPER_VL_BUFFER_BYTES, CREDIT_BLOCK_BYTES).expect("paper credits are valid")
    }

    /// Checks that `vl` exists on this port: a data VL below the port's count, or VL15.
    pub fn check_vl(&self, vl: u32, key: &str) -> Result<u8> {
        if vl < self.data_vls as u32 || vl == VL15 as u32 {
            Ok(vl as u8)
        } else {
            Err(Error::invalid(key, vl, format!("a data VL 0..={} or VL15", self.data_vls - 1)))
        }
    }

    /// Checks that a packet of `packet_bytes` bytes fits an empty VL buffer,
    /// else it could never be sent and its VL would block forever.
    pub fn check_holds(&self, packet_bytes: u32, key: &str, buffer_bytes: u32) -> Result<()> {
        let v = self.shape();
        if v.holds(packet_bytes) {
            Ok(())
        } else {
            let block = v.block_bytes();
            Err(Error::invalid(
                key,
                buffer_bytes,
                format!(
                    "at least {} bytes: whole {block}-byte credits for the largest packet, {packet_bytes} bytes (an MTU \
                     and its headers)",
                    packet_bytes.div_ceil(block) * block
                ),
            ))
        }
    }

    #[inline]
    pub fn can_send(&self, vl: u8, packet_bytes: u32) -> bool {
        vl == VL15 || self.vl(vl).can_send(packet_bytes)
    }

    /// Takes a packet's credits on `vl`; returns the blocks taken (0 on VL15).
    #[inline]
    pub fn consume(&mut self, vl: u8, packet_bytes: u32) -> u32 {
        if vl == VL15 {
            return 0;
        }
        let blocks = self.vl(vl).blocks(packet_bytes);
        self.counters.take(vl, blocks as u16);
        blocks
    }

    #[inline]
    pub fn restore(&mut self, vl: u8, blocks: u32) {
        if vl != VL15 {
            self.index(vl);
            self.counters.restore(vl, blocks);
        }
    }

    /// The credits of data VL `vl`.
    pub fn vl(&self, vl: u8) -> VlCredits {
        VlCredits { available: self.counters.available[self.index(vl)], ..self.shape() }
    }

    pub fn data_vls(&self) -> u8 {
        self.data_vls
    }

    /// An empty VL buffer of this port.
    fn shape(&self) -> VlCredits {
        let capacity = self.counters.capacity;
        VlCredits { block: self.block, capacity, available: capacity }
    }

    #[inline]
    fn index(&self, vl: u8) -> usize {
        assert!(vl < self.data_vls, "VL{vl} on a port of {} data VLs", self.data_vls);
        vl as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::{Mtu, TrafficClass};
    use crate::kernel::RandomStream;

    fn sl(s: u32) -> ServiceLevel {
        ServiceLevel::new(s, "sl").unwrap()
    }

    #[test]
    fn data_vl_counts_are_the_iba_encodings() {
        for n in [1, 2, 4, 8, 15] {
            assert_eq!(check_data_vls(n, "k").unwrap(), n as u8);
        }
        for n in [0, 3, 5, 7, 9, 16, 256 + 4] {
            let e = check_data_vls(n, "ib.data_vls").unwrap_err();
            assert_eq!(e.key.as_deref(), Some("ib.data_vls"));
        }
    }

    #[test]
    fn sl_to_vl_maps_and_rejects() {
        let mut t = SlToVl::unmapped(4).unwrap();
        assert_eq!(t.vl(sl(3)), None);
        let e = t.require(sl(3)).unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.sl_to_vl[3]"), Some("no VL")));
        t.set(sl(3), 2).unwrap();
        assert_eq!(t.require(sl(3)).unwrap(), 2);
        let e = t.set(sl(5), 4).unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.sl_to_vl[5]"), Some("4")));
        assert_eq!(e.allowed.as_deref(), Some("a data VL of this port, 0..=3"));
        // VL15 is never a data VL.
        assert!(SlToVl::unmapped(15).unwrap().set(sl(0), 15).is_err());
    }

    #[test]
    fn modulo_and_entry_tables() {
        let t = SlToVl::modulo(4).unwrap();
        let got: Vec<_> = (0..16).map(|s| t.vl(sl(s)).unwrap()).collect();
        assert_eq!(got, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
        let full = SlToVl::modulo(PAPER_DATA_VLS).unwrap();
        assert_eq!(full.vl(sl(14)), Some(14));
        assert_eq!(full.vl(sl(15)), Some(0));
        let mut entries = [0u32; 16];
        entries[1] = 1;
        entries[9] = 15;
        let t = SlToVl::from_entries(&entries, 2).unwrap();
        assert_eq!((t.vl(sl(1)), t.vl(sl(9))), (Some(1), None));
        assert!(SlToVl::from_entries(&entries[..4], 2).is_err());
        entries[2] = 2;
        assert_eq!(SlToVl::from_entries(&entries, 2).unwrap_err().key.as_deref(), Some("ib.sl_to_vl[2]"));
        // The default SLs of the data classes map to distinct VLs.
        let a = full.require(TrafficClass::RealTime.default_sl()).unwrap();
        let b = full.require(TrafficClass::BestEffort.default_sl()).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn paper_buffer_in_blocks_and_bytes() {
        let c = VlCredits::paper();
        assert_eq!(c.capacity_blocks(), 65);
        let full = Mtu::B1024.max_packet_bytes();
        assert_eq!(c.blocks(full), 17);
        assert_eq!(c.blocks(Mtu::B256.max_packet_bytes()), 5);
        assert_eq!(c.blocks(26), 1);
        // Three full packets fit in 64-byte blocks, four when counting bytes.
        let fits = |mut c: VlCredits| (0..).take_while(|_| c.can_send(full) && c.consume(full) > 0).count();
        assert_eq!(fits(c), 3);
        assert_eq!(fits(VlCredits::new(PAPER_VL_BUFFER_BYTES, 1)), 4);
    }

    #[test]
    fn sender_starts_only_whole_packets() {
        let mut c = VlCredits::paper();
        c.consume(1050);
        c.consume(1050);
        c.consume(1050);
        assert_eq!(c.available_blocks(), 14);
        assert!(!c.can_send(1050));
        assert!(c.can_send(14 * 64));
        assert!(!c.can_send(14 * 64 + 1));
        c.restore(17);
        assert!(c.can_send(1050));
        assert_eq!(c.used_blocks(), 34);
    }

    #[test]
    #[should_panic(expected = "negative")]
    fn credits_never_go_negative() {
        let mut c = VlCredits::paper();
        for _ in 0..4 {
            c.consume(1050);
        }
    }

    #[test]
    #[should_panic(expected = "exceed")]
    fn credits_never_exceed_the_buffer() {
        let mut c = VlCredits::paper();
        c.consume(1050);
        c.restore(18);
    }

    #[test]
    fn random_traffic_keeps_the_invariant() {
        let mut rng = RandomStream::new(7, "vl.test", 0);
        let mut c = VlCredits::paper();
        let mut in_flight: Vec<u32> = Vec::new();
        for _ in 0..100_000 {
            if rng.uniform() < 0.5 {
                let bytes = 26 + (rng.uniform() * 1025.0) as u32;
                let fits = c.blocks(bytes) <= c.available_blocks();
                assert_eq!(c.can_send(bytes), fits);
                if fits {
                    in_flight.push(c.consume(bytes));
                }
            } else if let Some(b) = in_flight.pop() {
                c.restore(b);
            }
            assert_eq!(c.used_blocks(), in_flight.iter().sum::<u32>());
            assert!(c.available_blocks() <= c.capacity_blocks());
        }
    }

    #[test]
    fn port_credits_per_vl_and_vl15_unlimited() {
        let mut p = PortCredits::paper();
        assert_eq!(p.data_vls(), 15);
        p.consume(3, 1050);
        assert_eq!(p.vl(3).available_blocks(), 48);
        assert_eq!(p.vl(4).available_blocks(), 65);
        for _ in 0..1000 {
            assert!(p.can_send(VL15, 282));
            assert_eq!(p.consume(VL15, 282), 0);
        }
        p.restore(VL15, 5);
        p.restore(3, 17);
        assert_eq!(p.vl(3).available_blocks(), 65);
    }

    #[test]
    fn port_validation_errors() {
        let p = PortCredits::new(4, 4200, 64).unwrap();
        assert_eq!(p.check_vl(3, "k").unwrap(), 3);
        assert_eq!(p.check_vl(15, "k").unwrap(), 15);
        let e = p.check_vl(4, "ib.vl_arbitration.low[0].vl").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration.low[0].vl"));
        assert_eq!(e.allowed.as_deref(), Some("a data VL 0..=3 or VL15"));
        assert!(p.check_holds(1050, "k", 4200).is_ok());
        let small = PortCredits::new(4, 1000, 64).unwrap();
        let e = small.check_holds(1050, "ib.vl_buffer_bytes", 1000).unwrap_err();
        assert_eq!(e.value.as_deref(), Some("1000"), "the buffer the user gave, not the packet");
        assert!(e.allowed.as_deref().unwrap().starts_with("at least 1088 bytes"), "{e}");
        assert!(PortCredits::new(3, 4200, 64).is_err());
        assert!(PortCredits::new(4, 10, 64).is_err());
    }

    #[test]
    #[should_panic(expected = "VL4 on a port of 4 data VLs")]
    fn sending_on_a_missing_vl_panics() {
        let p = PortCredits::new(4, 4200, 64).unwrap();
        p.can_send(4, 100);
    }
}
