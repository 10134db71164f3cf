//! An HCA's data messages queued per flow, when its sources react to
//! congestion (IBA Annex A10: a CCTI per queue pair, or per SL). A flow is
//! the HCA's messages to one destination on one SL (`Port_Control` per
//! SL: all of the SL's), each with its own queue, CCTI and the time its
//! next packet may start, so a throttled flow holds no other back. A VL's
//! next message is, as without congestion control, its highest SL's
//! oldest among the flows that may send now. The BECNs this HCA owes its
//! sources (congestion notification packets) wait apart and are never
//! throttled.

use std::cmp::Reverse;
use std::collections::HashMap;

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
}

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
    flows: Vec<Flow>,
    by_key: HashMap<(u32, u8), usize>,
    /// CNPs waiting, oldest first (one packet each).
    cnps: Vec<u32>,
    per_sl: bool,
    /// When the HCA's next wake-up for a held-back flow is due (`Time::MAX`: none).
    pub(super) wake_at: Time,
    /// Data packets sent (CNPs aside): what each source's flows got.
    pub(super) data_packets_sent: u64,
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
            by_key: HashMap::new(),
            cnps: Vec::new(),
            per_sl,
            wake_at: Time::MAX,
            data_packets_sent: 0,
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
        let k = self.flows.len();
        let vl = config.sl_vl[sl as usize];
        self.flows.push(Flow { queue: Ring::default(), dst: key.0, sl, vl, cc: FlowCc::new(t, sl), ready_at: 0 });
        self.by_key.insert(key, k);
        k
    }

    /// Queues data message `id` (accepted by the send queues' buffer).
    pub(super) fn push(&mut self, messages: &mut Arena<Message>, t: &Throttling, config: &HcaConfig, id: u32) {
        let (dst, sl) = (messages[id].dst, messages[id].sl.get());
        let k = self.flow(t, config, dst, sl);
        self.flows[k].queue.push_back(messages, id);
        self.queued += 1;
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

    /// What heads each VL at `now`, in one pass: its oldest CNP, else the
    /// highest SL's flow (among those that may send) with the oldest first
    /// message; and the earliest time a flow that has messages but must
    /// wait may send.
    pub(super) fn heads(&self, messages: &Arena<Message>, config: &HcaConfig, now: Time) -> Heads {
        let mut h = Heads { ready: 0, earliest: Time::MAX, of: [(Head::Cnp(0), 0); 16] };
        for (i, &c) in self.cnps.iter().enumerate() {
            let vl = config.sl_vl[messages[c].sl.get() as usize];
            if vl != NO_VL && h.ready & 1 << vl == 0 {
                h.ready |= 1 << vl;
                h.of[vl as usize] = (Head::Cnp(i), c);
            }
        }
        let cnp_vls = h.ready;
        let mut rank = [(0u8, Reverse(0)); 16];
        for (k, f) in self.flows.iter().enumerate() {
            if f.vl == NO_VL {
                continue;
            }
            let Some(m) = f.queue.front(messages) else { continue };
            if f.ready_at > now {
                h.earliest = h.earliest.min(f.ready_at);
                continue;
            }
            let v = f.vl as usize;
            let r = (f.sl, Reverse(messages[m].t_created));
            if cnp_vls & 1 << v == 0 && (h.ready & 1 << v == 0 || r > rank[v]) {
                h.ready |= 1 << v;
                rank[v] = r;
                h.of[v] = (Head::Flow(k), m);
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
        if f.queue.is_empty() && f.ready_at == end && f.cc.at_rest(t, f.sl, end) {
            self.forget(k);
        }
    }

    /// Drops flow `k`; the last flow takes its place.
    fn forget(&mut self, k: usize) {
        let f = self.flows.swap_remove(k);
        self.by_key.remove(&(f.dst, f.sl));
        if let Some(moved) = self.flows.get(k) {
            self.by_key.insert((moved.dst, moved.sl), k);
        }
    }
}
