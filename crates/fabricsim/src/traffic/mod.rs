//! Workload generators.

pub mod patterns;
pub mod trace_model;
pub mod video;
pub mod workload;

pub use workload::{Destinations, MessageSource, SourcePlace};
