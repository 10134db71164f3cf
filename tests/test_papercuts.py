"""Small things that each cost a user a minute, held in place."""

from __future__ import annotations

import json
from pathlib import Path

import fabricsim
import pytest

from conftest import run_cli

REPO = Path(__file__).resolve().parents[1]


def test_a_lower_maximum_on_the_built_in_scenario_needs_no_minimum():
    proc = run_cli("run", "--json", "--set", "run.max_observations=2000", "--set", "run.warmup_observations=100")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run"]["observations"] >= 2000


def test_a_seed_past_two_to_the_64_is_too_large():
    proc = run_cli("run", "--set", "run.seed=18446744073709551616")
    assert proc.returncode == 2 and "too large" in proc.stderr and "not a whole number" not in proc.stderr
    # Past 2^64 the value is echoed as given, not as the float it would round to.
    for given in ("99999999999999999999999", "-99999999999999999999999"):
        proc = run_cli("run", "--set", f"run.seed={given}")
        assert proc.returncode == 2 and f"`run.seed` = {given}: too " in proc.stderr, proc.stderr
    with pytest.raises(fabricsim.ScenarioError, match="= 99999999999999999999999: too large"):
        fabricsim.Scenario.from_dict({"run": {"seed": 99999999999999999999999}})


def test_one_data_vl_runs_without_an_error_about_tables_never_written(tmp_path):
    (tmp_path / "ib.toml").write_text("[ib]\ndata_vls = 1\n")
    proc = run_cli("run", "ib.toml", "--set", "run.max_observations=2000", "--set", "run.warmup_observations=100",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_vl_buffer_error_names_the_buffer_given(tmp_path):
    (tmp_path / "ib.toml").write_text("[ib]\n")
    proc = run_cli("scenario", "check", "ib.toml", "--set", "ib.vl_buffer_bytes=1000", cwd=tmp_path)
    assert proc.returncode == 2
    assert "`ib.vl_buffer_bytes` = 1000" in proc.stderr and "at least 1088 bytes" in proc.stderr, proc.stderr


def test_a_key_of_another_mode_is_refused_naming_the_mode(tmp_path):
    (tmp_path / "n.toml").write_text('[netperf]\ntest = "TCP_STREAM"\nrequest_bytes = 64\n')
    proc = run_cli("run", "n.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "`netperf.request_bytes` = 64: does nothing" in proc.stderr, proc.stderr
    assert 'netperf.test = "TCP_STREAM"' in proc.stderr, proc.stderr
    for scenario, key, value, mode in [
        ("switched-fcal/heavy-load.toml", "switched_loop.light_scope", '"system"', 'switched_loop.load = "heavy"'),
        ("fcal-loop/graph9.toml", "initiator.outstanding", "4", 'initiator.mode = "light"'),
    ]:
        proc = run_cli("run", str(REPO / "scenarios" / scenario), "--set", f"{key}={value}",
                       "--set", 'initiator.mode="light"' if key.startswith("initiator") else "run.seed=1")
        assert proc.returncode == 2 and f"`{key}` = {value}: does nothing" in proc.stderr, proc.stderr
        assert mode in proc.stderr, proc.stderr


def test_bench_calls_packets_packets_and_the_kernel_moves_nothing():
    proc = run_cli("bench", "--size", "2000", "--which", "ib-irregular")
    assert proc.returncode == 0 and "packets" in proc.stdout and "Mpackets/s" in proc.stdout and "frames" not in proc.stdout
    proc = run_cli("bench", "--size", "2000", "--which", "kernel-hold")
    assert proc.returncode == 0 and "frames" not in proc.stdout, proc.stdout


def test_intervals_show_two_significant_digits_and_the_mean_to_match():
    from fabricsim.result import _with_interval

    assert _with_interval(5737.8, 274.73) == ("5740", "± 270")
    assert _with_interval(0.15461, 0.0099731) == ("0.1546", "± 0.0100")
    assert _with_interval(187.3312, 4.2177) == ("187.3", "± 4.2")
    assert _with_interval(30.0, float("nan")) == ("30", "")
    # A constant (switched loops' open round trip) has an interval of rounding noise.
    assert _with_interval(10.209, 1.9e-14) == ("10.209", "± 0")
    proc = run_cli("run", "--set", "run.max_observations=5000", "--set", "run.warmup_observations=500")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("message_latency_us"))
    mean, _, ci = line.split()[1:4]
    assert len(ci.replace(".", "").lstrip("0")) == 2, line
    decimals = len(ci.split(".")[1]) if "." in ci else 0
    assert (len(mean.split(".")[1]) if "." in mean else 0) == decimals, line


def test_json_without_wall_clock_repeats_byte_for_byte():
    args = ("run", "--json", "--no-wall-clock", "--set", "run.max_observations=3000", "--set", "run.warmup_observations=100")
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "wall_time_s" not in first.stdout and "events_per_s" not in first.stdout


CLUSTER = REPO.parent / "shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover"


def test_a_topology_file_past_16_mib_is_a_topology_not_an_oversized_scenario(tmp_path):
    # The 16 MiB limit is the TOML scenario's; the dump of a large cluster passes it (comments stand in for
    # the nodes here).
    big = tmp_path / "cluster.ibnetdiscover"
    big.write_text(CLUSTER.read_text() + ("# " + "x" * 98 + "\n") * (17 * 2**20 // 100))
    assert big.stat().st_size > 16 * 2**20
    proc = run_cli("run", str(big), "--set", "run.max_observations=2000", "--set", "run.warmup_observations=100")
    assert proc.returncode == 0 and "stop_reason" in proc.stdout, proc.stderr
    toml = tmp_path / "big.toml"
    toml.write_text('name = "x"\n' + ("# " + "x" * 98 + "\n") * (17 * 2**20 // 100))
    proc = run_cli("scenario", "check", str(toml))
    assert proc.returncode == 2 and "larger than 16 MiB: not a scenario" in proc.stderr, proc.stderr
