//! fabricsim: a discrete-event simulator of Fibre Channel and InfiniBand
//! fabrics. This crate is pure Rust (no Python); the `fabricsim-py` crate
//! wraps it for the Python package.

pub mod bench;
pub mod error;
pub mod fabric;
pub mod fc;
pub mod ib;
pub mod kernel;
pub mod report;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod storage;
pub mod traffic;
pub mod transport;

pub use error::{Error, ErrorKind, Result};
pub use report::{MetricSummary, RunReport, StopReason};
pub use run::run;
pub use scenario::Scenario;
