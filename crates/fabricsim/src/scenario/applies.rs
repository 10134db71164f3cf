//! Keys that mean something in one mode of their model only: given in
//! another mode they would be silently ignored, so they are refused, naming
//! the mode that makes them moot. Whether a key was given is read from the
//! scenario as written (defaults filled in cannot tell).

use std::collections::HashMap;

use super::hosts::NetperfTest;
use super::loops::IoMode;
use super::switched_loops::SwitchedLoad;
use super::{ModelSpec, Scenario};
use crate::error::{Error, Result};

/// A key and, for a scenario, the mode in which it does nothing (None: it applies).
type Rule = (&'static str, fn(&ModelSpec) -> Option<&'static str>);

const RULES: &[Rule] = &[
    ("netperf.request_bytes", netperf_stream),
    ("netperf.response_bytes", netperf_stream),
    ("netperf.receive_bytes", netperf_rr),
    ("switched_loop.light_scope", switched_heavy),
    ("switched_loop.outstanding_per_disk", switched_light),
    ("initiator.outstanding", initiator_light),
];

fn netperf_stream(m: &ModelSpec) -> Option<&'static str> {
    match m {
        ModelSpec::TcpNetperf(s) if s.netperf.test == NetperfTest::TcpStream => {
            Some("netperf.test = \"TCP_STREAM\" (request and response sizes are TCP_RR's)")
        }
        _ => None,
    }
}

fn netperf_rr(m: &ModelSpec) -> Option<&'static str> {
    match m {
        ModelSpec::TcpNetperf(s) if s.netperf.test == NetperfTest::TcpRr => {
            Some("netperf.test = \"TCP_RR\" (the receive size is TCP_STREAM's; TCP_RR receives whole requests)")
        }
        _ => None,
    }
}

fn switched_heavy(m: &ModelSpec) -> Option<&'static str> {
    match m {
        ModelSpec::SwitchedLoop(s) if s.switched.load == SwitchedLoad::Heavy => {
            Some("switched_loop.load = \"heavy\" (the light-load scope means nothing there)")
        }
        _ => None,
    }
}

fn switched_light(m: &ModelSpec) -> Option<&'static str> {
    match m {
        ModelSpec::SwitchedLoop(s) if s.switched.load == SwitchedLoad::Light => Some(
            "switched_loop.load = \"light\" (one command per host or system; outstanding_per_disk is heavy load's)",
        ),
        _ => None,
    }
}

fn initiator_light(m: &ModelSpec) -> Option<&'static str> {
    match m {
        ModelSpec::ArbitratedLoop(s) if s.initiator.mode == IoMode::Light => {
            Some("initiator.mode = \"light\" (one I/O in the whole system; outstanding is closed mode's)")
        }
        _ => None,
    }
}

/// Refuses a key of `given` that does nothing in the scenario's mode.
pub fn check(scenario: &Scenario, given: &HashMap<String, String>) -> Result<()> {
    for (key, moot) in RULES {
        let Some(value) = given.get(*key) else {
            continue;
        };
        if let Some(mode) = moot(&scenario.model) {
            return Err(Error::invalid(key, value, format!("only where it applies; not with {mode}"))
                .with_message("does nothing in this mode"));
        }
    }
    Ok(())
}

/// Removes from `value` (the scenario with every default filled in) the
/// keys that do nothing in its mode.
pub fn prune(scenario: &Scenario, value: &mut serde_json::Value) {
    for (key, moot) in RULES {
        if moot(&scenario.model).is_none() {
            continue;
        }
        let (table, name) = key.split_once('.').expect("rules name section.key");
        if let Some(t) = value.get_mut(table).and_then(serde_json::Value::as_object_mut) {
            t.remove(name);
        }
    }
}

/// The dotted keys of a scenario as written (tables and list elements walked;
/// indices left out), each with its value as written, for error messages.
pub fn given_keys(value: &serde_json::Value) -> HashMap<String, String> {
    fn walk(v: &serde_json::Value, path: &str, out: &mut HashMap<String, String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let key = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    out.insert(key.clone(), v.to_string());
                    walk(v, &key, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, path, out)),
            _ => {}
        }
    }
    let mut out = HashMap::new();
    walk(value, "", &mut out);
    out
}
