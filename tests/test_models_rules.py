"""Rules of thumb and TCP throughput formulas (papers 000, 002; PFTK)."""

import numpy as np
import pytest
from bufsim.models import (
    PAPER002_SQRT_CONSTANT,
    ModelInputError,
    bdp_bytes,
    bdp_pkts,
    loss_constrained_buffer_pkts,
    persistent_loss_rate,
    pftk_throughput,
    saturable,
    sqrt_throughput,
    stanford_buffer_pkts,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def test_bdp_paper002_setup():
    # Paper 002 section 4.1: 50 Mbps, T_eff = 60 ms, 1500 B packets -> BDP 250 packets (exact)
    assert bdp_pkts(50e6, 0.060, 1500) == pytest.approx(250.0, rel=1e-12)
    assert bdp_bytes(50e6, 0.060) == pytest.approx(375_000.0, rel=1e-12)
    # Paper 000 section I: 40 Gbps x 250 ms = 1.25 GB ("some 1.2 GBytes"); exact arithmetic
    assert bdp_bytes(40e9, 0.250) == pytest.approx(1.25e9, rel=1e-12)


def test_stanford_buffer_paper002():
    # Paper 002 section 4.3: B_s = 250 / sqrt(200) = 17.7, "18 packets"
    b = stanford_buffer_pkts(250, 200)
    assert round(b) == 18
    assert b == pytest.approx(250 / np.sqrt(200), rel=1e-12)
    # Paper 003 section III: BDP 150 -> 67 (N=5) and 34 (N=20; the paper prints 21, see report)
    np.testing.assert_allclose(stanford_buffer_pkts(150, [5, 20]), [67.08, 33.54], rtol=1e-3)


def test_loss_constrained_buffer_inverts_eq3():
    p = persistent_loss_rate(250, 200, [18, 500])
    # eq. (3) by hand: (0.87*200)^2/(268)^2 = 0.4215, /(750)^2 = 0.05382; rtol 1e-4 (hand rounding)
    np.testing.assert_allclose(p, [0.42153, 0.053824], rtol=1e-4)
    b = loss_constrained_buffer_pkts(250, 200, p)
    np.testing.assert_allclose(b, [18, 500], rtol=1e-12)
    # 0.87*200/sqrt(0.01) - 250 = 1490 packets (exact)
    assert loss_constrained_buffer_pkts(250, 200, 0.01) == pytest.approx(1490.0, rel=1e-12)
    # a link whose BDP alone meets the target needs no buffer
    assert loss_constrained_buffer_pkts(10_000, 2, 0.01) == 0.0


@settings(max_examples=50, deadline=None)
@given(bdp=st.floats(1.0, 1e5), n=st.integers(1, 10_000), b=st.floats(0.0, 1e5))
def test_loss_formula_roundtrip(bdp, n, b):
    p = persistent_loss_rate(bdp, n, b)
    if p < 1.0:  # capped values cannot be inverted
        assert loss_constrained_buffer_pkts(bdp, n, p) == pytest.approx(b, rel=1e-9, abs=1e-6 * bdp)


def test_saturable_paper002_examples():
    # Paper 002 section 3.2: 60 DSL users at 1 Mbps on Fast Ethernet: offered load <= 60%
    dsl = saturable(100e6, [0.05] * 60, access_rate_bps=1e6)
    assert not dsl.saturable
    assert dsl.max_load == pytest.approx(0.6, rel=1e-12)
    # 100 flows, 32 KB window, 100 ms RTT: "about 260 Mbps", much less than OC-12 (620 Mbps)
    oc12 = saturable(620e6, [0.1] * 100, rwnd_bytes=32 * 1024)
    assert not oc12.saturable
    assert oc12.max_offered_bps == pytest.approx(262.144e6, rel=1e-12)
    # without limits persistent flows always saturate; background adds to the load
    assert saturable(620e6, [0.1] * 3).saturable
    assert saturable(100e6, [0.05] * 60, access_rate_bps=1e6, background_bps=40e6).saturable


def test_sqrt_formula_general_form():
    # paper 002 eq. (2): 0.87 / (T sqrt(p)); general form sqrt(3/(2b)); b = 2 gives 0.866
    assert sqrt_throughput(0.01, 0.1, constant=PAPER002_SQRT_CONSTANT) == pytest.approx(
        87.0, rel=1e-12
    )
    assert sqrt_throughput(0.01, 0.1, b=2) == pytest.approx(86.6025, rel=1e-5)  # 5 digits by hand
    assert sqrt_throughput(0.01, 0.1) == pytest.approx(122.474, rel=1e-5)
    np.testing.assert_allclose(sqrt_throughput([0.01, 0.04], 0.1), [122.474, 61.237], rtol=1e-5)


@pytest.mark.parametrize("b", [1.0, 2.0])
def test_pftk_reduces_to_sqrt_without_timeouts(b):
    p = np.array([1e-3, 1e-4, 1e-6])
    # the approximate PFTK formula with T0 = 0 is the square-root formula exactly
    np.testing.assert_allclose(
        pftk_throughput(p, 0.1, rto_s=0.0, b=b, approx=True),
        sqrt_throughput(p, 0.1, b=b),
        rtol=1e-12,
    )
    # the full model tends to it as p -> 0; relative gap is O(sqrt(p)): < 3% at 1e-3, < 0.1% at 1e-6
    full = pftk_throughput(p, 0.1, rto_s=0.0, b=b)
    ratio = full / sqrt_throughput(p, 0.1, b=b)
    assert abs(ratio[0] - 1) < 0.03 and abs(ratio[2] - 1) < 1e-3


def test_pftk_timeouts_and_window_cap():
    # timeouts only lower the throughput, and more so at high loss
    p = np.array([1e-4, 1e-2, 0.1])
    with_to = pftk_throughput(p, 0.1, rto_s=1.0)
    without = pftk_throughput(p, 0.1, rto_s=0.0)
    assert (with_to < without).all()
    assert (with_to / without)[2] < 0.5 < (with_to / without)[0]
    # full and approximate models agree within 35% everywhere (they are known to differ at high loss)
    np.testing.assert_allclose(with_to, pftk_throughput(p, 0.1, rto_s=1.0, approx=True), rtol=0.35)
    # window cap: at low loss the rate approaches Wmax/RTT (within 2%: the full model's
    # capped branch includes the recovery periods)
    assert pftk_throughput(1e-6, 0.1, wmax_pkts=20) == pytest.approx(200.0, rel=0.02)
    assert pftk_throughput(1e-6, 0.1, wmax_pkts=20, approx=True) == pytest.approx(200.0, rel=1e-12)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: bdp_pkts(-5.0, 0.1, 1500), r"capacity_bps must be > 0, got -5.0"),
        (lambda: bdp_pkts(1e6, 0.0, 1500), r"rtt_s must be > 0"),
        (lambda: stanford_buffer_pkts(250, 0), r"n_flows must be >= 1"),
        (lambda: persistent_loss_rate(250, 10, -1), r"buffer_pkts must be >= 0"),
        (lambda: loss_constrained_buffer_pkts(250, 10, 1.5), r"target_loss must be in \(0, 1\)"),
        (lambda: loss_constrained_buffer_pkts(250, 10, 0.0), r"target_loss must be in \(0, 1\)"),
        (lambda: saturable(1e6, [[0.1, 0.2]]), r"rtts_s must be one-dimensional"),
        (lambda: saturable(1e6, [0.1], access_rate_bps=0), r"access_rate_bps must be > 0"),
        (lambda: sqrt_throughput(0.0, 0.1), r"loss_prob must be in \(0, 1\)"),
        (lambda: sqrt_throughput(0.1, 0.1, b=0.5), r"b must be >= 1"),
        (lambda: pftk_throughput(0.01, 0.1, rto_s=-1), r"rto_s must be >= 0"),
        (lambda: pftk_throughput(0.01, 0.1, wmax_pkts=0.5), r"wmax_pkts must be >= 1"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ModelInputError, match=match):
        call()
