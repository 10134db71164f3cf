"""A study's published claims as data: one table per study, beside its
reproduction module (``<study>.claims.toml``, the study being the prefix of
its experiment ids), and their evaluation against what the reproduction
computes.

A row holds the claim (id, figure or table, the paper's words, the
published value or range and its unit), its kind, which sets the tolerance
through the policy in :mod:`.framework`, and its role:

- ``prediction``: checked; within or missed.
- ``fit``: a calibration target (``parameter`` names what was set on it);
  ours is shown beside it, never counted as a pass.
- ``unaddressed``: the model cannot yet address it (``why``).
- ``construction``: true by construction of the model or arithmetic on the
  inputs, so not evidence; ``test`` names the unit test that holds it.
- ``restates``: the same fact as another row (``same_as``), checked there.

An experiment computes only "ours", as a :class:`Value`, :class:`Compare`,
:class:`Series` or :class:`Span` per row id of its predictions and fits;
the framework evaluates the rows (:func:`evaluate`) and refuses a row left
unevaluated or an id the table does not hold.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Union

from ..errors import FabricsimError
from .framework import Check, KIND_RULES, SIZE_WORDS

ROLES = ("prediction", "fit", "unaddressed", "construction", "restates")
EVALUATED = ("prediction", "fit")
SHAPES = ("rising", "falling", "growth")
NATURES = ("simulation", "hardware", "own experiment")
HERE = Path(__file__).parent

_ROW_KEYS = {
    "id": str, "experiment": str, "figure": str, "quote": str, "published": (int, float, list), "unit": str,
    "kind": str, "role": str, "parameter": str, "why": str, "test": str, "same_as": str, "margin": (int, float),
    "margin_why": str, "size": str, "shape": str, "of": str, "bandwidth": (int, float), "reading": str, "plot": dict,
}
_STUDY_KEYS = {"title": str, "source": str, "nature": str, "calibration": str}
_PLOT_KEYS = {"series": str, "x": (int, float), "metric": str, "vline": bool}


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (see the module docstring)."""

    id: str
    experiment: str
    figure: str
    quote: str
    unit: str
    kind: str
    role: str
    published: float | tuple[float, float] | None = None
    parameter: str = ""
    why: str = ""
    test: str = ""
    same_as: str = ""
    margin: float | None = None
    margin_why: str = ""
    size: str = ""
    shape: str = ""
    of: str = ""
    bandwidth: float | None = None
    reading: str = ""
    plot: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Study:
    """A study's claims table: what it is, and its rows in table order."""

    id: str
    title: str
    source: str
    nature: str
    calibration: str
    claims: tuple[Claim, ...]
    path: Path

    def rows(self, experiment: str) -> list[Claim]:
        return [c for c in self.claims if c.experiment == experiment]

    def by_id(self) -> dict[str, Claim]:
        return {c.id: c for c in self.claims}


# ---- what an experiment computes ------------------------------------------


@dataclass
class Value:
    """Our number for a value claim (its 95% CI half width if known)."""

    value: float
    ci: float | None = None
    note: str = ""


@dataclass
class Compare:
    """A direction claim: ``a`` is what the claim says is larger than ``b``."""

    a: float
    b: float
    a_ci: float | None = None
    b_ci: float | None = None
    note: str = ""


@dataclass
class Series:
    """A trend claim: our values in order of the claim's x (with CIs if known)."""

    ys: Sequence[float]
    cis: Sequence[float | None] | None = None
    xs: Sequence[Any] | None = None
    note: str = ""


@dataclass
class Span:
    """Ours over a range the paper leaves open (e.g. a share of traffic it does
    not name): the claim holds if the published value lies in it, widened by
    the kind's margin."""

    lo: float
    hi: float
    note: str = ""


Measured = Union[Value, Compare, Series, Span]


# ---- loading ----------------------------------------------------------------


def _fail(path: Path, where: str, key: str, value: Any, allowed: str) -> FabricsimError:
    return FabricsimError(f"{path.name}: {where}: `{key}` = {value!r}; allowed: {allowed}")


def _typed(path: Path, where: str, table: Mapping[str, Any], keys: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in table.items():
        if key not in keys:
            raise _fail(path, where, key, value, "one of " + ", ".join(keys))
        want = keys[key]
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise _fail(path, where, key, value, f"a {getattr(want, '__name__', want)}")
        out[key] = value
    return out


def _row(path: Path, i: int, table: Mapping[str, Any]) -> Claim:
    where = f"claim {i + 1} ({table.get('id', 'no id')})"
    row = _typed(path, where, table, _ROW_KEYS)
    for key in ("id", "experiment", "figure", "quote", "unit", "kind", "role"):
        if not row.get(key) and not (key == "unit" and key in row):
            raise _fail(path, where, key, row.get(key), "a non-empty string (every row states it)")
    if row["role"] not in ROLES:
        raise _fail(path, where, "role", row["role"], ", ".join(ROLES))
    if row["kind"] not in KIND_RULES:
        raise _fail(path, where, "kind", row["kind"], ", ".join(KIND_RULES))
    published = row.get("published")
    if isinstance(published, list):
        if len(published) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in published) \
                or published[0] > published[1]:
            raise _fail(path, where, "published", published, "a number or a range [low, high]")
        published = (float(published[0]), float(published[1]))
    elif published is not None:
        published = float(published)
    row["published"] = published
    role, kind = row["role"], row["kind"]
    needs = {"fit": "parameter", "unaddressed": "why", "construction": "why", "restates": "same_as"}
    if role in needs and not row.get(needs[role]):
        raise _fail(path, where, needs[role], None, f"a reason: a `{role}` row names its {needs[role]}")
    if role == "construction" and not row.get("test"):
        raise _fail(path, where, "test", None, "the unit test that holds a `construction` row")
    if ("margin" in row) != ("margin_why" in row):
        raise _fail(path, where, "margin_why", row.get("margin_why"), "a margin together with why, from the paper's precision")
    if role not in EVALUATED:
        pass  # a row nothing evaluates needs no rule to evaluate it by
    elif kind == "direction":
        if row.get("size") not in SIZE_WORDS:
            raise _fail(path, where, "size", row.get("size"), ", ".join(SIZE_WORDS))
        if row.get("size") == "about" and not isinstance(published, tuple):
            raise _fail(path, where, "published", published, "the range in % that 'about' allows, e.g. [5, 15]")
    elif kind == "trend":
        if row.get("shape") not in SHAPES:
            raise _fail(path, where, "shape", row.get("shape"), ", ".join(SHAPES))
        if row["shape"] == "growth" and (published is None or row.get("of") not in KIND_RULES):
            raise _fail(path, where, "of", row.get("of"), "a growth names its ratio (`published`) and the kind it is of (`of`)")
    elif published is None:
        raise _fail(path, where, "published", None, "the published value or range of an evaluated value claim")
    if kind == "simulated throughput" and row["unit"] != "%" and role in EVALUATED and "bandwidth" not in row:
        raise _fail(path, where, "bandwidth", None, "the bandwidth (in the claim's unit) that ±2 points refer to")
    if "plot" in row:
        plot = _typed(path, where + " plot", row["plot"], _PLOT_KEYS)
        if "series" not in plot:
            raise _fail(path, where, "plot", row["plot"], "a table with `series` (and `x`, `metric` or `vline`)")
    row["margin"] = float(row["margin"]) if "margin" in row else None
    if "bandwidth" in row:
        row["bandwidth"] = float(row["bandwidth"])
    return Claim(**row)


def load_study(path: Path) -> Study:
    """A claims table from ``path``; every error names the file, the row and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise FabricsimError(f"{path.name}: cannot read the claims table: {e}") from None
    extra = set(data) - {"study", "claims"}
    if extra:
        raise _fail(path, "top level", sorted(extra)[0], "...", "[study] and [[claims]]")
    head = _typed(path, "[study]", data.get("study", {}), _STUDY_KEYS)
    for key in ("title", "source", "nature"):
        if not head.get(key):
            raise _fail(path, "[study]", key, head.get(key), "a non-empty string")
    if head["nature"] not in NATURES:
        raise _fail(path, "[study]", "nature", head["nature"], ", ".join(NATURES))
    rows = tuple(_row(path, i, r) for i, r in enumerate(data.get("claims", [])))
    seen: set[str] = set()
    for r in rows:
        if r.id in seen:
            raise _fail(path, f"claim {r.id}", "id", r.id, "an id used once")
        seen.add(r.id)
    for r in rows:
        if r.role == "restates" and (r.same_as not in seen or r.same_as == r.id):
            raise _fail(path, f"claim {r.id}", "same_as", r.same_as, "the id of another row of this table")
    study = path.name.removesuffix(".claims.toml")
    return Study(study, head["title"], head["source"], head["nature"], head.get("calibration", ""), rows, path)


@cache
def study_table(study: str) -> Study | None:
    """The claims table of ``study`` (an experiment id's prefix), if it has one."""
    path = HERE / f"{study}.claims.toml"
    return load_study(path) if path.exists() else None


def tables() -> list[Study]:
    """Every study's claims table in the package."""
    return [load_study(p) for p in sorted(HERE.glob("*.claims.toml"))]


# ---- evaluation ---------------------------------------------------------------


def _half(ci: float | None) -> float:
    return 0.0 if ci is None or (isinstance(ci, float) and math.isnan(ci)) else float(ci)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def margin_of(claim: Claim) -> float:
    """The absolute margin the policy gives a value claim of this kind."""
    if claim.margin is not None:
        return claim.margin
    rule = KIND_RULES[claim.kind]
    if claim.kind == "simulated throughput" and claim.unit != "%":
        return rule.points / 100.0 * (claim.bandwidth or math.nan)
    if rule.points:
        return rule.points
    p = claim.published
    ref = (abs(p[0]) + abs(p[1])) / 2 if isinstance(p, tuple) else abs(p or 0.0)
    return rule.rel * ref


def _check(claim: Claim, **kw: Any) -> Check:
    return Check(claim=claim.quote, id=claim.id, figure=claim.figure, kind=claim.kind, role=claim.role,
                 unit=claim.unit, parameter=claim.parameter, margin_why=claim.margin_why, **kw)


def _not_evaluated(claim: Claim, table: Mapping[str, Claim]) -> Check:
    if claim.role == "restates":
        other = table[claim.same_as]
        note = f"the same fact as {other.id} ({other.figure}), checked there"
    elif claim.role == "construction":
        note = f"{claim.why}; held by the unit test {claim.test}"
    else:
        note = claim.why
    return _check(claim, published=claim.published, ours=math.nan, ours_ci=None, tolerance=math.nan, within=None,
                  note=note)


def _value(claim: Claim, m: Value | Span) -> Check:
    tol = margin_of(claim)
    p = claim.published
    lo, hi = (p if isinstance(p, tuple) else (p, p))
    if isinstance(m, Span):
        ours, ci = (m.lo + m.hi) / 2, (m.hi - m.lo) / 2
        within = not math.isnan(ours) and m.lo - tol <= hi and lo <= m.hi + tol
        note = f"ours spans {_fmt(m.lo)} to {_fmt(m.hi)}" + (f"; {m.note}" if m.note else "")
    else:
        ours, ci = float(m.value), (None if m.ci is None or math.isnan(m.ci) else float(m.ci))
        within = not math.isnan(ours) and lo - tol <= ours <= hi + tol
        note = m.note
    return _check(claim, published=p, ours=ours, ours_ci=ci, tolerance=tol, within=bool(within), note=note)


def _direction(claim: Claim, m: Compare) -> Check:
    ci = math.hypot(_half(m.a_ci), _half(m.b_ci))
    # Equal values (both 0 included) differ by 0%; anything above 0 is infinitely above it.
    if m.a == m.b:
        d = 0.0
    elif m.b:
        d = 100.0 * (m.a - m.b) / m.b
    else:
        d = math.copysign(math.inf, m.a) if not math.isnan(m.a) else math.nan
    d_ci = 100.0 * ci / abs(m.b) if m.b else (0.0 if ci == 0 else math.inf)
    lo, hi, beyond_ci = SIZE_WORDS[claim.size]
    if claim.size == "about":
        lo, hi = claim.published  # type: ignore[misc]
    # Beyond the CI in absolute terms, so that a difference from 0 is judged too.
    within = not math.isnan(d) and lo <= d <= hi and (not beyond_ci or m.a - m.b > ci)
    note = f"{_fmt(m.a)} against {_fmt(m.b)}" + (f"; {m.note}" if m.note else "")
    return _check(claim, published=[lo, hi], ours=d, ours_ci=d_ci if ci else None, tolerance=0.0, within=bool(within),
                  note=note)


def _trend(claim: Claim, m: Series | Value) -> Check:
    if claim.shape == "growth":
        if not isinstance(m, Value):
            raise FabricsimError(f"claim {claim.id}: a growth is evaluated from a Value (our ratio)")
        r = float(claim.published)  # type: ignore[arg-type]
        rel = KIND_RULES[claim.of].rel
        lo, hi = r * (1 - rel) / (1 + rel), r * (1 + rel) / (1 - rel)
        ours = float(m.value)
        return _check(claim, published=r, ours=ours, ours_ci=m.ci, tolerance=max(r - lo, hi - r),
                      within=bool(lo <= ours <= hi), note=(m.note + "; " if m.note else "")
                      + f"both ends within ±{rel:.0%}: {_fmt(lo)} to {_fmt(hi)}")
    if not isinstance(m, Series):
        raise FabricsimError(f"claim {claim.id}: a {claim.shape} trend is evaluated from a Series")
    ys = [float(y) for y in m.ys]
    cis = [_half(c) for c in (m.cis or [None] * len(ys))]
    sign = 1.0 if claim.shape == "rising" else -1.0
    steps = [(sign * (b - a), math.hypot(ca, cb)) for (a, ca), (b, cb) in zip(zip(ys, cis), zip(ys[1:], cis[1:]))]
    overall, overall_ci = sign * (ys[-1] - ys[0]), math.hypot(cis[0], cis[-1])
    against = [i for i, (d, c) in enumerate(steps) if d < -c]
    within = not any(math.isnan(y) for y in ys) and overall > overall_ci and not against
    xs = list(m.xs) if m.xs is not None else list(range(len(ys)))
    word = "falls" if claim.shape == "rising" else "rises"
    note = "ours: " + ", ".join(_fmt(y) for y in ys)
    if against:
        note += "; " + word + " beyond its CI at " + ", ".join(f"{xs[i]} -> {xs[i + 1]}" for i in against)
    if m.note:
        note += "; " + m.note
    return _check(claim, published=claim.shape, ours=sign * overall, ours_ci=overall_ci or None, tolerance=0.0,
                  within=bool(within), note=note)


def evaluate_claim(claim: Claim, m: Measured) -> Check:
    """Our number set against one claim, under the tolerance its kind gives."""
    if claim.kind == "direction":
        if not isinstance(m, Compare):
            raise FabricsimError(f"claim {claim.id}: a direction is evaluated from a Compare")
        c = _direction(claim, m)
    elif claim.kind == "trend":
        c = _trend(claim, m)
    elif isinstance(m, (Value, Span)):
        c = _value(claim, m)
    else:
        raise FabricsimError(f"claim {claim.id}: a {claim.kind} is evaluated from a Value or a Span")
    if claim.role == "fit":
        c.within = None
    if claim.reading:
        c.note = f"{claim.reading}; {c.note}" if c.note else claim.reading
    return c


def evaluate(study: Study, experiment: str, ours: Mapping[str, Measured]) -> list[Check]:
    """Every row of ``experiment`` in table order: the predictions and fits
    against ``ours``, the others as they stand. Each evaluated row needs
    exactly one value in ``ours``, and ``ours`` holds nothing else."""
    rows = study.rows(experiment)
    table = study.by_id()
    want = {c.id for c in rows if c.role in EVALUATED}
    missing = sorted(want - set(ours))
    extra = sorted(set(ours) - want)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"left unevaluated: {', '.join(missing)}")
        if extra:
            parts.append(f"evaluated but not predictions or fits of {experiment} in {study.path.name}: {', '.join(extra)}")
        raise FabricsimError(f"experiment `{experiment}`: claims {'; '.join(parts)}")
    return [evaluate_claim(c, ours[c.id]) if c.role in EVALUATED else _not_evaluated(c, table) for c in rows]


def published_points(study: Study, experiment: str) -> list[dict[str, Any]]:
    """The plot's published marks, from the rows that say where they go."""
    points = []
    for c in study.rows(experiment):
        if not c.plot or c.published is None:
            continue
        p = c.published
        y = (p[0] + p[1]) / 2 if isinstance(p, tuple) else p
        point: dict[str, Any] = {"series": c.plot["series"], "note": f"{c.figure} ({c.id})"}
        if c.plot.get("metric"):
            point["metric"] = c.plot["metric"]
        if c.plot.get("vline"):
            point.update(x=y, y=None)
        else:
            point.update(x=c.plot["x"], y=y)
        points.append(point)
    return points


@dataclass
class Counts:
    """A study's (or a run's) claims by verdict."""

    within: int = 0
    missed: int = 0
    fits: int = 0
    unaddressed: int = 0
    construction: int = 0
    restates: int = 0
    checks_within: int = 0  # experiments not yet converted to a claims table
    checks: int = 0

    def add(self, c: Mapping[str, Any]) -> None:
        role = c.get("role", "check")
        if role == "prediction":
            if c.get("within"):
                self.within += 1
            else:
                self.missed += 1
        elif role == "fit":
            self.fits += 1
        elif role == "unaddressed":
            self.unaddressed += 1
        elif role == "construction":
            self.construction += 1
        elif role == "restates":
            self.restates += 1
        else:
            self.checks += 1
            self.checks_within += bool(c.get("within"))

    @property
    def predictions(self) -> int:
        return self.within + self.missed
