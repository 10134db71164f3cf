"""Scenarios: a nested dict (the parsed TOML) plus the name of where it came from.

Python only parses and applies overrides; the engine validates, so there is one
schema and one set of error messages.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from . import _core
from .errors import ScenarioError, unwrap

__all__ = ["Scenario", "parse_assignment", "parse_value", "to_toml"]

_MISSING = object()
_LINE_RE = re.compile(r"line (\d+)")


class Scenario:
    """An immutable-by-convention scenario: nested dict + source name for messages."""

    __slots__ = ("_data", "source")

    def __init__(self, data: Mapping[str, Any], source: str = "<dict>") -> None:
        if not isinstance(data, Mapping):
            raise ScenarioError("a scenario must be a table (dict)", file=source, value=type(data).__name__)
        self._data: dict[str, Any] = copy.deepcopy(dict(data))
        self.source = source

    # ---- construction -------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file: {exc.strerror or exc}", file=str(path)) from None
        return cls.from_toml(text, source=str(path))

    @classmethod
    def from_toml(cls, text: str, source: str = "<toml>") -> Scenario:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = _LINE_RE.search(msg)
            raise ScenarioError(
                f"invalid TOML: {msg}", file=source, line=int(m.group(1)) if m else None
            ) from None
        return cls(data, source)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> Scenario:
        return cls(data, source)

    @classmethod
    def default(cls) -> Scenario:
        return cls.from_toml(_core.default_scenario(), source="<default>")

    @classmethod
    def coerce(cls, scenario: Scenario | str | Path | Mapping[str, Any] | None) -> Scenario:
        """Accept what the public API accepts: Scenario, path, dict, or None (default)."""
        if scenario is None:
            return cls.default()
        if isinstance(scenario, Scenario):
            return scenario
        if isinstance(scenario, (str, Path)):
            return cls.load(scenario)
        if isinstance(scenario, Mapping):
            return cls.from_dict(scenario)
        raise TypeError(f"cannot make a Scenario from {type(scenario).__name__}")

    # ---- access -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        return json.dumps(self._data, allow_nan=False)

    def to_toml(self) -> str:
        return to_toml(self._data)

    def get(self, dotted: str, default: Any = None) -> Any:
        node: Any = self._data
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return copy.deepcopy(node)

    @property
    def name(self) -> str | None:
        name = self._data.get("name")
        return name if isinstance(name, str) else None

    # ---- derivation ---------------------------------------------------------
    def with_overrides(
        self, overrides: Mapping[str, Any] | Iterable[str] | None = None, **kw: Any
    ) -> Scenario:
        """Return a copy with dotted keys set, e.g. ``{"workload.offered_load": 0.5}``.

        ``overrides`` may also be ``"key=value"`` strings (values parsed as TOML
        literals), and ``**kw`` keys use ``__`` for the dot. A path into a missing
        table creates it; the engine then rejects keys it does not know.
        """
        data = copy.deepcopy(self._data)
        for key, value in _iter_overrides(overrides, kw):
            _set_dotted(data, key, value, self.source)
        return Scenario(data, self.source)

    def validate(self) -> dict[str, Any]:
        """The normalized scenario (every default filled in), or ScenarioError."""
        return unwrap(_core.validate(self.to_json(), self.source), self.source)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, source={self.source!r})"


def _iter_overrides(overrides: Any, kw: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    if overrides is not None:
        if isinstance(overrides, Mapping):
            yield from overrides.items()
        elif isinstance(overrides, str):
            yield parse_assignment(overrides)
        else:
            for item in overrides:
                yield parse_assignment(item) if isinstance(item, str) else tuple(item)
    for key, value in kw.items():
        yield key.replace("__", "."), value


def _set_dotted(data: dict[str, Any], key: str, value: Any, source: str) -> None:
    parts = key.split(".")
    if not key or any(not p for p in parts):
        raise ScenarioError("not a valid dotted key", file=source, key=key or "''", allowed="names like workload.offered_load")
    node = data
    for i, part in enumerate(parts[:-1]):
        child = node.get(part, _MISSING)
        if child is _MISSING:
            child = node[part] = {}
        elif not isinstance(child, dict):
            prefix = ".".join(parts[: i + 1])
            raise ScenarioError(
                f"cannot set a sub-key: `{prefix}` is a value, not a table",
                file=source,
                key=key,
                value=_literal(value),
            )
        node = child
    node[parts[-1]] = copy.deepcopy(value)


def parse_value(text: str) -> Any:
    """Parse a TOML literal (``0.5``, ``true``, ``"x"``, ``[1, 2]``); else keep the bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"workload.offered_load=0.5"`` -> ``("workload.offered_load", 0.5)``."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError(
            "not an assignment", key=text, allowed="key=value, e.g. workload.offered_load=0.5", file="<command line>"
        )
    return key, parse_value(value.strip())


# ---- TOML output (the stdlib reads TOML but cannot write it) --------------------
def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_literal(v)}" for k, v in value.items()) + " }"
    if value is None:
        # TOML has no null; say so explicitly rather than invent a value.
        return '"<none>"'
    return json.dumps(str(value))


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE_KEY.match(k) else json.dumps(k)


def to_toml(data: Mapping[str, Any]) -> str:
    """Render a nested dict as TOML: scalars first, then one [section] per sub-table."""
    lines: list[str] = []

    def emit(table: Mapping[str, Any], path: list[str]) -> None:
        scalars = [(k, v) for k, v in table.items() if v is not None and not _is_table(v) and not _is_table_array(v)]
        tables = [(k, v) for k, v in table.items() if _is_table(v)]
        arrays = [(k, v) for k, v in table.items() if _is_table_array(v)]
        if path and (scalars or not (tables or arrays)):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars:
            lines.append(f"{_key(k)} = {_literal(v)}")
        for k, v in tables:
            emit(v, path + [k])
        for k, items in arrays:
            for item in items:
                if lines:
                    lines.append("")
                lines.append("[[" + ".".join(_key(p) for p in path + [k]) + "]]")
                for ik, iv in item.items():
                    lines.append(f"{_key(ik)} = {_literal(iv)}")

    emit(data, [])
    return "\n".join(lines) + "\n"


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(i, Mapping) for i in v)
