"""scripts/peer_ratio.py: the peer-ratio harness, run against stand-ins for
bench_case and the peers (which print fixed results), so its arithmetic and
its errors are checked without building or running the real simulators."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "peer_ratio.py"

BENCH_CASE = """#!{python}
import json, sys
rows = "fc-simpy-switch, ib-booksim-irregular, ib-booksim-fat-tree"
if len(sys.argv) != 3:
    sys.exit("usage: bench_case NAME SIZE, NAME one of " + rows)
name, size = sys.argv[1], int(sys.argv[2])
# 2 s of wall time for the work asked: fc counts data frames, ib hops (3 a packet).
print(json.dumps({{"name": name, "frames": 2 * size, "data_frames": size, "hops": 3 * size,
                  "wall_s": 2.0, "flags": []}}, indent=2))
"""
# 500 frames delivered after the warm-up (550 over the run) in 11 s.
SIMPY = """import json
print(json.dumps({"peer": "simpy", "delivered": 500, "throughput": 0.47, "wall_s": 11.0}))
"""
# Logs on stderr and one summary line on stdout, as the real script.
BOOKSIM = """#!/usr/bin/env bash
echo "booksim_ib_peer: running" >&2
echo '{"peer": "booksim2", "config": "x", "packets": 1000, "packet_hops": 3000, "wall_s": 30.0, "cpu_s": 15.0}'
"""


def python_with_simpy_module(tmp_path: Path, name: str, simpy_source: str) -> Path:
    """An interpreter script `name` that runs this Python with `simpy_source` as its simpy module."""
    site = tmp_path / f"{name}-site"
    site.mkdir()
    (site / "simpy.py").write_text(simpy_source)
    python = tmp_path / name
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return python


@pytest.fixture
def stand_ins(tmp_path: Path) -> dict[str, Path]:
    bench = tmp_path / "bench_case"
    bench.write_text(BENCH_CASE.format(python=sys.executable))
    bench.chmod(0o755)
    peers = tmp_path / "peers"
    peers.mkdir()
    (peers / "simpy_fc_switch.py").write_text(SIMPY)
    (peers / "booksim_ib_peer.sh").write_text(BOOKSIM)
    # A "python with simpy": a simpy module on the path of this interpreter;
    # and one without: a simpy module that fails to import hides any installed one.
    python = python_with_simpy_module(tmp_path, "python", "")
    no_simpy = python_with_simpy_module(tmp_path, "python-without-simpy", "raise ImportError('no simpy here')\n")
    tree = tmp_path / "booksim2"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "Makefile").write_text("")
    (tree / "src" / "booksim").write_text("")
    return {"bench": bench, "peers": peers, "python": python, "no_simpy": no_simpy, "tree": tree}


def harness(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def base_args(s: dict[str, Path]) -> list[str]:
    return ["--bench-case", str(s["bench"]), "--peers", str(s["peers"]), "--python", str(s["python"]),
            "--booksim2", str(s["tree"] / "src" / "booksim")]


def test_ratios_are_the_peers_time_per_unit_of_work_over_fabricsims(stand_ins):
    proc = harness("all", "--pairs", "3", "--json", "--fc-frames", "1000", "--irregular-packets", "500",
                   "--fat-tree-packets", "500", *base_args(stand_ins))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    pairs = [r for r in lines if "pair" in r]
    summaries = {r["case"]: r for r in lines if "wall_ratio" in r and "pair" not in r}
    assert [p["case"] for p in pairs] == ["fc"] * 3 + ["ib-irregular"] * 3 + ["ib-fat-tree"] * 3
    # fc: SimPy 11 s for 550 frames (500 after its warm-up, times 1.1), fabricsim 2 s for 1000.
    fc = summaries["fc"]["wall_ratio"]
    assert fc["median"] == pytest.approx((11.0 / 550) / (2.0 / 1000)) and fc["pairs"] == 3
    assert fc["min"] == fc["max"] == fc["median"]
    # ib: BookSim 30 s wall, 15 s CPU for 3000 packet-hops; fabricsim 2 s for 1500.
    irregular = summaries["ib-irregular"]
    assert irregular["wall_ratio"]["median"] == pytest.approx((30.0 / 3000) / (2.0 / 1500))
    assert irregular["unit"] == "packet-hop" and irregular["row"] == "ib-booksim-irregular"
    for p in pairs:
        assert p["peer"]["cpu_s"] > 0 and p["fabricsim"]["cpu_s"] > 0
        assert p["cpu_ratio"] == pytest.approx(
            (p["peer"]["cpu_s"] / p["peer"]["work"]) / (p["fabricsim"]["cpu_s"] / p["fabricsim"]["work"])
        )
    text = harness("fc", "--pairs", "1", "--fc-frames", "1000", *base_args(stand_ins))
    assert text.returncode == 0, text.stderr
    assert "fc pair 1:" in text.stdout and "median (min-max) of 1 pairs: wall 10.0 (10.0-10.0)" in text.stdout


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: ["--peers", str(s["peers"] / "none")], "peers directory not found"),
        (lambda s: (s["peers"] / "simpy_fc_switch.py").unlink() or [], "peer missing: "),
        (lambda s: ["--python", str(s["no_simpy"])], "cannot import simpy"),
        (lambda s: ["--booksim2", str(s["tree"] / "nowhere")], "does not exist"),
        (lambda s: ["--booksim2", str(s["peers"])], "neither a BookSim2 source tree"),
        (lambda s: ["--bench-case", str(s["tree"] / "bench_case")], "bench_case binary not found"),
        (lambda s: ["nothing"], "unknown case `nothing`"),
        (lambda s: ["--pairs", "0"], "--pairs 0: needs a positive integer"),
    ],
)
def test_a_missing_peer_or_bad_argument_is_a_clear_error(stand_ins, change, message):
    # Later options win, so each change overrides the working set-up.
    proc = harness(*base_args(stand_ins), *change(stand_ins))
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_booksim_cases_need_booksim2_and_an_old_bench_case_is_named(stand_ins):
    args = [a for a in base_args(stand_ins) if a not in ("--booksim2", str(stand_ins["tree"] / "src" / "booksim"))]
    proc = harness("ib", *args)
    assert proc.returncode == 2 and "the BookSim2 cases need --booksim2" in proc.stderr, proc.stderr
    old = stand_ins["bench"].read_text().replace("ib-booksim-irregular, ", "")
    stand_ins["bench"].write_text(old)
    proc = harness("ib-irregular", *base_args(stand_ins))
    assert proc.returncode == 2 and "has no row ib-booksim-irregular" in proc.stderr, proc.stderr
