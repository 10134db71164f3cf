//! InfiniBand packets: header overhead, MTUs per traffic class, splitting a
//! message into packets, service levels, and the compact packet record that
//! lives in the kernel's arena and travels through the model by index.
//!
//! Seed 003, Table 1: "LRH, BTH, and CRC fields: 26 bytes"; section 2.2
//! gives ICRC = 4 and VCRC = 2 bytes, which leaves the IBA's 8-byte Local
//! Route Header and 12-byte Base Transport Header (8 + 12 + 4 + 2 = 26).
//! Table 1 also fixes the MTU at 1024 bytes for real-time and best-effort
//! traffic and 256 bytes for control traffic; section 4 says each video frame
//! "is divided into fixed-size packets, where each packet consists of the
//! MTU and the header", so a message of `n` bytes becomes `ceil(n / MTU)`
//! packets of MTU payload plus 26 header bytes, the last one carrying the
//! remainder. No other header (GRH, DETH, RETH) is modelled, as in the seed.

use crate::error::{Error, Result};
use crate::kernel::Time;

/// `Message::frame_edges`: the message holds its frame's first packet.
pub const FRAME_FIRST: u8 = 1;
/// `Message::frame_edges`: the message holds its frame's last packet.
pub const FRAME_LAST: u8 = 2;
/// A message that is its whole frame (and every message that is no frame).
pub const WHOLE_FRAME: u8 = FRAME_FIRST | FRAME_LAST;

/// Local Route Header.
pub const LRH_BYTES: u32 = 8;
/// Base Transport Header.
pub const BTH_BYTES: u32 = 12;
/// Invariant CRC, end to end.
pub const ICRC_BYTES: u32 = 4;
/// Variant CRC, regenerated on every link.
pub const VCRC_BYTES: u32 = 2;
/// Bytes every packet carries besides its payload (seed 003, Table 1).
pub const HEADER_BYTES: u32 = LRH_BYTES + BTH_BYTES + ICRC_BYTES + VCRC_BYTES;

/// The IBA path MTUs (payload bytes per packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mtu {
    B256,
    B512,
    B1024,
    B2048,
    B4096,
}

impl Mtu {
    pub const ALL: [Mtu; 5] = [Mtu::B256, Mtu::B512, Mtu::B1024, Mtu::B2048, Mtu::B4096];

    pub const fn bytes(self) -> u32 {
        match self {
            Mtu::B256 => 256,
            Mtu::B512 => 512,
            Mtu::B1024 => 1024,
            Mtu::B2048 => 2048,
            Mtu::B4096 => 4096,
        }
    }

    /// The MTU of `bytes` payload bytes; `key` names the scenario key in the error.
    pub fn from_bytes(bytes: u32, key: &str) -> Result<Self> {
        Mtu::ALL
            .into_iter()
            .find(|m| m.bytes() == bytes)
            .ok_or_else(|| Error::invalid(key, bytes, "256, 512, 1024, 2048, 4096"))
    }

    /// The largest packet on the wire at this MTU.
    pub const fn max_packet_bytes(self) -> u32 {
        self.bytes() + HEADER_BYTES
    }
}

/// The three traffic classes of seed 003, section 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum TrafficClass {
    /// MPEG-2 video frames with playout deadlines.
    RealTime,
    /// Poisson messages of fixed size to uniform destinations.
    #[default]
    BestEffort,
    /// Management traffic: highest priority, always on VL15.
    Control,
}

impl TrafficClass {
    pub const ALL: [TrafficClass; 3] = [TrafficClass::RealTime, TrafficClass::BestEffort, TrafficClass::Control];

    /// Seed 003, Table 1.
    pub const fn mtu(self) -> Mtu {
        match self {
            TrafficClass::RealTime | TrafficClass::BestEffort => Mtu::B1024,
            TrafficClass::Control => Mtu::B256,
        }
    }

    /// The service level a source stamps by default. The seed leaves SLs
    /// open: best-effort takes SL 0 (the IBA's default path SL) and
    /// real-time SL 1, so the two map to different VLs. Control traffic
    /// bypasses SL-to-VL mapping and goes on VL15 whatever its SL.
    pub const fn default_sl(self) -> ServiceLevel {
        match self {
            TrafficClass::RealTime => ServiceLevel(1),
            TrafficClass::BestEffort => ServiceLevel(0),
            TrafficClass::Control => ServiceLevel(15),
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            TrafficClass::RealTime => "real_time",
            TrafficClass::BestEffort => "best_effort",
            TrafficClass::Control => "control",
        }
    }
}

/// One of the IBA's 16 service levels, carried in the LRH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ServiceLevel(u8);

impl ServiceLevel {
    pub const COUNT: u8 = 16;

    pub fn new(sl: u32, key: &str) -> Result<Self> {
        if sl < Self::COUNT as u32 {
            Ok(ServiceLevel(sl as u8))
        } else {
            Err(Error::invalid(key, sl, "0..=15"))
        }
    }

    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// How a message of `message_bytes` splits into packets of at most `mtu`
/// payload bytes each: all packets full but the last. A zero-byte message is
/// one header-only packet, as an IBA zero-length send is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Segmentation {
    pub packets: u32,
    pub mtu: u32,
    /// Payload of the last packet, in `1..=mtu` (0 only for an empty message).
    pub last_payload: u32,
}

impl Segmentation {
    pub fn new(message_bytes: u64, mtu: Mtu) -> Self {
        let m = mtu.bytes() as u64;
        if message_bytes == 0 {
            return Segmentation { packets: 1, mtu: mtu.bytes(), last_payload: 0 };
        }
        let packets = message_bytes.div_ceil(m);
        assert!(packets <= u32::MAX as u64, "message of {message_bytes} bytes has too many packets");
        Segmentation {
            packets: packets as u32,
            mtu: mtu.bytes(),
            last_payload: (message_bytes - (packets - 1) * m) as u32,
        }
    }

    /// Payload bytes of packet `i` (0-based).
    #[inline]
    pub fn payload(&self, i: u32) -> u32 {
        debug_assert!(i < self.packets);
        if i + 1 == self.packets {
            self.last_payload
        } else {
            self.mtu
        }
    }

    /// Bytes of packet `i` on the wire, header included.
    #[inline]
    pub fn wire_bytes(&self, i: u32) -> u32 {
        self.payload(i) + HEADER_BYTES
    }

    pub fn payload_bytes(&self) -> u64 {
        (self.packets as u64 - 1) * self.mtu as u64 + self.last_payload as u64
    }

    pub fn total_wire_bytes(&self) -> u64 {
        self.payload_bytes() + self.packets as u64 * HEADER_BYTES as u64
    }

    /// Wire sizes of the packets in order, without allocating.
    pub fn wire_sizes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.packets).map(|i| self.wire_bytes(i))
    }
}

/// Index of a packet in the packet arena.
pub type PacketId = u32;

/// Packet flag: first packet of its message.
pub const FIRST: u8 = 1 << 0;
/// Packet flag: last packet of its message (its arrival completes the message).
pub const LAST: u8 = 1 << 1;
/// Packet flag: the selective-dropping rule of seed 003, section 3.5, allows
/// a switch to discard it when its head-of-queue lifetime expires.
pub const DROPPABLE: u8 = 1 << 2;
/// Routed by the multipath tables with its message's path bits.
pub const MULTIPATH: u8 = 1 << 3;
/// Replicated by the switches along its group's tree; its DLID is a
/// multicast LID and its message names the group and the source.
pub const MULTICAST: u8 = 1 << 4;
/// Marked by a congested switch (IBA Annex A10's FECN bit of the BTH).
pub const FECN: u8 = 1 << 5;
/// A congestion notification packet (CNP) carrying a BECN back to the
/// source of a marked packet: header only, never dropped or marked.
pub const BECN: u8 = 1 << 6;

/// Whether seed 003's selective dropping (section 3.5) may discard a packet:
/// only real-time and best-effort packets, never a packet of a protected
/// video frame (I frames), and never the first or last packet of a frame.
pub const fn droppable(class: TrafficClass, protected_frame: bool, first: bool, last: bool) -> bool {
    match class {
        TrafficClass::Control => false,
        TrafficClass::BestEffort => true,
        TrafficClass::RealTime => !protected_frame && !first && !last,
    }
}

/// A packet in flight: 32 bytes, `Copy`, stored in a
/// [`kernel::Arena`](crate::kernel::Arena) and referred to by [`PacketId`].
/// What is per-message (sizes, deadlines, frame type) stays in the message
/// record that `message` indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Packet {
    /// When the source created it: the origin of its latency.
    pub t_created: Time,
    /// When its LRH reached the switch it is in now, stamped by the cable
    /// that brought it (switch lifetime, FCFS among multicast requests, and
    /// the cut-through bound: its tail is in `serialization` later).
    pub t_arrived: Time,
    /// The message (video frame, best-effort or control message) it belongs to.
    pub message: u32,
    /// The packet behind it in its VL buffer ([`super::ring::Ring`]).
    pub next: u32,
    /// Destination LID, path bits included (seed 003, section 3.2).
    pub dlid: u16,
    /// Bytes on the wire, header included.
    pub bytes: u16,
    pub sl: ServiceLevel,
    /// VL on the link it is crossing; re-mapped from the SL at every hop.
    pub vl: u8,
    pub class: TrafficClass,
    /// [`FIRST`], [`LAST`], [`DROPPABLE`].
    pub flags: u8,
}

impl Packet {
    #[inline]
    pub fn is_first(&self) -> bool {
        self.flags & FIRST != 0
    }

    #[inline]
    pub fn is_last(&self) -> bool {
        self.flags & LAST != 0
    }

    #[inline]
    pub fn is_droppable(&self) -> bool {
        self.flags & DROPPABLE != 0
    }

    /// The flags of packet `i` of a message split as `seg` that is its whole frame.
    #[inline]
    pub fn flags_for(seg: &Segmentation, i: u32, class: TrafficClass, protected_frame: bool) -> u8 {
        Self::flags_in_frame(seg, i, class, protected_frame, WHOLE_FRAME)
    }

    /// The flags of packet `i` of a message split as `seg` that holds the
    /// edges `frame_edges` of its frame (`Message::frame_edges`): a
    /// frame's first and last packets are never dropped, whichever message
    /// carries them.
    #[inline]
    pub fn flags_in_frame(
        seg: &Segmentation,
        i: u32,
        class: TrafficClass,
        protected_frame: bool,
        frame_edges: u8,
    ) -> u8 {
        let first = i == 0;
        let last = i + 1 == seg.packets;
        let frame_first = first && frame_edges & FRAME_FIRST != 0;
        let frame_last = last && frame_edges & FRAME_LAST != 0;
        (if first { FIRST } else { 0 })
            | (if last { LAST } else { 0 })
            | (if droppable(class, protected_frame, frame_first, frame_last) { DROPPABLE } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Arena;

    #[test]
    fn header_is_the_seeds_26_bytes() {
        assert_eq!(HEADER_BYTES, 26);
        assert_eq!(Mtu::B1024.max_packet_bytes(), 1050);
        assert_eq!(TrafficClass::Control.mtu().max_packet_bytes(), 282);
    }

    #[test]
    fn mtus_per_class() {
        assert_eq!(TrafficClass::RealTime.mtu(), Mtu::B1024);
        assert_eq!(TrafficClass::BestEffort.mtu(), Mtu::B1024);
        assert_eq!(TrafficClass::Control.mtu(), Mtu::B256);
        assert_eq!(Mtu::from_bytes(2048, "k").unwrap(), Mtu::B2048);
        let e = Mtu::from_bytes(1500, "ib.mtu.real_time").unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("ib.mtu.real_time"), Some("1500")));
    }

    #[test]
    fn segmentation_arithmetic() {
        let s = Segmentation::new(2500, Mtu::B1024);
        assert_eq!((s.packets, s.last_payload), (3, 452));
        assert_eq!(s.wire_sizes().collect::<Vec<_>>(), vec![1050, 1050, 478]);
        assert_eq!(s.payload_bytes(), 2500);
        assert_eq!(s.total_wire_bytes(), 2500 + 3 * 26);

        let exact = Segmentation::new(4096, Mtu::B1024);
        assert_eq!((exact.packets, exact.last_payload), (4, 1024));
        let one = Segmentation::new(1, Mtu::B256);
        assert_eq!((one.packets, one.wire_bytes(0)), (1, 27));
        let empty = Segmentation::new(0, Mtu::B256);
        assert_eq!((empty.packets, empty.wire_bytes(0), empty.total_wire_bytes()), (1, 26, 26));
    }

    #[test]
    fn segmentation_matches_ceiling_for_many_sizes() {
        for mtu in Mtu::ALL {
            let m = mtu.bytes() as u64;
            for n in (1..20_000u64).step_by(37).chain([m - 1, m, m + 1, 657_824]) {
                let s = Segmentation::new(n, mtu);
                assert_eq!(s.packets as u64, n.div_ceil(m));
                assert!(s.last_payload >= 1 && s.last_payload <= mtu.bytes());
                assert_eq!(s.wire_sizes().map(u64::from).sum::<u64>(), s.total_wire_bytes());
                assert_eq!(s.total_wire_bytes(), n + 26 * n.div_ceil(m));
            }
        }
    }

    #[test]
    fn service_levels() {
        assert_eq!(ServiceLevel::new(15, "k").unwrap().get(), 15);
        let e = ServiceLevel::new(16, "ib.sl").unwrap_err();
        assert_eq!(e.allowed.as_deref(), Some("0..=15"));
        assert_ne!(TrafficClass::RealTime.default_sl(), TrafficClass::BestEffort.default_sl());
    }

    #[test]
    fn selective_dropping_rule() {
        let s = Segmentation::new(5000, Mtu::B1024);
        let flags = |class, protected| (0..s.packets).map(|i| Packet::flags_for(&s, i, class, protected)).collect();
        let f: Vec<u8> = flags(TrafficClass::RealTime, false);
        assert_eq!(f, vec![FIRST, DROPPABLE, DROPPABLE, DROPPABLE, LAST]);
        let i_frame: Vec<u8> = flags(TrafficClass::RealTime, true);
        assert!(i_frame.iter().all(|f| f & DROPPABLE == 0));
        let be: Vec<u8> = flags(TrafficClass::BestEffort, false);
        assert!(be.iter().all(|f| f & DROPPABLE != 0));
        let one = Segmentation::new(100, Mtu::B256);
        assert_eq!(Packet::flags_for(&one, 0, TrafficClass::Control, false), FIRST | LAST);
    }

    #[test]
    fn packet_is_32_bytes_and_lives_in_the_arena() {
        assert_eq!(std::mem::size_of::<Packet>(), 32);
        assert_eq!(std::mem::size_of::<TrafficClass>(), 1);
        let mut a: Arena<Packet> = Arena::with_capacity(2);
        let p = Packet { bytes: 1050, class: TrafficClass::RealTime, flags: FIRST | LAST, ..Packet::default() };
        let id: PacketId = a.insert(p);
        assert!(a[id].is_first() && a[id].is_last() && !a[id].is_droppable());
        assert_eq!(a[id].bytes, 1050);
    }
}
