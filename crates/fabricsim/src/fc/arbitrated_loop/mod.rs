//! Fibre Channel Arbitrated Loop (FC-AL): NL_Ports on a ring with AL_PA
//! priorities, ARB/OPN/CLS tenancies, the access fairness window, login
//! BB_Credit and R_RDY flow control (including the alternate credit model),
//! loop timing and loop initialization; the ring as a component, and the
//! standalone loop of an initiator and its disks; the bridge that attaches
//! a loop to a switch port.

pub mod al_pa;
pub mod arbitration;
pub mod bridge;
pub mod initialization;
pub mod metrics;
pub mod port;
pub mod ring;
pub mod standalone;
pub mod timing;

pub use ring::{Ring, RingEvent, RingReport};
pub use standalone::LoopModel;
