//! Range and consistency checks that serde's types cannot express.

use super::error::{Error, Result};
use super::schema::{MessageSizes, Pattern, Scenario};

fn require(ok: bool, key: &str, value: impl ToString, allowed: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(key, value, allowed))
    }
}

impl Scenario {
    /// Checks every value against what the models can honour.
    pub fn validate(&self) -> Result<()> {
        self.validate_loop()?;
        let r = &self.run;
        require(r.max_frames >= 1, "run.max_frames", r.max_frames, "an integer >= 1")?;
        if let Some(min) = r.min_frames {
            require(min <= r.max_frames, "run.min_frames", min, "an integer <= run.max_frames")?;
        }
        require(
            r.precision >= 0.0 && r.precision < 1.0,
            "run.precision",
            r.precision,
            "0 (run to max_frames) or a relative half-width in (0, 1)",
        )?;
        require((2..=1024).contains(&r.batches), "run.batches", r.batches, "an integer from 2 to 1024")?;
        require(
            r.max_time_ms > 0.0 && r.max_time_ms.is_finite(),
            "run.max_time_ms",
            r.max_time_ms,
            "a positive number of milliseconds",
        )?;

        let s = &self.switch;
        require((2..=256).contains(&s.ports), "switch.ports", s.ports, "an integer from 2 to 256")?;
        require(
            (1..=1024).contains(&s.buffers_per_port),
            "switch.buffers_per_port",
            s.buffers_per_port,
            "an integer from 1 to 1024",
        )?;
        require(
            s.routing_time_ns >= 0.0 && s.routing_time_ns.is_finite(),
            "switch.routing_time_ns",
            s.routing_time_ns,
            "a non-negative number of nanoseconds",
        )?;

        let l = &self.link;
        require(
            l.bandwidth_mb_s > 0.0 && l.bandwidth_mb_s.is_finite(),
            "link.bandwidth_mb_s",
            l.bandwidth_mb_s,
            "a positive rate in MB/s",
        )?;
        require(
            l.propagation_ns >= 0.0 && l.propagation_ns.is_finite(),
            "link.propagation_ns",
            l.propagation_ns,
            "a non-negative number of nanoseconds",
        )?;

        let p = &self.protocol;
        require((1..=3).contains(&p.class), "protocol.class", p.class, "1, 2 or 3")?;
        require(
            p.class1_retry_us >= 0.0 && p.class1_retry_us.is_finite(),
            "protocol.class1_retry_us",
            p.class1_retry_us,
            "a non-negative number of microseconds",
        )?;
        require(
            (1..=65535).contains(&p.end_to_end_credit),
            "protocol.end_to_end_credit",
            p.end_to_end_credit,
            "an integer from 1 to 65535",
        )?;
        require(p.frame_header_bytes >= 1, "protocol.frame_header_bytes", p.frame_header_bytes, "an integer >= 1")?;
        require(p.frame_payload_bytes >= 1, "protocol.frame_payload_bytes", p.frame_payload_bytes, "an integer >= 1")?;

        let w = &self.workload;
        require(
            w.offered_load > 0.0 && w.offered_load <= 2.0,
            "workload.offered_load",
            w.offered_load,
            "0 < value <= 2 (fraction of port bandwidth)",
        )?;
        if w.pattern != Pattern::ToSwitch {
            if let Some(d) = w.destination_switch {
                return Err(Error::invalid(
                    "workload.destination_switch",
                    d,
                    "only with workload.pattern = \"to_switch\"",
                ));
            }
            if let Some(s) = &w.source_switches {
                return Err(Error::invalid(
                    "workload.source_switches",
                    format!("{s:?}"),
                    "only with workload.pattern = \"to_switch\"",
                ));
            }
        }
        match w.pattern {
            Pattern::ToSwitch => {
                if w.destination_switch.is_none() {
                    return Err(Error::invalid(
                        "workload.destination_switch",
                        "missing",
                        "a switch number with pattern = \"to_switch\"",
                    ));
                }
                if let Some(pair) = w.pair {
                    return Err(Error::invalid(
                        "workload.pair",
                        format!("{pair:?}"),
                        "only with workload.pattern = \"pair\"",
                    ));
                }
            }
            Pattern::Uniform => {
                if let Some(pair) = w.pair {
                    return Err(Error::invalid(
                        "workload.pair",
                        format!("{pair:?}"),
                        "only with workload.pattern = \"pair\"",
                    ));
                }
            }
            Pattern::Pair => {
                let pair = w.pair.ok_or_else(|| {
                    Error::invalid(
                        "workload.pair",
                        "missing",
                        "[source, destination] node numbers with pattern = \"pair\"",
                    )
                })?;
                let n = self.node_count();
                let ok = pair[0] < n && pair[1] < n && pair[0] != pair[1];
                require(ok, "workload.pair", format!("{pair:?}"), &format!("two different node numbers below {n}"))?;
            }
        }
        match w.sizes {
            MessageSizes::Fixed { frames } => {
                require(
                    (1..=1_000_000).contains(&frames),
                    "workload.sizes.frames",
                    frames,
                    "an integer from 1 to 1000000",
                )?;
            }
            MessageSizes::Bimodal { long_fraction, short_min_frames, short_max_frames, long_frames } => {
                require(
                    (0.0..=1.0).contains(&long_fraction),
                    "workload.sizes.long_fraction",
                    long_fraction,
                    "a fraction from 0 to 1",
                )?;
                require(short_min_frames >= 1, "workload.sizes.short_min_frames", short_min_frames, "an integer >= 1")?;
                require(
                    short_max_frames >= short_min_frames,
                    "workload.sizes.short_max_frames",
                    short_max_frames,
                    "an integer >= workload.sizes.short_min_frames",
                )?;
                require(
                    (1..=1_000_000).contains(&long_frames),
                    "workload.sizes.long_frames",
                    long_frames,
                    "an integer from 1 to 1000000",
                )?;
            }
        }
        if self.fabric.kind != super::schema::FabricKind::Loop {
            self.validate_fabric()?;
        }
        Ok(())
    }

    /// Number of terminal nodes the switched fabric connects.
    pub fn node_count(&self) -> u32 {
        crate::fabric::Topology::from_spec(&self.fabric, self.switch.ports)
            .map(|t| t.node_count())
            .unwrap_or(self.switch.ports)
    }

    /// The fabric's shape and routing must be buildable.
    fn validate_fabric(&self) -> Result<()> {
        let topo = crate::fabric::Topology::from_spec(&self.fabric, self.switch.ports)?;
        crate::fabric::ForwardingTables::build(&topo, self.fabric.kind, &self.routing)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::Scenario;

    #[test]
    fn out_of_range_load_names_key_value_and_allowed() {
        let e = Scenario::from_toml_str("[workload]\noffered_load = 7.0\n", "s.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.offered_load"));
        assert_eq!(e.value.as_deref(), Some("7"));
        assert!(e.allowed.as_deref().unwrap().contains("<= 2"));
        assert_eq!(e.file.as_deref(), Some("s.toml"));
    }

    #[test]
    fn pair_must_name_two_nodes() {
        let e = Scenario::from_toml_str("[workload]\npattern = \"pair\"\npair = [3, 3]\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.pair"));
        let e = Scenario::from_toml_str("[workload]\npattern = \"pair\"\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.pair"));
        assert!(Scenario::from_toml_str("[workload]\npattern = \"pair\"\npair = [0, 1]\n", "s").is_ok());
    }

    #[test]
    fn min_frames_defaults_below_a_small_max_frames() {
        let s = Scenario::from_toml_str("[run]\nmax_frames = 1000\n", "s").unwrap();
        assert_eq!(s.run.effective_min_frames(), 1000);
        assert_eq!(Scenario::default().run.effective_min_frames(), 50_000);
        let e = Scenario::from_toml_str("[run]\nmax_frames = 1000\nmin_frames = 2000\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("run.min_frames"));
    }

    #[test]
    fn class_must_be_one_two_or_three() {
        let e = Scenario::from_toml_str("[protocol]\nclass = 4\n", "s").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("protocol.class"));
        assert_eq!(e.allowed.as_deref(), Some("1, 2 or 3"));
    }
}
