//! The uniform-traffic saturation bound of seed 003's multipath tables
//! (`fabric::saturation` for one path per pair): every endpoint offers a
//! share `r` of its link rate evenly over the others, and each packet
//! takes the path its bits select, the bits drawn at random (as reliable
//! datagrams draw theirs). A switch output then carries `r / (n - 1)`
//! times the expected number of pairs through it, estimated from
//! `samples` random settings per pair (seeded: the same tables give the
//! same bound). Used to choose the networks seed 003's figures run on.

use super::multipath::MultipathTables;
use crate::fabric::topology::{PortUse, Topology};
use crate::kernel::RandomStream;

/// The bound, its busiest output (switch, port) and the expected pairs through it.
#[derive(Clone, Debug, PartialEq)]
pub struct MultipathBound {
    pub injection_rate: f64,
    pub busiest: (u32, u16),
    pub pairs: f64,
}

/// The bound of `tables` over `topo`, every link at one rate; None with
/// fewer than two endpoints or where a path does not reach its switch.
pub fn random_bits_bound(topo: &Topology, tables: &MultipathTables, samples: u32) -> Option<MultipathBound> {
    let mut rng = RandomStream::new(1, "multipath-bound", 0);
    bound_over(topo, tables, samples, |_| rng.next_u64())
}

/// The bound with each pair's traffic split evenly over the `samples`
/// settings `bits(k)`, k = 0 .. samples.
fn bound_over(
    topo: &Topology,
    tables: &MultipathTables,
    samples: u32,
    mut bits_of: impl FnMut(u32) -> u64,
) -> Option<MultipathBound> {
    let n = topo.endpoint_count();
    if n < 2 || samples == 0 {
        return None;
    }
    let map = topo.port_map();
    // The port from switch v to neighbour w, looked up once per link, not per sampled hop.
    let switches = map.len();
    let mut port_to = vec![None; switches * switches];
    for (v, ports) in map.iter().enumerate() {
        for (p, u) in ports.iter().enumerate().rev() {
            if let PortUse::Link { to, .. } = u {
                port_to[v * switches + *to as usize] = Some(p as u16);
            }
        }
    }
    let endpoint_port = |v: u32, h: u32| {
        map[v as usize].iter().position(|u| matches!(u, PortUse::Endpoint(e) if *e == h)).map(|p| p as u16)
    };
    let mut load: Vec<Vec<f64>> = map.iter().map(|ports| vec![0.0; ports.len()]).collect();
    let share = 1.0 / samples as f64;
    for (src, e) in topo.endpoints.iter().enumerate() {
        for dest in (0..n).filter(|&d| d != src as u32) {
            let d = topo.endpoints[dest as usize].switch;
            for k in 0..samples {
                let bits = bits_of(k);
                let mut v = e.switch;
                let mut hops = 0;
                while v != d {
                    let w = tables.hop(v, d, bits);
                    load[v as usize][port_to[v as usize * switches + w as usize]? as usize] += share;
                    v = w;
                    hops += 1;
                    if hops > topo.switch_count() {
                        return None;
                    }
                }
            }
            load[d as usize][endpoint_port(d, dest)? as usize] += 1.0;
        }
    }
    let (busiest, most) = load
        .iter()
        .enumerate()
        .flat_map(|(s, ports)| ports.iter().enumerate().map(move |(p, &k)| ((s as u32, p as u16), k)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    Some(MultipathBound { injection_rate: (n - 1) as f64 / most.max(1.0), busiest, pairs: most })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::routing::multipath::multipath_tables;
    use crate::fabric::routing::spf::next_switches;
    use crate::fabric::routing::Ties;
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::saturation::uniform_bound;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    fn two_each(trunks: Vec<[u32; 3]>, switches: usize) -> Topology {
        let shape = ShapeParams { radix: Some(4), nodes: Some(vec![2; switches]), ..ShapeParams::default() };
        build_shape("custom", &ShapeParams { trunks: Some(trunks), ..shape }).unwrap()
    }

    fn bounds(topo: &Topology) -> (f64, f64) {
        let t = multipath_tables(topo, 0, 2, &next_switches(topo, Ties::Balanced), u64::MAX).unwrap();
        let spf = routing_tables("spf", topo, &RoutingParams::default()).unwrap();
        (random_bits_bound(topo, &t, 4096).unwrap().injection_rate, uniform_bound(topo, &spf).unwrap().injection_rate)
    }

    /// Without cycles there is one path per pair: SPF's bound (a chain of
    /// three switches with two endpoints each: (6 - 1) / 8).
    #[test]
    fn a_tree_has_spf_s_bound() {
        let (mp, spf) = bounds(&two_each(vec![[1, 2, 1], [2, 3, 1]], 3));
        assert_eq!((mp, spf), (5.0 / 8.0, 5.0 / 8.0));
    }

    /// The sampled bound against the exact one, every setting of the
    /// cycles' bits weighed alike, on seed 003's family network 1 (nine
    /// cycles, 512 settings).
    #[test]
    fn the_sampled_bound_is_the_exact_one_within_two_percent() {
        let topo = build_shape("random", &ShapeParams { seed: 1, ..ShapeParams::default() }).unwrap();
        let t = multipath_tables(&topo, 0, 2, &next_switches(&topo, Ties::Balanced), u64::MAX).unwrap();
        let settings = 1u32 << t.cycles.count();
        let exact = bound_over(&topo, &t, settings, |k| k as u64).unwrap();
        let sampled = random_bits_bound(&topo, &t, 4096).unwrap();
        assert_eq!(settings, 512);
        let rel = (sampled.injection_rate - exact.injection_rate).abs() / exact.injection_rate;
        assert!(rel < 0.02, "sampled {sampled:?}, exact {exact:?}");
    }
}
