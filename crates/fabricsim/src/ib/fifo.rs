//! A FIFO of packets linked through their own `next` field: a VL buffer's
//! queue is a head and a tail, 8 bytes in its port, and needs no memory of
//! its own. A packet is in at most one VL buffer at a time (it leaves its
//! input VL as its crossbar transfer starts, the moment it joins its output
//! VL), so one link field serves every queue it passes through, and pushing
//! or popping touches only packets the model reads anyway.

use super::packet::Packet;
use crate::kernel::Arena;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketFifo {
    head: u32,
    tail: u32,
}

impl Default for PacketFifo {
    fn default() -> Self {
        PacketFifo { head: NIL, tail: NIL }
    }
}

impl PacketFifo {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }

    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    #[inline]
    pub fn push_back(&mut self, packets: &mut Arena<Packet>, id: u32) {
        packets[id].next = NIL;
        if self.tail == NIL {
            self.head = id;
        } else {
            packets[self.tail].next = id;
        }
        self.tail = id;
    }

    #[inline]
    pub fn pop_front(&mut self, packets: &Arena<Packet>) -> Option<u32> {
        let id = self.front()?;
        self.head = packets[id].next;
        if self.head == NIL {
            self.tail = NIL;
        }
        Some(id)
    }

    /// The packets in order, oldest first.
    pub fn iter<'a>(&self, packets: &'a Arena<Packet>) -> impl Iterator<Item = u32> + 'a {
        std::iter::successors(self.front(), move |&id| Some(packets[id].next).filter(|&n| n != NIL))
    }

    /// Packets queued (walks the list: for audits, not the hot path).
    pub fn len(&self, packets: &Arena<Packet>) -> usize {
        self.iter(packets).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_arrival_order_across_interleaved_queues() {
        let mut packets: Arena<Packet> = Arena::with_capacity(8);
        let ids: Vec<u32> = (0..6).map(|b| packets.insert(Packet { bytes: b, ..Packet::default() })).collect();
        let (mut a, mut b) = (PacketFifo::default(), PacketFifo::default());
        assert!(a.is_empty() && a.pop_front(&packets).is_none());
        for &id in &ids {
            if id % 2 == 0 {
                a.push_back(&mut packets, id);
            } else {
                b.push_back(&mut packets, id);
            }
        }
        assert_eq!(a.iter(&packets).collect::<Vec<_>>(), vec![ids[0], ids[2], ids[4]]);
        assert_eq!(b.len(&packets), 3);
        // A packet popped from one queue joins the other at its tail.
        let moved = a.pop_front(&packets).unwrap();
        b.push_back(&mut packets, moved);
        assert_eq!(b.iter(&packets).collect::<Vec<_>>(), vec![ids[1], ids[3], ids[5], ids[0]]);
        assert_eq!(a.front(), Some(ids[2]));
        while a.pop_front(&packets).is_some() {}
        assert!(a.is_empty() && a.front().is_none());
        a.push_back(&mut packets, ids[2]);
        assert_eq!(a.iter(&packets).collect::<Vec<_>>(), vec![ids[2]]);
    }
}
