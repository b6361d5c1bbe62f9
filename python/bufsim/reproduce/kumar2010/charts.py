"""Paper 004's figures: figure 6's panels, the modelling choices, the
fluid calibrated by packet (colours from :data:`bufsim.plot.PALETTE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bufsim.models.synchronized import aimd_sync_utilization
from bufsim.plot import ENGINE_COLORS, PALETTE, figure
from bufsim.reproduce.kumar2010.design import ALTERNATIVES, PANELS, SYNC, VARIANTS, WARMUPS
from bufsim.reproduce.kumar2010.runs import _u, calibrated

#: The paper's numbers drawn on each panel: variant -> (fractions, level, marker, label).
PAPER_MARKS = {
    "highspeed": ((0.05,), 0.9, "^", "paper: > 90% at 5% (every X)"),
    "aimd": ((0.05,), 0.9, "^", "paper: > 90% at 5% (every X)"),
    "cubic": ((0.01, 0.05, 0.1), 0.9, "v", "paper: < 90% for all X"),
}

#: The colour of the paper's marks on figure 6's panels (red, as the captions say).
PAPER_COLOR = PALETTE["red"]

_VARIANT_COLORS = (PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["purple"])

_SYNC_STYLE = {
    0.3: ("o", "-", PALETTE["orange"]),
    0.6: ("s", "--", PALETTE["purple"]),
    1.0: ("D", ":", PALETTE["blue"]),
}


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Figure 6, one panel per variant: utilization against the buffer
    (fraction of the 141,667-packet BDP, log axis), one curve per X with
    +-1 sd over seeds, the paper's reported levels as red marks; and the
    modelling choices: utilization at 5% of BDP per case; and the fluid
    calibrated by packet (:func:`run_calibrated`): utilization against the
    buffer per variant with the measured synchronizations below, and the
    packet and calibrated fluid runs' utilization over time at 5%.

    Returns
    -------
    dict
        ``{"fig6a_highspeed": Figure, "fig6b_cubic": ..., "fig6c_aimd": ...,
        "fig6d_htcp": ..., "choices": Figure, "calibrated": Figure,
        "calibrated_series": Figure}`` (matplotlib Figures).
    """
    figs = {f"fig6{letter}_{v}": _panel(table, v) for v, (letter, _) in PANELS.items()}
    figs["choices"] = _choices(table)
    figs["calibrated"] = _calibrated_figure(calibrated(table))
    figs["calibrated_series"] = _calibrated_series_figure(calibrated(table))
    return figs


def _panel(table: pd.DataFrame, variant: str) -> Any:

    letter, label = PANELS[variant]
    fig, (ax,) = figure(5.6, 3.6)
    t = table[(table["case"] == "default") & (table["variant"] == variant)]
    for x in SYNC:
        r = t[np.isclose(t["sync"], x)].sort_values("fraction")
        marker, ls, color = _SYNC_STYLE[x]
        ax.errorbar(
            r["fraction"],
            r["utilization"],
            yerr=r["utilization_sd"].fillna(0.0),
            marker=marker,
            ls=ls,
            color=color,
            capsize=2,
            label=f"bufsim, X = {x:g}",
        )
    ax.axhline(0.9, color="grey", lw=0.8)
    if variant in PAPER_MARKS:
        fr, level, marker, text = PAPER_MARKS[variant]
        ax.plot(
            fr,
            [level] * len(fr),
            marker,
            ls="none",
            ms=11,
            mfc="none",
            mew=1.5,
            color=PAPER_COLOR,
            label=text,
        )
    if variant == "aimd":
        xs = np.geomspace(t["fraction"].min(), t["fraction"].max(), 40)
        ax.plot(
            xs,
            [aimd_sync_utilization(f) for f in xs],
            color=PALETTE["green"],
            lw=1,
            label="synchronized sawtooth, closed form",
        )
    fracs = sorted(t["fraction"].unique())
    ax.set_xscale("log")
    ax.set_xticks(fracs, labels=[f"{f:.0%}" for f in fracs])
    ax.minorticks_off()
    ax.set_ylim(min(0.7, float(t["utilization"].min()) - 0.02), 1.01)
    ax.set_xlabel("buffer (fraction of the 141,667-packet BDP)")
    ax.set_ylabel("utilization")
    ax.set_title(f"Figure 6({letter}): {label}, 10 flows, 10 Gbps", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _choices(table: pd.DataFrame) -> Any:
    """Utilization at 5% of the BDP per modelling choice, one panel per
    variant; a panel lists only the choices its variant has (the rate form
    is AIMD's and HSTCP's, fast convergence CUBIC's), so no row is empty."""

    cases = ["default", *WARMUPS, *ALTERNATIVES]
    fig, axes = figure(6.4, 7.5, nrows=len(VARIANTS), sharex=True)
    for ax, variant in zip(axes, ("highspeed", "cubic", "aimd", "htcp")):
        u = {c: [_u(table, variant, x, 0.05, c) for x in SYNC] for c in cases}
        shown = [c for c in cases if np.isfinite(u[c]).any()]
        for k, x in enumerate(SYNC):
            marker, _, color = _SYNC_STYLE[x]
            ax.plot(
                [u[c][k] for c in shown],
                range(len(shown)),
                marker,
                ls="none",
                color=color,
                label=f"X = {x:g}",
            )
        ax.axvline(0.9, color="grey", lw=0.8)
        ax.set_yticks(range(len(shown)), labels=shown, fontsize=7)
        ax.set_ylim(len(shown) - 0.5, -0.5)
        ax.set_title(f"{PANELS[variant][1]} at 5% of BDP", fontsize=8)
    axes[1].legend(fontsize=7, loc="lower left")
    axes[-1].set_xlabel("utilization")
    return fig


def _calibrated_figure(cal: pd.DataFrame) -> Any:
    """Utilization against the buffer per variant: the packet engine, the
    fluid engine at the packet's sync (as X, and matched on the measured
    sync) and at the paper's X; below, the measured synchronizations."""

    order = [v for v in PANELS if v in set(cal["variant"])]
    fig, axes = figure(8.4, 2.1 * (len(order) + 1), nrows=len(order) + 1, sharex=True)
    for ax, variant in zip(axes, order):
        t = cal[cal["variant"] == variant].sort_values("fraction")
        x = t["fraction"]
        for sync in SYNC:
            marker, ls, color = _SYNC_STYLE[sync]
            ax.plot(
                x,
                t[f"fluid_x{sync:g}"],
                marker,
                ls=ls,
                color=color,
                alpha=0.35,
                ms=4,
                label=f"fluid, X = {sync:g}",
            )
        ax.plot(x, t["packet"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet engine")
        ax.plot(
            x,
            t["packet_late"],
            "o",
            ls=":",
            color=ENGINE_COLORS["packet"],
            mfc="none",
            label="packet, second half of the run",
        )
        ax.plot(
            x,
            t["fluid_cal"],
            "^-",
            color=ENGINE_COLORS["fluid"],
            lw=2,
            label="fluid, X = packet's sync_mean",
        )
        ax.plot(
            x,
            t["fluid_matched"],
            "v--",
            color=ENGINE_COLORS["fluid"],
            label="fluid, measured sync matched",
        )
        ax.set_ylim(0.0, 1.02)
        ax.set_ylabel("utilization")
        ax.set_title(f"{PANELS[variant][1]}, 10 flows, 10 Gbps", fontsize=8)
    # The legends beside the panels: inside, they covered the packet points.
    axes[0].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    sx = axes[-1]
    for k, variant in enumerate(order):
        t = cal[cal["variant"] == variant].sort_values("fraction")
        color = _VARIANT_COLORS[k % len(_VARIANT_COLORS)]
        sx.plot(
            t["fraction"],
            t["packet_sync"],
            "o-",
            color=color,
            label=f"{PANELS[variant][1]}: packet sync_mean",
        )
        sx.plot(
            t["fraction"],
            t["fluid_cal_sync"],
            "^:",
            color=color,
            alpha=0.6,
            label=f"{PANELS[variant][1]}: fluid's own, X = that",
        )
    for sync in SYNC:
        sx.axhline(sync, color="grey", lw=0.6, ls=":")
    sx.set_ylim(0.0, 1.05)
    sx.set_ylabel("loss synchronization")
    sx.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fracs = sorted(cal["fraction"].unique())
    sx.set_xscale("log")
    sx.set_xticks(fracs, labels=[f"{f:.0%}" for f in fracs])
    sx.minorticks_off()
    sx.set_xlabel("buffer (fraction of the 141,667-packet BDP)")
    return fig


def _calibrated_series_figure(cal: pd.DataFrame) -> Any:
    """Utilization over time at 5% of BDP (or the first buffer run), packet
    engine against the calibrated fluid, one panel per variant."""

    series = cal.attrs["series"]
    frac = 0.05 if any(np.isclose(f, 0.05) for _, f in series) else min(f for _, f in series)
    order = [v for v in PANELS if (v, frac) in series]
    fig, axes = figure(6.4, 1.8 * len(order), nrows=len(order), sharex=True)
    for ax, variant in zip(axes, order):
        s = series[(variant, frac)]
        ax.plot(s.index, s["packet"], color=ENGINE_COLORS["packet"], label="packet engine")
        ax.plot(
            s.index,
            s["fluid_cal"],
            color=ENGINE_COLORS["fluid"],
            label="fluid, X = packet's sync_mean",
        )
        ax.axvline(cal.attrs["warmup_s"], color="grey", lw=0.8, ls="--")
        ax.set_ylim(0.0, 1.05)
        ax.set_ylabel("utilization")
        ax.set_title(
            f"{PANELS[variant][1]} at {frac:.0%} of BDP (dashed: end of warm-up)", fontsize=8
        )
    # Below the panels: inside, the legend covered the packet trace.
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=7)
    axes[-1].set_xlabel("time (s)")
    return fig
