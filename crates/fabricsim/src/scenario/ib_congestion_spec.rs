//! `[ib.congestion_control]`: IBA Annex A10 congestion control, configured
//! by an opensm.conf as OpenSM would configure every switch and HCA
//! (`ib_congestion.rs` reads it). What the model cannot do (credit
//! starvation) is refused, naming the option, never ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// would; its other options are listed in the report as not modelled.
    /// The switches mark packets with FECN; where
    /// `cc_ca_cong_setting_control_map` names SLs, the HCAs answer each
    /// marked packet with a BECN and their flows on those SLs slow down by
    /// the congestion control table (`cc_cct`). Credit starvation is not
    /// modelled: a file that enables it is refused.
    pub opensm_conf: String,
    /// What a switch output VL's queue is, against `Threshold`:
    /// `output_buffer_and_heads` (default: its output buffer and the input
    /// heads waiting for it) or `output_buffer` (the buffer alone; this
    /// switch's crossbar runs at link rate, so it rarely holds more than a
    /// packet). See docs/infiniband-congestion-control.md, section 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<CongestionQueue>,
}

/// What a switch output VL's queue is, against the `Threshold`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionQueue {
    /// Its output buffer and the input VL heads waiting for it.
    OutputBufferAndHeads,
    /// Its output buffer alone.
    OutputBuffer,
}

const KEY: &str = "ib.congestion_control.opensm_conf";

impl IbCongestionSpec {
    /// The settings the file gives, checked against what the model does.
    pub fn settings(&self) -> Result<CongestionSettings> {
        let text = read_found(&self.opensm_conf, KEY, "opensm.conf")?;
        let s = CongestionSettings::from_opensm_conf(&text, &self.opensm_conf)?;
        if !s.enabled {
            return Ok(s);
        }
        let refuse = |option: &str, value: String, allowed: &str| {
            Err(Error::invalid(option, value, allowed).in_file(&self.opensm_conf))
        };
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
