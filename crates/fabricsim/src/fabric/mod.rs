//! What Fibre Channel and InfiniBand fabrics share: the topology (switches,
//! endpoints, links on ports), built-in shapes and routing algorithms picked
//! by name from registries, forwarding tables, and deadlock analysis.
//!
//! A model builds its fabric with `shapes::build_shape(name, &params)`,
//! routes it with `routing::routing_tables(name, &topo, &params)` and checks
//! it with `deadlock::analyze_with_lanes`. Each model maps its scenario
//! sections onto those names (`fc::wiring`, `ib::wiring`).

pub mod cycles;
pub mod deadlock;
pub mod forwarding;
pub mod identity;
pub mod import;
pub mod lft_compare;
pub mod lft_dump;
pub mod lids;
pub mod report;
pub mod routing;
pub mod saturation;
pub mod shapes;
pub mod topology;
pub mod wait_for;

pub use forwarding::{EndpointTables, ForwardingTables, LinearTables, Routes};
pub use routing::{routing_tables, RoutingParams};
pub use shapes::{build_shape, ShapeParams};
pub use topology::{Endpoint, EndpointKind, FarEnd, Link, PortUse, Topology, Wiring};
