"""Progress of a sweep: a rich progress bar on stderr, a callback, or nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _Progress:
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
                TextColumn("{task.description}"),
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
    try:
        from rich.console import Console

        return Console(stderr=True).is_terminal
    except Exception:  # pragma: no cover
        return False
