//! Loop timing: the line rate, transmission words, frames with their fill
//! words, per-node forwarding delay and fibre propagation, precomputed so
//! the event loop only adds picosecond counts.
//!
//! Everything a port receives passes its elasticity buffer, so a signal from
//! port `a` to port `b` pays the node delay of every port after `a` up to and
//! including `b`, plus the fibre between them. A full trip (an ARB coming
//! back to its sender) therefore costs `ports x node delay + fibre`, and
//! `d(a, b) + d(b, a)` is exactly one trip for any pair. The fibre is spread
//! evenly over the hops (the seed does not say where the spools sat; only
//! the sum matters for a round trip).

use crate::kernel::{LineRate, Time};
use crate::scenario::LoopSpec;

/// FC-2 frame overhead: SOF (4) + header (24) + CRC (4) + EOF (4).
pub const FRAME_OVERHEAD_BYTES: u32 = 36;
/// Largest FC-2 data field.
pub use crate::scenario::loops::MAX_FRAME_PAYLOAD;

#[derive(Clone, Debug)]
pub struct LoopTiming {
    pub rate: LineRate,
    /// One transmission word (4 bytes, 40 line bits).
    pub word: Time,
    /// Per-node forwarding (elasticity buffer) delay.
    pub node_delay: Time,
    /// Total fibre propagation around the loop.
    pub fibre: Time,
    /// Fill words sent after every frame.
    pub fill_words: u32,
    /// Largest data payload per frame.
    pub max_payload: u32,
    /// Number of ports on the ring.
    pub ports: u32,
    /// `offset[i]`: arrival time at port `i` of a signal leaving port 0 at 0
    /// (elasticity buffers included); `offset[ports]` is one trip.
    offset: Vec<Time>,
}

impl LoopTiming {
    /// The timing of the loop `spec` describes, with `ports` ports in ring order.
    pub fn new(spec: &LoopSpec, ports: u32) -> Self {
        let LoopSpec { baud, node_delay_words, length_m, fill_words, .. } = *spec;
        let (ns_per_m, max_payload) = (spec.propagation_ns_per_m, spec.frame_payload_bytes);
        let rate = LineRate::from_baud(baud, 10);
        let word = rate.time_for(4);
        let node_delay = (rate.ps_per_byte() * 4.0 * node_delay_words).round() as Time;
        let fibre = (length_m * ns_per_m * 1000.0).round() as Time;
        let offset = (0..=ports as u64)
            .map(|i| i * node_delay + (fibre as u128 * i as u128 / ports.max(1) as u128) as Time)
            .collect();
        LoopTiming { rate, word, node_delay, fibre, fill_words, max_payload, ports, offset }
    }

    /// One full trip around the loop.
    #[inline]
    pub fn trip(&self) -> Time {
        self.offset[self.ports as usize]
    }

    /// Delay from port `a`'s transmitter to port `b`'s receiver (a full trip when `a == b`).
    #[inline]
    pub fn delay(&self, a: u32, b: u32) -> Time {
        let (oa, ob) = (self.offset[a as usize], self.offset[b as usize]);
        if b > a {
            ob - oa
        } else {
            ob + self.trip() - oa
        }
    }

    /// Transmission time of a frame with `payload` bytes, with its trailing fill words.
    #[inline]
    pub fn frame_time(&self, payload: u32) -> Time {
        self.rate.time_for((FRAME_OVERHEAD_BYTES + payload + 4 * self.fill_words) as u64)
    }

    /// Number of frames needed for `bytes` of data.
    #[inline]
    pub fn frames_for(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.max_payload).max(1)
    }

    /// Payload of frame `i` (0-based) of a `bytes`-byte sequence.
    #[inline]
    pub fn payload_of(&self, bytes: u32, i: u32) -> u32 {
        (bytes - (i * self.max_payload).min(bytes)).min(self.max_payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_words_are_226_ns_and_trips_add_up() {
        let t = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 97);
        assert_eq!(t.word, 37_647);
        assert_eq!(t.node_delay, 225_882);
        assert_eq!(t.trip(), 97 * 225_882 + 250_000);
        for (a, b) in [(0, 1), (0, 96), (5, 3), (40, 41)] {
            assert_eq!(t.delay(a, b) + t.delay(b, a), t.trip());
        }
        assert_eq!(t.delay(7, 7), t.trip());
        // 2048-byte payload + 36 framing + 24 fill bytes at 106.25 MB/s.
        assert_eq!(t.frame_time(2048), t.rate.time_for(2108));
        assert_eq!(t.frames_for(4096), 2);
        assert_eq!(t.payload_of(3000, 1), 952);
    }
}
