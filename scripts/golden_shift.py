#!/usr/bin/env python3
"""How far a re-baselined golden moved: for every scenario in two golden
directories (the fingerprints before and after, `crates/fabricsim/tests/golden`),
each metric's mean before (with its 95% confidence half-width) and after, and
whether the new mean lies in the old interval and within the interval of the
difference (the two half-widths in quadrature). Events and sim time are listed
per scenario. A metric without an interval (a single total, a share) shows its
relative change.

Usage: scripts/golden_shift.py OLD_DIR NEW_DIR [--all]
  OLD_DIR, NEW_DIR  directories of *.json fingerprints, e.g. a `git worktree`
                    of the commit before and the working tree.
  --all             list every metric (default: only those that moved).
Exit status: 0; the table is for reading, the verdict is the reader's.
"""
import json
import math
import sys
from pathlib import Path


def fmt(x):
    return "no value" if x is None else f"{x:.6g}"


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    show_all = "--all" in argv
    old_dir, new_dir = map(Path, args)
    for d in (old_dir, new_dir):
        if not d.is_dir():
            sys.exit(f"error: {d}: not a directory of golden fingerprints")
    inside = outside = no_ci = 0
    print("| scenario | metric | before (mean ± 95% half-width) | after | in old CI | within diff CI |")
    print("|---|---|---|---|---|---|")
    for old_path in sorted(old_dir.glob("*.json")):
        new_path = new_dir / old_path.name
        if not new_path.exists():
            print(f"| {old_path.stem} | (missing after) | | | | |")
            continue
        old, new = json.loads(old_path.read_text()), json.loads(new_path.read_text())
        if old == new:
            continue
        name = old_path.stem
        print(f"| {name} | events | {old['events']} | {new['events']} | | |")
        for name_m, a in old["metrics"].items():
            b = new["metrics"].get(name_m, {})
            ma, mb, ha, hb = a.get("mean"), b.get("mean"), a.get("ci_half_width"), b.get("ci_half_width")
            if ma == mb and not show_all:
                continue
            if ma is None or mb is None:
                print(f"| {name} | {name_m} | {fmt(ma)} | {fmt(mb)} | | |")
                continue
            if ha is None:
                no_ci += 1
                rel = (mb - ma) / abs(ma) if ma else float("inf") if mb else 0.0
                print(f"| {name} | {name_m} | {fmt(ma)} (no CI) | {fmt(mb)} ({rel:+.2%}) | | |")
                continue
            in_old = abs(mb - ma) <= ha
            in_diff = abs(mb - ma) <= math.hypot(ha, hb or 0.0)
            inside += in_old
            outside += not in_old
            print(f"| {name} | {name_m} | {fmt(ma)} ± {fmt(ha)} | {fmt(mb)} | {'yes' if in_old else 'NO'} "
                  f"| {'yes' if in_diff else 'NO'} |")
    print()
    print(f"metrics with an interval: {inside} inside the old one, {outside} outside; {no_ci} moved without one")


if __name__ == "__main__":
    main(sys.argv[1:])
