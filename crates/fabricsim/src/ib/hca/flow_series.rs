//! Each reacting flow's CCTI and what it sent, per interval of the run
//! (`ib.congestion_control.series_us`): recorded as each packet leaves and
//! each BECN arrives, so the series adds no event and changes no timing.
//! An interval in which a flow neither sent nor was told of congestion
//! has no row.

use std::collections::HashMap;

use crate::kernel::Time;

/// One flow's interval: the flow's key (destination or every destination,
/// SL), the interval's index, and what happened in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeriesRow {
    pub dst: u32,
    pub sl: u8,
    pub bin: u64,
    /// Data packets that started in the interval.
    pub packets: u32,
    /// Their time on the link (ps): over the interval, the flow's share of its link.
    pub wire: Time,
    /// The sum of the CCTIs that set their gaps (the mean: over `packets`).
    pub ccti_sum: u64,
    /// The highest CCTI seen in the interval, at a packet or a BECN.
    pub ccti_max: u16,
    /// BECNs that reached the flow in the interval.
    pub becns: u32,
}

/// The rows of one HCA's flows.
pub(super) struct FlowSeries {
    bin: Time,
    open: HashMap<(u32, u8), SeriesRow>,
    done: Vec<SeriesRow>,
}

impl FlowSeries {
    pub(super) fn new(bin: Time) -> Self {
        FlowSeries { bin, open: HashMap::new(), done: Vec::new() }
    }

    /// The open row of flow `key` for the interval holding `now`; the
    /// flow's earlier row, if any, is done.
    fn row(&mut self, key: (u32, u8), now: Time) -> &mut SeriesRow {
        let bin = now / self.bin;
        let fresh = SeriesRow { dst: key.0, sl: key.1, bin, ..Default::default() };
        let r = self.open.entry(key).or_insert(fresh);
        if r.bin != bin {
            self.done.push(std::mem::replace(r, fresh));
        }
        r
    }

    /// A data packet of flow `key` starts at `now`, `wire` long, its gap set at `ccti`.
    pub(super) fn sent(&mut self, key: (u32, u8), now: Time, wire: Time, ccti: u16) {
        let r = self.row(key, now);
        r.packets += 1;
        r.wire += wire;
        r.ccti_sum += ccti as u64;
        r.ccti_max = r.ccti_max.max(ccti);
    }

    /// A BECN reaches flow `key` at `now`, leaving its CCTI at `ccti`.
    pub(super) fn becn(&mut self, key: (u32, u8), now: Time, ccti: u16) {
        let r = self.row(key, now);
        r.becns += 1;
        r.ccti_max = r.ccti_max.max(ccti);
    }

    /// Every row, by flow and then interval.
    pub(super) fn rows(&self) -> Vec<SeriesRow> {
        let mut all: Vec<SeriesRow> = self.done.iter().chain(self.open.values()).copied().collect();
        all.sort_by_key(|r| (r.dst, r.sl, r.bin));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows close when their flow's next event falls in a later interval,
    /// and come out ordered whatever the map's order.
    #[test]
    fn rows_per_flow_and_interval() {
        let mut s = FlowSeries::new(100);
        s.sent((2, 0), 10, 5, 3);
        s.becn((2, 0), 50, 4);
        s.sent((1, 0), 60, 5, 0);
        s.sent((2, 0), 150, 5, 4);
        let rows = s.rows();
        let key = |r: &SeriesRow| (r.dst, r.bin, r.packets, r.ccti_sum, r.ccti_max, r.becns);
        assert_eq!(
            rows.iter().map(key).collect::<Vec<_>>(),
            vec![(1, 0, 1, 0, 0, 0), (2, 0, 1, 3, 4, 1), (2, 1, 1, 4, 4, 0)]
        );
    }
}
