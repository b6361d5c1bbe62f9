"""Paper 001's design: the scenarios, the cases, and the constants its
claims and prose read (sections III-IV's numbers and bufsim's choices).
"""

from __future__ import annotations

from typing import Any

from bufsim.reproduce import (
    prose,
)

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
            "stack": "rfc",
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

#: Paper 001 section III's second experiment (figure 4) and section IV's
#: figure 8: 2.5 Gbps, 10 ms, RTTs 38-142 ms (mean 90 ms), buffer as a
#: fraction of 6250 packets ("the BDP of just R1-R2").
FULL_BUFFER_PKTS_25 = 6250

BASE_25: dict[str, Any] = {
    "name": "barman2005-2.5g",
    "duration": "200s",
    "warmup": "100s",
    "seed": 1,
    "output": {"interval": "5s"},
    "link": {"capacity": "2.5Gbps", "delay": "10ms", "buffer": "625pkt"},
    "flows": [
        {
            "count": 10,
            "tcp": "highspeed",
            "stack": "rfc",
            "rtt": {"min": "38ms", "max": "142ms"},
            "mss": "1000B",
            "start": {"stagger": "1s"},
        }
    ],
}

#: Buffer fractions (of 6250 packets) of the 2.5 Gbps runs.
FRACTIONS_25 = (0.1, 0.2, 0.4, 1.0)

#: Section IV on figure 8: "the loss rate is around 10^-6".
RED_LOSS_25 = 1e-6

#: Figures 5 and 6: two HSTCP flows over 1 Gbps with 10 ms of delay, "the
#: RTT of HSTCP1 is almost twice that of HSTCP2" (the paper gives neither
#: the RTTs nor the buffers): RTTs 80 and 42 ms, both starting at 0 s.
TWO_FLOW_RTTS_MS = (80, 42)

#: Case -> buffer (packets): 10% of the longer flow's BDP (1 Gbps x 80 ms =
#: 10,000 packets) and the whole of it (1.6 BDPs at the flows' mean RTT).
TWO_FLOW_BUFFERS = {"under-buffered": 1000, "over-buffered": 10000}

#: The ns-2 runs' name: ns-2.35, the paper's simulator, on the same case.
NS2_RUN = "ns-2.35, the paper's simulator, on the same case"

#: The ns-2 runs per version: drop-tail fractions, RED fractions (the
#: paper's Adaptive RED, :func:`~bufsim.reproduce.barman2005.runs.ared_scenario`)
#: and (duration, warm-up). Quick:
#: the claims' fractions only, 20 s runs, no two-flow runs (ns-2 simulated
#: 3.6 million packets of this link in 19.8 CPU s, 30 s of it; the two-flow
#: runs are 100 s).
NS2_CASES: dict[bool, tuple[tuple[float, ...], tuple[float, ...], tuple[str, str]]] = {
    True: ((0.02, 0.1, 0.2), (0.1, 0.2), ("20s", "5s")),
    False: (FRACTIONS, (0.1, 0.2, 0.4), (BASE["duration"], BASE["warmup"])),
}

#: Why the two-flow claims have none in the quick version.
FULL_ONLY = "full run only"

#: The paper's 'almost', utilization points: within the first agrees,
#: beyond the second differs, between is undecided (its wording's range).
ALMOST_POINTS = (0.02, 0.03)

#: Where the claims' tolerances come from.
ALMOST_SOURCE = (
    "the paper's 'almost', read as within 2-3 points of utilization: within 2 agrees, beyond "
    "3 differs, between undecided"
)

#: Figure 4's marks: the paper gives it no number of its own.
SIMILAR = "figure 3's levels, by the paper's 'similar trends' for figure 4 (section III): "

LOG_SOURCE = "the paper quotes loss rates as powers of ten: half a decade"

MORE_SOURCE = "the paper's wording: 'more than 90% utilization' (section III)"

#: The paper's "drastic drop" below 10% of the BDP, as a utilization mark:
#: below the level it says 10% sustains.
DRASTIC = 0.9

DRASTIC_SOURCE = (
    "the paper's wording, with no number of its own: below 10% of the BDP 'a drastic drop in "
    "utilization' (conclusion), against the 'more than 90%' it says 10% sustains (abstract: "
    "'less than 10% ... can decrease HighSpeed TCP's throughput significantly')"
)

FASTER_SOURCE = "the paper's wording: the shorter-RTT flow gets more (ratio above 1)"

REDUCES_SOURCE = "the paper's wording: a larger buffer 'reduces the unfairness' (any fall)"

SYNC_RUN = prose("the fluid engine with paper 004's synchronization module at X = {x:g}", x=0.3)

#: The packet rate of the 1 Gbps link, packets/s (1000 B packets).
LINK_PPS = 1e9 / (8 * 1000)

#: The paper's 'quite close' read as 'almost' at its far end, utilization.
CLOSE_POINTS = ALMOST_POINTS[1]

CLOSE_SOURCE = (
    "the paper's 'quite close' (section III, Figure 3), with no number: read as 'almost', "
    "within 3 points of utilization"
)


RED_SYNC_RUN = prose("the fluid engine under RED with synchronization at X = {x:g}", x=SYNC[0])
