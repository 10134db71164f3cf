//! The join a `[switched_loop]` scenario describes, built: every loop's
//! ring (the host, the disks in the `[[disks]]` order and the bridge, with
//! AL_PAs drawn per loop), the disks' targets, the bridges' links, and the
//! FC switch they attach to with the records it carries.

use super::arbitrated_loop::al_pa::VALID_AL_PAS;
use super::arbitrated_loop::initialization::InitPort;
use super::arbitrated_loop::port::PortConfig;
use super::arbitrated_loop::ring::Ring;
use super::arbitrated_loop::timing::{LoopTiming, FRAME_OVERHEAD_BYTES};
use super::connection::Connections;
use super::metrics::{FcMetrics, FcMetricsSpec};
use super::shared::Shared;
use super::switch::{FcSwitch, FcSwitchSpec};
use super::timing::FcTiming;
use crate::error::{Error, Result};
use crate::kernel::{time, Arena, RandomStream, Time};
use crate::scenario::loops::DiskScheduler;
use crate::scenario::{Scenario, SwitchedLoopModelSpec};
use crate::sim::{ComponentKind, ComponentPath, Link, MetricSet, PortRef};
use crate::storage::disk_target::DiskTarget;
use crate::storage::{drive, Disk, Scheduler};

/// AL_PA of every bridge: the highest NL_Port priority.
pub const BRIDGE_AL_PA: u8 = 0x01;

/// Every loop's ring (its statistics registered in `set`, loop by loop),
/// the disks' targets loop by loop, and the link from each loop's bridge to
/// its switch port, `switch_fibre` long.
pub fn loops(
    spec: &SwitchedLoopModelSpec,
    seed: u64,
    switch_fibre: Time,
    set: &mut MetricSet,
) -> Result<(Vec<Ring>, Vec<DiskTarget>, Vec<Link>)> {
    let s = &spec.switched;
    let dpl = spec.disks_per_loop();
    let bridge_port = dpl + 1;
    let root = ComponentPath::root();
    let mut rings = Vec::with_capacity(s.loops as usize);
    let mut links = Vec::with_capacity(s.loops as usize);
    let mut disks = Vec::with_capacity((s.loops * dpl) as usize);
    for l in 0..s.loops {
        let path = root.child(format!("loop_{l:02}"));
        let mut al_pas = random_al_pas(&mut path.stream(seed, "al-pa", 0), dpl as usize + 1).into_iter();
        let port = |name: u64, al_pa: u8, fair: bool, receive_buffers: u32, login_bb_credit: u32| PortConfig {
            init: InitPort {
                port_name: 0x2000_0000_0000_0000 + ((l as u64) << 16) + name,
                fl_port: false,
                hard_al_pa: Some(al_pa),
                previous_al_pa: None,
            },
            fair,
            receive_buffers,
            login_bb_credit,
        };
        let mut ports =
            vec![port(0, al_pas.next().expect("an AL_PA per port"), s.host_fair, s.host_receive_buffers, 0)];
        for (i, g) in spec.disks.iter().enumerate() {
            let params = drive(&g.model).ok_or_else(|| {
                Error::invalid(&format!("disks[{i}].model"), &g.model, crate::storage::drive_names().join(", "))
            })?;
            for _ in 0..g.count {
                let k = ports.len() as u64;
                ports.push(port(
                    k,
                    al_pas.next().expect("an AL_PA per port"),
                    g.fair,
                    g.receive_buffers,
                    g.login_bb_credit,
                ));
                let scheduler = match g.scheduler {
                    DiskScheduler::Fifo => Scheduler::Fifo,
                    DiskScheduler::Sstf => Scheduler::Sstf,
                };
                let disk = Disk::new(&params, scheduler, g.read_cache, g.read_ahead, g.queue_depth as usize);
                disks.push(DiskTarget::new(disks.len() as u32, disk, g));
            }
        }
        ports.push(port(bridge_port as u64, BRIDGE_AL_PA, false, s.bridge_buffers, 0));
        rings.push(Ring::new(path.clone(), l, &spec.ring, &ports, set)?);
        let to_switch = Link::new(PortRef::switch(0, l as u16), switch_fibre);
        links.push(to_switch);
    }
    Ok((rings, disks, links))
}

/// The switch of the join: the scenario's `[switch]` (ports, buffers per
/// port, routing time, arbitration) running at the loops' line rate, with
/// the bridge of loop `l` on port `l`. Its frames are the loops' (a frame
/// header, the payload, the fill words between frames); a connect request
/// is a frame without payload.
pub fn switch(spec: &SwitchedLoopModelSpec, ring: &LoopTiming, fibre: Time, scenario: &Scenario) -> (FcSwitch, Shared) {
    let sw = &spec.switch;
    let loops = spec.switched.loops;
    let timing = FcTiming::at_rate(
        ring.rate,
        FRAME_OVERHEAD_BYTES,
        FRAME_OVERHEAD_BYTES + 4 * ring.fill_words,
        ring.max_payload,
        time::from_ns(sw.routing_time_ns),
        fibre,
    );
    let peers: Vec<Option<Link>> = (0..sw.ports)
        .map(|p| (p < loops).then(|| Link::new(PortRef::new(ComponentKind::LoopBridge, p, 0), fibre)))
        .collect();
    let forwarding: Vec<Vec<u16>> = (0..loops).map(|l| vec![l as u16]).collect();
    let switch = FcSwitch::new(FcSwitchSpec {
        id: 0,
        peers: &peers,
        buffers_per_port: sw.buffers_per_port,
        peer_buffers: spec.switched.bridge_buffers,
        forwarding: &forwarding,
        arbitration: sw.arbitration,
        seed: scenario.run.seed,
    });
    let metrics = FcMetrics::new(
        &[peers.len()],
        FcMetricsSpec {
            buffers: sw.buffers_per_port,
            batches: scenario.run.batches,
            batch_ps: 10 * timing.data_time,
            nodes: forwarding.len(),
            class: 3,
        },
    );
    let sh = Shared {
        frames: Arena::with_capacity(1024),
        messages: Arena::with_capacity(16),
        // A refused bridge closes its opener's tenancy, which arbitrates again: no back-off.
        connections: Connections::new(scenario.run.seed, 0.0),
        timing,
        metrics,
        credit_mail: Vec::new(),
    };
    (switch, sh)
}

/// `n` distinct AL_PAs below the bridge's priority, in a random order.
fn random_al_pas(rng: &mut RandomStream, n: usize) -> Vec<u8> {
    let mut pool: Vec<u8> = VALID_AL_PAS.iter().copied().filter(|&a| a > BRIDGE_AL_PA).collect();
    for i in 0..n.min(pool.len()) {
        let j = i + rng.below((pool.len() - i) as u32) as usize;
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}
