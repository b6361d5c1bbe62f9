"""Paper 000's figures: figures 3-7 and the goodput shares (colours from
:data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bufsim.plot import PALETTE, figure, grid
from bufsim.reproduce import simulate
from bufsim.reproduce.auge2006.runs import scenario, section_v

#: Utilization the paper's numbers imply for figure 3 (link, 0..1): the 25 Mbps
#: background plus 40% (20 packets) or 100% (625 packets) of the 25 Mbps residual.
_FIG3_PAPER = {20: (0.5 + 0.5 * 0.40, "paper: 40% of the residual"), 625: (1.0, "paper: 100%")}


def _clip_recovery(ax: Any, cwnd: pd.DataFrame) -> None:
    """Clip a cwnd panel at 1.2 times the 95th percentile of its samples
    (packets) and give the raw peak in the panel's title.

    Without SACK, fast recovery inflates cwnd by one packet per duplicate ACK
    (RFC 6582) while NewReno repairs one loss per RTT, so after a burst of
    drops cwnd stays several times the sawtooth for seconds (SACK's recovery,
    RFC 6675, has no inflation: with it the peaks stay below 600 packets);
    drawn in full they flatten the sawtooth and the flows' ascendancy.
    """
    values = cwnd.to_numpy().ravel()
    top, peak = 1.2 * float(pd.Series(values).quantile(0.95)), float(values.max())
    if peak > top:
        ax.set_ylim(0, top)
        ax.set_title(f"clipped; recovery inflation peaks at {peak:.0f}", fontsize=7)


def _series_panels(
    series: list[tuple[str, pd.DataFrame]], title: str, refs: dict[int, tuple[float, str]]
) -> Any:
    """The paper's figure layout: utilization (top) and cwnd (bottom) against
    time, one column per case; ``refs`` maps a column to a utilization mark.

    The legend sits below the panels, one for the figure: inside a panel it
    would cover the traces, which fill the whole window. The flows keep the
    same colour in every column (each panel restarts the colour cycle)."""
    fig, axes = grid(10.0, 4.6, 2, len(series), sharex=True)
    marks: dict[str, Any] = {}
    flows: dict[str, Any] = {}
    for k, (label, ts) in enumerate(series):
        t = ts.index.to_numpy(dtype=float)
        top, bottom = axes[0, k], axes[1, k]
        top.plot(t, ts["utilization"], lw=0.5, color=PALETTE["blue"])
        if k in refs:
            mark = f"{refs[k][1]} ({label})"
            marks[mark] = top.axhline(refs[k][0], color=PALETTE["red"], ls="--", lw=1, label=mark)
        top.set_ylim(0, 1.05)
        top.set_title(label, fontsize=9)
        cwnd = ts[[c for c in ts.columns if str(c).startswith("cwnd_flow")]]
        for c in cwnd.columns:
            (line,) = bottom.plot(t, cwnd[c], lw=0.7, label=str(c).removeprefix("cwnd_"))
            flows.setdefault(f"cwnd of {line.get_label()}", line)
        _clip_recovery(bottom, cwnd)
        bottom.set_xlabel("time (s)")
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    legend = marks | flows
    if len(legend) > 1:
        fig.legend(
            list(legend.values()),
            list(legend),
            loc="outside lower center",
            ncol=min(len(legend), 6),
            fontsize=7,
            handlelength=1.5,
            frameon=False,
        )
    axes[0, 0].set_ylabel("utilization (per 100 ms)")
    axes[1, 0].set_ylabel("cwnd (packets)")
    fig.suptitle(title, fontsize=10)
    return fig


def _fairness_figure(table: pd.DataFrame, v: pd.DataFrame) -> Any:
    """Per-flow goodputs of figures 5-7 beside the fair share, Jain index and
    synchronization annotated."""

    t = table.set_index(["flows", "buffer_pkts", "background"])
    cases = [
        ("2 NewReno\n20 pkt FIFO", t.loc[(2, 20, True)], None),
        ("4 NewReno\n20 pkt FIFO", t.loc[(4, 20, True)], None),
    ] + [
        (
            f"{r.tcp.replace('highspeed', 'HS').replace('newreno', 'NR')}\n"
            f"{r.buffer_pkts} pkt {'FQ' if r.qdisc == 'fq' else 'FIFO'}",
            r,
            r.tcp,
        )
        for case, r in v.iterrows()
        if case.startswith(("hs1nr1", "hs4"))
    ]
    fig, (ax,) = figure(8.0, 4.2)
    for x, (_, r, tcp) in enumerate(cases):
        g = list(r["goodput_mbps"])
        tcps = tcp.split("+") if tcp else ["newreno"] * len(g)
        for gi, ti in zip(g, tcps):
            ax.scatter(
                x,
                gi,
                s=30,
                marker="^" if ti == "highspeed" else "o",
                color=PALETTE["orange"] if ti == "highspeed" else PALETTE["blue"],
                zorder=3,
            )
        fair = 25.0 / len(g)
        ax.hlines(fair, x - 0.3, x + 0.3, color="0.4", ls="--", lw=1)
        ax.annotate(
            f"Jain {r['jain_index']:.2f}\nsync {r['sync_mean']:.2f}",
            (x, 25.5),
            ha="center",
            fontsize=7,
            va="bottom",
        )
    ax.scatter([], [], marker="o", color=PALETTE["blue"], label="NewReno flow")
    ax.scatter([], [], marker="^", color=PALETTE["orange"], label="HSTCP flow")
    ax.plot([], [], color="0.4", ls="--", label="fair share of the 25 Mbps residual")
    ax.set_xticks(range(len(cases)), labels=[c[0] for c in cases], fontsize=8)
    ax.set_ylim(0, 30)
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_title(
        "Per-flow goodput: figure 5 (NewReno) and figures 6/7 middle, right (FIFO vs FQ)",
        fontsize=9,
    )
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="center left")
    return fig


def arrivals_figure(window_s: float = 1.0, seed: int = 0) -> Any:
    """Figure 4: packet arrivals at the 20-packet buffer, 1 NewReno flow.

    A 40 s run of the figure 3 case with a packet trace; the window ends
    0.3 s after the first TCP drop past the 20 s warm-up. Each dot is an
    arriving packet at a random height, background packets in the lower
    half, the TCP flow's in the upper half; red squares are drops.

    Parameters
    ----------
    window_s : float
        Width of the time window drawn, seconds.
    seed : int
        Seed of the dots' random heights (the picture is deterministic).

    Returns
    -------
    matplotlib.figure.Figure
    """

    s = scenario(1, 20, True, "40s")
    s["output"] = {"trace": True}
    tr = simulate(s).trace
    t, ev, flow = tr["time_s"].to_numpy(), tr["event"].astype(str).to_numpy(), tr["flow"].to_numpy()
    first = t[(ev == "drop_overflow") & (flow >= 0) & (t > 20.0)][0]
    lo, hi = first + 0.3 - window_s, first + 0.3
    rng = np.random.default_rng(seed)
    fig, (ax,) = figure(8.0, 3.6)
    for name, rows, color, base in (
        ("background", (ev == "enqueue") & (flow < 0), "0.55", 0.0),
        ("TCP", (ev == "enqueue") & (flow >= 0), PALETTE["blue"], 1.0),
    ):
        x = t[rows & (t >= lo) & (t <= hi)]
        ax.scatter(x, base + rng.uniform(0.05, 0.95, len(x)), s=3, color=color, label=name)
    drops = (ev == "drop_overflow") & (t >= lo) & (t <= hi)
    x = t[drops]
    ax.scatter(
        x,
        np.where(flow[drops] >= 0, 1.0, 0.0) + rng.uniform(0.05, 0.95, len(x)),
        s=30,
        marker="s",
        facecolor="none",
        edgecolor=PALETTE["red"],
        label="dropped",
    )
    ax.set_ylim(0, 2.3)
    ax.set_yticks([0.5, 1.5], labels=["background", "TCP"])
    ax.set_xlabel("arrival time (s)")
    ax.set_title("Figure 4: packet arrivals, 1 NewReno flow, 20-packet buffer, FIFO", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", ncol=3)
    return fig


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Figures 3, 5, 6 and 7 as the paper draws them (utilization per 100 ms
    on top, cwnd below, one column per case), figure 4 (:func:`arrivals_figure`)
    and the per-flow goodputs.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`run` (its ``attrs`` carry the time series; section V
        runs through :func:`section_v`).

    Returns
    -------
    dict
        ``{"fig3_buffers", "fig4_arrivals", "fig5_flows", "fig6_hstcp_fifo", "fig7_fq",
        "goodput_shares": matplotlib Figure}``; figure 3's panels mark the
        utilization the paper's 40% and 100% imply.
    """
    s, v = table.attrs["series"], section_v(table)
    vs = v.attrs["series"]
    fig3 = [(f"1 NewReno, {b} packets", s[(1, b, True)]) for b in (20, 100, 625)]
    fig5 = [(f"{n} NewReno, 20 packets", s[(n, 20, True)]) for n in (1, 2, 4)]
    labels = {
        "hs1-b20-fifo": "1 HSTCP, 20 packets",
        "nr1-b20-fq": "1 NewReno, 20 packets",
        "hs1nr1-b625-fifo": "HSTCP (flow0) + NewReno (flow1), 625 packets",
        "hs1nr1-b625-fq": "HSTCP (flow0) + NewReno (flow1), 625 packets",
        "hs4-b625-fifo": "4 HSTCP, 625 packets",
        "hs4-b625-fq": "4 HSTCP, 625 packets",
    }
    fig6 = [(labels[c], vs[c]) for c in ("hs1-b20-fifo", "hs1nr1-b625-fifo", "hs4-b625-fifo")]
    fig7 = [(labels[c], vs[c]) for c in ("nr1-b20-fq", "hs1nr1-b625-fq", "hs4-b625-fq")]
    return {
        "fig3_buffers": _series_panels(
            fig3,
            "Figure 3: 1 NewReno flow, FIFO, buffers 20 / 100 / 625 packets",
            {0: _FIG3_PAPER[20], 2: _FIG3_PAPER[625]},
        ),
        "fig4_arrivals": arrivals_figure(),
        "fig5_flows": _series_panels(fig5, "Figure 5: 1, 2, 4 NewReno flows, FIFO, 20 packets", {}),
        "fig6_hstcp_fifo": _series_panels(fig6, "Figure 6: HighSpeed TCP, FIFO drop-tail", {}),
        "fig7_fq": _series_panels(
            fig7, "Figure 7: fair queueing (DRR, drop from the longest queue)", {}
        ),
        "goodput_shares": _fairness_figure(table, v),
    }
