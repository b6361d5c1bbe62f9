"""Paper 000 section IV.B (the `make demo` job) against the paper and theory."""

from __future__ import annotations

import tomllib

import bufsim
import bufsim.models as m
import pytest
from bufsim.reproduce import auge2006


@pytest.fixture(scope="module")
def table():
    return auge2006.run().set_index(["flows", "buffer_pkts", "background"])


def test_one_flow_small_buffer_gets_about_forty_percent(table):
    # "The bottlenecked flow only manages to acquire around 40% of the
    # residual bandwidth" (20 packets). "Around" read as +-0.1.
    assert table.loc[(1, 20, True), "residual_share"] == pytest.approx(0.40, abs=0.1)
    assert table.loc[(1, 20, True), "residual_share_sack"] == pytest.approx(0.40, abs=0.1)


def test_bdp_buffer_fills_the_link(table):
    # "The large buffer enables 100% utilization". We get it within 3% (the
    # Poisson background's realized rate varies by about 1%), with SACK and
    # with NewReno (0.985: its timeout after an overflow costs a little more).
    assert table.loc[(1, 625, True), "residual_share_sack"] == pytest.approx(1.0, abs=0.03)
    assert table.loc[(1, 625, True), "residual_share"] == pytest.approx(1.0, abs=0.03)


def test_more_flows_use_a_small_buffer_better(table):
    # Figure 5: "utilization improves as the number of flows increases".
    shares = [table.loc[(n, 20, True), "utilization"] for n in (1, 2, 4)]
    assert shares[0] < shares[1] < shares[2]


def test_buffer_helps_monotonically(table):
    for n in (1, 2, 4):
        u = [table.loc[(n, b, True), "residual_share_sack"] for b in (20, 100, 625)]
        assert u[0] < u[1] < u[2] + 0.01


@pytest.mark.parametrize("buffer_pkts", [1, 20])
def test_no_background_matches_theorem_1(table, buffer_pkts):
    # Paper 000: "a single bottlenecked TCP flow on an empty link with a
    # buffer of only 1 packet should acquire a throughput of 75%"; paper 003
    # Theorem 1 gives 0.752 (B = 1) and 0.758 (B = 20) of the 50 Mbps link
    # (alpha = 1/RTT^2 = 100 packets/s^2). The paper's "around 80%" for 20
    # packets is a guess the theorem does not support. Tolerance 4%: a
    # 300 s run holds about 10 sawtooth cycles of 30 s.
    mu = 50e6 / 8000
    theory = float(m.theorem1(buffer_pkts, mu, float(m.aimd_alpha([0.1])), 0.5)[0]) / mu
    assert table.loc[(1, buffer_pkts, False), "utilization"] == pytest.approx(theory, rel=0.04)


def test_experiment_file_is_the_embedded_base():
    path = bufsim.examples.path("auge2006")
    assert tomllib.loads(path.read_text()) == auge2006.BASE
