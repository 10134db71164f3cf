"""Stop reasons and flags as a user reads them: a time cap is flagged, never called a deadlock."""

from __future__ import annotations

import json
import re
from pathlib import Path

import fabricsim
from conftest import run_cli

REPO = Path(__file__).resolve().parents[1]


def test_a_time_capped_switched_loop_run_is_flagged_max_time_not_deadlock():
    proc = run_cli("run", str(REPO / "scenarios/switched-fcal/light-load.toml"), "--set", "run.max_time_ms=100")
    assert proc.returncode == 0, proc.stderr
    # The run section's columns align to its widest value, the wall time among them.
    assert re.search(r"^  stop_reason +max_time$", proc.stdout, re.M)
    assert "max_time" in proc.stdout.split("FLAGS")[1]
    assert "deadlock" not in proc.stdout and " - us" not in proc.stdout


def test_a_time_capped_netperf_run_measures_what_it_ran():
    proc = run_cli("run", "--json", str(REPO / "scenarios/ong-farrell-fc/rr-1byte-hp735-j210.toml"),
                   "--set", "run.max_time_ms=100")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["run"]["stop_reason"] == "max_time" and "max_time" in r["run"]["flags"]
    assert r["metrics"]["elapsed_s"]["mean"] == 0.1 and r["run"]["sim_time_us"] == 100_000
    assert 300 < r["metrics"]["latency_us"]["mean"] < 600


def test_a_cap_before_the_first_transaction_measures_the_capped_time():
    proc = run_cli("run", "--json", str(REPO / "scenarios/ong-farrell-fc/rr-1byte-hp735-j210.toml"),
                   "--set", "run.max_time_ms=0.01")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert {"max_time", "no_transactions"} <= set(r["run"]["flags"])
    assert r["metrics"]["elapsed_s"]["mean"] == 1e-5 and r["run"]["sim_time_us"] == 10
    assert r["metrics"]["latency_us"]["mean"] is None
    for side in ("local", "remote"):
        assert 0 <= r["metrics"][f"{side}_cpu_utilization_pct"]["mean"] <= 100


def test_the_deadlock_summary_names_the_cycle_in_any_model():
    r = fabricsim.RunResult({"run": {"stop_reason": "deadlock"},
                             "deadlock": {"time_us": 12.5, "cycle": ["a -> b", "b -> a"], "packets_in_fabric": 7}})
    text = r.summary()
    assert "deadlock at 12.5 us: a cycle of 2 waits (7 packets in the fabric)" in text
    assert "  a -> b" in text
