"""Shared fixtures: small scenarios (a few thousand frames) keep the suite fast."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fabricsim import Scenario

# Enough frames to produce every metric, few enough to run in milliseconds.
SMALL = {
    "run.max_observations": 2000,
    "run.warmup_observations": 200,
    "run.min_observations": 0,
    "run.precision": 0,
}


@pytest.fixture
def small() -> Scenario:
    return Scenario.default().with_overrides(SMALL)


@pytest.fixture
def small_toml(tmp_path: Path, small: Scenario) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(small.to_toml())
    return path


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the `fabricsim` command as a user would, in a fresh interpreter."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run(
        [sys.executable, "-m", "fabricsim", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )


@pytest.fixture
def cli():
    return run_cli
