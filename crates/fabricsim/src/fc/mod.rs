//! Fibre Channel: frames, the switch, N_Ports and the fabric that joins them;
//! arbitrated loops, alone or bridged through a switch.

pub mod arbitrated_loop;
pub mod connection;
pub mod credit_mail;
pub mod fabric;
mod follow_on;
pub mod frame;
pub mod metrics;
pub mod node;
pub mod port_set;
pub mod sender;
pub mod shared;
pub mod switch;
pub mod switched_hosts;
pub mod switched_loop;
pub mod switched_report;
pub mod switched_wiring;
pub mod timing;
pub mod wiring;

pub use fabric::FcFabric;
pub use switched_loop::SwitchedLoopModel;
