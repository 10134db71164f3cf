//! Model-independent machinery: the measurement driver every model runs
//! under, the metric set, component names and composite events.

pub mod composite;
pub mod driver;
pub mod metric_set;
pub mod names;

pub use composite::Carries;
pub use driver::{run_model, MeasurementPlan, Model};
pub use metric_set::MetricSet;
pub use names::ComponentPath;
