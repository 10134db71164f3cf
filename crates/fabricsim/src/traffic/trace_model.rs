//! The built-in video trace: a frame-size model derived from the real
//! trace `movietrace.data` (the shared data's `traces/`, see its README)
//! and shipped inside the package, so that the InfiniBand model's default
//! workload runs anywhere. The real trace stays an option
//! (`ib.workload.trace` = its path).
//!
//! What the table keeps of the trace, and how a trace is made from it:
//!
//! - the GoP pattern in transmission order (`IBBBPBBBPBBBPBBB`), and the
//!   number of whole GoPs (3,374: 53,984 frames, the trace less its first,
//!   partial GoP);
//! - each frame type's size distribution, as the sizes at 129 normal scores
//!   from -4 to 4 (the type's empirical quantile at Phi(z));
//! - the scene: a frame's normal score is its GoP's activity plus its own
//!   noise (standard deviation `frame_sd`). A GoP's activity is a slowly
//!   varying level (the mean over each block of 16 GoPs, 8.5 s, interpolated
//!   between block centres: 211 numbers) plus an AR(1) residual
//!   (`residual_phi`, `residual_sd`).
//!
//! The trace is generated from a fixed random stream, so it is the same
//! everywhere. Against the real trace (a test checks): mean rate 14.15
//! Mbit/s against 14.27; each type's mean within 1.3% and coefficient of
//! variation within 5% (I 0.53 against 0.51, B 1.21 against 1.16); the GoP
//! sizes' autocorrelation 0.91 against 0.96 at one GoP, 0.73 against 0.72 at
//! ten, 0.29 against 0.39 at a hundred (53 s). [`TraceModel::derive`] computes the table from the trace;
//! a test derives it again from the shared data and compares it with the
//! shipped file, which is its provenance.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::video::{FrameType, TraceFrame, VideoTrace};
use crate::error::{Error, Result};
use crate::kernel::stats::normal;
use crate::kernel::RandomStream;

/// Normal scores of the size tables: from `-Z_MAX` to `Z_MAX` in steps of `1 / Z_STEPS`.
const Z_MAX: f64 = 4.0;
const Z_STEPS: usize = 16;
/// GoPs per level block.
const GOPS_PER_LEVEL: usize = 16;
/// The shipped table.
const TABLE: &str = include_str!("movietrace_model.toml");

/// Where the table comes from, as the file records it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub source: String,
    pub origin: String,
    pub source_frames: u64,
    pub source_total_bytes: u64,
    pub derived_by: String,
}

/// Each frame type's size (bytes) at the normal scores -4, -4 + 1/16, ..., 4.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SizeTables {
    #[serde(rename = "I")]
    pub i: Vec<u32>,
    #[serde(rename = "P")]
    pub p: Vec<u32>,
    #[serde(rename = "B")]
    pub b: Vec<u32>,
}

/// The derived table (see the module doc).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceModel {
    pub provenance: Provenance,
    /// Frame types of one GoP in transmission order.
    pub gop: String,
    pub gops: u32,
    pub gops_per_level: u32,
    /// AR(1) coefficient and standard deviation of a GoP's activity about its level.
    pub residual_phi: f64,
    pub residual_sd: f64,
    /// Standard deviation of a frame's normal score about its GoP's activity.
    pub frame_sd: f64,
    /// Mean normal score of each block of `gops_per_level` GoPs.
    pub levels: Vec<f64>,
    pub sizes: SizeTables,
}

fn type_of(c: char) -> Option<FrameType> {
    match c {
        'I' => Some(FrameType::I),
        'P' => Some(FrameType::P),
        'B' => Some(FrameType::B),
        _ => None,
    }
}

fn kind_index(k: FrameType) -> usize {
    match k {
        FrameType::I => 0,
        FrameType::P => 1,
        FrameType::B => 2,
    }
}

/// Rounded to four decimals, as the table stores it.
fn r4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

impl TraceModel {
    /// The shipped table.
    pub fn builtin() -> &'static TraceModel {
        static MODEL: OnceLock<TraceModel> = OnceLock::new();
        MODEL.get_or_init(|| toml::from_str(TABLE).expect("the shipped trace model parses"))
    }

    /// The built-in trace, generated once per process.
    pub fn builtin_trace() -> Arc<VideoTrace> {
        static TRACE: OnceLock<Arc<VideoTrace>> = OnceLock::new();
        TRACE.get_or_init(|| Arc::new(Self::builtin().generate())).clone()
    }

    /// The table as the shipped file holds it.
    pub fn to_toml(&self) -> String {
        let header = "# Frame-size model of the built-in video trace, derived from the real trace\n\
                      # (see crates/fabricsim/src/traffic/trace_model.rs). Generated: do not edit;\n\
                      # a test derives it again from the shared data and compares.\n";
        format!("{header}{}", toml::to_string(self).expect("the trace model serializes"))
    }

    /// Derives the table from a real trace: its GoP pattern, each type's
    /// sizes at normal scores, and the scene (levels and residual) from the
    /// frames' normal scores within their type.
    pub fn derive(trace: &VideoTrace, provenance: Provenance) -> Result<TraceModel> {
        let frames = trace.frames();
        let bad = |what: &str| Error::scenario(format!("cannot derive a trace model: {what}")).in_file(trace.source());
        // The pattern holds from the second I frame on (the first GoP is partial).
        let first = frames
            .iter()
            .skip(1)
            .position(|f| f.kind == FrameType::I)
            .map(|i| i + 1)
            .ok_or_else(|| bad("fewer than two I frames"))?;
        let next = frames[first + 1..]
            .iter()
            .position(|f| f.kind == FrameType::I)
            .map(|i| first + 1 + i)
            .ok_or_else(|| bad("fewer than three I frames"))?;
        let period = next - first;
        let body = &frames[first..];
        let g = body.len() / period;
        if body[..g * period].iter().enumerate().any(|(i, f)| f.kind != body[i % period].kind) {
            return Err(bad("the frame types do not repeat with one GoP pattern"));
        }
        let body = &body[..g * period];
        let gop: String = body[..period].iter().map(|f| format!("{:?}", f.kind)).collect();
        // Normal scores of each frame within its type, by rank (ties in trace order).
        let mut z = vec![0.0; body.len()];
        let mut sorted: [Vec<u32>; 3] = Default::default();
        for k in [FrameType::I, FrameType::P, FrameType::B] {
            let mut ids: Vec<usize> = (0..body.len()).filter(|&i| body[i].kind == k).collect();
            ids.sort_by_key(|&i| (body[i].bytes, i));
            let n = ids.len() as f64;
            for (rank, &i) in ids.iter().enumerate() {
                z[i] = normal::quantile((rank as f64 + 0.5) / n);
            }
            sorted[kind_index(k)] = ids.iter().map(|&i| body[i].bytes).collect();
        }
        let activity: Vec<f64> = z.chunks(period).map(mean).collect();
        let levels: Vec<f64> = activity.chunks(GOPS_PER_LEVEL).map(|c| r4(mean(c))).collect();
        let residual: Vec<f64> = (0..g).map(|i| activity[i] - level_at(&levels, GOPS_PER_LEVEL, i)).collect();
        let noise: Vec<f64> = (0..body.len()).map(|i| z[i] - activity[i / period]).collect();
        // The noise's variance about a mean of `period` frames (one degree of freedom spent on the mean).
        let frame_var =
            noise.iter().map(|e| e * e).sum::<f64>() / noise.len() as f64 * period as f64 / (period - 1) as f64;
        // A GoP's residual carries its frames' mean noise too: the AR(1) part is the rest.
        let rm = mean(&residual);
        let var = residual.iter().map(|r| (r - rm) * (r - rm)).sum::<f64>() / g as f64;
        let cov = residual.windows(2).map(|w| (w[0] - rm) * (w[1] - rm)).sum::<f64>() / g as f64;
        let latent = var - frame_var / period as f64;
        if latent <= 0.0 {
            return Err(bad("no scene structure above the frames' noise"));
        }
        let quantile = |s: &[u32], p: f64| -> u32 {
            let x = p * (s.len() - 1) as f64;
            let (i, f) = (x.floor() as usize, x - x.floor());
            let hi = s[(i + 1).min(s.len() - 1)] as f64;
            (s[i] as f64 * (1.0 - f) + hi * f).round() as u32
        };
        let table = |k: FrameType| -> Vec<u32> {
            let s = &sorted[kind_index(k)];
            (0..=2 * Z_MAX as usize * Z_STEPS)
                .map(|j| quantile(s, normal::cdf(-Z_MAX + j as f64 / Z_STEPS as f64)))
                .collect()
        };
        Ok(TraceModel {
            provenance,
            gop,
            gops: g as u32,
            gops_per_level: GOPS_PER_LEVEL as u32,
            residual_phi: r4((cov / latent).clamp(0.0, 0.999)),
            residual_sd: r4(latent.sqrt()),
            frame_sd: r4(frame_var.sqrt()),
            levels,
            sizes: SizeTables { i: table(FrameType::I), p: table(FrameType::P), b: table(FrameType::B) },
        })
    }

    /// The trace the table describes: `gops` GoPs of the pattern, from a
    /// fixed random stream (the same trace on every machine).
    pub fn generate(&self) -> VideoTrace {
        let pattern: Vec<FrameType> = self.gop.chars().map(|c| type_of(c).expect("frame types I, P, B")).collect();
        let tables = [&self.sizes.i, &self.sizes.p, &self.sizes.b];
        let mut rng = RandomStream::new(0, "traffic.builtin_trace", 0);
        let phi = self.residual_phi;
        let innovation = (1.0 - phi * phi).sqrt();
        let mut x = rng.normal();
        let mut frames = Vec::with_capacity(self.gops as usize * pattern.len());
        for g in 0..self.gops as usize {
            if g > 0 {
                x = phi * x + innovation * rng.normal();
            }
            let activity = level_at(&self.levels, self.gops_per_level as usize, g) + self.residual_sd * x;
            for (k, &kind) in pattern.iter().enumerate() {
                let z = activity + self.frame_sd * rng.normal();
                let bytes = size_at(tables[kind_index(kind)], z);
                frames.push(TraceFrame { display_index: (g * pattern.len() + k) as u32, kind, bytes });
            }
        }
        VideoTrace::from_frames(frames, "the built-in trace (derived from movietrace.data)")
            .expect("the generated trace has frames")
    }
}

/// The level of GoP `g`: block means interpolated between block centres.
fn level_at(levels: &[f64], per: usize, g: usize) -> f64 {
    if levels.len() == 1 {
        return levels[0];
    }
    let x = ((g as f64 + 0.5) / per as f64 - 0.5).max(0.0);
    let i = (x.floor() as usize).min(levels.len() - 2);
    let f = (x - i as f64).min(1.0);
    levels[i] * (1.0 - f) + levels[i + 1] * f
}

/// A type's size at normal score `z`: linear between the table's scores, its ends beyond them.
fn size_at(table: &[u32], z: f64) -> u32 {
    let x = ((z + Z_MAX) * Z_STEPS as f64).clamp(0.0, (table.len() - 1) as f64);
    let i = (x.floor() as usize).min(table.len() - 2);
    let f = x - i as f64;
    (table[i] as f64 * (1.0 - f) + table[i + 1] as f64 * f).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/traces/movietrace.data");

    fn provenance(real: &VideoTrace) -> Provenance {
        Provenance {
            source: "movietrace.data".into(),
            origin: "shared data traces/ (public GitHub repository zsaltzman/ECE466, Lab1/movietrace.data)".into(),
            source_frames: real.len() as u64,
            source_total_bytes: real.total_bytes(),
            derived_by: "fabricsim::traffic::trace_model::TraceModel::derive".into(),
        }
    }

    /// The shipped table is what the project's own code derives from the real trace.
    #[test]
    fn the_shipped_table_is_derived_from_the_real_trace() {
        let real = VideoTrace::read(REAL).unwrap_or_else(|e| panic!("{e}"));
        let derived = TraceModel::derive(&real, provenance(&real)).unwrap();
        if std::env::var_os("FABRICSIM_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/traffic/movietrace_model.toml");
            std::fs::write(path, derived.to_toml()).unwrap();
        }
        assert_eq!(derived.to_toml(), TABLE, "regenerate with FABRICSIM_BLESS=1 and say why");
        assert_eq!(TraceModel::builtin(), &derived);
    }

    fn autocorrelation(x: &[f64], lag: usize) -> f64 {
        let m = mean(x);
        let var: f64 = x.iter().map(|a| (a - m) * (a - m)).sum();
        x.windows(lag + 1).map(|w| (w[0] - m) * (w[lag] - m)).sum::<f64>() / var
    }

    fn gop_sizes(t: &VideoTrace, skip: usize) -> Vec<f64> {
        t.frames()[skip..].chunks_exact(16).map(|c| c.iter().map(|f| f.bytes as f64).sum()).collect()
    }

    /// The built-in trace against the real one: rate, each type's mean and
    /// spread, the scene's memory.
    #[test]
    fn the_built_in_trace_resembles_the_real_one() {
        let real = VideoTrace::read(REAL).unwrap();
        let ours = TraceModel::builtin_trace();
        assert_eq!(ours.len(), 3374 * 16);
        let rate = |t: &VideoTrace| t.mean_bytes_per_second() * 8e-6;
        assert!((rate(&ours) / rate(&real) - 1.0).abs() < 0.02, "{} vs {} Mbit/s", rate(&ours), rate(&real));
        for k in [FrameType::I, FrameType::P, FrameType::B] {
            let stats = |t: &VideoTrace| {
                let x: Vec<f64> = t.frames().iter().filter(|f| f.kind == k).map(|f| f.bytes as f64).collect();
                let m = mean(&x);
                (m, (x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / x.len() as f64).sqrt() / m)
            };
            let ((m0, c0), (m1, c1)) = (stats(&real), stats(&ours));
            assert!((m1 / m0 - 1.0).abs() < 0.03, "{k:?} mean {m1} vs {m0}");
            assert!((c1 / c0 - 1.0).abs() < 0.12, "{k:?} CoV {c1} vs {c0}");
        }
        let (g0, g1) = (gop_sizes(&real, 13), gop_sizes(&ours, 0));
        for (lag, tolerance) in [(1, 0.1), (5, 0.1), (10, 0.1), (50, 0.1), (100, 0.1)] {
            let (a0, a1) = (autocorrelation(&g0, lag), autocorrelation(&g1, lag));
            assert!((a1 - a0).abs() < tolerance, "GoP autocorrelation at lag {lag}: {a1} vs {a0}");
        }
        assert_eq!(ours.frames().iter().filter(|f| f.kind == FrameType::I).count(), 3374);
    }

    #[test]
    fn levels_interpolate_between_block_centres() {
        let levels = [0.0, 1.0, 3.0];
        assert_eq!(level_at(&levels, 4, 0), 0.0);
        assert_eq!(level_at(&levels, 4, 1), 0.0);
        assert!((level_at(&levels, 4, 2) - 0.125).abs() < 1e-12);
        assert!((level_at(&levels, 4, 6) - 1.25).abs() < 1e-12);
        assert_eq!(level_at(&levels, 4, 11), 3.0);
        assert_eq!(size_at(&[10, 20, 30], -100.0), 10);
        assert_eq!(size_at(&[10, 20, 30], 100.0), 30);
    }
}
