"""The fluid form of a scenario, and what the search reads from its reruns.

The fluid engine brackets the packet search
(:func:`bufsim.advise.search.fluid_scan.fluid_scan`). It models persistent flows
without per-packet stack features, so it runs a form of the scenario
(:func:`fluid_form`). The search reruns that form at a set loss
synchronization (``fluid.sync``): over paper 004's range (:data:`SYNC_RANGE`),
and at the packet engine's measured value where the engines disagree
(:data:`SYNC_GAP`, :data:`SYNC_FLOOR`). It moves the fluid edge by a packet
measurement (:func:`calibrated_edge`, at the buffer
:func:`calibration_point` picks). Buffers in packets.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim.advise.objectives import Objective

#: The X values of paper 004's fluid loss-synchronization range (section
#: III.A: X = 1 all flows lose at each congestion event; 0.3 its least
#: synchronized case).
SYNC_RANGE = (0.3, 1.0)


#: The fluid form is resynchronized (:func:`~bufsim.advise.search.fluid_scan.resync`) when the packet
#: engine's measured loss synchronization (``sync_mean``) at its edge is below
#: the fluid scan's at the nearest buffer by more than this factor.
SYNC_GAP = 2.0


#: The least X a resynchronized fluid scan uses (``fluid.sync`` must be > 0).
SYNC_FLOOR = 0.01


def fluid_form(
    raw: Mapping[str, Any], norm: Mapping[str, Any], *, stack: bool = True
) -> tuple[dict[str, Any], str]:
    """The scenario the fluid scan runs, and what it changed (empty: nothing).

    The fluid engine models persistent flows without per-packet stack
    features. For the scan, which only brackets the packet search (the
    packet engine judges every buffer), finite-transfer groups become
    Poisson background at their offered load (bits/s = arrival rate x mean
    size x MSS x 8), and HyStart++, delayed ACKs and access links are turned
    off (with ``stack``). Random path loss has no such stand-in: it stays,
    and the fluid engine refuses it with its reason.

    Parameters
    ----------
    raw : mapping
        The scenario as written.
    norm : mapping
        The same scenario normalized (:attr:`bufsim.Scenario.normalized`).
    stack : bool
        Turn the stack features and access links off too (the analytic
        models' form, :func:`bufsim.advise.rules._model_form`, keeps them).

    Returns
    -------
    (dict, str)
        The fluid form as written: open-arrival groups as Poisson background
        at their offered load (bits/s), groups with finite or closed traffic
        left out. And what changed, ``"; "``-separated (empty: nothing).
    """
    out = copy.deepcopy(dict(raw))
    flows, changed = [], []
    background = list(out.get("background", []))
    for k, (g, n) in enumerate(zip(out.get("flows", []), norm["flows"])):
        if n["kind"] != "persistent":
            bps = 0.0
            if n["kind"] == "open":
                bps = n["arrival_rate_per_s"] * n["mean_size_pkts"] * n["mss_bytes"] * 8
            if bps > 0:
                background.append(
                    {
                        "kind": "poisson",
                        "rate": f"{bps:.6g}bps",
                        "packet_size": f"{n['mss_bytes']}B",
                    }
                )
                changed.append(
                    f"flows[{k}] ({n['kind']}) as Poisson background of {fmt.metric('rate_bps', bps)}"
                )
            else:
                changed.append(f"flows[{k}] ({n['kind']}) left out")
            continue
        g = dict(g)
        if not stack:
            flows.append(g)
            continue
        for field_ in ("hystart", "delayed_ack"):
            if n[field_]:
                g[field_] = False
                changed.append(f"flows[{k}].{field_} off")
        if n["access_rate_bps"] is not None:
            g.pop("access_rate", None)
            g.pop("access_buffer", None)
            changed.append(f"flows[{k}] without its access link")
        flows.append(g)
    out["flows"] = flows
    if background:
        out["background"] = background
    return out, "; ".join(changed)


def calibrated_edge(
    curve: pd.Series, o: Objective, value: float | None = None, at: float | None = None
) -> float | None:
    """Where objective ``o`` starts to hold for the packet engine, guessed
    from the fluid scan and one packet measurement, buffers in packets.

    ``curve`` is the fluid engine's metric per buffer (index, ascending),
    ``value`` the packet engine's mean at buffer ``at``. The fluid's own
    edge is log-interpolated between the grid points around it. The packet
    engine's curve is taken as the fluid's shifted along log(buffer) (less
    loss synchronization than the fluid model's moves the whole curve to
    smaller buffers, paper 004 section III): the fluid reads ``value`` at
    a buffer B_eq (log-interpolated likewise), and the fluid's edge moves
    by ``at / B_eq``. A ``value`` at or past the fluid's best (a link
    never idle) only bounds that shift from above, the packet curve
    reaching it at ``at`` or before: B_eq is then the first buffer of the
    fluid's best and the shift at most 1 (no evidence the packet engine
    needs more than the fluid). Without a measurement, the fluid's own
    edge. None when the fluid curve never meets ``o``.

    Parameters
    ----------
    curve : pandas.Series
        The fluid scan's metric ``o.key`` (SI units) indexed by buffer,
        packets, ascending.
    o : Objective
        The objective.
    value : float or None
        The packet engine's mean of ``o.key`` at ``at``, SI units.
    at : float or None
        The buffer of that measurement, packets.

    Returns
    -------
    float or None
        The calibrated edge, packets (not rounded to the grid).
    """
    sign = 1.0 if o.op == ">=" else -1.0
    b = curve.index.to_numpy(dtype=float)
    f = sign * curve.to_numpy(dtype=float)

    def first_at_least(y: float) -> float | None:
        ok = np.flatnonzero(f >= y)
        if not len(ok):
            return None
        k = int(ok[0])
        if k == 0 or f[k] == f[k - 1]:
            return float(b[k])
        t = (y - f[k - 1]) / (f[k] - f[k - 1])
        return float(math.exp(math.log(b[k - 1]) + t * math.log(b[k] / b[k - 1])))

    edge = first_at_least(sign * o.bound)
    if edge is None or value is None or at is None:
        return edge
    best = float(f.max())
    equivalent = first_at_least(min(sign * value, best))
    if equivalent is None:
        return None
    shift = at / equivalent
    if sign * value >= best:
        shift = min(shift, 1.0)
    return edge * shift


def calibration_point(means: Mapping[float, float], curve: pd.Series, o: Objective) -> float | None:
    """The buffer whose packet measurement calibrates the fluid curve best
    for objective ``o`` (:func:`calibrated_edge`), from ``means`` (buffer
    in packets -> the packet engine's mean there): the one nearest the
    objective's bound, among those the fluid curve does not saturate (a
    value at or past the fluid's best only bounds the shift). None
    without measurements.

    Parameters
    ----------
    means : mapping of float to float
        Buffer (packets) -> the packet engine's mean of ``o.key`` there, SI
        units.
    curve : pandas.Series
        The fluid scan's metric ``o.key`` indexed by buffer, packets.
    o : Objective
        The objective.

    Returns
    -------
    float or None
        The buffer, packets (on a tie, the smaller).
    """
    if not means:
        return None
    sign = 1.0 if o.op == ">=" else -1.0
    best = float((sign * curve.to_numpy(dtype=float)).max())
    unsaturated = {b: v for b, v in means.items() if sign * v < best}
    pool = unsaturated or means
    return min(pool, key=lambda b: (abs(pool[b] - o.bound), b))
