#!/usr/bin/env python3
"""Whether a change that moves the golden fingerprints (a different order of
events at one instant, say) moved the model's results: each golden scenario
is run with seeds 1..N by two builds of `run_scenario` (`cargo build
--release -p fabricsim --example run_scenario`, one per build), and for every
metric the mean over the seeds of each build is compared with the
difference's standard error (the two standard errors in quadrature).

Usage: scripts/seed_shift.py OLD_RUN_SCENARIO NEW_RUN_SCENARIO [--seeds N] [--golden DIR]
  --seeds N     replications per build and scenario (default 12)
  --golden DIR  the scenarios (default crates/fabricsim/tests/golden)
Prints, per scenario, each metric's two means and the shift in standard
errors, and the largest shift. A run that stops differently (a deadlock found
in one build and not the other) is listed. Exit status 0; the table is for reading.
"""
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path


def run(binary, scenario, seed):
    out = subprocess.run([binary, str(scenario), f"run.seed={seed}"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"error: {binary} {scenario} run.seed={seed} failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def metric_means(report):
    """Each metric's mean in a run report (`metrics` maps a name to its summary)."""
    return {name: m["mean"] for name, m in report["metrics"].items() if m.get("mean") is not None}


def main(argv):
    args, seeds, golden = [], 12, Path("crates/fabricsim/tests/golden")
    it = iter(argv)
    for a in it:
        if a == "--seeds":
            seeds = int(next(it))
        elif a == "--golden":
            golden = Path(next(it))
        else:
            args.append(a)
    if len(args) != 2:
        sys.exit(__doc__)
    old_bin, new_bin = args
    worst_all = 0.0
    print("| scenario | metric | before (mean of seeds) | after | shift (standard errors) |")
    print("|---|---|---|---|---|")
    for scenario in sorted(golden.glob("*.toml")):
        old = [run(old_bin, scenario, s) for s in range(1, seeds + 1)]
        new = [run(new_bin, scenario, s) for s in range(1, seeds + 1)]
        stops = lambda rs: sorted({r["run"]["stop_reason"] for r in rs})
        if stops(old) != stops(new):
            print(f"| {scenario.stem} | stop reasons | {stops(old)} | {stops(new)} | |")
        old_means, new_means = [metric_means(r) for r in old], [metric_means(r) for r in new]
        worst = (0.0, "")
        names = set.intersection(*(set(m) for m in old_means + new_means))
        for name in sorted(names):
            a = [m[name] for m in old_means]
            b = [m[name] for m in new_means]
            se = math.hypot(statistics.stdev(a), statistics.stdev(b)) / math.sqrt(seeds)
            ma, mb = statistics.fmean(a), statistics.fmean(b)
            z = 0.0 if ma == mb else (abs(mb - ma) / se if se > 0 else math.inf)
            worst = max(worst, (z, name))
            print(f"| {scenario.stem} | {name} | {ma:.6g} | {mb:.6g} | {z:.2f} |")
        print(f"| {scenario.stem} | **largest shift** | | | **{worst[0]:.2f}** ({worst[1]}) |")
        worst_all = max(worst_all, worst[0])
    print(f"\nlargest shift over all scenarios and metrics: {worst_all:.2f} standard errors ({seeds} seeds per build)")


if __name__ == "__main__":
    main(sys.argv[1:])
