//! Virtual lanes: the SL-to-VL mapping table of a port and the shape of
//! its per-VL link-level credits.
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
//! [`PortCredits::new`] for byte-exact accounting.

use super::packet::ServiceLevel;
use super::vl_numbers::VlNumbers;
use crate::error::{Error, Result};

/// The management VL.
pub const VL15: u8 = 15;

/// VL slots per port: 15 data VLs and VL15.
pub const VLS: usize = 16;
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

    /// The same table in the model's VL numbers.
    pub fn renumbered(&self, n: &VlNumbers) -> Self {
        SlToVl { vl: self.vl.map(|v| if v == VL15 { VL15 } else { n.inner(v) }), data_vls: self.data_vls }
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

/// The credits of a port's data VLs towards its link partner, as a
/// shape: the data VLs the port operates, and every VL buffer's size in
/// credit blocks. The counters, and the rules that keep each between none
/// and the whole buffer, are the sending port's (`output_port.rs`). VL15
/// is not flow controlled: it keeps no counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortCredits {
    data_vls: u8,
    block: u16,
    capacity: u16,
}

impl PortCredits {
    /// `data_vls` data VLs, each with a buffer of `buffer_bytes` counted in
    /// `block`-byte credits: [`CREDIT_BLOCK_BYTES`] as the IBA does, or 1 to
    /// count bytes exactly. The buffer advertises the whole blocks it holds.
    pub fn new(data_vls: u8, buffer_bytes: u32, block: u32) -> Result<Self> {
        let data_vls = check_data_vls(data_vls as u32, "ib.data_vls")?;
        assert!((1..=u16::MAX as u32).contains(&block), "credit block of {block} bytes");
        if buffer_bytes < block {
            return Err(Error::invalid(
                "ib.vl_buffer_bytes",
                buffer_bytes,
                format!("at least one {block}-byte credit"),
            ));
        }
        let capacity = buffer_bytes / block;
        assert!(capacity <= u16::MAX as u32, "VL buffer of {buffer_bytes} bytes has too many {block}-byte credits");
        Ok(PortCredits { data_vls, block: block as u16, capacity: capacity as u16 })
    }

    /// Seed 003: 15 data VLs of 4200 bytes, 64-byte credits.
    pub fn paper() -> Self {
        Self::new(PAPER_DATA_VLS, PAPER_VL_BUFFER_BYTES, CREDIT_BLOCK_BYTES).expect("paper credits are valid")
    }

    /// Checks that a packet of `packet_bytes` bytes fits an empty VL buffer,
    /// else it could never be sent and its VL would block forever.
    pub fn check_holds(&self, packet_bytes: u32, key: &str, buffer_bytes: u32) -> Result<()> {
        if self.blocks(packet_bytes) <= self.capacity_blocks() {
            Ok(())
        } else {
            let block = self.block as u32;
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

    /// Credits a packet of `packet_bytes` bytes takes.
    pub fn blocks(&self, packet_bytes: u32) -> u32 {
        blocks_for(packet_bytes, self.block as u32)
    }

    /// A VL buffer, in credit blocks.
    pub fn capacity_blocks(&self) -> u32 {
        self.capacity as u32
    }

    pub fn data_vls(&self) -> u8 {
        self.data_vls
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::{Mtu, TrafficClass};

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
        let c = PortCredits::paper();
        assert_eq!((c.data_vls(), c.capacity_blocks()), (15, 65));
        let full = Mtu::B1024.max_packet_bytes();
        assert_eq!(c.blocks(full), 17);
        assert_eq!(c.blocks(Mtu::B256.max_packet_bytes()), 5);
        assert_eq!(c.blocks(26), 1);
        // Three full packets fit in 64-byte blocks, four when counting bytes.
        assert_eq!(c.capacity_blocks() / c.blocks(full), 3);
        let bytes = PortCredits::new(15, PAPER_VL_BUFFER_BYTES, 1).unwrap();
        assert_eq!(bytes.capacity_blocks() / bytes.blocks(full), 4);
    }

    #[test]
    fn port_validation_errors() {
        let p = PortCredits::new(4, 4200, 64).unwrap();
        assert!(p.check_holds(1050, "k", 4200).is_ok());
        let small = PortCredits::new(4, 1000, 64).unwrap();
        let e = small.check_holds(1050, "ib.vl_buffer_bytes", 1000).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("ib.vl_buffer_bytes"));
        assert_eq!(e.value.as_deref(), Some("1000"), "the buffer the user gave, not the packet");
        assert!(e.allowed.as_deref().unwrap().starts_with("at least 1088 bytes"), "{e}");
        assert!(PortCredits::new(3, 4200, 64).is_err());
        assert!(PortCredits::new(4, 10, 64).is_err());
    }
}
