//! What Fibre Channel and InfiniBand fabrics share: topologies, forwarding
//! tables and routing policies, and deadlock analysis.

pub mod deadlock;
pub mod report;
pub mod routing;
pub mod topology;

pub use routing::ForwardingTables;
pub use topology::{PortUse, Topology};
