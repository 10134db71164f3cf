//! Who a fabric's switches and endpoints are in a real InfiniBand subnet:
//! node names and descriptions, GUIDs, LIDs where a dump records them, the
//! width and speed of every cable, and the node the subnet manager runs on.
//! `import` reads it from `ibnetdiscover` dumps and ibsim `net` files and
//! writes it back; the OpenSM routing engines order destinations by it.
//!
//! A fabric built from a shape has no recorded identity; `generated` gives
//! it the one ibsim gives a `net` file without GUID lines (switches
//! 0x200000, 0x200001, ... in file order; channel adapters from 0x100000,
//! each taking its port count plus one GUIDs, port `p` at node GUID + `p`),
//! so that exporting a generated fabric and handing it to ibsim and OpenSM
//! routes it exactly as this crate does.

/// First GUID ibsim gives a switch, and a channel adapter, when a file gives none.
pub const IBSIM_SWITCH_GUID: u64 = 0x20_0000;
pub const IBSIM_CA_GUID: u64 = 0x10_0000;

/// A node of the subnet: its name in the file (unique), node GUID and the
/// description a dump records after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeId {
    pub name: String,
    pub guid: u64,
    pub description: Option<String>,
}

/// A switch: its node and the LID of its port 0, if recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchIdentity {
    pub node: NodeId,
    pub lid: Option<u16>,
}

/// An endpoint: one cabled port of a channel adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointIdentity {
    pub node: NodeId,
    /// Ports of the adapter (cabled or not).
    pub node_ports: u8,
    /// This port's number on the adapter, from 1.
    pub port: u8,
    pub port_guid: u64,
    pub lid: Option<u16>,
}

/// Where the subnet manager runs: the first node of the file (ibsim
/// attaches OpenSM there), a switch's port 0 or an adapter's first cabled port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmPort {
    Switch(u32),
    Endpoint(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// By switch index.
    pub switches: Vec<SwitchIdentity>,
    /// By endpoint index.
    pub endpoints: Vec<EndpointIdentity>,
    /// Width and speed of every lane of every link ("4xQDR"), as `Topology::links`.
    pub lane_rates: Vec<Vec<Option<String>>>,
    /// Width and speed of every endpoint's cable.
    pub endpoint_rates: Vec<Option<String>>,
    pub sm: SmPort,
}

impl Identity {
    /// The identity ibsim gives a fabric of `switches` switches,
    /// `endpoints` endpoints and links of `lanes` lanes each, written as a
    /// `net` file without GUID lines: switches "Switch<i>", one-port
    /// adapters "Hca<e>", the subnet manager on switch 0, no LIDs (OpenSM
    /// assigns them) and no rates.
    pub fn generated(switches: usize, endpoints: usize, lanes: impl IntoIterator<Item = usize>) -> Identity {
        let switch_ids = (0..switches as u64)
            .map(|i| SwitchIdentity {
                node: NodeId { name: format!("Switch{i}"), guid: IBSIM_SWITCH_GUID + i, description: None },
                lid: None,
            })
            .collect();
        let endpoint_ids = (0..endpoints as u64)
            .map(|e| {
                let guid = IBSIM_CA_GUID + 2 * e;
                EndpointIdentity {
                    node: NodeId { name: format!("Hca{e}"), guid, description: None },
                    node_ports: 1,
                    port: 1,
                    port_guid: guid + 1,
                    lid: None,
                }
            })
            .collect();
        Identity {
            switches: switch_ids,
            endpoints: endpoint_ids,
            lane_rates: lanes.into_iter().map(|n| vec![None; n]).collect(),
            endpoint_rates: vec![None; endpoints],
            sm: SmPort::Switch(0),
        }
    }
}

/// The order of OpenSM's GUID-keyed maps on a little-endian machine: they
/// compare GUIDs as stored, in network byte order, read as native integers.
pub fn opensm_guid_order(guid: u64) -> u64 {
    guid.swap_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn generated_guids_are_ibsims() {
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(2), ..Default::default() }).unwrap();
        let id = topo.subnet_identity();
        assert_eq!(id.switches[1].node.guid, 0x200001);
        assert_eq!((id.endpoints[0].port_guid, id.endpoints[1].port_guid), (0x100001, 0x100003));
        // OpenSM's maps put 0x200100 between 0x200000 and 0x200001.
        let mut guids = vec![0x200001u64, 0x200100, 0x200000];
        guids.sort_by_key(|&g| opensm_guid_order(g));
        assert_eq!(guids, vec![0x200000, 0x200100, 0x200001]);
    }
}
