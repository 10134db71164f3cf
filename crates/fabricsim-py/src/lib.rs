//! The private module `fabricsim._core`: a thin JSON-in, JSON-out wrapper
//! around the Rust crate. The Python package owns the public API and maps
//! the error objects returned here to its exception hierarchy.

use std::cell::RefCell;
use std::rc::Rc;

use fabricsim::scenario::DEFAULT_SCENARIO_TOML;
use fabricsim::sim::build_watch::{self, BuildWatch};
use fabricsim::sim::{Progress, RunObserver};
use fabricsim::{Error, Scenario};
use pyo3::prelude::*;
use serde_json::json;

fn error_json(e: &Error) -> String {
    json!({ "error": {
        "kind": e.kind,
        "message": e.message,
        "file": e.file,
        "key": e.key,
        "value": e.value,
        "allowed": e.allowed,
        "text": e.to_string(),
    }})
    .to_string()
}

/// Lets Python's signal handlers run while a simulation holds no GIL (so
/// Ctrl-C stops it within a fraction of a second) and passes progress to an
/// optional Python callable.
struct PythonObserver {
    progress: Option<Py<PyAny>>,
    interrupted: bool,
}

impl RunObserver for PythonObserver {
    fn progress(&mut self, p: &Progress) -> bool {
        Python::with_gil(|py| {
            if py.check_signals().is_err() {
                self.interrupted = true;
                return false;
            }
            if let Some(callback) = &self.progress {
                let args = (p.sim_time_us, p.events, p.observations, p.target, p.warmed_up);
                if callback.call1(py, args).is_err() {
                    self.interrupted = true;
                    return false;
                }
            }
            true
        })
    }
}

/// The same for a model's build (seconds for a large fabric): signal
/// handlers run at every report of its stages, which `building` hears as
/// (stage, done, total); `notice` hears what the build says before the run.
struct PythonBuildWatch {
    building: Option<Py<PyAny>>,
    notice: Option<Py<PyAny>>,
    interrupted: bool,
}

impl PythonBuildWatch {
    /// Watches a build for Ctrl-C only.
    fn signals_only() -> Rc<RefCell<PythonBuildWatch>> {
        Rc::new(RefCell::new(PythonBuildWatch { building: None, notice: None, interrupted: false }))
    }
}

impl BuildWatch for PythonBuildWatch {
    fn at(&mut self, stage: &str, done: u64, total: u64) -> bool {
        Python::with_gil(|py| {
            let stop = py.check_signals().is_err()
                || self.building.as_ref().is_some_and(|callback| callback.call1(py, (stage, done, total)).is_err());
            self.interrupted |= stop;
            !stop
        })
    }

    fn hears_notices(&self) -> bool {
        self.notice.is_some()
    }

    fn notice(&mut self, text: &str) {
        Python::with_gil(|py| {
            if let Some(Err(e)) = self.notice.as_ref().map(|callback| callback.call1(py, (text,))) {
                // A notice cannot stop the build: an exception in its callback is reported as unraisable.
                e.write_unraisable(py, None);
            }
        });
    }
}

/// Runs one simulation of a scenario given as JSON; `source` names it in
/// errors; `progress`, if given, is called about every 100 ms with
/// (sim_time_us, events, observations, target, warmed_up); `building`,
/// while the model is built, with (stage, done, total); `notice` with each
/// thing the build says before the run (a routing that may deadlock).
/// Returns `{"ok": report}`, `{"error": {...}}`, or `{"interrupted": true}`
/// when a signal handler raised (Ctrl-C) or a progress callback did.
#[pyfunction]
#[pyo3(signature = (scenario_json, source, progress=None, building=None, notice=None))]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    source: &str,
    progress: Option<Py<PyAny>>,
    building: Option<Py<PyAny>>,
    notice: Option<Py<PyAny>>,
) -> String {
    let scenario_json = scenario_json.to_owned();
    let source = source.to_owned();
    let mut observer = PythonObserver { progress, interrupted: false };
    // The simulation never touches Python objects: let other threads run.
    py.allow_threads(move || {
        guarded(&source, || {
            let watch = Rc::new(RefCell::new(PythonBuildWatch { building, notice, interrupted: false }));
            let result = build_watch::watched(watch.clone(), || {
                Scenario::from_json_str(&scenario_json, &source)
                    .and_then(|s| fabricsim::run::run_observed(&s, &mut observer))
            });
            match result {
                _ if observer.interrupted || watch.borrow().interrupted => json!({ "interrupted": true }).to_string(),
                Ok(report) => json!({ "ok": report.to_json() }).to_string(),
                Err(e) => error_json(&e.in_file(&source)),
            }
        })
    })
}

thread_local! {
    /// Where the last panic on this thread happened, for the error it becomes.
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs `f`; a panic (an engine bug) becomes an `internal` error reply, so a
/// user sees one `error:` line naming the scenario, never a Rust backtrace.
fn guarded(source: &str, f: impl FnOnce() -> String) -> String {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(reply) => reply,
        Err(_) => {
            let place = LAST_PANIC.with(|p| p.borrow().clone());
            json!({ "error": {
                "kind": "internal",
                "message": format!("the engine stopped on a bug ({place}); please report it with this scenario"),
                "file": source,
            }})
            .to_string()
        }
    }
}

/// Validates a scenario as `run` does (the model is built, not run);
/// returns `{"ok": normalized scenario}` or `{"error": {...}}`.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str, source: &str) -> String {
    py.allow_threads(|| {
        guarded(source, || {
            let watch = PythonBuildWatch::signals_only();
            let checked = build_watch::watched(watch.clone(), || {
                Scenario::from_json_str(scenario_json, source)
                    .and_then(|s| fabricsim::run::check(&s).map(|()| s).map_err(|e| e.in_file(source)))
            });
            match checked {
                _ if watch.borrow().interrupted => json!({ "interrupted": true }).to_string(),
                Ok(s) => json!({ "ok": s.to_json() }).to_string(),
                Err(e) => error_json(&e),
            }
        })
    })
}

/// The key reference generated from the schema: `{"ok": {"keys": [...], "markdown": "..."}}`.
#[pyfunction]
fn keys() -> String {
    let keys = fabricsim::scenario::keys::key_reference();
    json!({ "ok": { "keys": keys, "markdown": fabricsim::scenario::keys::key_reference_markdown() } }).to_string()
}

/// Rewrites a scenario of the old shape: `{"ok": {"text": ..., "notes": [...]}}` or `{"error": {...}}`.
#[pyfunction]
fn upgrade(text: &str, source: &str) -> String {
    match fabricsim::scenario::upgrade::upgrade_toml(text, source) {
        Ok((text, notes)) => json!({ "ok": { "text": text, "notes": notes } }).to_string(),
        Err(e) => error_json(&e),
    }
}

/// Ports, forwarding tables and channel-dependency (deadlock) analysis of a
/// switched-fabric scenario: `{"ok": report}` or `{"error": {...}}`.
#[pyfunction]
fn routing(py: Python<'_>, scenario_json: &str, source: &str) -> String {
    py.allow_threads(|| {
        guarded(source, || {
            let watch = PythonBuildWatch::signals_only();
            let report = build_watch::watched(watch.clone(), || {
                Scenario::from_json_str(scenario_json, source).and_then(|s| fabricsim::run::routing(&s))
            });
            match report {
                _ if watch.borrow().interrupted => json!({ "interrupted": true }).to_string(),
                Ok(r) => json!({ "ok": r }).to_string(),
                Err(e) => error_json(&e.in_file(source)),
            }
        })
    })
}

/// An `[ib]` scenario's fabric as text (`format`: "net", "dot" or "lfts"):
/// `{"ok": text}` or `{"error": {...}}`.
#[pyfunction]
fn export(scenario_json: &str, source: &str, format: &str) -> String {
    guarded(source, || {
        let text = Scenario::from_json_str(scenario_json, source).and_then(|s| {
            let spec = s
                .infiniband()
                .map_err(|_| Error::invalid("ib", "missing", "an [ib] scenario (export writes InfiniBand subnets)"))?;
            fabricsim::ib::wiring::export(spec, format)
        });
        match text {
            Ok(t) => json!({ "ok": t }).to_string(),
            Err(e) => error_json(&e.in_file(source)),
        }
    })
}

/// The TOML text of the built-in default scenario.
#[pyfunction]
fn default_scenario() -> &'static str {
    DEFAULT_SCENARIO_TOML
}

/// Runs a benchmark by name (`fabricsim::bench::by_name`, which says what
/// `size` counts for each). Returns JSON.
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench(py: Python<'_>, which: &str, size: u64) -> PyResult<String> {
    let which = which.to_owned();
    let result = py.allow_threads(move || fabricsim::bench::by_name(&which, size));
    match result {
        Ok(r) => Ok(serde_json::to_string(&r).expect("bench result serializes")),
        Err(msg) => Err(pyo3::exceptions::PyValueError::new_err(msg)),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic is reported as an error reply by `guarded`; keep its text and
    // place for that reply instead of printing a backtrace on stderr.
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', " ");
        LAST_PANIC.with(|p| *p.borrow_mut() = text);
    }));
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Every benchmark name, in the order `fabricsim bench` runs them.
    m.add("BENCH_NAMES", fabricsim::bench::NAMES.to_vec())?;
    // The scale rows, run by name or as `--which scale`.
    m.add("SCALE_BENCH_NAMES", fabricsim::bench::SCALE_NAMES.to_vec())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(routing, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(default_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(keys, m)?)?;
    m.add_function(wrap_pyfunction!(upgrade, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    Ok(())
}
