//! Model-independent machinery: the measurement driver every model runs
//! under, the metric set, and component names.

pub mod driver;
pub mod metric_set;
pub mod names;

pub use driver::{run_model, MeasurementPlan, Model};
pub use metric_set::MetricSet;
pub use names::ComponentPath;
