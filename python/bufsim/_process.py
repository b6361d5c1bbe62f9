"""An external simulator's run (the ns2 and ns3 engines): its process, the
lines of one output stream handed over as they come (progress, results),
the other stream kept for the error message, an optional wall-clock limit,
and the process killed on any exception (Ctrl-C, or one raised by the
line callback).
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, NamedTuple

__all__ = ["Finished", "stream"]


class Finished(NamedTuple):
    """How a process ended."""

    #: Its exit code (negative: the signal that ended it).
    returncode: int
    #: What it wrote on the stream not read line by line.
    other: str
    #: Whether the wall-clock limit stopped it.
    timed_out: bool


def stream(
    cmd: Sequence[str],
    on_line: Callable[[str], object],
    *,
    lines_on: Literal["stdout", "stderr"] = "stdout",
    cwd: str | Path | None = None,
    timeout_s: float | None = None,
) -> Finished:
    """Run ``cmd`` and call ``on_line`` with each line of its ``lines_on``
    stream as the process writes it (newline included).

    The other stream goes to a temporary file, read at the end: a process
    that writes much there cannot block on a full pipe while this reads
    the first.

    Parameters
    ----------
    cmd : sequence of str
        The program and its arguments.
    on_line : callable
        Called with each line; what it raises stops the run (the process
        is killed) and propagates.
    lines_on : {"stdout", "stderr"}
        The stream read line by line.
    cwd : str or Path, optional
        The process's working folder.
    timeout_s : float, optional
        Wall-clock seconds after which the process is killed (None: no
        limit).

    Returns
    -------
    Finished
        The exit code, the other stream's text and whether the limit
        stopped it.
    """
    with tempfile.TemporaryFile("w+") as other_file:
        pipes = {"stdout": other_file, "stderr": other_file, lines_on: subprocess.PIPE}
        killed = threading.Event()
        with subprocess.Popen(list(cmd), cwd=cwd, text=True, **pipes) as proc:

            def kill() -> None:
                killed.set()
                proc.kill()

            timer = threading.Timer(timeout_s, kill) if timeout_s is not None else None
            if timer is not None:
                timer.start()
            try:
                lines = proc.stdout if lines_on == "stdout" else proc.stderr
                assert lines is not None
                for line in lines:
                    on_line(line)
            except BaseException:
                proc.kill()
                raise
            finally:
                if timer is not None:
                    timer.cancel()
        other_file.seek(0)
        return Finished(proc.returncode, other_file.read(), killed.is_set())
