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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbMulticastSpec {
    /// The replication scheme (default `synchronous`).
    pub scheme: MulticastScheme,
    /// Synchronous replication: `fcfs` (default) or `round_robin` among
    /// multicast packets reserving outputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<MulticastOrder>,
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
    /// 4200, one VL buffer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub central_buffer_bytes: Option<u32>,
}

impl Default for IbMulticastSpec {
    fn default() -> Self {
        IbMulticastSpec {
            scheme: MulticastScheme::Synchronous,
            order: None,
            share: 0.2,
            group_sizes: vec![2, 4, 4],
            groups: None,
            central_buffer_bytes: None,
        }
    }
}

/// The default bytes of a central multicast FIFO: one VL buffer of seed 003's Table 1.
pub const DEFAULT_CENTRAL_BUFFER: u32 = 4200;

pub const MC_SHARE: Range = Range::num("ib.multicast.share", 0.0, 1.0);
pub const GROUP_SIZES: Range = Range::int_list("ib.multicast.group_sizes", 2, 4096).note("at least one group");
pub const GROUP_MEMBERS: Range = Range::int_list("ib.multicast.groups", 0, 65535).note("HCA indices from 0");
pub const CENTRAL_BUFFER: Range =
    Range::int("ib.multicast.central_buffer_bytes", 1050, 1 << 24).unit("bytes").note("at least one full packet");

pub const RANGES: &[Range] = &[MC_SHARE, GROUP_SIZES, GROUP_MEMBERS, CENTRAL_BUFFER];

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
}
