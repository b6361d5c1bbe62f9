"""The search's plan: what it sizes, on which grid, with how many seeds.

:func:`plan` reads a scenario and the search's settings once into a
:class:`Plan` that every later phase reads and none changes: the axis
sized (one link's buffer, a pool's size or every link of a chain,
:func:`axis_of`), the ports or links judged (:func:`busy_places`), the log
grid of buffers (packets), the seeds, the budget and the packet runs'
stop rule. :func:`estimate` counts the runs the search expects (the
progress bar's total, :func:`bufsim.advise.cost`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bufsim import _core
from bufsim.advise.fluid import SYNC_RANGE, fluid_form
from bufsim.advise.objectives import Objective, stop_rule
from bufsim.advise.rules import buffer_grid
from bufsim.scenario import DISCIPLINES, Scenario

#: The summary metrics each port of a pool and each link of a chain
#: report (``<key>_port<k>``, ``<key>_link<k>``): the objectives advise
#: judges port by port or link by link.
PLACE_KEYS = ("utilization", "drop_rate", "mean_queue_delay_s", "p99_queue_delay_s")

#: The search's axis on a chain: every ``links[i].buffer`` at once.
CHAIN_AXIS = "links[].buffer"

#: The search's axis on a fabric: every switch's buffer at once (bytes).
FABRIC_AXIS = "fabric.buffer"

#: The summary metrics each switch of a fabric reports
#: (``drop_rate_leaf0``): the objectives advise judges switch by switch;
#: completion times and slowdowns are the fabric's, over all transfers.
SWITCH_KEYS = ("drop_rate",)

#: The delay statistics a FIFO queue bounds by its length (all at most the
#: longest wait).
FIFO_BOUNDED = ("mean_queue_delay_s", "p50_queue_delay_s", "p99_queue_delay_s")


@dataclass(frozen=True)
class Plan:
    """What one :func:`bufsim.advise.advise` search sizes and how (:func:`plan`).

    Attributes
    ----------
    scn : Scenario
        The scenario, its duration and warm-up given (its buffer aside).
    objs : list of Objective
        The objectives.
    engines : tuple of str
        The engines taking part (``"rules"``, ``"fluid"``, ``"packet"``,
        the verifying ones).
    raw, norm : dict
        The scenario as written and normalized.
    fluid_raw : dict
        Its fluid form (:func:`bufsim.advise.fluid.fluid_form`).
    fluid_changes : str
        What the fluid form changed, in words (empty: nothing).
    stop : dict or None
        ``output.stop`` of every packet run (None: the whole window).
    places : list of str
        The ports or links judged (:func:`busy_places`; empty for one link).
    axis : str
        What is sized (:func:`axis_of`).
    confidence : float
        One-sided confidence of each objective's check (0..1).
    budget : int or None
        At most this many packet runs.
    quick : bool
        The quick search.
    seeds : int
        Packet runs per probed buffer.
    seed_list : list of int
        Seeds ``1..seeds``.
    per_doubling : int
        Grid points per doubling of the buffer.
    bdp : float
        The largest bandwidth-delay product of the busy links, packets.
    hi : float
        The grid's largest buffer, packets.
    grid : list of int
        The buffers the search may probe, packets, ascending.
    fluid_grid : list of int
        The fluid engine's grid: every other point in quick mode.
    wait_per_pkt_s : float or None
        The most each packet of a FIFO buffer adds to a queueing delay,
        seconds (:func:`fifo_wait_per_packet`).
    """

    scn: Scenario
    objs: list[Objective]
    engines: tuple[str, ...]
    raw: dict[str, Any]
    norm: dict[str, Any]
    fluid_raw: dict[str, Any]
    fluid_changes: str
    stop: dict[str, Any] | None
    places: list[str]
    axis: str
    confidence: float
    budget: int | None
    quick: bool
    seeds: int
    seed_list: list[int]
    per_doubling: int
    bdp: float
    hi: float
    grid: list[int]
    fluid_grid: list[int]
    wait_per_pkt_s: float | None


def plan(
    scn: Scenario,
    objs: list[Objective],
    *,
    engines: Sequence[str],
    seeds: int,
    confidence: float,
    quick: bool,
    budget: int | None,
    stop_early: bool = True,
) -> Plan:
    """The :class:`Plan` of a search of ``scn`` for ``objs``.

    Parameters
    ----------
    scn : Scenario
        The scenario, its duration and warm-up given (its buffer aside).
    objs : list of Objective
        The objectives.
    engines : sequence of str
        Which of ``"rules"``, ``"fluid"``, ``"packet"`` and the verifying
        engines (``"ns3"``, ``"ns2"``) take part.
    seeds : int
        Packet runs per probed buffer (two at most with ``quick``).
    confidence : float
        One-sided confidence of each objective's check (0..1).
    quick : bool
        Two grid points per doubling (else four), the fluid scan on every
        other one, no adaptive seeds.
    budget : int or None
        At most this many packet runs.
    stop_early : bool
        Packet runs end once every objective's verdict is known
        (:func:`~bufsim.advise.objectives.stop_rule`), where the objectives
        allow it.

    Returns
    -------
    Plan
    """
    raw, norm = scn.raw, scn.normalized
    # A pool (its size is the buffer searched) or a chain (one buffer on
    # each link): each objective holds on every port or link that
    # carries flows (:func:`worst_place`), which the batch rule does
    # not measure.
    places = busy_places(norm)
    axis = axis_of(norm)
    stop = stop_rule(objs, confidence) if stop_early else None
    if places:
        stop = None
    fluid_raw, fluid_changes = fluid_form(raw, norm)
    seeds = min(seeds, 2) if quick else seeds
    per_doubling = 2 if quick else 4
    # A chain's grid reaches as far as its busy links' largest BDP needs.
    links = [
        norm["links"][int(p.removeprefix("link"))] for p in places if p.startswith("link")
    ] or [norm["link"]]
    bdp = max(max(float(x["bdp_pkts"]) for x in links), 1.0)
    hi = max(4 * bdp, 16.0)
    if "pool" in norm:
        # n busy ports each hold about alpha / (1 + n alpha) of the pool
        # (Choudhury & Hahne's fixed point): the grid reaches as far
        # for each of them as it does for one link.
        alpha = float(norm["pool"]["alpha"])
        hi *= (1 + len(places) * alpha) / alpha
    elif "fabric" in norm:
        # The same fixed point on the switch with the most ports.
        alpha = float(norm["fabric"]["switches"][0]["pool"]["alpha"])
        ports = max(int(w["pool"]["ports"]) for w in norm["fabric"]["switches"])
        hi *= (1 + ports * alpha) / alpha
        # Short transfers' bursts from many hosts, not one BDP, fill a
        # switch: the grid reaches twice the largest buffer written too.
        hi = max(hi, 2.0 * max(float(w["pool"]["size_pkts"]) for w in norm["fabric"]["switches"]))
    grid = buffer_grid(1.0, hi, per_doubling)
    return Plan(
        scn=scn,
        objs=objs,
        engines=tuple(engines),
        raw=raw,
        norm=norm,
        fluid_raw=fluid_raw,
        fluid_changes=fluid_changes,
        stop=stop,
        places=places,
        axis=axis,
        confidence=confidence,
        budget=budget,
        quick=quick,
        seeds=seeds,
        seed_list=list(range(1, seeds + 1)),
        per_doubling=per_doubling,
        bdp=bdp,
        hi=hi,
        grid=grid,
        # The fluid engine's grid: every other point in quick mode.
        fluid_grid=grid[:: 2 if quick else 1],
        wait_per_pkt_s=fifo_wait_per_packet(norm, axis),
    )


def estimate(p: Plan, rules: list[dict[str, Any]]) -> dict[str, int]:
    """The runs a search of plan ``p`` expects: ``{"packet": n, "fluid":
    n}`` (the progress bar's total; adaptive seeds and interval scans can
    add more). ``rules`` the rules' rows (:func:`~bufsim.advise.rules.rule_rows`)."""
    n = len(p.grid)
    sync = "rules" in p.engines and not p.quick
    # The fluid bisections: two runs a round (first_true_together).
    fluid = 2 * math.ceil(math.log2(len(p.fluid_grid) + 1))
    fluid *= 1 + (len(SYNC_RANGE) if sync else 0)
    steps = 2 * (math.ceil(math.log2(n)) + 2)
    if any(not o.monotone for o in p.objs):
        steps += n // p.per_doubling + 2 * math.ceil(math.log2(p.per_doubling) + 1)
    checks = (
        0
        if p.quick
        else sum(1 for r in rules if r["applies"] and r["buffer_pkts"] == r["buffer_pkts"])
    )
    packet = (steps + checks) * p.seeds
    if p.budget is not None:
        packet = min(packet, p.budget)
    return {"packet": packet, "fluid": fluid if "fluid" in p.engines else 0}


def axis_of(norm: Mapping[str, Any]) -> str:
    """What advise sizes in a normalized scenario: ``"link.buffer"``,
    ``"pool.size"`` (a pool), :data:`CHAIN_AXIS` (a chain) or
    :data:`FABRIC_AXIS` (a fabric)."""
    if "fabric" in norm:
        return FABRIC_AXIS
    if "pool" in norm:
        return "pool.size"
    return CHAIN_AXIS if "links" in norm else "link.buffer"


def fifo_wait_per_packet(norm: Mapping[str, Any], axis: str) -> float | None:
    """The most each packet of the buffer adds to a packet's queueing delay
    as the summary reports it, seconds, when the buffer searched is one
    link's and its discipline serves one queue in arrival order
    (``fifo`` in :func:`bufsim._core.disciplines`); None otherwise.

    A packet admitted to a queue holding at most B packets (the one being
    serialized apart) waits for the rest of that one and at most B - 1
    before it: at most B serializations of the largest packet the link
    carries (flows' segments, background datagrams, the reverse
    traffic's ACKs). A delay quantile is read at its histogram bin's
    middle, at most ``DELAY_QUANTILE_ERROR`` above the sample; the mean
    is exact. So any of :data:`FIFO_BOUNDED` is at most B times this."""
    if axis != "link.buffer":
        return None
    link = norm["link"]
    if not DISCIPLINES[link["qdisc"]]["fifo"]:
        return None
    sizes = [int(g["mss_bytes"]) for g in norm["flows"]]
    sizes += [int(b["packet_size_bytes"]) for b in norm.get("background") or []]
    if norm.get("reverse"):
        sizes.append(int(norm["reverse"]["ack_size_bytes"]))
    # Serialization rounded up to whole picoseconds, as the engine's
    # clock counts it (BitsPerSec::tx_time), with one more for the float.
    tx_s = (math.ceil(max(sizes) * 8.0 * 1e12 / float(link["capacity_bps"])) + 1) * 1e-12
    return tx_s * (1 + _core.DELAY_QUANTILE_ERROR)


def busy_places(norm: Mapping[str, Any]) -> list[str]:
    """The ports of a normalized scenario's pool or the links of its chain
    that carry flow groups, or the switches of its fabric, as their
    summary tails (``port0``, ``link2``, ``leaf0``), in order; empty for
    one link."""
    if "fabric" in norm:
        return [w["name"] for w in norm["fabric"]["switches"]]
    if "pool" in norm:
        return [f"port{k}" for k in sorted({int(g.get("port", 0)) for g in norm["flows"]})]
    if "links" in norm:
        return [f"link{k}" for k in sorted({k for g in norm["flows"] for k in g["links"]})]
    return []


def worst_place(
    runs: pd.DataFrame, objs: Sequence[Objective], places: Sequence[str]
) -> pd.DataFrame:
    """Packet runs of a pool or a chain judged on every port or link in
    ``places``: each objective's column becomes its worst place's value
    (the least for a ``>=`` objective, the greatest for ``<=``; NaN where a
    place's is).

    Parameters
    ----------
    runs : pandas.DataFrame
        A sweep's table, with the ``<key>_<place>`` columns.
    objs : sequence of Objective
        The objectives (their keys in :data:`PLACE_KEYS`).
    places : sequence of str
        The summary tails judged (:func:`busy_places`).

    Returns
    -------
    pandas.DataFrame
        ``runs`` with each objective's column replaced.
    """
    out = runs.copy()
    for o in objs:
        if o.key not in PLACE_KEYS:
            # A fabric's completion times: the fabric's own, over all transfers.
            continue
        names = [f"{o.key}_{p}" for p in places]
        if any(n not in out for n in names):
            # No run gave them (every one failed): the caller reports why.
            continue
        cols = out[names]
        out[o.key] = (
            cols.min(axis=1, skipna=False) if o.op == ">=" else cols.max(axis=1, skipna=False)
        )
    return out
