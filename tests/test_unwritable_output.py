"""Output that cannot be written: a stdout on a full disk, a sweep or a
reproduction whose disk fills, a document where no file can be made. Each is
an `error:` naming where it could not write, and nothing is left half written
(files go to a temporary name and are renamed whole)."""

from __future__ import annotations

import errno
import importlib
import json
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import fabricsim
import pandas as pd
import pytest
from conftest import GRID, _env, run_cli, run_keys
from fabricsim import FabricsimError, SweepError
from fabricsim.reproduce.document import write_document

REPO = Path(__file__).resolve().parents[1]
TREE = REPO.parent / "shared/data/topologies/fattree-k4-n3-80sw-128hca.net"
runner = importlib.import_module("fabricsim.sweep.runner")
journal_path = importlib.import_module("fabricsim.sweep").journal_path


def _clean_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def _leftovers(directory: Path) -> list[str]:
    """Temporary files a write left behind."""
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ---- standard output -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [["routing", str(TREE), "--lfts"], ["topology", "export", str(TREE)], ["--help"], ["--version"]],
    ids=["routing-lfts", "topology-export", "help", "version"],
)
def test_a_full_stdout_is_an_error_for_every_command(args):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fabricsim", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, env=_env())
    _clean_error(proc, "cannot write the output to stdout: No space left on device")


# ---- sweeps --------------------------------------------------------------------------------------
def _fills_the_disk(real):
    """A table writer that gets half its file out before the disk is full."""

    def write(self, path, *args, **kwargs):
        real(self, path, *args, **kwargs)
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    return write


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_sweep_whose_disk_fills_keeps_the_table_it_had_and_every_run(small, tmp_path, monkeypatch, suffix):
    out = tmp_path / f"s{suffix}"
    first = fabricsim.sweep(small, GRID, reps=1, jobs=1, out=out, progress=False)
    before = out.read_bytes()
    writer = "to_csv" if suffix == ".csv" else "to_parquet"
    monkeypatch.setattr(pd.DataFrame, writer, _fills_the_disk(getattr(pd.DataFrame, writer)))
    with pytest.raises(SweepError) as exc:
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    message = str(exc.value)
    assert f"{out}: cannot write the table: No space left on device" in message
    assert f"every finished run is kept in {journal_path(out)}" in message
    assert out.read_bytes() == before and _leftovers(tmp_path) == []  # the old table whole, no half-written one
    monkeypatch.undo()
    again = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert (again.ran, again.skipped) == (0, 4) and run_keys(again.table) >= run_keys(first.table)


def _file_size_limit(limit: int):
    def apply() -> None:  # in the child: writes past `limit` bytes fail (EFBIG) instead of killing it
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return apply


def test_a_sweep_whose_disk_fills_while_recording_a_run_keeps_whole_records_only(small, small_toml, tmp_path, monkeypatch):
    def no_table(*args, **kwargs):
        raise OSError("no table")

    # One record's size, from a journal whose table could not be written.
    monkeypatch.setattr(runner, "write_atomic", no_table)
    with pytest.raises(OSError):
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=tmp_path / "probe.csv", progress=False)
    record = len(journal_path(tmp_path / "probe.csv").read_bytes().splitlines()[0])
    out = tmp_path / "s.csv"
    args = [sys.executable, "-m", "fabricsim", "sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2",
            "--reps", "2", "--jobs", "1", "--out", str(out), "--no-progress"]
    # Room for one record and half the next: the second is cut short by the disk, then cut off.
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, env=_env(),
                          preexec_fn=_file_size_limit(record + record // 2))
    _clean_error(proc, f"{journal_path(out)}: cannot record a finished run: File too large",
                 "rerun the same command to resume")
    lines = journal_path(out).read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 and json.loads(lines[0])["rows"] and not out.exists()
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=120, env=_env())
    assert rerun.returncode == 0 and "ran 3, skipped 1" in rerun.stdout, rerun.stderr


# ---- reproductions -------------------------------------------------------------------------------
def test_a_reproduction_onto_a_full_disk_names_the_file_and_leaves_no_record(tmp_path):
    out = tmp_path / "repro"
    args = [sys.executable, "-m", "fabricsim", "reproduce", "fcal-loop/graph9", "--quick", "--jobs", "1", "--out",
            str(out), "--no-progress"]
    # Room for the curves (under 1 kB) but not the plot (about 50 kB).
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, env=_env(),
                          preexec_fn=_file_size_limit(20_000))
    _clean_error(proc, f"{out / 'fcal-loop_graph9.png'}: cannot write the plot: File too large",
                 "fcal-loop/graph9 has no record")
    assert not (out / "fcal-loop_graph9.json").exists() and not (out / "fcal-loop_graph9.png").exists()
    assert _leftovers(out) == []


def test_a_document_that_cannot_be_written_is_refused_before_any_run(tmp_path):
    start = time.monotonic()
    proc = run_cli("reproduce", "fcal-loop/graph9", "--quick", "--out", str(tmp_path), "--document", "/proc/R.md")
    _clean_error(proc, "/proc/R.md: cannot write there (--document)")
    assert time.monotonic() - start < 20 and not list(tmp_path.glob("*.json"))  # no experiment ran first


def test_a_document_that_cannot_be_written_after_the_runs_is_an_error_naming_it(tmp_path):
    with pytest.raises(FabricsimError, match=r"^/proc/R.md: cannot write the document: "):
        write_document(tmp_path, "/proc/R.md")
