"""The committed records are what the current build makes: each names the
build that made it and a fingerprint of what it ran, and a record whose
experiment's code changed, or whose probes now give another result, is
stale. REPRODUCTIONS.md is the document of those records."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from fabricsim.reproduce import provenance
from fabricsim.reproduce.document import document_markdown

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "reproductions"


def committed() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("*.json"))]


def test_no_committed_record_is_stale():
    records = committed()
    assert records, f"no records in {RECORDS}"
    stale = {r["id"]: why for r in records if (why := provenance.staleness(r))}
    assert not stale, "stale records (rerun them with `fabricsim reproduce IDS --jobs 2 --out reproductions " \
        "--document REPRODUCTIONS.md`):\n" + "\n".join(f"  {i}: {why}" for i, why in stale.items())


def test_the_committed_document_is_that_of_the_committed_records(monkeypatch):
    monkeypatch.chdir(ROOT)  # the document names the directory as the command was given it
    text = (ROOT / "REPRODUCTIONS.md").read_text(encoding="utf-8")
    assert text == document_markdown("reproductions"), \
        "REPRODUCTIONS.md is not the document of reproductions/: regenerate it with --document"


def test_a_record_is_stale_when_its_model_or_code_changes():
    record = next(r for r in committed() if r["model"]["probes"])
    assert provenance.staleness(record) == ""
    changed = copy.deepcopy(record)
    changed["model"]["probes"][0]["digest"] = "0" * 16
    assert "probe 1" in provenance.staleness(changed)
    changed = copy.deepcopy(record)
    changed["model"]["code"] = "0" * 16
    assert "the code of its experiment changed" in provenance.staleness(changed)
    assert "before records carried" in provenance.staleness({k: v for k, v in record.items() if k != "model"})
    # A stale record is shown, marked, and left out of the counts.
    current = provenance.current(changed)
    assert current["stale"] and current["id"] == record["id"]
