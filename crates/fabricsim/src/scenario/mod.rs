//! Scenarios: plain sections of data, each with its validation beside its
//! fields, one file per family of sections. This module imports no model
//! code. Which sections are present selects the model through one table,
//! [`MODELS`]; a section of another model is an error that names it.
//!
//! A scenario file is read into [`ScenarioFile`] (every section optional,
//! unknown keys refused at every level), then turned into a [`Scenario`]:
//! the model's sections with every default filled in.

pub mod applies;
pub mod check;
pub mod fc;
pub mod hosts;
pub mod ib;
pub mod ib_congestion;
pub mod ib_congestion_spec;
pub mod ib_hca;
pub mod ib_multicast;
pub mod ib_routing;
pub mod ib_topology;
pub mod ib_workload;
pub mod keys;
pub mod load;
pub mod loops;
pub mod models;
pub mod routing;
pub mod run_plan;
pub mod switched_loops;
pub mod topology;
pub mod upgrade;
pub mod workload;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use self::fc::{LinkSpec, ProtocolSpec, SwitchSpec, DEFAULT_ROUTING_TIME_NS};
pub use self::hosts::{HostsSpec, MachineType, NetperfSpec, NetperfTest};
pub use self::ib::IbSpec;
pub use self::load::DEFAULT_SCENARIO_TOML;
pub use self::loops::{ArbitratedLoopSpec, DiskGroupSpec, InitiatorSpec, LoopSpec};
pub use self::models::{ModelEntry, ModelKind, ModelSpec, MODELS};
pub use self::routing::{ForwardingOverride, LaneAssignment, PathPolicy, RoutingSpec, TrunkChoice};
pub use self::run_plan::{ObservationDefaults, RunPlan};
pub use self::switched_loops::{SwitchedLoopModelSpec, SwitchedLoopSpec};
pub use self::topology::{TopologyKind, TopologySpec};
pub use self::workload::{Arrivals, MessageSizes, Pattern, SizeDistribution, SizeKind, WorkloadSpec};
use crate::error::{Error, Result};

/// The ranges of every numeric key of every section.
pub fn ranges() -> impl Iterator<Item = &'static check::Range> {
    self::run_plan::RANGES
        .iter()
        .chain(self::topology::RANGES)
        .chain(self::routing::RANGES)
        .chain(self::fc::RANGES)
        .chain(self::workload::RANGES)
        .chain(self::loops::RANGES)
        .chain(self::switched_loops::RANGES)
        .chain(self::ib::RANGES)
        .chain(self::ib_multicast::RANGES)
        .chain(self::hosts::RANGES)
}

/// The range of `key` (indices such as `disks[0]` ignored), if it has one.
pub fn range_of(key: &str) -> Option<&'static check::Range> {
    let plain = check::strip_indices(key);
    ranges().find(|r| r.key == plain)
}

/// A scenario file as written: every section optional, so that the sections
/// present can select the model. TOML key `loop` is the arbitrated loop.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// A label carried into results.
    #[serde(default)]
    pub name: String,
    /// Free text carried into results.
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub run: RunPlan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologySpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch: Option<SwitchSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ProtocolSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadSpec>,
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    pub ring: Option<LoopSpec>,
    /// Disk groups on the loop, in ring order after the initiator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disks: Option<Vec<DiskGroupSpec>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initiator: Option<InitiatorSpec>,
    /// An InfiniBand fabric of switches and HCAs (seed 003).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbSpec>,
    /// Arbitrated loops bridged through a switch (seed 001); `[loop]` and
    /// `[[disks]]` then describe every loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switched_loop: Option<SwitchedLoopSpec>,
    /// Two workstations running TCP/IP over the FC switch (seed 002).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosts: Option<HostsSpec>,
    /// A netperf test between the two hosts (seed 002).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netperf: Option<NetperfSpec>,
}

/// The Fibre Channel fabric model's sections, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FcFabricSpec {
    pub topology: TopologySpec,
    pub routing: RoutingSpec,
    pub switch: SwitchSpec,
    pub link: LinkSpec,
    pub protocol: ProtocolSpec,
    pub workload: WorkloadSpec,
}

/// The TCP-over-FC model's sections, defaults filled in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpNetperfSpec {
    pub hosts: HostsSpec,
    pub netperf: NetperfSpec,
    pub switch: SwitchSpec,
    pub link: LinkSpec,
}

/// A validated scenario: the common sections and the model's, every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub run: RunPlan,
    pub model: ModelSpec,
}

impl Default for Scenario {
    /// The default FC switch with the FC fabric's measurement defaults.
    fn default() -> Self {
        Scenario::from_file(ScenarioFile::default()).expect("the empty scenario is valid")
    }
}

impl ScenarioFile {
    /// Names of the model sections present, in table order.
    pub fn sections_present(&self) -> Vec<&'static str> {
        let present = [
            ("topology", self.topology.is_some()),
            ("routing", self.routing.is_some()),
            ("switch", self.switch.is_some()),
            ("link", self.link.is_some()),
            ("protocol", self.protocol.is_some()),
            ("workload", self.workload.is_some()),
            ("loop", self.ring.is_some()),
            ("disks", self.disks.is_some()),
            ("initiator", self.initiator.is_some()),
            ("ib", self.ib.is_some()),
            ("switched_loop", self.switched_loop.is_some()),
            ("hosts", self.hosts.is_some()),
            ("netperf", self.netperf.is_some()),
        ];
        present.into_iter().filter(|(_, p)| *p).map(|(n, _)| n).collect()
    }

    /// The table entry the sections present select.
    pub fn model_entry(&self) -> &'static ModelEntry {
        let present = self.sections_present();
        MODELS
            .iter()
            .find(|m| m.selected_by.iter().any(|s| present.contains(s)))
            .or_else(|| MODELS.iter().find(|m| m.selected_by.is_empty()))
            .expect("the table has a default model")
    }
}

fn section_label(name: &str) -> String {
    if name == "disks" {
        "[[disks]]".to_string()
    } else {
        format!("[{name}]")
    }
}

impl Scenario {
    /// Selects the model, refuses sections of other models, fills defaults and validates.
    pub fn from_file(mut file: ScenarioFile) -> Result<Scenario> {
        let entry = file.model_entry();
        let present = file.sections_present();
        for section in &present {
            if entry.sections.contains(section) {
                continue;
            }
            let owners: Vec<&str> = MODELS.iter().filter(|m| m.sections.contains(section)).map(|m| m.name).collect();
            assert!(!owners.is_empty(), "every section has a model");
            let owner = match owners.split_last() {
                Some((last, [])) => format!("the {last} model"),
                Some((last, rest)) => format!("the {} and {last} models", rest.join(", ")),
                None => unreachable!(),
            };
            let selector = match entry.selected_by.iter().find(|s| present.contains(s)) {
                Some(s) => format!("{} selects the {} model", section_label(s), entry.name),
                None => format!("this scenario runs the {} model", entry.name),
            };
            let mut accepted: Vec<String> = vec!["[run]".into()];
            accepted.extend(entry.sections.iter().map(|s| section_label(s)));
            return Err(Error {
                message: format!("section {} belongs to {owner}, but {selector}", section_label(section),),
                ..Error::invalid(
                    section,
                    "present",
                    format!("the {} model's sections: {}", entry.name, accepted.join(", ")),
                )
            });
        }
        for required in entry.required {
            if !present.contains(required) {
                return Err(Error::invalid(
                    required,
                    "missing",
                    format!("the {} model needs a {} section", entry.name, section_label(required)),
                ));
            }
        }
        let mut run = std::mem::take(&mut file.run);
        run.fill_defaults(entry.defaults);
        run.validate()?;
        let model = ModelSpec::from_file(entry.kind, &mut file)?;
        Ok(Scenario { name: file.name, description: file.description, run, model })
    }

    /// The scenario as a file of the current shape, every default written out.
    pub fn to_file(&self) -> ScenarioFile {
        let mut file = ScenarioFile {
            name: self.name.clone(),
            description: self.description.clone(),
            run: self.run.clone(),
            ..ScenarioFile::default()
        };
        self.model.to_file(&mut file);
        file
    }

    pub fn model_kind(&self) -> ModelKind {
        self.model.kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_select_the_model() {
        assert_eq!(Scenario::default().model_kind(), ModelKind::FcFabric);
        let s = Scenario::from_toml_str("[loop]\n[[disks]]\ncount = 2\n", "s").unwrap();
        assert_eq!(s.model_kind(), ModelKind::ArbitratedLoop);
        assert_eq!(s.run.counts(), (200, 20_000, 1_000));
        assert_eq!(Scenario::default().run.counts(), (20_000, 1_000_000, 50_000));
    }

    #[test]
    fn a_section_of_another_model_is_named() {
        let e = Scenario::from_toml_str("[loop]\n[[disks]]\ncount = 2\n[switch]\nports = 8\n", "s.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("switch"));
        assert!(
            e.message.contains("belongs to the switched loop, Fibre Channel fabric and TCP over Fibre Channel models"),
            "{e}"
        );
        assert!(e.message.contains("[loop] selects the arbitrated loop model"), "{e}");
        assert!(e.allowed.as_deref().unwrap().contains("[[disks]]"), "{e}");
        let e = Scenario::from_toml_str("[initiator]\noutstanding = 2\n", "s.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("initiator"));
        let e = Scenario::from_toml_str("[loop]\n", "s.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("disks"));
    }

    #[test]
    fn defaults_follow_the_counts_the_user_set() {
        let s = Scenario::from_toml_str("[run]\nmax_observations = 1000\n", "s").unwrap();
        assert_eq!(s.run.counts(), (20_000, 1000, 1000));
        let e = Scenario::from_toml_str("[run]\nmax_observations = 1000\nmin_observations = 2000\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("run.min_observations"));
    }

    #[test]
    fn out_of_range_load_names_key_value_and_allowed() {
        let e = Scenario::from_toml_str("[workload]\noffered_load = 7.0\n", "s.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.offered_load"));
        assert_eq!(e.value.as_deref(), Some("7"));
        assert!(e.allowed.as_deref().unwrap().contains("<= 2"));
        assert_eq!(e.file.as_deref(), Some("s.toml"));
    }

    #[test]
    fn pair_must_name_two_nodes() {
        let e = Scenario::from_toml_str("[workload]\npattern = \"pair\"\npair = [3, 3]\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.pair"));
        let e = Scenario::from_toml_str("[workload]\npattern = \"pair\"\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.pair"));
        assert!(Scenario::from_toml_str("[workload]\npattern = \"pair\"\npair = [0, 1]\n", "s").is_ok());
    }

    #[test]
    fn class_must_be_one_two_or_three() {
        let e = Scenario::from_toml_str("[protocol]\nclass = 4\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("protocol.class"));
        assert_eq!(e.allowed.as_deref(), Some("1, 2 or 3"));
    }

    #[test]
    fn sizes_without_kind_take_the_documented_default_and_refuse_other_kinds_keys() {
        let s = Scenario::from_toml_str("[workload.sizes]\nframes = 4\n", "s").unwrap();
        assert_eq!(s.fc_fabric().unwrap().workload.sizes.mean_frames(), 4.0);
        let e = Scenario::from_toml_str("[workload.sizes]\nlong_fraction = 0.2\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.sizes.long_fraction"));
        let s = Scenario::from_toml_str("[workload.sizes]\nkind = \"bimodal\"\n", "s").unwrap();
        assert!((s.fc_fabric().unwrap().workload.sizes.mean_frames() - 5.2).abs() < 1e-12);
    }

    #[test]
    fn the_normalized_scenario_round_trips() {
        for text in ["", "[loop]\n[[disks]]\ncount = 3\n[initiator]\nmode = \"light\"\n"] {
            let s = Scenario::from_toml_str(text, "s").unwrap();
            let again = Scenario::from_json_str(&s.to_json().to_string(), "again").unwrap();
            assert_eq!(s, again);
        }
    }
}
