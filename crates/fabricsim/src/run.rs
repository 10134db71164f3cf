//! One simulation run of a scenario, whatever model it names.

use crate::error::Result;
use crate::fc::arbitrated_loop::LoopModel;
use crate::fc::FcFabric;
use crate::report::RunReport;
use crate::scenario::{ModelSpec, Scenario};

/// Builds the model a validated scenario describes and runs its measurement plan.
pub fn run(scenario: &Scenario) -> Result<RunReport> {
    match scenario.model {
        ModelSpec::FcFabric(_) => FcFabric::build(scenario)?.run(),
        ModelSpec::ArbitratedLoop(_) => LoopModel::build(scenario)?.run(),
    }
}

/// Builds the model without running it: the checks that need the model
/// (topology, routing, node numbers, drive names) as `run` makes them.
pub fn check(scenario: &Scenario) -> Result<()> {
    match scenario.model {
        ModelSpec::FcFabric(_) => FcFabric::build(scenario).map(|_| ()),
        ModelSpec::ArbitratedLoop(_) => LoopModel::build(scenario).map(|_| ()),
    }
}
