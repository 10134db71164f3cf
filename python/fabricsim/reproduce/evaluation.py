"""A claims table's rows judged against what an experiment computed, under
the written policy (:mod:`.policy`), and the counts per verdict.

Only the policy's rules: a value within its kind's margin of the published
value, or of each end of a published range (each end with its own margin);
a direction beyond the combined CI and sized by its word; a trend by its
shape. A row whose value cannot be computed (a NaN, a ratio over 0, 0
against 0, or a reason the experiment gives, such as both sides stalled)
reads **no value**: neither within nor missed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import FabricsimError
from .claims import EVALUATED, SHOWN, Claim, Compare, Measured, Series, Study, Value
from .policy import KIND_RULES, SIZE_WORDS, Check, verdict_of


def _half(ci: float | None) -> float:
    return 0.0 if ci is None or (isinstance(ci, float) and math.isnan(ci)) else float(ci)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _margin_at(claim: Claim, end: float) -> float:
    """The policy's absolute margin of a value claim of this kind at ``end``
    (the published value, or one end of a published range)."""
    if claim.margin is not None:
        return claim.margin
    rule = KIND_RULES[claim.kind]
    if claim.kind == "simulated throughput" and claim.unit != "%":
        return rule.points / 100.0 * (claim.bandwidth or math.nan)
    if rule.points:
        return rule.points
    return rule.rel * abs(end)


def margins_of(claim: Claim) -> tuple[float, float]:
    """The margins below the low end and above the high end of the published
    value or range (a range's margin applies to each end the claim reads,
    never to its midpoint)."""
    p = claim.published
    lo, hi = p if isinstance(p, tuple) else (p or 0.0, p or 0.0)
    return _margin_at(claim, lo), _margin_at(claim, hi)


def _check(claim: Claim, **kw: Any) -> Check:
    return Check(claim=claim.quote, id=claim.id, figure=claim.figure, kind=claim.kind, role=claim.role,
                 unit=claim.unit, parameter=claim.parameter, margin_why=claim.margin_why,
                 decided_by=list(claim.decided_by), **kw)


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


def _value(claim: Claim, m: Value) -> Check:
    below, above = margins_of(claim)
    p = claim.published
    lo, hi = (p if isinstance(p, tuple) else (p, p))
    ours, ci = float(m.value), (None if m.ci is None or math.isnan(m.ci) else float(m.ci))
    no_value = m.no_value or ("no value computed" if math.isnan(ours) else "")
    within = not no_value and lo - below <= ours <= hi + above
    tol = below if not no_value and ours < lo else above
    return _check(claim, published=p, ours=ours, ours_ci=ci, tolerance=tol, within=bool(within), note=m.note,
                  no_value=no_value)


def _direction(claim: Claim, m: Compare) -> Check:
    ci = math.hypot(_half(m.a_ci), _half(m.b_ci))
    no_value = m.no_value
    if not no_value and (math.isnan(m.a) or math.isnan(m.b)):
        no_value = "no value computed for " + ("A" if math.isnan(m.a) else "B")
    elif not no_value and m.b == 0:
        no_value = "0 against 0" if m.a == 0 else "B is 0: a difference in % of it has no value"
    d = math.nan if no_value else 100.0 * (m.a - m.b) / m.b
    d_ci = math.nan if no_value else 100.0 * ci / abs(m.b)
    lo, hi, beyond_ci = SIZE_WORDS[claim.size]
    if claim.size == "about":
        lo, hi = claim.published  # type: ignore[misc]
    # Beyond the CI in absolute terms, so that a difference from 0 is judged too.
    within = not no_value and lo <= d <= hi and (not beyond_ci or m.a - m.b > ci)
    note = f"{_fmt(m.a)} against {_fmt(m.b)}" + (f"; {m.note}" if m.note else "")
    return _check(claim, published=[lo, hi], ours=d, ours_ci=d_ci if ci else None, tolerance=0.0, within=bool(within),
                  note=note, no_value=no_value)


def _trend(claim: Claim, m: Series | Value) -> Check:
    if claim.shape == "growth":
        if not isinstance(m, Value):
            raise FabricsimError(f"claim {claim.id}: a growth is evaluated from a Value (our ratio)")
        r = float(claim.published)  # type: ignore[arg-type]
        rel = KIND_RULES[claim.of].rel
        lo, hi = r * (1 - rel) / (1 + rel), r * (1 + rel) / (1 - rel)
        ours = float(m.value)
        no_value = m.no_value or ("no value computed" if math.isnan(ours) else "")
        return _check(claim, published=r, ours=ours, ours_ci=m.ci, tolerance=max(r - lo, hi - r),
                      within=bool(not no_value and lo <= ours <= hi), no_value=no_value,
                      note=(m.note + "; " if m.note else "") + f"both ends within ±{rel:.0%}: {_fmt(lo)} to {_fmt(hi)}")
    if not isinstance(m, Series):
        raise FabricsimError(f"claim {claim.id}: a {claim.shape} trend is evaluated from a Series")
    ys = [float(y) for y in m.ys]
    cis = [_half(c) for c in (m.cis or [None] * len(ys))]
    sign = 1.0 if claim.shape == "rising" else -1.0
    steps = [(sign * (b - a), math.hypot(ca, cb)) for (a, ca), (b, cb) in zip(zip(ys, cis), zip(ys[1:], cis[1:]))]
    overall, overall_ci = sign * (ys[-1] - ys[0]), math.hypot(cis[0], cis[-1])
    against = [i for i, (d, c) in enumerate(steps) if d < -c]
    no_value = m.no_value or ("no value computed at some point" if any(math.isnan(y) for y in ys) else "")
    within = not no_value and overall > overall_ci and not against
    xs = list(m.xs) if m.xs is not None else list(range(len(ys)))
    word = "falls" if claim.shape == "rising" else "rises"
    note = "ours: " + ", ".join(_fmt(y) for y in ys)
    if against:
        note += "; " + word + " beyond its CI at " + ", ".join(f"{xs[i]} -> {xs[i + 1]}" for i in against)
    if m.note:
        note += "; " + m.note
    return _check(claim, published=claim.shape, ours=sign * overall, ours_ci=overall_ci or None, tolerance=0.0,
                  within=bool(within), note=note, no_value=no_value)


def evaluate_claim(claim: Claim, m: Measured) -> Check:
    """Our number set against one claim, under the tolerance its kind gives."""
    if claim.kind == "direction":
        if not isinstance(m, Compare):
            raise FabricsimError(f"claim {claim.id}: a direction is evaluated from a Compare")
        c = _direction(claim, m)
    elif claim.kind == "trend":
        c = _trend(claim, m)
    elif isinstance(m, Value):
        c = _value(claim, m)
    else:
        raise FabricsimError(f"claim {claim.id}: a {claim.kind} is evaluated from a Value")
    if claim.role != "prediction":
        c.within = None
    if claim.reading:
        c.note = f"{claim.reading}; {c.note}" if c.note else claim.reading
    return c


def evaluate(study: Study, experiment: str, ours: Mapping[str, Measured]) -> list[Check]:
    """Every row of ``experiment`` in table order: the predictions and fits
    against ``ours`` (and the derived rows ``ours`` holds), the others as
    they stand. Each prediction and fit needs exactly one value in ``ours``,
    and ``ours`` holds nothing for a row of another role."""
    rows = study.rows(experiment)
    table = study.by_id()
    want = {c.id for c in rows if c.role in EVALUATED}
    may = {c.id for c in rows if c.role in SHOWN}
    missing = sorted(want - set(ours))
    extra = sorted(set(ours) - want - may)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"left unevaluated: {', '.join(missing)}")
        if extra:
            parts.append(f"evaluated but not predictions, fits or derived rows of {experiment} in "
                         f"{study.path.name}: {', '.join(extra)}")
        raise FabricsimError(f"experiment `{experiment}`: claims {'; '.join(parts)}")
    return [evaluate_claim(c, ours[c.id]) if c.id in ours else _not_evaluated(c, table) for c in rows]


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
    no_value: int = 0
    fits: int = 0
    derived: int = 0
    unaddressed: int = 0
    construction: int = 0
    restates: int = 0
    checks_within: int = 0  # experiments not yet converted to a claims table
    checks: int = 0

    def add(self, c: Mapping[str, Any]) -> None:
        role = c.get("role", "check")
        v = verdict_of(role, c.get("within"), c.get("no_value", ""))
        if role == "prediction":
            self.within += v == "within"
            self.missed += v == "missed"
            self.no_value += v == "no value"
        elif role == "fit":
            self.fits += 1
        elif role == "derived":
            self.derived += 1
        elif role == "unaddressed":
            self.unaddressed += 1
        elif role == "construction":
            self.construction += 1
        elif role == "restates":
            self.restates += 1
        else:
            self.checks += 1
            self.checks_within += v == "within"

    @property
    def predictions(self) -> int:
        """Predictions judged: within or missed (no value counted apart)."""
        return self.within + self.missed
