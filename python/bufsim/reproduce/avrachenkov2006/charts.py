"""Paper 003's figures: Figure 7's Pareto points, the B0 scan and Figure
8's B0 against N (colours from :data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

import bufsim.models as m
from bufsim import fmt
from bufsim.plot import ENGINE_COLORS, PALETTE, figure
from bufsim.reproduce.avrachenkov2006.design import (
    BDP_PKTS,
    JITTER,
    NS3_DURATION,
    PAPER,
    PAPER_RULES,
    TARGET,
)
from bufsim.reproduce.avrachenkov2006.runs import (
    _paper_errors,
    _setting,
    b0,
    relative_errors,
    summary,
)


def _figure7(table: pd.DataFrame):

    fig, axes = figure(height=7.0, nrows=len(PAPER))
    for ax, n in zip(axes, PAPER):
        mu, alpha = 25_000.0, n / 0.006**2  # packets/s, packets/s^2
        p = m.pareto_set(mu, alpha, 0.5, 201)
        ax.plot(
            p["mean_buffer"],
            p["mean_rate"] * 500 * 8 / 1e6,
            "-",
            color=PALETTE["green"],
            label=f"Theorem 1, synchronized (B = 0 .. B0 = {p['buffer'].iloc[-1]:.0f} pkts)",
        )
        for setting, style, label in (
            ("deterministic", "o-", "packet engine (deterministic flows)"),
            ("jitter", "s--", f"packet engine, {JITTER} send jitter"),
        ):
            g = _setting(table, setting)
            g = g[g["n"] == n].sort_values("buffer_pkts")
            low = g[g["packet"] < 0.6]
            if len(low):
                label += ", " + ", ".join(
                    f"{100 * u:.1f} Mbps at {b:.0f} pkt"
                    for b, u in zip(low["buffer_pkts"], low["packet"])
                )
            ax.plot(
                g["packet_mean_queue_pkts"],
                100 * g["packet"],
                style,
                lw=0.8,
                color=ENGINE_COLORS["packet"],
                mfc="none" if setting == "jitter" else ENGINE_COLORS["packet"],
                ms=5,
                label=label,
            )
            at = g[g["buffer_pkts"] == b0(g["buffer_pkts"], g["packet"])]
            if len(at):
                ax.annotate(
                    f"B0 = {at['buffer_pkts'].iloc[0]:.0f}",
                    (at["packet_mean_queue_pkts"].iloc[0], 100 * at["packet"].iloc[0]),
                    xytext=(-44, -14) if setting == "jitter" else (6, -14),
                    textcoords="offset points",
                    fontsize=7,
                    color=ENGINE_COLORS["packet"],
                )
        ax.plot(
            [0],
            [PAPER[n][0]],
            "*",
            color=PALETTE["red"],
            ms=12,
            label=f"paper, ns-2 at B = 0: {PAPER[n][0]} Mbps (B0 = {PAPER[n][1]} pkts)",
        )
        ax.axhline(100, color="grey", lw=0.8)
        ax.set_xlabel("mean queue (packets)")
        ax.set_ylabel("mean rate (Mbps)")
        ax.set_ylim(60, 102)
        ax.set_title(
            f"N = {n}: the Pareto set of rate against mean queue (paper's Fig. 7)", fontsize=9
        )
        ax.legend(fontsize=7, loc="lower right")
    return fig


def _figure_b0_scan(table: pd.DataFrame):

    fig, axes = figure(width=8.0, height=7.0, nrows=len(PAPER))
    floor = 1e-5
    for ax, n in zip(axes, PAPER):
        det = _setting(table, "deterministic")
        det = det[det["n"] == n].sort_values("buffer_pkts")
        jit = _setting(table, "jitter")
        jit = jit[jit["n"] == n].sort_values("buffer_pkts")
        x = det["buffer_pkts"]
        for col, style, color, label in (
            ("theorem1", "--", PALETTE["green"], "Theorem 1, synchronized"),
            ("fluid", "^-", ENGINE_COLORS["fluid"], "fluid engine, X = 1"),
        ):
            ax.plot(x, np.maximum(1 - det[col], floor), style, color=color, label=label, ms=4)
        ax.plot(
            x,
            np.maximum(1 - det["packet"], floor),
            "o-",
            color=ENGINE_COLORS["packet"],
            lw=2,
            label="packet engine (deterministic)",
        )
        ax.plot(
            jit["buffer_pkts"],
            np.maximum(1 - jit["packet"], floor),
            "s--",
            color=ENGINE_COLORS["packet"],
            mfc="none",
            label=f"packet engine, {JITTER} jitter",
        )
        ax.axhline(1 - TARGET, color="grey", lw=0.8)
        ax.axvline(
            PAPER[n][1],
            color=PALETTE["red"],
            ls=":",
            lw=1.5,
            label=f"paper, ns-2 B0 = {PAPER[n][1]}",
        )
        ax.axvline(
            PAPER_RULES[n][0],
            color=PALETTE["green"],
            ls=":",
            lw=1,
            label=f"paper, eq. (12) {PAPER_RULES[n][0]:g}",
        )
        ax.axvline(BDP_PKTS, color="grey", ls="-.", lw=1, label=f"BDP {BDP_PKTS:g}")
        ax.set_yscale("log")
        ax.set_ylim(floor * 0.8, 3.0)
        ax.set_xlim(0, max(x.max(), PAPER_RULES[n][0], BDP_PKTS) + 10)
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel(f"1 - utilization (0 drawn at {fmt.number(floor)})")
        ax.set_title(
            f"N = {n}: B0 is where the curve crosses {fmt.number(1 - TARGET)} "
            f"({fmt.percent(TARGET, 3)})",
            fontsize=9,
        )
        # Beside the panel: inside, it covered Theorem 1's and the packet curves.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


def _figure8(table: pd.DataFrame):

    s = summary(table).set_index("n")
    fig, (top, bottom) = figure(width=8.0, height=7.0, nrows=2)
    ns = np.array(s.index, dtype=float)
    # The paper's setup for several flows; one flow is drawn without its
    # access link (``fig8_B0``): behind it, its queue sits in the access
    # link's buffer, not at the bottleneck.
    many = s[s.index > 1]
    nn = np.geomspace(1, max(20, ns.max()), 50)
    top.plot(
        nn, BDP_PKTS**2 / (18 * nn), "-", color=PALETTE["green"], label="Theorem 1, synchronized"
    )
    top.plot(nn, np.full_like(nn, BDP_PKTS), "-", color="grey", label="BDP")
    top.plot(
        nn, BDP_PKTS / np.sqrt(nn), "-", color=PALETTE["purple"], label="Stanford, BDP/sqrt(N)"
    )
    top.plot(
        many.index,
        many["packet_B0"],
        "o-",
        color=ENGINE_COLORS["packet"],
        lw=2,
        label="packet engine, the paper's setup",
    )
    top.plot(
        many.index,
        many["jitter_B0"],
        "s--",
        color=ENGINE_COLORS["packet"],
        mfc="none",
        label=f"packet engine, {JITTER} jitter",
    )
    if 1 in s.index:
        top.plot(
            [1],
            [s.loc[1, "fig8_B0"]],
            "^",
            color=ENGINE_COLORS["packet"],
            ms=9,
            label="packet engine, one flow without its access link",
        )
    top.plot(
        list(PAPER),
        [v[1] for v in PAPER.values()],
        "*",
        color=PALETTE["red"],
        ms=12,
        label="paper's ns-2 (its section III)",
    )
    ns2 = _ns2_b0(s)
    if len(ns2):
        top.plot(
            list(ns2.index),
            ns2,
            "x",
            color="black",
            ms=9,
            mew=2,
            label="ns-2.35 here (one flow without its access link)",
        )
    for col, marker, label in (
        ("ns3_profile_B0", "D", "packet engine, ns3 profile"),
        ("ns3_B0", "P", f"ns-3 ({NS3_DURATION} runs)"),
        ("ns3_ack_every_B0", "X", f"ns-3, an ACK per segment ({NS3_DURATION} runs)"),
    ):
        got = s[col].dropna() if col in s else s.iloc[:0, 0]
        if len(got):
            top.plot(list(got.index), got, marker, color="#404040", mfc="none", ms=8, label=label)
    top.set_xscale("log")
    top.set_yscale("log")
    top.set_ylabel("B0 (packets)")
    top.set_title(
        "B0 against N (100 Mbps, 6 ms, 500 B): the three rules and the simulations", fontsize=9
    )
    # Beside the panels: inside, they covered the rules' lines.
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)

    colors = {"theorem1": PALETTE["green"], "bdp": "grey", "stanford": PALETTE["purple"]}
    names = {"theorem1": "Theorem 1, synchronized", "bdp": "BDP", "stanford": "Stanford"}
    floor = 0.01
    refs = (
        ("jitter_B0", "s-", "none", f"vs packet engine, {JITTER} jitter"),
        ("packet_B0", "o:", None, "vs packet engine, the paper's setup"),
    )
    for ref, style, mfc, _ in refs:
        err = relative_errors(many.reset_index(), ref)
        for rule, color in colors.items():
            bottom.plot(
                many.index, np.maximum(err[rule], floor), style, color=color, mfc=mfc or color
            )
    one = relative_errors(s.reset_index(), "fig8_B0")
    ns2_err = _ns2_errors(s)
    for rule, color in colors.items():
        if 1 in one.index:
            bottom.plot([1], [max(one.loc[1, rule], floor)], "^", color=color, ms=9)
        if len(ns2_err):
            bottom.plot(
                ns2_err.index, np.maximum(ns2_err[rule], floor), "x", color=color, ms=9, mew=2
            )
    paper = _paper_errors()
    for rule, color in colors.items():
        bottom.plot(paper.index, paper[rule], "*", color=color, mec=PALETTE["red"], ms=13)
    handles = [Line2D([], [], color=c, lw=3, label=names[r]) for r, c in colors.items()]
    handles += [
        Line2D([], [], color="black", ls=st[1:] or "-", marker=st[0], mfc=mfc or "black", label=lab)
        for _, st, mfc, lab in refs
    ]
    handles += [
        Line2D(
            [],
            [],
            ls="",
            marker="^",
            color="black",
            ms=8,
            label="vs one flow without its access link",
        ),
        Line2D([], [], ls="", marker="x", color="black", ms=8, mew=2, label="vs ns-2.35 here"),
        Line2D(
            [],
            [],
            ls="",
            marker="*",
            color="grey",
            mec=PALETTE["red"],
            ms=11,
            label="vs the paper's ns-2 (its numbers)",
        ),
    ]
    bottom.legend(
        handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0
    )
    bottom.set_ylim(floor / 2, 100)
    bottom.set_xscale("log")
    bottom.set_yscale("log")
    bottom.set_xticks(list(ns), labels=[f"{n:g}" for n in ns])
    top.set_xticks(list(ns), labels=[f"{n:g}" for n in ns])
    top.minorticks_off()
    bottom.minorticks_off()
    bottom.set_xlabel("number of flows N")
    bottom.set_ylabel(f"relative error of B0 (0 drawn at {fmt.number(floor)})")
    bottom.set_title("The paper's Fig. 8: |B0(rule) - B0(simulation)| / B0(simulation)", fontsize=9)
    return fig


def _ns2_b0(s: pd.DataFrame) -> pd.Series:
    """ns-2.35's B0 per N as Figure 8 draws it: one flow without its access
    link, several with the paper's setup (empty where ns-2 did not run)."""
    out = {}
    for n in s.index:
        col = "ns2_no_access_links_B0" if n == 1 else "ns2_B0"
        if col in s and np.isfinite(s.loc[n, col]):
            out[n] = float(s.loc[n, col])
    return pd.Series(out, dtype=float)


def _ns2_errors(s: pd.DataFrame) -> pd.DataFrame:
    """Each rule's relative error against ns-2.35's B0 (:func:`_ns2_b0`), per N."""
    b = _ns2_b0(s)
    if not len(b):
        return pd.DataFrame(columns=["theorem1", "bdp", "stanford"])
    frame = s.loc[list(b.index)].assign(ns2_fig8_B0=b.to_numpy())
    return relative_errors(frame.rename_axis("n").reset_index(), "ns2_fig8_B0")


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """The paper's Figure 7 (the Pareto set: mean rate against mean queue,
    Theorem 1 and the packet engine, for N = 5 and 20), the utilization
    shortfall against the buffer with the paper's B0 values (how B0 is
    read), and Figure 8 (B0 and each rule's relative error against N), with
    the paper's published values drawn on them (red stars and lines).

    Returns
    -------
    dict
        ``{"pareto": Figure, "b0_scan": Figure, "b0_error": Figure}``.
    """
    return {
        "pareto": _figure7(table),
        "b0_scan": _figure_b0_scan(table),
        "b0_error": _figure8(table),
    }
