//! Building a switch: its ports, crossbar state and tables, and the
//! bytes it takes (counted before a fabric is built).

use super::*;

/// What a switch's ports need at construction.
pub struct SwitchSpec<'a> {
    pub index: u32,
    /// What each port is cabled to (None: a free port).
    pub peers: Vec<Option<Wire>>,
    /// What every switch of the fabric shares (credit block, stage time,
    /// ranks, SL-to-VL map, lifetimes, VL buffer size).
    pub config: &'a SwitchConfig,
    /// The fabric's cables at its reference rate.
    pub cables: ReferenceCables,
    /// Multipath routing: the switch's multipath table and how unreliable
    /// datagrams choose among its ports.
    pub multipath: Option<(SwitchTable, Selection)>,
    /// Output port per DLID for data and for control traffic: per 64
    /// LIDs, the block of the fabric's table blocks (`lft.rs`; every entry routed).
    pub data_table: Box<[u32]>,
    pub control_table: Box<[u32]>,
    pub credits: PortCredits,
    pub arbiter: &'a VlArbiter,
    /// The switch's multicast table and replication scheme (None: unicast only).
    pub multicast: Option<SwitchMulticast>,
}

impl IbSwitch {
    /// Bytes of a switch of `ports` ports with tables to `endpoints`
    /// endpoints, before it is built: what [`IbSwitch::memory_bytes`] then
    /// counts, and its tables' blocks and their index as if it shared none
    /// (the fabric counts the blocks it built).
    pub fn bytes_for(ports: u64, endpoints: u64) -> u64 {
        let port =
            (std::mem::size_of::<InPort>() + std::mem::size_of::<OutPort>() + std::mem::size_of::<Hold>()) as u64;
        let blocks = 2 * endpoints.div_ceil(lft::BLOCK as u64);
        let tables = blocks * (4 + lft::BLOCK as u64 + lft::INDEX_BYTES);
        std::mem::size_of::<IbSwitch>() as u64 + ports * port + Self::crossbar_bytes(ports) + tables
    }

    /// Bytes of the crossbar's request state beyond the ports: for more
    /// than 64 ports, per output, the inputs from 64 on that want it.
    pub(super) fn crossbar_bytes(ports: u64) -> u64 {
        ports * (ports.div_ceil(64) - 1) * 8
    }

    pub fn new(spec: SwitchSpec) -> Self {
        let p = spec.peers.len();
        // A port's index fits the byte an input names its transfer's output
        // in, below the multicast marks (the IBA: 254 ports).
        assert!(p <= replication::MULTICAST_BUFFER_READ as usize, "switch {} has {p} ports", spec.index);
        // Credits go back a fabric-wide propagation delay after they are freed.
        assert!(
            spec.peers.iter().flatten().all(|w| w.propagation == spec.cables.propagation()),
            "every cable of switch {} has the fabric's propagation",
            spec.index
        );
        let mixed = spec.peers.iter().flatten().any(|w| w.rate != Default::default());
        // A one-rate switch sends over the reference cables, known from their far end.
        assert!(
            mixed || spec.peers.iter().flatten().all(|w| *w == spec.cables.wire(w.to)),
            "switch {}'s cables are the fabric's reference cables",
            spec.index
        );
        let free = [spec.config.capacity; VLS - 1];
        let (multicast_table, replication) = match spec.multicast {
            Some(m) => {
                let replication = replication::Replication::new(&m, p);
                (Some(m.table), Some(Box::new(replication)))
            }
            None => (None, None),
        };
        let forwarding = Forwarding::new(p, spec.control_table, spec.multipath, multicast_table);
        IbSwitch {
            index: spec.index,
            data_table: spec.data_table,
            inputs: spec
                .peers
                .iter()
                .map(|&peer| InPort {
                    lanes: Default::default(),
                    many_blocks: [0; VLS - 1],
                    feeder: far_end(peer),
                    ready: 0,
                    busy_until: 0,
                    armed: false,
                    transfer_out: 0,
                    transfer_bytes: 0,
                    peer,
                })
                .collect(),
            outputs: spec
                .peers
                .iter()
                .enumerate()
                .map(|(p, &wire)| OutPort {
                    wire,
                    free,
                    queued: 0,
                    queued_vls: 0,
                    busy_until: 0,
                    transfer_from: 0,
                    mc_held: false,
                    next_input: 0,
                    wanting: 0,
                    to: far_end(wire),
                    blocked: false,
                    port: OutputPort::new(PortRef::switch(spec.index, p as u16), spec.credits, spec.arbiter.clone()),
                    on_wire: None,
                })
                .collect(),
            wanting_high: vec![0; p * (p.div_ceil(64) - 1)],
            mixed,
            routes_multipath: forwarding.routes_multipath(),
            marks: spec.config.marking.is_some(),
            holds: vec![super::rates::NO_HOLD; p],
            expiry: if spec.config.lifetime.is_some() { vec![PortExpiry::default(); p] } else { Vec::new() },
            congestion: spec
                .config
                .marking
                .as_ref()
                .map_or(Vec::new(), |m| vec![PortCongestion::new(m, spec.config.capacity); p]),
            forwarding,
            replication,
        }
    }
}

/// The port at the far end of `cable` in four bytes (a free port: nowhere).
fn far_end(cable: Option<Wire>) -> PackedPort {
    cable.map_or(PackedPort::NOWHERE, |w| {
        PackedPort::new(w.to).unwrap_or_else(|| panic!("{:?} beyond a switch port's far-end field", w.to))
    })
}
