"""Steady-state throughput of a TCP Reno flow as a function of loss and RTT.

* The square-root formula (paper 002 (Dhamdhere & Dovrolis) eq. (2),
  ``R = 0.87 / (T sqrt(p))``), in its general form
  ``sqrt(3 / (2 b)) / (RTT sqrt(p))`` with ``b`` packets acknowledged per ACK
  (paper 002's constant 0.87 is ``sqrt(3/4)`` rounded: ``b = 2``, delayed ACKs).
* The Padhye-Firoiu-Towsley-Kurose (PFTK) formula with timeouts and a receiver
  window cap (Padhye et al., "Modeling TCP throughput: a simple model and its
  empirical validation", SIGCOMM 1998 / IEEE/ACM ToN 2000), both the full
  model and its usual one-line approximation.
* The loss rate at which persistent PFTK flows fill a link (paper 002's
  eq. (3) with timeouts), and the slowest throughput of a transfer that
  loses nothing (slow start from one packet).

All rates are in packets per second (multiply by ``8 * packet_size_bytes`` for
bits/s); ``p`` is the per-packet loss probability, RTTs are in seconds.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from bufsim.models._validate import (
    check_nonnegative,
    check_positive,
    check_probability,
    check_range,
    scalar_or_array,
)

__all__ = [
    "sqrt_throughput",
    "pftk_throughput",
    "pftk_fill_loss",
    "slow_start_floor_Bps",
    "PAPER002_SQRT_CONSTANT",
]

#: The constant of paper 002 (Dhamdhere & Dovrolis) eq. (2), ~ sqrt(3/4).
PAPER002_SQRT_CONSTANT = 0.87


def sqrt_throughput(loss_prob, rtt_s, *, b: float = 1.0, constant: float | None = None):
    """Square-root ("Mathis") TCP throughput, packets per second.

    ``rate = C / (RTT sqrt(p))`` with ``C = sqrt(3 / (2 b))`` unless
    ``constant`` is given (paper 002 (Dhamdhere & Dovrolis) eq. (2) uses
    ``constant=0.87``, i.e. ``b = 2``).

    Parameters
    ----------
    loss_prob : float or array_like
        Per-packet loss probability, in (0, 1).
    rtt_s : float or array_like
        Round-trip time including queueing, seconds (> 0).
    b : float
        Packets acknowledged per ACK (>= 1; 2 with delayed ACKs).
    constant : float, optional
        Overrides ``sqrt(3/(2b))`` (> 0).

    Returns
    -------
    float or numpy.ndarray
        Throughput in packets per second (broadcast of the inputs).
    """
    p = check_probability("loss_prob", loss_prob)
    rtt = check_positive("rtt_s", rtt_s)
    bb = float(check_range("b", b, 1.0))
    c = (
        np.sqrt(3.0 / (2.0 * bb))
        if constant is None
        else float(check_positive("constant", constant))
    )
    return scalar_or_array(c / (rtt * np.sqrt(p)))


def pftk_throughput(
    loss_prob,
    rtt_s,
    *,
    rto_s=1.0,
    wmax_pkts=np.inf,
    b: float = 2.0,
    approx: bool = False,
):
    """Padhye-Firoiu-Towsley-Kurose TCP Reno throughput, packets per second.

    Full model (``approx=False``), with ``E[W] = (2+b)/(3b) +
    sqrt(8(1-p)/(3bp) + ((2+b)/(3b))^2)``,
    ``Q(w) = min(1, (1-(1-p)^3)(1+(1-p)^3(1-(1-p)^(w-3))) / (1-(1-p)^w))`` and
    ``f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6``:

    * if ``E[W] < Wmax``:
      ``((1-p)/p + E[W] + Q(E[W])/(1-p)) /
      (RTT (b E[W]/2 + 1) + Q(E[W]) T0 f(p)/(1-p))``
    * otherwise:
      ``((1-p)/p + Wmax + Q(Wmax)/(1-p)) /
      (RTT (b Wmax/8 + (1-p)/(p Wmax) + 2) + Q(Wmax) T0 f(p)/(1-p))``

    Approximation (``approx=True``):
    ``min(Wmax/RTT, 1/(RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))``.

    With ``rto_s = 0`` the approximation is exactly :func:`sqrt_throughput`
    with the same ``b``, and the full model tends to it as ``p -> 0``.

    Parameters
    ----------
    loss_prob : float or array_like
        Loss-indication probability per packet, in (0, 1).
    rtt_s : float or array_like
        Round-trip time, seconds (> 0).
    rto_s : float or array_like
        Retransmission timeout T0, seconds (>= 0).
    wmax_pkts : float or array_like
        Receiver window cap, packets (>= 1; ``inf`` for none).
    b : float
        Packets acknowledged per ACK (>= 1; default 2, delayed ACKs).
    approx : bool
        Use the one-line approximation instead of the full model.

    Returns
    -------
    float or numpy.ndarray
        Throughput in packets per second.
    """
    p = check_probability("loss_prob", loss_prob)
    rtt = check_positive("rtt_s", rtt_s)
    t0 = check_nonnegative("rto_s", rto_s)
    wmax = check_range("wmax_pkts", wmax_pkts, 1.0)
    bb = float(check_range("b", b, 1.0))
    p, rtt, t0, wmax = np.broadcast_arrays(p, rtt, t0, wmax)
    if approx:
        denom = rtt * np.sqrt(2.0 * bb * p / 3.0) + t0 * np.minimum(
            1.0, 3.0 * np.sqrt(3.0 * bb * p / 8.0)
        ) * p * (1.0 + 32.0 * p**2)
        return scalar_or_array(np.minimum(wmax / rtt, 1.0 / denom))
    q = 1.0 - p
    c = (2.0 + bb) / (3.0 * bb)
    ew = c + np.sqrt(8.0 * q / (3.0 * bb * p) + c**2)
    f = 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6

    def qhat(w):
        with np.errstate(over="ignore", invalid="ignore"):
            val = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q ** (w - 3.0))) / (1.0 - q**w)
        return np.minimum(1.0, val)

    uncapped = ew < wmax
    w = np.where(uncapped, ew, wmax)
    qw = qhat(w)
    num = q / p + w + qw / q
    den_unc = rtt * (bb * w / 2.0 + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        den_cap = rtt * (bb * w / 8.0 + q / (p * w) + 2.0)
    den = np.where(uncapped, den_unc, den_cap) + qw * t0 * f / q
    return scalar_or_array(num / den)


def pftk_fill_loss(
    rtts_s, capacity_pps: float, *, share: float = 0.95, rto_s: float = 1.0, b: float = 1.0
) -> float:
    """Loss rate at which persistent PFTK flows fill ``share`` of a link.

    Paper 002 (Dhamdhere & Dovrolis) eq. (3) with timeouts: the loss ``p``
    that solves ``sum_i R_PFTK(p, T_i, T0, b) = share C`` (:func:`pftk_throughput`,
    full model), one flow per RTT ``T_i``. Eq. (3) itself is the
    square-root special case (no timeouts, ``b = 2``, one RTT for all).

    Parameters
    ----------
    rtts_s : array_like
        The flows' round-trip times, seconds (the queueing delay included).
    capacity_pps : float
        The link's capacity C, packets per second.
    share : float
        The fraction of C the flows fill (paper 002: 0.95, the mice taking
        the rest).
    rto_s : float
        The retransmission timeout T0, seconds (RFC 6298's 1 s minimum).
    b : float
        Packets acknowledged per ACK (1: an ACK per segment; 2: delayed ACKs).

    Returns
    -------
    float
        Loss probability (fraction), found by Brent's method on
        ``[1e-7, 0.99]`` to within 1e-9.
    """
    rtt = np.asarray(rtts_s, dtype=float)

    def excess(p: float) -> float:
        return float(np.sum(pftk_throughput(p, rtt, rto_s=rto_s, b=b)) - share * capacity_pps)

    return float(brentq(excess, 1e-7, 0.99, xtol=1e-9))


def slow_start_floor_Bps(size_pkts, rtt_s, queue_s: float = 0.12, packet_bytes: float = 1500.0):
    """Slowest throughput of a transfer that loses nothing, bytes/s.

    A lossless transfer of S packets with an initial window of 1 (the
    ``rfc`` stack, as paper 002's ns-2) and an ACK per segment doubles its
    window every round trip (RFC 5681 section 3.1), so it needs the
    handshake plus ``ceil(log2(S + 1))`` rounds; no round trip is longer
    than the propagation RTT plus a full queue. So its duration is at most
    ``(1 + ceil(log2(S + 1))) (RTT + queue_s)`` and its throughput at least
    ``packet_bytes S`` bytes over that. A 100 KB transfer (67 packets of
    1500 B) over a 530 ms RTT behind a 120 ms queue: 8 round trips of
    0.65 s, 19.3 kB/s.

    Parameters
    ----------
    size_pkts : float or array_like
        Transfer size, packets.
    rtt_s : float or array_like
        Round-trip propagation delay, seconds.
    queue_s : float
        The longest queueing delay, seconds (paper 002's 500 packets at
        50 Mbps: 0.12).
    packet_bytes : float
        Packet size, bytes.

    Returns
    -------
    float or numpy.ndarray
        Bytes per second.
    """
    size = np.asarray(size_pkts, dtype=float)
    rounds = 1.0 + np.ceil(np.log2(size + 1.0))
    return size * packet_bytes / (rounds * (np.asarray(rtt_s, dtype=float) + queue_s))
