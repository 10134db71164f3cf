//! The sending side of an IBA port, shared by switch outputs and HCAs (the
//! OMNeT++ IB model builds both from the same VL arbiter and output
//! buffer): the credits it holds for the receiver's input VLs, the credits
//! the receiver has freed and it has not taken yet, its IBA VL arbiter, and
//! each VL's head blocks (what the next packet of the VL takes, kept by the
//! owner as heads change, so a pick reads no packet or message).
//!
//! [`OutputPort::pick`] takes the credits due, then lets the arbiter choose
//! among the VLs with something waiting whose head has credit for all of
//! it; a port that finds none waits for credit, and its earliest held
//! credit comes back as its own event. [`OutputPort::sent`] charges the
//! packet that goes.

use super::credit_return::CreditReturn;
use super::vl::{CreditCounters, PortCredits, VL15};
use super::vl_arbiter::VlArbiter;
use super::wire::Delivery;
use crate::kernel::Time;
use crate::sim::{PortRef, Schedule};

/// A VL as an index into per-VL arrays (masking proves it in range).
#[inline]
pub fn lane(vl: u8) -> usize {
    (vl & 15) as usize
}

/// Data VLs' slots (VL15 takes no credits, so it has none).
const DATA: usize = 15;

/// Read together by every pick, in two cache lines (`repr(C)`; a port
/// starts a line): its VLs' head blocks, the sendable mask and the credit
/// counters; then the held credits and the arbiter's turns. What no pick
/// reads follows.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct OutputPort {
    /// Per data VL: credit blocks of its head (the next packet to go; VL15
    /// takes none).
    head_blocks: [u16; DATA],
    /// The VLs whose head blocks fit the receiver's free credits (a bit per
    /// VL, VL15 always), kept as heads and credits change, so a pick finds
    /// the sendable VLs with one mask instead of a credit check per VL.
    fits: u16,
    /// The receiver's free blocks per data VL, as this port knows them.
    credits: CreditCounters,
    returns: CreditReturn,
    arbiter: VlArbiter,
    /// Data VLs the port operates.
    data_vls: u8,
    /// This port, as the credits returned to it name it.
    me: PortRef,
}

impl OutputPort {
    pub fn new(me: PortRef, credits: PortCredits, arbiter: VlArbiter) -> Self {
        let data_vls = credits.data_vls();
        // No head needs any credit yet: every data VL (and VL15) fits.
        let fits = (((1u32 << data_vls) - 1) as u16) | 1 << VL15;
        OutputPort {
            head_blocks: [0; DATA],
            fits,
            credits: credits.counters(),
            returns: CreditReturn::default(),
            arbiter,
            data_vls,
            me,
        }
    }

    /// Credit blocks of `vl`'s head (the next packet to go; VL15: none).
    #[inline]
    pub fn head_blocks(&self, vl: u8) -> u16 {
        self.head_blocks.get(vl as usize).copied().unwrap_or(0)
    }

    /// `vl`'s head (the next packet to go) takes `blocks` credit blocks.
    #[inline]
    pub fn set_head_blocks(&mut self, vl: u8, blocks: u16) {
        if let Some(b) = self.head_blocks.get_mut(vl as usize) {
            *b = blocks;
            self.refit(vl);
        }
    }

    /// `fits` with `vl`'s bit set again from its head blocks and its credits.
    #[inline(always)]
    fn refit(&mut self, vl: u8) {
        let ok = self.credits.fits(vl, self.head_blocks(vl));
        self.fits = (self.fits & !(1 << vl)) | (ok as u16) << vl;
    }

    /// Takes the credits due before the event being handled, then picks the
    /// VL to send among `waiting` (a bit per VL with a head) whose head has
    /// credit for all of it. With none and something waiting, the port
    /// waits for credit: its earliest held credit is scheduled as its own event.
    #[inline]
    pub fn pick(&mut self, cx: &mut impl Schedule<Delivery>, waiting: u16) -> Option<u8> {
        let credits = &mut self.credits;
        let mut restored = 0u16;
        self.returns.take_due(cx.current_key(), |vl, blocks| {
            credits.restore(vl, blocks);
            restored |= 1 << vl;
        });
        while restored != 0 {
            let vl = restored.trailing_zeros() as u8;
            restored &= restored - 1;
            self.refit(vl);
        }
        // The VLs with a head that has credit for all of it: the arbiter reads only this mask.
        let sendable = waiting & self.fits;
        debug_assert!(
            (0..16u8)
                .all(|vl| waiting & 1 << vl == 0
                    || (sendable & 1 << vl != 0) == self.credits.fits(vl, self.head_blocks(vl))),
            "the fits mask is out of date"
        );
        let picked = if sendable == 0 { None } else { self.arbiter.select_mask(sendable) };
        if let Some(h) = self.returns.set_waiting(picked.is_none() && waiting != 0) {
            cx.push_keyed(h.key, self.me.index, Delivery::credit(self.me, h.vl, h.blocks));
        }
        picked
    }

    /// The head of `vl`, `bytes` on the wire, goes now: its credits are
    /// taken and the arbiter charged. Returns its blocks; the owner then
    /// sets the VL's next head.
    #[inline(always)]
    pub fn sent(&mut self, vl: u8, bytes: u32) -> u16 {
        let blocks = self.head_blocks(vl);
        self.credits.take(vl, blocks);
        // `vl`'s bit in `fits` is stale until the owner sets its next head,
        // which it does before the VL is offered again.
        self.arbiter.on_sent(vl, bytes);
        blocks
    }

    /// Credits for `vl` are back from the receiver.
    #[inline]
    pub fn on_credit(&mut self, vl: u8, blocks: u32) {
        self.credits.restore(vl, blocks);
        self.refit(vl);
    }

    /// Credit blocks the receiver's `vl` has free as this port knows now
    /// (Max-Credit path selection).
    pub fn available_blocks(&self, vl: u8) -> u32 {
        self.credits.available_blocks(vl)
    }

    /// Whether credits for this port must travel as an event (it waits for them).
    #[inline]
    pub fn waiting_for_credit(&self) -> bool {
        self.returns.sender_waiting()
    }

    /// Holds credits the receiver freed, due under `key`, until the port next picks.
    #[inline]
    pub fn hold(&mut self, key: u128, vl: u8, blocks: u16) {
        self.returns.hold(key, vl, blocks);
    }

    /// Whether the head of `vl` lacks credit at `now`, counting held credits due by then.
    pub fn blocked_on_credit(&self, vl: u8, now: Time) -> bool {
        let available = self.credits.available_blocks(vl) + self.returns.due_blocks(vl, now);
        self.head_blocks(vl) as u32 > available
    }

    /// Blocks of `vl` the receiver holds as this port sees it at `now`
    /// (credits held for it and due by then count as back).
    pub fn credits_used(&self, vl: u8, now: Time) -> u32 {
        self.credits.used_blocks(vl) - self.returns.due_blocks(vl, now)
    }

    /// Every credit is back or held for this port (audit at drain).
    pub fn is_quiescent(&self) -> bool {
        (0..self.data_vls).all(|v| self.credits.used_blocks(v) == self.returns.held_blocks(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::EventQueue;

    /// A pick and a send read two lines: head blocks, the sendable mask and
    /// the credit counters in the first; the held credits and the arbiter's
    /// first 16 bytes in the second.
    #[test]
    fn a_pick_reads_two_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(offset_of!(OutputPort, credits) + size_of::<CreditCounters>(), 64);
        assert_eq!((offset_of!(OutputPort, returns), offset_of!(OutputPort, arbiter) + 16), (64, 128));
        assert_eq!((size_of::<OutputPort>(), align_of::<OutputPort>()), (192, 64));
    }
    use crate::sim::{Carries, Clocked, ComponentKind, Context};

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
        let mut port = OutputPort::new(me, PortCredits::new(2, 128, 64).unwrap(), VlArbiter::paper());
        let mut q: EventQueue<Ev> = EventQueue::new();
        port.set_head_blocks(0, 2);
        port.set_head_blocks(1, 3);
        let mut cx = Context::new(0, &mut q);
        assert_eq!(port.pick(&mut cx, 0b11), Some(0), "VL1's head needs 3 blocks of 2");
        assert_eq!(port.sent(0, 100), 2);
        // The receiver frees the packet's 2 blocks; they reach the port at 50.
        let key = cx.reserve_key(50);
        assert!(!port.waiting_for_credit(), "a port that just sent is not waiting");
        port.hold(key, 0, 2);
        cx.schedule(10, Ev::Tick);
        assert_eq!(q.pop_until(Time::MAX), Some((10, Ev::Tick)));
        port.set_head_blocks(0, 1);
        assert!(port.blocked_on_credit(0, 10) && !port.blocked_on_credit(0, 50), "held credit counts once due");
        assert_eq!((port.credits_used(0, 10), port.credits_used(0, 50)), (2, 0));
        let mut cx = Context::new(10, &mut q);
        assert_eq!(port.pick(&mut cx, 0b01), None, "the credit is not due at 10");
        assert!(port.waiting_for_credit());
        let credit = Ev::Port(4, Delivery::Credit { kind: ComponentKind::Hca, port: 0, vl: 0, blocks: 2 });
        assert_eq!(q.pop_until(Time::MAX), Some((50, credit)));
        port.on_credit(0, 2);
        assert!(port.is_quiescent());
        let mut cx = Context::new(50, &mut q);
        assert_eq!(port.pick(&mut cx, 0b01), Some(0));
        assert!(!port.waiting_for_credit());
    }
}
