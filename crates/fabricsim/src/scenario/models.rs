//! The registry of models: one row per model, in the order in which the
//! sections present select one (the first row one of whose selecting
//! sections is present wins; the row no section selects is the default).
//! A row names the model's kind, its sections' type and what the run layer
//! calls it; the type says, through [`ModelSections`], which sections it
//! takes and how it reads and writes them. Adding a model is its sections'
//! type (its own file), its row here with its [`ModelSections`], and its
//! row in `run.rs`.

use serde::Serialize;

use super::fc::check_frame_times;
use super::{
    ArbitratedLoopSpec, FcFabricSpec, IbSpec, ObservationDefaults, ProtocolSpec, Scenario, ScenarioFile,
    SwitchedLoopModelSpec, TcpNetperfSpec,
};
use crate::error::{Error, Result};

/// What the table says of a model: the sections that select it, those it
/// requires, and every section it accepts (besides `name`, `description`, `[run]`).
pub struct ModelEntry {
    pub kind: ModelKind,
    pub name: &'static str,
    pub selected_by: &'static [&'static str],
    pub required: &'static [&'static str],
    pub sections: &'static [&'static str],
    pub defaults: ObservationDefaults,
}

/// A model's sections, defaults filled in: how they come out of a scenario
/// file (validated) and go back into one.
pub trait ModelSections: Sized {
    /// The model's row of the table, but for its kind.
    const ENTRY: Entry;
    /// Takes the model's sections out of `file`, fills defaults and validates.
    fn from_file(file: &mut ScenarioFile) -> Result<Self>;
    /// Writes the sections, every default written out.
    fn to_file(&self, file: &mut ScenarioFile);
}

/// [`ModelEntry`] without the kind, as a sections type declares it.
pub struct Entry {
    pub name: &'static str,
    pub selected_by: &'static [&'static str],
    pub required: &'static [&'static str],
    pub sections: &'static [&'static str],
    pub defaults: ObservationDefaults,
}

macro_rules! models {
    ($($(#[$doc:meta])* $kind:ident($store:ty => $spec:ty), $accessor:ident, $label:literal;)*) => {
        /// The models a scenario can run.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ModelKind {
            $($(#[$doc])* $kind,)*
        }

        /// What a scenario runs, with its sections.
        #[derive(Clone, Debug, PartialEq)]
        // Built once per run: the size of the largest variant costs nothing per event.
        #[allow(clippy::large_enum_variant)]
        pub enum ModelSpec {
            $($kind($store),)*
        }

        /// The one table of section combinations.
        pub const MODELS: [ModelEntry; [$(stringify!($kind)),*].len()] = [$({
            let e = <$store as ModelSections>::ENTRY;
            ModelEntry {
                kind: ModelKind::$kind,
                name: e.name,
                selected_by: e.selected_by,
                required: e.required,
                sections: e.sections,
                defaults: e.defaults,
            }
        },)*];

        impl ModelSpec {
            /// The sections of the model of kind `kind`, taken out of `file`.
            pub fn from_file(kind: ModelKind, file: &mut ScenarioFile) -> Result<ModelSpec> {
                match kind {
                    $(ModelKind::$kind => <$store>::from_file(file).map(ModelSpec::$kind),)*
                }
            }

            pub fn to_file(&self, file: &mut ScenarioFile) {
                match self {
                    $(ModelSpec::$kind(s) => s.to_file(file),)*
                }
            }

            pub fn kind(&self) -> ModelKind {
                match self {
                    $(ModelSpec::$kind(_) => ModelKind::$kind,)*
                }
            }
        }

        impl Scenario {
            $(
                #[doc = concat!("The sections of ", $label, ", or an error naming the model this scenario runs.")]
                pub fn $accessor(&self) -> Result<&$spec> {
                    match &self.model {
                        ModelSpec::$kind(spec) => Ok(spec),
                        _ => Err(Error::scenario(format!(
                            concat!("this scenario runs the {:?} model, not ", $label),
                            self.model_kind()
                        ))),
                    }
                }
            )*
        }
    };
}

models! {
    /// Arbitrated loops with hosts and disks, bridged through a switch (switched-fcal).
    SwitchedLoop(SwitchedLoopModelSpec => SwitchedLoopModelSpec), switched_loop, "the switched loops";
    /// InfiniBand switches and host channel adapters (iba-2007).
    /// Boxed: the largest section by far (a scenario is built once per run).
    InfiniBand(Box<IbSpec> => IbSpec), infiniband, "the InfiniBand fabric";
    /// A Fibre Channel arbitrated loop of an initiator and SCSI disks (fcal-loop).
    ArbitratedLoop(ArbitratedLoopSpec => ArbitratedLoopSpec), arbitrated_loop, "the arbitrated loop";
    /// Fibre Channel switches and terminal nodes (hp-fc-1995).
    FcFabric(FcFabricSpec => FcFabricSpec), fc_fabric, "the Fibre Channel fabric";
    /// TCP/IP between two hosts over a Fibre Channel switch, netperf tests (ong-farrell-fc).
    TcpNetperf(TcpNetperfSpec => TcpNetperfSpec), tcp_netperf, "TCP over Fibre Channel";
}

impl ModelSections for SwitchedLoopModelSpec {
    const ENTRY: Entry = Entry {
        name: "switched loop",
        selected_by: &["switched_loop"],
        required: &["disks"],
        sections: &["switched_loop", "loop", "disks", "switch"],
        defaults: ObservationDefaults { warmup: 200, max: 20_000, min: 1_000 },
    };

    fn from_file(file: &mut ScenarioFile) -> Result<Self> {
        let spec = SwitchedLoopModelSpec {
            switched: file.switched_loop.take().unwrap_or_default(),
            switch: file.switch.take().unwrap_or_default(),
            ring: file.ring.take().unwrap_or_default(),
            disks: file.disks.take().unwrap_or_default(),
        };
        spec.validate()?;
        Ok(spec)
    }

    fn to_file(&self, file: &mut ScenarioFile) {
        file.switched_loop = Some(self.switched.clone());
        file.switch = Some(self.switch.clone());
        file.ring = Some(self.ring.clone());
        file.disks = Some(self.disks.clone());
    }
}

impl ModelSections for Box<IbSpec> {
    const ENTRY: Entry = Entry {
        name: "InfiniBand",
        selected_by: &["ib"],
        required: &[],
        sections: &["ib"],
        defaults: ObservationDefaults { warmup: 100_000, max: 4_000_000, min: 200_000 },
    };

    fn from_file(file: &mut ScenarioFile) -> Result<Self> {
        let mut spec = file.ib.take().unwrap_or_default();
        spec.fill_defaults();
        spec.validate()?;
        Ok(Box::new(spec))
    }

    fn to_file(&self, file: &mut ScenarioFile) {
        file.ib = Some(self.as_ref().clone());
    }
}

impl ModelSections for ArbitratedLoopSpec {
    const ENTRY: Entry = Entry {
        name: "arbitrated loop",
        selected_by: &["loop"],
        required: &["disks"],
        sections: &["loop", "disks", "initiator"],
        defaults: ObservationDefaults { warmup: 200, max: 20_000, min: 1_000 },
    };

    fn from_file(file: &mut ScenarioFile) -> Result<Self> {
        let spec = ArbitratedLoopSpec {
            ring: file.ring.take().unwrap_or_default(),
            disks: file.disks.take().unwrap_or_default(),
            initiator: file.initiator.take().unwrap_or_default(),
        };
        spec.validate()?;
        Ok(spec)
    }

    fn to_file(&self, file: &mut ScenarioFile) {
        file.ring = Some(self.ring.clone());
        file.disks = Some(self.disks.clone());
        file.initiator = Some(self.initiator.clone());
    }
}

impl ModelSections for FcFabricSpec {
    const ENTRY: Entry = Entry {
        name: "Fibre Channel fabric",
        selected_by: &[],
        required: &[],
        sections: &["topology", "routing", "switch", "link", "protocol", "workload"],
        defaults: ObservationDefaults { warmup: 20_000, max: 1_000_000, min: 50_000 },
    };

    fn from_file(file: &mut ScenarioFile) -> Result<Self> {
        let mut spec = FcFabricSpec {
            topology: file.topology.take().unwrap_or_default(),
            routing: file.routing.take().unwrap_or_default(),
            switch: file.switch.take().unwrap_or_default(),
            link: file.link.take().unwrap_or_default(),
            protocol: file.protocol.take().unwrap_or_default(),
            workload: file.workload.take().unwrap_or_default(),
        };
        spec.switch.validate()?;
        spec.topology.validate(spec.switch.ports)?;
        spec.routing.validate()?;
        spec.link.validate()?;
        spec.protocol.validate()?;
        spec.workload.validate()?;
        spec.workload.sizes.fill_defaults();
        check_frame_times(&spec.link, &spec.protocol)?;
        let data_frame_ps = spec.protocol.data_frame_bytes() as f64 * spec.link.ps_per_byte();
        spec.workload.check_arrivals(data_frame_ps)?;
        Ok(spec)
    }

    fn to_file(&self, file: &mut ScenarioFile) {
        file.topology = Some(self.topology.clone());
        file.routing = Some(self.routing.clone());
        file.switch = Some(self.switch.clone());
        file.link = Some(self.link.clone());
        file.protocol = Some(self.protocol.clone());
        file.workload = Some(self.workload.clone());
    }
}

impl ModelSections for TcpNetperfSpec {
    const ENTRY: Entry = Entry {
        name: "TCP over Fibre Channel",
        selected_by: &["netperf", "hosts"],
        required: &[],
        sections: &["netperf", "hosts", "switch", "link"],
        // A netperf test is fixed work (its length); the counts are unused.
        defaults: ObservationDefaults { warmup: 0, max: 1_000_000_000, min: 0 },
    };

    fn from_file(file: &mut ScenarioFile) -> Result<Self> {
        let spec = TcpNetperfSpec {
            hosts: file.hosts.take().unwrap_or_default(),
            netperf: file.netperf.take().unwrap_or_default(),
            switch: file.switch.take().unwrap_or_default(),
            link: file.link.take().unwrap_or_default(),
        };
        spec.switch.validate()?;
        spec.link.validate()?;
        spec.hosts.validate()?;
        spec.netperf.validate()?;
        check_frame_times(&spec.link, &ProtocolSpec::default())?;
        Ok(spec)
    }

    fn to_file(&self, file: &mut ScenarioFile) {
        file.hosts = Some(self.hosts.clone());
        file.netperf = Some(self.netperf.clone());
        file.switch = Some(self.switch.clone());
        file.link = Some(self.link.clone());
    }
}
