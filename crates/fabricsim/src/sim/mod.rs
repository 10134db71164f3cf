//! Model-independent machinery: the measurement driver every model runs
//! under, the metric set, links between component ports, and component names.

pub mod driver;
pub mod link;
pub mod metric_set;
pub mod names;

pub use driver::{run_model, run_model_observed, MeasurementPlan, Model, Progress, RunObserver, Unobserved};
pub use link::{ComponentKind, Link, PortEvents, PortRef};
pub use metric_set::MetricSet;
pub use names::ComponentPath;
