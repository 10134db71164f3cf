//! IBA Annex A10 congestion control at the source HCA: each BECN raises
//! its flow's congestion control table index (CCTI) by `CCTI_Increase`, up
//! to `CCTI_Limit` (the table's last index); every `CCTI_Timer` period the
//! CCTI falls by one, never below `CCTI_Min`; after each packet the flow
//! waits the gap the table's entry at its CCTI gives. The readings (a
//! free-running period per CCTI, the gap from the end of one packet to the
//! start of the next, the packet's own transmission time) are declared in
//! docs/infiniband-congestion-control.md, section 2.

use crate::kernel::Time;

pub use crate::ib::congestion::{Throttling, TIMER_TICK};

/// One flow's CCTI and its timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowCc {
    ccti: u16,
    /// When the timer's current period began (while the CCTI is above its minimum).
    since: Time,
}

impl FlowCc {
    /// A flow at `CCTI_Min` of `sl` (the reading: its initial CCTI).
    pub fn new(t: &Throttling, sl: u8) -> Self {
        FlowCc { ccti: t.min[sl as usize], since: 0 }
    }

    /// The CCTI at `now`: one less for each timer period ended since it was
    /// last read, never below the minimum; the timer runs while the CCTI
    /// is above it and is not restarted by a BECN.
    pub fn ccti(&mut self, t: &Throttling, sl: u8, now: Time) -> u16 {
        let (period, min) = (t.period[sl as usize], t.min[sl as usize]);
        if period > 0 && self.ccti > min && now >= self.since {
            let ended = (now - self.since) / period;
            self.ccti -= ended.min((self.ccti - min) as Time) as u16;
            self.since += ended * period;
        }
        self.ccti
    }

    /// A BECN at `now`: the CCTI rises by `CCTI_Increase`, at most to
    /// `CCTI_Limit`. Returns whether it reached `Trigger_Threshold` from
    /// below (a congestion log entry).
    pub fn becn(&mut self, t: &Throttling, sl: u8, now: Time) -> bool {
        let before = self.ccti(t, sl, now);
        if before == t.min[sl as usize] {
            // The timer starts with the first rise above the minimum.
            self.since = now;
        }
        self.ccti = (before + t.increase[sl as usize]).min(t.limit());
        let trigger = t.trigger[sl as usize];
        trigger > 0 && before < trigger && self.ccti >= trigger
    }

    /// Whether the flow is at its minimum at `now` (it holds nothing a new flow would not).
    pub fn at_rest(&mut self, t: &Throttling, sl: u8, now: Time) -> bool {
        self.ccti(t, sl, now) == t.min[sl as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ib_congestion::{CaEntry, CctEntry, CongestionSettings};

    fn throttling(cct: &[(u8, u16)], timer: u16, increase: u8, min: u8) -> Throttling {
        let mut s = CongestionSettings { enabled: true, ..Default::default() };
        s.ca.control_map = 1 << 3;
        s.ca.entries[3] = CaEntry { ccti_timer: timer, ccti_increase: increase, trigger_threshold: 3, ccti_min: min };
        s.cct = cct.iter().map(|&(shift, multiplier)| CctEntry { shift, multiplier }).collect();
        Throttling::from_settings(&s).expect("SL 3 is controlled")
    }

    /// The gap is the packet time times multiplier / 2^shift: an IBA-style
    /// table whose entry i is i packet times (shift 0), and entries with
    /// shifts 1-3 halving, quartering and eighthing their multiplier.
    #[test]
    fn the_table_entry_sets_the_gap() {
        let t = throttling(&[(0, 0), (0, 1), (0, 2), (1, 3), (2, 8), (3, 100)], 0, 1, 0);
        let packet = 4_200_000; // a 1,050-byte packet at 250 MB/s, in ps
        let gaps: Vec<Time> = (0..6).map(|i| t.gap(i, packet)).collect();
        assert_eq!(gaps, [0, 4_200_000, 8_400_000, 6_300_000, 8_400_000, 52_500_000]);
        assert_eq!(t.limit(), 5);
    }

    /// BECNs raise the CCTI by the increase up to the limit; the timer
    /// takes one away per period, never below the minimum, and runs from
    /// the first rise, not restarted by later BECNs.
    #[test]
    fn the_ccti_rises_per_becn_and_falls_by_one_per_period() {
        let t = throttling(&[(0, 0); 8], 10, 2, 1);
        let period = 10 * TIMER_TICK;
        let mut f = FlowCc::new(&t, 3);
        assert_eq!(f.ccti(&t, 3, 0), 1, "starts at CCTI_Min");
        assert!(f.becn(&t, 3, 5), "1 + 2 = 3 reaches the trigger threshold from below");
        assert_eq!(f.ccti(&t, 3, 5), 3);
        assert!(!f.becn(&t, 3, 5 + period / 2), "already at or above the trigger");
        assert_eq!(f.ccti(&t, 3, 5 + period / 2), 5, "a BECN does not restart the timer");
        assert_eq!(f.ccti(&t, 3, 5 + period), 4, "one period after the first rise");
        assert_eq!(f.ccti(&t, 3, 5 + 3 * period - 1), 3);
        assert_eq!(f.ccti(&t, 3, 5 + 100 * period), 1, "never below CCTI_Min");
        for _ in 0..10 {
            f.becn(&t, 3, 5 + 100 * period);
        }
        assert_eq!(f.ccti(&t, 3, 5 + 100 * period), 7, "saturates at CCTI_Limit");
        assert!(!f.at_rest(&t, 3, 5 + 100 * period));
        assert!(f.at_rest(&t, 3, 5 + 107 * period));
    }

    /// No timer (0): the CCTI never falls. An empty table reads as one
    /// entry of no delay; SLs outside the control map do not react.
    #[test]
    fn without_a_timer_the_ccti_stays_and_an_empty_table_never_delays() {
        let t = throttling(&[], 0, 1, 0);
        assert_eq!((t.limit(), t.gap(0, 1_000)), (0, 0));
        assert!(t.controls(3) && !t.controls(2));
        let t = throttling(&[(0, 0), (0, 1), (0, 2)], 0, 1, 0);
        let mut f = FlowCc::new(&t, 3);
        f.becn(&t, 3, 0);
        assert_eq!(f.ccti(&t, 3, Time::MAX / 2), 1);
    }
}
