//! What every component of one Fibre Channel assembly reads and writes
//! besides its own state: the frame and message records (frames travel by
//! arena index), the class 1 connections, the link timing, the metrics and
//! the R_RDYs on their way to terminal nodes.

use super::connection::Connections;
use super::credit_mail::CreditMail;
use super::frame::{Frame, Message};
use super::metrics::FcMetrics;
use super::timing::FcTiming;
use crate::kernel::Arena;

pub struct Shared {
    pub frames: Arena<Frame>,
    pub messages: Arena<Message>,
    pub connections: Connections,
    pub timing: FcTiming,
    pub metrics: FcMetrics,
    /// Per terminal node whose R_RDYs come by mail (classes 2 and 3 on a
    /// fabric; none elsewhere, where they come as events).
    pub credit_mail: Vec<CreditMail>,
}

impl Shared {
    /// Bytes the records occupy.
    pub fn memory_bytes(&self) -> u64 {
        self.frames.memory_bytes()
            + self.messages.memory_bytes()
            + self.connections.memory_bytes()
            + self.credit_mail.iter().map(CreditMail::memory_bytes).sum::<u64>()
    }
}
