//! `[ib.congestion_control]`: IBA Annex A10 congestion control, configured
//! by an opensm.conf as OpenSM would configure every switch and HCA
//! (`ib_congestion.rs` reads it). What the model cannot do (credit
//! starvation) is refused, naming the option, never ignored.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::Range;
use super::ib_congestion::CongestionSettings;
use crate::error::{Error, Result};
use crate::fabric::import::read_found;
use crate::ib::congestion::{CREDIT_MASK_VALID, CREDIT_STARVATION_VALID};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IbCongestionSpec {
    /// An opensm.conf (an absolute path, or a relative one found from the
    /// working directory or a directory above it) whose congestion control
    /// options (`congestion_control`, `cc_sw_cong_setting_*`,
    /// `cc_ca_cong_setting_*`, `cc_cct`) set every switch and HCA as OpenSM
    /// would, over `defaults`; its other options are listed in the report
    /// as not modelled. The switches mark packets with FECN; where
    /// `cc_ca_cong_setting_control_map` names SLs, the HCAs answer each
    /// marked packet with a BECN and their flows on those SLs slow down by
    /// the congestion control table (`cc_cct`). Credit starvation is not
    /// modelled: a file that enables it is refused. Without a file, the
    /// `defaults` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opensm_conf: Option<String>,
    /// What the options a file leaves out are: `opensm` (OpenSM's own:
    /// control off, zeros and an empty table; the default with a file) or
    /// `mellanox` (the Mellanox Congestion Control Manager's documented
    /// defaults, with the model's declared table and CCTI timer; the
    /// default without a file). See docs/infiniband-congestion-control.md,
    /// section 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<CongestionDefaults>,
    /// OpenSM congestion control options by name, over the file and the
    /// defaults, so that a scenario or a sweep can set them without a file:
    /// `options = { cc_sw_cong_setting_threshold = 8, cc_ca_cong_setting_ccti_timer = ["8 20"] }`.
    /// A value is a number, a string as the file would hold it, or for the
    /// options given per SL a list of "SL value" strings.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, CongestionOption>,
    /// Bytes an output VL's queue must fall below its threshold before it
    /// is no longer congested (default 0: none). The IBA leaves a switch's
    /// congestion detection to its designer; a hysteresis of more than one
    /// MTU is what Gran et al. (CCGrid 2011) found arbitration fairness to need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis_bytes: Option<u32>,
    /// Record each reacting flow's CCTI and what it sent per interval of
    /// this many microseconds (the report's
    /// `congestion_control.hca_reaction.series`); off when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_us: Option<f64>,
    /// What a switch output VL's queue is, against `Threshold`:
    /// `output_buffer_and_heads` (default: its output buffer and the input
    /// heads waiting for it), `waiting` (the same less the packet chosen to
    /// leave: what waits behind it) or `output_buffer` (the buffer alone;
    /// this switch's crossbar runs at link rate, so it rarely holds more
    /// than a packet). See docs/infiniband-congestion-control.md, section 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<CongestionQueue>,
    /// When a congested switch port is the root of its congestion (and
    /// marks) rather than a victim (and marks only with its `Victim_Mask`
    /// bit): `credit_left` (default: credit is left downstream for another
    /// packet of the one's size as it is chosen to go) or `no_credit_wait`
    /// (the port did not wait for credit since its last packet). See
    /// docs/infiniband-congestion-control.md, section 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<CongestionRoot>,
}

/// An option's value in `options`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(untagged, expecting = "a number, a string as opensm.conf holds the option, or a list of \"SL value\" strings")]
pub enum CongestionOption {
    Number(u64),
    Text(String),
    /// One line each, for the options given per SL.
    Lines(Vec<String>),
}

/// Where the settings a file leaves out come from.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionDefaults {
    /// OpenSM's: control off, zeros, an empty table.
    Opensm,
    /// The Mellanox Congestion Control Manager's documented defaults.
    Mellanox,
}

/// What a switch output VL's queue is, against the `Threshold`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionQueue {
    /// Its output buffer and the input VL heads waiting for it.
    OutputBufferAndHeads,
    /// Its output buffer alone.
    OutputBuffer,
    /// Its output buffer and the input VL heads waiting for it, less the
    /// packet chosen to leave: what waits behind it.
    Waiting,
}

/// When a congested switch port is a root of congestion rather than a victim.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionRoot {
    /// Credit left downstream for another packet of the chosen one's size.
    CreditLeft,
    /// No wait for credit since the port's last packet.
    NoCreditWait,
}

const KEY: &str = "ib.congestion_control.opensm_conf";
pub const HYSTERESIS: Range = Range::int("ib.congestion_control.hysteresis_bytes", 0, 1 << 20).unit("bytes");
pub const SERIES: Range = Range::num("ib.congestion_control.series_us", 0.0, 1.0e9).above().unit("us");

impl IbCongestionSpec {
    /// The settings the file gives, checked against what the model does.
    pub fn settings(&self) -> Result<CongestionSettings> {
        let defaults = self.defaults.unwrap_or(match self.opensm_conf {
            Some(_) => CongestionDefaults::Opensm,
            None => CongestionDefaults::Mellanox,
        });
        let base = match defaults {
            CongestionDefaults::Opensm => CongestionSettings::default(),
            CongestionDefaults::Mellanox => CongestionSettings::mellanox_cc_manager(),
        };
        if let Some(us) = self.series_us {
            SERIES.check(us)?;
        }
        if let Some(b) = self.hysteresis_bytes {
            HYSTERESIS.check_int(b)?;
        }
        let Some(file) = &self.opensm_conf else {
            if defaults == CongestionDefaults::Opensm && self.options.is_empty() {
                return Err(Error::invalid(
                    "ib.congestion_control.defaults",
                    "\"opensm\"",
                    "\"mellanox\", or an opensm_conf or options to set OpenSM's options (its defaults alone turn \
                     nothing on)",
                ));
            }
            return self.checked(self.with_options(base)?, "ib.congestion_control.options");
        };
        let text = read_found(file, KEY, "opensm.conf")?;
        let s = self.with_options(base.with_opensm_conf(&text, file)?)?;
        self.checked(s, file)
    }

    /// `s` with the scenario's `options` over it; an error names the option's key.
    fn with_options(&self, mut s: CongestionSettings) -> Result<CongestionSettings> {
        for (name, value) in &self.options {
            let lines = match value {
                CongestionOption::Number(n) => vec![n.to_string()],
                CongestionOption::Text(t) => vec![t.clone()],
                CongestionOption::Lines(l) => l.clone(),
            };
            for line in lines {
                s.set_option(name, line.trim()).map_err(|e| {
                    Error::invalid(
                        &format!("ib.congestion_control.options.{name}"),
                        &line,
                        e.allowed.clone().unwrap_or_default(),
                    )
                })?;
            }
        }
        Ok(s)
    }

    /// `s`, refused where it asks for what the model does not do (`file`: where it was set).
    fn checked(&self, s: CongestionSettings, file: &str) -> Result<CongestionSettings> {
        if !s.enabled {
            return Ok(s);
        }
        let refuse =
            |option: &str, value: String, allowed: &str| Err(Error::invalid(option, value, allowed).in_file(file));
        let sw = &s.switch;
        if sw.control_map & CREDIT_MASK_VALID != 0 && sw.credit_mask.0.iter().any(|&w| w != 0) {
            return refuse(
                "cc_sw_cong_setting_credit_mask",
                "a port set".into(),
                "no port (or cc_sw_cong_setting_control_map bit 1 clear): credit starvation is not modelled \
                 (docs/infiniband-congestion-control.md, section 2)",
            );
        }
        if sw.control_map & CREDIT_STARVATION_VALID != 0 && sw.credit_starvation_threshold != 0 {
            return refuse(
                "cc_sw_cong_setting_credit_starvation_threshold",
                sw.credit_starvation_threshold.to_string(),
                "0 (or cc_sw_cong_setting_control_map bit 3 clear): credit starvation is not modelled",
            );
        }
        Ok(s)
    }
}
