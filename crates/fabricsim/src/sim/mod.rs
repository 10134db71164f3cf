//! Model-independent machinery: the measurement driver every model runs
//! under and the clock it steps, the metric set, links between component
//! ports, composite events and component names.

pub mod clock;
pub mod composite;
pub mod driver;
pub mod link;
pub mod metric_set;
pub mod names;

pub use clock::Clock;
pub use composite::Carries;
pub use driver::{run_model, run_model_observed, MeasurementPlan, Model, Progress, RunObserver, Unobserved};
pub use link::{ComponentKind, Link, PortEvents, PortRef};
pub use metric_set::MetricSet;
pub use names::ComponentPath;
