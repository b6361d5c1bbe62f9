"""Paper 002's figures: figure 1's loss against the buffer and figures 2-7's
per-flow CDFs (colours from :data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bufsim.models.rules import persistent_loss_rate
from bufsim.plot import PALETTE, figure, flow_cdfs
from bufsim.reproduce.dhamdhere2006.design import (
    _FLOW_FIGS,
    _PAPER_MARKS,
    BDP_PKTS,
    BUFFERS,
    CURVE,
    FIGURE_SEED,
    N_LONG,
    PAPER,
    TRAFFIC,
)
from bufsim.reproduce.dhamdhere2006.runs import _variant, case_flows, pftk_loss

#: Colours of the traffic types.
COLORS = {"persistent": PALETTE["blue"], "closed": PALETTE["orange"], "open": PALETTE["green"]}


def _figure1(table: pd.DataFrame) -> Any:
    """Figure 1: loss rate against the buffer, bufsim's curves and the paper's points."""

    fig, (ax,) = figure(7.0, 4.6)
    base = table[table["variant"] == "rfc"]
    for (traffic, color), dx in zip(COLORS.items(), (0.92, 1.0, 1.08)):
        g = base[base["traffic"] == traffic].groupby("buffer_pkts")["loss_rate"]
        x = g.mean().index.to_numpy(dtype=float)
        ax.plot(x, g.mean(), "o-", ms=3.5, color=color, lw=1.6, label=f"bufsim {traffic}")
        if g.count().max() > 1:
            ax.fill_between(x, g.min(), g.max(), color=color, alpha=0.2, lw=0)
        for b in BUFFERS:
            text, lo, hi = PAPER[(traffic, b)]
            if lo == 0.0:  # "< 1%": an upper bound
                ax.plot([b * dx], [hi], marker="v", ms=9, color=color, mec="black")
            else:
                ax.errorbar(
                    [b * dx],
                    [(lo + hi) / 2],
                    yerr=[[(hi - lo) / 2]] * 2,
                    fmt="D",
                    ms=7,
                    color=color,
                    mec="black",
                    capsize=4,
                )
            da = _variant(table, traffic, "delayed_ack", b, "loss_rate")
            ax.plot([b * dx], [da], marker="s", ms=6, mfc="none", color=color)
    xs = np.geomspace(min(CURVE), max(CURVE), 100)
    ax.plot(
        xs,
        persistent_loss_rate(BDP_PKTS, N_LONG, xs),
        color="0.3",
        ls="--",
        lw=1,
        label="eq. (3), N = 200",
    )
    xb = np.asarray(CURVE, dtype=float)
    ax.plot(
        xb,
        [pftk_loss(b) for b in xb],
        color=COLORS["persistent"],
        ls="-.",
        lw=1,
        label="PFTK with timeouts (persistent)",
    )
    ax.plot(
        xb,
        [pftk_loss(b, b=2.0) for b in xb],
        color=COLORS["persistent"],
        ls=":",
        lw=1.2,
        label="PFTK, delayed ACKs (persistent)",
    )
    ax.plot([], [], "D", color="0.5", mec="black", label="paper 002 (text; ▼: upper bound)")
    ax.plot([], [], "s", mfc="none", color="0.5", label="bufsim, delayed ACKs")
    for b, name in ((18, "B_s = 18"), (BDP_PKTS, "BDP"), (500, "B_l = 500")):
        ax.axvline(b, color="0.6", lw=0.8, ls=":")
        ax.annotate(
            f" {name}",
            (b, 0.98),
            xycoords=("data", "axes fraction"),
            va="top",
            fontsize=8,
            color="0.3",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(2e-3, 0.6)
    ax.set_xlabel("buffer (packets)")
    ax.set_ylabel("loss rate at the target link")
    seeds = int(base["seed"].nunique())
    band = f"; band: range over {seeds} seeds" if seeds > 1 else ""
    ax.set_title(f"Paper 002 figure 1: loss rate vs buffer, 50 Mbps, N ≈ 200{band}", fontsize=9)
    ax.legend(fontsize=7.5, loc="lower left", ncol=2)
    return fig


def _flow_figure(flows: dict[int, pd.DataFrame], traffic: str, column: str) -> Any:
    """One of figures 2-7: two panels (large or persistent flows; small flows)."""

    fig, axes = figure(6.4, 6.0, nrows=2)
    top = "persistent" if traffic == "persistent" else "large"
    runs = {f"B={b}": flows[b] for b in BUFFERS}
    for ax, cls in zip(axes, (top, "small")):
        flow_cdfs(runs, column, classes=[cls], ax=ax, logx=column != "loss_rate")
        _mark_paper(ax, traffic, cls, column)
        ax.set_xlabel(
            "per-flow throughput (bytes/s)"
            if column != "loss_rate"
            else "per-flow loss rate (drops / packets sent)"
        )
        ax.set_title(f"{cls} flows", fontsize=9)
        # Where the curves are not: a CDF that rises late (the open loop's
        # large flows at B_l) runs through the lower right corner.
        ax.legend(fontsize=7.5, loc="best")
    n = _FLOW_FIGS[traffic][column == "loss_rate"]
    what = "throughput" if column != "loss_rate" else "loss rate"
    fig.suptitle(
        f"Paper 002 figure {n}: per-flow {what}, {traffic} traffic (seed {FIGURE_SEED})",
        fontsize=10,
    )
    return fig


#: The colour of the paper's marks (the captions name it).
PAPER_COLOR = PALETTE["red"]


def _mark_paper(ax: Any, traffic: str, cls: str, column: str) -> None:
    """The numbers the paper's text gives for a panel of figures 2-7, in red
    (:data:`_PAPER_MARKS`)."""
    mark = _PAPER_MARKS.get((traffic, cls, column == "loss_rate"))
    if mark:
        x, y, style, kw, label = mark
        ax.plot(x, y, style, color=PAPER_COLOR, label=label, **kw)


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Paper 002's figures 1-7 from bufsim's runs, with the paper's numbers marked.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`run`; figures 2-7 use the six base cases at its
        ``duration_s`` with :data:`FIGURE_SEED` alone (cached by
        :func:`case_flows`), where the claims pool every seed.

    Returns
    -------
    dict
        ``loss_vs_buffer`` (figure 1: loss rate against the buffer, log-log,
        bufsim's three curves, the paper's six values, eq. (3) and the
        delayed-ACK variant), and ``throughput_<traffic>`` and
        ``loss_<traffic>`` (figures 2-7: per-flow CDFs at B = 18 and 500,
        throughput in bytes/s) for each traffic type; matplotlib Figures.
    """
    d = float(table["duration_s"].iloc[0])
    out = {"loss_vs_buffer": _figure1(table)}
    for traffic in TRAFFIC:
        flows = {b: case_flows(traffic, b, d, FIGURE_SEED) for b in BUFFERS}
        out[f"throughput_{traffic}"] = _flow_figure(flows, traffic, "throughput_Bps")
        out[f"loss_{traffic}"] = _flow_figure(flows, traffic, "loss_rate")
    return out
