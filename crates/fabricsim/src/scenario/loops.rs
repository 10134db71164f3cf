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

use super::check::{require, require_duration, Range};
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
    /// A built-in drive: cheetah4lp, cheetah9lp, barracuda, ibm18es, atlas10k, sinha-disk1, sinha-disk1-10k, sinha-disk2, sinha-disk3.
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
    /// Reads whose data the buffer holds while they wait for the loop; when
    /// it is full the mechanism waits (1: the drive fetches no data while it
    /// transfers). Absent: read data never holds up the mechanism.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_buffers: Option<u32>,
    /// From a read's last data frame to its status being ready (the drive
    /// building its FCP_RSP); it runs while the data tenancy's CLS goes round.
    pub status_delay_us: f64,
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
            read_buffers: None,
            status_delay_us: 0.0,
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

impl InitiatorSpec {
    /// Each active disk gets a fixed number of I/Os and the run ends when
    /// they are done (no warm-up, no stop rule).
    pub fn fixed_work(&self) -> bool {
        self.ios_per_disk > 0
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
        BAUD.check(l.baud)?;
        LENGTH_M.check(l.length_m)?;
        PROPAGATION_NS_PER_M.check(l.propagation_ns_per_m)?;
        NODE_DELAY_WORDS.check(l.node_delay_words)?;
        FILL_WORDS.check_int(l.fill_words)?;
        FRAME_PAYLOAD_BYTES.check_int(l.frame_payload_bytes)?;
        let groups = &self.disks;
        require(!groups.is_empty(), "disks", "[]", "at least one [[disks]] group")?;
        for (i, g) in groups.iter().enumerate() {
            let k = |f: &str| format!("disks[{i}].{f}");
            DISK_COUNT.check_int_at(&k("count"), g.count)?;
            DISK_RECEIVE_BUFFERS.check_int_at(&k("receive_buffers"), g.receive_buffers)?;
            DISK_LOGIN_BB_CREDIT.check_int_at(&k("login_bb_credit"), g.login_bb_credit)?;
            require(
                g.login_bb_credit <= g.receive_buffers,
                &k("login_bb_credit"),
                g.login_bb_credit,
                "0 (alternate credit model) up to receive_buffers",
            )?;
            DISK_QUEUE_DEPTH.check_int_at(&k("queue_depth"), g.queue_depth)?;
            DISK_BURST_BYTES.check_int_at(&k("burst_bytes"), g.burst_bytes)?;
            if let Some(b) = g.read_buffers {
                DISK_READ_BUFFERS.check_int_at(&k("read_buffers"), b)?;
            }
            DISK_STATUS_DELAY_US.check_at(&k("status_delay_us"), g.status_delay_us)?;
        }
        let n = self.disk_count();
        require(n <= 125, "disks", format!("{n} disks in total"), "1 to 125 disks (126 NL_Ports with the initiator)")?;
        let n = n as u32;
        let h = &self.initiator;
        RECEIVE_BUFFERS.check_int(h.receive_buffers)?;
        LOGIN_BB_CREDIT.check_int(h.login_bb_credit)?;
        require(
            h.login_bb_credit <= h.receive_buffers,
            "initiator.login_bb_credit",
            h.login_bb_credit,
            "0 (alternate credit model) up to initiator.receive_buffers",
        )?;
        LOOP_ID.check_int(h.loop_id)?;
        if l.addressing == Addressing::Hard {
            require(
                h.loop_id as u32 >= n,
                "initiator.loop_id",
                h.loop_id,
                &format!("with hard addressing, a loop ID the disks (loop IDs 0..{n}) do not use"),
            )?;
        }
        COMMAND_OVERHEAD_US.check(h.command_overhead_us)?;
        COMPLETION_OVERHEAD_US.check(h.completion_overhead_us)?;
        if let Some(a) = h.active_disks {
            ACTIVE_DISKS.check_int(a)?;
            require((1..=n).contains(&a), "initiator.active_disks", a, &format!("1 to {n} (the disks on the loop)"))?;
        }
        REQUEST_BYTES.check_int(h.request_bytes)?;
        READ_FRACTION.check(h.read_fraction)?;
        OUTSTANDING.check_int(h.outstanding)?;
        IOS_PER_DISK.check_int(h.ios_per_disk)?;
        let min_depth = groups.iter().map(|g| g.queue_depth).min().unwrap_or(1);
        if h.mode == IoMode::Closed {
            require(
                (1..=min_depth).contains(&h.outstanding),
                "initiator.outstanding",
                h.outstanding,
                &format!("1 to the smallest disk queue depth ({min_depth})"),
            )?;
        }
        self.check_times()
    }

    /// The times the loop derives from several keys: a word, a full frame
    /// with its fill words, and a trip round the loop of every port's
    /// elasticity buffer and the fibre lie between 1 ps and 10^4 s.
    fn check_times(&self) -> Result<()> {
        let l = &self.ring;
        let fix = "change loop.baud, loop.length_m, loop.propagation_ns_per_m or loop.node_delay_words";
        let ps_per_byte = 1e12 / (l.baud / 10.0);
        let word = 4.0 * ps_per_byte;
        require_duration(word, "a transmission word takes", "loop.baud", l.baud, fix)?;
        let frame = (36.0 + l.frame_payload_bytes as f64 + 4.0 * l.fill_words as f64) * ps_per_byte;
        require_duration(frame, "a full frame takes", "loop.baud", l.baud, fix)?;
        let ports = self.disk_count() as f64 + 1.0;
        let trip = ports * word * l.node_delay_words + l.length_m * l.propagation_ns_per_m * 1e3;
        require_duration(trip.max(1.0), "a loop trip takes", "loop.length_m", l.length_m, fix)
    }
}

/// Line rates from 1 MBaud to 100 GBaud.
pub const BAUD: Range = Range::num("loop.baud", 1e6, 1e11).unit("baud").note("1.0625e9 is 1 Gb/s Fibre Channel");
pub const LENGTH_M: Range = Range::num("loop.length_m", 0.0, 200_000.0).unit("metres");
pub const PROPAGATION_NS_PER_M: Range =
    Range::num("loop.propagation_ns_per_m", 0.0, 1000.0).unit("ns/m").note("fibre: about 5");
pub const NODE_DELAY_WORDS: Range = Range::num("loop.node_delay_words", 0.0, 1000.0).unit("words");
pub const FILL_WORDS: Range = Range::int("loop.fill_words", 2, 1000).unit("words").note("FC-PH asks for at least 6");
pub const FRAME_PAYLOAD_BYTES: Range =
    Range::int("loop.frame_payload_bytes", 1, MAX_FRAME_PAYLOAD as u64).unit("bytes").note("FC-PH data field");
pub const DISK_COUNT: Range = Range::int("disks.count", 1, 125).note("at most 125 disks on the loop in all");
pub const DISK_RECEIVE_BUFFERS: Range = Range::int("disks.receive_buffers", 1, 1024);
pub const DISK_LOGIN_BB_CREDIT: Range =
    Range::int("disks.login_bb_credit", 0, 1024).note("0: alternate credit model; at most receive_buffers");
pub const DISK_QUEUE_DEPTH: Range = Range::int("disks.queue_depth", 1, 256);
pub const DISK_BURST_BYTES: Range = Range::int("disks.burst_bytes", 512, 64 << 20).unit("bytes").note("up to 64 MiB");
pub const DISK_READ_BUFFERS: Range = Range::int("disks.read_buffers", 1, 1024).note("absent: no limit");
pub const DISK_STATUS_DELAY_US: Range = Range::num("disks.status_delay_us", 0.0, 1e5).unit("us").note("up to 0.1 s");
pub const RECEIVE_BUFFERS: Range = Range::int("initiator.receive_buffers", 1, 1024);
pub const LOGIN_BB_CREDIT: Range =
    Range::int("initiator.login_bb_credit", 0, 1024).note("0: alternate credit model; at most receive_buffers");
pub const LOOP_ID: Range = Range::int("initiator.loop_id", 0, 125).note("with hard addressing, not a disk's");
pub const COMMAND_OVERHEAD_US: Range =
    Range::num("initiator.command_overhead_us", 0.0, 1e6).unit("us").note("up to 1 s");
pub const COMPLETION_OVERHEAD_US: Range =
    Range::num("initiator.completion_overhead_us", 0.0, 1e6).unit("us").note("up to 1 s");
pub const OUTSTANDING: Range =
    Range::int("initiator.outstanding", 1, 256).note("closed mode: at most the smallest disk queue depth");
pub const ACTIVE_DISKS: Range = Range::int("initiator.active_disks", 1, 125).note("at most the disks on the loop");
pub const REQUEST_BYTES: Range = Range::int("initiator.request_bytes", 1, 64 << 20).unit("bytes").note("up to 64 MiB");
pub const READ_FRACTION: Range = Range::num("initiator.read_fraction", 0.0, 1.0);
pub const IOS_PER_DISK: Range =
    Range::int("initiator.ios_per_disk", 0, 1_000_000_000).note("0: steady state with the stop rule");

pub const RANGES: &[Range] = &[
    BAUD,
    LENGTH_M,
    PROPAGATION_NS_PER_M,
    NODE_DELAY_WORDS,
    FILL_WORDS,
    FRAME_PAYLOAD_BYTES,
    DISK_COUNT,
    DISK_RECEIVE_BUFFERS,
    DISK_LOGIN_BB_CREDIT,
    DISK_QUEUE_DEPTH,
    DISK_BURST_BYTES,
    DISK_READ_BUFFERS,
    DISK_STATUS_DELAY_US,
    RECEIVE_BUFFERS,
    LOGIN_BB_CREDIT,
    LOOP_ID,
    COMMAND_OVERHEAD_US,
    COMPLETION_OVERHEAD_US,
    OUTSTANDING,
    ACTIVE_DISKS,
    REQUEST_BYTES,
    READ_FRACTION,
    IOS_PER_DISK,
];
