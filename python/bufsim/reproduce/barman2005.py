"""Paper 001 (Barman, Smaragdakis & Matta, *The effect of router buffer size
on HighSpeed TCP performance*), sections III (drop-tail) and IV (RED): 10 HSTCP flows over 1 Gbps.

The common link is 1 Gbps with 50 ms delay, RTTs 115.5-124.5 ms (mean
120 ms), 1 KB packets, starts at different times, drop-tail buffer as a
fraction of 12500 packets. The paper reports utilization "more than 90%" at
10% and "almost 98%" at 20%, from its M/M/1/K fixed point and from ns-2.
Here: the same fixed point (:func:`bufsim.models.hstcp_fixed_point`), the
packet engine and the fluid engine, side by side.

Paper 004 (Kumar et al.) section III.A validates its fluid model on this
same setup (its Figure 5: the fixed point, which it calls the Boston model,
ns-2, and the fluid model with loss synchronization X = 0.3, 0.6 and 1): the
``fluid_x*`` columns are those curves, with the packet engine standing in
for ns-2.

Section IV (Figure 7) is the same setup under RED: the ``red_*`` columns run
the packet and fluid engines with RED at the paper's numerical thresholds,
``min_th = 0.4 K`` and ``max_th = K`` (``K`` the buffer), beside the RED
fixed point. The paper's simulations used Adaptive RED; here it is simple
RED (``adaptive`` off, ``gentle`` off, ``max_p = 0.1``, the fixed point's
default, as the paper gives no value), the variant its fixed point models.
Measured (full run, 200 s): at 10% and 20% the packet and fluid engines read
0.87-0.90 against the fixed point's 0.988-0.994, with loss 6e-5 to 1.2e-4
against its 1e-5, and the packet engine's early drops hit most flows in the
same congestion event (sync_mean 0.71-0.74). max_p is one lever the paper
leaves open: a quick 60 s run at 20% with max_p = 0.01 read 0.943 (sync_mean
0.38) instead of 0.900.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
import bufsim.models as m
from bufsim.reproduce import Claims, variant

#: Paper 001: the reference buffer (packets) the fractions refer to.
FULL_BUFFER_PKTS = 12500

BASE: dict[str, Any] = {
    "name": "barman2005",
    "duration": "200s",
    "warmup": "50s",
    "seed": 1,
    "link": {"capacity": "1Gbps", "delay": "50ms", "buffer": "1250pkt"},
    "flows": [
        {
            "count": 10,
            "tcp": "highspeed",
            "rtt": {"min": "115.5ms", "max": "124.5ms"},
            "mss": "1000B",
            "start": {"stagger": "1s"},
        }
    ],
}

#: Minimum synchronized fractions X of paper 004's Figure 5.
SYNC = (0.3, 0.6, 1.0)

#: Buffer fraction -> what the paper reports for it.
PAPER = {0.1: "> 0.90", 0.2: "~0.98"}

FRACTIONS = (0.02, 0.05, 0.1, 0.2, 0.4)

#: Paper 001 section III: "the loss rate is mostly equal to p_l" (drop-tail);
#: section IV: "The loss rate is 10^-5 for buffer ratio >= 0.1" (RED).
P_L = 1e-3
RED_LOSS = 1e-5

#: RED's drop probability at max_th (the paper gives none; the fixed point's default).
RED_MAX_P = 0.1


def red_scenario(raw: dict[str, Any], buffer_pkts: int) -> dict[str, Any]:
    """``raw`` with simple RED at paper 001's thresholds: ``min_th = 0.4 K``,
    ``max_th = K`` for the buffer ``K = buffer_pkts``."""
    k = int(buffer_pkts)
    out = copy.deepcopy(raw)
    out["name"] = f"{raw['name']}-red"
    out["link"]["qdisc"] = "red"
    out["link"]["qdisc_params"] = {
        "min_th": 0.4 * k,
        "max_th": float(k),
        "max_p": RED_MAX_P,
        "gentle": False,
        "adaptive": False,
    }
    return out


def scenario(fraction: float, duration: str = "200s") -> dict[str, Any]:
    """The raw scenario with a buffer of ``fraction`` x 12500 packets."""
    return variant(
        BASE,
        f"barman2005-b{fraction:g}",
        duration=duration,
        buffer_pkts=round(fraction * FULL_BUFFER_PKTS),
    )


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Utilization against buffer fraction from the model and both simulators.

    Parameters
    ----------
    quick : bool
        60 s runs (20 s warm-up) instead of 200 s.
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        One row per fraction: ``fraction``, ``buffer_pkts``, ``model``
        (fixed-point utilization), ``packet``, ``fluid`` (no synchronization
        module), ``fluid_x0.3``, ``fluid_x0.6``, ``fluid_x1`` (paper 004's
        module), ``packet_drop_rate``, ``packet_sync`` (the packet engine's
        measured loss synchronization), ``model_loss`` (the fixed point's
        loss rate); under RED (section IV) ``red_model``, ``red_packet``,
        ``red_fluid`` (utilization), ``red_model_loss``,
        ``red_packet_drop_rate``, ``red_fluid_drop_rate``,
        ``red_packet_sync``, ``red_packet_queue`` and ``red_model_queue``
        (mean queue, packets); and ``paper``.
    """
    rows = []
    for frac in FRACTIONS:
        raw = scenario(frac, "60s" if quick else BASE["duration"])
        if quick:
            raw["warmup"] = "20s"
        if progress:
            progress(f"running barman2005 buffer fraction {frac:g} ...")
        scn = bufsim.Scenario.load(raw)
        rtts = scn.normalized["flows"][0]["rtts_s"]
        k = scn.normalized["link"]["buffer_pkts"]
        fixed = m.hstcp_fixed_point(1e9, rtts, [k])
        red_fixed = m.hstcp_fixed_point(1e9, rtts, [k], qdisc="red", red_max_p=RED_MAX_P)
        packet = bufsim.simulate(scn)
        fluid = bufsim.simulate(scn, engine="fluid")
        red_raw = red_scenario(raw, k)
        red_packet = bufsim.simulate(red_raw)
        red_fluid = bufsim.simulate(red_raw, engine="fluid")
        synced = {
            f"fluid_x{x:g}": bufsim.simulate({**raw, "fluid": {"sync": x}}, engine="fluid").summary[
                "utilization"
            ]
            for x in SYNC
        }
        rows.append(
            {
                "fraction": frac,
                "buffer_pkts": scn.normalized["link"]["buffer_pkts"],
                "model": float(fixed["utilization"].iloc[0]),
                "packet": packet.summary["utilization"],
                "fluid": fluid.summary["utilization"],
                **synced,
                "packet_drop_rate": packet.summary["drop_rate"],
                "packet_sync": packet.summary["sync_mean"],
                "model_loss": float(fixed["loss_rate"].iloc[0]),
                "red_model": float(red_fixed["utilization"].iloc[0]),
                "red_packet": red_packet.summary["utilization"],
                "red_fluid": red_fluid.summary["utilization"],
                "red_model_loss": float(red_fixed["loss_rate"].iloc[0]),
                "red_packet_drop_rate": red_packet.summary["drop_rate"],
                "red_fluid_drop_rate": red_fluid.summary["drop_rate"],
                "red_packet_sync": red_packet.summary["sync_mean"],
                "red_packet_queue": red_packet.summary["mean_queue_pkts"],
                "red_model_queue": float(red_fixed["mean_queue_pkts"].iloc[0]),
                "paper": PAPER.get(frac, ""),
            }
        )
    return pd.DataFrame(rows)


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """Paper 001's statements (and paper 004's on the same setup) beside
    bufsim's numbers from the :func:`run` table, with a verdict and its
    reason (the columns of :meth:`bufsim.reproduce.Claims.table`)."""
    t = table.set_index("fraction")
    c = Claims()

    for source in ("model", "packet", "fluid"):
        u = float(t.loc[0.1, source])
        c.add(
            f"10% of BDP, {source}",
            "more than 90% utilization",
            u,
            u > 0.9,
            f"{source} utilization at 1250 packets",
        )
    u = float(t.loc[0.2, "model"])
    c.add(
        "20% of BDP, model",
        "almost 98% utilization",
        u,
        abs(u - 0.98) <= 0.02,
        f"the M/M/1/K fixed point sees Poisson arrivals, smoother than TCP's: {u:.3f}",
        0.02,
    )
    u = float(t.loc[0.2, "packet"])
    c.add(
        "20% of BDP, packet",
        "almost 98% utilization",
        u,
        abs(u - 0.98) <= 0.03,
        "the flows, with RTTs within 8% of each other, lose packets together (measured sync_mean "
        f"{float(t.loc[0.2, 'packet_sync']):.2f}), which costs a few points",
        0.03,
    )
    u = float(t.loc[0.2, "fluid"])
    c.add(
        "20% of BDP, fluid",
        "almost 98% utilization",
        u,
        abs(u - 0.98) <= 0.03,
        "without the synchronization module every flow shares each overflow, as with X = 1 "
        f"({float(t.loc[0.2, 'fluid_x1']):.3f}); X = 0.3 reads {float(t.loc[0.2, 'fluid_x0.3']):.3f}",
        0.03,
    )
    u = float(t.loc[0.02, "packet"])
    c.add(
        "2% of BDP, packet",
        "below 10% of BDP, drops cause a drastic drop in utilization",
        u,
        u < 0.6,
        f"the fixed point, blind to TCP's bursts, still predicts {float(t.loc[0.02, 'model']):.3f}",
    )
    ordered = all(
        r["fluid_x0.3"] >= r["fluid_x0.6"] - 0.005 >= r["fluid_x1"] - 0.01 for _, r in t.iterrows()
    )
    c.add(
        "paper 004 figure 5",
        "lower loss synchronization X gives higher fluid utilization",
        float(t.loc[0.1, "fluid_x0.3"] - t.loc[0.1, "fluid_x1"]),
        ordered,
        "fluid utilization X = 0.3 minus X = 1 at 10% of BDP; ordered at every buffer"
        if ordered
        else "the X = 0.3, 0.6, 1 curves are not ordered at every buffer",
    )
    _red_claims(c, t)
    _loss_claims(c, t)
    return c.table()


def _red_claims(c: Claims, t: pd.DataFrame) -> None:
    """Section IV, Figure 7: the simulated RED utilization beside the RED fixed point."""
    for frac in (0.1, 0.2):
        model = float(t.loc[frac, "red_model"])
        for source in ("packet", "fluid"):
            u = float(t.loc[frac, f"red_{source}"])
            c.add(
                f"RED, {frac:.0%} of BDP, {source} (fig. 7)",
                "simulated utilization under RED close to the RED fixed point",
                u,
                abs(u - model) <= 0.03,
                _red_why(source, u, model, t.loc[frac]),
                0.03,
            )


def _red_why(source: str, u: float, model: float, row: pd.Series) -> str:
    """Why the ``source`` engine's RED utilization ``u`` sits where it does."""
    k = float(row["buffer_pkts"])
    head = (
        f"{source} {u:.3f}, RED fixed point {model:.3f}; loss {source} "
        f"{float(row[f'red_{source}_drop_rate']):.1e}, fixed point "
        f"{float(row['red_model_loss']):.1e}: "
    )
    if source == "fluid":
        return head + (
            "without the synchronization module every flow cuts its window at each RED "
            f"congestion episode, so the link idles after it (drop-tail fluid: {float(row['fluid']):.3f})"
        )
    return head + (
        f"both queues average about the same (fixed point {float(row['red_model_queue']):.0f}, "
        f"packet {float(row['red_packet_queue']):.0f} packets, min_th {0.4 * k:.0f}), but the "
        "fixed point spreads its loss independently over the flows while RED's early drops "
        "come in bursts when the average queue crosses min_th, hitting most flows in one "
        f"congestion event (measured sync_mean {float(row['red_packet_sync']):.2f}): the windows "
        f"fall together, the queue empties and the link idles (drop-tail packet: "
        f"{float(row['packet']):.3f})"
    )


def _loss_claims(c: Claims, t: pd.DataFrame) -> None:
    """The loss rates the paper reports: p_l under drop-tail, 1e-5 under RED."""
    big = t[t.index >= 0.1]
    for source, col in (("packet", "red_packet_drop_rate"), ("model", "red_model_loss")):
        rates = big[col].to_numpy(dtype=float)
        c.add(
            f"RED loss rate, {source}, buffer >= 10%",
            "the loss rate is 1e-5 for buffer ratio >= 0.1",
            float(np.exp(np.log(rates).mean())),
            bool((np.abs(np.log10(rates / RED_LOSS)) <= 0.5).all()),
            f"geometric mean of {source} loss over 10-40% ({rates.min():.1e}..{rates.max():.1e}); "
            "tolerance: log10 within 0.5 of -5 at every buffer"
            + (
                ""
                if source == "model"
                else "; the synchronized early drops of the figure 7 claims above (sync_mean "
                f"{big['red_packet_sync'].min():.2f}..{big['red_packet_sync'].max():.2f}) cut "
                "the windows below what 1e-5 sustains"
            ),
            0.5,
        )
    rates = big["packet_drop_rate"].to_numpy(dtype=float)
    c.add(
        "drop-tail loss rate, packet, buffer >= 10%",
        "in simulations the loss rate is mostly equal to p_l = 1e-3",
        float(np.exp(np.log(rates).mean())),
        bool((np.abs(np.log10(rates / P_L)) <= 0.5).all()),
        _p_l_why(rates, big),
        0.5,
    )


def _p_l_why(rates: np.ndarray, big: pd.DataFrame) -> str:
    """Why the drop-tail loss rate sits where it does beside p_l."""
    return (
        f"packet drop rate {rates.min():.1e}..{rates.max():.1e} over 10-40%, fixed point "
        f"{big['model_loss'].min():.1e}..{big['model_loss'].max():.1e}; HSTCP's response "
        "function w = w_l (p/p_l)^(-0.835) gives 10 flows sharing a 15,000-packet BDP "
        f"(w ~ 1500 > w_l = 38) p ~ {P_L * (1500 / 38) ** (-1 / 0.835):.1e}, while p = p_l "
        "would hold each window at w_l = 38 packets (25 Mbps in all)"
    )


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Paper 004's Figure 5 on paper 001's setup: utilization against the
    buffer (fraction of the 12,500-packet BDP, log axis) from the fixed
    point, the packet engine and the fluid engine at X = 0.3, 0.6 and 1.

    Returns
    -------
    dict
        ``{"utilization": ..., "red": ...}`` (matplotlib Figures); ``red``
        is paper 001's Figure 7 with the loss rates below it.
    """
    from bufsim.plot import ENGINE_COLORS, _figure

    fig, (ax,) = _figure()
    x = table["fraction"]
    ax.plot(x, table["model"], "s--", color="#548235", label="M/M/1/K fixed point (paper 001)")
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
    return {"utilization": fig, "red": _red_figure(table)}


def _red_figure(table: pd.DataFrame):
    """Paper 001's Figure 7: utilization under RED (min_th = 0.4 K, max_th = K)
    from the RED fixed point, the packet and the fluid engines, with the
    drop-tail packet curve for reference; below, the loss rates."""
    from bufsim.plot import ENGINE_COLORS, _figure

    fig, (ax, lx) = _figure(height=6.0, nrows=2, sharex=True)
    x = table["fraction"]
    ax.plot(x, table["red_model"], "s--", color="#548235", label="RED fixed point (paper 001)")
    ax.plot(x, table["red_packet"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet, RED")
    ax.plot(x, table["red_fluid"], "^-", color=ENGINE_COLORS["fluid"], label="fluid, RED")
    ax.plot(
        x,
        table["packet"],
        "o:",
        color=ENGINE_COLORS["packet"],
        alpha=0.5,
        label="packet, drop-tail",
    )
    ax.set_ylabel("utilization")
    ax.set_title("10 HighSpeed TCP flows, 1 Gbps, RED (paper 001 figure 7)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    lx.plot(x, table["red_model_loss"], "s--", color="#548235", label="RED fixed point")
    lx.plot(
        x, table["red_packet_drop_rate"], "o-", color=ENGINE_COLORS["packet"], label="packet, RED"
    )
    lx.plot(x, table["red_fluid_drop_rate"], "^-", color=ENGINE_COLORS["fluid"], label="fluid, RED")
    lx.plot(
        x,
        table["packet_drop_rate"],
        "o:",
        color=ENGINE_COLORS["packet"],
        alpha=0.5,
        label="packet, drop-tail",
    )
    lx.axhline(RED_LOSS, color="grey", lw=0.8, ls=":", label="paper, RED: 1e-5")
    lx.axhline(P_L, color="grey", lw=0.8, label="paper, drop-tail: p_l = 1e-3")
    lx.set_yscale("log")
    lx.set_ylabel("loss rate")
    lx.set_xscale("log")
    lx.set_xticks(list(x), labels=[f"{f:.0%}" for f in x])
    lx.minorticks_off()
    lx.set_xlabel("buffer (fraction of the 12,500-packet BDP)")
    lx.legend(fontsize=7, loc="upper center", ncol=2)
    return fig
