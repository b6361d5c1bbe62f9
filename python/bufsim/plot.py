"""Figures of bufsim results (matplotlib, object-oriented API, no pyplot state).

Every function returns a :class:`matplotlib.figure.Figure`, so a user can
restyle it, ``fig.savefig("x.svg")`` it, or show it in a notebook. Nothing
here touches matplotlib's global backend: figures are built on the Agg
canvas and work headless.

* :func:`buffer_curves` -- a metric against the buffer size (log axis) from a
  sweep table, one line per engine with a confidence band over seeds, rule
  buffers marked, and each model/fluid curve's error against the packet
  curve in its legend;
* :func:`timeseries` -- queue, utilization, congestion windows and drops of
  one :class:`~bufsim.result.Result`;
* :func:`flow_cdfs` -- per-flow throughput or loss CDFs by flow class
  (paper 002 figures 2-7);
* :func:`goodput_scatter` -- per-flow goodput against RTT.
* :func:`advice` and :func:`tradeoff` -- an advice's objectives, and its
  trade-off with the costs, against the buffer (:meth:`bufsim.advise.Advice.plot`
  draws the first).

Examples
--------
>>> table = bufsim.sweep("auge.toml", grid={"link.buffer": ["20pkt", "100pkt"]},
...                      engines=["packet", "fluid"], seeds=[1, 2])  # doctest: +SKIP
>>> fig = table.pipe(bufsim.plot.buffer_curves, "utilization")      # doctest: +SKIP
>>> fig.savefig("utilization.svg")                                   # doctest: +SKIP
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from bufsim import fmt
from bufsim._stats import t_half_width

if TYPE_CHECKING:
    from bufsim.result import Result

__all__ = [
    "buffer_curves",
    "curve_errors",
    "figure",
    "flow_cdfs",
    "grid",
    "goodput_scatter",
    "svg",
    "timeseries",
    "tradeoff",
]

#: The figures' palette by name: every colour a figure draws in comes
#: from here (the engines', the models', a paper's marks).
PALETTE = {
    "blue": "#1f4e79",
    "orange": "#c55a11",
    "crimson": "#a5002a",
    "green": "#548235",
    "purple": "#7030a0",
    "gold": "#bf9000",
    "sky": "#2e75b6",
    "brown": "#833c0b",
    "red": "#c00000",
}
#: Line colours per engine (packet first: the reference the others are judged by).
ENGINE_COLORS = {"packet": PALETTE["blue"], "fluid": PALETTE["orange"], "ns3": PALETTE["crimson"]}
_MODEL_COLORS = [PALETTE[c] for c in ("green", "purple", "gold", "sky", "brown")]


def grid(width: float, height: float, nrows: int, ncols: int, sharex: bool = False):
    """A new Figure on the Agg canvas (no pyplot state) with a grid of panels.

    Parameters
    ----------
    width, height : float
        Size, inches.
    nrows, ncols : int
        Panels down and across.
    sharex : bool
        Whether the panels share the x axis.

    Returns
    -------
    (matplotlib.figure.Figure, numpy.ndarray of Axes)
        The figure and its axes, indexed ``[row, column]``.
    """
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)


def figure(width: float = 6.4, height: float = 4.0, nrows: int = 1, sharex: bool = False):
    """A new Figure on the Agg canvas (no pyplot state), with ``nrows``
    panels stacked in one column.

    Parameters
    ----------
    width, height : float
        Size, inches.
    nrows : int
        Number of panels.
    sharex : bool
        Whether the panels share the x axis.

    Returns
    -------
    (matplotlib.figure.Figure, numpy.ndarray of Axes)
        The figure and its ``nrows`` axes, top first.
    """
    fig, axes = grid(width, height, nrows, 1, sharex)
    return fig, axes[:, 0]


def _color(engine: str, k: int) -> str:
    return ENGINE_COLORS.get(engine, _MODEL_COLORS[k % len(_MODEL_COLORS)])


#: Metrics that are fractions of one (their bands stay in [0, 1]).
def value_range(metric: str) -> tuple[float, float]:
    """The values ``metric`` can take (:func:`bufsim.fmt.bounds`): ``(0, 1)``
    for fractions (utilization, loss, Jain's index, synchronization,
    completion), ``(0, inf)`` for times, rates, sizes, counts and ratios
    (slowdowns), ``(-inf, inf)`` otherwise."""
    return fmt.bounds(metric)


def _seed_spread(v: np.ndarray, lo: float, hi: float) -> tuple[float, float, bool]:
    """The interval ``lo``..``hi`` over the seeds ``v`` cut to what they
    support: no wider than the seeds' own extremes, so that a Student t
    interval over 2 seeds (t = 12.7 at 95%) cannot draw a band of 20
    decades.
    Returns the ends and whether either was cut."""
    v = v[np.isfinite(v)]
    if len(v) < 2 or lo != lo or hi != hi:
        return lo, hi, False
    vmin, vmax = float(v.min()), float(v.max())
    return max(lo, vmin), min(hi, vmax), lo < vmin or hi > vmax


def _mean_ci(values: pd.Series, confidence: float, bounds=(-math.inf, math.inf)):
    """Mean and the two ends of a Student t confidence interval for it
    (NaN ends for one value) that stay within ``bounds``, the metric's range.

    Inside a bounded range the interval is built on a scale where the range
    is the whole line (logit for (0, 1), log for (0, inf)) and mapped back;
    where a value sits on the bound itself (a drop rate of 0) the interval
    is the plain one clipped to the range. Either way it contains the mean.
    """
    v = values.dropna().to_numpy(dtype=float)
    if len(v) == 0:
        return math.nan, math.nan, math.nan
    m = float(v.mean())
    if len(v) < 2:
        return m, math.nan, math.nan
    q = 0.5 + confidence / 2
    lo_b, hi_b = bounds
    inside = ((v > lo_b) & (v < hi_b)).all()
    if inside and lo_b == 0 and hi_b == 1:
        from scipy.special import expit, logit

        z = logit(v)
        c, h = float(z.mean()), t_half_width(z, q)
        lo, hi = float(expit(c - h)), float(expit(c + h))
    elif inside and lo_b == 0 and math.isinf(hi_b):
        z = np.log(v)
        c, h = float(z.mean()), t_half_width(z, q)
        with np.errstate(over="ignore"):
            lo, hi = float(np.exp(c - h)), float(np.exp(c + h))
    else:
        half = t_half_width(v, q)
        lo, hi = max(m - half, lo_b), min(m + half, hi_b)
    return m, min(lo, m), max(hi, m)


def swept_fields(table: pd.DataFrame) -> list[str]:
    """The swept fields of a sweep table, in order: the sweep's own list
    (``table.attrs["sweep"]["params"]``, top-level fields such as ``warmup``
    included) when the table carries it, else its parameter columns, the
    ones before ``engine`` (:func:`bufsim.sweep`'s layout)."""
    params = table.attrs.get("sweep", {}).get("params")
    if params is not None:
        return list(params)
    cols = list(table.columns)
    return cols[: cols.index("engine")] if "engine" in cols else []


def swept_axes(table: pd.DataFrame, x: str = "buffer_pkts") -> list[str]:
    """The swept fields (:func:`swept_fields`) with more than one value,
    other than the buffer: the curves split by them."""
    return [
        c
        for c in swept_fields(table)
        if c in table and c not in ("link.buffer", x) and table[c].nunique(dropna=False) > 1
    ]


#: The buffer columns :func:`buffer_curves` draws against, with their axis labels.
X_LABELS = {
    "buffer_pkts": "buffer (packets)",
    "buffer_bytes": "buffer (bytes)",
    "buffer_bdp": "buffer (BDP)",
}


def with_x(table: pd.DataFrame, x: str) -> pd.DataFrame:
    """The table with its buffer column ``x``: ``buffer_bdp``, the buffer in
    multiples of the bandwidth-delay product, is made when missing as
    ``buffer_pkts / bdp_pkts``, each row over its own scenario's BDP (a
    sweep over the RTT gives each point its own). It is the buffer as it
    runs, whole packets: ``"0.25BDP"`` of a 33.3-packet BDP runs as 8
    packets, x = 0.24."""
    if x == "buffer_bdp" and x not in table and {"buffer_pkts", "bdp_pkts"} <= set(table.columns):
        return table.assign(buffer_bdp=table["buffer_pkts"] / table["bdp_pkts"])
    return table


#: Swept fields that say which flows a group is (its count, its TCP and
#: that TCP's parameters): a legend names the groups (``4 x cubic + 1 x
#: bbr v1``, the table's ``flow_mix``) instead of the field's value.
_GROUP_FIELD = re.compile(r"flows(\[\d+\](\.(count|tcp|tcp_params(\..+)?))?)?")


def hue_name(table: pd.DataFrame, by: Sequence[str], hue: Sequence[Any]) -> str:
    """What tells one curve of ``buffer_curves`` from the others: the
    flow groups in words (``flow_mix``) when a swept field is a group's
    count, TCP or TCP parameters, then ``field = value`` for the others,
    each after a comma (``", 16 x bbr v1, delay = 10ms"``)."""
    pairs = list(zip(by, hue))
    mixes: list[str] = []
    if "flow_mix" in table and any(_GROUP_FIELD.fullmatch(c) for c, _ in pairs):
        rows = table
        for c, v in pairs:
            rows = rows[rows[c] == v]
        mixes = [m for m in dict.fromkeys(rows["flow_mix"]) if isinstance(m, str) and m]
    if mixes:
        pairs = [(c, v) for c, v in pairs if not _GROUP_FIELD.fullmatch(c)]
    parts = [" / ".join(mixes)] if mixes else []
    parts += [f"{c.rsplit('.', 1)[-1]} = {v}" for c, v in pairs]
    return "".join(f", {p}" for p in parts)


def _curves(
    table: pd.DataFrame,
    metric: str,
    x: str,
    confidence: float,
    by: Sequence[str] = (),
) -> pd.DataFrame:
    """Per (engine, the ``by`` columns, buffer): mean, CI ends within the
    metric's range (:func:`value_range`) and the number of seeds. Points
    are grouped by the buffer as swept (``link.buffer``), so a buffer given
    relative to the BDP is one point; the core resolves it to one packet
    count per scenario (the BDP takes the mean of the RTT law, not of each
    seed's draws). ``spread`` is whether the point's seeds differ (False
    for one seed, or seeds that give one value: a deterministic run)."""
    table = with_x(table, x)
    if metric not in table:
        raise ValueError(
            f"metric {metric!r} is not a column of the table; it has {', '.join(map(str, table.columns))}"
        )
    if x not in table:
        raise ValueError(
            f"x column {x!r} is not in the table: sweep tables carry buffer_pkts and buffer_bytes "
            "(and bdp_pkts, for buffer_bdp); "
            f"it has {', '.join(map(str, table.columns))}"
        )
    ok = table if "status" not in table else table[table["status"] == "ok"]
    point = "link.buffer" if "link.buffer" in ok else x
    keys = ["engine", *by, point]
    rows = []
    for key, g in ok.groupby(keys, sort=True, dropna=False):
        m, lo, hi = _mean_ci(g[metric], confidence, value_range(metric))
        v = g[metric].to_numpy(dtype=float)
        lo, hi, cut = _seed_spread(v, lo, hi)
        v = v[np.isfinite(v)]
        row = dict(zip(keys, key))
        row.update(
            x=float(g[x].mean()),
            mean=m,
            lo=lo,
            hi=hi,
            n=len(v),
            cut=cut,
            spread=bool(len(v) > 1 and v.max() > v.min()),
        )
        rows.append(row)
    cols = ["engine", *by, "x", "mean", "lo", "hi", "n", "cut", "spread"]
    return pd.DataFrame(rows, columns=cols).sort_values(["engine", *by, "x"], ignore_index=True)


def curve_errors(
    table: pd.DataFrame, metric: str, *, x: str = "buffer_pkts", reference: str = "packet"
) -> pd.DataFrame:
    """Each engine's error against the reference engine's curve.

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table (:func:`bufsim.sweep`).
    metric : str
        The column compared (``utilization``, ``drop_rate``, ...).
    x : str
        The buffer column (``buffer_pkts`` or ``buffer_bytes``).
    reference : str
        The engine the others are compared with (the packet engine).

    Returns
    -------
    pandas.DataFrame
        Indexed by engine, a row per value of every other swept axis
        (:func:`swept_axes`, its columns included): ``points`` (buffer
        values both curves have), ``rms`` and ``max_abs`` (root mean square
        and largest absolute difference of the seed means over those
        points, in the metric's unit).
    """
    by = swept_axes(table, x)
    c = _curves(table, metric, x, 0.95, by)
    rows = []
    for key, curves in c.groupby(by, sort=True, dropna=False) if by else [((), c)]:
        ref = curves[curves["engine"] == reference].set_index("x")["mean"]
        for engine, g in curves.groupby("engine", sort=False):
            if engine == reference:
                continue
            d = (g.set_index("x")["mean"] - ref).dropna()
            rows.append(
                {
                    "engine": engine,
                    **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                    "points": len(d),
                    "rms": float(np.sqrt((d**2).mean())) if len(d) else math.nan,
                    "max_abs": float(d.abs().max()) if len(d) else math.nan,
                }
            )
    cols = ["engine", *by, "points", "rms", "max_abs"]
    return pd.DataFrame(rows, columns=cols).set_index("engine")


def _y_axis(ax: Any, c: pd.DataFrame, metric: str, bound: float | None) -> None:
    """The y axis of :func:`buffer_curves` drawn from the curves ``c``: log
    for a positive metric whose means span more than two decades (limits
    from what is drawn), tick labels as the report prints the metric."""
    positive = c["mean"][c["mean"] > 0]
    if (
        value_range(metric)[1] == math.inf
        and len(positive)
        and positive.max() > 100 * positive.min()
    ):
        ax.set_yscale("log")
        # Limits from what is drawn (means and bands), not from the
        # autoscaler, which a stray band end could stretch over decades.
        drawn = pd.concat([c["mean"], c["lo"], c["hi"]]).to_numpy(dtype=float)
        drawn = drawn[np.isfinite(drawn) & (drawn > 0)]
        if bound is not None and bound > 0:
            drawn = np.append(drawn, bound)
        ax.set_ylim(drawn.min() / 1.5, drawn.max() * 1.5)
    if ax.get_yscale() == "linear":
        plain(ax)
    if fmt.unit_of(metric) in ("s", "bps", "B"):
        # Ticks read as the CLI and the report print the metric (152.6 us, 9.999 Gbps).
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.metric(metric, v, digits=3)))
        ax.yaxis.set_minor_formatter(NullFormatter())


def buffer_curves(
    table: pd.DataFrame,
    metric: str = "utilization",
    *,
    x: str = "buffer_pkts",
    rules: Mapping[str, float] | None = None,
    bound: float | None = None,
    confidence: float = 0.95,
    reference: str = "packet",
    logx: bool = True,
    title: str | None = None,
    ax: Any = None,
    by: Sequence[str] | None = None,
    legend: bool = True,
) -> Figure:
    """A metric against the buffer size, one curve per engine and per value
    of every other swept axis (never pooled into the seeds).

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep table (:func:`bufsim.sweep`): columns ``engine``, ``x`` and
        ``metric``, one row per point and seed (failed rows are skipped).
    metric : str
        Column on the y axis (``utilization``, ``drop_rate``,
        ``p99_queue_delay_s``, ...).
    x : str
        ``buffer_pkts`` (packets), ``buffer_bytes`` (bytes) or
        ``buffer_bdp`` (multiples of each point's bandwidth-delay product:
        ``buffer_pkts / bdp_pkts``, :func:`with_x`).
    rules : dict of {str: float}, optional
        Buffers to mark with a vertical line, in the unit of ``x`` (e.g.
        ``{"BDP": 625, "Stanford": 312}``).
    bound : float, optional
        An objective's bound, drawn as a horizontal line.
    confidence : float
        Level of the Student t interval over seeds drawn as a band (where a
        point's seeds differ; with one seed, or seeds that all give one
        value, no band, and the title says so).
    reference : str
        The engine whose curve the others' errors are measured against; the
        legend gives each other engine's RMS and largest absolute difference
        over the shared buffer points (:func:`curve_errors`).
    logx : bool
        Logarithmic buffer axis.
    title : str, optional
        Axes title.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (their figure is returned).
    by : sequence of str, optional
        Columns whose values get a curve each (the hue); default: every
        swept scenario field other than the buffer (:func:`swept_axes`);
        the legend names a swept flow group by its count and TCP
        (:func:`hue_name`).
        Bands are over the seeds of one curve's point only, stay in the
        metric's range (:func:`value_range`) and within the seeds' extremes
        (:func:`_seed_spread`; the title says where that cut a band); a time metric whose curves span more than two decades
        gets a log axis, its limits set from the data.
    legend : bool
        Draw the legend, to the right of the axes (never over the data);
        False when the caller draws one legend for several panels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    table = with_x(table, x)
    by = list(swept_axes(table, x) if by is None else by)
    c = _curves(table, metric, x, confidence, by)
    if c.empty:
        raise ValueError(f"no successful rows with {metric!r} to plot")
    if ax is None:
        fig, (ax,) = figure(8.4, 4.2)
    else:
        fig = ax.figure
    errors = (
        curve_errors(table, metric, x=x, reference=reference)
        if (c["engine"] == reference).any()
        else None
    )
    engines = list(dict.fromkeys([reference, *c["engine"]]))
    hues = list(c[by].drop_duplicates().itertuples(index=False, name=None)) if by else [()]
    names = {hue: hue_name(table, by, hue) for hue in hues}
    styles = ["-", "--", ":", "-."]
    for k, engine in enumerate(e for e in engines if (c["engine"] == e).any()):
        label = engine
        if (
            not by
            and errors is not None
            and engine in errors.index
            and errors.loc[engine, "points"] > 0
        ):
            rms, top = errors.loc[engine, "rms"], errors.loc[engine, "max_abs"]
            label += (
                f" (vs {reference}: RMS {fmt.metric(metric, rms, digits=3)}, "
                f"max {fmt.metric(metric, top, digits=3)})"
            )
        for h, hue in enumerate(hues):
            g = c[c["engine"] == engine]
            for col, v in zip(by, hue):
                g = g[g[col] == v]
            if g.empty or not np.isfinite(g["mean"].to_numpy(dtype=float)).any():
                # Nothing to draw (an engine that does not measure this
                # metric): no legend entry either.
                continue
            name = label + names[hue]
            color = _color(engine, k) if len(hues) == 1 else _MODEL_COLORS[h % len(_MODEL_COLORS)]
            ls = styles[k % len(styles)] if len(hues) > 1 else "-"
            ax.plot(g["x"], g["mean"], marker="o", ms=3.5, lw=1.6, ls=ls, color=color, label=name)
            band = g[g["spread"]].dropna(subset=["lo", "hi"])
            if not band.empty:
                ax.fill_between(band["x"], band["lo"], band["hi"], color=color, alpha=0.2, lw=0)
    for k, (name, value) in enumerate((rules or {}).items()):
        if value is None or not np.isfinite(value) or value <= 0:
            continue
        ax.axvline(value, color="0.35", ls=(0, (4, 2 + k)), lw=1)
        ax.annotate(
            f" {name} ",
            (value, 0.02),
            xycoords=("data", "axes fraction"),
            rotation=90,
            ha="right",
            va="bottom",
            fontsize=8,
            color="0.25",
        )
    if bound is not None:
        ax.axhline(
            bound, color="#c00000", lw=1, ls=":", label=f"objective {fmt.metric(metric, bound)}"
        )
    if logx:
        ax.set_xscale("log")
        # Buffer sizes read as plain numbers at 1, 2, 5 x 10^k, not 2x10^1;
        # over more than three decades at 10^k only (the labels would overlap).
        lo, hi = ax.get_xlim()
        subs = (1.0, 2.0, 5.0) if hi <= 1e3 * lo else (1.0,)
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(X_LABELS.get(x, x))
    ax.set_ylabel(metric)
    ax.grid(True, which="both", alpha=0.3)
    _y_axis(ax, c, metric, bound)
    # The seeds behind the bands, also under a given title: with adaptive
    # seeds (bufsim.advise) they differ from point to point.
    band = _band_note(c, confidence)
    head = title or f"{metric} vs buffer"
    # Wrapped: a title wider than the axes would run off the figure.
    ax.set_title(
        textwrap.fill(head, 80) + (f"\n{textwrap.fill(band, 80)}" if band else ""), fontsize=9
    )
    if legend:
        outside(ax)
    return fig


def plain(ax: Any, axis: str = "y") -> None:
    """Tick labels of a linear ``axis`` as :func:`bufsim.fmt.number` prints
    numbers: no ``1e5`` offset in the corner, no e-notation."""
    getattr(ax, f"{axis}axis").set_major_formatter(FuncFormatter(lambda v, _: fmt.number(v)))


def outside(ax: Any, **kwargs: Any) -> Any:
    """The legend of ``ax`` to the right of the axes, never over the data
    (the constrained layout makes room for it); long labels wrapped at 48
    characters. No legend when nothing drawn carries a label."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    labels = [textwrap.fill(lbl, 48) for lbl in labels]
    opts = {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0}
    return ax.legend(handles, labels, **{**opts, **kwargs})


#: The costs the trade-off figure draws beside the objectives: (summary key,
#: what it is called), as the advice's cost line names them.
TRADEOFF_COSTS = (
    ("drop_rate", "loss rate"),
    ("flow_timeout_rate", "timeouts per flow per s"),
    ("p99_queue_delay_s", "p99 queueing delay"),
)


def _flag_lines(advice: Any) -> dict[str, list[tuple[float, str]]]:
    """The thresholds of the advice's flags (``Advice.flags``) per metric
    key, each once: ``{key: [(threshold, name), ...]}``."""
    out: dict[str, list[tuple[float, str]]] = {}
    for f in advice.flags:
        line = (float(f.threshold), f.name)
        if line not in out.get(f.key, []):
            # One line per threshold, however many buffers it flags.
            out.setdefault(f.key, []).append(line)
    return out


def advice(a: Any) -> Figure:
    """An advice's objectives against the buffer, one panel per objective:
    the packet runs with confidence bands, the fluid engine beside them (at
    X = 0.3 and 1 too where paper 004's rule ran), the bound, every rule's
    buffer, the recommendation and the range where every objective holds
    marked, and the means that are only lower bounds (triangles); each
    panel's title says the seeds behind each point (:func:`buffer_curves`).
    What :meth:`bufsim.advise.Advice.plot` draws.

    Parameters
    ----------
    a : bufsim.advise.Advice
        From :func:`bufsim.advise`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = figure(8.4, 3.2 * len(a.objectives), nrows=len(a.objectives))
    rules = a.rule_buffers()
    trade = a.tradeoff()
    for ax, o in zip(axes, a.objectives):
        buffer_curves(
            a.runs,
            o.key,
            rules=rules,
            bound=o.bound,
            confidence=a.confidence,
            ax=ax,
            title=o.text,
        )
        # A mean over lower bounds is drawn like the others: mark it.
        low = trade[trade[f"{o.text} censored"]] if len(trade) else trade
        if len(low):
            ax.scatter(
                low["buffer_pkts"],
                low[o.text],
                marker="^",
                s=60,
                facecolors="none",
                edgecolors="#c00000",
                zorder=5,
                label="only a lower bound (unfinished transfers)",
            )
        if a.feasible:
            ax.axvspan(*a.range, color="#2e7d32", alpha=0.08, lw=0, label="every objective holds")
            ax.axvline(a.buffer_pkts, color="#2e7d32", lw=2, alpha=0.6, label="recommended")
        outside(ax)
    return fig


def tradeoff(advice: Any, *, width: float = 9.0) -> Figure:
    """The advice's trade-off in one figure: each objective's metric and
    each cost (loss, timeouts per flow per s, p99 queueing delay: the
    costs an operator weighs) against the buffer on a log axis, one panel
    each, sharing the buffer axis.

    Each panel draws the packet runs' mean over seeds with its band and the
    fluid scan where it measures the metric (:func:`buffer_curves`); an
    objective's panel shades the region where it holds; every panel marks
    the recommended buffer, the rules' buffers (named above the top panel) and
    a flag's threshold (``Advice.flags``, when the advice has them). One
    legend, below the panels, never over the data.

    Parameters
    ----------
    advice : bufsim.advise.Advice
        From :func:`bufsim.advise`.
    width : float
        Figure width, inches.

    Returns
    -------
    matplotlib.figure.Figure
    """
    # The packet runs carry flow_timeout_rate, the law the cost line and
    # the flags read (bufsim.advise.objectives.flow_timeout_rate).
    runs = advice.runs
    objectives = list(advice.objectives)
    keys = [(o.key, o.text, o) for o in objectives]
    seen = {o.key for o in objectives}
    keys += [(k, name, None) for k, name in TRADEOFF_COSTS if k not in seen]
    ok = runs[runs["status"] == "ok"] if "status" in runs else runs
    keys = [
        (k, name, o)
        for k, name, o in keys
        if k in ok and np.isfinite(ok[k].to_numpy(dtype=float)).any()
    ]
    if not keys:
        raise ValueError("the advice measured none of its objectives or costs: nothing to draw")
    fig, axes = grid(width, 2.3 * len(keys) + 0.9, len(keys), 1, sharex=True)
    axes = axes[:, 0]
    # A log axis draws no buffer of 0.
    rules = {k: b for k, b in advice.rule_buffers().items() if b > 0}
    flags = _flag_lines(advice)
    bands = ""
    for ax, (key, name, o) in zip(axes, keys):
        buffer_curves(
            runs,
            key,
            rules=rules,
            confidence=advice.confidence,
            ax=ax,
            title=name if o is not None else f"cost: {name}",
            legend=False,
            by=[],
        )
        for ln in ax.get_lines():
            # One legend for all panels: each engine once, without the
            # per-metric error against the packet curve.
            ln.set_label(ln.get_label().split(" (vs ")[0])
        # Rule names once, above the top panel, off the data (inside the
        # axes they crossed the curves); the lines on every panel.
        for t in list(ax.texts):
            t.remove()
        # The band's note is the same on every panel: said once, on top.
        head, _, band = ax.get_title().partition("\n")
        bands = bands or band.replace("\n", " ")
        ax.set_title(head, fontsize=9)
        ax.set_xlabel("")
        ax.set_ylabel(fmt.unit_of(key) or "", fontsize=8)
        if o is not None:
            lo, hi = ax.get_ylim()
            a, b = (o.bound, hi) if o.op == ">=" else (lo, o.bound)
            ax.axhspan(a, b, color="#2e7d32", alpha=0.1, lw=0, label="where an objective holds")
            ax.axhline(o.bound, color="#2e7d32", lw=1, ls=":")
            ax.set_ylim(lo, hi)
        for limit, _name in flags.get(key, []):
            ax.axhline(limit, color="#c00000", lw=1, ls="--", label="a flag's threshold")
        if advice.feasible and advice.buffer_pkts == advice.buffer_pkts:
            ax.axvline(
                advice.buffer_pkts,
                color="#2e7d32",
                lw=2.2,
                alpha=0.7,
                label=f"recommended: {fmt.packets(advice.buffer_pkts)}",
            )
    axes[-1].set_xlabel("buffer (packets)")
    if rules:
        top = axes[0].secondary_xaxis("top")
        named = sorted(rules.items(), key=lambda kv: kv[1])
        top.set_xticks([v for _, v in named], labels=[k for k, _ in named])
        top.tick_params(axis="x", labelsize=7, labelrotation=30, colors="0.25")
        for label in top.get_xticklabels():
            label.set_horizontalalignment("left")
        top.xaxis.set_minor_locator(NullLocator())
    if bands:
        fig.suptitle(textwrap.fill(bands, 110), fontsize=8)
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lbl in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lbl, h)
    if rules:
        from matplotlib.lines import Line2D

        handles["rule buffers (named above the top panel)"] = Line2D(
            [], [], color="0.35", ls=(0, (4, 2)), lw=1
        )
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="outside lower center",
        ncols=2,
        fontsize=8,
        frameon=False,
    )
    return fig


def _band_note(c: pd.DataFrame, confidence: float) -> str:
    """The title's line on the bands of :func:`_curves`' table ``c``: their
    level and seeds, where they were cut; without any band, why: one run
    per point, or seeds that give one value (a deterministic run), so that
    no band is not read as no spread measured."""
    seeds = _seeds_per_point(c)
    agree = (c["n"] > 1) & ~c["spread"]
    if not seeds:
        if agree.any():
            n = int(c.loc[agree, "n"].max())
            return f"deterministic: the {n} seeds give one value per point, no band"
        return "one run per point: no band"
    band = f"band: {confidence:.0%} t-interval over {seeds}"
    if c.loc[c["spread"], "cut"].any():
        few = ": interval wide" if c.loc[c["spread"], "n"].min() < 5 else ""
        band += f"{few}, cut at the seeds' extremes"
    if agree.any():
        band += "; no band where the seeds give one value"
    return band


def _seeds_per_point(c: pd.DataFrame, most: int = 6) -> str:
    """The seeds behind the points drawn with a band (seeds that differ) of
    :func:`_curves`' table ``c``: ``"3 seeds per point"``, or where they
    differ the usual count and the others by buffer, ``"2 seeds per point
    (6 at 45, 4 at 64)"`` (up to ``most`` of them, else the range, ``"2-6
    seeds per point"``); empty without bands."""
    n = c[c["spread"]].groupby("x")["n"].max()
    if n.empty:
        return ""
    usual = int(n.mode().min())
    other = n[n != usual]
    if len(other) > most:
        return f"{n.min()}-{n.max()} seeds per point"
    extra = ", ".join(f"{k} at {fmt.number(x)}" for x, k in other.items())
    return f"{usual} seeds per point" + (f" ({extra})" if extra else "")


def timeseries(result: Result, *, max_flows: int = 8) -> Figure:
    """Queue, utilization, congestion windows and drops of one run.

    Parameters
    ----------
    result : Result
        A packet or fluid result with a time series.
    max_flows : int
        Draw the windows of at most this many flows (``cwnd_flow<i>``
        columns; the scenario must set ``output.cwnd = true``).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per quantity present, sharing the time axis (seconds).
        With a pool or a chain the queue panel draws each port's or link's
        queue (``queue_pkts_port<k>``, ``queue_pkts_link<k>``) beside their
        sum; with a reverse link its queue (``queue_pkts_reverse``) beside
        the forward one.
    """
    ts = result.timeseries
    if ts.empty:
        raise ValueError("the result has no time series (models have none)")
    cwnd = [c for c in ts.columns if str(c).startswith("cwnd_flow")][:max_flows]
    queues = [c for c in ts.columns if re.fullmatch(rf"queue_pkts{fmt.PLACE}", str(c))]
    panels = [
        (c, lbl)
        for c, lbl in (("queue_pkts", "queue (packets)"), ("utilization", "utilization"))
        if c in ts
    ]
    if cwnd:
        panels.append(("cwnd", "cwnd (packets)"))
    if "drops" in ts:
        panels.append(("drops", "drops per sample"))
    fig, axes = figure(7.0, 1.8 * len(panels) + 0.6, nrows=len(panels), sharex=True)
    t = ts.index.to_numpy(dtype=float)
    for ax, (col, label) in zip(axes, panels):
        if col == "cwnd":
            for c in cwnd:
                ax.plot(t, ts[c], lw=0.9, label=str(c).removeprefix("cwnd_"))
            if len(cwnd) > 1:
                outside(ax, fontsize=7)
        elif col == "drops":
            ax.bar(t, ts[col], width=(t[1] - t[0]) if len(t) > 1 else 1.0, color="#c00000")
        elif col == "queue_pkts" and queues:
            # Beside a reverse link, the summed queue is the forward link's.
            alone = "forward" if queues == ["queue_pkts_reverse"] else "together"
            ax.plot(t, ts[col], lw=1.4, color="0.6", label=alone)
            for c in queues:
                ax.plot(t, ts[c], lw=0.8, label=str(c).removeprefix("queue_pkts_"))
            outside(ax, fontsize=7)
        else:
            ax.plot(t, ts[col], lw=0.9, color="#1f4e79")
        plain(ax)
        ax.set_ylabel(label, fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    name = result.scenario.get("name", "")
    axes[0].set_title(f"{name} ({result.engine})", fontsize=10)
    return fig


def flow_cdfs(
    results: Result | pd.DataFrame | Mapping[str, Result | pd.DataFrame],
    column: str = "throughput_bps",
    *,
    finished_only: bool = True,
    logx: bool | None = None,
    classes: Sequence[str] | None = None,
    ax: Any = None,
) -> Figure:
    """Per-flow CDFs by class (persistent, large, small), as paper 002's figures 2-7.

    Parameters
    ----------
    results : Result, DataFrame or dict of {label: Result or DataFrame}
        Packet-engine results (or their ``flows`` tables, which may carry
        extra columns such as a throughput in bytes/s) with finite or
        persistent flows; several are drawn on the same axes (e.g.
        ``{"B=18": r18, "B=500": r500}``), each with its own line style.
    column : str
        ``throughput_bps`` (bits/s), ``loss_rate`` (fraction), ``fct_s``, ...
    finished_only : bool
        Only transfers that completed (as :func:`bufsim.flows.cdfs`).
    logx : bool, optional
        Logarithmic x axis (default: for throughputs and completion times).
    classes : sequence of str, optional
        Draw only these classes (``persistent``, ``large``, ``small``), e.g.
        one panel for large flows and one for small ones as paper 002 does.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (their figure is returned).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from bufsim.flows import cdfs

    runs = results if isinstance(results, Mapping) else {"": results}
    if ax is None:
        fig, (ax,) = figure(8.4, 4.2)
    else:
        fig = ax.figure
    styles = ["-", "--", ":", "-."]
    colors = {"persistent": "#1f4e79", "large": "#c55a11", "small": "#548235"}
    for k, (label, r) in enumerate(runs.items()):
        for cls, d in cdfs(r, column, finished_only).items():
            if classes is not None and cls not in classes:
                continue
            name = f"{label} {cls}".strip()
            ax.step(
                d["x"],
                d["F"],
                where="post",
                ls=styles[k % len(styles)],
                color=colors[cls],
                label=f"{name} ({len(d)} flows)",
            )
    if logx if logx is not None else column != "loss_rate":
        ax.set_xscale("log")
    if fmt.unit_of(column) in ("s", "bps", "B"):
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.metric(column, v, digits=3)))
        ax.xaxis.set_minor_formatter(NullFormatter())
    elif ax.get_xscale() == "linear":
        plain(ax, "x")
    ax.set_xlabel(column)
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    outside(ax)
    return fig


def goodput_scatter(result: Result) -> Figure:
    """Per-flow goodput (bits/s) against round-trip propagation delay, by group.

    Parameters
    ----------
    result : Result
        A packet-engine result (its ``flows`` table has ``rtt_s`` and
        ``goodput_bps``).

    Returns
    -------
    matplotlib.figure.Figure
        With the fair share (capacity / flows; with two-way traffic the
        forward link's over its own flows) as a horizontal line.
    """
    f = result.flows
    missing = {"rtt_s", "goodput_bps", "group"} - set(f.columns)
    if missing:
        raise ValueError(
            f"the flows table has no {sorted(missing)} columns: it must come from the packet engine"
        )
    fig, (ax,) = figure(8.4, 4.2)
    for k, (g, rows) in enumerate(f.groupby("group")):
        ax.scatter(
            rows["rtt_s"] * 1e3,
            rows["goodput_bps"] / 1e6,
            s=14,
            color=_MODEL_COLORS[k % len(_MODEL_COLORS)],
            label=f"group {int(g)}",
            alpha=0.8,
        )
    cap = result.summary.get("capacity_bps") or result.scenario.get("link", {}).get("capacity_bps")
    # With two-way traffic the forward link's share is its own groups'.
    groups = result.scenario.get("flows") or []
    reverse = [g for g, grp in enumerate(groups) if grp.get("reverse")]
    forward = f[~f["group"].isin(reverse)]
    if cap and len(forward):
        label = "capacity / forward flows" if reverse else "capacity / flows"
        ax.axhline(cap / len(forward) / 1e6, color="0.4", ls="--", lw=1, label=label)
    ax.set_xlabel("RTT (ms)")
    plain(ax)
    ax.set_ylabel("goodput (Mbit/s)")
    ax.grid(True, alpha=0.3)
    outside(ax)
    return fig


def svg(fig: Figure) -> str:
    """The figure as an inline SVG string (for HTML reports)."""
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg") :]
