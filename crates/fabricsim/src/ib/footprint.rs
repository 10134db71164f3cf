//! The memory an InfiniBand fabric takes to build, estimated from its
//! topology before anything of its size is allocated, so that a fabric the
//! budget (`run.memory_budget_mb`) cannot hold is refused with the estimate
//! instead of being attempted. Each part comes from the structure that will
//! hold it (`bytes_for` next to each type), so the estimate follows their
//! layout: the data and control forwarding tables (a port byte per switch
//! and HCA), what the data routing builds on the way (LID-keyed tables for
//! the OpenSM engines and imported dumps; per-endpoint lists, the hop matrix
//! and per-pair working lists for the routings of small irregular networks),
//! the switches with their rows of the tables, the HCAs, the sources and the
//! channel dependency graph. All of it is counted as if held at once, an
//! upper bound of the build's peak.

use super::hca::Hca;
use super::sources::Sources;
use super::switch::IbSwitch;
use crate::error::{Error, Result};
use crate::fabric::deadlock::dependency_graph_bytes;
use crate::fabric::routing::shortest::partitioned_bytes;
use crate::fabric::topology::Topology;
use crate::fabric::{EndpointTables, ForwardingTables};
use crate::scenario::ib::IbRouting;

const MIB: f64 = 1024.0 * 1024.0;

/// The most LIDs a linear forwarding table dump may route (OpenSM's unicast range).
const UNICAST_LIDS: u64 = 0xC000;

/// The estimate, part by part.
#[derive(Clone, Debug, PartialEq)]
pub struct Footprint {
    pub parts: Vec<(&'static str, u64)>,
}

impl Footprint {
    /// The routing of `topo` by `algorithm` as a fabric builds it: data and
    /// control tables, what the data routing builds on the way, the channel
    /// dependencies.
    pub fn tables(topo: &Topology, algorithm: IbRouting) -> Footprint {
        let (switches, endpoints) = (topo.switch_count() as u64, topo.endpoint_count() as u64);
        let mut parts = vec![("forwarding tables", 2 * EndpointTables::bytes_for(switches, endpoints))];
        match algorithm {
            // SPF (control traffic, multipath's linear tables) and D-Mod-K
            // work one switch or destination switch at a time.
            IbRouting::Spf | IbRouting::Ftree | IbRouting::Multipath => {}
            // OpenSM's builder fills a port byte per switch and LID.
            IbRouting::MinHop | IbRouting::Updn => {
                parts.push(("LID-keyed tables", switches * (endpoints + switches + 1)));
            }
            IbRouting::Imported => parts.push(("LID-keyed tables", switches * UNICAST_LIDS)),
            IbRouting::Updown | IbRouting::UpdownTree => parts.extend([
                ("per-endpoint tables", ForwardingTables::bytes_for(switches, endpoints)),
                ("hop matrix", topo.distances_bytes()),
                ("routing work", partitioned_bytes(switches)),
            ]),
        }
        parts.push(("channel dependencies", dependency_graph_bytes(topo, 1)));
        Footprint { parts }
    }

    /// What `fabricsim routing` builds: the tables, and every switch's table
    /// as lists and as JSON for the report (an entry's JSON value, and the
    /// smallest heap block of its one-port list).
    pub fn routing(topo: &Topology, algorithm: IbRouting) -> Footprint {
        let mut f = Self::tables(topo, algorithm);
        let (switches, endpoints) = (topo.switch_count() as u64, topo.endpoint_count() as u64);
        let json_entry = std::mem::size_of::<serde_json::Value>() as u64 + 32;
        f.parts.push(("report tables", ForwardingTables::bytes_for(switches, endpoints)));
        f.parts.push(("report JSON", switches * endpoints * json_entry));
        f
    }

    /// The whole fabric of `topo` with `sources`: the routing, the switches, the HCAs and the sources.
    pub fn fabric(topo: &Topology, algorithm: IbRouting, sources: &Sources) -> Footprint {
        let endpoints = topo.endpoint_count() as u64;
        let switch_state: u64 = topo.radix.iter().map(|&r| IbSwitch::bytes_for(r as u64, endpoints)).sum();
        let hca_state: u64 = (0..endpoints as u32).map(|h| Hca::bytes_for(sources.streams_to(h) as u64)).sum();
        let mut f = Self::tables(topo, algorithm);
        f.parts.extend([("switches", switch_state), ("HCAs", hca_state), ("sources", sources.memory_bytes())]);
        f
    }

    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// Refuses a fabric whose estimate exceeds `budget_mb`, naming the budget key, the estimate and its parts.
    pub fn check(&self, topo: &Topology, budget_mb: f64) -> Result<()> {
        let total = self.total() as f64 / MIB;
        if total <= budget_mb {
            return Ok(());
        }
        let mut parts: Vec<&(&str, u64)> = self.parts.iter().filter(|p| p.1 as f64 >= MIB).collect();
        parts.sort_by_key(|p| std::cmp::Reverse(p.1));
        let parts: Vec<String> = parts.iter().map(|(name, b)| format!("{name} {:.0} MiB", *b as f64 / MIB)).collect();
        Err(Error::invalid(
            "run.memory_budget_mb",
            budget_mb,
            format!(
                "at least the estimated {total:.0} MiB this fabric takes to build ({}); raise run.memory_budget_mb if \
                 the machine holds it, or simulate a smaller fabric",
                parts.join(", ")
            ),
        )
        .with_message(format!(
            "a fabric of {} switches and {} HCAs needs an estimated {total:.0} MiB, more than the memory budget",
            topo.switch_count(),
            topo.endpoint_count()
        )))
    }
}
