"""The ``fabricsim`` command's standard output: a stdout that cannot take what
is written (a full disk, ``> /dev/full``, a reader gone) ends the command with
``error: cannot write the output to stdout: ...`` and exit 2 (exit 1, quietly,
for a closed pipe), never with a traceback or Python's "Exception ignored" at exit.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer

from .errors import FabricsimError


def emit(text: str, end: str = "\n") -> None:
    """Prints a result on stdout; an output that cannot take it (a full disk, a closed pipe) is an error."""
    try:
        sys.stdout.write(text + end)
        sys.stdout.flush()
    except OSError as exc:
        _abandon_stdout()
        if isinstance(exc, BrokenPipeError):  # the reader has gone (`| head`): stop quietly
            raise typer.Exit(1) from None
        raise FabricsimError(_message(exc)) from None


class WatchedStdout:
    """``sys.stdout`` as it was, remembering a write or flush that failed: the
    command framework writes --help and --version itself, and its OSError must
    be told apart from any other."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as exc:
            self.failure = exc
            raise

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            self.failure = exc
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def finish(code: Any, error: OSError | None = None) -> Any:
    """The exit code once stdout is flushed, here where a failure can be reported
    rather than at exit. ``error``: an OSError the command ended with, raised
    again unless it was stdout's (see :class:`WatchedStdout`)."""
    failure = _flush()
    if error is not None:
        if error is not getattr(sys.stdout, "failure", None):
            raise error
        failure = failure or error
    if failure is None:
        return code
    if isinstance(failure, BrokenPipeError):
        return 1
    sys.stderr.write(f"error: {_message(failure)}\n")
    return 2


def _flush() -> OSError | None:
    try:
        sys.stdout.flush()
    except OSError as exc:
        _abandon_stdout()
        return exc
    except ValueError:  # stdout closed
        pass
    return None


def _message(exc: OSError) -> str:
    return f"cannot write the output to stdout: {exc.strerror or exc}"


def _abandon_stdout() -> None:
    # What stays in the buffer would fail again at exit: send it nowhere.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a file descriptor (a test's captured stream)
        pass
