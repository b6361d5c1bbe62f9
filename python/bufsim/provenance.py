"""Where a result comes from: bufsim's version and the source commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bufsim._core import __version__

__all__ = ["__version__", "commit"]


def commit() -> str:
    """The short git commit of the source tree bufsim runs from, or
    ``"unknown"`` outside a checkout (an installed wheel)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"
