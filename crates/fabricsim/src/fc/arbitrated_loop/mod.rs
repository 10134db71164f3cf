//! Fibre Channel Arbitrated Loop (FC-AL): NL_Ports on a ring with AL_PA
//! priorities, ARB/OPN/CLS tenancies, the access fairness window, login
//! BB_Credit and R_RDY flow control (including the alternate credit model),
//! loop timing, loop initialization, and SCSI disks as targets.

pub mod al_pa;
pub mod arbitration;
pub mod initialization;
pub mod metrics;
pub mod model;
pub mod port;
pub mod timing;

pub use model::LoopModel;
