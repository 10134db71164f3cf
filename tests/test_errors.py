from __future__ import annotations

import pickle

import pytest
from fabricsim import FabricsimError, ModelError, ScenarioError
from fabricsim.errors import InternalError, error_from_payload, unwrap


def test_scenario_payload_maps_to_scenario_error():
    err = error_from_payload(
        {
            "kind": "scenario",
            "message": "value not allowed",
            "file": "scenario.toml",
            "key": "workload.offered_load",
            "value": "7.0",
            "allowed": "0 < value <= 2",
        }
    )
    assert isinstance(err, ScenarioError)
    assert str(err) == "scenario.toml: key `workload.offered_load` = 7.0: value not allowed; allowed: 0 < value <= 2"
    assert (err.file, err.key, err.value, err.allowed) == ("scenario.toml", "workload.offered_load", "7.0", "0 < value <= 2")


def test_source_fills_in_a_missing_file():
    err = error_from_payload({"kind": "scenario", "message": "bad"}, source="s.toml")
    assert err.file == "s.toml" and str(err) == "s.toml: bad"


@pytest.mark.parametrize("kind, cls", [("model", ModelError), ("internal", InternalError), ("???", InternalError)])
def test_other_kinds(kind, cls):
    err = error_from_payload({"kind": kind, "message": "deadlock", "file": "f.toml"})
    assert isinstance(err, cls) and isinstance(err, FabricsimError)
    assert "deadlock" in str(err) and "f.toml" in str(err)


def test_unwrap():
    assert unwrap('{"ok": {"a": 1}}') == {"a": 1}
    with pytest.raises(ModelError):
        unwrap('{"error": {"kind": "model", "message": "m"}}')
    with pytest.raises(InternalError):
        unwrap("{}")


def test_scenario_error_survives_pickling():
    # Errors cross process boundaries in sweeps.
    err = ScenarioError("m", file="f", key="k", value="v", allowed="a", line=3)
    back = pickle.loads(pickle.dumps(err))
    assert (back.file, back.key, back.value, back.allowed, back.line, str(back)) == ("f", "k", "v", "a", 3, str(err))
