"""Paper 004's design: the scenario, the cases, and the constants its
claims and prose read (section III.B's numbers and bufsim's choices).
"""

from __future__ import annotations

from typing import Any

from bufsim.reproduce import prose

#: Paper 004 section III.B: BDP at the 170 ms mean RTT, 1500 B packets.
BDP_PKTS = 141667

BASE: dict[str, Any] = {
    "name": "kumar2010",
    "duration": "3000s",
    "warmup": "300s",
    "seed": 1,
    "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "7083pkt", "packet_size": "1500B"},
    "flows": [
        {
            "count": 10,
            "tcp": "highspeed",
            "stack": "rfc",
            "rtt": {"min": "80ms", "max": "260ms"},
            "mss": "1500B",
        }
    ],
    "fluid": {"sync": 1.0},
}

#: The fluid runs' (duration, warm-up): the paper's 3000 s (section III),
#: and the quick version's.
FULL_DURATION = (BASE["duration"], BASE["warmup"])

QUICK_DURATION = ("1000s", "200s")

VARIANTS = ("aimd", "highspeed", "cubic", "htcp")

SYNC = (0.3, 0.6, 1.0)

FRACTIONS = (0.01, 0.05, 0.1, 0.2, 0.5)

#: Figure 6's panels: variant -> (panel letter, the paper's name).
PANELS = {
    "highspeed": ("a", "HSTCP"),
    "cubic": ("b", "CUBIC"),
    "aimd": ("c", "AIMD"),
    "htcp": ("d", "H-TCP"),
}

#: The modelling alternatives run beside the default: case -> ``[fluid]``
#: settings (``tcp_params`` goes to the flows instead). A case named in
#: :data:`ALT_ONLY` runs only for the variants it lists.
ALTERNATIVES: dict[str, dict[str, Any]] = {
    "m_k = ceil(XN)": {"sync_sd": 0.0},
    "m_k sd 0.5 N": {"sync_sd": 0.5},
    "random flows lose": {"sync_policy": "random"},
    "eq. (1) rate decrease": {"decrease": "rate"},
    "step 1 ms": {"step": "1ms"},
    "no fast convergence": {"tcp_params": {"fast_convergence": False}},
}

#: The other windows read from every default run: from 0 s and after the
#: scenario's warm-up. The default case reads the paper's window, from the
#: first congestion event (section III).
WARMUPS = ("warm-up 0 s", "after the warm-up")

#: Variants whose fluid law has a rate form (``fluid.decrease = "rate"``).
RATE_FORM = ("aimd", "highspeed")

#: The alternatives that exist only for some variants: the rate form, and
#: CUBIC's fast convergence (RFC 9438 section 4.7, on by default in bufsim
#: as in Linux; paper 004 does not say whether its CUBIC has it).
ALT_ONLY = {"eq. (1) rate decrease": RATE_FORM, "no fast convergence": ("cubic",)}

#: HighSpeed's decrease b(W) at these windows (RFC 3649 at about 14,000
#: packets a flow): the cut the AIMD counterfactual takes.
B_HSTCP = 0.2

#: The counterfactual runs (case -> the variants it runs for and its
#: settings, as :data:`ALTERNATIVES`): AIMD with HighSpeed's cut, shown
#: beside the AIMD claims and explaining none of them, as the paper's AIMD
#: flows "behave like 10 parallel TCP flows" (section III.B), which halve.
AIMD_CUT = prose("AIMD with HighSpeed's cut, b = {b:g}", b=B_HSTCP)

COUNTERFACTUALS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    AIMD_CUT: (("aimd",), {"tcp_params": {"b": B_HSTCP}}),
}

# ------------------------------------------------------------------ headline results

#: Why ns-2 has no number for a claim: the paper's fluid model (its
#: section III.B).
NO_NS2_FLUID = "fluid model"

NS2_RUN = "ns-2.35, the paper's simulator, on paper 001's case (its drop-tail runs)"

#: Figure 5's buffer fractions (of 12,500 packets), quick and full.
FIGURE5_FRACTIONS = {True: (0.05, 0.1, 0.2), False: (0.02, 0.05, 0.1, 0.2, 0.4)}

#: The variants the paper's summary says need larger buffers, and the others.
LARGER = ("cubic", "htcp")

SMALLER = ("highspeed", "aimd")

#: A flow's window at the BDP shared by the 10 flows, packets.
W_FLOW = BDP_PKTS / 10

#: CUBIC's time to regain W_max after a cut (RFC 9438 eq. 2, C = 0.4, beta = 0.7), seconds.
K_CUBIC = (W_FLOW * 0.3 / 0.4) ** (1 / 3)

#: AIMD's time to regain a halving at one packet per mean RTT (170 ms), seconds.
AIMD_REGAIN_S = W_FLOW / 2 * 0.17

#: An event this soon after the one before falls inside CUBIC's regrowth
#: from the first cut (half of K, seconds): a second cut in one cycle.
REPEAT_S = K_CUBIC / 2

#: The share of such repeats from which a run is read as cutting twice a
#: cycle: with one repeat per cycle it is a half, without any nought.
REPEAT_SHARE = 0.3

#: The claims' 90% mark (figure 6's level).
LEVEL = 0.9

#: Where the claims' marks come from.
LEVEL_SOURCE = "the paper's words: 'more than 90%' / 'less than 90%' utilization (section III.B)"

ORDER_SOURCE = "the paper's ordering: one variant's utilization above the other's (any margin)"

CLOSE_SOURCE = "the paper's 'close', with no number: within 0.03 of utilization"

CLOSER_SOURCE = (
    "the paper's 'a closer match with NS2 simulation results' than the Boston model (section "
    "III.A): a smaller mean `|u - u_simulation|` over Figure 5's fractions"
)

#: CUBIC's beta_cubic (RFC 9438 section 4.6) and Reno's decrease (RFC 5681
#: section 3.1), bufsim's defaults for "cubic" and "aimd".
BETA_CUBIC = 0.7

B_RENO = 0.5

#: How far the fluid engine at X = 1 may sit from the synchronized closed
#: forms: they leave out the feedback delay (the windows grow for an RTT
#: past the full buffer before they are cut) and the spread of RTTs, about
#: 0.01 (CUBIC) to 0.03 (AIMD) of utilization in the fluid runs.
CLOSED_FORM_TOL = 0.05

#: How the one-cut-per-event reading of eq. (1) was chosen.
ONE_CUT = (
    'fluid.decrease = "event" (one cut per congestion event), chosen over eq. (1) read '
    "literally (a cut per packet's worth of lost fluid) because that reading does not give the "
    "paper's HSTCP numbers"
)

# ------------------------------------------------- fluid calibrated by packet

#: The calibrated comparison's buffers (fractions of :data:`BDP_PKTS`): full
#: version and quick version.
CALIBRATED_FRACTIONS = (0.01, 0.05, 0.2)

CALIBRATED_QUICK_FRACTIONS = (0.05,)

#: Length of the calibrated comparison's runs: (duration, warm-up), full and quick.
CALIBRATED_DURATION = ("600s", "100s")

CALIBRATED_QUICK_DURATION = ("30s", "10s")

#: How near the calibrated fluid sits to the packet engine at 20% of the BDP
#: (utilization): the tests' bound on bufsim's calibration check.
CALIBRATED_TOL = 0.03

#: Width of the bins of the utilization series kept for the figure, seconds.
SERIES_BIN_S = {False: 10.0, True: 1.0}

# ---------------------------------------------- the orderings at packet level

#: The orderings' packet runs (figure 6(b), 6(c) at 5% of BDP: CUBIC below
#: 90% for every X, AIMD above 90% and at or above CUBIC): variants, buffer.
ORDER_VARIANTS = ("cubic", "aimd")

ORDER_FRACTION = 0.05

#: How the senders put packets on the bottleneck: None, at line rate (no
#: access link: what a cumulative ACK or a window increase allows leaves at
#: once, as in :func:`run_calibrated`); "2Gbps", an access link per flow at
#: twice its fair share of the 10 Gbps, which spreads those bursts.
ORDER_ACCESS = (None, "2Gbps")

#: The orderings' runs per variant: (duration, warm-up), full and quick.
#: AIMD's runs are the paper's 3000 s: slow start's burst losses leave its
#: windows at a third of the pipe, which a packet per RTT refills in about
#: 1200 s, and its cycles after the first congestion event last hundreds of
#: seconds (:data:`AIMD_REGAIN_S`); CUBIC's cycles last about K (22 s,
#: :data:`K_CUBIC`), so 1000 s hold dozens of them.
ORDER_DURATION = {"cubic": ("1000s", "100s"), "aimd": ("3000s", "100s")}

ORDER_QUICK_DURATION = {"cubic": ("60s", "10s"), "aimd": ("60s", "10s")}
