//! Statistics of one loop ring: tenancy, arbitration-wait and open
//! round-trip times, the time the loop is owned (utilization), and the
//! tenancy, frame and stale-win counters. Registered in the model's metric
//! set under the ring's component path, so several rings in one model keep
//! separate figures; at the root path the names are the standalone loop's.
//! Counters are never reset (conservation needs totals); the rest restarts
//! at the end of warm-up.

use crate::kernel::Time;
use crate::sim::metric_set::{DurationId, TallyId};
use crate::sim::{ComponentPath, MetricSet};

#[derive(Clone, Debug, Default)]
pub struct RingCounters {
    pub tenancies: u64,
    pub frames: u64,
    pub stale_wins: u64,
    /// Opens refused by a bridge (the opener arbitrates again).
    pub refused_opens: u64,
}

#[derive(Clone, Debug)]
pub struct RingStats {
    pub counters: RingCounters,
    pub tenancy: DurationId,
    pub arbitration_wait: DurationId,
    pub open_round_trip: DurationId,
    owned_time: TallyId,
    /// Start of the tenancy in progress (or of the measurement, if later).
    pub owned_since: Time,
}

impl RingStats {
    pub fn new(set: &mut MetricSet, path: &ComponentPath) -> Self {
        RingStats {
            counters: RingCounters::default(),
            tenancy: set.duration(path.metric("tenancy_us"), false),
            arbitration_wait: set.duration(path.metric("arbitration_wait_us"), false),
            open_round_trip: set.duration(path.metric("open_round_trip_us"), false),
            owned_time: set.tally(path.metric("loop_owned_ps")),
            owned_since: 0,
        }
    }

    /// Warm-up deletion (the metric set itself is reset by its owner); a
    /// tenancy in progress counts from `now` on.
    pub fn reset(&mut self, now: Time) {
        self.owned_since = self.owned_since.max(now);
    }

    #[inline]
    pub fn loop_released(&mut self, set: &mut MetricSet, now: Time) {
        let owned = now - self.owned_since.max(set.measure_start());
        set.add(self.owned_time, owned);
    }

    pub fn owned_time(&self, set: &MetricSet) -> Time {
        set.tally_value(self.owned_time)
    }
}
