//! Fibre Channel frames as they travel through the model, and messages
//! (sequences of frames) as their sources and destinations track them.

use crate::kernel::Time;

/// Index of a frame in the frame arena.
pub type FrameId = u32;
/// Index of a message in the message arena.
pub type MessageId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FrameKind {
    #[default]
    Data,
    /// A class 2 acknowledgement (a header with no payload).
    Ack,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    pub kind: FrameKind,
    /// Terminal node that sends this frame.
    pub src: u32,
    /// Terminal node that receives it.
    pub dst: u32,
    pub bytes: u32,
    pub message: MessageId,
    /// A class 1 connect request (SOFc1): reserves the path it takes.
    pub connect: bool,
    /// Input port of the switch currently holding the frame.
    pub in_port: u16,
    /// Data: when its source started injecting it. Ack: the acknowledged data
    /// frame's injection start, so the round trip can be measured on arrival.
    pub t_inject: Time,
    /// Ack: when the destination generated it. Data: unused.
    pub t_created: Time,
    /// When the frame's last byte reaches the current switch's input buffer;
    /// cut-through may not finish sending before it has arrived.
    pub t_tail_in: Time,
    /// When the current switch's router put the frame in its scheduler
    /// table (oldest-first crossbar arbitration).
    pub t_queued: Time,
}

/// A message: a sequence of full data frames from one node to another.
#[derive(Clone, Copy, Debug, Default)]
pub struct Message {
    pub src: u32,
    pub dst: u32,
    pub frames: u32,
    /// Frames whose injection has started.
    pub sent: u32,
    /// Frames completely received by the destination.
    pub received: u32,
    /// Acknowledgements received back at the source (class 2).
    pub acked: u32,
    pub t_created: Time,
    pub t_first_sent: Time,
    /// Class 1: the connection carrying this message.
    pub connection: u32,
}
