//! TCP/IP hosts over a switched Fibre Channel fabric and the netperf tests
//! that measure them (ong-farrell-fc): machine parameter sets, the TCP
//! endpoint, the host (CPU, socket calls, timers), its FC interface, the
//! packets between them, and the assembly with netperf's roles.

pub mod fc_interface;
pub mod host;
pub mod machine;
pub mod netperf;
pub mod packet;
pub mod tcp;

pub use netperf::NetperfModel;
