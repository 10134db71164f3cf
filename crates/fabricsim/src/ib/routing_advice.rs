//! What a run says before it starts when its data routing has a cycle of
//! channel dependencies (the static check of `fabric::deadlock`): that the
//! run may deadlock, and which routings would not on this fabric. Up*/Down*
//! (OpenSM's `updn` from the roots it finds, seed 003's `updown` from
//! switch 1) are acyclic by construction; min-hop and D-Mod-K are minimal
//! routings whose verdict depends on the fabric, so they are checked here.

use crate::error::Result;
use crate::fabric::deadlock::{analyze, DependencyReport};
use crate::fabric::routing::updn::opensm_roots;
use crate::fabric::routing::{endpoint_tables, RoutingParams};
use crate::fabric::topology::Topology;
use crate::scenario::ib::{IbRouting, IbSpec, IbTopologyKind};

/// The notice for a routing whose dependencies `deps` are cyclic (None if acyclic).
pub fn deadlock_notice(spec: &IbSpec, topo: &Topology, deps: &DependencyReport) -> Result<Option<String>> {
    if deps.acyclic {
        return Ok(None);
    }
    let algorithm = spec.routing_algorithm();
    let why = match (spec.routing.algorithm_defaulted.0, spec.topology.kind) {
        (true, IbTopologyKind::Import) => " (the default for an imported fabric: OpenSM's default engine)",
        (true, _) => " (the default for a generated fabric: seed 003's)",
        _ => "",
    };
    let cycle = if deps.cycle.len() <= 6 {
        format!(": {}", deps.cycle.join(", "))
    } else {
        format!(", {} first", deps.cycle[..3].join(", "))
    };
    let mut acyclic: Vec<String> = Vec::new();
    let roots = opensm_roots(topo);
    if !roots.is_empty() {
        acyclic.push(format!("\"updn\" (from the {} root switches OpenSM finds)", roots.len()));
    }
    for (other, what) in [(IbRouting::MinHop, "OpenSM's min-hop"), (IbRouting::Ftree, "OpenSM's fat-tree engine")] {
        if other != algorithm && analyze(topo, &endpoint_tables(other.name(), topo, &params())?)?.acyclic {
            acyclic.push(format!("\"{}\" ({what})", other.name()));
        }
    }
    acyclic.push("\"updown\" (seed 003's Up*/Down* from switch 1)".into());
    Ok(Some(format!(
        "ib.routing.algorithm = \"{}\"{why} has a cycle of {} channel dependencies on this fabric{cycle}: the run \
         may deadlock (stop_reason \"deadlock\"). Acyclic here, so deadlock-free: {}; `fabricsim routing` shows the \
         whole cycle",
        algorithm.name(),
        deps.cycle.len(),
        acyclic.join(", ")
    )))
}

/// The parameters of the engines tried (none of them reads any).
fn params() -> RoutingParams {
    RoutingParams { section: "ib.routing".into(), ..RoutingParams::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::wiring;
    use crate::scenario::Scenario;

    const CLUSTER: &str = "../shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover";

    fn notice(toml: &str) -> (IbRouting, Option<String>) {
        let scenario = Scenario::from_toml_str(toml, "t.toml").unwrap();
        let spec = scenario.infiniband().unwrap();
        let topo = wiring::topology(spec).unwrap();
        let (data, _) = wiring::tables(spec, &topo).unwrap();
        let deps = analyze(&topo, &data).unwrap();
        (spec.routing_algorithm(), deadlock_notice(spec, &topo, &deps).unwrap())
    }

    /// An imported cluster routes as OpenSM does by default, by min-hop,
    /// whose dependencies have a cycle on the 1,356-HCA cluster; the notice
    /// says so and names updn from OpenSM's roots, not ftree (cyclic there
    /// too). A generated fabric keeps seed 003's SPF, and updn says nothing.
    #[test]
    fn an_imported_cluster_takes_min_hop_and_hears_of_its_cycle() {
        let import = format!("[ib.topology]\nkind = \"import\"\nfile = \"{CLUSTER}\"\n");
        let (algorithm, text) = notice(&import);
        assert_eq!(algorithm, IbRouting::MinHop);
        let text = text.expect("min-hop has a cycle there");
        assert!(text.starts_with("ib.routing.algorithm = \"min_hop\" (the default for an imported fabric"), "{text}");
        assert!(text.contains("\"updn\" (from the 56 root switches OpenSM finds)"), "{text}");
        assert!(!text.contains("\"ftree\""), "{text}");
        let (_, text) = notice(&format!("{import}[ib.routing]\nalgorithm = \"min_hop\"\n"));
        assert!(text.unwrap().starts_with("ib.routing.algorithm = \"min_hop\" has a cycle"));
        assert_eq!(notice(&format!("{import}[ib.routing]\nalgorithm = \"updn\"\n")), (IbRouting::Updn, None));
        assert_eq!(notice("[ib]\n").0, IbRouting::Spf);
    }
}
