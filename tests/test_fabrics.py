"""Cascaded fabrics (seed 000 sections 4-5): reproductions, routing display, per-node results, deadlock."""

from __future__ import annotations

import json
import math

import fabricsim
import pandas as pd
import pytest
from fabricsim.cli import app
from fabricsim.reproduce import experiments, framework, run_experiment
from typer.testing import CliRunner

FABRIC_IDS = [f"hp-fc-1995/{x}" for x in (
    "fig8", "fig11", "fig13", "fig14", "fig16", "fig18", "fig20", "fig22", "fig23", "fig25",
    "fig26", "fig27", "fig28", "fig29", "fig30", "star-fairness", "envelope-deadlock")]
SHORT = {"run": {"warmup_observations": 1000, "max_observations": 5000, "min_observations": 0, "precision": 0}}


def envelope(paths: str, **extra) -> dict:
    return {**SHORT, "topology": {"kind": "envelope"}, "routing": {"paths": paths}, **extra}


def test_every_fabric_experiment_is_registered():
    known = experiments()
    assert [i for i in FABRIC_IDS if i not in known] == []
    assert all(known[i].source.startswith("seed 000") for i in FABRIC_IDS)


def quick(exp_id: str, tmp_path):
    return run_experiment(exp_id, framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False))


@pytest.mark.parametrize("exp_id", ["hp-fc-1995/fig8", "hp-fc-1995/star-fairness"])
def test_quick_fabric_experiment_writes_files(tmp_path, exp_id):
    report = quick(exp_id, tmp_path)
    assert_outputs(tmp_path, exp_id, report)


def assert_outputs(tmp_path, exp_id, report):
    stem = tmp_path / framework.file_stem(exp_id)
    curves = pd.read_csv(stem.with_suffix(".csv"))
    assert len(curves) > 0 and curves["y"].notna().any()
    assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads(stem.with_suffix(".json").read_text())
    assert summary["id"] == exp_id and summary["quick"] is True and summary["runs"] == report.runs > 0
    evaluated = [c for c in summary["checks"] if c["role"] in ("prediction", "fit") and not c["no_value"]]
    assert len(evaluated) >= 2
    assert all(isinstance(c["ours"], float) and not math.isnan(c["ours"]) for c in evaluated)


def test_quick_deadlock_experiment_finds_the_cycle(tmp_path):
    report = quick("hp-fc-1995/envelope-deadlock", tmp_path)
    assert_outputs(tmp_path, "hp-fc-1995/envelope-deadlock", report)
    by_id = {c.id: c for c in report.checks}
    # Every seed's clockwise run stops in the four-trunk cycle with its 60 buffers full.
    assert by_id["env-clockwise-deadlocks"].ours == 3 and by_id["env-clockwise-deadlocks"].verdict == "within"
    assert by_id["env-central-deadlock-free"].verdict == "construction"
    curves = pd.read_csv(tmp_path / (framework.file_stem("hp-fc-1995/envelope-deadlock") + ".csv"))
    stops = curves.groupby("series")["stop_reason"].agg(set)
    assert stops["clockwise"] == {"deadlock"} and "deadlock" not in stops["central"] | stops["smart"]


def test_routing_command_reports_cycle_for_clockwise_and_acyclic_for_smart():
    runner = CliRunner()
    base = ["routing", "--set", 'topology.kind="envelope"', "--set"]
    cw = runner.invoke(app, base + ['routing.paths="clockwise"'])
    assert cw.exit_code == 0, cw.output
    assert "CYCLE" in cw.output and "switch 1 -> switch 2" in cw.output
    assert "switch 5 (12 nodes)" in cw.output and "ports 3-15: own nodes 0-12" in cw.output
    smart = runner.invoke(app, base + ['routing.paths="smart"'])
    assert smart.exit_code == 0 and "acyclic" in smart.output and "CYCLE" not in smart.output
    as_json = runner.invoke(app, base + ['routing.paths="smart"', "--json"])
    info = json.loads(as_json.output)
    assert info["channel_dependencies"]["acyclic"] is True and len(info["switches"]) == 5
    bad = runner.invoke(app, ["routing", "--set", 'topology.kind="pentagon"'])
    assert bad.exit_code == 2 and "topology.kind" in bad.output


def test_routing_api_groups_parallel_lanes():
    det = fabricsim.routing({"topology": {"kind": "star", "multiplicity": 2}})
    rnd = fabricsim.routing({"topology": {"kind": "star", "multiplicity": 2}}, routing__trunk_choice="randomized")
    assert det["terminal_nodes"] == 64
    to_other = [ports for ports in det["switches"][0]["forwarding"][14:]]
    assert all(len(p) == 1 for p in to_other) and {p[0] for p in to_other} == {0, 1}
    assert all(sorted(p) == [0, 1] for p in rnd["switches"][0]["forwarding"][14:])
    assert fabricsim.routing(envelope("clockwise"))["channel_dependencies"]["acyclic"] is False
    assert det["lane_assignment"] == "partition" and rnd["lane_assignment"] is None
    aligned = fabricsim.routing({"topology": {"kind": "star", "multiplicity": 2}, "routing": {"lane_assignment": "aligned"}})
    assert aligned["lane_assignment"] == "aligned" and aligned["switches"][4] != det["switches"][4]


def test_per_node_has_one_row_per_sending_node():
    sc = {**SHORT, "topology": {"kind": "star", "multiplicity": 1},
          "workload": {"pattern": "to_switch", "destination_switch": 3, "source_switches": [1, 5], "arrivals": "saturated"}}
    r = fabricsim.run(sc)
    pn = r.per_node
    assert {"node", "switch", "throughput_pct", "message_latency_us", "messages_completed"} <= set(pn.columns)
    assert len(pn) == 15 + 12 and sorted(pn["switch"].unique()) == [1, 5]
    assert pn["node"].is_unique
    uniform = fabricsim.run({**SHORT, "topology": {"kind": "complete", "switches": 5}})
    assert len(uniform.per_node) == 60
    assert fabricsim.RunResult({"metrics": {}}).per_node.empty


def test_clockwise_envelope_deadlocks_and_smart_does_not():
    cw = fabricsim.run(envelope("clockwise", workload={"arrivals": "saturated"}))
    assert cw.run_info["stop_reason"] == "deadlock"
    assert len(cw.deadlock["cycle"]) == 4 and cw.deadlock["frames_stuck_in_cycle"] > 0
    text = cw.summary()
    assert "deadlock at" in text and "cycle of 4 waits" in text
    smart = fabricsim.run(envelope("smart", workload={"arrivals": "saturated"}))
    assert smart.run_info["stop_reason"] != "deadlock" and smart.deadlock is None
    assert "deadlock at" not in smart.summary()
