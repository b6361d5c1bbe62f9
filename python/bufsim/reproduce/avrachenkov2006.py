"""Paper 003 (Avrachenkov, Ayesta & Piunovskiy, *Optimal choice of the buffer
size in the Internet routers*), section III: N synchronized NewReno flows.

The bottleneck is 100 Mbps, 500 B packets, with a BDP of 150 packets (a 6 ms
round trip; every flow has the same RTT, so drop-tail synchronizes them).
The paper's 100 Mbps access links are left out: they only pace each
sender, and an access link as fast as the bottleneck hides the queue there.
The paper reports, for N = 5 and N = 20: mean rate at B = 0 of 64.4 and
66.6 Mbps (Corollary 1 says 75); the smallest buffer giving 99.9%
utilization, B0, of 120 and 70 packets (its eq. (12), synchronized, says
250 and 62.5). Here: Theorem 1 (synchronized), the packet engine and the
fluid engine (Misra-Gong-Towsley with X = 1) over a range of buffers. The
packet engine's smallest buffer is one packet where ns-2 used zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
import bufsim.models as m
from bufsim.reproduce import variant

BASE: dict[str, Any] = {
    "name": "avrachenkov2006",
    "duration": "120s",
    "warmup": "20s",
    "seed": 1,
    "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "1pkt"},
    "flows": [
        {
            "count": 5,
            "tcp": "newreno",
            "sack": False,
            "rtt": "6ms",
            "mss": "500B",
        }
    ],
}

#: N -> (rate at B = 0 in Mbps, B0 in packets) as the paper reports from ns-2.
PAPER = {5: (64.4, 120), 20: (66.6, 70)}

BUFFERS = (1, 10, 20, 40, 60, 80, 100, 120, 150, 200, 250)
QUICK_BUFFERS = (1, 20, 60, 100, 120, 150)


def scenario(n: int, buffer_pkts: int, duration: str = "120s") -> dict[str, Any]:
    """The raw scenario for N flows and a buffer in packets."""
    s = variant(
        BASE, f"avrachenkov2006-n{n}-b{buffer_pkts}", duration=duration, buffer_pkts=buffer_pkts
    )
    s["flows"][0]["count"] = n
    return s


def b0(buffers, utilization, threshold: float = 0.999) -> float:
    """Smallest buffer whose utilization reaches ``threshold`` (NaN if none)."""
    ok = [b for b, u in zip(buffers, utilization) if u >= threshold]
    return float(min(ok)) if ok else float("nan")


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Utilization and mean queue against buffer for N = 5 and 20.

    Parameters
    ----------
    quick : bool
        40 s runs (10 s warm-up) at :data:`QUICK_BUFFERS` instead of 120 s
        at :data:`BUFFERS`.
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        One row per (n, buffer_pkts): ``theorem1`` and ``packet``/``fluid``
        utilizations (0..1), ``packet_mean_queue_pkts``, ``theorem1_mean_queue_pkts``
        (packets) and ``packet_sync`` (the packet engine's loss synchronization).
    """
    buffers = QUICK_BUFFERS if quick else BUFFERS
    duration = "40s" if quick else BASE["duration"]
    rows = []
    for n in (5, 20):
        for buf in buffers:
            if progress:
                progress(f"running avrachenkov2006 N={n} buffer={buf}pkt ...")
            raw = scenario(n, buf, duration)
            if quick:
                raw["warmup"] = "10s"
            scn = bufsim.Scenario.load(raw)
            theory = m.predict(scn, model="avrachenkov_sync")
            packet = bufsim.simulate(scn)
            fluid = bufsim.simulate({**raw, "fluid": {"sync": 1.0}}, engine="fluid")
            rows.append(
                {
                    "n": n,
                    "buffer_pkts": buf,
                    "theorem1": theory.summary["utilization"],
                    "packet": packet.summary["utilization"],
                    "fluid": fluid.summary["utilization"],
                    "theorem1_mean_queue_pkts": theory.summary["mean_queue_pkts"],
                    "packet_mean_queue_pkts": packet.summary["mean_queue_pkts"],
                    "packet_sync": packet.summary["sync_mean"],
                }
            )
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per N: rate at the smallest buffer (Mbps) and B0 for each source, next to the paper."""
    out = []
    for n, g in table.groupby("n"):
        g = g.sort_values("buffer_pkts")
        out.append(
            {
                "n": n,
                "paper_rate_B0_mbps": PAPER[n][0],
                "packet_rate_B1_mbps": 100 * g["packet"].iloc[0],
                "corollary1_mbps": 100 * float(m.corollary1_rate(1.0, 0.5)),
                "paper_B0": PAPER[n][1],
                "packet_B0": b0(g["buffer_pkts"], g["packet"]),
                "fluid_B0": b0(g["buffer_pkts"], g["fluid"]),
                "eq12_B0": float(np.asarray(m.b0_symmetric(150.0, n, synchronized=True))),
            }
        )
    return pd.DataFrame(out)
