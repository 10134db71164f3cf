//! k-ary n-trees (Petrini and Vanneschi, 1997), the fat trees of large
//! InfiniBand clusters: k^n endpoints under n levels of k^(n-1) switches of
//! radix 2k. The default k = 4, n = 4 gives 256 endpoints on 256 8-port
//! switches.
//!
//! Switch <w, l> (level l, 0 at the leaves; w an (n-1)-digit word in base
//! k) is numbered l k^(n-1) + w, and joins <w', l+1> when w and w' differ
//! at most in digit l. Ports are explicit: down ports 0..k (a leaf's
//! endpoints, or the lower switch whose digit l is the port number), up
//! ports k..2k (the upper switch whose digit l is the port number minus k).
//! The top level's up ports stay free.

use super::{Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::{Endpoint, Link, Topology};

pub(super) const SHAPE: Shape = Shape {
    name: "fat_tree",
    description: "k-ary n-tree: k^n endpoints, n levels of k^(n-1) switches of radix 2k (`arity` k, `levels` n)",
    params: &["arity", "levels"],
    build,
};

/// Largest number of endpoints a fat tree may have.
const MAX_ENDPOINTS: u64 = 1 << 16;

fn build(params: &ShapeParams) -> Result<Topology> {
    let k = params.arity.unwrap_or(4);
    let n = params.levels.unwrap_or(4);
    if !(2..=128).contains(&k) {
        return Err(Error::invalid(&params.key("arity"), k, "2 to 128 down ports per switch"));
    }
    if n == 0 || (k as u64).checked_pow(n).is_none_or(|e| e > MAX_ENDPOINTS) {
        return Err(Error::invalid(&params.key("levels"), n, format!("1 or more, with k^n at most {MAX_ENDPOINTS}")));
    }
    let radix = params.radix.unwrap_or(2 * k);
    if radix < 2 * k {
        return Err(Error::invalid(&params.radix_key, radix, format!("at least 2k = {} ports", 2 * k)));
    }
    let per_level = k.pow(n - 1);
    let id = |w: u32, l: u32| l * per_level + w;
    let digit = |w: u32, i: u32| (w / k.pow(i)) % k;
    let mut links = Vec::with_capacity(((n - 1) * per_level * k) as usize);
    for l in 0..n - 1 {
        for w in 0..per_level {
            for j in 0..k {
                let upper = w - digit(w, l) * k.pow(l) + j * k.pow(l);
                links.push(Link {
                    a: id(w, l),
                    b: id(upper, l + 1),
                    lanes: vec![((k + j) as u16, digit(w, l) as u16)],
                });
            }
        }
    }
    let endpoints = (0..per_level)
        .flat_map(|w| (0..k).map(move |j| Endpoint { kind: params.endpoint_kind, switch: w, port: j as u16 }))
        .collect();
    Ok(Topology { radix: vec![radix; (n * per_level) as usize], endpoints, links, identity: None })
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};
    use crate::fabric::topology::PortUse;

    fn tree(k: u32, n: u32) -> crate::fabric::Topology {
        let p = ShapeParams { arity: Some(k), levels: Some(n), ..ShapeParams::default() };
        build_shape("fat_tree", &p).unwrap()
    }

    #[test]
    fn sizes_follow_k_and_n() {
        let t = tree(4, 4);
        assert_eq!((t.endpoint_count(), t.switch_count(), t.links.len()), (256, 256, 768));
        assert!(t.radix.iter().all(|&r| r == 8));
        let t = tree(8, 3);
        assert_eq!((t.endpoint_count(), t.switch_count()), (512, 192));
        assert_eq!(tree(2, 1).switch_count(), 1);
    }

    #[test]
    fn leaves_meet_below_their_highest_differing_digit() {
        let t = tree(4, 3);
        let d = t.distances();
        assert_eq!(d[0][1], 2); // leaves 0 and 1 differ in digit 0: meet one level up
        assert_eq!(d[0][4], 4); // digit 1: two levels up
        assert_eq!(d[0][15], 4);
        let map = t.port_map();
        assert_eq!(map[0][0], PortUse::Endpoint(0));
        assert_eq!(map[0][4], PortUse::Link { to: 16, lane: 0 });
        assert_eq!(map[16][1], PortUse::Link { to: 1, lane: 0 });
        assert!(map[32][4..].iter().all(|&u| u == PortUse::Free)); // top level: up ports free
    }
}
