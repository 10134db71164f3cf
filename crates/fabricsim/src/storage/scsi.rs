//! SCSI over Fibre Channel (FCP): the information units of an exchange and
//! the loop phases they travel in. A read is command, data and status; a
//! write adds a transfer-ready before each data burst. Every phase is its own
//! loop tenancy (arbitrate, open, frames, close), which is what the seed's
//! analyzer traces count.

/// FCP_CMND payload: LUN (8) + control (4) + CDB (16) + FCP_DL (4).
pub const FCP_CMND_BYTES: u32 = 32;
/// FCP_XFER_RDY payload: relative offset, burst length, reserved.
pub const FCP_XFER_RDY_BYTES: u32 = 12;
/// FCP_RSP payload without sense or response info.
pub const FCP_RSP_BYTES: u32 = 24;
/// Logical block size.
pub const BLOCK_BYTES: u32 = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    Command = 0,
    TransferReady = 1,
    Data = 2,
    Status = 3,
}

pub const PHASES: [Phase; 4] = [Phase::Command, Phase::TransferReady, Phase::Data, Phase::Status];

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Command => "command",
            Phase::TransferReady => "xfer_rdy",
            Phase::Data => "data",
            Phase::Status => "status",
        }
    }

    /// Payload of the phase's single frame (data phases carry their burst instead).
    pub fn control_bytes(self) -> u32 {
        match self {
            Phase::Command => FCP_CMND_BYTES,
            Phase::TransferReady => FCP_XFER_RDY_BYTES,
            Phase::Status => FCP_RSP_BYTES,
            Phase::Data => 0,
        }
    }
}

/// Blocks covering `bytes`.
#[inline]
pub fn blocks_for(bytes: u32) -> u32 {
    bytes.div_ceil(BLOCK_BYTES).max(1)
}
