//! The parameters of one disk drive model: what DiskSim's validated drive
//! files give (geometry, zones, seek curve, spindle speed, controller
//! overheads, cache layout); the catalogue of drives by name is `drives`.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    pub first_cylinder: u32,
    pub last_cylinder: u32,
    pub blocks_per_track: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DriveParams {
    pub name: String,
    pub rpm: f64,
    pub surfaces: u32,
    pub cylinders: u32,
    pub block_count: u64,
    pub head_switch_ms: f64,
    pub single_cylinder_seek_ms: f64,
    pub full_strobe_seek_ms: f64,
    /// Extracted seek curve: (distance in cylinders, seek time in ms), ascending.
    pub seek_curve: Vec<(u32, f64)>,
    pub zones: Vec<Zone>,
    /// Controller overheads (DiskSim "Read hit over. after read", etc.).
    pub read_hit_overhead_ms: f64,
    pub read_miss_overhead_ms: f64,
    pub write_hit_overhead_ms: f64,
    pub write_miss_overhead_ms: f64,
    pub cache_segments: u32,
    pub segment_blocks: u32,
    pub max_read_ahead_blocks: u32,
}

impl DriveParams {
    /// Seek time in ms for `distance` cylinders: linear between curve points.
    pub fn seek_ms(&self, distance: u32) -> f64 {
        if distance == 0 {
            return 0.0;
        }
        let c = &self.seek_curve;
        match c.binary_search_by_key(&distance, |p| p.0) {
            Ok(i) => c[i].1,
            Err(0) => c[0].1,
            Err(i) if i >= c.len() => c[c.len() - 1].1,
            Err(i) => {
                let (d0, s0) = c[i - 1];
                let (d1, s1) = c[i];
                s0 + (s1 - s0) * (distance - d0) as f64 / (d1 - d0) as f64
            }
        }
    }

    /// Mean seek over independent uniformly random cylinders (distance
    /// density 2(C - d)/C^2), the usual "average seek" figure.
    pub fn average_seek_ms(&self) -> f64 {
        let c = self.cylinders as f64;
        let (mut num, mut den) = (0.0, 0.0);
        for d in 1..self.cylinders {
            let w = 2.0 * (c - d as f64);
            num += w * self.seek_ms(d);
            den += w;
        }
        num / (den + 2.0 * c)
    }

    /// Blocks the zones hold (spares excluded by the block count).
    pub fn capacity_blocks(&self) -> u64 {
        let zoned: u64 = self
            .zones
            .iter()
            .map(|z| (z.last_cylinder - z.first_cylinder + 1) as u64 * self.surfaces as u64 * z.blocks_per_track as u64)
            .sum();
        zoned.min(self.block_count)
    }
}

#[cfg(test)]
mod tests {
    use crate::storage::drives::{drive, drive_names, SEED001_DISK1, SEED001_DISK1_10K, SEED001_DISK2, SEED001_DISK3};

    #[test]
    fn cheetah9lp_matches_its_data_sheet_figures() {
        let d = drive("cheetah9lp").unwrap();
        assert_eq!(d.rpm, 10045.0);
        assert_eq!(d.seek_ms(1), 0.831);
        assert_eq!(d.seek_ms(0), 0.0);
        assert!((d.seek_ms(11) - 1.4485).abs() < 1e-9);
        assert_eq!(d.seek_ms(100_000), 10.627);
        let avg = d.average_seek_ms();
        assert!(avg > 4.0 && avg < 7.0, "{avg}");
        for name in [SEED001_DISK1, SEED001_DISK1_10K, SEED001_DISK2] {
            assert!((drive(name).unwrap().average_seek_ms() - 2.475).abs() < 1e-9, "{name}");
        }
        let (light, heavy) = (drive(SEED001_DISK1).unwrap(), drive(SEED001_DISK1_10K).unwrap());
        assert_eq!((light.rpm, heavy.rpm), (15_000.0, 10_025.0));
        assert_eq!((light.zones[0].blocks_per_track, heavy.zones[0].blocks_per_track), (1470, 334));
        // 188 MB/s off the outer track at 15,000 rpm.
        let outer_mb_s = 1470.0 * 512.0 * light.rpm / 60.0 / 1e6;
        assert!((outer_mb_s - 188.2).abs() < 0.1, "{outer_mb_s}");
        assert_eq!(drive(SEED001_DISK3).unwrap().rpm, 7200.0);
        assert!(drive_names().iter().all(|n| drive(n).is_some()));
    }
}
