//! Storage: disk drive models (mechanics, zones, cache, command queue),
//! DiskSim parameter import, and the SCSI/FCP exchange phases that carry
//! I/O over a Fibre Channel loop.

pub mod cache;
pub mod disk;
pub mod disksim;
pub mod drive_params;
pub mod drives;
pub mod mechanics;
pub mod scsi;

pub use disk::{Disk, Scheduler};
pub use drive_params::{drive, drive_names, DriveParams};
