//! One simulation run of a scenario, whatever model it names.

use crate::fc::FcFabric;
use crate::report::RunReport;
use crate::scenario::{Result, Scenario};

/// Builds the model a validated scenario describes and runs its measurement plan.
pub fn run(scenario: &Scenario) -> Result<RunReport> {
    if scenario.fabric.kind == crate::scenario::FabricKind::Loop {
        return crate::fc::arbitrated_loop::LoopModel::build(scenario)?.run();
    }
    let mut fabric = FcFabric::build(scenario)?;
    fabric.run()
}
