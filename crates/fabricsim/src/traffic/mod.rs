//! Workload generators.

pub mod workload;

pub use workload::{Destinations, MessageSource};
