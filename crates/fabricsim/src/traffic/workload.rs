//! Message generators: when messages appear at a node, how long they are,
//! and where they go (for a switched fabric, by the `[workload]` pattern). Each node draws from its own named random streams.

use crate::error::{Error, Result};
use crate::kernel::{RandomStream, Time};
use crate::scenario::{Arrivals, Pattern, SizeDistribution, WorkloadSpec};

/// Where a node's messages go.
#[derive(Clone, Debug, PartialEq)]
pub enum Destinations {
    /// The node sends nothing.
    Silent,
    /// Uniformly over every other node of the fabric.
    AllOthers,
    /// Uniformly over these nodes.
    Among(Vec<u32>),
}

/// Where each node of a switched fabric sends under the scenario's
/// `[workload]` pattern: uniform, one pair, or every node of some switches
/// to the nodes of one switch. `node_switch` gives each node's switch (from
/// 0) of `switches`.
pub fn fabric_destinations(w: &WorkloadSpec, node_switch: &[u32], switches: u32) -> Result<Vec<Destinations>> {
    let n = node_switch.len() as u32;
    Ok(match w.pattern {
        Pattern::Uniform => vec![Destinations::AllOthers; n as usize],
        Pattern::Pair => {
            let [src, dst] = w.pair.expect("validated: pair given");
            if src >= n || dst >= n {
                return Err(Error::invalid(
                    "workload.pair",
                    format!("[{src}, {dst}]"),
                    format!("node numbers below {n}"),
                ));
            }
            (0..n).map(|i| if i == src { Destinations::Among(vec![dst]) } else { Destinations::Silent }).collect()
        }
        Pattern::ToSwitch => {
            let d = w.destination_switch.expect("validated: destination_switch given");
            if d < 1 || d > switches {
                return Err(Error::invalid("workload.destination_switch", d, format!("a switch from 1 to {switches}")));
            }
            let sources: Vec<u32> = match &w.source_switches {
                Some(list) => {
                    for &s in list {
                        if s < 1 || s > switches {
                            return Err(Error::invalid(
                                "workload.source_switches",
                                s,
                                format!("switches from 1 to {switches}"),
                            ));
                        }
                    }
                    list.clone()
                }
                None => (1..=switches).filter(|&s| s != d).collect(),
            };
            let targets: Vec<u32> = (0..n).filter(|&i| node_switch[i as usize] + 1 == d).collect();
            if targets.is_empty() {
                return Err(Error::invalid("workload.destination_switch", d, "a switch with terminal nodes"));
            }
            (0..n)
                .map(|i| {
                    if sources.contains(&(node_switch[i as usize] + 1)) {
                        Destinations::Among(targets.iter().copied().filter(|&t| t != i).collect())
                    } else {
                        Destinations::Silent
                    }
                })
                .collect()
        }
    })
}

pub struct MessageSource {
    node: u32,
    nodes: u32,
    /// Set when the run drains: no new messages from here on.
    stopped: bool,
    destinations: Destinations,
    arrivals: Arrivals,
    sizes: SizeDistribution,
    /// Mean time between message arrivals in picoseconds (Poisson).
    mean_interarrival: f64,
    arrival_rng: RandomStream,
    size_rng: RandomStream,
    destination_rng: RandomStream,
}

/// Where a source sits and the figures that turn offered load into a rate.
#[derive(Clone, Copy, Debug)]
pub struct SourcePlace {
    /// Master seed of the run.
    pub seed: u64,
    /// This source's node, and the number of nodes.
    pub node: u32,
    pub nodes: u32,
    /// Serialization time of one full data frame.
    pub frame_time: Time,
}

impl MessageSource {
    /// The source at `place` sending to `destinations` under `spec`.
    pub fn new(spec: &WorkloadSpec, place: SourcePlace, destinations: Destinations) -> Self {
        let SourcePlace { seed, node, nodes, frame_time } = place;
        let mean_frames = spec.sizes.mean_frames();
        MessageSource {
            node,
            nodes,
            stopped: false,
            destinations,
            arrivals: spec.arrivals,
            sizes: spec.sizes.distribution(),
            mean_interarrival: mean_frames * frame_time as f64 / spec.offered_load,
            arrival_rng: RandomStream::new(seed, "workload.arrivals", node as u64),
            size_rng: RandomStream::new(seed, "workload.sizes", node as u64),
            destination_rng: RandomStream::new(seed, "workload.destinations", node as u64),
        }
    }

    /// Whether this node generates messages at all.
    pub fn is_active(&self) -> bool {
        match &self.destinations {
            Destinations::Silent => false,
            Destinations::AllOthers => self.nodes > 1,
            Destinations::Among(list) => !list.is_empty(),
        }
    }

    pub fn is_saturated(&self) -> bool {
        self.arrivals == Arrivals::Saturated
    }

    /// Whether a saturated source should queue a new message now.
    pub fn refills(&self) -> bool {
        self.arrivals == Arrivals::Saturated && !self.stopped
    }

    /// Stops generating: Poisson arrivals end and saturated sources stop refilling.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Time until the next Poisson arrival (at least 1 ps, keeping arrivals distinct).
    #[inline]
    pub fn next_interarrival(&mut self) -> Time {
        (self.arrival_rng.exponential(self.mean_interarrival).round() as Time).max(1)
    }

    /// Length of the next message in frames.
    #[inline]
    pub fn next_frames(&mut self) -> u32 {
        match self.sizes {
            SizeDistribution::Fixed { frames } => frames,
            SizeDistribution::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                if self.size_rng.bernoulli(long_fraction) {
                    long_frames
                } else {
                    short_min_frames + self.size_rng.below(short_max_frames - short_min_frames + 1)
                }
            }
        }
    }

    /// Destination of the next message.
    #[inline]
    pub fn next_destination(&mut self) -> u32 {
        match &self.destinations {
            Destinations::AllOthers => {
                let k = self.destination_rng.below(self.nodes - 1);
                if k >= self.node {
                    k + 1
                } else {
                    k
                }
            }
            Destinations::Among(list) if list.len() == 1 => list[0],
            Destinations::Among(list) => list[self.destination_rng.below(list.len() as u32) as usize],
            Destinations::Silent => unreachable!("a silent node generates no messages"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::MessageSizes;

    fn place(seed: u64, node: u32) -> SourcePlace {
        SourcePlace { seed, node, nodes: 16, frame_time: 1000 }
    }

    fn spec(sizes: MessageSizes) -> WorkloadSpec {
        WorkloadSpec { sizes, offered_load: 0.5, ..WorkloadSpec::default() }
    }

    #[test]
    fn destinations_are_uniform_over_other_nodes() {
        let mut s = MessageSource::new(&spec(MessageSizes::default()), place(1, 5), Destinations::AllOthers);
        let mut counts = [0u32; 16];
        for _ in 0..150_000 {
            counts[s.next_destination() as usize] += 1;
        }
        assert_eq!(counts[5], 0);
        for (i, &c) in counts.iter().enumerate() {
            if i != 5 {
                assert!((c as f64 - 10_000.0).abs() < 500.0, "node {i}: {c}");
            }
        }
    }

    #[test]
    fn bimodal_sizes_have_the_study_mean() {
        let sizes = MessageSizes::bimodal(0.1, 1, 5, 25);
        let mut s = MessageSource::new(&spec(sizes), place(3, 0), Destinations::AllOthers);
        let n = 200_000;
        let frames: Vec<u32> = (0..n).map(|_| s.next_frames()).collect();
        let mean = frames.iter().map(|&f| f as f64).sum::<f64>() / n as f64;
        assert!((mean - 5.2).abs() < 0.05, "mean {mean}");
        // The study: 48% of frames belong to long messages.
        let long: u64 = frames.iter().filter(|&&f| f == 25).map(|&f| f as u64).sum();
        let share = long as f64 / frames.iter().map(|&f| f as u64).sum::<u64>() as f64;
        assert!((share - 0.48).abs() < 0.01, "long share {share}");
        assert!(frames.iter().all(|&f| (1..=5).contains(&f) || f == 25));
    }

    #[test]
    fn poisson_rate_matches_offered_load() {
        // 50% load of 1000 ps frames, one frame per message: mean gap 2000 ps.
        let mut s = MessageSource::new(&spec(MessageSizes::default()), place(9, 0), Destinations::AllOthers);
        let n = 200_000;
        let mean = (0..n).map(|_| s.next_interarrival() as f64).sum::<f64>() / n as f64;
        assert!((mean - 2000.0).abs() < 20.0, "mean {mean}");
    }
}
