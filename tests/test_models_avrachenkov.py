"""Paper 003 (Avrachenkov, Ayesta & Piunovskiy): hybrid AIMD / drop-tail model."""

import numpy as np
import pytest
from bufsim.models import (
    ModelInputError,
    aimd_alpha,
    aimd_beta,
    b0,
    b0_symmetric,
    corollary1_rate,
    corollary2_mean_buffer,
    cycle_duration,
    optimal_buffer_delay_bound,
    optimal_buffer_rate_floor,
    optimal_buffer_weighted,
    pareto_set,
    theorem1,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# Paper 003 section III: 100 Mbps, 500 B packets -> mu = 25000 packets/s; BDP 150 packets
MU = 100e6 / (8 * 500)
RTT = 150 / MU  # 6 ms


def _sync(n):
    return MU, aimd_alpha([RTT] * n), aimd_beta(n, n)


def test_b0_paper003_example():
    # Section III: 250 (N=5) and 62 (N=20), from the synchronized formula (mu RTT)^2/(18n) (exact)
    assert b0(*_sync(5)) == pytest.approx(250.0, rel=1e-12)
    assert b0(*_sync(20)) == pytest.approx(62.5, rel=1e-12)
    np.testing.assert_allclose(
        b0_symmetric(150, [5, 20], synchronized=True), [250.0, 62.5], rtol=1e-12
    )
    # eq. (12), desynchronized: (mu RTT)^2 / (2n(4n-1)^2) and ~ (mu RTT)^2/(32 n^3)
    np.testing.assert_allclose(
        b0_symmetric(150, 5, synchronized=False), 22500 / (10 * 19**2), rtol=1e-12
    )
    big = b0_symmetric(150, 1000, synchronized=False)
    assert big == pytest.approx(22500 / (32 * 1000**3), rel=1e-3)  # asymptote, O(1/n) correction
    # single flow: (mu RTT)^2 / 18
    assert b0_symmetric(150, 1, synchronized=True) == pytest.approx(1250.0, rel=1e-12)


def test_corollary1_rate_at_zero_buffer():
    # Corollary 1: B -> 0 gives (1+beta)/2 mu: 75 Mbps synchronized, 95% for 5 desynchronized flows
    rate, xbar = theorem1(0.0, *_sync(5))
    assert rate * 8 * 500 == pytest.approx(75e6, rel=1e-12)
    assert xbar == 0.0
    rate5, _ = theorem1(0.0, MU, aimd_alpha([RTT] * 5), aimd_beta(5))
    assert rate5 / MU == pytest.approx(0.95, rel=1e-12)
    assert corollary1_rate(MU, 0.5) == pytest.approx(rate, rel=1e-12)
    assert corollary1_rate(MU, aimd_beta(5)) == pytest.approx(rate5, rel=1e-12)
    assert corollary2_mean_buffer(*_sync(5)) == pytest.approx(250 / 3, rel=1e-12)


@pytest.mark.parametrize("n,sync", [(5, True), (20, True), (5, False), (1, True)])
def test_theorem1_continuous_at_b0_and_corollary2(n, sync):
    mu, alpha, beta = MU, aimd_alpha([RTT] * n), aimd_beta(n, n if sync else None)
    bz = b0(mu, alpha, beta)
    eps = 1e-9 * bz
    (r_lo, r_hi), (x_lo, x_hi) = theorem1([bz - eps, bz + eps], mu, alpha, beta)
    # both regimes meet at B0 (difference O(sqrt(eps)) for the rate, O(eps) for the buffer)
    assert r_lo == pytest.approx(r_hi, rel=1e-4)
    assert x_lo == pytest.approx(x_hi, rel=1e-6)
    # Corollary 2: mean buffer B0/3 and full rate at B0
    assert x_hi == pytest.approx(bz / 3, rel=1e-6)
    assert r_hi == mu
    # eq. (7) above B0
    _, x = theorem1(3 * bz, mu, alpha, beta)
    assert x == pytest.approx(3 * bz - 2 * bz / 3, rel=1e-12)


def _simulate_hybrid(buffer, mu, alpha, beta, cycles=30, steps_per_cycle=20_000):
    """Direct time-stepping of eqs. (1)-(2) with the impulsive rate cut at x = B."""
    period = float(cycle_duration(buffer, mu, alpha, beta))
    dt = period / steps_per_cycle
    lam, x = beta * mu, buffer
    acc_l = acc_x = 0.0
    n_steps = cycles * steps_per_cycle
    warm = 5 * steps_per_cycle
    for i in range(n_steps):
        lam += alpha * dt
        x = max(0.0, x + (lam - mu) * dt)
        if x >= buffer and lam > mu:
            x = buffer
            lam *= beta
        if i >= warm:
            acc_l += lam
            acc_x += x
    m = n_steps - warm
    return acc_l / m, acc_x / m


@pytest.mark.parametrize("frac", [0.0, 0.3, 0.8, 1.5])
def test_theorem1_matches_direct_simulation(frac):
    mu, alpha, beta = _sync(5)
    buffer = frac * b0(mu, alpha, beta)
    rate, xbar = theorem1(buffer, mu, alpha, beta)
    sim_rate, sim_x = _simulate_hybrid(buffer, mu, alpha, beta)
    # rtol 1e-3 on the rate and 1% (+0.5 packet) on the buffer: explicit Euler steps of
    # 1/20000 of a cycle and a non-integer number of cycles averaged
    assert sim_rate == pytest.approx(rate, rel=1e-3)
    assert sim_x == pytest.approx(xbar, rel=0.01, abs=0.5)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 50), sync=st.booleans(), f1=st.floats(0.0, 1.0), f2=st.floats(0.0, 1.0))
def test_pareto_monotone(n, sync, f1, f2):
    mu, alpha, beta = MU, aimd_alpha([RTT] * n), aimd_beta(n, n if sync else None)
    bz = b0(mu, alpha, beta)
    lo, hi = sorted((f1, f2))
    (r1, r2), (x1, x2) = theorem1([lo * bz, hi * bz], mu, alpha, beta)
    # on [0, B0] more buffer gives more throughput and more queue (Pareto set, Fig. 4)
    assert r1 <= r2 * (1 + 1e-12) and x1 <= x2 + 1e-9 * bz
    assert (1 + beta) / 2 * mu * (1 - 1e-12) <= r1 <= mu * (1 + 1e-12)


def test_pareto_set_table():
    df = pareto_set(*_sync(5), n_points=11)
    assert list(df.columns) == ["buffer", "mean_rate", "mean_buffer"]
    assert df["buffer"].iloc[-1] == pytest.approx(250.0, rel=1e-12)
    assert df["mean_buffer"].iloc[-1] == pytest.approx(250.0 / 3, rel=1e-9)
    assert df["mean_rate"].is_monotonic_increasing and df["mean_buffer"].is_monotonic_increasing


def test_optimal_buffers_problems_3_4_5():
    mu, alpha, beta = _sync(5)
    # (3) delay bound: the optimum has x_bar = x* exactly; above B0/3 the answer is B0
    b3 = optimal_buffer_delay_bound(20.0, mu, alpha, beta)
    assert theorem1(b3, mu, alpha, beta)[1] == pytest.approx(20.0, rel=1e-9)
    assert optimal_buffer_delay_bound(100.0, mu, alpha, beta) == pytest.approx(250.0, rel=1e-12)
    # (4) rate floor: 90% of capacity needs theta = (2*0.9/1.5 - 1) mu / alpha, B = alpha theta^2/2
    b4 = optimal_buffer_rate_floor(0.9 * mu, mu, alpha, beta)
    theta = (2 * 0.9 / 1.5 - 1) * mu / alpha
    assert b4 == pytest.approx(alpha * theta**2 / 2, rel=1e-12)
    assert b4 == pytest.approx(90.0, rel=1e-9)  # 0.2^2 * 25000^2 / (2 * 138888.9) = 90
    assert theorem1(b4, mu, alpha, beta)[0] == pytest.approx(0.9 * mu, rel=1e-12)
    assert optimal_buffer_rate_floor(0.7 * mu, mu, alpha, beta) == 0.0  # Corollary 1: free
    assert optimal_buffer_rate_floor(mu, mu, alpha, beta) == pytest.approx(250.0, rel=1e-12)
    # (5) weighted: with no delay cost the optimum is B0; with a large one it is 0
    assert optimal_buffer_weighted(1.0, 0.0, mu, alpha, beta) == pytest.approx(250.0, rel=1e-6)
    assert optimal_buffer_weighted(0.0, 1.0, mu, alpha, beta) == 0.0
    b5 = optimal_buffer_weighted(1.0, 100.0, mu, alpha, beta)
    assert 0.0 < b5 < 250.0
    grid = np.linspace(0, 250, 2501)
    r, x = theorem1(grid, mu, alpha, beta)
    best = grid[np.argmax(r - 100.0 * x)]
    assert b5 == pytest.approx(best, abs=0.2)  # grid step 0.1 packet


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: b0(-1.0, 1.0, 0.5), r"mu must be > 0, got -1.0"),
        (lambda: b0(1.0, 1.0, 1.0), r"beta must be in \(0, 1\)"),
        (lambda: theorem1(-1.0, 1.0, 1.0, 0.5), r"buffer must be >= 0"),
        (lambda: aimd_beta(0), r"n_flows must be >= 1"),
        (lambda: aimd_beta(3, 4), r"n_signalled must be in \[1, n_flows\]"),
        (lambda: aimd_alpha([0.1, -0.1]), r"rtts_s must be > 0, got -0.1 \(element 1\)"),
        (lambda: b0_symmetric(150, 0.5, synchronized=True), r"n_flows must be"),
        (
            lambda: optimal_buffer_rate_floor(2 * MU, *_sync(5)),
            r"min_mean_rate must be in \(0, 25,000\]",
        ),
        (lambda: optimal_buffer_delay_bound(-1, *_sync(5)), r"max_mean_buffer must be >= 0"),
        (lambda: optimal_buffer_weighted(0, 0, *_sync(5)), r"c1 and c2 must not both be 0"),
        (lambda: pareto_set(*_sync(5), n_points=1), r"n_points must be >= 2"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ModelInputError, match=match):
        call()
