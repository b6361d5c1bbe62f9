"""Reproduction of paper 003 (Avrachenkov et al. 2006) section III against what the paper reports.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import re

import bufsim
import pandas as pd
import pytest
from bufsim.reproduce import HEADLINE_COLUMNS, avrachenkov2006, headline_counts, headline_table


@pytest.fixture(scope="module")
def avrachenkov(reproduction_table):
    return reproduction_table("avrachenkov2006")


@pytest.fixture(scope="module")
def avrachenkov_summary(avrachenkov):
    return avrachenkov2006.runs.summary(avrachenkov).set_index("n")


def _det(table):
    return table[table["setting"] == "deterministic"]


def test_avrachenkov_small_buffer_rate(avrachenkov, avrachenkov_summary):
    # Paper 003 section III: with no buffer ns-2 gives 64.4 (N=5) and 66.6
    # Mbps (N=20) where Corollary 1 says 75. Our smallest buffer is one
    # packet. One flow alone is Corollary 1's case: 0.7551 (40 s) and
    # 0.7556 (120 s) against 0.75, within 0.01.
    det = _det(avrachenkov)
    small = det[det["buffer_pkts"] == 1].set_index("n")
    assert small.loc[1, "packet"] == pytest.approx(0.75, abs=0.01)
    # N flows without access links: their packets leave on ACKs spaced by
    # the bottleneck's own packet time, land on its departure instants and
    # collide in the 1-packet buffer; 58.7 and 55.6 Mbps (40 s; 55.6 and
    # 56.7 over 120 s), below ns-2 by more than the claim's 3 Mbps. With
    # the paper's 100 Mbps access links, which space each sender's packets:
    # 72.1 and 74.9 Mbps (71.5 and 74.8 over 120 s). ns-2's rate lies
    # between the two (test_avrachenkov_collisions_at_one_packet).
    s = avrachenkov_summary
    for n in (5, 20):
        paper = avrachenkov2006.design.PAPER[n][0]
        assert s.loc[n, "packet_rate_B1_mbps"] < paper - 3.0, n
        assert s.loc[n, "packet_rate_B1_mbps"] < paper < s.loc[n, "access_links_rate_B1_mbps"], n
        assert small.loc[n, "theorem1"] == pytest.approx(0.75, abs=0.035)


def test_avrachenkov_b0_is_at_most_the_bdp(avrachenkov_summary):
    # The paper's point: full utilization (99.9%) needs less than the BDP of
    # 150 packets (ns-2: 120 for N=5, 70 for N=20). The packet engine
    # reaches 99.9% at 140 packets for both N, quick and full (at 120 it is
    # at 99.44%); the fluid engine reaches it at or below the paper's
    # values.
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
    # The packet engine's deterministic flows reach 99.9% at 140 packets
    # whatever N (N = 1, 2, 5, 10, 20, quick and full; grid step 10), about
    # the BDP of 150: every flow loses in every congestion episode (sync >=
    # 0.99 at B0), so every window halves at once. Theorem 1 says BDP^2 /
    # (18 N): 1250 for one flow.
    for n, row in avrachenkov_summary.iterrows():
        assert 140 <= row["packet_B0"] <= 150, n
        assert row["packet_sync_at_B0"] >= 0.99, n
    assert avrachenkov_summary.loc[1, "eq12_B0"] == pytest.approx(1250)
    # No recovery fails in the measured window: no timeouts at N = 20, and
    # N = 5's (2 at B0, quick and full; 1-3 at 130-150 packets) all fall in
    # the first 10 s, the start-up, within the warm-up (10 s quick, 20 s
    # full): a 10 s run of the same flows counts as many.
    assert avrachenkov_summary.loc[20, "packet_timeouts_at_B0"] == 0
    for n in (5, 20):
        b = int(avrachenkov_summary.loc[n, "packet_B0"])
        raw = avrachenkov2006.runs._packet_scenario(n, b, "deterministic", "10s", "0s")
        first = bufsim.simulate(raw).summary["timeouts"]
        assert first == avrachenkov_summary.loc[n, "packet_timeouts_at_B0"], n


def test_avrachenkov_stack_fields_one_at_a_time(avrachenkov_summary):
    # Each field on which the rfc profile differs from the ns3 profile,
    # switched alone (bisection over 20..200 packets, grid step 10; 40 s
    # quick and 120 s full runs give the numbers in brackets, quick/full).
    s = avrachenkov_summary
    # Delayed ACKs desynchronize the flows (sync 0.44/0.46 at N = 5,
    # 0.29/0.28 at N = 20) and lower B0 to 100 and 80/70.
    assert s.loc[5, "delayed_ack_B0"] == pytest.approx(105, abs=10)
    assert s.loc[20, "delayed_ack_B0"] == pytest.approx(70, abs=10)
    for n in (5, 20):
        assert s.loc[n, "delayed_ack_sync_at_B0"] <= 0.5, n
    # Limited Transmit keeps them in step (sync >= 0.99) and adds two
    # segments per flow to each recovery, 2N in all, so B0 falls by about
    # 2N (within the grid step): 140 -> 130 at N = 5 and 140 -> 100 at N =
    # 20, quick and full.
    for n in (5, 20):
        gain = s.loc[n, "packet_B0"] - s.loc[n, "limited_transmit_B0"]
        assert gain == pytest.approx(2 * n, abs=10), n
        assert s.loc[n, "limited_transmit_sync_at_B0"] >= 0.99, n
    # Partial-ACK retransmission (only a SACK recovery reads it; these flows
    # run NewReno without SACK, which always resends on a partial ACK), the
    # handshake, the initial window and ns-3's timeout rule (rto_ssthresh:
    # the start-up's timeouts are the only ones near B0) leave B0 where the
    # rfc profile has it: 140 at both N, quick and full.
    cols = ("partial_ack_retransmit_B0", "connection_setup_B0", "initial_window_B0")
    for col in (*cols, "rto_ssthresh_B0"):
        for n in (5, 20):
            assert s.loc[n, col] == pytest.approx(s.loc[n, "packet_B0"], abs=10), (col, n)
    # ns-3's cut from the pipe (cut_from, BytesInFlight() at the third
    # duplicate ACK) alone leaves B0 at the rfc profile's or above (150/160
    # quick). ns-3's recovery without SACK, PRR over the pipe it guesses
    # from duplicate ACKs (prr), alone lowers it (130 and 100 quick: each
    # duplicate ACK releases a segment while that pipe exceeds ssthresh).
    # The ns3 profile whole gives 110 and 70 (quick and full), the paper's
    # ns-2 B0 within a grid step (ns-3 itself in the full version's 20 s
    # runs: 120 and 70); with an ACK for every segment 130 and 110: its PRR
    # and Limited Transmit lower B0 at N = 20, the delayed ACKs lower it
    # further.
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


def test_avrachenkov_other_candidates(avrachenkov_summary, quick):
    # Each candidate changed alone (bisection over 20..200 packets): TCP
    # details that leave the flows in step do not lower B0 below 130; the
    # delayed ACKs (desynchronizing, with timeouts at N=20) do, by at least
    # two grid steps of 10 packets (quick: 100/80; full: 100/70).
    s = avrachenkov_summary
    for col in ("sack_B0", "random_start_B0", "min_rto_B0", "access_links_B0"):
        for n in (5, 20):
            assert s.loc[n, col] >= 130, (col, n)
    for n in (5, 20):
        assert s.loc[n, "delayed_ack_B0"] <= 130 - 2 * 10, n
    # A 99% target instead of 99.9% moves both N to 120 packets over 40 s;
    # over 120 s N = 5 reaches it at 110 (0.99024; it read 0.9895 while the
    # engine took an arrival at a departure's instant first, as this one
    # reads at 109 packets) and N = 20 at 120.
    expected = {5: 120, 20: 120} if quick else {5: 110, 20: 120}
    for n, b in expected.items():
        assert s.loc[n, "packet_B0_99"] == b, n


def test_avrachenkov_ns3_beside_the_packet_engine(avrachenkov, avrachenkov_summary, quick):
    # ns-3 runs only in the full version, and only where bufsim's ns3 engine
    # is available; otherwise its columns are NaN and the B0 claims say it
    # was not run.
    s = avrachenkov_summary
    c = avrachenkov2006.claims(avrachenkov).set_index("claim")
    if quick or not avrachenkov2006.runs.ns3_available():
        assert s.loc[[5, 20], ["ns3_B0", "ns3_ack_every_B0"]].isna().all().all()
        assert "ns-3 not run" in c.loc["B0, N = 20", "why"]
        return
    assert "ns-3 itself" in c.loc["B0, N = 20", "why"]
    # 20 s runs, bisection over 40..160 packets (grid step 10). ns-3 with
    # its defaults (delayed ACKs, Limited Transmit, PRR over the pipe it
    # guesses without SACK): B0 = 120 (N = 5) and 70 (N = 20), ns-2's own
    # values, desynchronized (sync 0.38 and 0.29).
    assert s.loc[5, "ns3_B0"] == pytest.approx(120, abs=10)
    assert s.loc[20, "ns3_B0"] == pytest.approx(70, abs=10)
    for n in (5, 20):
        assert s.loc[n, "ns3_sync_at_B0"] <= 0.6, n
    # The packet engine's ns3 profile in the same runs: B0 110 and 70 (sync
    # 0.40 and 0.30). Their utilizations at every buffer both ran differ by
    # at most 0.0021 (N = 5, 100 packets: 0.99629 against ns-3's 0.99841),
    # within two standard deviations of the difference of two 15 s windows:
    # the packet engine's four consecutive 15 s windows of that case read
    # 0.99629, 0.99867, 0.99719 and 0.99754 (sigma 0.0010, so 0.0014 for a
    # difference of two: 2 sigma 0.0028). Between the two B0 (110-120 at
    # N = 5) both curves lie within 0.002 of the 99.9% target.
    d = avrachenkov2006.runs.ns3_differences(avrachenkov)
    assert set(d["n"]) == {5, 20} and len(d) >= 8
    assert d["difference"].abs().max() <= 0.0028, d
    for n in (5, 20):
        lo, hi = sorted((s.loc[n, "ns3_B0"], s.loc[n, "ns3_packet_B0"]))
        between = d[(d["n"] == n) & d["buffer_pkts"].between(lo, hi)]
        assert (
            ((between[["packet", "ns3"]] - avrachenkov2006.design.TARGET).abs() <= 0.002)
            .all()
            .all()
        ), n
    assert s.loc[20, "ns3_B0"] == s.loc[20, "ns3_packet_B0"]
    # With an ACK per segment (ns-2's sink) ns-3 runs only N = 20 (at N = 5
    # one 6 s run took 320 s): B0 100, its flows partly in step (sync 0.59);
    # the packet engine's, with the same stack fields, 110, every flow
    # losing in each episode (sync 1.00): B0 one grid step apart.
    assert (avrachenkov[avrachenkov["setting"] == "ns3_ack_every"]["n"] == 20).all()
    assert s.loc[20, "ns3_ack_every_B0"] == pytest.approx(100, abs=10)
    assert s.loc[20, "ns3_ack_every_packet_B0"] == pytest.approx(110, abs=10)
    assert s.loc[20, "ns3_ack_every_sync_at_B0"] < s.loc[20, "ns3_ack_every_packet_sync_at_B0"]
    assert s.loc[20, "ns3_ack_every_packet_sync_at_B0"] >= 0.85


def test_avrachenkov_collisions_at_one_packet(avrachenkov):
    # All RTTs are 6 ms, 150 packet times of 40 us, so ACK-clocked packets
    # land on departure instants, each taking the place the departure frees
    # (departures first at equal times): the flows' bursts collide in the
    # 1-packet buffer and they time out.
    det = _det(avrachenkov)
    small = det[det["buffer_pkts"] == 1]
    many = small[small["n"] > 1]
    one = small[small["n"] == 1].iloc[0]
    # One flow alone never times out.
    assert one["packet_timeouts"] == 0
    # N flows time out 141 (N = 5) and 251 times (N = 20) over 40 s (457
    # and 821 over 120 s; 93 at N = 2): at least 100 from N = 5 on.
    assert (many[many["n"] >= 5]["packet_timeouts"] >= 100).all()
    # Their collisions cost the link: 0.5867 and 0.5560 over 40 s (0.5556
    # and 0.5667 over 120 s) against one flow alone's 0.7551, 22-26% less
    # (N = 2, 120 s: 0.7137, 6% less), more than 15% at N >= 5.
    assert (many[many["n"] >= 5]["packet"] < 0.85 * one["packet"]).all()
    assert (many["packet"] < one["packet"]).all()
    # The goodput is still unequal: the largest flow carries 92% (N = 5)
    # and 60% (N = 20) of it over 40 s and most others get under 1% of the
    # link (3 of 4, 16 of 19); over 120 s N = 10 and 20 share more (22%,
    # 11 of 19 starved at N = 20, 1 of 9 at N = 10; N = 2: 92%), so only
    # the largest flow's excess over an equal share is asserted: at least
    # 1.5 times it (measured 1.8 times at N = 2, 2.2 times and more from
    # N = 5).
    assert (many["packet_top_share"] >= 1.5 / many["n"]).all()


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    "headline: Theorem 1's rate on the packet Pareto points": "differs, explained",
    # The paper gives the queue no number: shown beside Theorem 1's.
    "Theorem 1's mean queue on the packet Pareto points": "check",
    # Eq. (12) gives 250 at N = 5 (the paper quotes it) against the packet
    # engine's 140 and ns-2's 140: not a lower bound, as the paper's own 120.
    "headline: the fluid B0 is a lower bound": "differs, explained",
    "headline: the desynchronized B0 falls with N": "agrees",
    "rate at B = 0, N = 5": "differs, unexplained",
    "rate at B = 0, N = 20": "differs, unexplained",
    "B0, N = 5": "differs, explained",
    "B0, N = 5, 200us jitter": "agrees after tuning",
    # ns-2 behind the paper's access links: 120, not the packet engine's 140.
    "B0, N = 20": "differs, unexplained",
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
    "figure 7: the Pareto set": "check",
}


def test_avrachenkov_verdicts(avrachenkov_quick_table):
    c = avrachenkov2006.claims(avrachenkov_quick_table)
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS
    # The tuned claims name the jitter and how it was chosen.
    tuned = c[c["verdict"] == "agrees after tuning"]
    assert tuned["tuning"].str.contains("flows\\[\\].jitter = 200us, picked from").all()


def test_avrachenkov_headline_results(avrachenkov_quick_table):
    # The four headline results, quick (40 s runs), against the paper's own
    # gap between ns-2 and Corollary 1 at no buffer, 75 - 64.4 = 10.6 Mbps.
    t = avrachenkov_quick_table
    c = avrachenkov2006.claims(t).set_index("claim")
    head = c[c["headline"]]
    assert list(head.index) == [k for k in QUICK_VERDICTS if k.startswith("headline: ")]
    assert (head["measured_by"] != "").all()
    assert avrachenkov2006.design.PAPER_GAP_MBPS == pytest.approx(10.6)
    # Theorem 1's rate: 22.6 Mbps off at 1 packet, N = 20 (the collisions
    # without access links); the access-link runs' points 7.8, ns-2's 7.9.
    rate, queue = avrachenkov2006.runs.theorem1_gap(t)
    assert rate == pytest.approx(22.6, abs=1.5)
    assert avrachenkov2006.runs.theorem1_gap(t, "access_links")[0] == pytest.approx(7.8, abs=1.5)
    # The mean queue: the packet engine's median 1.6 times off Theorem 1's,
    # 1.65 at ns-2's buffers, where ns-2 itself reads 1.68.
    assert queue == pytest.approx(1.6, abs=0.2)
    assert avrachenkov2006.runs.theorem1_gap(t, at="ns2")[1] == pytest.approx(1.65, abs=0.2)
    # Eq. (12)'s synchronized B0 (250 and 62.5 at N = 5 and 20) against the
    # packet engine's 140 and 140: 110 above it at N = 5.
    assert head.loc["headline: the fluid B0 is a lower bound", "bufsim"] == -110
    # Delayed ACKs desynchronize: B0 100 -> 80 from N = 5 to 20.
    assert head.loc["headline: the desynchronized B0 falls with N", "bufsim"] == 20
    table = headline_table(avrachenkov2006.claims(t))
    assert list(table.columns) == list(HEADLINE_COLUMNS)
    # ns-2's number beside each: with its own delayed-ACK sink, behind the
    # paper's access links, its B0 falls by 40 packets from N = 5 to 20
    # (the paper's fall is 50), the packet engine's by 20.
    assert table.loc[2, "ns-2.35"] == "40"
    assert "-" not in set(table["ns-2.35"])
    assert headline_counts(avrachenkov2006.claims(t)) == {
        "headline": 3,
        "reproduced": 1,
        "explained by a run": 2,
        "unexplained": 0,
        "tuned or undecided": 0,
    }


def test_ns2_gives_the_packet_engines_b0_not_the_papers(avrachenkov_quick_table):
    # ns-2.35 on the same deterministic flows (no jitter, an ACK per
    # segment) behind the paper's 100 Mbps access links, the same bisection
    # (quick: 40 s runs): B0 = 140 packets at N = 5 and 120 at N = 20,
    # against the packet engine's 140 and 140 (without the access links)
    # and the paper's 120 and 70. At N = 5 the paper's simulator gives the
    # same difference, explained by that run; at N = 20 it lies two grid
    # steps from the packet engine, so that difference stays unexplained.
    if not avrachenkov2006.runs.ns2_available():
        pytest.skip("ns-2 is not installed")
    s = avrachenkov2006.runs.summary(avrachenkov_quick_table).set_index("n")
    assert s.loc[5, "ns2_B0"] == pytest.approx(140, abs=10)
    assert s.loc[20, "ns2_B0"] == pytest.approx(120, abs=5)
    c = avrachenkov2006.claims(avrachenkov_quick_table).set_index("claim")
    for claim in ("B0, N = 5", "B0 falls from N = 5 to 20, deterministic"):
        assert c.loc[claim, "verdict"] == "differs, explained", claim
        assert c.loc[claim, "explained_by"].startswith("ns-2.35"), claim
    assert c.loc["B0, N = 20", "verdict"] == "differs, unexplained"


def test_avrachenkov_claims_and_report(avrachenkov):
    c = avrachenkov2006.claims(avrachenkov).set_index("claim")
    # The paper's values are printed beside bufsim's.
    assert "64.4" in c.loc["rate at B = 0, N = 5", "paper"]
    assert "120 packets" in c.loc["B0, N = 5", "paper"]
    assert c.loc["B0, N = 20, 200us jitter", "bufsim"] == pytest.approx(70, abs=10)
    assert "time out" in c.loc["rate at B = 0, N = 5", "why"]
    from bufsim.report import reproduction_report

    page = reproduction_report("avrachenkov2006", table=avrachenkov)
    for fig in ("fig-pareto", "fig-b0_scan", "fig-b0_error"):
        assert f'id="{fig}"' in page
    assert page.count("<svg") == 3 and "64.4" in page
    # Each finding sits above the figure it explains; setup is Markdown, not reST.
    assert page.index("collide and time out") < page.index('id="fig-pareto"')
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
    # The headline results per paper: 3, 1 reproduced, 2 explained, 0
    # unexplained, 0 tuned or undecided.
    assert "Headline results per paper" in res.output
    assert re.search(r"avrachenkov2006\s+3\s+1\s+2\s+0\s+0", res.output), res.output
    # How many claims ns-2 itself reproduces: of 15 claims (checks left
    # out) it runs 12 and meets the paper on 4; 3 it cannot run.
    if avrachenkov2006.runs.ns2_available():
        assert "how many claims" in res.output
        assert re.search(r"avrachenkov2006\s+15\s+12\s+4\s+3", res.output), res.output
    # The tuned claims are counted as one tuning, and an explained
    # difference names its run.
    flat = " ".join(res.output.split())
    assert "avrachenkov2006: 4 claims rest on 1 tuned parameter: flows[].jitter = 200us" in flat
    assert "Run: ns-2.35, the paper's simulator" in flat
    claims = pd.read_csv(tmp_path / "avrachenkov2006-quick-claims.csv")
    assert len(claims) == len(avrachenkov2006.claims(avrachenkov_quick_table))
