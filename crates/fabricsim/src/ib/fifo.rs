//! A FIFO of arena records linked through their own `next` field: a queue
//! is a head and a tail, 8 bytes in its owner, with no memory of its own.
//! A switch's VL buffers queue packets this way: a packet is in at most one
//! VL buffer at a time (it leaves its input VL as its crossbar transfer
//! starts, the moment it joins its output VL), so one link field serves
//! every queue it passes through. An HCA's send queues hold messages the
//! same way. Pushing or popping touches only records the model reads anyway.

use std::marker::PhantomData;

use super::message::Message;
use super::packet::Packet;
use crate::kernel::Arena;

const NIL: u32 = u32::MAX;

/// A record that carries the link to the next one in its queue.
pub trait Linked {
    fn next(&self) -> u32;
    fn set_next(&mut self, next: u32);
}

impl Linked for Packet {
    #[inline]
    fn next(&self) -> u32 {
        self.next
    }
    #[inline]
    fn set_next(&mut self, next: u32) {
        self.next = next;
    }
}

impl Linked for Message {
    #[inline]
    fn next(&self) -> u32 {
        self.next
    }
    #[inline]
    fn set_next(&mut self, next: u32) {
        self.next = next;
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Fifo<T> {
    head: u32,
    tail: u32,
    of: PhantomData<fn() -> T>,
}

/// A VL buffer's queue.
pub type PacketFifo = Fifo<Packet>;

impl<T> Clone for Fifo<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Fifo<T> {}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo { head: NIL, tail: NIL, of: PhantomData }
    }
}

impl<T: Linked> Fifo<T> {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }

    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    #[inline]
    pub fn push_back(&mut self, records: &mut Arena<T>, id: u32) {
        records[id].set_next(NIL);
        if self.tail == NIL {
            self.head = id;
        } else {
            records[self.tail].set_next(id);
        }
        self.tail = id;
    }

    #[inline]
    pub fn pop_front(&mut self, records: &Arena<T>) -> Option<u32> {
        let id = self.front()?;
        self.head = records[id].next();
        if self.head == NIL {
            self.tail = NIL;
        }
        Some(id)
    }

    /// The records in order, oldest first.
    pub fn iter<'a>(&self, records: &'a Arena<T>) -> impl Iterator<Item = u32> + 'a {
        std::iter::successors(self.front(), move |&id| Some(records[id].next()).filter(|&n| n != NIL))
    }

    /// Records queued (walks the list: for audits, not the hot path).
    pub fn len(&self, records: &Arena<T>) -> usize {
        self.iter(records).count()
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
