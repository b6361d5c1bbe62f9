"""Flow-level view of a link (paper 000, Augé & Roberts, *Buffer sizing for
elastic traffic*).

* Processor sharing: the number of bottlenecked flows in progress is
  geometric, ``Pr[n] = (1 - rho) rho^n`` (section III.B), with tail
  ``Pr[N > n] = rho^(n+1)``.
* The three operating regimes of section III.C (transparent, elastic,
  overload) from the link load and the flows' peak (exogenous) rates.
* The buffer needed in the transparent regime (section IV.A) for a target
  loss rate with Poisson packet arrivals: exact M/D/1/K (fixed-size packets),
  M/M/1/K (exponential sizes, for comparison) and the paper's geometric
  approximation ``Pr[loss] ~ rho^n``.

Paper note: section IV.A says "A 20 packet buffer can keep the loss rate
better than 0.01 if load is less than 71%". With the paper's own formula
``rho^n``, 0.71^20 = 1.1e-3: the loss rate is better than 0.001 (the load for
0.01 would be 0.79). The first example (0.9^100 = 2.7e-5, better than 1 in
30000) is consistent.
"""

from __future__ import annotations

import numpy as np

from bufsim import fmt
from bufsim.models import queueing
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
    "ps_prob_n",
    "ps_tail",
    "ps_mean_flows",
    "flow_regime",
    "transparent_loss",
    "transparent_buffer_pkts",
]


def _rho(load):
    return check_range("load", load, 0.0, 1.0, hi_open=True)


def ps_prob_n(n, load):
    """Probability of exactly ``n`` flows in a processor-sharing link.

    Paper 000 (Augé & Roberts) section III.B: ``Pr[n] = (1 - rho) rho^n``.

    Parameters
    ----------
    n : int or array_like
        Number of flows (>= 0).
    load : float or array_like
        Link load rho (flow arrival rate x mean size / capacity), in [0, 1).

    Returns
    -------
    float or numpy.ndarray
    """
    nn = check_int_at_least("n", n, 0)
    r = _rho(load)
    return scalar_or_array((1.0 - r) * r**nn)


def ps_tail(n, load):
    """Probability of *more than* ``n`` flows, ``Pr[N > n] = rho^(n+1)``.

    Paper 000 (Augé & Roberts) section III.B: with ``rho = 0.5`` the
    probability of more than 4 flows is 0.5^5 = 0.031 ("only 0.03").

    Parameters
    ----------
    n : int or array_like
        Number of flows (>= 0).
    load : float or array_like
        Load, in [0, 1).

    Returns
    -------
    float or numpy.ndarray
    """
    nn = check_int_at_least("n", n, 0)
    r = _rho(load)
    return scalar_or_array(r ** (nn + 1.0))


def ps_mean_flows(load):
    """Mean number of flows in progress, ``rho / (1 - rho)``.

    Parameters
    ----------
    load : float or array_like
        Load, in [0, 1).

    Returns
    -------
    float or numpy.ndarray
    """
    r = _rho(load)
    return scalar_or_array(r / (1.0 - r))


def flow_regime(load, peak_rate_bps, capacity_bps):
    """Operating regime of a link, paper 000 (Augé & Roberts) section III.C.

    * ``"overload"``: the offered load is at or above capacity (``load >= 1``);
    * ``"elastic"``: some flows are bottlenecked at the link, i.e. their peak
      (exogenous) rate exceeds the capacity left by the rest of the traffic,
      ``peak_rate > (1 - load) * capacity``;
    * ``"transparent"``: every flow's peak rate fits in the residual capacity,
      so the sum of rates stays below capacity with high probability.

    The paper defines the regimes qualitatively (Fig. 1); the residual-capacity
    test is our reading of "bottlenecked: their exogenous rate is greater than
    the rate to which they are limited by the link" (section III.A).

    Parameters
    ----------
    load : float or array_like
        Offered load / capacity (>= 0), all traffic included.
    peak_rate_bps : float or array_like
        Largest peak (access-limited) rate of a flow, bits/s (> 0, may be inf).
    capacity_bps : float or array_like
        Link capacity, bits/s (> 0).

    Returns
    -------
    str or numpy.ndarray of str
    """
    r = check_nonnegative("load", load)
    peak = check_positive("peak_rate_bps", peak_rate_bps, allow_inf=True)
    c = check_positive("capacity_bps", capacity_bps)
    out = np.where(r >= 1.0, "overload", np.where(peak > (1.0 - r) * c, "elastic", "transparent"))
    return str(out) if out.ndim == 0 else out


_TRANSPARENT_MODELS = ("md1k", "mm1k", "geometric")


def transparent_loss(load, buffer_pkts, *, model: str = "md1k"):
    """Loss rate of Poisson packet traffic at a link of ``buffer_pkts`` packets.

    Paper 000 (Augé & Roberts) section IV.A.

    Parameters
    ----------
    load : float or array_like
        Load, in [0, 1).
    buffer_pkts : int or array_like
        Buffer (system capacity K), packets (>= 1).
    model : {"md1k", "mm1k", "geometric"}
        Exact M/D/1/K (fixed packet size), M/M/1/K (exponential sizes), or the
        paper's approximation ``rho^K``.

    Returns
    -------
    float or numpy.ndarray
    """
    r = _rho(load)
    k = check_int_at_least("buffer_pkts", buffer_pkts, 1)
    if model == "md1k":
        return queueing.md1k_loss(r, k)
    if model == "mm1k":
        return queueing.mm1k_loss(r, k)
    if model == "geometric":
        return scalar_or_array(r ** k.astype(float))
    raise ModelInputError(f"model must be one of {_TRANSPARENT_MODELS}, got {model!r}")


def transparent_buffer_pkts(load, target_loss, *, model: str = "md1k", max_pkts: int = 100_000):
    """Smallest buffer (packets) giving a loss rate at or below ``target_loss``.

    Paper 000 (Augé & Roberts) section IV.A: in the transparent regime the
    buffer only absorbs bursts of (nearly) Poisson packet arrivals. Loss
    decreases with the buffer, so the answer is found by a doubling search
    followed by bisection over integers.

    Parameters
    ----------
    load : float or array_like
        Load, in [0, 1).
    target_loss : float or array_like
        Target loss probability, in (0, 1).
    model : {"md1k", "mm1k", "geometric"}
        See :func:`transparent_loss`.
    max_pkts : int
        Give up (raise) beyond this buffer; >= 1.

    Returns
    -------
    int or numpy.ndarray of int
        Packets.
    """
    r = _rho(load)
    tgt = check_probability("target_loss", target_loss)
    max_pkts = int(check_int_at_least("max_pkts", max_pkts, 1))
    if model not in _TRANSPARENT_MODELS:
        raise ModelInputError(f"model must be one of {_TRANSPARENT_MODELS}, got {model!r}")
    r, tgt = np.broadcast_arrays(r, tgt)
    out = np.empty(r.shape, dtype=np.int64)
    for idx in np.ndindex(r.shape):
        rho, p = float(r[idx]), float(tgt[idx])

        def ok(k, rho=rho, p=p):
            return float(transparent_loss(rho, k, model=model)) <= p

        hi = 1
        while not ok(hi):
            hi *= 2
            if hi > max_pkts:
                raise ModelInputError(
                    f"target_loss {fmt.number(p)} needs more than max_pkts={max_pkts} packets at load {fmt.number(rho)}"
                )
        lo = hi // 2  # ok(lo) is False (or lo == 0)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        out[idx] = hi
    return int(out) if out.ndim == 0 else out
