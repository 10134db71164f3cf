//! Disk mechanics in picoseconds: where a block lies (zoned recording),
//! how long the arm takes to get there, how long the platter takes to bring
//! the block under the head, and how long the media transfer takes.
//!
//! The spindle turns from angle 0 at time 0, so rotational positions are a
//! pure function of simulated time and runs stay deterministic. Blocks are
//! laid out cylinder by cylinder through the zones; spare sectors, slips and
//! track/cylinder skew of the DiskSim layout are not modelled.

use super::drive_params::DriveParams;
use crate::kernel::{time, Time};

#[derive(Clone, Copy, Debug)]
struct ZoneMap {
    first_lbn: u64,
    first_cylinder: u32,
    cylinders: u32,
    blocks_per_track: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub cylinder: u32,
    pub sector: u32,
    pub blocks_per_track: u32,
}

#[derive(Clone, Debug)]
pub struct Mechanics {
    zones: Vec<ZoneMap>,
    surfaces: u32,
    pub capacity_blocks: u64,
    pub revolution: Time,
    pub head_switch: Time,
    /// Seek time for each cylinder distance, precomputed.
    seek_table: Vec<Time>,
}

impl Mechanics {
    pub fn new(d: &DriveParams) -> Self {
        let mut lbn = 0;
        let zones = d
            .zones
            .iter()
            .map(|z| {
                let cylinders = z.last_cylinder - z.first_cylinder + 1;
                let m = ZoneMap {
                    first_lbn: lbn,
                    first_cylinder: z.first_cylinder,
                    cylinders,
                    blocks_per_track: z.blocks_per_track,
                };
                lbn += cylinders as u64 * d.surfaces as u64 * z.blocks_per_track as u64;
                m
            })
            .collect();
        let max_cyl = d.zones.iter().map(|z| z.last_cylinder).max().unwrap_or(0).max(d.cylinders);
        Mechanics {
            zones,
            surfaces: d.surfaces,
            capacity_blocks: d.capacity_blocks(),
            revolution: (60.0e12 / d.rpm).round() as Time,
            head_switch: time::from_us(d.head_switch_ms * 1000.0),
            seek_table: (0..=max_cyl).map(|dist| time::from_us(d.seek_ms(dist) * 1000.0)).collect(),
        }
    }

    pub fn locate(&self, lbn: u64) -> Location {
        let i = self.zones.partition_point(|z| z.first_lbn <= lbn).saturating_sub(1);
        let z = &self.zones[i];
        let per_cyl = self.surfaces as u64 * z.blocks_per_track as u64;
        let off = lbn - z.first_lbn;
        let cyl = (off / per_cyl).min(z.cylinders as u64 - 1) as u32;
        let sector = ((off % per_cyl) % z.blocks_per_track as u64) as u32;
        Location { cylinder: z.first_cylinder + cyl, sector, blocks_per_track: z.blocks_per_track }
    }

    #[inline]
    pub fn seek(&self, from: u32, to: u32) -> Time {
        let d = from.abs_diff(to) as usize;
        self.seek_table[d.min(self.seek_table.len() - 1)]
    }

    /// Wait from `at` until `loc`'s first sector is under the head.
    #[inline]
    pub fn rotational_latency(&self, at: Time, loc: Location) -> Time {
        let rev = self.revolution as u128;
        let target = rev * loc.sector as u128 / loc.blocks_per_track as u128;
        let now = at as u128 % rev;
        ((target + rev - now) % rev) as Time
    }

    /// Time per block in the zone of `loc`.
    #[inline]
    pub fn block_time(&self, loc: Location) -> Time {
        self.revolution / loc.blocks_per_track as Time
    }

    /// Media transfer of `blocks` blocks from `loc`, with a head switch per track boundary.
    #[inline]
    pub fn media_time(&self, loc: Location, blocks: u32) -> Time {
        let crossings = (loc.sector + blocks.max(1) - 1) / loc.blocks_per_track;
        blocks as Time * self.block_time(loc) + crossings as Time * self.head_switch
    }
}

#[cfg(test)]
mod tests {
    use super::super::drives::drive;
    use super::*;

    #[test]
    fn zoned_layout_rotation_and_media_rate() {
        let d = drive("cheetah9lp").unwrap();
        let m = Mechanics::new(&d);
        // 10,045 rpm: 5.973 ms per revolution.
        assert_eq!(m.revolution, 5_973_120_956); // 60e12 / 10045 ps
        let first = m.locate(0);
        assert_eq!((first.cylinder, first.sector, first.blocks_per_track), (0, 0, 254));
        // First zone: 847 cylinders x 12 surfaces x 254 blocks.
        let z2 = m.locate(847 * 12 * 254);
        assert_eq!((z2.cylinder, z2.sector, z2.blocks_per_track), (848, 0, 245));
        assert_eq!(m.rotational_latency(0, first), 0);
        let half = Location { cylinder: 0, sector: 127, blocks_per_track: 254 };
        assert_eq!(m.rotational_latency(0, half), m.revolution / 2);
        // One track: a revolution; two tracks add a head switch.
        assert_eq!(m.media_time(first, 254), 254 * (m.revolution / 254));
        assert_eq!(m.media_time(first, 255), 255 * (m.revolution / 254) + m.head_switch);
        assert_eq!(m.seek(10, 11), 831_000_000);
    }
}
