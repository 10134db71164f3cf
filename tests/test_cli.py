from __future__ import annotations

import importlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import SMALL, longer, run_cli, set_args, spawn_cli

REPO = Path(__file__).resolve().parents[1]
SMALL_SETS = set_args(SMALL)


@pytest.fixture(params=["default", "ignored"])
def inherited_sigint(request):
    """SIGINT as this process got it from its shell: `cmd &` in a script starts it ignored."""
    old = signal.getsignal(signal.SIGINT)
    if request.param == "ignored":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield request.param
    finally:
        signal.signal(signal.SIGINT, old)


def test_run_prints_summary(cli, small_toml):
    proc = cli("run", str(small_toml))
    assert proc.returncode == 0, proc.stderr
    assert "frame_latency_us" in proc.stdout and "counters" in proc.stdout


def test_run_default_scenario_as_json(cli):
    proc = cli("run", "--json", *SMALL_SETS, "--set", "workload.offered_load=0.2")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["scenario"]["workload"]["offered_load"] == 0.2
    assert {"metrics", "counters", "run"} <= result.keys()


def test_errors_exit_2_without_traceback(cli, tmp_path, small_toml):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "a"\n[run\nseed = 1\n')
    proc = cli("run", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "line 2" in proc.stderr and "bad.toml" in proc.stderr
    assert "Traceback" not in proc.stderr

    proc = cli("run", str(small_toml), "--set", "workload.offered_load=7.0")
    assert proc.returncode == 2
    assert "workload.offered_load" in proc.stderr and "allowed:" in proc.stderr


def test_sweep_csv_then_resume(cli, tmp_path, small_toml):
    out = tmp_path / "s.csv"
    args = ["sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--reps", "2", "--jobs", "2", "--out", str(out)]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert "ran 4, skipped 0" in proc.stdout
    table = pd.read_csv(out)
    assert set(table["workload.offered_load"]) == {0.1, 0.2}
    assert set(table["rep"]) == {0, 1}

    keys = sorted(set(table["run_key"]))
    table[table["run_key"] != keys[0]].to_csv(out, index=False)
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert "ran 1, skipped 3" in proc.stdout
    assert sorted(set(pd.read_csv(out)["run_key"])) == keys


def test_sweep_parquet_with_two_axes(cli, tmp_path, small_toml):
    out = tmp_path / "s.parquet"
    proc = cli(
        "sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--grid", "protocol.class=2,3",
        "--jobs", "2", "--out", str(out),
    )
    assert proc.returncode == 0, proc.stderr
    table = pd.read_parquet(out)
    assert {"workload.offered_load", "protocol.class"} <= set(table.columns)
    assert table["run_key"].nunique() == 4


def test_sweep_bad_grid_key_exits_2(cli, tmp_path, small_toml):
    out = tmp_path / "s.csv"
    proc = cli("sweep", str(small_toml), "--grid", "workload.bogus=1,2", "--out", str(out))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "workload.bogus" in proc.stderr
    assert not out.exists()


def test_sweep_bad_out_suffix_exits_2(cli, tmp_path, small_toml):
    proc = cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1", "--out", str(tmp_path / "s.xlsx"))
    assert proc.returncode == 2 and ".parquet or .csv" in proc.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sweep_ctrl_c_keeps_finished_runs(tmp_path, small_toml, jobs, inherited_sigint):
    out = tmp_path / "s.csv"
    journal = tmp_path / "s.csv.journal.jsonl"
    # Many runs, so Ctrl-C always lands in the middle of the sweep.
    loads = ",".join(f"{0.05 + 0.01 * i:.2f}" for i in range(20))
    proc = spawn_cli(
        "sweep", str(small_toml), "--grid", f"workload.offered_load={loads}",
        "--reps", "10", "--jobs", jobs, "--out", str(out), *set_args(longer(10)),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (journal.exists() and journal.read_text().count("\n") >= 2):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    saved = pd.read_csv(out)["run_key"].nunique()
    assert 2 <= saved < 200
    assert not journal.exists()


def test_scenario_show_and_check(cli, tmp_path, small_toml):
    proc = cli("scenario", "show")
    assert proc.returncode == 0 and "[workload]" in proc.stdout
    proc = cli("scenario", "check", str(small_toml), "--set", "protocol.class=3")
    assert proc.returncode == 0, proc.stderr
    assert "class = 3" in proc.stdout and "batches" in proc.stdout  # defaults filled in
    proc = cli("scenario", "check", str(small_toml), "--json")
    assert json.loads(proc.stdout)["run"]["max_observations"] == SMALL["run.max_observations"]
    proc = cli("scenario", "check", str(small_toml), "--set", "switch.portz=3")
    assert proc.returncode == 2 and "switch.portz" in proc.stderr


def test_bench(cli):
    proc = cli("bench", "--size", "2000")
    assert proc.returncode == 0, proc.stderr
    assert "kernel-hold" in proc.stdout and "fc-switch" in proc.stdout and "events/s" in proc.stdout
    proc = cli("bench", "--which", "nope")
    assert proc.returncode == 2


def test_bench_repeat_reports_the_fastest_run_and_every_wall_time(cli):
    proc = cli("bench", "--which", "ib-irregular", "--size", "2000", "--repeat", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)
    assert len(row["runs_wall_s"]) == 3
    assert row["wall_s"] == min(row["runs_wall_s"])
    proc = cli("bench", "--which", "kernel-hold", "--size", "2000", "--repeat", "2")
    assert proc.returncode == 0 and "fastest of 2" in proc.stdout
    proc = cli("bench", "--which", "kernel-hold", "--repeat", "0")
    assert proc.returncode == 2


def test_bench_takes_a_list_of_rows_in_turns_and_compares_the_two_trees_cost_per_hop(cli):
    proc = cli("bench", "--which", "ib-fat-tree-16, ib-fat-tree-4096,ib-fat-tree-16", "--size", "2000", "--repeat", "2",
               "--json")
    assert proc.returncode == 0, proc.stderr
    small, large = json.loads(proc.stdout)
    assert (small["name"], large["name"]) == ("ib-fat-tree-16", "ib-fat-tree-4096")
    assert len(small["runs_wall_s"]) == len(large["runs_wall_s"]) == 2
    per_hop = [r["wall_s"] / r["hops"] for r in (small, large)]
    assert large["hop_cost_vs_ib_fat_tree_16"] == per_hop[1] / per_hop[0]
    assert "hop_cost_vs_ib_fat_tree_16" not in small
    text = cli("bench", "--which", "ib-fat-tree-4096,ib-fat-tree-16", "--size", "2000")
    assert text.returncode == 0, text.stderr
    assert re.search(r"ib-fat-tree-4096 cost per packet-hop: \d+\.\d\dx ib-fat-tree-16's", text.stdout), text.stdout
    alone = cli("bench", "--which", "ib-fat-tree-16", "--size", "2000")
    assert alone.returncode == 0 and "cost per packet-hop" not in alone.stdout
    bad = cli("bench", "--which", "ib-fat-tree-16,nope")
    assert bad.returncode == 2 and "unknown benchmark `nope`" in bad.stderr


def test_reproduce_list_and_unknown_id(cli, tmp_path):
    proc = cli("reproduce", "--list")
    assert proc.returncode == 0, proc.stderr
    proc = cli("reproduce", "no/such-experiment", "--out", str(tmp_path))
    assert proc.returncode == 2 and "unknown experiment" in proc.stderr


def test_version(cli):
    proc = cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("fabricsim ")


def test_help_keeps_what_is_written_in_brackets():
    # TOML tables and pip extras are written in brackets, which a markup reading of the help would swallow.
    def help_of(*args: str) -> str:
        # Wide enough that the help wraps no word whatever the terminal running the tests.
        env = dict(os.environ, COLUMNS="200")
        command = [sys.executable, "-m", "fabricsim", *args, "--help"]
        proc = subprocess.run(command, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "(pip install 'fabricsim[dask]')" in help_of("sweep")
    assert "([fabric], run.max_frames" in help_of("scenario", "upgrade")


def test_bench_json_lists_every_row_with_the_data_ack_split(cli):
    proc = cli("bench", "--size", "3000", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {
        "kernel-hold", "fc-switch", "fc-envelope", "fc-loop", "switched-loop", "ib-irregular", "ib-fat-tree", "ib-multipath",
        "ib-multicast", "ib-congestion-control", "tcp-stream", "fc-simpy-switch", "ib-booksim-irregular",
        "ib-booksim-fat-tree",
    }
    for name in ("fc-switch", "fc-simpy-switch"):
        sw = rows[name]
        assert sw["data_frames"] >= 3000 and sw["ack_frames"] > 0
        assert sw["frames"] == sw["data_frames"] + sw["ack_frames"]
        # One switch: every frame crosses it once; a transfer counts when it starts.
        assert sw["frames"] <= sw["hops"] <= sw["frames"] + 16 * 15
    assert rows["fc-envelope"]["hops"] > rows["fc-envelope"]["frames"]
    assert rows["fc-loop"]["ios_per_s"] > 0
    assert rows["switched-loop"]["ios_per_s"] > 0 and rows["switched-loop"]["frames"] > 0
    assert rows["tcp-stream"]["sim_s_per_wall_s"] > 0
    # InfiniBand: packets delivered; every packet crosses at least one switch
    # (a fat tree's up to 2n - 1), and a transfer counts when it starts.
    for name in ("ib-irregular", "ib-fat-tree", "ib-multipath", "ib-multicast", "ib-congestion-control",
                 "ib-booksim-irregular", "ib-booksim-fat-tree"):
        ib = rows[name]
        assert ib["frames"] >= 3000 and ib["hops"] >= ib["frames"] and ib["frame_hops_per_s"] > 0


def test_a_scale_row_reports_build_time_and_memory_per_port(cli):
    # The 1,356-HCA cluster as cabled (the other scale rows build fabrics too large for a test).
    proc = cli("bench", "--which", "ib-cluster-1356", "--size", "2000", "--json")
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)
    assert row["name"] == "ib-cluster-1356" and row["ports"] == 8336
    assert row["hops"] > row["frames"] >= 3000 and row["build_s"] > 0
    assert row["peak_rss_bytes"] > 2**20 and row["bytes_per_port"] == row["peak_rss_bytes"] / row["ports"]
    line = cli("bench", "--which", "ib-cluster-1356", "--size", "2000")
    assert line.returncode == 0 and "B per port of 8,336" in line.stdout, line.stdout
    bad = cli("bench", "--which", "ib-fat-tree-8")
    assert bad.returncode != 0 and "ib-fat-tree-32768" in bad.stderr and "scale" in bad.stderr


def test_scenario_keys_come_from_the_schema(cli):
    proc = cli("scenario", "keys", "--json")
    assert proc.returncode == 0, proc.stderr
    keys = {k["key"]: k for k in json.loads(proc.stdout)}
    assert keys["switch.buffers_per_port"]["default"] == "15"
    assert keys["loop.length_m"]["models"] == "switched loop, arbitrated loop"
    assert keys["run.max_observations"]["meaning"]
    assert all(k["meaning"] for k in keys.values())
    proc = cli("scenario", "keys")
    assert proc.returncode == 0 and proc.stdout.startswith("| key |")


def test_scenario_upgrade_rewrites_the_old_shape(cli, tmp_path):
    old = tmp_path / "old.toml"
    old.write_text('# kept\n[run]\nmax_frames = 3000\n[fabric]\nkind = "loop"\n[switch]\nports = 8\n'
                   '[loop]\n[[disks]]\ncount = 2\n[initiator]\nwarmup_ios = 10\nmax_ios = 40\n')
    proc = cli("scenario", "check", str(old))
    assert proc.returncode == 2 and "scenario upgrade" in proc.stderr
    proc = cli("scenario", "upgrade", str(old))
    assert proc.returncode == 0, proc.stderr
    assert "removed [switch]" in proc.stderr
    text = old.read_text()
    assert text.startswith("# kept") and "[fabric]" not in text and "[switch]" not in text
    proc = cli("scenario", "check", str(old), "--json")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)["run"]
    assert (run["warmup_observations"], run["max_observations"]) == (10, 40)
    proc = cli("scenario", "upgrade", str(old))
    assert proc.returncode == 0 and "already of the current shape" in proc.stderr


@pytest.mark.parametrize("path", sorted(REPO.glob("scenarios/*/*.toml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_scenario_upgrade_leaves_every_shipped_scenario_as_it_is(cli, tmp_path, path):
    # A switched loop has [loop] and [switch]; the upgrade once took it for an old
    # arbitrated loop and dropped its switch.
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    proc = cli("scenario", "upgrade", str(copy))
    assert proc.returncode == 0 and "already of the current shape" in proc.stderr, proc.stderr
    assert copy.read_bytes() == path.read_bytes()


def test_scenario_check_builds_the_model_as_run_does(cli, tmp_path):
    path = tmp_path / "star.toml"
    path.write_text('[topology]\nkind = "star"\n[workload]\npattern = "to_switch"\ndestination_switch = 99\n')
    proc = cli("scenario", "check", str(path))
    assert proc.returncode == 2 and "workload.destination_switch" in proc.stderr


def test_a_section_of_another_model_is_an_error_naming_it(cli, tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text("[loop]\n[[disks]]\ncount = 2\n[protocol]\nclass = 3\n")
    proc = cli("scenario", "check", str(path))
    assert proc.returncode == 2
    assert "[protocol] belongs to the Fibre Channel fabric model" in proc.stderr


def _in_process_cli(*args: str):
    """The command run in this process, so a test can stand in for the engine or the workers."""
    from fabricsim.cli import app
    from typer.testing import CliRunner

    return CliRunner().invoke(app, list(args))


def _model_error(scenario_json, source):
    return json.dumps({"error": {"kind": "model", "message": "deadlock detected", "file": source}})


def test_sweep_failures_that_a_rerun_cannot_fix_say_so(small_toml, tmp_path, monkeypatch):
    executors = importlib.import_module("fabricsim.sweep.executors")
    real = executors._worker_run

    def fails_at_high_load(scenario_json, source):
        if json.loads(scenario_json)["workload"]["offered_load"] == 0.2:
            return _model_error(scenario_json, source)
        return real(scenario_json, source)

    args = ["sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--jobs", "1"]
    monkeypatch.setattr(executors, "_worker_run", fails_at_high_load)
    res = _in_process_cli(*args, "--out", str(tmp_path / "some.csv"))
    assert res.exit_code == 1, res.output
    assert "error: 1 runs failed; a rerun will not fix them" in res.stderr and "retry" not in res.stderr

    monkeypatch.setattr(executors, "_worker_run", _model_error)
    res = _in_process_cli(*args, "--out", str(tmp_path / "all.csv"))
    assert res.exit_code == 1, res.output
    assert "error: all 2 runs failed; a rerun will not fix them" in res.stderr and "deadlock detected" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "all.csv").exists()


def test_sweep_runs_lost_with_their_worker_can_be_retried(small_toml, tmp_path, monkeypatch):
    worker_pool = importlib.import_module("fabricsim.sweep.worker_pool")
    dies_at_high_load = (
        "import json, os, fabricsim._worker as w\n"
        "real = w.run_one\n"
        "w.run_one = lambda s, src: os._exit(9) if json.loads(s)['workload']['offered_load'] == 0.2 else real(s, src)\n"
        "w.main()\n"
    )
    monkeypatch.setattr(worker_pool, "_worker_command", lambda: [sys.executable, "-c", dies_at_high_load])
    args = ["sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--jobs", "2",
            "--out", str(tmp_path / "s.csv")]
    res = _in_process_cli(*args)
    assert res.exit_code == 1, res.output
    assert "exited with code 9" in res.stderr
    assert "error: 1 runs failed; their workers were lost (a worker process died or a Dask cluster went away); rerun the same command to retry them" in res.stderr
    monkeypatch.undo()
    res = _in_process_cli(*args)
    assert res.exit_code == 0 and "ran 1, skipped 1" in res.stdout


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time a live process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_stops_a_long_run_within_a_second(tmp_path, small_toml):
    # What start-up and a whole small run cost on this machine: the long run
    # below is inside the engine once it has used twice that, however slow
    # the machine (a fixed sleep may land during start-up on a slow one).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert run_cli("run", str(small_toml)).returncode == 0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    startup = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # A run of about a minute: Ctrl-C must not wait for it to end.
    proc = spawn_cli("run", "--set", "run.precision=0", "--set", "run.max_observations=200000000")
    deadline = time.monotonic() + 60
    while _cpu_seconds(proc.pid) < 2 * startup + 0.2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the long run ended before Ctrl-C"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 1.0, "the run did not stop within a second"
    assert proc.returncode == 130, stderr
    assert stdout == ""  # nothing half-written


def test_flags_reach_the_summary_json_and_sweep_table(cli, tmp_path, small_toml):
    proc = cli("run", str(small_toml), "--set", "workload.offered_load=0.9", "--set", "run.precision=0")
    assert proc.returncode == 0, proc.stderr
    assert "FLAGS (the result is not what was asked): accepted_below_offered" in proc.stdout
    proc = cli("run", str(small_toml), "--set", "run.max_time_ms=1.0", "--json")
    assert "warmup_not_finished" in json.loads(proc.stdout)["run"]["flags"]
    out = tmp_path / "flags.csv"
    proc = cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.9", "--jobs", "1",
               "--set", "run.precision=0", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out, keep_default_na=False)
    flags = table.groupby("workload.offered_load")["flags"].first()
    assert flags[0.1] == "" and "accepted_below_offered" in flags[0.9]
