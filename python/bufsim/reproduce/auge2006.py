"""Paper 000 (Augé & Roberts, *Buffer sizing for elastic traffic*, NGI 2006),
section IV.B (the elastic regime, figures 3-5) and section V (HighSpeed TCP
and fair queueing, figures 6 and 7).

A 50 Mbps bottleneck carries a 25 Mbps Poisson packet background (standing
in for many non-bottlenecked flows) and 1, 2 or 4 persistent NewReno flows
with a 100 ms RTT; buffers of 20, 100 and 625 packets (625 = the BDP with
1000 B packets). The paper reports, for one bottlenecked flow: with 20
packets it gets "around 40% of the residual bandwidth"; 625 packets give
"100% utilization"; 100 packets are "a reasonable compromise". Without
background, one flow with a 1-packet buffer "should acquire a throughput of
75% of the link capacity", "around 80% with a 20 packet buffer".

ns-2 details the paper does not give (background packet size, how the
100 ms splits between access and bottleneck) are set here to 1000 B and
2 x 48 ms bottleneck + 4 ms access; they are stated in :data:`BASE`.

Each case also runs with SACK (RFC 6675) next to the paper's NewReno
(RFC 6582): with a full buffer the Poisson background makes an overflow
drop many TCP packets at once, NewReno repairs one per RTT and, following
RFC 6582's "Impatient" timer rule, often ends in a timeout; SACK does not.

With 625 packets the NewReno flow used to get only 0.83 of the residual
bandwidth (0.99 with SACK): after its timeout, the segments go-back-N
resent produced duplicate ACKs that started a second, spurious recovery
from a flight of a few packets, leaving ssthresh near 2 and the flow
crawling. RFC 6582 section 3.2 step 2's rule, applied strictly after a
timeout, ignores them: 0.985 now, the paper's "100% utilization". The
scenarios pin `stack = "rfc"` (the default) so other stack profiles do not
move these numbers.

Figure 5: with 2 flows at 20 packets both lose in about 1 in 10 congestion
events with a TCP loss (the paper's "little synchronized loss"); the Jain
index of 2 and 4 flows is above 0.98 ("approximately fair").

Section V (:func:`run_section_v`, run by :func:`claims` and
:func:`figures` through :func:`section_v`) takes figures 6 and 7's six
cases: 1 HSTCP flow at 20 packets, HSTCP + NewReno at 625 and 4 HSTCP at 625
under FIFO drop-tail; 1 NewReno at 20, HSTCP + NewReno and 4 HSTCP at 625
under fair queueing (DRR, drop from the longest queue). The paper leaves
open, and bufsim pins: HSTCP is RFC 3649 with its defaults (Low_Window 38,
High_Window 83000, High_P 1e-7) on the same stack as the NewReno flows (no
SACK, no delayed ACKs, `stack = "rfc"`, all flows start at 0 s); FQ shares
the 625-packet buffer among the queues and spreads the Poisson background
over 1024 queues (`qdisc_params.background_flows`' default: many slow
non-bottlenecked flows); every case also runs with SACK for every flow.

Where section V differs: (1) at 20 packets one HSTCP flow does not beat
NewReno (0.36 against 0.41 of the residual, 0.39 against 0.40 with SACK):
the losses come from background bursts, not from the window reaching the
pipe, and HSTCP's faster increase meets them three times as often. (2)
Under FQ, HSTCP gets 0.48, not "slightly more" than NewReno: the longest
queue, HSTCP's, takes the drops, and its NewReno-style recovery times out
(19 times against 3); with SACK the split is exactly even, DRR serving two
always-backlogged queues. (3) In the 300 s run FQ lowers the 4 HSTCP flows'
cwnd variation by 1.41x, not the 1.5x asked: their timeouts (77 under FQ, 78
under FIFO) remain; with SACK the factor is 2.5.

Without SACK the cwnd traces peak at 1000-3500 packets, above anything the
path holds (the 312-packet residual BDP plus 625 packets of buffer): this is
NewReno's fast recovery doing what RFC 6582 section 3.2 (after RFC 5681
section 3.2 step 4) says, not a fault. Every duplicate ACK inflates cwnd by
one segment, a partial ACK deflates it only by what it newly acknowledges,
and NewReno repairs one hole per RTT, so after an overflow that drops many
packets of one window cwnd grows by about a window's worth of duplicate ACKs
per RTT of recovery; the inflation counts segments that have left the
network, and the sender still sends one segment per segment that left.
Measured by :func:`recovery_inflation` in the 300 s runs: peaks 3490 (1
NewReno, 625 packets), 3271 (the HSTCP flow of HSTCP + NewReno), 1641-2193
(4 HSTCP), 95th percentiles 200-1520; while cwnd is above 937 packets a flow
puts at most 878 packets per 100 ms (one RTT) into the bottleneck (432 for
that HSTCP flow), no more than the path holds; and no inflated stretch lasts
more than 1.3 s, because the retransmission timer, reset only at the first
partial ACK (RFC 6582's "Impatient" variant), ends long recoveries with a
timeout (cwnd 1). At the full ACK cwnd deflates to min(ssthresh, FlightSize
+ 1) (RFC 6582 section 3.2 step 3, option 1; the sender's unit test
``newreno_fast_retransmit_and_partial_ack``). The figures clip these peaks
(:func:`_clip_recovery`) and ``cwnd_cv`` includes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
from bufsim.reproduce import Claims, variant

#: The embedded base scenario (also the packaged example ``auge2006``, :mod:`bufsim.examples`).
BASE: dict[str, Any] = {
    "name": "auge2006",
    "duration": "300s",
    "warmup": "20s",
    "seed": 1,
    "link": {"capacity": "50Mbps", "delay": "48ms", "buffer": "20pkt"},
    "flows": [
        {
            "count": 1,
            "tcp": "newreno",
            "rtt": "100ms",
            "mss": "1000B",
            "sack": False,
            "delayed_ack": False,
            "stack": "rfc",
        }
    ],
    "background": [{"kind": "poisson", "rate": "25Mbps", "packet_size": "1000B"}],
}

#: (flows, buffer packets, background?) -> what the paper says of that case.
PAPER: dict[tuple[int, int, bool], tuple[str, float]] = {
    (1, 20, True): ("share ~0.40", 0.40),
    (1, 100, True): ("compromise", math.nan),
    (1, 625, True): ("util ~1.00", 1.00),
    (2, 20, True): ("> 1 flow", math.nan),
    (4, 20, True): ("> 2 flows", math.nan),
    (1, 1, False): ("util 0.75", 0.75),
    (1, 20, False): ("util ~0.80", 0.80),
}

CASES: list[tuple[int, int, bool]] = [(n, b, True) for n in (1, 2, 4) for b in (20, 100, 625)] + [
    (1, 1, False),
    (1, 20, False),
]


def scenario(
    flows: int, buffer_pkts: int, background: bool = True, duration: str = "300s"
) -> dict[str, Any]:
    """The raw scenario of one case (a dict with unit strings)."""
    s = variant(
        BASE,
        f"auge2006-n{flows}-b{buffer_pkts}{'' if background else '-nobg'}",
        duration=duration,
        buffer_pkts=buffer_pkts,
    )
    s["flows"][0]["count"] = flows
    if not background:
        s["background"] = []
    return s


def scenario_sack(
    flows: int, buffer_pkts: int, background: bool = True, duration: str = "300s"
) -> dict[str, Any]:
    """The same case with SACK-based recovery."""
    s = scenario(flows, buffer_pkts, background, duration)
    s["name"] += "-sack"
    s["flows"][0]["sack"] = True
    return s


def _with_cwnd(s: dict[str, Any]) -> dict[str, Any]:
    """``s`` with per-flow cwnd in its time series, sampled every RTT (100 ms)."""
    s["output"] = {"interval": "100ms", "cwnd": True}
    return s


def _cwnd_columns(r: Any) -> list[str]:
    return [c for c in r.timeseries.columns if str(c).startswith("cwnd_flow")]


def recovery_inflation(r: Any, flow: int, pipe_pkts: float = 937.5) -> dict[str, float]:
    """How far NewReno's fast recovery inflates one flow's cwnd, and whether
    the inflation is only accounting (RFC 5681 section 3.2 step 4, RFC 6582
    section 3.2): the sender still sends one segment per segment that left.

    Parameters
    ----------
    r : bufsim.Result
        A packet run with ``output.cwnd`` (every 100 ms, one RTT) and
        ``output.trace``.
    flow : int
        The flow (``cwnd_flow<flow>``).
    pipe_pkts : float
        The most the flow can have in the network: the residual BDP plus the
        buffer (default: 25 Mbps x 100 ms / 1000 B + 625 packets).

    Returns
    -------
    dict
        ``peak`` and ``p95`` (cwnd, packets); ``stretches`` (runs of samples
        with cwnd above ``pipe_pkts``), ``longest_s`` (the longest, seconds);
        ``max_sent_inflated`` (the flow's most packets reaching the bottleneck
        in a 100 ms sample, one RTT, while its cwnd is above ``pipe_pkts``).
        The deflation at the end of recovery (cwnd = min(ssthresh,
        FlightSize + 1) at the full ACK) is checked by the sender's unit test
        ``newreno_fast_retransmit_and_partial_ack``.
    """
    cw = r.timeseries[f"cwnd_flow{flow}"]
    tr = r.trace
    sent = tr[(tr["event"].astype(str) == "enqueue") & (tr["flow"] == flow)]["time_s"]
    t = cw.index.to_numpy(dtype=float)
    counts = np.histogram(sent, bins=np.r_[t[0] - 0.1, t])[0]
    hi = (cw > pipe_pkts).to_numpy()
    starts = np.flatnonzero(hi & ~np.r_[False, hi[:-1]])
    ends = np.flatnonzero(hi & ~np.r_[hi[1:], False])
    return {
        "peak": float(cw.max()),
        "p95": float(cw.quantile(0.95)),
        "stretches": float(len(starts)),
        "longest_s": float(((ends - starts + 1).max() if len(starts) else 0) * 0.1),
        "max_sent_inflated": float(counts[hi].max() if hi.any() else 0),
    }


def _loss_stats(r: Any) -> dict[str, float]:
    """Loss measures of one run's TCP flows after the warm-up.

    Returns
    -------
    dict
        ``sync_all``: the fraction of congestion events (one RTT from a
        bottleneck drop) with a TCP loss in which every TCP flow lost (NaN
        with one flow or no such event); ``drops`` and ``timeouts``: summed
        over the TCP flows (packets, events); ``mean_cwnd``: the
        time-averaged cwnd of the flows, averaged over them (packets).
    """
    e = r.congestion_events
    e = e[(e["time_s"] > r.scenario["warmup_s"]) & (e["fraction"] > 0)]
    n = len(r.flows)
    sync_all = float((e["fraction"] >= 1 - 1e-9).mean()) if n > 1 and len(e) else math.nan
    return {
        "sync_all": sync_all,
        "drops": float(r.flows["drops"].sum()),
        "timeouts": float(r.flows["timeouts"].sum()),
        "mean_cwnd": float(_after_warmup(r)[_cwnd_columns(r)].mean().mean()),
    }


def _after_warmup(r: Any) -> pd.DataFrame:
    ts = r.timeseries
    return ts[ts.index.to_numpy(dtype=float) > r.scenario["warmup_s"]]


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Run every case; one row per case.

    Parameters
    ----------
    quick : bool
        120 s of simulated time per case instead of 300 s (one flow's
        sawtooth lasts about 30 s here, so quick numbers are rougher).
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        Columns ``flows``, ``buffer_pkts``, ``background``, ``utilization``
        (whole link, 0..1), ``tcp_mbps`` (goodput of the TCP flows),
        ``residual_share`` (TCP goodput / (capacity - background rate)),
        ``residual_share_sack`` (the same with SACK), ``jain_index`` and
        ``sync_mean`` (fairness of the NewReno flows' goodputs and their loss
        synchronization, figure 5), ``goodput_mbps`` (per-flow NewReno
        goodputs, Mbit/s, a tuple), ``sync_all``, ``drops``, ``timeouts``
        and ``mean_cwnd`` (:func:`_loss_stats`), ``paper`` (what the paper reports) and
        ``paper_value`` (NaN where it gives no number). ``attrs["series"]``
        maps ``(flows, buffer_pkts, background)`` to the NewReno run's time
        series (``utilization`` and ``cwnd_flow<i>`` every 100 ms, figures 3
        and 5); ``attrs["quick"]`` records ``quick``.
    """
    duration = "120s" if quick else BASE["duration"]
    rows = []
    series: dict[tuple[int, int, bool], pd.DataFrame] = {}
    for flows, buf, bg in CASES:
        if progress:
            progress(f"running auge2006 flows={flows} buffer={buf}pkt background={bg} ...")
        r = bufsim.simulate(_with_cwnd(scenario(flows, buf, bg, duration)))
        series[(flows, buf, bg)] = r.timeseries[["utilization", *_cwnd_columns(r)]]
        r_sack = bufsim.simulate(scenario_sack(flows, buf, bg, duration))
        residual = r.scenario["link"]["capacity_bps"] - sum(
            b["rate_bps"] for b in r.scenario["background"]
        )
        note, value = PAPER.get((flows, buf, bg), ("", math.nan))
        rows.append(
            {
                "flows": flows,
                "buffer_pkts": buf,
                "background": bg,
                "utilization": r.summary["utilization"],
                "tcp_mbps": r.summary["goodput_bps"] / 1e6,
                "residual_share": r.summary["goodput_bps"] / residual,
                "residual_share_sack": r_sack.summary["goodput_bps"] / residual,
                "jain_index": r.summary["jain_index"],
                "sync_mean": r.summary["sync_mean"],
                "goodput_mbps": tuple(round(x / 1e6, 3) for x in r.flows["goodput_bps"]),
                **_loss_stats(r),
                "paper": note,
                "paper_value": value,
            }
        )
    table = pd.DataFrame(rows)
    table.attrs["quick"] = quick
    table.attrs["series"] = series
    return table


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements beside bufsim's numbers, with a verdict.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`run`.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``claim``, ``paper`` (the statement), ``bufsim``
        (the number compared), ``tolerance``, ``verdict`` (``agrees`` or
        ``differs``) and ``why`` (the reason for a difference, or the check).
    """
    t = table.set_index(["flows", "buffer_pkts", "background"])
    c = Claims()

    def claim(name: str, paper: str, value: float, target: float, tol: float, why: str) -> None:
        c.add(name, paper, value, abs(value - target) <= tol, why, tol)

    claim(
        "1 flow, 20 packets",
        "around 40% of the residual bandwidth",
        t.loc[(1, 20, True), "residual_share"],
        0.40,
        0.10,
        "NewReno share of 25 Mbps, 'around' read as +-0.1",
    )
    claim(
        "1 flow, 625 packets",
        "100% utilization",
        t.loc[(1, 625, True), "residual_share"],
        1.0,
        0.03,
        "NewReno share of 25 Mbps",
    )
    claim(
        "1 flow, 1 packet, no background",
        "75% of the link",
        t.loc[(1, 1, False), "utilization"],
        0.75,
        0.03,
        "paper 003 Theorem 1 gives 0.752",
    )
    claim(
        "1 flow, 20 packets, no background",
        "around 80%",
        t.loc[(1, 20, False), "utilization"],
        0.80,
        0.03,
        "Theorem 1 gives 0.758 for 20 packets: the paper's 80% is an estimate the theory does not support",
    )
    shares = [t.loc[(n, 20, True), "utilization"] for n in (1, 2, 4)]
    grows = shares[0] < shares[1] < shares[2]
    c.add(
        "1, 2, 4 flows, 20 packets",
        "utilization improves with more flows (figure 5)",
        shares[2],
        grows,
        "utilization " + " < ".join(f"{u:.3f}" for u in shares),
    )
    _figure5_claims(c, t)
    _section_v_claims(c, t, section_v(table))
    return c.table()


def section_v(table: pd.DataFrame) -> pd.DataFrame:
    """Section V's results for a :func:`run` table: ``table.attrs["section_v"]``,
    computed once by :func:`run_section_v` (quick if the table is)."""
    if "section_v" not in table.attrs:
        table.attrs["section_v"] = run_section_v(quick=table.attrs.get("quick", False))
    return table.attrs["section_v"]


def _figure5_claims(c: Claims, t: pd.DataFrame) -> None:
    """Figure 5's synchronization and fairness (2 and 4 NewReno flows, 20 packets)."""
    r2 = t.loc[(2, 20, True)]
    c.add(
        "2 flows, 20 packets: synchronization (fig. 5)",
        "even with only two flows, there is little synchronized loss",
        r2["sync_all"],
        r2["sync_all"] <= 0.25,
        "fraction of the congestion events with a TCP loss in which both flows lost; 'little' read"
        f" as <= 0.25 (sync_mean {r2['sync_mean']:.3f}, counting background-only events as 0)",
    )
    jain = min(t.loc[(n, 20, True), "jain_index"] for n in (2, 4))
    c.add(
        "2, 4 flows, 20 packets: fairness (fig. 5)",
        "bandwidth sharing is approximately fair",
        jain,
        jain >= 0.95,
        "the lower Jain index of the NewReno goodputs with 2 and 4 flows; 'approximately' read as >= 0.95",
    )


def _section_v_claims(c: Claims, t: pd.DataFrame, v: pd.DataFrame) -> None:
    """Section V.A: HighSpeed TCP under FIFO drop-tail (figure 6)."""
    hs, nr = v.loc["hs1-b20-fifo"], t.loc[(1, 20, True)]
    c.add(
        "V.A, 1 HSTCP flow, 20 packets (fig. 6 left)",
        "a single HSTCP connection uses bandwidth more efficiently than Reno",
        hs["residual_share"],
        hs["residual_share"] > nr["residual_share"] + 0.05,
        f"'more' read as > NewReno's {nr['residual_share']:.3f} + 0.05. With SACK"
        f" {hs['residual_share_sack']:.3f} vs {nr['residual_share_sack']:.3f}. The losses come from"
        " background bursts overflowing 20 packets, not from the window exceeding the 312-packet"
        " residual pipe: HSTCP's"
        f" faster increase reaches them sooner ({hs['drops']:.0f} drops vs {nr['drops']:.0f}),"
        f" so its mean cwnd is no larger ({hs['mean_cwnd']:.0f} vs {nr['mean_cwnd']:.0f} packets)",
    )
    mix = v.loc["hs1nr1-b625-fifo"]
    c.add(
        "V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)",
        "the Reno connection is unable to compete fairly with the more aggressive HSTCP",
        mix["hstcp_share_mean"],
        mix["hstcp_share_mean"] >= 0.7,
        f"HSTCP's fraction of the TCP goodput, mean over {len(MIX_SEEDS)} seeds (seed 1:"
        f" {mix['hstcp_share']:.3f}, Jain {mix['jain_index']:.3f}; with SACK"
        f" {mix['hstcp_share_mean_sack']:.3f}); 'unable to compete' read as >= 0.7",
    )
    lead = v.loc["hs4-b625-fifo", "leaders"]
    c.add(
        "V.A, 4 HSTCP flows, 625 packets, FIFO (fig. 6 right)",
        "one flow after the other gains a temporary ascendancy",
        lead,
        lead >= 2,
        "flows holding the largest cwnd for >= 10% of the time after the warm-up (>= 2 needed)",
    )
    _fq_claims(c, t, v)


def _fq_claims(c: Claims, t: pd.DataFrame, v: pd.DataFrame) -> None:
    """Section V.B: per-flow fair queueing with drop from the longest queue (figure 7)."""
    fq, fifo = v.loc["nr1-b20-fq", "residual_share"], t.loc[(1, 20, True), "residual_share"]
    c.add(
        "V.B, 1 NewReno flow, 20 packets, FQ (fig. 7 left)",
        "fair queuing barely alleviates the loss in performance due to a very small buffer",
        fq,
        abs(fq - fifo) <= 0.1,
        f"NewReno share of the residual under FQ; FIFO gives {fifo:.3f}; 'barely' read as within 0.1 of it",
        0.1,
    )
    bg = float(v.loc[v["qdisc"] == "fq", "background_drops"].sum())
    c.add(
        "V.B, background under FQ",
        "it does, however, avoid loss for the non-bottlenecked flows",
        bg,
        bg == 0,
        "background packets dropped in the three FQ cases (FIFO, 1 HSTCP flow, 20 packets: "
        f"{v.loc['hs1-b20-fifo', 'background_drops']:.0f})",
        0.0,
    )
    mix, fifo_mix = v.loc["hs1nr1-b625-fq"], v.loc["hs1nr1-b625-fifo"]
    c.add(
        "V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): bias",
        "fair queuing considerably reduces the bias in favour of HSTCP",
        mix["hstcp_share"],
        abs(mix["hstcp_share"] - 0.5) <= 0.1,
        f"HSTCP's fraction of the TCP goodput (FIFO {fifo_mix['hstcp_share']:.3f}); within 0.1 of an even split",
        0.1,
    )
    (to_hs, to_nr), (dr_hs, dr_nr) = mix["flow_timeouts"], mix["flow_drops"]
    c.add(
        "V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): HSTCP ahead",
        "the HSTCP flow does, however, gain slightly more throughput than the Reno flow",
        mix["hstcp_share"],
        0.5 < mix["hstcp_share"] <= 0.6,
        f"'slightly more' read as 0.5 to 0.6. HSTCP times out {to_hs} times, NewReno {to_nr}: drop"
        f" from the longest queue takes {dr_hs} packets from HSTCP's (longer) queue, {dr_nr} from"
        " NewReno's, in runs whose NewReno-style recovery ends in timeouts. With SACK the split is {mix['hstcp_share_sack']:.3f}:"
        " both queues stay backlogged in the shared 625-packet buffer, so DRR serves them equally"
        " and HSTCP's aggressiveness cannot show",
    )
    _fq_chaos_claims(c, v)


def _fq_chaos_claims(c: Claims, v: pd.DataFrame) -> None:
    """Section V.B: four HSTCP flows under FQ against FIFO (figures 6 and 7, right)."""
    f, q = v.loc["hs4-b625-fifo"], v.loc["hs4-b625-fq"]
    ratio = f["cwnd_cv"] / q["cwnd_cv"]
    c.add(
        "V.B, 4 HSTCP flows, 625 packets, FQ (fig. 7 right)",
        "fair queuing effectively counters the chaotic behaviour",
        ratio,
        ratio >= 1.5 and q["jain_index"] >= 0.95,
        f"cwnd coefficient of variation FIFO {f['cwnd_cv']:.3f} / FQ {q['cwnd_cv']:.3f} (>= 1.5"
        f" needed) and FQ Jain {q['jain_index']:.3f} (>= 0.95). Under FQ the flows still time out"
        f" {q['timeouts']:.0f} times (FIFO {f['timeouts']:.0f}), each a fall of cwnd to 1 that FQ"
        f" does not prevent; with SACK ({q['timeouts_sack']:.0f} timeouts) the ratio is"
        f" {f['cwnd_cv_sack'] / q['cwnd_cv_sack']:.2f}",
    )
    c.add(
        "V.B, 4 HSTCP flows: synchronization",
        "desynchronized loss events due to flow isolation",
        q["sync_mean"],
        q["sync_mean"] < f["sync_mean"],
        f"mean fraction of the 4 flows losing in a congestion event: FQ below FIFO's {f['sync_mean']:.3f}",
    )


# ------------------------------------------------------------------ section V

#: Section V's cases: name -> (figure panel, qdisc, TCP of each flow, buffer packets).
SECTION_V: dict[str, tuple[str, str, tuple[str, ...], int]] = {
    "hs1-b20-fifo": ("6 left", "droptail", ("highspeed",), 20),
    "hs1nr1-b625-fifo": ("6 middle", "droptail", ("highspeed", "newreno"), 625),
    "hs4-b625-fifo": ("6 right", "droptail", ("highspeed",) * 4, 625),
    "nr1-b20-fq": ("7 left", "fq", ("newreno",), 20),
    "hs1nr1-b625-fq": ("7 middle", "fq", ("highspeed", "newreno"), 625),
    "hs4-b625-fq": ("7 right", "fq", ("highspeed",) * 4, 625),
}


def scenario_v(case: str, duration: str = "300s", sack: bool = False) -> dict[str, Any]:
    """The raw scenario of a section V case (a key of :data:`SECTION_V`).

    One flow group per flow (``count = 1``, flow ``i`` is ``cwnd_flow<i>``),
    each with :data:`BASE`'s stack (no delayed ACKs, ``stack = "rfc"``; SACK
    for every flow if ``sack``, else none) and its own ``tcp``;
    ``link.qdisc`` is ``droptail`` (FIFO) or ``fq`` (DRR, drop from the
    longest queue, the background spread over the default 1024 queues);
    cwnd and utilization sampled every 100 ms.
    """
    _, qdisc, tcps, buffer_pkts = SECTION_V[case]
    s = variant(BASE, f"auge2006-{case}", duration=duration, buffer_pkts=buffer_pkts)
    s["flows"] = [dict(BASE["flows"][0], tcp=t, count=1, sack=sack) for t in tcps]
    s["link"]["qdisc"] = qdisc
    return _with_cwnd(s)


def cwnd_chaos(ts: pd.DataFrame) -> tuple[float, int]:
    """How chaotic a set of cwnd time series is.

    Parameters
    ----------
    ts : pandas.DataFrame
        ``cwnd_flow<i>`` columns (packets), one row per sample.

    Returns
    -------
    cv : float
        The coefficient of variation of each flow's cwnd over time (std /
        mean, dimensionless), averaged over the flows.
    leaders : int
        How many flows hold the largest cwnd for at least 10% of the samples
        ("one flow after the other gains a temporary ascendancy").
    """
    w = ts[[c for c in ts.columns if str(c).startswith("cwnd_flow")]]
    cv = float((w.std(ddof=0) / w.mean()).mean())
    lead = w.to_numpy().argmax(axis=1)
    leaders = sum(int((lead == i).mean() >= 0.1) for i in range(w.shape[1]))
    return cv, leaders


def _measure_v(r: Any, tcps: tuple[str, ...]) -> dict[str, Any]:
    """What section V compares in one run (see :func:`run_section_v`)."""
    g = r.flows["goodput_bps"].to_numpy()
    cv, leaders = cwnd_chaos(_after_warmup(r))
    return {
        "utilization": r.summary["utilization"],
        "residual_share": r.summary["goodput_bps"] / 25e6,
        "goodput_mbps": tuple(round(x / 1e6, 3) for x in g),
        "hstcp_share": _hstcp_share(r) if len(set(tcps)) == 2 else math.nan,
        "jain_index": r.summary["jain_index"],
        "sync_mean": r.summary["sync_mean"],
        "cwnd_cv": cv,
        "leaders": leaders,
        "background_drops": r.summary.get("background_drops", math.nan),
        "flow_timeouts": tuple(int(x) for x in r.flows["timeouts"]),
        "flow_drops": tuple(int(x) for x in r.flows["drops"]),
        **_loss_stats(r),
    }


def _hstcp_share(r: Any) -> float:
    """The first (HSTCP) flow's fraction of the TCP goodput of a mix's run."""
    g = r.flows["goodput_bps"].to_numpy()
    return g[0] / g.sum()


#: Seeds over which the HSTCP + NewReno mixes' split is averaged: the first
#: is :data:`BASE`'s, the case's own run. With the background's Poisson
#: arrivals one run's split is a draw: under FIFO HSTCP's share spread over
#: 0.64-0.80 across these seeds (120 s runs; 0.67-0.77 over 300 s).
MIX_SEEDS = tuple(range(BASE["seed"], BASE["seed"] + 6))


def mix_share(case: str, duration: str, sack: bool, own: float) -> float:
    """HSTCP's fraction of the TCP goodput in a section V mix (a case of
    :data:`SECTION_V` with an HSTCP and a NewReno flow), mean over
    :data:`MIX_SEEDS`, with SACK for both flows or without; ``own`` is the
    share of the case's own run (the first seed), the others are run here."""
    shares = [own]
    for seed in MIX_SEEDS[1:]:
        s = scenario_v(case, duration, sack)
        s["seed"] = seed
        shares.append(_hstcp_share(bufsim.simulate(s)))
    return float(np.mean(shares))


#: The columns of :func:`run_section_v` repeated for the SACK runs (suffix ``_sack``).
_SACK_COLUMNS = ("residual_share", "hstcp_share", "jain_index", "cwnd_cv", "timeouts", "mean_cwnd")


def run_section_v(
    quick: bool = False, progress: Callable[[str], Any] | None = None
) -> pd.DataFrame:
    """Run section V's cases (figures 6 and 7); one row per case.

    Parameters
    ----------
    quick : bool
        120 s of simulated time per case instead of 300 s.
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        Indexed by case (:data:`SECTION_V`'s keys); columns ``figure``,
        ``qdisc``, ``tcp`` (the flows' TCPs joined by ``+``),
        ``buffer_pkts``, ``utilization`` (whole link, 0..1),
        ``residual_share`` (TCP goodput / the 25 Mbps residual),
        ``goodput_mbps`` (per-flow goodputs, Mbit/s, a tuple),
        ``hstcp_share`` (the first, HSTCP, flow's fraction of the TCP goodput
        in the HSTCP + NewReno mix, NaN otherwise), ``hstcp_share_mean``
        (the same, mean over :data:`MIX_SEEDS`: :func:`mix_share`), ``jain_index``,
        ``sync_mean``, ``cwnd_cv`` and ``leaders`` (:func:`cwnd_chaos` after
        the warm-up), ``background_drops`` (packets), ``flow_timeouts``
        and ``flow_drops`` (per flow, tuples), the :func:`_loss_stats` columns, and
        ``residual_share_sack``, ``hstcp_share_sack``, ``hstcp_share_mean_sack``, ``jain_index_sack``,
        ``cwnd_cv_sack``, ``timeouts_sack``, ``mean_cwnd_sack``: the same
        case with SACK (RFC 6675) for every flow.
        ``attrs["series"]`` maps a case to its time series (``utilization``
        and ``cwnd_flow<i>``, every 100 ms).
    """
    duration = "120s" if quick else BASE["duration"]
    rows, series = [], {}
    for case, (figure, qdisc, tcps, buf) in SECTION_V.items():
        if progress:
            progress(f"running auge2006 section V {case} ...")
        r = bufsim.simulate(scenario_v(case, duration))
        m = _measure_v(r, tcps)
        m_sack = _measure_v(bufsim.simulate(scenario_v(case, duration, sack=True)), tcps)
        series[case] = r.timeseries[["utilization", *_cwnd_columns(r)]]
        mix = len(set(tcps)) == 2
        rows.append(
            {"case": case, "figure": figure, "qdisc": qdisc, "tcp": "+".join(tcps)}
            | {"buffer_pkts": buf}
            | m
            | {f"{k}_sack": m_sack[k] for k in _SACK_COLUMNS}
            | {
                f"hstcp_share_mean{sfx}": (
                    mix_share(case, duration, sack, own["hstcp_share"]) if mix else math.nan
                )
                for sfx, sack, own in (("", False, m), ("_sack", True, m_sack))
            }
        )
    table = pd.DataFrame(rows).set_index("case")
    table.attrs["series"] = series
    return table


# ------------------------------------------------------------------ figures

#: Utilization the paper's numbers imply for figure 3 (link, 0..1): the 25 Mbps
#: background plus 40% (20 packets) or 100% (625 packets) of the 25 Mbps residual.
_FIG3_PAPER = {20: (0.5 + 0.5 * 0.40, "paper: 40% of the residual"), 625: (1.0, "paper: 100%")}


def _clip_recovery(ax: Any, cwnd: pd.DataFrame) -> None:
    """Clip a cwnd panel at 1.2 times the 95th percentile of its samples
    (packets) and give the raw peak in the panel's title.

    Without SACK, fast recovery inflates cwnd by one packet per duplicate ACK
    (RFC 6582) while NewReno repairs one loss per RTT, so after a burst of
    drops cwnd stays several times the sawtooth for seconds (SACK's recovery,
    RFC 6675, has no inflation: with it the peaks stay below 600 packets);
    drawn in full they flatten the sawtooth and the flows' ascendancy.
    """
    values = cwnd.to_numpy().ravel()
    top, peak = 1.2 * float(pd.Series(values).quantile(0.95)), float(values.max())
    if peak > top:
        ax.set_ylim(0, top)
        ax.set_title(f"clipped; recovery inflation peaks at {peak:.0f}", fontsize=7)


def _series_panels(
    series: list[tuple[str, pd.DataFrame]], title: str, refs: dict[int, tuple[float, str]]
) -> Any:
    """The paper's figure layout: utilization (top) and cwnd (bottom) against
    time, one column per case; ``refs`` maps a column to a utilization mark."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10.0, 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, len(series), sharex=True, squeeze=False)
    for k, (label, ts) in enumerate(series):
        t = ts.index.to_numpy(dtype=float)
        top, bottom = axes[0, k], axes[1, k]
        top.plot(t, ts["utilization"], lw=0.5, color="#1f4e79")
        if k in refs:
            top.axhline(refs[k][0], color="#c00000", ls="--", lw=1, label=refs[k][1])
            top.legend(fontsize=7, loc="lower right")
        top.set_ylim(0, 1.05)
        top.set_title(label, fontsize=9)
        cwnd = ts[[c for c in ts.columns if str(c).startswith("cwnd_flow")]]
        for c in cwnd.columns:
            bottom.plot(t, cwnd[c], lw=0.7, label=str(c).removeprefix("cwnd_"))
        _clip_recovery(bottom, cwnd)
        if ts.shape[1] > 2:
            bottom.legend(fontsize=7, ncol=4, loc="upper left", handlelength=1)
        bottom.set_xlabel("time (s)")
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    axes[0, 0].set_ylabel("utilization (per 100 ms)")
    axes[1, 0].set_ylabel("cwnd (packets)")
    fig.suptitle(title, fontsize=10)
    return fig


def _fairness_figure(table: pd.DataFrame, v: pd.DataFrame) -> Any:
    """Per-flow goodputs of figures 5-7 beside the fair share, Jain index and
    synchronization annotated."""
    from bufsim.plot import _figure

    t = table.set_index(["flows", "buffer_pkts", "background"])
    cases = [
        ("2 NewReno\n20 pkt FIFO", t.loc[(2, 20, True)], None),
        ("4 NewReno\n20 pkt FIFO", t.loc[(4, 20, True)], None),
    ] + [
        (
            f"{r.tcp.replace('highspeed', 'HS').replace('newreno', 'NR')}\n"
            f"{r.buffer_pkts} pkt {'FQ' if r.qdisc == 'fq' else 'FIFO'}",
            r,
            r.tcp,
        )
        for case, r in v.iterrows()
        if case.startswith(("hs1nr1", "hs4"))
    ]
    fig, (ax,) = _figure(8.0, 4.2)
    for x, (_, r, tcp) in enumerate(cases):
        g = list(r["goodput_mbps"])
        tcps = tcp.split("+") if tcp else ["newreno"] * len(g)
        for gi, ti in zip(g, tcps):
            ax.scatter(
                x,
                gi,
                s=30,
                marker="^" if ti == "highspeed" else "o",
                color="#c55a11" if ti == "highspeed" else "#1f4e79",
                zorder=3,
            )
        fair = 25.0 / len(g)
        ax.hlines(fair, x - 0.3, x + 0.3, color="0.4", ls="--", lw=1)
        ax.annotate(
            f"Jain {r['jain_index']:.2f}\nsync {r['sync_mean']:.2f}",
            (x, 25.5),
            ha="center",
            fontsize=7,
            va="bottom",
        )
    ax.scatter([], [], marker="o", color="#1f4e79", label="NewReno flow")
    ax.scatter([], [], marker="^", color="#c55a11", label="HSTCP flow")
    ax.plot([], [], color="0.4", ls="--", label="fair share of the 25 Mbps residual")
    ax.set_xticks(range(len(cases)), labels=[c[0] for c in cases], fontsize=8)
    ax.set_ylim(0, 30)
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_title(
        "Per-flow goodput: figure 5 (NewReno) and figures 6/7 middle, right (FIFO vs FQ)",
        fontsize=9,
    )
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="center left")
    return fig


def arrivals_figure(window_s: float = 1.0, seed: int = 0) -> Any:
    """Figure 4: packet arrivals at the 20-packet buffer, 1 NewReno flow.

    A 40 s run of the figure 3 case with a packet trace; the window ends
    0.3 s after the first TCP drop past the 20 s warm-up. Each dot is an
    arriving packet at a random height, background packets in the lower
    half, the TCP flow's in the upper half; red squares are drops.

    Parameters
    ----------
    window_s : float
        Width of the time window drawn, seconds.
    seed : int
        Seed of the dots' random heights (the picture is deterministic).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

    from bufsim.plot import _figure

    s = scenario(1, 20, True, "40s")
    s["output"] = {"trace": True}
    tr = bufsim.simulate(s).trace
    t, ev, flow = tr["time_s"].to_numpy(), tr["event"].astype(str).to_numpy(), tr["flow"].to_numpy()
    first = t[(ev == "drop_overflow") & (flow >= 0) & (t > 20.0)][0]
    lo, hi = first + 0.3 - window_s, first + 0.3
    rng = np.random.default_rng(seed)
    fig, (ax,) = _figure(8.0, 3.6)
    for name, rows, color, base in (
        ("background", (ev == "enqueue") & (flow < 0), "0.55", 0.0),
        ("TCP", (ev == "enqueue") & (flow >= 0), "#1f4e79", 1.0),
    ):
        x = t[rows & (t >= lo) & (t <= hi)]
        ax.scatter(x, base + rng.uniform(0.05, 0.95, len(x)), s=3, color=color, label=name)
    drops = (ev == "drop_overflow") & (t >= lo) & (t <= hi)
    x = t[drops]
    ax.scatter(
        x,
        np.where(flow[drops] >= 0, 1.0, 0.0) + rng.uniform(0.05, 0.95, len(x)),
        s=30,
        marker="s",
        facecolor="none",
        edgecolor="#c00000",
        label="dropped",
    )
    ax.set_ylim(0, 2.3)
    ax.set_yticks([0.5, 1.5], labels=["background", "TCP"])
    ax.set_xlabel("arrival time (s)")
    ax.set_title("Figure 4: packet arrivals, 1 NewReno flow, 20-packet buffer, FIFO", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", ncol=3)
    return fig


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Figures 3, 5, 6 and 7 as the paper draws them (utilization per 100 ms
    on top, cwnd below, one column per case), figure 4 (:func:`arrivals_figure`)
    and the per-flow goodputs.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`run` (its ``attrs`` carry the time series; section V
        runs through :func:`section_v`).

    Returns
    -------
    dict
        ``{"fig3_buffers", "fig4_arrivals", "fig5_flows", "fig6_hstcp_fifo", "fig7_fq",
        "goodput_shares": matplotlib Figure}``; figure 3's panels mark the
        utilization the paper's 40% and 100% imply.
    """
    s, v = table.attrs["series"], section_v(table)
    vs = v.attrs["series"]
    fig3 = [(f"1 NewReno, {b} packets", s[(1, b, True)]) for b in (20, 100, 625)]
    fig5 = [(f"{n} NewReno, 20 packets", s[(n, 20, True)]) for n in (1, 2, 4)]
    labels = {
        "hs1-b20-fifo": "1 HSTCP, 20 packets",
        "nr1-b20-fq": "1 NewReno, 20 packets",
        "hs1nr1-b625-fifo": "HSTCP (flow0) + NewReno (flow1), 625 packets",
        "hs1nr1-b625-fq": "HSTCP (flow0) + NewReno (flow1), 625 packets",
        "hs4-b625-fifo": "4 HSTCP, 625 packets",
        "hs4-b625-fq": "4 HSTCP, 625 packets",
    }
    fig6 = [(labels[c], vs[c]) for c in ("hs1-b20-fifo", "hs1nr1-b625-fifo", "hs4-b625-fifo")]
    fig7 = [(labels[c], vs[c]) for c in ("nr1-b20-fq", "hs1nr1-b625-fq", "hs4-b625-fq")]
    return {
        "fig3_buffers": _series_panels(
            fig3,
            "Figure 3: 1 NewReno flow, FIFO, buffers 20 / 100 / 625 packets",
            {0: _FIG3_PAPER[20], 2: _FIG3_PAPER[625]},
        ),
        "fig4_arrivals": arrivals_figure(),
        "fig5_flows": _series_panels(fig5, "Figure 5: 1, 2, 4 NewReno flows, FIFO, 20 packets", {}),
        "fig6_hstcp_fifo": _series_panels(fig6, "Figure 6: HighSpeed TCP, FIFO drop-tail", {}),
        "fig7_fq": _series_panels(
            fig7, "Figure 7: fair queueing (DRR, drop from the longest queue)", {}
        ),
        "goodput_shares": _fairness_figure(table, v),
    }
