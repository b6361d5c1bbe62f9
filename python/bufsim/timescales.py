"""Time scales of a scenario: how long a run must warm up and measure.

A packet run measures a steady state only after the flows have left slow
start and gone through several congestion epochs (one sawtooth of the
windows), and it needs several epochs in its measurement window for the
averages to settle. :func:`time_scales` derives both from the scenario.

Each variant declares its epoch with its law in the core's registry
(``Variant::epoch`` in ``crates/bufsim-core/src/tcp/cc/``, read through
``bufsim._core.congestion_epoch``): Reno and AIMD regain a halving in W/2
RTTs (paper 002 section 2), CUBIC regains W_max in K = cbrt(W (1 - beta) /
C) seconds (RFC 9438 eq. 2), HighSpeed its cut in b(W) W / a(W) RTTs (RFC
3649), Scalable in ln(1/(1 - b)) / ln(1 + a) RTTs, H-TCP and DCTCP in at
most AIMD's W/2, and BBR, which has no sawtooth, cycles through ProbeRTT
once per RTprop window. Each law reads the group's own ``tcp_params``. With N
long-lived flows sharing C*T + B packets of windows and queue, a flow's
window is W = (C*T + B)/N; at B = one BDP (the rule of thumb, the top of the
published rules) W = 2 BDP / N.

The longest epoch over the groups sets the pace. Warm-up: slow start
(``log2 W`` RTTs) plus :data:`WARMUP_EPOCHS` epochs, at least
:data:`MIN_RTTS` of the largest RTTs. Measurement: :data:`MEASURE_EPOCHS`
epochs, at least :data:`MIN_RTTS` largest RTTs and, with open-loop transfers,
long enough for :data:`MIN_ARRIVALS` transfers to arrive (flow completion
time percentiles need that many). Both are capped at :data:`MAX_MEASURE_S`
(a note says so when the cap bites).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from bufsim import _core, fmt

__all__ = ["time_scales"]

#: Congestion epochs in the warm-up (after slow start).
WARMUP_EPOCHS = 2
#: Congestion epochs in the measurement window.
MEASURE_EPOCHS = 5
#: Least warm-up and measurement, in largest RTTs.
MIN_RTTS = 50
#: Least open-loop arrivals in the measurement window.
MIN_ARRIVALS = 2000
#: Longest derived measurement window, seconds (simulated).
MAX_MEASURE_S = 300.0


def _epoch_s(group: Mapping[str, Any], window_pkts: float, rtt_s: float) -> tuple[float, str]:
    """One congestion epoch of a flow of this group (seconds) and its law in
    words, from the variant's own law in the core's registry."""
    e = _core.congestion_epoch(json.dumps(group["cc"]), window_pkts, rtt_s)
    rtts = e["rtts"]
    value = f"{fmt.number(rtts, 3)} RTTs" if rtts == rtts else f"{fmt.number(e['seconds'], 3)} s"
    return float(e["seconds"]), f"{e['law']}: {value}"


def time_scales(norm: Mapping[str, Any]) -> dict[str, Any]:
    """Warm-up and duration a packet run of this scenario needs (see the module text).

    Parameters
    ----------
    norm : mapping
        A normalized scenario (``Scenario.normalized``); its own
        ``duration`` and ``warmup`` are not read.

    Returns
    -------
    dict
        ``epoch_s`` (the longest congestion epoch, seconds; NaN without
        long-lived flows), ``rtt_max_s`` (seconds), ``warmup_s`` and
        ``duration_s`` (seconds, rounded up to 0.1 s), ``capped`` (bool) and
        ``why`` (the formulas, in words).
    """
    link = norm["link"]
    bdp = max(float(link["bdp_pkts"]), 1.0)
    rtt = float(link["bdp_rtt_s"])
    n = sum(g["count"] for g in norm["flows"] if g["kind"] == "persistent")
    rtts = [r for g in norm["flows"] for r in g["rtts_s"]]
    rtts += [g["rtt_harmonic_mean_s"] for g in norm["flows"] if not g["rtts_s"]]
    rtt_max = max(rtts or [rtt])
    epoch, why, window = math.nan, [], 2 * bdp / max(n, 1)
    for g in norm["flows"]:
        if g["kind"] != "persistent":
            continue
        e, formula = _epoch_s(g, window, rtt)
        if not e <= epoch:
            epoch, why = (
                e,
                [f"longest congestion epoch {fmt.number(e, 3)} s: {g['tcp']}, {formula}"],
            )
    if n:
        why.append(f"W = 2 BDP / N = {fmt.number(window, 3)} packets (N = {n}, buffer one BDP)")
    slow_start = math.log2(max(window, 2.0)) * rtt_max
    warm = max(slow_start + WARMUP_EPOCHS * (epoch if n else 0.0), MIN_RTTS * rtt_max)
    measure = max(MEASURE_EPOCHS * epoch if n else 0.0, MIN_RTTS * rtt_max)
    rate = sum(g.get("arrival_rate_per_s") or 0.0 for g in norm["flows"] if g["kind"] == "open")
    if rate > 0:
        measure = max(measure, MIN_ARRIVALS / rate)
        why.append(f"{MIN_ARRIVALS} open-loop arrivals at {fmt.number(rate)} flows/s")
    capped = measure > MAX_MEASURE_S
    measure = min(measure, MAX_MEASURE_S)
    warm = min(warm, MAX_MEASURE_S)
    why.append(
        f"warm-up = slow start + {WARMUP_EPOCHS} epochs, measurement = {MEASURE_EPOCHS} epochs, "
        f"each at least {MIN_RTTS} RTTs of {fmt.number(rtt_max * 1e3)} ms"
        + (f" (capped at {fmt.number(MAX_MEASURE_S)} s)" if capped else "")
    )
    warm_s = math.ceil(warm * 10) / 10
    return {
        "epoch_s": epoch,
        "rtt_max_s": rtt_max,
        "warmup_s": warm_s,
        "duration_s": warm_s + math.ceil(measure * 10) / 10,
        "capped": capped,
        "why": "; ".join(why),
    }
