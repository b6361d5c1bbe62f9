"""Benchmark of `bufsim advise` on the 10 Gbps example (make bench).

Targets: ``bufsim advise experiments/advise-10g.toml`` with the two
objectives under 5 minutes on 2 cores, under 30 s with ``--quick``. Times
the command as a user runs it (a fresh process: import, search, printed
answer), each with an empty results store, then reads the store for the
packet runs and the simulated seconds the search took. `--full` runs only
the full search.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bufsim

SCENARIO = Path(__file__).resolve().parents[1] / "experiments" / "advise-10g.toml"
OBJECTIVES = ["utilization>=0.98", "p99_queue_delay<=5ms"]
BUFSIM = str(Path(sys.executable).with_name("bufsim"))


def main() -> None:
    duration = bufsim.Scenario.load(SCENARIO).normalized["duration_s"]
    for quick in (False,) if "--full" in sys.argv else (True, False):
        with tempfile.TemporaryDirectory() as store:
            cmd = [BUFSIM, "advise", str(SCENARIO), "--json", "--store", store]
            cmd += [a for o in OBJECTIVES for a in ("-O", o)] + (["--quick"] if quick else [])
            t0 = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            wall = time.perf_counter() - t0
            with bufsim.store.Store(store) as s:
                packet = s.table(engine="packet")
        a = json.loads(out)
        answer = (
            f"{a['buffer_pkts']:g} packets" if a["feasible"] else f"infeasible ({a['binding']})"
        )
        seeds = packet.groupby("link.buffer").size()
        print(
            f"advise-10g {'--quick' if quick else 'full'}: {wall:.1f} s wall, {len(packet)} packet runs "
            f"at {len(seeds)} buffers ({int((seeds > seeds.min()).sum())} with adaptive seeds), "
            f"{len(packet) * duration:.0f} s simulated; converged: {a['converged']}; answer: {answer}"
        )
        for note in a["notes"]:
            print(f"  note: {note}")


if __name__ == "__main__":
    main()
