//! What every switch of a fabric shares: its credit block, stage time,
//! crossbar priority ranks, SL-to-VL map, packet lifetimes and VL buffer
//! size. Kept once in the fabric's shared state, which every event reads
//! anyway, rather than in each switch: a switch's own hot state is then one
//! cache line.

use super::congestion::Marking;
use super::lifetime::Lifetime;
use super::vl::{SlToVl, VLS};
use crate::kernel::Time;

pub struct SwitchConfig {
    /// Credit block bytes.
    pub block: u32,
    /// Stages 2-3 after a packet's LRH is in.
    pub input_stages: Time,
    /// Every VL's priority rank, and the VL of each rank.
    pub rank: [u8; VLS],
    pub by_rank: [u8; VLS],
    /// The ranks some arbitration table serves (bit mask: as many as the
    /// crossbar order lists).
    pub served_ranks: u16,
    pub sl_to_vl: SlToVl,
    /// HOQLife and SwitchLifetime (None: no packet is ever dropped).
    pub lifetime: Option<Lifetime>,
    /// A data VL buffer's size in credit blocks.
    pub capacity: u16,
    /// Congestion control's marking (None: no congestion control).
    pub marking: Option<Marking>,
}

impl SwitchConfig {
    /// `vl_order`: VLs in crossbar priority order (VL15 first); VL buffers
    /// of `vl_buffer_bytes` in credits of `credit_block` bytes.
    pub fn new(
        vl_order: &[u8],
        sl_to_vl: SlToVl,
        lifetime: Option<Lifetime>,
        input_stages: Time,
        vl_buffer_bytes: u32,
        credit_block: u32,
    ) -> Self {
        let capacity = u16::try_from(vl_buffer_bytes / credit_block).expect("VL buffer credits fit 16 bits");
        // Ranks: the crossbar order given (VL15, high table, low table), then any other VL.
        let mut by_rank = [0u8; VLS];
        let mut n = 0;
        for vl in vl_order.iter().copied().chain(0..VLS as u8) {
            if !by_rank[..n].contains(&vl) {
                by_rank[n] = vl;
                n += 1;
            }
        }
        let mut rank = [0u8; VLS];
        for (r, &vl) in by_rank.iter().enumerate() {
            rank[vl as usize] = r as u8;
        }
        SwitchConfig {
            block: credit_block,
            input_stages,
            rank,
            by_rank,
            served_ranks: ((1u32 << vl_order.len()) - 1) as u16,
            sl_to_vl,
            lifetime,
            capacity,
            marking: None,
        }
    }
}
