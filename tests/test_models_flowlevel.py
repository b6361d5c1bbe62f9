"""Flow-level models of paper 000 (Augé & Roberts)."""

import numpy as np
import pytest
from bufsim.models import (
    ModelInputError,
    flow_regime,
    md1k_loss,
    mm1k_loss,
    ps_mean_flows,
    ps_prob_n,
    ps_tail,
    transparent_buffer_pkts,
    transparent_loss,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def test_ps_tail_paper000():
    # Section III.B: rho = 0.5, "the probability there are more than 4 flows in progress is only 0.03"
    assert ps_tail(4, 0.5) == pytest.approx(0.03125, rel=1e-12)
    assert round(ps_tail(4, 0.5), 2) == 0.03
    assert ps_mean_flows(0.5) == pytest.approx(1.0, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0.0, 0.99), n=st.integers(0, 300))
def test_ps_tail_is_sum_of_geometric(rho, n):
    # Pr[N > n] = 1 - sum_{j<=n} (1-rho) rho^j (float error only)
    head = ps_prob_n(np.arange(n + 1), rho).sum()
    assert ps_tail(n, rho) == pytest.approx(1.0 - head, abs=1e-12)


def test_regimes():
    # Paper 000 section IV.B: 50 Mbps link, 25 Mbps Poisson background plus an unconstrained TCP flow
    assert flow_regime(0.5, np.inf, 50e6) == "elastic"
    # 1 Mbps access-limited flows on a 10 Gbps link at 50% load: transparent (section III.B)
    assert flow_regime(0.5, 1e6, 10e9) == "transparent"
    assert flow_regime(1.2, 1e6, 10e9) == "overload"
    np.testing.assert_array_equal(
        flow_regime([0.2, 0.9, 0.99, 1.0], 1e6, 50e6),
        ["transparent", "transparent", "elastic", "overload"],
    )


def test_transparent_buffer_paper000():
    # Section IV.A: at load < 90%, 100 packets keep loss better than 1 in 30000 (rho^n)
    assert transparent_loss(0.9, 100, model="geometric") == pytest.approx(0.9**100, rel=1e-12)
    assert transparent_loss(0.9, 100, model="geometric") < 1 / 30000
    # smallest n with 0.9^n <= 1/30000: 0.9^98 = 3.28e-5 <= 3.33e-5 < 0.9^97 = 3.64e-5
    assert transparent_buffer_pkts(0.9, 1 / 30000, model="geometric") == 98
    # "20 packets ... better than 0.01 if load is less than 71%": 0.71^20 = 1.06e-3 (typo: 0.001)
    assert transparent_loss(0.71, 20, model="geometric") == pytest.approx(1.06e-3, rel=0.01)
    # exact M/D/1/K needs far less buffer than the exponential-size bound
    b_md = transparent_buffer_pkts(0.9, 1 / 30000)
    b_mm = transparent_buffer_pkts(0.9, 1 / 30000, model="mm1k")
    assert b_md < b_mm <= 98
    # the results are the smallest buffers meeting the target
    for b, f in ((b_md, md1k_loss), (b_mm, mm1k_loss)):
        assert f(0.9, b) <= 1 / 30000 < f(0.9, b - 1)
    # by hand: 0.1*0.9^44/(1-0.9^45) = 9.78e-4 <= 1e-3 < 1.09e-3 at K = 43; 0.5: 9.8e-4 at K = 9
    np.testing.assert_array_equal(transparent_buffer_pkts([0.5, 0.9], 1e-3, model="mm1k"), [9, 44])


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: ps_tail(4, 1.0), r"load must be in \[0, 1\)"),
        (lambda: ps_prob_n(-1, 0.5), r"n must be >= 0"),
        (lambda: flow_regime(0.5, 1e6, -1.0), r"capacity_bps must be > 0"),
        (lambda: transparent_buffer_pkts(0.5, 0.0), r"target_loss must be in \(0, 1\)"),
        (lambda: transparent_buffer_pkts(0.5, 1e-3, model="x"), r"model must be one of"),
        (lambda: transparent_loss(0.5, 0), r"buffer_pkts must be >= 1"),
        (lambda: transparent_buffer_pkts(0.999, 1e-9, model="mm1k", max_pkts=100), r"max_pkts=100"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ModelInputError, match=match):
        call()


def test_transparent_buffer_rejects_bad_max_pkts():
    from bufsim.models import ModelInputError, transparent_buffer_pkts

    with pytest.raises(ModelInputError, match="max_pkts must be >= 1"):
        transparent_buffer_pkts(0.5, 1e-3, max_pkts=0)
