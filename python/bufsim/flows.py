"""Per-flow distributions from a packet-engine result (paper 002 figures 2-7).

The packet engine's ``Result.flows`` has one row per persistent flow and one
row per finite transfer (see ``crates/bufsim-core/src/packet/collect.rs``).
This module classifies rows as ``persistent``, ``large`` or ``small``
(``large``: more than ``output.large_flow`` bytes, 100 KB by default, as in
paper 002 section 4.2) and builds empirical CDFs of per-flow throughput and
loss rate for each class.

Example
-------
>>> import bufsim
>>> from bufsim import flows
>>> r = bufsim.simulate(bufsim.examples.path("dhamdhere2006"))   # doctest: +SKIP
>>> flows.cdfs(r, "throughput_bps")["large"].head()              # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

CLASSES = ("persistent", "large", "small")


def _table(result_or_flows: Any) -> pd.DataFrame:
    flows = getattr(result_or_flows, "flows", result_or_flows)
    if not isinstance(flows, pd.DataFrame):
        raise TypeError(
            f"expected a bufsim.Result or its flows DataFrame, got {type(result_or_flows).__name__}"
        )
    missing = {"finished", "large", "size_pkts"} - set(flows.columns)
    if missing:
        raise ValueError(
            f"the flows table has no {sorted(missing)} columns: it must come from the packet engine"
        )
    return flows


def classify(result_or_flows: Any, finished_only: bool = True) -> pd.DataFrame:
    """The flows table with a ``class`` column: ``persistent``, ``large`` or ``small``.

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table.
    finished_only : bool
        Drop finite transfers still in progress at the end of the run (their
        throughput is a partial one). Persistent flows are always kept.

    Returns
    -------
    pandas.DataFrame
        A copy of the rows kept, with ``class``.
    """
    f = _table(result_or_flows).copy()
    persistent = f["size_pkts"].isna()
    if finished_only:
        f = f[persistent | (f["finished"] == 1.0)].copy()
        persistent = f["size_pkts"].isna()
    f["class"] = np.where(persistent, "persistent", np.where(f["large"] == 1.0, "large", "small"))
    return f


def cdf(values: Any) -> pd.DataFrame:
    """Empirical CDF of ``values`` (NaNs dropped): columns ``x`` (sorted) and ``F`` = i/n."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[np.isfinite(x)]
    return pd.DataFrame({"x": x, "F": np.arange(1, len(x) + 1) / max(len(x), 1)})


def cdfs(
    result_or_flows: Any, column: str = "throughput_bps", finished_only: bool = True
) -> dict[str, pd.DataFrame]:
    """Empirical CDFs of ``column`` per class (only classes present).

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table.
    column : str
        ``throughput_bps`` (bits/s: bytes delivered * 8 / (end - arrival)),
        ``loss_rate`` (drops / packets sent), ``fct_s``, ...
    finished_only : bool
        As in :func:`classify`.

    Returns
    -------
    dict
        ``{"persistent" | "large" | "small": DataFrame(x, F)}``.
    """
    f = classify(result_or_flows, finished_only)
    if column not in f:
        raise ValueError(f"unknown column {column!r}: the flows table has {', '.join(f.columns)}")
    return {c: cdf(f.loc[f["class"] == c, column]) for c in CLASSES if (f["class"] == c).any()}


def summary(result_or_flows: Any, finished_only: bool = True) -> pd.DataFrame:
    """Per-class statistics of the flows table.

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table.
    finished_only : bool
        As in :func:`classify`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``class``: ``flows`` (count), ``throughput_p10_bps``,
        ``throughput_median_bps``, ``throughput_p90_bps`` (bits/s),
        ``loss_median`` (fraction), ``no_loss_fraction`` (paper 002 figures
        3, 5, 7 read at zero) and ``left_slow_start_fraction``.
    """
    f = classify(result_or_flows, finished_only)
    rows = []
    for c in CLASSES:
        g = f[f["class"] == c]
        if g.empty:
            continue
        t = g["throughput_bps"]
        rows.append(
            {
                "class": c,
                "flows": len(g),
                "throughput_p10_bps": t.quantile(0.1),
                "throughput_median_bps": t.median(),
                "throughput_p90_bps": t.quantile(0.9),
                "loss_median": g["loss_rate"].median(),
                "no_loss_fraction": float((g["drops"] == 0).mean()),
                "left_slow_start_fraction": float(g["left_slow_start"].mean()),
            }
        )
    return pd.DataFrame(rows).set_index("class")


def fct_summary(result_or_flows: Any, halfway_s: float | None = None) -> dict[str, float]:
    """Flow completion times of the finished transfers, per class.

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table.
    halfway_s : float, optional
        The middle of the statistics window, seconds (``output.halves``):
        the same metrics again for the transfers that finished up to it
        (``..._half1``) and after it (``..._half2``).

    Returns
    -------
    dict
        ``fct_mean_small_s``, ``fct_p99_small_s``, ``fct_mean_large_s`` and
        ``fct_p99_large_s`` (seconds; ``large``: more than
        ``output.large_flow`` bytes), and with ``halfway_s`` each with
        ``_half1`` and ``_half2``. A class with no finished transfer (in a
        half) has no keys (nothing to measure): ``bufsim.simulate`` adds
        these to the summary of packet runs with finite traffic (so sweeps
        keep them).
    """
    f = classify(result_or_flows, finished_only=True)
    parts = [("", f)]
    if halfway_s is not None:
        first = f["end_s"] <= halfway_s
        parts += [("_half1", f[first]), ("_half2", f[~first])]
    out: dict[str, float] = {}
    for suffix, g in parts:
        for c in ("small", "large"):
            fct = g.loc[g["class"] == c, "fct_s"].dropna()
            if len(fct):
                out[f"fct_mean_{c}_s{suffix}"] = float(fct.mean())
                out[f"fct_p99_{c}_s{suffix}"] = float(fct.quantile(0.99))
    return out
