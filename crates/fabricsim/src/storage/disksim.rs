//! Reader of DiskSim 4.0 drive descriptions (`.diskspecs` + `.model` +
//! `.seek`), turning them into `DriveParams`. The built-in drives were
//! derived with the same rules; tests re-derive them from the shared files.

use std::path::Path;

use super::drive_params::{DriveParams, Zone};
use crate::error::{Error, Result};

/// `key = value` pairs (first occurrence wins; `#` starts a comment) and the
/// zone triples in file order.
fn key_values(text: &str) -> (Vec<(String, String)>, Vec<Zone>) {
    let mut kv: Vec<(String, String)> = Vec::new();
    let mut zones = Vec::new();
    let (mut first, mut last) = (None, None);
    for raw in text.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim();
        let v = v.trim().trim_end_matches(',').trim();
        match k {
            "First cylinder number" => first = v.parse::<u32>().ok(),
            "Last cylinder number" => last = v.parse::<u32>().ok(),
            "Blocks per track" => {
                if let (Some(f), Some(l), Ok(b)) = (first.take(), last.take(), v.parse::<u32>()) {
                    zones.push(Zone { first_cylinder: f, last_cylinder: l, blocks_per_track: b });
                }
            }
            _ => {
                if !kv.iter().any(|(key, _)| key == k) {
                    kv.push((k.to_string(), v.to_string()));
                }
            }
        }
    }
    (kv, zones)
}

fn get<T: std::str::FromStr>(kv: &[(String, String)], key: &str, file: &str) -> Result<T> {
    let v = kv
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .ok_or_else(|| Error::scenario(format!("{file}: DiskSim parameter `{key}` missing")))?;
    v.parse().map_err(|_| Error::scenario(format!("{file}: DiskSim parameter `{key}` = {v} is not a number")))
}

/// Parses the extracted seek curve: a header line, then `distance, ms` lines.
pub fn parse_seek_curve(text: &str) -> Vec<(u32, f64)> {
    text.lines()
        .filter_map(|l| {
            let (a, b) = l.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .collect()
}

/// Builds drive parameters from the three DiskSim texts.
pub fn parse_drive(name: &str, diskspecs: &str, model: &str, seek: &str) -> Result<DriveParams> {
    let (spec, _) = key_values(diskspecs);
    let (m, zones) = key_values(model);
    let f = |kv: &[(String, String)], k: &str, file: &str| get::<f64>(kv, k, file);
    Ok(DriveParams {
        name: name.to_string(),
        rpm: f(&m, "Rotation speed (in rpms)", "model")?,
        surfaces: get(&m, "Number of data surfaces", "model")?,
        cylinders: get(&m, "Number of cylinders", "model")?,
        block_count: get(&m, "Block count", "model")?,
        head_switch_ms: f(&m, "Head switch time", "model")?,
        single_cylinder_seek_ms: f(&m, "Single cylinder seek time", "model")?,
        full_strobe_seek_ms: f(&m, "Full strobe seek time", "model")?,
        seek_curve: parse_seek_curve(seek),
        zones,
        read_hit_overhead_ms: f(&spec, "Read hit over. after read", "diskspecs")?,
        read_miss_overhead_ms: f(&spec, "Read miss over. after read", "diskspecs")?,
        write_hit_overhead_ms: f(&spec, "Write hit over. after write", "diskspecs")?,
        write_miss_overhead_ms: f(&spec, "Write miss over. after write", "diskspecs")?,
        cache_segments: get(&spec, "Number of buffer segments", "diskspecs")?,
        segment_blocks: get(&spec, "Segment size (in blks)", "diskspecs")?,
        max_read_ahead_blocks: get(&spec, "Maximum read-ahead (blks)", "diskspecs")?,
    })
}

/// Reads `<dir>/<stem>.diskspecs`, `.model` and `.seek`.
pub fn load_drive(dir: &Path, stem: &str, name: &str) -> Result<DriveParams> {
    let read = |ext: &str| {
        let p = dir.join(format!("{stem}.{ext}"));
        std::fs::read_to_string(&p).map_err(|e| Error::scenario(format!("cannot read {}: {e}", p.display())))
    };
    parse_drive(name, &read("diskspecs")?, &read("model")?, &read("seek")?)
}
