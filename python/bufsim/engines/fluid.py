"""The fluid engine (``engine="fluid"``): the core's integration of paper
004's fluid model (per-flow window ODEs, the loss-synchronization module)
or paper 003's hybrid model. One module of :data:`bufsim.engines.ENGINES`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bufsim import _core
from bufsim.scenario import Scenario

label = "the fluid engine"
#: Its flows table has no finite transfers' rows.
transfers = False
verifies = False


def why_unavailable() -> str:
    """'': the fluid engine is compiled in."""
    return ""


def check(scenario: Scenario) -> None:
    """Refuse what the fluid model cannot express (a pool, two-way traffic,
    HyStart++, ...): the core's pre-run check, which :func:`estimate` runs.

    Raises
    ------
    ScenarioError
        Naming the field, its value and what is allowed.
    """
    estimate(scenario)


def estimate(scenario: Scenario) -> dict[str, Any]:
    """What a run costs: ``work`` in flow-steps (steps x (flows + 1)), its
    unit and field, ``memory_bytes`` and ``memory_field``."""
    return dict(scenario.resolved.estimate("fluid"))


def run(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """The core's raw outputs (columns of floats) for ``scenario``."""
    return scenario.resolved.simulate("fluid", progress)


def version() -> str:
    """bufsim's version (the engine is its core)."""
    return _core.__version__


def build() -> str:
    """``version+hash`` of the Rust engine's sources (``bufsim._core.__build__``)."""
    return f"{_core.__version__}+{_core.__build__}"
