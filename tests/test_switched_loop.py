"""Switched loops (seed 001) from Python: a section error names its key, and
the quick mode of the light-load reproductions (Tables 5-7, Graphs 1-2)."""

from __future__ import annotations

import json

import pytest
from fabricsim import run
from fabricsim.errors import FabricsimError
from fabricsim.reproduce import Context, experiments, run_experiment


def test_bridge_buffers_must_hold_a_phase():
    bad = {"switched_loop": {"bridge_buffers": 4}, "disks": [{"count": 2}]}
    with pytest.raises(FabricsimError) as e:
        run(bad)
    assert "switched_loop.bridge_buffers" in str(e.value)


def test_light_load_quick_reproduction(tmp_path):
    ctx = Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment(experiments()["switched-fcal/tables5-6"], ctx)
    claims = {c["claim"]: c for c in json.loads(report.files["json"].read_text())["checks"]}
    assert claims["Table 6 circuit 0%: disk time (ms)"]["within"]
    assert claims["Table 6 packet 40%: total time (ms)"]["within"]
    assert claims["packet attempts stay near one (largest, 10-50%)"]["within"]
    assert claims["light load: circuit total time below packet (smallest gap, ms, 10-50%)"]["within"]
    assert claims["circuit re-attempts rise steeply: 50% / 10% global"]["within"]
    assert report.files["png"].exists() and report.files["csv"].exists()
    report = run_experiment(experiments()["switched-fcal/table7"], ctx)
    claims = {c["claim"]: c for c in json.loads(report.files["json"].read_text())["checks"]}
    assert claims["circuit: marginal latency growth 2 -> 8 loops (%)"]["within"]
    assert claims["packet: marginal latency growth 2 -> 8 loops (%)"]["within"]
