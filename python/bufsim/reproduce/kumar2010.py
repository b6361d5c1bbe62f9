"""Paper 004 (Kumar, Azad & Park, *A fluid-based simulation study: the effect
of loss synchronization on sizing buffers over 10 Gbps high speed networks*),
section III: fluid simulation with the loss-synchronization module.

Section III.B (Figure 6): 10 flows over 10 Gbps, link delay 10 ms, RTTs 80 to
260 ms (mean 170 ms), 1500 B packets, buffers as a fraction of 141667 packets
(the BDP at the mean RTT), minimum synchronized fraction X in {0.3, 0.6, 1},
10 runs of 3000 s each, for AIMD, HighSpeed, CUBIC and H-TCP. The paper
reports: HSTCP and AIMD above 90% utilization at a fraction of 0.05; lower X
gives higher utilization for HSTCP and AIMD; CUBIC below HSTCP at small
buffers. The points run as a :func:`bufsim.sweep` of the fluid engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

import bufsim

#: Paper 004 section III.B: BDP at the 170 ms mean RTT, 1500 B packets.
BDP_PKTS = 141667

BASE: dict[str, Any] = {
    "name": "kumar2010",
    "duration": "3000s",
    "warmup": "300s",
    "seed": 1,
    "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "7083pkt", "packet_size": "1500B"},
    "flows": [
        {"count": 10, "tcp": "highspeed", "rtt": {"min": "80ms", "max": "260ms"}, "mss": "1500B"}
    ],
    "fluid": {"sync": 1.0},
}

VARIANTS = ("aimd", "highspeed", "cubic", "htcp")
SYNC = (0.3, 0.6, 1.0)
FRACTIONS = (0.01, 0.05, 0.1, 0.2, 0.5)


def run(
    quick: bool = False,
    progress: Callable[[str], Any] | None = None,
    workers: int | None = None,
    store: Any = None,
) -> pd.DataFrame:
    """Utilization against buffer fraction per variant and X (mean over runs).

    Parameters
    ----------
    quick : bool
        2 seeds of 1000 s at fractions 0.01, 0.05 and 0.2 instead of 10
        seeds of 3000 s at five fractions.
    progress : callable, optional
        Called with a line of text before the sweep starts.
    workers : int, optional
        Sweep worker processes (default: the number of cores).
    store : optional
        Results store for :func:`bufsim.sweep` (default: in memory).

    Returns
    -------
    pandas.DataFrame
        One row per (variant, sync, fraction): ``utilization`` (mean over
        seeds), ``utilization_sd`` and ``runs``.
    """
    fractions = (0.01, 0.05, 0.2) if quick else FRACTIONS
    seeds = [1, 2] if quick else list(range(1, 11))
    base = dict(BASE, duration="1000s", warmup="200s") if quick else BASE
    if progress:
        progress(
            f"kumar2010: {len(VARIANTS) * len(SYNC) * len(fractions) * len(seeds)} fluid runs ..."
        )
    table = bufsim.sweep(
        base,
        grid={
            "flows[0].tcp": list(VARIANTS),
            "fluid.sync": list(SYNC),
            "link.buffer": [f"{round(f * BDP_PKTS)}pkt" for f in fractions],
        },
        engines=["fluid"],
        seeds=seeds,
        workers=workers,
        store=store,
        progress=False,
    )
    frac_of = {f"{round(f * BDP_PKTS)}pkt": f for f in fractions}
    table["fraction"] = table["link.buffer"].map(frac_of)
    out = (
        table.groupby(["flows[0].tcp", "fluid.sync", "fraction"])["utilization"]
        .agg(utilization="mean", utilization_sd="std", runs="count")
        .reset_index()
        .rename(columns={"flows[0].tcp": "variant", "fluid.sync": "sync"})
    )
    return out


def pivot(table: pd.DataFrame) -> pd.DataFrame:
    """Utilization with one column per (variant, X), one row per fraction."""
    return table.pivot_table(index="fraction", columns=["variant", "sync"], values="utilization")
