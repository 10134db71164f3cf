//! What every HCA of a fabric shares: its SL-to-VL map both ways, its
//! credit block and its message buffer's size, kept once in the fabric's
//! shared state.

use super::message::Message;
use super::packet::ServiceLevel;
use super::vl::{blocks_for, SlToVl};

/// [`HcaConfig::sl_vl`] of an SL that maps to no VL.
pub(super) const NO_VL: u8 = 16;

/// What every HCA of a fabric shares: its SL-to-VL map both ways, its
/// credit block and its message buffer's size. Kept once in the fabric's
/// shared state, as the switches' [`SwitchConfig`](super::switch_config::SwitchConfig),
/// so an HCA's own state holds only what differs between HCAs.
#[derive(Clone, Debug)]
pub struct HcaConfig {
    /// Per data VL: the SLs that map onto it, as a bit mask.
    pub(super) vl_sls: [u16; 16],
    /// The VL of each SL ([`NO_VL`] for an SL without one).
    pub(super) sl_vl: [u8; 16],
    /// Bytes per credit block.
    pub(super) block: u32,
    /// A data VL buffer's credit blocks (every port's).
    pub(super) capacity: u16,
    /// An HCA's message buffer, in bytes.
    pub(super) buffer_bytes: u64,
    /// Whether each SL queue, and the control queue, has a buffer of
    /// `buffer_bytes` of its own (`ib.hca.buffer_scope = "per_sl"`) rather
    /// than all sharing one.
    pub(super) per_sl: bool,
}

impl HcaConfig {
    pub fn new(sl_to_vl: &SlToVl, block: u32, capacity: u16, buffer_bytes: u64) -> Self {
        let mut vl_sls = [0u16; 16];
        let mut sl_vl = [NO_VL; 16];
        for sl in 0..16u8 {
            if let Some(vl) = sl_to_vl.vl(ServiceLevel::new(sl as u32, "").expect("SL below 16")) {
                vl_sls[vl as usize] |= 1 << sl;
                sl_vl[sl as usize] = vl;
            }
        }
        HcaConfig { vl_sls, sl_vl, block, capacity, buffer_bytes, per_sl: false }
    }

    /// Every SL queue, and the control queue, holds up to the buffer's size
    /// of its own.
    pub(super) fn per_sl(self) -> Self {
        HcaConfig { per_sl: true, ..self }
    }

    /// Credit blocks of `msg`'s next packet.
    #[inline]
    pub(super) fn blocks_of_next(&self, msg: &Message) -> u16 {
        blocks_for(msg.next_packet_bytes(), self.block) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vl_lists_the_sls_that_map_onto_it() {
        let t = SlToVl::from_entries(&[0, 1, 1, 15, 0, 2, 2, 2, 15, 15, 15, 15, 15, 15, 15, 15], 4).unwrap();
        let c = HcaConfig::new(&t, 64, 65, 1 << 20);
        assert_eq!(&c.vl_sls[..4], &[0b1_0001, 0b110, 0b1110_0000, 0]);
        assert_eq!(&c.sl_vl[..9], &[0, 1, 1, NO_VL, 0, 2, 2, 2, NO_VL]);
        assert_eq!(c.block, 64);
    }
}
