"""The run times the docs quote, measured in one run (docs/timings.json).

Each entry of :data:`RUNS` is a command a page or the README tells the
reader to run and says how long it takes ("about 55 s"). This script runs
each as a user would (a fresh process, an empty results store, all the
machine's cores) and writes, per entry, the wall time, the CPU time of the
command and its workers (user + system of its process tree, sampled every
0.2 s, so a worker's last 0.2 s may be missed), the machine's cores and
its load average before the run. The docs quote the CPU time (``cpu_s``:
"about N CPU seconds"), which the machine's load does not move as it
moves the wall time; tests/test_docs_scannable.py checks every quote
against this file.

    python bench/timings.py [KEY ...]     # all, or the named entries

A named run replaces only its own entry. Run it on an idle machine when
the release is cut; a run with other work beside it says so in ``load``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "timings.json"
BUFSIM = str(Path(sys.executable).with_name("bufsim"))

#: Key -> the command (after ``bufsim``) whose time the docs quote.
RUNS: dict[str, list[str]] = {
    "advise-backbone-quick": [
        "advise", "--example", "backbone-5000",
        "-O", "utilization>=0.95", "-O", "p99_queue_delay<=10ms", "--quick",
    ],
    "advise-dc-incast-quick": [
        "advise", "--example", "dc-incast",
        "-O", "utilization>=0.95", "-O", "fct_p99_small<=5ms", "--quick",
    ],
    "advise-10g-quick": [
        "advise", "--example", "advise-10g",
        "-O", "utilization>=0.98", "-O", "p99_queue_delay<=5ms", "--quick",
    ],
    "advise-10g-full": [
        "advise", "--example", "advise-10g",
        "-O", "utilization>=0.98", "-O", "p99_queue_delay<=5ms",
    ],
    "advise-backbone-full": [
        "advise", "--example", "backbone-5000",
        "-O", "utilization>=0.95", "-O", "p99_queue_delay<=10ms",
    ],
    "sweep-variants": ["sweep", "--example", "variants", "--out", "variants.csv"],
    "run-paper003-ns3": ["run", "{experiments}/paper003-ns3.toml", "--engine", "ns3"],
    # The ns-3 driver's compilation on first use, into an empty cache.
    "ns3-compile": ["python", "-c", "from bufsim import ns3; ns3.driver()"],
}  # fmt: skip


def measure(args: list[str]) -> dict[str, object]:
    """Run ``bufsim ARGS`` in a scratch folder with an empty store: its
    wall and CPU seconds, the cores and the load before it."""
    load = os.getloadavg()[0]
    shown = [a.format(experiments="experiments") for a in args]
    args = [a.format(experiments=ROOT / "experiments") for a in args]
    with tempfile.TemporaryDirectory() as tmp:
        store = ["--store", str(Path(tmp, "store"))] if args[0] in ("advise", "sweep") else []
        # A python line runs in this interpreter; each run compiles the
        # ns-3 driver into an empty cache only where it measures that.
        cmd = [sys.executable, *args[1:]] if args[0] == "python" else [BUFSIM, *args, *store]
        env = dict(os.environ)
        if "ns3.driver()" in args[-1]:
            env["BUFSIM_CACHE"] = str(Path(tmp, "cache"))
        t0 = time.perf_counter()
        err = Path(tmp, "stderr").open("w+")
        proc = psutil.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=err)
        seen: dict[int, float] = {}
        while proc.poll() is None:
            for p in [proc, *proc.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    t = p.cpu_times()
                    seen[p.pid] = t.user + t.system
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(
                f"{' '.join(args)}: exit {proc.returncode}: {Path(tmp, 'stderr').read_text()}"
            )
    cpu = sum(seen.values())
    return {
        "command": " ".join(["bufsim", *shown] if args[0] != "python" else shown),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "cores": os.cpu_count(),
        "cpu_per_core_s": round(cpu / (os.cpu_count() or 1), 1),
        "load": round(load, 2),
        "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


#: A fluid run the Engines page times (the run alone, in this process).
FLUID = {
    "duration": "3000s",
    "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "0.25BDP"},
    "flows": [{"count": 10, "rtt": "100ms"}],
}


def measure_fluid() -> dict[str, object]:
    """The CPU and wall seconds of :data:`FLUID` on the fluid engine,
    bufsim already imported."""
    import bufsim

    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    bufsim.simulate(FLUID, engine="fluid")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "command": "bufsim.simulate(FLUID, engine='fluid') in bench/timings.py",
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "cores": os.cpu_count(),
        "cpu_per_core_s": round(cpu, 2),
        "load": round(load, 2),
        "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def main() -> None:
    keys = sys.argv[1:] or [*RUNS, "fluid-10g-3000s"]
    for key in keys:
        entry = measure_fluid() if key == "fluid-10g-3000s" else measure(RUNS[key])
        # Read the file again: another run may have written it meanwhile.
        data = json.loads(OUT.read_text()) if OUT.exists() else {}
        data[key] = entry
        print(f"{key}: {data[key]['wall_s']} s wall, {data[key]['cpu_s']} s CPU", flush=True)
        OUT.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n")


if __name__ == "__main__":
    main()
