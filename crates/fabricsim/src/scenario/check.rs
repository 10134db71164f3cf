//! Small helpers that turn a failed range check into an error naming the key,
//! the value and what is allowed.

use crate::error::{Error, Result};

pub fn require(ok: bool, key: &str, value: impl ToString, allowed: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(key, value, allowed))
    }
}

pub fn require_finite_positive(v: f64, key: &str, allowed: &str) -> Result<()> {
    require(v > 0.0 && v.is_finite(), key, v, allowed)
}

pub fn require_finite_nonneg(v: f64, key: &str, allowed: &str) -> Result<()> {
    require(v >= 0.0 && v.is_finite(), key, v, allowed)
}
