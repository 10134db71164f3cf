"""The HTML report in a real browser (Debian's chromium, headless): the page
loads from disk with its style sheet, every experiment is listed, every plot
loads, misses and fits are marked. A screenshot is kept for a person to look
at (``FABRICSIM_REPORT_SCREENSHOT=PATH`` copies it there)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from browser import REQUIRE_EXTERNAL, Browser, chromium_or_not_run
from conftest import SMALL
from fabricsim import Scenario
from fabricsim.reproduce import ExperimentOutput, PlotSpec, check, experiment, run_experiment
from fabricsim.reproduce.framework import Context, file_stem
from fabricsim.reproduce.report_html import write_html

LEGACY_ID = "legacy-demo/tiny"


@experiment(id=LEGACY_ID, title="A study without a claims table: checks stated in code", seed_ref="a demo study")
def legacy(ctx):
    results = ctx.run_many([Scenario.default().with_overrides({**SMALL, "workload.offered_load": x}) for x in (0.1, 0.3)])
    rows = [{"series": "frame latency", "x": 100 * x, "y": r.metric("frame_latency_us"), "y_ci": None}
            for x, r in zip((0.1, 0.3), results)]
    return ExperimentOutput(curves=pd.DataFrame(rows), plot=PlotSpec("load (%)", "latency (us)"),
                            checks=[check("latency rises with load", [0, 1e9], rows[1]["y"] - rows[0]["y"], tolerance=0.0)])


@pytest.fixture(scope="session")
def chromium() -> str:
    """Of the records' scope and asked for first, so a machine without a browser skips the test before they are built."""
    return chromium_or_not_run()


def test_the_report_reads_in_a_real_browser(chromium, quick_records, tmp_path):
    records, reports = quick_records
    exe = chromium
    out = tmp_path / "report"
    shutil.copytree(records, out)
    run_experiment(LEGACY_ID, Context(quick=True, jobs=1, out_dir=out, progress=False))
    page = write_html(out)
    ids = sorted([*reports, LEGACY_ID])
    with Browser(exe) as b:
        b.load(page.as_uri())
        images = b.evaluate("[...document.images].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")
        listed = b.evaluate("[...document.querySelectorAll('article.experiment')].map(a => a.dataset.experiment)")
        in_nav = b.evaluate("[...document.querySelectorAll('nav a')].map(a => a.textContent)")
        missed = b.evaluate("document.querySelectorAll('table.claims tr.v-missed').length")
        fits = b.evaluate("document.querySelectorAll('table.claims tr.v-fit').length")
        red = b.evaluate("getComputedStyle(document.querySelector('table.claims tr.v-missed td')).backgroundColor")
        shot = b.screenshot(tmp_path / "report.png")
    assert sorted(listed) == ids
    assert set(ids) <= set(in_nav)
    assert sorted(src for src, _, _ in images) == sorted(f"{file_stem(i)}.png" for i in ids)
    broken = [src for src, complete, width in images if not (complete and width > 0)]
    assert broken == [], f"plots that did not load: {broken}"
    checks = [c for r in reports.values() for c in r.checks]
    assert missed == sum(c.verdict == "missed" for c in checks) + 0  # the legacy check is met
    assert fits == sum(c.verdict == "fit" for c in checks) > 0
    assert red == "rgb(251, 224, 222)", f"report.css not applied: {red}"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    target = os.environ.get("FABRICSIM_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)


def test_without_chromium_the_browser_test_says_it_was_not_run(tmp_path):
    """Where no Chromium is on the PATH the test is reported as not run, with the reason; under
    FABRICSIM_REQUIRE_EXTERNAL=1 (.ci/run) it fails."""
    test = f"{Path(__file__).name}::test_the_report_reads_in_a_real_browser"
    env = {k: v for k, v in os.environ.items() if k != REQUIRE_EXTERNAL}
    env["PATH"] = str(tmp_path)  # an empty directory: no browser on it
    argv = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test]
    here = Path(__file__).parent
    free = subprocess.run(argv, cwd=here, env=env, capture_output=True, text=True, timeout=120)
    assert free.returncode == 0 and "1 skipped" in free.stdout, free.stdout + free.stderr
    assert "not run: no headless Chromium on the PATH" in free.stdout, free.stdout
    required = subprocess.run(argv, cwd=here, env={**env, REQUIRE_EXTERNAL: "1"}, capture_output=True, text=True,
                              timeout=120)
    # A fixture that fails is counted as an error of the test.
    assert required.returncode == 1 and "1 error" in required.stdout, required.stdout + required.stderr
    assert f"{REQUIRE_EXTERNAL}=1 requires it" in required.stdout, required.stdout
