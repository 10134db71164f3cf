"""Exception hierarchy of fabricsim and the mapping from the engine's error JSON.

The Rust engine reports every failure as data (``{"error": {...}}``) rather than
raising, so that one error enum maps onto one Python hierarchy in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "FabricsimError",
    "ScenarioError",
    "ModelError",
    "SweepError",
    "WorkerError",
    "InternalError",
    "RoutingWarning",
    "error_from_payload",
]


class FabricsimError(Exception):
    """Root of every error fabricsim raises on purpose."""


class RoutingWarning(UserWarning):
    """A run's routing has a cycle of channel dependencies, so it may deadlock;
    the text names the routings that would not on that fabric."""


class ScenarioError(FabricsimError):
    """A scenario is malformed: bad TOML, unknown key, or a value out of range.

    ``file``, ``key``, ``value`` and ``allowed`` say where the problem is and
    what would be accepted; ``line`` is set for TOML syntax errors.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        key: str | None = None,
        value: Any = None,
        allowed: str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.key = key
        self.value = value
        self.allowed = allowed
        self.line = line
        super().__init__(self._compose())

    def _compose(self) -> str:
        # Same shape as the engine's own rendering, e.g.
        # "s.toml: key `workload.offered_load` = 7.0: value not allowed; allowed: 0 < value <= 2"
        text = f"{self.file or '<scenario>'}: "
        if self.key and self.value is not None:
            text += f"key `{self.key}` = {self.value}: "
        elif self.key:
            text += f"key `{self.key}`: "
        text += self.message
        if self.allowed:
            text += f"; allowed: {self.allowed}"
        return text

    def __reduce__(self):  # keep keyword attributes across pickling (process pools)
        return (
            _rebuild_scenario_error,
            (self.message, self.file, self.key, self.value, self.allowed, self.line),
        )


def _rebuild_scenario_error(message, file, key, value, allowed, line):
    return ScenarioError(message, file=file, key=key, value=value, allowed=allowed, line=line)


class ModelError(FabricsimError):
    """The scenario is well formed but the model cannot run it (e.g. a deadlock)."""


class SweepError(FabricsimError):
    """A sweep cannot be set up or finished (bad output path, output in use, foreign
    results file...), or every one of its runs failed; then ``failed`` lists them
    (``fabricsim.sweep.FailedRun``)."""

    failed: tuple = ()


class WorkerError(FabricsimError):
    """A sweep's worker process died or could not start. The run itself may be
    fine: rerunning the sweep retries it."""


class InternalError(FabricsimError):
    """The engine hit a bug; the message is worth reporting."""


def error_from_payload(payload: Mapping[str, Any], source: str | None = None) -> FabricsimError:
    """Turn the engine's ``{"kind", "message", "file", "key", "value", "allowed"}`` into an exception."""
    kind = payload.get("kind")
    message = str(payload.get("message") or "unknown error")
    file = payload.get("file") or source
    if kind == "scenario":
        return ScenarioError(
            message,
            file=file,
            key=payload.get("key"),
            value=payload.get("value"),
            allowed=payload.get("allowed"),
        )
    prefix = f"{file}: " if file else ""
    if kind == "model":
        return ModelError(prefix + message)
    return InternalError(f"{prefix}internal error: {message}")


def unwrap(reply: str, source: str | None = None) -> Any:
    """Parse an engine reply ``{"ok": X}`` / ``{"error": E}``; return X or raise."""
    import json

    data = json.loads(reply)
    if "ok" in data:
        return data["ok"]
    if "error" in data:
        raise error_from_payload(data["error"], source)
    if data.get("interrupted"):
        # The engine stopped the run because a signal handler raised (Ctrl-C):
        # nothing of it is kept, as with any interrupted call.
        raise KeyboardInterrupt
    raise InternalError(f"malformed engine reply: {reply[:200]}")
