//! `[ib.topology]`: the shape of an InfiniBand fabric, generated (seed
//! 003's irregular and random networks, fat trees, Clos), listed by hand or
//! imported from a real subnet's dump.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IbTopologyKind {
    /// Seed 003's irregular network (section 4, Fig. 6): `switches`
    /// switches of `ports` ports, `links` links, each switch on one or two
    /// independent cycles, reproducible from `seed`.
    Irregular,
    /// A random connected network of `switches` switches and `links` links,
    /// switches on any number of cycles, reproducible from `seed`.
    Random,
    /// A k-ary n-tree (`arity` k, `levels` n): k^n HCAs, switches of 2k ports.
    FatTree,
    /// A fat tree of `ports`-port switches (default 36) in 2 or 3 `levels`
    /// (default 2), `hcas_per_leaf` HCAs per leaf (default ports / 2) and
    /// `hcas_per_leaf / oversubscription` uplinks (default 1: non-blocking).
    Clos,
    /// Any graph: `hcas` per switch and `cables` between switches.
    Custom,
    /// A real subnet as cabled: an `ibnetdiscover` dump or ibsim `net` file
    /// (`file`), with its switches' radix, real port numbers, names and GUIDs.
    Import,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbTopologySpec {
    pub kind: IbTopologyKind,
    /// Ports per switch. Default: 5 (the seed's switches), 2k for a fat tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<u32>,
    /// Switches of an irregular network (default 15, the seed's Fig. 6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switches: Option<u32>,
    /// Switch-to-switch links of an irregular network. Default: the seed's
    /// density, 23 links per 15 switches (15 switches: 9 independent cycles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<u32>,
    /// Seed of the irregular graph, apart from `run.seed` so that runs of
    /// different seeds share one network.
    pub seed: u64,
    /// HCAs on each switch, in switch order (irregular: default 1 each; custom: required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hcas: Option<Vec<u32>>,
    /// Custom: links as [switch a, switch b], switches numbered from 1; a pair
    /// listed twice is two parallel links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cables: Option<Vec<[u32; 2]>>,
    /// Fat tree: down ports per switch, k (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arity: Option<u32>,
    /// Fat tree: levels of switches, n (default 3: 64 HCAs at k = 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<u32>,
    /// Clos: HCAs on each leaf switch (default ports / 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hcas_per_leaf: Option<u32>,
    /// Clos: HCAs per leaf uplink, e.g. 2 for 2:1 (default 1, non-blocking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<f64>,
    /// Import: the `ibnetdiscover` dump or ibsim `net` file (relative paths
    /// are looked up from the working directory and the directories above it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Default for IbTopologySpec {
    fn default() -> Self {
        IbTopologySpec {
            kind: IbTopologyKind::Irregular,
            ports: None,
            switches: None,
            links: None,
            seed: 1,
            hcas: None,
            cables: None,
            arity: None,
            levels: None,
            hcas_per_leaf: None,
            oversubscription: None,
            file: None,
        }
    }
}

pub const TOPOLOGY_SEED: Range = Range::int("ib.topology.seed", 0, u64::MAX);
pub const CABLES: Range = Range::int_list("ib.topology.cables", 1, 4096)
    .text("a list of [switch a, switch b]: two different switches from 1 to the number of switches");
pub const PORTS: Range = Range::int("ib.topology.ports", 2, 255).note("IBA switches have up to 254 ports");
pub const SWITCHES: Range = Range::int("ib.topology.switches", 2, 4096);
pub const LINKS: Range = Range::int("ib.topology.links", 1, 1 << 20);
pub const HCAS: Range = Range::int_list("ib.topology.hcas", 0, 254).note("within ib.topology.ports");
pub const ARITY: Range = Range::int("ib.topology.arity", 2, 64);
pub const LEVELS: Range = Range::int("ib.topology.levels", 1, 8).note("fat tree: k^n at most 65536 HCAs; clos: 2 or 3");
pub const HCAS_PER_LEAF: Range = Range::int("ib.topology.hcas_per_leaf", 1, 254).note("within ib.topology.ports");
pub const OVERSUBSCRIPTION: Range =
    Range::num("ib.topology.oversubscription", 1.0, 1024.0).note("HCAs per leaf uplink; 1 = non-blocking");

impl IbTopologySpec {
    pub(super) fn validate(&self) -> Result<()> {
        if let Some(p) = self.ports {
            PORTS.check_int(p)?;
        }
        if let Some(s) = self.switches {
            SWITCHES.check_int(s)?;
        }
        if let Some(l) = self.links {
            LINKS.check_int(l)?;
        }
        if let Some(h) = &self.hcas {
            HCAS.check_list(h)?;
        }
        if let Some(k) = self.arity {
            ARITY.check_int(k)?;
        }
        if let Some(n) = self.levels {
            LEVELS.check_int(n)?;
        }
        if let Some(h) = self.hcas_per_leaf {
            HCAS_PER_LEAF.check_int(h)?;
        }
        if let Some(o) = self.oversubscription {
            OVERSUBSCRIPTION.check(o)?;
        }
        let given = |present: bool, key: &str, kinds: &str| {
            require(!present, &format!("ib.topology.{key}"), "given", &format!("only with ib.topology.kind = {kinds}"))
        };
        let k = self.kind;
        let generated = matches!(k, IbTopologyKind::Irregular | IbTopologyKind::Random);
        given(self.switches.is_some() && !generated, "switches", "\"irregular\" or \"random\"")?;
        given(self.links.is_some() && !generated, "links", "\"irregular\" or \"random\"")?;
        given(self.cables.is_some() && k != IbTopologyKind::Custom, "cables", "\"custom\"")?;
        let drawn = matches!(k, IbTopologyKind::FatTree | IbTopologyKind::Clos | IbTopologyKind::Import);
        given(self.hcas.is_some() && drawn, "hcas", "\"irregular\", \"random\" or \"custom\"")?;
        given(self.ports.is_some() && k == IbTopologyKind::Import, "ports", "a kind other than \"import\"")?;
        given(self.file.is_some() && k != IbTopologyKind::Import, "file", "\"import\"")?;
        require(
            k != IbTopologyKind::Import || self.file.is_some(),
            "ib.topology.file",
            "missing",
            "the ibnetdiscover dump or ibsim net file of an imported topology",
        )?;
        given(self.arity.is_some() && k != IbTopologyKind::FatTree, "arity", "\"fat_tree\"")?;
        let tree = matches!(k, IbTopologyKind::FatTree | IbTopologyKind::Clos);
        given(self.levels.is_some() && !tree, "levels", "\"fat_tree\" or \"clos\"")?;
        given(self.hcas_per_leaf.is_some() && k != IbTopologyKind::Clos, "hcas_per_leaf", "\"clos\"")?;
        given(self.oversubscription.is_some() && k != IbTopologyKind::Clos, "oversubscription", "\"clos\"")?;
        if k == IbTopologyKind::Custom {
            let hcas = self.hcas.as_ref().ok_or_else(|| {
                Error::invalid("ib.topology.hcas", "missing", "the HCAs on each switch of a custom topology")
            })?;
            let n = hcas.len() as u32;
            require(n >= 1, "ib.topology.hcas", "[]", "one count per switch, at least one switch")?;
            for (i, &[a, b]) in self.cables.iter().flatten().enumerate() {
                require(
                    (1..=n).contains(&a) && (1..=n).contains(&b) && a != b,
                    &format!("ib.topology.cables[{i}]"),
                    format!("[{a}, {b}]"),
                    &format!("two different switches from 1 to {n} (ib.topology.hcas lists {n})"),
                )?;
            }
        }
        Ok(())
    }
}
