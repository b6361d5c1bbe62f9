"""Paper 001's figures: utilization and loss against the buffer at 1 and
2.5 Gbps, drop-tail and RED, and the two-flow case (colours from
:data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from bufsim import fmt
from bufsim.plot import ENGINE_COLORS, PALETTE, figure, grid
from bufsim.reproduce.barman2005.design import P_L, RED_LOSS, RED_LOSS_25, SYNC, TWO_FLOW_RTTS_MS
from bufsim.reproduce.barman2005.runs import gbps25, ns2_runs, two_flows


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Paper 004's Figure 5 on paper 001's setup: utilization against the
    buffer (fraction of the 12,500-packet BDP, log axis) from the fixed
    point, the packet engine and the fluid engine at X = 0.3, 0.6 and 1.

    Returns
    -------
    dict
        ``{"utilization": ..., "red": ..., "utilization_25g": ...,
        "red_25g": ..., "two_flows": ...}`` (matplotlib Figures): ``red`` is
        paper 001's Figure 7 with the loss rates below it, ``utilization_25g``
        and ``red_25g`` its Figures 4 and 8 (2.5 Gbps), ``two_flows`` its
        Figures 5 and 6.
    """

    fig, (ax,) = figure()
    x = table["fraction"]
    ax.plot(
        x, table["model"], "s--", color=PALETTE["green"], label="M/M/1/K fixed point (paper 001)"
    )
    ax.plot(x, table["packet"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet engine")
    for sync, style in zip(SYNC, (":", "-.", "--")):
        ax.plot(
            x,
            table[f"fluid_x{sync:g}"],
            style,
            marker="^",
            color=ENGINE_COLORS["fluid"],
            alpha=0.5 + 0.5 * sync,
            label=f"fluid, X = {sync:g} (paper 004)",
        )
    n = ns2_runs(table)
    _ns2_points(ax, n, "droptail", "ns-2.35 (the paper's simulator)")
    ax.axhline(0.9, color="grey", lw=0.8)
    ax.axhline(0.98, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xticks(list(x), labels=[f"{f:.0%}" for f in x])
    ax.minorticks_off()
    ax.set_xlabel("buffer (fraction of the 12,500-packet BDP)")
    ax.set_ylabel("utilization")
    ax.set_title(
        "10 HighSpeed TCP flows, 1 Gbps: paper 001's claims at 0.9 (10%) and 0.98 (20%)", fontsize=9
    )
    ax.legend(fontsize=8, loc="lower right")
    return {
        "utilization": fig,
        "red": _red_figure(table, n),
        "utilization_25g": _figure_25g(gbps25(table), n),
        "red_25g": _red_figure_25g(gbps25(table), n),
        "two_flows": _two_flow_figure(two_flows(table)),
    }


def _ns2_points(ax, n: pd.DataFrame, case: str, label: str) -> None:
    """ns-2.35's utilization of ``case`` (:func:`ns2_runs`) as black
    crosses on ``ax``; nothing where ns-2 did not run it."""
    hit = n[n["case"] == case] if len(n) else n
    if len(hit):
        ax.plot(hit["fraction"], hit["utilization"], "x", color="black", ms=8, mew=1.5, label=label)


#: The RED figures' curves: (utilization column, loss column, style,
#: colour, label); the drop-tail run is drawn faint, for reference.
RED_CURVES = (
    ("red_model", "red_model_loss", "s--", PALETTE["green"], "RED fixed point (paper 001)"),
    (
        "red_ared_packet",
        "red_ared_packet_drop_rate",
        "D-",
        PALETTE["purple"],
        "packet, Adaptive RED",
    ),
    ("red_packet", "red_packet_drop_rate", "o-", ENGINE_COLORS["packet"], "packet, simple RED"),
    ("red_fluid", "red_fluid_drop_rate", "^-", ENGINE_COLORS["fluid"], "fluid, simple RED"),
    ("packet", "packet_drop_rate", "o:", ENGINE_COLORS["packet"], "packet, drop-tail"),
)


def _red_panels(ax, lx, t: pd.DataFrame, title: str, drop_tail_loss: bool = True) -> None:
    """Utilization (``ax``) and loss rate (``lx``) of :data:`RED_CURVES`
    against the buffer fraction, legends beside the panels (inside, the
    curves rising from the smallest buffer run under them)."""
    x = t["fraction"]
    for u, loss, style, color, label in RED_CURVES:
        faint = {"alpha": 0.5} if u == "packet" else {}
        ax.plot(x, t[u], style, color=color, label=label, **faint)
        if u != "packet" or drop_tail_loss:
            lx.plot(x, t[loss], style, color=color, label=label, **faint)
    ax.set_ylabel("utilization")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def _red_figure(table: pd.DataFrame, n: pd.DataFrame):
    """Paper 001's Figure 7: utilization under RED from the RED fixed point
    (min_th = 0.4 K, max_th = K), the packet engine under the paper's
    Adaptive RED (from 10% on) and under the fixed point's simple RED, and
    the fluid engine, with the drop-tail packet curve for reference; below,
    the loss rates."""

    fig, (ax, lx) = figure(height=6.0, nrows=2, sharex=True)
    x = table["fraction"]
    _red_panels(ax, lx, table, "10 HighSpeed TCP flows, 1 Gbps, RED (paper 001 figure 7)")
    _ns2_points(ax, n, "red", "ns-2.35, Adaptive RED")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    lx.axhline(RED_LOSS, color="grey", lw=0.8, ls=":", label=f"paper, RED: {fmt.number(RED_LOSS)}")
    lx.axhline(P_L, color="grey", lw=0.8, label=f"paper, drop-tail: p_l = {fmt.number(P_L)}")
    lx.set_yscale("log")
    lx.set_ylabel("loss rate")
    lx.set_xscale("log")
    lx.set_xticks(list(x), labels=[f"{f:.0%}" for f in x])
    lx.minorticks_off()
    lx.set_xlabel("buffer (fraction of the 12,500-packet BDP)")
    # Beside the panel: inside, the loss curves falling from 2% run under it.
    lx.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


def _figure_25g(g: pd.DataFrame, n: pd.DataFrame):
    """Paper 001's Figure 4 (2.5 Gbps, drop-tail): utilization against the
    buffer; below, the packet engine's utilization over time per buffer."""

    fig, (ax, tx) = figure(height=6.0, nrows=2)
    x = g["fraction"]
    ax.plot(x, g["model"], "s--", color=PALETTE["green"], label="M/M/1/K fixed point (paper 001)")
    ax.plot(x, g["packet"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet engine")
    ax.plot(x, g["fluid"], "^-", color=ENGINE_COLORS["fluid"], label="fluid engine")
    _ns2_points(ax, n, "droptail25", "ns-2.35 (the paper's simulator)")
    ax.axhline(0.9, color="grey", lw=0.8, label="paper: 'similar trends' to fig. 3: 0.9 at 10%")
    ax.axhline(0.98, color="grey", lw=0.8, ls=":", label="... and 0.98 from 20%")
    ax.set_xscale("log")
    ax.set_xticks(list(x), labels=[f"{f:.0%}" for f in x])
    ax.minorticks_off()
    ax.set_xlabel("buffer (fraction of 6250 packets, the BDP of the 20 ms R1-R2 hop)")
    ax.set_ylabel("utilization")
    ax.set_title(
        "10 HighSpeed TCP flows, 2.5 Gbps, RTTs 38-142 ms (paper 001 figure 4)", fontsize=9
    )
    ax.legend(fontsize=7, loc="lower right")
    for frac, u in g.attrs.get("series", {}).items():
        tx.plot(u.index, u.to_numpy(), label=f"{frac:.0%}")
    tx.axvspan(0, g.attrs.get("warmup_s", 0.0), color="grey", alpha=0.15, label="warm-up")
    tx.set_xlabel("time (s)")
    tx.set_ylabel("packet utilization (5 s)")
    tx.set_ylim(0, 1.02)
    tx.legend(fontsize=7, loc="lower right", ncol=3)
    return fig


def _red_figure_25g(g: pd.DataFrame, n: pd.DataFrame):
    """Paper 001's Figure 8 (2.5 Gbps, RED): utilization and loss rates."""

    fig, (ax, lx) = figure(height=6.0, nrows=2, sharex=True)
    x = g["fraction"]
    _red_panels(
        ax,
        lx,
        g,
        "10 HighSpeed TCP flows, 2.5 Gbps, RED (paper 001 figure 8)",
        drop_tail_loss=False,
    )
    _ns2_points(ax, n, "red25", "ns-2.35, Adaptive RED")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    lx.axhline(
        RED_LOSS_25, color="grey", lw=0.8, ls=":", label=f"paper: around {fmt.number(RED_LOSS_25)}"
    )
    lx.set_yscale("log")
    lx.set_ylabel("loss rate")
    lx.set_xscale("log")
    lx.set_xticks(list(x), labels=[f"{f:.0%}" for f in x])
    lx.minorticks_off()
    lx.set_xlabel("buffer (fraction of 6250 packets)")
    lx.set_ylim(1e-8, 1e-2)
    lx.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


def _two_flow_figure(t: pd.DataFrame):
    """Paper 001's Figures 5 and 6: the two flows' windows (top) and the
    drop-tail queue (bottom), under- and over-buffered side by side."""
    series = t.attrs["series"]
    fig, axes = grid(10.0, 5.0, 2, len(series), sharex=True)
    for j, (case, row) in enumerate(t.set_index("case").iterrows()):
        ts = series[case]
        top, bottom = axes[0, j], axes[1, j]
        long_ms, short_ms = TWO_FLOW_RTTS_MS
        top.plot(ts.index, ts["cwnd_flow0"], lw=0.8, label=f"HSTCP1, RTT {long_ms} ms")
        top.plot(ts.index, ts["cwnd_flow1"], lw=0.8, label=f"HSTCP2, RTT {short_ms} ms")
        top.set_title(
            f"fig. {5 + j}: {case}, {row['buffer_pkts']:.0f} packets; goodput "
            f"{row['long_mbps']:.0f} / {row['short_mbps']:.0f} Mbit/s",
            fontsize=9,
        )
        top.set_ylabel("cwnd (packets)")
        for ax in (top, bottom):
            ax.axvspan(0, t.attrs.get("warmup_s", 0.0), color="grey", alpha=0.12)
        bottom.plot(ts.index, ts["queue_pkts"], lw=0.6, color="grey")
        bottom.axhline(row["buffer_pkts"], color="black", lw=0.6, ls=":")
        bottom.set_ylabel("queue (packets)")
        bottom.set_xlabel("time (s)")
    # One legend below the panels: inside, it covered the windows' sawtooth.
    fig.legend(
        *axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=7
    )
    return fig
