//! Building a switch: its ports, crossbar state and tables, and the
//! bytes it takes (counted before a fabric is built).

use super::*;

/// What a switch's ports need at construction.
pub struct SwitchSpec<'a> {
    pub index: u32,
    /// What each port is cabled to (None: a free port).
    pub peers: Vec<Option<Wire>>,
    /// Stages 2 and 3: forwarding-table lookup and crossbar arbitration.
    pub input_stages: Time,
    /// Every cable's propagation delay (the fabric's).
    pub propagation: Time,
    /// The fabric's cables at its reference rate.
    pub cables: ReferenceCables,
    /// HOQLife and SwitchLifetime (None: no packet is ever dropped).
    pub lifetime: Option<Lifetime>,
    /// Multipath routing: the switch's multipath table and how unreliable
    /// datagrams choose among its ports.
    pub multipath: Option<(SwitchTable, Selection)>,
    /// Output port per DLID for data and for control traffic: a port byte
    /// per HCA, as a switch's linear forwarding table (every entry routed).
    pub data_table: Box<[u8]>,
    pub control_table: Box<[u8]>,
    pub sl_to_vl: &'a SlToVl,
    pub credits: PortCredits,
    pub arbiter: &'a VlArbiter,
    /// VLs in crossbar priority order (VL15 first).
    pub vl_order: &'a [u8],
    pub vl_buffer_bytes: u32,
    pub credit_block: u32,
    /// The switch's multicast table and replication scheme (None: unicast only).
    pub multicast: Option<SwitchMulticast>,
}

impl IbSwitch {
    /// Bytes of a switch of `ports` ports with tables to `endpoints`
    /// endpoints, before it is built (what [`IbSwitch::memory_bytes`] then counts).
    pub fn bytes_for(ports: u64, endpoints: u64) -> u64 {
        let port =
            (std::mem::size_of::<InPort>() + std::mem::size_of::<OutPort>() + std::mem::size_of::<Hold>()) as u64;
        std::mem::size_of::<IbSwitch>() as u64 + ports * port + Self::crossbar_bytes(ports) + 2 * endpoints
    }

    /// Bytes of the crossbar's request state beyond the ports: for more
    /// than 64 ports, per output, the inputs from 64 on that want it.
    pub(super) fn crossbar_bytes(ports: u64) -> u64 {
        ports * (ports.div_ceil(64) - 1) * 8
    }

    pub fn new(spec: SwitchSpec) -> Self {
        let p = spec.peers.len();
        // Credits go back a fabric-wide propagation delay after they are freed.
        assert!(
            spec.peers.iter().flatten().all(|w| w.propagation == spec.propagation),
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
        let capacity = u16::try_from(spec.vl_buffer_bytes / spec.credit_block).expect("VL buffer credits fit 16 bits");
        // Ranks: the crossbar order given (VL15, high table, low table), then any other VL.
        let mut by_rank = [0u8; VLS];
        let mut n = 0;
        for vl in spec.vl_order.iter().copied().chain(0..VLS as u8) {
            if !by_rank[..n].contains(&vl) {
                by_rank[n] = vl;
                n += 1;
            }
        }
        let mut rank = [0u8; VLS];
        for (r, &vl) in by_rank.iter().enumerate() {
            rank[vl as usize] = r as u8;
        }
        let mut free = [capacity; VLS];
        free[VL15 as usize] = u16::MAX;
        IbSwitch {
            index: spec.index,
            ports: p,
            data_table: spec.data_table,
            control_table: spec.control_table,
            sl_to_vl: *spec.sl_to_vl,
            served_ranks: ((1u32 << spec.vl_order.len()) - 1) as u16,
            inputs: spec
                .peers
                .iter()
                .map(|&peer| InPort {
                    queues: Default::default(),
                    head_out: [0; VLS],
                    head_blocks: [0; VLS - 1],
                    feeder: peer.map_or(PortRef::switch(u32::MAX, u16::MAX), |w| w.to),
                    ready: 0,
                    busy: false,
                    transfer_out: 0,
                    transfer_vl: 0,
                    transfer_bytes: 0,
                    transfer_blocks: 0,
                    peer,
                })
                .collect(),
            outputs: spec
                .peers
                .iter()
                .enumerate()
                .map(|(p, &wire)| OutPort {
                    wire,
                    queues: Default::default(),
                    free,
                    queued: 0,
                    queued_vls: 0,
                    busy: false,
                    mc_held: false,
                    next_input: 0,
                    wanting: 0,
                    to: wire.map_or(PortRef::switch(u32::MAX, u16::MAX), |w| w.to),
                    blocked: false,
                    port: OutputPort::new(PortRef::switch(spec.index, p as u16), spec.credits, spec.arbiter.clone()),
                    on_wire: None,
                })
                .collect(),
            rank,
            by_rank,
            wanting_high: vec![0; p * (p.div_ceil(64) - 1)],
            words: p.div_ceil(64) as u32,
            output_capacity: capacity,
            block: spec.credit_block,
            input_stages: spec.input_stages,
            mixed,
            holds: vec![super::rates::NO_HOLD; p],
            lifetime: spec.lifetime,
            expiry: if spec.lifetime.is_some() { vec![PortExpiry::default(); p] } else { Vec::new() },
            multipath: spec.multipath.map(|(table, selection)| {
                Box::new(Multipath { table, selection, used: vec![0; p], choices: Vec::with_capacity(p) })
            }),
            replication: spec.multicast.map(|m| Box::new(replication::Replication::new(m, p))),
            transfers: 0,
        }
    }
}
