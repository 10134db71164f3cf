"""Shared fixtures: small scenarios (a few thousand frames) keep the suite fast."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fabricsim import Scenario

# The one place that names run-length keys: tests scale runs through these.
FRAMES = "run.max_observations"

# Enough frames to produce every metric, few enough to run in milliseconds.
SMALL = {
    FRAMES: 2000,
    "run.warmup_observations": 200,
    "run.min_observations": 0,
    "run.precision": 0,
}


def longer(factor: int) -> dict[str, Any]:
    """SMALL with ``factor`` times as many frames (runs of about factor x 10 ms)."""
    return {**SMALL, FRAMES: SMALL[FRAMES] * factor}


def set_args(overrides: Mapping[str, Any]) -> list[str]:
    """``--set key=value`` arguments for the command line."""
    return [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]


@pytest.fixture
def small() -> Scenario:
    return Scenario.default().with_overrides(SMALL)


@pytest.fixture
def small_toml(tmp_path: Path, small: Scenario) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(small.to_toml())
    return path


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONUNBUFFERED="1")


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the `fabricsim` command as a user would, in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "fabricsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=_env(),
    )


@contextmanager
def default_sigint_in_children() -> Iterator[None]:
    """Children started inside this block get SIGINT's default action, whatever this process inherited.

    A non-interactive shell starts background jobs (``cmd &``) with SIGINT
    ignored, and an ignored signal stays ignored across exec, so a child would
    shrug off Ctrl-C. A caught signal, by contrast, is reset to its default by
    exec: catching SIGINT here for the moment of the spawn gives the child a
    normal Ctrl-C, on which Python raises KeyboardInterrupt.
    """
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def spawn_cli(*args: str, cwd: Path | None = None, **popen: Any) -> subprocess.Popen:
    """Start the `fabricsim` command in the background, with a normal Ctrl-C (see above)."""
    with default_sigint_in_children():
        return subprocess.Popen(
            [sys.executable, "-m", "fabricsim", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=_env(),
            **popen,
        )


@pytest.fixture
def cli():
    return run_cli


# Sweep tables: a small grid, and what two sweeps of it must agree on.
GRID = {"workload.offered_load": [0.1, 0.2]}
WALL_METRICS = {"run.wall_time_s", "run.events_per_s", "run.frames_per_s"}


def run_keys(table: Any) -> set[str]:
    return set(table["run_key"])


def stable(table: Any) -> Any:
    """The table without wall-clock rows, for comparing runs done at different times."""
    table = table[~table["metric"].isin(WALL_METRICS)].reset_index(drop=True)
    if "flags" in table.columns:  # CSV reads a clean run's "" back as NaN
        table = table.assign(flags=table["flags"].astype(object).fillna("").astype(str))
    return table


# Every experiment of a study with a claims table, run once in quick mode for
# the whole session: the claims, document and HTML report tests share it.
@pytest.fixture(scope="session")
def quick_records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """(directory, {experiment id: Report}) of a quick run of every converted study."""
    from fabricsim.reproduce import claims, experiments, reproduce

    from dataclasses import replace

    from fabricsim.reproduce import iba_2007 as iba

    studies = {t.id for t in claims.tables()}
    ids = [i for i, e in experiments().items() if e.study in studies]
    out = tmp_path_factory.mktemp("quick-records")
    # Seed 003's quick mode runs three networks at three loads; here one network at two loads of short runs
    # exercise every row (a family value then needs that one network).
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(iba.RUN_LENGTHS, True, iba.RunLength(warmup_s=0.005, packets=15_000))
        mp.setattr(iba, "FIGURES", {k: replace(f, quick_loads=f.quick_loads[-2:]) for k, f in iba.FIGURES.items()})
        mp.setattr(iba, "QUICK_NETWORKS", 1)
        mp.setattr(iba, "_RESULTS", {})
        reports = reproduce(ids, quick=True, jobs=2, out_dir=out, progress=False, echo=None)
    return out, {r.id: r for r in reports}


def checks_by_id(report: Any) -> dict[str, Any]:
    """A report's claims by row id."""
    return {c.id: c for c in report.checks}
