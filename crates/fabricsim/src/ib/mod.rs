//! InfiniBand: the components of the IBA model of seed 003 ("Exploring IBA
//! Design Space for Improved Performance").
//!
//! One concept per file: `link` (width, speed, serialization), `packet`
//! (headers, MTUs, segmentation, the arena record), `vl` (SL-to-VL mapping,
//! per-VL credits) and `vl_arbiter` (the IBA high/low-priority tables).

pub mod link;
pub mod packet;
pub mod vl;
pub mod vl_arbiter;
