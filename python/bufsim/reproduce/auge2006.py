"""Paper 000 (Augé & Roberts, *Buffer sizing for elastic traffic*, NGI 2006),
section IV.B (the elastic regime, figures 3-5) and section V (HighSpeed TCP
and fair queueing, figures 6 and 7): persistent NewReno and HSTCP flows
with a Poisson background over a 50 Mbps link at buffers of 20, 100 and 625
packets. The setup is :func:`setup`, the measured findings :func:`findings`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
import bufsim.models as m
from bufsim import fmt
from bufsim._stats import t_half_width
from bufsim.models.highspeed import hstcp_increase_loss_share as increase_loss_share
from bufsim.plot import figure, grid
from bufsim.reproduce import (
    Claims,
    Explanation,
    Finding,
    Prose,
    prose,
    simulate,
    simulate_each,
    variant,
    whole_cycles,
)

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
        with one flow or no such event); ``sync_tcp``: the mean fraction of
        the TCP flows losing over those events (NaN likewise; ``sync_mean``
        counts the events in which only the background lost as none);
        ``tcp_events`` and ``events``: how many congestion events had a TCP
        loss, and how many there were; ``drops`` and ``timeouts``: summed
        over the TCP flows (packets, events); ``mean_cwnd`` and
        ``median_cwnd``: each flow's cwnd averaged over time, or its median
        over time (which a few seconds of recovery inflation do not move),
        averaged over the flows (packets).
    """
    every = r.congestion_events
    every = every[every["time_s"] > r.scenario["warmup_s"]]
    e = every[every["fraction"] > 0]
    n = len(r.flows)
    sync_all = float((e["fraction"] >= 1 - 1e-9).mean()) if n > 1 and len(e) else math.nan
    cwnd = _after_warmup(r)[_cwnd_columns(r)]
    return {
        "sync_all": sync_all,
        "sync_tcp": float(e["fraction"].mean()) if n > 1 and len(e) else math.nan,
        "tcp_events": float(len(e)),
        "events": float(len(every)),
        "drops": float(r.flows["drops"].sum()),
        "timeouts": float(r.flows["timeouts"].sum()),
        "mean_cwnd": float(cwnd.mean().mean()),
        "median_cwnd": float(cwnd.median().mean()),
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
        ``residual_share_sack`` (the same with SACK), ``cycles_utilization``,
        ``cycles_cycles``, ``cycles_spread``, ``cycles_first_s`` and
        ``cycles_last_s`` (:func:`~bufsim.reproduce.whole_cycles`), ``jain_index`` and
        ``sync_mean`` (fairness of the NewReno flows' goodputs and their loss
        synchronization, figure 5), ``goodput_mbps`` (per-flow NewReno
        goodputs, Mbit/s, a tuple), the :func:`_loss_stats` columns,
        ``paper`` (what the paper reports) and ``paper_value`` (NaN where it
        gives no number). ``attrs["series"]`` maps ``(flows, buffer_pkts,
        background)`` to the NewReno run's time series (``utilization`` and
        ``cwnd_flow<i>`` every 100 ms, figures 3 and 5); ``attrs["quick"]``
        records ``quick``; ``attrs["transparent"]`` and ``attrs["new_flow"]``
        the headline claims' runs (:func:`run_transparent`,
        :func:`run_new_flow`).
    """
    duration = "120s" if quick else BASE["duration"]
    rows = []
    series: dict[tuple[int, int, bool], pd.DataFrame] = {}
    for flows, buf, bg in CASES:
        if progress:
            progress(f"running auge2006 flows={flows} buffer={buf}pkt background={bg} ...")
        r = simulate(_with_cwnd(scenario(flows, buf, bg, duration)))
        series[(flows, buf, bg)] = r.timeseries[["utilization", *_cwnd_columns(r)]]
        r_sack = simulate(scenario_sack(flows, buf, bg, duration))
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
                **{f"cycles_{k}": v for k, v in whole_cycles(r).items()},
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
    table.attrs["ns2"] = run_ns2(quick, progress)
    if progress:
        progress("running auge2006 headline runs: transparent regime, a new flow ...")
    table.attrs["transparent"] = run_transparent(quick)
    table.attrs["new_flow"] = run_new_flow()
    return table


def run_ns2(quick: bool = False, progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """The paper's own simulator (ns-2.35, ``engine="ns2"``) on the cases
    whose difference the packet engine's runs name a cause for: where ns-2
    gives the same difference, it is the paper's setup, not bufsim's engine.

    Parameters
    ----------
    quick : bool
        120 s runs instead of 300 s, as :func:`run`.
    progress : callable, optional
        Called with a line of text before the runs.

    Returns
    -------
    dict
        ``mix_shares`` (HSTCP's fraction of the TCP goodput in the FIFO mix
        at 625 packets, one per seed of :data:`MIX_SEEDS`), ``hs1_residual``
        and ``nr1_residual`` (one HSTCP, one NewReno flow's share of the
        residual at 20 packets), ``alone_20`` (one NewReno flow's
        utilization without background at 20 packets), ``cases`` (per
        case of :data:`CASES` but the 1-packet buffer, its ``utilization``,
        ``residual_share`` and ``jain_index``, as :func:`run`'s columns),
        ``transparent`` (the largest loss over ``rho^n`` of
        :func:`run_transparent`'s cases);
        empty where ns-2 is not installed (:func:`bufsim.ns2.available`).
    """
    from bufsim import ns2

    if not ns2.available():
        return {}
    duration = "120s" if quick else BASE["duration"]
    if progress:
        progress(f"running auge2006 on ns-2 ({duration} runs) ...")
    raws = []
    for seed in MIX_SEEDS:
        raw = scenario_v("hs1nr1-b625-fifo", duration)
        raw.pop("output")
        raw["seed"] = seed
        raws.append(raw)
    hs1 = scenario_v("hs1-b20-fifo", duration)
    hs1.pop("output")
    # Not the 1-packet buffer: ns-2 drops the packet that arrives as the
    # link frees while one waits (its scheduler's order of ties), at each
    # window increase, and runs the link near idle (0.005 in 120 s;
    # docs/howto/ns2.md).
    raws += [hs1, scenario(1, 20, True, duration), scenario(1, 20, False, duration)]
    # Every case of run()'s table but the 1-packet buffer (above), on ns-2.
    cases = [k for k in CASES if k[1] > 1]
    for flows, buf, bg in cases:
        raw = scenario(flows, buf, bg, duration)
        raw.pop("output", None)
        raws.append(raw)
    # Section IV.A's Poisson packets alone, at run_transparent()'s length.
    raws += [scenario_transparent(r, b, "60s" if quick else "300s") for r, b in TRANSPARENT]
    res = simulate_each(raws, "ns2")
    n = len(MIX_SEEDS)
    alone = res[len(raws) - len(TRANSPARENT) :]

    def residual(r: Any) -> float:
        # TCP goodput over the capacity the background leaves, as run()'s.
        bg = sum(b["rate_bps"] for b in r.scenario["background"])
        return r.summary["goodput_bps"] / (r.scenario["link"]["capacity_bps"] - bg)

    return {
        "mix_shares": [_hstcp_share(r) for r in res[:n]],
        "hs1_residual": residual(res[n]),
        "nr1_residual": residual(res[n + 1]),
        "alone_20": res[n + 2].summary["utilization"],
        "cases": {
            k: {
                "utilization": r.summary["utilization"],
                "residual_share": residual(r),
                "jain_index": r.summary["jain_index"],
            }
            for k, r in zip(cases, res[n + 3 : len(raws) - len(TRANSPARENT)], strict=True)
        },
        # ns-2's drop rate is the background's alone here (no TCP flows).
        "transparent": max(
            r.summary["drop_rate"] / rho**b for (rho, b), r in zip(TRANSPARENT, alone, strict=True)
        ),
    }


def ns2_runs(table: pd.DataFrame) -> dict[str, Any]:
    """The ns-2 runs of a :func:`run` table (:func:`run_ns2`), run once if
    the table lacks them."""
    if "ns2" not in table.attrs:
        table.attrs["ns2"] = run_ns2(quick=table.attrs.get("quick", False))
    return table.attrs["ns2"]


#: The ns-2 runs' name: ns-2, the paper's simulator, on the same case.
NS2_RUN = "ns-2.35, the paper's simulator, on the same case"
#: Why ns-2 has no number for a claim: the ns2 engine writes drop-tail and
#: RED queues, not the paper's fair queueing; ns-2's outputs give no
#: per-flow loss episodes (synchronization) or cwnd traces.
NO_FQ = "FQ not written"
NO_EPISODES = "no loss episodes"


def _ns2_case(ns2: dict[str, Any], case: tuple[int, int, bool], col: str) -> float:
    """ns-2's ``col`` on one case of :data:`CASES` (NaN where it did not run)."""
    return float(ns2.get("cases", {}).get(case, {}).get(col, math.nan))


#: Where the claims' tolerances come from.
AROUND = "the paper's 'around', read as 0.1 of the residual bandwidth"
READ = "the paper's value to two digits and the background's rate varying by about 1%: 0.03"
#: Without a background: the paper's two digits, read off its figure 3's curve.
READ_ALONE = "the paper's value to two digits, read off a plotted curve: 0.03"
EVEN = "the paper's 'considerably reduces the bias', with no number: within 0.1 of an even split"
SLIGHTLY = "the paper's 'slightly more', with no number: above an even split by at most 0.1"
SECTION_V_ABOUT = "section_v:{}"


def _theorem1(buffer_pkts: int) -> float:
    """Paper 003's Theorem 1 (synchronized) utilization for this setup without
    background at a buffer of ``buffer_pkts``."""

    raw = variant(BASE, "auge2006-theorem1", buffer_pkts=buffer_pkts)
    raw["background"] = []
    return float(
        m.predict(bufsim.Scenario.load(raw), model="avrachenkov_sync").summary["utilization"]
    )


def _cycles_text(t: pd.DataFrame, buffer_pkts: int) -> Prose:
    """How one flow without background was measured: over its whole
    congestion cycles (:func:`~bufsim.reproduce.whole_cycles`), beside the
    run's utilization from the warm-up."""
    r = t.loc[(1, buffer_pkts, False)]
    return prose(
        "over whole congestion cycles ({n:.0f}, from {a:.1f} s to {b:.1f} s: the sawtooth "
        "the theory averages); from the warm-up on, {u:.3f}: before the first event the window "
        "climbs one packet per RTT from where slow start's losses left it, far below the "
        "cycle's half window, so a run's mean depends on how much of that climb it holds",
        n=r["cycles_cycles"],
        a=r["cycles_first_s"],
        b=r["cycles_last_s"],
        u=r["utilization"],
    )


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements beside bufsim's numbers, with a verdict.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`run`.

    Returns
    -------
    pandas.DataFrame
        The columns of :meth:`bufsim.reproduce.Claims.table`: shares and
        utilizations as fractions.
    """
    t = table.set_index(["flows", "buffer_pkts", "background"])
    ns2 = ns2_runs(table)
    c = Claims()
    _headline_claims(c, t, table, ns2)
    c.near(
        "1 flow, 20 packets",
        prose("around {p:.0%} of the residual bandwidth", p=0.4),
        t.loc[(1, 20, True), "residual_share"],
        0.40,
        0.10,
        prose("the NewReno flow's share of the {bg:g} Mbps left by the background", bg=25.0),
        source=AROUND,
        ns2=_ns2_case(ns2, (1, 20, True), "residual_share"),
        ns2_run=NS2_RUN,
        about="residual_share",
    )
    c.near(
        "1 flow, 625 packets",
        prose("{p:.0%} utilization", p=1.0),
        t.loc[(1, 625, True), "residual_share"],
        1.0,
        0.03,
        prose(
            "the NewReno flow's share of the residual bandwidth; with SACK {s:.3f}",
            s=t.loc[(1, 625, True), "residual_share_sack"],
        ),
        source=READ,
        ns2=_ns2_case(ns2, (1, 625, True), "residual_share"),
        ns2_run=NS2_RUN,
        about="residual_share",
    )
    # The paper reports one run's utilization over its whole window (after
    # the warm-up), not over whole congestion cycles: the claims read that.
    c.near(
        "1 flow, 1 packet, no background",
        prose("{p:.0%} of the link", p=0.75),
        t.loc[(1, 1, False), "utilization"],
        0.75,
        0.03,
        prose("{c}; paper 003's Theorem 1 gives {t:.3f}", c=_cycles_text(t, 1), t=_theorem1(1)),
        source=READ_ALONE,
        # ns-2 drops the packet arriving as the link frees while one waits
        # (its scheduler's order of ties) and runs a 1-packet link near idle
        # (docs/howto/ns2.md): not the paper's ns-2 with no buffer.
        no_ns2="1-packet ties",
        about="utilization",
    )
    c.near(
        "1 flow, 20 packets, no background",
        prose("around {p:.0%}", p=0.8),
        t.loc[(1, 20, False), "utilization"],
        0.80,
        0.03,
        prose(
            "{c}; paper 003's Theorem 1 gives {t:.3f} for this buffer: it halves the rate at "
            "the loss, where the flow halves a window that holds the buffer too",
            c=_cycles_text(t, 20),
            t=_theorem1(20),
        ),
        source=READ_ALONE,
        ns2=ns2.get("alone_20", math.nan),
        ns2_run=NS2_RUN,
        about="utilization",
    )
    shares = [t.loc[(n, 20, True), "utilization"] for n in (1, 2, 4)]
    ns2_shares = [_ns2_case(ns2, (n, 20, True), "utilization") for n in (1, 2, 4)]
    c.add(
        "1, 2, 4 flows, 20 packets",
        "utilization improves with more flows (figure 5)",
        shares[2],
        shares[0] < shares[1] < shares[2],
        prose("utilization {u}", u=" < ".join(f"{u:.3f}" for u in shares)),
        source="the paper's 'improves with more flows': each utilization above the last",
        ns2=ns2_shares[2],
        ns2_ok=ns2_shares[0] < ns2_shares[1] < ns2_shares[2],
        ns2_run=NS2_RUN,
        about="utilization",
    )
    _figure5_claims(c, t, ns2)
    _section_v_claims(c, t, section_v(table), ns2)
    return c.table()


# ------------------------------------------------------------------ headline results

#: Section IV.A's transparent regime: (load rho, buffer n packets), the
#: paper's two examples ("load less than 90%, a buffer of 100 packets";
#: "a 20 packet buffer ... if load is less than 71%") and 90% with 20
#: packets, where a run of this length sees losses.
TRANSPARENT: tuple[tuple[float, int], ...] = ((0.71, 20), (0.9, 100), (0.9, 20))


def scenario_transparent(rho: float, buffer_pkts: int, duration: str = "300s") -> dict[str, Any]:
    """Section IV.A's transparent regime: the 50 Mbps link with Poisson
    packets alone (1000 B, the background of :data:`BASE`) at load ``rho``
    and a buffer of ``buffer_pkts``."""
    s = variant(BASE, f"auge2006-transparent-{rho:g}-b{buffer_pkts}", duration=duration)
    s["link"]["buffer"] = f"{buffer_pkts}pkt"
    s["flows"] = []
    s["warmup"] = "0s"
    cap = 50.0
    s["background"] = [{"kind": "poisson", "rate": f"{cap * rho:g}Mbps", "packet_size": "1000B"}]
    return s


def run_transparent(quick: bool = False) -> pd.DataFrame:
    """Loss of Poisson packets alone against ``rho^n`` (section IV.A).

    Returns
    -------
    pandas.DataFrame
        One row per case of :data:`TRANSPARENT`: ``rho``, ``buffer_pkts``,
        ``loss_rate`` (dropped over sent, 0..1), ``packets`` (sent),
        ``bound`` (``rho^n``); 60 s runs quick, 300 s full.
    """
    res = simulate_each(
        [scenario_transparent(r, n, "60s" if quick else "300s") for r, n in TRANSPARENT]
    )
    return pd.DataFrame(
        [
            {
                "rho": rho,
                "buffer_pkts": n,
                "loss_rate": r.summary["background_drops"] / r.summary["packets_sent"],
                "packets": r.summary["packets_sent"],
                "bound": rho**n,
            }
            for (rho, n), r in zip(TRANSPARENT, res, strict=True)
        ]
    )


#: The new-flow runs: two NewReno flows with the background and the BDP
#: buffer (625 packets), a third arriving at :data:`NEW_FLOW_AT_S` s; the
#: existing traffic's losses over the :data:`NEW_FLOW_WINDOW_S` s after it.
NEW_FLOW_AT_S, NEW_FLOW_WINDOW_S = 40.0, 10.0
NEW_FLOW_SEEDS = tuple(range(BASE["seed"], BASE["seed"] + 3))


def scenario_new_flow(qdisc: str, arrives: bool, seed: int) -> dict[str, Any]:
    """Two NewReno flows with the background through ``qdisc`` (``droptail``
    or ``fq``) and 625 packets, and, if ``arrives``, a third starting at
    :data:`NEW_FLOW_AT_S`; statistics over the following
    :data:`NEW_FLOW_WINDOW_S` s (the warm-up ends at the arrival)."""
    end = NEW_FLOW_AT_S + NEW_FLOW_WINDOW_S
    s = variant(BASE, f"auge2006-newflow-{qdisc}-{arrives}", duration=f"{end:g}s", buffer_pkts=625)
    s["flows"] = [dict(BASE["flows"][0], count=2)]
    if arrives:
        s["flows"].append(dict(BASE["flows"][0], count=1, start=f"{NEW_FLOW_AT_S:g}s"))
    s["link"]["qdisc"] = qdisc
    s["warmup"] = f"{NEW_FLOW_AT_S:g}s"
    s["seed"] = seed
    return s


def run_new_flow() -> pd.DataFrame:
    """The existing traffic's losses after a flow arrives, FIFO and FQ.

    Returns
    -------
    pandas.DataFrame
        One row per (qdisc, arrives, seed) of :func:`scenario_new_flow`:
        ``existing_drops`` (packets the two existing flows and the
        background lose after the arrival), ``new_drops`` (the new flow's).
        The same at quick and full length (the runs are 50 s).
    """
    keys = [(q, a, s) for q in ("droptail", "fq") for a in (True, False) for s in NEW_FLOW_SEEDS]
    res = simulate_each([scenario_new_flow(*k) for k in keys])
    rows = []
    for (q, a, seed), r in zip(keys, res, strict=True):
        f = r.flows
        rows.append(
            {
                "qdisc": q,
                "arrives": a,
                "seed": seed,
                "existing_drops": float(f["drops"].iloc[:2].sum() + r.summary["background_drops"]),
                "new_drops": float(f["drops"].iloc[2]) if a else 0.0,
            }
        )
    return pd.DataFrame(rows)


def new_flow_impact(nf: pd.DataFrame) -> dict[str, float]:
    """qdisc -> the existing traffic's packets lost in the window after a
    flow arrives beyond the same runs without it, summed over the seeds."""
    out = {}
    for q, g in nf.groupby("qdisc"):
        out[str(q)] = float(
            g.loc[g["arrives"], "existing_drops"].sum()
            - g.loc[~g["arrives"], "existing_drops"].sum()
        )
    return out


def headline_runs(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The headline claims' own runs (:func:`run_transparent`,
    :func:`run_new_flow`), kept in ``table.attrs`` and run once if missing."""
    if "transparent" not in table.attrs:
        table.attrs["transparent"] = run_transparent(table.attrs.get("quick", False))
    if "new_flow" not in table.attrs:
        table.attrs["new_flow"] = run_new_flow()
    return {"transparent": table.attrs["transparent"], "new_flow": table.attrs["new_flow"]}


#: The 100-packet compromise's pass mark: its throughput nearer the BDP
#: buffer's (the paper's 100%) than the 20-packet buffer's (its 40%).
COMPROMISE = (0.40 + 1.0) / 2


def _headline_claims(c: Claims, t: pd.DataFrame, table: pd.DataFrame, ns2: dict[str, Any]) -> None:
    """The paper's headline results: the 100-packet compromise (section
    IV.B, Figure 3), the transparent regime's ``rho^n`` loss (section
    IV.A), and fair queueing damping new flows' slow start (section V)."""
    runs = headline_runs(table)
    v = float(t.loc[(1, 100, True), "residual_share"])
    c.at_least(
        "headline: 100 packets, a reasonable compromise",
        prose(
            "'the intermediate size of {b} packets appears as a reasonable compromise, realizing "
            "reasonable throughput' (section IV.B, Figure 3)",
            b=100,
        ),
        v,
        COMPROMISE,
        prose(
            "the NewReno flow's share of the residual bandwidth at {b} packets ({lo:.3f} at "
            "{b1}, {hi:.3f} at {b2}); its queue holds at most {d:.0f} ms at {cap:g} Mbps",
            b=100,
            lo=t.loc[(1, 20, True), "residual_share"],
            hi=t.loc[(1, 625, True), "residual_share"],
            b1=20,
            b2=625,
            d=100 * 1000 * 8 / 50e6 * 1000,
            cap=50.0,
        ),
        source=prose(
            "the paper's 'reasonable throughput', with no number: nearer its {hi:.0%} at the "
            "BDP than its {lo:.0%} at {b} packets (the midpoint, {m:.2f})",
            hi=1.0,
            lo=0.40,
            b=20,
            m=COMPROMISE,
        ),
        ns2=_ns2_case(ns2, (1, 100, True), "residual_share"),
        ns2_run=NS2_RUN,
        about="residual_share",
        headline=True,
        measured_by=prose(
            "the packet engine, one NewReno flow with the {bg:g} Mbps background, {b} packets",
            bg=25.0,
            b=100,
        ),
    )
    tr = runs["transparent"]
    ratio = float((tr["loss_rate"] / tr["bound"]).max())
    c.at_most(
        "headline: the transparent regime's rho^n loss",
        prose(
            "`Pr[loss | buffer = n] ~ rho^n`: 'a buffer of {b1} packets maintains a loss rate "
            "better than {one} in {k:,}' at load under {r1:.0%}; {b2} packets better than "
            "{l2:g} under {r2:.0%} (section IV.A)",
            b1=100,
            one=1,
            k=30000,
            r1=0.9,
            b2=20,
            l2=0.01,
            r2=0.71,
        ),
        ratio,
        1.0,
        prose(
            "the largest measured loss over `rho^n`, Poisson packets alone: {cases}. Fixed "
            "{size:g} B packets lose less than the exponential sizes the bound assumes",
            cases="; ".join(
                f"load {r.rho:.0%}, {r.buffer_pkts:.0f} packets: {fmt.number(r.loss_rate)} "
                f"against {fmt.number(r.bound)} ({r.packets:,.0f} packets)"
                for r in tr.itertuples()
            ),
            size=1000.0,
        ),
        source="the paper's 'better than' `rho^n`: the measured loss at most the bound",
        ns2=ns2.get("transparent", math.nan),
        ns2_run=NS2_RUN,
        about="transparent:loss_rate",
        headline=True,
        measured_by=prose(
            "the packet engine, Poisson packets alone on the {cap:g} Mbps link, {n} cases, "
            "{d:.0f} s each",
            cap=50.0,
            n=len(tr),
            d=60.0 if table.attrs.get("quick", False) else 300.0,
        ),
    )
    nf = runs["new_flow"]
    hit = new_flow_impact(nf)
    damp = hit["fq"] / hit["droptail"] if hit["droptail"] > 0 else math.nan
    c.at_most(
        "headline: FQ damps new flows' slow start",
        "fair queueing 'considerably attenuates the impact on existing flows of newly arriving "
        "flows whose aggressive slow-start behaviour can otherwise lead to quite severe loss "
        "events' (section V)",
        damp,
        0.5,
        prose(
            "FQ over FIFO of the packets the existing traffic (the two flows and the "
            "background) loses in the {w:g} s after a third flow arrives, beyond the same runs "
            "without it, over seeds {seeds}: FIFO {fifo:.0f}, FQ {fq:.0f}. FQ drops from the "
            "longest queue, the existing flows' at the BDP buffer",
            w=NEW_FLOW_WINDOW_S,
            seeds=", ".join(str(x) for x in NEW_FLOW_SEEDS),
            fifo=hit["droptail"],
            fq=hit["fq"],
        ),
        source="the paper's 'considerably attenuates', with no number: to at most half",
        no_ns2=NO_FQ,
        about="new_flow:existing_drops",
        headline=True,
        measured_by=prose(
            "the packet engine, two NewReno flows and the background at {b} packets, a third "
            "arriving at {at:g} s, FIFO and FQ, with and without it, {n} seeds",
            b=625,
            at=NEW_FLOW_AT_S,
            n=len(NEW_FLOW_SEEDS),
        ),
    )


def section_v(table: pd.DataFrame) -> pd.DataFrame:
    """Section V's results for a :func:`run` table: ``table.attrs["section_v"]``,
    computed once by :func:`run_section_v` (quick if the table is)."""
    if "section_v" not in table.attrs:
        table.attrs["section_v"] = run_section_v(quick=table.attrs.get("quick", False))
    return table.attrs["section_v"]


def _figure5_claims(c: Claims, t: pd.DataFrame, ns2: dict[str, Any]) -> None:
    """Figure 5's synchronization and fairness (2 and 4 NewReno flows, 20 packets)."""
    r2 = t.loc[(2, 20, True)]
    c.at_most(
        "2 flows, 20 packets: synchronization (fig. 5)",
        "even with only two flows, there is little synchronized loss",
        r2["sync_all"],
        0.25,
        prose(
            "fraction of the congestion events with a TCP loss in which both flows lost; "
            "'little' read as <= {mark} (sync_mean {s:.3f}, counting background-only events "
            "as none)",
            mark=0.25,
            s=r2["sync_mean"],
        ),
        source="the paper's 'little synchronized loss', with no number: at most a quarter",
        no_ns2=NO_EPISODES,
        about="sync_all",
    )
    c.at_least(
        "2, 4 flows, 20 packets: fairness (fig. 5)",
        "bandwidth sharing is approximately fair",
        min(t.loc[(n, 20, True), "jain_index"] for n in (2, 4)),
        0.95,
        prose(
            "the lower Jain index of the NewReno goodputs with {a} and {b} flows; "
            "'approximately' read as >= {mark}",
            a=2,
            b=4,
            mark=0.95,
        ),
        source="the paper's 'approximately fair', with no number: Jain's index >= 0.95",
        ns2=min(_ns2_case(ns2, (n, 20, True), "jain_index") for n in (2, 4)),
        ns2_run=NS2_RUN,
        about="jain_index",
    )


def _section_v_claims(c: Claims, t: pd.DataFrame, v: pd.DataFrame, ns2: dict[str, Any]) -> None:
    """Section V.A: HighSpeed TCP under FIFO drop-tail (figure 6)."""
    hs, nr = v.loc["hs1-b20-fifo"], t.loc[(1, 20, True)]
    c.add(
        "V.A, 1 HSTCP flow, 20 packets (fig. 6 left)",
        "a single HSTCP connection uses bandwidth more efficiently than Reno",
        hs["residual_share"],
        hs["residual_share"] > nr["residual_share"] + 0.05,
        prose(
            "'more' read as more than NewReno's {nr:.3f} + {m:g}. With SACK {hss:.3f} vs "
            "{nrs:.3f}. The losses come from background bursts overflowing the small buffer, "
            "not from the window reaching the pipe: HSTCP's faster increase meets them "
            "sooner ({hd:.0f} drops vs {nd:.0f}), so its median cwnd is no larger ({hc:.0f} vs "
            "{nc:.0f} packets; the mean, {hm:.0f}, counts fast recovery's inflation)",
            nr=nr["residual_share"],
            m=0.05,
            hss=hs["residual_share_sack"],
            nrs=nr["residual_share_sack"],
            hd=hs["drops"],
            nd=nr["drops"],
            hc=hs["median_cwnd"],
            nc=nr["median_cwnd"],
            hm=hs["mean_cwnd"],
        ),
        source="the paper's 'more efficiently', with no number: 5 points of the residual",
        ns2=ns2.get("hs1_residual", math.nan),
        ns2_ok=ns2.get("hs1_residual", math.nan) > ns2.get("nr1_residual", math.nan) + 0.05,
        ns2_tolerance=0.05,
        ns2_run=NS2_RUN,
        mark=nr["residual_share"] + 0.05,
        about=SECTION_V_ABOUT.format("residual_share"),
    )
    _fifo_mix_claim(c, v.loc["hs1nr1-b625-fifo"], ns2)
    # With four flows of one TCP, some two lead in turn unless one holds the
    # largest window throughout: a mark the run can hardly miss, so a check.
    c.check(
        "V.A, 4 HSTCP flows, 625 packets, FIFO (fig. 6 right)",
        "one flow after the other gains a temporary ascendancy",
        v.loc["hs4-b625-fifo", "leaders"],
        prose(
            "flows holding the largest cwnd for at least {f:.0%} of the time after the "
            "warm-up (the paper's ascendancy needs {n})",
            f=0.1,
            n=2,
        ),
    )
    _fq_claims(c, t, v)


def hstcp_mean_cwnd(mix: pd.Series) -> float:
    """HSTCP's mean cwnd in an HSTCP + NewReno case, packets: both flows have
    the same RTT, so their goodputs split as their windows, and HSTCP's is
    twice the flows' mean times its share.

    Parameters
    ----------
    mix : pandas.Series
        The case's row of :func:`section_v` (``mean_cwnd``, ``hstcp_share``).
    """
    return float(2 * mix["mean_cwnd"] * mix["hstcp_share"])


def _fifo_mix_claim(c: Claims, mix: pd.Series, ns2: dict[str, Any]) -> None:
    """Figure 6 middle: HSTCP beside NewReno under FIFO at 625 packets."""
    w_hs = hstcp_mean_cwnd(mix)
    dr_hs, dr_nr = mix["flow_drops"]
    c.at_least(
        "V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)",
        "the Reno connection is unable to compete fairly with the more aggressive HSTCP",
        mix["hstcp_share_mean"],
        0.7,
        prose(
            "HSTCP's fraction of the TCP goodput, mean over {n} seeds ± {sp:.3f} (a {c:.0%} t "
            "interval; the first seed: {s1:.3f}, Jain {j:.3f}; with SACK {ss:.3f}); 'unable to "
            "compete' read as >= {mark}, HSTCP taking over twice NewReno's share. HSTCP stays "
            "ahead, by less: the flows' self-clocked packets reach the full buffer at the "
            "instants departures free a place and take it, so its overflow falls on the "
            "Poisson background ({bg:.0f} background drops after the warm-up against {dh} "
            "HSTCP and {dn} NewReno drops, first seed); a TCP packet is lost only as the "
            "second of two that a window increase sends at once. Each flow then loses after "
            "the same growth, which gives HSTCP {pred:.3f} of the goodput (RFC 3649's b(w) "
            "{b:.3f} at its mean cwnd of {w:.0f} packets)",
            n=len(MIX_SEEDS),
            c=0.95,
            sp=mix["hstcp_share_spread"],
            s1=mix["hstcp_share"],
            j=mix["jain_index"],
            ss=mix["hstcp_share_mean_sack"],
            mark=0.7,
            bg=mix["background_drops"],
            dh=dr_hs,
            dn=dr_nr,
            pred=increase_loss_share(w_hs),
            b=float(m.hstcp_b(w_hs)),
            w=w_hs,
        ),
        spread=mix["hstcp_share_spread"],
        source=(
            "the paper's 'unable to compete fairly', with no number: HSTCP taking over "
            "twice NewReno's goodput, 0.7 of the two"
        ),
        ns2=float(np.mean(ns2["mix_shares"])) if ns2 else math.nan,
        # Within the packet engine's seed interval: the same difference.
        ns2_tolerance=mix["hstcp_share_spread"],
        ns2_run=prose("{run}, the mean over the same {n} seeds", run=NS2_RUN, n=len(MIX_SEEDS)),
        about=SECTION_V_ABOUT.format("hstcp_share_mean"),
    )


def _fq_claims(c: Claims, t: pd.DataFrame, v: pd.DataFrame) -> None:
    """Section V.B: per-flow fair queueing with drop from the longest queue (figure 7)."""
    fq, fifo = v.loc["nr1-b20-fq", "residual_share"], t.loc[(1, 20, True), "residual_share"]
    c.near(
        "V.B, 1 NewReno flow, 20 packets, FQ (fig. 7 left)",
        "fair queuing barely alleviates the loss in performance due to a very small buffer",
        fq,
        fifo,
        0.1,
        prose(
            "NewReno's share of the residual under FQ; FIFO gives {f:.3f}; 'barely' read as "
            "within {m:g} of it",
            f=fifo,
            m=0.1,
        ),
        source=AROUND,
        no_ns2=NO_FQ,
        about=SECTION_V_ABOUT.format("residual_share"),
    )
    bg = float(v.loc[v["qdisc"] == "fq", "background_drops"].sum())
    c.check(
        "V.B, background under FQ",
        "it does, however, avoid loss for the non-bottlenecked flows",
        bg,
        prose(
            "background packets dropped in the three FQ cases: none, by construction, since "
            "the background is spread over {q:,} queues of its own that never fill (FIFO, one "
            "HSTCP flow, small buffer: {d:.0f} dropped)",
            q=1024,
            d=v.loc["hs1-b20-fifo", "background_drops"],
        ),
    )
    mix, fifo_mix = v.loc["hs1nr1-b625-fq"], v.loc["hs1nr1-b625-fifo"]
    # Both splits over the same seeds as the FIFO claim (its mean), not the
    # first seed's draw.
    c.near(
        "V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): bias",
        "fair queuing considerably reduces the bias in favour of HSTCP",
        mix["hstcp_share_mean"],
        0.5,
        0.1,
        prose(
            "HSTCP's fraction of the TCP goodput, mean over {n} seeds ± {sp:.3f} (FIFO "
            "{f:.3f} ± {fs:.3f}); within {m:g} of an even split",
            n=len(MIX_SEEDS),
            sp=mix["hstcp_share_spread"],
            f=fifo_mix["hstcp_share_mean"],
            fs=fifo_mix["hstcp_share_spread"],
            m=0.1,
        ),
        source=EVEN,
        no_ns2=NO_FQ,
        spread=mix["hstcp_share_spread"],
        about=SECTION_V_ABOUT.format("hstcp_share_mean"),
    )
    (to_hs, to_nr), (dr_hs, dr_nr) = mix["flow_timeouts"], mix["flow_drops"]
    share = mix["hstcp_share_mean"]
    c.add(
        "V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): HSTCP ahead",
        "the HSTCP flow does, however, gain slightly more throughput than the Reno flow",
        share,
        0.5 < share <= 0.6,
        prose(
            "mean over {n} seeds ± {sp:.3f}; 'slightly more' read as above an even split by "
            "at most {m:g}. First seed: HSTCP times out "
            "{th} times, NewReno {tn}: drop from the longest queue takes {dh} packets from "
            "HSTCP's (longer) queue, {dn} from NewReno's, in runs whose NewReno-style recovery "
            "ends in timeouts. With SACK the split is {ss:.3f}: both queues stay backlogged in "
            "the shared buffer, so DRR serves them equally and HSTCP's aggressiveness cannot "
            "show",
            m=0.1,
            th=to_hs,
            tn=to_nr,
            dh=dr_hs,
            dn=dr_nr,
            ss=mix["hstcp_share_mean_sack"],
            n=len(MIX_SEEDS),
            sp=mix["hstcp_share_spread"],
        ),
        source=SLIGHTLY,
        no_ns2=NO_FQ,
        mark=0.5 if share <= 0.55 else 0.6,
        spread=mix["hstcp_share_spread"],
        about=SECTION_V_ABOUT.format("hstcp_share_mean"),
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
        prose(
            "cwnd coefficient of variation FIFO {cf:.3f} / FQ {cq:.3f} (at least {m:g} "
            "needed) and FQ Jain {j:.3f} (at least {mj:g}). Under FIFO the flows' "
            "self-clocked packets take the places departures free, so the full buffer's "
            "overflow falls on the Poisson background ({bf:.0f} background drops, {df:.0f} "
            "TCP drops, {tf:.0f} timeouts); FQ gives the background queues of its own and "
            "drops from the longest queue, a TCP one ({dq:.0f} drops, {tq:.0f} timeouts, each "
            "a fall of cwnd to one packet). With SACK ({ts:.0f} timeouts under FQ) the ratio "
            "is {rs:.2f}",
            cf=f["cwnd_cv"],
            cq=q["cwnd_cv"],
            m=1.5,
            j=q["jain_index"],
            mj=0.95,
            bf=f["background_drops"],
            df=f["drops"],
            tf=f["timeouts"],
            dq=q["drops"],
            tq=q["timeouts"],
            ts=q["timeouts_sack"],
            rs=f["cwnd_cv_sack"] / q["cwnd_cv_sack"],
        ),
        source=(
            "the paper's 'effectively counters', with no number: FIFO's cwnd variation 1.5x "
            "FQ's, FQ fair (Jain >= 0.95)"
        ),
        # The named cause, NewReno-style recovery's timeouts under FQ, removed.
        explained_by=Explanation.at_least(
            "the same cases with SACK (RFC 6675), which keeps FQ's drops from timing out",
            f["cwnd_cv_sack"] / q["cwnd_cv_sack"],
            1.5,
            "the claim's own mark",
        ),
        mark=1.5,
        no_ns2=NO_FQ,
        about=SECTION_V_ABOUT.format("cwnd_cv"),
    )
    c.add(
        "V.B, 4 HSTCP flows: synchronization",
        "desynchronized loss events due to flow isolation",
        q["sync_mean"],
        q["sync_mean"] < f["sync_mean"],
        prose(
            "mean fraction of the flows losing in a congestion event: FQ below FIFO's {s:.3f}. "
            "FIFO's losses are the less synchronized: its overflow falls on the background, "
            "the flows losing in {ft:.0f} of its {fe:.0f} congestion events, in those {st:.3f} "
            "of them on average (about one flow of {n}); FQ's drops from the longest queue all hit the "
            "flows, {sq:.3f} of them per event",
            s=f["sync_mean"],
            ft=f["tcp_events"],
            fe=f["events"],
            st=f["sync_tcp"],
            n=4,
            sq=q["sync_tcp"],
        ),
        source="the paper's 'desynchronized loss events due to flow isolation': FQ below FIFO",
        no_ns2=NO_FQ,
        about=SECTION_V_ABOUT.format("sync_mean"),
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
#: arrivals one run's split is a draw: under FIFO, where the flows lose only
#: a few dozen packets in a run, HSTCP's share spread over 0.32-0.73 across
#: these seeds (120 s runs; 0.49-0.71 over 300 s).
MIX_SEEDS = tuple(range(BASE["seed"], BASE["seed"] + 6))


def mix_share(case: str, duration: str, sack: bool, own: float) -> tuple[float, float]:
    """HSTCP's fraction of the TCP goodput in a section V mix (a case of
    :data:`SECTION_V` with an HSTCP and a NewReno flow) over
    :data:`MIX_SEEDS`, with SACK for both flows or without; ``own`` is the
    share of the case's own run (the first seed), the others are run here.

    Returns
    -------
    (float, float)
        The mean and the half-width of its two-sided 95% Student t interval
        over the seeds (fractions).
    """

    shares = [own]
    for seed in MIX_SEEDS[1:]:
        s = scenario_v(case, duration, sack)
        s["seed"] = seed
        shares.append(_hstcp_share(simulate(s)))
    return float(np.mean(shares)), t_half_width(np.asarray(shares), 0.975)


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
        (the same, mean over :data:`MIX_SEEDS`: :func:`mix_share`),
        ``hstcp_share_spread`` (its 95% t half-width over the seeds), ``jain_index``,
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
    for case, (paper_figure, qdisc, tcps, buf) in SECTION_V.items():
        if progress:
            progress(f"running auge2006 section V {case} ...")
        r = simulate(scenario_v(case, duration))
        m = _measure_v(r, tcps)
        m_sack = _measure_v(simulate(scenario_v(case, duration, sack=True)), tcps)
        series[case] = r.timeseries[["utilization", *_cwnd_columns(r)]]
        mix = len(set(tcps)) == 2
        rows.append(
            {"case": case, "figure": paper_figure, "qdisc": qdisc, "tcp": "+".join(tcps)}
            | {"buffer_pkts": buf}
            | m
            | {f"{k}_sack": m_sack[k] for k in _SACK_COLUMNS}
            | {
                f"hstcp_share_{stat}{sfx}": v
                for sfx, sack, own in (("", False, m), ("_sack", True, m_sack))
                for stat, v in zip(
                    ("mean", "spread"),
                    mix_share(case, duration, sack, own["hstcp_share"])
                    if mix
                    else (math.nan, math.nan),
                )
            }
        )
    table = pd.DataFrame(rows).set_index("case")
    table.attrs["series"] = series
    return table


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    return prose(
        """
        **Section IV.B.** A {cap:g} Mbps bottleneck carries a {bg:g} Mbps Poisson packet
        background (standing in for many non-bottlenecked flows) and {ns} persistent NewReno
        flows with a {rtt:g} ms RTT, at buffers of {bufs} packets ({bdp} is the BDP with
        {mss:g} B packets). The paper reports that one bottlenecked flow gets "around
        {p20:.0%} of the residual bandwidth" with {b20} packets, that {bdp} packets give
        "{p625:.0%} utilization", and without background "{p1:.0%}" of the link with a
        {b1}-packet buffer and "around {p20nb:.0%}" with {b20}.

        **Section V.** Figures 6 and 7's six cases: one HSTCP flow at {b20} packets, HSTCP +
        NewReno and four HSTCP flows at {bdp}, under FIFO drop-tail; one NewReno flow at
        {b20}, HSTCP + NewReno and four HSTCP at {bdp} under per-flow fair queueing with drop
        from the longest queue.

        **Choices the paper leaves open**, stated here:

        - the background's packet size ({mss:g} B) and how the RTT splits: two {d:g} ms
          bottleneck delays and {acc:g} ms of access;
        - HSTCP is RFC 3649 with its defaults on the NewReno flows' stack (no SACK, no delayed
          ACKs, `stack = "rfc"`, every flow starting at once);
        - fair queueing shares the buffer among the queues and spreads the background over
          {q:,} queues (`qdisc_params.background_flows`).

        Every case also runs with SACK (RFC 6675) beside the paper's NewReno (RFC 6582): a
        Poisson background overflowing a full buffer drops many TCP packets at once, which
        NewReno repairs one per RTT and often ends in a timeout.
        """,
        cap=50.0,
        bg=25.0,
        ns="1, 2 or 4",
        rtt=100.0,
        bufs="20, 100 and 625",
        bdp=625,
        mss=1000.0,
        p20=0.4,
        b20=20,
        p625=1.0,
        p1=0.75,
        b1=1,
        p20nb=0.8,
        d=48.0,
        acc=4.0,
        q=1024,
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    t = table.set_index(["flows", "buffer_pkts", "background"])
    v = section_v(table)
    hs, mix, q4, f4 = (
        v.loc["hs1-b20-fifo"],
        v.loc["hs1nr1-b625-fq"],
        v.loc["hs4-b625-fq"],
        v.loc["hs4-b625-fifo"],
    )
    return [
        Finding(
            "A small buffer costs a lone flow most of the residual bandwidth",
            prose(
                "With the background one NewReno flow gets {s20:.3f} of the residual bandwidth "
                "at {b20} packets, {s100:.3f} at {b100} and {s625:.3f} at {b625} ({sack:.3f} "
                "with SACK: NewReno's one repair per RTT after a background burst often ends in "
                "a timeout). More flows fill the small buffer's gaps: at {b20} packets "
                "utilization is {u1:.3f}, {u2:.3f} and {u4:.3f} with {ns}.",
                s20=t.loc[(1, 20, True), "residual_share"],
                s100=t.loc[(1, 100, True), "residual_share"],
                s625=t.loc[(1, 625, True), "residual_share"],
                sack=t.loc[(1, 625, True), "residual_share_sack"],
                b20=20,
                b100=100,
                b625=625,
                u1=t.loc[(1, 20, True), "utilization"],
                u2=t.loc[(2, 20, True), "utilization"],
                u4=t.loc[(4, 20, True), "utilization"],
                ns="1, 2 and 4 flows",
            ),
            "fig3_buffers",
        ),
        Finding(
            "One HSTCP flow does not beat NewReno at the small buffer",
            prose(
                "At {b} packets one HSTCP flow gets {hs:.3f} of the residual against "
                "NewReno's {nr:.3f} ({hss:.3f} against {nrs:.3f} with SACK): the losses come "
                "from background bursts overflowing the buffer, not from the window reaching "
                "the pipe, and HSTCP's faster increase meets them more often ({hd:.0f} drops "
                "against {nd:.0f}).",
                b=20,
                hs=hs["residual_share"],
                nr=t.loc[(1, 20, True), "residual_share"],
                hss=hs["residual_share_sack"],
                nrs=t.loc[(1, 20, True), "residual_share_sack"],
                hd=hs["drops"],
                nd=t.loc[(1, 20, True), "drops"],
            ),
            "fig6_hstcp_fifo",
        ),
        Finding(
            "Fair queueing: an even split, and windows that vary more than under FIFO",
            prose(
                "Under FQ HSTCP gets {sh:.3f} of the TCP goodput beside NewReno, not 'slightly "
                "more': drop from the longest queue takes the drops from HSTCP's queue and its "
                "NewReno-style recovery times out ({th} times against {tn}); with SACK the "
                "split is {ss:.3f}, DRR serving two always-backlogged queues. Four HSTCP flows' "
                "windows vary more under FQ than under FIFO (coefficient of variation {cq:.3f} "
                "against {cf:.3f}), where the paper sees FQ counter FIFO's chaos: under FIFO the "
                "flows' self-clocked packets take the places departures free and the full "
                "buffer's overflow falls on the Poisson background ({bf:.0f} background drops, "
                "{df:.0f} TCP drops, {tf:.0f} timeouts), while FQ drops from the flows' queues "
                "({dq:.0f} drops, {tq:.0f} timeouts). With SACK FIFO's windows vary {rs:.2f}x "
                "more than FQ's.",
                sh=mix["hstcp_share"],
                th=mix["flow_timeouts"][0],
                tn=mix["flow_timeouts"][1],
                ss=mix["hstcp_share_sack"],
                cq=q4["cwnd_cv"],
                cf=f4["cwnd_cv"],
                bf=f4["background_drops"],
                df=f4["drops"],
                tf=f4["timeouts"],
                dq=q4["drops"],
                tq=q4["timeouts"],
                rs=f4["cwnd_cv_sack"] / q4["cwnd_cv_sack"],
            ),
            "fig7_fq",
        ),
    ]


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    return {
        "fig3_buffers": prose(
            "The paper's Figure 3: utilization and congestion window of one NewReno flow with "
            "the background at each buffer (windows clipped where fast recovery inflates them)."
        ),
        "fig4_arrivals": prose(
            "The paper's Figure 4: packet arrivals of the Poisson background over one second."
        ),
        "fig5_flows": prose(
            "The paper's Figure 5: utilization and windows of one, two and four NewReno flows "
            "at the smallest buffer."
        ),
        "fig6_hstcp_fifo": prose(
            "The paper's Figure 6: HSTCP under FIFO drop-tail, alone at the small buffer, "
            "beside NewReno, and four flows at the BDP."
        ),
        "fig7_fq": prose(
            "The paper's Figure 7: the same cases under fair queueing with drop from the "
            "longest queue."
        ),
        "goodput_shares": prose(
            "Each case's goodput split among its flows, FIFO against FQ, NewReno against SACK."
        ),
    }


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
    time, one column per case; ``refs`` maps a column to a utilization mark.

    The legend sits below the panels, one for the figure: inside a panel it
    would cover the traces, which fill the whole window. The flows keep the
    same colour in every column (each panel restarts the colour cycle)."""
    fig, axes = grid(10.0, 4.6, 2, len(series), sharex=True)
    marks: dict[str, Any] = {}
    flows: dict[str, Any] = {}
    for k, (label, ts) in enumerate(series):
        t = ts.index.to_numpy(dtype=float)
        top, bottom = axes[0, k], axes[1, k]
        top.plot(t, ts["utilization"], lw=0.5, color="#1f4e79")
        if k in refs:
            mark = f"{refs[k][1]} ({label})"
            marks[mark] = top.axhline(refs[k][0], color="#c00000", ls="--", lw=1, label=mark)
        top.set_ylim(0, 1.05)
        top.set_title(label, fontsize=9)
        cwnd = ts[[c for c in ts.columns if str(c).startswith("cwnd_flow")]]
        for c in cwnd.columns:
            (line,) = bottom.plot(t, cwnd[c], lw=0.7, label=str(c).removeprefix("cwnd_"))
            flows.setdefault(f"cwnd of {line.get_label()}", line)
        _clip_recovery(bottom, cwnd)
        bottom.set_xlabel("time (s)")
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    legend = marks | flows
    if len(legend) > 1:
        fig.legend(
            list(legend.values()),
            list(legend),
            loc="outside lower center",
            ncol=min(len(legend), 6),
            fontsize=7,
            handlelength=1.5,
            frameon=False,
        )
    axes[0, 0].set_ylabel("utilization (per 100 ms)")
    axes[1, 0].set_ylabel("cwnd (packets)")
    fig.suptitle(title, fontsize=10)
    return fig


def _fairness_figure(table: pd.DataFrame, v: pd.DataFrame) -> Any:
    """Per-flow goodputs of figures 5-7 beside the fair share, Jain index and
    synchronization annotated."""

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
    fig, (ax,) = figure(8.0, 4.2)
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

    s = scenario(1, 20, True, "40s")
    s["output"] = {"trace": True}
    tr = simulate(s).trace
    t, ev, flow = tr["time_s"].to_numpy(), tr["event"].astype(str).to_numpy(), tr["flow"].to_numpy()
    first = t[(ev == "drop_overflow") & (flow >= 0) & (t > 20.0)][0]
    lo, hi = first + 0.3 - window_s, first + 0.3
    rng = np.random.default_rng(seed)
    fig, (ax,) = figure(8.0, 3.6)
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


def tables(table: pd.DataFrame) -> dict[str, tuple[str, pd.DataFrame]]:
    """No further tables: the run table and the claims are the whole
    reproduction (the contract's ``tables``)."""
    return {}


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
