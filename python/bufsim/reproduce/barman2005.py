"""Paper 001 (Barman, Smaragdakis & Matta, *The effect of router buffer size
on HighSpeed TCP performance*), section III: 10 HSTCP flows over 1 Gbps.

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
        measured loss synchronization) and ``paper``.
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
        fixed = m.hstcp_fixed_point(1e9, rtts, [scn.normalized["link"]["buffer_pkts"]])
        packet = bufsim.simulate(scn)
        fluid = bufsim.simulate(scn, engine="fluid")
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
    return c.table()


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Paper 004's Figure 5 on paper 001's setup: utilization against the
    buffer (fraction of the 12,500-packet BDP, log axis) from the fixed
    point, the packet engine and the fluid engine at X = 0.3, 0.6 and 1.

    Returns
    -------
    dict
        ``{"utilization": matplotlib Figure}``.
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
    return {"utilization": fig}
