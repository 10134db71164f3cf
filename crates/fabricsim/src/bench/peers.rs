//! Rows that run the workloads of fabricsim's performance peers, so the speed
//! ratio to a peer can be tracked without the peer: BookSim2's two InfiniBand
//! configs (`booksim_ib_peer.sh` in `../shared/peers`) and the SimPy model of
//! the 16-port Fibre Channel switch (`simpy_fc_switch.py`).
//! `scripts/peer_ratio.py` runs a row and its peer in turn and compares their
//! time per unit of work.
//!
//! What the BookSim2 configs share, and how it is written here: 1xSDR links
//! (a 64-byte flit, BookSim's cycle, takes 256 ns); 4 data VLs of 68 flits
//! (4,352 bytes, four 1050-byte packets) per input buffer; best-effort
//! messages only, one 1024-byte MTU packet each (1050 bytes on the wire),
//! spread evenly over the 4 VLs by SLs 0-3, to destinations drawn uniformly;
//! no control traffic. Where the workloads still differ:
//! - Injection: Poisson arrivals per HCA here, Bernoulli per cycle there; the
//!   rate counts 1050 wire bytes per packet here and 17 flits (1,088 bytes)
//!   there, so at the same fraction of the link fabricsim offers 3.6% more
//!   packets.
//! - Destinations: the other HCAs here; BookSim's `uniform` includes the
//!   source itself (1 packet in 15, or 64, crosses its own switch only).
//! - Switching: whole packets by virtual cut-through here, 50 ns of
//!   forwarding and 50 ns of arbitration per switch, input and output VL
//!   buffers; BookSim moves flits through a 4-stage input-queued router (route,
//!   VC and switch allocation, traversal: 4 cycles, about 1 us) with input
//!   buffers only, the crossbar held for a whole packet.
//! - VLs: a packet keeps its SL's VL end to end, and the VL arbiter gives each
//!   VL 4 KB per turn; BookSim's VC allocator takes any free VC at each hop and
//!   its round-robin switch allocator moves packet by packet.
//! - Work: packets delivered and crossbar transfers (switches crossed) here;
//!   BookSim's script counts packets x "Hops average" (switches crossed), over
//!   the whole run (warm-up included) as these rows do.

use super::{frame_result, packet_result, BenchResult};
use crate::error::Result;
use crate::scenario::Scenario;

/// BookSim2's buffers and traffic as scenario keys (see the module comment).
const BOOKSIM_UNITS: &str = "[ib]\ndata_vls = 4\nvl_buffer_bytes = 4352\n";
const BOOKSIM_TRAFFIC: &str =
    "real_time_share = 0\ncontrol_period_ms = 0\nbest_effort_bytes = 1024\nbest_effort_sls = [0, 1, 2, 3]\n";

/// The 23 switch-to-switch links of the peer's `booksim/ib15.anynet`
/// (`booksim_irregular_net.py --seed 2007`): BookSim's router r is switch
/// r + 1 here, and its node r the HCA on it.
const IB15_CABLES: &str = "[[1, 4], [1, 5], [1, 7], [1, 13], [2, 8], [3, 12], [3, 14], [4, 5], [4, 10], [4, 14], \
     [5, 11], [5, 15], [6, 8], [6, 9], [6, 11], [7, 14], [7, 15], [8, 11], [8, 15], [9, 11], [10, 12], [12, 14], \
     [13, 15]]";

/// The `fc-switch` row as `simpy_fc_switch.py --cls 2 --credits 2 --load
/// 0.5` models it: the same 16 ports of 15 receive buffers, 26.6 MB/s,
/// 2084-byte data frames and 36-byte ACKs, single-frame messages at Poisson
/// times to the other ports, two end-to-end credits, cut-through after the
/// 36-byte header, buffers freed when a frame's tail leaves through the
/// crossbar, outputs served in a rotating order; but SimPy's router time,
/// 0.5 us per header (`fc-switch` takes the model's default, 3 us: 6% more
/// events per data frame, the same throughput). Stops after `data_frames`
/// delivered. Where the two still differ:
/// - SimPy's router takes headers in arrival order from one queue; this one
///   polls the input ports in turn (the study's).
/// - A node here sends the ACKs it owes before its waiting data frames;
///   SimPy's ACKs queue for the link behind a data frame already waiting.
/// - SimPy counts data frames delivered after a warm-up of a tenth of its
///   simulated time and stops at a simulated time; the row counts from the
///   start and stops at a count.
///
/// Both carry 47.5% of the 50% offered (past saturation: the row is flagged
/// `accepted_below_offered` and `backlog_growing`).
pub fn fc_simpy_switch_scenario(data_frames: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {data_frames}\nmin_observations = 0\nprecision = 0\n\
         [switch]\nrouting_time_ns = 500\n[protocol]\nclass = 2\nend_to_end_credit = 2\n[workload]\noffered_load = 0.5\n"
    );
    Scenario::from_toml_str(&toml, "<fc-simpy-switch benchmark>").expect("benchmark scenario is valid")
}

/// One class 2 run of the SimPy peer's switch delivering `data_frames` data frames (plus their ACKs).
pub fn fc_simpy_switch(data_frames: u64) -> Result<BenchResult> {
    Ok(frame_result("fc-simpy-switch", &crate::run(&fc_simpy_switch_scenario(data_frames))?))
}

/// The scenario of a BookSim row: `fabric` (topology and routing), the
/// shared units and traffic at `injection_rate`, stopping after `packets`
/// delivered, no warm-up (BookSim's run time covers its warm-up too).
fn booksim_scenario(row: &str, fabric: &str, injection_rate: f64, packets: u64) -> Scenario {
    let toml = format!(
        "[run]\nwarmup_observations = 0\nmax_observations = {packets}\nmin_observations = 0\nprecision = 0\n\
         {BOOKSIM_UNITS}{fabric}[ib.workload]\ninjection_rate = {injection_rate}\n{BOOKSIM_TRAFFIC}"
    );
    Scenario::from_toml_str(&toml, &format!("<{row} benchmark>")).expect("benchmark scenario is valid")
}

/// BookSim2's `ib15_irregular` config: its 15-switch network of 5-port
/// switches (one HCA each, 23 links, 9 cycles) as a `custom` topology at
/// 0.21 of the link rate (half its saturation), stopping after `packets`
/// delivered (BookSim's 1,000,000 cycles deliver about 185,000).
///
/// Routing: `spf` with `ties = "lowest"`, whose tables are BookSim's `min`
/// tables for this graph entry for entry (all 210: a test derives BookSim's
/// and compares), so deadlock-free, as the peer's generator made sure.
/// `min_hop` (OpenSM's) has a channel-dependency cycle on this graph, and
/// `updown` is not minimal.
pub fn ib_booksim_irregular_scenario(packets: u64) -> Scenario {
    let fabric = format!(
        "[ib.topology]\nkind = \"custom\"\nports = 5\nhcas = [{}]\ncables = {IB15_CABLES}\n\
         [ib.routing]\nalgorithm = \"spf\"\nties = \"lowest\"\n",
        ["1"; 15].join(", ")
    );
    booksim_scenario("ib-booksim-irregular", &fabric, 0.21, packets)
}

pub fn ib_booksim_irregular(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-booksim-irregular", &crate::run(&ib_booksim_irregular_scenario(packets))?))
}

/// BookSim2's `fattree_k4n3` config: the 4-ary 3-tree (64 HCAs, 48 switches
/// of 8 ports) at 0.40 of the link rate (half its saturation), stopping after
/// `packets` delivered (BookSim's 200,000 cycles deliver about 301,000).
///
/// Routing: `dmodk` (D-Mod-K), up to a nearest common ancestor by a fixed
/// port per destination; BookSim's `nca` climbs by a port drawn at random
/// for every packet. Both are minimal: a packet crosses the same switches
/// in number.
pub fn ib_booksim_fat_tree_scenario(packets: u64) -> Scenario {
    let fabric = "[ib.topology]\nkind = \"fat_tree\"\narity = 4\nlevels = 3\n[ib.routing]\nalgorithm = \"dmodk\"\n";
    booksim_scenario("ib-booksim-fat-tree", fabric, 0.40, packets)
}

pub fn ib_booksim_fat_tree(packets: u64) -> Result<BenchResult> {
    Ok(packet_result("ib-booksim-fat-tree", &crate::run(&ib_booksim_fat_tree_scenario(packets))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booksim_rows_match_the_peer_buffers_and_traffic_and_run() {
        for (scenario, hcas) in [(ib_booksim_irregular_scenario(3000), 15), (ib_booksim_fat_tree_scenario(3000), 64)] {
            let ib = scenario.infiniband().unwrap();
            assert_eq!((ib.data_vls, ib.vl_buffer_bytes), (4, 68 * 64));
            assert_eq!((ib.workload.real_time_share, ib.workload.control_period_ms), (0.0, 0.0));
            let topo = crate::ib::wiring::topology(ib).unwrap();
            assert_eq!(topo.endpoint_count(), hcas);
        }
        for row in [ib_booksim_irregular(3000).unwrap(), ib_booksim_fat_tree(3000).unwrap()] {
            // Best effort only: every packet delivered is a unicast packet
            // that crossed at least one switch, and the load is carried.
            assert!(row.frames >= 3000 && row.hops.unwrap() > row.frames, "{row:?}");
            assert!(row.flags.is_empty(), "{row:?}");
        }
    }

    /// BookSim2's `min` routing on `anynet` (`AnyNet::route`, as
    /// `booksim_irregular_net.py` restates it): Dijkstra from each switch,
    /// the lowest-numbered of the nearest unsettled switches settled first,
    /// neighbours relaxed in ascending order by a strict `<`; the first hop
    /// from `s` to `t` is where `t`'s predecessor chain leaves `s`.
    /// `adjacency` lists each switch's neighbours in ascending order.
    fn booksim_first_hops(adjacency: &[Vec<u32>]) -> Vec<Vec<usize>> {
        let n = adjacency.len();
        (0..n)
            .map(|s| {
                let (mut dist, mut prev, mut settled) = (vec![u32::MAX; n], vec![usize::MAX; n], vec![false; n]);
                dist[s] = 0;
                while let Some(c) = (0..n).filter(|&i| !settled[i] && dist[i] < u32::MAX).min_by_key(|&i| dist[i]) {
                    settled[c] = true;
                    for nb in adjacency[c].iter().map(|&x| x as usize) {
                        if dist[c] + 1 < dist[nb] {
                            (dist[nb], prev[nb]) = (dist[c] + 1, c);
                        }
                    }
                }
                (0..n)
                    .map(|t| {
                        let mut x = t;
                        while t != s && prev[x] != s {
                            x = prev[x];
                        }
                        x
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn irregular_row_routes_as_booksims_min_tables() {
        let scenario = ib_booksim_irregular_scenario(1000);
        let ib = scenario.infiniband().unwrap();
        let topo = crate::ib::wiring::topology(ib).unwrap();
        let (data, _) = crate::ib::wiring::tables(ib, &topo).unwrap();
        let (ports, home) = (topo.port_map(), topo.endpoint_switch());
        assert_eq!(home, (0..15).collect::<Vec<u32>>(), "HCA i on switch i, as BookSim's node i on router i");
        let expected = booksim_first_hops(&topo.adjacency());
        let mut compared = 0;
        for s in 0..15 {
            for e in (0..15).filter(|&e| e != s) {
                let port = data.port(s, e).unwrap() as usize;
                let crate::fabric::PortUse::Link { to, .. } = ports[s][port] else { panic!("{s} -> {e}: {port}") };
                assert_eq!(to as usize, expected[s][e], "switch {s} towards HCA {e}");
                compared += 1;
            }
        }
        assert_eq!(compared, 210);
    }

    #[test]
    fn simpy_row_differs_from_fc_switch_only_in_the_router_time_and_runs() {
        let (ours, theirs) = (fc_simpy_switch_scenario(3000), super::super::fc_switch_scenario(3000));
        let mut expected = theirs.fc_fabric().unwrap().clone();
        assert_eq!(expected.switch.routing_time_ns, 3000.0);
        expected.switch.routing_time_ns = 500.0;
        assert_eq!(ours.fc_fabric().unwrap(), &expected);
        assert_eq!(ours.run, theirs.run);
        let row = fc_simpy_switch(3000).unwrap();
        assert!(row.data_frames.unwrap() >= 3000 && row.ack_frames.unwrap() > 0, "{row:?}");
    }
}
