//! Multipath forwarding at a switch (seed 003 sections 3.2-3.4): the table
//! looked up with a packet's path bits, and the adaptive choice of
//! unreliable datagrams.

use super::*;

/// A switch's multipath routing: its table, the selection rule of
/// adaptive packets, and the packets each output has sent (for LFU).
pub(super) struct Multipath {
    pub(super) table: SwitchTable,
    pub(super) selection: Selection,
    pub(super) used: Vec<u64>,
    /// Scratch for the outputs a packet may take (no allocation per packet).
    pub(super) choices: Vec<(u16, u64)>,
}

impl IbSwitch {
    /// The multipath table's output for packet `id` on `vl`: its path bits
    /// select it; bits of this switch not set yet are set here, to the
    /// setting of the output the selection rule prefers among those the
    /// table offers (an unreliable datagram adapting as it goes).
    pub(super) fn route_multipath(&mut self, ctx: &mut Shared, vl: u8, id: u32) -> u16 {
        let mp = self.multipath.as_mut().expect("multipath packets only where multipath tables are");
        let dlid = ctx.packets[id].dlid;
        let msg = &mut ctx.messages[ctx.packets[id].message];
        let examined = mp.table.examined();
        if msg.path.mask & examined == examined {
            return mp.table.port(dlid, msg.path.value & examined);
        }
        mp.table.choices(dlid, msg.path, &mut mp.choices);
        let (port, bits) = match mp.selection {
            // The least used output; ties to the lower port.
            Selection::LeastFrequentlyUsed => {
                mp.choices.iter().copied().min_by_key(|&(q, _)| (mp.used[q as usize], q)).expect("a choice")
            }
            Selection::MaxCredit => {
                let outputs = &self.outputs;
                mp.choices
                    .iter()
                    .copied()
                    .max_by_key(|&(q, _)| (outputs[q as usize].port.available_blocks(vl), std::cmp::Reverse(q)))
                    .expect("a choice")
            }
        };
        msg.path = Pattern { value: msg.path.value | (bits & !msg.path.mask), mask: msg.path.mask | examined };
        port
    }
}
