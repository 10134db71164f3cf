//! The shape of the source tree: no source file past 600 lines (Rust or
//! Python; a file that long holds more than one concept), and the
//! InfiniBand model's modules import each other without a circle (a parent
//! module and the children it declares count as one), so a reader follows a
//! packet through them in one direction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` whose name ends in one of `exts`, skipping build
/// output and virtual environments.
fn sources(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && !["target", "__pycache__", "node_modules"].contains(&name.as_str()) {
                sources(&path, exts, out);
            }
        } else if exts.iter().any(|x| name.ends_with(x)) {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_600_lines() {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in ["crates", "python", "tests"] {
        sources(&root.join(dir), &[".rs", ".py"], &mut files);
    }
    assert!(files.len() > 100, "the walk found the sources: {}", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap_or_default().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.strip_prefix(&root).unwrap_or(f).display()))
        })
        .collect();
    assert!(long.is_empty(), "source files over {MAX_LINES} lines: {long:#?}");
}

/// The `ib` module (a child of `ib`, a file or a folder) that a `use` path
/// names: `super::x` in a top-level `ib` file, `crate::ib::x` anywhere.
fn ib_target(path: &str, in_top_level_file: bool) -> Option<String> {
    let rest = path
        .strip_prefix("crate::ib::")
        .or_else(|| in_top_level_file.then(|| path.strip_prefix("super::")).flatten())?;
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// Per `ib` module, the `ib` modules it imports.
fn ib_imports() -> BTreeMap<String, BTreeSet<String>> {
    let ib = repo_root().join("crates/fabricsim/src/ib");
    let mut files = Vec::new();
    sources(&ib, &[".rs"], &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&ib).expect("under ib");
        let unit =
            rel.components().next().expect("a path").as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        if unit == "mod" {
            continue;
        }
        let top_level = rel.components().count() == 1;
        let text = std::fs::read_to_string(&f).expect("readable source");
        let edges = graph.entry(unit.clone()).or_default();
        // Test modules may reach anywhere: only the code above them counts.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for line in code.lines().map(str::trim) {
            let Some(path) = line.strip_prefix("use ").or_else(|| line.strip_prefix("pub use ")) else { continue };
            let targets: Vec<String> = if let Some((head, list)) = path.split_once("::{") {
                // `use super::{a, b::C}`: each item of the group.
                list.trim_end_matches("};")
                    .split(',')
                    .filter_map(|i| ib_target(&format!("{head}::{}", i.trim()), top_level))
                    .collect()
            } else {
                ib_target(path, top_level).into_iter().collect()
            };
            edges.extend(targets.into_iter().filter(|t| *t != unit));
        }
    }
    graph
}

#[test]
fn the_infiniband_modules_import_each_other_without_a_circle() {
    let graph = ib_imports();
    assert!(graph.get("switch").is_some_and(|e| e.contains("shared")), "the scan reads imports: {graph:?}");
    // Depth-first search for a back edge; report the circle it closes.
    fn visit<'a>(
        g: &'a BTreeMap<String, BTreeSet<String>>,
        n: &'a str,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        circles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == n) {
            circles.push(format!("{} -> {n}", path[at..].join(" -> ")));
            return;
        }
        if !done.insert(n) {
            return;
        }
        path.push(n);
        for m in g.get(n).into_iter().flatten() {
            visit(g, m, path, done, circles);
        }
        path.pop();
    }
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(&graph, n, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(circles.is_empty(), "import circles among the ib modules: {circles:#?}");
}
