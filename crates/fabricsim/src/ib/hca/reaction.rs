//! An HCA under IBA Annex A10 congestion control: its data messages wait
//! per flow (`flow_queues.rs`), a flow's packets spaced by the gap its CCTI
//! gives (`throttle.rs`); a packet that arrives marked with FECN is answered
//! with a congestion notification packet (CNP) to its source, on its SL,
//! through the fabric like any packet; a CNP that arrives is a BECN to the
//! flow it names. The send path here is taken only when the HCAs react to
//! congestion, so the send path without congestion control is unchanged.

use super::{Hca, HcaContext, HcaEvent};
use crate::ib::message::{Message, NO_STREAM};
use crate::ib::multicast::NO_GROUP;
use crate::ib::packet::{Packet, Segmentation, BECN, FIRST, LAST};
use crate::ib::shared::Shared;
use crate::ib::vl::VL15;
use crate::kernel::Time;

impl Hca {
    /// `try_send` under congestion control: the link is free at `now`.
    /// CNPs first on their VLs, then each VL's highest SL's oldest message
    /// among the flows that may send now; control as always. If nothing can
    /// go and a held-back flow waits, the HCA wakes when it may.
    #[cold]
    #[inline(never)]
    pub(super) fn try_send_throttled(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, now: Time) {
        let q = self.reaction.as_deref_mut().expect("a reacting HCA has flows");
        let heads = q.heads(&sh.messages, &sh.hca, now);
        let mut vls = heads.ready;
        while vls != 0 {
            let vl = vls.trailing_zeros() as usize;
            vls &= vls - 1;
            self.port.set_head_blocks(vl as u8, sh.hca.blocks_of_next(&sh.messages[heads.of[vl].1]));
        }
        let ready = heads.ready | self.flows.waiting_vls() & 1 << VL15;
        let Some(vl) = self.port.pick(cx, ready, sh.hca.capacity) else {
            if heads.earliest != Time::MAX {
                self.wake(cx, heads.earliest);
            }
            return;
        };
        if vl == VL15 {
            self.send_queued(cx, sh, vl, now);
            return;
        }
        let (head, m) = heads.of[vl as usize];
        let cnp = matches!(head, super::flow_queues::Head::Cnp(_));
        let (mut packet, payload, last, copies) = Self::cut(sh, vl, m, now);
        if cnp {
            // Header only, never dropped, never marked.
            packet.flags = BECN | FIRST | LAST;
        } else {
            self.flows.sent_by_flow(&sh.messages, &sh.hca, &mut self.sl_bytes, m, payload, last);
        }
        self.port.sent(vl, packet.bytes as u32);
        sh.queued_messages -= last as u64;
        let wire = sh.timing.wire_at(self.wire.rate, packet.bytes as u32);
        let t = sh.throttling.as_deref().expect("a reacting HCA has the fabric's throttling");
        let q = self.reaction.as_deref_mut().expect("a reacting HCA has flows");
        q.sent(&mut sh.messages, t, head, last, now, now + wire, wire);
        self.launch(cx, sh, packet, copies, cnp);
    }

    /// Data packets this HCA sent under congestion control (None: its sources do not react).
    pub fn data_packets_sent(&self) -> Option<u64> {
        self.reaction.as_deref().map(|q| q.data_packets_sent)
    }

    /// Packets delivered to this HCA under congestion control, CNPs aside (None: its sources do not react).
    pub fn packets_received(&self) -> Option<u64> {
        self.reaction.as_deref().map(|q| q.packets_received)
    }

    #[cold]
    pub(super) fn count_received(&mut self) {
        self.reaction.as_deref_mut().expect("a reacting HCA has flows").packets_received += 1;
    }

    /// Its flows' recorded series, if recorded.
    pub fn series_rows(&self) -> Option<Vec<super::SeriesRow>> {
        self.reaction.as_deref().and_then(|q| q.series.as_deref()).map(|s| s.rows())
    }

    /// Whether a message waits in the flows (ready or held back).
    pub(super) fn flows_waiting(&self) -> bool {
        self.reaction.as_deref().is_some_and(|q| q.waiting())
    }

    /// An event at `at`, when a held-back flow may send (unless one no
    /// later is due already).
    fn wake(&mut self, cx: &mut impl HcaContext, at: Time) {
        let q = self.reaction.as_deref_mut().expect("a reacting HCA has flows");
        if q.wake_at <= at {
            return;
        }
        q.wake_at = at;
        cx.push(at, self.index, HcaEvent::Ready);
    }

    pub(super) fn on_ready(&mut self, cx: &mut impl HcaContext, sh: &mut Shared) {
        let now = cx.now();
        let q = self.reaction.as_deref_mut().expect("a reacting HCA has flows");
        if q.wake_at <= now {
            q.wake_at = Time::MAX;
        }
        self.try_send(cx, sh);
    }

    /// Packet `p` (`packet`) arrived with a congestion bit: a CNP is a BECN
    /// (taken here whole: true); a packet marked with FECN is counted and,
    /// where the HCAs react, answered, and goes on to the sink.
    #[cold]
    #[inline(never)]
    pub(super) fn congestion_bits(
        &mut self,
        cx: &mut impl HcaContext,
        sh: &mut Shared,
        packet: u32,
        p: &Packet,
    ) -> bool {
        if p.flags & BECN != 0 {
            self.on_becn(cx, sh, packet);
            return true;
        }
        sh.metrics.counters.congestion.fecn_received[p.sl.get() as usize] += 1;
        if self.throttled {
            self.answer_fecn(cx, sh, p);
        }
        false
    }

    /// Packet `p` arrived marked with FECN: a CNP goes back to its source
    /// on its SL (one per marked packet).
    fn answer_fecn(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, p: &Packet) {
        let source = sh.messages[p.message].src;
        let cnp = Message {
            t_created: cx.now(),
            seg: Segmentation::new(0, p.class.mtu()),
            src: self.index,
            dst: source,
            stream: NO_STREAM,
            class: p.class,
            sl: p.sl,
            group: NO_GROUP,
            ..Message::default()
        };
        let id = sh.messages.insert(cnp);
        sh.queued_messages += 1;
        self.reaction.as_deref_mut().expect("a reacting HCA has flows").push_cnp(id);
        self.try_send(cx, sh);
    }

    /// CNP `packet` arrived: a BECN for this HCA's flow to the CNP's sender
    /// on its SL. Its space is free at once, as any packet's.
    fn on_becn(&mut self, cx: &mut impl HcaContext, sh: &mut Shared, packet: u32) {
        let p = sh.packets[packet];
        self.free_space(cx, sh, &p);
        sh.packets.remove(packet);
        let sender = sh.messages[p.message].src;
        sh.messages.remove(p.message);
        let sl = p.sl.get();
        sh.metrics.counters.congestion.becn_received[sl as usize] += 1;
        let t = sh.throttling.as_deref().expect("a reacting HCA has the fabric's throttling");
        let q = self.reaction.as_deref_mut().expect("a reacting HCA has flows");
        if t.controls(sl) && q.becn(t, &sh.hca, sender, sl, cx.now()) {
            sh.metrics.counters.congestion.triggers += 1;
        }
    }
}
