//! Fat trees as clusters are built from fixed-radix switches (folded Clos
//! networks): leaves with `hcas_per_leaf` adapters and `hcas_per_leaf /
//! oversubscription` uplinks, and non-blocking levels above. With radix r,
//! h adapters and u uplinks per leaf:
//!
//! - 2 levels: r leaves, each cabled once to each of u spines (a spine's r
//!   ports all face leaves): r h adapters, r + u switches;
//! - 3 levels: r pods of r/2 leaves and u aggregation switches (each cabled
//!   once to each leaf of its pod, its r/2 other ports up), and u groups of
//!   r/2 core switches, aggregation switch a of every pod cabled once to
//!   each core of group a: r^2 h / 2 adapters, r^2/2 + r u + u r/2 switches.
//!
//! h = u = r/2 is the classic non-blocking tree (36-port switches, 2
//! levels: 648 adapters); oversubscription 2 halves the uplinks.
//!
//! Switches are numbered leaves first (pod by pod), then aggregation, then
//! core (or spine). Ports: a leaf's adapters on 0..h, uplink j on h + j; a
//! spine's or core's port p faces leaf or pod p; an aggregation switch's
//! ports 0..r/2 face its pod's leaves, r/2 + c the c-th core of its group.

use super::{Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::{Endpoint, Link, Topology};

pub(super) const SHAPE: Shape = Shape {
    name: "clos",
    description: "fat tree of radix-r switches in 2 or 3 levels (`levels`), `hcas_per_leaf` adapters and \
                  `hcas_per_leaf / oversubscription` uplinks per leaf",
    params: &["levels", "hcas_per_leaf", "oversubscription"],
    build,
};

fn build(params: &ShapeParams) -> Result<Topology> {
    let r = params.radix.unwrap_or(36);
    if !(4..=254).contains(&r) || r % 2 == 1 {
        return Err(Error::invalid(&params.radix_key, r, "an even number of ports from 4 to 254"));
    }
    let levels = params.levels.unwrap_or(2);
    if !(2..=3).contains(&levels) {
        return Err(Error::invalid(&params.key("levels"), levels, "2 (leaves and spines) or 3 (pods and a core)"));
    }
    let h = params.hcas_per_leaf.unwrap_or(r / 2);
    let o = params.oversubscription.unwrap_or(1.0);
    if !(1.0..=1024.0).contains(&o) {
        return Err(Error::invalid(&params.key("oversubscription"), o, "1 (non-blocking) to 1024 adapters per uplink"));
    }
    let uplinks = h as f64 / o;
    let u = uplinks.round() as u32;
    if h == 0 || (uplinks - u as f64).abs() > 1e-9 || u == 0 || h + u > r {
        return Err(Error::invalid(
            &params.key("hcas_per_leaf"),
            format!("{h} with oversubscription {o}"),
            format!("adapters h and a whole number of uplinks h / oversubscription, at least 1, with h + uplinks at most {r} ports"),
        ));
    }
    let (leaves, spines_or_aggs, cores) = if levels == 2 { (r, u, 0) } else { (r * r / 2, r * u, u * r / 2) };
    let n = leaves + spines_or_aggs + cores;
    let mut links = Vec::new();
    if levels == 2 {
        for leaf in 0..r {
            for j in 0..u {
                links.push(Link { a: leaf, b: leaves + j, lanes: vec![((h + j) as u16, leaf as u16)] });
            }
        }
    } else {
        let half = r / 2;
        let agg = |pod: u32, a: u32| leaves + pod * u + a;
        let core = |group: u32, c: u32| leaves + r * u + group * half + c;
        for pod in 0..r {
            for l in 0..half {
                for a in 0..u {
                    links.push(Link { a: pod * half + l, b: agg(pod, a), lanes: vec![((h + a) as u16, l as u16)] });
                }
            }
            for a in 0..u {
                for c in 0..half {
                    links.push(Link { a: agg(pod, a), b: core(a, c), lanes: vec![((half + c) as u16, pod as u16)] });
                }
            }
        }
    }
    let endpoints = (0..leaves)
        .flat_map(|leaf| (0..h).map(move |j| Endpoint { kind: params.endpoint_kind, switch: leaf, port: j as u16 }))
        .collect();
    Ok(Topology { radix: vec![r; n as usize], endpoints, links, identity: None })
}

#[cfg(test)]
mod tests {
    use crate::fabric::routing::{routing_tables, RoutingParams};
    use crate::fabric::shapes::{build_shape, ShapeParams};

    fn clos(r: u32, levels: u32, h: Option<u32>, o: Option<f64>) -> crate::fabric::Topology {
        let p = ShapeParams {
            radix: Some(r),
            levels: Some(levels),
            hcas_per_leaf: h,
            oversubscription: o,
            ..Default::default()
        };
        build_shape("clos", &p).unwrap()
    }

    #[test]
    fn sizes_follow_radix_adapters_and_oversubscription() {
        let t = clos(36, 2, None, None);
        assert_eq!((t.endpoint_count(), t.switch_count(), t.links.len()), (648, 54, 648));
        let t = clos(36, 2, Some(24), Some(2.0));
        assert_eq!((t.endpoint_count(), t.switch_count()), (36 * 24, 36 + 12));
        let t = clos(8, 3, None, None);
        // r^3/4 adapters, 5 r^2/4 switches: a 4-ary 3-tree's size, built from pods.
        assert_eq!((t.endpoint_count(), t.switch_count()), (128, 80));
        let d = t.distances();
        assert_eq!((d[0][1], d[0][4]), (2, 4)); // same pod: via aggregation; other pod: via core
        let t = clos(8, 3, Some(6), Some(3.0));
        assert_eq!((t.endpoint_count(), t.switch_count()), (32 * 6, 32 + 16 + 8));
    }

    #[test]
    fn oversubscription_must_give_whole_uplinks_within_the_radix() {
        let p =
            ShapeParams { radix: Some(36), hcas_per_leaf: Some(18), oversubscription: Some(4.0), ..Default::default() };
        let e = build_shape("clos", &p).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.hcas_per_leaf"), "{e}");
        let p = ShapeParams { radix: Some(36), hcas_per_leaf: Some(30), ..Default::default() };
        assert!(build_shape("clos", &p).is_err());
    }

    #[test]
    fn every_pair_is_routed_minimally() {
        let t = clos(8, 3, Some(6), Some(3.0));
        let tables = routing_tables("ftree", &t, &RoutingParams::default()).unwrap();
        crate::fabric::routing::min_hop::tests::assert_routes_minimal(&t, &tables);
    }
}
