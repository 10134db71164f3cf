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
pub use super::ib_multicast::{IbMulticastSpec, MulticastOrder, MulticastScheme};
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

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IbRouting {
    /// Shortest path first: Dijkstra on hop count from every switch (may deadlock).
    Spf,
    /// Up*/Down*: BFS spanning tree from `root`; never an up link after a down link.
    Updown,
    /// Up*/Down* from `roots` as OpenSM's updn engine sets it up and
    /// balances ports, following the published rule where OpenSM breaks it.
    Updn,
    /// Minimum hops, each destination on the least-hop port carrying the
    /// fewest destinations so far (OpenSM's min-hop engine). Deadlock-free on
    /// fat trees, whose minimal paths go up, then down, but there it climbs
    /// by the same digit at every level and loses most of the bisection.
    MinHop,
    /// D-Mod-K (OpenSM's fat-tree engine): a switch at level l climbs by
    /// digit l of the destination, so a fat tree keeps its full bisection.
    Ftree,
    /// The linear forwarding tables of an OpenSM dump (`lft_file`:
    /// `opensm-lfts.dump` or `dump_fts` output), as the real subnet routed.
    Imported,
    /// The original Up/Down as seed 003 describes it: the BFS spanning tree
    /// from `root` only, cross links unused (its Fig. 5b).
    UpdownTree,
    /// Seed 003's multipath routing with path bits (sections 3.2-3.4): the
    /// cycles of a BFS tree from `root`, multipath tables beside the SPF
    /// ones; real-time streams take the shortest path with room at set-up,
    /// reliable datagrams a random path, unreliable datagrams adapt at
    /// every switch by `selection`; control traffic keeps SPF.
    Multipath,
}

/// How an unreliable datagram chooses its path at each switch (multipath).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PathSelection {
    /// Least Frequently Used: the output that has sent the fewest packets.
    Lfu,
    /// The output with the most credits for the packet's VL downstream.
    MaxCredit,
}

impl IbRouting {
    /// The routing algorithm's name in `fabric::routing`.
    pub fn name(self) -> &'static str {
        match self {
            IbRouting::Spf => "spf",
            IbRouting::Updown => "updown",
            IbRouting::Updn => "updn",
            IbRouting::MinHop => "min_hop",
            IbRouting::Ftree => "ftree",
            IbRouting::UpdownTree => "updown_tree",
            IbRouting::Imported => "imported",
            IbRouting::Multipath => "multipath",
        }
    }

    /// Whether the algorithm builds a spanning tree from a root switch.
    pub fn has_root(self) -> bool {
        matches!(self, IbRouting::Updown | IbRouting::UpdownTree | IbRouting::Multipath)
    }
}

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

/// Which of several equally short next switches SPF takes.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpfTies {
    /// Destinations in turn over the equal next switches (destination
    /// switch d takes the (d mod k)-th of k): the study's Fig. 5a.
    Balanced,
    /// The lower-numbered next switch (the first Dijkstra settles).
    Lowest,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbRoutingSpec {
    /// How the linear forwarding tables of data traffic are built. Control
    /// traffic (VL15) always takes SPF tables, the shortest path (seed 003).
    pub algorithm: IbRouting,
    /// Up*/Down* (`updown`, `updown_tree`): the root switch of the spanning
    /// tree, from 1 (default 1). The seed tried three roots and kept the
    /// best; `fabricsim reproduce` does the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<u32>,
    /// updn: the root switches, from 1 (e.g. the spine of a fat tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<u32>>,
    /// Imported: the LFT dump to route by (relative paths are looked up from
    /// the working directory and the directories above it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lft_file: Option<String>,
    /// SPF tables (data traffic under `spf`, and control traffic whatever
    /// the data routing): which of equally short next switches a route
    /// takes, `balanced` (default: destinations in turn, as the seed's
    /// Fig. 5a table) or `lowest` (the lower-numbered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ties: Option<SpfTies>,
    /// Multipath: how unreliable datagrams choose at every switch, `lfu`
    /// (default) or `max_credit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<PathSelection>,
    /// Multipath: the share of best-effort messages that are reliable
    /// datagrams (a random path per source and destination, in order); the
    /// rest are unreliable datagrams (adaptive). Default 0.5.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reliable_share: Option<f64>,
    /// Multipath: paths up to this many hops longer than the shortest fill
    /// the tables (default 2); a setting none agrees with takes SPF's hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slack: Option<u32>,
}

impl Default for IbRoutingSpec {
    fn default() -> Self {
        IbRoutingSpec {
            algorithm: IbRouting::Spf,
            root: None,
            roots: None,
            lft_file: None,
            ties: None,
            selection: None,
            reliable_share: None,
            slack: None,
        }
    }
}

impl IbRoutingSpec {
    /// The SPF tie rule in force (for data SPF tables and control tables).
    pub fn spf_ties(&self) -> SpfTies {
        self.ties.unwrap_or(SpfTies::Balanced)
    }
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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbHcaSpec {
    /// Messages waiting at an HCA, in MiB (seed 003 Table 1: 8 MB); a message
    /// that does not fit is refused and counted.
    pub buffer_mb: f64,
}

impl Default for IbHcaSpec {
    fn default() -> Self {
        IbHcaSpec { buffer_mb: 8.0 }
    }
}

/// The default video trace: the frame-size model derived from the real
/// trace and shipped with the package (`traffic::trace_model`).
pub const BUILTIN_TRACE: &str = "builtin";

/// The hot spot's share of every other HCA's best-effort messages unless told.
pub const DEFAULT_HOT_SPOT_SHARE: f64 = 0.1;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbWorkloadSpec {
    /// Offered wire bytes per HCA (payload and headers, real-time and
    /// best-effort; control excluded) as a fraction of the link's data rate.
    /// The default 0.2 is a load the default network carries (it saturates
    /// near 0.23).
    pub injection_rate: f64,
    /// The real-time share of the injection rate (the seed's 70:30 is 0.7, 30:70 is 0.3).
    pub real_time_share: f64,
    /// Payload bytes of every best-effort message (one 1024-byte MTU packet by default).
    pub best_effort_bytes: u32,
    /// SLs best-effort messages take, one drawn uniformly per message
    /// (default 8-14: seed 003's links have 16 VLs, and spreading a class
    /// over several lowers head-of-line blocking).
    pub best_effort_sls: Vec<u32>,
    /// SLs of the video streams: stream k of an HCA takes the (k mod n)-th (default 1-7).
    pub real_time_sls: Vec<u32>,
    /// Video streams per HCA; default: as many as carry the real-time load
    /// at the trace's mean rate (see docs/infiniband-model.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streams_per_hca: Option<u32>,
    /// The video trace the streams are cut from: "builtin" (a frame-size
    /// model derived from the real MPEG trace, shipped with fabricsim), or
    /// a trace file such as the real one, "../shared/data/traces/movietrace.data"
    /// (relative paths are looked up from the working directory and the
    /// directories above it).
    pub trace: String,
    /// One 256-byte control packet per HCA every this many ms, on VL15 (0: no control traffic).
    pub control_period_ms: f64,
    /// Where best-effort messages go (`traffic::patterns`): "uniform" (the
    /// study's), "shift" (all-to-all as a shift permutation), "permutation"
    /// (one random derangement, from run.seed), "hot_spot" or "incast".
    /// Video streams keep one uniformly drawn destination each (set
    /// real_time_share = 0 for the pattern alone); control packets stay uniform.
    pub pattern: IbPattern,
    /// hot_spot: the HCA (from 0) that draws the extra share (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_spot_hca: Option<u32>,
    /// hot_spot: the share of every other HCA's messages sent to it, the rest uniform (default 0.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_spot_share: Option<f64>,
    /// incast: the HCA (from 0) every sender sends to (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incast_target: Option<u32>,
    /// incast: how many HCAs send, those after the target in order
    /// (default: all others); the rest, the target included, send no
    /// best-effort messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incast_senders: Option<u32>,
}

/// Destinations of best-effort messages (`traffic::patterns::Pattern`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IbPattern {
    /// Every message to an HCA drawn uniformly among the others.
    #[default]
    Uniform,
    /// All-to-all as a shift permutation: HCA i's k-th message to (i + 1 + k mod (n - 1)) mod n.
    Shift,
    /// One random derangement for the whole run: every HCA sends to its partner.
    Permutation,
    /// A share of every HCA's messages to one HCA, the rest uniform.
    HotSpot,
    /// N to 1: some HCAs all send to one.
    Incast,
}

impl Default for IbWorkloadSpec {
    fn default() -> Self {
        IbWorkloadSpec {
            injection_rate: 0.2,
            real_time_share: 0.7,
            best_effort_bytes: 1024,
            best_effort_sls: (8..=14).collect(),
            real_time_sls: (1..=7).collect(),
            streams_per_hca: None,
            trace: BUILTIN_TRACE.to_string(),
            control_period_ms: 100.0 / 3.0,
            pattern: IbPattern::Uniform,
            hot_spot_hca: None,
            hot_spot_share: None,
            incast_target: None,
            incast_senders: None,
        }
    }
}

/// The InfiniBand model's section, every default filled in.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbSpec {
    /// Every link's width and speed, e.g. "1xSDR" (the seed's 2.5 Gbit/s), "4xQDR", "4xHDR".
    pub link: String,
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
}

impl Default for IbSpec {
    fn default() -> Self {
        IbSpec {
            link: "1xSDR".into(),
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
pub const TOPOLOGY_SEED: Range = Range::int("ib.topology.seed", 0, u64::MAX);
pub const CABLES: Range = Range::int_list("ib.topology.cables", 1, 4096)
    .text("a list of [switch a, switch b]: two different switches from 1 to the number of switches");
pub const LIMIT: Range =
    Range::int("ib.vl_arbitration.limit_of_high_priority", 0, 255).note("4096-byte units; 255 = none");
pub const FORWARDING: Range = Range::num("ib.switch.forwarding_ns", 0.0, 1.0e6).unit("ns");
pub const ARBITRATION: Range = Range::num("ib.switch.arbitration_ns", 0.0, 1.0e6).unit("ns");
pub const HOQ_LIFE: Range =
    Range::int("ib.switch.hoq_life", 0, 31).note("4.096 us x 2^value; 20 or more = no limit (IBA)");
pub const SWITCH_LIFE: Range =
    Range::int("ib.switch.switch_life", 0, 31).note("4.096 us x 2^value; 20 or more = no limit (IBA)");
pub const RELIABLE_SHARE: Range = Range::num("ib.routing.reliable_share", 0.0, 1.0);
pub const SLACK: Range = Range::int("ib.routing.slack", 0, 8).unit("hops");
pub const DEADLOCK_CHECK: Range = Range::num("ib.deadlock_check_us", 0.001, 1.0e9).unit("us");
pub const HCA_BUFFER: Range = Range::num("ib.hca.buffer_mb", 0.0, 65536.0).above().unit("MiB");
pub const PORTS: Range = Range::int("ib.topology.ports", 2, 255).note("IBA switches have up to 254 ports");
pub const SWITCHES: Range = Range::int("ib.topology.switches", 2, 4096);
pub const LINKS: Range = Range::int("ib.topology.links", 1, 1 << 20);
pub const HCAS: Range = Range::int_list("ib.topology.hcas", 0, 254).note("within ib.topology.ports");
pub const ARITY: Range = Range::int("ib.topology.arity", 2, 64);
pub const LEVELS: Range = Range::int("ib.topology.levels", 1, 8).note("fat tree: k^n at most 65536 HCAs; clos: 2 or 3");
pub const HCAS_PER_LEAF: Range = Range::int("ib.topology.hcas_per_leaf", 1, 254).note("within ib.topology.ports");
pub const OVERSUBSCRIPTION: Range =
    Range::num("ib.topology.oversubscription", 1.0, 1024.0).note("HCAs per leaf uplink; 1 = non-blocking");
pub const ROOT: Range = Range::int("ib.routing.root", 1, 1 << 20).note("a switch of the fabric");
pub const ROOTS: Range = Range::int_list("ib.routing.roots", 1, 1 << 20).note("switches of the fabric");
pub const INJECTION: Range = Range::num("ib.workload.injection_rate", 0.0, 2.0).note("fraction of the link rate");
pub const SHARE: Range = Range::num("ib.workload.real_time_share", 0.0, 1.0);
pub const BE_BYTES: Range = Range::int("ib.workload.best_effort_bytes", 1, 1 << 24).unit("bytes");
pub const RT_SLS: Range = Range::int_list("ib.workload.real_time_sls", 0, 14).note("at least one; SL 15 is management");
pub const BE_SLS: Range =
    Range::int_list("ib.workload.best_effort_sls", 0, 14).note("at least one; SL 15 is management");
pub const STREAMS: Range = Range::int("ib.workload.streams_per_hca", 0, 4096);
pub const HOT_SPOT_SHARE: Range = Range::num("ib.workload.hot_spot_share", 0.0, 1.0);
pub const HOT_SPOT_HCA: Range = Range::int("ib.workload.hot_spot_hca", 0, 1 << 20).note("an HCA of the fabric, from 0");
pub const INCAST_TARGET: Range =
    Range::int("ib.workload.incast_target", 0, 1 << 20).note("an HCA of the fabric, from 0");
pub const INCAST_SENDERS: Range =
    Range::int("ib.workload.incast_senders", 1, 1 << 20).note("at most the fabric's other HCAs");
pub const CONTROL_PERIOD: Range = Range::num("ib.workload.control_period_ms", 0.0, 1.0e6).unit("ms").note("0 = none");

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
];

impl IbSpec {
    /// The VL of `sl` (SL s on VL s mod data_vls unless `sl_to_vl` says otherwise).
    fn vl_of(&self, sl: u32) -> u32 {
        match &self.sl_to_vl {
            Some(t) => t.get(sl as usize).copied().unwrap_or(15),
            None => sl % self.data_vls.max(1),
        }
    }

    /// The data VLs the workload's packets travel on, in increasing order.
    pub fn data_vls_in_use(&self) -> Vec<u32> {
        let w = &self.workload;
        let mut sls: Vec<u32> = Vec::new();
        if w.real_time_share > 0.0 {
            sls.extend(&w.real_time_sls);
        }
        if w.real_time_share < 1.0 {
            sls.extend(&w.best_effort_sls);
        }
        let mut vls: Vec<u32> = sls.into_iter().map(|sl| self.vl_of(sl)).filter(|&v| v < self.data_vls).collect();
        vls.sort_unstable();
        vls.dedup();
        vls
    }

    /// Fills the arbitration tables the user left out from the VLs the
    /// workload's SLs map to, so that a change of `data_vls` or `sl_to_vl`
    /// never meets a default table written for 15 data VLs.
    pub fn fill_defaults(&mut self) {
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
        if let Some(t) = self.deadlock_check_us {
            DEADLOCK_CHECK.check(t)?;
        }
        self.topology.validate()?;
        let imported = self.routing.algorithm == IbRouting::Imported;
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
                self.routing.algorithm == IbRouting::Updn,
                "ib.routing.roots",
                format!("{roots:?}"),
                "only with ib.routing.algorithm = \"updn\"",
            )?;
        }
        require(
            self.routing.algorithm != IbRouting::Updn || self.routing.roots.as_ref().is_some_and(|r| !r.is_empty()),
            "ib.routing.roots",
            "missing",
            "the root switches of ib.routing.algorithm = \"updn\", from 1 (e.g. the spine of a fat tree)",
        )?;
        if let Some(r) = self.routing.root {
            ROOT.check_int(r)?;
            if !self.routing.algorithm.has_root() {
                return Err(Error::invalid(
                    "ib.routing.root",
                    r,
                    "only with ib.routing.algorithm = \"updown\", \"updown_tree\" or \"multipath\"",
                ));
            }
        }
        let multipath = self.routing.algorithm == IbRouting::Multipath;
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

impl IbTopologySpec {
    fn validate(&self) -> Result<()> {
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

impl IbWorkloadSpec {
    fn validate(&self) -> Result<()> {
        INJECTION.check(self.injection_rate)?;
        SHARE.check(self.real_time_share)?;
        BE_BYTES.check_int(self.best_effort_bytes)?;
        require(!self.real_time_sls.is_empty(), "ib.workload.real_time_sls", "[]", &RT_SLS.allowed())?;
        RT_SLS.check_list(&self.real_time_sls)?;
        require(!self.best_effort_sls.is_empty(), "ib.workload.best_effort_sls", "[]", &BE_SLS.allowed())?;
        BE_SLS.check_list(&self.best_effort_sls)?;
        if let Some(s) = self.streams_per_hca {
            STREAMS.check_int(s)?;
        }
        CONTROL_PERIOD.check(self.control_period_ms)?;
        require(
            self.control_period_ms == 0.0 || self.control_period_ms >= 1e-3,
            "ib.workload.control_period_ms",
            self.control_period_ms,
            "0 (no control traffic) or at least 0.001 ms",
        )?;
        let given = |present: bool, key: &str, pattern: &str| {
            require(
                !present,
                &format!("ib.workload.{key}"),
                "given",
                &format!("only with ib.workload.pattern = \"{pattern}\""),
            )
        };
        let (hot, incast) = (self.pattern == IbPattern::HotSpot, self.pattern == IbPattern::Incast);
        given(self.hot_spot_hca.is_some() && !hot, "hot_spot_hca", "hot_spot")?;
        given(self.hot_spot_share.is_some() && !hot, "hot_spot_share", "hot_spot")?;
        given(self.incast_target.is_some() && !incast, "incast_target", "incast")?;
        given(self.incast_senders.is_some() && !incast, "incast_senders", "incast")?;
        if let Some(s) = self.hot_spot_share {
            HOT_SPOT_SHARE.check(s)?;
        }
        for (range, value) in [
            (HOT_SPOT_HCA, self.hot_spot_hca),
            (INCAST_TARGET, self.incast_target),
            (INCAST_SENDERS, self.incast_senders),
        ] {
            if let Some(v) = value {
                range.check_int(v)?;
            }
        }
        Ok(())
    }

    /// The destinations of best-effort messages among `hcas` HCAs, None for
    /// uniform ones; an HCA beyond the fabric is refused by key.
    pub fn destinations(&self, hcas: u32) -> Result<Option<crate::traffic::patterns::Pattern>> {
        use crate::traffic::patterns::Pattern;
        let hca = |key: &str, h: u32| {
            require(h < hcas, &format!("ib.workload.{key}"), h, &format!("an HCA of the fabric, 0 to {}", hcas - 1))
        };
        Ok(match self.pattern {
            IbPattern::Uniform => None,
            IbPattern::Shift => Some(Pattern::Shift),
            IbPattern::Permutation => Some(Pattern::Permutation),
            IbPattern::HotSpot => {
                let hot = self.hot_spot_hca.unwrap_or(0);
                hca("hot_spot_hca", hot)?;
                Some(Pattern::HotSpot { hot, share: self.hot_spot_share.unwrap_or(DEFAULT_HOT_SPOT_SHARE) })
            }
            IbPattern::Incast => {
                let target = self.incast_target.unwrap_or(0);
                hca("incast_target", target)?;
                let senders = self.incast_senders.unwrap_or(hcas - 1);
                require(
                    (1..hcas).contains(&senders),
                    "ib.workload.incast_senders",
                    senders,
                    &format!("1 to {} senders (the other HCAs)", hcas - 1),
                )?;
                Some(Pattern::Incast { target, senders })
            }
        })
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
        assert_eq!((ib.link.as_str(), ib.vl_buffer_bytes, ib.data_vls), ("1xSDR", 4200, 15));
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
        let e = err("[ib.vl_arbitration]\nlow = []\n");
        assert_eq!(e.key.as_deref(), Some("ib.vl_arbitration"), "{e}");
    }
}
