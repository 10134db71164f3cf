//! A calendar queue: the future-event set of a model whose events are dense
//! in time and mostly scheduled a short, bounded time ahead (the InfiniBand
//! fabric: every packet hop schedules events a header, a pipeline or a
//! packet time later).
//!
//! Near-future events sit in a ring of buckets, each `2^shift` ps wide and
//! kept sorted by key as a linked list in one node pool; a bit per bucket
//! finds the next non-empty one with a few word scans. An event beyond the
//! ring's span when scheduled (a source's next arrival) waits in a binary
//! heap; each pop takes the earlier of the two heads, so nothing migrates.
//! The order is the binary heap's exactly, (time, insertion sequence), so a
//! model gives the same run with either. Against the heap it takes 10%
//! fewer instructions in the InfiniBand event loop on seed 003's network and
//! 14% fewer on a 256-HCA fat tree, where about a thousand events are
//! pending; on the Fibre Channel fabrics, with buckets of 1/128 of a data
//! frame's time, 15% fewer on the 16-port switch and the 64-node envelope.
//! With the InfiniBand buckets it took 24% to 85% more on the loop,
//! switched-loop and TCP models, whose events are sparse in time, so those
//! keep the heap.
//! With `LANE`, an event scheduled for the current time (a zero-length
//! fibre, a credit handed back at once) follows every pending event of that
//! time, so it waits in a FIFO lane instead of a bucket; a pop takes the
//! earliest of the lane's head, the ring's and the far set's. On the 16-port
//! Fibre Channel switch, where 6 of the 15 events per data frame were such,
//! this took 5% fewer instructions per data frame, and writing the lane's
//! pushes in place 2% fewer again. (The FC fabric now runs a frame's
//! same-instant head and tail deliveries within the event that sends them,
//! `fc/follow_on.rs`; its lane keeps the rest: credits over a fibre of no
//! length, class 1 teardowns.) The InfiniBand fabric schedules nothing
//! for the current time (none of a million pushes on any of its bench rows),
//! so it goes without the lane and its checks on every push and pop: 2.6%
//! fewer instructions on `ib-irregular`, 2.9% on `ib-fat-tree`.
//! Node slots are reused through a free list: steady-state scheduling never
//! allocates.

use super::event_queue::EventQueue;
use super::event_set::{key, key_time, EventSet};
use super::time::Time;

const NIL: u32 = u32::MAX;

/// A bucket's list: its first and last node (`NIL`: empty).
#[derive(Clone, Copy, Debug)]
struct Ends {
    head: u32,
    tail: u32,
}

/// Buckets in the ring unless told: 4096 span 67 us at the InfiniBand
/// model's 16.4 ns on 1x links.
pub const RING_BITS: u32 = 12;

/// Buckets in the ring at most: 2^16, 512 KB of list ends, within an L2.
/// On the InfiniBand 8-ary 4-tree (2^18 buckets of 128 ps otherwise)
/// cachegrind counted 12% fewer misses at a 16 MB last level with the cap,
/// for 0.5% more instructions.
pub const MAX_RING_BITS: u32 = 16;

/// An event in a bucket's list; `next` links the list (or the free list).
#[derive(Clone, Copy)]
struct Node<E> {
    key: u128,
    event: E,
    next: u32,
}

/// Where the earliest event is.
#[derive(Clone, Copy)]
enum Earliest {
    Bucket(usize),
    Far,
    Now,
}

/// `LANE`: events for the current time wait in a FIFO lane, their pushes
/// written in place at the caller, and the rest call into the ring (the
/// Fibre Channel fabric's zero-length fibres). Without it every push is one
/// call into the ring (the InfiniBand fabric).
pub struct CalendarQueue<E, const LANE: bool = false> {
    /// First and last node of each bucket's list (sorted by key), side by
    /// side: an insert or a pop reads both from one cache line.
    ends: Vec<Ends>,
    /// Non-empty buckets, one bit each.
    occupied: Vec<u64>,
    nodes: Vec<Node<E>>,
    free: u32,
    shift: u32,
    mask: u64,
    /// Absolute bucket (time >> shift) of the event popped last: the ring
    /// holds buckets `cursor ..= cursor + mask`.
    cursor: u64,
    near: usize,
    far: EventQueue<E>,
    /// Key of the far set's earliest event (`u128::MAX`: none), so a pop
    /// need not look into the heap.
    far_next: u128,
    /// With `LANE`: events scheduled for `now` while it is the current
    /// time, by sequence number (in order); those before `lane_head` are taken.
    lane: Vec<(u64, E)>,
    lane_head: usize,
    now: Time,
    next_seq: u64,
    current: u128,
    far_pushes: u64,
}

impl<E: Copy, const LANE: bool> CalendarQueue<E, LANE> {
    /// A queue whose buckets are `2^shift` ps wide, with room for `capacity`
    /// near-future events before its pool grows.
    pub fn new(capacity: usize, shift: u32) -> Self {
        Self::with_ring(capacity, shift, RING_BITS)
    }

    /// A queue of `2^ring_bits` buckets `2^shift` ps wide: its ring spans
    /// `2^(shift + ring_bits)` ps, beyond which events wait in the heap.
    pub fn with_ring(capacity: usize, shift: u32, ring_bits: u32) -> Self {
        assert!((6..=24).contains(&ring_bits), "a ring of 2^{ring_bits} buckets");
        assert!(shift < 64 - ring_bits, "bucket width 2^{shift} ps");
        let n = 1usize << ring_bits;
        CalendarQueue {
            ends: vec![Ends { head: NIL, tail: NIL }; n],
            occupied: vec![0; n / 64],
            nodes: Vec::with_capacity(capacity),
            free: NIL,
            shift,
            mask: n as u64 - 1,
            cursor: 0,
            near: 0,
            far: EventQueue::with_capacity(1024),
            far_next: u128::MAX,
            lane: Vec::with_capacity(64),
            lane_head: 0,
            now: 0,
            next_seq: 0,
            current: 0,
            far_pushes: 0,
        }
    }

    /// The bucket width shift that puts about `per_bucket` ps in a bucket:
    /// the largest power of two not above it.
    pub fn shift_for(per_bucket: Time) -> u32 {
        per_bucket.max(1).ilog2()
    }

    /// A ring that spans at least `span` ps with buckets of `2^shift` ps,
    /// as (bucket shift, ring bits): the fewest ring bits that do (at least
    /// [`RING_BITS`]), but at most [`MAX_RING_BITS`]; past that the buckets
    /// widen instead.
    pub fn ring_for(shift: u32, span: Time) -> (u32, u32) {
        let buckets = (span >> shift).max(1);
        let bits = buckets.next_power_of_two().ilog2().max(RING_BITS);
        if bits > MAX_RING_BITS {
            (shift + bits - MAX_RING_BITS, MAX_RING_BITS)
        } else {
            (shift, bits)
        }
    }

    /// The time the ring spans, in ps: events scheduled further ahead go to the heap.
    pub fn span(&self) -> Time {
        (self.mask + 1) << self.shift
    }

    /// Events pushed to the heap so far, for being beyond the ring's span when scheduled.
    pub fn far_pushes(&self) -> u64 {
        self.far_pushes
    }

    #[inline(always)]
    fn insert(&mut self, key: u128, event: E) {
        debug_assert!(key_time(key) >> self.shift >= self.cursor, "an event scheduled in the past");
        let bucket = key_time(key) >> self.shift;
        if bucket - self.cursor > self.mask {
            self.far.push_keyed(key, event);
            self.far_next = self.far_next.min(key);
            self.far_pushes += 1;
            return;
        }
        let node = Node { key, event, next: NIL };
        let id = if self.free != NIL {
            let id = self.free;
            self.free = self.nodes[id as usize].next;
            self.nodes[id as usize] = node;
            id
        } else {
            assert!(self.nodes.len() < NIL as usize, "more than 2^32 pending events");
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        self.near += 1;
        let b = (bucket & self.mask) as usize;
        let tail = self.ends[b].tail;
        if tail == NIL {
            self.ends[b].head = id;
            self.ends[b].tail = id;
            self.occupied[b / 64] |= 1 << (b % 64);
        } else if self.nodes[tail as usize].key < key {
            // The usual case: the newest key of its bucket goes last.
            self.nodes[tail as usize].next = id;
            self.ends[b].tail = id;
        } else {
            let head = self.ends[b].head;
            if key < self.nodes[head as usize].key {
                self.nodes[id as usize].next = head;
                self.ends[b].head = id;
            } else {
                let mut at = head;
                loop {
                    let next = self.nodes[at as usize].next;
                    if key < self.nodes[next as usize].key {
                        self.nodes[id as usize].next = next;
                        self.nodes[at as usize].next = id;
                        break;
                    }
                    at = next;
                }
            }
        }
    }

    #[inline(never)]
    fn insert_later(&mut self, key: u128, event: E) {
        self.insert(key, event);
    }

    /// The earliest event's key and where it is.
    #[inline]
    fn earliest(&self) -> Option<(u128, Earliest)> {
        if !LANE {
            return self.ring_earliest();
        }
        let Some(&(seq, _)) = self.lane.get(self.lane_head) else { return self.ring_earliest() };
        let lane = key(self.now, seq);
        // Every pending event is at `now` or later: one earlier than the
        // lane's head heads the current bucket or the far set.
        let b = (self.cursor & self.mask) as usize;
        let head = self.ends[b].head;
        if head != NIL && self.nodes[head as usize].key < lane {
            Some((self.nodes[head as usize].key, Earliest::Bucket(b)))
        } else if self.far_next < lane {
            Some((self.far_next, Earliest::Far))
        } else {
            Some((lane, Earliest::Now))
        }
    }

    /// The earliest event of the ring and the far set.
    #[inline(always)]
    fn ring_earliest(&self) -> Option<(u128, Earliest)> {
        let far = self.far_next;
        if self.near == 0 {
            return (far != u128::MAX).then_some((far, Earliest::Far));
        }
        // The first occupied bucket at or after the cursor, wrapping.
        let start = (self.cursor & self.mask) as usize;
        let words = self.occupied.len();
        let (w0, bit0) = (start / 64, start % 64);
        let first = self.occupied[w0] & (!0u64 << bit0);
        let b = if first != 0 {
            w0 * 64 + first.trailing_zeros() as usize
        } else {
            (1..=words)
                .map(|k| (w0 + k) % words)
                .find(|&w| self.occupied[w] != 0)
                .map(|w| w * 64 + self.occupied[w].trailing_zeros() as usize)
                .expect("a non-empty ring has an occupied bucket")
        };
        let near = self.nodes[self.ends[b].head as usize].key;
        if far < near {
            Some((far, Earliest::Far))
        } else {
            Some((near, Earliest::Bucket(b)))
        }
    }

    #[inline]
    fn take(&mut self, key: u128, at: Earliest) -> (Time, E) {
        let event = match at {
            Earliest::Far => {
                let (_, event) = self.far.pop().expect("the far set holds the earliest event");
                self.far_next = self.far.peek_key().unwrap_or(u128::MAX);
                event
            }
            Earliest::Bucket(b) => {
                let id = self.ends[b].head;
                let node = self.nodes[id as usize];
                self.ends[b].head = node.next;
                if node.next == NIL {
                    self.ends[b].tail = NIL;
                    self.occupied[b / 64] &= !(1 << (b % 64));
                }
                self.nodes[id as usize].next = self.free;
                self.free = id;
                self.near -= 1;
                node.event
            }
            Earliest::Now => {
                let event = self.lane[self.lane_head].1;
                self.lane_head += 1;
                if self.lane_head == self.lane.len() {
                    self.lane.clear();
                    self.lane_head = 0;
                }
                event
            }
        };
        self.current = key;
        if LANE {
            self.now = key_time(key);
        }
        // Every pending event is at or after this one: the ring moves up to it.
        self.cursor = key_time(key) >> self.shift;
        (key_time(key), event)
    }

    /// Removes and returns the earliest event with its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let (k, at) = self.earliest()?;
        Some(self.take(k, at))
    }
}

impl<E: Copy, const LANE: bool> EventSet<E> for CalendarQueue<E, LANE> {
    #[inline(always)]
    fn push(&mut self, time: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if LANE && time == self.now {
            // After every pending event of this time, so in push order.
            self.lane.push((seq, event));
        } else {
            self.insert_later(key(time, seq), event);
        }
    }

    #[inline]
    fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        match self.earliest() {
            Some((k, at)) if key_time(k) <= limit => Some(self.take(k, at)),
            _ => None,
        }
    }

    #[inline]
    fn peek_time(&self) -> Option<Time> {
        self.earliest().map(|(k, _)| key_time(k))
    }

    #[inline]
    fn len(&self) -> usize {
        self.near + self.far.len() + self.lane.len() - self.lane_head
    }

    fn memory_bytes(&self) -> u64 {
        (self.nodes.capacity() * std::mem::size_of::<Node<E>>()
            + self.ends.len() * std::mem::size_of::<Ends>()
            + self.occupied.len() * 8
            + self.lane.capacity() * std::mem::size_of::<(u64, E)>()) as u64
            + self.far.memory_bytes()
    }

    fn scheduled(&self) -> u64 {
        self.next_seq
    }

    #[inline]
    fn reserve_key(&mut self, time: Time) -> u128 {
        let k = key(time, self.next_seq);
        self.next_seq += 1;
        k
    }

    #[inline]
    fn push_keyed(&mut self, key: u128, event: E) {
        debug_assert!(key > self.current, "a reserved key pushed after its time");
        self.insert(key, event);
    }

    #[inline]
    fn current_key(&self) -> u128 {
        self.current
    }

    /// The ring's earliest event (not the lane's or the far set's): one
    /// more search of the ring, which a model that looks ahead pays for.
    #[inline(always)]
    fn peek_event(&self) -> Option<&E> {
        if LANE {
            return None;
        }
        match self.ring_earliest()? {
            (_, Earliest::Bucket(b)) => Some(&self.nodes[self.ends[b].head as usize].event),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny xorshift generator, so the test needs nothing else.
    fn rng(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Holds against a sorted reference, with delays from `delay`: every
    /// pop must give the reference's earliest (time, sequence), and a look
    /// ahead (`peek_event`) that names an event names it.
    fn check_against_reference<const LANE: bool>(shift: u32, mut delay: impl FnMut() -> u64) {
        let mut q = CalendarQueue::<u32, LANE>::new(16, shift);
        let mut reference: std::collections::BTreeSet<(u64, u64, u32)> = Default::default();
        let mut seq = 0u64;
        for i in 0..300u32 {
            let t = delay();
            q.push(t, i);
            reference.insert((t, seq, i));
            seq += 1;
        }
        let mut now = 0;
        let mut seen = 0;
        for step in 0..20_000u32 {
            let (t, _, e) = reference.pop_first().unwrap();
            if let Some(&next) = q.peek_event() {
                assert_eq!(next, e, "step {step}");
                seen += 1;
            }
            assert_eq!(q.pop(), Some((t, e)), "step {step}");
            assert!(t >= now);
            now = t;
            // Sometimes two events, sometimes none, so the count wanders.
            for _ in 0..(step % 3) {
                let nt = now + delay();
                q.push(nt, seq as u32);
                reference.insert((nt, seq, seq as u32));
                seq += 1;
            }
            if q.len() == 0 {
                break;
            }
            assert_eq!(q.len(), reference.len());
        }
        // Without the lane the ring's events are seen ahead (with it, none).
        assert_eq!(seen > 0, !LANE);
    }

    #[test]
    fn matches_a_sorted_reference_near_far_and_simultaneous() {
        fn both<const LANE: bool>() {
            // Buckets of 16 ps, ring of 64 ns: delays from 0 (same time) to far beyond the ring.
            let mut r = rng(0x9E37_79B9_7F4A_7C15);
            check_against_reference::<LANE>(4, move || match r() % 4 {
                0 => 0,
                1 => r() % 16,
                2 => r() % 70_000,
                _ => r() % 10_000_000,
            });
            // Everything in one bucket: sorted insertion does all the work.
            let mut r = rng(7);
            check_against_reference::<LANE>(40, move || r() % 1000);
        }
        both::<false>();
        both::<true>();
    }

    #[test]
    fn gives_the_binary_heaps_order_with_reserved_keys() {
        let mut cal = CalendarQueue::<_>::new(4, 3);
        let mut heap = EventQueue::new();
        let mut r = rng(42);
        let mut held: Vec<(u128, u32)> = Vec::new();
        for i in 0..50u32 {
            let t = r() % 500;
            EventSet::push(&mut cal, t, i);
            heap.push(t, i);
        }
        for step in 0..5000u32 {
            // Reserved keys pushed late may be the earliest: the look ahead sees them too.
            let next = cal.peek_event().copied();
            let a = cal.pop();
            assert_eq!(a, heap.pop());
            if next.is_some() {
                assert_eq!(next, a.map(|(_, e)| e));
            }
            let Some((now, _)) = a else { break };
            assert_eq!(cal.current_key(), heap.current_key());
            // Reserve a key now; push it some steps later if still ahead.
            let t = now + r() % 300;
            let (kc, kh) = (cal.reserve_key(t), heap.reserve_key(t));
            assert_eq!(kc, kh);
            held.push((kc, step));
            held.retain(|&(k, e)| {
                if k > cal.current_key() && r().is_multiple_of(4) {
                    cal.push_keyed(k, e);
                    heap.push_keyed(k, e);
                    false
                } else {
                    k > cal.current_key()
                }
            });
            if step.is_multiple_of(2) {
                let t = now + r() % 2000;
                EventSet::push(&mut cal, t, step);
                heap.push(t, step);
            }
        }
    }

    #[test]
    fn events_for_the_current_time_follow_its_pending_events_and_reserved_keys() {
        let mut cal = CalendarQueue::<_>::new(4, 3);
        let mut heap = EventQueue::new();
        for (t, e) in [(10, 'a'), (10, 'b'), (12, 'z')] {
            EventSet::push(&mut cal, t, e);
            heap.push(t, e);
        }
        let (kc, kh) = (cal.reserve_key(10), heap.reserve_key(10));
        assert_eq!(cal.pop(), heap.pop());
        // At time 10: 'c' and 'd' take the lane, the reserved 'r' goes before them.
        EventSet::push(&mut cal, 10, 'c');
        heap.push(10, 'c');
        cal.push_keyed(kc, 'r');
        heap.push_keyed(kh, 'r');
        EventSet::push(&mut cal, 10, 'd');
        heap.push(10, 'd');
        assert_eq!(cal.len(), 5);
        let order: Vec<_> = std::iter::from_fn(|| cal.pop()).collect();
        assert_eq!(order, vec![(10, 'b'), (10, 'r'), (10, 'c'), (10, 'd'), (12, 'z')]);
        assert_eq!(order, std::iter::from_fn(|| heap.pop()).collect::<Vec<_>>());
    }

    #[test]
    fn pop_until_leaves_later_events_and_an_empty_queue_pops_none() {
        let mut q = CalendarQueue::<_>::new(4, 10);
        assert_eq!(q.pop(), None);
        q.push(5, 'a');
        q.push(1 << 40, 'b');
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.pop_until(5), Some((5, 'a')));
        assert_eq!(q.peek_time(), Some(1 << 40));
        assert_eq!(q.pop_until(1 << 39), None);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop(), Some((1 << 40, 'b')));
        assert!(q.is_empty());
    }

    /// The ring grows to span what it is asked to, up to its cap; past the
    /// cap its buckets widen so that it still spans it.
    #[test]
    fn a_ring_spans_what_it_is_asked_to_within_its_cap() {
        assert_eq!(CalendarQueue::<u32>::ring_for(10, 1 << 15), (10, RING_BITS), "at least the default ring");
        assert_eq!(CalendarQueue::<u32>::ring_for(10, 3 << 22), (10, 14));
        assert_eq!(CalendarQueue::<u32>::ring_for(7, 66_000_000), (10, MAX_RING_BITS), "2^19 buckets asked");
        for (shift, span) in [(3, 1u64 << 40), (7, 66_000_000), (14, 1 << 20)] {
            let (s, bits) = CalendarQueue::<u32>::ring_for(shift, span);
            assert!(bits <= MAX_RING_BITS && s >= shift && (1u64 << (s + bits)) >= span);
        }
    }
}
