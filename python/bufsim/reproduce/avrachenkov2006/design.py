"""Paper 003's design: the scenario, the grids of N and buffers, the
settings run beside the paper's, and the constants its claims and prose
read (section III's numbers and bufsim's choices).
"""

from __future__ import annotations

from typing import Any

from bufsim.reproduce import prose

#: The paper's access links, Mbps (section III): 100 Mbps, the bottleneck's rate.
ACCESS_MBPS = 100.0

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
            "stack": "rfc",
            "sack": False,
            "rtt": "6ms",
            "mss": "500B",
            # Section III: "the access link capacity and delay are 100 Mbps
            # and 1 ms" (the delay is part of the RTT below).
            "access_rate": f"{ACCESS_MBPS:g}Mbps",
        }
    ],
}

#: N -> (rate at B = 0 in Mbps, B0 in packets) as the paper reports from ns-2.
PAPER = {5: (64.4, 120), 20: (66.6, 70)}

#: N -> (eq. (12) as the paper quotes it, BDP, Stanford rule), packets, section III.
PAPER_RULES = {5: (250.0, 150.0, 67.0), 20: (62.0, 150.0, 21.0)}

#: Bandwidth-delay product, packets: 100 Mbps x 6 ms / 500 B.
BDP_PKTS = 150.0

#: Utilization that defines B0 (section III: "greater than 99.9%").
TARGET = 0.999

#: Send jitter that desynchronizes the flows (ns-2's overhead_): five packet
#: times at 100 Mbps, picked from a scan of 40-400 us as the value that gives
#: the paper's B0 (a tuning: the paper does not say what desynchronized its
#: ns-2 flows).
JITTER = "200us"

#: A flow with less than this fraction of the link's rate counts as starved.
STARVED = 0.01


#: Flow settings tried as the cause of B0 not falling with N: name -> flow
#: fields. After the TCP details, each stack field on which the ``rfc``
#: profile (the reproduction's) and the ``ns3`` profile differ, switched
#: alone to the ``ns3`` value (crates/bufsim-core/src/tcp/stack.rs
#: ``Stack::defaults``; ``delayed_ack`` is one of them), then the ``ns3``
#: profile whole and with an ACK for every segment.
SETTINGS: dict[str, dict[str, Any]] = {
    "deterministic": {},
    "jitter": {"jitter": JITTER},
    "delayed_ack": {"delayed_ack": True},
    "sack": {"sack": True},
    "random_start": {"start": {"uniform": ["0s", "1s"]}},
    "min_rto": {"min_rto": "200ms"},
    # The paper's access links taken out (a field set to None is removed).
    "no_access_links": {"access_rate": None},
    "limited_transmit": {"limited_transmit": True},
    "partial_ack_retransmit": {"partial_ack_retransmit": True},
    # ns-3's PRR over the pipe it guesses from duplicate ACKs: the ns3
    # profile's recovery without SACK (prr with prr_variant = "ns3").
    "prr": {"prr": True, "prr_variant": "ns3"},
    "rto_ssthresh": {"rto_ssthresh": "pipe"},
    "cut_from": {"cut_from": "pipe"},
    "connection_setup": {"connection_setup": True},
    "initial_window": {"initial_window": 10},
    "ns3_profile": {"stack": "ns3"},
    "ns3_profile_ack_every": {"stack": "ns3", "delayed_ack": False},
}

#: The stack fields of :data:`SETTINGS` (rfc -> ns3 profile, one at a time).
STACK_FIELDS = (
    "limited_transmit",
    "delayed_ack",
    "partial_ack_retransmit",
    "prr",
    "rto_ssthresh",
    "cut_from",
    "connection_setup",
    "initial_window",
)

#: The ns3 engine's runs (full version only, when :func:`bufsim.ns3.available`):
#: name -> flow fields, each also run on the packet engine at the same length
#: (setting ``<name>_packet``). ns-3's own defaults (``stack = "ns3"``:
#: delayed ACKs, Limited Transmit, initial window 10, handshake), and the same
#: with an ACK for every segment as ns-2's ``Agent/TCPSink`` sends (the
#: paper's sink; ns-2 tcl/lib/ns-default.tcl delays ACKs only in
#: ``Agent/TCPSink/DelAck``).
NS3_SETTINGS: dict[str, dict[str, Any]] = {
    "ns3": SETTINGS["ns3_profile"],
    "ns3_ack_every": SETTINGS["ns3_profile_ack_every"],
}
#: The N each of :data:`NS3_SETTINGS` runs at. With an ACK per segment ns-3
#: runs only N = 20, the case of small windows (about 7 packets each): at
#: N = 5 one 6 s run took 320 s of wall time here, too long for a bisection.
NS3_NS: dict[str, tuple[int, ...]] = {"ns3": (5, 20), "ns3_ack_every": (20,)}
#: Length of the ns3 engine's runs. ns-3 takes about :data:`NS3_WALL` s of
#: wall time per simulated second at N = 20 (a 20 s run 205 s), the packet
#: engine a few ms. Shorter runs measure the start-up: with an ACK per
#: segment, 6 s runs (1 s warm-up) miss 99.9% at 160 packets for the
#: start-up's timeouts (1 s minimum RTO), where a 20 s run reads 1.0 at 100.
NS3_DURATION, NS3_WARMUP = "20s", "5s"
#: Wall seconds per simulated second of the ns3 engine here, measured.
NS3_WALL = 10
#: How closely one ns3-length run's window measures a utilization near 1:
#: the packet engine's four consecutive 15 s windows at N = 5 and 100
#: packets (the ns3 profile) read 0.99629, 0.99867, 0.99719 and 0.99754,
#: a standard deviation of 0.0010.
WINDOW_PRECISION = 0.001
#: Buffers the ns3 engine's bisection for B0 searches, packets.
NS3_BUFFERS = tuple(range(40, 170, 10))

NS = (1, 2, 5, 10, 20)
QUICK_NS = (1, 5, 20)
BUFFERS = (1, 5, 10, 20, 40, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 180, 200, 250)
QUICK_BUFFERS = (1, 20, 60, 70, 80, 100, 120, 130, 140, 150, 160)
#: Buffers searched (bisection) for the other settings, packets.
SEARCH_BUFFERS = tuple(range(20, 210, 10))


#: Where the claims' tolerances come from.
GRID_STEP = "the grid step of 10 packets around the paper's value"
RATE_TOL = (
    "bufsim's smallest buffer is 1 packet where ns-2 ran none: Theorem 1's rise from no buffer "
    "to 1 packet at this N"
)
RATIO_TOL = "the ratio of two B0 values each known to one grid step: 0.15"
TUNED = (
    f"flows[].jitter = {JITTER}, picked from a 40-400 us scan as the value giving the paper's B0"
)
NS2_RUN = "ns-2.35, the paper's simulator, on the same flows"


#: What the paper's ns-2 did that the stack fields touch (it names only "New
#: Reno"; these are ns-2's defaults, tcl/lib/ns-default.tcl).
NS2_SINK = (
    "ns-2's `Agent/TCPSink` ACKs every segment, as the rfc profile does (delayed ACKs are "
    "the separate `Agent/TCPSink/DelAck`, ns-2 tcl/lib/ns-default.tcl)"
)
NS2_LIMITED_TRANSMIT = (
    "ns-2 sends new data on the first duplicate ACKs by default (`Agent/TCP set singledup_ 1 "
    ";# default changed on 2001/11/28`, tcl/lib/ns-default.tcl of `ns-2.1b9` to `ns-2.35`), "
    "which the rfc profile leaves out; the paper cites ns-2 `Release 2.18a` (its reference "
    "[12]), no release's name, so whether its runs had it is not known"
)


#: Corollary 1's rate at no buffer, Mbps (section II: 75% of the link).
COROLLARY1_MBPS = 75.0
#: The paper's own gap between its ns-2 points and its model that it calls
#: agreement: at no buffer ns-2 gave 64.4 Mbps where Corollary 1 gives 75,
#: "slightly lower" (section III, Figure 7), Mbps.
PAPER_GAP_MBPS = COROLLARY1_MBPS - min(r for r, _ in PAPER.values())
#: The paper's own largest relative gap between its simulated B0 and the
#: model's that it reports as confirming the model (section III: ns-2 120
#: against 250 at N = 5; 70 against 62 at N = 20): 0.52. An error ``d`` in
#: B0 moves Theorem 1's mean queue by ``2 d / 3`` from B0 on (eq. (7):
#: ``B - 2 B0 / 3``), not in proportion to it, and by eq. (9) below B0: the
#: mean queue's pass mark is Theorem 1's own mean queue with B0 moved by
#: this gap (:func:`~bufsim.reproduce.avrachenkov2006.runs.mean_queue_mark`).
PAPER_B0_GAP_REL = max(abs(PAPER[n][1] - PAPER_RULES[n][0]) / PAPER_RULES[n][0] for n in PAPER)
PAPER_B0_GAP_SOURCE = prose(
    "Theorem 1's own mean queue with its B0 moved by the paper's largest relative gap between "
    "its simulated B0 and its model's that it reports as confirming the model (section III: "
    "ns-2's {p} against eq. (12)'s {t:g} at N = {n}, {gap:.2f}): by eq. (7) a B0 off by `d` "
    "moves the mean queue by `2 d / 3` from B0 on, not in proportion, and by eq. (9) below it",
    p=PAPER[5][1],
    t=PAPER_RULES[5][0],
    n=5,
    gap=PAPER_B0_GAP_REL,
)

#: Grid step of the buffers the B0 bisections search, packets (:data:`GRID_STEP`).
STEP_PKTS = 10.0

#: The BDP rule's relative error at N = 5 in the paper's own numbers
#: (section III: 150 against ns-2's 120), the smallest it shows for several
#: connections, where "one should apply a different model" (Figure 8): the
#: line between the rule "appropriate" for one connection (at most it) and
#: not for several (at least it).
PAPER_BDP_ERR_N5 = abs(BDP_PKTS - PAPER[5][1]) / PAPER[5][1]

#: The paper's own B0 against the Stanford rule's (section III: 120 > 67
#: and 70 > 21, the latter 33.5 by its formula).
STANFORD_SOURCE = (
    "the paper's own ns-2 B0 above the Stanford rule's at both N (section III): B0 at least "
    "the rule's"
)
PAPER_GAP_SOURCE = prose(
    "the paper's own gap it calls 'slightly lower' (section III, Figure 7): its ns-2 "
    "{r} Mbps at no buffer against Corollary 1's {cor:g}",
    r=min(r for r, _ in PAPER.values()),
    cor=COROLLARY1_MBPS,
)
