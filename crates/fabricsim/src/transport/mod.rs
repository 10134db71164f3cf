//! TCP/IP hosts over a switched Fibre Channel fabric and the netperf tests
//! that measure them (seed 002): machine parameter sets, the TCP endpoint,
//! and the assembled model.

pub mod machine;
pub mod netperf;
pub mod tcp;

pub use netperf::NetperfModel;
