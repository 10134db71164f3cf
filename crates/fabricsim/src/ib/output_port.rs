//! The sending side of an IBA port, shared by switch outputs and HCAs (the
//! OMNeT++ IB model builds both from the same VL arbiter and output
//! buffer): the credits it holds for the receiver's input VLs, the credits
//! the receiver has freed and it has not taken yet, its IBA VL arbiter, and
//! each VL's head blocks (what the next packet of the VL takes, kept by the
//! owner as heads change, so a pick reads no packet or message). A switch
//! output keeps its VL queues here too, beside each VL's credits.
//!
//! [`OutputPort::pick`] takes the credits due, then lets the arbiter choose
//! among the VLs with something waiting whose head has credit for all of
//! it; a port that finds none waits for credit, and its earliest held
//! credit comes back as its own event. [`OutputPort::sent`] charges the
//! packet that goes.

use super::credit_return::CreditReturn;
use super::vl::{PortCredits, VL15};
use super::vl_arbiter::VlArbiter;
use super::wire::Delivery;
use crate::kernel::Time;
use crate::sim::{Deferred, PortRef, Schedule};

/// A VL as an index into per-VL arrays (masking proves it in range).
#[inline]
pub fn lane(vl: u8) -> usize {
    (vl & 15) as usize
}

/// VLs per half: a half's queues, head blocks and credits fill one line.
const HALF: usize = 8;

/// Eight VLs (0-7 or 8-15): their queues (the owner's: a switch output's
/// packets per VL; nothing on an HCA), the credit blocks of each one's head
/// (the next packet to go) and the receiver's free blocks as this port
/// knows them. VL15 takes no credits: its slots hold 0 and 0, so its head
/// always fits. A fabric whose traffic keeps to VLs 0-7 or to VLs 8-15
/// (the study's best-effort VLs 8-14, and VL15) reads one half only.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Half<Q> {
    queues: [Q; HALF],
    head_blocks: [u16; HALF],
    credits: [u16; HALF],
}

impl<Q> Half<Q> {
    /// The VLs of this half whose head fits the free credits (a bit per
    /// VL): eight compares at once, fewer instructions than keeping a mask
    /// up to date as heads and credits change, and no field to keep.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn fits(&self) -> u16 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; each load reads the 16 bytes of
        // an [u16; 8] (unaligned loads need no alignment).
        unsafe {
            let heads = _mm_loadu_si128(self.head_blocks.as_ptr().cast());
            let credits = _mm_loadu_si128(self.credits.as_ptr().cast());
            // A head fits where it less its credits saturates to 0.
            let fit = _mm_cmpeq_epi16(_mm_subs_epu16(heads, credits), _mm_setzero_si128());
            (_mm_movemask_epi8(_mm_packs_epi16(fit, fit)) & 0xff) as u16
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn fits(&self) -> u16 {
        (0..HALF).fold(0, |m, i| m | ((self.head_blocks[i] <= self.credits[i]) as u16) << i)
    }
}

/// `vl`'s half and its slot there.
#[inline(always)]
fn at(vl: u8) -> (usize, usize) {
    debug_assert!(vl < 16, "VL {vl}");
    (((vl >> 3) & 1) as usize, (vl & 7) as usize)
}

/// `blocks` of data VL `vl`'s credits are back, in buffers of `capacity` blocks.
#[inline(always)]
fn restore<Q>(halves: &mut [Half<Q>; 2], vl: u8, blocks: u32, capacity: u16) {
    assert!(vl != VL15, "VL15 takes no credits");
    let (h, i) = at(vl);
    let c = &mut halves[h].credits[i];
    let n = *c as u32 + blocks;
    assert!(n <= capacity as u32, "VL credits would exceed the buffer: {n} of {capacity} blocks");
    *c = n as u16;
}

/// Read together by every pick (`repr(C)`; a port starts a line): the two
/// halves of per-VL state (a line each with a switch's queues, one line
/// for both on an HCA), then the held credits and the arbiter's turns in
/// one line. What no pick reads follows.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct OutputPort<Q: Copy + Default = ()> {
    halves: [Half<Q>; 2],
    returns: CreditReturn,
    arbiter: VlArbiter,
    /// Data VLs the port operates.
    data_vls: u8,
    /// A data VL buffer's blocks (every VL's, and the fabric's). The hot
    /// paths are given it by the owner, from the fabric's shared state, so
    /// that they read no line for it; this copy serves the checks and
    /// views, and debug builds assert the two agree.
    capacity: u16,
    /// This port, as the credits returned to it name it.
    me: PortRef,
}

impl<Q: Copy + Default> OutputPort<Q> {
    /// Where the lines of VLs 0-7, of VLs 8-15, and of the held credits
    /// with the arbiter's turns start (on an HCA, the first two are one line).
    pub const LINES: [usize; 3] = {
        let half = std::mem::size_of::<Half<Q>>();
        [0, half / 64 * 64, std::mem::offset_of!(Self, returns)]
    };

    pub fn new(me: PortRef, credits: PortCredits, arbiter: VlArbiter) -> Self {
        let (data_vls, capacity) = (credits.data_vls(), credits.capacity_blocks() as u16);
        // Every buffer is empty: each data VL has all its credits (a VL the port does not operate, none).
        let mut halves = [Half::default(); 2];
        for vl in 0..data_vls {
            let (h, i) = at(vl);
            halves[h].credits[i] = capacity;
        }
        OutputPort { halves, returns: CreditReturn::default(), arbiter, data_vls, capacity, me }
    }

    /// `vl`'s queue (the owner's).
    #[inline(always)]
    pub fn queue(&self, vl: u8) -> &Q {
        let (h, i) = at(vl);
        &self.halves[h].queues[i]
    }

    #[inline(always)]
    pub fn queue_mut(&mut self, vl: u8) -> &mut Q {
        let (h, i) = at(vl);
        &mut self.halves[h].queues[i]
    }

    /// Every VL's queue, VL 0 first.
    pub fn queues(&self) -> impl Iterator<Item = &Q> {
        self.halves.iter().flat_map(|h| &h.queues)
    }

    /// Credit blocks of `vl`'s head (the next packet to go; VL15: none).
    #[inline]
    pub fn head_blocks(&self, vl: u8) -> u16 {
        let (h, i) = at(vl);
        self.halves[h].head_blocks[i]
    }

    /// `vl`'s head (the next packet to go) takes `blocks` credit blocks
    /// (VL15's head takes none: it is not flow controlled).
    #[inline]
    pub fn set_head_blocks(&mut self, vl: u8, blocks: u16) {
        let (h, i) = at(vl);
        self.halves[h].head_blocks[i] = if vl == VL15 { 0 } else { blocks };
    }

    /// The receiver's free blocks of `vl` (VL15: 0, and its head takes none).
    #[inline(always)]
    fn credits(&self, vl: u8) -> u16 {
        let (h, i) = at(vl);
        self.halves[h].credits[i]
    }

    /// The VLs whose head has credit for all of it, among `waiting`. With
    /// one or two waiting (most picks), a compare each, reading the numbers
    /// as they were written: a wide read of what was just written in parts
    /// waits for the writes to reach the cache, which costs more than the
    /// compares. With more, eight compares at once per half some VL of
    /// `waiting` is in.
    #[inline(always)]
    fn fitting(&self, waiting: u16) -> u16 {
        let beyond_first = waiting & waiting.wrapping_sub(1);
        if beyond_first & beyond_first.wrapping_sub(1) == 0 {
            let (mut rest, mut fits) = (waiting, 0);
            while rest != 0 {
                let vl = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                fits |= ((self.head_blocks(vl) <= self.credits(vl)) as u16) << vl;
            }
            return fits;
        }
        let mut fits = 0;
        if waiting & 0xff != 0 {
            fits |= self.halves[0].fits();
        }
        if waiting >> 8 != 0 {
            fits |= self.halves[1].fits() << 8;
        }
        waiting & fits
    }

    /// Takes the credits due before the event being handled, then picks the
    /// VL to send among `waiting` (a bit per VL with a head) whose head has
    /// credit for all of it (VL buffers of `capacity` blocks). With none and
    /// something waiting, the port waits for credit: its earliest held
    /// credit is scheduled as its own event.
    #[inline]
    pub fn pick(&mut self, cx: &mut impl Schedule<Delivery>, waiting: u16, capacity: u16) -> Option<u8> {
        debug_assert_eq!(capacity, self.capacity);
        let halves = &mut self.halves;
        self.returns.take_due(cx.current_key(), |vl, blocks| restore(halves, vl, blocks, capacity));
        // The VLs with a head that has credit for all of it: the arbiter reads only this mask.
        let sendable = self.fitting(waiting);
        let picked = if sendable == 0 { None } else { self.arbiter.select_mask(sendable) };
        if let Some(h) = self.returns.set_waiting(picked.is_none() && waiting != 0) {
            h.key.schedule(cx, self.me.index, Delivery::credit(self.me, h.vl, h.blocks));
        }
        picked
    }

    /// The head of `vl`, `bytes` on the wire, goes now: its credits are
    /// taken and the arbiter charged. Returns its blocks; the owner then
    /// sets the VL's next head.
    #[inline(always)]
    pub fn sent(&mut self, vl: u8, bytes: u32) -> u16 {
        let (h, i) = at(vl);
        let half = &mut self.halves[h];
        let blocks = half.head_blocks[i];
        let a = &mut half.credits[i];
        assert!(blocks <= *a, "VL credits would go negative: {blocks} blocks wanted, {a} left");
        *a -= blocks;
        self.arbiter.on_sent(vl, bytes);
        blocks
    }

    /// Credits for `vl` are back from the receiver (VL buffers of `capacity` blocks).
    #[inline]
    pub fn on_credit(&mut self, vl: u8, blocks: u32, capacity: u16) {
        debug_assert_eq!(capacity, self.capacity);
        debug_assert!(vl < self.data_vls, "VL{vl} on a port of {} data VLs", self.data_vls);
        restore(&mut self.halves, vl, blocks, capacity);
    }

    /// Credit blocks the receiver's `vl` has free as this port knows now
    /// (Max-Credit path selection; VL15: unbounded).
    pub fn available_blocks(&self, vl: u8) -> u32 {
        if vl == VL15 {
            u32::MAX
        } else {
            self.credits(vl) as u32
        }
    }

    /// Whether credits for this port must travel as an event (it waits for them).
    #[inline]
    pub fn waiting_for_credit(&self) -> bool {
        self.returns.sender_waiting()
    }

    /// Holds credits the receiver freed, due at `key`, until the port next picks.
    #[inline]
    pub fn hold(&mut self, key: Deferred, vl: u8, blocks: u16) {
        self.returns.hold(key, vl, blocks);
    }

    /// Whether the head of `vl` lacks credit at `now`, counting held credits due by then.
    pub fn blocked_on_credit(&self, vl: u8, now: Time) -> bool {
        let available = self.available_blocks(vl).saturating_add(self.returns.due_blocks(vl, now));
        self.head_blocks(vl) as u32 > available
    }

    /// Blocks of data VL `vl` the receiver holds as this port sees it at
    /// `now` (credits held for it and due by then count as back).
    pub fn credits_used(&self, vl: u8, now: Time) -> u32 {
        self.used_blocks(vl) - self.returns.due_blocks(vl, now)
    }

    /// Every credit is back or held for this port (audit at drain).
    pub fn is_quiescent(&self) -> bool {
        (0..self.data_vls).all(|v| self.used_blocks(v) == self.returns.held_blocks(v))
    }

    /// Blocks of data VL `vl` the receiver holds as this port knows now.
    fn used_blocks(&self, vl: u8) -> u32 {
        (self.capacity - self.credits(vl)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::vl_arbiter::ArbEntry;
    use crate::kernel::{EventQueue, RandomStream};

    /// A pick and a send read two lines: a half's queues, head blocks and
    /// credits in the first (both halves, on an HCA: it keeps no queues
    /// here); the held credits and the arbiter's first 16 bytes in the
    /// second.
    #[test]
    fn a_pick_reads_two_lines() {
        use crate::ib::packet::Packet;
        use crate::ib::ring::Ring;
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!((size_of::<Half<Ring<Packet>>>(), size_of::<Half<()>>()), (64, 32));
        type Switch = OutputPort<Ring<Packet>>;
        assert_eq!((offset_of!(Switch, returns), offset_of!(Switch, arbiter) + 16), (128, 192));
        assert_eq!((Switch::LINES, OutputPort::<()>::LINES), ([0, 64, 128], [0, 0, 64]));
        assert_eq!((size_of::<Switch>(), align_of::<Switch>()), (256, 64));
        assert_eq!((offset_of!(OutputPort, returns), offset_of!(OutputPort, arbiter) + 16), (64, 128));
        assert_eq!((size_of::<OutputPort>(), align_of::<OutputPort>()), (192, 64));
    }

    /// Both ways of finding the VLs that fit (a compare per VL for one or
    /// two waiting, eight at once per half for more) agree with the
    /// definition, a head's blocks at most the VL's credits, for random
    /// heads, credits and waiting sets.
    #[test]
    fn the_vls_that_fit_are_those_whose_head_has_the_credits() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(26);
        let me = PortRef::new(ComponentKind::Hca, 0, 0);
        for _ in 0..2000 {
            let mut port: OutputPort = OutputPort::new(me, PortCredits::new(15, 64, 1).unwrap(), VlArbiter::paper());
            for vl in 0..16u8 {
                let (h, i) = at(vl);
                // Near the boundary and across the whole range of 16 bits.
                let credits: u16 = if rng.random() { rng.random_range(0..4) } else { rng.random() };
                port.halves[h].credits[i] = if vl == VL15 { 0 } else { credits };
                port.set_head_blocks(vl, if rng.random() { rng.random_range(0..4) } else { rng.random() });
            }
            let waiting: u16 = match rng.random_range(0..3) {
                0 => 1 << rng.random_range(0..16),
                1 => 1 << rng.random_range(0..16) | 1 << rng.random_range(0..16),
                _ => rng.random(),
            };
            let want = (0..16u8)
                .filter(|&vl| waiting & 1 << vl != 0 && port.head_blocks(vl) <= port.credits(vl))
                .fold(0u16, |m, vl| m | 1 << vl);
            assert_eq!(port.fitting(waiting), want, "waiting {waiting:#06x}");
        }
    }

    /// A seed-003 port (15 data VLs of 65 blocks; VL0 and VL1 in its
    /// arbitration tables), as an HCA's.
    fn paper_port() -> OutputPort {
        OutputPort::new(PortRef::new(ComponentKind::Hca, 0, 0), PortCredits::paper(), VlArbiter::paper())
    }

    /// Offers `vl`'s head of `blocks` alone; sends it if the port picks it
    /// and returns the blocks it took.
    fn offer(port: &mut OutputPort, vl: u8, blocks: u16) -> Option<u16> {
        let mut q: EventQueue<Ev> = EventQueue::new();
        port.set_head_blocks(vl, blocks);
        let picked = port.pick(&mut Context::new(0, &mut q), 1 << vl, 65)?;
        assert_eq!(picked, vl);
        Some(port.sent(vl, 100))
    }

    /// The IBA's rule: a head goes only if the receiver's VL has room for
    /// all of it. Seed 003's 4200-byte buffers are 65 blocks of 64 bytes,
    /// three full packets of 17 blocks; VL15 takes none.
    #[test]
    fn a_head_goes_only_with_credit_for_all_of_it() {
        let mut port = paper_port();
        for _ in 0..3 {
            assert_eq!(offer(&mut port, 0, 17), Some(17));
        }
        assert_eq!((port.available_blocks(0), port.available_blocks(1)), (14, 65));
        assert_eq!(offer(&mut port, 0, 15), None, "15 blocks of 14");
        assert_eq!(offer(&mut port, 0, 14), Some(14));
        port.on_credit(0, 17, 65);
        assert_eq!(offer(&mut port, 0, 17), Some(17));
        assert_eq!(port.credits_used(0, 0), 65);
        for _ in 0..1000 {
            assert_eq!(offer(&mut port, VL15, 5), Some(0));
        }
        assert_eq!(port.available_blocks(VL15), u32::MAX);
    }

    /// A send of more blocks than the receiver has free is the owner's bug.
    #[test]
    #[should_panic(expected = "negative")]
    fn credits_never_go_negative() {
        let mut port = paper_port();
        let mut q: EventQueue<Ev> = EventQueue::new();
        port.set_head_blocks(0, 17);
        assert_eq!(port.pick(&mut Context::new(0, &mut q), 1, 65), Some(0));
        port.set_head_blocks(0, 66);
        port.sent(0, 100);
    }

    #[test]
    #[should_panic(expected = "exceed")]
    fn credits_never_exceed_the_buffer() {
        let mut port = paper_port();
        offer(&mut port, 0, 17);
        port.on_credit(0, 18, 65);
    }

    /// Random heads offered and credits coming back on two VLs: a head goes
    /// exactly when its blocks are at most the free ones, and the blocks the
    /// receiver holds are those sent and not yet back.
    #[test]
    fn random_traffic_keeps_the_credits_within_the_buffer() {
        let mut rng = RandomStream::new(7, "output_port.test", 0);
        let mut port = paper_port();
        let mut in_flight: [Vec<u32>; 2] = Default::default();
        for _ in 0..100_000 {
            let vl = (rng.uniform() < 0.5) as u8;
            let sent = &mut in_flight[vl as usize];
            if rng.uniform() < 0.5 {
                let blocks = PortCredits::paper().blocks(26 + (rng.uniform() * 1025.0) as u32) as u16;
                let fits = blocks as u32 <= port.available_blocks(vl);
                assert_eq!(offer(&mut port, vl, blocks), fits.then_some(blocks));
                sent.extend(fits.then_some(blocks as u32));
            } else if let Some(b) = sent.pop() {
                port.on_credit(vl, b, 65);
            }
            assert_eq!(port.credits_used(vl, 0), sent.iter().sum::<u32>());
        }
    }

    /// VL15's head takes no credits, whatever the owner says, so it always
    /// fits; a VL of either half is read from its own half.
    #[test]
    fn vl15_always_fits_and_each_half_answers_for_its_vls() {
        let me = PortRef::new(ComponentKind::Hca, 0, 0);
        let arbiter = VlArbiter::new(&[], &[ArbEntry::new(9, 64), ArbEntry::new(10, 64)], 255, 15).unwrap();
        let mut port: OutputPort = OutputPort::new(me, PortCredits::new(15, 128, 64).unwrap(), arbiter);
        port.set_head_blocks(VL15, 9);
        assert_eq!(port.head_blocks(VL15), 0);
        for vl in [3, 9] {
            port.set_head_blocks(vl, 3);
        }
        port.set_head_blocks(10, 2);
        assert_eq!(port.fitting(0xffff), !(1 << 3 | 1 << 9), "3 blocks of 2 do not fit");
        let mut q: EventQueue<Ev> = EventQueue::new();
        let mut cx = Context::new(0, &mut q);
        assert_eq!(port.pick(&mut cx, 1 << 10 | 1 << 9, 2), Some(10));
        assert_eq!(port.sent(10, 100), 2);
        assert_eq!((port.available_blocks(10), port.available_blocks(VL15)), (0, u32::MAX));
        assert_eq!(port.fitting(1 << 10), 0);
        port.on_credit(10, 2, 2);
        assert_eq!(port.fitting(1 << 10), 1 << 10);
    }
    use crate::sim::{Carries, ComponentKind, Context};

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Ev {
        Tick,
        Port(u32, Delivery),
    }

    impl Carries<Delivery> for Ev {
        fn wrap(index: u32, ev: Delivery) -> Self {
            Ev::Port(index, ev)
        }
    }

    /// Two VLs of 2-block buffers: a VL whose head needs more credit than
    /// the buffer is passed over. Credits freed while the port is busy are
    /// held without an event; when the port then finds nothing it can send,
    /// the held credit becomes its own event under the key reserved when it
    /// was freed.
    #[test]
    fn a_pick_needs_credit_for_the_whole_head_and_a_waiting_port_gets_held_credit_as_its_own_event() {
        let me = PortRef::new(ComponentKind::Hca, 4, 0);
        let mut port: OutputPort = OutputPort::new(me, PortCredits::new(2, 128, 64).unwrap(), VlArbiter::paper());
        let mut q: EventQueue<Ev> = EventQueue::new();
        port.set_head_blocks(0, 2);
        port.set_head_blocks(1, 3);
        let mut cx = Context::new(0, &mut q);
        assert_eq!(port.pick(&mut cx, 0b11, 2), Some(0), "VL1's head needs 3 blocks of 2");
        assert_eq!(port.sent(0, 100), 2);
        // The receiver frees the packet's 2 blocks; they reach the port at 50.
        let key = Deferred::reserve(&mut cx, 50);
        assert!(!port.waiting_for_credit(), "a port that just sent is not waiting");
        port.hold(key, 0, 2);
        cx.schedule(10, Ev::Tick);
        assert_eq!(q.pop_until(Time::MAX), Some((10, Ev::Tick)));
        port.set_head_blocks(0, 1);
        assert!(port.blocked_on_credit(0, 10) && !port.blocked_on_credit(0, 50), "held credit counts once due");
        assert_eq!((port.credits_used(0, 10), port.credits_used(0, 50)), (2, 0));
        let mut cx = Context::new(10, &mut q);
        assert_eq!(port.pick(&mut cx, 0b01, 2), None, "the credit is not due at 10");
        assert!(port.waiting_for_credit());
        let credit = Ev::Port(4, Delivery::Credit { kind: ComponentKind::Hca, port: 0, vl: 0, blocks: 2 });
        assert_eq!(q.pop_until(Time::MAX), Some((50, credit)));
        port.on_credit(0, 2, 2);
        assert!(port.is_quiescent());
        let mut cx = Context::new(50, &mut q);
        assert_eq!(port.pick(&mut cx, 0b01, 2), Some(0));
        assert!(!port.waiting_for_credit());
    }
}
