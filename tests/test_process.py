"""bufsim._process.stream: how the ns2 and ns3 engines run their simulator."""

from __future__ import annotations

import sys
import time

import pytest
from bufsim import _process

#: A process that writes three lines on one stream and one on the other.
TALK = (
    "import sys\n"
    "for k in range(3):\n"
    "    print(f'line {{k}}', file=sys.{lines}, flush=True)\n"
    "print('the other stream', file=sys.{other})\n"
    "sys.exit(3)\n"
)


@pytest.mark.parametrize("lines, other", [("stdout", "stderr"), ("stderr", "stdout")])
def test_lines_come_from_one_stream_the_other_is_kept(lines, other):
    got: list[str] = []
    done = _process.stream(
        [sys.executable, "-c", TALK.format(lines=lines, other=other)], got.append, lines_on=lines
    )
    assert got == ["line 0\n", "line 1\n", "line 2\n"]
    assert done == _process.Finished(3, "the other stream\n", False)


def test_the_wall_clock_limit_stops_the_process():
    t = time.monotonic()
    done = _process.stream(
        [sys.executable, "-c", "import time; time.sleep(30)"], print, timeout_s=0.5
    )
    # Killed (SIGKILL, exit -9) within a few seconds, not after 30.
    assert done.timed_out and done.returncode == -9
    assert time.monotonic() - t < 10


def test_an_error_in_the_callback_kills_the_process_and_propagates():
    # The process would write for 30 s; the callback stops it at line 2.
    script = "import time\nfor k in range(300):\n    print(k, flush=True)\n    time.sleep(0.1)\n"

    def take(line: str) -> None:
        if line == "2\n":
            raise KeyboardInterrupt

    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _process.stream([sys.executable, "-c", script], take)
    assert time.monotonic() - t < 10
