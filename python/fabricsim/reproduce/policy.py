"""The written tolerance policy (REPRODUCTIONS.md, "Tolerance policy") and
the verdict a published claim gets under it: one rule per kind of claim, so
a margin is never chosen for the number it has to meet.

The lowest layer of the reproductions: claims tables (:mod:`.claims`), the
experiment registry (:mod:`.framework`) and the documents build on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

@dataclass
class Check:
    """One published claim set against our number.

    ``published`` is a value or a ``[lo, hi]`` range; ``tolerance`` is an absolute
    margin in the claim's units. ``within`` is true when ``ours`` lies within
    ``tolerance`` of the value, or of the range; it is None where nothing is
    judged (a calibration fit, a claim not evaluated).

    A row of a claims table (:mod:`.claims`) also carries its ``id``,
    ``figure``, ``kind``, ``unit`` and ``role`` (``prediction``, ``fit``,
    ``derived``, ``unaddressed``, ``construction``, ``restates``), and the
    model choices that decide it (``decided_by``); a check written in an
    experiment's code, as studies not yet converted state them, has role
    ``check``. ``no_value`` says why a prediction has no value to judge (a
    NaN, a ratio over 0, 0 against 0, both sides stalled): its verdict is
    then "no value", neither within nor missed.
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
    no_value: str = ""
    decided_by: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """within, missed, no value, fit, derived, unaddressed, construction or restates."""
        return verdict_of(self.role, self.within, self.no_value)


def verdict_of(role: str, within: bool | None, no_value: str = "") -> str:
    """A row's verdict from its role, whether ours is within, and why it has no value."""
    if role in ("prediction", "check"):
        if no_value:
            return "no value"
        return "within" if within else "missed"
    return role


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
                          f"{MUCH_MIN_PCT:g}%, the same within {SAME_PCT:g}%, not noticeably below at most {SAME_PCT:g}% below, "
                          "about X within the range X's rounding allows"),
    "trend": KindRule("rising or falling: the whole change beyond its CI and no step the other way beyond its CI; "
                      "a growth factor: both ends within the margin of their kind"),
}
# Size words of direction claims: (lowest, highest) difference in %, and whether it must exceed the combined CI.
SIZE_WORDS: dict[str, tuple[float, float, bool]] = {
    "above": (0.0, math.inf, True),
    "slightly": (0.0, SLIGHT_MAX_PCT, True),
    "essentially": (MUCH_MIN_PCT, math.inf, True),
    "same": (-SAME_PCT, SAME_PCT, False),
    # "not noticeably better" (one-sided): A not below B by more than SAME_PCT.
    "not_below": (-SAME_PCT, math.inf, False),
    "about": (math.nan, math.nan, True),
}
