"""Paper 002's design: the scenario, the three kinds of traffic, the
variants run beside the paper's, and the constants its claims and prose
read (section 4's numbers and bufsim's choices).
"""

from __future__ import annotations

from typing import Any

from bufsim.reproduce import prose

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
        {
            "count": 200,
            "stack": "rfc",
            "rtt": TREE,
            "mss": "1500B",
            "start": {"uniform": ["0s", "5s"]},
        },
        {
            "stack": "rfc",
            "rtt": TREE,
            "mss": "1500B",
            "size": {"uniform": ["3pkt", "25pkt"]},
            "arrival": {"load": 0.05},
        },
    ],
    "closed": [
        {
            "stack": "rfc",
            "rtt": TREE,
            "mss": "1500B",
            "size": "dhamdhere2006",
            "users": USERS,
            "think": "5s",
        }
    ],
    "open": [
        {
            "stack": "rfc",
            "rtt": TREE,
            "mss": "1500B",
            "size": "dhamdhere2006",
            "arrival": {"load": 0.95},
        }
    ],
}

#: Variants measured at B_s and B_l: name -> fields set in every flow group.
VARIANTS: dict[str, dict[str, Any]] = {
    "rfc": {},
    "delayed_ack": {"delayed_ack": True},
    "min_rto_0.2s": {"min_rto": "200ms"},
}

#: (traffic, buffer packets) -> (the paper's words on the loss rate, low end, high end).
PAPER: dict[tuple[str, int], tuple[str, float, float]] = {
    ("open", 18): ("about 12%", 0.12, 0.12),
    ("persistent", 18): ("7-8%", 0.07, 0.08),
    ("closed", 18): ("7-8%", 0.07, 0.08),
    ("open", 500): ("< 1%", 0.0, 0.01),
    ("persistent", 500): ("about 2%", 0.02, 0.02),
    ("closed", 500): ("about 4%", 0.04, 0.04),
}

#: The paper's two buffers: B_s (Stanford, 250/sqrt(200)) and B_l (2 BDP), packets.
BUFFERS = (18, 500)

#: Buffers of the figure 1 curve, packets.
CURVE = (3, 6, 12, 18, 36, 72, 150, 300, 500, 1000)

#: BDP C T_eff, packets (50 Mbps x 60 ms / 1500 B).
BDP_PKTS = 250.0

#: Paper 002 section 4.2: the number of long flows the traffic is sized for.
N_LONG = 200

#: Loss-rate tolerance of the figure 1 claims: 1 percentage point beyond the paper's range.
LOSS_TOL = 0.01

#: The paper's "about 200" long flows, read as a quarter of N either side:
#: the tolerance of every claim on N, in flows (eq. (1)'s B_s range below
#: is the same band in packets).
N_TOL = N_LONG / 4
N_SOURCE = "the paper's 'about', read as a quarter of N"

#: A fraction the paper reads off a CDF it does not print, "about x":
#: within this of x (every per-flow fraction claim).
FRACTION_TOL = 0.1

#: The paper's "much" larger, with no number (figure 3's mice with drops):
#: a factor of 1.5, as its "much higher" (figure 6) and "much slower"
#: (figure 1) are read.
MUCH = 1.5
MUCH_SOURCE = "the paper's 'much larger', with no number: read as 1.5x"

#: The conclusion's "practically all transfers": at least this fraction of
#: the throughput CDF's levels.
PRACTICALLY_ALL = 0.9
PRACTICALLY_SOURCE = prose(
    "the paper's 'practically all', with no number: at least {p:.0%} of the CDF's levels",
    p=PRACTICALLY_ALL,
)

#: Section 4.3's "an order of magnitude lower": a factor of at least 10.
ORDER = 10.0


#: Why a claim has no ns-2 number: the ns-2 runs (:func:`runs.run_ns2`)
#: lack a case it reads (a variant, another seed; the quick run, the
#: buffers between B_s and B_l).
NO_NS2 = "case not run"

#: Seconds measured after the warm-up by the packet engine's runs, (quick, full).
SECONDS = (120.0, 600.0)

#: Seconds measured after the warm-up by the ns-2 runs, (quick, full): the
#: quick ns-2 runs are shorter, since ns-2 is far slower than the packet
#: engine on these cases and the quick run is the test suite's.
NS2_SECONDS = (20.0, 600.0)


#: Where the claims' tolerances come from.
LOSS_SOURCE = "one percentage point beyond the range the paper's text gives"
FRACTION_SOURCE = prose(
    "the paper's 'about' for a fraction read off a CDF it does not print: within {tol:g}",
    tol=FRACTION_TOL,
)
ALMOST_SOURCE = "'almost' read as within 3 points"
#: The per-flow claims read a column of the base runs' flow tables
#: (:func:`case_flows`): ``about="flows:<column>"``, which a test perturbs
#: through ``case_flows``.
DELAYED_ACK_RUN = "the same case with delayed ACKs, which the paper leaves unstated"
RTO_RUN = prose("the same case with ns-2's {rto:g} s minimum RTO", rto=0.2)


#: Section 4.1: the open loop's 95% load "ensures that the system is
#: stable". A stable system carries what its transfers offer: its backlog
#: of unfinished work stays within a bounded distance of that of an ideal
#: work-conserving server of the link's capacity fed the same arrivals
#: (:func:`runs.ideal_server`), stable by construction at a load below 1,
#: so the share of the offered bytes it leaves undelivered beyond that
#: server falls as 1/T with the run's length T; a system that falls behind
#: keeps its share. The claims read that share over runs of this many
#: seconds after the warm-up, eight full windows (:data:`SECONDS`), quick
#: or not: the quick run's shorter window leaves a bounded backlog's share
#: eight times larger.
STABLE_SECONDS = 4800.0

#: The mark on that long-run share: the precision of the paper's "95%",
#: given to the percent.
STABLE_EXCESS = 0.005
STABLE_SOURCE = prose(
    "the paper's load, '{load:.0%}', given to the percent: a loop whose long-run shortfall is "
    "under half a percent of its offered load carries that load to the precision the paper "
    "states it; the ideal server fed the same arrivals, stable by construction, takes out the "
    "backlog the arrivals build on their own",
    load=0.95,
)

#: The abstract's and section 1's loss range at B_s ("up to 5%-15% in our
#: simulations"), one point wider each side (:data:`LOSS_TOL`).
HIGH_LOSS = (0.05, 0.15)


#: Persistent flows whose RTT is within this fraction of the shortest one
#: count as "near" (figure 2's claims: who gets the link at B_s).
NEAR = 0.01

#: Two CDFs' quantiles within this relative margin count as a tie, not "better".
TIE = 0.05


#: Little's law checked on a run: G_L / N_L within this fraction of the
#: large transfers' measured mean rate (the window's edges and the finite
#: run keep them from being equal).
LITTLE_TOL = 0.15


#: The seed whose runs figures 2-7 draw (the claims pool every seed's).
FIGURE_SEED = 1

#: Figures 2-7: traffic -> (figure numbers, what the text says to mark).
_FLOW_FIGS = {"persistent": (2, 3), "closed": (4, 5), "open": (6, 7)}


#: The numbers the paper's text gives for a panel of figures 2-7, drawn in
#: red: (traffic, flow class, loss panel?) -> (x, y, matplotlib format,
#: style, label).
_PAPER_MARKS: dict[tuple[str, str, bool], tuple[list[float], list[float], str, dict, str]] = {
    ("open", "large", False): (
        [10_000, 15_000],
        [0.5, 0.5],
        "x",
        {"ms": 9, "mew": 2},
        "paper: medians 10,000 (B_s), 15,000 (B_l)",
    ),
    ("open", "large", True): ([0], [0.7], "x", {"ms": 9, "mew": 2}, "paper: 70% lossless at B_l"),
    ("persistent", "small", True): (
        [0, 0],
        [0.4, 0.7],
        "-",
        {"lw": 4, "alpha": 0.6},
        "paper: 40-70% of mice lossless",
    ),
}
