//! The model's own VL numbers: the data VLs a fabric's traffic uses come
//! first.
//!
//! A switch input keeps the requests and queues of VLs 0-7 in its first
//! cache line and an output keeps a line per eight VLs (`switch.rs`,
//! `output_port.rs`), so traffic on a few VLs reads fewest lines when they
//! are the first ones. A scenario may put its traffic anywhere: the
//! study's best effort alone is on VLs 8-14. So the fabric's build numbers
//! the VLs afresh: the data VLs the workload uses, in their order, become
//! 0, 1, ...; the port's other data VLs follow, in their order; VL15 stays
//! VL15. The renumbering keeps the order of the VLs in use (no other VL
//! ever holds a packet), so every choice among them is the one the
//! scenario's numbers give, and the run is the same; reports name each VL
//! by the scenario's number.

/// A renumbering of a port's VLs and its inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlNumbers {
    /// The model's number of each scenario VL.
    inner: [u8; 16],
    /// The scenario's number of each model VL.
    outer: [u8; 16],
}

impl VlNumbers {
    /// Data VLs `used` (scenario numbers, each below `data_vls`) first, in
    /// order, then the other data VLs below `data_vls`, in order; the rest
    /// (none of them a data VL of the port) keep their numbers.
    pub fn used_first(used: &[u8], data_vls: u8) -> Self {
        let mut order: Vec<u8> = (0..data_vls).filter(|v| used.contains(v)).collect();
        order.extend((0..data_vls).filter(|v| !used.contains(v)));
        let mut n = VlNumbers { inner: std::array::from_fn(|v| v as u8), outer: std::array::from_fn(|v| v as u8) };
        for (model, &scenario) in order.iter().enumerate() {
            n.inner[scenario as usize] = model as u8;
            n.outer[model] = scenario;
        }
        debug_assert_eq!(n.inner[15], 15, "VL15 keeps its number");
        n
    }

    /// The model's number of scenario VL `vl`.
    #[inline]
    pub fn inner(&self, vl: u8) -> u8 {
        self.inner[(vl & 15) as usize]
    }

    /// The scenario's number of model VL `vl`.
    #[inline]
    pub fn outer(&self, vl: u8) -> u8 {
        self.outer[(vl & 15) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::vl::VL15;

    #[test]
    fn used_vls_come_first_in_order_and_the_rest_follow() {
        // The study's best effort alone: VLs 8-14 of 15.
        let n = VlNumbers::used_first(&[14, 8, 9, 10, 11, 12, 13], 15);
        assert_eq!(
            (0..16).map(|v| n.inner(v)).collect::<Vec<_>>(),
            [7, 8, 9, 10, 11, 12, 13, 14, 0, 1, 2, 3, 4, 5, 6, 15]
        );
        for v in 0..16 {
            assert_eq!(n.outer(n.inner(v)), v);
        }
        // VLs 0 and 2 of 4: 2 becomes 1, the unused 1 and 3 follow; 4-15 stay.
        let n = VlNumbers::used_first(&[2, 0], 4);
        assert_eq!((0..6).map(|v| n.inner(v)).collect::<Vec<_>>(), [0, 2, 1, 3, 4, 5]);
        assert_eq!(n.inner(VL15), VL15);
    }

    #[test]
    fn traffic_on_the_first_vls_keeps_its_numbers() {
        let n = VlNumbers::used_first(&[0, 1, 2], 8);
        assert!((0..16).all(|v| n.inner(v) == v && n.outer(v) == v));
    }
}
