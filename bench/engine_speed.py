"""The packet engine against ns-3 and ns-2: bottleneck packets per CPU second
on the same scenarios (the validation suite's NewReno ones, which all three
run as written, seed 1).

A run's bottleneck packets are its utilization x capacity x duration over
the packet's bits on the wire (mss + 40 bytes of headers), the same count
for every engine; its CPU seconds are those the run measured (the engine's
process and its children: ``provenance["cpu_s"]``). ns-3 and ns-2 are
Debian's packages (ns-3.37, ns-2.35), built for distribution.

Run: ``.venv/bin/python bench/engine_speed.py [SCENARIO ...]`` (after ``make
ns3 ns2``); prints a Markdown table.
"""

from __future__ import annotations

import sys

import bufsim
from bufsim.ns3 import validate

#: The scenarios measured: 10 Mbps to 10 Gbps.
SCENARIOS = ("newreno-10mbps", "newreno-droptail-1bdp", "paper003-n20-b60", "newreno-10gbps")
ENGINES = ("packet", "ns3", "ns2")


def measure(name: str, engine: str) -> tuple[float, float]:
    """(bottleneck packets, CPU seconds) of ``name``'s seed 1 on ``engine``."""
    scn = bufsim.Scenario.load(dict(validate.scenarios()[name], seed=1))
    r = bufsim.simulate(scn, engine=engine)
    norm = scn.normalized
    wire_bits = 8 * (norm["flows"][0]["mss_bytes"] + 40)
    packets = r.summary["utilization"] * norm["link"]["capacity_bps"] * norm["duration_s"]
    return packets / wire_bits, r.provenance["cpu_s"]


def main(names: list[str]) -> None:
    print("| scenario | bottleneck packets | " + " | ".join(ENGINES) + " |")
    print("|---|---|" + "---|" * len(ENGINES))
    for name in names:
        got = {e: measure(name, e) for e in ENGINES}
        rates = [f"{got[e][0] / got[e][1]:,.0f} ({got[e][1]:.2f} s)" for e in ENGINES]
        print(f"| {name} | {got['packet'][0]:,.0f} | " + " | ".join(rates) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(SCENARIOS))
