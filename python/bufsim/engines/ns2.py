"""The ns2 engine (``engine="ns2"``): the scenario written as one OTcl
script and run in the installed ns-2.35 by :mod:`bufsim.ns2`, the simulator
four of the five papers used. One module of :data:`bufsim.engines.ENGINES`:
it says what the engine is; :mod:`bufsim.ns2` does the work."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bufsim import _core
from bufsim.scenario import Scenario, scenario_error

label = "ns-2"
transfers = True
#: advise can run it at the recommended buffer.
verifies = True
#: Bottleneck packets ns-2.35 simulates per CPU second, for time estimates
#: before a run: a 1 Gbps, 10-flow SACK dumbbell, 20 s in 7.3 CPU s (the
#: low end measured; paper 003's 100 Mbps link with 20 NewReno flows runs
#: 460,000 per CPU s, 10 s in 0.55 CPU s).
PACKETS_PER_CPU_S = 256e3
#: CPU seconds per transfer of an open or closed loop beyond its packets:
#: the script's Tcl takes a pair from its pool, resets and starts it, and
#: prints its end. Measured at 50 Mbps, 1500 B packets (paper 002's sizes):
#: 800 closed-loop users, 6,800 more transfers in 60 s more cost 4.3 CPU s
#: more, 0.49 ms each beyond their packets at PACKETS_PER_CPU_S; with paper
#: 002's 18 RTTs (a pool each) about 1.1 ms. 0.7 ms: within 1.5x of both.
CPU_S_PER_TRANSFER = 0.7e-3
#: CPU seconds to build the script's nodes (links, agents, routes): per
#: node, and per node cubed (ns-2's static routes: a Dijkstra of O(n^2)
#: from every node, RouteLogic::compute_routes, routing/route.cc).
#: Measured with n long-lived flows (2 n + 2 nodes) run 2 s at 1 Mbps:
#: 50, 100, 200, 400 and 800 flows in 0.45, 0.95, 2.49, 8.5 and 45 CPU s,
#: fit within 10% by 4.35 ms per node and 9.75 ns per node cubed.
CPU_S_PER_NODE = 4.35e-3
CPU_S_PER_NODE_CUBED = 9.75e-9


def why_unavailable() -> str:
    """Why ns-2 cannot run here, one line ('' when it can)."""
    from bufsim.ns2 import driver as ns2

    return ns2.why_unavailable()


def _no_fabric(scenario: Scenario) -> None:
    """Refuse a fabric (``[fabric]``). Here, not in the driver's module,
    whose source keys the stored ns2 runs (its ``build``)."""
    if "fabric" in scenario.normalized:
        raise scenario_error(
            "fabric",
            "ns-2's links share no buffer, so a fabric's switches cannot be built: the ns2 "
            "engine runs none; use engine='packet'",
        )


def check(scenario: Scenario) -> None:
    """Refuse what ns-2 cannot express (:func:`bufsim.ns2.check`).

    Raises
    ------
    ScenarioError
        Naming the field, its value and what the ns2 engine allows.
    """
    _no_fabric(scenario)
    from bufsim.ns2 import driver as ns2

    ns2.check(scenario)


def estimate(scenario: Scenario) -> dict[str, Any]:
    """What a run costs: ns-2 simulates the packet engine's packets, so its
    work and memory are counted as the packet engine's. Its CPU seconds
    (``cpu_s``): the packets at :data:`PACKETS_PER_CPU_S`, the loops'
    transfers at :data:`CPU_S_PER_TRANSFER` each (:func:`loop_transfers`) and
    building the script's nodes (:func:`nodes`, :data:`CPU_S_PER_NODE`,
    :data:`CPU_S_PER_NODE_CUBED`)."""
    cost = dict(scenario.resolved.estimate("packet"))
    n = nodes(scenario.normalized)
    cost["cpu_s"] = (
        cost["work"] / PACKETS_PER_CPU_S
        + loop_transfers(scenario.normalized) * CPU_S_PER_TRANSFER
        + n * CPU_S_PER_NODE
        + n**3 * CPU_S_PER_NODE_CUBED
    )
    return cost


def nodes(norm: Mapping[str, Any]) -> int:
    """The nodes the script of a normalized scenario builds: the routers, a
    sender and a receiver per long-lived or finite flow and per background
    source, and per loop group and RTT class (:mod:`bufsim.ns2.otcl`)."""
    from bufsim.ns2 import otcl

    n = len(norm.get("links") or [norm["link"]]) + 1
    n += 2 * len(norm.get("background") or [])
    for g in norm["flows"]:
        n += 2 * (len(otcl.rtt_classes(g)) if g["kind"] in otcl.DYNAMIC else len(g["rtts_s"]))
    return n


def loop_transfers(norm: Mapping[str, Any]) -> float:
    """The transfers the open and closed loops of a normalized scenario
    start, expected: arrivals at their rate, each closed-loop user one per
    think time (an upper bound: a turn also waits for its transfer)."""
    out = 0.0
    for g in norm["flows"]:
        span = max(norm["duration_s"] - g.get("begin_s", 0.0), 0.0)
        if g["kind"] == "open":
            out += g["arrival_rate_per_s"] * span
        elif g["kind"] == "closed":
            ((_, mean),) = g["think"].items()
            out += g["users"] * (1.0 + span / max(float(mean), 1e-3))
    return out


def run(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """ns-2's raw outputs in the packet engine's shape, with the script's
    path and ns-2's version in ``provenance`` (:func:`bufsim.ns2.execute`).

    Raises
    ------
    ScenarioError
        What ns-2 cannot express.
    EngineError
        ``ns`` missing, failed or out of time.
    """
    _no_fabric(scenario)
    from bufsim.ns2 import driver as ns2

    return ns2.execute(scenario, progress)


def version() -> str:
    """The installed ns-2's Debian version (:func:`bufsim.ns2.version`)."""
    from bufsim.ns2 import driver as ns2

    return ns2.version()


def build() -> str:
    """``version+ns2-<ns-2 version>-<hash>`` (:func:`bufsim.ns2.build`: the
    OTcl writer and parser)."""
    from bufsim.ns2 import driver as ns2

    return f"{_core.__version__}+ns2-{ns2.build()}"
