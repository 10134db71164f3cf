//! Golden fingerprints: every scenario in `tests/golden/*.toml` is run and its
//! event count, counters, every metric's mean, CI half-width and count, the
//! stop reason and the report sections are compared with the stored
//! `*.json` beside it. Any difference fails: a refactor must not change
//! behaviour. Integers (events, counters) must match exactly; floats to a
//! relative 1e-9, so that reordering a floating-point sum is not taken for a
//! change of behaviour (any real change moves the event count or a counter).
//!
//! Regenerate on purpose, and say why in the commit:
//! `FABRICSIM_BLESS=1 cargo test --profile quick -p fabricsim --test golden`

use std::path::{Path, PathBuf};

use fabricsim::{RunReport, Scenario};
use serde_json::{json, Map, Value};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

/// What a run is judged by: everything in the report but the scenario echo
/// and wall-clock figures.
fn fingerprint(r: &RunReport) -> Value {
    let mut metrics = Map::new();
    for (name, m) in &r.metrics {
        metrics.insert(name.clone(), json!({"mean": m.mean, "ci_half_width": m.ci_half_width, "count": m.count}));
    }
    let mut counters = Map::new();
    for (name, c) in &r.counters {
        counters.insert(name.clone(), json!(c));
    }
    let mut sections = Map::new();
    for (name, v) in &r.sections {
        sections.insert(name.clone(), v.clone());
    }
    json!({
        "events": r.run.events,
        "stop_reason": r.run.stop_reason,
        "flags": r.run.flags,
        "sim_time_us": r.run.sim_time_us,
        "warmup_time_us": r.run.warmup_time_us,
        "measured_time_us": r.run.measured_time_us,
        "counters": counters,
        "metrics": metrics,
        "sections": sections,
    })
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Lists every difference between `want` and `got` under `path`.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => diff(&format!("{path}.{k}"), va, vb, out),
                    None => out.push(format!("{path}.{k}: missing (was {va})")),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(format!("{path}.{k}: new ({})", b[k]));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => close(a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN)),
            };
            if !same {
                out.push(format!("{path}: {a} -> {b}"));
            }
        }
        _ if want == got => {}
        _ => out.push(format!("{path}: {want} -> {got}")),
    }
}

#[test]
fn golden_fingerprints_are_unchanged() {
    let bless = std::env::var_os("FABRICSIM_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "expected at least eight golden scenarios, found {}", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable scenario");
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let scenario = Scenario::from_toml_str(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        let report = fabricsim::run(&scenario).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = fingerprint(&report);
        let stored = file.with_extension("json");
        if bless {
            let text = serde_json::to_string_pretty(&got).expect("fingerprint serializes") + "\n";
            std::fs::write(&stored, text).expect("fingerprint written");
            continue;
        }
        let want: Value = match std::fs::read_to_string(&stored) {
            Ok(t) => serde_json::from_str(&t).expect("stored fingerprint is JSON"),
            Err(_) => {
                failures.push(format!("{name}: no stored fingerprint {}", stored.display()));
                continue;
            }
        };
        let mut diffs = Vec::new();
        diff("", &want, &got, &mut diffs);
        if !diffs.is_empty() {
            let shown: Vec<_> = diffs.iter().take(12).cloned().collect();
            failures.push(format!("{name}: {} differences\n    {}", diffs.len(), shown.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "golden fingerprints changed (regenerate only on purpose: FABRICSIM_BLESS=1 cargo test --profile quick -p fabricsim \
         --test golden):\n{}",
        failures.join("\n")
    );
}
