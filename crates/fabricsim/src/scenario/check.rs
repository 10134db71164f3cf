//! Physical ranges of the numeric keys and the helpers that turn a failed
//! check into an error naming the key, the value and what is allowed.
//!
//! Every numeric key has a [`Range`], declared beside its section's fields
//! and checked in the section's `validate` before any arithmetic uses the
//! value; [`super::ranges`] lists them all so the key reference shows the same
//! ranges the loader enforces. Quantities derived from several keys (frame
//! serialization at the given rate, a loop trip, the mean time between
//! messages) are checked against [`MAX_DELAY_PS`], so that every time the
//! models compute fits comfortably in u64 picoseconds.

use crate::error::{Error, Result};

/// Longest single delay a model may schedule (10^4 s of simulated time):
/// with `run.max_time_ms` at most 10^18 ps, event times stay far below
/// u64::MAX ps (about 1.8 * 10^19) even after many such delays.
pub const MAX_DELAY_PS: f64 = 1e16;

/// What a numeric key accepts: a closed interval (or, with `lo_open`, one
/// open at the bottom) of integers or numbers, or a list of such integers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub key: &'static str,
    pub lo: f64,
    pub hi: f64,
    pub lo_open: bool,
    pub kind: RangeKind,
    /// Unit words appended to the bounds ("ns", "bytes"), or "".
    pub unit: &'static str,
    /// Why the range is what it is, appended in parentheses, or "".
    pub note: &'static str,
    /// Words that replace the generated description (lists of tuples), or "".
    pub text: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    Integer,
    Number,
    /// A list of integers, each within the bounds.
    IntegerList,
}

impl Range {
    pub const fn int(key: &'static str, lo: u64, hi: u64) -> Range {
        Range {
            key,
            lo: lo as f64,
            hi: hi as f64,
            lo_open: false,
            kind: RangeKind::Integer,
            unit: "",
            note: "",
            text: "",
        }
    }

    pub const fn num(key: &'static str, lo: f64, hi: f64) -> Range {
        Range { key, lo, hi, lo_open: false, kind: RangeKind::Number, unit: "", note: "", text: "" }
    }

    pub const fn int_list(key: &'static str, lo: u64, hi: u64) -> Range {
        Range { kind: RangeKind::IntegerList, ..Range::int(key, lo, hi) }
    }

    /// The same range without its lower bound (0 < value).
    pub const fn above(self) -> Range {
        Range { lo_open: true, ..self }
    }

    pub const fn unit(self, unit: &'static str) -> Range {
        Range { unit, ..self }
    }

    pub const fn note(self, note: &'static str) -> Range {
        Range { note, ..self }
    }

    pub const fn text(self, text: &'static str) -> Range {
        Range { text, ..self }
    }

    /// What is allowed, in words: "an integer from 2 to 256", "0 < value <= 2".
    pub fn allowed(&self) -> String {
        let unit = if self.unit.is_empty() { String::new() } else { format!(" {}", self.unit) };
        let (lo, hi) = (fmt_num(self.lo), fmt_num(self.hi));
        let mut text = match (self.kind, self.lo_open) {
            _ if !self.text.is_empty() => self.text.to_string(),
            (RangeKind::Integer, _) if self.hi >= u64::MAX as f64 => format!("an integer from {lo} to 2^64 - 1{unit}"),
            (RangeKind::Integer, _) => format!("an integer from {lo} to {hi}{unit}"),
            (RangeKind::IntegerList, _) => format!("a list of integers from {lo} to {hi}{unit}"),
            (RangeKind::Number, false) => format!("a number from {lo} to {hi}{unit}"),
            (RangeKind::Number, true) => format!("{lo} < value <= {hi}{unit}"),
        };
        if !self.note.is_empty() {
            text.push_str(&format!(" ({})", self.note));
        }
        text
    }

    fn contains(&self, v: f64) -> bool {
        let above = if self.lo_open { v > self.lo } else { v >= self.lo };
        above && v <= self.hi && v.is_finite()
    }

    /// Checks a number under this range's key.
    pub fn check(&self, v: f64) -> Result<()> {
        self.check_at(self.key, v)
    }

    /// Checks a number under another name of the key (`disks[2].count`).
    pub fn check_at(&self, key: &str, v: f64) -> Result<()> {
        require(self.contains(v), key, fmt_num(v), &self.allowed())
    }

    /// Checks an integer (any width: compared exactly, never wrapped).
    pub fn check_int(&self, v: impl Into<u64>) -> Result<()> {
        self.check_int_at(self.key, v)
    }

    pub fn check_int_at(&self, key: &str, v: impl Into<u64>) -> Result<()> {
        let v: u64 = v.into();
        // Every bound is an integer below 2^53, where u64 -> f64 is exact;
        // anything larger is outside every range.
        let ok = v < (1 << 53) && self.contains(v as f64);
        require(ok, key, v, &self.allowed())
    }

    /// Checks every element of a list of integers.
    pub fn check_list(&self, values: &[u32]) -> Result<()> {
        match values.iter().find(|&&v| !self.contains(v as f64)) {
            None => Ok(()),
            Some(v) => Err(Error::invalid(self.key, format!("{values:?}"), self.allowed())
                .with_message(format!("element {v} out of range"))),
        }
    }
}

/// `disks[0].count` -> `disks.count`.
pub fn strip_indices(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut depth = 0;
    for c in key.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A number as a user would write it: `7`, `0.25`, `1e17`, `nan`.
pub fn fmt_num(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 9e15 {
        // Whole numbers as written, or as `1e12` where that is shorter.
        let (plain, short) = (format!("{v}"), format!("{v:e}"));
        if v.abs() < 1e6 || plain.len() <= short.len() {
            plain
        } else {
            short
        }
    } else if (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A duration in picoseconds as a user reads it: `2.5 ms`, `3e5 s`.
pub fn fmt_ps(ps: f64) -> String {
    let (v, unit) = if ps >= 1e12 {
        (ps / 1e12, "s")
    } else if ps >= 1e9 {
        (ps / 1e9, "ms")
    } else if ps >= 1e6 {
        (ps / 1e6, "us")
    } else if ps >= 1e3 {
        (ps / 1e3, "ns")
    } else {
        (ps, "ps")
    };
    let v = if v.is_finite() && v < 1e7 { (v * 1000.0).round() / 1000.0 } else { v };
    format!("{} {unit}", fmt_num(v))
}

/// A time derived from several keys (`what`, e.g. "a full data frame takes")
/// that must lie between 1 ps and [`MAX_DELAY_PS`]; the error names `key`,
/// the key most likely to blame, with its value.
pub fn require_duration(ps: f64, what: &str, key: &str, value: f64, fix: &str) -> Result<()> {
    if ps.is_finite() && (1.0..=MAX_DELAY_PS).contains(&ps) {
        return Ok(());
    }
    let took = if ps.is_finite() { fmt_ps(ps) } else { "forever".to_string() };
    Err(Error::invalid(key, fmt_num(value), format!("values with which {what} 1 ps to 10^4 s ({fix})"))
        .with_message(format!("{what} {took}")))
}

pub fn require(ok: bool, key: &str, value: impl ToString, allowed: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(key, value, allowed))
    }
}
