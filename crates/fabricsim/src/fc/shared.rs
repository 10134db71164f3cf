//! What every component of one Fibre Channel assembly reads and writes
//! besides its own state: the frame and message records (frames travel by
//! arena index), the class 1 connections, the link timing and the metrics.

use super::connection::Connections;
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
}

impl Shared {
    /// Bytes the records occupy.
    pub fn memory_bytes(&self) -> u64 {
        self.frames.memory_bytes() + self.messages.memory_bytes() + self.connections.memory_bytes()
    }
}
