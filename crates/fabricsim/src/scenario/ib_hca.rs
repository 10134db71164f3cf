//! `[ib.hca]`: the host channel adapters' message buffer and how its SL
//! queues hold it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IbHcaSpec {
    /// Messages waiting at an HCA, in MiB (seed 003 Table 1: 8 MB), per SL
    /// queue or in all (`buffer_scope`); a message that does not fit is
    /// refused and counted.
    pub buffer_mb: f64,
    /// How the buffer is held: "per_sl" (the default), a buffer of that
    /// size for each SL's queue and for the control queue, each message
    /// holding its bytes until its last packet leaves, so that one SL's
    /// backlog never refuses another's messages (seed 003 Fig. 2: "a queue
    /// for each SL"); or "shared" by every SL's queue, a packet's bytes
    /// freed as it leaves.
    pub buffer_scope: BufferScope,
}

/// How an HCA's message buffer is held (`ib.hca.buffer_scope`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BufferScope {
    /// A buffer of `buffer_mb` for each SL's queue and the control queue.
    #[default]
    PerSl,
    /// One budget for every SL's queue.
    Shared,
}

impl Default for IbHcaSpec {
    fn default() -> Self {
        IbHcaSpec { buffer_mb: 8.0, buffer_scope: BufferScope::default() }
    }
}
