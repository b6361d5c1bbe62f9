"""Limits on one run's work and memory, checked before it starts.

A scenario can be valid and still out of proportion: a cwnd column per flow
sampled every microsecond (tens of gigabytes), a fluid step of 1 us over
1000 s, terabits of background for seconds. The core estimates what a run
costs from the scenario alone (``bufsim-core/src/cost.rs``: bottleneck
packets or fluid flow-steps, and the memory of the outputs and per-flow
state, each with the field that drives it); :func:`check` refuses a run over
the limits with a :class:`~bufsim.ScenarioError` naming that field and the
estimate, instead of running for an hour or being killed for memory halfway.

The limits come from the environment, so they apply to every entry point
(``simulate``, sweeps on any worker, ``advise``, the CLI):

==================== ==================================================== =========================
variable             limit                                                default
==================== ==================================================== =========================
BUFSIM_MAX_MEMORY    memory one run may hold (a size: ``"8GB"``)          half the physical memory
BUFSIM_MAX_PACKETS   bottleneck packets of a packet run                   3e9 (10-20 min at 3-4 M/s)
BUFSIM_MAX_STEPS     flow-steps of a fluid run (steps x (flows + 1))      2e9 (under a minute)
BUFSIM_MAX_POINTS    runs of one sweep (combinations x engines x seeds)   100,000
==================== ==================================================== =========================

Example
-------
>>> import bufsim
>>> from bufsim import limits
>>> s = bufsim.Scenario.load({"duration": "10s", "link": {"capacity": "1Gbps", "delay": "10ms",
...     "buffer": "100pkt"}, "flows": [{"count": 10, "rtt": "40ms"}]})
>>> round(limits.estimate(s, "packet")["work"])
833333
"""

from __future__ import annotations

import os
from typing import Any

from bufsim import _core, fmt
from bufsim.engines.packet import PACKETS_PER_CPU_S as PACKET_RATE
from bufsim.engines.registry import ENGINES
from bufsim.scenario import Scenario, scenario_error

__all__ = ["estimate", "check", "memory_limit", "work_limit", "points_limit"]

#: Default most bottleneck packets of one packet run.
DEFAULT_MAX_PACKETS = 3e9
#: Default most flow-steps of one fluid run.
DEFAULT_MAX_STEPS = 2e9
#: Default most runs of one sweep.
DEFAULT_MAX_POINTS = 100_000
#: Bottleneck packets the packet engine simulates per CPU second, for time
#: estimates before a run (:data:`bufsim.engines.packet.PACKETS_PER_CPU_S`).
PACKETS_PER_CPU_S = PACKET_RATE
#: Default share of the physical memory one run may hold.
DEFAULT_MEMORY_SHARE = 0.5


#: The environment variable bounding each unit of work, and its default.
WORK_LIMITS = {
    "packets": ("BUFSIM_MAX_PACKETS", DEFAULT_MAX_PACKETS),
    "flow-steps": ("BUFSIM_MAX_STEPS", DEFAULT_MAX_STEPS),
}


def estimate(scenario: Scenario, engine: str) -> dict[str, Any]:
    """What running ``engine`` (a name of :data:`bufsim.ENGINES`) on
    ``scenario`` costs: that engine's own estimate
    (:meth:`bufsim.engines.Engine.estimate`).

    Returns a dict: ``work`` (bottleneck packets, or fluid flow-steps),
    ``work_unit``, ``work_field`` (the scenario field driving it),
    ``memory_bytes`` (bytes held at the peak), ``memory_field`` and, where
    the engine's speed is measured, ``cpu_s`` (CPU seconds).
    """
    return ENGINES[engine].estimate(scenario)


def _env_number(name: str, default: float, kind: str | None = None) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = _core.parse_quantity(text, kind) if kind else float(text)
    except ValueError as e:
        raise _core.ScenarioError(f"environment variable {name}={text!r}: {e}") from None
    if not value > 0:
        raise _core.ScenarioError(f"environment variable {name}={text!r}: must be > 0")
    return value


def memory_limit() -> float:
    """Bytes one run may hold: ``$BUFSIM_MAX_MEMORY`` or half the physical memory."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        physical = 8e9
    return _env_number("BUFSIM_MAX_MEMORY", DEFAULT_MEMORY_SHARE * physical, "size")


def work_limit(unit: str) -> float:
    """Most work of one run in ``unit`` (an estimate's ``work_unit``):
    bottleneck packets, or flow-steps of a fluid run (:data:`WORK_LIMITS`)."""
    return _env_number(*WORK_LIMITS[unit])


def points_limit() -> int:
    """Most runs one sweep may have: ``$BUFSIM_MAX_POINTS`` or 100,000."""
    return int(_env_number("BUFSIM_MAX_POINTS", DEFAULT_MAX_POINTS))


def check(scenario: Scenario, engine: str) -> dict[str, Any]:
    """Refuse a run over the limits; return its estimate otherwise.

    Raises
    ------
    ScenarioError
        Naming the field that drives the cost, the estimate and the limit
        (and the environment variable that raises it).
    """
    cost = estimate(scenario, engine)
    mem, mem_limit = cost["memory_bytes"], memory_limit()
    if mem > mem_limit:
        raise scenario_error(
            cost["memory_field"],
            f"this {engine} run would hold about {_gb(mem)} of memory "
            f"(outputs and per-flow state), more than the limit {_gb(mem_limit)}; change "
            f"{cost['memory_field']} (or set BUFSIM_MAX_MEMORY, e.g. BUFSIM_MAX_MEMORY=64GB)",
        )
    work, limit = cost["work"], work_limit(cost["work_unit"])
    if work > limit:
        var = WORK_LIMITS[cost["work_unit"]][0]
        raise scenario_error(
            cost["work_field"],
            f"this {engine} run is about {fmt.number(work, 3)} {cost['work_unit']}, "
            f"more than the limit {fmt.number(limit, 3)}; change {cost['work_field']} (or set {var} to run it anyway)",
        )
    return cost


def _gb(n: float) -> str:
    return f"{fmt.number(n / 1e9, 3)} GB" if n >= 1e8 else f"{fmt.number(n / 1e6, 3)} MB"
