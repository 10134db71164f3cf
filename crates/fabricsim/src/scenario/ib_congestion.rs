//! InfiniBand congestion control settings (IBA Annex A10) as OpenSM
//! configures them, read from an opensm.conf text with OpenSM's own option
//! names and formats (`opensm/osm_subnet.c`), so an operator's file loads
//! unchanged (docs/infiniband-congestion-control.md, section 3). Stricter
//! than OpenSM where OpenSM would corrupt or drop a value silently: a
//! multiplier past 14 bits, a shift past 2, a CCT past 128 entries, a mask
//! past 256 bits are refused, naming the line, key, value and what is
//! allowed. Options that are not congestion control are kept by name as
//! not modelled, never dropped silently.

use crate::error::{Error, Result};

/// OpenSM's `OSM_CCT_ENTRY_MAX`: the entries its `cc_cct` takes.
pub const CCT_MAX_ENTRIES: usize = 128;
/// SLs with a CA congestion entry.
pub const SLS: usize = 16;

/// A congestion control table entry: the inter-packet delay is the
/// packet's transmission time times `multiplier / 2^shift`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CctEntry {
    /// 2 bits.
    pub shift: u8,
    /// 14 bits.
    pub multiplier: u16,
}

/// A 256-bit mask over switch ports: bit n is port n (OpenSM reads it as
/// one hexadecimal integer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortMask(pub [u64; 4]);

impl PortMask {
    pub fn has(&self, port: usize) -> bool {
        port < 256 && self.0[port / 64] >> (port % 64) & 1 == 1
    }
}

/// SwitchCongestionSetting, the same for every switch (OpenSM sends one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchSetting {
    /// Which fields apply: bit 0 victim mask, 1 credit mask, 2 threshold
    /// and packet size, 3 credit starvation, 4 marking rate.
    pub control_map: u32,
    pub victim_mask: PortMask,
    pub credit_mask: PortMask,
    /// 0 (never mark) to 15 (most aggressive).
    pub threshold: u8,
    /// In 64-byte credits: smaller packets are never marked.
    pub packet_size: u8,
    pub credit_starvation_threshold: u8,
    pub credit_starvation_return_delay: CctEntry,
    /// Mean eligible packets between two marked ones.
    pub marking_rate: u16,
}

/// One SL's CACongestionSetting entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaEntry {
    /// Period of the CCTI's decrease, in units of 1.024 us.
    pub ccti_timer: u16,
    pub ccti_increase: u8,
    pub trigger_threshold: u8,
    pub ccti_min: u8,
}

/// CACongestionSetting, the same for every HCA.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaSetting {
    /// Bit 0: 0 per queue pair, 1 per SL.
    pub port_control: u16,
    /// The SLs whose entry applies.
    pub control_map: u16,
    pub entries: [CaEntry; SLS],
}

/// What an opensm.conf text sets for congestion control. OpenSM's defaults
/// are zeros and an empty table: no marking, no throttling.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CongestionSettings {
    pub enabled: bool,
    pub switch: SwitchSetting,
    pub ca: CaSetting,
    /// `CCTI_Limit` is its last index.
    pub cct: Vec<CctEntry>,
    /// Options read that the model does not model (first line each), by name.
    pub not_modelled: Vec<String>,
}

impl CongestionSettings {
    /// Reads an opensm.conf text (`file` names it in errors). Lines are
    /// `key value`, `#` starts a comment; a later line overrides an earlier.
    pub fn from_opensm_conf(text: &str, file: &str) -> Result<Self> {
        CongestionSettings::default().with_opensm_conf(text, file)
    }

    /// These settings with an opensm.conf text's options over them.
    pub fn with_opensm_conf(self, text: &str, file: &str) -> Result<Self> {
        let mut s = self;
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            let mut parts = line.trim().splitn(2, [' ', '\t']);
            let Some(key) = parts.next().filter(|k| !k.is_empty()) else { continue };
            let value = parts.next().unwrap_or("").trim();
            let at = format!("{file}:{}", n + 1);
            s.set(key, value).map_err(|e| e.in_file(&at))?;
        }
        Ok(s)
    }

    /// One congestion control option of OpenSM's, given by name and value
    /// (a scenario's `options`); any other option name is refused.
    pub fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        if !(key == "congestion_control" || key.starts_with("cc_")) || key == "cc_key" {
            return Err(Error::invalid(
                key,
                value,
                "an OpenSM congestion control option: congestion_control, \
                 cc_sw_cong_setting_*, cc_ca_cong_setting_* or cc_cct",
            ));
        }
        let before = self.not_modelled.len();
        self.set(key, value)?;
        if self.not_modelled.len() > before {
            self.not_modelled.pop();
            return Err(Error::invalid(
                key,
                value,
                "an OpenSM congestion control option: congestion_control, \
                 cc_sw_cong_setting_*, cc_ca_cong_setting_* or cc_cct",
            ));
        }
        Ok(())
    }

    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let sw = &mut self.switch;
        match key {
            "congestion_control" => {
                self.enabled = match value {
                    "TRUE" => true,
                    "FALSE" => false,
                    _ => return Err(Error::invalid(key, value, "TRUE or FALSE (as OpenSM reads it)")),
                }
            }
            "cc_sw_cong_setting_control_map" => sw.control_map = number(key, value, u32::MAX as u64)? as u32,
            "cc_sw_cong_setting_victim_mask" => sw.victim_mask = mask(key, value)?,
            "cc_sw_cong_setting_credit_mask" => sw.credit_mask = mask(key, value)?,
            "cc_sw_cong_setting_threshold" => sw.threshold = number(key, value, 15)? as u8,
            "cc_sw_cong_setting_packet_size" => sw.packet_size = number(key, value, 255)? as u8,
            "cc_sw_cong_setting_credit_starvation_threshold" => {
                sw.credit_starvation_threshold = number(key, value, 15)? as u8
            }
            "cc_sw_cong_setting_credit_starvation_return_delay" => {
                sw.credit_starvation_return_delay = cct_entry(key, value)?
            }
            "cc_sw_cong_setting_marking_rate" => sw.marking_rate = number(key, value, u16::MAX as u64)? as u16,
            "cc_ca_cong_setting_port_control" => self.ca.port_control = number(key, value, 1)? as u16,
            "cc_ca_cong_setting_control_map" => self.ca.control_map = number(key, value, u16::MAX as u64)? as u16,
            "cc_ca_cong_setting_ccti_timer" => {
                let (sl, v) = per_sl(key, value, u16::MAX as u64)?;
                self.ca.entries[sl].ccti_timer = v as u16;
            }
            "cc_ca_cong_setting_ccti_increase" => {
                let (sl, v) = per_sl(key, value, 255)?;
                self.ca.entries[sl].ccti_increase = v as u8;
            }
            "cc_ca_cong_setting_trigger_threshold" => {
                let (sl, v) = per_sl(key, value, 255)?;
                self.ca.entries[sl].trigger_threshold = v as u8;
            }
            "cc_ca_cong_setting_ccti_min" => {
                let (sl, v) = per_sl(key, value, 255)?;
                self.ca.entries[sl].ccti_min = v as u8;
            }
            "cc_cct" => self.cct = cct(key, value)?,
            _ => {
                if !self.not_modelled.iter().any(|k| k == key) {
                    self.not_modelled.push(key.to_string());
                }
            }
        }
        Ok(())
    }

    /// The Mellanox Congestion Control Manager's documented defaults
    /// (MLNX_OFED user manual, "Congestion Control Manager", its switch and
    /// CA options tables): control on; switches threshold 0xf, marking rate
    /// 0xa, packet size 0x200 bytes (8 credits), no victim ports; HCAs per
    /// queue pair, every SL, CCTI increase 1, trigger threshold 2, CCTI min
    /// 0. The manager computes its table and CCTI timer from the node count
    /// by a formula it does not publish: those two are the model's declared
    /// choice ([`DEFAULT_CCTI_TIMER`], [`default_cct`]).
    pub fn mellanox_cc_manager() -> Self {
        let mut s = CongestionSettings { enabled: true, ..Default::default() };
        s.switch.control_map = 1 << 2 | 1 << 4;
        s.switch.threshold = 0xf;
        s.switch.marking_rate = 0xa;
        s.switch.packet_size = (0x200 / 64) as u8;
        s.ca.port_control = 0;
        s.ca.control_map = 0xffff;
        s.ca.entries =
            [CaEntry { ccti_timer: DEFAULT_CCTI_TIMER, ccti_increase: 1, trigger_threshold: 2, ccti_min: 0 }; SLS];
        s.cct = default_cct();
        s
    }

    /// `CCTI_Limit`: the table's last index (0 for an empty table, as OpenSM sends it).
    pub fn ccti_limit(&self) -> usize {
        self.cct.len().saturating_sub(1)
    }
}

/// The model's CCTI timer where the vendor's is computed by a formula it
/// does not publish: 100 x 1.024 us. Derived in
/// docs/infiniband-congestion-control.md, section 3: with one packet in 11
/// marked (the vendor's marking rate) a flow's CCTI settles where its BECNs
/// come once per period, which shares a congested link evenly only if the
/// period is at least (flows x 11) packet times; on the parking lot
/// (three flows) 20-60 leave the split as without control, 150 and more
/// leave the link idle part of the time.
pub const DEFAULT_CCTI_TIMER: u16 = 100;
/// Entries of the model's default table: OpenSM's most.
pub const DEFAULT_CCT_ENTRIES: usize = CCT_MAX_ENTRIES;

/// The model's default table: entry i a gap of i/4 packet times (shift 2,
/// multiplier i), so that each BECN slows a flow by a quarter packet time;
/// the last entry leaves a flow about 1/33 of its link.
pub fn default_cct() -> Vec<CctEntry> {
    (0..DEFAULT_CCT_ENTRIES).map(|i| CctEntry { shift: 2, multiplier: i as u16 }).collect()
}

/// A number as C's `strtoul(s, NULL, 0)` reads a whole field: `0x` hex,
/// a leading 0 octal, else decimal; at most `max`.
fn number(key: &str, value: &str, max: u64) -> Result<u64> {
    let (digits, radix) = if let Some(h) = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")) {
        (h, 16)
    } else if value.len() > 1 && value.starts_with('0') {
        (&value[1..], 8)
    } else {
        (value, 10)
    };
    let allowed = || format!("an integer from 0 to {max} (decimal, 0x hex or 0-prefixed octal)");
    match u64::from_str_radix(digits, radix) {
        Ok(v) if v <= max && !digits.starts_with(['+', '-']) => Ok(v),
        _ => Err(Error::invalid(key, value, allowed())),
    }
}

/// `shift:multiplier`, the CCT entry format.
fn cct_entry(key: &str, value: &str) -> Result<CctEntry> {
    let allowed = "shift:multiplier, shift 0-3 and multiplier 0-16383 (the entry's 2 and 14 bits)";
    let (s, m) = value.split_once(':').ok_or_else(|| Error::invalid(key, value, allowed))?;
    let shift = number(key, s.trim(), 3).map_err(|_| Error::invalid(key, value, allowed))?;
    let multiplier = number(key, m.trim(), 16383).map_err(|_| Error::invalid(key, value, allowed))?;
    Ok(CctEntry { shift: shift as u8, multiplier: multiplier as u16 })
}

/// `cc_cct`: comma-separated entries; `(null)` clears the table.
fn cct(key: &str, value: &str) -> Result<Vec<CctEntry>> {
    if value == "(null)" {
        return Ok(Vec::new());
    }
    let entries = value.split(',').map(|e| cct_entry(key, e.trim())).collect::<Result<Vec<_>>>()?;
    if entries.len() > CCT_MAX_ENTRIES {
        let n = entries.len();
        return Err(Error::invalid(
            key,
            format!("{n} entries"),
            format!("at most {CCT_MAX_ENTRIES} entries (OpenSM's limit)"),
        ));
    }
    Ok(entries)
}

/// A 256-bit port mask: one hexadecimal integer, `0x` optional.
fn mask(key: &str, value: &str) -> Result<PortMask> {
    let digits = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")).unwrap_or(value);
    if digits.is_empty() || digits.len() > 64 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::invalid(key, value, "a hexadecimal integer of at most 64 digits (bit n: port n)"));
    }
    let mut words = [0u64; 4];
    for (i, c) in digits.chars().rev().enumerate() {
        let nibble = c.to_digit(16).expect("checked hex digit") as u64;
        words[i / 16] |= nibble << (4 * (i % 16));
    }
    Ok(PortMask(words))
}

/// `SL value`: the SL (0-15) and the value, at most `max`.
fn per_sl(key: &str, value: &str, max: u64) -> Result<(usize, u64)> {
    let allowed = format!("an SL from 0 to 15 and a value from 0 to {max}, e.g. `0 {max}`");
    let mut parts = value.split_whitespace();
    let (Some(sl), Some(v), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(Error::invalid(key, value, allowed));
    };
    let sl = number(key, sl, (SLS - 1) as u64).map_err(|_| Error::invalid(key, value, allowed.clone()))?;
    let v = number(key, v, max).map_err(|_| Error::invalid(key, value, allowed))?;
    Ok((sl as usize, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section as OpenSM writes it in its config dump, with other options
    /// around it: every CC field read as OpenSM reads it, the others kept
    /// by name.
    #[test]
    fn an_opensm_conf_section_loads_unchanged() {
        let text = "\
# Congestion Control OPTIONS (EXPERIMENTAL)
routing_engine minhop
congestion_control TRUE
cc_key 0x0000000000000000
cc_sw_cong_setting_control_map 0x1F
cc_sw_cong_setting_victim_mask 0x0000000000000000000000000000000000000000000000000000001ffffffffe
cc_sw_cong_setting_credit_mask 0x0
cc_sw_cong_setting_threshold 0x0F   # aggressive
cc_sw_cong_setting_packet_size 8
cc_sw_cong_setting_credit_starvation_threshold 0x00
cc_sw_cong_setting_credit_starvation_return_delay 0:0
cc_sw_cong_setting_marking_rate 10
cc_ca_cong_setting_port_control 0x0001
cc_ca_cong_setting_control_map 0xFFFF
cc_ca_cong_setting_ccti_timer 0 150
cc_ca_cong_setting_ccti_increase 0 1
cc_ca_cong_setting_trigger_threshold 0 2
cc_ca_cong_setting_ccti_min 0 0
cc_ca_cong_setting_ccti_timer\t3\t010
cc_cct 0:0,0:1,0:2,1:5,3:16383
routing_engine updn
";
        let s = CongestionSettings::from_opensm_conf(text, "opensm.conf").expect("loads");
        assert!(s.enabled);
        assert_eq!(s.switch.control_map, 0x1f);
        assert!(!s.switch.victim_mask.has(0) && (1..=36).all(|p| s.switch.victim_mask.has(p)));
        assert!(!s.switch.victim_mask.has(37) && !s.switch.victim_mask.has(255));
        assert_eq!((s.switch.threshold, s.switch.packet_size, s.switch.marking_rate), (15, 8, 10));
        assert_eq!((s.ca.port_control, s.ca.control_map), (1, 0xffff));
        assert_eq!(s.ca.entries[0], CaEntry { ccti_timer: 150, ccti_increase: 1, trigger_threshold: 2, ccti_min: 0 });
        assert_eq!(s.ca.entries[3].ccti_timer, 8, "010 is octal, as strtoul reads it");
        assert_eq!(s.cct.len(), 5);
        assert_eq!(s.cct[4], CctEntry { shift: 3, multiplier: 16383 });
        assert_eq!(s.ccti_limit(), 4);
        assert_eq!(s.not_modelled, vec!["routing_engine", "cc_key"]);
    }

    /// OpenSM's defaults: nothing set, an empty table, no marking.
    #[test]
    fn an_empty_file_is_opensms_defaults() {
        let s = CongestionSettings::from_opensm_conf("# nothing\n\n", "f").unwrap();
        assert_eq!(s, CongestionSettings::default());
        assert_eq!(s.ccti_limit(), 0);
        let cleared = CongestionSettings::from_opensm_conf("cc_cct 0:1,0:2\ncc_cct (null)\n", "f").unwrap();
        assert!(cleared.cct.is_empty());
    }

    /// The vendor's defaults, and a file's options over them.
    #[test]
    fn the_vendor_defaults_and_a_file_over_them() {
        let m = CongestionSettings::mellanox_cc_manager();
        assert!(m.enabled);
        assert_eq!((m.switch.threshold, m.switch.marking_rate, m.switch.packet_size), (15, 10, 8));
        assert_eq!((m.switch.control_map, m.ca.port_control, m.ca.control_map), (0x14, 0, 0xffff));
        assert!(m.ca.entries.iter().all(|e| (e.ccti_increase, e.trigger_threshold, e.ccti_min) == (1, 2, 0)));
        assert_eq!((m.ccti_limit(), m.cct[4]), (127, CctEntry { shift: 2, multiplier: 4 }));
        let over = m.clone().with_opensm_conf("cc_sw_cong_setting_threshold 8\n", "f").unwrap();
        assert_eq!(over.switch.threshold, 8);
        assert_eq!(CongestionSettings { switch: m.switch, ..over.clone() }, m);
    }

    /// What OpenSM would corrupt or drop silently is refused, naming the
    /// file and line, the key, the value and what is allowed.
    #[test]
    fn bad_values_name_line_key_value_and_what_is_allowed() {
        let long_cct = vec!["0:1"; 129].join(",");
        let cases: Vec<(String, &str, &str)> = vec![
            ("congestion_control yes".into(), "congestion_control", "TRUE or FALSE"),
            ("cc_sw_cong_setting_threshold 16".into(), "cc_sw_cong_setting_threshold", "0 to 15"),
            ("cc_sw_cong_setting_marking_rate -1".into(), "cc_sw_cong_setting_marking_rate", "0 to 65535"),
            ("cc_sw_cong_setting_victim_mask 0xg1".into(), "cc_sw_cong_setting_victim_mask", "hexadecimal"),
            (
                format!("cc_sw_cong_setting_victim_mask 0x{}", "f".repeat(65)),
                "cc_sw_cong_setting_victim_mask",
                "64 digits",
            ),
            ("cc_cct 0:1,4:1".into(), "cc_cct", "shift 0-3"),
            ("cc_cct 0:16384".into(), "cc_cct", "multiplier 0-16383"),
            (format!("cc_cct {long_cct}"), "cc_cct", "at most 128"),
            ("cc_ca_cong_setting_ccti_timer 16 10".into(), "cc_ca_cong_setting_ccti_timer", "SL from 0 to 15"),
            ("cc_ca_cong_setting_ccti_increase 0".into(), "cc_ca_cong_setting_ccti_increase", "SL from 0 to 15"),
            ("cc_ca_cong_setting_ccti_min 0 256".into(), "cc_ca_cong_setting_ccti_min", "0 to 255"),
            ("cc_ca_cong_setting_port_control 2".into(), "cc_ca_cong_setting_port_control", "0 to 1"),
        ];
        for (line, key, allowed) in cases {
            let text = format!("# header\n{line}\n");
            let e = CongestionSettings::from_opensm_conf(&text, "site/opensm.conf").expect_err(&line);
            assert_eq!(e.file.as_deref(), Some("site/opensm.conf:2"), "{line}");
            assert_eq!(e.key.as_deref(), Some(key), "{line}");
            assert!(e.allowed.as_deref().unwrap_or("").contains(allowed), "{line}: {e}");
            assert!(e.value.is_some(), "{line}");
        }
    }
}
