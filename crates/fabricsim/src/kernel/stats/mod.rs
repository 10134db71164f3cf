//! Output statistics for simulation runs.
//!
//! Everything here is designed to be updated once per simulated event, so the
//! hot-path methods never allocate: every buffer is sized at construction and
//! reused across [`reset`](BatchMeans::reset) (warm-up deletion).
//!
//! * [`DurationProbe`] — the one duration metric of every model: exact
//!   mean and extremes, percentiles and a batch-means interval.
//! * [`Welford`] — numerically stable running mean/variance of observations.
//! * [`BatchMeans`] / [`TimeBatchMeans`] — steady-state confidence intervals
//!   for correlated output (per observation / per unit of simulated time),
//!   with bounded memory via batch doubling.
//! * [`TimeWeighted`] / [`LevelHistogram`] — exact time averages of
//!   piecewise-constant levels (queue lengths, buffer occupancy).
//! * [`LogHistogram`] — fixed-size log-linear histogram for latency
//!   percentiles.
//! * [`StopRule`] — sequential stopping on relative precision.
//!
//! Simulated time is an integer number of picoseconds (`u64`).

pub mod batch_means;
pub mod confidence;
pub mod duration_probe;
pub mod histogram;
pub mod normal;
pub mod stop_rule;
pub mod student_t;
pub mod time_batch_means;
pub mod time_weighted;
pub mod welford;

pub use batch_means::BatchMeans;
pub use confidence::ConfidenceInterval;
pub use duration_probe::DurationProbe;
pub use histogram::LogHistogram;
pub use stop_rule::{StopDecision, StopRule};
pub use student_t::t_quantile_975;
pub use time_batch_means::TimeBatchMeans;
pub use time_weighted::{LevelHistogram, TimeWeighted};
pub use welford::Welford;
