//! An HCA's data messages queued per flow, when its sources react to
//! congestion (IBA Annex A10: a CCTI per queue pair, or per SL). A flow is
//! the HCA's messages to one destination on one SL (`Port_Control` per
//! SL: all of the SL's), each with its own queue, CCTI and the time its
//! next packet may start, so a throttled flow holds no other back. A VL's
//! next message is, as without congestion control, its highest SL's
//! oldest among the flows that may send now. The BECNs this HCA owes its
//! sources (congestion notification packets) wait apart and are never
//! throttled.
//!
//! Flows are indexed so that a send costs O(log flows), not a pass over
//! them: an HCA with a backlog to every destination of a 1,356-HCA cluster
//! has over a thousand. A flow with messages has one live entry, in its
//! VL's heap of flows that may send (by SL, then its first message's age)
//! or in the heap of held-back flows (by the time it may send); an entry
//! carries the flow's generation, and a change of the flow's state bumps
//! it, so superseded entries are skipped when they surface (no search to
//! remove them, and no allocation once the heaps have grown).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::super::hca_config::{HcaConfig, NO_VL};
use super::super::message::Message;
use super::super::ring::Ring;
use super::flow_series::FlowSeries;
use super::throttle::{FlowCc, Throttling};
use crate::kernel::{Arena, Time};

/// A flow's destination under per-SL control: every destination.
const EVERY_DESTINATION: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Flow {
    queue: Ring<Message>,
    dst: u32,
    sl: u8,
    vl: u8,
    cc: FlowCc,
    /// The earliest its next packet may start: the end of its last one
    /// plus the gap its CCTI gave then.
    ready_at: Time,
    /// Its live index entry's generation (entries of another are stale).
    generation: u32,
}

/// A flow that may send, in its VL's heap: the highest SL first, then the
/// oldest first message, then the lowest slot (the order of a pass over the slots).
type ReadyEntry = (u8, Reverse<Time>, Reverse<u32>, u32);

/// A held-back flow: the earliest time first.
type HeldEntry = Reverse<(Time, u32, u32)>;

/// What each VL's head is at a moment ([`FlowQueues::heads`]).
pub(super) struct Heads {
    /// The VLs whose head may go (bit mask).
    pub(super) ready: u16,
    /// The earliest a held-back flow with messages may send (`Time::MAX`: none).
    pub(super) earliest: Time,
    /// Per ready VL, its head and that head's message.
    pub(super) of: [(Head, u32); 16],
}

/// What heads a VL: a CNP, or flow `k`'s first message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Head {
    Cnp(usize),
    Flow(usize),
}

pub(super) struct FlowQueues {
    /// Flows by slot; a forgotten flow's slot is reused (`free`), so an index entry's slot stays its flow's.
    flows: Vec<Flow>,
    free: Vec<usize>,
    by_key: HashMap<(u32, u8), usize>,
    /// Per VL, the flows with messages that may send (lazily: see the module doc).
    ready: [BinaryHeap<ReadyEntry>; 16],
    /// The flows with messages that must wait.
    held: BinaryHeap<HeldEntry>,
    /// CNPs waiting, oldest first (one packet each).
    cnps: Vec<u32>,
    per_sl: bool,
    /// When the HCA's next wake-up for a held-back flow is due (`Time::MAX`: none).
    pub(super) wake_at: Time,
    /// Data packets sent (CNPs aside): what each source's flows got.
    pub(super) data_packets_sent: u64,
    /// Packets delivered to this HCA (CNPs aside): what its link carried to it.
    pub(super) packets_received: u64,
    /// Data messages queued over every flow.
    queued: u32,
    /// Each flow's CCTI and packets per interval, when recorded.
    pub(super) series: Option<Box<FlowSeries>>,
}

impl FlowQueues {
    /// Queues with one CCTI per SL (`per_sl`) or per flow, recording each
    /// flow's series per `series_bin` (0: not recorded).
    pub(super) fn new(per_sl: bool, series_bin: Time) -> Self {
        FlowQueues {
            flows: Vec::new(),
            free: Vec::new(),
            by_key: HashMap::new(),
            ready: Default::default(),
            held: BinaryHeap::new(),
            cnps: Vec::new(),
            per_sl,
            wake_at: Time::MAX,
            data_packets_sent: 0,
            packets_received: 0,
            queued: 0,
            series: (series_bin > 0).then(|| Box::new(FlowSeries::new(series_bin))),
        }
    }

    fn key(&self, dst: u32, sl: u8) -> (u32, u8) {
        (if self.per_sl { EVERY_DESTINATION } else { dst }, sl)
    }

    /// The flow of `dst` on `sl`, made at its minimum CCTI if new.
    fn flow(&mut self, t: &Throttling, config: &HcaConfig, dst: u32, sl: u8) -> usize {
        let key = self.key(dst, sl);
        if let Some(&k) = self.by_key.get(&key) {
            return k;
        }
        let vl = config.sl_vl[sl as usize];
        let flow =
            Flow { queue: Ring::default(), dst: key.0, sl, vl, cc: FlowCc::new(t, sl), ready_at: 0, generation: 0 };
        let k = match self.free.pop() {
            Some(k) => {
                // A new generation: entries of the slot's last flow stay stale.
                self.flows[k] = Flow { generation: self.flows[k].generation.wrapping_add(1), ..flow };
                k
            }
            None => {
                self.flows.push(flow);
                self.flows.len() - 1
            }
        };
        self.by_key.insert(key, k);
        k
    }

    /// Indexes flow `k`, which has messages, among the held-back flows (the
    /// next `heads` moves it among the ready ones once it may send).
    fn hold(&mut self, k: usize) {
        let f = &mut self.flows[k];
        f.generation = f.generation.wrapping_add(1);
        if f.vl != NO_VL {
            self.held.push(Reverse((f.ready_at, k as u32, f.generation)));
        }
    }

    /// Queues data message `id` (accepted by the send queues' buffer).
    pub(super) fn push(&mut self, messages: &mut Arena<Message>, t: &Throttling, config: &HcaConfig, id: u32) {
        let (dst, sl) = (messages[id].dst, messages[id].sl.get());
        let k = self.flow(t, config, dst, sl);
        let was_empty = self.flows[k].queue.is_empty();
        self.flows[k].queue.push_back(messages, id);
        self.queued += 1;
        if was_empty {
            self.hold(k);
        }
    }

    /// Queues CNP message `id`.
    pub(super) fn push_cnp(&mut self, id: u32) {
        self.cnps.push(id);
    }

    /// A BECN from `dst` on `sl` at `now` raises that flow's CCTI; returns
    /// whether it reached the trigger threshold.
    pub(super) fn becn(&mut self, t: &Throttling, config: &HcaConfig, dst: u32, sl: u8, now: Time) -> bool {
        let k = self.flow(t, config, dst, sl);
        let f = &mut self.flows[k];
        let trigger = f.cc.becn(t, sl, now);
        if let Some(s) = &mut self.series {
            s.becn((f.dst, f.sl), now, f.cc.ccti(t, sl, now));
        }
        trigger
    }

    /// What heads each VL at `now`: its oldest CNP, else the highest SL's
    /// flow (among those that may send) with the oldest first message; and
    /// the earliest time a flow that has messages but must wait may send.
    pub(super) fn heads(&mut self, messages: &Arena<Message>, config: &HcaConfig, now: Time) -> Heads {
        let mut h = Heads { ready: 0, earliest: Time::MAX, of: [(Head::Cnp(0), 0); 16] };
        for (i, &c) in self.cnps.iter().enumerate() {
            let vl = config.sl_vl[messages[c].sl.get() as usize];
            if vl != NO_VL && h.ready & 1 << vl == 0 {
                h.ready |= 1 << vl;
                h.of[vl as usize] = (Head::Cnp(i), c);
            }
        }
        // The held-back flows whose time has come may send.
        while let Some(&Reverse((at, k, generation))) = self.held.peek() {
            let f = &self.flows[k as usize];
            if f.generation != generation {
                self.held.pop();
                continue;
            }
            if at > now {
                h.earliest = at;
                break;
            }
            self.held.pop();
            let m = f.queue.front(messages).expect("an indexed flow has messages");
            self.ready[f.vl as usize].push((f.sl, Reverse(messages[m].t_created), Reverse(k), generation));
        }
        let cnp_vls = h.ready;
        for (v, heap) in self.ready.iter_mut().enumerate() {
            while let Some(&(_, _, Reverse(k), generation)) = heap.peek() {
                let f = &self.flows[k as usize];
                if f.generation != generation {
                    heap.pop();
                    continue;
                }
                if cnp_vls & 1 << v == 0 {
                    h.ready |= 1 << v;
                    h.of[v] = (Head::Flow(k as usize), f.queue.front(messages).expect("an indexed flow has messages"));
                }
                break;
            }
        }
        h
    }

    /// Whether any message (data or CNP) waits, ready or not.
    pub(super) fn waiting(&self) -> bool {
        !self.cnps.is_empty() || self.queued > 0
    }

    /// Head `h`'s packet ends on the link at `end` after `wire` of
    /// transmission; `last`: it was its message's last. A flow's next
    /// packet waits the gap its CCTI gives now; a flow left empty at its
    /// minimum CCTI is forgotten (it holds nothing a new one would not).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sent(
        &mut self,
        messages: &mut Arena<Message>,
        t: &Throttling,
        h: Head,
        last: bool,
        now: Time,
        end: Time,
        wire: Time,
    ) {
        let k = match h {
            Head::Cnp(i) => {
                self.cnps.remove(i);
                return;
            }
            Head::Flow(k) => k,
        };
        self.data_packets_sent += 1;
        let f = &mut self.flows[k];
        if last {
            f.queue.pop_front(messages);
            self.queued -= 1;
        }
        let ccti = f.cc.ccti(t, f.sl, now);
        if let Some(s) = &mut self.series {
            s.sent((f.dst, f.sl), now, wire, ccti);
        }
        f.ready_at = end + if t.controls(f.sl) { t.gap(ccti, wire) } else { 0 };
        if !f.queue.is_empty() {
            // Its entry among the ready flows is superseded by this one.
            self.hold(k);
        } else {
            f.generation = f.generation.wrapping_add(1);
            if f.ready_at == end && f.cc.at_rest(t, f.sl, end) {
                self.forget(k);
            }
        }
    }

    /// Drops flow `k` (it has no messages, so no live entry); its slot is reused.
    fn forget(&mut self, k: usize) {
        let f = &self.flows[k];
        self.by_key.remove(&(f.dst, f.sl));
        self.free.push(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::packet::{Mtu, Segmentation, ServiceLevel, TrafficClass};
    use crate::ib::vl::SlToVl;
    use crate::kernel::RandomStream;
    use crate::scenario::ib_congestion::{CaEntry, CctEntry, CongestionSettings};

    /// The heads a pass over every flow finds (what the index replaced).
    fn heads_by_pass(q: &FlowQueues, messages: &Arena<Message>, now: Time) -> (u16, Time, Vec<u32>) {
        let (mut ready, mut earliest, mut of) = (0u16, Time::MAX, [(0u8, Reverse(0), u32::MAX); 16]);
        for f in q.flows.iter().enumerate().filter(|(k, _)| !q.free.contains(k)).map(|(_, f)| f) {
            let Some(m) = f.queue.front(messages) else { continue };
            if f.vl == NO_VL {
                continue;
            }
            if f.ready_at > now {
                earliest = earliest.min(f.ready_at);
                continue;
            }
            let (v, r) = (f.vl as usize, (f.sl, Reverse(messages[m].t_created)));
            if ready & 1 << v == 0 || r > (of[v].0, of[v].1) {
                ready |= 1 << v;
                of[v] = (r.0, r.1, m);
            }
        }
        (ready, earliest, of.iter().map(|o| o.2).collect())
    }

    /// Over random pushes, sends and BECNs on flows of four SLs (two VLs
    /// sharing SLs, one SL not sent), the index names the same head per VL
    /// and the same earliest wake-up as a pass over every flow.
    #[test]
    fn the_index_finds_what_a_pass_over_the_flows_finds() {
        let sl_vl = [0, 0, 1, 15, 1, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15];
        let config = HcaConfig::new(&SlToVl::from_entries(&sl_vl, 2).unwrap(), 64, 66, u64::MAX);
        let mut s = CongestionSettings { enabled: true, ..Default::default() };
        s.ca.control_map = 0b111;
        for sl in 0..3 {
            s.ca.entries[sl] = CaEntry { ccti_timer: 2, ccti_increase: 3, trigger_threshold: 3, ccti_min: 0 };
        }
        s.cct = (0..16).map(|i| CctEntry { shift: 0, multiplier: i }).collect();
        let t = Throttling::from_settings(&s).unwrap();
        let mut messages = Arena::with_capacity(64);
        let mut q = FlowQueues::new(false, 0);
        let mut rng = RandomStream::new(11, "flow index", 0);
        let (mut now, wire) = (0, 4_000_000);
        let (mut held, mut both) = (0, 0);
        for step in 0..20_000u32 {
            now += rng.below(3_000_000) as Time;
            match rng.below(4) {
                0 | 1 => {
                    let sl = [0, 1, 2, 4][rng.below(4) as usize];
                    let m = Message {
                        seg: Segmentation::new(1 + rng.below(3_000) as u64, Mtu::B1024),
                        sl: ServiceLevel::new(sl, "sl").unwrap(),
                        class: TrafficClass::BestEffort,
                        dst: rng.below(6),
                        t_created: now,
                        ..Message::default()
                    };
                    let id = messages.insert(m);
                    q.push(&mut messages, &t, &config, id);
                }
                2 => {
                    let (dst, sl) = (rng.below(6), rng.below(3) as u8);
                    q.becn(&t, &config, dst, sl, now);
                }
                _ => {}
            }
            let want = heads_by_pass(&q, &messages, now);
            let got = q.heads(&messages, &config, now);
            let heads: Vec<u32> =
                (0..16).map(|v| if got.ready & 1 << v != 0 { got.of[v].1 } else { u32::MAX }).collect();
            assert_eq!((got.ready, got.earliest, heads), want, "step {step}");
            held += (got.earliest != Time::MAX) as u32;
            both += (got.ready == 0b11) as u32;
            if got.ready != 0 && rng.below(2) == 0 {
                let v = got.ready.trailing_zeros() as usize;
                let (head, m) = got.of[v];
                let last = rng.below(2) == 0;
                q.sent(&mut messages, &t, head, last, now, now + wire, wire);
                if last {
                    messages.remove(m);
                }
            }
        }
        assert!(held > 1_000 && both > 1_000, "held back {held} times, both VLs ready {both}");
        assert!(q.flows.len() < 40, "forgotten flows' slots are reused: {}", q.flows.len());
    }
}
