//! The driver's run-time guards: a backlog that grows without bound stops
//! the run within the memory budget, a caller can stop a run, draining
//! honours the time cap, and every result that is not what was asked is
//! flagged.

use fabricsim::sim::{Progress, RunObserver};
use fabricsim::{RunReport, Scenario, StopReason};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml, "<test>").unwrap_or_else(|e| panic!("{e}"))
}

fn run(toml: &str) -> RunReport {
    fabricsim::run(&scenario(toml)).unwrap_or_else(|e| panic!("{e}"))
}

fn flags(r: &RunReport) -> Vec<&str> {
    r.run.flags.iter().map(String::as_str).collect()
}

/// Today's link rates make the 3 us router the bottleneck: queues grow
/// without bound. The run stops at the memory budget and names the router.
#[test]
fn an_unbounded_backlog_stops_at_the_memory_budget_and_names_the_saturated_resource() {
    let r = run("[run]\nmemory_budget_mb = 16\n[link]\nbandwidth_mb_s = 100000\n");
    assert_eq!(r.run.stop_reason, StopReason::Overload);
    let o = &r.sections.iter().find(|(n, _)| n == "overload").expect("overload section").1;
    assert!(o["memory_mb"].as_f64().unwrap() > 16.0 && o["memory_mb"].as_f64().unwrap() < 40.0, "{o}");
    assert!(o["saturated"].as_str().unwrap().contains("router of switch 1"), "{o}");
    assert!(o["backlog"].as_u64().unwrap() > 100_000, "{o}");
    assert!(flags(&r).contains(&"overload"));
}

/// Fibres of 200,000 km (1 s): credits come back far too slowly, messages
/// pile up at the sources, and the budget ends the run.
#[test]
fn a_fabric_whose_credits_never_return_stops_at_the_memory_budget() {
    let r = run("[run]\nmemory_budget_mb = 16\n[link]\npropagation_ns = 1e9\n");
    assert_eq!(r.run.stop_reason, StopReason::Overload);
    assert!(flags(&r).contains(&"overload"));
}

#[test]
fn results_that_are_not_what_was_asked_are_flagged() {
    // The time cap ends the run before warm-up does.
    let r = run("[run]\nmax_time_ms = 1.0\n");
    assert_eq!(r.run.stop_reason, StopReason::MaxTime);
    assert!(flags(&r).contains(&"warmup_not_finished"), "{:?}", r.run.flags);
    // No node on another switch sends to the one switch: no traffic at all.
    let r = run("[run]\nmax_time_ms = 5.0\n[workload]\npattern = \"to_switch\"\ndestination_switch = 1\n");
    assert!(flags(&r).contains(&"no_traffic"), "{:?}", r.run.flags);
    // Class 2 saturates near 50%: 90% offered is not all accepted.
    let r = run(
        "[run]\nwarmup_observations = 5000\nmax_observations = 40000\nprecision = 0\n[workload]\noffered_load = 0.9\n",
    );
    assert!(flags(&r).contains(&"accepted_below_offered"), "{:?}", r.run.flags);
    assert!(flags(&r).contains(&"backlog_growing"), "{:?}", r.run.flags);
    // A precision the run cannot reach within its maximum.
    let r = run("[run]\nwarmup_observations = 0\nmax_observations = 3000\nmin_observations = 0\nprecision = 0.0001\n");
    assert_eq!(r.run.stop_reason, StopReason::MaxObservations);
    assert!(flags(&r).contains(&"precision_not_reached"), "{:?}", r.run.flags);
    // A clean light-load run carries no flag; saturated sources show no offered load.
    let r = run("[run]\nwarmup_observations = 1000\nmax_observations = 20000\nprecision = 0\n");
    assert!(r.run.flags.is_empty(), "{:?}", r.run.flags);
    assert!(r.metric("offered_load_pct").is_some());
    let r = run("[run]\nwarmup_observations = 1000\nmax_observations = 5000\nprecision = 0\n[workload]\narrivals = \"saturated\"\n");
    assert!(r.metric("offered_load_pct").is_none());
}

#[test]
fn draining_honours_the_time_cap() {
    // Overloaded Poisson sources never empty: the drain stops at the cap.
    let r = run(
        "[run]\nwarmup_observations = 0\nmax_observations = 5000\nprecision = 0\ndrain = true\nmax_time_ms = 50.0\n\
         [workload]\noffered_load = 1.5\n",
    );
    assert!(flags(&r).contains(&"drain_not_finished"), "{:?}", r.run.flags);
    assert!(r.counter("messages_in_progress").unwrap() > 0);
}

struct StopAfter(u32);

impl RunObserver for StopAfter {
    fn progress(&mut self, _: &Progress) -> bool {
        self.0 = self.0.saturating_sub(1);
        self.0 > 0
    }
}

#[test]
fn an_observer_stops_a_run_and_the_report_says_so() {
    let s = scenario("[run]\nprecision = 0\nmax_observations = 1000000000\nwarmup_observations = 0\n");
    let r = fabricsim::run::run_observed(&s, &mut StopAfter(2)).unwrap();
    assert_eq!(r.run.stop_reason, StopReason::Interrupted);
    assert!(flags(&r).contains(&"interrupted"));
    // Stopped after two looks about 100 ms apart, not at the end of the work.
    assert!(r.run.wall_time_s < 5.0, "{}", r.run.wall_time_s);
}

/// The largest fabrics the keys allow are refused before anything of their
/// size is built, with the estimate: a 65,536-HCA fat tree (it once grew to
/// 11.5 GB under `scenario check`; its two tables of a port byte per switch
/// and HCA take 2 GiB) and a 4,096-switch random network under Up*/Down*
/// (it once built for minutes; its routing works on matrices of switch
/// pairs). Both under the default 1 GiB budget; a budget above the estimate
/// lets a fabric through.
#[test]
fn fabrics_the_budget_cannot_hold_are_refused_before_they_are_built() {
    for (toml, name) in [
        ("[ib.topology]\nkind = \"fat_tree\"\narity = 16\nlevels = 4\n", "16384 switches and 65536 HCAs"),
        (
            "[ib.topology]\nkind = \"random\"\nswitches = 4096\n[ib.routing]\nalgorithm = \"updown\"\n",
            "4096 switches and 4096 HCAs",
        ),
    ] {
        let start = std::time::Instant::now();
        let s = scenario(toml);
        let e = fabricsim::run::check(&s).unwrap_err();
        let r = fabricsim::run::routing(&s).unwrap_err();
        assert!(start.elapsed().as_secs_f64() < 10.0, "{name}: {:?}", start.elapsed());
        assert_eq!(e.key.as_deref(), Some("run.memory_budget_mb"), "{e}");
        assert_eq!(e.value.as_deref(), Some("1024"), "{e}");
        assert!(e.message.contains(name) && e.message.contains("needs an estimated"), "{e}");
        assert!(e.allowed.as_deref().unwrap().contains("forwarding tables"), "{e}");
        assert_eq!(r.key, e.key, "{r}");
    }
    // The 8-ary 4-tree: an estimated 55 MiB at its peak (56 measured).
    let medium = "[ib.topology]\nkind = \"fat_tree\"\narity = 8\nlevels = 4\n";
    let e = fabricsim::run::check(&scenario(&format!("[run]\nmemory_budget_mb = 32\n{medium}"))).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("run.memory_budget_mb"), "{e}");
    fabricsim::run::check(&scenario(&format!("[run]\nmemory_budget_mb = 64\n{medium}"))).expect("fits 64 MiB");
}
