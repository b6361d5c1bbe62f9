"""Where a result comes from: bufsim's version and the source commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bufsim._core import __version__

__all__ = ["__version__", "build_commit", "commit"]


def commit() -> str:
    """The short git commit bufsim runs from: the source tree's when it runs
    from a checkout, else the one the compiled extension records from its
    build (:func:`build_commit`, an installed wheel), else ``"unknown"``."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
        tree = out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        tree = ""
    return tree or build_commit() or "unknown"


def build_commit() -> str:
    """The git commit the compiled extension was built from
    (``bufsim._core.build_commit()``, recorded at build time; shortened to
    7 characters as ``git rev-parse --short`` gives it when it is a full
    hash), or ``""`` when the extension records none (an older
    build, or one built outside a checkout)."""
    from bufsim import _core

    record = getattr(_core, "build_commit", None)
    if record is None:
        return ""
    try:
        text = str(record() or "").strip()
    except Exception:  # a record that fails must not stop a report
        return ""
    full = len(text) == 40 and all(c in "0123456789abcdef" for c in text.lower())
    return text[:7] if full else text
