"""`fabricsim netperf` and the seed-002 reproductions (quick mode)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fabricsim.cli import app
from conftest import checks_by_id

runner = CliRunner()


def test_stream_prints_netperf_result_lines():
    res = runner.invoke(app, ["netperf", "-t", "TCP_STREAM", "-H", "c180", "-l", "0.5", "--reps", "2", "--",
                              "-D", "-m", "65536", "-s", "65536", "-S", "65536"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("TCP STREAM TEST to c180 (C110 to C180")
    fields = lines[6].split()
    assert fields[:3] == ["65536", "65536", "65536"]
    assert 1.0 < float(fields[4]) < 250.0  # 10^6 bits/s, below the FC line rate
    assert lines[8].startswith("2 runs: min")


def test_rr_json_has_rate_latency_and_spread():
    res = runner.invoke(app, ["netperf", "-t", "TCP_RR", "-L", "hp735", "-l", "0.3", "--reps", "3", "--json",
                              "--", "-r", "64,128", "-s", "32768", "-S", "32768"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["local_host"] == "HP 9000/735" and data["request_bytes"] == 64 and data["response_bytes"] == 128
    tps = data["transactions_per_s"]
    assert len(tps["runs"]) == 3 and tps["min"] <= tps["mean"] <= tps["max"]
    assert abs(data["latency_us"]["mean"] - 1e6 / (2 * tps["mean"])) < 1e-6


def test_bad_options_are_errors():
    res = runner.invoke(app, ["netperf", "-t", "UDP_STREAM"])
    assert res.exit_code == 2 and "UDP_STREAM" in res.output
    res = runner.invoke(app, ["netperf", "--", "-s", "300000"])
    assert res.exit_code == 2 and "netperf.local_socket_bytes" in res.output
    res = runner.invoke(app, ["netperf", "-H", "vax"])
    assert res.exit_code == 2 and "vax" in res.output


def test_seed002_reproductions_run_quick(quick_records):
    _, reports = quick_records
    done = [reports["ong-farrell-fc/throughput"], reports["ong-farrell-fc/latency"]]
    for r in done:
        assert r.files and all(p.exists() for p in r.files.values())
    fits = [c for r in done for c in r.checks if c.verdict == "fit"]
    assert len(fits) == 4 and all(c.parameter for c in fits)  # four parameters, four targets
    # Quick mode's 1 s streams still carry slow start's delayed-ACK stalls, so
    # only the latency point, which has none, must sit on its calibration.
    assert abs(checks_by_id(done[1])["rr-340-c110"].ours - 340.0) < 5.0
    assert sum(c.role == "prediction" for r in done for c in r.checks) == 8


def _rr(args):
    res = runner.invoke(app, ["netperf", "-t", "TCP_RR", *args])
    return res


def test_rr_without_transactions_is_flagged_not_a_traceback():
    for args in (["-l", "1e-9", "--reps", "1"], ["-l", "0.01", "--reps", "1", "--", "-r", "67108864,67108864"]):
        res = _rr(args)
        assert res.exit_code == 0, res.output
        assert "none, no transaction completed" in res.output
        assert "FLAGS of run 1" in res.output and "no_transactions" in res.output
        res = _rr(["--json", *args])
        data = json.loads(res.output)
        assert data["latency_us"]["mean"] is None and data["flags"] == [["no_transactions"]]


def test_an_option_and_a_set_of_its_key_are_refused_and_a_set_beside_a_default_wins():
    res = runner.invoke(app, ["netperf", "-t", "TCP_STREAM", "-l", "0.1", "--reps", "1", "--set", "netperf.test=TCP_RR"])
    assert res.exit_code == 2 and "-t and --set netperf.test" in res.output
    res = runner.invoke(app, ["netperf", "-l", "0.1", "--reps", "1", "--seed", "3", "--set", "run.seed=5"])
    assert res.exit_code == 2 and "--seed and --set run.seed" in res.output
    # Without -t, the --set test runs (and TCP_RR gets netperf's one-byte default).
    res = runner.invoke(app, ["netperf", "-l", "0.1", "--reps", "1", "--json", "--set", "netperf.test=TCP_RR"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["test"] == "TCP_RR" and data["request_bytes"] == 1 and data["transactions_per_s"]["mean"] > 0
    # Without --seed, run.seed picks the first repetition's seed.
    by_set = json.loads(_rr(["-l", "0.1", "--reps", "2", "--json", "--set", "run.seed=5"]).output)
    by_option = json.loads(_rr(["-l", "0.1", "--reps", "2", "--json", "--seed", "5"]).output)
    default = json.loads(_rr(["-l", "0.1", "--reps", "2", "--json"]).output)
    assert by_set["transactions_per_s"]["runs"] == by_option["transactions_per_s"]["runs"]
    assert by_set["transactions_per_s"]["runs"] != default["transactions_per_s"]["runs"]


def test_rr_defaults_to_one_byte_requests_as_netperf_does():
    data = json.loads(_rr(["-l", "0.1", "--reps", "1", "--json"]).output)
    assert (data["request_bytes"], data["response_bytes"]) == (1, 1)
    data = json.loads(_rr(["-l", "0.1", "--reps", "1", "--json", "--", "-m", "64"]).output)
    assert (data["request_bytes"], data["response_bytes"]) == (64, 64)


def test_every_pair_of_unloaded_machines_gives_the_calibrated_one_byte_latency():
    # Seed 002's "336 to 354 us on unloaded machine" holds by construction: the
    # stack's costs are time, the same on every machine, so every pair of the
    # lightly loaded C110 and C180 gives the latency the firmware time was set
    # on (C110 to C110, 340 us), whatever the clock.
    from fabricsim import run
    from fabricsim.reproduce.ong_farrell_fc import scenario

    latency = {}
    for sender in ("c110", "c180"):
        for receiver in ("c110", "c180"):
            r = run(scenario("TCP_RR", sender, receiver, 262143, 1, 1, 0.5))
            latency[sender, receiver] = r.metric("latency_us")
    low, high = min(latency.values()), max(latency.values())
    assert high / low < 1.005 and 336.0 <= low and high <= 354.0, latency


def test_the_link_alone_carries_25_mbytes_of_user_data():
    # Seed 002's "maximum data throughput of 25 Mbytes/sec" holds by
    # construction: the link is an input (265.625 Mbaud with 8b/10b, 26.6
    # MB/s), and with the bus, the firmware and the background load out of
    # the way a TCP stream carries what its frames and headers leave of it.
    from fabricsim import run
    from fabricsim.reproduce.ong_farrell_fc import scenario

    free = {"bus_mb_s": 1e4, "adapter_send_us": 0.0, "adapter_receive_us": 0.0,
            "sender_background_load": 0.0, "receiver_background_load": 0.0}
    r = run(scenario("TCP_STREAM", "c180", "c180", 262143, 2097152, 1, 2.0, hosts=free))
    mb_s = r.metric("throughput_mbit_s") / 8.0
    assert abs(mb_s - 25.0) < 0.5 and mb_s < 26.6, mb_s
    assert r.metric("local_cpu_utilization_pct") < 50.0  # the link holds the stream, not the CPU
