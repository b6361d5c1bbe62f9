"""The engines' one interface (:class:`Engine`) and their registry
(:data:`ENGINES`): a new engine is one module beside ``packet.py`` that
provides the interface, and one line here.

This module imports the engine modules alone (they import their simulators
lazily), so :mod:`bufsim.limits` and the command line may read the registry
without importing :func:`bufsim.simulate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from bufsim.engines import fluid, ns2, ns3, packet
from bufsim.scenario import Scenario


@runtime_checkable
class Engine(Protocol):
    """What each engine's module provides (``bufsim/engines/<name>.py``).

    Attributes
    ----------
    label : str
        How messages name it (``"the fluid engine"``, ``"ns-3"``).
    transfers : bool
        Its flows table has finite transfers' rows (sizes, completion
        times), from which :func:`simulate` adds the completion statistics.
    verifies : bool
        advise may run it at the recommended buffer to check the packet
        engine's answer.
    """

    label: str
    transfers: bool
    verifies: bool

    def why_unavailable(self) -> str:
        """Why it cannot run here, one line naming how to install what is
        missing; '' when it can."""
        ...

    def check(self, scenario: Scenario) -> None:
        """Refuse what it cannot express: a :class:`~bufsim.ScenarioError`
        naming the field, its value and what the engine allows."""
        ...

    def estimate(self, scenario: Scenario) -> dict[str, Any]:
        """What a run costs, from the scenario alone: ``work``,
        ``work_unit`` (``"packets"`` or ``"flow-steps"``, which
        :mod:`bufsim.limits` bounds), ``work_field``, ``memory_bytes``,
        ``memory_field`` and, where measured, ``cpu_s`` (CPU seconds)."""
        ...

    def run(
        self, scenario: Scenario, progress: Callable[[float], Any] | None = None
    ) -> dict[str, Any]:
        """The run's raw outputs (``summary``, ``timeseries``, ``flows``,
        ``congestion_events``, ``trace``: columns of floats; optionally
        ``trace_events`` and ``provenance``)."""
        ...

    def version(self) -> str:
        """The version of what runs (bufsim's, or the installed simulator's)."""
        ...

    def build(self) -> str:
        """The build its results come from; stored runs are keyed on it
        (:func:`bufsim.store.build_id`)."""
        ...


#: The engines by name, in the order the command line lists them.
ENGINES: dict[str, Engine] = {"packet": packet, "fluid": fluid, "ns3": ns3, "ns2": ns2}
