//! One loop port (NL_Port): its address, the access fairness window, its
//! receive buffers and login credit, and the queue of loop phases it must
//! originate. A port arbitrates whenever it has a phase to send, unless it
//! is fair and has already won once in the current access window.

use std::collections::VecDeque;

use super::initialization::InitPort;
use crate::kernel::Time;
use crate::storage::scsi::Phase;

/// How a port is set up: what it brings to loop initialization, whether it
/// is fair, and its buffers and login credit.
#[derive(Clone, Debug)]
pub struct PortConfig {
    pub init: InitPort,
    pub fair: bool,
    pub receive_buffers: u32,
    pub login_bb_credit: u32,
}

/// One phase an opener must carry in its own tenancy.
#[derive(Clone, Copy, Debug)]
pub struct Job {
    pub xid: u32,
    pub phase: Phase,
    /// Payload bytes (data bursts) or the control IU's size.
    pub bytes: u32,
    pub target: u32,
    pub queued_at: Time,
    /// The ring does not answer the OPN itself: the loop's bridge (its
    /// switch-connected node) connects the tenancy through the switch with
    /// [`super::Ring::connect`] or refuses it with [`super::Ring::release_at`].
    pub external: bool,
}

#[derive(Clone, Debug)]
pub struct LoopPort {
    pub al_pa: u8,
    /// Implements the access fairness algorithm.
    pub fair: bool,
    /// The access window is open: a fair port may arbitrate.
    pub window_open: bool,
    /// An IDLE that will reopen the window is on its way.
    pub reset_pending: bool,
    pub arbitrating: bool,
    pub arb_start: Time,
    pub receive_buffers: u32,
    pub login_bb_credit: u32,
    pub jobs: VecDeque<Job>,
}

impl LoopPort {
    pub fn new(al_pa: u8, fair: bool, receive_buffers: u32, login_bb_credit: u32) -> Self {
        LoopPort {
            al_pa,
            fair,
            window_open: true,
            reset_pending: false,
            arbitrating: false,
            arb_start: 0,
            receive_buffers,
            login_bb_credit,
            jobs: VecDeque::with_capacity(16),
        }
    }

    /// Has something to send and the fairness window lets it compete.
    #[inline]
    pub fn wants_loop(&self) -> bool {
        !self.jobs.is_empty() && (!self.fair || self.window_open)
    }
}
