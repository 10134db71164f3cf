"""The machinery behind ``fabricsim reproduce``: a registry of experiments, and
the files each one writes (table, plot beside the published points, JSON summary).

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

from ..errors import FabricsimError
from ..result import RunResult
from ..scenario import Scenario

__all__ = [
    "Context",
    "Check",
    "PlotSpec",
    "Panel",
    "ExperimentOutput",
    "Experiment",
    "Report",
    "experiment",
    "experiments",
    "check",
    "run_experiment",
    "reproduce",
    "format_checks",
    "file_stem",
    "throughput_claim",
    "latency_claim",
    "ratio_claim",
    "rounded_ratio",
    "gain_claim",
    "same_claim",
]

_REGISTRY: dict[str, Experiment] = {}
CURVE_COLUMNS = ["series", "x", "y", "y_ci"]
# Optional column of the curves: a point that is not a clean measurement.
# "deadlock": the run stopped on a deadlock; "stalled": it ran its length but
# part of the traffic stopped moving (a deadlock the run did not stop on).
# Neither value is drawn: a cross on the panel's floor marks the point.
# "flagged": the run finished but its result carries flags (overload, backlog
# growing, ...), drawn as a hollow square. Any other value is a clean point.
STATUS_COLUMN = "status"
DEADLOCK = "deadlock"
STALLED = "stalled"
FLAGGED = "flagged"


@dataclass
class Context:
    """What an experiment gets: how hard to try, how many processes, where files go."""

    quick: bool = False
    jobs: int | None = None
    out_dir: Path = Path("repro-out")
    progress: bool = True
    runs: int = 0  # simulations run so far, for the JSON summary

    def run_many(self, scenarios: Sequence[Scenario | Mapping[str, Any] | str | Path], desc: str | None = None) -> list[RunResult]:
        """Run scenarios in parallel (the sweep pool); results in input order."""
        from ..sweep import run_many

        results = run_many(scenarios, jobs=self.jobs, progress=self.progress, desc=desc)
        self.runs += len(results)
        return results

    def run(self, scenario: Scenario | Mapping[str, Any] | str | Path | None = None, **kw: Any) -> RunResult:
        from ..api import run

        result = run(scenario, **kw)
        self.runs += 1
        return result


@dataclass
class Check:
    """One published claim set against our number.

    ``published`` is a value or a ``[lo, hi]`` range; ``tolerance`` is an absolute
    margin in the claim's units. ``within`` is true when ``ours`` lies within
    ``tolerance`` of the value, or of the range; it is None where nothing is
    judged (a calibration fit, a claim not evaluated).

    A row of a claims table (:mod:`.claims`) also carries its ``id``,
    ``figure``, ``kind``, ``unit`` and ``role`` (``prediction``, ``fit``,
    ``unaddressed``, ``construction``, ``restates``); a check written in an
    experiment's code, as studies not yet converted state them, has role
    ``check``.
    """

    claim: str
    published: float | list[float] | None
    ours: float
    ours_ci: float | None
    tolerance: float
    within: bool | None
    note: str = ""
    id: str = ""
    figure: str = ""
    kind: str = ""
    role: str = "check"
    unit: str = ""
    parameter: str = ""
    margin_why: str = ""

    @property
    def verdict(self) -> str:
        """within, missed, fit, unaddressed, construction or restates."""
        if self.role in ("prediction", "check"):
            return "within" if self.within else "missed"
        return self.role


def check(
    claim: str,
    published: float | Sequence[float],
    ours: float,
    ours_ci: float | None = None,
    tolerance: float | None = None,
    rel_tolerance: float | None = None,
    note: str = "",
) -> Check:
    """Build a :class:`Check`; give ``tolerance`` (absolute) or ``rel_tolerance`` (fraction of the published value)."""
    if isinstance(published, (list, tuple)):
        lo, hi = (float(published[0]), float(published[1]))
        pub: float | list[float] = [lo, hi]
        ref = (abs(lo) + abs(hi)) / 2
    else:
        lo = hi = float(published)  # type: ignore[arg-type]
        pub = lo
        ref = abs(lo)
    if tolerance is None:
        if rel_tolerance is None:
            raise ValueError("check() needs tolerance or rel_tolerance")
        tolerance = rel_tolerance * ref
    ours = float(ours)
    within = not math.isnan(ours) and lo - tolerance <= ours <= hi + tolerance
    ci = None if ours_ci is None or (isinstance(ours_ci, float) and math.isnan(ours_ci)) else float(ours_ci)
    return Check(claim, pub, ours, ci, float(tolerance), bool(within), note)


# The tolerance policy every reproduction applies (REPRODUCTIONS.md, "Tolerance
# policy"): one rule per kind of claim, so a check's margin is never chosen
# for the number it has to meet.
THROUGHPUT_POINTS = 2.0  # a stated throughput (% of bandwidth): +-2 points
LATENCY_REL = 0.10  # a stated latency: +-10%
HARDWARE_REL = 0.20  # a hardware measurement: the trend, and +-20%
SLIGHT_MAX_PCT = 15.0  # "slightly" better: above the combined CI, by at most 15%
SAME_PCT = 5.0  # "practically indistinguishable": within 5% of each other
MUCH_MIN_PCT = 10.0  # "essentially" / "much" higher: by at least 10%


@dataclass(frozen=True)
class KindRule:
    """The tolerance of one kind of claim: a relative margin, or points of bandwidth."""

    rule: str
    rel: float = 0.0
    points: float = 0.0


# A claims-table row's kind sets its tolerance; a row may widen it only with
# a reason from the paper's own precision (``margin``, ``margin_why``).
KIND_RULES: dict[str, KindRule] = {
    "simulated throughput": KindRule(
        f"±{THROUGHPUT_POINTS:g} points of bandwidth (a throughput in MB/s: {THROUGHPUT_POINTS:g}% of the bandwidth the row names)",
        points=THROUGHPUT_POINTS),
    "simulated latency": KindRule(f"±{LATENCY_REL:.0%}", rel=LATENCY_REL),
    "simulated count": KindRule(f"±{LATENCY_REL:.0%}, as a latency (re-attempts, disks, any other simulated quantity)",
                                rel=LATENCY_REL),
    "hardware measurement": KindRule(f"±{HARDWARE_REL:.0%}", rel=HARDWARE_REL),
    "stated ratio": KindRule("the range the study's own rounding allows, no further margin"),
    "direction": KindRule("A above B by more than their combined 95% CI (no margin admits the opposite sign), "
                          f"sized by the claim's word: slightly at most {SLIGHT_MAX_PCT:g}%, essentially at least "
                          f"{MUCH_MIN_PCT:g}%, the same within {SAME_PCT:g}%, about X within the range X's rounding allows"),
    "trend": KindRule("rising or falling: the whole change beyond its CI and no step the other way beyond its CI; "
                      "a growth factor: both ends within the margin of their kind"),
}
# Size words of direction claims: (lowest, highest) difference in %, and whether it must exceed the combined CI.
SIZE_WORDS: dict[str, tuple[float, float, bool]] = {
    "above": (0.0, math.inf, True),
    "slightly": (0.0, SLIGHT_MAX_PCT, True),
    "essentially": (MUCH_MIN_PCT, math.inf, True),
    "same": (-SAME_PCT, SAME_PCT, False),
    "about": (math.nan, math.nan, True),
}


def throughput_claim(claim: str, published: float | Sequence[float], ours: float, ours_ci: float | None = None,
                     note: str = "") -> Check:
    """A throughput the study states, in % of bandwidth: +-2 points."""
    return check(claim, published, ours, ours_ci, tolerance=THROUGHPUT_POINTS, note=note)


def latency_claim(claim: str, published: float | Sequence[float], ours: float, ours_ci: float | None = None,
                  note: str = "") -> Check:
    """A latency the study states: +-10% of it."""
    return check(claim, published, ours, ours_ci, rel_tolerance=LATENCY_REL, note=note)


def rounded_ratio(num: float, den: float, step: float = 1.0) -> list[float]:
    """The range of num/den when both were rounded to ``step`` (the study's own ratio +- its rounding)."""
    h = step / 2.0
    return [(num - h) / (den + h), (num + h) / (den - h)]


def ratio_claim(claim: str, published: float | Sequence[float], ours: float, ours_ci: float | None = None,
                note: str = "") -> Check:
    """A ratio or share the study states: ``published`` is already the range its rounding allows."""
    return check(claim, published, ours, ours_ci, tolerance=0.0, note=note)


def _half(ci: float | None) -> float:
    return 0.0 if ci is None or (isinstance(ci, float) and math.isnan(ci)) else float(ci)


def gain_claim(claim: str, a: tuple[float, float], b: tuple[float, float], lo_pct: float = 0.0,
               hi_pct: float = math.inf, note: str = "") -> Check:
    """Directional: ``a`` above ``b`` (each (value, CI)) by ``lo_pct`` to ``hi_pct`` percent of ``b``,
    and by more than the combined 95% CI: no margin admits the opposite sign."""
    ci = math.hypot(_half(a[1]), _half(b[1]))
    d, d_ci = 100.0 * (a[0] - b[0]) / b[0], 100.0 * ci / b[0]
    c = check(claim + " (gain, %)", [lo_pct, hi_pct], d, d_ci, tolerance=0.0,
              note=(note + "; " if note else "") + f"{a[0]:.2f} against {b[0]:.2f}; needs a gain above its CI")
    c.within = c.within and d > d_ci
    return c


def same_claim(claim: str, a: tuple[float, float], b: tuple[float, float], note: str = "") -> Check:
    """"Practically indistinguishable": ``a`` within SAME_PCT percent of ``b``."""
    ci = math.hypot(_half(a[1]), _half(b[1]))
    d, d_ci = 100.0 * (a[0] - b[0]) / b[0], 100.0 * ci / b[0]
    return check(claim + " (difference, %)", 0.0, d, d_ci, tolerance=SAME_PCT,
                 note=(note + "; " if note else "") + f"{a[0]:.2f} against {b[0]:.2f}")


@dataclass
class Panel:
    """One panel of a figure with several: the curve rows whose ``metric`` column is ``metric``."""

    metric: str
    y_label: str
    title: str = ""
    logy: bool = False


@dataclass
class PlotSpec:
    x_label: str
    y_label: str
    title: str = ""
    series: list[str] | None = None  # which series to draw (default: all)
    logy: bool = False
    # Our values of x alone (e.g. measured saturation throughputs): dashed vertical
    # lines in the colour of their series, as dicts with keys series and x.
    vlines: list[dict[str, Any]] = field(default_factory=list)
    # Several panels side by side (as a paper's figure (a), (b), ...), each
    # selecting rows by the curves' ``metric`` column; empty: one plot of all rows.
    panels: list[Panel] = field(default_factory=list)


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
            "checks": [_finite_or_text(asdict(c)) for c in self.checks],
            "all_within": self.all_within,
            "runs": self.runs,
            "wall_time_s": self.wall_time_s,
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
    runs_before = ctx.runs
    start = time.perf_counter()
    output = exp.func(ctx)
    wall = time.perf_counter() - start
    curves = output.curves.copy()
    missing = [c for c in CURVE_COLUMNS if c not in curves.columns]
    if missing:
        raise FabricsimError(f"experiment `{exp.id}` returned curves without columns {missing}")
    checks = [c if isinstance(c, Check) else Check(**c) for c in output.checks]
    published = list(output.published)
    from .claims import evaluate, published_points, study_table

    table = study_table(exp.study)
    if table is not None and (output.ours or table.rows(exp.id)):
        checks = evaluate(table, exp.id, output.ours) + checks
        published += published_points(table, exp.id)
    elif output.ours:
        raise FabricsimError(f"experiment `{exp.id}` evaluates claims, but study `{exp.study}` has no claims table")
    stem = ctx.out_dir / file_stem(exp.id)
    files = {"csv": stem.with_suffix(".csv"), "png": stem.with_suffix(".png"), "json": stem.with_suffix(".json")}
    from ..atomic_file import write_atomically
    from .plot import plot_curves

    # Each file whole or not at all, the record last: a record in the directory means its run finished.
    hint = f"{exp.id} has no record; rerun it once the disk can take its files"
    write_atomically(files["csv"], lambda tmp: curves.to_csv(tmp, index=False), "the curves", hint)
    write_atomically(files["png"], lambda tmp: plot_curves(curves, output.plot, published, tmp), "the plot", hint)
    report = Report(exp.id, exp.title, exp.source, ctx.quick, checks, ctx.runs - runs_before, wall, files)
    record = json.dumps(report.to_json(), indent=2, allow_nan=False, default=_json_default) + "\n"
    write_atomically(files["json"], lambda tmp: tmp.write_text(record), "the record", hint)
    return report


def _finite_or_text(o: Any) -> Any:
    """JSON has no infinity or NaN: write them as the strings "inf", "-inf", "nan"."""
    if isinstance(o, float) and not math.isfinite(o):
        return "nan" if math.isnan(o) else ("inf" if o > 0 else "-inf")
    if isinstance(o, dict):
        return {k: _finite_or_text(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite_or_text(v) for v in o]
    return o


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    raise TypeError(f"not JSON serializable: {type(o).__name__}")


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in x) + "]"
    if isinstance(x, float):
        return "nan" if math.isnan(x) else f"{x:.4g}"
    return str(x)


def format_checks(report: Report) -> str:
    """A compact table for the terminal: claim | published | ours ± ci | tolerance | verdict."""
    from .document import cells, counts, counts_line

    rows = [("claim", "published", "ours ± ci", "tolerance", "verdict")]
    for c in report.checks:
        cell = cells(asdict(c))
        label = f"{c.id}: {c.claim}" if c.id else c.claim
        if len(label) > 90:
            label = label[:87] + "..."
        rows.append((label, cell["published"], cell["ours"], cell["tolerance"], cell["verdict"].strip("*")))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    summary = counts_line(counts([report.to_json()]))
    head = f"{report.id}: {report.title}  ({report.runs} runs, {report.wall_time_s:.1f} s{', quick' if report.quick else ''}; {summary})"
    return "\n".join([head, *lines])


def write_summary(out_dir: str | Path) -> Path:
    """``SUMMARY.md`` of every experiment record in ``out_dir``."""
    from .document import write_summary as write

    return write(out_dir)


def reproduce(
    ids: Iterable[str],
    quick: bool = False,
    jobs: int | None = None,
    out_dir: str | Path = "repro-out",
    progress: bool = True,
    echo: Callable[[str], None] | None = print,
    document: str | Path | None = None,
) -> list[Report]:
    """Run the named experiments (``"all"`` for every one), write their files,
    print their checks, then write ``SUMMARY.md`` and the HTML report
    (``index.html``) of every record in ``out_dir``; with ``document``, also the
    full document there (REPRODUCTIONS.md, :mod:`.document`)."""
    chosen = _resolve(ids)
    reports = []
    for exp in chosen:
        ctx = Context(quick=quick, jobs=jobs, out_dir=Path(out_dir), progress=progress)
        report = run_experiment(exp, ctx)
        reports.append(report)
        if echo is not None:
            echo(format_checks(report))
            echo(f"  wrote {', '.join(str(p) for p in report.files.values())}\n")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    summary = write_summary(out_dir)
    from .report_html import write_html

    page = write_html(out_dir)
    if echo is not None:
        echo(f"every experiment in {out_dir}: {summary}, {page}")
        from .document import read_records

        damaged = read_records(out_dir)[1]
        if damaged:
            names = ", ".join(d.name for d in damaged)
            echo(f"damaged records left out of them, and listed there: {names}")
    if document is not None:
        from .document import write_document

        written = write_document(out_dir, document)
        if echo is not None:
            echo(f"document of every record in {out_dir}: {written}")
    return reports
