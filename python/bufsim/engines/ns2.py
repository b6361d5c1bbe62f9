"""The ns2 engine (``engine="ns2"``): the scenario written as one OTcl
script and run in the installed ns-2.35 by :mod:`bufsim.ns2`, the simulator
four of the five papers used. One module of :data:`bufsim.engines.ENGINES`:
it says what the engine is; :mod:`bufsim.ns2` does the work."""

from __future__ import annotations

from collections.abc import Callable
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
    work and memory are counted as the packet engine's, its CPU seconds
    (``cpu_s``) at :data:`PACKETS_PER_CPU_S`."""
    cost = dict(scenario.resolved.estimate("packet"))
    cost["cpu_s"] = cost["work"] / PACKETS_PER_CPU_S
    return cost


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
