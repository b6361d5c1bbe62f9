"""ABM's runs and claims: the load and burst sweeps of CUBIC under each
buffer-management algorithm (figures 6 and 7), DCTCP's burst sweep under
DT and ABM (figure 9(b)), and each claim beside bufsim's number and the
authors' published output at the same points, with its verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim.reproduce import Claims, Explanation, prose, simulate_each
from bufsim.reproduce.addanki2022 import authors
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
    GAIN_TOL,
    HOSTS_PER_LEAF,
    LEAVES,
    LINKS,
    LOAD_AT_BURSTS,
    LOADS,
    MIN_RTO_S,
    MSS,
    NAMES,
    NO_NS2,
    NOT_RUN,
    ORDER_SOURCE,
    PAPER_SHORT_GAIN,
    PAPER_SIM_NEAR,
    PAPER_SIM_SIDE,
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


def _rto_share(part: pd.DataFrame, end_s: float) -> float:
    """The share of ``part``'s transfers that took at least the script's
    minimum RTO longer than their ideal time (an unfinished one by the time
    it had run at the run's end): those that waited an RTO, as the
    authors' output is read (:data:`authors.RTO_NS`)."""
    if not len(part):
        return math.nan
    done = part["finished"].to_numpy() == 1.0
    took = np.where(done, part["fct_s"].to_numpy(), end_s - part["start_s"].to_numpy())
    return float(np.mean(took - part["ideal_fct_s"].to_numpy() >= MIN_RTO_S))


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
        ``incast_unfinished`` (counts), ``short_rto`` (0..1: the short
        transfers that finished, or had run at the run's end, at least the
        minimum RTO past their ideal time, :func:`_rto_share`), ``occupancy_p99``,
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
        "short_rto": _rto_share(short, end),
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
    burst the index): ABM's reduction against DT, whether either run's
    number is a lower bound (``dt_censored``, ``abm_censored``: the
    ``_censored`` column of a p99; ``censored`` either), and the range the
    true reduction can lie in (``lo``, ``hi``): a censored DT p99 can only
    be larger, so its reduction up to 1; a censored ABM p99 can only be
    larger, so its reduction without a floor."""
    x = "load" if sweep == "load" else "burst"
    dt = _pick(table, sweep, "dt").set_index(x)
    abm = _pick(table, sweep, "abm").set_index(x)
    out = pd.DataFrame({"gain": 1.0 - abm[column] / dt[column]})
    cens = f"{column}_censored"
    for name, t in (("dt", dt), ("abm", abm)):
        flag = t[cens] > 0 if cens in t else pd.Series(False, index=t.index)
        out[f"{name}_censored"] = flag.reindex(out.index, fill_value=False).astype(bool)
    out["censored"] = out["dt_censored"] | out["abm_censored"]
    out["lo"] = np.where(out["abm_censored"], -math.inf, out["gain"])
    out["hi"] = np.where(out["dt_censored"], 1.0, out["gain"])
    return out.dropna(subset=["gain"])


def _best(g: pd.DataFrame) -> tuple[float, float, float]:
    """The largest of :func:`gains`' reductions and the range the largest
    true reduction can lie in (``lo``, ``hi``): another point whose DT p99
    is a lower bound may hold it (NaN for all when the sweep has none)."""
    if not len(g):
        return math.nan, math.nan, math.nan
    return float(g["gain"].max()), float(g["lo"].max()), float(g["hi"].max())


def _marks(g: pd.DataFrame) -> str:
    """Each point's reduction, marked ``*`` where DT's p99 is a lower bound
    (the reduction could be larger) and ``+`` where ABM's is (smaller)."""
    return "; ".join(
        f"{k}: {r.gain:.0%}{'*' if r.dt_censored else ''}{'+' if r.abm_censored else ''}"
        for k, r in g.iterrows()
    )


def authors_gains(table: pd.DataFrame, column: str, sweep: str, tcp: str) -> pd.Series:
    """``1 - ABM / DT`` of ``column`` in the authors' output at the points of
    ``table``'s sweep (:mod:`~bufsim.reproduce.addanki2022.authors`), the
    load or burst the index; a point they did not run is left out."""
    x = "load" if sweep == "load" else "burst"
    pts = _pick(table, sweep, "dt")
    out = {}
    for _, r in pts.iterrows():
        dt, abm = (
            authors.value(tcp, a, column, load=r["load"], burst=r["burst"]) for a in ("dt", "abm")
        )
        out[float(r[x])] = 1.0 - abm / dt
    return pd.Series(out, dtype=float).dropna()


def _same_way(run: str, paper_sim: float, value: float, mark: float) -> list[Explanation]:
    """The authors' output as the explanation of a difference: it misses
    ``mark`` on the side bufsim's ``value`` does, and lies no farther from
    ``value`` than ``value`` lies from ``mark`` (the rule ``judge`` applies
    to ns-2.35's number)."""
    side = Explanation.at_least if value > mark else Explanation.at_most
    return [
        Explanation.near(run, paper_sim, value, abs(value - mark), PAPER_SIM_NEAR),
        side("the same output", paper_sim, mark, PAPER_SIM_SIDE),
    ]


#: A censored percentile's interval: unbounded above, so a comparison that
#: reads one is ``undecided`` (bufsim.reproduce.judge).
UNBOUNDED = math.inf


def _open_gain(lo: float, hi: float, mark: float) -> float:
    """A best reduction's interval for :meth:`Claims.near`: unbounded
    (undecided) where the range the true best can lie in (:func:`_best`)
    holds both a pass, within :data:`GAIN_TOL` of ``mark``, and a miss."""
    passes = lo <= mark + GAIN_TOL and hi >= mark - GAIN_TOL
    misses = lo < mark - GAIN_TOL or hi > mark + GAIN_TOL
    return UNBOUNDED if passes and misses else math.nan


def _authors_cell(x: float) -> str:
    """The headline table's ns-2.35 cell: ns-2 has no shared buffer, so
    the paper's own simulator's number there is the authors' output."""
    return NO_NS2 if math.isnan(x) else prose("authors' ns-3: {x}", x=fmt.number(x))


#: The authors' output, as the claims name it.
AUTHORS_RUN = prose(
    "the authors' ns-3.35 output ({repo} at `{commit}`, dump_sigcomm, their parser's rules)",
    repo=authors.REPOSITORY,
    commit=authors.COMMIT[:7],
)


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
    no improvement), with the authors' output at the same point beside it.
    A censored p99 can only be larger: undecided where DT's is censored and
    the ratio misses, or ABM's is and it passes."""
    dt, abm = (value(table, sweep, a, column, **at) for a in ("dt", "abm"))
    flag = f"{column}_censored"
    cens = [
        value(table, sweep, a, flag, **at) == 1.0 if flag in table else False for a in ("dt", "abm")
    ]
    ratio = abm / dt
    ok = bool(ratio < 1.0)
    open_ = (cens[0] and not ok) or (cens[1] and ok)
    why = prose("ABM's {w} over DT's: {a} against {d}", w=what, a=fmt.number(abm), d=fmt.number(dt))
    if any(cens):
        why += " " + prose(
            "(a lower bound in {which}: transfers still unfinished at the run's end lie "
            "at or below it)",
            which=" and ".join(n for n, x in zip(("DT's run", "ABM's"), cens) if x),
        )
    tcp = "dctcp" if sweep == "dctcp" else "cubic"
    load = at.get("load", LOAD_AT_BURSTS)
    burst = at.get("burst", BURST_AT_LOADS)
    pd_, pa = (authors.value(tcp, a, column, load=load, burst=burst) for a in ("dt", "abm"))
    kw.setdefault("no_ns2", _authors_cell(pa / pd_))
    if not math.isnan(pd_ + pa):
        why += "; " + prose(
            "the authors' output at the same point: {a} against {d}",
            a=fmt.number(pa),
            d=fmt.number(pd_),
        )
    c.add(
        claim,
        paper,
        ratio,
        ok,
        why,
        mark=1.0,
        spread=UNBOUNDED if open_ else math.nan,
        **kw,
    )


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """The abstract's statements and the figures' orderings beside bufsim's
    numbers from the :func:`run` table, with a verdict (the columns of
    :meth:`bufsim.reproduce.Claims.table`), and the authors' published
    output (:mod:`~bufsim.reproduce.addanki2022.authors`) beside each: the
    paper's simulator's number. A comparison that a p99 slowdown which is
    only a lower bound (transfers still unfinished at the run's end at or
    below it) could turn is ``undecided``."""
    c = Claims(no_ns2=NO_NS2)
    quick = bool(table.attrs.get("quick", False))
    length = prose(
        "the packet engine, flows launched over {w:g} s, one seed per case",
        w=table.attrs.get("window_s", QUICK_WINDOW_S if quick else FULL_WINDOW_S),
    )
    # The headline "up to 94%": in the authors' output it is figure 6 (a),
    # the incast's responses (short flows) at the highest load; their web
    # short flows' best reduction (figures 6 (b), 7 (b)) is below it.
    g = gains(table, "incast_p99", "load")
    gain, lo, hi = _best(g)
    pg = authors_gains(table, "incast_p99", "load", "cubic")
    web = pd.concat(
        [
            authors_gains(table, "short_p99", "load", "cubic"),
            authors_gains(table, "short_p99", "burst", "cubic"),
        ]
    )
    paper_best = float(pg.max()) if len(pg) else math.nan
    c.near(
        "headline: up to 94% lower p99 slowdown of the incast's short flows than DT",
        prose(
            "ABM 'improves the {q:.0f}th percentile FCT for short flows by up to {p:.0%} "
            "compared to the state-of-the-art buffer management' (abstract); the authors' "
            "output places it in figure 6 (a), the incast's responses (CUBIC, requests of "
            "{b:.0%} of the buffer)",
            q=99.0,
            p=PAPER_SHORT_GAIN,
            b=BURST_AT_LOADS,
        ),
        gain,
        PAPER_SHORT_GAIN,
        GAIN_TOL,
        prose(
            "the best of ABM's reductions against DT over the loads, the incast responses' p99 "
            "slowdown ({star}: DT's p99 a lower bound, the reduction could be larger; {plus}: "
            "ABM's): {each}. The authors' output at the same loads: {paper}, best {pb:.0%}; "
            "their web short flows' best (figure 6 (b) and figure 7 (b)) {wb:.0%}",
            star="*",
            plus="+",
            each=_marks(g.rename(lambda k: f"load {k:g}")),
            paper="; ".join(f"load {k:g}: {v:.0%}" for k, v in pg.items()),
            pb=paper_best,
            wb=float(web.max()) if len(web) else math.nan,
        ),
        source=GAIN_SOURCE,
        spread=_open_gain(lo, hi, PAPER_SHORT_GAIN),
        explained_by=_same_way(
            prose("{r}, figure 6 (a), the best reduction at the same loads", r=AUTHORS_RUN),
            paper_best,
            gain,
            PAPER_SHORT_GAIN,
        ),
        about="incast_p99",
        no_ns2=_authors_cell(paper_best),
        headline=True,
        measured_by=prose("{m}, DT and ABM over the load sweep", m=length),
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
        "headline: ABM below DT for the incast under the largest burst",
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
        headline=True,
        measured_by=prose("{m}, DT and ABM at the largest burst", m=length),
    )
    gd = gains(table, "incast_p99", "dctcp")
    gain_d, lo_d, hi_d = _best(gd)
    cap = PAPER_TRANSPORT_GAIN
    pd9 = {
        t: authors_gains(table, "incast_p99", "dctcp", t) for t in ("dctcp", "timely", "powertcp")
    }
    paper_d = float(pd9["dctcp"].max()) if len(pd9["dctcp"]) else math.nan
    c.near(
        "headline: DCTCP's incast, up to 76% lower p99 slowdown than DT",
        prose(
            "ABM improves transports' FCT under bursty workloads 'by up to {p:.0%}' over "
            "DCTCP, TIMELY and PowerTCP (abstract; figure 9 (b), DCTCP's incast)",
            p=cap,
        ),
        gain_d,
        cap,
        GAIN_TOL,
        prose(
            "the best of ABM's reductions against DT of DCTCP's incast p99 slowdown over the "
            "bursts ({star}: DT's p99 a lower bound; {plus}: ABM's): {each}; ABM at or above DT "
            "at {worse} of {n} (TIMELY and PowerTCP not run: bufsim has no sender for them). "
            "The authors' output at the same requests: DCTCP {dc} (figure 9 (b)), best "
            "{pb:.0%}; TIMELY's best {ti:.0%}, PowerTCP's {pw:.0%} (figures 9 (c), (d))",
            star="*",
            plus="+",
            each=_marks(gd.rename(lambda k: f"burst {k:g}")),
            worse=int((gd["gain"] <= 0).sum()),
            n=len(gd),
            dc="; ".join(f"burst {k:g}: {v:.0%}" for k, v in pd9["dctcp"].items()),
            pb=paper_d,
            ti=float(pd9["timely"].max()) if len(pd9["timely"]) else math.nan,
            pw=float(pd9["powertcp"].max()) if len(pd9["powertcp"]) else math.nan,
        ),
        source=TRANSPORT_SOURCE,
        spread=_open_gain(lo_d, hi_d, cap),
        explained_by=_same_way(
            prose("{r}, figure 9 (b), DCTCP's best reduction at the same requests", r=AUTHORS_RUN),
            paper_d,
            gain_d,
            cap,
        ),
        about="incast_p99",
        no_ns2=_authors_cell(paper_d),
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
        "headline: ABM's uplink throughput against DT's at the highest load",
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
        headline=True,
        measured_by=prose("{m}, DT and ABM at the highest load", m=length),
    )
    return c.table()


def tables(table: pd.DataFrame) -> dict[str, tuple[str, pd.DataFrame]]:
    """Per algorithm, the runs' numbers at each load and burst; the authors'
    output per figure point; and what the paper runs that bufsim does not."""
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
        "short_rto",
        "occupancy_p99",
        "uplink_util",
        "drops",
    ]
    per = table.assign(algorithm=table["algorithm"].map(NAMES))[["algorithm", *cols]]
    missing = pd.DataFrame({"what": list(NOT_RUN), "why": list(NOT_RUN.values())})
    paper = authors.published().drop(columns=["file"])
    paper = paper.assign(algorithm=paper["algorithm"].map(lambda a: NAMES.get(a, a.upper())))
    return {
        "per_algorithm": ("The runs per algorithm", per.reset_index(drop=True)),
        "authors": (
            "The authors' published ns-3.35 output, per figure point (authors_p99.csv: "
            "their parser's rules; not proven to be the printed figures' data)",
            paper,
        ),
        "not_run": ("What the paper runs that bufsim does not", missing),
    }


#: Re-exported for the text module.
__all__ = ["run", "claims", "tables", "cases", "measure", "value", "gains", "scenario"]
