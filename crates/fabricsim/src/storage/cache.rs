//! The on-drive read cache: a few segments, each holding a run of blocks,
//! filled by the media after a read miss and extended by read-ahead while
//! the arm has nothing else to do. A fill is stopped ("preempted") the moment
//! the mechanism starts the next command. A read whose blocks are all in a
//! segment, or will be by the running fill, is a hit.

use crate::kernel::Time;

#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: u64,
    /// End (exclusive) of the valid blocks once no fill is running.
    end: u64,
    filling: bool,
    fill_t0: Time,
    fill_from: u64,
    fill_target: u64,
    block_ps: Time,
    last_use: u64,
}

impl Segment {
    #[inline]
    fn valid_end(&self, t: Time) -> u64 {
        if !self.filling {
            return self.end;
        }
        if t < self.fill_t0 {
            return self.fill_from;
        }
        (self.fill_from + (t - self.fill_t0) / self.block_ps.max(1)).min(self.fill_target)
    }
}

#[derive(Clone, Debug)]
pub struct Cache {
    segments: Vec<Segment>,
    segment_blocks: u64,
    read_ahead_blocks: u64,
    active: Option<usize>,
    clock: u64,
}

impl Cache {
    pub fn new(segments: u32, segment_blocks: u32, read_ahead_blocks: u32) -> Self {
        Cache {
            segments: vec![Segment::default(); segments as usize],
            segment_blocks: segment_blocks as u64,
            read_ahead_blocks: read_ahead_blocks.min(segment_blocks) as u64,
            active: None,
            clock: 0,
        }
    }

    /// If `[lbn, lbn + blocks)` is (or will be, by the running fill) in a
    /// segment, the time its last block is there.
    pub fn lookup(&mut self, now: Time, lbn: u64, blocks: u32) -> Option<Time> {
        let end = lbn + blocks as u64;
        self.clock += 1;
        for s in &mut self.segments {
            if lbn < s.start || s.start == s.end && !s.filling {
                continue;
            }
            if end <= s.valid_end(now) {
                s.last_use = self.clock;
                return Some(now);
            }
            if s.filling && end <= s.fill_target {
                s.last_use = self.clock;
                return Some(s.fill_t0 + (end - s.fill_from) * s.block_ps);
            }
        }
        None
    }

    /// The mechanism starts reading `blocks` blocks at `lbn` at `t0`; read-ahead follows.
    pub fn start_fill(&mut self, t0: Time, lbn: u64, blocks: u32, block_ps: Time) {
        if self.segments.is_empty() {
            return;
        }
        self.clock += 1;
        let i = (0..self.segments.len()).min_by_key(|&i| self.segments[i].last_use).expect("segments");
        let end = lbn + blocks as u64;
        let target = end + self.read_ahead_blocks;
        let start = lbn.max(target.saturating_sub(self.segment_blocks));
        self.segments[i] = Segment {
            start,
            end: start,
            filling: true,
            fill_t0: t0,
            fill_from: lbn,
            fill_target: target,
            block_ps,
            last_use: self.clock,
        };
        self.active = Some(i);
    }

    /// The mechanism leaves the running fill at `t`.
    pub fn preempt(&mut self, t: Time) {
        if let Some(i) = self.active.take() {
            let s = &mut self.segments[i];
            s.end = s.valid_end(t).max(s.start);
            s.filling = false;
        }
    }

    /// Drops segments overlapping written blocks.
    pub fn invalidate(&mut self, lbn: u64, blocks: u32) {
        let end = lbn + blocks as u64;
        for (i, s) in self.segments.iter_mut().enumerate() {
            let s_end = if s.filling { s.fill_target } else { s.end };
            if s.start < end && lbn < s_end {
                *s = Segment::default();
                if self.active == Some(i) {
                    self.active = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_hits_wait_for_the_fill_and_stop_at_preemption() {
        let mut c = Cache::new(2, 100, 50);
        assert_eq!(c.lookup(0, 10, 2), None);
        c.start_fill(1000, 10, 2, 10);
        // Blocks 12..14 arrive at 1000 + 4 x 10.
        assert_eq!(c.lookup(1005, 12, 2), Some(1040));
        assert_eq!(c.lookup(5000, 12, 2), Some(5000));
        c.preempt(1100); // 10 blocks read by then: valid up to lbn 20
        assert_eq!(c.lookup(5000, 15, 5), Some(5000));
        assert_eq!(c.lookup(5000, 15, 6), None);
        c.invalidate(18, 1);
        assert_eq!(c.lookup(5000, 10, 1), None);
    }
}
