"""HighSpeed TCP (RFC 3649) and the fixed points of paper 001 (Barman et al.)."""

import numpy as np
import pytest
from bufsim.models import (
    HSTCPParams,
    ModelInputError,
    hstcp_a,
    hstcp_b,
    hstcp_fixed_point,
    hstcp_p,
    hstcp_throughput,
    hstcp_window,
)

# RFC 3649 appendix B (as in Linux net/ipv4/tcp_highspeed.c): window, a(w), b(w)
RFC_TABLE = [
    (38, 1, 0.50),
    (118, 2, 0.44),
    (221, 3, 0.41),
    (347, 4, 0.38),
    (495, 5, 0.37),
    (663, 6, 0.35),
    (1058, 8, 0.33),
    (2076, 12, 0.29),
    (5036, 20, 0.25),
    (10661, 30, 0.21),
]


def test_response_function_rfc3649():
    # RFC 3649 section 5: w = 0.12 / p^0.835, within 2% over [1e-7, 1e-3]
    # (the RFC rounds the constant and the exponent; we get a ratio of 0.988..0.990)
    p = np.logspace(-7, -3, 41)
    np.testing.assert_allclose(hstcp_window(p), 0.12 / p**0.835, rtol=0.02)
    # anchors: w(Low_P) = Low_Window and w(High_P) = High_Window (exact by
    # construction), with Low_P = (1.2/38)^2 = 9.9723e-4 as the core derives it
    low_p = (1.2 / 38.0) ** 2
    assert HSTCPParams().low_p == pytest.approx(9.9723e-4, rel=1e-4)
    assert hstcp_window(low_p) == pytest.approx(38.0, rel=1e-12)
    assert hstcp_window(1e-7) == pytest.approx(83000.0, rel=1e-12)
    # p(w) inverts w(p)
    np.testing.assert_allclose(hstcp_p(hstcp_window(p)), p, rtol=1e-12)
    # below Low_Window: standard TCP, exactly w = 1.2/sqrt(p)
    assert hstcp_window(1e-2) == pytest.approx(1.2 / np.sqrt(1e-2), rel=1e-12)


def test_decrease_factor_rfc3649():
    assert hstcp_b(38) == pytest.approx(0.5, rel=1e-12)
    assert hstcp_b(83000) == pytest.approx(0.1, rel=1e-12)
    assert hstcp_b(10) == 0.5  # Reno below Low_Window


@pytest.mark.parametrize("w,a_tab,b_tab", RFC_TABLE)
def test_rfc3649_appendix_table(w, a_tab, b_tab):
    # b(w): the table prints two decimals -> tolerance 0.005 (+ float margin)
    assert hstcp_b(w) == pytest.approx(b_tab, abs=0.0051)
    # a(w): the RFC's table uses the rounded p(w) = 0.078/w^1.2, whereas the exact
    # interpolation is 0.0781/w^1.1979; the two differ by up to 2.2% at w = 10661.
    assert hstcp_a(w) == pytest.approx(a_tab, rel=0.025)


def test_throughput_derivation():
    p = np.logspace(-7, -3.05, 15)
    exact = hstcp_throughput(p, 0.1)
    approx = hstcp_throughput(p, 0.1, method="approx")
    numeric = hstcp_throughput(p, 0.1, method="numeric")
    # approximation = peak window / RTT (exact by definition)
    np.testing.assert_allclose(approx, hstcp_window(p) / 0.1, rtol=1e-12)
    # the closed form is the mean over the cycle: between (1 - b) w_p / R and w_p / R;
    # at High_P (b = 0.1) the mean/peak ratio is 0.948 (hand: s = 0.1979)
    assert (exact < approx).all() and (exact > (1 - hstcp_b(hstcp_window(p))) * approx).all()
    assert exact[0] / approx[0] == pytest.approx(0.948, abs=0.002)
    # The closed form also holds b at b(w_p) inside a(w); the numerical integration of the
    # cycle uses the exact a(w). They differ by < 0.3% for p <= 1e-5 (b(w) varies little
    # over one cycle) and by up to 3.1% near Low_P, where the cycle enters the Reno region.
    low = p <= 1e-5
    np.testing.assert_allclose(numeric[low], exact[low], rtol=3e-3)
    np.testing.assert_allclose(numeric, exact, rtol=0.035)
    # throughput is decreasing in p and proportional to 1/RTT
    assert (np.diff(exact) < 0).all()
    assert hstcp_throughput(1e-5, 0.2) == pytest.approx(hstcp_throughput(1e-5, 0.1) / 2, rel=1e-12)
    # Reno region (p > Low_P): 0.75 w_p / R with w_p = 1.2/sqrt(p)
    assert hstcp_throughput(0.01, 0.1) == pytest.approx(0.75 * 12.0 / 0.1, rel=1e-12)


PAPER001_RTTS = np.linspace(0.1155, 0.1245, 10)  # 10 flows, RTTs 115.5 .. 124.5 ms, mean 120 ms
FRACTIONS = np.array([0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.0])


def _paper001(qdisc, throughput="exact"):
    # 1 Gbps, 1 KB packets, buffer as a fraction of 12500 packets (paper 001 section III.A)
    return hstcp_fixed_point(
        1e9,
        PAPER001_RTTS,
        np.round(FRACTIONS * 12500).astype(int),
        packet_size_bytes=1000,
        qdisc=qdisc,
        throughput=throughput,
    )


def test_paper001_droptail_fixed_point():
    df = _paper001("droptail")
    util = df["utilization"].to_numpy()
    assert (np.diff(util) > 0).all()  # utilization increases with the buffer
    u10, u20 = util[FRACTIONS == 0.1][0], util[FRACTIONS == 0.2][0]
    # paper 001: "more than 90%" at 10%; we get 0.995 (the M/M/1/K queue is smoother than
    # the simulated bursty HSTCP traffic, so the model is optimistic)
    assert u10 > 0.9
    assert u10 == pytest.approx(0.995, abs=0.001)
    # paper 001: "almost 98%" at 20%; we get 0.998, within 2% of the paper's value
    assert u20 == pytest.approx(0.98, rel=0.02)
    assert u20 == pytest.approx(0.9978, abs=0.001)
    # the loss rate sits near 1e-5 (w(1e-5) ~ 1800 packets ~ the per-flow BDP of 1500)
    assert df["loss_rate"].between(5e-6, 3e-5).all()
    # consistency of the solution: rho = sum lambda_i(p, R_i) / C (eq. (4)), checked by hand
    row = df.iloc[3]
    rates = hstcp_throughput(row["loss_rate"], PAPER001_RTTS + row["mean_queue_delay_s"])
    assert rates.sum() / 125_000 == pytest.approx(row["offered_load"], rel=1e-9)


def test_paper001_approx_throughput_close_to_exact():
    # the approximation lambda ~ w(p)/R raises the sending rate, hence the loss, but the
    # utilization moves by less than 0.01 at every buffer size
    a, e = _paper001("droptail", "approx"), _paper001("droptail")
    np.testing.assert_allclose(a["utilization"], e["utilization"], atol=0.01)
    assert (a["loss_rate"] > e["loss_rate"]).all()


def test_paper001_red_fixed_point():
    df = _paper001("red")
    util = df["utilization"].to_numpy()
    assert (np.diff(util) > 0).all()
    # paper 001 section IV.A: "the loss rate is 10^-5 for buffer ratio >= 0.1" (we get 0.8-1.0e-5)
    big = df[FRACTIONS >= 0.1]
    np.testing.assert_allclose(big["loss_rate"], 1e-5, rtol=0.25)
    # RED keeps the queue shorter than drop-tail at the same buffer, at some cost in utilization
    dt = _paper001("droptail")
    assert (df["mean_queue_pkts"] < dt["mean_queue_pkts"]).all()
    assert (df["utilization"] <= dt["utilization"]).all()


def test_fixed_point_with_background_and_caps():
    base = hstcp_fixed_point(1e9, PAPER001_RTTS, 1250, packet_size_bytes=1000)
    bg = hstcp_fixed_point(1e9, PAPER001_RTTS, 1250, packet_size_bytes=1000, background_bps=3e8)
    # the background takes part of the link; the total utilization stays about the same
    assert bg["goodput_bps"][0] < base["goodput_bps"][0] - 2.5e8
    assert bg["utilization"][0] == pytest.approx(base["utilization"][0], abs=0.01)
    # flows capped at 50 Mbps cannot load the 1 Gbps link beyond 0.5
    cap = hstcp_fixed_point(1e9, PAPER001_RTTS, 1250, packet_size_bytes=1000, max_rate_bps=5e7)
    assert cap["utilization"][0] == pytest.approx(0.5, rel=1e-3)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: hstcp_throughput(1.5, 0.1), r"loss_prob must be in \(0, 1\)"),
        (lambda: hstcp_throughput(1e-5, -0.1), r"rtt_s must be > 0"),
        (lambda: hstcp_throughput(1e-5, 0.1, method="bogus"), r"method must be one of"),
        (lambda: hstcp_a(0.0), r"w must be > 0"),
        (lambda: HSTCPParams(high_window=10.0), r"high_window must be > low_window"),
        (lambda: HSTCPParams(high_decrease=0.7), r"high_decrease must be in \(0, 0.5\]"),
        (
            lambda: hstcp_fixed_point(-1e9, [0.1], 10),
            r"capacity_bps must be > 0, got -1000000000.0",
        ),
        (lambda: hstcp_fixed_point(1e9, [0.1], 0), r"buffer_pkts must be >= 1"),
        (
            lambda: hstcp_fixed_point(1e9, [0.1], 10, qdisc="codel"),
            r"qdisc must be 'droptail' or 'red'",
        ),
        (
            lambda: hstcp_fixed_point(1e9, [0.1], 10, qdisc="red", red_max_p=0.0),
            r"red_max_p must be in \(0, 1\]",
        ),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ModelInputError, match=match):
        call()
