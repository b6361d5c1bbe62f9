"""Synchronized sawtooths: the utilization of flows that all cut at once.

When every flow sharing a drop-tail link loses in the same congestion
event (full loss synchronization), the aggregate window follows one
flow's sawtooth scaled to the link: it cuts when the buffer is full,
W = (1 + f) BDP with f the buffer as a fraction of the bandwidth-delay
product, and regrows until it is full again. The link idles while the
window is below one BDP. These closed forms give that cycle's mean
utilization per increase law; paper 004 (Kumar, Azad and Park 2010,
section III.B) reads its figure 6 against them.

Units: buffers as a fraction of the BDP (dimensionless), utilization as
a fraction of the link's capacity (0..1).
"""

from __future__ import annotations

from collections.abc import Callable

from scipy.optimize import brentq


def aimd_sync_utilization(fraction: float, b: float = 0.5) -> float:
    """Utilization of synchronized AIMD flows with a buffer of ``fraction`` x BDP.

    Every flow cuts its window by ``b`` at once when the aggregate window W
    (in BDPs) reaches 1 + f, then W climbs linearly (``a`` packets per RTT
    per flow) from a0 = (1 - b)(1 + f) back to 1 + f; the link is busy in
    proportion min(W, 1), so over a cycle
    U = ((1 - a0^2) / 2 + f) / (1 + f - a0), and 1 when a0 >= 1. The
    growth rate sets the cycle's length, not U.

    Parameters
    ----------
    fraction : float
        Buffer f as a fraction of the bandwidth-delay product, >= 0.
    b : float
        Multiplicative decrease, in (0, 1): Reno's (RFC 5681 section 3.1)
        0.5 by default.

    Returns
    -------
    float
        Utilization, 0..1 (0.785 at f = 0.05, b = 0.5; 1 at f >= 1).
    """
    a0 = (1.0 - b) * (1.0 + fraction)
    if a0 >= 1.0:
        return 1.0
    return ((1.0 - a0 * a0) / 2.0 + fraction) / (1.0 + fraction - a0)


def cubic_sync_utilization(fraction: float, beta: float = 0.7) -> float:
    """Utilization of synchronized CUBIC flows with a buffer of ``fraction`` x BDP.

    Every flow cuts to ``beta`` W_max at once when the aggregate window
    reaches W_max = (1 + f) BDP, then follows RFC 9438 eq. (1)
    W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C) (eq. 2),
    back to W_max at t = K, where the buffer is full again. With
    s = 1 - t / K, uniform on [0, 1] over the cycle,
    W / BDP = (1 + f)(1 - (1 - beta) s^3), and the link is busy in
    proportion min(W / BDP, 1): U = s* + (1 + f)((1 - s*) -
    (1 - beta)(1 - s*^4) / 4), s* = min(1, ((1 - 1 / (1 + f)) /
    (1 - beta))^(1/3)), the part of the cycle with the link full. C and K
    set the cycle's length, not U; CUBIC's Reno-friendly region (section
    4.3) adds about half a packet per RTT at these windows and is left out.

    Parameters
    ----------
    fraction : float
        Buffer f as a fraction of the bandwidth-delay product, >= 0.
    beta : float
        beta_cubic, the fraction of the window kept at a loss, in (0, 1):
        RFC 9438 section 4.6's 0.7 by default.

    Returns
    -------
    float
        Utilization, 0..1 (0.925 at f = 0, 0.951 at f = 0.05).
    """
    full = min(1.0, ((1.0 - 1.0 / (1.0 + fraction)) / (1.0 - beta)) ** (1.0 / 3.0))
    return full + (1.0 + fraction) * ((1.0 - full) - (1.0 - beta) * (1.0 - full**4) / 4.0)


def kept_for(law: Callable[[float, float], float], fraction: float, level: float) -> float:
    """The fraction of the window a synchronized law must keep at a loss for
    its closed-form utilization (``law(fraction, kept)``, kept in (0, 1))
    to equal ``level`` at buffer ``fraction``: the deepest cut that still
    reaches it. A root of the closed form, which rises with what is kept.

    Parameters
    ----------
    law : callable
        ``lambda f, kept: ...``: :func:`cubic_sync_utilization` with beta
        = kept, or :func:`aimd_sync_utilization` with b = 1 - kept.
    fraction : float
        Buffer as a fraction of the BDP.
    level : float
        Utilization, 0..1, between the law's values at kept 0.01 and 0.99.

    Returns
    -------
    float
        The fraction of the window kept at a loss, 0..1 (to 1e-9).
    """

    return float(brentq(lambda k: law(fraction, k) - level, 0.01, 0.99, xtol=1e-9))
