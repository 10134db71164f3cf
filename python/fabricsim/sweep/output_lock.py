"""The lock that gives one sweep at a time an output, ``<out>.lock``.

A sweep holds an exclusive ``flock`` from before it reads ``<out>`` until the
table is written; a second sweep on the same output is refused at once. The
kernel drops the lock when its holder dies, however it dies, so a lock file
left by a killed sweep is no obstacle.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import time
from pathlib import Path

from ..errors import SweepError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(out: Path) -> Path:
    return out.with_name(out.name + ".lock")


class OutputLock:
    """The right to write ``out``, its journal and its temporary files, held by one sweep at a time.

    An exclusive ``flock`` on ``<out>.lock``, taken before anything is read and
    held until the table is written. The kernel drops it when its holder exits,
    however it exits, so the file a killed sweep leaves behind is no obstacle;
    the file only says who holds it, for the message of a sweep turned away.
    Where ``flock`` is missing (Windows, some network file systems) the file
    itself is the lock, created exclusively; one naming a process of this host
    that no longer runs is stale and taken over.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.path = lock_path(out)
        fd = self._flock() if fcntl is not None else None
        self.fd = fd if fd is not None else self._create_exclusive()
        os.ftruncate(self.fd, 0)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        os.write(self.fd, f"pid {os.getpid()} on {socket.gethostname()}, since {stamp}\n".encode())

    def _open(self, flags: int) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | flags, 0o644)
        except FileExistsError:
            raise
        except OSError as exc:
            raise SweepError(f"{self.out}: cannot write there: {exc.strerror}") from None

    def _refuse(self, holder: str, hint: str = "") -> SweepError:
        return SweepError(
            f"{self.out}: another sweep ({holder or 'unknown process'}) is writing this table; "
            f"wait for it to finish or choose another --out{hint}"
        )

    def _flock(self) -> int | None:
        """The locked file's descriptor; None where the file system has no flock."""
        assert fcntl is not None
        while True:
            fd = self._open(0)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_text(self.path)
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise self._refuse(holder) from None
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    return None
                raise SweepError(f"{self.out}: cannot lock {self.path.name}: {exc.strerror}") from None
            # The previous holder may have removed the file between our open and
            # our flock: then the lock is on a file nobody else sees. Start over.
            try:
                if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    def _create_exclusive(self) -> int:
        for _ in range(3):
            try:
                return self._open(os.O_EXCL)
            except FileExistsError:
                holder = _read_text(self.path)
            if not _holder_is_gone(holder):
                raise self._refuse(holder, f"; if no sweep is running, remove {self.path}")
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        raise self._refuse(_read_text(self.path), f"; if no sweep is running, remove {self.path}")

    def release(self) -> None:
        # Removed while still held, so nobody can take a lock on the old file.
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self.fd)


def _holder_is_gone(holder: str) -> bool:
    """Whether a lock file's ``pid N on HOST`` names a process of this host that has exited."""
    m = re.match(r"pid (\d+) on (\S+?),", holder)
    if m is None or m.group(2) != socket.gethostname() or os.name != "posix":
        return False  # another host's, or no safe way to ask (os.kill on Windows terminates)
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


