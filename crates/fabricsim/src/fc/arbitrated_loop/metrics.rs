//! Probes of the loop model: I/O time and its parts, SCSI phase and loop
//! tenancy timings, loop utilization, throughput and per-device results.
//! Counters are never reset (conservation needs totals); the rest restarts
//! at the end of warm-up.

use crate::kernel::Time;
use crate::report::MetricSummary;
use crate::sim::metric_set::{DurationId, MeanId, SeriesId, TallyId};
use crate::sim::MetricSet;

/// Names of the I/O time components, in report order.
pub const PARTS: [&str; 8] = ["host", "queue", "overhead", "seek", "rotation", "media", "arbitration", "loop"];

/// Per disk, over the measurement window.
#[derive(Clone, Copy)]
pub struct DeviceStats {
    pub ios: TallyId,
    pub bytes: TallyId,
    pub last_completion: TallyId,
    pub io_time: MeanId,
}

#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub ios_issued: u64,
    pub ios_completed: u64,
    pub tenancies: u64,
    pub frames: u64,
    pub bytes_completed: u64,
    pub cache_hits: u64,
    pub stale_wins: u64,
}

pub struct LoopMetrics {
    pub counters: Counters,
    /// Every statistic of the measurement window.
    pub set: MetricSet,
    pub io_time: DurationId,
    pub read_time: DurationId,
    pub write_time: DurationId,
    pub parts: [MeanId; 8],
    /// Command, xfer_rdy, data, status phase spans (first ARB to last CLS).
    pub phases: [DurationId; 4],
    pub idle_command_data: DurationId,
    pub idle_data_status: DurationId,
    pub tenancy: DurationId,
    pub arbitration_wait: DurationId,
    pub open_round_trip: DurationId,
    pub trips_per_io: MeanId,
    pub tenancies_per_io: MeanId,
    pub throughput: SeriesId,
    owned_time: TallyId,
    pub owned_since: Time,
    pub devices: Vec<DeviceStats>,
}

impl LoopMetrics {
    /// Statistics of a loop with `disks` disks; per-disk names get `width` digits.
    pub fn new(disks: usize, batches: u32, batch_ps: Time) -> Self {
        let mut set = MetricSet::new(batches);
        let io_time = set.duration("io_time_us", true);
        let read_time = set.duration("read_time_us", false);
        let write_time = set.duration("write_time_us", false);
        let parts = PARTS.map(|p| set.mean(format!("io_{p}_us")));
        let phases = crate::storage::scsi::PHASES.map(|p| set.duration(format!("phase_{}_us", p.name()), false));
        let idle_command_data = set.duration("idle_command_data_us", false);
        let idle_data_status = set.duration("idle_data_status_us", false);
        let tenancy = set.duration("tenancy_us", false);
        let arbitration_wait = set.duration("arbitration_wait_us", false);
        let open_round_trip = set.duration("open_round_trip_us", false);
        let trips_per_io = set.mean("loop_trips_per_io");
        let tenancies_per_io = set.mean("tenancies_per_io");
        let throughput = set.series("throughput", batch_ps, true);
        let owned_time = set.tally("loop_owned_ps");
        let width = if disks > 100 { 3 } else { 2 };
        let devices = (0..disks)
            .map(|d| DeviceStats {
                ios: set.tally(format!("disk_{d:0width$}.ios")),
                bytes: set.tally(format!("disk_{d:0width$}.bytes")),
                last_completion: set.tally(format!("disk_{d:0width$}.last_completion_ps")),
                io_time: set.mean(format!("disk_{d:0width$}.io_time_us")),
            })
            .collect();
        LoopMetrics {
            counters: Counters::default(),
            set,
            io_time,
            read_time,
            write_time,
            parts,
            phases,
            idle_command_data,
            idle_data_status,
            tenancy,
            arbitration_wait,
            open_round_trip,
            trips_per_io,
            tenancies_per_io,
            throughput,
            owned_time,
            owned_since: 0,
            devices,
        }
    }

    /// Warm-up deletion; a tenancy in progress counts from `now` on.
    pub fn reset(&mut self, now: Time) {
        self.set.reset(now);
        self.owned_since = self.owned_since.max(now);
    }

    pub fn measure_start(&self) -> Time {
        self.set.measure_start()
    }

    #[inline]
    pub fn record(&mut self, id: DurationId, ps: Time) {
        self.set.record(id, ps);
    }

    #[inline]
    pub fn loop_released(&mut self, now: Time) {
        let owned = now - self.owned_since.max(self.set.measure_start());
        self.set.add(self.owned_time, owned);
    }

    pub fn owned_time(&self) -> Time {
        self.set.tally_value(self.owned_time)
    }

    pub fn summary(&self, id: DurationId) -> MetricSummary {
        self.set.duration_summary(id)
    }
}
