"""Where an experiment's record came from, and whether the current build
would make it again.

A record names the build that made it (the package's version and, from a
checkout, its commit) and a fingerprint of what it ran:

- ``code``: a digest of the experiment's own modules (the one defining it
  and every study module it imports; the framework's layers are left out,
  as the document re-evaluates the claims from the record's ``ours``);
- ``probes``: a few of the experiment's scenarios (the first, the middle
  and the last it ran), each cut to a short run, with a digest of what
  that run gives (every metric and counter; wall time left out). Runs are
  deterministic, so a model that behaves differently on the experiment's
  scenarios gives a different digest, and a refactor that keeps every bit
  gives the same.

:func:`staleness` reruns the probes with the current build and compares;
``reproduce --document`` marks a stale record and leaves it out of the
counts, and the test suite fails on a committed record that is stale.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import FabricsimError

PACKAGE = Path(__file__).parent
# The framework's layers: what evaluates and writes, not what an experiment computes.
FRAMEWORK_MODULES = frozenset({
    "__init__", "policy", "claims", "evaluation", "curves", "plot", "framework", "provenance", "document",
    "report_html", "pipeline",
})
# How many of an experiment's scenarios are probed, and how short a probe runs.
PROBES = 3
PROBE_RUN = {"warmup_observations": 2000, "max_observations": 20000, "min_observations": 0}


def _imports(module: str) -> set[str]:
    text = (PACKAGE / f"{module}.py").read_text(encoding="utf-8")
    return set(re.findall(r"^\s*from \.(\w+) import", text, re.M))


def in_package(module: str) -> bool:
    return (PACKAGE / f"{module}.py").is_file()


def study_modules(module: str) -> list[str]:
    """``module`` and every module of the package it imports, directly or
    not, that is not one of the framework's layers."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m in seen or m in FRAMEWORK_MODULES or not in_package(m):
            continue
        seen.add(m)
        todo.extend(_imports(m))
    return sorted(seen)


@cache
def code_digest(module: str) -> str:
    """A digest of the source of ``module``'s study modules (see
    :func:`study_modules`); empty for an experiment defined outside the
    package (a test's), whose record is judged by its probes alone."""
    if not in_package(module):
        return ""
    h = hashlib.sha256()
    for m in study_modules(module):
        h.update(m.encode() + b"\0" + (PACKAGE / f"{m}.py").read_bytes() + b"\0")
    return h.hexdigest()[:16]


def probe_scenario(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``scenario`` cut to a probe's short run (its run plan's counts capped)."""
    sc = copy.deepcopy(dict(scenario))
    run = dict(sc.get("run", {}))
    for key, cap in PROBE_RUN.items():
        run[key] = min(run[key], cap) if isinstance(run.get(key), int) else cap
    sc["run"] = run
    return sc


def result_digest(raw: Mapping[str, Any]) -> str:
    """A digest of a run's result: all it reports but the scenario it echoes and the wall clock."""
    out = {k: v for k, v in raw.items() if k != "scenario"}
    if isinstance(out.get("run"), Mapping):
        out["run"] = {k: v for k, v in out["run"].items() if "wall" not in k and not k.endswith("_per_s")}
    return hashlib.sha256(json.dumps(out, sort_keys=True, default=str).encode()).hexdigest()[:16]


def probe_digest(scenario: Mapping[str, Any]) -> str:
    from ..api import run

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the run's routing warnings were the experiment's to give
        return result_digest(run(scenario).raw)


def pick_probes(scenarios: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The first, middle and last of an experiment's scenarios, cut short."""
    n = len(scenarios)
    picks = sorted({0, n // 2, n - 1}) if n else []
    return [probe_scenario(scenarios[i]) for i in picks[:PROBES]]


def fingerprint(module: str, scenarios: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a record says it ran: the module defining its experiment, its
    code's digest, and its probes with their digests."""
    return {
        "module": module,
        "code": code_digest(module),
        "probes": [{"scenario": sc, "digest": probe_digest(sc)} for sc in pick_probes(scenarios)],
    }


@cache
def build() -> dict[str, str]:
    """The package's version, a digest of its compiled core, and, from a git
    checkout, its commit (with ``+changes`` when the work tree differs from
    it); an installed package has no commit, and the core's digest names its
    build."""
    from .. import __version__, _core

    core = Path(_core.__file__)
    info = {"version": __version__, "core": hashlib.sha256(core.read_bytes()).hexdigest()[:16], "commit": ""}
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", "-C", str(PACKAGE), *args], capture_output=True, text=True, timeout=10,
                                  check=True).stdout.strip()
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
        info["commit"] = commit + ("+changes" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def staleness(record: Mapping[str, Any], rerun: bool = True) -> str:
    """Why the current build would not make ``record`` again ("" if it
    would): its experiment's code changed, or a probe gives another digest.
    ``rerun=False`` checks the code alone."""
    model = record.get("model")
    if not isinstance(model, Mapping) or not isinstance(model.get("probes"), list):
        return "made before records carried a fingerprint of the model"
    module = str(model.get("module", ""))
    if model.get("code") and not in_package(module):
        return f"the module of its experiment, {module!r}, is gone"
    if model.get("code") != code_digest(module):
        return f"the code of its experiment changed ({', '.join(study_modules(module))})"
    if rerun:
        for i, probe in enumerate(model["probes"]):
            if probe_digest(probe["scenario"]) != probe.get("digest"):
                return f"the model gives another result on its probe {i + 1} of {len(model['probes'])}"
    return ""


_STALENESS: dict[str, str] = {}


def cached_staleness(record: Mapping[str, Any]) -> str:
    """:func:`staleness`, once per record and process (a document, its summary and its HTML page ask alike)."""
    key = json.dumps([record.get("id"), record.get("model")], sort_keys=True, default=str)
    if key not in _STALENESS:
        _STALENESS[key] = staleness(record)
    return _STALENESS[key]


def current(record: Mapping[str, Any], check_model: bool = True) -> dict[str, Any]:
    """``record`` as the current claims table and policy judge it: its
    table rows re-evaluated from the values it holds (``ours``), the checks
    its experiment stated in code as they were, and ``stale`` set to why the
    current build would not make it again (with ``check_model``)."""
    from .claims import json_safe, measured_from_json, study_table
    from .evaluation import evaluate

    out = dict(record)
    stale = cached_staleness(record) if check_model else ""
    table = study_table(str(record.get("study", "")))
    ours = record.get("ours")
    if table is not None and isinstance(ours, Mapping) and (ours or table.rows(str(record["id"]))):
        try:
            checks = evaluate(table, str(record["id"]), {k: measured_from_json(v) for k, v in ours.items()})
        except FabricsimError as e:
            stale = stale or f"its claims table asks for what it did not compute ({e})"
        else:
            code = [c for c in record.get("checks", []) if c.get("role", "check") == "check"]
            out["checks"] = [json_safe(asdict(c)) for c in checks] + code
    if stale:
        out["stale"] = stale
    return out
