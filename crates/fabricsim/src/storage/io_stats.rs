//! Statistics of an initiator's I/Os: I/O time (all, reads, writes) and
//! its parts, SCSI phase spans and the idle gaps between them, loop trips
//! and tenancies per I/O, throughput, and per-target results. Registered in
//! the model's metric set under the initiator's component path; at the root
//! path the names are the standalone loop's (`io_time_us`, `disk_03.ios`).
//! They restart at the end of warm-up (the initiator's counters do not).

use super::exchange::PARTS;
use super::scsi::PHASES;
use crate::kernel::Time;
use crate::sim::metric_set::{DurationId, MeanId, SeriesId, TallyId};
use crate::sim::{ComponentPath, MetricSet};

/// Per target disk, over the measurement window.
#[derive(Clone, Copy, Debug)]
pub struct DeviceStats {
    pub ios: TallyId,
    pub bytes: TallyId,
    pub last_completion: TallyId,
    pub io_time: MeanId,
}

#[derive(Clone, Debug)]
pub struct IoStats {
    pub io_time: DurationId,
    pub read_time: DurationId,
    pub write_time: DurationId,
    pub parts: [MeanId; 8],
    /// Command, xfer_rdy, data, status phase spans (first ARB to last CLS).
    pub phases: [DurationId; 4],
    pub idle_command_data: DurationId,
    pub idle_data_status: DurationId,
    pub trips_per_io: MeanId,
    pub tenancies_per_io: MeanId,
    pub throughput: SeriesId,
    pub devices: Vec<DeviceStats>,
}

impl IoStats {
    /// Statistics of I/Os to `disks` targets, throughput in batches of
    /// initially `batch_ps`; per-disk names get two digits, three past 100 disks.
    pub fn new(set: &mut MetricSet, path: &ComponentPath, disks: usize, batch_ps: Time) -> Self {
        let io_time = set.duration(path.metric("io_time_us"), true);
        let read_time = set.duration(path.metric("read_time_us"), false);
        let write_time = set.duration(path.metric("write_time_us"), false);
        let parts = PARTS.map(|p| set.mean(path.metric(&format!("io_{p}_us"))));
        let phases = PHASES.map(|p| set.duration(path.metric(&format!("phase_{}_us", p.name())), false));
        let idle_command_data = set.duration(path.metric("idle_command_data_us"), false);
        let idle_data_status = set.duration(path.metric("idle_data_status_us"), false);
        let trips_per_io = set.mean(path.metric("loop_trips_per_io"));
        let tenancies_per_io = set.mean(path.metric("tenancies_per_io"));
        let throughput = set.series(path.metric("throughput"), batch_ps, true);
        let width = device_digits(disks);
        let devices = (0..disks)
            .map(|d| DeviceStats {
                ios: set.tally(path.metric(&format!("disk_{d:0width$}.ios"))),
                bytes: set.tally(path.metric(&format!("disk_{d:0width$}.bytes"))),
                last_completion: set.tally(path.metric(&format!("disk_{d:0width$}.last_completion_ps"))),
                io_time: set.mean(path.metric(&format!("disk_{d:0width$}.io_time_us"))),
            })
            .collect();
        IoStats {
            io_time,
            read_time,
            write_time,
            parts,
            phases,
            idle_command_data,
            idle_data_status,
            trips_per_io,
            tenancies_per_io,
            throughput,
            devices,
        }
    }
}

/// Digits of per-disk names (`disk_07`, or `disk_007` past 100 disks).
pub fn device_digits(disks: usize) -> usize {
    if disks > 100 {
        3
    } else {
        2
    }
}
