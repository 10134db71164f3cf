//! InfiniBand subnets as `ibnetdiscover` dumps and ibsim `net` files: read
//! into a topology with its identity (real port numbers, radix, names,
//! GUIDs, LIDs, cable rates), and written back in the same format or as
//! Graphviz DOT.
//!
//! The format: optional `switchguid=`/`caguid=` lines (and `vendid=`,
//! `devid=`, `sysimgguid=`, which do not matter here), a node header
//! `Switch|Ca|Hca <ports> "<name>"`, then one line per cabled port,
//! `[port] "remote-name"[remote-port]`, with optional `(port guid)` after
//! either port, ibsim's `w=`/`s=`/`e=` options and a `# comment` tail. Real
//! dumps carry the description of a node, its LID (`lid N`) and the cable's
//! width and speed (`4xQDR`) in the comments. A cable appears at both ends
//! or at one; it is recorded once, and the two ends must agree.
//!
//! Switch ports keep their numbers: port `p` of the file is port `p - 1` of
//! the topology (port 0, a switch's management port, is never cabled).
//! Switches are numbered in file order, endpoints (one per cabled adapter
//! port) switch by switch in port order. GUIDs not given follow ibsim's
//! rule (see `identity`), so OpenSM under ibsim sees the same subnet.

use std::path::{Path, PathBuf};

use super::topology::Topology;
use crate::error::{Error, ErrorKind, Result};

mod build;
mod export;
mod read;
#[cfg(test)]
mod tests;

pub use export::{export_dot, export_net};

/// The largest port count of an IBA node (port numbers are a byte; 255 is reserved).
pub const MAX_PORTS: u32 = 254;

/// An error about line `line` (from 1) of `file`: what was found, and what was expected there.
pub(super) fn line_error(file: &str, line: usize, found: impl std::fmt::Display, expected: impl Into<String>) -> Error {
    Error {
        kind: ErrorKind::Scenario,
        // The file in the message: a scenario that names it puts its own name in `file`.
        message: format!("{file}, line {line}: {found}"),
        file: None,
        key: None,
        value: None,
        allowed: Some(expected.into()),
    }
}

/// Reads a subnet file (see `read_found` for where it is looked for).
pub fn load(path: &str, key: &str) -> Result<Topology> {
    parse(&read_found(path, key, "ibnetdiscover or ibsim net file")?, path)
}

/// The text of `path`, as given if absolute or found from the working
/// directory, else looked up from each directory above it (the shared data
/// sits beside the repository); errors name `key` and `what` was wanted.
pub fn read_found(path: &str, key: &str, what: &str) -> Result<String> {
    let found = find_upwards(path).map_err(|tried| {
        Error::invalid(
            key,
            format!("\"{path}\""),
            format!(
                "a readable {what}: an absolute path, or a relative one found from the working directory or a \
                 directory above it (looked for {})",
                tried.iter().take(4).map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
    })?;
    std::fs::read_to_string(&found).map_err(|e| {
        Error::invalid(key, format!("\"{path}\""), format!("a readable UTF-8 {what} ({}: {e})", found.display()))
    })
}

/// `path` if absolute or present from the working directory, else the first
/// directory above the working directory that holds it; the places tried otherwise.
pub fn find_upwards(path: &str) -> std::result::Result<PathBuf, Vec<PathBuf>> {
    let p = Path::new(path);
    let mut tried = Vec::new();
    if p.is_absolute() {
        tried.push(p.to_path_buf());
    } else if let Ok(cwd) = std::env::current_dir() {
        tried.extend(cwd.ancestors().map(|d| d.join(p)));
    }
    tried.iter().find(|c| c.is_file()).cloned().ok_or(tried)
}

/// Parses a subnet file; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Topology> {
    let nodes = read::read_nodes(text, file)?;
    build::build(&nodes, file)
}
