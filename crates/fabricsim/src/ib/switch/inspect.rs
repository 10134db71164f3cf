//! What the assembly, reports and audits read of a switch: its cabling and
//! stage time, buffer and credit use, memory, quiescence (the waits a
//! run-time deadlock is a cycle of: `waits.rs`).

use super::*;

impl IbSwitch {
    pub fn ports(&self) -> usize {
        self.inputs.len()
    }

    /// u64 words of a bit mask over the switch's inputs.
    pub(super) fn words(&self) -> usize {
        self.inputs.len().div_ceil(64)
    }

    /// What port `port` is cabled to (the same cable both ways).
    pub fn peer(&self, port: usize) -> Option<PortRef> {
        self.inputs[port].peer.map(|w| w.to)
    }
    /// Credit blocks held in input VL (`port`, `vl`) by its queued packets.
    /// A packet crossing the crossbar counts no more: its credits are on
    /// their way back from its start (keyed for its end).
    pub fn input_blocks(&self, packets: &Arena<Packet>, block: u32, port: usize, vl: u8) -> u32 {
        let input = &self.inputs[port];
        input.queue(vl).iter(packets).map(|id| blocks_for(packets[id].bytes as u32, block)).sum()
    }

    /// Credits output `port` holds for `vl` at its receiver (used blocks as
    /// the sender sees them), less those held for it and due by `now`.
    pub fn credits_used(&self, port: usize, vl: u8, now: Time) -> u32 {
        self.outputs[port].port.credits_used(vl, now)
    }

    /// Packets held in input and output VLs.
    pub fn packets_held(&self, packets: &Arena<Packet>) -> usize {
        let len = |q: &Ring<Packet>| q.len(packets);
        self.inputs.iter().flat_map(|p| p.queues()).map(|q| len(&q)).sum::<usize>()
            + self.outputs.iter().flat_map(|p| p.port.queues()).map(len).sum::<usize>()
            + self.mc_packets_held(packets)
    }

    /// Bytes of the switch's state (its VL queues are linked through the packets).
    pub fn memory_bytes(&self) -> u64 {
        (std::mem::size_of::<IbSwitch>()
            + self.inputs.len() * std::mem::size_of::<InPort>()
            + self.outputs.len() * std::mem::size_of::<OutPort>()) as u64
            + Self::crossbar_bytes(self.ports() as u64)
            + 4 * self.data_table.len() as u64
            + self.forwarding.memory_bytes()
            + (self.expiry.len() * std::mem::size_of::<PortExpiry>()) as u64
    }

    /// Whether every output VL buffer is empty at `now` and every credit is
    /// back or held for its port (audit at drain).
    pub fn is_quiescent(&self, config: &SwitchConfig, now: Time) -> bool {
        (0..self.ports()).all(|o| (0..VL15).all(|vl| self.free_at(o, vl, now) == config.capacity))
            && self.outputs.iter().all(|o| o.port.is_quiescent())
    }
}
