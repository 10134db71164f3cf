//! InfiniBand: the IBA model of seed 003 ("Exploring IBA Design Space for
//! Improved Performance").
//!
//! One concept per file, in the order a packet meets them: `sources` (the
//! video, best-effort and control workload, and the messages it builds),
//! `message` (a work request at the source), `hca` (send queues per SL, its
//! output port, and the sink), `fifo` (VL buffers and send queues, linked
//! through their packets and messages), `packet` (headers, MTUs,
//! segmentation), `output_port` (the sending side of any port: credits,
//! held returns, VL arbiter, head blocks), `vl` (SL-to-VL mapping, per-VL
//! credits), `credit_return` (credits on their way back to a sender, held
//! without an event while it has no use for them), `vl_arbiter` (the IBA
//! high/low-priority tables), `wire` (a cable: when what a port sends takes
//! effect at the far end, and what it delivers there), `link` and `timing`
//! (widths, speeds, serialization), `switch` (the five-stage pipeline),
//! `shared` (the packet and message records, timing and metrics every
//! component touches), `metrics`, `report` (summaries, audit, deadlock
//! description), `wiring` (topology and forwarding tables from `fabric/`)
//! and `fabric` (the assembly: wiring the components and handing each its
//! events).

pub mod credit_return;
pub mod fabric;
pub mod footprint;
pub mod hca;
pub mod lft;
pub mod lifetime;
pub mod link;
pub mod message;
pub mod metrics;
pub mod multicast;
pub mod multipath;
pub mod output_port;
pub mod packed_port;
pub mod packet;
mod report;
pub mod ring;
pub mod routing_advice;
pub mod shared;
pub mod sources;
pub mod switch;
pub mod timing;
pub mod vl;
pub mod vl_arbiter;
pub mod vl_numbers;
pub mod wire;
pub mod wiring;

pub use fabric::IbFabric;
pub use link::IbLink;
