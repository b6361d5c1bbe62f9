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

from typing import Any, Callable

import pandas as pd

import bufsim
import bufsim.models as m
from bufsim.reproduce import variant

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
        BASE, f"barman2005-b{fraction:g}", duration=duration, buffer_pkts=round(fraction * FULL_BUFFER_PKTS)
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
            f"fluid_x{x:g}": bufsim.simulate({**raw, "fluid": {"sync": x}}, engine="fluid").summary["utilization"]
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
