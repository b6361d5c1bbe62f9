"""Convergence: whether a packet run measured long enough to be believed.

Each objective's metric over the first and the second half of a packet
run's measurement window (the core's ``<metric>_half1`` and ``_half2``,
``output.halves``) must agree within :data:`CONVERGENCE_TOL`
(:func:`convergence`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from bufsim.advise.objectives import Objective

#: Convergence: the largest difference between the first and second half of
#: a packet run's measurement window (the core's ``<metric>_half1`` and
#: ``_half2``, ``output.halves``), per kind of objective: fractions
#: (utilization, Jain's index) absolute; goodputs absolute, as a fraction of
#: the link's capacity; loss rates relative, with a floor of 1e-4; queueing
#: delays relative, with a floor of one packet's transmission time; flow
#: completion times relative.
CONVERGENCE_TOL = {"fraction": 0.01, "goodput": 0.01, "loss": 0.25, "delay": 0.2, "fct": 0.2}


def _half_tolerance(key: str, norm: Mapping[str, Any]) -> Callable[[float, float], bool]:
    """Whether two halves' values of metric ``key`` agree (:data:`CONVERGENCE_TOL`)."""
    link = norm["link"]
    t = CONVERGENCE_TOL
    if key.startswith("goodput"):
        tol = t["goodput"] * link["capacity_bps"]
        return lambda a, b: abs(a - b) <= tol
    if key == "drop_rate":
        return lambda a, b: abs(a - b) <= t["loss"] * max(a, b) + 1e-4
    if key.endswith("queue_delay_s"):
        one = 8 * link["packet_size_bytes"] / link["capacity_bps"]
        return lambda a, b: abs(a - b) <= t["delay"] * max(a, b) + one
    if key.startswith("fct_"):
        return lambda a, b: abs(a - b) <= t["fct"] * max(a, b)
    return lambda a, b: abs(a - b) <= t["fraction"]


def convergence(runs: pd.DataFrame, norm: Mapping[str, Any], objs: list[Objective]) -> pd.DataFrame:
    """Per packet run and objective, its metric over the first and the
    second half of the measurement window (the core's ``_half1`` and
    ``_half2`` metrics) and whether they agree within :data:`CONVERGENCE_TOL`.
    A half without the metric (no transfer finished in it) is not judged.

    Parameters
    ----------
    runs : pandas.DataFrame
        A sweep table; its packet runs (``engine == "packet"``) are checked.
    norm : mapping
        The normalized scenario: its link's capacity (bits/s) and packet
        size (bytes) set the goodput and delay tolerances.
    objs : list of Objective
        The objectives whose metrics are checked (each metric once).

    Returns
    -------
    pandas.DataFrame
        ``buffer_pkts`` (packets), ``seed``, ``metric`` (summary key),
        ``first_half`` and ``second_half`` (its values, SI units),
        ``converged`` (bool).
    """
    cols = ["buffer_pkts", "seed", "metric", "first_half", "second_half", "converged"]
    rows = []
    if "engine" in runs:
        runs = runs[runs["engine"] == "packet"]
        for key in dict.fromkeys(o.key for o in objs):
            h1, h2 = f"{key}_half1", f"{key}_half2"
            if h1 not in runs or h2 not in runs:
                continue
            agree = _half_tolerance(key, norm)
            for r in runs[["buffer_pkts", "seed", h1, h2]].itertuples(index=False):
                a, b = float(r[2]), float(r[3])
                if a == a and b == b:
                    rows.append([float(r[0]), r[1], key, a, b, agree(a, b)])
    return pd.DataFrame(rows, columns=cols).astype({"converged": bool})
