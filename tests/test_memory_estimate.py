"""The memory estimate that guards the build: within a quarter of what a build really takes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import run_cli

# Runs `fabricsim scenario check FILE` in a fresh interpreter and prints its peak resident set (KiB):
# VmHWM, this process's own (getrusage's maximum starts from the parent's at fork).
PEAK = """
import runpy, sys
sys.argv = ["fabricsim", "scenario", "check", sys.argv[1], "--set", "run.memory_budget_mb=100000"]
try:
    runpy.run_module("fabricsim", run_name="__main__")
except SystemExit as e:
    assert not e.code, e.code
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(hwm.split()[1], file=sys.stderr)
"""


def _peak_mib(path) -> float:
    proc = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.strip().splitlines()[-1]) / 1024


CLUSTER = Path(__file__).resolve().parent.parent.parent / "shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover"


def test_the_estimate_is_within_a_quarter_of_a_real_build(tmp_path):
    tree, small = tmp_path / "tree.toml", tmp_path / "small.toml"
    # An 8-ary 4-tree (4,096 HCAs on 2,048 switches): its tables take a port byte per switch and HCA.
    tree.write_text('[ib.topology]\nkind = "fat_tree"\narity = 8\nlevels = 4\n')
    small.write_text("[ib]\n")
    baseline = _peak_mib(small)
    # ... and the 1,356-HCA cluster as cabled, routed by min-hop (its sources and HCAs weigh most).
    for fabric in (tree, CLUSTER):
        proc = run_cli("scenario", "check", str(fabric), "--set", "run.memory_budget_mb=16")
        assert proc.returncode == 2, proc.stderr
        estimate = float(re.search(r"needs an estimated (\d+) MiB", proc.stderr).group(1))
        built = _peak_mib(fabric) - baseline
        assert built > 40, built  # the build is large enough to measure
        assert built / 1.25 <= estimate <= built * 1.25, (fabric.name, estimate, built)
