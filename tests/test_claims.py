"""Claims as data: the tables load and name what they should, every row is
evaluated exactly once, the tolerance comes from the kind, and the document
and the HTML report say what the runs say."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import pytest
from fabricsim.errors import FabricsimError
from fabricsim.reproduce import claims, document, evaluation, experiments
from fabricsim.reproduce.claims import Compare, Series, Value

ROW = """
[[claims]]
id = "a"
experiment = "demo/one"
figure = "Fig. 1"
quote = "It is about 10."
published = 10
unit = "us"
kind = "simulated latency"
role = "prediction"
"""
CHOICE = """
[[choices]]
id = "router"
kind = "fit"
key = "switch.router_latency_us"
value = "0.72"
why = "set on Table 6's 0% row"
alternative = "3 (the default)"
"""
HEAD = '[study]\ntitle = "Demo"\nsource = "a demo"\nnature = "simulation"\n'


def table(tmp_path: Path, rows: str, name: str = "demo") -> claims.Study:
    path = tmp_path / f"{name}.claims.toml"
    path.write_text(HEAD + rows)
    return claims.load_study(path)


def test_every_table_names_registered_experiments_of_its_study():
    known = experiments()
    tables = claims.tables()
    assert {t.id for t in tables} >= {"switched-fcal", "ong-farrell-fc", "fcal-loop", "fc-classes", "hp-fc-1995"}
    for t in tables:
        for c in t.claims:
            assert c.experiment in known, f"{t.path.name}: {c.id} names {c.experiment}"
            assert known[c.experiment].study == t.id
        fits = [c for c in t.claims if c.role == "fit"]
        assert all(c.parameter for c in fits)


@pytest.mark.parametrize("rows, key", [
    (ROW.replace('role = "prediction"', 'role = "guess"'), "role"),
    (ROW.replace('kind = "simulated latency"', 'kind = "vibes"'), "kind"),
    (ROW + 'colour = "red"\n', "colour"),
    (ROW.replace('role = "prediction"', 'role = "fit"'), "parameter"),
    (ROW.replace('role = "prediction"', 'role = "restates"\nsame_as = "b"'), "same_as"),
    (ROW + "margin = 2\n", "margin_why"),
    (ROW.replace("published = 10\n", ""), "published"),
    (ROW.replace('kind = "simulated latency"', 'kind = "direction"'), "size"),
    (ROW.replace('role = "prediction"', 'role = "construction"\nwhy = "arithmetic"'), "test"),
    (ROW.replace('role = "prediction"', 'role = "derived"'), "why"),
    (ROW + 'decided_by = ["router"]\n', "decided_by"),
    (ROW + CHOICE, "id"),
    (ROW + 'decided_by = ["router"]\n' + CHOICE.replace('kind = "fit"', 'kind = "hunch"'), "kind"),
    (ROW + ROW, "id"),
    (ROW.replace("published = 10", "published = [12, 10]"), "published"),
])
def test_a_bad_row_is_refused_naming_the_file_the_row_and_the_key(tmp_path, rows, key):
    with pytest.raises(FabricsimError) as e:
        table(tmp_path, rows)
    text = str(e.value)
    assert "demo.claims.toml" in text and f"`{key}`" in text and ("claim" in text), text


def claim(**kw) -> claims.Claim:
    base = dict(id="x", experiment="demo/one", figure="Fig. 1", quote="q", unit="us", kind="simulated latency",
                role="prediction", published=100.0)
    base.update(kw)
    return claims.Claim(**base)


def test_the_kind_sets_the_tolerance():
    assert evaluation.evaluate_claim(claim(), Value(109.0)).within
    assert not evaluation.evaluate_claim(claim(), Value(111.0)).within
    assert evaluation.evaluate_claim(claim(kind="hardware measurement"), Value(119.0)).within
    assert not evaluation.evaluate_claim(claim(kind="hardware measurement"), Value(121.0)).within
    assert evaluation.evaluate_claim(claim(kind="simulated count", published=(10.0, 20.0)), Value(21.4)).within
    nan = evaluation.evaluate_claim(claim(kind="simulated latency"), Value(math.nan))
    assert not nan.within and nan.verdict == "no value" and nan.no_value == "no value computed"
    # Throughput: 2 points of bandwidth, in % or in the row's unit.
    assert evaluation.evaluate_claim(claim(kind="simulated throughput", unit="%", published=47.0), Value(45.1)).within
    mb = claim(kind="simulated throughput", unit="MB/s", published=90.0, bandwidth=100.0)
    assert evaluation.evaluate_claim(mb, Value(91.9)).within and not evaluation.evaluate_claim(mb, Value(92.1)).within
    # A wider margin only with its reason; a fit is shown, never passed.
    assert evaluation.evaluate_claim(claim(margin=20.0, margin_why="w"), Value(119.0)).within
    fit = evaluation.evaluate_claim(claim(role="fit", parameter="p"), Value(100.0))
    assert fit.within is None and fit.verdict == "fit"
    # The range a study's rounding allows, no further margin.
    ratio = claim(kind="stated ratio", published=(1.5, 1.7), unit="")
    assert evaluation.evaluate_claim(ratio, Value(1.7)).within and not evaluation.evaluate_claim(ratio, Value(1.71)).within


def test_directions_need_their_sign_beyond_the_ci_and_their_size():
    above = claim(kind="direction", size="above", published=None, unit="%")
    assert evaluation.evaluate_claim(above, Compare(10.5, 10.0, 0.1, 0.1)).within
    assert not evaluation.evaluate_claim(above, Compare(10.1, 10.0, 0.2, 0.2)).within  # inside the CI
    assert not evaluation.evaluate_claim(above, Compare(9.9, 10.0)).within  # opposite sign
    slightly = claim(kind="direction", size="slightly", published=None, unit="%")
    assert not evaluation.evaluate_claim(slightly, Compare(13.0, 10.0, 0.1, 0.1)).within  # more than slightly
    same = claim(kind="direction", size="same", published=None, unit="%")
    assert evaluation.evaluate_claim(same, Compare(10.4, 10.0)).within and not evaluation.evaluate_claim(same, Compare(10.6, 10.0)).within
    about = claim(kind="direction", size="about", published=(5.0, 15.0), unit="%")
    assert evaluation.evaluate_claim(about, Compare(11.0, 10.0)).within and not evaluation.evaluate_claim(about, Compare(12.0, 10.0)).within
    assert evaluation.evaluate_claim(above, Compare(math.inf, 10.0)).within  # saturated below the load


def test_trends_rise_beyond_their_ci_with_no_step_against_it():
    rising = claim(kind="trend", shape="rising", published=None)
    assert evaluation.evaluate_claim(rising, Series([1.0, 2.0, 3.0])).within
    assert evaluation.evaluate_claim(rising, Series([1.0, 2.0, 1.95, 3.0], [0.1, 0.1, 0.1, 0.1])).within  # a dip inside its CI
    dip = evaluation.evaluate_claim(rising, Series([1.0, 2.0, 1.5, 3.0], xs=[0, 10, 20, 30]))
    assert not dip.within and "10 -> 20" in dip.note
    assert not evaluation.evaluate_claim(rising, Series([1.0, 1.05], [0.1, 0.1])).within  # the whole rise inside its CI
    falling = claim(kind="trend", shape="falling", published=None)
    assert evaluation.evaluate_claim(falling, Series([3.0, 2.0, 1.0])).within
    growth = claim(kind="trend", shape="growth", published=14.5, of="simulated count", unit="times")
    assert evaluation.evaluate_claim(growth, Value(12.0)).within and not evaluation.evaluate_claim(growth, Value(11.8)).within


def test_a_row_names_the_declared_choices_that_decide_it(tmp_path):
    study = table(tmp_path, ROW + 'decided_by = ["router"]\n' + CHOICE)
    assert study.choices[0].alternative == "3 (the default)"
    done = evaluation.evaluate(study, "demo/one", {"a": Value(10.0)})
    assert done[0].decided_by == ["router"] and done[0].verdict == "within"


def test_a_derived_row_is_shown_if_computed_and_never_counted(tmp_path):
    rows = ROW + ROW.replace('id = "a"', 'id = "d"').replace('role = "prediction"', 'role = "derived"\nwhy = "a + b"')
    study = table(tmp_path, rows)
    for ours in ({"a": Value(10.0)}, {"a": Value(10.0), "d": Value(10.0)}):
        done = evaluation.evaluate(study, "demo/one", ours)
        assert [c.verdict for c in done] == ["within", "derived"] and done[1].within is None
        counts = evaluation.Counts()
        for c in done:
            counts.add(dataclasses.asdict(c))
        assert (counts.within, counts.predictions, counts.derived) == (1, 1, 1)


def test_a_range_has_the_margin_of_each_end_not_of_its_midpoint():
    # 312-460 us at +-10%: 280.8 to 506 (the midpoint's margin would give 347.6 to 424.4 around the ends).
    r = claim(published=(312.0, 460.0))
    assert evaluation.evaluate_claim(r, Value(505.0)).within and not evaluation.evaluate_claim(r, Value(507.0)).within
    assert evaluation.evaluate_claim(r, Value(281.0)).within and not evaluation.evaluate_claim(r, Value(280.0)).within
    assert evaluation.margins_of(r) == pytest.approx((31.2, 46.0))


def test_a_value_that_cannot_be_computed_is_no_value_never_within_or_missed():
    above = claim(kind="direction", size="above", published=None, unit="%")
    same = claim(kind="direction", size="same", published=None, unit="%")
    for row, m, why in [
        (above, Compare(5.0, 0.0), "B is 0"),
        (same, Compare(0.0, 0.0), "0 against 0"),
        (above, Compare(math.nan, 1.0), "no value computed for A"),
        (above, Compare(2.0, 1.0, no_value="both deadlocked"), "both deadlocked"),
        (claim(kind="trend", shape="rising", published=None), Series([1.0, math.nan, 3.0]), "no value computed"),
    ]:
        c = evaluation.evaluate_claim(row, m)
        assert c.verdict == "no value" and why in c.no_value and not c.within, (m, c)
    counts = evaluation.Counts()
    for c in [evaluation.evaluate_claim(same, Compare(0.0, 0.0)), evaluation.evaluate_claim(claim(), Value(100.0))]:
        counts.add(dataclasses.asdict(c))
    assert (counts.within, counts.missed, counts.no_value, counts.predictions) == (1, 0, 1, 1)


def test_an_experiment_must_evaluate_its_rows_and_only_them(tmp_path):
    rows = ROW + ROW.replace('id = "a"', 'id = "b"').replace('role = "prediction"', 'role = "fit"\nparameter = "p"') \
        + ROW.replace('id = "a"', 'id = "c"').replace('role = "prediction"', 'role = "restates"\nsame_as = "a"')
    study = table(tmp_path, rows)
    done = evaluation.evaluate(study, "demo/one", {"a": Value(10.0), "b": Value(9.0)})
    assert [c.verdict for c in done] == ["within", "fit", "restates"]
    with pytest.raises(FabricsimError, match="left unevaluated: b"):
        evaluation.evaluate(study, "demo/one", {"a": Value(10.0)})
    with pytest.raises(FabricsimError, match="not predictions, fits or derived rows .*: c"):
        evaluation.evaluate(study, "demo/one", {"a": Value(10.0), "b": Value(9.0), "c": Value(1.0)})


def test_every_row_of_every_table_is_evaluated_once(quick_records):
    _, reports = quick_records
    seen = Counter(c.id for r in reports.values() for c in r.checks if c.id)
    for t in claims.tables():
        for c in t.claims:
            assert seen[c.id] == 1, f"{t.id}: {c.id} appears {seen[c.id]} times"
    for r in reports.values():
        for c in r.checks:
            evaluated = c.role in ("prediction", "fit")
            # An evaluated row has a number, unless it says why it has none (a deadlocked run); a derived row may show one.
            assert c.role == "derived" or evaluated != math.isnan(c.ours) or (evaluated and bool(c.no_value)), \
                f"{r.id}: {c.id} ({c.role}) ours {c.ours}: {c.note}"
            if c.role == "prediction":
                assert isinstance(c.within, bool)
            else:
                assert c.within is None


def test_the_document_counts_what_the_records_hold(quick_records):
    out, reports = quick_records
    text = document.document_markdown(out)
    for study in ("switched-fcal", "ong-farrell-fc", "fcal-loop", "hp-fc-1995"):
        c = document.counts(r.to_json() for r in reports.values() if r.study == study)
        assert f"| {study} | {c.within} of {c.predictions} | {c.missed} | {c.no_value} | {c.fits} | {c.derived} | " \
               f"{c.unaddressed} | {c.construction} | {c.restates} |" in text
    assert "| fc-classes (own experiment) |" in text
    assert "## Tolerance policy" in text and "**hardware measurement**" in text
    # Every study has records here: none falls back to a hand-kept table of an older run.
    assert "Not in the counts" not in text and "### iba-2007/fig7" in text and "### hp-fc-1995/fig2:" in text
    for r in reports.values():
        assert f"### {r.id}:" in text
    summary = (out / "SUMMARY.md").read_text()
    assert all(f"## {i}:" in summary for i in reports)


def _test_body(name: str) -> str | None:
    """The body of the unit test a construction row names (``path::fn`` for a
    file of tests, ``module::path::tests::fn`` for a Rust unit test), or None."""
    root = Path(__file__).resolve().parents[1]
    where, _, fn = name.rpartition("::")
    if "/" in where:
        path = root / where
    else:
        parts = [p for p in where.split("::") if p != "tests"]
        base = root / "crates" / "fabricsim" / "src" / Path(*parts)
        path = base.with_suffix(".rs") if base.with_suffix(".rs").exists() else base / "mod.rs"
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    import re

    m = re.search(rf"^\s*(?:pub )?(?:def|fn) {re.escape(fn)}\(", text, re.M)
    if m is None:
        return None
    rest = text[m.end():]
    end = re.search(r"^\s*(?:#\[test\]|def |fn |@pytest)", rest, re.M)
    return rest[: end.start() if end else len(rest)]


def test_every_construction_row_names_a_test_that_asserts():
    for t in claims.tables():
        for c in t.claims:
            if c.role != "construction":
                continue
            body = _test_body(c.test)
            assert body is not None, f"{t.path.name}: {c.id} names {c.test}, which does not exist"
            assert "assert" in body, f"{t.path.name}: {c.id} names {c.test}, which asserts nothing"


def test_a_claim_over_several_conditions_is_judged_where_it_holds_least():
    pairs = {"a": Compare(12.0, 10.0), "b": Compare(10.5, 10.0), "c": Compare(1.0, 1.0, no_value="stalled")}
    assert claims.least_ahead(pairs) == "b"
    assert claims.least_ahead({"x": Compare(1.0, 0.0, no_value="B is 0")}) == "x"
