"""Benchmark of `bufsim advise` on the 10 Gbps example (make bench).

Targets: ``bufsim advise experiments/advise-10g.toml`` with the two
objectives under 5 minutes on 2 cores, under 30 s with ``--quick``; and
``experiments/backbone-5000.toml`` (5000 CUBIC flows at 10 Gbps) with
``--quick``, its wall time and packet runs beside the 2000-flow example's. Times
the command as a user runs it (a fresh process: import, search, printed
answer), each with an empty results store, then reads the store for the
packet runs and the simulated seconds the search took. Quick searches run
again with `--full-runs` (every packet run to its duration: the search
before runs stopped once their verdicts were known). `--full` runs only
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

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
#: name -> (scenario, objectives, searches run: quick and/or full).
CASES = {
    "advise-10g": (
        EXPERIMENTS / "advise-10g.toml",
        ["utilization>=0.98", "p99_queue_delay<=5ms"],
        (True, False),
    ),
    # The 5000-flow backbone port: its duration derived from the time
    # scales (32 s), the quick search only (the full one takes hours here).
    "backbone-5000": (
        EXPERIMENTS / "backbone-5000.toml",
        ["utilization>=0.95", "p99_queue_delay<=10ms"],
        (True,),
    ),
    # The 100 Gbps incast port (target: --quick under 20 s); its FCT
    # objective keeps every run to its full 0.5 s.
    "dc-incast": (
        EXPERIMENTS / "dc-incast.toml",
        ["utilization>=0.95", "fct_p99_small<=5ms"],
        (True,),
    ),
}
BUFSIM = str(Path(sys.executable).with_name("bufsim"))


def main() -> None:
    for name, (scenario, objectives, searches) in CASES.items():
        for quick in (False,) if "--full" in sys.argv else searches:
            # Quick searches run twice: as users run them, and with every
            # packet run measuring its whole window (--full-runs: before
            # output.stop), for the saving.
            for full_runs in (False, True) if quick else (False,):
                one(name, scenario, objectives, quick, full_runs)


def one(name: str, scenario: Path, objectives: list[str], quick: bool, full_runs: bool) -> None:
    """Time one advise command in a fresh process and print what it ran."""
    with tempfile.TemporaryDirectory() as store:
        cmd = [BUFSIM, "advise", str(scenario), "--json", "--store", store]
        cmd += [a for o in objectives for a in ("-O", o)]
        cmd += (["--quick"] if quick else []) + (["--full-runs"] if full_runs else [])
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        wall = time.perf_counter() - t0
        with bufsim.store.Store(store) as s:
            packet = s.table(engine="packet")
    a = json.loads(out)
    p = a["provenance"]
    answer = f"{a['buffer_pkts']:g} packets" if a["feasible"] else f"infeasible ({a['binding']})"
    seeds = packet.groupby("link.buffer").size()
    print(
        f"{name} {'--quick' if quick else 'full'}{' --full-runs' if full_runs else ''}: "
        f"{wall:.1f} s wall, {len(packet)} packet runs at {len(seeds)} buffers "
        f"({int((seeds > seeds.min()).sum())} with adaptive seeds, "
        f"{p['packet runs stopped early']} stopped early), "
        f"{p['simulated s (packet runs)']:.0f} s simulated, "
        f"{p['packets simulated (packet runs)']:.3g} bottleneck packets; converged: "
        f"{a['converged']}; answer: {answer}"
    )
    for note in a["notes"]:
        print(f"  note: {note}")


if __name__ == "__main__":
    main()
