"""A sweep's journal, ``<out>.journal.jsonl``: every finished run, appended at
once, so that a sweep that stops for any reason resumes where it stopped.

A record cut short by a crash is cut off before anything is appended, so only
its run runs again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import SweepError


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal.jsonl")


# The journal holds one JSON record per line, {"key": ..., "rows": [...]}, each
# written whole, flushed and fsynced. A crash can still cut the last line short.
_RECORD_START = '{"key"'


def _journal_record(line: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The (key, rows) of one journal line, or None if it holds no whole record.

    A line may also hold a whole record glued after a torn one, as sweeps of
    earlier versions wrote when resuming after a crash: that record counts.
    """
    decoder = json.JSONDecoder()
    text = line.strip()
    start = 0
    while start >= 0:
        try:
            entry, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            entry, end = None, -1
        if end == len(text) and isinstance(entry, dict):
            key, rows = entry.get("key"), entry.get("rows")
            if isinstance(key, str) and isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
                return key, rows
        start = text.find(_RECORD_START, start + 1)
    return None


def read_journal(path: Path) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """The runs recorded in the journal, and the number of lines that held none."""
    done: dict[str, list[dict[str, Any]]] = {}
    unreadable = 0
    if not path.exists():
        return done, unreadable
    with path.open("rb") as fh:
        for raw in fh:
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            record = _journal_record(line)
            if record is None:
                unreadable += 1
            else:
                done[record[0]] = record[1]
    return done, unreadable


def repair_journal(path: Path) -> None:
    """Make the journal end with a whole line, so the next record starts a line of its own.

    A crash can cut the last record short: that piece is cut off (its run
    simply runs again). A whole last record that lost only its newline gets it.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    try:
        _cut_to_whole_lines(path, size)
    except OSError as exc:
        raise SweepError(f"{path}: cannot repair the journal: {exc.strerror or exc}") from None


def _cut_to_whole_lines(path: Path, size: int) -> None:
    with path.open("rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        start, pos = 0, size
        while pos > 0:  # find where the last line begins, reading back from the end
            step = min(1 << 16, pos)
            pos -= step
            fh.seek(pos)
            newline = fh.read(step).rfind(b"\n")
            if newline >= 0:
                start = pos + newline + 1
                break
        fh.seek(start)
        tail = fh.read()
        if _journal_record(tail.decode("utf-8", errors="replace")) is not None:
            fh.seek(size)
            fh.write(b"\n")
        else:
            fh.truncate(start)
        fh.flush()
        os.fsync(fh.fileno())


class JournalWriter:
    """Appends finished runs to the journal, each record whole, flushed and fsynced.

    A record the disk cannot take (no space left, a quota) is cut off again at
    once, so the journal holds only whole records, and the sweep stops with a
    SweepError: the runs recorded before it are kept for the rerun.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1  # opened with the first record: a sweep stopped before any run leaves no journal

    def append(self, entry: dict[str, Any]) -> None:
        if self.fd < 0:
            try:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError as exc:
                raise SweepError(f"{self.path}: cannot write the journal: {exc.strerror or exc}") from None
        data = memoryview((json.dumps(entry) + "\n").encode())
        start = os.lseek(self.fd, 0, os.SEEK_END)  # the sweep's lock makes this the only writer
        try:
            while data:  # a write may take part of the record only
                data = data[os.write(self.fd, data) :]
            os.fsync(self.fd)
        except OSError as exc:
            try:
                os.ftruncate(self.fd, start)
            except OSError:
                pass  # left for repair_journal on the rerun
            raise SweepError(
                f"{self.path}: cannot record a finished run: {exc.strerror or exc}; the runs recorded before it are "
                "kept: rerun the same command to resume once the disk can take more"
            ) from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
