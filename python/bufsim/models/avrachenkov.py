"""Hybrid fluid model of AIMD flows over a drop-tail buffer (paper 003).

Avrachenkov, Ayesta & Piunovskiy, *Optimal choice of the buffer size in the
Internet routers* (paper 003). The aggregate sending rate ``lambda`` of n AIMD
flows grows linearly at ``alpha = sum_i alpha_i`` (``alpha_i = 1/RTT_i^2``,
eq. (2)); when the buffer content ``x`` reaches ``B`` the rate is multiplied by
``beta = 1 - (1 - beta0) n~/n`` (n~ flows signalled out of n).

Units: any consistent data unit. With packets, ``mu`` is in packets/s,
``alpha`` in packets/s^2, ``B`` and ``x`` in packets. :func:`aimd_alpha` gives
``alpha`` in packets/s^2 from RTTs.

Paper note: section III says "equation (12) gives a value of 250 (N=5) and 62
(N=20)". Those numbers come from the *synchronized* formula
``B0 = (mu RTT)^2 / (18 n)`` (150^2/90 = 250, 150^2/360 = 62.5); eq. (12)
itself (desynchronized flows) gives 6.2 and 0.090 packets for that example.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bufsim.models._validate import (
    ModelInputError,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_probability,
    check_range,
    scalar_or_array,
)

__all__ = [
    "aimd_alpha",
    "aimd_beta",
    "b0",
    "b0_symmetric",
    "theorem1",
    "corollary1_rate",
    "corollary2_mean_buffer",
    "cycle_duration",
    "pareto_set",
    "optimal_buffer_delay_bound",
    "optimal_buffer_rate_floor",
    "optimal_buffer_weighted",
]


def _params(mu, alpha, beta):
    m = check_positive("mu", mu)
    a = check_positive("alpha", alpha)
    b = check_probability("beta", beta)
    return m, a, b


def _b0(m, a, b):
    """Eq. (11) on checked arrays (see :func:`b0`)."""
    return m**2 / (2.0 * a) * (1.0 - b) ** 2 / (1.0 + b) ** 2


def aimd_alpha(rtts_s, increase_pkts: float = 1.0):
    """Aggregate rate growth ``alpha = sum_i a / RTT_i^2``, packets/s^2.

    Paper 003 (Avrachenkov et al.) eq. (2): a flow adding ``a`` packets per RTT
    to its window grows its rate at ``a / RTT^2``.

    Parameters
    ----------
    rtts_s : float or array_like
        Round-trip time of each flow, seconds (> 0).
    increase_pkts : float
        Additive increase per RTT, packets (> 0; Reno: 1).

    Returns
    -------
    float
        packets/s^2.
    """
    rtt = check_positive("rtts_s", rtts_s)
    a = float(check_positive("increase_pkts", increase_pkts))
    return float(np.sum(a / rtt**2))


def aimd_beta(n_flows, n_signalled=None, *, beta0: float = 0.5):
    """Average aggregate decrease factor ``beta = 1 - (1 - beta0) n~ / n``.

    Paper 003 (Avrachenkov et al.) section II: n~ of n flows halve their rate at
    each congestion event. Synchronized flows: ``n~ = n`` (``beta = beta0``);
    desynchronized: ``n~ = 1`` (the default when ``n_signalled`` is None).

    Parameters
    ----------
    n_flows : int or array_like
        Number of flows n (>= 1).
    n_signalled : int or array_like, optional
        Flows signalled per congestion event, 1 <= n~ <= n (default 1).
    beta0 : float
        Per-flow multiplicative decrease, in (0, 1) (Reno: 0.5).

    Returns
    -------
    float or numpy.ndarray
    """
    n = check_int_at_least("n_flows", n_flows, 1)
    ns = (
        np.ones_like(n)
        if n_signalled is None
        else check_int_at_least("n_signalled", n_signalled, 1)
    )
    if np.any(ns > n):
        raise ModelInputError(f"n_signalled must be in [1, n_flows], got {ns.max()} > {n.min()}")
    b0_ = float(check_probability("beta0", beta0))
    return scalar_or_array(1.0 - (1.0 - b0_) * ns / n)


def b0(mu, alpha, beta):
    """Smallest buffer with full utilization, ``B0 = mu^2/(2 alpha) (1-beta)^2/(1+beta)^2``.

    Paper 003 (Avrachenkov et al.) Theorem 1 and eq. (11).

    Parameters
    ----------
    mu : float or array_like
        Link capacity (data units/s, > 0).
    alpha : float or array_like
        Aggregate rate growth (data units/s^2, > 0).
    beta : float or array_like
        Aggregate decrease factor, in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        Data units (packets if ``mu`` is in packets/s).
    """
    return scalar_or_array(_b0(*_params(mu, alpha, beta)))


def b0_symmetric(bdp_pkts, n_flows, *, synchronized: bool, beta0: float = 0.5):
    """B0 for n flows with equal RTTs, packets.

    With ``alpha = n / RTT^2`` and ``mu RTT = BDP``: synchronized flows
    (``beta = beta0``) give ``BDP^2 / (18 n)`` for ``beta0 = 0.5``;
    desynchronized flows (``beta = 1 - (1-beta0)/n``) give paper 003
    (Avrachenkov et al.) eq. (12), ``BDP^2 / (2 n (4n - 1)^2)``.

    Parameters
    ----------
    bdp_pkts : float or array_like
        ``mu * RTT`` in packets (> 0).
    n_flows : int or array_like
        Number of flows (>= 1).
    synchronized : bool
        All flows cut at each congestion event (True) or one (False).
    beta0 : float
        Per-flow decrease factor, in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        Packets.
    """
    bdp = check_positive("bdp_pkts", bdp_pkts)
    n = check_int_at_least("n_flows", n_flows, 1)
    beta = aimd_beta(n, n if synchronized else None, beta0=beta0)
    # mu = bdp / RTT and alpha = n / RTT^2, so mu^2 / alpha = bdp^2 / n (RTT cancels)
    return b0(bdp, n, beta)


def theorem1(buffer, mu, alpha, beta):
    """Mean sending rate and mean buffer content as functions of the buffer.

    Paper 003 (Avrachenkov et al.) Theorem 1: for ``B >= B0``,
    ``lambda_bar = mu`` (eq. (6)) and ``x_bar = B - 2 B0 / 3`` (eq. (7)); for
    ``B < B0``, with ``theta = sqrt(2B/alpha)`` and
    ``tau = (mu - mu beta - alpha beta theta)/alpha``,
    ``lambda_bar = (1+beta)/2 (alpha theta + mu)`` (eq. (8)) and
    ``x_bar = alpha/(6(tau+theta)) [theta^3 + tau theta^2 +
    2 (tau - sqrt(tau^2 - theta^2)) (theta^2 - tau^2)]`` (eq. (9)).

    Parameters
    ----------
    buffer : float or array_like
        Buffer size B (data units, >= 0).
    mu, alpha, beta : float
        Capacity (units/s), rate growth (units/s^2), decrease factor in (0, 1).

    Returns
    -------
    (mean_rate, mean_buffer) : tuple of float or numpy.ndarray
        Mean sending rate (units/s; equals the throughput: the fluid buffer
        never overflows) and time-average buffer content (units).
    """
    bb = check_nonnegative("buffer", buffer)
    m, a, b = _params(mu, alpha, beta)
    bzero = _b0(m, a, b)
    theta = np.sqrt(2.0 * np.minimum(bb, bzero) / a)
    tau = (m - m * b - a * b * theta) / a
    rate_low = (1.0 + b) / 2.0 * (a * theta + m)
    tau0 = tau - np.sqrt(np.maximum(tau**2 - theta**2, 0.0))
    x_low = (
        a / (6.0 * (tau + theta)) * (theta**3 + tau * theta**2 + 2.0 * tau0 * (theta**2 - tau**2))
    )
    full = bb >= bzero
    rate = np.where(full, m, rate_low)
    xbar = np.where(full, bb - 2.0 * bzero / 3.0, x_low)
    return scalar_or_array(rate), scalar_or_array(xbar)


def corollary1_rate(mu, beta):
    """Mean rate with a vanishing buffer, ``(1 + beta) mu / 2``.

    Paper 003 (Avrachenkov et al.) Corollary 1 (B -> 0): 75% of the capacity
    for synchronized Reno flows (``beta = 0.5``), 95% for 5 desynchronized ones.

    Parameters
    ----------
    mu : float or array_like
        Capacity (data units/s, > 0).
    beta : float or array_like
        Aggregate decrease factor, in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        Data units/s.
    """
    m = check_positive("mu", mu)
    b = check_probability("beta", beta)
    return scalar_or_array((1.0 + b) / 2.0 * m)


def corollary2_mean_buffer(mu, alpha, beta):
    """Mean buffer content at ``B = B0``, ``B0 / 3``.

    Paper 003 (Avrachenkov et al.) Corollary 2 (B -> B0): the smallest buffer
    with full utilization keeps on average a third of itself occupied.

    Parameters
    ----------
    mu, alpha, beta : float or array_like
        As in :func:`b0`.

    Returns
    -------
    float or numpy.ndarray
        Data units.
    """
    return scalar_or_array(np.asarray(b0(mu, alpha, beta)) / 3.0)


def cycle_duration(buffer, mu, alpha, beta):
    """Duration of one congestion cycle of the hybrid model, seconds.

    From the proof of paper 003 (Avrachenkov et al.) Theorem 1:
    ``T = 2 mu (1-beta) / (alpha (1+beta))`` for ``B >= B0`` and
    ``tau + theta = (1 - beta)(theta + mu/alpha)`` for ``B < B0``. One
    congestion event (n~ packet drops) happens per cycle.

    Parameters
    ----------
    buffer : float or array_like
        Buffer (data units, >= 0).
    mu, alpha, beta : float
        As in :func:`theorem1`.

    Returns
    -------
    float or numpy.ndarray
        Seconds.
    """
    bb = check_nonnegative("buffer", buffer)
    m, a, b = _params(mu, alpha, beta)
    bzero = _b0(m, a, b)
    theta = np.sqrt(2.0 * np.minimum(bb, bzero) / a)
    return scalar_or_array((1.0 - b) * (theta + m / a))


def pareto_set(mu, alpha, beta, n_points: int = 101) -> pd.DataFrame:
    """The Pareto set of (mean buffer, mean rate) for ``B`` in ``[0, B0]``.

    Paper 003 (Avrachenkov et al.) Fig. 4: every buffer in ``[0, B0]`` is
    Pareto optimal (more buffer, more throughput and more delay); larger
    buffers only add delay.

    Parameters
    ----------
    mu, alpha, beta : float
        As in :func:`theorem1`.
    n_points : int
        Number of buffer values, equally spaced on ``[0, B0]`` (>= 2).

    Returns
    -------
    pandas.DataFrame
        Columns ``buffer``, ``mean_rate``, ``mean_buffer``.
    """
    n = int(check_int_at_least("n_points", n_points, 2))
    bs = np.linspace(0.0, float(b0(mu, alpha, beta)), n)
    rate, xbar = theorem1(bs, mu, alpha, beta)
    return pd.DataFrame({"buffer": bs, "mean_rate": rate, "mean_buffer": xbar})


def optimal_buffer_delay_bound(max_mean_buffer, mu, alpha, beta) -> float:
    """Problem (3) of paper 003: ``max {lambda_bar : x_bar <= x*}``.

    ``x_bar`` and ``lambda_bar`` both increase with B on ``[0, B0]`` and
    ``lambda_bar = mu`` beyond, so the optimum is the B in ``[0, B0]`` with
    ``x_bar(B) = x*`` (found with :func:`scipy.optimize.brentq`), or ``B0`` if
    ``x* >= B0/3`` (Corollary 2).

    Parameters
    ----------
    max_mean_buffer : float
        Bound x* on the mean buffer content (data units, >= 0).
    mu, alpha, beta : float
        As in :func:`theorem1`.

    Returns
    -------
    float
        Optimal buffer (data units).
    """
    xs = float(check_nonnegative("max_mean_buffer", max_mean_buffer))
    bzero = float(b0(mu, alpha, beta))
    if xs >= bzero / 3.0:
        return bzero
    if xs == 0.0:
        return 0.0
    from scipy import optimize  # scipy loads on first use (see bufsim/__init__.py)

    return float(
        optimize.brentq(
            lambda bb: theorem1(bb, mu, alpha, beta)[1] - xs, 0.0, bzero, xtol=1e-12 * bzero
        )
    )


def optimal_buffer_rate_floor(min_mean_rate, mu, alpha, beta) -> float:
    """Problem (4) of paper 003: ``min {x_bar : lambda_bar >= lambda*}``.

    Inverts eq. (8): ``theta = (2 lambda*/(1+beta) - mu)/alpha`` and
    ``B = alpha theta^2 / 2``; 0 if ``lambda* <= (1+beta) mu / 2``
    (Corollary 1), ``B0`` if ``lambda* = mu``.

    Parameters
    ----------
    min_mean_rate : float
        Throughput floor lambda* (data units/s), in (0, mu].
    mu, alpha, beta : float
        As in :func:`theorem1`.

    Returns
    -------
    float
        Optimal buffer (data units).
    """
    m, a, b = (float(v) for v in _params(mu, alpha, beta))
    lam = float(check_range("min_mean_rate", min_mean_rate, 0.0, m, lo_open=True))
    theta = max(0.0, (2.0 * lam / (1.0 + b) - m) / a)
    return float(min(a * theta**2 / 2.0, float(b0(m, a, b))))


def optimal_buffer_weighted(c1, c2, mu, alpha, beta) -> float:
    """Problem (5) of paper 003: maximize ``c1 lambda_bar - c2 x_bar`` over B >= 0.

    Beyond ``B0`` the objective only decreases, so the search is over
    ``[0, B0]`` (bounded :func:`scipy.optimize.minimize_scalar`, with both
    end points compared).

    Parameters
    ----------
    c1 : float
        Weight of throughput (>= 0), per data unit/s.
    c2 : float
        Weight of mean buffer content (>= 0), per data unit; not both zero.
    mu, alpha, beta : float
        As in :func:`theorem1`.

    Returns
    -------
    float
        Optimal buffer (data units).
    """
    w1 = float(check_nonnegative("c1", c1))
    w2 = float(check_nonnegative("c2", c2))
    if w1 == 0.0 and w2 == 0.0:
        raise ModelInputError("c1 and c2 must not both be 0, got c1=0.0, c2=0.0")
    bzero = float(b0(mu, alpha, beta))

    def neg(bb):
        rate, xbar = theorem1(bb, mu, alpha, beta)
        return -(w1 * rate - w2 * xbar)

    from scipy import optimize  # scipy loads on first use (see bufsim/__init__.py)

    res = optimize.minimize_scalar(
        neg, bounds=(0.0, bzero), method="bounded", options={"xatol": 1e-10 * bzero}
    )
    candidates = [0.0, bzero, float(res.x)]
    return min(candidates, key=neg)
