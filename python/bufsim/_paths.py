"""Output paths checked before the work starts.

A run, a sweep or a report that can only fail at the end, when it writes,
loses the work; these checks make the same failure immediate, with the path
and the reason. Each creates the missing parent folders (the write will need
them) and proves the folder writable by creating and removing a probe.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from bufsim._core import BufsimError

__all__ = ["OutputPathError", "check_output_dir", "check_output_file", "safe_label"]


class OutputPathError(BufsimError, OSError):
    """An output path that cannot be written (the message says which and why)."""


def _writable_folder(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(prefix=".bufsim-probe-", dir=folder))
    except FileExistsError:
        raise OutputPathError(f"{what}: {str(folder)!r} is a file, not a folder") from None
    except OSError as e:
        raise OutputPathError(
            f"{what}: cannot write in {str(folder)!r}: {e.strerror or e}"
        ) from None


def check_output_dir(out: Path, what: str = "output directory") -> None:
    """Refuse a result directory that cannot be written, before the run.

    ``out`` may be missing or an earlier result (it is replaced); an existing
    directory holding anything else is refused rather than replaced.
    """
    if str(out) in ("", "."):
        raise OutputPathError(
            f"{what}: give a directory name (the result is a folder of files), got {str(out)!r}"
        )
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise OutputPathError(f"{what}: {str(out)!r} exists and is not a directory")
        if any(out.iterdir()) and not (out / "summary.json").is_file():
            raise OutputPathError(
                f"{what}: {str(out)!r} holds files that are not a bufsim result; choose another directory "
                "(a result replaces only an earlier result)"
            )
    _writable_folder(out.parent, what)


def check_output_file(path: Path, suffixes: tuple[str, ...], what: str) -> None:
    """Refuse an output file with another suffix, or that cannot be written, before the work."""
    if path.suffix.lower() not in suffixes:
        raise OutputPathError(f"{what} {str(path)!r}: use a {' or '.join(suffixes)} file name")
    if path.is_dir():
        raise OutputPathError(f"{what} {str(path)!r}: is a directory")
    _writable_folder(path.parent, what)


def safe_label(text: str) -> str:
    """``text`` as one safe file name: a scenario name is a label, not a path
    (``"../../x"`` or ``"/etc"`` stay inside the results folder)."""
    label = re.sub(r"[^A-Za-z0-9._+=-]+", "_", text).lstrip(".")
    return label or "scenario"
