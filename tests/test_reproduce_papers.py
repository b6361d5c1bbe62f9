"""Reproductions of papers 001, 003 and 004 against what the papers report.

The quick versions run in `make test`; the full ones are marked slow and run
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import pandas as pd
import pytest
from bufsim.reproduce import avrachenkov2006, barman2005, kumar2010


@pytest.fixture(
    scope="module",
    params=[pytest.param(True, id="quick"), pytest.param(False, id="full", marks=pytest.mark.slow)],
)
def quick(request):
    return request.param


# ----------------------------------------------------------------- paper 001


@pytest.fixture(scope="module")
def barman(quick):
    return barman2005.run(quick=quick).set_index("fraction")


def test_barman_utilization_grows_with_the_buffer(barman):
    for source in ("model", "packet", "fluid"):
        u = barman[source].to_numpy()
        assert (u[1:] >= u[:-1] - 0.005).all(), source


def test_barman_ten_percent_keeps_ninety_percent(barman):
    # Paper 001: "buffer size equal to 10% of the bandwidth-delay product can
    # sustain more than 90% utilization" (model and ns-2).
    for source in ("model", "packet", "fluid"):
        assert barman.loc[0.1, source] > 0.9, source


def test_barman_twenty_percent_near_ninety_eight(barman):
    # "... reaching almost 98% when the buffer size is around 20%". The
    # M/M/1/K fixed point gives 0.998 (Poisson arrivals are smoother than
    # TCP's), the packet engine 0.955 and the fluid engine 0.96-0.97: we
    # allow 3% below the paper's 0.98 for the simulators.
    assert barman.loc[0.2, "model"] == pytest.approx(0.98, abs=0.02)
    for source in ("packet", "fluid"):
        assert barman.loc[0.2, source] == pytest.approx(0.98, abs=0.03), source


def test_barman_small_buffer_collapses_in_the_packet_engine(barman):
    # "a small buffer size below 10% ... causes many packet drops, which lead
    # to a drastic drop in the utilization": at 2% the packet engine's
    # bursts overflow the buffer (0.32-0.37), while the fixed point, which
    # sees Poisson arrivals, still predicts 0.97.
    assert barman.loc[0.02, "packet"] < 0.6
    assert barman.loc[0.02, "model"] > 0.95


def test_barman_claims_table_states_every_claim_with_a_verdict(barman):
    # The report's claims table: the paper's statements above, each with
    # bufsim's number and a verdict (all agree, as the tests above check).
    c = barman2005.claims(barman.reset_index())
    assert len(c) == 8 and set(c.columns) >= {"claim", "paper", "bufsim", "verdict", "why"}
    assert (c["verdict"] == "agrees").all(), c[c["verdict"] != "agrees"]
    # The report carries them, and paper 004's Figure 5 as a figure.
    from bufsim.report import reproduction_report

    page = reproduction_report("barman2005", table=barman.reset_index())
    assert 'id="fig-utilization"' in page and "<svg" in page and page.count("agrees") >= 8


def test_barman_setup_fluid_synchronization_brackets_the_packet_engine(barman):
    # Paper 004 section III.A (Figure 5), on paper 001's setup: the fluid
    # model with X = 1 underestimates ns-2 and lower X raises utilization.
    # Here the fluid curves are ordered X = 0.3 >= 0.6 >= 1, and from 10% of
    # the buffer on the packet engine lies between X = 1 (2% below allowed)
    # and X = 0.3 (at 5% it is 2.4 points below X = 1, at 2% far below: the
    # packet bursts the fluid model lacks): its flows, with RTTs within 8% of each other, synchronize
    # strongly (measured sync_mean 0.63-0.76), so it sits near the X = 1
    # curve where the paper's ns-2 sat near X = 0.3-0.6.
    for frac, row in barman.iterrows():
        assert row["fluid_x0.3"] >= row["fluid_x0.6"] - 0.005 >= row["fluid_x1"] - 0.01
        if frac >= 0.1:
            assert row["fluid_x1"] - 0.02 <= row["packet"] <= row["fluid_x0.3"] + 0.005


# ----------------------------------------------------------------- paper 003


@pytest.fixture(scope="module")
def avrachenkov(quick, request):
    if quick:
        return request.getfixturevalue("avrachenkov_quick_table")
    return avrachenkov2006.run(quick=False)


@pytest.fixture(scope="module")
def avrachenkov_summary(avrachenkov):
    return avrachenkov2006.summary(avrachenkov).set_index("n")


def _det(table):
    return table[table["setting"] == "deterministic"]


def test_avrachenkov_small_buffer_rate(avrachenkov):
    # Paper 003 section III: with no buffer ns-2 gives 64.4 (N=5) and 66.6
    # Mbps (N=20) where Corollary 1 says 75. Our smallest buffer is one
    # packet: 73.5-74.9 Mbps. Between the paper's ns-2 value and the
    # corollary, with 2% slack.
    det = _det(avrachenkov)
    small = det[det["buffer_pkts"] == 1].set_index("n")
    for n in (5, 20):
        assert 0.64 * 0.98 <= small.loc[n, "packet"] <= 0.75 * 1.02
        assert small.loc[n, "theorem1"] == pytest.approx(0.75, abs=0.035)


def test_avrachenkov_b0_is_at_most_the_bdp(avrachenkov_summary):
    # The paper's point: full utilization (99.9%) needs less than the BDP of
    # 150 packets (ns-2: 120 for N=5, 70 for N=20). The packet engine
    # reaches 99.9% at 140-150 packets for both N (at 120 it is at 99.4%);
    # the fluid engine reaches it at or below the paper's values.
    summary = avrachenkov_summary
    for n in (5, 20):
        assert summary.loc[n, "packet_B0"] <= 150
        assert summary.loc[n, "fluid_B0"] <= summary.loc[n, "paper_B0"]
    # Theorem 1, synchronized: B0 = 250 (N=5) and 62.5 (N=20), which the
    # paper quotes as eq. (12)'s; eq. (12) itself (desynchronized) gives
    # 150^2 / (2 n (4n - 1)^2) = 6.23 and 0.0901.
    assert summary.loc[5, "eq12_B0"] == pytest.approx(250)
    assert summary.loc[20, "eq12_B0"] == pytest.approx(62.5)
    assert summary.loc[5, "eq12_desync_B0"] == pytest.approx(22500 / (10 * 19**2))
    assert summary.loc[20, "eq12_desync_B0"] == pytest.approx(22500 / (40 * 79**2))


def test_avrachenkov_deterministic_flows_are_synchronized(avrachenkov):
    # The paper: equal delays "imply that the TCP connections will be
    # synchronized". Measured over one RTT at a full buffer (6 ms + B/C),
    # every flow loses in every congestion episode from 100 packets on; the
    # summary's default 6 ms window cuts each episode in two and reads 0.5
    # (in two or three from 180 packets: 0.5 or 0.33).
    det = _det(avrachenkov)
    near = det[det["n"].isin([5, 20]) & (det["buffer_pkts"] >= 100)]
    assert near["packet_sync"].min() >= 0.99
    mid = near[near["buffer_pkts"] <= 160]
    assert mid["packet_sync_rtt"].to_numpy() == pytest.approx(0.5, abs=0.01)
    # From 180 packets (the full grid only) an episode, 13.2 ms and more,
    # spans two or three 6 ms windows: 0.5 or 1/3, never the true 1.
    for v in near["packet_sync_rtt"]:
        assert v == pytest.approx(0.5, abs=0.01) or v == pytest.approx(1 / 3, abs=0.01)


def test_avrachenkov_synchronized_b0_is_the_bdp_for_every_n(avrachenkov_summary):
    # Why the packet engine's B0 does not fall with N: synchronized window
    # flows halve the aggregate window BDP + B, which must stay >= BDP, so
    # B0 = BDP (150 packets) whatever N; measured 140-150 (grid step 10).
    # Theorem 1 says BDP^2 / (18 N): 1250 for one flow.
    for n, row in avrachenkov_summary.iterrows():
        assert 140 <= row["packet_B0"] <= 150, n
        assert row["packet_sync_at_B0"] >= 0.99, n
    assert avrachenkov_summary.loc[1, "eq12_B0"] == pytest.approx(1250)


def test_avrachenkov_jitter_reproduces_the_paper_b0(avrachenkov_summary):
    # With 200 us of send jitter (ns-2's overhead_) the flows desynchronize
    # (0.69 and 0.44 of them lose per episode) and B0 is the paper's 120
    # (N=5) and 70 (N=20) packets, within one grid step of 10 packets.
    s = avrachenkov_summary
    assert s.loc[5, "jitter_B0"] == pytest.approx(120, abs=10)
    assert s.loc[20, "jitter_B0"] == pytest.approx(70, abs=10)
    assert s.loc[20, "jitter_B0"] / s.loc[5, "jitter_B0"] == pytest.approx(70 / 120, abs=0.15)
    assert 0.55 <= s.loc[5, "jitter_sync_at_B0"] <= 0.8
    assert 0.35 <= s.loc[20, "jitter_sync_at_B0"] <= 0.55
    # Jitter costs at a 1-packet buffer: collisions and timeouts.
    assert s.loc[5, "jitter_rate_B1_mbps"] < 10


def test_avrachenkov_other_candidates(avrachenkov_summary):
    # Each candidate changed alone (bisection over 20..200 packets): TCP
    # details that leave the flows in step do not lower B0 below 130; the
    # delayed ACKs (desynchronizing, with timeouts at N=20) do.
    s = avrachenkov_summary
    for col in ("sack_B0", "random_start_B0", "min_rto_B0", "access_links_B0"):
        for n in (5, 20):
            assert s.loc[n, col] >= 130, (col, n)
    for n in (5, 20):
        assert s.loc[n, "delayed_ack_B0"] <= 100, n
    # A 99% target instead of 99.9% moves both N to 120 packets.
    assert (s.loc[[5, 20], "packet_B0_99"] == 120).all()


def test_avrachenkov_claims_and_report(avrachenkov):
    c = avrachenkov2006.claims(avrachenkov).set_index("claim")
    assert set(c.columns) >= {"paper", "bufsim", "tolerance", "verdict", "why"}
    differs = {
        "rate at B = 0, N = 5",
        "rate at B = 0, N = 20",
        "B0, N = 5",
        "B0, N = 20",
        "B0 falls from N = 5 to 20, deterministic",
        "synchronized flows need less than the BDP",
        "Stanford rule, N = 20",
    }
    assert set(c.index[c["verdict"] == "differs"]) == differs, c["verdict"]
    # The paper's values are printed beside bufsim's.
    assert "64.4" in c.loc["rate at B = 0, N = 5", "paper"]
    assert "120 packets" in c.loc["B0, N = 5", "paper"]
    assert c.loc["B0, N = 20, 200us jitter", "bufsim"] == pytest.approx(70, abs=10)
    from bufsim.report import reproduction_report

    page = reproduction_report("avrachenkov2006", table=avrachenkov)
    for fig in ("fig-pareto", "fig-b0_scan", "fig-b0_error"):
        assert f'id="{fig}"' in page
    assert page.count("<svg") == 3 and "64.4" in page


def test_avrachenkov_cli_prints_the_claims(avrachenkov_quick_table, monkeypatch, tmp_path):
    # `bufsim reproduce avrachenkov2006` prints the claims with the paper's
    # values and writes them as CSV (the quick table stands in for the run).
    from bufsim.cli import app
    from typer.testing import CliRunner

    monkeypatch.setattr(avrachenkov2006, "run", lambda quick, progress: avrachenkov_quick_table)
    res = CliRunner().invoke(
        app,
        ["reproduce", "avrachenkov2006", "--quick", "--out", str(tmp_path)],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 0, res.output
    assert "64.4 Mbps from ns-2" in res.output and "120 packets from ns-2" in res.output
    assert "differs" in res.output and "agrees" in res.output
    claims = pd.read_csv(tmp_path / "avrachenkov2006-quick-claims.csv")
    assert len(claims) == len(avrachenkov2006.claims(avrachenkov_quick_table))


# ----------------------------------------------------------------- paper 004


@pytest.fixture(scope="module")
def kumar(quick):
    return kumar2010.pivot(kumar2010.run(quick=quick))


def test_kumar_hstcp_above_ninety_percent_at_five_percent(kumar):
    # Paper 004: "HSTCP and AIMD above 90% utilization at a buffer fraction of 0.05".
    for x in kumar2010.SYNC:
        assert kumar.loc[0.05, ("highspeed", x)] > 0.9
    # AIMD: 0.911 (quick) / 0.898 (full, 10 x 3000 s) at X = 0.3, lower at
    # larger X: its 10 Gbps sawtooth lasts about 1000 s, so 3000 s runs keep
    # part of the start-up; we allow 0.88.
    assert kumar.loc[0.05, ("aimd", 0.3)] > 0.88


def test_kumar_less_synchronization_more_utilization(kumar):
    # "Lower synchronization further improves the link utilization for HSTCP and AIMD."
    for variant in ("highspeed", "aimd"):
        for frac in (0.01, 0.05):
            assert kumar.loc[frac, (variant, 0.3)] > kumar.loc[frac, (variant, 1.0)]


def test_kumar_cubic_below_hstcp_at_small_buffers(kumar):
    # "HSTCP performs better than CUBIC TCP with various buffer sizes."
    for frac in (0.01, 0.05):
        for x in kumar2010.SYNC:
            assert kumar.loc[frac, ("cubic", x)] < kumar.loc[frac, ("highspeed", x)]
