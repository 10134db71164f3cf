//! Per-scenario constants of the Fibre Channel models, derived once from
//! the scenario so the hot path only adds precomputed picosecond counts.

use crate::kernel::{time, LineRate, Time};
use crate::scenario::FcFabricSpec;

#[derive(Clone, Debug)]
pub struct FcTiming {
    pub rate: LineRate,
    pub data_bytes: u32,
    pub ack_bytes: u32,
    pub header_bytes: u32,
    /// Serialization time of a full data frame.
    pub data_time: Time,
    /// Serialization time of an acknowledgement frame.
    pub ack_time: Time,
    /// Time for a frame's header to arrive: cut-through may start after it.
    pub header_time: Time,
    /// Router time per header.
    pub route_time: Time,
    /// One-way fibre propagation.
    pub propagation: Time,
}

impl FcTiming {
    pub fn new(s: &FcFabricSpec) -> Self {
        let rate = LineRate::from_bytes_per_second(s.link.data_mb_s() * 1e6);
        let header = s.protocol.frame_header_bytes;
        Self::at_rate(
            rate,
            header,
            header,
            s.protocol.frame_payload_bytes,
            time::from_ns(s.switch.routing_time_ns),
            time::from_ns(s.link.propagation_ns),
        )
    }

    /// Timing at `rate` of frames of `overhead` bytes around at most
    /// `payload` bytes, of which the first `header` bytes must be in before
    /// cut-through (an overhead may add the fill words between frames).
    pub fn at_rate(
        rate: LineRate,
        header: u32,
        overhead: u32,
        payload: u32,
        route_time: Time,
        propagation: Time,
    ) -> Self {
        let data_bytes = overhead + payload;
        FcTiming {
            rate,
            data_bytes,
            ack_bytes: overhead,
            header_bytes: overhead,
            data_time: rate.time_for(data_bytes as u64),
            ack_time: rate.time_for(overhead as u64),
            header_time: rate.time_for(header as u64),
            route_time,
            propagation,
        }
    }

    /// Serialization time of a frame of `bytes` bytes.
    #[inline]
    pub fn frame_time(&self, bytes: u32) -> Time {
        if bytes == self.data_bytes {
            self.data_time
        } else if bytes == self.ack_bytes {
            self.ack_time
        } else {
            self.rate.time_for(bytes as u64)
        }
    }
}
