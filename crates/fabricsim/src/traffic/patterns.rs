//! Cluster traffic patterns: who sends to whom, and how large a message is,
//! for the synthetic loads interconnects are judged by (Dally and Towles,
//! "Principles and Practices of Interconnection Networks", ch. 3), and
//! Jain's fairness index to judge how evenly a fabric served them.
//!
//! - uniform: every message to a node drawn uniformly among the others;
//! - shift (all-to-all as a shift permutation): node i's k-th message goes
//!   to (i + 1 + k mod (n - 1)) mod n, so every round of n - 1 messages
//!   reaches every other node once and each step is a permutation;
//! - permutation: one random derangement for the whole run (no node to
//!   itself), drawn from the run's seed;
//! - hot spot: a share of every node's messages to one node, the rest uniform;
//! - incast: `senders` nodes (the ones after the target, in order) all send
//!   to one target, which sends nothing (N to 1).
//!
//! The switched Fibre Channel fabric's own patterns (`[workload] pattern`:
//! uniform, one pair, towards one switch) are
//! [`fabric_destinations`](super::workload::fabric_destinations), beside
//! the message sources they feed.

use crate::error::{Error, Result};
use crate::kernel::RandomStream;

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Uniform,
    Shift,
    Permutation,
    HotSpot {
        hot: u32,
        share: f64,
    },
    Incast {
        target: u32,
        senders: u32,
    },
    /// Every node's destinations, in the order it sends to them (empty: sends nothing).
    Flows(Vec<Vec<u32>>),
}

/// The destinations of every node's messages under one pattern.
#[derive(Clone, Debug)]
pub struct PatternDestinations {
    pattern: Pattern,
    nodes: u32,
    /// Permutation: the partner of every node.
    partner: Vec<u32>,
    /// Shift: messages each node has sent so far.
    sent: Vec<u32>,
}

impl PatternDestinations {
    /// `pattern` over `nodes` nodes; a permutation is drawn from `rng`.
    /// Errors name `key` (the scenario key of the pattern).
    pub fn new(pattern: Pattern, nodes: u32, rng: &mut RandomStream, key: &str) -> Result<Self> {
        if nodes < 2 {
            return Err(Error::invalid(key, nodes, "at least 2 nodes"));
        }
        match pattern {
            Pattern::HotSpot { hot, share } => {
                if hot >= nodes {
                    return Err(Error::invalid(&format!("{key}.hot"), hot, format!("a node from 0 to {}", nodes - 1)));
                }
                if !(0.0..=1.0).contains(&share) {
                    return Err(Error::invalid(&format!("{key}.share"), share, "a fraction from 0 to 1"));
                }
            }
            Pattern::Incast { target, senders } => {
                if target >= nodes {
                    return Err(Error::invalid(
                        &format!("{key}.target"),
                        target,
                        format!("a node from 0 to {}", nodes - 1),
                    ));
                }
                if senders == 0 || senders >= nodes {
                    return Err(Error::invalid(
                        &format!("{key}.senders"),
                        senders,
                        format!("1 to {} senders (the other nodes)", nodes - 1),
                    ));
                }
            }
            Pattern::Flows(ref to) => {
                if to.len() != nodes as usize {
                    return Err(Error::invalid(key, to.len(), format!("destinations for each of the {nodes} nodes")));
                }
                for (src, list) in to.iter().enumerate() {
                    if let Some(&d) = list.iter().find(|&&d| d >= nodes || d == src as u32) {
                        return Err(Error::invalid(
                            &format!("{key}.flows"),
                            format!("[{src}, {d}]"),
                            format!("a flow from a node to another, nodes 0 to {}", nodes - 1),
                        ));
                    }
                }
            }
            _ => {}
        }
        let partner = if pattern == Pattern::Permutation { derangement(nodes, rng) } else { Vec::new() };
        Ok(PatternDestinations { pattern, nodes, partner, sent: vec![0; nodes as usize] })
    }

    /// Whether `node` sends at all (an incast's target and bystanders do not).
    pub fn sends(&self, node: u32) -> bool {
        match self.pattern {
            Pattern::Incast { target, senders } => {
                let after = (node + self.nodes - target) % self.nodes;
                after >= 1 && after <= senders
            }
            Pattern::Flows(ref to) => !to[node as usize].is_empty(),
            _ => true,
        }
    }

    /// The destination of `node`'s next message (`node` must send).
    pub fn next(&mut self, node: u32, rng: &mut RandomStream) -> u32 {
        let n = self.nodes;
        match &self.pattern {
            Pattern::Uniform => other_than(node, n, rng),
            Pattern::Shift => {
                let k = self.sent[node as usize];
                self.sent[node as usize] = (k + 1) % (n - 1);
                (node + 1 + k) % n
            }
            Pattern::Permutation => self.partner[node as usize],
            &Pattern::HotSpot { hot, share } => {
                if node != hot && rng.bernoulli(share) {
                    hot
                } else {
                    other_than(node, n, rng)
                }
            }
            &Pattern::Incast { target, .. } => target,
            Pattern::Flows(to) => {
                let list = &to[node as usize];
                let k = self.sent[node as usize] as usize % list.len();
                self.sent[node as usize] = (k + 1) as u32;
                list[k]
            }
        }
    }
}

/// A node drawn uniformly among the `n` except `node`.
fn other_than(node: u32, n: u32, rng: &mut RandomStream) -> u32 {
    let k = rng.below(n - 1);
    if k >= node {
        k + 1
    } else {
        k
    }
}

/// A uniformly random permutation of `0..n` without fixed points (Fisher-Yates, redrawn until none).
fn derangement(n: u32, rng: &mut RandomStream) -> Vec<u32> {
    loop {
        let mut p: Vec<u32> = (0..n).collect();
        for i in (1..n as usize).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return p;
        }
    }
}

/// Message sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageSize {
    Fixed(u32),
    /// Uniform over whole bytes from `min` to `max` included.
    Uniform {
        min: u32,
        max: u32,
    },
    /// One of several sizes, each with its weight (e.g. a bimodal mix).
    Choice(Vec<(u32, f64)>),
}

impl MessageSize {
    pub fn check(&self, key: &str) -> Result<()> {
        let ok = match self {
            MessageSize::Fixed(b) => *b > 0,
            MessageSize::Uniform { min, max } => *min > 0 && min <= max,
            MessageSize::Choice(c) => {
                !c.is_empty()
                    && c.iter().all(|&(b, w)| b > 0 && w.is_finite() && w >= 0.0)
                    && c.iter().any(|c| c.1 > 0.0)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(key, format!("{self:?}"), "sizes of 1 byte or more (min <= max; weights >= 0, one > 0)"))
        }
    }

    pub fn draw(&self, rng: &mut RandomStream) -> u32 {
        match self {
            MessageSize::Fixed(b) => *b,
            MessageSize::Uniform { min, max } => min + rng.below(max - min + 1),
            MessageSize::Choice(c) => {
                let total: f64 = c.iter().map(|x| x.1).sum();
                let mut u = rng.uniform() * total;
                for &(b, w) in c {
                    if u < w {
                        return b;
                    }
                    u -= w;
                }
                c.iter().rev().find(|x| x.1 > 0.0).expect("checked: one weight above 0").0
            }
        }
    }

    pub fn mean(&self) -> f64 {
        match self {
            MessageSize::Fixed(b) => *b as f64,
            MessageSize::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            MessageSize::Choice(c) => {
                c.iter().map(|&(b, w)| b as f64 * w).sum::<f64>() / c.iter().map(|x| x.1).sum::<f64>()
            }
        }
    }
}

/// Jain's fairness index (Jain, Chiu and Hawe, 1984) of non-negative
/// allocations: (sum x)^2 / (n sum x^2); 1 when all are equal, 1/n when one
/// takes everything; 1 for an empty or all-zero list.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * squares)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(i: u64) -> RandomStream {
        RandomStream::new(7, "patterns", i)
    }

    fn counts(p: Pattern, n: u32, per_node: u32) -> Vec<Vec<u32>> {
        let mut d = PatternDestinations::new(p, n, &mut rng(0), "pattern").unwrap();
        let mut r = rng(1);
        let mut c = vec![vec![0u32; n as usize]; n as usize];
        for s in 0..n {
            if d.sends(s) {
                for _ in 0..per_node {
                    c[s as usize][d.next(s, &mut r) as usize] += 1;
                }
            }
        }
        c
    }

    #[test]
    fn shift_reaches_every_other_node_once_per_round_and_each_step_is_a_permutation() {
        let n = 9;
        let c = counts(Pattern::Shift, n, 2 * (n - 1));
        for (s, row) in c.iter().enumerate() {
            for (d, &k) in row.iter().enumerate() {
                assert_eq!(k, if s == d { 0 } else { 2 }, "{s} -> {d}");
            }
        }
        let mut d = PatternDestinations::new(Pattern::Shift, n, &mut rng(0), "p").unwrap();
        let mut r = rng(1);
        for _ in 0..n - 1 {
            let mut step: Vec<u32> = (0..n).map(|s| d.next(s, &mut r)).collect();
            step.sort_unstable();
            assert_eq!(step, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_permutation_is_a_derangement_fixed_for_the_run_and_set_by_the_seed() {
        let c = counts(Pattern::Permutation, 32, 5);
        for (s, row) in c.iter().enumerate() {
            assert_eq!(row[s], 0);
            assert_eq!(row.iter().filter(|&&k| k > 0).count(), 1, "one partner");
        }
        for d in 0..32 {
            assert_eq!(c.iter().map(|row| row[d]).sum::<u32>(), 5, "each node receives from one sender");
        }
        let a = PatternDestinations::new(Pattern::Permutation, 32, &mut rng(0), "p").unwrap().partner;
        let b = PatternDestinations::new(Pattern::Permutation, 32, &mut rng(2), "p").unwrap().partner;
        assert_ne!(a, b);
    }

    #[test]
    fn uniform_and_hot_spot_shares_are_within_binomial_bounds() {
        let (n, per) = (16u32, 6000u32);
        let c = counts(Pattern::Uniform, n, per);
        let expected = per as f64 / (n - 1) as f64;
        let sd = (expected * (1.0 - 1.0 / (n - 1) as f64)).sqrt();
        for (s, row) in c.iter().enumerate() {
            assert_eq!(row[s], 0);
            for (d, &k) in row.iter().enumerate().filter(|&(d, _)| d != s) {
                assert!((k as f64 - expected).abs() < 5.0 * sd, "{s} -> {d}: {k} of ~{expected:.0}");
            }
        }
        let c = counts(Pattern::HotSpot { hot: 3, share: 0.25 }, n, per);
        let to_hot: u32 = c.iter().enumerate().filter(|&(s, _)| s != 3).map(|(_, row)| row[3]).sum();
        let senders = (n - 1) * per;
        // Each message hits the hot node with 0.25 + 0.75 / 15.
        let p = 0.25 + 0.75 / 15.0;
        let sd = (senders as f64 * p * (1.0 - p)).sqrt();
        assert!((to_hot as f64 - senders as f64 * p).abs() < 5.0 * sd, "{to_hot}");
        assert_eq!(c[3][3], 0);
    }

    #[test]
    fn incast_has_its_senders_and_its_target_only() {
        let c = counts(Pattern::Incast { target: 14, senders: 4 }, 16, 10);
        let senders: Vec<usize> = (0..16).filter(|&s| c[s].iter().sum::<u32>() > 0).collect();
        assert_eq!(senders, vec![0, 1, 2, 15], "the four after node 14, wrapping");
        assert!(c.iter().all(|row| row.iter().enumerate().all(|(d, &k)| k == 0 || d == 14)));
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = PatternDestinations::new(Pattern::Incast { target: 2, senders: 8 }, 8, &mut rng(0), "w.pattern")
            .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("w.pattern.senders"));
        let e =
            PatternDestinations::new(Pattern::HotSpot { hot: 9, share: 0.1 }, 8, &mut rng(0), "w.pattern").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("w.pattern.hot"));
        let e =
            PatternDestinations::new(Pattern::Flows(vec![vec![1], vec![1]]), 2, &mut rng(0), "w.pattern").unwrap_err();
        assert_eq!((e.key.as_deref(), e.value.as_deref()), (Some("w.pattern.flows"), Some("[1, 1]")));
        assert!(PatternDestinations::new(Pattern::Flows(vec![vec![1]]), 2, &mut rng(0), "w.pattern").is_err());
        assert!(MessageSize::Uniform { min: 5, max: 4 }.check("w.size").is_err());
    }

    #[test]
    fn sizes_follow_their_distribution() {
        let mut r = rng(3);
        let u = MessageSize::Uniform { min: 100, max: 200 };
        let draws: Vec<u32> = (0..20000).map(|_| u.draw(&mut r)).collect();
        assert!(draws.iter().all(|&b| (100..=200).contains(&b)));
        let mean = draws.iter().map(|&b| b as f64).sum::<f64>() / draws.len() as f64;
        assert!((mean - u.mean()).abs() < 1.0, "{mean}");
        let bimodal = MessageSize::Choice(vec![(64, 3.0), (65536, 1.0)]);
        let large = (0..20000).filter(|_| bimodal.draw(&mut r) == 65536).count() as f64 / 20000.0;
        assert!((large - 0.25).abs() < 0.02, "{large}");
        assert_eq!(MessageSize::Fixed(4096).draw(&mut r), 4096);
    }

    #[test]
    fn jain_index_spans_one_over_n_to_one() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain_index(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
        assert_eq!(jain_index(&[3.0, 6.0]), jain_index(&[1.0, 2.0]));
    }
}
