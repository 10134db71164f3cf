//! Reading scenarios from TOML or JSON text, with errors that name the key.

use super::{Scenario, ScenarioFile};
use crate::error::{Error, ErrorKind, Result};

/// The built-in default scenario (what `fabricsim run` runs with no file).
pub const DEFAULT_SCENARIO_TOML: &str = include_str!("default.toml");

/// Turns a serde path and message into an error naming the key and what is allowed.
fn from_serde(path: String, message: String, source: &str) -> Error {
    let mut key = if path == "." { String::new() } else { path };
    // serde reports an unknown field as "unknown field `x`, expected one of `a`, `b`":
    // name the full key and list the allowed ones.
    let (message, allowed) = if let Some(rest) = message.strip_prefix("unknown field `") {
        let (field, tail) = rest.split_once('`').unwrap_or((rest, ""));
        // Some deserializers already put the unknown field at the end of the path.
        let already = key == field || key.ends_with(&format!(".{field}"));
        if !already {
            key = if key.is_empty() { field.to_string() } else { format!("{key}.{field}") };
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
        value: None,
        allowed,
    }
}

impl Scenario {
    /// Parses and validates a scenario written in TOML; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<Scenario> {
        let de = toml::Deserializer::new(text);
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            // A syntax error carries a line/column span; keep toml's own rendering.
            let msg = inner.message().to_string();
            let located = match inner.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("{msg} (line {line})")
                }
                None => msg,
            };
            from_serde(path, located, source)
        })?;
        Scenario::from_file(file).map_err(|e| e.in_file(source))
    }

    /// Parses and validates a scenario given as JSON (what the Python package sends).
    pub fn from_json_str(text: &str, source: &str) -> Result<Scenario> {
        let mut de = serde_json::Deserializer::from_str(text);
        let file: ScenarioFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let msg = e.into_inner().to_string();
            // serde_json appends " at line L column C" of the JSON text, which the user never wrote.
            let msg = match msg.rfind(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            from_serde(path, msg, source)
        })?;
        Scenario::from_file(file).map_err(|e| e.in_file(source))
    }

    /// The built-in default scenario.
    pub fn builtin_default() -> Scenario {
        Scenario::from_toml_str(DEFAULT_SCENARIO_TOML, "<built-in default>")
            .expect("the built-in default scenario is valid")
    }

    /// The scenario with every default filled in, as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.to_file()).expect("scenarios always serialize")
    }

    /// The scenario with every default filled in, as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.to_file()).expect("scenarios always serialize")
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
        assert!(e.message.contains("invalid type"), "{e}");
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
