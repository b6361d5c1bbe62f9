"""Completion-time statistics with unfinished transfers (right-censored):
``bufsim.flows.censored_quantile`` against a brute-force reference, and the
incast that used to read as met on 3 finished transfers of 100."""

from __future__ import annotations

import math

import bufsim
import numpy as np
import pytest
from bufsim.flows import censored_mean, censored_quantile
from hypothesis import given, settings
from hypothesis import strategies as st

transfers = st.lists(st.tuples(st.floats(1e-4, 10.0), st.booleans()), min_size=1, max_size=60)


@given(transfers, st.sampled_from([0.5, 0.9, 0.99]), st.floats(1e-3, 100.0))
@settings(max_examples=300, deadline=None)
def test_censored_statistics_against_every_completion_they_allow(rows, q, extra):
    # A censored transfer finishes at some time after its censoring time.
    # The reference fills them in at the two extremes, just after and never:
    # the Kaplan-Meier quantile and mean lie between the two (an identified
    # one), or are a lower bound (an unidentified one), and equal the plain
    # statistics when every transfer finished.
    y = np.array([v for v, _ in rows])
    fin = np.array([f for _, f in rows])
    value, identified = censored_quantile(y, fin, q)
    soon = np.quantile(np.where(fin, y, y * (1 + 1e-9)), q, method="inverted_cdf")
    never = np.quantile(np.where(fin, y, np.inf), q, method="inverted_cdf")
    assert value <= never
    if identified:
        assert soon <= value * (1 + 1e-9) + 1e-15
    mean, mean_known = censored_mean(y, fin)
    assert np.where(fin, y, y).mean() <= mean * (1 + 1e-9) + 1e-15
    assert mean_known == fin[y == y.max()].all()
    if fin.all():
        assert identified and value == np.quantile(y, q, method="inverted_cdf")
        assert mean_known and mean == pytest.approx(y.mean(), rel=1e-12)


def test_censored_quantile_edges():
    assert math.isnan(censored_quantile([], [], 0.99)[0])
    # 99 finished at 1 ms, one unfinished after 0.5 s: the p99 is the 1 ms
    # of the 99th transfer, whatever the last one takes; the p99.5 is not
    # known, only that it is at least 0.5 s.
    y = [1e-3] * 99 + [0.5]
    fin = [True] * 99 + [False]
    assert censored_quantile(y, fin, 0.99) == (1e-3, True)
    assert censored_quantile(y, fin, 0.995) == (0.5, False)
    assert censored_mean(y, fin) == (pytest.approx(0.99e-3 + 0.01 * 0.5), False)
    # A transfer censored early is at risk only until then: the others
    # decide the rest of the curve (here half finish at 1 s, half at 3 s).
    assert censored_quantile([0.1, 1, 3], [False, True, True], 0.5) == (1.0, True)
    assert censored_mean([0.1, 1, 3], [False, True, True]) == (pytest.approx(2.0), True)


#: 100 transfers of 64 KB start together at 0.1 s behind 8 long CUBIC flows
#: on a 10 Gbps port with a 20-packet buffer (the rfc stack: no handshake).
INCAST = {
    "duration": "0.5s",
    "warmup": "0s",
    "link": {"capacity": "10Gbps", "delay": "5us", "buffer": "20pkt"},
    "flows": [
        {"count": 8, "tcp": "cubic", "rtt": {"min": "20us", "max": "100us"}, "mss": "1500B"},
        {
            "count": 100,
            "tcp": "cubic",
            "rtt": "50us",
            "mss": "1500B",
            "size": "64KB",
            "start": "0.1s",
        },
    ],
}


def test_incast_fct_counts_every_transfer_started():
    # 100 transfers of 64 KB start together behind 8 long CUBIC flows on a
    # 10 Gbps port with 20 packets of buffer: they lose their first window
    # and, with no RTT sample, wait for the 1 s initial RTO (RFC 6298 (2.1))
    # while the run ends 0.4 s later. None finishes, so the p99 completion
    # time is only known to be >= 0.4 s, and says so.
    s = bufsim.simulate(INCAST).summary
    assert s["flows_started_small"] == 100
    assert s["flows_completed_small"] <= 5
    assert s["fct_p99_small_s"] == pytest.approx(0.4, abs=1e-9)
    assert s["fct_p99_small_s_censored"] == 1.0
    assert s["slowdown_p99_small_censored"] == 1.0
    # Alone on the link a transfer takes 64 KB at 10 Gbps plus 50 us.
    assert s["slowdown_p99_small"] == pytest.approx(0.4 / (65536 * 8 / 10e9 + 50e-6), rel=0.02)


def test_advise_never_judges_a_completion_time_on_the_transfers_that_finished(tmp_path):
    # The incast above under `advise`: at no buffer do its transfers finish
    # within the run, so the p99 FCT objective is never judged met (it once
    # read "45 packets, feasible" from 3 finished transfers of 100), and the
    # advice says why: how many were unfinished and the lower bound.
    a = bufsim.advise(
        INCAST, ["utilization>=0.95", "fct_p99_small<=5ms"], quick=True, store=tmp_path / "store"
    )
    assert not a.feasible
    note = next(n for n in a.notes if n.startswith("fct_p99_small_s cannot be judged"))
    assert "of the transfers started were unfinished" in note and ">= 0.4 s" in note
    runs = a.runs[a.runs["engine"] == "packet"]
    assert (runs["flows_started_small"] == 100).all()
    assert (runs["fct_p99_small_s_censored"] == 1.0).all()
