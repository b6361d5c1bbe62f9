"""Completion-time statistics with unfinished transfers (right-censored):
``bufsim.flows`` against a brute-force reference (Efron's redistribute-to-
the-right), completions over starts per class and per group on random
transfer tables, and the incast that used to read as met on 3 finished
transfers of 100."""

from __future__ import annotations

import math
from fractions import Fraction

import bufsim
import numpy as np
import pandas as pd
import pytest
from bufsim.flows import censored_mean, censored_quantile, fct_summary, kaplan_meier
from hypothesis import given, settings
from hypothesis import strategies as st

#: As tests/test_properties.py: the same examples on every machine.
PROPERTY = {"derandomize": True, "deadline": None, "database": None}

#: Relative tolerance of the Kaplan-Meier mean and survival against the
#: exact reference: float products and sums over at most 60 transfers.
RTOL = 1e-12


def redistribute_to_the_right(values, finished):
    """The Kaplan-Meier estimate by Efron's redistribute-to-the-right
    (Efron 1967), in exact rationals, one transfer at a time.

    Every transfer starts with mass 1/n. In order of time, completions
    before censorings at a tie (a transfer censored at ``t`` was still at
    risk at ``t``, as Kaplan & Meier 1958 count it), each censored transfer
    hands its mass in equal shares to every transfer after it. Efron showed
    the mass that ends on completions is the Kaplan-Meier jump there.

    Returns
    -------
    (list of (float, Fraction), Fraction)
        Each completion's time (seconds, ascending) and mass, and the mass
        left on censored transfers with none after them (beyond the last
        time observed).
    """
    n = len(values)
    order = sorted(range(n), key=lambda i: (values[i], not finished[i]))
    mass = [Fraction(1, n)] * n
    for j, i in enumerate(order):
        after = order[j + 1 :]
        if not finished[i] and after:
            for k in after:
                mass[k] += mass[i] / len(after)
            mass[i] = Fraction(0)
    done = [(values[i], mass[i]) for i in order if finished[i]]
    return done, sum((mass[i] for i in order if not finished[i]), Fraction(0))


def reference_quantile(values, finished, q):
    """The smallest completion time by which the reference has ``q`` of the
    mass completed (``q`` less the implementation's stated relative
    tolerance of 1e-12, exactly), identified; else the longest time
    observed, a lower bound."""
    done, _ = redistribute_to_the_right(values, finished)
    target = Fraction(q) * (1 - Fraction(1, 10**12))
    total = Fraction(0)
    for t, m in done:
        total += m
        if total >= target:
            return t, True
    return max(values), False


def reference_mean(values, finished):
    """The reference's mean, the mass beyond the last time observed put at
    that time (so a lower bound unless that mass is zero)."""
    done, left = redistribute_to_the_right(values, finished)
    return float(sum(Fraction(t) * m for t, m in done) + left * Fraction(max(values))), left == 0


#: Completion or censoring times (seconds), some on a coarse grid so that
#: ties (between completions, censorings and the two) are common.
TIMES = st.one_of(st.integers(1, 6).map(lambda k: k / 4), st.floats(1e-4, 10.0))


@st.composite
def transfer_sets(draw):
    """(times, finished): either drawn directly (any censoring pattern) or
    as a run would censor them: transfers start at random in a 10 s window
    and take a random time; one not done at the end is censored at the time
    it had run."""
    if draw(st.booleans()):
        rows = draw(st.lists(st.tuples(TIMES, st.booleans()), min_size=1, max_size=60))
        return [v for v, _ in rows], [f for _, f in rows]
    rows = draw(st.lists(st.tuples(st.floats(0.0, 9.99), TIMES), min_size=1, max_size=60))
    return [min(d, 10.0 - s) for s, d in rows], [s + d <= 10.0 for s, d in rows]


@given(transfer_sets(), st.one_of(st.sampled_from([0.5, 0.9, 0.99, 1.0]), st.floats(0.01, 1.0)))
@settings(max_examples=500, **PROPERTY)
def test_censored_statistics_against_redistribute_to_the_right(rows, q):
    # The whole curve: the same completion times, 1 - S(t) the mass
    # completed by t.
    y, fin = rows
    times, survival = kaplan_meier(y, fin)
    done, left = redistribute_to_the_right(y, fin)
    assert list(times) == sorted({t for t, _ in done})
    completed = [float(sum(m for t, m in done if t <= s)) for s in times]
    assert 1 - survival == pytest.approx(completed, rel=RTOL, abs=RTOL)
    # The quantile: the same observed time, identified exactly where the
    # reference's completed mass reaches q; else the longest time observed.
    value, identified = censored_quantile(y, fin, q)
    assert (value, identified) == reference_quantile(y, fin, q)
    if not identified:
        assert value == max(y) and float(1 - left) < q
    # The mean: the area under the curve, identified where no mass is left
    # beyond the last time (the longest time observed is a completion with
    # no censoring tied to it).
    mean, mean_known = censored_mean(y, fin)
    ref, ref_known = reference_mean(y, fin)
    assert mean == pytest.approx(ref, rel=RTOL) and mean_known == ref_known
    if all(fin):
        assert identified and value == np.quantile(y, q, method="inverted_cdf")
        assert mean_known and mean == pytest.approx(np.mean(y), rel=RTOL)


def test_the_reference_by_hand():
    # Three transfers, the first censored at 0.1 s: its third goes half to
    # each of the others (Efron 1967), so 1 s and 3 s carry 1/2 each.
    assert redistribute_to_the_right([0.1, 1, 3], [False, True, True]) == (
        [(1, Fraction(1, 2)), (3, Fraction(1, 2))],
        Fraction(0),
    )
    # A censoring tied with a completion comes after it and, last, keeps
    # its mass: the p75 is beyond 2 s, the mean at least 1.5 s.
    assert redistribute_to_the_right([1, 2, 2], [True, True, False]) == (
        [(1, Fraction(1, 3)), (2, Fraction(1, 3))],
        Fraction(1, 3),
    )
    assert censored_quantile([1, 2, 2], [True, True, False], 0.75) == (2.0, False)
    assert censored_mean([1, 2, 2], [True, True, False]) == (pytest.approx(5 / 3), False)


@st.composite
def flow_tables(draw):
    """A packet result's flows table at random: persistent flows and finite
    transfers of three groups, small and large, some starting before the
    2-8 s window, on its edges or after it, finished or not."""
    rows = []
    for _ in range(draw(st.integers(0, 40))):
        size = draw(st.one_of(st.none(), st.integers(1, 200)))
        start = draw(st.one_of(st.sampled_from([0.0, 2.0, 8.0]), st.floats(0.0, 9.0)))
        finished = draw(st.booleans())
        fct = draw(st.floats(1e-3, 5.0))
        ideal = draw(st.floats(1e-3, 1.0))
        rows.append(
            {
                "group": draw(st.integers(0, 2)),
                "size_pkts": math.nan if size is None else float(size),
                "large": float(size is not None and size > 66),
                "start_s": start,
                "finished": float(size is not None and finished),
                "fct_s": fct if size is not None and finished else math.nan,
                "ideal_fct_s": math.nan if size is None else ideal,
            }
        )
    f = pd.DataFrame(
        rows,
        columns=["group", "size_pkts", "large", "start_s", "finished", "fct_s", "ideal_fct_s"],
    )
    f["slowdown"] = f["fct_s"] / f["ideal_fct_s"]
    return f


@given(flow_tables())
@settings(max_examples=200, **PROPERTY)
def test_completion_fraction_is_completions_over_starts(f):
    # Counted straight from the table: per class, over all groups and per
    # group, the transfers that started in [2 s, 8 s) and those of them
    # that finished; a class or group with none has no keys.
    s = fct_summary(f, (2.0, 8.0))
    inside = f[f["size_pkts"].notna() & (f["start_s"] >= 2.0) & (f["start_s"] < 8.0)]
    for c, large in (("small", 0.0), ("large", 1.0)):
        cls = inside[inside["large"] == large]
        for suffix, g in [("", cls)] + [(f"_group{k}", cls[cls["group"] == k]) for k in range(3)]:
            key = f"{c}{suffix}"
            if g.empty:
                assert f"flows_started_{key}" not in s and f"completion_{key}" not in s
                continue
            started, done = len(g), int((g["finished"] == 1.0).sum())
            assert s[f"flows_started_{key}"] == started
            assert s[f"flows_completed_{key}"] == done
            assert s[f"completion_{key}"] == done / started
            # The group's FCT: the same estimate on its transfers alone,
            # the unfinished censored at the time they had run at 8 s.
            fin = (g["finished"] == 1.0).to_numpy()
            elapsed = np.where(fin, g["fct_s"], 8.0 - g["start_s"])
            p99, known = censored_quantile(elapsed, fin, 0.99)
            assert s[f"fct_p99_{c}_s{suffix}"] == p99
            assert s[f"fct_p99_{c}_s{suffix}_censored"] == float(not known)
    groups = [k for k in s if k.startswith("flows_started_small_group")]
    assert sum(s[k] for k in groups) == s.get("flows_started_small", 0)


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
    # time is only known to be >= 400 ms, and says so.
    s = bufsim.simulate(INCAST).summary
    assert s["flows_started_small"] == 100
    assert s["flows_completed_small"] <= 5
    assert s["fct_p99_small_s"] == pytest.approx(0.4, abs=1e-9)
    assert s["fct_p99_small_s_censored"] == 1.0
    assert s["slowdown_p99_small_censored"] == 1.0
    # Alone on the link a transfer takes 64 KB at 10 Gbps plus 50 us.
    assert s["slowdown_p99_small"] == pytest.approx(0.4 / (65536 * 8 / 10e9 + 50e-6), rel=0.02)


def test_an_incast_and_a_web_mix_are_counted_apart():
    # The incast above beside an open-loop web mix (paper 002's sizes, 5%
    # of the link): pooled, 74% of the small transfers complete; per group,
    # the web mix completes 88% of its own and the incast 2 of its 100.
    web = {"arrival": {"load": 0.05}, "size": "dhamdhere2006", "rtt": "50us", "mss": "1500B"}
    s = bufsim.simulate({**INCAST, "flows": [*INCAST["flows"], {"tcp": "cubic", **web}]}).summary
    assert s["flows_started_small_group1"] == 100 and s["completion_small_group1"] <= 0.05
    assert s["fct_p99_small_s_group1"] == pytest.approx(0.4, abs=1e-9)
    assert s["fct_p99_small_s_group1_censored"] == 1.0
    assert s["completion_small_group2"] >= 0.8 and "flows_started_large_group1" not in s
    for k in ("flows_started", "flows_completed"):
        assert s[f"{k}_small"] == s[f"{k}_small_group1"] + s[f"{k}_small_group2"]
        assert s[f"{k}_large"] == s[f"{k}_large_group2"]


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
    assert "of the transfers started were unfinished" in note and ">= 400 ms" in note
    runs = a.runs[a.runs["engine"] == "packet"]
    assert (runs["flows_started_small"] == 100).all()
    assert (runs["fct_p99_small_s_censored"] == 1.0).all()


def test_dc_incast_slowdowns_are_censored_as_the_fcts_are():
    # The dc-incast example: 7 of its 100 incast transfers are unfinished
    # at the run's end, so the FCT mean and p99 are lower bounds. The
    # slowdowns of the same transfers are too: the p99 with each unfinished
    # transfer at the slowdown it had reached (6562), a lower bound, and
    # flagged so. Kaplan-Meier on slowdowns alone would call the p99
    # identified (8637) by extrapolating from the finished transfers.
    from bufsim.advise.objectives import Objective, cannot_judge, judged, observed

    s = bufsim.simulate(bufsim.examples.path("dc-incast")).summary
    assert s["flows_started_small"] - s["flows_completed_small"] == 7
    for stat in ("mean", "p99"):
        assert s[f"fct_{stat}_small_s_censored"] == 1.0
        assert s[f"slowdown_{stat}_small_censored"] == 1.0
        assert s[f"slowdown_{stat}_small_group1_censored"] == 1.0
    assert s["slowdown_p99_small"] == pytest.approx(6562, rel=0.01)
    assert s["slowdown_mean_small"] == pytest.approx(765, rel=0.01)
    # An objective the lower bound meets is not judged met on it (advise
    # takes no slowdown objective yet; the rule is the FCTs').
    o = Objective(
        text="slowdown_p99_small<=10000", key="slowdown_p99_small", op="<=", bound=10000.0
    )
    runs = pd.DataFrame([s])
    assert judged(runs, o.key)[0] == math.inf
    mean, censored = observed(runs, o.key)
    assert censored and cannot_judge(o, mean, censored)
