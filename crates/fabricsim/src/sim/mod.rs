//! Model-independent machinery: the scheduling context every handler takes,
//! the watcher of a long build,
//! the model trait and the measurement driver every model runs under and the simulation (model
//! and clock) it steps, the metric set, links between component ports,
//! composite events and component names.

pub mod build_watch;
pub mod clock;
pub mod component;
pub mod composite;
pub mod deferred;
pub mod driver;
pub mod link;
pub mod metric_set;
pub mod model;
pub mod names;
pub mod simulation;

pub use clock::Clock;
pub use component::{Clocked, Context, Schedule};
pub use composite::Carries;
pub use deferred::Deferred;
pub use driver::{run_model, run_model_observed, MeasurementPlan, Progress, RunObserver, Unobserved};
pub use link::{ComponentKind, Delivery, Link, PortRef};
pub use metric_set::MetricSet;
pub use model::{Model, ModelInfo, Status, Summary};
pub use names::ComponentPath;
pub use simulation::Simulation;
