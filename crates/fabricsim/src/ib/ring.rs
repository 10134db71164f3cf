//! A FIFO of arena records kept as a circular list through their own
//! `next` field: the owner holds only the tail (4 bytes), whose `next` is
//! the head, and the queue has no memory of its own. A switch's VL buffers
//! queue packets this way: a packet is in at most one queue at a time (it
//! leaves its input VL as its crossbar transfer starts, the moment it
//! joins its output VL), so one link field serves every queue it passes
//! through. An HCA's send queues hold messages the same way.
//!
//! Sixteen queues fill one cache line (a head and a tail would take two),
//! and a queue of one record (the usual one on a fabric that is not
//! congested) finds its head in the record it holds. Finding the head of a
//! longer queue reads its tail's record too.

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

/// Packets and messages carry their link in a `next` field.
macro_rules! linked_through_next {
    ($($record:ty),*) => {$(
        impl Linked for $record {
            #[inline]
            fn next(&self) -> u32 {
                self.next
            }
            #[inline]
            fn set_next(&mut self, next: u32) {
                self.next = next;
            }
        }
    )*};
}

linked_through_next!(Packet, Message);

#[derive(Debug, PartialEq, Eq)]
pub struct Ring<T> {
    tail: u32,
    of: PhantomData<fn() -> T>,
}

impl<T> Clone for Ring<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Ring<T> {}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { tail: NIL, of: PhantomData }
    }
}

impl<T: Linked> Ring<T> {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.tail == NIL
    }

    /// The oldest record.
    #[inline]
    pub fn front(&self, records: &Arena<T>) -> Option<u32> {
        (self.tail != NIL).then(|| records[self.tail].next())
    }

    #[inline]
    pub fn push_back(&mut self, records: &mut Arena<T>, id: u32) {
        if self.tail == NIL {
            records[id].set_next(id);
        } else {
            let head = records[self.tail].next();
            records[id].set_next(head);
            records[self.tail].set_next(id);
        }
        self.tail = id;
    }

    #[inline]
    pub fn pop_front(&mut self, records: &mut Arena<T>) -> Option<u32> {
        if self.tail == NIL {
            return None;
        }
        let head = records[self.tail].next();
        if head == self.tail {
            self.tail = NIL;
        } else {
            let second = records[head].next();
            records[self.tail].set_next(second);
        }
        Some(head)
    }

    /// The records in order, oldest first.
    pub fn iter<'a>(&self, records: &'a Arena<T>) -> impl Iterator<Item = u32> + 'a {
        let tail = self.tail;
        std::iter::successors(self.front(records), move |&id| (id != tail).then(|| records[id].next()))
    }

    /// Records queued (walks the list: for audits, not the hot path).
    pub fn len(&self, records: &Arena<T>) -> usize {
        self.iter(records).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::Packet;

    #[test]
    fn keeps_arrival_order_across_interleaved_queues() {
        let mut packets: Arena<Packet> = Arena::with_capacity(8);
        let ids: Vec<u32> = (0..6).map(|b| packets.insert(Packet { bytes: b, ..Packet::default() })).collect();
        let (mut a, mut b) = (Ring::<Packet>::default(), Ring::<Packet>::default());
        assert!(a.is_empty() && a.pop_front(&mut packets).is_none() && a.front(&packets).is_none());
        for &id in &ids {
            if id % 2 == 0 {
                a.push_back(&mut packets, id);
            } else {
                b.push_back(&mut packets, id);
            }
        }
        assert_eq!(a.iter(&packets).collect::<Vec<_>>(), vec![ids[0], ids[2], ids[4]]);
        assert_eq!(b.len(&packets), 3);
        // A record popped from one queue joins the other at its tail.
        let moved = a.pop_front(&mut packets).unwrap();
        b.push_back(&mut packets, moved);
        assert_eq!(b.iter(&packets).collect::<Vec<_>>(), vec![ids[1], ids[3], ids[5], ids[0]]);
        assert_eq!(a.front(&packets), Some(ids[2]));
        // Down to one record, to none, and one again.
        assert_eq!(a.pop_front(&mut packets), Some(ids[2]));
        assert_eq!(a.iter(&packets).collect::<Vec<_>>(), vec![ids[4]]);
        assert_eq!(a.pop_front(&mut packets), Some(ids[4]));
        assert!(a.is_empty() && a.pop_front(&mut packets).is_none());
        a.push_back(&mut packets, ids[2]);
        assert_eq!((a.front(&packets), a.len(&packets)), (Some(ids[2]), 1));
        while b.pop_front(&mut packets).is_some() {}
        assert!(b.is_empty() && b.iter(&packets).next().is_none());
    }

    #[test]
    fn sixteen_queues_fill_one_line() {
        assert_eq!(std::mem::size_of::<[Ring<Packet>; 16]>(), 64);
    }
}
