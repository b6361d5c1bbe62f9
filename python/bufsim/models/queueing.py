"""Finite and infinite single-server queues used by the buffer-sizing models.

Conventions (all functions)
---------------------------
* ``rho`` is the offered load, arrival rate / service rate (dimensionless).
  Finite queues accept any ``rho >= 0`` (including overload ``rho >= 1``);
  infinite ones need ``rho < 1``.
* ``k`` is the *system capacity* in packets: the packets waiting plus the one
  in service. A router buffer of ``B`` packets is modelled as ``k = B`` (as in
  paper 001 (Barman et al.) section III), so ``k >= 1``.
* Loss probabilities are per arriving packet (by PASTA, the time-stationary
  probability that the system is full). Mean queues are mean numbers *in the
  system* (packets), time averages.

Used by paper 001 (Barman et al.) eqs. (4)-(5) and section IV, and by paper
000 (Augé & Roberts) section IV.A (transparent regime, Poisson packets).
"""

from __future__ import annotations

import numpy as np

from bufsim.models._validate import (
    ModelInputError,
    check_int_at_least,
    check_nonnegative,
    check_range,
    scalar_or_array,
)

__all__ = [
    "mm1k_distribution",
    "mm1k_loss",
    "mm1k_mean_queue",
    "state_dependent_distribution",
    "md1k_distribution",
    "md1k_loss",
    "md1k_mean_queue",
    "md1_mean_queue",
]

#: Largest load the M/D/1/K recursion accepts (exp(-rho) must not underflow).
MD1K_MAX_RHO = 500.0


def _load(rho):
    return check_nonnegative("rho", rho)


# --------------------------------------------------------------------------- M/M/1/K


def mm1k_distribution(rho: float, k: int) -> np.ndarray:
    """Stationary distribution of the number of packets in an M/M/1/K queue.

    Parameters
    ----------
    rho : float
        Offered load lambda/mu (>= 0; values >= 1 are allowed).
    k : int
        System capacity in packets (>= 1).

    Returns
    -------
    numpy.ndarray, shape (k + 1,)
        ``pi[n] = rho**n / sum_{j<=k} rho**j`` for n = 0..k (computed in log
        space, so large ``k`` and ``rho > 1`` do not overflow).
    """
    r = float(_load(rho))
    kk = int(check_int_at_least("k", k, 1))
    return state_dependent_distribution(r, np.ones(kk))


def _mm1k_parts(rho, k):
    r = _load(rho)
    kk = check_int_at_least("k", k, 1)
    r, kk = np.broadcast_arrays(r, kk)
    return r.astype(float), kk.astype(float)


def mm1k_loss(rho, k):
    """Blocking (loss) probability of an M/M/1/K queue.

    ``p = (1 - rho) rho^k / (1 - rho^(k+1))`` (``1/(k+1)`` at ``rho = 1``),
    the form used in paper 001 (Barman et al.) eq. (5).

    Parameters
    ----------
    rho : float or array_like
        Offered load (>= 0).
    k : int or array_like
        System capacity in packets (>= 1). Broadcast against ``rho``.

    Returns
    -------
    float or numpy.ndarray
        Loss probability in [0, 1).
    """
    r, kk = _mm1k_parts(rho, k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # Work with x = min(rho, 1/rho) so powers never overflow:
        # for rho > 1, p = (1 - x) / (1 - x^(k+1)) with x = 1/rho.
        x = np.where(r > 1.0, 1.0 / np.where(r > 0, r, 1.0), r)
        xk = np.where(r > 1.0, 1.0, x**kk)  # numerator power (1 for rho > 1)
        num = (1.0 - x) * xk
        den = -np.expm1((kk + 1.0) * np.log(x))
        p = np.where(np.isclose(r, 1.0, rtol=0, atol=1e-12), 1.0 / (kk + 1.0), num / den)
    p = np.where(r == 0.0, 0.0, p)
    return scalar_or_array(p)


def mm1k_mean_queue(rho, k):
    """Mean number of packets in an M/M/1/K system (waiting + in service).

    ``L = rho/(1-rho) - (k+1) rho^(k+1) / (1 - rho^(k+1))`` (``k/2`` at
    ``rho = 1``).

    Paper 001 (Barman et al.) eq. (5) prints ``rho/(1-rho) - K rho^K/(1-rho^K)``,
    which is the mean of an M/M/1/(K-1) queue while its loss term uses
    M/M/1/K: we use the M/M/1/K mean for both (the difference is < 1 packet).

    Parameters
    ----------
    rho : float or array_like
        Offered load (>= 0).
    k : int or array_like
        System capacity in packets (>= 1).

    Returns
    -------
    float or numpy.ndarray
        Mean number in system, packets, in [0, k].
    """
    r, kk = _mm1k_parts(rho, k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # For rho > 1 use the mirror identity L(rho, k) = k - L(1/rho, k).
        x = np.where(r > 1.0, 1.0 / np.where(r > 0, r, 1.0), r)
        xk1 = x ** (kk + 1.0)
        lx = x / (1.0 - x) - (kk + 1.0) * xk1 / (-np.expm1((kk + 1.0) * np.log(x)))
        lx = np.where(np.isclose(x, 1.0, rtol=0, atol=1e-10), kk / 2.0, lx)
        lx = np.where(x == 0.0, 0.0, lx)
    mean = np.where(r > 1.0, kk - lx, lx)
    return scalar_or_array(mean)


def state_dependent_distribution(rho: float, accept_prob) -> np.ndarray:
    """Birth-death (M/M/1/K) distribution with a state-dependent admission.

    A packet arriving when ``n`` packets are in the system is accepted with
    probability ``accept_prob[n]`` (n = 0..k-1) and always dropped at ``n = k``;
    so ``pi[n+1] = rho * accept_prob[n] * pi[n]``. This is the RED queue of
    Bonald, May & Bolot used in paper 001 (Barman et al.) section IV.

    Parameters
    ----------
    rho : float
        Offered load (>= 0).
    accept_prob : array_like, shape (k,)
        Admission probability in each state 0..k-1, in [0, 1].

    Returns
    -------
    numpy.ndarray, shape (k + 1,)
        Stationary probabilities of n = 0..k packets.
    """
    r = float(_load(rho))
    acc = check_range("accept_prob", accept_prob, 0.0, 1.0)
    if acc.ndim != 1:
        raise ModelInputError(f"accept_prob must be one-dimensional, got shape {acc.shape}")
    if r == 0.0:
        out = np.zeros(acc.size + 1)
        out[0] = 1.0
        return out
    with np.errstate(divide="ignore"):
        steps = np.log(r) + np.log(acc)
    logw = np.concatenate(([0.0], np.cumsum(steps)))
    logw -= np.max(logw)
    w = np.exp(logw)
    return w / w.sum()


# --------------------------------------------------------------------------- M/D/1/K


def _md1k_departure_weights(rho: float, kmax: int) -> np.ndarray:
    """Unnormalized departure-epoch probabilities u[0..kmax-1] of M/D/1/kmax.

    Embedded chain at departures, X' = min(max(X-1, 0) + A, K-1), A ~ Poisson(rho)
    (arrivals during one deterministic service). Cutting the state space between
    n-1 and n gives the stable, subtraction-free recursion
    ``u[n] a0 = u[0] P(A > n-1) + sum_{j=1}^{n-1} u[j] P(A > n-j)``;
    the truncation at K-1 leaves these cut equations unchanged, so the first K
    terms, normalized, are the distribution of the M/D/1/K chain for every K.
    """
    from scipy import stats  # scipy loads on first use (see bufsim/__init__.py)

    a0 = np.exp(-rho)
    tail = stats.poisson.sf(np.arange(kmax), rho)  # tail[m] = P(A > m)
    u = np.zeros(kmax)
    u[0] = 1.0
    for n in range(1, kmax):
        u[n] = (u[0] * tail[n - 1] + np.dot(u[1:n], tail[n - 1 : 0 : -1])) / a0
        if u[n] > 1e250:  # overload: rescale (only ratios matter)
            u[: n + 1] /= u[n]
    return u


def _md1k_parts(rho, k):
    r = check_range("rho", rho, 0.0, MD1K_MAX_RHO)
    kk = check_int_at_least("k", k, 1)
    return np.broadcast_arrays(r, kk)


def _md1k_eval(rho, k, what: str):
    r, kk = _md1k_parts(rho, k)
    out = np.empty(r.shape, dtype=float)
    for r_val in np.unique(r):
        sel = r == r_val
        if r_val == 0.0:
            out[sel] = 0.0
            continue
        ks = kk[sel]
        u = _md1k_departure_weights(float(r_val), int(ks.max()))
        cum = np.cumsum(u)
        cum_n = np.cumsum(np.arange(u.size) * u)
        pi0 = u[0] / cum[ks - 1]  # departure-epoch P(empty) for each K
        # absolute accuracy ~1e-16 (cancellation); clip the rounding below 0
        loss = np.maximum(0.0, (pi0 + r_val - 1.0) / (pi0 + r_val))
        if what == "loss":
            out[sel] = loss
        else:  # mean number in system: sum_{n<K} n p_n + K p_K
            mean_below = cum_n[ks - 1] / cum[ks - 1] / (pi0 + r_val)
            out[sel] = mean_below + ks * loss
    return scalar_or_array(out)


def md1k_distribution(rho: float, k: int) -> np.ndarray:
    """Exact stationary distribution of the number in an M/D/1/K system.

    Time-stationary probabilities from the departure-epoch ones (M/G/1/K):
    ``p_n = pi_n / (pi_0 + rho)`` for n < k and ``p_k = 1 - 1/(pi_0 + rho)``
    (Gross & Harris, *Fundamentals of Queueing Theory*, M/G/1/K).

    Parameters
    ----------
    rho : float
        Offered load (0 < rho <= 500; overload allowed).
    k : int
        System capacity in packets (>= 1).

    Returns
    -------
    numpy.ndarray, shape (k + 1,)
    """
    r = float(check_range("rho", rho, 0.0, MD1K_MAX_RHO, lo_open=True))
    kk = int(check_int_at_least("k", k, 1))
    u = _md1k_departure_weights(r, kk)
    pi = u / u.sum()
    denom = pi[0] + r
    return np.concatenate((pi / denom, [max(0.0, (denom - 1.0) / denom)]))


def md1k_loss(rho, k):
    """Exact loss probability of an M/D/1/K queue (Poisson packets, fixed size).

    Paper 000 (Augé & Roberts) section IV.A sizes the buffer of a link in the
    transparent regime for Poisson packet arrivals; this is the exact value for
    constant packet sizes (the paper's ``rho^n`` is the M/M/1 approximation).

    Parameters
    ----------
    rho : float or array_like
        Offered load (0 <= rho <= 500).
    k : int or array_like
        System capacity in packets (>= 1). Broadcast against ``rho``.

    Returns
    -------
    float or numpy.ndarray
        ``1 - 1/(pi_0 + rho)``, with ``pi_0`` the departure-epoch probability
        of an empty system. The absolute accuracy is about 1e-16 (the
        formula subtracts numbers close to 1), so losses below ~1e-14 are
        not resolved.
    """
    return _md1k_eval(rho, k, "loss")


def md1k_mean_queue(rho, k):
    """Mean number of packets in an M/D/1/K system (waiting + in service).

    Parameters
    ----------
    rho : float or array_like
        Offered load (0 <= rho <= 500).
    k : int or array_like
        System capacity in packets (>= 1).

    Returns
    -------
    float or numpy.ndarray
        Mean number in system, packets.
    """
    return _md1k_eval(rho, k, "mean")


def md1_mean_queue(rho, *, in_system: bool = True):
    """Mean queue of the infinite M/D/1 queue (Pollaczek-Khinchine).

    Parameters
    ----------
    rho : float or array_like
        Load, in [0, 1).
    in_system : bool
        ``True``: mean number in system ``rho + rho^2 / (2 (1 - rho))``;
        ``False``: mean number waiting ``rho^2 / (2 (1 - rho))``.

    Returns
    -------
    float or numpy.ndarray
        Packets. Multiply the waiting number by the service time and divide by
        ``rho`` to get the mean wait (Little).
    """
    r = check_range("rho", rho, 0.0, 1.0, hi_open=True)
    lq = r**2 / (2.0 * (1.0 - r))
    return scalar_or_array(lq + r if in_system else lq)
