"""An installed fabricsim runs anywhere: the default run and every shipped
scenario from an empty directory, with nothing beside them (the InfiniBand
video trace is built in)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

REPO = Path(__file__).resolve().parents[1]
SHIPPED = sorted(REPO.glob("scenarios/*/*.toml"))
# Short runs: the test is about finding everything, not about the numbers.
SHORT = ["--set", "run.warmup_observations=100", "--set", "run.max_observations=1000",
         "--set", "run.min_observations=0"]
# Flags of a load the model cannot carry.
OVERLOADED = {"source_overflow", "accepted_below_offered", "backlog_growing", "overload"}


def test_the_default_run_works_from_an_empty_directory(tmp_path):
    proc = run_cli("run", "--json", *SHORT, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run"]["observations"] >= 1000
    assert list(tmp_path.iterdir()) == []


def test_the_bare_infiniband_default_works_from_an_empty_directory_and_carries_its_load(tmp_path):
    (tmp_path / "ib.toml").write_text("[ib]\n")
    proc = run_cli("run", "ib.toml", "--json", "--set", "run.warmup_observations=20000",
                   "--set", "run.max_observations=100000", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["counters"]["real_time_packets_delivered"] > 0
    assert not OVERLOADED & set(r["run"]["flags"]), r["run"]["flags"]


def test_every_file_under_scenarios_is_a_shipped_scenario_run_here():
    files = sorted(p for p in REPO.glob("scenarios/**/*") if p.is_file())
    assert len(SHIPPED) >= 19 and files == SHIPPED, set(files) ^ set(SHIPPED)


def test_the_package_directory_alone_runs_the_bare_infiniband_default(tmp_path):
    # What a wheel installs is the package directory (python/fabricsim with its
    # extension module): a copy of it, and nothing of the repository on the path.
    import fabricsim

    site = tmp_path / "site"
    shutil.copytree(Path(fabricsim.__file__).parent, site / "fabricsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "work"
    work.mkdir()
    (work / "ib.toml").write_text("[ib]\n")
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONSAFEPATH="1")
    code = ("import sys, fabricsim, fabricsim.cli; assert fabricsim.__file__.startswith(sys.argv[1]), fabricsim.__file__; "
            "sys.argv = ['fabricsim'] + sys.argv[2:]; fabricsim.cli.main()")
    proc = subprocess.run([sys.executable, "-c", code, str(site), "run", "ib.toml", "--json",
                           "--set", "run.warmup_observations=20000", "--set", "run.max_observations=100000"],
                          capture_output=True, text=True, cwd=work, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["counters"]["real_time_packets_delivered"] > 0
    assert not OVERLOADED & set(r["run"]["flags"]), r["run"]["flags"]
    assert sorted(p.name for p in work.iterdir()) == ["ib.toml"]


@pytest.mark.parametrize("path", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_every_shipped_scenario_runs_from_an_empty_directory(tmp_path, path):
    shutil.copy(path, tmp_path / path.name)
    proc = run_cli("run", path.name, "--json", *SHORT, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["run"]["stop_reason"] in {"max_observations", "precision", "idle", "deadlock"}, r["run"]


@pytest.mark.parametrize("path", sorted(REPO.glob("scenarios/iba-2007/*.toml")), ids=lambda p: p.name)
def test_the_shipped_infiniband_examples_carry_their_load(path):
    proc = run_cli("run", str(path), "--json", "--set", "run.max_observations=500000")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert not OVERLOADED & set(r["run"]["flags"]), r["run"]["flags"]
    assert r["run"]["flags"] == [], r["run"]["flags"]
