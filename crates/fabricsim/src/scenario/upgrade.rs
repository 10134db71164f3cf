//! Rewrites a scenario file of the old shape (one flat scenario whose
//! `fabric.kind` picked the model) into the current one (sections select the
//! model), keeping comments and layout: `[fabric]` becomes `[topology]`
//! (or goes, with `kind = "loop"`), the frame and I/O counts of the
//! measurement plan become `run.*_observations`, and the sections an old
//! loop scenario carried but never used are dropped, each with a note.

use toml_edit::{DocumentMut, Item, Table};

use crate::error::{Error, Result};

/// Old keys and what they are now.
const RENAMED: [(&str, &str); 8] = [
    ("fabric", "[topology], or nothing for a loop"),
    ("run.warmup_frames", "run.warmup_observations"),
    ("run.max_frames", "run.max_observations"),
    ("run.min_frames", "run.min_observations"),
    ("initiator.warmup_ios", "run.warmup_observations"),
    ("initiator.max_ios", "run.max_observations"),
    ("initiator.min_ios", "run.min_observations"),
    (
        "switched_loop.switch_latency_ns",
        "nothing: the FC switch model times every crossing (see [switch], routing_time_ns)",
    ),
];

/// What an old-shape key is called now, for error messages.
pub fn renamed_key(key: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(old, _)| *old == key || key.starts_with(&format!("{old}."))).map(|(_, new)| *new)
}

/// The upgraded text and a note per change; the text is unchanged when
/// the file already has the current shape.
pub fn upgrade_toml(text: &str, source: &str) -> Result<(String, Vec<String>)> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::scenario(format!("invalid TOML: {}", e.message())).in_file(source))?;
    let mut notes = Vec::new();
    let mut is_loop = false;
    if let Some(fabric) = doc.as_table_mut().remove("fabric") {
        is_loop = fabric.get("kind").and_then(|k| k.as_str()) == Some("loop");
        if is_loop {
            notes.push("removed [fabric] (kind = \"loop\"): [loop] selects the arbitrated loop model".to_string());
        } else {
            doc.as_table_mut().insert("topology", fabric);
            notes.push("renamed [fabric] to [topology]".to_string());
        }
    }
    // A switched loop has a [loop] too, and its [switch] is the switch between the loops.
    if doc.get("loop").is_some() && doc.get("switched_loop").is_none() {
        is_loop = true;
    }
    for (old, new) in [
        ("warmup_frames", "warmup_observations"),
        ("max_frames", "max_observations"),
        ("min_frames", "min_observations"),
    ] {
        if let Some(run) = doc.get_mut("run").and_then(Item::as_table_like_mut) {
            if let Some(v) = run.remove(old) {
                run.insert(new, v);
                notes.push(format!("renamed run.{old} to run.{new}"));
            }
        }
    }
    for (old, new) in
        [("warmup_ios", "warmup_observations"), ("max_ios", "max_observations"), ("min_ios", "min_observations")]
    {
        let moved = doc.get_mut("initiator").and_then(Item::as_table_like_mut).and_then(|t| t.remove(old));
        if let Some(v) = moved {
            if doc.get("run").is_none() {
                let mut run = Table::new();
                run.set_position(0);
                doc.insert("run", Item::Table(run));
            }
            let run = doc["run"]
                .as_table_like_mut()
                .ok_or_else(|| Error::invalid("run", "not a table", "a [run] table").in_file(source))?;
            run.insert(new, v);
            notes.push(format!("moved initiator.{old} to run.{new}"));
        }
    }
    if is_loop {
        for section in ["topology", "routing", "switch", "link", "protocol", "workload"] {
            if doc.as_table_mut().remove(section).is_some() {
                notes.push(format!("removed [{section}]: the arbitrated loop model never used it"));
            }
        }
    }
    Ok((doc.to_string(), notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn an_old_loop_scenario_becomes_the_new_shape() {
        let old = "# comment kept\n[run]\nseed = 3\n[fabric]\nkind = \"loop\"\n[switch]\nports = 8\n[loop]\nlength_m = 10.0\n\
                   [[disks]]\ncount = 2\n[initiator]\nwarmup_ios = 5\nmax_ios = 50\n";
        let (new, notes) = upgrade_toml(old, "old.toml").unwrap();
        assert!(new.contains("# comment kept"));
        assert_eq!(notes.len(), 4, "{notes:?}");
        let s = Scenario::from_toml_str(&new, "new.toml").unwrap();
        assert_eq!(s.run.counts(), (5, 50, 50));
        assert_eq!(s.run.seed, 3);
    }

    #[test]
    fn a_switched_loop_keeps_its_switch() {
        let text = "[switched_loop]\nloops = 2\n[loop]\nlength_m = 10.0\n[switch]\nrouting_time_ns = 720.0\n\
                    [[disks]]\ncount = 2\n";
        let (new, notes) = upgrade_toml(text, "s.toml").unwrap();
        assert_eq!(new, text);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn an_old_fabric_scenario_becomes_the_new_shape_and_the_new_shape_stays() {
        let old = "[run]\nmax_frames = 100\nwarmup_frames = 10\n[fabric]\nkind = \"star\"\nmultiplicity = 2\n";
        let (new, _) = upgrade_toml(old, "old.toml").unwrap();
        let s = Scenario::from_toml_str(&new, "new.toml").unwrap();
        assert_eq!(s.fc_fabric().unwrap().topology.multiplicity, Some(2));
        assert_eq!(s.run.counts(), (10, 100, 100));
        let (again, notes) = upgrade_toml(&new, "new.toml").unwrap();
        assert_eq!(again, new);
        assert!(notes.is_empty());
    }
}
