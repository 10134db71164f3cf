//! Workload generators.

pub mod video;
pub mod workload;

pub use workload::{Destinations, MessageSource, SourcePlace};
