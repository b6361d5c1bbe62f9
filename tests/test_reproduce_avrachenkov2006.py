"""Reproduction of paper 003 (Avrachenkov et al. 2006) section III against what the paper reports.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import pandas as pd
import pytest
from bufsim.reproduce import avrachenkov2006


@pytest.fixture(scope="module")
def avrachenkov(reproduction_table):
    return reproduction_table("avrachenkov2006")


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
    # The packet engine's deterministic flows reach 99.9% at 140-150
    # packets whatever N (grid step 10), about the BDP of 150: every flow
    # loses in every congestion episode (sync >= 0.99 at B0), so every
    # window halves at once. No timeouts at N = 20 (at most one at N = 5):
    # no recovery fails. Theorem 1 says BDP^2 / (18 N): 1250 for one flow.
    for n, row in avrachenkov_summary.iterrows():
        assert 140 <= row["packet_B0"] <= 150, n
        assert row["packet_sync_at_B0"] >= 0.99, n
    assert avrachenkov_summary.loc[20, "packet_timeouts_at_B0"] == 0
    assert avrachenkov_summary.loc[5, "packet_timeouts_at_B0"] <= 1
    assert avrachenkov_summary.loc[1, "eq12_B0"] == pytest.approx(1250)


def test_avrachenkov_stack_fields_one_at_a_time(avrachenkov_summary):
    # Each field on which the rfc profile differs from the ns3 profile,
    # switched alone (bisection over 20..200 packets, grid step 10; 40 s
    # quick and 120 s full runs give the numbers in brackets, quick/full).
    s = avrachenkov_summary
    # Delayed ACKs desynchronize the flows (sync 0.46/0.47 at N = 5,
    # 0.32/0.30 at N = 20) and lower B0 to 100/110 and 70.
    assert s.loc[5, "delayed_ack_B0"] == pytest.approx(105, abs=10)
    assert s.loc[20, "delayed_ack_B0"] == pytest.approx(70, abs=10)
    for n in (5, 20):
        assert s.loc[n, "delayed_ack_sync_at_B0"] <= 0.5, n
    # Limited Transmit keeps them in step (sync >= 0.99) and adds two
    # segments per flow to each recovery, 2N: B0 falls to 100 at N = 20 and
    # stays at 150/140 at N = 5.
    assert s.loc[20, "limited_transmit_B0"] == pytest.approx(100, abs=10)
    assert s.loc[5, "limited_transmit_B0"] >= 140
    for n in (5, 20):
        assert s.loc[n, "limited_transmit_sync_at_B0"] >= 0.99, n
    # Partial-ACK retransmission (only a SACK recovery reads it; these flows
    # run NewReno without SACK, which always resends on a partial ACK), the
    # handshake and the initial window leave B0 where the rfc profile has it.
    for col in ("partial_ack_retransmit_B0", "connection_setup_B0", "initial_window_B0"):
        for n in (5, 20):
            assert s.loc[n, col] == pytest.approx(s.loc[n, "packet_B0"], abs=10), (col, n)
    # ns-3's timeout rule: 140 at N = 20; at N = 5 it misses 99.9% even at
    # 200 packets (NaN) or needs more than the rfc profile.
    assert s.loc[20, "rto_ssthresh_B0"] == pytest.approx(140, abs=10)
    assert not s.loc[5, "rto_ssthresh_B0"] < 150
    # ns-3's cut from the pipe (cut_from, BytesInFlight() at the third
    # duplicate ACK) alone leaves B0 at the rfc profile's or above (150/160
    # quick). ns-3's recovery without SACK, PRR over the pipe it guesses
    # from duplicate ACKs (prr), alone lowers it (130 and 100 quick: each
    # duplicate ACK releases a segment while that pipe exceeds ssthresh).
    # The ns3 profile whole gives 120 and 70, the paper's ns-2 B0 (it gave
    # 100 and 50 while it cut from FlightSize; ns-3 itself in the full
    # version's 20 s runs: 100 and 70); with an ACK for every segment 140
    # and 100 quick (150 and 160 while the profile ran RFC 6582's recovery
    # without SACK): its PRR and Limited Transmit lower B0 at N = 20, the
    # delayed ACKs lower it further.
    for n in (5, 20):
        assert not s.loc[n, "cut_from_B0"] < s.loc[n, "packet_B0"], n
        assert s.loc[n, "prr_B0"] < s.loc[n, "packet_B0"], n
    assert s.loc[5, "ns3_profile_B0"] == pytest.approx(120, abs=10)
    assert s.loc[20, "ns3_profile_B0"] == pytest.approx(70, abs=10)
    assert s.loc[20, "ns3_profile_ack_every_B0"] < s.loc[20, "packet_B0"]
    assert s.loc[20, "ns3_profile_B0"] < s.loc[20, "ns3_profile_ack_every_B0"]


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
    # delayed ACKs (desynchronizing, with timeouts at N=20) do, by at least
    # two grid steps of 10 packets (quick: 100/70; full: 110/70, where 100
    # packets give 0.9990 against the 0.999 target at N = 5).
    s = avrachenkov_summary
    for col in ("sack_B0", "random_start_B0", "min_rto_B0", "access_links_B0"):
        for n in (5, 20):
            assert s.loc[n, col] >= 130, (col, n)
    for n in (5, 20):
        assert s.loc[n, "delayed_ack_B0"] <= 130 - 2 * 10, n
    # A 99% target instead of 99.9% moves both N to 120 packets.
    assert (s.loc[[5, 20], "packet_B0_99"] == 120).all()


def test_avrachenkov_ns3_beside_the_packet_engine(avrachenkov, avrachenkov_summary, quick):
    # ns-3 runs only in the full version, and only where bufsim's ns3 engine
    # is available; otherwise its columns are NaN and the B0 claims say it
    # was not run.
    s = avrachenkov_summary
    c = avrachenkov2006.claims(avrachenkov).set_index("claim")
    if quick or not avrachenkov2006.ns3_available():
        assert s.loc[[5, 20], ["ns3_B0", "ns3_ack_every_B0"]].isna().all().all()
        assert "ns-3 not run" in c.loc["B0, N = 20", "why"]
        return
    assert "ns-3 itself" in c.loc["B0, N = 20", "why"]
    # 20 s runs, bisection over 40..160 packets (grid step 10). ns-3 with
    # its defaults (delayed ACKs, Limited Transmit): B0 = 100 (N = 5) and 70
    # (N = 20), desynchronized (sync 0.49 and 0.32).
    assert s.loc[5, "ns3_B0"] == pytest.approx(100, abs=10)
    assert s.loc[20, "ns3_B0"] == pytest.approx(70, abs=10)
    for n in (5, 20):
        assert s.loc[n, "ns3_sync_at_B0"] <= 0.6, n
    # The packet engine's ns3 profile in the same runs: the utilization at
    # every buffer both ran within 0.002 of ns-3's (measured: at most
    # 0.00096). One 15 s window measures a utilization near 1 to about
    # 0.001: ns-3's own curve rises 0.0015 from 90 to 100 packets at N = 5,
    # the packet engine's falls 0.0002 there. B0 is 70 in both at N = 20;
    # at N = 5 it is 120 against 100, where both curves lie within 0.07%
    # of the 99.9% target from 100 to 120 packets: every buffer between the
    # two B0 has both utilizations within 0.002 of the target.
    d = avrachenkov2006.ns3_differences(avrachenkov)
    assert set(d["n"]) == {5, 20} and len(d) >= 8
    assert d["difference"].abs().max() <= 0.002, d
    for n in (5, 20):
        lo, hi = sorted((s.loc[n, "ns3_B0"], s.loc[n, "ns3_packet_B0"]))
        between = d[(d["n"] == n) & d["buffer_pkts"].between(lo, hi)]
        assert ((between[["packet", "ns3"]] - avrachenkov2006.TARGET).abs() <= 0.002).all().all(), n
    assert s.loc[20, "ns3_B0"] == s.loc[20, "ns3_packet_B0"]
    # With an ACK per segment (ns-2's sink) ns-3 runs only N = 20 (at N = 5
    # one 6 s run took 320 s). Its flows do not lose in step (sync 0.13 at
    # 40 packets) and reach 99.9% at the smallest buffer searched; the
    # packet engine's, with the same stack fields, nearly all lose in each
    # episode (sync 0.91) and need 160, the BDP's 150 and a grid step: a
    # disagreement not run down (the reproduction says so).
    assert (avrachenkov[avrachenkov["setting"] == "ns3_ack_every"]["n"] == 20).all()
    assert s.loc[20, "ns3_ack_every_B0"] == 40
    assert s.loc[20, "ns3_ack_every_sync_at_B0"] <= 0.3
    assert s.loc[20, "ns3_ack_every_packet_B0"] == pytest.approx(160, abs=10)
    assert s.loc[20, "ns3_ack_every_packet_sync_at_B0"] >= 0.85
    assert "not run down here" in c.loc["B0, N = 20", "why"]


def test_avrachenkov_lock_out_at_one_packet(avrachenkov):
    # The rate at the smallest buffer is a lock-out, not an ACK clock that
    # spaces the packets: one flow at a time holds the link, most others get
    # under 1% of it, and the link runs about as one flow alone through a
    # 1-packet buffer (N = 1: 0.7487 over 40 s, 0.7493 over 120 s; Corollary
    # 1: 0.75). Over 40 s one flow carries 98% of the goodput; over 120 s a
    # second takes the link over for a while at N >= 5 (42.4 of 74.4 Mbit/s
    # stay with the first): the largest two carry nearly all of it.
    det = _det(avrachenkov)
    lock = det[(det["buffer_pkts"] == 1) & (det["n"] > 1)]
    assert (lock["packet_top_share"] >= 0.5).all()
    assert (lock["packet_top2_share"] >= 0.95).all()
    assert ((lock["packet_starved"] / (lock["n"] - 1)) >= 0.7).all()
    # The flows that hold the link set its rate, not how many are locked
    # out: from N = 5 on the same two flows take turns and the rate is the
    # same within 1e-5 (0.7352 over 40 s; 0.7435 over 120 s, N = 5 apart
    # from N = 10 and 20 by 4e-7, one packet's time). The others' tries
    # cost the link what one flow alone would have sent: 1.8% of it over
    # 40 s, 0.5% (N = 2, whose second flow never wins) and 0.8% (N >= 5)
    # over 120 s; never more than 2%, never a gain.
    many = lock[lock["n"] >= 5]["packet"]
    assert many.max() - many.min() < 1e-5
    one = det[(det["buffer_pkts"] == 1) & (det["n"] == 1)]["packet"].iloc[0]
    assert (lock["packet"] < one).all() and (lock["packet"] > 0.98 * one).all()


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    "rate at B = 0, N = 5": "differs, explained",
    "rate at B = 0, N = 20": "differs, explained",
    "B0, N = 5": "differs, explained",
    "B0, N = 5, 200us jitter": "agrees after tuning",
    "B0, N = 20": "differs, explained",
    "B0, N = 20, 200us jitter": "agrees after tuning",
    "B0 falls from N = 5 to 20, deterministic": "differs, explained",
    "B0 falls from N = 5 to 20, 200us jitter": "agrees after tuning",
    "synchronization": "agrees",
    "synchronized flows need less than the BDP": "differs, explained",
    "eq. (12), N = 5": "check",
    "Stanford rule, N = 5": "check",
    "eq. (12), N = 20": "check",
    "Stanford rule, N = 20": "check",
    "figure 8: Theorem 1's error": "agrees after tuning",
    "figure 8: one connection": "agrees",
    "figure 7: the Pareto set": "agrees",
}


def test_avrachenkov_verdicts(avrachenkov_quick_table):
    c = avrachenkov2006.claims(avrachenkov_quick_table)
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS
    # The tuned claims name the jitter and how it was chosen.
    tuned = c[c["verdict"] == "agrees after tuning"]
    assert tuned["tuning"].str.contains("flows\\[\\].jitter = 200us, picked from").all()


def test_avrachenkov_claims_and_report(avrachenkov):
    c = avrachenkov2006.claims(avrachenkov).set_index("claim")
    # The paper's values are printed beside bufsim's.
    assert "64.4" in c.loc["rate at B = 0, N = 5", "paper"]
    assert "120 packets" in c.loc["B0, N = 5", "paper"]
    assert c.loc["B0, N = 20, 200us jitter", "bufsim"] == pytest.approx(70, abs=10)
    assert "lock-out" in c.loc["rate at B = 0, N = 5", "why"]
    from bufsim.report import reproduction_report

    page = reproduction_report("avrachenkov2006", table=avrachenkov)
    for fig in ("fig-pareto", "fig-b0_scan", "fig-b0_error"):
        assert f'id="{fig}"' in page
    assert page.count("<svg") == 3 and "64.4" in page
    # Each finding sits above the figure it explains; setup is Markdown, not reST.
    assert page.index("locks the others out") < page.index('id="fig-pareto"')
    assert ":func:" not in page and "<strong>The paper's setup.</strong>" in page


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
    assert "differs, explained" in res.output and "agrees after tuning" in res.output
    assert "Verdicts per paper" in res.output
    claims = pd.read_csv(tmp_path / "avrachenkov2006-quick-claims.csv")
    assert len(claims) == len(avrachenkov2006.claims(avrachenkov_quick_table))
