"""Time scales of a scenario: how long a run must warm up and measure.

A packet run measures a steady state only after the flows have left slow
start and gone through several congestion epochs (one sawtooth of the
windows), and it needs several epochs in its measurement window for the
averages to settle. :func:`time_scales` derives both from the scenario:

* **Reno-like AIMD** (``newreno``, ``reno``, ``aimd`` and, as an upper bound,
  ``htcp`` and ``dctcp``, whose first cut at alpha = 1 halves the window and
  whose steady cuts last only sqrt(W/2) RTTs, Alizadeh et al. 2010 eq. (7)): a flow's window climbs one packet per RTT from W/2 to W, so an
  epoch lasts W/2 RTTs (the sawtooth of paper 002 section 2 and paper 003's
  AIMD cycle). With N long-lived flows sharing C*T + B packets of windows
  and queue, W = (C*T + B)/N; at B = one BDP (the rule of thumb, the top of
  the published rules) the epoch is ``BDP/N`` RTTs.
* **CUBIC** (RFC 9438 section 4.2 eq. 2): the window regains W_max after
  ``K = cbrt(W_max (1 - beta) / C)`` seconds, beta = 0.7, C = 0.4.
* **HighSpeed** (RFC 3649; paper 001): the window loses ``b(W) W`` and
  regains ``a(W)`` per RTT, so an epoch lasts ``b(W) W / a(W)`` RTTs.
* **Scalable**: ``ln(1/0.875) / ln(1.01)`` = 13.4 RTTs whatever the window.
* **BBR** has no loss sawtooth: its longest cycle is ProbeRTT's, once per
  RTprop filter window, 10 s (draft-cardwell-iccrg-bbr-congestion-control-00
  section 4.1.2.2; draft-ietf-ccwg-bbr's ProbeRTT interval is 5 s).

The longest epoch over the groups sets the pace. Warm-up: slow start
(``log2 W`` RTTs) plus :data:`WARMUP_EPOCHS` epochs, at least
:data:`MIN_RTTS` of the largest RTTs. Measurement: :data:`MEASURE_EPOCHS`
epochs, at least :data:`MIN_RTTS` largest RTTs and, with open-loop transfers,
long enough for :data:`MIN_ARRIVALS` transfers to arrive (flow completion
time percentiles need that many). Both are capped at :data:`MAX_MEASURE_S`
(a note says so when the cap bites).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

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

# RFC 9438 section 4.2: C = 0.4, beta_cubic = 0.7.
_CUBIC_C, _CUBIC_BETA = 0.4, 0.7
# Scalable TCP (Kelly 2003): +0.01 per ACK (x1.01 per RTT), -1/8 on loss.
_SCALABLE_EPOCH_RTTS = math.log(1 / 0.875) / math.log(1.01)
# draft-cardwell-iccrg-bbr-congestion-control-00 section 4.1.2.2:
# RTpropFilterLen = 10 s, the period of ProbeRTT.
_BBR_PROBE_RTT_S = 10.0


def _epoch_s(tcp: str, window_pkts: float, rtt_s: float) -> tuple[float, str]:
    """One congestion epoch of a flow of this variant (seconds) and its formula."""
    w = max(window_pkts, 2.0)
    if tcp == "cubic":
        k = (w * (1 - _CUBIC_BETA) / _CUBIC_C) ** (1 / 3)
        return k, f"CUBIC K = cbrt(W 0.3 / 0.4) = {k:.3g} s (RFC 9438 eq. 2)"
    if tcp == "highspeed":
        from bufsim.models import highspeed

        rtts = float(highspeed.hstcp_b(w) * w / highspeed.hstcp_a(w))
        return rtts * rtt_s, f"HighSpeed b(W) W / a(W) = {rtts:.3g} RTTs (RFC 3649)"
    if tcp == "bbr":
        return _BBR_PROBE_RTT_S, "BBR's ProbeRTT cycle, the 10 s RTprop window (no sawtooth)"
    if tcp == "scalable":
        return (
            _SCALABLE_EPOCH_RTTS * rtt_s,
            f"Scalable ln(8/7)/ln(1.01) = {_SCALABLE_EPOCH_RTTS:.3g} RTTs",
        )
    return w / 2 * rtt_s, f"AIMD W/2 = {w / 2:.3g} RTTs (sawtooth, paper 002 section 2)"


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
        e, formula = _epoch_s(g["tcp"], window, rtt)
        if not e <= epoch:
            epoch, why = e, [f"longest congestion epoch {e:.3g} s: {g['tcp']}, {formula}"]
    if n:
        why.append(f"W = 2 BDP / N = {window:.3g} packets (N = {n}, buffer one BDP)")
    slow_start = math.log2(max(window, 2.0)) * rtt_max
    warm = max(slow_start + WARMUP_EPOCHS * (epoch if n else 0.0), MIN_RTTS * rtt_max)
    measure = max(MEASURE_EPOCHS * epoch if n else 0.0, MIN_RTTS * rtt_max)
    rate = sum(g.get("arrival_rate_per_s") or 0.0 for g in norm["flows"] if g["kind"] == "open")
    if rate > 0:
        measure = max(measure, MIN_ARRIVALS / rate)
        why.append(f"{MIN_ARRIVALS} open-loop arrivals at {rate:.4g} flows/s")
    capped = measure > MAX_MEASURE_S
    measure = min(measure, MAX_MEASURE_S)
    warm = min(warm, MAX_MEASURE_S)
    why.append(
        f"warm-up = slow start + {WARMUP_EPOCHS} epochs, measurement = {MEASURE_EPOCHS} epochs, "
        f"each at least {MIN_RTTS} RTTs of {rtt_max * 1e3:.4g} ms"
        + (f" (capped at {MAX_MEASURE_S:g} s)" if capped else "")
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
