//! Building an InfiniBand fabric from its scenario: the topology, the
//! workload, the tables of the routing in force (and multipath's and
//! multicast's), the switches and HCAs with their cables, and the routing
//! section of the report.

use super::*;
use crate::ib::routing_advice;
use crate::sim::build_watch;

impl IbFabric {
    /// Builds the fabric a (validated) `[ib]` scenario describes.
    pub fn build(scenario: &Scenario) -> Result<Self> {
        let spec = scenario.infiniband()?;
        build_watch::step("the topology", 0, 0)?;
        let topo = wiring::topology(spec)?;
        let rates = wiring::link_rates(spec, &topo)?;
        let mut timing = IbTiming::new(spec, rates.reference)?;
        let groups = match &spec.multicast {
            Some(m) => Some(Groups::new(m, topo.endpoint_count(), scenario.run.seed)?),
            None => None,
        };
        let mut streams = None;
        if let (Some(m), Some(groups)) = (&spec.multicast, groups.as_ref()) {
            let mut sls = Vec::new();
            if let Some(list) = &m.sls {
                for g in 0..groups.len() {
                    let at = m.sl_positions(g);
                    sls.push(
                        at.iter()
                            .map(|&i| ServiceLevel::new(list[i], "ib.multicast.sls"))
                            .collect::<Result<Vec<_>>>()?,
                    );
                }
            }
            streams = Some(MulticastStreams {
                groups,
                share: m.share,
                at_source: m.scheme == MulticastScheme::ReplicatedUnicast,
                sls,
            });
        }
        // The workload first: its checks need only the HCA count, and the tables take longer.
        let link_rate = timing.link.bytes_per_second();
        build_watch::step("the workload", 0, 0)?;
        let mut sources = Sources::new(&spec.workload, topo.endpoint_count(), link_rate, scenario.run.seed, streams)?;
        let footprint = Footprint::fabric(&topo, spec.routing_algorithm(), &sources);
        footprint.check(&topo, scenario.run.memory_budget_mb)?;
        build_watch::step("forwarding tables", 0, 0)?;
        let (data, control) = wiring::tables(spec, &topo)?;
        // The static checks of the tables come before the switches are
        // built: what they say comes sooner, and their graph is gone before
        // the switches take their memory.
        build_watch::step("channel dependencies", 0, 0)?;
        let deps = analyze(&topo, &data)?;
        if build_watch::hears_notices() {
            if let Some(text) = routing_advice::deadlock_notice(spec, &topo, &deps)? {
                build_watch::notice(&text);
            }
        }
        build_watch::step("route lengths", 0, 0)?;
        let mean_hops = data.mean_hops(&topo)?.ok_or_else(|| unrouted(spec))?;
        let multipath = match spec.routing_algorithm() {
            IbRouting::Multipath => {
                let left = (scenario.run.memory_budget_mb * 1024.0 * 1024.0) as u64;
                Some(wiring::multipath(spec, &topo, left.saturating_sub(footprint.total()))?)
            }
            _ => None,
        };
        let selection = match spec.routing.selection.unwrap_or(PathSelection::Lfu) {
            PathSelection::Lfu => Selection::LeastFrequentlyUsed,
            PathSelection::MaxCredit => Selection::MaxCredit,
        };
        let data_vls = spec.data_vls as u8;
        let scenario_sl_to_vl = match &spec.sl_to_vl {
            Some(entries) => SlToVl::from_entries(entries, data_vls)?,
            None => SlToVl::modulo(data_vls)?,
        };
        // The data VLs the workload's SLs use, by the scenario's numbers; the
        // model numbers them first (`vl_numbers.rs`).
        let mut sls = spec.workload_sls();
        if let Some(l) = spec.multicast.as_ref().and_then(|m| m.sls.as_ref()) {
            sls.extend(l);
        }
        let mut used_vls: Vec<u8> = Vec::new();
        for sl in sls {
            if let Some(v) = scenario_sl_to_vl.vl(ServiceLevel::new(sl, "ib.workload")?) {
                if !used_vls.contains(&v) {
                    used_vls.push(v);
                }
            }
        }
        let vl_numbers = VlNumbers::used_first(&used_vls, data_vls);
        let used_vls: Vec<u8> = used_vls.iter().map(|&v| vl_numbers.inner(v)).collect();
        let sl_to_vl = scenario_sl_to_vl.renumbered(&vl_numbers);
        let credits = PortCredits::new(data_vls, spec.vl_buffer_bytes, spec.credit_block_bytes)?;
        // Real-time and best-effort packets are of at most one 1024-byte MTU.
        credits.check_holds(
            TrafficClass::RealTime.mtu().max_packet_bytes(),
            "ib.vl_buffer_bytes",
            spec.vl_buffer_bytes,
        )?;
        let a = &spec.vl_arbitration;
        let entries = |t: &[crate::scenario::ib::ArbitrationEntry]| -> Vec<ArbEntry> {
            t.iter().map(|e| ArbEntry::new(vl_numbers.inner(e.vl as u8), e.weight as u8)).collect()
        };
        let (high, low) = (entries(a.high()), entries(a.low()));
        let arbiter = VlArbiter::new(&high, &low, a.limit_of_high_priority as u8, data_vls)?;
        let mut vl_order = vec![VL15];
        for e in high.iter().chain(&low) {
            if e.weight > 0 && !vl_order.contains(&e.vl) {
                vl_order.push(e.vl);
            }
        }
        let prop = timing.propagation;
        let input_stages = timing.pipeline();
        let cables = ReferenceCables::new(prop, timing.header_at(Rate::default()), input_stages);
        // Every switch takes the same input-stage time; a cable runs at its
        // port's rate, and a switch acts on a packet once its LRH is in at it.
        let Wiring { links: ends, attachments } = topo.wire(|end| end);
        let port_rates: Vec<Vec<Rate>> = (ends.iter().zip(&rates.ports))
            .map(|(row, links)| {
                row.iter().zip(links).map(|(end, &l)| end.map_or(Rate::default(), |_| timing.rate(l))).collect()
            })
            .collect();
        let wires: Vec<Vec<Option<Wire>>> = ends
            .into_iter()
            .zip(&port_rates)
            .map(|(row, rate)| {
                row.into_iter()
                    .zip(rate)
                    .map(|(end, &r)| {
                        end.map(|end| match end {
                            FarEnd::Endpoint(n) => Wire::whole(PortRef::new(ComponentKind::Hca, n, 0), prop).at(r),
                            FarEnd::Switch { switch, port } => Wire::cut_through(
                                PortRef::switch(switch, port),
                                prop,
                                timing.header_at(r),
                                input_stages,
                            )
                            .at(r),
                        })
                    })
                    .collect()
            })
            .collect();
        let map = topo.port_map();
        // Multicast trees over the data tables, unless the sources replicate.
        let mut mc_tables = match (&spec.multicast, &groups) {
            (Some(m), Some(g)) if m.scheme != MulticastScheme::ReplicatedUnicast => {
                let port = |p: u8| if p == NO_PORT { u16::MAX } else { p as u16 };
                let data_lft: Vec<Vec<u16>> =
                    (0..map.len()).map(|s| data.row(s).iter().map(|&p| port(p)).collect()).collect();
                multicast::tables(g, &data_lft, &map, &attachments)?.into_iter().map(Some).collect()
            }
            _ => vec![None; map.len()],
        };
        let congestion = spec.congestion_control.as_ref().map(|c| c.settings()).transpose()?;
        let mut switch_config = SwitchConfig::new(
            &vl_order,
            sl_to_vl,
            Lifetime::new(spec.switch.hoq_life, spec.switch.switch_life),
            input_stages,
            spec.vl_buffer_bytes,
            spec.credit_block_bytes,
        );
        switch_config.marking = congestion.as_ref().and_then(Marking::from_settings).map(|mut m| {
            let queue = spec.congestion_control.as_ref().and_then(|c| c.queue);
            m.with_heads = queue != Some(CongestionQueue::OutputBuffer);
            m.less_leaving = queue == Some(CongestionQueue::Waiting);
            let hysteresis = spec.congestion_control.as_ref().and_then(|c| c.hysteresis_bytes).unwrap_or(0);
            m.hysteresis = hysteresis.div_ceil(spec.credit_block_bytes.max(1)).min(u16::MAX as u32) as u16;
            m.victim_if_waited =
                spec.congestion_control.as_ref().and_then(|c| c.root) == Some(CongestionRoot::NoCreditWait);
            m
        });
        let throttling = congestion.as_ref().and_then(Throttling::from_settings).map(|mut t| {
            t.series_bin = spec.congestion_control.as_ref().and_then(|c| c.series_us).map_or(0, time::from_us);
            Box::new(t)
        });
        // The switches' rows of table blocks first: with the distinct blocks
        // known, the estimate is checked again before the switches are built.
        build_watch::step("table blocks", 0, 0)?;
        let mut lft = LftBuilder::default();
        let mut rows = Vec::with_capacity(wires.len());
        for s in 0..wires.len() {
            rows.push((lft.row(data.row(s), NO_PORT), lft.row(control.row(s), NO_PORT)));
        }
        footprint.clone().with_table_blocks(lft.bytes()).check(&topo, scenario.run.memory_budget_mb)?;
        let mut switches = Vec::with_capacity(wires.len());
        let switch_count = wires.len();
        for (s, (peers, (data_table, control_table))) in wires.into_iter().zip(rows).enumerate() {
            build_watch::step("switches", s, switch_count)?;
            // Multipath tables take the switch's own HCAs from its linear table.
            let own = |row: &[u8]| -> Vec<u16> {
                row.iter().map(|&p| if p == NO_PORT { u16::MAX } else { p as u16 }).collect()
            };
            let multicast = spec.multicast.as_ref().zip(mc_tables[s].take()).map(|(m, table)| SwitchMulticast {
                table,
                scheme: m.scheme,
                order: m.order(),
                hold_and_wait: m.hold_and_wait(),
                central_bytes: m.central_buffer_bytes.unwrap_or(DEFAULT_CENTRAL_BUFFER),
            });
            switches.push(IbSwitch::new(SwitchSpec {
                index: s as u32,
                peers,
                config: &switch_config,
                cables,
                multipath: multipath
                    .as_ref()
                    .map(|mp| (SwitchTable::new(s as u32, mp, &topo, &own(data.row(s))), selection)),
                data_table,
                control_table,
                credits,
                arbiter: &arbiter,
                multicast,
            }));
        }
        build_watch::step("adapters", 0, 0)?;
        let buffer_bytes = (spec.hca.buffer_mb * 1024.0 * 1024.0) as u64;
        let hcas: Vec<Hca> = attachments
            .iter()
            .enumerate()
            .map(|(i, &(sw, port))| {
                let to = PortRef::switch(sw, port);
                let r = port_rates[sw as usize][port as usize];
                Hca::new(HcaSpec {
                    index: i as u32,
                    wire: Wire::cut_through(to, prop, timing.header_at(r), switch_config.input_stages).at(r),
                    credits,
                    arbiter: arbiter.clone(),
                    streams: sources.streams_to(i as u32),
                    datagram_sources: if multipath.is_some() { attachments.len() } else { 0 },
                    multicast_slots: multicast_slots(&sources, i as u32),
                    reaction: throttling.as_ref().map(|t| Reaction { per_sl: t.per_sl, series_bin: t.series_bin }),
                })
            })
            .collect();
        let largest = timing.largest_packet();
        // Look for a deadlock every 1000 full-packet times unless told.
        let deadlock_check = spec.deadlock_check_us.map_or(1000 * largest, time::from_us);
        let mut metrics = IbMetrics::new(scenario.run.batches, 100 * largest, &vl_numbers);
        if spec.multicast.is_some() {
            metrics = metrics.with_multicast();
        }
        if let Some(mp) = &multipath {
            let reliable_share = spec.routing.reliable_share.unwrap_or(DEFAULT_RELIABLE_SHARE);
            let demands = sources.stream_demands();
            let bytes_per_s = timing.link.bytes_per_second();
            let sls = sources.best_effort_sls().to_vec();
            let seed = scenario.run.seed;
            sources.route_by(PathChoice::new(mp, &topo, &demands, bytes_per_s, reliable_share, &sls, seed));
        }
        let routing = json!({
            "algorithm": spec.routing_algorithm(),
            "root": spec.routing_algorithm().has_root().then(|| spec.routing.root.unwrap_or(1)),
            "spf_ties": spec.routing.spf_ties(),
            "multipath": multipath.as_ref().map(|mp| multipath_section(mp, &topo, sources.paths())),
            "mean_hops": mean_hops,
            "channel_dependencies": deps,
        });
        drop((data, control, port_rates));
        let lft = lft.finish();
        let switch_bytes = switches.iter().map(IbSwitch::memory_bytes).sum::<u64>();
        let fixed_bytes = switch_bytes
            + std::mem::size_of_val(&*lft) as u64
            + hcas.iter().map(Hca::memory_bytes).sum::<u64>()
            + sources.memory_bytes();
        // Calendar buckets of the largest power of two picoseconds within
        // eight byte times per 256 switch ports, so a bucket holds about as
        // many events whatever the fabric's size (events per unit time grow
        // with its ports). 16.4 ns on the study's networks on 1x links, where
        // 4.1 and 65.5 ns took 0.4% and 0.1% more instructions; 2 ns on the
        // 2048-port fat tree, which ran 3% faster than with 16.4 ns (any
        // width gives the same run).
        let ports: u64 = switches.iter().map(|s| s.ports() as u64).sum();
        let bucket = timing.wire(8) * 256 / ports.max(256);
        // As buckets narrow with the fabric's ports, the ring grows so that
        // it spans four full-packet times: events a packet time ahead (a
        // packet's tail, the credits it frees) stay out of the overflow heap;
        // past the ring's cap (the 8-ary 4-tree) its buckets widen instead.
        let (bucket_shift, ring_bits) =
            CalendarQueue::<Event>::ring_for(CalendarQueue::<Event>::shift_for(bucket), 4 * largest);
        let sendable_sls = (0..16u8)
            .filter(|&sl| {
                let vl = sl_to_vl.vl(ServiceLevel::new(sl as u32, "sl").expect("SL below 16"));
                vl.is_some_and(|v| vl_order.contains(&v))
            })
            .fold(0u16, |m, sl| m | 1 << sl);
        let capacity = switch_config.capacity;
        // The halves of an output's per-VL lines the traffic's VLs are in.
        let halves = look_ahead::halves_of(&used_vls);
        build_watch::step("cache look-ahead", 0, 0)?;
        let look_ahead = LookAhead::new(switch_bytes, switches.iter().map(IbSwitch::port_addresses), halves);
        let mut hca_config = HcaConfig::new(&sl_to_vl, spec.credit_block_bytes, capacity, buffer_bytes);
        if spec.hca.buffer_scope == BufferScope::PerSl {
            hca_config = hca_config.per_sl();
        }
        // Where each HCA's received streams start in the fabric's list of them.
        let mut slot_base = Vec::with_capacity(hcas.len());
        let mut streams_received = 0u32;
        for i in 0..hcas.len() as u32 {
            slot_base.push(streams_received);
            streams_received += sources.streams_to(i) as u32;
        }
        Ok(IbFabric {
            congestion,
            look_ahead,
            bucket_shift,
            ring_bits,
            sh: Shared {
                packets: Arena::with_capacity(1 << 14),
                messages: Arena::with_capacity(1 << 12),
                timing,
                cables,
                switch: switch_config,
                hca: hca_config,
                throttling,
                queued_messages: 0,
                transfers: 0,
                metrics,
                freed: FreedCredits::new(),
                lft,
                cover: Vec::new(),
                mc_records: 0,
                mc_cover: 0,
                frame_damage: vec![0; streams_received as usize],
                slot_base,
            },
            switches,
            hcas,
            sources,
            topo,
            routing,
            used_vls,
            vl_numbers,
            sendable_sls,
            fixed_bytes,
            watch: DeadlockWatch::new(deadlock_check),
            groups,
            scenario: scenario.clone(),
        })
    }
}

/// The error for data tables that leave some HCA without a route from
/// another: a model fault, as the model's routings route every pair and an
/// imported dump that does not is refused as it is read, naming its table.
fn unrouted(spec: &IbSpec) -> Error {
    Error::model(format!(
        "the {:?} routing's tables are not forwarding tables that lead every HCA to every other, without loops",
        spec.routing_algorithm()
    ))
}

/// The share of best-effort messages sent as reliable datagrams under
/// multipath routing: the study uses both kinds and gives no split.
pub const DEFAULT_RELIABLE_SHARE: f64 = 0.5;

/// What the routing section says of multipath tables: the cycles, the
/// entries per switch (2^cycles through it per destination, and merged
/// where settings share a port), the entries no path within the slack
/// agrees with, those replaced for looping, and the streams' set-up.
fn multipath_section(mp: &MultipathTables, topo: &Topology, paths: Option<&PathChoice>) -> serde_json::Value {
    let n = mp.next.len();
    // A switch's table has an entry per HCA (its own included) and setting.
    let hcas = topo.endpoint_count() as usize;
    let own = topo.endpoints_per_switch();
    let entries: Vec<usize> = (0..n).map(|v| hcas << mp.examined[v].count_ones()).collect();
    let merged: Vec<usize> = (0..n).map(|v| mp.merged_entries(v as u32) + own[v] as usize).collect();
    json!({
        "root": mp.cycles.root + 1,
        "cycles": mp.cycles.cycles.iter().map(|c| c.iter().map(|s| s + 1).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "cycles_per_switch": mp.examined.iter().map(|m| m.count_ones()).collect::<Vec<_>>(),
        "entries_per_switch": entries,
        "merged_entries_per_switch": merged,
        "entries_without_a_path": mp.unmatched,
        "entries_replaced_for_loops": mp.looping,
        "stream_set_up": paths.map(|p| json!({
            "streams": p.set_up.streams,
            "nacks": p.set_up.nacks,
            "detoured": p.set_up.detoured,
            "refused_everywhere": p.set_up.refused_everywhere,
        })),
    })
}

/// Per switch-replicated multicast stream, HCA `hca`'s slot for it (`NO_STREAM`: not a member).
fn multicast_slots(sources: &Sources, hca: u32) -> Vec<u32> {
    sources
        .multicast_members
        .iter()
        .map(|members| members.iter().find(|&&(m, _)| m == hca).map_or(NO_STREAM, |&(_, slot)| slot))
        .collect()
}
