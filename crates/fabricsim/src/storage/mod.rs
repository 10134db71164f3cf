//! Storage: disk drive models (mechanics, zones, cache, command queue),
//! DiskSim parameter import, the SCSI/FCP exchange phases that carry I/O
//! over a Fibre Channel loop, and the two ends of an exchange: the SCSI
//! initiator (with the standalone loop's workload) and the disk target.

pub mod cache;
pub mod disk;
pub mod disk_target;
pub mod disksim;
pub mod drive_params;
pub mod drives;
pub mod exchange;
pub mod io_stats;
pub mod loop_workload;
pub mod mechanics;
pub mod scsi;
pub mod scsi_initiator;

pub use disk::{Disk, Scheduler};
pub use disk_target::{DiskEvent, DiskTarget};
pub use drive_params::DriveParams;
pub use drives::{drive, drive_names};
pub use scsi_initiator::{InitiatorEvent, ScsiInitiator};
