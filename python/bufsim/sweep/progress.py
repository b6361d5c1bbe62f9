"""Progress of long work: a rich progress bar on stderr, plain lines, a
callback, or nothing.

The rule every long command follows: on a terminal, a bar on stderr; when
stderr is not a terminal (a log file, CI, a pipe), periodic plain lines on
stderr saying what runs, how far and an ETA (:class:`Lines`). Sweeps take
the bar from :class:`Progress`; :func:`for_stderr` gives a sweep the plain
lines where no bar can be drawn.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from bufsim import fmt

#: Seconds between two plain progress lines.
LINE_EVERY_S = 10.0


class Lines:
    """Progress as plain lines on stderr: what runs, how far, the elapsed
    time and an ETA from the rate so far.

    Calls (:meth:`__call__`) print at most every :data:`LINE_EVERY_S`
    seconds, and nothing for work shorter than that; messages
    (:meth:`say`) print at once.

    Parameters
    ----------
    label : str
        What runs (``"sweep spec"``, ``"run demo [packet]"``): each line
        starts with it.
    """

    def __init__(self, label: str):
        self.label = label
        self.t0 = self.last = time.monotonic()

    def __call__(self, done: float, total: float, unit: str, what: str = "") -> None:
        """Say how far the work is, if :data:`LINE_EVERY_S` passed since the last line.

        Parameters
        ----------
        done, total : float
            Work done and in all, in ``unit``.
        unit : str
            ``"points"``, ``"s simulated"``, ``"runs"``.
        what : str
            What runs now (optional).
        """
        now = time.monotonic()
        if now - self.last < LINE_EVERY_S:
            return
        self.last = now
        elapsed = now - self.t0
        eta = f", ETA {elapsed * (total - done) / done:.0f} s" if 0 < done < total else ""
        what = f" {what}:" if what else ""
        self._print(
            f"{self.label}:{what} {fmt.number(done)}/{fmt.number(total)} {unit}, {elapsed:.0f} s elapsed{eta}"
        )

    def say(self, message: str) -> None:
        """Print ``message`` now, with the time elapsed (s)."""
        self._print(f"{self.label}: {message} ({time.monotonic() - self.t0:.0f} s elapsed)")

    @staticmethod
    def _print(line: str) -> None:
        print(line, file=sys.stderr, flush=True)


def for_stderr(label: str) -> Callable[[dict[str, Any]], Any] | None:
    """A sweep's ``progress`` that follows the rule: ``None`` (the bar)
    when stderr is a terminal, else a callback printing :class:`Lines` of
    the points done.

    Parameters
    ----------
    label : str
        What the lines say runs (``"sweep NAME"``).

    Returns
    -------
    callable or None
        None on a terminal (the sweep draws its bar), else a callback taking
        each finished point's record.
    """
    if _interactive():
        return None
    lines = Lines(label)
    return lambda state: lines(state["done"], state["total"], "points")


class Progress:
    """A rich progress bar (points done, failures, ETA), or a callback, or nothing."""

    def __init__(
        self,
        mode: bool | Callable[[dict[str, Any]], Any] | None,
        total: int,
        cached: int,
        label: str,
    ):
        self.callback = mode if callable(mode) else None
        self.state = {"total": total, "done": 0, "failed": 0, "cached": cached}
        self.bar = None
        show = mode is True or (mode is None and _interactive())
        if show and self.callback is None and total > 0:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"),
                TextColumn("{task.fields[cached]} cached"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self.bar.start()
            self.task = self.bar.add_task(f"sweep [{label}]", total=total, failed=0, cached=cached)

    def advance(self, failed: bool) -> None:
        self.state["done"] += 1
        self.state["failed"] += int(failed)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.state["failed"])
        if self.callback is not None:
            self.callback(dict(self.state))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _interactive() -> bool:
    """Whether stderr is a terminal (a bar can be drawn there)."""
    try:
        from rich.console import Console

        return Console(stderr=True).is_terminal
    except Exception:  # pragma: no cover
        return False
