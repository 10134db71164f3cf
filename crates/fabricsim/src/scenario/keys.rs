//! The key reference (key, default, unit, allowed values, meaning),
//! generated from the schema itself: the doc comments of the section
//! structs, their serde defaults and their enum choices, so it cannot drift
//! from what the loader accepts. Units follow from the key's suffix.

use schemars::schema_for;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{ScenarioFile, MODELS};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KeyDoc {
    pub key: String,
    /// The models whose scenarios accept the key ("all" for common keys).
    pub models: String,
    pub default: String,
    pub unit: String,
    pub allowed: String,
    pub meaning: String,
}

/// Every key of the scenario schema, section by section.
pub fn key_reference() -> Vec<KeyDoc> {
    let schema = schema_for!(ScenarioFile);
    let root = schema.as_value();
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut out = Vec::new();
    let props = root.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, prop) in &props {
        let models = MODELS
            .iter()
            .filter(|m| m.sections.contains(&name.as_str()))
            .map(|m| m.name)
            .collect::<Vec<_>>()
            .join(", ");
        let models = if models.is_empty() { "all".to_string() } else { models };
        walk(name, prop, None, &defs, &models, &mut out);
    }
    out
}

/// The opening of `docs/scenario-keys.md`: how sections select a model,
/// and each model's default observation counts, from the table of models.
pub fn key_reference_intro() -> String {
    let label = |s: &str| format!("`[{s}]`");
    let selectors: Vec<String> = MODELS
        .iter()
        .filter(|m| !m.selected_by.is_empty())
        .map(|m| {
            format!("{} the {} model", m.selected_by.iter().map(|s| label(s)).collect::<Vec<_>>().join(" or "), m.name)
        })
        .collect();
    let default = MODELS.iter().find(|m| m.selected_by.is_empty()).map_or("", |m| m.name);
    let counts: Vec<String> = MODELS
        .iter()
        .filter(|m| m.kind != super::ModelKind::TcpNetperf)
        .map(|m| format!("{} {}, {}, {}", m.name, m.defaults.warmup, m.defaults.max, m.defaults.min))
        .collect();
    format!(
        "# Scenario keys\n\nGenerated from the scenario schema by `fabricsim scenario keys` (also `--json`); \
         regenerate with `FABRICSIM_BLESS=1 cargo test -p fabricsim --lib keys`.\n\n\
         A scenario's sections select its model, the first of these present: {}; with none of them, the {default} model. \
         A section of another model is an error that names it. `[run]`, `name` and `description` belong to every \
         model. `[run]` counts observations in the model's own unit (data frames delivered, I/Os completed, packets \
         delivered); the counts a scenario leaves out are the model's (warm-up, maximum, minimum: {}; the minimum \
         at most the maximum in force), and a netperf test runs for its length instead.\n\n",
        selectors.join(", "),
        counts.join("; ")
    )
}

/// The key reference as a Markdown table.
pub fn key_reference_markdown() -> String {
    let mut s = String::from("| key | model | default | unit | allowed | meaning |\n|---|---|---|---|---|---|\n");
    for k in key_reference() {
        let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            k.key,
            cell(&k.models),
            cell(&k.default),
            cell(&k.unit),
            cell(&k.allowed),
            cell(&k.meaning)
        ));
    }
    s
}

pub(super) fn resolve<'a>(v: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return defs.get(name).map(|d| resolve(d, defs)).unwrap_or(v);
    }
    // Option<T>: anyOf [T, null].
    if let Some(any) = v.get("anyOf").and_then(Value::as_array) {
        if let Some(inner) = any.iter().find(|a| a.get("type").and_then(Value::as_str) != Some("null")) {
            if any.len() == 2 {
                return resolve(inner, defs);
            }
        }
    }
    v
}

fn walk(
    key: &str,
    prop: &Value,
    inherited_default: Option<&Value>,
    defs: &Map<String, Value>,
    models: &str,
    out: &mut Vec<KeyDoc>,
) {
    let target = resolve(prop, defs);
    let description =
        prop.get("description").or_else(|| target.get("description")).and_then(Value::as_str).unwrap_or("");
    let default = prop.get("default").or(inherited_default);
    let is_object = target.get("properties").is_some();
    let items = target.get("items").map(|i| resolve(i, defs));
    if is_object {
        let props = target.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (name, p) in &props {
            let d = default.and_then(|d| d.get(name));
            walk(&format!("{key}.{name}"), p, d, defs, models, out);
        }
        return;
    }
    if let Some(items) = items.filter(|i| i.get("properties").is_some()) {
        let props = items.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (name, p) in &props {
            walk(&format!("{key}.{name}"), p, None, defs, models, out);
        }
        return;
    }
    out.push(KeyDoc {
        key: key.to_string(),
        models: models.to_string(),
        default: match default {
            None | Some(Value::Null) => "-".to_string(),
            Some(v) => v.to_string(),
        },
        unit: unit_of(key).to_string(),
        allowed: allowed(key, target, prop),
        meaning: meaning(description, target),
    });
}

/// The field's doc comment, followed by the doc comment of each choice.
fn meaning(description: &str, target: &Value) -> String {
    let mut text = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let choices: Vec<String> = target
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|alts| {
            alts.iter()
                .filter_map(|v| {
                    let name = v.get("const").or_else(|| v.get("enum").and_then(|e| e.get(0)))?;
                    let doc = v.get("description").and_then(Value::as_str)?;
                    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
                    Some(format!("{name}: {}", doc.trim_end_matches('.')))
                })
                .collect()
        })
        .unwrap_or_default();
    if !choices.is_empty() {
        text.push_str(if text.is_empty() { "" } else { " " });
        text.push_str(&choices.join("; "));
    }
    text
}

fn allowed(key: &str, target: &Value, prop: &Value) -> String {
    if let Some(range) = super::range_of(key) {
        return range.allowed();
    }
    if let Some(values) = target.get("enum").and_then(Value::as_array) {
        return values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
    }
    if let Some(one_of) = target.get("oneOf").and_then(Value::as_array) {
        let consts: Vec<String> = one_of
            .iter()
            .filter_map(|v| v.get("const").or_else(|| v.get("enum").and_then(|e| e.get(0))))
            .map(|v| v.to_string())
            .collect();
        if !consts.is_empty() {
            return consts.join(", ");
        }
    }
    let ty = match target.get("type").or_else(|| prop.get("type")) {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(" or ")
        }
        _ => String::new(),
    };
    let min = target.get("minimum").and_then(Value::as_f64);
    match (ty.as_str(), min) {
        ("integer", Some(m)) if m >= 0.0 => "integer >= 0".to_string(),
        ("array", _) => {
            let item = target.get("items").and_then(|i| i.get("type")).and_then(Value::as_str).unwrap_or("value");
            format!("list of {item}")
        }
        _ => ty,
    }
}

fn unit_of(key: &str) -> &'static str {
    const UNITS: [(&str, &str); 12] = [
        ("_ns_per_m", "ns/m"),
        ("_mb_s", "MB/s"),
        ("_mb", "MiB"),
        ("_ns", "ns"),
        ("_us", "us"),
        ("_ms", "ms"),
        ("_bytes", "bytes"),
        ("_words", "words"),
        ("_frames", "frames"),
        ("_m", "m"),
        ("baud", "baud"),
        ("_observations", "observations"),
    ];
    UNITS.iter().find(|(suffix, _)| key.ends_with(suffix)).map(|(_, u)| *u).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_covers_every_section_with_defaults_and_units() {
        let keys = key_reference();
        let find = |k: &str| keys.iter().find(|d| d.key == k).unwrap_or_else(|| panic!("no key {k}"));
        assert_eq!(find("switch.buffers_per_port").default, "15");
        assert_eq!(find("link.propagation_ns").unit, "ns");
        assert!(find("workload.arrivals").allowed.contains("\"saturated\""));
        assert!(find("topology.kind").allowed.contains("\"envelope\""));
        assert_eq!(find("loop.length_m").default, "50.0");
        assert_eq!(find("loop.length_m").models, "switched loop, arbitrated loop");
        assert!(find("switched_loop.bridge_buffers").allowed.contains("frames"));
        assert_eq!(find("run.seed").models, "all");
        let undocumented: Vec<_> = keys.iter().filter(|k| k.meaning.is_empty()).map(|k| k.key.as_str()).collect();
        assert!(undocumented.is_empty(), "keys without a doc comment: {undocumented:?}");
        assert!(find("run.precision").meaning.contains("confidence"));
        assert!(keys.iter().all(|k| !k.key.starts_with("fabric")));
        assert_eq!(find("switch.ports").allowed, "an integer from 2 to 256");
        assert!(find("link.propagation_ns").allowed.contains("1e9"), "{}", find("link.propagation_ns").allowed);
    }

    /// Every numeric key has its physical range, and every range names a key.
    #[test]
    fn every_number_has_a_range() {
        let keys = key_reference();
        let numeric =
            |a: &str| a == "integer" || a == "number" || a.starts_with("integer ") || a.starts_with("list of");
        let missing: Vec<_> = keys.iter().filter(|k| numeric(&k.allowed)).map(|k| k.key.as_str()).collect();
        assert!(missing.is_empty(), "numeric keys without a range: {missing:?}");
        for r in super::super::ranges() {
            assert!(keys.iter().any(|k| k.key == r.key), "range for no key: {}", r.key);
        }
    }

    /// `docs/scenario-keys.md` is this table; `FABRICSIM_BLESS=1` rewrites it.
    #[test]
    fn the_documented_reference_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario-keys.md");
        let table = key_reference_markdown();
        let text = format!("{}{table}", key_reference_intro());
        if std::env::var_os("FABRICSIM_BLESS").is_some() {
            std::fs::write(&path, &text).expect("docs/scenario-keys.md written");
        }
        let stored = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(stored == text, "docs/scenario-keys.md is stale: FABRICSIM_BLESS=1 cargo test -p fabricsim --lib keys");
    }
}
