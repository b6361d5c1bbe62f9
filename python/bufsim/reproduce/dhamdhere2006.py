"""Paper 002 (Dhamdhere & Dovrolis, *Open issues in router buffer sizing*,
CCR 2006), section 4: loss rate and utilization of three TCP traffic types
at the Stanford buffer B_s = 18 packets and at B_l = 500 packets (2 BDP).

Setup (section 4.1): a 50 Mbps target link, 1500 B packets, NewReno with
SACK, 18 source nodes on a balanced binary tree with RTTs from 30 to 530 ms
and an effective (harmonic-mean) RTT of 60 ms, so the BDP is 250 packets;
access links never congest. bufsim models the tree by its node RTTs
(``rtt = {tree = {nodes = 18, min = "30ms", max = "530ms", harmonic_mean =
"60ms"}}``, see ``traffic::tree``) and each flow picks a node at random.

Traffic (section 4.2), each sized for about N = 200 long flows:

* ``persistent``: 200 persistent flows plus mice (uniform 3-25 packets,
  Poisson, 5% of the capacity);
* ``closed``: U users, exponential think time of mean 5 s, sizes from the
  ``"dhamdhere2006"`` mixture (exponentials of mean 15/50/200 packets, the
  two larger classes 30% of flows and 70% of bytes: mean 35 packets);
* ``open``: Poisson arrivals of the same sizes at 95% load.

The paper reports (figure 1 and section 4.3): utilization "almost 100%" in
every case; loss "about 12% for open-loop TCP traffic and about 7-8% for
persistent flows and closed-loop TCP traffic" at 18 packets; at 500 packets
"less than 1% for open-loop traffic, about 2% for persistent flows, and 4%
for closed-loop traffic".

Choices the paper leaves open, stated here: the tree's per-node RTTs (a
power curve through 30 and 530 ms with harmonic mean 60 ms), the link's own
delay (5 ms one way), the minimum RTO (RFC 6298's 1 s), U (:data:`USERS`,
chosen so that the long-flow average is near 200 at 18 packets; the paper
says it "adjusted" U but not to what) and which flows are "long" (bufsim:
a flow that has left slow start, i.e. seen a loss; the paper uses the
heuristics of its reference [9]).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pandas as pd

import bufsim
from bufsim.reproduce import variant

#: Closed-loop users (about 200 long flows on average with B = 18 packets).
USERS = 800

TREE = {"tree": {"nodes": 18, "min": "30ms", "max": "530ms", "harmonic_mean": "60ms"}}

#: The base scenario (also the packaged example ``dhamdhere2006``, open loop).
BASE: dict[str, Any] = {
    "name": "dhamdhere2006",
    "duration": "630s",
    "warmup": "30s",
    "seed": 1,
    "link": {"capacity": "50Mbps", "delay": "5ms", "buffer": "18pkt", "bdp_rtt": "60ms"},
    "output": {"interval": "1s", "large_flow": "100KB"},
}

#: Traffic type -> its flow groups.
TRAFFIC: dict[str, list[dict[str, Any]]] = {
    "persistent": [
        {"count": 200, "rtt": TREE, "mss": "1500B", "start": {"uniform": ["0s", "5s"]}},
        {
            "rtt": TREE,
            "mss": "1500B",
            "size": {"uniform": ["3pkt", "25pkt"]},
            "arrival": {"load": 0.05},
        },
    ],
    "closed": [
        {"rtt": TREE, "mss": "1500B", "size": "dhamdhere2006", "users": USERS, "think": "5s"}
    ],
    "open": [{"rtt": TREE, "mss": "1500B", "size": "dhamdhere2006", "arrival": {"load": 0.95}}],
}

#: (traffic, buffer packets) -> (what the paper says of the loss rate, a number to compare with).
PAPER: dict[tuple[str, int], tuple[str, float]] = {
    ("open", 18): ("about 12%", 0.12),
    ("persistent", 18): ("7-8%", 0.075),
    ("closed", 18): ("7-8%", 0.075),
    ("open", 500): ("< 1%", 0.01),
    ("persistent", 500): ("about 2%", 0.02),
    ("closed", 500): ("about 4%", 0.04),
}

BUFFERS = (18, 500)


def scenario(
    traffic: str, buffer_pkts: int, duration_s: float | None = None, seed: int = 1
) -> dict[str, Any]:
    """The scenario of one case (``traffic`` in :data:`TRAFFIC`)."""
    if traffic not in TRAFFIC:
        raise ValueError(f"traffic must be one of {', '.join(TRAFFIC)}, got {traffic!r}")
    s = variant(
        BASE,
        f"dhamdhere2006-{traffic}-B{buffer_pkts}",
        duration=None if duration_s is None else f"{duration_s + 30}s",
        buffer_pkts=buffer_pkts,
    )
    s["seed"] = seed
    s["flows"] = copy.deepcopy(TRAFFIC[traffic])
    return s


def run_case(
    traffic: str, buffer_pkts: int, duration_s: float | None = None, seed: int = 1
) -> dict[str, Any]:
    """Simulate one case; one row of the table.

    Parameters
    ----------
    traffic, buffer_pkts, duration_s, seed
        As in :func:`scenario` (``duration_s``: measured seconds after the
        30 s warmup; default the base's 600 s).

    Returns
    -------
    dict
        ``loss_rate`` (fraction) and ``utilization`` (0..1) with the paper's
        loss (``paper_loss`` text, ``paper_loss_value``), ``long_flows_mean``,
        ``active_flows_mean``, ``mean_queue_pkts``, ``timeouts``,
        ``large_median_throughput_Bps`` (bytes/s) and
        ``large_no_loss_fraction`` over finished large flows (persistent
        flows count as large), and ``wall_s``.
    """
    r = bufsim.simulate(scenario(traffic, buffer_pkts, duration_s, seed))
    s = r.summary
    text, paper = PAPER[(traffic, buffer_pkts)]
    f = r.flows
    fin = f[(f["finished"] == 1.0) | f["size_pkts"].isna()]
    large = fin[fin["large"] == 1.0]
    return {
        "traffic": traffic,
        "buffer_pkts": buffer_pkts,
        "loss_rate": s["drop_rate"],
        "paper_loss": text,
        "paper_loss_value": paper,
        "utilization": s["utilization"],
        "long_flows_mean": s["long_flows_mean"],
        "active_flows_mean": s["active_flows_mean"],
        "mean_queue_pkts": s["mean_queue_pkts"],
        "timeouts": s["timeouts"],
        "large_median_throughput_Bps": float(large["throughput_bps"].median() / 8)
        if len(large)
        else float("nan"),
        "large_no_loss_fraction": float((large["drops"] == 0).mean())
        if len(large)
        else float("nan"),
        "wall_s": r.provenance["wall_s"],
    }


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """All six cases: loss rate and utilization next to the paper's numbers.

    Parameters
    ----------
    quick : bool
        120 s of simulated time per case instead of 600 s (after a 30 s warmup).
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        One row per (traffic, buffer_pkts), the columns of :func:`run_case`.
    """
    rows = []
    for traffic in ("persistent", "closed", "open"):
        for b in BUFFERS:
            if progress is not None:
                progress(f"{traffic} B={b}")
            rows.append(run_case(traffic, b, 120 if quick else None))
    return pd.DataFrame(rows)
