//! `[ib.routing]`: how the forwarding tables of an InfiniBand fabric are
//! built (seed 003's SPF, Up*/Down* and multipath routing, OpenSM's
//! engines, imported tables) and the options of each.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::Range;

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
    /// OpenSM's fat-tree engine, port for port (its minhop where the
    /// fabric is not a fat tree by its checks): up groups chosen by their
    /// counts of routes, so a fat tree keeps its full bisection.
    Ftree,
    /// D-Mod-K: a switch at level l climbs by digit l of the destination
    /// (the closed form ftree balances towards; faster to build on the
    /// largest trees).
    Dmodk,
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
    /// Least Frequently Used: the output that has sent the fewest packets on the packet's VL lately (counts halving every 268 us).
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
            IbRouting::Dmodk => "dmodk",
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

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbRoutingSpec {
    /// How the linear forwarding tables of data traffic are built. Default:
    /// "spf" (seed 003's) on a generated topology; "min_hop" on an imported
    /// one, OpenSM's default engine, as its subnet manager routes it unless
    /// told otherwise. Control traffic (VL15) always takes SPF tables, the
    /// shortest path (seed 003).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<IbRouting>,
    /// Whether `algorithm` was left out (set where defaults are filled in).
    #[serde(skip)]
    #[schemars(skip)]
    pub algorithm_defaulted: Defaulted,
    /// Up*/Down* (`updown`, `updown_tree`): the root switch of the spanning
    /// tree, from 1 (default 1). The seed tried three roots and kept the
    /// best; `fabricsim reproduce` does the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<u32>,
    /// updn: the root switches, from 1 (e.g. the spine of a fat tree).
    /// Default: the switches OpenSM's updn takes when given none, those that
    /// see over 90% of the adapters at one distance (a fat tree's spine).
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

/// A note of how a scenario was written, for what a run says of it (the
/// routing a run took by default): not part of the scenario, so never
/// written out and equal whatever it says.
#[derive(Clone, Copy, Debug, Default)]
pub struct Defaulted(pub bool);

impl PartialEq for Defaulted {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl IbRoutingSpec {
    /// The SPF tie rule in force (for data SPF tables and control tables).
    pub fn spf_ties(&self) -> SpfTies {
        self.ties.unwrap_or(SpfTies::Balanced)
    }
}

pub const ROOT: Range = Range::int("ib.routing.root", 1, 1 << 20).note("a switch of the fabric");
pub const ROOTS: Range = Range::int_list("ib.routing.roots", 1, 1 << 20).note("switches of the fabric");
pub const RELIABLE_SHARE: Range = Range::num("ib.routing.reliable_share", 0.0, 1.0);
pub const SLACK: Range = Range::int("ib.routing.slack", 0, 8).unit("hops");
