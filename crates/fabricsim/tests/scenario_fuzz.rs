//! Property tests of scenario input: TOML and JSON scenarios of random keys
//! (known ones, misspelt ones, whole sections), random values of every type
//! (boundaries of every range, numbers that wrap or overflow, NaN and
//! infinities, dates, lists, tables) and random damage to the text. Loading
//! and building the model (`fabricsim::run::check`) must never panic: each
//! input is taken or refused with a clean error naming the file.
//!
//! Each test also counts what it saw and asserts a floor of accepted
//! inputs (a generator that stopped making loadable scenarios would make the
//! test pass vacuously) and a ceiling on inputs it could not even write out;
//! a run that fails (a conservation audit, an invariant) fails the test:
//! only scenario errors are allowed.
//!
//! `FABRICSIM_FUZZ_CASES` sets the number of inputs per test (default 256).
//! The inputs are the same on every run (seed 0), so a test run's time and
//! verdict repeat; `FABRICSIM_FUZZ_SEED=N` draws other inputs, and
//! `FABRICSIM_FUZZ_SEED=random` new ones on every run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use fabricsim::scenario::check::RangeKind;
use fabricsim::scenario::keys::key_reference;
use fabricsim::scenario::ranges;
use fabricsim::scenario::MODELS;
use fabricsim::sim::{Progress, RunObserver};
use fabricsim::{Error, ErrorKind, Scenario, StopReason};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

/// A scenario value of any type, TOML's dates included.
#[derive(Clone, Debug)]
enum V {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Date(&'static str),
    List(Vec<V>),
    Table(Vec<(String, V)>),
}

fn cases() -> u32 {
    std::env::var("FABRICSIM_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

fn seed() -> RngSeed {
    match std::env::var("FABRICSIM_FUZZ_SEED") {
        Err(_) => RngSeed::Fixed(0),
        Ok(v) if v == "random" => RngSeed::Random,
        Ok(v) => RngSeed::Fixed(
            v.parse().unwrap_or_else(|_| panic!("FABRICSIM_FUZZ_SEED = {v:?}: expected a whole number or \"random\"")),
        ),
    }
}

fn runner() -> TestRunner {
    TestRunner::new(Config { cases: cases(), failure_persistence: None, rng_seed: seed(), ..Config::default() })
}

/// Every key of the reference, and the names of every choice it lists.
fn keys() -> &'static (Vec<String>, Vec<String>) {
    static KEYS: OnceLock<(Vec<String>, Vec<String>)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let refs = key_reference();
        let mut choices: Vec<String> = refs
            .iter()
            .flat_map(|k| k.allowed.split('"').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>())
            .collect();
        choices.extend(["cheetah9lp", "barracuda", "sinha-disk1", "no-such-drive"].map(String::from));
        choices.sort();
        choices.dedup();
        (refs.into_iter().map(|k| k.key).collect(), choices)
    })
}

/// Bounds of every range and the numbers just outside them.
fn boundaries() -> &'static Vec<f64> {
    static B: OnceLock<Vec<f64>> = OnceLock::new();
    B.get_or_init(|| {
        let mut v: Vec<f64> = ranges()
            .filter(|r| r.kind != RangeKind::IntegerList || r.hi < 1e6)
            .flat_map(|r| [r.lo, r.hi, r.lo - 1.0, r.hi + 1.0, r.hi * 1.5, (r.lo + r.hi) / 2.0])
            .collect();
        v.retain(|x| x.is_finite());
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    })
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => prop::sample::select(vec![
            0, 1, 2, 3, 4, 5, 6, 8, 15, 16, 17, 24, 25, 36, 64, 93, 100, 125, 126, 127, 200, 239, 240, 255, 256, 257,
            1000, 1024, 1025, 2048, 2112, 4096, 65535, 65536, 1 << 20, 1 << 26, 1 << 31, (1 << 32) - 1, 1 << 32,
            1 << 53, i64::MAX, -1, -2, i64::MIN,
        ]),
        3 => prop::sample::select(boundaries().clone()).prop_map(|f| f as i64),
        2 => 0i64..300,
        1 => any::<i64>(),
    ]
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => prop::sample::select(vec![
            0.0, -0.0, 1e-300, 1e-9, 0.001, 0.1, 0.3, 0.5, 1.0, 1.5, 2.0, 2.5, 26.6, 1e5, 1e6, 1.0625e9, 1e9,
            1e11, 1e17, 1e300, f64::MAX, f64::MIN_POSITIVE, -1.0, -1e300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
            4294967295.0, 4294967296.0, 9007199254740993.0, 1e19,
        ]),
        3 => prop::sample::select(boundaries().clone()),
        2 => any::<f64>(),
    ]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(keys().1.clone()),
        1 => prop::collection::vec(any::<char>(), 0..8).prop_map(|c| c.into_iter().collect()),
        1 => Just(String::new()),
    ]
}

fn scalar() -> impl Strategy<Value = V> {
    prop_oneof![
        4 => int().prop_map(V::Int),
        4 => float().prop_map(V::Float),
        2 => string().prop_map(V::Str),
        1 => any::<bool>().prop_map(V::Bool),
        1 => prop::sample::select(vec!["1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "1979-05-27T00:32:00.999999"])
            .prop_map(V::Date),
    ]
}

fn value() -> impl Strategy<Value = V> {
    prop_oneof![
        6 => scalar(),
        2 => prop::collection::vec(int().prop_map(V::Int), 0..6).prop_map(V::List),
        1 => prop::collection::vec(prop::collection::vec(int().prop_map(V::Int), 0..4).prop_map(V::List), 0..5)
            .prop_map(V::List),
        1 => prop::collection::vec(scalar(), 0..3).prop_map(V::List),
        1 => prop::collection::vec((name(), scalar()), 0..3).prop_map(V::Table),
    ]
}

/// A key: one of the reference (mostly), a section name, or a misspelt one.
fn key() -> impl Strategy<Value = String> {
    let known = keys().0.clone();
    prop_oneof![
        8 => prop::sample::select(known.clone()),
        1 => prop::sample::select(vec![
            "run", "topology", "routing", "switch", "link", "protocol", "workload", "workload.sizes", "loop",
            "disks", "initiator", "fabric", "run.max_frames", "routing.override",
        ])
        .prop_map(String::from),
        1 => (prop::sample::select(known), name()).prop_map(|(k, s)| format!("{k}{s}")),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["x", "kind", "count", "seed", "ports", "nodes", "_", "z"]).prop_map(String::from)
}

/// Inserts `value` at the dotted `key`: `disks.*` and `routing.override.*`
/// go into one of the groups of their array of tables.
fn insert(root: &mut Vec<(String, V)>, key: &str, value: V, group: usize) {
    let parts: Vec<&str> = key.split('.').collect();
    let mut node = root;
    for (i, part) in parts.iter().enumerate() {
        let last = i == parts.len() - 1;
        let is_array = (i == 0 && *part == "disks") || (i == 1 && parts[0] == "routing" && *part == "override");
        if last {
            node.retain(|(k, _)| k != part);
            node.push((part.to_string(), value));
            return;
        }
        let pos = match node.iter().position(|(k, _)| k == part) {
            Some(p) => p,
            None => {
                let fresh = if is_array { V::List(vec![V::Table(vec![])]) } else { V::Table(vec![]) };
                node.push((part.to_string(), fresh));
                node.len() - 1
            }
        };
        let slot = &mut node[pos].1;
        if is_array {
            let ok = matches!(slot, V::List(g) if !g.is_empty() && g.iter().all(|t| matches!(t, V::Table(_))));
            if !ok {
                *slot = V::List(vec![V::Table(vec![])]);
            }
            let V::List(groups) = slot else { unreachable!() };
            while groups.len() <= group % 3 {
                groups.push(V::Table(vec![]));
            }
            let n = groups.len();
            let V::Table(t) = &mut groups[group % n] else { unreachable!() };
            node = t;
            continue;
        }
        if !matches!(slot, V::Table(_)) {
            *slot = V::Table(vec![]);
        }
        let V::Table(t) = slot else { unreachable!() };
        node = t;
    }
}

fn scenario() -> impl Strategy<Value = Vec<(String, V)>> {
    let model = prop_oneof![Just(0u8), Just(1u8), Just(2u8)];
    (model, prop::collection::vec((key(), value(), 0usize..3), 0..10)).prop_map(|(model, entries)| {
        let mut root = Vec::new();
        // A loop scenario most of the time has its required sections.
        if model == 1 {
            insert(&mut root, "loop.initialize", V::Bool(false), 0);
            insert(&mut root, "disks.count", V::Int(2), 0);
        }
        for (k, v, g) in entries {
            insert(&mut root, &k, v, g);
        }
        root
    })
}

/// A key of a range with a value inside it (mostly), or a key of choices with one of them.
fn plausible_entry() -> impl Strategy<Value = (String, V)> {
    let all: Vec<_> = ranges().copied().collect();
    let ranged = prop::sample::select(all).prop_flat_map(|r| {
        let key = r.key.to_string();
        let (lo, hi) = (r.lo, r.hi.min(i64::MAX as f64));
        let value: BoxedStrategy<V> = match r.kind {
            RangeKind::Integer => prop_oneof![
                prop::sample::select(vec![lo, hi, (lo + hi) / 2.0, lo + 1.0]).prop_map(|x| V::Int(x as i64)),
                (lo as i64..=(hi.min(lo + 300.0)) as i64).prop_map(V::Int),
            ]
            .boxed(),
            RangeKind::Number => prop_oneof![
                prop::sample::select(vec![lo, hi, (lo + hi) / 2.0]).prop_map(V::Float),
                (0.0..=1.0f64).prop_map(move |u| V::Float(lo + u * (hi - lo))),
                (0.0..=1.0f64).prop_map(move |u| V::Float(lo.max(1e-3) * (hi / lo.max(1e-3)).powf(u))),
            ]
            .boxed(),
            RangeKind::IntegerList if r.key == "topology.trunks" => {
                prop::collection::vec((1i64..=6, 1i64..=6, 1i64..=3), 0..6)
                    .prop_map(|t| {
                        V::List(t.into_iter().map(|(a, b, m)| V::List(vec![V::Int(a), V::Int(b), V::Int(m)])).collect())
                    })
                    .boxed()
            }
            RangeKind::IntegerList => prop::collection::vec(lo as i64..=(hi.min(lo + 20.0)) as i64, 1..6)
                .prop_map(|l| V::List(l.into_iter().map(V::Int).collect()))
                .boxed(),
        };
        (Just(key), value)
    });
    let choices: Vec<(String, String)> = key_reference()
        .into_iter()
        .flat_map(|k| {
            k.allowed.split('"').skip(1).step_by(2).map(|c| (k.key.clone(), c.to_string())).collect::<Vec<_>>()
        })
        .collect();
    prop_oneof![3 => ranged, 1 => prop::sample::select(choices).prop_map(|(k, c)| (k, V::Str(c)))]
}

/// A scenario of one model: its selecting section, the disks it requires, and
/// keys of its own sections or of `[run]` (keys of another model would only
/// be refused, and the random scenarios above try those).
fn plausible_scenario() -> impl Strategy<Value = (usize, Vec<(String, V)>)> {
    (0..MODELS.len(), prop::collection::vec((plausible_entry(), 0usize..3), 0..8)).prop_map(|(m, entries)| {
        let model = &MODELS[m];
        let mut root = Vec::new();
        if let Some(section) = model.selected_by.first() {
            root.push((section.to_string(), V::Table(vec![])));
        }
        if model.required.contains(&"disks") {
            insert(&mut root, "loop.initialize", V::Bool(false), 0);
            insert(&mut root, "disks.count", V::Int(2), 0);
        }
        for ((k, v), g) in entries {
            let section = k.split('.').next().unwrap_or("");
            if section == "run" || model.sections.contains(&section) {
                insert(&mut root, &k, v, g);
            }
        }
        (m, root)
    })
}

fn to_toml(v: &V) -> toml::Value {
    match v {
        V::Int(i) => toml::Value::Integer(*i),
        V::Float(f) => toml::Value::Float(*f),
        V::Str(s) => toml::Value::String(s.clone()),
        V::Bool(b) => toml::Value::Boolean(*b),
        V::Date(d) => toml::Value::Datetime(d.parse().expect("a TOML date")),
        V::List(l) => toml::Value::Array(l.iter().map(to_toml).collect()),
        V::Table(t) => toml::Value::Table(t.iter().map(|(k, v)| (k.clone(), to_toml(v))).collect()),
    }
}

fn to_json(v: &V) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        V::Int(i) => J::from(*i),
        V::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        V::Str(s) => J::String(s.clone()),
        V::Bool(b) => J::Bool(*b),
        V::Date(d) => J::String(d.to_string()),
        V::List(l) => J::Array(l.iter().map(to_json).collect()),
        V::Table(t) => J::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
    }
}

/// Text damage: none, a byte order mark, a cut, or characters spliced in.
fn damage() -> impl Strategy<Value = (u8, usize, String)> {
    (0u8..8, any::<usize>(), prop::collection::vec(any::<char>(), 0..4).prop_map(|c| c.into_iter().collect()))
}

fn apply(text: &str, (kind, at, insert): &(u8, usize, String)) -> String {
    let mut cut = at % (text.len() + 1);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    match kind {
        0 => format!("\u{feff}{text}"),
        1 => text[..cut].to_string(),
        2 => format!("{}{insert}{}", &text[..cut], &text[cut..]),
        _ => text.to_string(),
    }
}

/// A refusal is a scenario error that names the file and speaks no Rust.
fn assert_clean(e: &Error, source: &str, input: &str) {
    assert_eq!(e.file.as_deref(), Some(source), "{e}\n{input}");
    assert!(!e.message.is_empty(), "{e}\n{input}");
    if e.message.starts_with("invalid TOML") || e.message.starts_with("invalid scenario data") {
        return;
    }
    let text = e.to_string();
    for rust in
        ["expected u", "expected i", "expected f", "struct ", "trailing characters", "invalid type:", "invalid value:"]
    {
        assert!(!text.contains(rust), "`{rust}` in {text}\n{input}");
    }
}

/// Inputs built, refused by the loader, refused by the model build, and
/// skipped because the generated table could not be written as TOML.
#[derive(Default)]
struct Counts([AtomicU64; 4]);

const SKIPPED: usize = 3;

impl Counts {
    fn skip(&self) {
        self.0[SKIPPED].fetch_add(1, Ordering::Relaxed);
    }

    /// Prints the counts, and checks that at least `min_built` of every
    /// 100 inputs built and at most 10 in 100 were skipped.
    fn report(&self, test: &str, min_built: u64) {
        let [built, refused, by_model, skipped] = self.0.each_ref().map(|c| c.load(Ordering::Relaxed));
        eprintln!(
            "{test}: {built} built, {refused} refused by the loader, {by_model} by the model build, {skipped} skipped"
        );
        let n = built + refused + by_model + skipped;
        assert_eq!(n, cases() as u64, "{test}: every input is counted once");
        assert!(built * 100 >= min_built * n, "{test}: {built} of {n} inputs built, fewer than {min_built}%");
        assert!(skipped * 10 <= n, "{test}: {skipped} of {n} inputs could not be written as TOML");
    }
}

/// Loads, then builds the model: Ok or a clean error, never a panic.
fn load_and_check(result: fabricsim::Result<Scenario>, source: &str, input: &str, counts: &Counts) -> Option<Scenario> {
    let (outcome, built) = match result {
        Ok(s) => match fabricsim::run::check(&s) {
            Ok(()) => (0, Some(s)),
            Err(e) => {
                assert_clean(&e.in_file(source), source, input);
                (2, None)
            }
        },
        Err(e) => {
            assert_clean(&e, source, input);
            (1, None)
        }
    };
    counts.0[outcome].fetch_add(1, Ordering::Relaxed);
    built
}

#[test]
fn random_toml_scenarios_load_or_fail_cleanly() {
    let counts = Counts::default();
    runner()
        .run(&(scenario(), damage()), |(root, dmg)| {
            let table = match to_toml(&V::Table(root)) {
                toml::Value::Table(t) => t,
                _ => unreachable!(),
            };
            let Ok(text) = toml::to_string(&table) else {
                counts.skip();
                return Ok(());
            };
            let text = apply(&text, &dmg);
            load_and_check(Scenario::from_toml_str(&text, "fuzz.toml"), "fuzz.toml", &text, &counts);
            Ok(())
        })
        .unwrap();
    counts.report("toml", 3);
}

#[test]
fn random_json_scenarios_load_or_fail_cleanly() {
    let counts = Counts::default();
    runner()
        .run(&(scenario(), damage()), |(root, dmg)| {
            let text = to_json(&V::Table(root)).to_string();
            let text = if dmg.0 < 3 { apply(&text, &dmg) } else { text };
            load_and_check(Scenario::from_json_str(&text, "<dict>"), "<dict>", &text, &counts);
            Ok(())
        })
        .unwrap();
    counts.report("json", 3);
}

/// Wall-clock seconds a plausible scenario may run (`FABRICSIM_FUZZ_RUN_S`, default 10).
fn run_limit() -> Duration {
    Duration::from_secs_f64(std::env::var("FABRICSIM_FUZZ_RUN_S").ok().and_then(|v| v.parse().ok()).unwrap_or(10.0))
}

/// Ends a run (as `interrupted`) once its wall-clock time is up.
struct Deadline(Instant);

impl RunObserver for Deadline {
    fn progress(&mut self, _: &Progress) -> bool {
        Instant::now() < self.0
    }
}

/// What the runs of one model came to.
#[derive(Default)]
struct Runs {
    runs: u64,
    measured: u64,
    refused: u64,
    cut: u64,
    slowest: Duration,
    slowest_input: String,
}

/// Scenarios of values inside (or at the edges of) every range build, or
/// are refused cleanly; those that build run a few observations (at most
/// 50 simulated ms and `run_limit()` of wall time) without a panic, and
/// each of the five models gets its share of runs.
#[test]
fn plausible_scenarios_build_and_run_or_fail_cleanly() {
    let counts = Counts::default();
    let per_model = Mutex::new((0..MODELS.len()).map(|_| Runs::default()).collect::<Vec<_>>());
    runner()
        .run(&plausible_scenario(), |(m, mut root)| {
            for (k, v) in [
                ("run.warmup_observations", V::Int(0)),
                ("run.max_observations", V::Int(1000)),
                ("run.min_observations", V::Int(0)),
                ("run.precision", V::Float(0.0)),
                ("run.max_time_ms", V::Float(50.0)),
                ("run.drain", V::Bool(false)),
            ] {
                insert(&mut root, k, v, 0);
            }
            let table = match to_toml(&V::Table(root)) {
                toml::Value::Table(t) => t,
                _ => unreachable!(),
            };
            let Ok(text) = toml::to_string(&table) else {
                counts.skip();
                return Ok(());
            };
            let start = Instant::now();
            if let Some(s) = load_and_check(Scenario::from_toml_str(&text, "fuzz.toml"), "fuzz.toml", &text, &counts) {
                assert_eq!(s.model_kind(), MODELS[m].kind, "{text}");
                // A scenario may still ask for what only a run finds impossible;
                // a failed audit or a broken invariant is a bug.
                let outcome = fabricsim::run::run_observed(&s, &mut Deadline(Instant::now() + run_limit()));
                let mut tally = per_model.lock().unwrap();
                let t = &mut tally[m];
                t.runs += 1;
                if start.elapsed() > t.slowest {
                    t.slowest = start.elapsed();
                    t.slowest_input = text.clone();
                }
                match outcome {
                    Ok(r) => {
                        t.measured += u64::from(r.run.observations > 0);
                        t.cut += u64::from(r.run.stop_reason == StopReason::Interrupted);
                    }
                    Err(e) => {
                        assert_eq!(e.kind, ErrorKind::Scenario, "{e}\n{text}");
                        assert!(!e.message.is_empty(), "{e}\n{text}");
                        t.refused += 1;
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    for (entry, t) in MODELS.iter().zip(per_model.into_inner().unwrap()) {
        eprintln!(
            "plausible {}: {} run, {} of them measured something, {} refused at run time, {} cut at the wall-clock \
             limit; slowest case {:.2} s",
            entry.name,
            t.runs,
            t.measured,
            t.refused,
            t.cut,
            t.slowest.as_secs_f64()
        );
        if t.slowest > run_limit() {
            // Longer than a run may take: the build was slow; show what asked for it.
            eprintln!("plausible {}: the slowest input\n{}", entry.name, t.slowest_input);
        }
        // Every model is drawn a fifth of the time; at least a quarter of those must run.
        assert!(t.runs * 20 >= cases() as u64, "plausible {}: only {} of {} inputs ran", entry.name, t.runs, cases());
    }
    counts.report("plausible", 40);
}
