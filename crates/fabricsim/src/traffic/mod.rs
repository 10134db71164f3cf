//! Workload generators.

pub mod workload;

pub use workload::MessageSource;
