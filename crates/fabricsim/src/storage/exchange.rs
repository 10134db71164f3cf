//! One SCSI exchange (an I/O) as both ends see it, from the application's
//! request to its completion. The initiator creates and frees the record;
//! the disk target keeps its data progress in it and adds the parts of the
//! I/O time it is responsible for (queueing, overhead, seek, rotation,
//! media). Sharing one record per exchange spares a lookup per phase.

use super::mechanics::Location;
use crate::kernel::Time;

/// Names of the I/O time components in [`Exchange::parts`], in report order.
pub const PARTS: [&str; 8] = ["host", "queue", "overhead", "seek", "rotation", "media", "arbitration", "loop"];

#[derive(Clone, Copy, Debug, Default)]
pub struct Exchange {
    pub disk: u32,
    pub slot: u32,
    pub read: bool,
    pub lbn: u64,
    pub blocks: u32,
    pub bytes: u32,
    pub issued: Time,
    /// Bytes handed to bursts (read) or requested by XFER_RDY (write).
    pub scheduled: u32,
    /// Bytes delivered to their receiver.
    pub delivered: u32,
    /// Read data: media start and location (or, for cache hits, `hit_ready`).
    pub media_start: Time,
    pub location: Option<Location>,
    pub hit_ready: Option<Time>,
    /// The I/O time by component, as named in [`PARTS`].
    pub parts: [Time; 8],
    pub phase_first: [Option<Time>; 4],
    pub phase_last: [Time; 4],
    pub tenancies: u32,
    pub trips: f64,
    /// The application has seen the status (at `done_at`).
    pub completed: bool,
    pub done_at: Time,
    /// The status tenancy has closed; the record is freed once both hold.
    pub status_closed: bool,
    /// The initiator that issued it, in assemblies of several.
    pub initiator: u32,
    /// Opens or switch requests refused and tried again (switched loops).
    pub retries: u32,
    /// Requests made to a switch for a remote loop, refused ones included.
    pub switch_requests: u32,
}
