//! An IP packet on its way between two hosts: the TCP segment it carries,
//! the bytes of its FC payload (the datagram with its FC encapsulation), and
//! how many frames of its FC sequence the receiver still waits for. Packets
//! live in one arena the hosts and their interfaces share, and travel in
//! CPU jobs and frames by index.

use super::tcp::Segment;

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub seg: Segment,
    /// Frames of the sequence not yet received.
    pub frames_left: u32,
    /// Bytes of the FC payload (IP datagram with its FC encapsulation).
    pub payload: u32,
}
