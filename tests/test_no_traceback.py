"""Commands that once ended in a traceback: each now ends in `error: ...` and exit 2."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

from conftest import run_cli


def _clean_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def test_reproduce_refuses_an_unwritable_out_before_any_run():
    start = time.monotonic()
    proc = run_cli("reproduce", "fcal-loop/graph9", "--quick", "--out", "/proc/repro")
    _clean_error(proc, "/proc/repro", "cannot write there")
    assert time.monotonic() - start < 20  # no experiment ran first


def test_a_full_stdout_is_an_error():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fabricsim", "run", "--json", "--set", "run.max_observations=2000"],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    _clean_error(proc, "cannot write the output to stdout")


def test_a_scenario_that_never_ends_is_refused():
    proc = run_cli("run", "/dev/zero", timeout=30)
    _clean_error(proc, "/dev/zero", "larger than 16 MiB")


def test_scenario_upgrade_of_a_file_it_cannot_write(tmp_path, monkeypatch):
    from fabricsim.cli import app
    from typer.testing import CliRunner

    old = tmp_path / "old.toml"
    old.write_text('[fabric]\nkind = "loop"\n[loop]\n[[disks]]\ncount = 2\n')

    def read_only(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", read_only)
    res = CliRunner().invoke(app, ["scenario", "upgrade", str(old)])
    assert res.exit_code == 2 and res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "cannot write the upgraded scenario: Permission denied" in res.output


def test_reproduce_list_sorts_figures_by_number():
    proc = run_cli("reproduce", "--list")
    ids = [line.split()[0] for line in proc.stdout.splitlines()]
    assert ids.index("hp-fc-1995/fig2") < ids.index("hp-fc-1995/fig11")
    assert ids.index("fcal-loop/graph9") < ids.index("fcal-loop/graph10-12")
