//! One simulation run of a scenario, whatever model it names: one row per
//! model says which type the scenario's sections build, whether its run is
//! fixed work, and what `fabricsim routing` reports for it.

use crate::error::{Error, Result};
use crate::fc::arbitrated_loop::LoopModel;
use crate::fc::{FcFabric, SwitchedLoopModel};
use crate::ib::IbFabric;
use crate::report::RunReport;
use crate::scenario::{ModelSpec, Scenario};
use crate::sim::{run_model_observed, MeasurementPlan, RunObserver, Unobserved};
use crate::transport::NetperfModel;

macro_rules! models {
    ($s:ident; $($kind:ident($spec:pat) => $model:ty, fixed_work: $fixed:expr, routing: $routing:expr;)*) => {
        #[allow(unused_variables)]
        fn run_model_of<O: RunObserver>($s: &Scenario, observer: &mut O) -> Result<RunReport> {
            match &$s.model {
                $(ModelSpec::$kind($spec) => {
                    let plan = MeasurementPlan::from_run(&$s.run, $fixed);
                    run_model_observed(<$model>::build($s)?, &plan, observer)
                })*
            }
        }

        /// Builds the model without running it: the checks that need the model
        /// (topology, routing, node numbers, drive names) as `run` makes them.
        pub fn check($s: &Scenario) -> Result<()> {
            match &$s.model {
                $(ModelSpec::$kind(_) => <$model>::build($s).map(|_| ()),)*
            }
        }

        /// The fabric, forwarding tables and deadlock analysis of a switched-fabric
        /// scenario (`fabricsim routing`).
        #[allow(unused_variables)]
        pub fn routing($s: &Scenario) -> Result<serde_json::Value> {
            match &$s.model {
                $(ModelSpec::$kind($spec) => $routing,)*
            }
        }
    };
}

fn no_routing(why: &str) -> Result<serde_json::Value> {
    Err(Error::scenario(format!("{why}; `fabricsim routing` needs a switched fabric")))
}

models! {
    scenario;
    FcFabric(_) => FcFabric, fixed_work: false, routing: crate::fc::wiring::routing_report(scenario);
    ArbitratedLoop(spec) => LoopModel, fixed_work: spec.initiator.fixed_work(),
        routing: no_routing("an arbitrated loop has no switches or routing");
    InfiniBand(spec) => IbFabric, fixed_work: false, routing: {
        let topo = crate::ib::wiring::topology(spec)?;
        crate::ib::footprint::Footprint::routing(&topo, spec.routing_algorithm()).check(&topo, scenario.run.memory_budget_mb)?;
        crate::ib::wiring::routing_report(spec)
    };
    SwitchedLoop(_) => SwitchedLoopModel, fixed_work: false,
        routing: no_routing("switched loops have one switch and no routing");
    TcpNetperf(_) => NetperfModel, fixed_work: true,
        routing: no_routing("a netperf scenario has one switch and two hosts");
}

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
