//! `[ib.multicast]`: multicast groups and how the switches replicate
//! (seed 003 sections 3.6 and 5.2). Absent: no multicast, and the model
//! runs exactly as without this section.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use crate::error::Result;

/// How a multicast packet reaches the members of its group (seed 003 section 5.2).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MulticastScheme {
    /// Scheme 1: no switch support; the source HCA sends one unicast copy per member.
    ReplicatedUnicast,
    /// Scheme 2: a switch copies a packet to all its tree outputs at once,
    /// in lock-step, once every one of them is free; multicast packets
    /// reserve outputs ahead of unicast ones, in `order` among themselves.
    Synchronous,
    /// Scheme 3: copies leave one output at a time; the first moves the
    /// packet from its input VL into a one-packet buffer of the input, a
    /// counter of remaining destinations frees it after the last.
    Asynchronous,
    /// Scheme 4: the packet is copied into a multicast FIFO of every tree
    /// output (central buffers), served ahead of the unicast input VLs.
    CentralBuffer,
}

/// Which of several multicast packets competing for an output reserves it (synchronous replication).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MulticastOrder {
    /// The earliest arrival at the switch (lowest timestamp): the seed's choice for Fig. 10.
    Fcfs,
    /// The inputs in turn, from the one after the last served.
    RoundRobin,
}

/// When a synchronous request reserves its outputs against unicast packets
/// (seed 003 section 3.6.1; the reading is declared in the model doc).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reservation {
    /// Only once every output VL it needs has room for the packet, so a
    /// full VL never holds an output from packets of other VLs.
    RoomFirst,
    /// At once, whether or not the outputs have room: the request holds
    /// every output it can and waits for the rest ("the multicast packet
    /// will hold all other output ports and will wait").
    HoldAndWait,
}

/// How the default VL arbitration table weighs the multicast VLs against
/// the unicast video VLs (seed 003 section 3.6.2, after Legout et al.).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Bandwidth {
    /// The same weight as a unicast video VL.
    Equal,
    /// The unicast weight times the group's members.
    Linear,
    /// The unicast weight times 1 + log2 of the group's members.
    Logarithmic,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbMulticastSpec {
    /// The replication scheme (default `synchronous`).
    pub scheme: MulticastScheme,
    /// Synchronous replication: `fcfs` (default) or `round_robin` among
    /// multicast packets reserving outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<MulticastOrder>,
    /// Synchronous replication: `room_first` (default) or `hold_and_wait`,
    /// when a request reserves its outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Reservation>,
    /// The share of each HCA's video streams sent to a multicast group
    /// instead of one HCA (seed 003: 0.2).
    pub share: f64,
    /// Members of each group, drawn uniformly from the HCAs with the run's
    /// seed (seed 003: three groups "each with two or four" members).
    pub group_sizes: Vec<u32>,
    /// The groups' members as HCA indices from 0, instead of drawing them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Vec<u32>>>,
    /// Central buffer: bytes of each output port's multicast FIFO (default
    /// 63000, as much as the port's 15 data VL buffers together).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub central_buffer_bytes: Option<u32>,
    /// Separate VLs for multicast: the SLs multicast video streams take
    /// (group g the SLs at positions g, g + groups, ...; streams in turn),
    /// whose VLs no unicast SL may share. Absent: the unicast video SLs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sls: Option<Vec<u32>>,
    /// With `sls` and no `ib.vl_arbitration.high`: the default
    /// high-priority table gives each unicast video VL weight 32 and each
    /// multicast VL `equal` (32, the default), `linear` (32 x members) or
    /// `logarithmic` (32 x (1 + log2 members)) weight, at most 255.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Bandwidth>,
    /// Whether the scenario gave the high-priority table itself (set when defaults are filled).
    #[serde(skip)]
    #[schemars(skip)]
    pub high_table_given: bool,
}

impl Default for IbMulticastSpec {
    fn default() -> Self {
        IbMulticastSpec {
            scheme: MulticastScheme::Synchronous,
            order: None,
            reservation: None,
            share: 0.2,
            group_sizes: vec![2, 4, 4],
            groups: None,
            central_buffer_bytes: None,
            sls: None,
            bandwidth: None,
            high_table_given: false,
        }
    }
}

/// The default bytes of a central multicast FIFO: seed 003 says the scheme
/// comes "with the overhead of a large buffer" and gives no size; taken as
/// much as an output port's 15 data VL buffers of its Table 1 together
/// (15 x 4200 bytes, 60 full packets), which doubles the port's buffering,
/// against the one-packet buffer of plain asynchronous replication.
pub const DEFAULT_CENTRAL_BUFFER: u32 = 15 * 4200;

pub const MC_SHARE: Range = Range::num("ib.multicast.share", 0.0, 1.0);
pub const GROUP_SIZES: Range = Range::int_list("ib.multicast.group_sizes", 2, 4096).note("at least one group");
pub const GROUP_MEMBERS: Range = Range::int_list("ib.multicast.groups", 0, 65535).note("HCA indices from 0");
pub const CENTRAL_BUFFER: Range =
    Range::int("ib.multicast.central_buffer_bytes", 1050, 1 << 24).unit("bytes").note("at least one full packet");

pub const MC_SLS: Range = Range::int_list("ib.multicast.sls", 0, 14).note("at least one; SL 15 is management");

pub const RANGES: &[Range] = &[MC_SHARE, GROUP_SIZES, GROUP_MEMBERS, CENTRAL_BUFFER, MC_SLS];

/// The high-priority weight of a unicast video VL when multicast has its own VLs.
pub const UNICAST_WEIGHT: u32 = 32;

impl IbMulticastSpec {
    /// Bounds what needs no fabric; members against the HCA count are
    /// checked when the fabric is built.
    pub fn validate(&self) -> Result<()> {
        MC_SHARE.check(self.share)?;
        match &self.groups {
            Some(groups) => {
                require(!groups.is_empty(), "ib.multicast.groups", "[]", "at least one group of two or more HCAs")?;
                for (g, members) in groups.iter().enumerate() {
                    let key = format!("ib.multicast.groups[{g}]");
                    require(members.len() >= 2, &key, format!("{members:?}"), "two or more different HCAs")?;
                    GROUP_MEMBERS.check_list(members)?;
                    let mut m = members.clone();
                    m.sort_unstable();
                    m.dedup();
                    require(m.len() == members.len(), &key, format!("{members:?}"), "different HCAs")?;
                }
            }
            None => {
                require(
                    !self.group_sizes.is_empty(),
                    "ib.multicast.group_sizes",
                    "[]",
                    "at least one group of two or more members",
                )?;
                GROUP_SIZES.check_list(&self.group_sizes)?;
            }
        }
        require(
            self.order.is_none() || self.scheme == MulticastScheme::Synchronous,
            "ib.multicast.order",
            "given",
            "only with ib.multicast.scheme = \"synchronous\"",
        )?;
        if let Some(r) = self.reservation {
            require(
                self.scheme == MulticastScheme::Synchronous,
                "ib.multicast.reservation",
                match r {
                    Reservation::RoomFirst => "room_first",
                    Reservation::HoldAndWait => "hold_and_wait",
                },
                "only with ib.multicast.scheme = \"synchronous\"",
            )?;
        }
        if let Some(sls) = &self.sls {
            require(!sls.is_empty(), "ib.multicast.sls", "[]", &MC_SLS.allowed())?;
            MC_SLS.check_list(sls)?;
        }
        if let Some(b) = self.bandwidth {
            require(
                self.sls.is_some(),
                "ib.multicast.bandwidth",
                format!("{b:?}").to_lowercase(),
                "only with separate multicast VLs (ib.multicast.sls)",
            )?;
        }
        if let Some(b) = self.central_buffer_bytes {
            CENTRAL_BUFFER.check_int(b)?;
            require(
                self.scheme == MulticastScheme::CentralBuffer,
                "ib.multicast.central_buffer_bytes",
                b,
                "only with ib.multicast.scheme = \"central_buffer\"",
            )?;
        }
        Ok(())
    }

    pub fn order(&self) -> MulticastOrder {
        self.order.unwrap_or(MulticastOrder::Fcfs)
    }

    pub fn hold_and_wait(&self) -> bool {
        self.reservation == Some(Reservation::HoldAndWait)
    }

    /// Members of each group (given, or the sizes to draw).
    pub fn group_members(&self) -> Vec<u32> {
        match &self.groups {
            Some(g) => g.iter().map(|m| m.len() as u32).collect(),
            None => self.group_sizes.clone(),
        }
    }

    /// Positions in `sls` of group `g`'s SLs.
    pub fn sl_positions(&self, g: usize) -> Vec<usize> {
        let (n, groups) = (self.sls.as_ref().map_or(0, Vec::len), self.group_members().len().max(1));
        if n >= groups {
            (0..n).filter(|i| i % groups == g % groups).collect()
        } else if n > 0 {
            vec![g % n]
        } else {
            Vec::new()
        }
    }

    /// The weight of the multicast SL at position `i` of `sls` under the
    /// policy: by the mean members of the groups that use it.
    pub fn weight_at(&self, i: usize) -> u32 {
        let members = self.group_members();
        let users: Vec<f64> =
            (0..members.len()).filter(|&g| self.sl_positions(g).contains(&i)).map(|g| members[g] as f64).collect();
        let d = if users.is_empty() { 1.0 } else { users.iter().sum::<f64>() / users.len() as f64 };
        let w = UNICAST_WEIGHT as f64
            * match self.bandwidth.unwrap_or(Bandwidth::Equal) {
                Bandwidth::Equal => 1.0,
                Bandwidth::Linear => d,
                Bandwidth::Logarithmic => 1.0 + d.log2(),
            };
        (w.round() as u32).min(255)
    }
}
