"""The packet engine (``engine="packet"``): the core's discrete-event,
packet-level simulator, the ground truth the other engines are checked
against. One module of :data:`bufsim.engines.ENGINES`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bufsim import _core
from bufsim.scenario import Scenario

label = "the packet engine"
#: Finite transfers come back as rows of the flows table (size, completion).
transfers = True
#: It sizes buffers; it does not verify another engine's answer.
verifies = False
#: Bottleneck packets it simulates per CPU second, for time estimates
#: before a run: the low end of what `make bench` measures (4-9 M on 2
#: cores of the reference machine, less with many flows or delayed ACKs).
PACKETS_PER_CPU_S = 4e6


def why_unavailable() -> str:
    """'': the packet engine is compiled in."""
    return ""


def check(scenario: Scenario) -> None:
    """Refuse what the packet engine cannot run: its pre-run check in the
    core (:meth:`estimate` runs it).

    Raises
    ------
    ScenarioError
        Naming the field, its value and what is allowed.
    """
    estimate(scenario)


def estimate(scenario: Scenario) -> dict[str, Any]:
    """What a run costs, from the scenario alone (``bufsim-core/src/cost.rs``):
    ``work`` (bottleneck packets), ``work_unit``, ``work_field``,
    ``memory_bytes`` (bytes at the peak), ``memory_field`` and ``cpu_s``
    (CPU seconds at :data:`PACKETS_PER_CPU_S`)."""
    cost = dict(scenario.resolved.estimate("packet"))
    cost["cpu_s"] = cost["work"] / PACKETS_PER_CPU_S
    return cost


def run(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """The core's raw outputs (columns of floats) for ``scenario``."""
    return scenario.resolved.simulate("packet", progress)


def version() -> str:
    """bufsim's version (the engine is its core)."""
    return _core.__version__


def build() -> str:
    """``version+hash`` of the Rust engine's sources (``bufsim._core.__build__``)."""
    return f"{_core.__version__}+{_core.__build__}"
