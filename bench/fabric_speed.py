"""The packet engine on leaf-spine fabrics (make bench): port departures
per CPU second, and what a 1,000-host fabric costs per simulated second.

A fabric run's work is every queue a packet passes: the departures of all
its ports (NICs included), the ``departures_<port>`` of the summary over
the measurement window, scaled to the run's duration. Rows:

- ``abm``: ABM's setup (Addanki et al., SIGCOMM 2022, section 5.1; the
  authors' ``examples/ABM`` run script): 2 leaves, 2 spines, 16 hosts per
  leaf, 4 links per leaf-spine pair, 10 Gbps and 10 us everywhere, 9.6 KB
  of buffer per port per Gbps under the dynamic threshold, DCTCP marking
  at 65 KB; web search at 40% of the host links, and incast queries of
  16 servers for 30% of the buffer, 2 a second for each of the 32 hosts as
  client (64 a second).
- ``leaf-spine``: the shipped example.
- ``hosts-1024``: 32 leaves of 32 hosts under 8 spines, the same links
  and traffic (web search at 40%), run for 20 ms; beside it
  ``validate``'s estimate of its departures per simulated second and the
  CPU seconds that costs at its own measured rate (and at the ABM row's).
  In 20 ms the web search has not reached its load (its largest transfers,
  30 MB, take 24 ms alone at 10 Gbps): the run's departures fall short of
  the estimate; its rate per CPU second is what carries over.

Run: ``.venv/bin/python bench/fabric_speed.py [--no-1024]``; prints a
Markdown table.
"""

from __future__ import annotations

import sys

import bufsim
from bufsim import fmt, limits


def abm(leaves: int = 2, spines: int = 2, hosts: int = 16, pair: int = 4) -> dict:
    """ABM's fabric (module doc) of ``leaves`` x ``spines``, ``hosts`` per
    leaf and ``pair`` links per leaf-spine pair, with its traffic."""
    return {
        "name": f"abm-{leaves * hosts}",
        "duration": "0.1s",
        "warmup": "0.02s",
        "seed": 1,
        "fabric": {
            "leaves": leaves,
            "spines": spines,
            "hosts_per_leaf": hosts,
            "links_per_pair": pair,
            "host_rate": "10Gbps",
            "delay": "10us",
            "buffer_per_port_per_gbps": "9.6KB",
            "algorithm": "dt",
            "alpha": 1.0,
            "qdisc": "threshold",
            "qdisc_params": {"k": 43},
        },
        "flows": [
            {"hosts": "random", "tcp": "dctcp", "size": "websearch", "arrival": {"load": 0.4}},
            {
                "tcp": "dctcp",
                "incast": {
                    "servers": 16,
                    "response": "0.3 buffer",
                    "rate": f"{2 * leaves * hosts}/s",
                },
            },
        ],
    }


def measure(scn: bufsim.Scenario) -> tuple[float, float, float]:
    """(port departures over the run, CPU seconds, validate's estimate of
    the departures) of one run of ``scn``."""
    r = bufsim.simulate(scn)
    norm = r.scenario
    window = norm["duration_s"] - norm["warmup_s"]
    ports = norm["fabric"]["ports"]
    departures = sum(r.summary[f"departures_{p}"] for p in ports) * norm["duration_s"] / window
    return departures, r.provenance["cpu_s"], limits.check(scn, "packet")["work"]


def main(big: bool = True) -> None:
    print("| fabric | hosts | ports | departures | estimate | CPU s | departures per CPU s |")
    print("|---|---|---|---|---|---|---|")
    cases = [
        ("abm", bufsim.Scenario.load(abm())),
        ("leaf-spine", bufsim.Scenario.load(bufsim.examples.path("leaf-spine"))),
    ]
    if big:
        s = abm(leaves=32, spines=8, hosts=32, pair=1)
        s.update(duration="0.02s", warmup="0.005s")
        s["flows"] = s["flows"][:1]
        cases.append(("hosts-1024", bufsim.Scenario.load(s)))
    rates = {}
    for name, scn in cases:
        dep, cpu, est = measure(scn)
        rates[name] = dep / cpu
        fab = scn.normalized["fabric"]
        print(
            f"| {name} | {fab['hosts']} | {len(fab['ports'])} | {dep:,.0f} | {est:,.0f} | "
            f"{cpu:.2f} | {dep / cpu:,.0f} |",
            flush=True,
        )
    if big:
        s = abm(leaves=32, spines=8, hosts=32, pair=1)
        s.update(duration="1s", warmup="0s")
        s["flows"] = s["flows"][:1]
        est = limits.check(bufsim.Scenario.load(s), "packet")["work"]
        print(
            f"\n1,024 hosts, one simulated second: validate estimates {est:,.0f} port "
            f"departures: {fmt.number(est / rates['hosts-1024'], 3)} CPU s at the "
            f"hosts-1024 row's rate ({fmt.number(est / rates['abm'], 3)} CPU s at the abm "
            "row's)."
        )


if __name__ == "__main__":
    main(big="--no-1024" not in sys.argv[1:])
