from __future__ import annotations

import json

import pytest
import tomllib
from fabricsim import Scenario, ScenarioError
from fabricsim.scenario import parse_assignment, parse_value, to_toml


def test_default_scenario_parses_and_validates():
    sc = Scenario.default()
    assert sc.source == "<default>"
    assert sc.get("switch.ports") == 16
    normalized = sc.validate()
    # Validation fills in every default, including keys absent from the file.
    assert normalized["run"]["seed"] == sc.get("run.seed")
    assert "batches" in normalized["run"]


def test_load_file(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('name = "x"\n[workload]\noffered_load = 0.4\n')
    sc = Scenario.load(path)
    assert sc.source == str(path)
    assert sc.get("workload.offered_load") == 0.4
    assert sc.get("workload.nothing", "dflt") == "dflt"
    assert sc.to_dict() == {"name": "x", "workload": {"offered_load": 0.4}}
    assert json.loads(sc.to_json()) == sc.to_dict()


def test_overrides_return_a_new_scenario():
    base = Scenario.from_dict({"workload": {"offered_load": 0.3}})
    changed = base.with_overrides({"workload.offered_load": 0.5}, run__seed=7)
    assert base.get("workload.offered_load") == 0.3
    assert changed.get("workload.offered_load") == 0.5
    assert changed.get("run.seed") == 7  # a missing table is created
    assert changed.source == "<dict>"


def test_overrides_from_assignment_strings():
    sc = Scenario.from_dict({}).with_overrides(["workload.pattern=uniform", "protocol.class=3"])
    assert sc.get("workload.pattern") == "uniform"
    assert sc.get("protocol.class") == 3


def test_override_below_a_value_is_an_error():
    sc = Scenario.from_dict({"workload": {"offered_load": 0.3}}, source="s.toml")
    with pytest.raises(ScenarioError) as exc:
        sc.with_overrides({"workload.offered_load.x": 1})
    assert exc.value.key == "workload.offered_load.x"
    assert "s.toml" in str(exc.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.5", 0.5),
        ("3", 3),
        ("true", True),
        ('"x y"', "x y"),
        ("[1, 2]", [1, 2]),
        ("uniform", "uniform"),  # not TOML: kept as a bare string
        ("  spaced  ", "spaced"),
    ],
)
def test_parse_value(text, expected):
    assert parse_value(text) == expected


def test_parse_assignment():
    assert parse_assignment("workload.offered_load = 0.5") == ("workload.offered_load", 0.5)
    assert parse_assignment("name=a=b") == ("name", "a=b")
    with pytest.raises(ScenarioError):
        parse_assignment("no-equals-sign")


def test_unknown_key_names_file_key_and_allowed(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text("[workload]\nofered_load = 0.5\n")
    with pytest.raises(ScenarioError) as exc:
        Scenario.load(path).validate()
    err = exc.value
    assert err.file == str(path)
    assert err.key == "workload.ofered_load"
    assert "offered_load" in err.allowed
    msg = str(err)
    assert msg.startswith(f"{path}: key `workload.ofered_load`")
    assert "allowed:" in msg


def test_out_of_range_value_names_all_four():
    sc = Scenario.default().with_overrides({"workload.offered_load": 7.0})
    with pytest.raises(ScenarioError) as exc:
        sc.validate()
    err = exc.value
    assert (err.file, err.key) == ("<default>", "workload.offered_load")
    assert err.value is not None and "7" in str(err.value)
    assert err.allowed
    msg = str(err)
    for part in ("<default>", "workload.offered_load", "7", err.allowed):
        assert part in msg


def test_bad_toml_syntax_names_file_and_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "a"\n[run\nseed = 1\n')
    with pytest.raises(ScenarioError) as exc:
        Scenario.load(path)
    assert exc.value.file == str(path)
    assert exc.value.line == 2
    assert str(path) in str(exc.value) and "line 2" in str(exc.value)


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as exc:
        Scenario.load(tmp_path / "nope.toml")
    assert "nope.toml" in str(exc.value)


def test_to_toml_round_trips_normalized_scenario():
    normalized = Scenario.default().validate()
    text = to_toml(normalized)
    assert tomllib.loads(text) == {k: v for k, v in normalized.items() if v is not None}
    nested = {"a": {"b": {"c": [1, 2], "d": "q\"uote"}}, "arr": [{"x": 1}, {"x": 2}], "f": float("inf")}
    assert tomllib.loads(to_toml(nested)) == nested
