"""ABM's figures: figure 6's and figure 7's four quantities against the
load and the request size per algorithm, and figure 9 (b)'s DCTCP runs
(colours from :data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.ticker import FuncFormatter, NullFormatter

from bufsim import fmt
from bufsim.plot import PALETTE, grid, plain
from bufsim.reproduce.addanki2022.design import (
    ALGORITHMS,
    BURST_ALGORITHMS,
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

#: The panels: (column, label, log scale).
PANELS = (
    ("short_p99", "short flows' p99 slowdown", True),
    ("incast_p99", "incast p99 slowdown", True),
    ("occupancy_p99", "a leaf's p99 buffer occupancy", False),
    ("uplink_util", "leaf uplinks' utilization", False),
)


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """The load sweep (figure 6), the burst sweep (figure 7) and DCTCP's
    burst sweep (figure 9 (b)), each quantity a panel, one curve per
    algorithm.

    Returns
    -------
    dict
        ``{"load": Figure, "burst": Figure, "dctcp": Figure}``.
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
    }


def _sweep(
    table: pd.DataFrame,
    sweep: str,
    x: str,
    xlabel: str,
    algorithms: tuple[str, ...],
    panels: tuple[tuple[str, str, bool], ...],
) -> Any:
    """One sweep's panels (two across), one curve per algorithm."""
    rows = (len(panels) + 1) // 2
    fig, axes = grid(7.6, 2.7 * rows + 0.5, rows, 2)
    t = table[table["sweep"] == sweep]
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
        ys = t[col].dropna()
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
            ax.set_xticks(sorted(t[x].unique()), labels=[f"{b:.1%}" for b in sorted(t[x].unique())])
    # Below the panels: inside, the legend covered the curves.
    handles, labels = axes.flat[0].get_legend_handles_labels()
    cols = len(algorithms) if len(algorithms) <= 5 else 3
    fig.legend(handles, labels, loc="outside lower center", ncol=cols, fontsize=8)
    return fig
