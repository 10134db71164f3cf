//! Runs a scenario file (or the built-in default) and prints the report as
//! JSON: `cargo run --release --example run_scenario -- [FILE] [key=value ...]`.
//! Overrides are TOML assignments appended under their table.

use fabricsim::Scenario;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, overrides): (Option<&String>, Vec<&String>) = match args.first() {
        Some(a) if !a.contains('=') => (Some(a), args[1..].iter().collect()),
        _ => (None, args.iter().collect()),
    };
    let mut text = match path {
        Some(p) => std::fs::read_to_string(p).expect("readable scenario file"),
        None => fabricsim::scenario::DEFAULT_SCENARIO_TOML.to_string(),
    };
    // Dotted keys at the top level of TOML may not re-open a table defined
    // above, so wrap the document as a JSON-free merge: parse, set, reserialize.
    let mut doc: toml::Value = toml::from_str(&text).expect("valid TOML");
    for o in overrides {
        let (key, value) = o.split_once('=').expect("key=value");
        let value: toml::Value = toml::from_str::<toml::Value>(&format!("v = {value}"))
            .map(|t| t["v"].clone())
            .unwrap_or_else(|_| toml::Value::String(value.to_string()));
        let mut cur = &mut doc;
        let parts: Vec<&str> = key.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            cur = cur.as_table_mut().unwrap().entry(part.to_string()).or_insert(toml::Value::Table(Default::default()));
        }
        cur.as_table_mut().unwrap().insert(parts[parts.len() - 1].to_string(), value);
    }
    text = toml::to_string(&doc).unwrap();
    let scenario = match Scenario::from_toml_str(&text, path.map(|s| s.as_str()).unwrap_or("<default>")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    match fabricsim::run(&scenario) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r.to_json()).unwrap()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
