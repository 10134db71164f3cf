//! One simulation run of a scenario, whatever model it names.

use crate::fc::FcFabric;
use crate::report::RunReport;
use crate::scenario::{Result, Scenario};

/// Builds the model a validated scenario describes and runs its measurement plan.
pub fn run(scenario: &Scenario) -> Result<RunReport> {
    let mut fabric = FcFabric::build(scenario)?;
    fabric.run()
}
