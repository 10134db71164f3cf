//! `[ib]`: an InfiniBand fabric of switches and host channel adapters
//! (seed 003). The section's presence selects the InfiniBand model; its
//! subsections are the topology, the routing, the switch pipeline, the VL
//! arbitration tables, the HCAs and the mixed video / best-effort / control
//! workload. Defaults are the seed's Table 1 where it states a value, and
//! the documented choices of `docs/infiniband-model.md` where it does not.
//! Switches are numbered from 1 (as in every fabric report), HCAs from 0 in
//! switch order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
pub use super::ib_congestion_spec::IbCongestionSpec;
pub use super::ib_hca::*;
pub use super::ib_multicast::{IbMulticastSpec, MulticastOrder, MulticastScheme};
pub use super::ib_routing::*;
pub use super::ib_topology::*;
pub use super::ib_workload::*;
use crate::error::{Error, Result};

/// What a run-time deadlock does to an InfiniBand run.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnDeadlock {
    /// The run stops (stop reason `deadlock`).
    #[default]
    Stop,
    /// The run goes on measuring what still moves (flag `deadlock`).
    Continue,
}

/// One entry of a VL arbitration table.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArbitrationEntry {
    /// A data VL of the port.
    pub vl: u32,
    /// Bytes per turn in 64-byte units, 1 to 255 (0 entries are skipped).
    pub weight: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VlArbitrationSpec {
    /// The high-priority table. Default: the VLs the real-time SLs map to,
    /// weight 64 each (VLs 1-7 with 15 data VLs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<Vec<ArbitrationEntry>>,
    /// The low-priority table. Default: the VLs the best-effort SLs map to
    /// and the high table lacks, weight 64 each (VLs 8-14 with 15 data VLs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<Vec<ArbitrationEntry>>,
    /// LimitOfHighPriority: high-priority bytes (in 4096-byte units) before
    /// one low-priority packet must go; 255 = no limit (default).
    pub limit_of_high_priority: u32,
}

impl Default for VlArbitrationSpec {
    fn default() -> Self {
        VlArbitrationSpec { high: None, low: None, limit_of_high_priority: 255 }
    }
}

impl VlArbitrationSpec {
    /// The high-priority table (after [`IbSpec::fill_defaults`]).
    pub fn high(&self) -> &[ArbitrationEntry] {
        self.high.as_deref().unwrap_or_default()
    }

    /// The low-priority table (after [`IbSpec::fill_defaults`]).
    pub fn low(&self) -> &[ArbitrationEntry] {
        self.low.as_deref().unwrap_or_default()
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbSwitchSpec {
    /// Stage 2: forwarding-table lookup, from the arrival of the 8-byte LRH, in ns.
    pub forwarding_ns: f64,
    /// Stage 3: crossbar arbitration after the lookup, in ns.
    pub arbitration_ns: f64,
    /// HOQLife (the seed's HLL, its HV): a droppable packet at the head of
    /// an output VL for longer than 4.096 us x 2^hoq_life is dropped; 20 or
    /// more means never (IBA). Absent: no dropping. Never dropped: control
    /// packets, I-frame packets, the first and last packet of a video frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hoq_life: Option<u32>,
    /// SwitchLifetime (the IBA's SLL, its LV): a droppable packet still in
    /// the switch 4.096 us x 2^switch_life after its arrival is dropped when
    /// it reaches the head of its output VL; 20 or more means never. Absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch_life: Option<u32>,
}

impl Default for IbSwitchSpec {
    fn default() -> Self {
        IbSwitchSpec { forwarding_ns: 50.0, arbitration_ns: 50.0, hoq_life: None, switch_life: None }
    }
}

/// `ib.link` for an imported subnet whose cables run at their file's rates.
pub const LINKS_FROM_FILE: &str = "import";

/// The InfiniBand model's section, every default filled in.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbSpec {
    /// Every link's width and speed, e.g. "1xSDR" (the seed's 2.5 Gbit/s, the
    /// default), "4xQDR", "4xHDR". An imported topology's default is "import":
    /// each cable at the width and speed its file gives (1xSDR where it gives
    /// none); a rate given here runs every cable at it instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Propagation delay of every link, in ns (5 ns: one metre of cable).
    pub propagation_ns: f64,
    /// Data VLs per port (1 to 15); VL15 is always there for control traffic.
    pub data_vls: u32,
    /// Bytes of every input and every output VL buffer (seed 003: 4200).
    pub vl_buffer_bytes: u32,
    /// Bytes per flow-control credit (IBA: 64; 1 counts bytes exactly).
    pub credit_block_bytes: u32,
    /// The VL of each of the 16 SLs (15 = unmapped). Default: SL s on VL s mod data_vls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sl_to_vl: Option<Vec<u32>>,
    /// Simulated time between two looks for a run-time deadlock, in us
    /// (default: 1000 times the largest packet's serialization, 4.2 ms on
    /// the seed's links). A deadlock is a cycle of waits seen at two
    /// successive looks with no credit in flight on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlock_check_us: Option<f64>,
    /// What a run-time deadlock does: `stop` the run (default), or
    /// `continue` measuring what still moves (the deadlocked VL's traffic
    /// stays stuck: its frames miss their deadlines and fill their sources'
    /// buffers), reported and flagged, as a simulator that does not look
    /// for deadlocks would measure.
    pub on_deadlock: OnDeadlock,
    pub vl_arbitration: VlArbitrationSpec,
    pub switch: IbSwitchSpec,
    pub hca: IbHcaSpec,
    pub topology: IbTopologySpec,
    pub routing: IbRoutingSpec,
    pub workload: IbWorkloadSpec,
    /// Multicast groups and replication (seed 003 section 5.2); absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multicast: Option<IbMulticastSpec>,
    /// Congestion control (IBA Annex A10) as an opensm.conf sets it; absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub congestion_control: Option<IbCongestionSpec>,
}

impl Default for IbSpec {
    fn default() -> Self {
        IbSpec {
            link: None,
            propagation_ns: 5.0,
            data_vls: 15,
            vl_buffer_bytes: 4200,
            credit_block_bytes: 64,
            sl_to_vl: None,
            deadlock_check_us: None,
            on_deadlock: OnDeadlock::Stop,
            vl_arbitration: VlArbitrationSpec::default(),
            switch: IbSwitchSpec::default(),
            hca: IbHcaSpec::default(),
            topology: IbTopologySpec::default(),
            routing: IbRoutingSpec::default(),
            workload: IbWorkloadSpec::default(),
            multicast: None,
            congestion_control: None,
        }
    }
}

pub const PROPAGATION: Range = Range::num("ib.propagation_ns", 0.0, 1.0e7).unit("ns").note("up to 2000 km of fibre");
pub const DATA_VLS: Range = Range::int("ib.data_vls", 1, 15).note("IBA: 1, 2, 4, 8 or 15 data VLs; any count accepted");
pub const VL_BUFFER: Range =
    Range::int("ib.vl_buffer_bytes", 282, 1 << 24).unit("bytes").note("at least one control packet");
pub const CREDIT_BLOCK: Range = Range::int("ib.credit_block_bytes", 1, 4096).unit("bytes");
pub const SL_TO_VL: Range = Range::int_list("ib.sl_to_vl", 0, 15).note("16 entries, data VLs below ib.data_vls or 15");
pub const HIGH_VL: Range = Range::int("ib.vl_arbitration.high.vl", 0, 14).note("a data VL below ib.data_vls");
pub const LOW_VL: Range = Range::int("ib.vl_arbitration.low.vl", 0, 14).note("a data VL below ib.data_vls");
pub const HIGH_WEIGHT: Range = Range::int("ib.vl_arbitration.high.weight", 0, 255).note("64-byte units");
pub const LOW_WEIGHT: Range = Range::int("ib.vl_arbitration.low.weight", 0, 255).note("64-byte units");
pub const LIMIT: Range =
    Range::int("ib.vl_arbitration.limit_of_high_priority", 0, 255).note("4096-byte units; 255 = none");
pub const FORWARDING: Range = Range::num("ib.switch.forwarding_ns", 0.0, 1.0e6).unit("ns");
pub const ARBITRATION: Range = Range::num("ib.switch.arbitration_ns", 0.0, 1.0e6).unit("ns");
pub const HOQ_LIFE: Range =
    Range::int("ib.switch.hoq_life", 0, 31).note("4.096 us x 2^value; 20 or more = no limit (IBA)");
pub const SWITCH_LIFE: Range =
    Range::int("ib.switch.switch_life", 0, 31).note("4.096 us x 2^value; 20 or more = no limit (IBA)");
pub const DEADLOCK_CHECK: Range = Range::num("ib.deadlock_check_us", 0.001, 1.0e9).unit("us");
pub const HCA_BUFFER: Range = Range::num("ib.hca.buffer_mb", 0.0, 65536.0).above().unit("MiB");

pub const RANGES: &[Range] = &[
    PROPAGATION,
    DATA_VLS,
    VL_BUFFER,
    CREDIT_BLOCK,
    SL_TO_VL,
    HIGH_VL,
    LOW_VL,
    HIGH_WEIGHT,
    LOW_WEIGHT,
    TOPOLOGY_SEED,
    CABLES,
    LIMIT,
    FORWARDING,
    ARBITRATION,
    HOQ_LIFE,
    SWITCH_LIFE,
    DEADLOCK_CHECK,
    super::ib_congestion_spec::SERIES,
    super::ib_congestion_spec::HYSTERESIS,
    RELIABLE_SHARE,
    SLACK,
    HCA_BUFFER,
    PORTS,
    SWITCHES,
    LINKS,
    HCAS,
    ARITY,
    LEVELS,
    HCAS_PER_LEAF,
    OVERSUBSCRIPTION,
    ROOT,
    ROOTS,
    INJECTION,
    SHARE,
    BE_BYTES,
    RT_SLS,
    BE_SLS,
    STREAMS,
    CONTROL_PERIOD,
    HOT_SPOT_SHARE,
    HOT_SPOT_HCA,
    INCAST_TARGET,
    INCAST_SENDERS,
    FLOWS,
];

impl IbSpec {
    /// The VL of `sl` (SL s on VL s mod data_vls unless `sl_to_vl` says otherwise).
    fn vl_of(&self, sl: u32) -> u32 {
        match &self.sl_to_vl {
            Some(t) => t.get(sl as usize).copied().unwrap_or(15),
            None => sl % self.data_vls.max(1),
        }
    }

    /// The SLs the workload's unicast packets carry: the real-time SLs if
    /// any traffic is real time, the best-effort SLs if any is best effort.
    pub fn workload_sls(&self) -> Vec<u32> {
        let w = &self.workload;
        let mut sls: Vec<u32> = Vec::new();
        if w.real_time_share > 0.0 {
            sls.extend(&w.real_time_sls);
        }
        if w.real_time_share < 1.0 {
            sls.extend(&w.best_effort_sls);
        }
        sls
    }

    /// The data VLs the workload's packets travel on, in increasing order.
    pub fn data_vls_in_use(&self) -> Vec<u32> {
        let sls = self.workload_sls();
        let mut vls: Vec<u32> = sls.into_iter().map(|sl| self.vl_of(sl)).filter(|&v| v < self.data_vls).collect();
        vls.sort_unstable();
        vls.dedup();
        vls
    }

    /// The link rate in force: `ib.link`, or its default for the topology's kind.
    pub fn link_name(&self) -> &str {
        self.link.as_deref().unwrap_or(if self.topology.kind == IbTopologyKind::Import {
            LINKS_FROM_FILE
        } else {
            "1xSDR"
        })
    }

    /// The data routing in force: `ib.routing.algorithm`, or its default
    /// for the topology's kind (an imported subnet routes as OpenSM does
    /// by default, by min-hop; a generated one by seed 003's SPF).
    pub fn routing_algorithm(&self) -> IbRouting {
        self.routing.algorithm.unwrap_or(if self.topology.kind == IbTopologyKind::Import {
            IbRouting::MinHop
        } else {
            IbRouting::Spf
        })
    }

    /// Whether an imported subnet's cables run at the rates its file gives.
    pub fn links_from_file(&self) -> bool {
        self.link_name() == LINKS_FROM_FILE
    }

    /// Fills the arbitration tables the user left out from the VLs the
    /// workload's SLs map to, so that a change of `data_vls` or `sl_to_vl`
    /// never meets a default table written for 15 data VLs.
    pub fn fill_defaults(&mut self) {
        self.link = Some(self.link_name().to_string());
        self.routing.algorithm_defaulted = Defaulted(self.routing.algorithm.is_none());
        self.routing.algorithm = Some(self.routing_algorithm());
        let entries = |sls: &[u32], skip: &[u32]| -> Vec<ArbitrationEntry> {
            let mut vls: Vec<u32> = Vec::new();
            for &sl in sls {
                let vl = self.vl_of(sl);
                if vl < self.data_vls && !vls.contains(&vl) && !skip.contains(&vl) {
                    vls.push(vl);
                }
            }
            vls.into_iter().map(|vl| ArbitrationEntry { vl, weight: 64 }).collect()
        };
        let a = &self.vl_arbitration;
        let mut high = a.high.clone().unwrap_or_else(|| entries(&self.workload.real_time_sls, &[]));
        // Separate multicast VLs: weighed against the unicast video VLs by the bandwidth policy.
        if let Some(m) = &self.multicast {
            if let (None, Some(sls)) = (&a.high, &m.sls) {
                high.iter_mut().for_each(|e| e.weight = super::ib_multicast::UNICAST_WEIGHT);
                for (i, &sl) in sls.iter().enumerate() {
                    let vl = self.vl_of(sl);
                    if vl < self.data_vls && !high.iter().any(|e| e.vl == vl) {
                        high.push(ArbitrationEntry { vl, weight: m.weight_at(i) });
                    }
                }
            }
        }
        let given = a.high.is_some();
        let taken: Vec<u32> = high.iter().map(|e| e.vl).collect();
        let low = a.low.clone().unwrap_or_else(|| entries(&self.workload.best_effort_sls, &taken));
        self.vl_arbitration.high = Some(high);
        self.vl_arbitration.low = Some(low);
        if let Some(m) = &mut self.multicast {
            m.high_table_given = given;
        }
    }

    /// Bounds every number; what needs the built fabric (switch numbers,
    /// ports, the link's name) is checked when the model is built.
    pub fn validate(&self) -> Result<()> {
        require(
            !self.links_from_file() || self.topology.kind == IbTopologyKind::Import,
            "ib.link",
            format!("\"{LINKS_FROM_FILE}\""),
            "a width and speed such as \"4xQDR\" (\"import\", each cable at its file's rate, only with ib.topology.kind = \"import\")",
        )?;
        PROPAGATION.check(self.propagation_ns)?;
        DATA_VLS.check_int(self.data_vls)?;
        VL_BUFFER.check_int(self.vl_buffer_bytes)?;
        CREDIT_BLOCK.check_int(self.credit_block_bytes)?;
        require(
            self.vl_buffer_bytes >= self.credit_block_bytes,
            "ib.vl_buffer_bytes",
            self.vl_buffer_bytes,
            &format!("at least one credit of ib.credit_block_bytes = {}", self.credit_block_bytes),
        )?;
        let blocks = self.vl_buffer_bytes / self.credit_block_bytes;
        require(
            blocks <= u16::MAX as u32,
            "ib.credit_block_bytes",
            self.credit_block_bytes,
            &format!("at most 65535 credits per VL buffer of {} bytes", self.vl_buffer_bytes),
        )?;
        if let Some(t) = &self.sl_to_vl {
            require(t.len() == 16, "ib.sl_to_vl", format!("{} entries", t.len()), "one VL for each of the 16 SLs")?;
            for (s, &v) in t.iter().enumerate() {
                require(
                    v < self.data_vls || v == 15,
                    &format!("ib.sl_to_vl[{s}]"),
                    v,
                    &format!("a data VL 0..={} (ib.data_vls = {}) or 15 (unmapped)", self.data_vls - 1, self.data_vls),
                )?;
            }
        }
        let a = &self.vl_arbitration;
        for (name, table) in [("high", a.high()), ("low", a.low())] {
            require(
                table.len() <= 64,
                &format!("ib.vl_arbitration.{name}"),
                format!("{} entries", table.len()),
                "at most 64 entries",
            )?;
            for (i, e) in table.iter().enumerate() {
                require(
                    e.vl < self.data_vls,
                    &format!("ib.vl_arbitration.{name}[{i}].vl"),
                    e.vl,
                    &format!("a data VL of the port, 0..={} (ib.data_vls = {})", self.data_vls - 1, self.data_vls),
                )?;
                let weight = if name == "high" { HIGH_WEIGHT } else { LOW_WEIGHT };
                weight.check_int_at(&format!("ib.vl_arbitration.{name}[{i}].weight"), e.weight)?;
            }
        }
        require(
            a.high().iter().chain(a.low()).any(|e| e.weight > 0),
            "ib.vl_arbitration",
            "no entry with a weight",
            "at least one entry of weight 1 or more, or no data packet could ever be sent",
        )?;
        LIMIT.check_int(a.limit_of_high_priority)?;
        FORWARDING.check(self.switch.forwarding_ns)?;
        ARBITRATION.check(self.switch.arbitration_ns)?;
        if let Some(v) = self.switch.hoq_life {
            HOQ_LIFE.check_int(v)?;
        }
        if let Some(v) = self.switch.switch_life {
            SWITCH_LIFE.check_int(v)?;
        }
        HCA_BUFFER.check(self.hca.buffer_mb)?;
        if let Some(c) = &self.congestion_control {
            c.settings()?;
        }
        if let Some(t) = self.deadlock_check_us {
            DEADLOCK_CHECK.check(t)?;
        }
        self.topology.validate()?;
        let algorithm = self.routing_algorithm();
        let imported = algorithm == IbRouting::Imported;
        require(
            self.routing.lft_file.is_some() == imported,
            "ib.routing.lft_file",
            if imported { "missing" } else { "given" },
            if imported {
                "an OpenSM LFT dump (opensm-lfts.dump or dump_fts output) for ib.routing.algorithm = \"imported\""
            } else {
                "only with ib.routing.algorithm = \"imported\""
            },
        )?;
        require(
            !imported || self.topology.kind == IbTopologyKind::Import,
            "ib.routing.algorithm",
            "\"imported\"",
            "\"imported\" only with ib.topology.kind = \"import\" (the dump names switches and ports by GUID)",
        )?;
        if let Some(roots) = &self.routing.roots {
            ROOTS.check_list(roots)?;
            require(
                algorithm == IbRouting::Updn,
                "ib.routing.roots",
                format!("{roots:?}"),
                "only with ib.routing.algorithm = \"updn\"",
            )?;
        }
        require(
            self.routing.roots.as_ref().is_none_or(|r| !r.is_empty()),
            "ib.routing.roots",
            "[]",
            "the root switches of ib.routing.algorithm = \"updn\", from 1 (e.g. the spine of a fat tree); without \
             the key, the ones OpenSM finds",
        )?;
        if let Some(r) = self.routing.root {
            ROOT.check_int(r)?;
            if !algorithm.has_root() {
                return Err(Error::invalid(
                    "ib.routing.root",
                    r,
                    "only with ib.routing.algorithm = \"updown\", \"updown_tree\" or \"multipath\"",
                ));
            }
        }
        let multipath = algorithm == IbRouting::Multipath;
        for (key, given) in [
            ("selection", self.routing.selection.is_some()),
            ("reliable_share", self.routing.reliable_share.is_some()),
            ("slack", self.routing.slack.is_some()),
        ] {
            require(
                !given || multipath,
                &format!("ib.routing.{key}"),
                "given",
                "only with ib.routing.algorithm = \"multipath\"",
            )?;
        }
        if let Some(r) = self.routing.reliable_share {
            RELIABLE_SHARE.check(r)?;
        }
        if let Some(k) = self.routing.slack {
            SLACK.check_int(k)?;
        }
        self.workload.validate()?;
        if let Some(m) = &self.multicast {
            m.validate()?;
            if let Some(sls) = &m.sls {
                let w = &self.workload;
                let unicast: Vec<u32> =
                    w.real_time_sls.iter().chain(&w.best_effort_sls).map(|&s| self.vl_of(s)).collect();
                for (i, &sl) in sls.iter().enumerate() {
                    let vl = self.vl_of(sl);
                    require(
                        !unicast.contains(&vl),
                        &format!("ib.multicast.sls[{i}]"),
                        sl,
                        &format!("an SL whose VL ({vl}) no unicast SL of ib.workload maps to (separate VLs)"),
                    )?;
                    require(
                        a.high().iter().chain(a.low()).any(|e| e.vl == vl && e.weight > 0),
                        "ib.vl_arbitration",
                        format!("no entry for VL {vl}"),
                        &format!("an entry of weight 1 or more for VL {vl}, which multicast SL {sl} maps to"),
                    )?;
                    // A table given with a policy must be the one the policy sets.
                    if let (Some(b), true) = (m.bandwidth, m.high_table_given) {
                        let want = m.weight_at(i);
                        require(
                            a.high().iter().all(|e| e.vl != vl || e.weight == want),
                            "ib.multicast.bandwidth",
                            format!("{b:?}").to_lowercase(),
                            &format!(
                                "the default ib.vl_arbitration.high table (the policy gives VL {vl} weight {want}), \
                                 or no policy with a table of your own"
                            ),
                        )?;
                    }
                }
            }
            require(
                !multipath,
                "ib.multicast",
                "given",
                "a linear forwarding table routing (multicast trees follow it), not ib.routing.algorithm = \"multipath\"",
            )?;
        }
        // Every SL the workload uses must reach a data VL, or its packets
        // would be discarded at the first hop.
        let vl_of = |sl: u32| self.vl_of(sl);
        let w = &self.workload;
        let mut used: Vec<(String, u32)> = Vec::new();
        if w.real_time_share > 0.0 {
            used.extend(w.real_time_sls.iter().map(|&s| ("ib.workload.real_time_sls".into(), s)));
        }
        if w.real_time_share < 1.0 {
            used.extend(w.best_effort_sls.iter().map(|&s| ("ib.workload.best_effort_sls".into(), s)));
        }
        for (key, sl) in used {
            let vl = vl_of(sl);
            require(
                vl != 15,
                &format!("ib.sl_to_vl[{sl}]"),
                "15 (no VL)",
                &format!("a data VL for SL {sl}, which {key} uses"),
            )?;
            require(
                a.high().iter().chain(a.low()).any(|e| e.vl == vl && e.weight > 0),
                "ib.vl_arbitration",
                format!("no entry for VL {vl}"),
                &format!("an entry of weight 1 or more for VL {vl}, which SL {sl} of {key} maps to"),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    fn err(text: &str) -> crate::error::Error {
        Scenario::from_toml_str(text, "ib.toml").unwrap_err()
    }

    #[test]
    fn the_section_selects_the_model_with_the_papers_defaults() {
        let s = Scenario::from_toml_str("[ib]\n", "ib.toml").unwrap();
        let ib = s.infiniband().unwrap();
        assert_eq!((ib.link_name(), ib.vl_buffer_bytes, ib.data_vls), ("1xSDR", 4200, 15));
        assert_eq!(ib.topology.kind, super::IbTopologyKind::Irregular);
    }

    #[test]
    fn bad_tables_name_key_value_and_allowed() {
        let e = err("[ib]\ndata_vls = 2\n[ib.vl_arbitration]\nhigh = [{vl = 3, weight = 64}]\n");
        assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration.high[0].vl"));
        assert_eq!(e.value.as_deref(), Some("3"));
        let mut sl = vec![0u32; 16];
        sl[1] = 15;
        let e = err(&format!("[ib]\nsl_to_vl = {sl:?}\n"));
        assert_eq!(e.key.as_deref(), Some("ib.sl_to_vl[1]"), "{e}");
        let e = err("[ib.routing]\nroot = 2\n");
        assert_eq!(e.key.as_deref(), Some("ib.routing.root"));
        let e = err("[ib.topology]\nkind = \"custom\"\nhcas = [1, 1]\ncables = [[1, 3]]\n");
        assert_eq!(e.key.as_deref(), Some("ib.topology.cables[0]"));
        let s = Scenario::from_toml_str("[ib]\nlink = \"3xSDR\"\n", "ib.toml").unwrap();
        let e = crate::run::check(&s).unwrap_err();
        assert!(e.key.as_deref().unwrap().starts_with("ib.link"), "{e}");
        let e = err("[ib]\nlink = \"import\"\n");
        assert_eq!(e.key.as_deref(), Some("ib.link"), "{e}");
        let e = err("[ib.vl_arbitration]\nlow = []\n");
        assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration"), "{e}");
    }
}
