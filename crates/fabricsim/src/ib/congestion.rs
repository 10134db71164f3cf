//! IBA Annex A10 congestion control at the switches: an output VL whose
//! buffer is filled past the `Threshold` is congested, and one in
//! `Marking_Rate + 1` of the packets it sends that are at least
//! `Packet_Size` is marked with FECN, when the port is the congestion's
//! root (the VL still has credit downstream after the packet) or, where its
//! `Victim_Mask` bit is set, its victim (it has none). Each reading is
//! declared in docs/infiniband-congestion-control.md, section 2. The
//! switch also counts what a PMA would show: how long each output waited
//! with data and no credit (PortXmitWait) and how long each VL was
//! congested. What every HCA applies when it reacts to BECNs
//! ([`Throttling`]) is here too; each flow's state is the HCA's
//! (`hca/throttle.rs`).

use super::packet::Packet;
use crate::kernel::Time;
use crate::scenario::ib_congestion::{CctEntry, CongestionSettings, PortMask, SLS};

/// SwitchCongestionSetting's `Control_Map` bits: which fields are valid.
pub const VICTIM_MASK_VALID: u32 = 1 << 0;
pub const CREDIT_MASK_VALID: u32 = 1 << 1;
pub const THRESHOLD_VALID: u32 = 1 << 2;
pub const CREDIT_STARVATION_VALID: u32 = 1 << 3;
pub const MARKING_RATE_VALID: u32 = 1 << 4;

/// What every switch applies (OpenSM sends every switch the same setting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marking {
    /// `Threshold`, 1-15: a VL is congested while at least (16 - T)/16 of
    /// its output buffer is taken.
    pub threshold: u8,
    /// `Marking_Rate`: eligible packets left unmarked after a marked one.
    pub rate: u16,
    /// `Packet_Size` in 64-byte credits: smaller packets are never marked.
    pub min_credits: u16,
    /// Ports (IBA numbers, from 1) that mark as victims too.
    pub victim_mask: PortMask,
    /// Whether a VL's queue counts the input heads waiting for it beside
    /// its output buffer (the declared reading; false: the buffer alone).
    pub with_heads: bool,
    /// Whether the packet chosen to leave is left out of its VL's queue
    /// (`queue = "waiting"`: what waits behind it).
    pub less_leaving: bool,
    /// Blocks a congested VL's queue must fall below its threshold before
    /// it is no longer congested (`hysteresis_bytes`; 0: none).
    pub hysteresis: u16,
    /// Whether a port that waited for credit since its last packet is a
    /// victim (`root = "no_credit_wait"`); false: a port is a victim when
    /// no credit is left for another such packet (the declared reading).
    pub victim_if_waited: bool,
}

impl Marking {
    /// The marking the settings configure: none when congestion control is
    /// off or the threshold is 0 (or not valid in `Control_Map`: the
    /// switch keeps its reset value, 0).
    pub fn from_settings(s: &CongestionSettings) -> Option<Self> {
        let sw = &s.switch;
        let valid = |bit: u32| sw.control_map & bit != 0;
        let threshold = if valid(THRESHOLD_VALID) { sw.threshold } else { 0 };
        if !s.enabled || threshold == 0 {
            return None;
        }
        Some(Marking {
            threshold,
            rate: if valid(MARKING_RATE_VALID) { sw.marking_rate } else { 0 },
            min_credits: sw.packet_size as u16,
            victim_mask: if valid(VICTIM_MASK_VALID) { sw.victim_mask } else { PortMask::default() },
            with_heads: true,
            less_leaving: false,
            hysteresis: 0,
            victim_if_waited: false,
        })
    }

    /// The fewest of a VL buffer's `capacity` blocks taken that are
    /// congested: (16 - T)/16 of them, rounded up.
    pub fn congested_at(&self, capacity: u16) -> u16 {
        ((16 - self.threshold as u32) * capacity as u32).div_ceil(16) as u16
    }

    /// Whether `p`, of `credits` 64-byte credits, may be marked at all:
    /// unicast data of at least `Packet_Size` (a multicast packet's BECN
    /// would reach one source for many receivers' congestion; a CNP is
    /// not data).
    #[inline]
    pub fn eligible(&self, p: &Packet, credits: u16) -> bool {
        p.flags & (super::packet::MULTICAST | super::packet::BECN) == 0 && credits >= self.min_credits
    }
}

/// `CCTI_Timer`'s unit: 1.024 us (hfi1), in picoseconds.
pub const TIMER_TICK: Time = 1_024_000;

/// What every HCA applies (OpenSM sends every CA the same setting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Throttling {
    /// `Port_Control` bit 0: one CCTI per SL rather than one per flow (QP).
    pub per_sl: bool,
    /// The SLs whose flows react (`Control_Map`).
    pub sls: u16,
    /// Per SL: the timer's period (0: no timer, the CCTI never falls),
    /// `CCTI_Increase`, `Trigger_Threshold` and `CCTI_Min`.
    pub period: [Time; SLS],
    pub increase: [u16; SLS],
    pub trigger: [u16; SLS],
    pub min: [u16; SLS],
    /// The congestion control table; never empty (an empty one reads as
    /// one entry of no delay, as an HCA's reset table).
    pub cct: Vec<CctEntry>,
    /// The interval of each flow's recorded series (0: none recorded).
    pub series_bin: Time,
}

impl Throttling {
    /// The reaction the settings configure: none when congestion control
    /// is off or no SL's entry applies.
    pub fn from_settings(s: &CongestionSettings) -> Option<Self> {
        let ca = &s.ca;
        if !s.enabled || ca.control_map == 0 {
            return None;
        }
        let e = &ca.entries;
        let cct = if s.cct.is_empty() { vec![CctEntry::default()] } else { s.cct.clone() };
        let limit = (cct.len() - 1) as u16;
        Some(Throttling {
            per_sl: ca.port_control & 1 == 1,
            sls: ca.control_map,
            period: std::array::from_fn(|sl| e[sl].ccti_timer as Time * TIMER_TICK),
            increase: std::array::from_fn(|sl| e[sl].ccti_increase as u16),
            trigger: std::array::from_fn(|sl| e[sl].trigger_threshold as u16),
            // A minimum above the table's end is held at its end.
            min: std::array::from_fn(|sl| (e[sl].ccti_min as u16).min(limit)),
            cct,
            series_bin: 0,
        })
    }

    /// `CCTI_Limit`: the table's last index.
    pub fn limit(&self) -> u16 {
        (self.cct.len() - 1) as u16
    }

    /// Whether flows on `sl` react to BECNs.
    #[inline]
    pub fn controls(&self, sl: u8) -> bool {
        self.sls >> sl & 1 == 1
    }

    /// The gap after a packet that took `packet_time` on the link, at
    /// `ccti`: the packet time times the entry's multiplier over 2^shift.
    #[inline]
    pub fn gap(&self, ccti: u16, packet_time: Time) -> Time {
        let e = self.cct[ccti as usize];
        (packet_time * e.multiplier as Time) >> e.shift
    }
}

/// One output port's marking state and the PMA's clocks. The port keeps
/// its own count of each VL's taken blocks: a packet's space is taken as
/// its crossbar transfer starts and freed when its tail has gone, a time
/// known as it is chosen to go (`leaving`); the switch frees it later, when
/// it next looks at the output, and these clocks need no hook there.
#[derive(Clone, Debug)]
pub struct PortCongestion {
    /// Per VL, eligible packets sent unmarked since the last marked one.
    since_mark: [u16; 16],
    /// Per VL, blocks taken in the output buffer, and those of the input
    /// heads waiting for this output (counted only `with_heads`).
    taken: [u16; 16],
    heads: [u16; 16],
    with_heads: bool,
    less_leaving: bool,
    /// The packet on the wire: its VL (`NO_VL`: none), blocks and when they are free.
    leaving: (u8, u16, Time),
    /// Per VL, since when it is congested (`Time::MAX`: it is not), and
    /// the time congested in spells that have ended.
    congested_since: [Time; 16],
    congested: [Time; 16],
    /// Since when the port has had a packet to send and no credit for any
    /// (`Time::MAX`: it has not), and the waits that have ended (PortXmitWait).
    waiting_since: Time,
    xmit_wait: Time,
    /// The fewest taken blocks that are congested.
    congested_at: u16,
    /// Below this a congested VL is no longer congested: `congested_at`
    /// less the hysteresis.
    relieved_at: u16,
}

const NO_VL: u8 = u8::MAX;

impl PortCongestion {
    /// A port whose VL buffers of `capacity` blocks are empty: the first
    /// eligible packet of a congested VL is marked.
    pub fn new(m: &Marking, capacity: u16) -> Self {
        PortCongestion {
            since_mark: [m.rate; 16],
            taken: [0; 16],
            heads: [0; 16],
            with_heads: m.with_heads,
            less_leaving: m.less_leaving,
            leaving: (NO_VL, 0, 0),
            congested_since: [Time::MAX; 16],
            congested: [0; 16],
            waiting_since: Time::MAX,
            xmit_wait: 0,
            congested_at: m.congested_at(capacity),
            relieved_at: m.congested_at(capacity).saturating_sub(m.hysteresis),
        }
    }

    /// VL `vl`'s taken blocks, once the packet that has left by `at` is out.
    pub fn taken(&mut self, vl: u8, at: Time) -> u16 {
        self.settle(at);
        self.taken[(vl & 15) as usize]
    }

    /// VL `vl`'s queue in blocks: its output buffer, and with the heads'
    /// reading the input heads waiting for it.
    #[inline]
    pub fn queue(&self, vl: u8) -> u16 {
        let v = (vl & 15) as usize;
        let leaving = if self.less_leaving && self.leaving.0 == v as u8 { self.leaving.1 } else { 0 };
        (self.taken[v] + if self.with_heads { self.heads[v] } else { 0 }).saturating_sub(leaving)
    }

    /// Whether a VL queue of `blocks` is past the threshold.
    #[inline]
    pub fn congested(&self, blocks: u16) -> bool {
        blocks >= self.congested_at
    }

    /// Whether VL `vl` is congested now: since its queue reached the
    /// threshold, until it falls below the threshold less the hysteresis.
    #[inline]
    pub fn is_congested(&self, vl: u8) -> bool {
        self.congested_since[(vl & 15) as usize] != Time::MAX
    }

    /// An input head of `delta` blocks (negative: gone) waits for `vl` from `at`.
    pub fn heads_changed(&mut self, vl: u8, delta: i32, at: Time) {
        self.settle(at);
        let v = (vl & 15) as usize;
        debug_assert!(self.heads[v] as i32 + delta >= 0, "VL {vl}: more head blocks gone than came");
        self.heads[v] = (self.heads[v] as i32 + delta) as u16;
        self.turn_clock(v, at);
    }

    /// `delta` blocks of `vl` taken (or freed, negative) at `at`.
    pub fn buffer_changed(&mut self, vl: u8, delta: i32, at: Time) {
        self.settle(at);
        self.apply(vl, delta, at);
    }

    /// A packet of `blocks` on `vl`, chosen at `now` (the port settled by
    /// [`Self::taken`] at `now`), has its space free at `gone`.
    pub fn leaves(&mut self, vl: u8, blocks: u16, gone: Time, now: Time) {
        debug_assert_eq!(self.leaving.0, NO_VL, "one packet on a port's wire at a time");
        self.leaving = (vl, blocks, gone);
        if self.less_leaving {
            self.turn_clock((vl & 15) as usize, now);
        }
    }

    /// Frees the space of the packet on the wire if it has gone by `at`.
    #[inline]
    fn settle(&mut self, at: Time) {
        let (vl, blocks, gone) = self.leaving;
        if vl != NO_VL && gone <= at {
            self.leaving.0 = NO_VL;
            self.apply(vl, -(blocks as i32), gone);
        }
    }

    /// `delta` blocks of `vl` at `at`, the spell clock turned if the VL
    /// crossed its threshold.
    #[inline]
    fn apply(&mut self, vl: u8, delta: i32, at: Time) {
        let v = (vl & 15) as usize;
        debug_assert!(self.taken[v] as i32 + delta >= 0, "VL {vl}: more blocks freed than taken");
        self.taken[v] = (self.taken[v] as i32 + delta) as u16;
        self.turn_clock(v, at);
    }

    /// VL `v`'s spell clock, turned at `at` if its queue crossed the threshold.
    #[inline]
    fn turn_clock(&mut self, v: usize, at: Time) {
        let (queue, was) = (self.queue(v as u8), self.congested_since[v] != Time::MAX);
        let now_congested = if was { queue >= self.relieved_at } else { self.congested(queue) };
        if now_congested && !was {
            self.congested_since[v] = at;
        } else if !now_congested && was {
            self.congested[v] += at.saturating_sub(self.congested_since[v]);
            self.congested_since[v] = Time::MAX;
        }
    }

    /// The port waits for credit from `now` (if it did not already).
    pub fn wait_for_credit(&mut self, now: Time) {
        self.waiting_since = self.waiting_since.min(now);
    }

    /// The port sends at `now`: a wait for credit ends. Returns whether it waited.
    pub fn sends(&mut self, now: Time) -> bool {
        if self.waiting_since == Time::MAX {
            return false;
        }
        self.xmit_wait += now.saturating_sub(self.waiting_since);
        self.waiting_since = Time::MAX;
        true
    }

    /// Whether the next eligible packet on `vl` is marked (and counts it).
    #[inline]
    pub fn take_turn(&mut self, m: &Marking, vl: u8) -> bool {
        let n = &mut self.since_mark[(vl & 15) as usize];
        if *n >= m.rate {
            *n = 0;
            true
        } else {
            *n += 1;
            false
        }
    }

    /// PortXmitWait and, per VL, the time congested, up to `stop` (spells
    /// still open counted to it).
    pub fn times(&self, stop: Time) -> (Time, [Time; 16]) {
        let mut p = self.clone();
        p.settle(stop);
        let wait = p.xmit_wait + if p.waiting_since != Time::MAX { stop.saturating_sub(p.waiting_since) } else { 0 };
        let mut vls = p.congested;
        for (t, &since) in vls.iter_mut().zip(&p.congested_since) {
            if since != Time::MAX {
                *t += stop.saturating_sub(since);
            }
        }
        (wait, vls)
    }
}

/// What the switches and HCAs count, over the whole run (the switches'
/// clocks are kept per port: [`PortCongestion`]).
#[derive(Clone, Debug, Default)]
pub struct CongestionCounters {
    /// Packets a switch marked with FECN, per SL.
    pub fecn_marked: [u64; 16],
    /// Marked packets that reached their destination HCA, per SL.
    pub fecn_received: [u64; 16],
    /// Congestion notification packets (one per marked packet received)
    /// sent back, and those that reached their source (its BECNs), per SL.
    pub cnps_sent: [u64; 16],
    pub becn_received: [u64; 16],
    /// BECNs that raised a flow's CCTI to its `Trigger_Threshold` from
    /// below (the HCA's congestion log entries).
    pub triggers: u64,
}

impl CongestionCounters {
    /// CNPs on their way (sent, not yet received): the audit counts them
    /// beside the traffic's packets.
    pub fn cnps_in_flight(&self) -> u64 {
        self.cnps_sent.iter().sum::<u64>() - self.becn_received.iter().sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marking(threshold: u8, rate: u16) -> Marking {
        Marking {
            threshold,
            rate,
            min_credits: 0,
            victim_mask: PortMask::default(),
            with_heads: false,
            less_leaving: false,
            hysteresis: 0,
            victim_if_waited: false,
        }
    }

    /// Threshold 15 is the most aggressive (a sixteenth of the buffer), 1 the least (fifteen sixteenths).
    #[test]
    fn the_threshold_is_a_share_of_the_buffer() {
        let port = |t: u8, capacity: u16| PortCongestion::new(&marking(t, 0), capacity);
        let (p15, p1, p8) = (port(15, 64), port(1, 64), port(8, 64));
        assert!(!p15.congested(3) && p15.congested(4));
        assert!(!p1.congested(59) && p1.congested(60));
        assert!(p8.congested(32) && !p8.congested(31));
        // At least (16 - T)/16 of the buffer, and no fewer blocks, whatever the buffer.
        for (t, capacity) in [(15, 64), (1, 64), (8, 65), (3, 7)] {
            let at = marking(t, 0).congested_at(capacity);
            let share = |taken: u16| taken as u32 * 16 >= (16 - t as u32) * capacity as u32;
            assert!(share(at) && !share(at - 1), "T {t}, {capacity} blocks: {at}");
            assert!(port(t, capacity).congested(at) && !port(t, capacity).congested(at - 1));
        }
    }

    /// A VL's congested time runs from the take that fills it past the
    /// threshold to the moment the space falls below it again, also when
    /// that space is freed by a packet that left (known as it was chosen)
    /// and settled only at the next change, or at the end.
    #[test]
    fn congested_spells_run_from_fill_to_free() {
        let m = marking(8, 0); // 32 of 64 blocks
        let mut p = PortCongestion::new(&m, 64);
        p.buffer_changed(1, 20, 100);
        p.buffer_changed(1, 17, 200); // 37: congested from 200
        p.taken(1, 300);
        p.leaves(1, 17, 500, 300); // back to 20 at 500
        p.buffer_changed(1, 17, 400); // 54 at 400, still congested
        assert_eq!(p.times(450).1[1], 250);
        assert_eq!(p.taken(1, 600), 37); // the first settled at 500
        p.leaves(1, 17, 700, 600); // 20 at 700
        p.buffer_changed(2, 5, 900); // settles at 700: the spell 200-700 ends
        assert_eq!(p.taken(1, 900), 20);
        assert_eq!(p.times(1000).1[1], 500);
        p.wait_for_credit(1000);
        p.wait_for_credit(1100);
        p.sends(1300);
        assert_eq!(p.times(1400).0, 300);
    }

    /// With a hysteresis a VL stays congested until its queue falls that
    /// far below the threshold: 32 of 64 blocks to enter, under 16 to leave.
    #[test]
    fn a_hysteresis_holds_the_congested_state() {
        let m = Marking { hysteresis: 16, ..marking(8, 0) };
        let mut p = PortCongestion::new(&m, 64);
        p.buffer_changed(1, 32, 100);
        assert!(p.is_congested(1));
        p.buffer_changed(1, -10, 200); // 22: still congested
        assert!(p.is_congested(1));
        p.buffer_changed(1, -7, 300); // 15: relieved
        assert!(!p.is_congested(1));
        p.buffer_changed(1, 10, 400); // 25: not yet congested again
        assert!(!p.is_congested(1));
        assert_eq!(p.times(500).1[1], 200);
    }

    /// Under the "waiting" reading the packet chosen to leave is out of its
    /// VL's queue from the moment it is chosen: 37 blocks with 17 leaving
    /// are 20 waiting, not congested at threshold 8 (32 of 64).
    #[test]
    fn the_waiting_reading_leaves_the_leaving_packet_out() {
        let m = Marking { less_leaving: true, ..marking(8, 0) };
        let mut p = PortCongestion::new(&m, 64);
        p.buffer_changed(1, 37, 100); // congested from 100
        assert_eq!(p.queue(1), 37);
        p.taken(1, 200);
        p.leaves(1, 17, 500, 200); // 20 waiting from 200
        assert_eq!(p.queue(1), 20);
        p.buffer_changed(1, 17, 300); // 37 waiting behind it: congested again
        assert_eq!(p.times(400).1[1], 100 + 100);
        assert_eq!(p.taken(1, 600), 37);
        assert_eq!(p.queue(1), 37);
    }

    /// With the heads' reading a VL's queue is its output buffer and the
    /// input heads waiting for it: a head alone can make it congested, and
    /// the buffer alone reads only the buffer.
    #[test]
    fn input_heads_waiting_count_in_the_queue() {
        let with = Marking { with_heads: true, ..marking(8, 0) }; // 32 of 64 blocks
        let mut p = PortCongestion::new(&with, 64);
        p.buffer_changed(1, 17, 100);
        p.heads_changed(1, 17, 200); // 34: congested from 200
        assert_eq!((p.queue(1), p.taken(1, 250)), (34, 17));
        p.heads_changed(1, -17, 300); // the head crosses: 17 left
        assert_eq!(p.times(400).1[1], 100);
        let mut alone = PortCongestion::new(&marking(8, 0), 64);
        alone.buffer_changed(1, 17, 100);
        alone.heads_changed(1, 17, 200);
        assert_eq!(alone.queue(1), 17);
        assert_eq!(alone.times(400).1[1], 0);
    }

    /// After a marked packet, `Marking_Rate` eligible packets pass unmarked; the first is marked.
    #[test]
    fn one_in_rate_plus_one_eligible_packets_is_marked() {
        for rate in [0u16, 1, 3, 10] {
            let m = marking(15, rate);
            let mut port = PortCongestion::new(&m, 64);
            let marks: Vec<bool> = (0..3 * (rate as usize + 1)).map(|_| port.take_turn(&m, 2)).collect();
            let every = rate as usize + 1;
            assert!(marks.iter().enumerate().all(|(i, &k)| k == (i % every == 0)), "rate {rate}: {marks:?}");
            // Each VL keeps its own count.
            assert!(port.take_turn(&m, 3));
        }
    }

    /// Control_Map decides which fields apply; off, or threshold 0, marks nothing.
    #[test]
    fn fields_apply_only_where_the_control_map_says() {
        let mut s = CongestionSettings { enabled: true, ..Default::default() };
        s.switch.threshold = 12;
        s.switch.marking_rate = 5;
        s.switch.packet_size = 8;
        assert_eq!(Marking::from_settings(&s), None, "threshold not valid: the reset value 0");
        s.switch.control_map = THRESHOLD_VALID;
        let m = Marking::from_settings(&s).expect("marking");
        assert_eq!((m.threshold, m.rate, m.min_credits), (12, 0, 8));
        s.switch.control_map |= MARKING_RATE_VALID;
        assert_eq!(Marking::from_settings(&s).expect("marking").rate, 5);
        s.enabled = false;
        assert_eq!(Marking::from_settings(&s), None);
    }
}
