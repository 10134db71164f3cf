//! InfiniBand: the IBA model of seed 003 ("Exploring IBA Design Space for
//! Improved Performance").
//!
//! One concept per file, in the order a packet meets them: `sources` (the
//! video, best-effort and control workload, and the messages it builds),
//! `message` (a work request at the source), `hca` (its send queues per SL
//! with the buffer and the accounting of every message, its output port,
//! and the sink; `hca_config`, what all HCAs share), `ring` (VL buffers and
//! send queues, linked through their packets and messages), `packet`
//! (headers, MTUs, segmentation), `output_port` (the sending side of any
//! port: credits, held returns, VL arbiter, head blocks), `vl` (SL-to-VL
//! mapping, per-VL credits), `credit_return` (credits on their way back to
//! a sender, held without an event while it has no use for them),
//! `vl_arbiter` (the IBA high/low-priority tables), `wire` (a cable: when
//! what a port sends takes effect at the far end, and what it delivers
//! there), `link` and `timing` (widths, speeds, serialization),
//! `input_port` (a switch's input buffer: VL queues and head requests),
//! `forwarding` (where a head goes: tables, multipath, multicast),
//! `switch` (the five-stage pipeline; `switch_config`, what all switches
//! share), `shared` (the packet and message records, timing and metrics
//! every component touches), `metrics`, `report` (summaries, audit,
//! deadlock description), `wiring` (topology and forwarding tables from
//! `fabric/`) and `fabric` (the assembly: wiring the components and
//! handing each its events).

pub mod congestion;
mod congestion_report;
pub mod credit_return;
pub mod fabric;
pub mod footprint;
pub mod forwarding;
pub mod hca;
pub mod hca_config;
pub mod input_port;
pub mod lft;
pub mod lfu;
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
pub mod switch_config;
pub mod timing;
pub mod vl;
pub mod vl_arbiter;
pub mod vl_numbers;
pub mod wire;
pub mod wiring;

pub use fabric::IbFabric;
pub use link::IbLink;
