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

import math
from typing import Any

import numpy as np
import pandas as pd

CLASSES = ("persistent", "large", "small")

#: The quantiles the completion-time summary reports (name -> level).
QUANTILES = {"p50": 0.5, "p99": 0.99}

#: Above this size (bytes) a large transfer is ``long``, at or below it
#: ``medium``: the FCT bins of pFabric's evaluation (Alizadeh et al.,
#: "pFabric", SIGCOMM 2013: (0, 100KB], (100KB, 10MB], (10MB, inf)).
LONG_FLOW_BYTES = 10_000_000


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


def kaplan_meier(values: Any, finished: Any) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan-Meier estimate of the survival function of completion
    times, some of them right-censored (Kaplan & Meier 1958).

    A transfer still running when the run ended is censored at the time it
    had run: it is known to take longer, and counts among those at risk up
    to then. At each completion time ``t`` with ``d`` completions among the
    ``n`` transfers at risk, the survival falls by the factor ``1 - d/n``
    (transfers censored at ``t`` are still at risk at ``t``). Without
    censoring it is one minus the empirical distribution function.

    Parameters
    ----------
    values : array_like
        Completion times of the finished transfers and censoring times of the
        others (seconds, >= 0).
    finished : array_like of bool
        Which transfers finished.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The distinct completion times ``t`` (ascending, seconds) and the
        survival ``S(t)`` just after each.
    """
    y = np.asarray(values, dtype=float)
    fin = np.asarray(finished, dtype=bool)
    times, inverse = np.unique(y, return_inverse=True)
    deaths = np.bincount(inverse, weights=fin, minlength=len(times))
    at_risk = len(y) - np.concatenate(
        ([0], np.cumsum(np.bincount(inverse, minlength=len(times)))[:-1])
    )
    event = deaths > 0
    survival = np.cumprod(1.0 - deaths[event] / at_risk[event])
    return times[event], survival


def censored_quantile(values: Any, finished: Any, q: float) -> tuple[float, bool]:
    """The ``q``-quantile of completion times, some of them right-censored.

    The smallest time by which the Kaplan-Meier estimate
    (:func:`kaplan_meier`) has ``q`` of the transfers completed; without
    censoring, the empirical quantile (``numpy.quantile(...,
    method="inverted_cdf")``). Where the censoring leaves fewer than ``q``
    completed by the last time observed, the quantile is not identified and
    that last time is returned: a lower bound.

    Parameters
    ----------
    values : array_like
        Completion times of the finished transfers and censoring times
        (elapsed time at the end of the run) of the others, seconds.
    finished : array_like of bool
        Which transfers finished.
    q : float
        The quantile, 0..1.

    Returns
    -------
    (float, bool)
        The quantile (seconds; NaN without transfers) and whether it is
        identified (False: only a lower bound).
    """
    y = np.asarray(values, dtype=float)
    if len(y) == 0:
        return math.nan, False
    times, survival = kaplan_meier(y, finished)
    # A relative tolerance so that q = k/n hits the k-th time exactly.
    reached = np.nonzero(1.0 - survival >= q * (1 - 1e-12))[0]
    if len(reached) == 0:
        return float(y.max()), False
    return float(times[reached[0]]), True


def censored_mean(values: Any, finished: Any) -> tuple[float, bool]:
    """The mean completion time under censoring: the area under the
    Kaplan-Meier survival curve (:func:`kaplan_meier`), the sample mean
    without censoring. Identified only when the estimate falls to zero (the
    longest time observed is a completion); otherwise the area up to the
    last time observed, a lower bound.

    Parameters
    ----------
    values, finished : array_like
        As in :func:`censored_quantile`.

    Returns
    -------
    (float, bool)
        The mean (seconds; NaN without transfers) and whether it is identified.
    """
    y = np.asarray(values, dtype=float)
    if len(y) == 0:
        return math.nan, False
    times, survival = kaplan_meier(y, finished)
    steps = np.concatenate(([0.0], times, [y.max()]))
    levels = np.concatenate(([1.0], survival))
    area = float(np.sum(levels * np.diff(steps)))
    return area, bool(len(survival) and survival[-1] <= 1e-12)


def add_ideal(flows: pd.DataFrame, capacity_bps: float, mss_bytes: Any) -> pd.DataFrame:
    """Add ``ideal_fct_s`` and ``slowdown`` to the finite transfers' rows.

    ``ideal_fct_s`` is the transfer alone on the link: its size serialized
    at the bottleneck rate plus its base round trip (seconds);
    ``slowdown`` is ``fct_s / ideal_fct_s`` (1 at best; NaN while
    unfinished and for persistent flows).

    Parameters
    ----------
    flows : pandas.DataFrame
        A packet result's flows table (``size_pkts``, ``rtt_s``, ``group``).
    capacity_bps : float or sequence of float
        The bottleneck's rate, bits/s, or each flow group's (the rate of
        the slowest link it crosses).
    mss_bytes : sequence of int
        Packet size of each flow group, bytes (``flows[].mss``).

    Returns
    -------
    pandas.DataFrame
        The same table (modified in place) with the two columns.
    """
    group = flows["group"].to_numpy()
    size_bytes = flows["size_pkts"] * np.asarray(mss_bytes, dtype=float)[group]
    caps = np.asarray(capacity_bps, dtype=float)
    rate = caps[group] if caps.ndim else caps
    flows["ideal_fct_s"] = size_bytes * 8 / rate + flows["rtt_s"]
    flows["slowdown"] = flows["fct_s"] / flows["ideal_fct_s"]
    return flows


def _slowdown_bounds(
    values: Any, finished: Any, stats: dict[str, tuple[float, bool]]
) -> dict[str, tuple[float, bool]]:
    """Slowdown statistics censored as the FCTs of the same transfers are.

    An unfinished transfer's FCT is censored at the run's end, a time
    common to the transfers started together; its slowdown divides that by
    its own ideal time, so the censoring values scatter over the slowdowns
    and Kaplan-Meier would call a statistic identified by extrapolating
    from the finished transfers alone. So a slowdown
    statistic is unidentified whenever its FCT statistic is (or its own
    estimate is), and then reads as the statistic with each unfinished
    transfer at the slowdown it had reached: a lower bound, every true
    slowdown being at least that.

    Parameters
    ----------
    values : array_like
        Slowdowns of the finished transfers and slowdowns reached by the
        others (ratios).
    finished : array_like of bool
        Which transfers finished.
    stats : dict
        ``mean``, ``p50``, ``p99``: the Kaplan-Meier estimate and whether
        it is identified, the FCT's identification already folded in.

    Returns
    -------
    dict
        The same keys: each statistic (a lower bound where unidentified)
        and whether it is identified.
    """
    y = np.asarray(values, dtype=float)
    out = {}
    for k, (v, known) in stats.items():
        if not known:
            naive = (
                np.mean(y) if k == "mean" else np.quantile(y, QUANTILES[k], method="inverted_cdf")
            )
            v = min(v, float(naive))
        out[k] = (v, known)
    return out


def fct_summary(
    result_or_flows: Any,
    window_s: tuple[float, float],
    halfway_s: float | None = None,
    mss_bytes: Any = None,
) -> dict[str, float]:
    """Completions and completion times of the transfers started in the
    measurement window, per size class and per flow group, the unfinished
    ones counted.

    Every transfer that starts inside the window counts. One still running
    at the end is right-censored: its completion time is at least the time
    it had run. Means, medians and 99th percentiles are over all of them; where the
    censoring leaves a statistic unidentified (:func:`censored_quantile`;
    a mean whenever a transfer is unfinished) its value is a lower bound
    and its ``_censored`` key is 1. A slowdown statistic is censored
    whenever the FCT statistic of the same transfers is (:func:`_slowdown_bounds`).

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table (with ``slowdown``
        from :func:`add_ideal` for the slowdown statistics, ``group`` for
        the per-group ones).
    window_s : (float, float)
        The measurement window, seconds: the warm-up's end and the run's end.
    halfway_s : float, optional
        The middle of the window (``output.halves``): the FCTs again for
        the transfers started before it (``..._half1``) and after it
        (``..._half2``), over every group.
    mss_bytes : sequence of int, optional
        Packet size of each flow group, bytes: with it, the large
        transfers split into ``medium`` and ``long`` as well.

    Returns
    -------
    dict
        Per class ``c`` with a transfer started in the window, over every
        group: ``small`` (at most ``output.large_flow`` bytes, 100 KB by
        default: ABM's short flows, under its fabric's 100 KB BDP, and
        pFabric's (0, 100KB]), ``large`` (the others), and with
        ``mss_bytes`` the large split at :data:`LONG_FLOW_BYTES` (10 MB)
        into ``medium`` and ``long`` (pFabric's bins). Keys:
        ``flows_started_c``, ``flows_completed_c``
        (counts), ``completion_c`` (their ratio, 0..1), ``fct_mean_c_s``,
        ``fct_p50_c_s`` and ``fct_p99_c_s`` (seconds), ``slowdown_mean_c``,
        ``slowdown_p50_c`` and ``slowdown_p99_c`` (ratios), each of the six with a
        ``_censored`` key (1.0: a lower bound, 0.0: identified). The same
        for each flow group ``k`` (its index in ``flows``, as in
        ``goodput_bps_group<k>``) with a transfer of class ``c`` started in
        the window, the group after the unit: ``flows_started_c_group<k>``,
        ``completion_c_group<k>``, ``fct_p99_c_s_group<k>`` and its
        ``fct_p99_c_s_group<k>_censored``, ``slowdown_p99_c_group<k>``, ...
        (an incast group and a web mix in one scenario, apart). With
        ``halfway_s`` the FCTs over every group again with ``_half1`` and
        ``_half2``. ``bufsim.simulate`` adds these to the summary of packet
        runs with finite traffic (so sweeps and ``advise`` read them).
    """
    start, end = window_s
    f = classify(result_or_flows, finished_only=False)
    f = f[(f["class"] != "persistent") & (f["start_s"] >= start) & (f["start_s"] < end)]
    fin = f["finished"].to_numpy() == 1.0
    elapsed = np.where(fin, f["fct_s"].to_numpy(), end - f["start_s"].to_numpy())
    slow = np.where(fin, f["slowdown"], elapsed / f["ideal_fct_s"]) if "slowdown" in f else None
    # (key suffix, rows, with counts, slowdowns and _censored keys): all
    # transfers; each half of the window by start time (FCTs only, as
    # output.halves reads them); each flow group on its own, so that an
    # incast does not hide in a web mix.
    parts = [("", np.ones(len(f), dtype=bool), True)]
    if halfway_s is not None:
        first = f["start_s"].to_numpy() < halfway_s
        parts += [("_half1", first, False), ("_half2", ~first, False)]
    if "group" in f:
        group = f["group"].to_numpy()
        parts += [(f"_group{int(g)}", group == g, True) for g in np.unique(group)]
    out: dict[str, float] = {}
    size_class = f["class"].to_numpy()
    bins = [(c, size_class == c) for c in ("small", "large")]
    if mss_bytes is not None:
        # pFabric's evaluation bins above 100 KB (Alizadeh et al., SIGCOMM
        # 2013: (100KB, 10MB] and (10MB, inf)), splitting `large`.
        mss = np.asarray(mss_bytes, dtype=float)[f["group"].to_numpy()]
        big = f["size_pkts"].to_numpy() * mss > LONG_FLOW_BYTES
        bins += [
            ("medium", (size_class == "large") & ~big),
            ("long", (size_class == "large") & big),
        ]
    for suffix, part, full in parts:
        for c, in_class in bins:
            sel = part & in_class
            n = int(sel.sum())
            if n == 0:
                continue
            stats = [("fct", "_s", elapsed[sel])]
            if full:
                done = int(fin[sel].sum())
                out |= {f"flows_started_{c}{suffix}": n, f"flows_completed_{c}{suffix}": done}
                out[f"completion_{c}{suffix}"] = done / n
                if slow is not None:
                    stats.append(("slowdown", "", slow[sel]))
            known: dict[str, bool] = {}
            for name, unit, v in stats:
                est = {"mean": censored_mean(v, fin[sel])}
                est |= {k: censored_quantile(v, fin[sel], q) for k, q in QUANTILES.items()}
                if name == "fct":
                    known = {k: ok for k, (_, ok) in est.items()}
                else:
                    est = _slowdown_bounds(
                        v, fin[sel], {k: (x, ok and known[k]) for k, (x, ok) in est.items()}
                    )
                for k, (x, ok) in est.items():
                    out[f"{name}_{k}_{c}{unit}{suffix}"] = x
                    if full:
                        out[f"{name}_{k}_{c}{unit}{suffix}_censored"] = float(not ok)
    return {k: float(v) for k, v in out.items()}


def query_summary(result_or_flows: Any, window_s: tuple[float, float]) -> dict[str, float]:
    """Completion times of the incast queries started in the measurement
    window (a flow group's ``incast``), the unfinished ones counted.

    A query's responses start together (its ``start_s``) and it completes
    with its last one: its query completion time (QCT) is the last
    response's ``end_s`` less its start. A query with a response still
    running at the end is right-censored at the time it had run, as
    :func:`fct_summary` censors a transfer.

    Parameters
    ----------
    result_or_flows : Result or pandas.DataFrame
        A packet-engine result or its ``flows`` table (with ``query``: the
        id of each response's query, NaN for other rows).
    window_s : (float, float)
        The measurement window, seconds.

    Returns
    -------
    dict
        ``queries_started``, ``queries_completed`` (counts),
        ``responses_per_query`` (mean count), ``qct_mean_s``,
        ``qct_p50_s`` and ``qct_p99_s`` (seconds), each of the three with a
        ``_censored`` key (1.0: a lower bound, 0.0: identified); the same
        for each incast group ``k`` with ``_group<k>`` after the name. Empty
        without queries in the window.
    """
    start, end = window_s
    f = _table(result_or_flows)
    if "query" not in f:
        return {}
    f = f[f["query"].notna() & (f["start_s"] >= start) & (f["start_s"] < end)]
    if f.empty:
        return {}
    q = f.groupby("query").agg(
        group=("group", "first"),
        start_s=("start_s", "min"),
        end_s=("end_s", "max"),
        finished=("finished", "min"),
        responses=("finished", "size"),
    )
    fin = q["finished"].to_numpy() == 1.0
    qct = np.where(fin, q["end_s"] - q["start_s"], end - q["start_s"])
    groups = q["group"].to_numpy()
    parts = [("", np.ones(len(q), dtype=bool))]
    parts += [(f"_group{int(g)}", groups == g) for g in np.unique(groups)]
    out: dict[str, float] = {}
    for suffix, sel in parts:
        out[f"queries_started{suffix}"] = int(sel.sum())
        out[f"queries_completed{suffix}"] = int(fin[sel].sum())
        out[f"responses_per_query{suffix}"] = float(q["responses"].to_numpy()[sel].mean())
        est = {"mean": censored_mean(qct[sel], fin[sel])}
        est |= {k: censored_quantile(qct[sel], fin[sel], p) for k, p in QUANTILES.items()}
        for k, (x, ok) in est.items():
            out[f"qct_{k}_s{suffix}"] = x
            out[f"qct_{k}_s{suffix}_censored"] = float(not ok)
    return {k: float(v) for k, v in out.items()}
