"""Scenarios: a nested dict (the parsed TOML) plus the name of where it came from.

Python only parses and applies overrides; the engine validates, so there is one
schema and one set of error messages.
"""

from __future__ import annotations

import copy
import datetime
import functools
import json
import math
import numbers
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from . import _core
from .errors import FabricsimError, ScenarioError, unwrap

__all__ = ["Scenario", "clean_value", "parse_assignment", "parse_value", "read_text", "to_toml"]

_MISSING = object()
_LINE_RE = re.compile(r"line (\d+)")
_INDEX_RE = re.compile(r"\[\d+\]")
# Deeper than any scenario; keeps a pathological value from exhausting the stack.
_MAX_DEPTH = 32
COMMAND_LINE = "<command line>"


@functools.lru_cache(maxsize=1)
def _key_reference() -> dict[str, str]:
    """Every scenario key (``disks.count``, no indices) and what it allows, from the engine's schema."""
    reply = json.loads(_core.keys())
    return {k["key"]: k["allowed"] for k in reply["ok"]["keys"]}


def _value_text(value: Any) -> str:
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return _literal(value)


def _refuse(key: str, value: Any, problem: str, source: str) -> ScenarioError:
    """An error for a value no key takes (NaN, a date...), or for the key if it does not exist."""
    ref = _key_reference()
    plain = _INDEX_RE.sub("", key)
    parts = plain.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if not any(k == prefix or k.startswith(prefix + ".") for k in ref):
            parent = ".".join(parts[: i - 1])
            names = sorted({k[len(parent) + 1 :].split(".")[0] if parent else k.split(".")[0]
                            for k in ref if not parent or k.startswith(parent + ".")})
            return ScenarioError("unknown key", file=source, key=prefix, allowed=", ".join(f"`{n}`" for n in names))
    allowed = ref.get(plain, "a table (see `fabricsim scenario keys`)")
    return ScenarioError(problem, file=source, key=key, value=_value_text(value), allowed=allowed)


def clean_value(value: Any, key: str, source: str, depth: int = 0) -> Any:
    """``value`` as plain JSON data (dict, list, str, int, finite float, bool, None), or ScenarioError
    naming ``key``: NaN, infinities, dates and times and other objects have no place in a scenario."""
    if depth > _MAX_DEPTH:
        raise ScenarioError("nested too deeply", file=source, key=key, allowed=f"at most {_MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        # Past 64 bits the engine would read a float and echo it rounded: refuse it here, exact.
        if value >= 2**64:
            raise _refuse(key, int(value), "too large", source)
        if value < -(2**63):
            raise _refuse(key, int(value), "too small", source)
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise _refuse(key, f, "not a finite number", source)
        return f
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError("key names are text", file=source, key=f"{key}.{k!r}" if key else repr(k))
            out[k] = clean_value(v, f"{key}.{k}" if key else k, source, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [clean_value(v, f"{key}[{i}]", source, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, (datetime.date, datetime.time)):
        raise _refuse(key, value, "a date or time is not a value of this key", source)
    raise _refuse(key, value, f"a {type(value).__name__} is not a scenario value", source)


def attribute_to(exc: FabricsimError, keys: Iterable[str], origin: str) -> FabricsimError:
    """``exc`` with ``origin`` as its file if it is about one of ``keys`` (or a key inside or around one)."""
    if not isinstance(exc, ScenarioError) or not exc.key or exc.file == origin:
        return exc
    k = exc.key
    for key in keys:
        if k == key or k.startswith((key + ".", key + "[")) or key.startswith((k + ".", k + "[")):
            return ScenarioError(exc.message, file=origin, key=k, value=exc.value, allowed=exc.allowed, line=exc.line)
    return exc


# A scenario is a small text file; reading stops past this (a device such as /dev/zero never ends).
MAX_SCENARIO_BYTES = 16 << 20


# How the first line of an ibnetdiscover dump or an ibsim net file begins
# (a node's header or its first switch or adapter); no TOML line begins so.
_TOPOLOGY_START = re.compile(r'(vendid|devid|sysimgguid|switchguid|caguid)=|(Switch|Hca|Ca|Rt)\s+\d+\s+"')


def is_topology_dump(text: str) -> bool:
    """Whether ``text`` is an ibnetdiscover dump or ibsim net file (by its first line that is not a comment)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return _TOPOLOGY_START.match(line) is not None
    return False


def read_text(path: str | Path) -> str:
    """A scenario file's text: UTF-8, a byte order mark dropped; anything else is a ScenarioError."""
    data = _read_capped(path)
    if len(data) > MAX_SCENARIO_BYTES:
        raise _too_large(path)
    return _decode(data, path)


def _too_large(path: str | Path) -> ScenarioError:
    allowed = "a UTF-8 TOML text file of at most 16 MiB (an ibnetdiscover dump or net file of any size)"
    return ScenarioError("larger than 16 MiB: not a scenario", file=str(path), allowed=allowed)


def _read_capped(path: str | Path) -> bytes:
    """The file's first 16 MiB and one byte more, if it has them."""
    try:
        with open(path, "rb") as f:
            return f.read(MAX_SCENARIO_BYTES + 1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ScenarioError(f"cannot read scenario file: {reason}", file=str(path)) from None


def _decode(data: bytes, path: str | Path) -> str:
    if b"\x00" in data:
        raise ScenarioError("a binary file, not TOML text", file=str(path), allowed="a UTF-8 TOML text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            file=str(path),
            allowed="a UTF-8 TOML text file",
        ) from None


class Scenario:
    """An immutable-by-convention scenario: nested dict + source name for messages."""

    __slots__ = ("_data", "source", "_origins")

    def __init__(self, data: Mapping[str, Any], source: str = "<dict>") -> None:
        if not isinstance(data, Mapping):
            raise ScenarioError("a scenario must be a table (dict)", file=source, value=type(data).__name__)
        self._data: dict[str, Any] = clean_value(data, "", source)
        self.source = source
        # Keys set by overrides from elsewhere (``--set``: the command line), and where from.
        self._origins: dict[str, str] = {}

    # ---- construction -------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """A scenario file; or an ``ibnetdiscover`` dump or ibsim ``net`` file,
        which is the InfiniBand scenario that imports it (every other key at its default)."""
        data = _read_capped(path)
        # A topology dump is the engine's to read, whatever its size (ibnetdiscover writes about 700 bytes
        # per HCA: a cluster of 25,000 is past 16 MiB): the scenario's 16 MiB limit is for TOML text.
        head = data[:MAX_SCENARIO_BYTES].decode("utf-8-sig", errors="replace")
        if b"\x00" not in data and is_topology_dump(head):
            topology = {"kind": "import", "file": str(Path(path).resolve())}
            return cls.from_dict({"ib": {"topology": topology}}, source=str(path))
        if len(data) > MAX_SCENARIO_BYTES:
            raise _too_large(path)
        return cls.from_toml(_decode(data, path), source=str(path))

    @classmethod
    def from_toml(cls, text: str, source: str = "<toml>") -> Scenario:
        try:
            data = tomllib.loads(text.removeprefix("\ufeff"))
        except RecursionError:
            raise ScenarioError("invalid TOML: nested too deeply", file=source) from None
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
        self,
        overrides: Mapping[str, Any] | Iterable[str] | None = None,
        *,
        origin: str | None = None,
        **kw: Any,
    ) -> Scenario:
        """Return a copy with dotted keys set, e.g. ``{"workload.offered_load": 0.5}``.

        ``overrides`` may also be ``"key=value"`` strings (values parsed as TOML
        literals), and ``**kw`` keys use ``__`` for the dot. A path into a missing
        table creates it; the engine then rejects keys it does not know.
        ``origin`` names where the overrides come from in errors about them
        (the CLI's ``--set``: ``<command line>``); by default the scenario's source.
        """
        where = origin or self.source
        data = copy.deepcopy(self._data)
        origins = dict(self._origins)
        for key, value in _iter_overrides(overrides, kw, where):
            if not isinstance(key, str):
                raise ScenarioError("not a valid dotted key", file=where, key=repr(key), allowed="names like workload.offered_load")
            _set_dotted(data, key, clean_value(value, key, where), where)
            if where != self.source:
                origins[key] = where
            else:
                origins.pop(key, None)
        out = Scenario(data, self.source)
        out._origins = origins
        return out

    def attribute(self, exc: FabricsimError) -> FabricsimError:
        """``exc`` naming where its key was set: the origin of an override of that key, else unchanged."""
        for key, origin in self._origins.items():
            exc = attribute_to(exc, [key], origin)
        return exc

    def validate(self) -> dict[str, Any]:
        """The normalized scenario (every default filled in), or ScenarioError."""
        try:
            return unwrap(_core.validate(self.to_json(), self.source), self.source)
        except ScenarioError as exc:
            raise self.attribute(exc) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, source={self.source!r})"


def _iter_overrides(overrides: Any, kw: Mapping[str, Any], source: str) -> Iterable[tuple[str, Any]]:
    if overrides is not None:
        if isinstance(overrides, Mapping):
            yield from overrides.items()
        elif isinstance(overrides, str):
            yield parse_assignment(overrides, source)
        else:
            for item in overrides:
                if isinstance(item, str):
                    yield parse_assignment(item, source)
                elif isinstance(item, (tuple, list)) and len(item) == 2:
                    yield item[0], item[1]
                else:
                    raise ScenarioError(
                        "not an override", file=source, value=repr(item)[:80], allowed="key=value strings or (key, value) pairs"
                    )
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
    """Parse a TOML literal (``0.5``, ``true``, ``"x"``, ``[1, 2]``); else keep the bare string.

    NaN, infinities and dates parse as such; a scenario refuses them by key."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text.strip()


def parse_assignment(text: str, source: str = COMMAND_LINE) -> tuple[str, Any]:
    """``"workload.offered_load=0.5"`` -> ``("workload.offered_load", 0.5)``."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError(
            "not an assignment", key=text, allowed="key=value, e.g. workload.offered_load=0.5", file=source
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
