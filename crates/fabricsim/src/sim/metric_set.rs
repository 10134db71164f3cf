//! The metric set of a model: every statistic a model keeps over the
//! measurement window, registered by name (a component path such as
//! `frame_latency_us` or `disk_03.io_time_us`), so that one call resets them
//! all at the end of warm-up and the driver can check that every reportable
//! one reaches the report. Models hold the typed ids and record through
//! them; an id is an index, so recording is a bounds-checked array access.
//! The driver refuses a report that leaves out a registered duration probe.

use crate::kernel::stats::{ConfidenceInterval, DurationProbe, LevelHistogram, TimeBatchMeans};
use crate::kernel::Time;
use crate::report::MetricSummary;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationId(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeanId(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesId(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelsId(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TallyId(u32);

/// Statistics and their names are kept apart so that recording walks
/// tightly packed statistics only.
/// A mean of observations: a sum and a count. Only the mean is reported,
/// and the hot loops record many (parts of every I/O), so no variance is
/// kept (a Welford update would cost a division per observation).
#[derive(Clone, Copy, Debug, Default)]
pub struct RunningMean {
    sum: f64,
    count: u64,
}

impl RunningMean {
    #[inline]
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.count += 1;
    }

    /// The mean (NaN when nothing was observed).
    pub fn mean(&self) -> f64 {
        if self.count > 0 {
            self.sum / self.count as f64
        } else {
            f64::NAN
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}

pub struct MetricSet {
    batches: u32,
    durations: Vec<DurationProbe>,
    duration_names: Vec<String>,
    means: Vec<RunningMean>,
    mean_names: Vec<String>,
    /// Time series: impulses (throughput) or piecewise-constant levels.
    series: Vec<TimeBatchMeans>,
    series_names: Vec<String>,
    levels: Vec<LevelHistogram>,
    level_names: Vec<String>,
    /// Counts and sums over the measurement window (unlike a model's
    /// counters, which cover the whole run for the conservation audit).
    tallies: Vec<u64>,
    tally_names: Vec<String>,
    headline_durations: Vec<DurationId>,
    headline_series: Vec<SeriesId>,
    measure_start: Time,
}

impl MetricSet {
    /// An empty set whose estimators aim at `batches` batch means.
    pub fn new(batches: u32) -> Self {
        MetricSet {
            batches,
            durations: Vec::new(),
            duration_names: Vec::new(),
            means: Vec::new(),
            mean_names: Vec::new(),
            series: Vec::new(),
            series_names: Vec::new(),
            levels: Vec::new(),
            level_names: Vec::new(),
            tallies: Vec::new(),
            tally_names: Vec::new(),
            headline_durations: Vec::new(),
            headline_series: Vec::new(),
            measure_start: 0,
        }
    }

    /// Registers a duration probe; a headline one is watched by the stop rule.
    pub fn duration(&mut self, name: impl Into<String>, headline: bool) -> DurationId {
        let id = DurationId(self.durations.len() as u32);
        self.durations.push(DurationProbe::new(self.batches));
        self.duration_names.push(name.into());
        if headline {
            self.headline_durations.push(id);
        }
        id
    }

    /// Registers a plain running mean of observations.
    pub fn mean(&mut self, name: impl Into<String>) -> MeanId {
        self.means.push(RunningMean::default());
        self.mean_names.push(name.into());
        MeanId(self.means.len() as u32 - 1)
    }

    /// Registers a time series with batches of initially `batch_ps`.
    pub fn series(&mut self, name: impl Into<String>, batch_ps: Time, headline: bool) -> SeriesId {
        let id = SeriesId(self.series.len() as u32);
        self.series_names.push(name.into());
        self.series.push(TimeBatchMeans::new(0, batch_ps, self.batches));
        if headline {
            self.headline_series.push(id);
        }
        id
    }

    /// Registers a histogram of time spent at levels 0..=max_level.
    pub fn levels(&mut self, name: impl Into<String>, max_level: usize) -> LevelsId {
        self.level_names.push(name.into());
        self.levels.push(LevelHistogram::new(max_level, 0));
        LevelsId(self.levels.len() as u32 - 1)
    }

    pub fn tally(&mut self, name: impl Into<String>) -> TallyId {
        self.tally_names.push(name.into());
        self.tallies.push(0);
        TallyId(self.tallies.len() as u32 - 1)
    }

    #[inline]
    pub fn record(&mut self, id: DurationId, ps: Time) {
        self.durations[id.0 as usize].record(ps);
    }

    #[inline]
    pub fn observe(&mut self, id: MeanId, x: f64) {
        self.means[id.0 as usize].add(x);
    }

    #[inline]
    pub fn impulse(&mut self, id: SeriesId, now: Time, amount: f64) {
        self.series[id.0 as usize].add_impulse(now, amount);
    }

    /// [`TimeBatchMeans::set_level_adding`] on series `id`.
    #[inline]
    pub fn set_level_adding(&mut self, id: SeriesId, now: Time, level: f64, amount: f64) {
        self.series[id.0 as usize].set_level_adding(now, level, amount);
    }

    #[inline]
    pub fn set_level(&mut self, id: SeriesId, now: Time, level: f64) {
        self.series[id.0 as usize].set_level(now, level);
    }

    #[inline]
    pub fn set_levels(&mut self, id: LevelsId, now: Time, level: usize) {
        self.levels[id.0 as usize].set(now, level);
    }

    #[inline]
    pub fn add(&mut self, id: TallyId, n: u64) {
        self.tallies[id.0 as usize] += n;
    }

    /// Raises a tally to `v` (latest completion times and other maxima).
    #[inline]
    pub fn raise(&mut self, id: TallyId, v: u64) {
        let t = &mut self.tallies[id.0 as usize];
        *t = (*t).max(v);
    }

    pub fn probe(&self, id: DurationId) -> &DurationProbe {
        &self.durations[id.0 as usize]
    }

    pub fn running_mean(&self, id: MeanId) -> &RunningMean {
        &self.means[id.0 as usize]
    }

    pub fn time_series(&self, id: SeriesId) -> &TimeBatchMeans {
        &self.series[id.0 as usize]
    }

    pub fn level_histogram(&self, id: LevelsId) -> &LevelHistogram {
        &self.levels[id.0 as usize]
    }

    pub fn tally_value(&self, id: TallyId) -> u64 {
        self.tallies[id.0 as usize]
    }

    /// Start of the measurement window (end of warm-up).
    pub fn measure_start(&self) -> Time {
        self.measure_start
    }

    /// Warm-up deletion: forgets every observation of every registered statistic.
    pub fn reset(&mut self, now: Time) {
        self.durations.iter_mut().for_each(DurationProbe::reset);
        self.means.iter_mut().for_each(|m| *m = RunningMean::default());
        self.series.iter_mut().for_each(|s| s.reset(now));
        self.levels.iter_mut().for_each(|h| h.reset(now));
        self.tallies.iter_mut().for_each(|t| *t = 0);
        self.measure_start = now;
    }

    /// Closes the time series at `now` before results are read.
    pub fn finish(&mut self, now: Time) {
        self.series.iter_mut().for_each(|s| s.finish(now));
    }

    /// The intervals the stop rule watches, written into `out` (kept to avoid allocating).
    pub fn headline_intervals(&self, out: &mut Vec<Option<ConfidenceInterval>>) {
        out.clear();
        out.extend(self.headline_durations.iter().map(|&id| self.probe(id).interval()));
        out.extend(self.headline_series.iter().map(|&id| self.time_series(id).interval()));
    }

    /// A duration's summary in microseconds: exact mean and extremes, percentiles, CI.
    pub fn duration_summary(&self, id: DurationId) -> MetricSummary {
        let p = self.probe(id);
        MetricSummary {
            mean: p.mean_us(),
            ci_half_width: p.interval().map(|ci| ci.half_width),
            count: Some(p.count()),
            min: p.percentile_us(0.0),
            p50: p.percentile_us(50.0),
            p95: p.percentile_us(95.0),
            p99: p.percentile_us(99.0),
            max: p.percentile_us(100.0),
            distribution: None,
        }
    }

    /// Every duration probe's summary under its name, in registration
    /// order, so a model need not list its probes again to report them.
    pub fn duration_summaries(&self) -> impl Iterator<Item = (String, MetricSummary)> + '_ {
        (0..self.durations.len() as u32).map(|i| {
            let id = DurationId(i);
            (self.duration_name(id).to_string(), self.duration_summary(id))
        })
    }

    /// A running mean's summary (NaN when nothing was observed).
    pub fn mean_summary(&self, id: MeanId) -> MetricSummary {
        let m = self.running_mean(id);
        MetricSummary::value(m.mean())
    }

    pub fn duration_name(&self, id: DurationId) -> &str {
        &self.duration_names[id.0 as usize]
    }

    /// Every registered statistic's name, for diagnostics.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [&self.duration_names, &self.mean_names, &self.series_names, &self.level_names, &self.tally_names]
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    pub fn mean_name(&self, id: MeanId) -> &str {
        &self.mean_names[id.0 as usize]
    }

    /// Names of the duration probes, each of which must appear in the report
    /// (means, series and tallies may be reported through derived figures).
    pub fn reportable_names(&self) -> impl Iterator<Item = &str> {
        self.duration_names.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_forgets_every_registered_statistic() {
        let mut m = MetricSet::new(4);
        let d = m.duration("latency_us", true);
        let a = m.mean("parts");
        let s = m.series("throughput", 1000, true);
        let t = m.tally("frames");
        m.record(d, 5_000_000);
        m.observe(a, 2.0);
        m.impulse(s, 10, 100.0);
        m.add(t, 3);
        m.reset(50);
        assert_eq!(m.probe(d).count(), 0);
        assert_eq!(m.running_mean(a).count(), 0);
        assert_eq!(m.tally_value(t), 0);
        assert_eq!(m.measure_start(), 50);
        assert!(m.mean_summary(a).mean.is_nan());
        let mut out = Vec::new();
        m.headline_intervals(&mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn duration_summary_is_in_microseconds_with_exact_extremes() {
        let mut m = MetricSet::new(4);
        let d = m.duration("x", false);
        for ps in [1_000_000, 3_000_000, 2_000_000] {
            m.record(d, ps);
        }
        let s = m.duration_summary(d);
        assert_eq!(s.mean, 2.0);
        assert_eq!(s.min, Some(1.0));
        assert_eq!(s.max, Some(3.0));
        assert_eq!(s.count, Some(3));
        m.mean("not_reported_as_is");
        assert_eq!(m.reportable_names().collect::<Vec<_>>(), vec!["x"]);
        m.duration("y", false);
        let names: Vec<String> = m.duration_summaries().map(|(n, _)| n).collect();
        assert_eq!(names, ["x", "y"], "every probe, in registration order");
    }
}
