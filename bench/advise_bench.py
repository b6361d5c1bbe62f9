"""Benchmark of `bufsim advise` on the 10 Gbps example (make bench).

Targets: under 5 minutes on 2 cores for the full search, under 30 s with
--quick. Prints the wall time, the packet runs and the simulated seconds
each search took, the answer and its notes. `--full` runs only the full search.
"""

from __future__ import annotations

import sys
import tempfile
import time

import bufsim

SCENARIO = bufsim.examples.path("advise-10g")
OBJECTIVES = ["utilization>=0.98", "p99_queue_delay<=5ms"]


def main() -> None:
    duration = bufsim.Scenario.load(SCENARIO).normalized["duration_s"]
    for quick in (False,) if "--full" in sys.argv else (True, False):
        with tempfile.TemporaryDirectory() as store:
            t0 = time.perf_counter()
            a = bufsim.advise(SCENARIO, OBJECTIVES, quick=quick, store=store)
            wall = time.perf_counter() - t0
        packet = a.runs[a.runs["engine"] == "packet"]
        answer = f"{a.buffer_pkts:g} packets" if a.feasible else f"infeasible ({a.binding})"
        seeds = packet.groupby("buffer_pkts").size()
        print(
            f"advise-10g {'--quick' if quick else 'full'}: {wall:.1f} s wall, {len(packet)} packet runs "
            f"at {len(seeds)} buffers ({int((seeds > seeds.min()).sum())} with adaptive seeds), "
            f"{len(packet) * duration:.0f} s simulated; converged: {a.converged}; answer: {answer}"
        )
        for note in a.notes:
            print(f"  note: {note}")


if __name__ == "__main__":
    main()
