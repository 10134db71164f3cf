//! Scenario section of arbitrated loops bridged through a switch (seed
//! 001): `[switched_loop]` selects the model and holds the switch, the
//! bridges and the workload; `[loop]` gives every loop's timing and
//! `[[disks]]` the disk groups each loop carries (the same on every loop).
//!
//! Defaults follow seed 001 where it speaks (4 loops of one host, one
//! switch-connected node and 8 disks; 64 KB reads; 8 commands outstanding
//! per disk at heavy load) and docs/switched-loop-model.md where it does
//! not (bridge buffers, switch latency, one command per host at light load).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, Range};
use super::fc::SwitchSpec;
use super::loops::{Addressing, DiskGroupSpec, LoopSpec};
use crate::error::Result;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Switching {
    /// The initiator's tenancy runs end to end through both bridges; a busy
    /// remote bridge refuses the open and the initiator arbitrates again.
    Circuit,
    /// The local bridge takes the frames into its buffers and forwards them
    /// over the switch; the remote bridge delivers them in its own tenancy.
    Packet,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SwitchedLoad {
    /// `light_commands` outstanding per host (or in the whole system, see `light_scope`).
    Light,
    /// `outstanding_per_disk` x disks per loop outstanding at every host, each
    /// replaced the moment it completes.
    Heavy,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LightScope {
    /// Every host keeps one command outstanding (what seed 001's queueing and re-attempts need).
    Host,
    /// One command in the whole system, issued by a host drawn at random.
    System,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchedLoopSpec {
    /// Loops on the switch, each attached to one switch port by its bridge.
    pub loops: u32,
    /// `circuit` or `packet` switching between loops.
    pub switching: Switching,
    /// Receive buffers (frames) of each bridge (switch-connected node), in each
    /// direction: phases from its loop waiting for the switch, and phases from
    /// the switch waiting for its loop.
    pub bridge_buffers: u32,
    /// Receive buffers of each host's port.
    pub host_receive_buffers: u32,
    /// The hosts use the access fairness algorithm (the bridge never does).
    pub host_fair: bool,
    /// `light` or `heavy`.
    pub load: SwitchedLoad,
    /// Light load: who keeps one command outstanding, `host` or `system`.
    pub light_scope: LightScope,
    /// Heavy load: commands outstanding per disk on the host's loop.
    pub outstanding_per_disk: u32,
    /// Share of commands addressed to a disk on another loop (the loop then uniform among the others).
    pub global_fraction: f64,
    /// Size of every read or write.
    pub request_bytes: u32,
    /// Share of reads among the commands (1: reads only, the seed's workload).
    pub read_fraction: f64,
}

impl Default for SwitchedLoopSpec {
    fn default() -> Self {
        SwitchedLoopSpec {
            loops: 4,
            switching: Switching::Circuit,
            bridge_buffers: 64,
            host_receive_buffers: 16,
            host_fair: false,
            load: SwitchedLoad::Light,
            light_scope: LightScope::Host,
            outstanding_per_disk: 8,
            global_fraction: 0.0,
            request_bytes: 65536,
            read_fraction: 1.0,
        }
    }
}

/// The switched-loop model's sections, defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchedLoopModelSpec {
    pub switched: SwitchedLoopSpec,
    /// The FC switch the bridges attach to (`[switch]`; its ports run at the loops' rate).
    pub switch: SwitchSpec,
    pub ring: LoopSpec,
    /// Disk groups of every loop, in ring order after the host.
    pub disks: Vec<DiskGroupSpec>,
}

impl SwitchedLoopModelSpec {
    /// Disks on each loop.
    pub fn disks_per_loop(&self) -> u32 {
        self.disks.iter().map(|d| d.count).sum()
    }

    pub fn validate(&self) -> Result<()> {
        let s = &self.switched;
        LOOPS.check_int(s.loops)?;
        self.switch.validate()?;
        require(
            s.loops <= self.switch.ports,
            "switched_loop.loops",
            s.loops,
            &format!("at most switch.ports ({}): each loop's bridge takes one switch port", self.switch.ports),
        )?;
        BRIDGE_BUFFERS.check_int(s.bridge_buffers)?;
        HOST_RECEIVE_BUFFERS.check_int(s.host_receive_buffers)?;
        OUTSTANDING_PER_DISK.check_int(s.outstanding_per_disk)?;
        GLOBAL_FRACTION.check(s.global_fraction)?;
        REQUEST_BYTES.check_int(s.request_bytes)?;
        READ_FRACTION.check(s.read_fraction)?;
        require(
            s.loops >= 2 || s.global_fraction == 0.0,
            "switched_loop.global_fraction",
            s.global_fraction,
            "0 with a single loop (global traffic needs a second loop)",
        )?;
        // Every loop is validated as the arbitrated loop model would (its
        // timing, disk groups and the 125-disk limit), with the host in front.
        let one = super::loops::ArbitratedLoopSpec {
            ring: self.ring.clone(),
            disks: self.disks.clone(),
            initiator: super::loops::InitiatorSpec::default(),
        };
        one.validate()?;
        let n = self.disks_per_loop();
        require(
            n <= 124,
            "disks",
            format!("{n} disks per loop"),
            "1 to 124 disks per loop (126 NL_Ports with the host and the bridge)",
        )?;
        require(
            self.ring.addressing == Addressing::Hard,
            "loop.addressing",
            "soft",
            "hard (the switched-loop model draws every port's AL_PA from a seeded stream; the bridge takes 0x00)",
        )?;
        let frame = self.ring.frame_payload_bytes;
        for (i, g) in self.disks.iter().enumerate() {
            let k = format!("disks[{i}].burst_bytes");
            require(
                g.burst_bytes >= s.request_bytes,
                &k,
                g.burst_bytes,
                &format!(
                    "at least switched_loop.request_bytes ({}): a read or write moves its data in one data phase",
                    s.request_bytes
                ),
            )?;
            let frames = g.burst_bytes.min(s.request_bytes).div_ceil(frame);
            require(
                s.bridge_buffers >= frames,
                "switched_loop.bridge_buffers",
                s.bridge_buffers,
                &format!("at least the {frames} frames of one data phase (a bridge stores a whole phase)"),
            )?;
        }
        Ok(())
    }
}

pub const LOOPS: Range = Range::int("switched_loop.loops", 1, 64).note("one switch port per loop");
pub const BRIDGE_BUFFERS: Range =
    Range::int("switched_loop.bridge_buffers", 1, 65536).unit("frames").note("at least one data phase");
pub const HOST_RECEIVE_BUFFERS: Range = Range::int("switched_loop.host_receive_buffers", 1, 1024).unit("frames");
pub const OUTSTANDING_PER_DISK: Range = Range::int("switched_loop.outstanding_per_disk", 1, 256);
pub const GLOBAL_FRACTION: Range = Range::num("switched_loop.global_fraction", 0.0, 1.0);
pub const READ_FRACTION: Range = Range::num("switched_loop.read_fraction", 0.0, 1.0);
pub const REQUEST_BYTES: Range =
    Range::int("switched_loop.request_bytes", 1, 64 << 20).unit("bytes").note("up to 64 MiB");

pub const RANGES: &[Range] =
    &[LOOPS, BRIDGE_BUFFERS, HOST_RECEIVE_BUFFERS, OUTSTANDING_PER_DISK, GLOBAL_FRACTION, REQUEST_BYTES, READ_FRACTION];
