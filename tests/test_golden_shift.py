"""The golden-shift tool reads two fingerprint directories and says which
metrics left their old confidence interval."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "golden_shift.py"


def fingerprint(mean, half_width, events):
    return {"events": events, "metrics": {"latency_us": {"mean": mean, "ci_half_width": half_width, "count": 10},
                                          "share_pct": {"mean": mean / 2, "ci_half_width": None, "count": None}}}


def test_a_mean_outside_its_old_interval_is_named(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    for name, (a, b) in {"inside": (10.0, 10.5), "outside": (10.0, 12.0), "same": (3.0, 3.0)}.items():
        (old / f"{name}.json").write_text(json.dumps(fingerprint(a, 1.0, 100)))
        (new / f"{name}.json").write_text(json.dumps(fingerprint(b, 1.0, 100 if a == b else 90)))
    out = subprocess.run([sys.executable, str(SCRIPT), str(old), str(new)], capture_output=True, text=True, check=True)
    assert "| inside | latency_us | 10 ± 1 | 10.5 | yes |" in out.stdout
    assert "| outside | latency_us | 10 ± 1 | 12 | NO |" in out.stdout
    assert "| same |" not in out.stdout
    assert "1 inside the old one, 1 outside; 2 moved without one" in out.stdout


def test_a_missing_directory_is_a_clear_error(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nope"), str(tmp_path)], capture_output=True, text=True)
    assert out.returncode != 0 and "not a directory of golden fingerprints" in out.stderr
