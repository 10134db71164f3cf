#!/usr/bin/env python3
"""fabricsim's speed against its peers, on the same workloads, taking turns.

For each case, N pairs (default 5): fabricsim's bench row once, then the
peer once. Per pair, and over the pairs (median, min-max), it prints the
peer's time per unit of work over fabricsim's, for wall time and for CPU
time; above 1, fabricsim is faster.

Cases (`ib` is the two BookSim2 ones, `all` every case):
  fc           row fc-simpy-switch against simpy_fc_switch.py --cls 2 --credits 2
               --load 0.5; per data frame delivered
  ib-irregular row ib-booksim-irregular against booksim_ib_peer.sh --only
               ib15_irregular; per packet-hop (a packet crossing a switch)
  ib-fat-tree  row ib-booksim-fat-tree against booksim_ib_peer.sh --only
               fattree_k4n3; per packet-hop

Times. Wall: each simulator's own measure of its run (fabricsim: the run
after the fabric is built; SimPy: its env.run calls; BookSim: its process, as the
peer script's GNU time measures it). CPU: user + system time of the whole
process (fabricsim and SimPy: this script's rusage of the child; BookSim:
the peer script's GNU time).

Work. fabricsim counts over the whole run, as BookSim's script does. SimPy
counts data frames delivered after its warm-up (a tenth of its simulated
time) only, so its frames over the whole run are taken as 1.1 times those.

Needs no network: BookSim2 is built from the source tree or git directory
given (once, in the scratch directory), unless it holds a built src/booksim.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIMPY_ARGS = ["--cls", "2", "--credits", "2", "--load", "0.5"]
# SimPy's warm-up is a tenth of its measured simulated time, uncounted.
SIMPY_WHOLE_RUN_FACTOR = 1.1


class HarnessError(Exception):
    """A problem the message explains; exit status `code`."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


@dataclass
class Case:
    name: str
    row: str          # fabricsim bench row
    unit: str         # the work both sides are divided by


CASES = {
    "fc": Case("fc", "fc-simpy-switch", "data frame"),
    "ib-irregular": Case("ib-irregular", "ib-booksim-irregular", "packet-hop"),
    "ib-fat-tree": Case("ib-fat-tree", "ib-booksim-fat-tree", "packet-hop"),
}
GROUPS = {"ib": ["ib-irregular", "ib-fat-tree"], "all": list(CASES)}
BOOKSIM_CONFIG = {"ib-irregular": "ib15_irregular", "ib-fat-tree": "fattree_k4n3"}


@dataclass
class Measure:
    """One simulator's run: its wall and CPU seconds and the work done."""

    wall_s: float
    cpu_s: float
    work: float
    extra: dict = field(default_factory=dict)


def ratio(peer: float, peer_work: float, ours: float, our_work: float) -> float | None:
    """The peer's time per unit of work over ours; None where a time is zero."""
    if ours <= 0 or peer_work <= 0 or our_work <= 0:
        return None
    return (peer / peer_work) / (ours / our_work)


def spread(values: list[float | None]) -> dict | None:
    """Median, min and max of the defined values."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    return {"median": statistics.median(got), "min": min(got), "max": max(got), "pairs": len(got)}


def run_timed(command: list[str], what: str) -> tuple[str, float]:
    """Runs `command`; its stdout and its CPU seconds (user + system). A
    failure is an error quoting the end of its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        raise HarnessError(f"cannot run {what} ({command[0]}): {e}") from None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise HarnessError(f"{what} failed (exit {proc.returncode}): {' '.join(command)}\n{tail}", code=1)
    return proc.stdout, cpu


def is_git_dir(path: Path) -> bool:
    """Whether `path` is a git directory with a commit (bare or not), as the peer script reads it."""
    try:
        proc = subprocess.run(["git", "--git-dir", str(path), "rev-parse", "--verify", "HEAD"],
                              capture_output=True, text=True)
    except OSError:
        raise HarnessError(f"--booksim2 {path} has no src/Makefile, and git, to read it as a git directory, "
                           "is not installed") from None
    return proc.returncode == 0


def last_json(text: str, what: str) -> dict:
    """The last line of `text` that is a JSON object."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                break
    raise HarnessError(f"{what} printed no JSON result:\n{text[-2000:]}", code=1)


class Runner:
    """Checks the simulators are there, then runs one of each on demand."""

    def __init__(self, args: argparse.Namespace, cases: list[str], scratch: Path):
        self.args = args
        self.scratch = scratch
        self.bench_case = self._check_bench_case(Path(args.bench_case), [CASES[c].row for c in cases])
        peers = Path(args.peers)
        if not peers.is_dir():
            raise HarnessError(f"peers directory not found: {peers} (give it with --peers)")
        self.simpy_script = self.booksim_script = None
        self.booksim_source: str | None = None
        if "fc" in cases:
            self.simpy_script = self._peer_file(peers, "simpy_fc_switch.py")
            self._check_simpy(args.python)
        if any(c in BOOKSIM_CONFIG for c in cases):
            self.booksim_script = self._peer_file(peers, "booksim_ib_peer.sh")
            if shutil.which("bash") is None:
                raise HarnessError("bash not found: the BookSim2 peer script needs it")
            self.booksim_source = self._booksim_source(args.booksim2)
            given_built = (Path(self.booksim_source) / "src" / "booksim").is_file()
            if not given_built and (self._built_booksim() / "src" / "booksim").is_file():
                self.booksim_source = str(self._built_booksim())  # built in this --workdir before

    def _built_booksim(self) -> Path:
        """Where the peer script builds BookSim2 in the scratch directory."""
        return self.scratch / "booksim" / "booksim2"

    @staticmethod
    def _check_bench_case(path: Path, rows: list[str]) -> Path:
        hint = "cargo build --release -p fabricsim-bench --example bench_case"
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise HarnessError(f"bench_case binary not found: {path} (build it: {hint}; give it with --bench-case)")
        path = path.resolve()  # a bare name would be looked up on the PATH
        # Without arguments it fails with its usage, which lists the rows it knows.
        usage = subprocess.run([str(path)], capture_output=True, text=True).stderr
        known = set(re.findall(r"[a-z0-9][a-z0-9-]*", usage))
        missing = [r for r in rows if r not in known]
        if missing:
            raise HarnessError(f"{path} has no row {', '.join(missing)}: it predates them (rebuild it: {hint})")
        return path

    @staticmethod
    def _peer_file(peers: Path, name: str) -> Path:
        path = peers / name
        if not path.is_file():
            raise HarnessError(f"peer missing: {path} (the peers directory is {peers}; give another with --peers)")
        return path

    @staticmethod
    def _check_simpy(python: str) -> None:
        try:
            proc = subprocess.run([python, "-c", "import simpy"], capture_output=True, text=True)
        except OSError as e:
            raise HarnessError(f"cannot run the SimPy peer's python {python}: {e} (give one with --python)") from None
        if proc.returncode != 0:
            raise HarnessError(
                f"peer missing: {python} cannot import simpy (pip install simpy there, or give "
                "another interpreter with --python)"
            )

    def _booksim_source(self, given: str | None) -> str:
        """What to pass the peer script: a built tree as it is; anything else
        is built once, by the first run, into the scratch directory."""
        if not given:
            raise HarnessError(
                "peer missing: the BookSim2 cases need --booksim2 (a BookSim2 source tree, its git directory, "
                "or a built src/booksim)"
            )
        path = Path(given)
        if not path.exists():
            raise HarnessError(f"peer missing: --booksim2 {path} does not exist")
        if path.is_file():  # a built binary: the script takes the tree around it
            tree = path.resolve().parent.parent
            if path.resolve() != (tree / "src" / "booksim").resolve() or not (tree / "src" / "Makefile").is_file():
                raise HarnessError(f"--booksim2 {path}: a binary must be a BookSim2 tree's src/booksim")
            return str(tree)
        if not (path / "src" / "Makefile").is_file() and not is_git_dir(path):
            raise HarnessError(
                f"peer missing: --booksim2 {path} is neither a BookSim2 source tree (no src/Makefile) "
                "nor a git directory"
            )
        return str(path)

    def fabricsim(self, case: Case, size: int) -> Measure:
        out, cpu = run_timed([str(self.bench_case), case.row, str(size)], f"bench_case {case.row}")
        try:
            row = json.loads(out)
        except json.JSONDecodeError:
            raise HarnessError(f"bench_case {case.row} printed no JSON result:\n{out[-2000:]}", code=1) from None
        work = row["data_frames"] if case.name == "fc" else row["hops"]
        return Measure(row["wall_s"], cpu, float(work), {"frames": row["frames"], "flags": row.get("flags", [])})

    def simpy(self) -> Measure:
        command = [self.args.python, str(self.simpy_script), *SIMPY_ARGS, "--frames", str(self.args.simpy_frames)]
        out, cpu = run_timed(command, "the SimPy peer")
        rec = last_json(out, "the SimPy peer")
        work = rec["delivered"] * SIMPY_WHOLE_RUN_FACTOR
        return Measure(rec["wall_s"], cpu, work, {"delivered_measured": rec["delivered"],
                                                  "throughput": rec["throughput"]})

    def booksim(self, case: Case) -> Measure:
        work_dir = self.scratch / "booksim"
        command = ["bash", str(self.booksim_script), self.booksim_source, "--repeats", "1",
                   "--only", BOOKSIM_CONFIG[case.name], "--workdir", str(work_dir)]
        out, _ = run_timed(command, f"the BookSim2 peer ({BOOKSIM_CONFIG[case.name]})")
        rec = last_json(out, "the BookSim2 peer")
        if (self._built_booksim() / "src" / "booksim").is_file():
            self.booksim_source = str(self._built_booksim())  # built by this run: later runs reuse it
        return Measure(rec["wall_s"], rec["cpu_s"], float(rec["packet_hops"]), {"packets": rec["packets"]})

    def peer(self, case: Case) -> Measure:
        return self.simpy() if case.name == "fc" else self.booksim(case)


def fmt(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:,.{digits}f}"


def report_case(case: Case, pairs: list[dict], echo) -> dict:
    """The case's summary over its pairs, printed and returned."""
    summary = {"case": case.name, "row": case.row, "unit": case.unit, "pairs": len(pairs),
               "wall_ratio": spread([p["wall_ratio"] for p in pairs]),
               "cpu_ratio": spread([p["cpu_ratio"] for p in pairs])}
    parts = []
    for key, label in (("wall_ratio", "wall"), ("cpu_ratio", "CPU")):
        s = summary[key]
        parts.append(f"{label} {fmt(s and s['median'])} ({fmt(s and s['min'])}-{fmt(s and s['max'])})")
    echo(f"{case.name}: peer's time per {case.unit} over fabricsim's, median (min-max) of {len(pairs)} pairs: "
         + "; ".join(parts))
    return summary


def run_case(runner: Runner, case: Case, size: int, pairs: int, echo, as_json: bool) -> list[dict]:
    """`pairs` pairs of runs, fabricsim's first; each printed as it ends."""
    done = []
    for i in range(1, pairs + 1):
        ours = runner.fabricsim(case, size)
        theirs = runner.peer(case)
        pair = {"case": case.name, "pair": i,
                "fabricsim": ours.__dict__, "peer": theirs.__dict__,
                "wall_ratio": ratio(theirs.wall_s, theirs.work, ours.wall_s, ours.work),
                "cpu_ratio": ratio(theirs.cpu_s, theirs.work, ours.cpu_s, ours.work)}
        done.append(pair)
        if as_json:
            echo(json.dumps(pair))
        else:
            echo(f"{case.name} pair {i}: fabricsim {ours.wall_s:.3f} s wall, {ours.cpu_s:.3f} s CPU, "
                 f"{ours.work:,.0f} {case.unit}s; peer {theirs.wall_s:.3f} s wall, {theirs.cpu_s:.3f} s CPU, "
                 f"{theirs.work:,.0f} {case.unit}s; ratio wall {fmt(pair['wall_ratio'])}, "
                 f"CPU {fmt(pair['cpu_ratio'])}")
    return done


def parse_args(argv: list[str]) -> argparse.Namespace:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", default=["all"], help="fc, ib-irregular, ib-fat-tree, ib or all (default)")
    ap.add_argument("--pairs", type=int, default=5, help="pairs of runs per case (default 5)")
    ap.add_argument("--bench-case", default=str(target / "release" / "examples" / "bench_case"),
                    help="fabricsim's bench_case binary (default: $CARGO_TARGET_DIR or target, release/examples)")
    ap.add_argument("--peers", default=str(REPO.parent / "shared" / "peers"),
                    help="the peers directory (default ../shared/peers from the repository)")
    ap.add_argument("--booksim2", help="BookSim2 source tree, its git directory, or a built src/booksim")
    ap.add_argument("--python", default=sys.executable, help="a python with simpy (default: this one)")
    ap.add_argument("--simpy-frames", type=int, default=100_000, help="SimPy's --frames (default 100,000)")
    ap.add_argument("--fc-frames", type=int, default=1_000_000,
                    help="data frames of fabricsim's fc row (default 1,000,000: start-up stays under 1%% of its time)")
    ap.add_argument("--irregular-packets", type=int, default=186_000,
                    help="packets of ib-booksim-irregular (default 186,000, BookSim's 1,000,000 cycles)")
    ap.add_argument("--fat-tree-packets", type=int, default=301_000,
                    help="packets of ib-booksim-fat-tree (default 301,000, BookSim's 200,000 cycles)")
    ap.add_argument("--workdir", help="scratch directory, kept, and BookSim2 built there before reused "
                    "(default: a temporary one, removed)")
    ap.add_argument("--json", action="store_true", help="one JSON line per pair and per case summary")
    args = ap.parse_args(argv)
    for name in ("pairs", "simpy_frames", "fc_frames", "irregular_packets", "fat_tree_packets"):
        if getattr(args, name) < 1:
            raise HarnessError(f"--{name.replace('_', '-')} {getattr(args, name)}: needs a positive integer")
    return args


def selected_cases(given: list[str]) -> list[str]:
    cases: list[str] = []
    for name in given:
        for c in GROUPS.get(name, [name]):
            if c not in CASES:
                raise HarnessError(f"unknown case `{name}`; allowed: {', '.join(CASES)}, ib, all")
            if c not in cases:
                cases.append(c)
    return cases


def main(argv: list[str] | None = None) -> int:
    def echo(line: str) -> None:
        print(line, flush=True)

    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        cases = selected_cases(args.cases)
        with tempfile.TemporaryDirectory(prefix="peer_ratio.") as tmp:
            scratch = Path(args.workdir) if args.workdir else Path(tmp)
            scratch.mkdir(parents=True, exist_ok=True)
            runner = Runner(args, cases, scratch)
            sizes = {"fc": args.fc_frames, "ib-irregular": args.irregular_packets,
                     "ib-fat-tree": args.fat_tree_packets}
            started = time.strftime("%Y-%m-%d %H:%M:%S")
            if not args.json:
                echo(f"peer_ratio {started}: {args.pairs} pairs per case, fabricsim first in each pair")
            for name in cases:
                case = CASES[name]
                pairs = run_case(runner, case, sizes[name], args.pairs, echo, args.json)
                summary = report_case(case, pairs, (lambda _line: None) if args.json else echo)
                if args.json:
                    echo(json.dumps(summary))
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        print("error: interrupted; the pairs above are complete", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
