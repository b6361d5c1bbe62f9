"""Paper 004 (Kumar, Azad & Park, *A fluid-based simulation study: the effect
of loss synchronization on sizing buffers over 10 Gbps high speed networks*),
section III: fluid simulation with the loss-synchronization module.

Section III.B (Figure 6): 10 flows over 10 Gbps, link delay 10 ms, RTTs 80 to
260 ms (mean 170 ms), 1500 B packets, buffers as a fraction of 141667 packets
(the BDP at the mean RTT), minimum synchronized fraction X in {0.3, 0.6, 1},
10 runs of 3000 s each, for AIMD, HighSpeed, CUBIC and H-TCP. The paper
reports: HSTCP and AIMD above 90% utilization at a fraction of 0.05, lower X
giving them higher utilization; CUBIC below 90% for all X; AIMD above CUBIC
and close to HSTCP; synchronized H-TCP poor at 0.05; synchronization level
mattering little for CUBIC and H-TCP. Every run here is the fluid engine
(``bufsim.simulate(..., engine="fluid")``); :func:`claims` sets each
statement beside bufsim's number.

Modelling choices, each measured (full version: 10 seeds x 3000 s, buffer
5% of BDP unless said; the ``case`` column of :func:`run` holds the
alternatives, the "choices" figure draws them):

- Warm-up. bufsim discards the first 300 s; the paper measures from the
  first congestion event. Slow start ends at that event, 1.3-1.5 s into every
  run (before any m_k draw, so the same for every seed). Measuring from it,
  or from 0 s, moves utilization by at most 0.012 (AIMD, whose sawtooth is
  slowest; 0.004 for the other variants): the warm-up explains none
  of the differences below.

- Slow start. The paper simulates none; the fluid engine starts every flow
  in slow start (RFC 5681) and has no switch to skip it. Its footprint is
  the first 1.3-1.5 s and the cut that ends it, which the warm-up cases above
  include or exclude: at most 0.012.

- One cut per congestion event (fluid.decrease = "event", the default)
  against paper 004 eq. (1) literally ("rate", dW/dt = -b W lambda; only for
  laws with a rate form, AIMD and HighSpeed: CUBIC's and H-TCP's windows
  depend on the time of the last loss). eq. (1) cuts again for every
  packet's worth of lost fluid, and a 10 Gbps overflow holds many: at 5%
  HighSpeed falls from 0.98-0.99 to 0.36-0.60 and AIMD from 0.82-0.90 to
  0.72-0.73, against the paper's "more than 90%". The paper's HSTCP
  numbers need one cut per event, which bufsim keeps.

- The m_k distribution. The paper draws m_k from a normal distribution and
  gives neither mean nor sd; bufsim centres it on X N with sd (1 - X) N / 4,
  clipped to [X N, N] (mean synchronized fraction about 0.37 at X = 0.3,
  0.64 at X = 0.6). m_k = ceil(X N) always (sync_sd = 0) moves X < 1 by
  0 to +0.045 (AIMD at X = 0.3: 0.903 -> 0.947); a wide draw (sync_sd = 0.5) by +0.001 to -0.061 (H-TCP at X = 0.3, 1%: 0.961 -> 0.901); the m_k flows chosen at
  random instead of the highest-rate ones (sync_policy = "random") by
  -0.063 (H-TCP) to +0.040 (AIMD). None changes X = 1 (every flow loses), and none brings CUBIC below
  90% or AIMD above CUBIC.

- Step. The default 4 ms step against 1 ms: within 0.002 at X = 1; at
  X < 1 within 0.003 (with the quick version's 2 seeds of 1000 s, 0.012), where the step moves the congestion events and with
  them the m_k draws.

- CUBIC's alpha_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 section
  4.3, recently adopted by the fluid law, as in the packet engine). W_est
  grows by alpha_cubic per RTT, about 130 packets over CUBIC's
  K = (W_max (1 - beta) / C)^(1/3), 22 s for a 14,000-packet window, while
  the cubic curve regains 4,200 packets: the Reno-friendly region never
  binds at 10 Gbps and W_est never reaches cwnd_prior, so the change cannot
  move these curves (computed, not run: the old law is gone).

What remains different, and why (see :func:`claims`): at X = 1 every flow
cuts at once and utilization follows the depth of the cut, HighSpeed's
b(W) = 0.2 at W = 14,000 packets above CUBIC's 0.3 above AIMD's 0.5, AIMD
regaining a halving at one packet per RTT (W / 2 RTTs, about 1200 s at
10 Gbps). So bufsim has CUBIC above 90% at 5% for every X and AIMD below
CUBIC, where the paper has the reverse, and no choice above changes that.
The synchronized-sawtooth closed form (:func:`aimd_sync_utilization`) gives
AIMD 0.785 at 5%, near bufsim's X = 1 (0.816) and well below the
paper's 90%. Lower X helps most the variant whose cut hurts most, so X
matters as much for CUBIC and H-TCP as for AIMD, unlike the paper's
section V (its own figure 6(d) text says de-synchronized H-TCP does better).

Fluid calibrated by packet (:func:`run_calibrated`; section II.C: m_k "can
be ... derived from ... experimental data"). The packet engine runs the same
scenario (engine "packet", seed 1) with its default stack, ``rfc``: SACK and
RFC 6675 recovery, initial window 1, an ACK per segment (the fluid's laws
have one ACK per packet and refuse delayed ACKs), 1 s minimum RTO, no access
links; its ``sync_mean`` (a congestion event is the mean RTT, 170 ms, from a
drop; its synchronization the fraction of flows that lost in it) becomes the
fluid's X. Full version: 600 s runs, 100 s warm-up (a 10 Gbps packet run
costs up to 0.3 CPU s per simulated second; the 12 points took 23 CPU
minutes), at 1%, 5% and 20% of BDP; utilization packet / calibrated fluid:

- 20%: HSTCP 1.000 / 1.000, CUBIC 0.990 / 0.994, H-TCP 0.919 / 0.924: agree
  within 0.005. At 5% and 20% the packet flows synchronize strongly
  (sync_mean 0.83-0.96), near X = 1, not the paper's 0.3-0.6; the fluid at X = 0.3 would put H-TCP
  at 1.000, the calibrated fluid reproduces its 0.92.
- 5%: HSTCP 0.965 / 0.990 (agrees; the packet run first reaches 0.95 at
  130 s); CUBIC 0.776 / 0.929 and H-TCP 0.709 / 0.874 (differ): the packet
  runs rise slowly and then swing between 0.6 and 0.95 (second half 0.824
  and 0.749; CUBIC first reaches 0.95 at 370 s), losing packets at a mean
  queue of 205-232 of 7083 packets: the queue overflows in short bursts
  before the link is full, which the fluid, whose queue overflows only when
  the windows exceed BDP + buffer, cannot do (the "calibrated_series"
  figure). The bursts are the senders': without an access link a sender
  puts the packets a cumulative ACK or a window increase allows on the
  bottleneck at once. Spread them and the gap closes: CUBIC at 5%, 400 s
  runs after 100 s (seed 1, not part of :func:`run_calibrated`), reads
  0.756 without access links and 0.959 with 2 Gbps ones (twice a flow's
  fair share, deep access buffers), mean queue 220 then 987 packets, the
  same sync_mean (0.88, 0.86) and number of congestion events (16).
  10 Gbps access links (line rate, one 120 s run each, inside the warm-up)
  spread them less: 0.54-0.55 to 0.61-0.62 (CUBIC, H-TCP).
- 1%: packet 0.28-0.54 against 0.82-0.95 (differ), flat over the run
  (second half within 0.03), 91-192 congestion events at a mean queue of
  1-22 of 1417 packets: the burst losses of paper 001's 2.5 Gbps case at 2%
  of its BDP, a steady state, not a warm-up. sync_mean 0.37-0.50. HSTCP's
  0.54 (queue 22) is a point of its own: with the shortest RTT moved by
  0.1-0.2 ms it reads 0.33-0.34 (queue 10-11), the RTTs' even 20 ms steps
  being a lattice on which the flows' losses fall in step; before a(w) was
  taken at the whole window it read 0.46 there and 0.32-0.35 beside it.
- AIMD: slow start's overshoot (the 80 ms flow reaches 15,000 packets at
  1.5 s while the 260 ms flow has 32) leaves the windows at a third of the
  pipe; from there ten AIMD flows regain sum(1/r_i^2) = 524 packets/s per
  second, 0.063 of the link per 100 s (measured at 5%: 0.34 over 10-30 s,
  0.62 over 350-600 s), so at 5% and 20% no congestion event falls in 600 s
  and there is nothing to calibrate with; at 1%, 0.28 against 0.82.
- X against sync_mean: X is a minimum (m_k >= ceil(X N)), sync_mean a mean,
  so the fluid at X = sync_mean synchronizes more than the packet run, by
  0.01-0.11; X matched on the fluid's own measured sync moves its
  utilization by at most 0.036, far less than the gaps above.

The quick version (5%, 30 s) is all warm-up: packet 0.34-0.45 against fluid
0.62-1.00; its test asserts only that and the definitions.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
from bufsim.reproduce import Claims

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

#: Figure 6's panels: variant -> (panel letter, the paper's name).
PANELS = {
    "highspeed": ("a", "HSTCP"),
    "cubic": ("b", "CUBIC"),
    "aimd": ("c", "AIMD"),
    "htcp": ("d", "H-TCP"),
}

#: The modelling alternatives run beside the default: case -> ``[fluid]``
#: settings. ``"rate"`` runs only for the variants with a rate form.
ALTERNATIVES: dict[str, dict[str, Any]] = {
    "m_k = ceil(XN)": {"sync_sd": 0.0},
    "m_k sd 0.5 N": {"sync_sd": 0.5},
    "random flows lose": {"sync_policy": "random"},
    "eq. (1) rate decrease": {"decrease": "rate"},
    "step 1 ms": {"step": "1ms"},
}

#: The warm-up cases read from every default run's time series.
WARMUPS = ("warm-up 0 s", "from first congestion")

#: Variants whose fluid law has a rate form (``fluid.decrease = "rate"``).
RATE_FORM = ("aimd", "highspeed")


def scenario(
    variant: str, fraction: float, sync: float, seed: int, duration: str, warmup: str, **fluid: Any
) -> dict[str, Any]:
    """The raw scenario of one run.

    Parameters
    ----------
    variant : str
        ``"aimd"``, ``"highspeed"``, ``"cubic"`` or ``"htcp"``.
    fraction : float
        Buffer as a fraction of :data:`BDP_PKTS` (141667 packets).
    sync : float
        Minimum synchronized fraction X, in (0, 1].
    seed : int
        Seed of the loss-synchronization draws.
    duration, warmup : str
        Simulated time and the initial time excluded, with units (``"3000s"``).
    **fluid
        Further ``[fluid]`` settings (``sync_sd``, ``sync_policy``, ``decrease``, ``step``).

    Returns
    -------
    dict
        The raw scenario.
    """
    s = copy.deepcopy(BASE)
    s.update(name=f"kumar2010-{variant}-x{sync:g}-b{fraction:g}", duration=duration, warmup=warmup)
    s["seed"] = seed
    s["flows"][0]["tcp"] = variant
    s["link"]["buffer"] = f"{round(fraction * BDP_PKTS)}pkt"
    s["fluid"] = {"sync": sync, **fluid}
    return s


def _default_run(raw: dict[str, Any]) -> dict[str, float]:
    """One default run: utilization after the warm-up, from 0 s and from the
    first congestion event (from the 0.1 s time series), and that event's time."""
    res = bufsim.simulate(raw, engine="fluid")
    ts = res.timeseries["utilization"]
    t1 = float(res.congestion_events["time_s"].min())
    return {
        "default": res.summary["utilization"],
        "warm-up 0 s": float(ts.mean()),
        "from first congestion": float(ts[ts.index >= t1].mean()),
        "first_congestion_s": t1,
    }


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Utilization against buffer fraction per variant and X (mean over
    seeds), with the modelling alternatives at the small buffers.

    Parameters
    ----------
    quick : bool
        2 seeds of 1000 s (200 s warm-up) at fractions 0.01, 0.05 and 0.2,
        alternatives at 0.05 only, instead of 10 seeds of 3000 s at five
        fractions and alternatives at 0.01 and 0.05 (the full version: about
        2,000 runs, 13 minutes on one core; quick: about 20 s), and
        :func:`run_calibrated` (quick or not; 23 CPU minutes full, 10 s quick).
    progress : callable, optional
        Called with a line of text before each variant.

    Returns
    -------
    pandas.DataFrame
        One row per (case, variant, sync, fraction): ``case`` (``"default"``,
        one of :data:`WARMUPS` or a key of :data:`ALTERNATIVES`),
        ``utilization`` (mean over seeds, 0..1), ``utilization_sd``, ``runs``
        and, for the default case, ``first_congestion_s`` (seconds, mean).
        The fluid-calibrated-by-packet comparison (:func:`run_calibrated`) is
        in ``attrs["calibrated"]``.
    """
    fractions = (0.01, 0.05, 0.2) if quick else FRACTIONS
    alt_fractions = (0.05,) if quick else (0.01, 0.05)
    seeds = [1, 2] if quick else list(range(1, 11))
    duration, warmup = ("1000s", "200s") if quick else (BASE["duration"], BASE["warmup"])
    rows: list[dict[str, Any]] = []
    for variant in VARIANTS:
        if progress:
            progress(f"kumar2010: {variant}, {len(seeds)} seeds of {duration} ...")
        for sync in SYNC:
            for frac in fractions:
                runs = [
                    _default_run(scenario(variant, frac, sync, s, duration, warmup)) for s in seeds
                ]
                for case in ("default", *WARMUPS):
                    rows.extend(_row(case, variant, sync, frac, [r[case] for r in runs]))
                rows[-3]["first_congestion_s"] = float(
                    np.mean([r["first_congestion_s"] for r in runs])
                )
            for case, fluid in ALTERNATIVES.items():
                if fluid.get("decrease") == "rate" and variant not in RATE_FORM:
                    continue
                for frac in alt_fractions:
                    u = [
                        bufsim.simulate(
                            scenario(variant, frac, sync, s, duration, warmup, **fluid),
                            engine="fluid",
                        ).summary["utilization"]
                        for s in seeds
                    ]
                    rows.extend(_row(case, variant, sync, frac, u))
    table = pd.DataFrame(rows)
    table.attrs["quick"] = quick
    table.attrs["calibrated"] = run_calibrated(quick, progress)
    return table


def _row(case: str, variant: str, sync: float, frac: float, u: list[float]) -> list[dict]:
    return [
        {
            "case": case,
            "variant": variant,
            "sync": sync,
            "fraction": frac,
            "utilization": float(np.mean(u)),
            "utilization_sd": float(np.std(u, ddof=1)) if len(u) > 1 else float("nan"),
            "runs": len(u),
        }
    ]


def pivot(table: pd.DataFrame, case: str = "default") -> pd.DataFrame:
    """Utilization of one ``case`` with one column per (variant, X), one row per fraction."""
    t = table[table["case"] == case] if "case" in table else table
    return t.pivot_table(index="fraction", columns=["variant", "sync"], values="utilization")


def aimd_sync_utilization(fraction: float) -> float:
    """Utilization of synchronized AIMD flows with a buffer of ``fraction`` x BDP.

    The aggregate window W (in BDPs) climbs linearly from (1 + f) / 2 after
    the common halving to 1 + f; the link is busy in proportion min(W, 1):
    U = ((1 - a^2) / 2 + f) / (1 + f - a) with a = (1 + f) / 2.

    Parameters
    ----------
    fraction : float
        Buffer f as a fraction of the bandwidth-delay product, in [0, 1].

    Returns
    -------
    float
        Utilization, 0..1 (0.785 at f = 0.05; 1 at f >= 1).
    """
    if fraction >= 1.0:
        return 1.0
    a = (1.0 + fraction) / 2.0
    return ((1.0 - a * a) / 2.0 + fraction) / (1.0 + fraction - a)


def _u(table: pd.DataFrame, variant: str, sync: float, frac: float, case: str = "default") -> float:
    """Mean utilization of one (case, variant, X, fraction) row of :func:`run`."""
    t = table[
        (table["case"] == case)
        & (table["variant"] == variant)
        & np.isclose(table["sync"], sync)
        & np.isclose(table["fraction"], frac)
    ]
    return float(t["utilization"].iloc[0]) if len(t) else float("nan")


def _spread(table: pd.DataFrame, variant: str, frac: float, case: str = "default") -> float:
    """Largest minus smallest utilization over X at one buffer fraction."""
    u = [_u(table, variant, x, frac, case) for x in SYNC]
    return max(u) - min(u)


def _alt_range(table: pd.DataFrame, variant: str, sync: float, frac: float = 0.05) -> tuple:
    """(lowest, highest) utilization over the default and every alternative case."""
    t = table[
        (table["variant"] == variant)
        & np.isclose(table["sync"], sync)
        & np.isclose(table["fraction"], frac)
        & (table["case"] != "eq. (1) rate decrease")
    ]
    return float(t["utilization"].min()), float(t["utilization"].max())


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """Paper 004's section III.B and section V statements beside bufsim's
    numbers from the :func:`run` table, with a verdict and its measured
    reason (the columns of :meth:`bufsim.reproduce.Claims.table`)."""
    c = Claims()
    d = pivot(table)
    fracs = list(d.index)
    small = [f for f in fracs if f <= 0.05]
    _claims_hstcp_aimd(c, table, d, small)
    _claims_cubic(c, table, d, fracs, small)
    _claims_htcp_and_sync(c, table, small)
    _claims_setup(c, table)
    _claims_calibrated(c, calibrated(table))
    return c.table()


def _claims_hstcp_aimd(c: Claims, table: pd.DataFrame, d: pd.DataFrame, small: list) -> None:
    u = min(_u(table, "highspeed", x, 0.05) for x in SYNC)
    rate = min(_u(table, "highspeed", x, 0.05, "eq. (1) rate decrease") for x in SYNC)
    c.add(
        "6(a): HSTCP at 5% of BDP",
        "more than 90% utilization (every X)",
        u,
        u > 0.9,
        f"lowest over X; HighSpeed cuts by b(W) = 0.2 at W = 14,000 packets, so even X = 1 keeps "
        f"the link busy. With eq. (1) literally (decrease = rate) the lowest is {rate:.3f}: every "
        "packet's worth of lost fluid cuts again, so bufsim keeps one cut per congestion event",
    )
    u = min(_u(table, "aimd", x, 0.05) for x in SYNC)
    lo1, hi1 = _alt_range(table, "aimd", 1.0)
    rate = max(_u(table, "aimd", x, 0.05, "eq. (1) rate decrease") for x in SYNC)
    c.add(
        "6(c): AIMD at 5% of BDP",
        "more than 90% utilization even for 5% of BDP",
        u,
        u > 0.9,
        f"lowest over X (X = 1: {_u(table, 'aimd', 1.0, 0.05):.3f}); synchronized halvings give "
        f"{aimd_sync_utilization(0.05):.3f} in closed form (aimd_sync_utilization), and at 10 Gbps a "
        "halved 14,000-packet window regains one packet per RTT, about 1200 s. No warm-up, m_k or "
        f"policy choice moves X = 1 out of [{lo1:.3f}, {hi1:.3f}]; eq. (1) gives at most {rate:.3f}",
    )
    ordered = all(
        d.loc[f, (v, 0.3)] > max(d.loc[f, (v, 0.6)], d.loc[f, (v, 1.0)])
        for v in ("highspeed", "aimd")
        for f in small
    )
    gain = min(_u(table, v, 0.3, 0.05) - _u(table, v, 1.0, 0.05) for v in ("highspeed", "aimd"))
    c.add(
        "6(a), 6(c): lower X, HSTCP and AIMD",
        "X = 0.3 gives higher utilization than X = 0.6 and X = 1",
        gain,
        ordered,
        "smallest gain of X = 0.3 over X = 1 at 5%; X = 0.3 is above both at 1% and 5% for both "
        "variants: the highest-rate flows cut, the others keep the link busy"
        if ordered
        else "X = 0.3 is not above X = 0.6 and X = 1 at every small buffer",
    )
    gap = max(abs(d.loc[f, ("aimd", x)] - d.loc[f, ("highspeed", x)]) for f in small for x in SYNC)
    c.add(
        "6(c): AIMD comparable to HSTCP",
        "AIMD and HSTCP results are close (every buffer)",
        gap,
        gap <= 0.03,
        "largest |AIMD - HSTCP| at 1% and 5% over X: AIMD halves where HighSpeed cuts by 0.2 at "
        "these windows, and regains the halving at one packet per RTT",
        0.03,
    )


def _claims_cubic(
    c: Claims, table: pd.DataFrame, d: pd.DataFrame, fracs: list, small: list
) -> None:
    u = max(_u(table, "cubic", x, 0.05) for x in SYNC)
    lo, _ = _alt_range(table, "cubic", 0.3)
    c.add(
        "6(b): CUBIC at 5% of BDP",
        "less than 90% utilization for all three X",
        u,
        u < 0.9,
        f"highest over X (X = 1: {_u(table, 'cubic', 1.0, 0.05):.3f}; at 1%, X = 1: "
        f"{_u(table, 'cubic', 1.0, 0.01):.3f}). CUBIC cuts to 0.7 W and regains W_max in "
        "K = 22 s; the flows that record no loss keep climbing their curve. The lowest X = 0.3 "
        f"under any warm-up, m_k, policy or step choice is {lo:.3f}. The Reno-friendly W_est "
        "gains about 130 packets over K against the curve's 4,200, so alpha_cubic = 1 (RFC 9438) "
        "never binds here",
    )
    low = min(d.loc[f, ("aimd", x)] - d.loc[f, ("cubic", x)] for f in fracs for x in SYNC)
    c.add(
        "6(c): AIMD above CUBIC",
        "10 AIMD outperforms CUBIC (every buffer)",
        low,
        low >= 0.0,
        "smallest AIMD - CUBIC over buffers and X: at X = 1 utilization follows the cut, CUBIC's "
        "0.3 above AIMD's 0.5, and CUBIC regains it in 22 s where AIMD needs about 1200 s",
    )
    low = min(d.loc[f, ("highspeed", x)] - d.loc[f, ("cubic", x)] for f in small for x in SYNC)
    c.add(
        "6(b): HSTCP above CUBIC",
        "HSTCP performs better than CUBIC with various buffer sizes",
        low,
        low > 0.0,
        "smallest HSTCP - CUBIC at 1% and 5% over X: HighSpeed's cut at these windows (0.2) is "
        "shallower than CUBIC's (0.3); from 20% both are within 0.01 of 1",
    )
    big = [f for f in fracs if f >= 0.2]
    worse = max(d.loc[f, ("cubic", 0.6)] - d.loc[f, ("cubic", 1.0)] for f in big)
    better = min(d.loc[f, ("cubic", 0.3)] - d.loc[f, ("cubic", 1.0)] for f in big)
    c.add(
        "6(b): CUBIC above 20% of BDP",
        "lower synchronization improves; X = 0.6 no better than X = 1",
        worse,
        worse <= 0.01 and better >= 0.0,
        f"largest X = 0.6 minus X = 1 from 20% up (X = 0.3 minus X = 1: at least {better:.3f}): "
        "every curve is within 0.01 of full utilization there, so the statement holds trivially",
        0.01,
    )


def _claims_htcp_and_sync(c: Claims, table: pd.DataFrame, small: list) -> None:
    u1, u3 = _u(table, "htcp", 1.0, 0.05), _u(table, "htcp", 0.3, 0.05)
    c.add(
        "6(d): H-TCP at 5% of BDP",
        "synchronized H-TCP poor at 0.05 BDP; de-synchronized flows better",
        u1,
        u1 < 0.9 and u3 > u1 + 0.05,
        f"X = 1 (X = 0.3: {u3:.3f}): H-TCP's increase restarts from the last loss, so flows that "
        "all lose together all restart slowly",
    )
    spread = {v: max(_spread(table, v, f) for f in small) for v in VARIANTS}
    m_k = min(
        _spread(table, "htcp", 0.05, case)
        for case in ("default", "m_k = ceil(XN)", "m_k sd 0.5 N", "random flows lose")
    )
    ok = max(spread["cubic"], spread["htcp"]) < min(spread["highspeed"], spread["aimd"])
    c.add(
        "section V: X matters little for CUBIC and H-TCP",
        "synchronization level changes CUBIC and H-TCP little, HSTCP and AIMD more",
        max(spread["cubic"], spread["htcp"]),
        ok,
        "largest spread over X at 1% and 5%, CUBIC or H-TCP (HSTCP "
        f"{spread['highspeed']:.3f}, AIMD {spread['aimd']:.3f}, CUBIC {spread['cubic']:.3f}, "
        f"H-TCP {spread['htcp']:.3f}); with any m_k draw or policy H-TCP's spread at 5% stays "
        f"at least {m_k:.3f}. At X = 1 every flow cuts at once, and the cut that hurts most "
        "gains most from X < 1; the paper's own figure 6(d) text says the same of H-TCP",
    )


def _claims_setup(c: Claims, table: pd.DataFrame) -> None:
    d = table[table["case"] == "default"]
    t0, t1 = float(d["first_congestion_s"].min()), float(d["first_congestion_s"].max())
    diffs = [
        abs(_u(table, v, x, f, w) - _u(table, v, x, f))
        for v in VARIANTS
        for x in SYNC
        for f in d["fraction"].unique()
        for w in WARMUPS
    ]
    c.add(
        "section III: measured from the first congestion event",
        "throughput taken from the first congestion event (bufsim: after a 300 s warm-up, 200 s quick)",
        max(diffs),
        max(diffs) <= 0.03,
        f"largest change over every variant, X and buffer when measuring from 0 s or from the "
        f"first congestion event (at {t0:.2f}-{t1:.2f} s, the end of slow start) instead",
        0.03,
    )


# ------------------------------------------------- fluid calibrated by packet

#: The calibrated comparison's buffers (fractions of :data:`BDP_PKTS`): full
#: version and quick version.
CALIBRATED_FRACTIONS = (0.01, 0.05, 0.2)
CALIBRATED_QUICK_FRACTIONS = (0.05,)

#: Length of the calibrated comparison's runs: (duration, warm-up), full and quick.
CALIBRATED_DURATION = ("600s", "100s")
CALIBRATED_QUICK_DURATION = ("30s", "10s")

#: Agreement tolerance of the calibrated fluid against the packet engine (utilization).
CALIBRATED_TOL = 0.03

#: Width of the bins of the utilization series kept for the figure, seconds.
SERIES_BIN_S = {False: 10.0, True: 1.0}


def _late(ts: pd.Series, warmup_s: float) -> float:
    """Mean of a time series over the second half of the statistics window.

    The same estimator for both engines: the fluid engine has no
    ``output.halves`` (the packet engine's exact ``utilization_half2``),
    so the packet and fluid columns are read alike from their series."""
    mid = (warmup_s + float(ts.index.max())) / 2.0
    return float(ts[ts.index >= mid].mean())


def _bins(ts: pd.Series, bin_s: float) -> pd.Series:
    """Means of a time series over ``bin_s``-second bins (index: bin start, s)."""
    return ts.groupby((ts.index // bin_s) * bin_s).mean()


def _fill_time(ts: pd.Series, bin_s: float, level: float = 0.95) -> float:
    """First time (seconds) at which the ``bin_s`` mean of a utilization
    series reaches ``level``; NaN if it never does."""
    b = _bins(ts, bin_s)
    hit = b[b >= level]
    return float(hit.index[0]) if len(hit) else float("nan")


def _sync(summary: dict[str, float]) -> float:
    """A run's ``sync_mean``, NaN when it had no congestion event after the
    warm-up (the engines report 0 there)."""
    return summary["sync_mean"] if summary["congestion_events"] > 0 else float("nan")


def _matched_x(raw: dict[str, Any], target: float, steps: int = 7) -> tuple[float, dict]:
    """X for which the fluid engine's own measured sync (:func:`_sync`) comes
    closest to ``target`` (bisection over X in (0, 1], ``steps`` fluid runs
    after the two ends; a run without a congestion event after the warm-up
    counts as above the target: deeper cuts refill more slowly), and that
    run's summary (NaN X and summary when no run had an event)."""
    tried: dict[float, dict] = {}

    def sync_at(x: float) -> float:
        if x not in tried:
            tried[x] = bufsim.simulate({**raw, "fluid": {"sync": x}}, engine="fluid").summary
        return _sync(tried[x])

    lo, hi = 0.01, 1.0
    if sync_at(lo) < target and not sync_at(hi) <= target:
        for _ in range(steps):
            mid = round((lo + hi) / 2.0, 4)
            lo, hi = (mid, hi) if sync_at(mid) < target else (lo, mid)
    found = {x: abs(_sync(r) - target) for x, r in tried.items() if _sync(r) == _sync(r)}
    if not found:
        return float("nan"), {"utilization": float("nan"), "sync_mean": float("nan")}
    x = min(found, key=lambda v: (found[v], v))
    return x, {**tried[x], "sync_mean": _sync(tried[x])}


def calibrated_scenario(variant: str, fraction: float, duration: str, warmup: str) -> dict:
    """The raw scenario of one buffer of the calibrated comparison: paper
    004's (:func:`scenario`) without the ``[fluid]`` table, the packet
    engine's default TCP stack (``rfc``: SACK, initial window 1, an ACK per
    segment, RFC 6675 recovery)."""
    raw = scenario(variant, fraction, 1.0, 1, duration, warmup)
    raw["name"] = f"kumar2010-calibrated-{variant}-b{fraction:g}"
    del raw["fluid"]
    return raw


def packet_point(raw: dict[str, Any], bin_s: float = 10.0) -> tuple[dict[str, Any], pd.Series]:
    """The packet engine's side of :func:`calibrated_point`: its columns
    (``packet`` ... ``packet_fill_s``) and its utilization series in
    ``bin_s`` bins (index: bin start, seconds)."""
    p = bufsim.simulate(raw, engine="packet")
    ps, ts = p.summary, p.timeseries["utilization"]
    # Events in which one flow lost: fraction 1/N of the N flows.
    one = p.congestion_events["fraction"] * raw["flows"][0]["count"] < 1.5
    row = {
        "packet": ps["utilization"],
        "packet_sync": _sync(ps),
        "packet_events": ps["congestion_events"],
        "packet_single_flow_events": float(one.mean()) if len(one) else float("nan"),
        "packet_timeouts": ps["timeouts"],
        "packet_drop_rate": ps["drop_rate"],
        "packet_queue": ps["mean_queue_pkts"],
        "packet_late": _late(ts, p.scenario["warmup_s"]),
        "packet_fill_s": _fill_time(ts, bin_s),
    }
    return row, _bins(ts, bin_s)


def fluid_point(
    raw: dict[str, Any], sync: float, bin_s: float = 10.0
) -> tuple[dict[str, Any], pd.Series]:
    """The fluid engine's side of :func:`calibrated_point` for a packet run
    with synchronization ``sync`` (NaN: no congestion event after the
    warm-up, nothing to calibrate with, the calibrated columns are NaN):
    its columns (``x_cal`` ... ``fluid_x1``) and the calibrated run's
    utilization series in ``bin_s`` bins (empty without one)."""
    row: dict[str, Any] = {}
    series = pd.Series(dtype=float)
    if sync == sync:
        row["x_cal"] = min(max(sync, 0.01), 1.0)
        cal = bufsim.simulate({**raw, "fluid": {"sync": row["x_cal"]}}, engine="fluid")
        ts = cal.timeseries["utilization"]
        row["fluid_cal"] = cal.summary["utilization"]
        row["fluid_cal_sync"] = _sync(cal.summary)
        row["fluid_cal_late"] = _late(ts, cal.scenario["warmup_s"])
        row["x_matched"], matched = _matched_x(raw, sync)
        row["fluid_matched"] = matched["utilization"]
        row["fluid_matched_sync"] = matched["sync_mean"]
        series = _bins(ts, bin_s)
    else:
        for col in (
            "x_cal",
            "fluid_cal",
            "fluid_cal_sync",
            "fluid_cal_late",
            "x_matched",
            "fluid_matched",
            "fluid_matched_sync",
        ):
            row[col] = float("nan")
    for x in SYNC:
        row[f"fluid_x{x:g}"] = bufsim.simulate(
            {**raw, "fluid": {"sync": x}}, engine="fluid"
        ).summary["utilization"]
    return row, series


def calibrated_point(
    variant: str, fraction: float, duration: str, warmup: str, bin_s: float = 10.0
) -> tuple[dict[str, Any], pd.DataFrame]:
    """One buffer of the calibrated comparison: the packet engine on paper
    004's scenario (:func:`calibrated_scenario`), the fluid engine with X set
    to the packet run's ``sync_mean``, with X matched on the fluid's own
    measured sync, and at the paper's X values.

    Parameters
    ----------
    variant : str
        A key of :data:`PANELS`.
    fraction : float
        Buffer as a fraction of :data:`BDP_PKTS`.
    duration, warmup : str
        Simulated time and warm-up, with units (``"1000s"``).
    bin_s : float
        Width of the bins of the returned utilization series, seconds.

    Returns
    -------
    tuple
        The row (columns of :func:`run_calibrated`) and a DataFrame indexed
        by time (s, bin start) with the binned utilization of the packet run
        (``packet``) and of the calibrated fluid run (``fluid_cal``).
    """
    raw = calibrated_scenario(variant, fraction, duration, warmup)
    prow, pseries = packet_point(raw, bin_s)
    frow, fseries = fluid_point(raw, prow["packet_sync"], bin_s)
    row = {"variant": variant, "fraction": fraction, "buffer_pkts": round(fraction * BDP_PKTS)}
    return {**row, **prow, **frow}, pd.DataFrame({"packet": pseries, "fluid_cal": fseries})


def run_calibrated(
    quick: bool = False,
    progress: Callable[[str], Any] | None = None,
    variants: tuple[str, ...] = VARIANTS,
) -> pd.DataFrame:
    """Fluid calibrated by packet: per variant and buffer, the packet
    engine's utilization and loss synchronization, the fluid engine at that
    synchronization and at the paper's X values (:func:`calibrated_point`).

    Parameters
    ----------
    quick : bool
        5% of BDP only, 30 s runs (10 s warm-up), about 10 CPU s, instead
        of :data:`CALIBRATED_FRACTIONS` for 600 s (100 s warm-up): about
        23 CPU minutes (the packet runs).
    progress : callable, optional
        Called with a line of text before each packet run.
    variants : tuple of str
        Which variants (default all four).

    Returns
    -------
    pandas.DataFrame
        One row per (variant, fraction): ``buffer_pkts``; the packet engine's
        ``packet`` (utilization), ``packet_sync`` (its ``sync_mean``),
        ``packet_events`` (congestion events), ``packet_single_flow_events``
        (share of them in which one flow of ten lost), ``packet_timeouts``,
        ``packet_drop_rate``, ``packet_queue`` (mean, packets),
        ``packet_late`` (utilization over the second half of the statistics
        window), ``packet_fill_s`` (first time its 10 s mean utilization
        reaches 0.95, NaN if never); the fluid engine at X = ``x_cal`` (the
        packet's sync, floored at 0.01): ``fluid_cal``, ``fluid_cal_sync``
        (the fluid's own measured sync), ``fluid_cal_late``; at X =
        ``x_matched``, where the fluid's measured sync matches the packet's:
        ``fluid_matched``, ``fluid_matched_sync``; and at the paper's X:
        ``fluid_x0.3``, ``fluid_x0.6``, ``fluid_x1``. ``attrs["series"]``
        maps (variant, fraction) to the binned utilization series of the
        packet and calibrated fluid runs; ``attrs["warmup_s"]`` and
        ``attrs["duration_s"]`` give the runs' length.
    """
    fractions = CALIBRATED_QUICK_FRACTIONS if quick else CALIBRATED_FRACTIONS
    duration, warmup = CALIBRATED_QUICK_DURATION if quick else CALIBRATED_DURATION
    rows, series = [], {}
    for variant in variants:
        for frac in fractions:
            if progress:
                progress(f"kumar2010 calibrated: {variant}, {frac:g} of BDP, packet {duration} ...")
            row, s = calibrated_point(variant, frac, duration, warmup, SERIES_BIN_S[quick])
            rows.append(row)
            series[(variant, frac)] = s
    table = pd.DataFrame(rows)
    norm = bufsim.Scenario.load(calibrated_scenario(variants[0], fractions[0], duration, warmup))
    table.attrs.update(
        series=series,
        warmup_s=norm.normalized["warmup_s"],
        duration_s=norm.normalized["duration_s"],
        quick=quick,
    )
    return table


def calibrated(table: pd.DataFrame) -> pd.DataFrame:
    """The calibrated comparison for a :func:`run` table:
    ``table.attrs["calibrated"]``, computed once by :func:`run_calibrated`
    (quick if the table is)."""
    if "calibrated" not in table.attrs:
        table.attrs["calibrated"] = run_calibrated(quick=table.attrs.get("quick", False))
    return table.attrs["calibrated"]


def tables(table: pd.DataFrame) -> dict[str, tuple[str, pd.DataFrame]]:
    """The further tables of a :func:`run` table, shown by ``bufsim
    reproduce`` and the report: ``{"calibrated": (title, frame)}``."""
    return {
        "calibrated": (
            "Fluid calibrated by packet: packet engine, fluid at the packet's "
            "synchronization and at the paper's X",
            calibrated(table),
        )
    }


def _why_gap(r: pd.Series, warmup_s: float) -> str:
    """One variant's packet and calibrated fluid utilization, with the
    measured signs of what separates them."""
    name = PANELS[r["variant"]][1]
    if r["packet_sync"] != r["packet_sync"]:
        return f"{name}: packet {r['packet']:.3f}, no congestion event after the warm-up"
    text = (
        f"{name}: packet {r['packet']:.3f} (sync {r['packet_sync']:.2f}, "
        f"{r['packet_events']:.0f} events), fluid {r['fluid_cal']:.3f}"
    )
    signs = []
    if r["packet_late"] > r["packet"] + 0.02 or not r["packet_fill_s"] <= warmup_s:
        fill = (
            "never at 0.95 over 10 s"
            if r["packet_fill_s"] != r["packet_fill_s"]
            else f"first at 0.95 at {r['packet_fill_s']:.0f} s"
        )
        signs.append(f"filling: second half {r['packet_late']:.3f}, {fill}")
    if r["packet_timeouts"] > 0:
        signs.append(f"{r['packet_timeouts']:.0f} timeouts")
    if r["packet"] < 0.95 and r["packet_queue"] < 0.05 * r["buffer_pkts"]:
        signs.append(
            f"losses at a mean queue of {r['packet_queue']:.0f} of {r['buffer_pkts']:.0f} packets"
        )
    return text + (f" [{'; '.join(signs)}]" if signs else "")


def _claims_calibrated(c: Claims, cal: pd.DataFrame) -> None:
    warm = cal.attrs["warmup_s"]
    length = f"{cal.attrs['duration_s']:.0f} s runs, {warm:.0f} s warm-up"
    for frac, t in cal.groupby("fraction"):
        gap = (t["fluid_cal"] - t["packet"]).abs()
        worst = float(gap.max()) if gap.notna().any() else float("nan")
        c.add(
            f"fluid calibrated by packet, {frac:.0%} of BDP",
            "section III.A: with the synchronization of packet simulation (ns-2) the fluid "
            "model matches it; section V: synchronization 'can be fed from real experiments'",
            worst,
            worst <= CALIBRATED_TOL,
            f"largest |fluid at X = packet sync_mean - packet| over the variants ({length}); "
            + "; ".join(_why_gap(r, warm) for _, r in t.iterrows()),
            CALIBRATED_TOL,
        )
    ok = cal["packet_sync"].notna()
    over = (cal["fluid_cal_sync"] - cal["packet_sync"]).dropna()
    moved = (cal["fluid_matched"] - cal["fluid_cal"]).abs()[ok]
    c.add(
        "X is a minimum, sync_mean a mean",
        "section II.D.1, eq. (8): X is the minimum synchronized fraction, m_k in [X N, N]",
        float(over.min()) if len(over) else float("nan"),
        bool(len(over)) and bool((over >= -1e-9).all()),
        "smallest (fluid's own sync_mean at X = packet sync_mean) minus the packet's: m_k is "
        "drawn at or above ceil(X N), so the fluid synchronizes more than the packet run it is "
        f"calibrated from (by up to {over.max():.2f}); X matched on the measured sync "
        f"({cal['x_matched'][ok].min():.2f}-{cal['x_matched'][ok].max():.2f}) moves the fluid's "
        f"utilization by at most {moved.max():.3f}. The packet's event is a fixed window of "
        "one mean RTT (170 ms) from a drop, the fluid's one overflow episode",
    )
    lo, hi = float(cal.loc[ok, "packet_sync"].min()), float(cal.loc[ok, "packet_sync"].max())
    c.add(
        "packet engine's synchronization",
        "section III.B: X = 0.3 and 0.6 for lower and higher synchronization of high-speed "
        "flows; mean field [14]: at least 60% of flows lose in a congestion event",
        hi,
        lo >= 0.3 - 0.05 and hi <= 0.6 + 0.05,
        f"highest packet sync_mean over variants and buffers (lowest {lo:.2f}; tolerance 0.05 "
        "around [0.3, 0.6]): "
        + ", ".join(
            f"{PANELS[v][1]} "
            + ", ".join(
                "no event" if x != x else f"{x:.2f}"
                for x in g.sort_values("fraction")["packet_sync"]
            )
            for v, g in cal.groupby("variant", sort=False)
        )
        + f" at {', '.join(f'{f:.0%}' for f in sorted(cal['fraction'].unique()))}"
        + _sync_split(cal),
        0.05,
    )


def _sync_split(cal: pd.DataFrame) -> str:
    """The packet sync range below and from 5% of BDP, as a sentence (empty
    when the table has only one side)."""
    s = cal[cal["packet_sync"].notna()]
    small, big = s[s["fraction"] < 0.05]["packet_sync"], s[s["fraction"] >= 0.05]["packet_sync"]
    if not len(small) or not len(big):
        return ""
    return (
        f". From 5% on the flows synchronize at {big.min():.2f}-{big.max():.2f}, near X = 1 "
        "(and above the mean field's 60%); below, burst losses at a near-empty queue hit "
        f"fewer flows at a time ({small.min():.2f}-{small.max():.2f})"
    )


#: The paper's numbers drawn on each panel: variant -> (fractions, level, marker, label).
PAPER_MARKS = {
    "highspeed": ((0.05,), 0.9, "^", "paper: > 90% at 5% (every X)"),
    "aimd": ((0.05,), 0.9, "^", "paper: > 90% at 5% (every X)"),
    "cubic": ((0.01, 0.05, 0.1), 0.9, "v", "paper: < 90% for all X"),
}

_VARIANT_COLORS = ("#1f4e79", "#c55a11", "#548235", "#7030a0")

_SYNC_STYLE = {0.3: ("o", "-", "#c55a11"), 0.6: ("s", "--", "#7030a0"), 1.0: ("D", ":", "#1f4e79")}


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """Figure 6, one panel per variant: utilization against the buffer
    (fraction of the 141,667-packet BDP, log axis), one curve per X with
    +-1 sd over seeds, the paper's reported levels as grey marks; and the
    modelling choices: utilization at 5% of BDP per case; and the fluid
    calibrated by packet (:func:`run_calibrated`): utilization against the
    buffer per variant with the measured synchronizations below, and the
    packet and calibrated fluid runs' utilization over time at 5%.

    Returns
    -------
    dict
        ``{"fig6a_highspeed": Figure, "fig6b_cubic": ..., "fig6c_aimd": ...,
        "fig6d_htcp": ..., "choices": Figure, "calibrated": Figure,
        "calibrated_series": Figure}`` (matplotlib Figures).
    """
    figs = {f"fig6{letter}_{v}": _panel(table, v) for v, (letter, _) in PANELS.items()}
    figs["choices"] = _choices(table)
    figs["calibrated"] = _calibrated_figure(calibrated(table))
    figs["calibrated_series"] = _calibrated_series_figure(calibrated(table))
    return figs


def _panel(table: pd.DataFrame, variant: str) -> Any:
    from bufsim.plot import _figure

    letter, label = PANELS[variant]
    fig, (ax,) = _figure(5.6, 3.6)
    t = table[(table["case"] == "default") & (table["variant"] == variant)]
    for x in SYNC:
        r = t[np.isclose(t["sync"], x)].sort_values("fraction")
        marker, ls, color = _SYNC_STYLE[x]
        ax.errorbar(
            r["fraction"],
            r["utilization"],
            yerr=r["utilization_sd"].fillna(0.0),
            marker=marker,
            ls=ls,
            color=color,
            capsize=2,
            label=f"bufsim, X = {x:g}",
        )
    ax.axhline(0.9, color="grey", lw=0.8)
    if variant in PAPER_MARKS:
        fr, level, marker, text = PAPER_MARKS[variant]
        ax.plot(fr, [level] * len(fr), marker, ls="none", ms=11, color="grey", label=text)
    if variant == "aimd":
        xs = np.geomspace(t["fraction"].min(), t["fraction"].max(), 40)
        ax.plot(
            xs,
            [aimd_sync_utilization(f) for f in xs],
            color="#548235",
            lw=1,
            label="synchronized sawtooth, closed form",
        )
    fracs = sorted(t["fraction"].unique())
    ax.set_xscale("log")
    ax.set_xticks(fracs, labels=[f"{f:.0%}" for f in fracs])
    ax.minorticks_off()
    ax.set_ylim(min(0.7, float(t["utilization"].min()) - 0.02), 1.01)
    ax.set_xlabel("buffer (fraction of the 141,667-packet BDP)")
    ax.set_ylabel("utilization")
    ax.set_title(f"Figure 6({letter}): {label}, 10 flows, 10 Gbps", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _choices(table: pd.DataFrame) -> Any:
    from bufsim.plot import _figure

    cases = ["default", *WARMUPS, *ALTERNATIVES]
    fig, axes = _figure(6.4, 7.5, nrows=len(VARIANTS), sharex=True)
    for ax, variant in zip(axes, ("highspeed", "cubic", "aimd", "htcp")):
        for x in SYNC:
            marker, _, color = _SYNC_STYLE[x]
            u = [_u(table, variant, x, 0.05, case) for case in cases]
            ax.plot(u, range(len(cases)), marker, ls="none", color=color, label=f"X = {x:g}")
        ax.axvline(0.9, color="grey", lw=0.8)
        ax.set_yticks(range(len(cases)), labels=cases, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{PANELS[variant][1]} at 5% of BDP", fontsize=8)
    axes[1].legend(fontsize=7, loc="lower left")
    axes[-1].set_xlabel("utilization (eq. (1) rate decrease: AIMD and HSTCP only)")
    return fig


def _calibrated_figure(cal: pd.DataFrame) -> Any:
    """Utilization against the buffer per variant: the packet engine, the
    fluid engine at the packet's sync (as X, and matched on the measured
    sync) and at the paper's X; below, the measured synchronizations."""
    from bufsim.plot import ENGINE_COLORS, _figure

    order = [v for v in PANELS if v in set(cal["variant"])]
    fig, axes = _figure(6.4, 2.1 * (len(order) + 1), nrows=len(order) + 1, sharex=True)
    for ax, variant in zip(axes, order):
        t = cal[cal["variant"] == variant].sort_values("fraction")
        x = t["fraction"]
        for sync in SYNC:
            marker, ls, color = _SYNC_STYLE[sync]
            ax.plot(
                x,
                t[f"fluid_x{sync:g}"],
                marker,
                ls=ls,
                color=color,
                alpha=0.35,
                ms=4,
                label=f"fluid, X = {sync:g}",
            )
        ax.plot(x, t["packet"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet engine")
        ax.plot(
            x,
            t["packet_late"],
            "o",
            ls=":",
            color=ENGINE_COLORS["packet"],
            mfc="none",
            label="packet, second half of the run",
        )
        ax.plot(
            x,
            t["fluid_cal"],
            "^-",
            color=ENGINE_COLORS["fluid"],
            lw=2,
            label="fluid, X = packet's sync_mean",
        )
        ax.plot(
            x,
            t["fluid_matched"],
            "v--",
            color=ENGINE_COLORS["fluid"],
            label="fluid, measured sync matched",
        )
        ax.set_ylim(0.0, 1.02)
        ax.set_ylabel("utilization")
        ax.set_title(f"{PANELS[variant][1]}, 10 flows, 10 Gbps", fontsize=8)
    axes[0].legend(fontsize=6, loc="lower right", ncol=2)
    sx = axes[-1]
    for k, variant in enumerate(order):
        t = cal[cal["variant"] == variant].sort_values("fraction")
        color = _VARIANT_COLORS[k % len(_VARIANT_COLORS)]
        sx.plot(
            t["fraction"],
            t["packet_sync"],
            "o-",
            color=color,
            label=f"{PANELS[variant][1]}: packet sync_mean",
        )
        sx.plot(
            t["fraction"],
            t["fluid_cal_sync"],
            "^:",
            color=color,
            alpha=0.6,
            label=f"{PANELS[variant][1]}: fluid's own, X = that",
        )
    for sync in SYNC:
        sx.axhline(sync, color="grey", lw=0.6, ls=":")
    sx.set_ylim(0.0, 1.05)
    sx.set_ylabel("loss synchronization")
    sx.legend(fontsize=6, ncol=2, loc="lower right")
    fracs = sorted(cal["fraction"].unique())
    sx.set_xscale("log")
    sx.set_xticks(fracs, labels=[f"{f:.0%}" for f in fracs])
    sx.minorticks_off()
    sx.set_xlabel("buffer (fraction of the 141,667-packet BDP)")
    return fig


def _calibrated_series_figure(cal: pd.DataFrame) -> Any:
    """Utilization over time at 5% of BDP (or the first buffer run), packet
    engine against the calibrated fluid, one panel per variant."""
    from bufsim.plot import ENGINE_COLORS, _figure

    series = cal.attrs["series"]
    frac = 0.05 if any(np.isclose(f, 0.05) for _, f in series) else min(f for _, f in series)
    order = [v for v in PANELS if (v, frac) in series]
    fig, axes = _figure(6.4, 1.8 * len(order), nrows=len(order), sharex=True)
    for ax, variant in zip(axes, order):
        s = series[(variant, frac)]
        ax.plot(s.index, s["packet"], color=ENGINE_COLORS["packet"], label="packet engine")
        ax.plot(
            s.index,
            s["fluid_cal"],
            color=ENGINE_COLORS["fluid"],
            label="fluid, X = packet's sync_mean",
        )
        ax.axvline(cal.attrs["warmup_s"], color="grey", lw=0.8, ls="--")
        ax.set_ylim(0.0, 1.05)
        ax.set_ylabel("utilization")
        ax.set_title(
            f"{PANELS[variant][1]} at {frac:.0%} of BDP (dashed: end of warm-up)", fontsize=8
        )
    axes[0].legend(fontsize=7, loc="lower right")
    axes[-1].set_xlabel("time (s)")
    return fig
