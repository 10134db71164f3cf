//! InfiniBand: the IBA model of seed 003 ("Exploring IBA Design Space for
//! Improved Performance").
//!
//! One concept per file, in the order a packet meets them: `sources` (the
//! video, best-effort and control workload), `message` (a work request at
//! the source), `hca` (send queues per SL, VL arbitration, credits, sink),
//! `fifo` (VL buffers and send queues, linked through their packets and messages),
//! `packet` (headers, MTUs, segmentation), `link` and `timing`
//! (serialization, propagation, pipeline stages), `vl` (SL-to-VL mapping,
//! per-VL credits), `credit_return` (credits on their way back to a
//! sender, held without an event while it has no use for them), `vl_arbiter` (the IBA high/low-priority tables),
//! `switch` (the five-stage pipeline), `metrics`, `wiring` (topology and
//! forwarding tables from `fabric/`) and `fabric` (the assembly and its
//! event loop).

pub mod credit_return;
pub mod fabric;
pub mod fifo;
pub mod hca;
pub mod link;
pub mod message;
pub mod metrics;
pub mod packet;
pub mod sources;
pub mod switch;
pub mod timing;
pub mod vl;
pub mod vl_arbiter;
pub mod wiring;

pub use fabric::IbFabric;
pub use link::IbLink;
