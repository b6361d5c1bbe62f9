"""ABM's figures: figure 6's and figure 7's four quantities against the
load and the request size per algorithm, and DCTCP's runs of figure 9 (b)
(the request size) and figure 11 (a) (the buffer size) (colours from
:data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.ticker import FuncFormatter, NullFormatter

from bufsim import fmt
from bufsim.plot import PALETTE, grid, plain
from bufsim.reproduce.addanki2022 import authors
from bufsim.reproduce.addanki2022.design import (
    ALGORITHMS,
    BUFFER_KIBS,
    BURST_ALGORITHMS,
    BURSTS,
    DCTCP_ALGORITHMS,
    NAMES,
    PLAIN_ABM,
)

#: A colour and marker per algorithm: the paper's DT and ABM strongest.
STYLE = {
    "dt": (PALETTE["blue"], "o", "-"),
    "abm": (PALETTE["red"], "s", "-"),
    "complete": (PALETTE["green"], "^", "--"),
    "fab": (PALETTE["orange"], "P", "--"),
    "lqd": (PALETTE["purple"], "v", "--"),
    "static": (PALETTE["gold"], "D", ":"),
    PLAIN_ABM: (PALETTE["red"], "s", ":"),
}

#: Per sweep, the authors' runs of the same figure: their transport and
#: the panel names (:mod:`~bufsim.reproduce.addanki2022.authors`).
AUTHORS_FIGURE = {
    "load": ("cubic", "6a"),
    "burst": ("cubic", "7a"),
    "dctcp": ("dctcp", "9b"),
    "buffer": ("dctcp", "11a"),
}

#: The authors' output: a thin line with crosses in the algorithm's colour.
AUTHORS_STYLE = {"marker": "x", "ls": "-", "lw": 0.8, "alpha": 0.7, "ms": 5}

#: The panels: (column, label, log scale).
PANELS = (
    ("short_p99", "short flows' p99 slowdown", True),
    ("incast_p99", "incast p99 slowdown", True),
    ("occupancy_p99", "a leaf's p99 buffer occupancy", False),
    ("uplink_util", "leaf uplinks' utilization", False),
)


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """The load sweep (figure 6), the burst sweep (figure 7), DCTCP's
    burst sweep (figure 9 (b)) and buffer sweep (figure 11 (a)), each
    quantity a panel, one curve per algorithm.

    Returns
    -------
    dict
        ``{"load": Figure, "burst": Figure, "dctcp": Figure, "buffer": Figure}``.
    """
    return {
        "load": _sweep(table, "load", "load", "load of the leaf uplinks", ALGORITHMS, PANELS),
        "burst": _sweep(
            table,
            "burst",
            "burst",
            "request (fraction of a switch's buffer)",
            BURST_ALGORITHMS,
            PANELS,
        ),
        "dctcp": _sweep(
            table,
            "dctcp",
            "burst",
            "request (fraction of a switch's buffer)",
            DCTCP_ALGORITHMS,
            PANELS[:2],
        ),
        "buffer": _sweep(
            table,
            "buffer",
            "buffer_kib",
            "each switch's buffer (KiB per port per Gbps)",
            DCTCP_ALGORITHMS,
            PANELS[:2],
        ),
    }


def _sweep(
    table: pd.DataFrame,
    sweep: str,
    x: str,
    xlabel: str,
    algorithms: tuple[str, ...],
    panels: tuple[tuple[str, str, bool], ...],
) -> Any:
    """One sweep's panels (two across), one curve per algorithm, the
    authors' output beside bufsim's where both ran the algorithm."""
    rows = (len(panels) + 1) // 2
    fig, axes = grid(7.6, 2.7 * rows + 0.5, rows, 2)
    t = table[table["sweep"] == sweep]
    tcp, panel = AUTHORS_FIGURE[sweep]
    paper = authors.published()
    paper = paper[(paper["tcp"] == tcp) & paper["figures"].str.contains(panel)]
    for ax, (col, label, log) in zip(axes.flat, panels):
        for alg in algorithms:
            r = t[t["algorithm"] == alg].sort_values(x)
            color, marker, ls = STYLE[alg]
            ax.plot(r[x], r[col], marker=marker, ls=ls, color=color, label=NAMES[alg])
            flag = f"{col}_censored"
            if flag in r:
                # A p99 that is only a lower bound: an open marker.
                low = r[r[flag] == 1.0]
                ax.plot(low[x], low[col], marker=marker, ls="none", color=color, mfc="white")
            p = paper[paper["algorithm"] == alg].sort_values(x)
            if col in p and len(p):
                ax.plot(p[x], p[col], color=color, **AUTHORS_STYLE)
        ys = pd.concat([t[col], paper[col]]).dropna() if col in paper else t[col].dropna()
        if log and len(ys) and ys.min() > 0 and ys.max() / ys.min() > 10:
            # Log scale where the values span a decade, labelled as plain
            # numbers (no e-notation).
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt.number(v)))
            ax.yaxis.set_minor_formatter(NullFormatter())
        else:
            plain(ax)
        if col in ("occupancy_p99", "uplink_util"):
            ax.set_ylim(0.0, 1.02)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        if x == "burst":
            # bufsim's requests and the full sweep's, where the authors'
            # points lie too.
            ticks = sorted(set(t[x].unique()) | set(BURSTS))
            ax.set_xticks(ticks, labels=[f"{b:.1%}" for b in ticks])
        if x == "buffer_kib":
            ticks = sorted(set(t[x].unique()) | set(BUFFER_KIBS))
            ax.set_xticks(ticks, labels=[f"{k:g}" for k in ticks])
    # Below the panels: inside, the legend covered the curves.
    handles, labels = axes.flat[0].get_legend_handles_labels()
    (proxy,) = axes.flat[0].plot(
        [], [], color="grey", label="authors' ns-3.35 output", **AUTHORS_STYLE
    )
    handles.append(proxy)
    labels.append(proxy.get_label())
    cols = len(labels) if len(labels) <= 5 else 4
    fig.legend(handles, labels, loc="outside lower center", ncol=cols, fontsize=8)
    return fig
