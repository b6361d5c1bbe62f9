"""Convergence: whether a packet run measured long enough to be believed.

Each objective's metric over the first and the second half of a packet
run's measurement window (the core's ``<metric>_half1`` and ``_half2``,
``output.halves``) must agree within :data:`CONVERGENCE_TOL`
(:func:`convergence`); :func:`convergence_notes` says in words where they
do not, with a warning at the buffers the answer rests on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from bufsim import fmt
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
    if key.startswith(("fct_", "slowdown_")):
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


def convergence_notes(
    runs: Iterable[pd.DataFrame],
    norm: Mapping[str, Any],
    objs: list[Objective],
    focus: Iterable[float],
    *,
    places: bool = False,
) -> tuple[pd.DataFrame, list[str]]:
    """First against second half of every packet run's measurement window
    (:func:`convergence`), and what it means for the answer in words.

    Parameters
    ----------
    runs : iterable of pandas.DataFrame
        The search's run tables (fluid ones are skipped by :func:`convergence`).
    norm : dict
        The normalized scenario.
    objs : list of Objective
        The objectives.
    focus : iterable of float
        The buffers the verdict rests on (packets): a difference there is
        a warning, elsewhere a remark.
    places : bool
        Whether each objective is judged on several ports or links (their
        summary has no halves: the check reads their summary together).

    Returns
    -------
    (pandas.DataFrame, list of str)
        :func:`convergence`'s table and the notes.
    """
    tables = [t for t in runs if "engine" in t]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    conv = convergence(table, norm, objs)
    notes = []
    if conv.empty:
        return conv, notes
    bad = conv[~conv["converged"]]
    focus = {float(b) for b in focus if b == b}
    decisive = bad[bad["buffer_pkts"].isin(focus)]
    # Ports and links report no halves: the check reads their summary.
    together = " of the ports, links or switches together" if places else ""
    if len(decisive):
        worst = decisive.iloc[0]
        notes.append(
            f"WARNING: not converged: {len(decisive)} of {int(conv['buffer_pkts'].isin(focus).sum())} "
            f"checks at the decisive buffers differ between the halves of the measurement window "
            f"beyond the tolerance (e.g. {worst['metric']}{together} at {fmt.number(worst['buffer_pkts'])} "
            "packets, seed "
            f"{fmt.number(worst['seed'])}: {fmt.metric(worst['metric'], worst['first_half'])} then "
            f"{fmt.metric(worst['metric'], worst['second_half'])}); "
            "lengthen duration or warmup"
        )
    elif len(bad):
        notes.append(
            f"converged{together} at the decisive buffers; {len(bad)} of {len(conv)} checks "
            "elsewhere differ between the halves beyond the tolerance"
        )
    return conv, notes
