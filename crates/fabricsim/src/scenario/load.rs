//! Reading scenarios from TOML or JSON text, with errors that name the key
//! in the user's words.
//!
//! The text is parsed into a value tree first (a UTF-8 byte order mark
//! dropped), which is then normalized against the scenario schema before
//! it is turned into a [`ScenarioFile`]: a whole number written as a float
//! (`1e6`, `2.0`) is taken where the schema wants an integer, and a TOML
//! date or time, which no key takes, is refused by name. What serde then
//! refuses is reworded ("expected u64" becomes "expected a whole number")
//! and the key's documented range becomes `allowed`.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::{Scenario, ScenarioFile};
use crate::error::{Error, ErrorKind, Result};

/// The built-in default scenario (what `fabricsim run` runs with no file).
pub const DEFAULT_SCENARIO_TOML: &str = include_str!("default.toml");

/// Largest magnitude at which every integer is an exact f64 (2^53).
const EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

/// The scenario schema as JSON (computed once).
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(ScenarioFile).as_value().clone())
}

fn defs() -> &'static Map<String, Value> {
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    schema().get("$defs").and_then(Value::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// Where the schema expects a key's value: the sub-schema of field `name`.
fn field<'a>(node: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    let node = super::keys::resolve(node?, defs());
    node.get("properties")?.get(name).map(|v| super::keys::resolve(v, defs()))
}

/// The sub-schema of a list's elements.
fn element(node: Option<&Value>) -> Option<&Value> {
    let node = super::keys::resolve(node?, defs());
    node.get("items").map(|v| super::keys::resolve(v, defs()))
}

fn wants_integer(node: Option<&Value>) -> bool {
    let Some(node) = node else { return false };
    match super::keys::resolve(node, defs()).get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    }
}

fn child_key(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// A whole number written as a float, as the integer it is.
fn integral(f: f64) -> Option<i64> {
    (f.is_finite() && f.fract() == 0.0 && f.abs() < EXACT_F64_INT).then_some(f as i64)
}

/// Takes integral floats where the schema wants integers and refuses TOML
/// dates and times under every key the schema knows (an unknown key is
/// left for the deserializer to name).
fn normalize_toml(value: &mut toml::Value, node: Option<&Value>, path: &str) -> Result<()> {
    match value {
        toml::Value::Float(f) if wants_integer(node) => {
            if let Some(i) = integral(*f) {
                *value = toml::Value::Integer(i);
            }
        }
        toml::Value::Datetime(d) if node.is_some() => {
            return Err(Error::invalid(path, d.to_string(), allowed_for(path, "a value of this key"))
                .with_message("a date or time is not a value of this key"));
        }
        toml::Value::Table(t) => {
            for (k, v) in t.iter_mut() {
                normalize_toml(v, field(node, k), &child_key(path, k))?;
            }
        }
        toml::Value::Array(a) => {
            for (i, v) in a.iter_mut().enumerate() {
                normalize_toml(v, element(node), &format!("{path}[{i}]"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Takes integral floats where the schema wants integers.
fn normalize_json(value: &mut Value, node: Option<&Value>) {
    match value {
        Value::Number(n) if n.is_f64() && wants_integer(node) => {
            if let Some(i) = n.as_f64().and_then(integral) {
                *value = Value::from(i);
            }
        }
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                normalize_json(v, field(node, k));
            }
        }
        Value::Array(a) => {
            for v in a.iter_mut() {
                normalize_json(v, element(node));
            }
        }
        _ => {}
    }
}

/// What the key reference allows for `key` (indices ignored), else `fallback`.
fn allowed_for(key: &str, fallback: &str) -> String {
    let plain = super::check::strip_indices(key);
    super::keys::key_reference()
        .into_iter()
        .find(|k| k.key == plain)
        .map(|k| k.allowed)
        .unwrap_or_else(|| fallback.to_string())
}

/// serde's words for what it got ("integer `5`", "map") in the user's words.
fn plain_value(unexpected: &str) -> String {
    let unquote = |s: &str| s.trim_matches('`').to_string();
    for prefix in ["integer ", "floating point ", "boolean ", "character "] {
        if let Some(v) = unexpected.strip_prefix(prefix) {
            return unquote(v);
        }
    }
    if let Some(v) = unexpected.strip_prefix("string ") {
        return v.to_string();
    }
    match unexpected {
        "map" => "a table".into(),
        "sequence" => "a list".into(),
        "unit value" | "Option value" => "nothing (null)".into(),
        other => other.to_string(),
    }
}

/// serde's words for what it expected ("u64", "struct RunPlan") in the user's words.
fn plain_expected(expected: &str) -> String {
    let e = expected.trim();
    match e {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" => "text in quotes".into(),
        "a sequence" | "fewer elements in array" => "a list".into(),
        "a map" => "a table".into(),
        _ if e.starts_with("struct ") || e.starts_with("a map") => "a table".into(),
        _ if e.starts_with("an array of length ") => {
            format!("a list of {} values", e.trim_start_matches("an array of length "))
        }
        _ if e.starts_with("enum ") || e.starts_with("variant identifier") || e == "string or map" => {
            "one of the named choices".into()
        }
        _ => e.trim_start_matches("one of ").replace('`', "\"").to_string(),
    }
}

/// The value of serde's "invalid type: floating point `X`, expected u64"
/// when X is a whole number: an integer too large for a float to hold exactly.
fn integral_float_for_integer(message: &str) -> Option<f64> {
    let (what, expected) = message.strip_prefix("invalid type: floating point `")?.split_once("`, expected ")?;
    let f: f64 = what.parse().ok()?;
    (plain_expected(expected) == "a whole number" && f.is_finite() && f.fract() == 0.0).then_some(f)
}

/// `text (line N)` without its line, as serde's spans leave it.
fn strip_line(text: &str) -> &str {
    match text.rfind(" (line ") {
        Some(i) if text.ends_with(')') && text[i + 7..text.len() - 1].bytes().all(|b| b.is_ascii_digit()) => &text[..i],
        _ => text,
    }
}

/// Turns a serde path and message into an error naming the key, the value
/// and what is allowed, in plain words.
fn from_serde(path: String, message: String, source: &str) -> Error {
    let mut key = if path == "." { String::new() } else { path };
    let message = strip_line(&message).to_string();
    let mut value = None;
    // serde reports an unknown field as "unknown field `x`, expected one of `a`, `b`":
    // name the full key and list the allowed ones.
    let (message, allowed) = if let Some(rest) = message.strip_prefix("unknown field `") {
        let (field, tail) = rest.split_once('`').unwrap_or((rest, ""));
        // Some deserializers already put the unknown field at the end of the path.
        let already = key == field || key.ends_with(&format!(".{field}"));
        if !already {
            key = child_key(&key, field);
        }
        let allowed = tail
            .trim_start_matches(", ")
            .trim_start_matches("expected one of ")
            .trim_start_matches("expected ")
            .to_string();
        ("unknown key".to_string(), if allowed.is_empty() { None } else { Some(allowed) })
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (variant, tail) = rest.split_once('`').unwrap_or((rest, ""));
        let allowed = tail.trim_start_matches(", ").trim_start_matches("expected one of ").to_string();
        (format!("unknown choice `{variant}`"), Some(allowed))
    } else if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        key = child_key(&key, field);
        value = Some("missing".to_string());
        ("required".to_string(), Some(allowed_for(&key, "a value")))
    } else if let Some(rest) = message.strip_prefix("duplicate field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        key = child_key(&key, field);
        ("given twice".to_string(), Some("one value per key".to_string()))
    } else if let Some(f) = integral_float_for_integer(&message) {
        // A whole number past what a float holds exactly (2^53) arrives as a float.
        value = Some(format!("{f:.0}"));
        let msg = if f < 0.0 {
            "too small"
        } else if f >= 18_446_744_073_709_551_616.0 {
            "too large"
        } else {
            "not exact: a whole number this large must be written without a decimal point or exponent"
        };
        (msg.to_string(), Some(allowed_for(&key, "a whole number")))
    } else if let Some((what, expected)) = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|rest| rest.split_once(", expected "))
    {
        let expected = plain_expected(expected);
        let got = plain_value(what);
        let msg = if message.starts_with("invalid type") {
            format!("expected {expected}")
        } else {
            "out of range".to_string()
        };
        value = Some(got);
        (msg, Some(allowed_for(&key, &expected)))
    } else if let Some((n, expected)) =
        message.strip_prefix("invalid length ").and_then(|rest| rest.split_once(", expected "))
    {
        value = Some(format!("a list of {n}"));
        ("wrong number of values".to_string(), Some(allowed_for(&key, &plain_expected(expected))))
    } else {
        (message, None)
    };
    let message = match super::upgrade::renamed_key(&key) {
        Some(new) => format!("{message}: `{key}` is of the old scenario shape (now {new}); `fabricsim scenario upgrade FILE` rewrites the file"),
        None => message,
    };
    Error {
        kind: ErrorKind::Scenario,
        message,
        file: Some(source.to_string()),
        key: if key.is_empty() { None } else { Some(key) },
        value,
        allowed: allowed.map(|a| strip_line(&a).to_string()),
    }
}

impl Scenario {
    /// Parses and validates a scenario written in TOML; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<Scenario> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let table = text.parse::<toml::Table>().map_err(|e| {
            // A syntax error carries a span: name its line.
            let msg = e.message().trim().lines().map(str::trim).collect::<Vec<_>>().join("; ");
            let located = match e.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("invalid TOML: {msg} (line {line})")
                }
                None => format!("invalid TOML: {msg}"),
            };
            Error::scenario(located).in_file(source)
        })?;
        let mut value = toml::Value::Table(table);
        normalize_toml(&mut value, Some(schema()), "").map_err(|e| e.in_file(source))?;
        let given = super::applies::given_keys(&serde_json::to_value(&value).unwrap_or_default());
        let file: ScenarioFile = serde_path_to_error::deserialize(value)
            .map_err(|e| from_serde(e.path().to_string(), e.into_inner().message().to_string(), source))?;
        Self::from_file_given(file, &given).map_err(|e| e.or_in_file(source))
    }

    /// Parses and validates a scenario given as JSON (what the Python package sends).
    pub fn from_json_str(text: &str, source: &str) -> Result<Scenario> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut value: Value = serde_json::from_str(text).map_err(|e| {
            // serde_json appends " at line L column C" of the JSON text, which the user never wrote.
            let msg = e.to_string();
            let msg = msg.rfind(" at line ").map_or(msg.as_str(), |i| &msg[..i]).to_string();
            Error::scenario(format!("invalid scenario data: {msg}")).in_file(source)
        })?;
        normalize_json(&mut value, Some(schema()));
        let given = super::applies::given_keys(&value);
        let file: ScenarioFile = serde_path_to_error::deserialize(value)
            .map_err(|e| from_serde(e.path().to_string(), e.into_inner().to_string(), source))?;
        Self::from_file_given(file, &given).map_err(|e| e.or_in_file(source))
    }

    /// A scenario file as read, refusing the keys it gives that do nothing in its mode.
    fn from_file_given(file: ScenarioFile, given: &std::collections::HashMap<String, String>) -> Result<Scenario> {
        let scenario = Scenario::from_file(file)?;
        super::applies::check(&scenario, given)?;
        Ok(scenario)
    }

    /// The built-in default scenario.
    pub fn builtin_default() -> Scenario {
        Scenario::from_toml_str(DEFAULT_SCENARIO_TOML, "<built-in default>")
            .expect("the built-in default scenario is valid")
    }

    /// The scenario with every default filled in, as JSON.
    /// (Keys that do nothing in the scenario's mode are left out, so the
    /// result reads back as the same scenario.)
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self.to_file()).expect("scenarios always serialize");
        super::applies::prune(self, &mut value);
        value
    }

    /// The scenario with every default filled in, as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.to_json()).expect("scenarios always serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_parses() {
        let s = Scenario::builtin_default();
        assert_eq!(s.fc_fabric().unwrap().switch.ports, 16);
    }

    #[test]
    fn old_shape_keys_point_to_upgrade() {
        let e = Scenario::from_toml_str("[fabric]\nkind = \"star\"\n", "old.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("fabric"));
        assert!(e.message.contains("scenario upgrade"), "{e}");
        let e = Scenario::from_toml_str("[run]\nmax_frames = 10\n", "old.toml").unwrap_err();
        assert!(e.message.contains("run.max_observations"), "{e}");
    }

    #[test]
    fn unknown_key_is_named_with_allowed_keys() {
        let e = Scenario::from_toml_str("[workload]\nofered_load = 0.5\n", "x.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.ofered_load"));
        assert_eq!(e.file.as_deref(), Some("x.toml"));
        assert!(e.allowed.as_deref().unwrap().contains("offered_load"), "{e}");
        assert!(e.to_string().starts_with("x.toml: key `workload.ofered_load`"), "{e}");
    }

    #[test]
    fn unknown_top_level_table_is_rejected() {
        let e = Scenario::from_toml_str("[swich]\nports = 3\n", "x.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("swich"));
    }

    #[test]
    fn unknown_key_in_json_is_named() {
        let e = Scenario::from_json_str(r#"{"workload": {"ofered_load": 0.5}}"#, "<dict>").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.ofered_load"));
        let e = Scenario::from_json_str(r#"{"swich": {}}"#, "<dict>").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("swich"));
    }

    #[test]
    fn wrong_type_names_key() {
        let e = Scenario::from_json_str(r#"{"switch": {"ports": "many"}}"#, "<dict>").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("switch.ports"));
        assert_eq!(e.message, "expected a whole number");
        assert_eq!(e.value.as_deref(), Some("\"many\""));
        assert_eq!(e.allowed.as_deref(), Some("an integer from 2 to 256"));
    }

    #[test]
    fn unknown_choice_lists_choices() {
        let e = Scenario::from_toml_str("[workload]\narrivals = \"bursty\"\n", "x.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("workload.arrivals"));
        assert!(e.allowed.as_deref().unwrap().contains("poisson"), "{e}");
    }

    #[test]
    fn syntax_error_names_line() {
        let e = Scenario::from_toml_str("name = \"a\"\n[run\nseed = 1\n", "bad.toml").unwrap_err();
        assert!(e.to_string().contains("bad.toml"), "{e}");
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    #[test]
    fn a_whole_number_past_u64_is_too_large_not_a_fraction() {
        let e = Scenario::from_json_str(r#"{"run": {"seed": 18446744073709551616}}"#, "<dict>").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("run.seed"));
        assert_eq!((e.message.as_str(), e.value.as_deref()), ("too large", Some("18446744073709551616")), "{e}");
        let e = Scenario::from_json_str(r#"{"run": {"seed": 1e30}}"#, "<dict>").unwrap_err();
        assert_eq!(e.message, "too large", "{e}");
        let e = Scenario::from_json_str(r#"{"run": {"seed": 1.5}}"#, "<dict>").unwrap_err();
        assert_eq!(e.message, "expected a whole number", "{e}");
    }

    #[test]
    fn bimodal_sizes_parse_with_defaults() {
        let s = Scenario::from_toml_str("[workload.sizes]\nkind = \"bimodal\"\nlong_fraction = 0.1\n", "x").unwrap();
        assert!((s.fc_fabric().unwrap().workload.sizes.mean_frames() - 5.2).abs() < 1e-12);
    }

    #[test]
    fn unknown_key_inside_tagged_variant_is_rejected() {
        let e = Scenario::from_toml_str("[workload.sizes]\nkind = \"fixed\"\nlong_fraction = 0.1\n", "x").unwrap_err();
        assert!(e.to_string().contains("long_fraction"), "{e}");
    }
}
