//! One simulation run of a scenario, whatever model it names.

use crate::error::Result;
use crate::fc::arbitrated_loop::LoopModel;
use crate::fc::{FcFabric, SwitchedLoopModel};
use crate::ib::IbFabric;
use crate::report::RunReport;
use crate::scenario::{ModelSpec, Scenario};
use crate::sim::{run_model_observed, MeasurementPlan, RunObserver, Unobserved};
use crate::transport::NetperfModel;

/// Builds the model a validated scenario describes and runs its measurement plan.
pub fn run(scenario: &Scenario) -> Result<RunReport> {
    run_observed(scenario, &mut Unobserved)
}

/// As [`run`], with an observer that sees progress and may stop the run.
pub fn run_observed<O: RunObserver>(scenario: &Scenario, observer: &mut O) -> Result<RunReport> {
    let mut report = run_model_of(scenario, observer)?;
    report.scenario = scenario.to_json();
    Ok(report)
}

fn run_model_of<O: RunObserver>(scenario: &Scenario, observer: &mut O) -> Result<RunReport> {
    match &scenario.model {
        ModelSpec::FcFabric(_) => {
            let plan = MeasurementPlan::from_run(&scenario.run, false);
            run_model_observed(FcFabric::build(scenario)?, &plan, observer)
        }
        ModelSpec::ArbitratedLoop(spec) => {
            let plan = MeasurementPlan::from_run(&scenario.run, spec.initiator.fixed_work());
            run_model_observed(LoopModel::build(scenario)?, &plan, observer)
        }
        ModelSpec::InfiniBand(_) => {
            let plan = MeasurementPlan::from_run(&scenario.run, false);
            run_model_observed(IbFabric::build(scenario)?, &plan, observer)
        }
        ModelSpec::SwitchedLoop(_) => {
            let plan = MeasurementPlan::from_run(&scenario.run, false);
            run_model_observed(SwitchedLoopModel::build(scenario)?, &plan, observer)
        }
        ModelSpec::TcpNetperf(_) => {
            let plan = MeasurementPlan::from_run(&scenario.run, true);
            run_model_observed(NetperfModel::build(scenario)?, &plan, observer)
        }
    }
}

/// Builds the model without running it: the checks that need the model
/// (topology, routing, node numbers, drive names) as `run` makes them.
pub fn check(scenario: &Scenario) -> Result<()> {
    match scenario.model {
        ModelSpec::FcFabric(_) => FcFabric::build(scenario).map(|_| ()),
        ModelSpec::ArbitratedLoop(_) => LoopModel::build(scenario).map(|_| ()),
        ModelSpec::InfiniBand(_) => IbFabric::build(scenario).map(|_| ()),
        ModelSpec::SwitchedLoop(_) => SwitchedLoopModel::build(scenario).map(|_| ()),
        ModelSpec::TcpNetperf(_) => NetperfModel::build(scenario).map(|_| ()),
    }
}

/// The fabric, forwarding tables and deadlock analysis of a switched-fabric
/// scenario (`fabricsim routing`).
pub fn routing(scenario: &Scenario) -> Result<serde_json::Value> {
    match &scenario.model {
        ModelSpec::FcFabric(_) => crate::fabric::report::routing_report(scenario),
        ModelSpec::InfiniBand(spec) => {
            let topo = crate::ib::wiring::topology(spec)?;
            crate::ib::footprint::Footprint::routing(&topo).check(&topo, scenario.run.memory_budget_mb)?;
            crate::ib::wiring::routing_report(spec)
        }
        ModelSpec::TcpNetperf(_) => Err(crate::Error::scenario(
            "a netperf scenario has one switch and two hosts; `fabricsim routing` needs a switched fabric".to_string(),
        )),
        ModelSpec::ArbitratedLoop(_) => Err(crate::Error::scenario(
            "an arbitrated loop has no switches or routing; `fabricsim routing` needs a switched fabric".to_string(),
        )),
        ModelSpec::SwitchedLoop(_) => Err(crate::Error::scenario(
            "switched loops have one switch and no routing; `fabricsim routing` needs a switched fabric".to_string(),
        )),
    }
}
