"""bufsim.models.queueing against direct numerical solutions of the same chains."""

import numpy as np
import pytest
from bufsim.models import (
    ModelInputError,
    md1_mean_queue,
    md1k_distribution,
    md1k_loss,
    md1k_mean_queue,
    mm1k_distribution,
    mm1k_loss,
    mm1k_mean_queue,
    state_dependent_distribution,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats


def _stationary(q_or_p: np.ndarray, generator: bool) -> np.ndarray:
    """Solve pi Q = 0 (generator) or pi P = pi (stochastic), sum(pi) = 1, by least squares."""
    n = q_or_p.shape[0]
    a = q_or_p.T if generator else (q_or_p.T - np.eye(n))
    a = np.vstack([a, np.ones(n)])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    return np.linalg.lstsq(a, b, rcond=None)[0]


def _mm1k_generator(rho: float, k: int) -> np.ndarray:
    q = np.zeros((k + 1, k + 1))
    for n in range(k):
        q[n, n + 1] = rho  # arrivals (service rate 1)
        q[n + 1, n] = 1.0
    q -= np.diag(q.sum(axis=1))
    return q


@pytest.mark.parametrize("rho,k", [(0.3, 1), (0.8, 10), (1.0, 7), (1.7, 12), (0.95, 60)])
def test_mm1k_matches_ctmc_solution(rho, k):
    pi = _stationary(_mm1k_generator(rho, k), generator=True)
    # rtol 1e-9: both are exact; only floating-point error (lstsq on a small system) remains.
    np.testing.assert_allclose(mm1k_distribution(rho, k), pi, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(mm1k_loss(rho, k), pi[-1], rtol=1e-9)
    np.testing.assert_allclose(mm1k_mean_queue(rho, k), pi @ np.arange(k + 1), rtol=1e-9)


def test_mm1k_vectorized_and_limits():
    ks = np.array([1, 5, 50])
    loss = mm1k_loss(0.5, ks)
    # closed form at rho = 0.5: (0.5 * 0.5^k) / (1 - 0.5^(k+1)); exact arithmetic, rtol 1e-12
    np.testing.assert_allclose(loss, 0.5 * 0.5**ks / (1 - 0.5 ** (ks + 1)), rtol=1e-12)
    # rho = 1: uniform distribution, loss 1/(k+1), mean k/2 (exact)
    assert mm1k_loss(1.0, 9) == pytest.approx(0.1, rel=1e-12)
    assert mm1k_mean_queue(1.0, 9) == pytest.approx(4.5, rel=1e-12)
    # huge buffers in overload must not overflow: loss -> 1 - 1/rho (rtol 1e-12, exact limit)
    assert mm1k_loss(2.0, 100_000) == pytest.approx(0.5, rel=1e-12)
    assert mm1k_mean_queue(0.0, 5) == 0.0


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0.01, 5.0), k=st.integers(1, 400))
def test_mm1k_distribution_identities(rho, k):
    pi = mm1k_distribution(rho, k)
    assert pi.sum() == pytest.approx(1.0, rel=1e-12)  # a distribution (float error only)
    assert mm1k_loss(rho, k) == pytest.approx(pi[-1], rel=1e-8, abs=1e-300)  # PASTA: loss = P(full)
    assert mm1k_mean_queue(rho, k) == pytest.approx(pi @ np.arange(k + 1), rel=1e-8, abs=1e-12)


def _md1k_embedded_matrix(rho: float, k: int) -> np.ndarray:
    """Departure-epoch chain of M/D/1/K built directly: X' = min(max(X-1,0) + A, K-1)."""
    a = stats.poisson.pmf(np.arange(k + 1), rho)
    p = np.zeros((k, k))
    for i in range(k):
        base = max(i - 1, 0)
        for j in range(base, k - 1):
            p[i, j] = a[j - base]
        p[i, k - 1] = 1.0 - p[i, : k - 1].sum()
    return p


@pytest.mark.parametrize("rho,k", [(0.5, 1), (0.5, 2), (0.8, 10), (1.0, 15), (1.5, 8), (0.95, 40)])
def test_md1k_matches_embedded_chain_solution(rho, k):
    pi_d = _stationary(_md1k_embedded_matrix(rho, k), generator=False)
    loss = 1.0 - 1.0 / (pi_d[0] + rho)
    # rtol 1e-8: both exact; the recursion and lstsq differ by floating-point error only.
    assert md1k_loss(rho, k) == pytest.approx(loss, rel=1e-8)
    dist = md1k_distribution(rho, k)
    np.testing.assert_allclose(dist[:-1], pi_d / (pi_d[0] + rho), rtol=1e-8, atol=1e-14)
    assert md1k_mean_queue(rho, k) == pytest.approx(dist @ np.arange(k + 1), rel=1e-10)


def test_md1k_against_event_simulation():
    """Independent check of the departure-to-time-average conversion by simulation."""
    rng = np.random.default_rng(7)
    rho, k, n = 0.9, 5, 200_000
    arrivals = np.cumsum(rng.exponential(1.0 / rho, n))  # service time 1
    departures = []  # departure times of packets in the system (FIFO)
    lost = 0
    last_dep = 0.0
    for t in arrivals:
        while departures and departures[0] <= t:
            departures.pop(0)
        if len(departures) >= k:
            lost += 1
            continue
        last_dep = max(t, last_dep) + 1.0
        departures.append(last_dep)
    sim = lost / n
    # rtol 5%: ~ 2.6e4 losses in 2e5 arrivals, standard error ~1%, so 5 sigma.
    assert md1k_loss(rho, k) == pytest.approx(sim, rel=0.05)


def test_md1k_large_buffer_tends_to_md1():
    # With K = 200 at rho = 0.7 the truncation is negligible (loss < 1e-20);
    # P-K mean in system 0.7 + 0.49/0.6 = 1.51667 (rtol 1e-9, exact limit).
    assert md1k_mean_queue(0.7, 200) == pytest.approx(md1_mean_queue(0.7), rel=1e-9)
    assert md1_mean_queue(0.7) == pytest.approx(0.7 + 0.49 / 0.6, rel=1e-12)
    assert md1_mean_queue(0.7, in_system=False) == pytest.approx(0.49 / 0.6, rel=1e-12)
    # deterministic service loses less than exponential at the same load and buffer
    assert md1k_loss(0.8, 20) < mm1k_loss(0.8, 20)
    # M/D/1/1 is Erlang-B-like: loss rho/(1+rho) (exact)
    assert md1k_loss(0.5, 1) == pytest.approx(1 / 3, rel=1e-12)


def test_md1k_overload_large_k_does_not_overflow():
    # loss -> 1 - 1/rho in overload (rtol 1e-6: the finite-K correction is ~ 1e-100 here)
    assert md1k_loss(2.0, 2000) == pytest.approx(0.5, rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(rho=st.floats(0.05, 3.0), k=st.integers(1, 80))
def test_md1k_distribution_sums_to_one(rho, k):
    d = md1k_distribution(rho, k)
    assert d.sum() == pytest.approx(1.0, rel=1e-10)
    assert (d >= 0).all()
    assert md1k_loss(rho, k) == pytest.approx(d[-1], rel=1e-10)


def test_state_dependent_distribution_reduces_to_mm1k():
    np.testing.assert_allclose(
        state_dependent_distribution(0.9, np.ones(30)), mm1k_distribution(0.9, 30), rtol=1e-12
    )
    d = state_dependent_distribution(0.9, np.array([1.0, 0.0, 1.0]))
    np.testing.assert_allclose(d, [1 / 1.9, 0.9 / 1.9, 0.0, 0.0], rtol=1e-12)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: mm1k_loss(-0.1, 5), r"rho must be >= 0"),
        (lambda: mm1k_loss(0.5, 0), r"k must be >= 1"),
        (lambda: mm1k_loss(0.5, 2.5), r"k must be an integer >= 1"),
        (lambda: md1k_loss(0.5, -3), r"k must be >= 1"),
        (lambda: md1k_loss(1000.0, 3), r"rho must be in \[0, 500\]"),
        (lambda: md1_mean_queue(1.0), r"rho must be in \[0, 1\)"),
        (lambda: mm1k_mean_queue(np.nan, 3), r"rho must not be NaN"),
        (lambda: state_dependent_distribution(0.5, [0.5, 1.2]), r"accept_prob must be in \[0, 1\]"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ModelInputError, match=match):
        call()
