"""The memory estimate that guards the build: above what a build really takes, and not far above."""

from __future__ import annotations

import re
import subprocess
import sys

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


def test_the_estimate_bounds_a_real_build_from_above(tmp_path):
    big, small = tmp_path / "big.toml", tmp_path / "small.toml"
    # An 8-ary 4-tree (4,096 HCAs on 2,048 switches): its tables take a port byte per switch and HCA.
    big.write_text('[ib.topology]\nkind = "fat_tree"\narity = 8\nlevels = 4\n')
    small.write_text("[ib]\n")
    proc = run_cli("scenario", "check", str(big), "--set", "run.memory_budget_mb=16")
    assert proc.returncode == 2, proc.stderr
    estimate = float(re.search(r"needs an estimated (\d+) MiB", proc.stderr).group(1))
    built = _peak_mib(big) - _peak_mib(small)
    assert built > 50, built  # the build is large enough to measure
    assert built <= estimate <= 2 * built, (estimate, built)
