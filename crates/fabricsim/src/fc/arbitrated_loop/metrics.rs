//! Probes of the loop model: I/O time and its parts, SCSI phase and loop
//! tenancy timings, loop utilization, throughput and per-device results.
//! Counters are never reset (conservation needs totals); the rest restarts
//! at the end of warm-up.

use crate::kernel::stats::{BatchMeans, ConfidenceInterval, LogHistogram, TimeBatchMeans};
use crate::kernel::Time;
use crate::report::MetricSummary;

/// A duration metric: percentiles, an exact minimum, a batch-means CI.
pub struct Probe {
    hist: LogHistogram,
    batches: BatchMeans,
    min: Time,
}

impl Probe {
    pub fn new(batches: u32) -> Self {
        Probe { hist: LogHistogram::new(), batches: BatchMeans::new(batches), min: Time::MAX }
    }

    #[inline]
    pub fn record(&mut self, ps: Time) {
        self.hist.record(ps);
        self.batches.add(ps as f64 * 1e-6);
        self.min = self.min.min(ps);
    }

    pub fn count(&self) -> u64 {
        self.hist.count()
    }

    pub fn interval(&self) -> Option<ConfidenceInterval> {
        self.batches.interval()
    }

    pub fn reset(&mut self) {
        self.hist.reset();
        self.batches.reset();
        self.min = Time::MAX;
    }

    /// In microseconds; the mean comes from the batch sums (exact), the percentiles from the histogram.
    pub fn summary(&self) -> MetricSummary {
        let n = self.hist.count();
        let us = |ps: u64| ps as f64 * 1e-6;
        let pct = |p: f64| (n > 0).then(|| us(self.hist.percentile(p)));
        MetricSummary {
            mean: if n > 0 { self.batches.mean() } else { f64::NAN },
            ci_half_width: self.batches.interval().map(|c| c.half_width),
            count: Some(n),
            min: (n > 0).then(|| us(self.min)),
            p50: pct(50.0),
            p95: pct(95.0),
            p99: pct(99.0),
            max: pct(100.0),
            distribution: None,
        }
    }
}

/// A plain running mean (components of the I/O time).
#[derive(Clone, Copy, Default)]
pub struct Mean {
    sum: f64,
    n: u64,
}

impl Mean {
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }
    pub fn mean(&self) -> f64 {
        if self.n > 0 {
            self.sum / self.n as f64
        } else {
            f64::NAN
        }
    }
}

/// Names of the I/O time components, in report order.
pub const PARTS: [&str; 8] = ["host", "queue", "overhead", "seek", "rotation", "media", "arbitration", "loop"];

#[derive(Clone, Copy, Default)]
pub struct DeviceStats {
    pub ios: u64,
    pub bytes: u64,
    pub last_completion: Time,
    pub io_time: Mean,
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
    pub io_time: Probe,
    pub read_time: Probe,
    pub write_time: Probe,
    pub parts: [Mean; 8],
    /// Command, xfer_rdy, data, status phase spans (first ARB to last CLS).
    pub phases: [Probe; 4],
    pub idle_command_data: Probe,
    pub idle_data_status: Probe,
    pub tenancy: Probe,
    pub arbitration_wait: Probe,
    pub open_round_trip: Probe,
    pub trips_per_io: Mean,
    pub tenancies_per_io: Mean,
    pub throughput: TimeBatchMeans,
    pub owned_time: Time,
    pub owned_since: Time,
    pub devices: Vec<DeviceStats>,
    pub measure_start: Time,
    completed_at_reset: u64,
}

impl LoopMetrics {
    pub fn new(disks: usize, batches: u32, batch_ps: Time) -> Self {
        LoopMetrics {
            counters: Counters::default(),
            io_time: Probe::new(batches),
            read_time: Probe::new(batches),
            write_time: Probe::new(batches),
            parts: [Mean::default(); 8],
            phases: std::array::from_fn(|_| Probe::new(batches)),
            idle_command_data: Probe::new(batches),
            idle_data_status: Probe::new(batches),
            tenancy: Probe::new(batches),
            arbitration_wait: Probe::new(batches),
            open_round_trip: Probe::new(batches),
            trips_per_io: Mean::default(),
            tenancies_per_io: Mean::default(),
            throughput: TimeBatchMeans::new(0, batch_ps, batches),
            owned_time: 0,
            owned_since: 0,
            devices: vec![DeviceStats::default(); disks],
            measure_start: 0,
            completed_at_reset: 0,
        }
    }

    pub fn reset(&mut self, now: Time) {
        for p in [
            &mut self.io_time,
            &mut self.read_time,
            &mut self.write_time,
            &mut self.idle_command_data,
            &mut self.idle_data_status,
            &mut self.tenancy,
            &mut self.arbitration_wait,
            &mut self.open_round_trip,
        ] {
            p.reset();
        }
        self.phases.iter_mut().for_each(Probe::reset);
        self.parts = [Mean::default(); 8];
        self.trips_per_io = Mean::default();
        self.tenancies_per_io = Mean::default();
        self.throughput.reset(now);
        self.owned_time = 0;
        self.owned_since = self.owned_since.max(now);
        self.devices.iter_mut().for_each(|d| *d = DeviceStats::default());
        self.measure_start = now;
        self.completed_at_reset = self.counters.ios_completed;
    }

    pub fn measured_ios(&self) -> u64 {
        self.counters.ios_completed - self.completed_at_reset
    }

    #[inline]
    pub fn loop_released(&mut self, now: Time) {
        self.owned_time += now - self.owned_since.max(self.measure_start);
    }
}
