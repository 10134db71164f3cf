"""Files written whole or not at all: into a temporary file beside the target,
then renamed over it. A disk that fills, or an interruption, leaves the target
as it was (absent, or its previous version), never cut short."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from .errors import FabricsimError


def temporary_beside(path: Path) -> Path:
    """The temporary file ``path`` is written to first: hidden, beside it (a rename within one file system)."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_atomically(
    path: str | Path,
    write: Callable[[Path], None],
    what: str = "",
    hint: str = "",
    error: type[FabricsimError] = FabricsimError,
) -> Path:
    """Has ``write`` write the temporary file, then puts it in ``path``'s place.

    An OSError (no space left, no permission, ...) becomes ``error`` naming
    ``path`` (and ``what`` it is, and a ``hint`` of what to do), and the
    temporary file is removed.
    """
    path = Path(path)
    tmp = temporary_beside(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        what = f" {what}" if what else ""
        hint = f"; {hint}" if hint else ""
        raise error(f"{path}: cannot write{what}: {exc.strerror or exc}{hint}") from None
    finally:
        with contextlib.suppress(OSError):  # gone if renamed into place
            tmp.unlink()
    return path
