"""The machinery behind ``fabricsim reproduce``: a registry of experiments, and
the files each one writes (table, plot beside the published points, JSON record).
Above the policy (:mod:`.policy`) and the claims tables (:mod:`.claims`); the
documents (:mod:`.document`) and the command (:mod:`.pipeline`) build on it.

An experiment is a function of a :class:`Context` returning an
:class:`ExperimentOutput`; it runs simulations through ``ctx.run_many`` (the
sweep process pool) and states its claims as checks against the published
numbers.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic_file import write_atomically
from ..errors import FabricsimError
from ..result import RunResult
from ..scenario import Scenario
from . import provenance
from .claims import json_safe, measured_to_json, study_table
from .evaluation import evaluate, published_points
from .curves import CURVE_COLUMNS, DEADLOCK, FLAGGED, STALLED, STATUS_COLUMN, Panel, PlotSpec
from .plot import plot_curves
from .policy import Check

__all__ = [
    "Context",
    "PlotSpec",
    "Panel",
    "ExperimentOutput",
    "Experiment",
    "Report",
    "experiment",
    "experiments",
    "run_experiment",
    "file_stem",
    "CURVE_COLUMNS",
    "DEADLOCK",
    "FLAGGED",
    "STALLED",
    "STATUS_COLUMN",
]

_REGISTRY: dict[str, Experiment] = {}
@dataclass
class Context:
    """What an experiment gets: how hard to try, how many processes, where files go."""

    quick: bool = False
    jobs: int | None = None
    out_dir: Path = Path("repro-out")
    progress: bool = True
    runs: int = 0  # simulations run so far, for the JSON summary
    # Every scenario run, in order (the record's probes are picked from them).
    scenarios: list[dict[str, Any]] = field(default_factory=list)

    def run_many(self, scenarios: Sequence[Scenario | Mapping[str, Any] | str | Path], desc: str | None = None) -> list[RunResult]:
        """Run scenarios in parallel (the sweep pool); results in input order."""
        from ..sweep import run_many

        coerced = [Scenario.coerce(s) for s in scenarios]
        results = run_many(coerced, jobs=self.jobs, progress=self.progress, desc=desc)
        self.scenarios += [s.to_dict() for s in coerced]
        self.runs += len(results)
        return results

    def run(self, scenario: Scenario | Mapping[str, Any] | str | Path | None = None, **kw: Any) -> RunResult:
        from ..api import run

        sc = Scenario.coerce(scenario).with_overrides(None, **kw)
        result = run(sc)
        self.scenarios.append(sc.to_dict())
        self.runs += 1
        return result


@dataclass
class ExperimentOutput:
    """What an experiment returns. A study with a claims table gives ``ours``
    (a value per row id of the experiment's predictions and fits, see
    :mod:`.claims`); its published points come from the table's rows. A
    study not yet converted states ``checks`` and ``published`` in code."""

    curves: pd.DataFrame  # tidy: series, x, y, y_ci, plus any extra columns
    plot: PlotSpec
    published: list[dict[str, Any]] = field(default_factory=list)  # series, x, y, note
    checks: list[Check] = field(default_factory=list)
    ours: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    source: str
    func: Callable[[Context], ExperimentOutput]

    @property
    def study(self) -> str:
        """The study an experiment belongs to: its id's prefix (``switched-fcal/table7``: ``switched-fcal``)."""
        return self.id.split("/", 1)[0]


@dataclass
class Report:
    id: str
    title: str
    source: str
    quick: bool
    checks: list[Check]
    runs: int
    wall_time_s: float
    files: dict[str, Path]
    # What an experiment computed per claims-table row (re-evaluated by the
    # document against the table and policy of the day), the build that made
    # the record and the fingerprint of what it ran (:mod:`.provenance`).
    ours: dict[str, Any] = field(default_factory=dict)
    build: dict[str, str] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)

    @property
    def study(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def all_within(self) -> bool:
        """Every prediction (and every check of a study without a claims table) within its tolerance."""
        return all(c.within for c in self.checks if c.role in ("prediction", "check"))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "study": self.study,
            "title": self.title,
            "source": self.source,
            "quick": self.quick,
            "checks": [json_safe(asdict(c)) for c in self.checks],
            "all_within": self.all_within,
            "runs": self.runs,
            "wall_time_s": self.wall_time_s,
            "ours": json_safe({k: measured_to_json(m) for k, m in self.ours.items()}),
            "build": self.build,
            "model": self.model,
        }


ExperimentFunc = Callable[[Context], ExperimentOutput]


def experiment(id: str, title: str, seed_ref: str) -> Callable[[ExperimentFunc], ExperimentFunc]:
    """Register an experiment under ``id`` (e.g. ``"hp-fc-1995/fig2"``); ``seed_ref`` names the publication."""

    def register(func: ExperimentFunc) -> ExperimentFunc:
        if id in _REGISTRY and _REGISTRY[id].func is not func:
            raise FabricsimError(f"experiment id `{id}` is registered twice")
        _REGISTRY[id] = Experiment(id=id, title=title, source=seed_ref, func=func)
        return func

    return register


def experiments() -> dict[str, Experiment]:
    """Every registered experiment, in the order of their ids with numbers by value (fig2 before fig10)."""
    return dict(sorted(_REGISTRY.items(), key=lambda item: natural_key(item[0])))


def natural_key(text: str) -> list[Any]:
    """Sorts numbers inside names by value: fig2 before fig11."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def unregister(id: str) -> None:
    _REGISTRY.pop(id, None)


def file_stem(id: str) -> str:
    return id.replace("/", "_")


def _resolve(ids: Iterable[str]) -> list[Experiment]:
    known = experiments()
    chosen: list[Experiment] = []
    for i in ids:
        if i == "all":
            chosen.extend(e for e in known.values() if e not in chosen)
            continue
        if i not in known:
            raise FabricsimError(f"unknown experiment `{i}`; known: {', '.join(known) or '(none)'}")
        if known[i] not in chosen:
            chosen.append(known[i])
    return chosen


def run_experiment(exp: Experiment | str, ctx: Context) -> Report:
    """Run one experiment and write ``<out_dir>/<id>.csv``, ``.png`` and ``.json``."""
    if isinstance(exp, str):
        exp = _resolve([exp])[0]
    ctx.out_dir = Path(ctx.out_dir)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    runs_before, scenarios_before = ctx.runs, len(ctx.scenarios)
    start = time.perf_counter()
    output = exp.func(ctx)
    wall = time.perf_counter() - start
    curves = output.curves.copy()
    missing = [c for c in CURVE_COLUMNS if c not in curves.columns]
    if missing:
        raise FabricsimError(f"experiment `{exp.id}` returned curves without columns {missing}")
    checks = [c if isinstance(c, Check) else Check(**c) for c in output.checks]
    published = list(output.published)
    table = study_table(exp.study)
    if table is not None and (output.ours or table.rows(exp.id)):
        checks = evaluate(table, exp.id, output.ours) + checks
        published += published_points(table, exp.id)
    elif output.ours:
        raise FabricsimError(f"experiment `{exp.id}` evaluates claims, but study `{exp.study}` has no claims table")
    stem = ctx.out_dir / file_stem(exp.id)
    files = {"csv": stem.with_suffix(".csv"), "png": stem.with_suffix(".png"), "json": stem.with_suffix(".json")}
    # Each file whole or not at all, the record last: a record in the directory means its run finished.
    hint = f"{exp.id} has no record; rerun it once the disk can take its files"
    write_atomically(files["csv"], lambda tmp: curves.to_csv(tmp, index=False), "the curves", hint)
    write_atomically(files["png"], lambda tmp: plot_curves(curves, output.plot, published, tmp), "the plot", hint)
    report = Report(exp.id, exp.title, exp.source, ctx.quick, checks, ctx.runs - runs_before, wall, files,
                    ours=dict(output.ours), build=provenance.build(),
                    model=provenance.fingerprint(exp.func.__module__.rsplit(".", 1)[-1],
                                                           ctx.scenarios[scenarios_before:]))
    record = json.dumps(report.to_json(), indent=2, allow_nan=False, default=_json_default) + "\n"
    write_atomically(files["json"], lambda tmp: tmp.write_text(record), "the record", hint)
    return report


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    raise TypeError(f"not JSON serializable: {type(o).__name__}")
