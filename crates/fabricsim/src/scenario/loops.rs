//! Scenario sections of Fibre Channel arbitrated loops with SCSI disks:
//! `[loop]` (the ring, its timing and initialization), `[[disks]]` (groups
//! of drives in ring order after the initiator) and `[initiator]` (the host
//! bus adapter and the I/O workload). `[loop]` selects the arbitrated loop
//! model; `[[disks]]` is then required.
//!
//! Defaults where the seeds leave values open (see README, "Arbitrated
//! loops and disks"): disks receive into 4 buffers and log in with
//! BB_Credit 0 (the alternate credit model: an opener waits for R_RDYs);
//! the host adapter has 16 receive buffers, also BB_Credit 0, hard loop ID
//! 125 (AL_PA 0x01) and does not use the access fairness algorithm (FC-AL
//! lets one port, usually the host or FL_Port, be unfair; a fair adapter
//! competing with unfair disks is starved of access windows and throttles
//! every disk alike); disks reconnect for data in bursts of 64 KB.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::{require, require_finite_nonneg, require_finite_positive};
use crate::error::Result;

/// Largest data field of a Fibre Channel frame (FC-PH).
pub const MAX_FRAME_PAYLOAD: u32 = 2112;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Addressing {
    /// Ports claim the AL_PA of their loop ID in LIHA (initiator: `initiator.loop_id`, disk k: loop ID k).
    Hard,
    /// Every port takes the first free AL_PA in LISA, in ring order from the loop master.
    Soft,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LoopSpec {
    /// Line rate in baud (8b/10b: 1.0625 GBaud carries 106.25 MB/s).
    pub baud: f64,
    /// Total fibre length around the loop, in metres.
    pub length_m: f64,
    /// Fibre propagation delay.
    pub propagation_ns_per_m: f64,
    /// Forwarding (elasticity buffer) delay of every port, in transmission words.
    pub node_delay_words: f64,
    /// Fill words after every frame (FC-PH: at least six).
    pub fill_words: u32,
    /// Largest data payload per frame.
    pub frame_payload_bytes: u32,
    /// How ports get their AL_PAs in loop initialization: `hard` or `soft`.
    pub addressing: Addressing,
    /// Initialize the loop (LIP) before any I/O and report its duration.
    pub initialize: bool,
    /// Ports store each initialization frame before forwarding it.
    pub init_store_and_forward: bool,
    /// Run LIRP/LILP (position map) during initialization.
    pub position_map: bool,
}

impl Default for LoopSpec {
    fn default() -> Self {
        LoopSpec {
            baud: 1.0625e9,
            length_m: 50.0,
            propagation_ns_per_m: 5.0,
            node_delay_words: 6.0,
            fill_words: 6,
            frame_payload_bytes: 2048,
            addressing: Addressing::Hard,
            initialize: true,
            init_store_and_forward: true,
            position_map: true,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiskScheduler {
    Fifo,
    Sstf,
}

/// `count` identical drives, placed on the ring in the order the groups are listed.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DiskGroupSpec {
    /// Drives in the group.
    pub count: u32,
    /// A built-in drive: cheetah4lp, cheetah9lp, barracuda, ibm18es, atlas10k, sinha-disk1.
    pub model: String,
    /// Implements the access fairness algorithm (false: old firmware that re-arbitrates at will).
    pub fair: bool,
    /// Receive buffers of each drive's port.
    pub receive_buffers: u32,
    /// BB_Credit given at login; 0 is the alternate credit model.
    pub login_bb_credit: u32,
    /// Tagged command queue depth.
    pub queue_depth: u32,
    /// Order of queued media accesses: `fifo` or `sstf` (shortest seek first).
    pub scheduler: DiskScheduler,
    /// Serve reads from cache segments when the blocks are there.
    pub read_cache: bool,
    /// Keep reading ahead into the segment after a read miss.
    pub read_ahead: bool,
    /// Report writes complete once the data is in the buffer (destage later).
    pub write_cache: bool,
    /// Data moved per reconnection: read data bursts and write XFER_RDY lengths.
    pub burst_bytes: u32,
}

impl Default for DiskGroupSpec {
    fn default() -> Self {
        DiskGroupSpec {
            count: 1,
            model: "cheetah9lp".into(),
            fair: true,
            receive_buffers: 4,
            login_bb_credit: 0,
            queue_depth: 64,
            scheduler: DiskScheduler::Fifo,
            read_cache: true,
            read_ahead: true,
            write_cache: false,
            burst_bytes: 65536,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IoMode {
    /// `outstanding` commands per active disk, each replaced on completion.
    Closed,
    /// One command in the whole system at a time, to a uniformly chosen active disk.
    Light,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    Random,
    Sequential,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct InitiatorSpec {
    /// Receive buffers of the adapter's port.
    pub receive_buffers: u32,
    /// BB_Credit the adapter gives at login; 0 is the alternate credit model.
    pub login_bb_credit: u32,
    /// Uses the access fairness algorithm (default false: the adapter may always arbitrate).
    pub fair: bool,
    /// Hard loop ID (125 = AL_PA 0x01, the highest NL_Port priority).
    pub loop_id: u8,
    /// Host and driver time from an application's request to the adapter arbitrating.
    pub command_overhead_us: f64,
    /// Host time from the status frame to the application seeing completion.
    pub completion_overhead_us: f64,
    /// `closed`: `outstanding` I/Os per active disk; `light`: one I/O in the whole system.
    pub mode: IoMode,
    /// Closed mode: I/Os outstanding per active disk.
    pub outstanding: u32,
    /// Disks that receive I/O (the first ones on the ring); absent = all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_disks: Option<u32>,
    /// Size of every I/O.
    pub request_bytes: u32,
    /// Fraction of I/Os that are reads.
    pub read_fraction: f64,
    /// `random` blocks, or `sequential` from where the disk's last I/O ended.
    pub access: Access,
    /// Fixed work: each active disk gets this many I/Os and the run ends when all
    /// complete (per-device completion times). 0: steady state with the stop rule.
    pub ios_per_disk: u64,
}

impl Default for InitiatorSpec {
    fn default() -> Self {
        InitiatorSpec {
            receive_buffers: 16,
            login_bb_credit: 0,
            fair: false,
            loop_id: 125,
            command_overhead_us: 0.0,
            completion_overhead_us: 0.0,
            mode: IoMode::Closed,
            outstanding: 1,
            active_disks: None,
            request_bytes: 4096,
            read_fraction: 1.0,
            access: Access::Random,
            ios_per_disk: 0,
        }
    }
}

/// The arbitrated loop model's sections, defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct ArbitratedLoopSpec {
    pub ring: LoopSpec,
    pub disks: Vec<DiskGroupSpec>,
    pub initiator: InitiatorSpec,
}

impl ArbitratedLoopSpec {
    /// Total disks on the loop.
    pub fn disk_count(&self) -> u64 {
        self.disks.iter().map(|d| d.count as u64).sum()
    }

    /// Values the model can honour; drive names are checked against the
    /// built-in drives when the model is built.
    pub fn validate(&self) -> Result<()> {
        let l = &self.ring;
        require_finite_positive(l.baud, "loop.baud", "a positive line rate in baud")?;
        require(
            l.length_m.is_finite() && (0.0..=200_000.0).contains(&l.length_m),
            "loop.length_m",
            l.length_m,
            "0 to 200000 metres",
        )?;
        require_finite_nonneg(l.propagation_ns_per_m, "loop.propagation_ns_per_m", "a non-negative number")?;
        require(
            l.node_delay_words.is_finite() && (0.0..=1000.0).contains(&l.node_delay_words),
            "loop.node_delay_words",
            l.node_delay_words,
            "0 to 1000 words",
        )?;
        require(
            (2..=1000).contains(&l.fill_words),
            "loop.fill_words",
            l.fill_words,
            "an integer from 2 to 1000 (FC-PH asks for at least 6)",
        )?;
        require(
            (1..=MAX_FRAME_PAYLOAD).contains(&l.frame_payload_bytes),
            "loop.frame_payload_bytes",
            l.frame_payload_bytes,
            "an integer from 1 to 2112",
        )?;
        let groups = &self.disks;
        require(!groups.is_empty(), "disks", "[]", "at least one [[disks]] group")?;
        for (i, g) in groups.iter().enumerate() {
            let k = |f: &str| format!("disks[{i}].{f}");
            require(g.count >= 1, &k("count"), g.count, "an integer >= 1")?;
            require(
                (1..=1024).contains(&g.receive_buffers),
                &k("receive_buffers"),
                g.receive_buffers,
                "an integer from 1 to 1024",
            )?;
            require(
                g.login_bb_credit <= g.receive_buffers,
                &k("login_bb_credit"),
                g.login_bb_credit,
                "0 (alternate credit model) up to receive_buffers",
            )?;
            require((1..=256).contains(&g.queue_depth), &k("queue_depth"), g.queue_depth, "an integer from 1 to 256")?;
            require(g.burst_bytes >= 512, &k("burst_bytes"), g.burst_bytes, "an integer >= 512")?;
        }
        let n = self.disk_count();
        require(n <= 125, "disks", format!("{n} disks in total"), "1 to 125 disks (126 NL_Ports with the initiator)")?;
        let n = n as u32;
        let h = &self.initiator;
        require(
            (1..=1024).contains(&h.receive_buffers),
            "initiator.receive_buffers",
            h.receive_buffers,
            "an integer from 1 to 1024",
        )?;
        require(
            h.login_bb_credit <= h.receive_buffers,
            "initiator.login_bb_credit",
            h.login_bb_credit,
            "0 (alternate credit model) up to initiator.receive_buffers",
        )?;
        require(h.loop_id <= 125, "initiator.loop_id", h.loop_id, "a loop ID from 0 to 125")?;
        if l.addressing == Addressing::Hard {
            require(
                h.loop_id as u32 >= n,
                "initiator.loop_id",
                h.loop_id,
                &format!("with hard addressing, a loop ID the disks (loop IDs 0..{n}) do not use"),
            )?;
        }
        require_finite_nonneg(h.command_overhead_us, "initiator.command_overhead_us", "a non-negative number")?;
        require_finite_nonneg(h.completion_overhead_us, "initiator.completion_overhead_us", "a non-negative number")?;
        if let Some(a) = h.active_disks {
            require((1..=n).contains(&a), "initiator.active_disks", a, &format!("1 to {n} (the disks on the loop)"))?;
        }
        require(
            (1..=64 << 20).contains(&h.request_bytes),
            "initiator.request_bytes",
            h.request_bytes,
            "1 byte to 64 MiB",
        )?;
        require(
            (0.0..=1.0).contains(&h.read_fraction),
            "initiator.read_fraction",
            h.read_fraction,
            "a fraction from 0 to 1",
        )?;
        let min_depth = groups.iter().map(|g| g.queue_depth).min().unwrap_or(1);
        if h.mode == IoMode::Closed {
            require(
                (1..=min_depth).contains(&h.outstanding),
                "initiator.outstanding",
                h.outstanding,
                &format!("1 to the smallest disk queue depth ({min_depth})"),
            )?;
        }
        Ok(())
    }
}
