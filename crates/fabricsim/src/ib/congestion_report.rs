//! The report's `congestion_control` section: the settings applied, the
//! opensm.conf options not modelled, and what the switches and HCAs
//! counted (per SL, packets marked with FECN and received marked; per VL,
//! the time its output buffers were congested; PortXmitWait), with the
//! spells still open at the end of the run counted up to it.

use serde_json::{json, Value};

use super::fabric::IbFabric;
use crate::kernel::{time, Time};
use crate::scenario::ib_congestion::CongestionSettings;

impl IbFabric {
    pub(super) fn congestion_section(&self, s: &CongestionSettings, stop: Time) -> Value {
        let c = &self.sh.metrics.counters.congestion;
        let (mut wait, mut congested) = (0, [0; 16]);
        for sw in &self.switches {
            let (w, vls) = sw.congestion_times(stop);
            wait += w;
            congested.iter_mut().zip(vls).for_each(|(t, v)| *t += v);
        }
        let marking = self.sh.switch.marking.as_ref().map(|m| {
            json!({
                "threshold": m.threshold,
                "marking_rate": m.rate,
                "packet_size_credits": m.min_credits,
                "victim_ports": (1..=255).filter(|&p| m.victim_mask.has(p)).collect::<Vec<_>>(),
            })
        });
        let per_sl = |counts: &[u64; 16]| -> Vec<Value> {
            (0..16).filter(|&sl| counts[sl] > 0).map(|sl| json!({"sl": sl, "packets": counts[sl]})).collect()
        };
        // By the scenario's VL numbers, as the per-VL section reports them.
        let per_vl: Vec<Value> = (0..16u8)
            .filter(|&v| congested[v as usize] > 0)
            .map(|v| json!({"vl": self.vl_numbers.outer(v), "congested_us": time::to_us(congested[v as usize])}))
            .collect();
        let reaction = self.sh.throttling.as_deref().map(|t| {
            json!({
                "per": if t.per_sl { "sl" } else { "flow" },
                "sls": (0..16).filter(|&sl| t.controls(sl)).collect::<Vec<_>>(),
                "ccti_limit": t.limit(),
                "cnps_sent_by_sl": per_sl(&c.cnps_sent),
                "becn_received_by_sl": per_sl(&c.becn_received),
                "ccti_triggers": c.triggers,
                "data_packets_sent_by_hca": self.hcas.iter().enumerate()
                    .filter_map(|(i, h)| h.data_packets_sent().filter(|&n| n > 0).map(|n| json!([i, n])))
                    .collect::<Vec<_>>(),
                "packets_received_by_hca": self.hcas.iter().enumerate()
                    .filter_map(|(i, h)| h.packets_received().filter(|&n| n > 0).map(|n| json!([i, n])))
                    .collect::<Vec<_>>(),
                "series": (t.series_bin > 0).then(|| self.flow_series(t.series_bin)),
            })
        });
        json!({
            "enabled": s.enabled,
            "switch_marking": marking,
            "hca_reaction": reaction,
            "fecn_marked_by_sl": per_sl(&c.fecn_marked),
            "fecn_received_by_sl": per_sl(&c.fecn_received),
            "vl_congested": per_vl,
            "port_xmit_wait_us": time::to_us(wait),
            "not_modelled": s.not_modelled,
        })
    }

    /// Every HCA's flows' series, as columns and rows: the source HCA, the
    /// destination (-1: every destination, a per-SL flow), the SL, the
    /// interval's start (us), packets started, their share of the link's
    /// time, the mean CCTI that set their gaps, the highest CCTI seen and
    /// BECNs received.
    fn flow_series(&self, bin: Time) -> Value {
        let mut rows = Vec::new();
        for (i, h) in self.hcas.iter().enumerate() {
            for r in h.series_rows().unwrap_or_default() {
                let dst = if r.dst == u32::MAX { -1 } else { r.dst as i64 };
                let mean = if r.packets > 0 { r.ccti_sum as f64 / r.packets as f64 } else { f64::NAN };
                rows.push(json!([
                    i,
                    dst,
                    r.sl,
                    time::to_us(r.bin * bin),
                    r.packets,
                    r.wire as f64 / bin as f64,
                    if mean.is_finite() { json!(mean) } else { Value::Null },
                    r.ccti_max,
                    r.becns
                ]));
            }
        }
        json!({
            "interval_us": time::to_us(bin),
            "columns": ["hca", "dst", "sl", "t_us", "packets", "link_share", "mean_ccti", "max_ccti", "becns"],
            "rows": rows,
        })
    }
}
