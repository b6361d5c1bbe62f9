"""ABM's runs and claims: the load and burst sweeps of CUBIC under each
buffer-management algorithm (figures 6 and 7), DCTCP's burst sweep under
DT and ABM (figure 9(b)), and each claim beside bufsim's number with its
verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim.reproduce import Claims, prose, simulate_each
from bufsim.reproduce.addanki2022.design import (
    ALGORITHMS,
    BUFFER_BYTES,
    BURST_ALGORITHMS,
    BURST_AT_LOADS,
    BURSTS,
    DCTCP_ALGORITHMS,
    FULL_DRAIN_S,
    FULL_WINDOW_S,
    GAIN_SOURCE,
    HOSTS_PER_LEAF,
    LEAVES,
    LINKS,
    LOAD_AT_BURSTS,
    LOADS,
    MSS,
    NAMES,
    NO_NS2,
    NOT_RUN,
    ORDER_SOURCE,
    PAPER_SHORT_GAIN,
    PAPER_TRANSPORT_GAIN,
    QUICK_BURSTS,
    QUICK_DRAIN_S,
    QUICK_LOADS,
    QUICK_WINDOW_S,
    SHORT_BYTES,
    SPINES,
    THROUGHPUT_KEPT,
    THROUGHPUT_SOURCE,
    TRANSPORT_SOURCE,
    scenario,
)

#: The sampling interval of the switches' occupancy (the script samples
#: every 30 us; bufsim's time series at this interval).
OCCUPANCY_INTERVAL = "0.5ms"


def cases(quick: bool) -> list[tuple[str, str, str, float, float]]:
    """The runs: (sweep, tcp, algorithm, load, burst), the load sweep at a
    30% burst, the burst sweep at load 0.4 (ABM without its first-RTT
    priority too), and DCTCP's burst sweep."""
    loads = QUICK_LOADS if quick else LOADS
    bursts = QUICK_BURSTS if quick else BURSTS
    out = [("load", "cubic", a, x, BURST_AT_LOADS) for x in loads for a in ALGORITHMS]
    out += [("burst", "cubic", a, LOAD_AT_BURSTS, b) for b in bursts for a in BURST_ALGORITHMS]
    out += [("dctcp", "dctcp", a, LOAD_AT_BURSTS, b) for b in bursts for a in DCTCP_ALGORITHMS]
    return out


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """The sweeps: one run per (sweep, algorithm, load, burst).

    Parameters
    ----------
    quick : bool
        Flows launched over 0.1 s (runs of 0.15 s) at loads 0.4 and 0.8 and
        bursts of 12.5% and 75% of the buffer: 30 runs, about a minute on
        one core. The full version launches them over the paper's 3 s (runs
        of 3.5 s) at loads 0.2-0.8 and bursts of 12.5-75%: 69 runs, 32-33 CPU s
        each at load 0.4 (measured), about 40 minutes on one core.
    progress : callable, optional
        Called with a line of text before the runs start.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``sweep`` (``load``, ``burst`` or ``dctcp``),
        ``tcp``, ``algorithm``, ``load``, ``burst``, and the run's numbers
        (:func:`measure`); ``attrs["window_s"]`` and ``attrs["drain_s"]``.
    """
    todo = cases(quick)
    window, drain = (QUICK_WINDOW_S, QUICK_DRAIN_S) if quick else (FULL_WINDOW_S, FULL_DRAIN_S)
    if progress:
        progress(f"addanki2022: {len(todo)} fabric runs of {window + drain:g} s ...")
    raws = []
    for _, tcp, alg, load, burst in todo:
        raw = scenario(alg, load, burst, tcp=tcp, quick=quick)
        raw["output"] = {"interval": OCCUPANCY_INTERVAL}
        raws.append(raw)
    results = simulate_each(raws)
    rows = []
    for (sweep, tcp, alg, load, burst), res in zip(todo, results, strict=True):
        row = {"sweep": sweep, "tcp": tcp, "algorithm": alg, "load": load, "burst": burst}
        rows.append(row | measure(res, window))
    table = pd.DataFrame(rows)
    table.attrs.update(quick=quick, window_s=window, drain_s=drain)
    return table


def _p99(part: pd.DataFrame, end_s: float) -> tuple[float, float]:
    """The 99th percentile slowdown of ``part``'s transfers, an unfinished
    one at the slowdown it had reached at the run's end, as the script's
    parser reads its sorted list (``int(n 0.99) - 1``); and whether it is
    only a lower bound (1.0: an unfinished transfer lies at or below it, so
    its true slowdown could move the percentile up)."""
    if not len(part):
        return math.nan, 0.0
    done = part["finished"].to_numpy() == 1.0
    reached = (end_s - part["start_s"].to_numpy()) / part["ideal_fct_s"].to_numpy()
    slow = np.where(done, part["slowdown"].to_numpy(), reached)
    p99 = float(np.sort(slow)[max(int(len(slow) * 0.99) - 1, 0)])
    return p99, float(bool((slow[~done] <= p99).any()))


def measure(res: Any, window_s: float) -> dict[str, float]:
    """One run's numbers: the short web-search transfers' and the incast
    responses' p99 slowdown over those launched in the window, how many of
    them had not finished, the leaves' buffer occupancy (p99 of the time
    series, the largest, as fractions of the buffer), the leaf uplinks'
    utilization and the leaves' drops.

    Parameters
    ----------
    res : bufsim.Result
        A packet run of :func:`~bufsim.reproduce.addanki2022.design.scenario`.
    window_s : float
        The launch window, seconds.

    Returns
    -------
    dict
        ``short_p99``, ``incast_p99`` (ratios) and ``short_p99_censored``,
        ``incast_p99_censored`` (1.0 where the percentile is a lower bound,
        :func:`_p99`), ``short_n``, ``incast_n``,
        ``short_unfinished``, ``short_unsent`` (unfinished with no packet
        delivered: a first window lost whole, waiting on the initial RTO),
        ``incast_unfinished`` (counts), ``occupancy_p99``,
        ``occupancy_max`` (0..1 of a leaf's buffer), ``uplink_util``
        (0..1), ``drops`` (packets, both leaves).
    """
    f = res.flows
    end = float(res.scenario["duration_s"])
    launched = f[f["start_s"] < window_s]
    web = launched[launched["group"] == 0]
    short = web[web["size_pkts"] * MSS <= SHORT_BYTES]
    incast = launched[launched["group"] > 0]
    s = res.summary
    ts = res.timeseries
    occ = []
    for leaf in range(LEAVES):
        ports = [f"queue_pkts_leaf{leaf}.down{i}" for i in range(HOSTS_PER_LEAF)]
        ports += [f"queue_pkts_leaf{leaf}.up{j}" for j in range(SPINES * LINKS)]
        occ.append(ts[[p for p in ports if p in ts]].sum(axis=1).to_numpy() * MSS / BUFFER_BYTES)
    series = np.concatenate(occ)
    ups = [f"utilization_leaf{leaf}.up{j}" for leaf in range(LEAVES) for j in range(SPINES * LINKS)]
    unfinished = short["finished"].to_numpy() != 1.0
    short_p99, short_cens = _p99(short, end)
    incast_p99, incast_cens = _p99(incast, end)
    return {
        "short_p99": short_p99,
        "short_p99_censored": short_cens,
        "incast_p99": incast_p99,
        "incast_p99_censored": incast_cens,
        "short_n": float(len(short)),
        "incast_n": float(len(incast)),
        "short_unfinished": float(unfinished.sum()),
        "short_unsent": float((unfinished & (short["delivered_pkts"].to_numpy() == 0)).sum()),
        "incast_unfinished": float((incast["finished"].to_numpy() != 1.0).sum()),
        "occupancy_p99": float(np.quantile(series, 0.99)),
        "occupancy_max": max(s[f"max_occupancy_bytes_leaf{k}"] for k in range(LEAVES))
        / BUFFER_BYTES,
        "uplink_util": float(np.mean([s[u] for u in ups])),
        "drops": float(sum(s[f"drops_leaf{k}"] for k in range(LEAVES))),
    }


def _pick(table: pd.DataFrame, sweep: str, alg: str, **at: float) -> pd.DataFrame:
    """The rows of one sweep and algorithm (at a load or burst if given)."""
    t = table[(table["sweep"] == sweep) & (table["algorithm"] == alg)]
    for k, v in at.items():
        t = t[np.isclose(t[k], v)]
    return t


def value(table: pd.DataFrame, sweep: str, alg: str, column: str, **at: float) -> float:
    """One number of the run table (NaN where the run is missing)."""
    t = _pick(table, sweep, alg, **at)
    return float(t[column].iloc[0]) if len(t) else math.nan


def gains(table: pd.DataFrame, column: str, sweep: str) -> pd.DataFrame:
    """``1 - ABM / DT`` of ``column`` at each point of a sweep (its load or
    burst the index): ABM's reduction against DT, and whether either
    run's number is a lower bound (``censored``: the ``_censored`` column
    of a p99)."""
    x = "load" if sweep == "load" else "burst"
    dt = _pick(table, sweep, "dt").set_index(x)
    abm = _pick(table, sweep, "abm").set_index(x)
    out = pd.DataFrame({"gain": 1.0 - abm[column] / dt[column]})
    cens = f"{column}_censored"
    out["censored"] = (
        (dt[cens] + abm[cens] > 0) if cens in dt else pd.Series(False, index=out.index)
    )
    return out.dropna(subset=["gain"])


def _best(g: pd.DataFrame) -> tuple[float, bool]:
    """The largest of :func:`gains`' reductions and whether it reads a
    lower bound (NaN and False when the sweep has none)."""
    if not len(g):
        return math.nan, False
    best = g["gain"].idxmax()
    return float(g.loc[best, "gain"]), bool(g.loc[best, "censored"])


#: A censored percentile's interval: unbounded above, so a comparison that
#: reads one is ``undecided`` (bufsim.reproduce.judge).
UNBOUNDED = math.inf


def _ordering(
    c: Claims,
    table: pd.DataFrame,
    claim: str,
    paper: str,
    sweep: str,
    column: str,
    at: dict[str, float],
    what: str,
    **kw: Any,
) -> None:
    """An ordering: ABM's ``column`` over DT's strictly below 1 (a tie is
    no improvement), undecided where either is a censored percentile."""
    dt, abm = (value(table, sweep, a, column, **at) for a in ("dt", "abm"))
    flag = f"{column}_censored"
    cens = [value(table, sweep, a, flag, **at) if flag in table else 0.0 for a in ("dt", "abm")]
    censored = any(x == 1.0 for x in cens)
    ratio = abm / dt
    why = prose("ABM's {w} over DT's: {a} against {d}", w=what, a=fmt.number(abm), d=fmt.number(dt))
    if censored:
        why += " " + prose(
            "(a lower bound in {which}: transfers still unfinished at the run's end lie "
            "at or below it)",
            which=" and ".join(n for n, x in zip(("DT's run", "ABM's"), cens) if x == 1.0),
        )
    c.add(
        claim,
        paper,
        ratio,
        bool(ratio < 1.0),
        why,
        mark=1.0,
        spread=UNBOUNDED if censored else math.nan,
        **kw,
    )


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """The abstract's statements and the figures' orderings beside bufsim's
    numbers from the :func:`run` table, with a verdict (the columns of
    :meth:`bufsim.reproduce.Claims.table`). A comparison that reads a p99
    slowdown which is only a lower bound (transfers still unfinished at the
    run's end at or below it) is ``undecided``."""
    c = Claims(no_ns2=NO_NS2)
    quick = bool(table.attrs.get("quick", False))
    length = prose(
        "the packet engine, flows launched over {w:g} s, one seed per case",
        w=table.attrs.get("window_s", QUICK_WINDOW_S if quick else FULL_WINDOW_S),
    )
    # The headline: up to 94% lower p99 slowdown of short flows (CUBIC,
    # the load and the burst sweeps).
    g = pd.concat(
        [
            gains(table, "short_p99", "load").rename(lambda x: f"load {x:g}"),
            gains(table, "short_p99", "burst").rename(lambda x: f"burst {x:g}"),
        ]
    )
    gain, open_ = _best(g)
    c.at_least(
        "headline: up to 94% lower p99 slowdown of short flows than DT",
        prose(
            "ABM 'improves the {q:.0f}th percentile FCT for short flows by up to {p:.0%} "
            "compared to the state-of-the-art buffer management' (abstract; figure 6 (b) and "
            "figure 7 (b), CUBIC)",
            q=99.0,
            p=PAPER_SHORT_GAIN,
        ),
        gain,
        PAPER_SHORT_GAIN,
        prose(
            "the best of ABM's reductions against DT over the sweeps, short flows' p99 "
            "slowdown ({star}: a lower bound in DT's or ABM's run): {each}",
            star="*",
            each="; ".join(
                f"{k}: {r.gain:.0%}{'*' if r.censored else ''}" for k, r in g.iterrows()
            ),
        ),
        source=GAIN_SOURCE,
        spread=UNBOUNDED if open_ else math.nan,
        about="short_p99",
        headline=True,
        measured_by=prose("{m}, DT and ABM over the load and burst sweeps", m=length),
    )
    top = max(QUICK_BURSTS if quick else BURSTS)
    high = max(QUICK_LOADS if quick else LOADS)
    _ordering(
        c,
        table,
        "headline: ABM below DT for short flows under the largest burst",
        prose(
            "ABM's p99 slowdown of short flows below DT's under bursty load (abstract; figure "
            "7 (b), requests of {b:.1%} of the buffer, load {x:g})",
            b=top,
            x=LOAD_AT_BURSTS,
        ),
        "burst",
        "short_p99",
        {"burst": top},
        "p99 slowdown of short flows",
        source=ORDER_SOURCE,
        about="short_p99",
        headline=True,
        measured_by=prose("{m}, DT and ABM at the largest burst", m=length),
    )
    _ordering(
        c,
        table,
        "ABM below DT for short flows at the highest load",
        prose(
            "ABM's p99 slowdown of short flows below DT's (figure 6 (b), load {x:g}, requests "
            "of {b:.0%} of the buffer)",
            x=high,
            b=BURST_AT_LOADS,
        ),
        "load",
        "short_p99",
        {"load": high},
        "p99 slowdown of short flows",
        source=ORDER_SOURCE,
        about="short_p99",
    )
    _ordering(
        c,
        table,
        "ABM below DT for the incast under the largest burst",
        prose(
            "ABM's p99 slowdown of the incast's responses below DT's: its 'predictable burst "
            "tolerance' (abstract; figure 7 (a), requests of {b:.1%} of the buffer)",
            b=top,
        ),
        "burst",
        "incast_p99",
        {"burst": top},
        "p99 slowdown of the incast",
        source=ORDER_SOURCE,
        about="incast_p99",
    )
    # The abstract's 'bounded buffer drain time' is a bound it proves, not
    # a measured comparison with DT: the occupancies are shown, not judged.
    occ = [value(table, "burst", a, "occupancy_p99", burst=top) for a in ("dt", "abm")]
    c.check(
        "ABM holds less buffer than DT",
        prose(
            "ABM's p99 buffer occupancy against DT's (abstract: 'bounded buffer drain time', "
            "proved; figure 7 (c), requests of {b:.1%} of the buffer)",
            b=top,
        ),
        occ[1] / occ[0],
        prose(
            "ABM's p99 occupancy of a leaf's buffer (fraction) over DT's: {a} against {d}; the "
            "paper's bound is analytical, so this is bufsim's measurement beside it",
            a=fmt.number(occ[1]),
            d=fmt.number(occ[0]),
        ),
    )
    gd = gains(table, "incast_p99", "dctcp")
    gain_d, open_d = _best(gd)
    # "Up to 76%" is the best over DCTCP, TIMELY and PowerTCP: it bounds
    # DCTCP's own best reduction, which must also be one.
    c.add(
        "headline: DCTCP's incast, up to 76% lower p99 slowdown than DT",
        prose(
            "ABM improves transports' FCT under bursty workloads 'by up to {p:.0%}' over "
            "DCTCP, TIMELY and PowerTCP (abstract; figure 9 (b), DCTCP's incast)",
            p=PAPER_TRANSPORT_GAIN,
        ),
        gain_d,
        bool(0.0 < gain_d <= PAPER_TRANSPORT_GAIN),
        prose(
            "the best of ABM's reductions against DT of DCTCP's incast p99 slowdown over the "
            "bursts ({star}: a lower bound in DT's or ABM's run): {each}; ABM at or above DT "
            "at {worse} of {n} (TIMELY and PowerTCP not run: bufsim has no sender for them)",
            star="*",
            each="; ".join(
                f"burst {k:g}: {r.gain:.0%}{'*' if r.censored else ''}" for k, r in gd.iterrows()
            ),
            worse=int((gd["gain"] <= 0).sum()),
            n=len(gd),
        ),
        source=TRANSPORT_SOURCE,
        mark=PAPER_TRANSPORT_GAIN if gain_d > PAPER_TRANSPORT_GAIN else 0.0,
        spread=UNBOUNDED if open_d else math.nan,
        about="incast_p99",
        headline=True,
        measured_by=prose("{m}, DCTCP under DT and ABM over the burst sweep", m=length),
    )
    util = [value(table, "load", a, "uplink_util", load=high) for a in ("dt", "abm")]
    others = {
        a: value(table, "load", a, "uplink_util", load=high)
        for a in ALGORITHMS
        if a not in ("dt", "abm")
    }
    c.at_least(
        "ABM's uplink throughput against DT's at the highest load",
        prose("ABM 'without sacrificing throughput' (abstract; figure 6 (d), load {x:g})", x=high),
        util[1] / util[0],
        THROUGHPUT_KEPT,
        prose(
            "ABM's mean leaf-uplink utilization over DT's ({a:.3f} against {d:.3f}); the "
            "buffer moves it: {others}",
            a=util[1],
            d=util[0],
            others=", ".join(f"{k} {v:.3f}" for k, v in others.items()),
        ),
        source=THROUGHPUT_SOURCE,
        about="uplink_util",
    )
    return c.table()


def tables(table: pd.DataFrame) -> dict[str, tuple[str, pd.DataFrame]]:
    """Per algorithm, the runs' numbers at each load and burst; and what the
    paper runs that bufsim does not."""
    cols = [
        "sweep",
        "tcp",
        "load",
        "burst",
        "short_p99",
        "incast_p99",
        "short_unfinished",
        "short_unsent",
        "short_n",
        "occupancy_p99",
        "uplink_util",
        "drops",
    ]
    per = table.assign(algorithm=table["algorithm"].map(NAMES))[["algorithm", *cols]]
    missing = pd.DataFrame({"what": list(NOT_RUN), "why": list(NOT_RUN.values())})
    return {
        "per_algorithm": ("The runs per algorithm", per.reset_index(drop=True)),
        "not_run": ("What the paper runs that bufsim does not", missing),
    }


#: Re-exported for the text module.
__all__ = ["run", "claims", "tables", "cases", "measure", "value", "gains", "scenario"]
