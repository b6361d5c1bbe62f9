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
def test_no_background_follows_the_window_sawtooth(table, buffer_pkts):
    # Paper 000: "a single bottlenecked TCP flow on an empty link with a
    # buffer of only 1 packet should acquire a throughput of 75%". Over its
    # whole congestion cycles (seven in 300 s; their means' spread 0.0004)
    # one flow's window climbs one packet per RTT from (P + B)/2 to P + B
    # (P = 625 packets, the BDP) and the link is full once it passes P: the
    # cycle's mean utilization is f (W0 + P)/(2P) + (1 - f), f = (P - W0)/
    # (P + B - W0), W0 = (P + B)/2: 0.751 (B = 1), 0.773 (B = 20). Tolerance
    # 0.005: the window moves by whole packets. Paper 003's Theorem 1 (0.752
    # and 0.758) cuts the rate, mu + alpha theta at the loss, where the
    # window's rate is mu (1 + B/P): 0.015 lower at 20 packets, and within
    # 2.5% of the run at both.
    p, b = 625.0, float(buffer_pkts)
    w0 = (p + b) / 2
    f = (p - w0) / (p + b - w0)
    sawtooth = f * (w0 + p) / (2 * p) + (1 - f)
    u = table.loc[(1, buffer_pkts, False), "cycles_utilization"]
    assert u == pytest.approx(sawtooth, abs=0.005)
    mu = 50e6 / 8000
    theory = float(m.theorem1(buffer_pkts, mu, float(m.aimd_alpha([0.1])), 0.5)[0]) / mu
    assert u == pytest.approx(theory, rel=0.025)


def test_experiment_file_is_the_embedded_base():
    path = bufsim.examples.path("auge2006")
    assert tomllib.loads(path.read_text()) == auge2006.design.BASE


# ------------------------------------------------------------ figure 5, section V
# The quick versions (120 s per case) run in `make test`, the 300 s ones
# under `slow`; every assertion below holds for both.


@pytest.fixture(scope="module")
def both(reproduction_table):
    """(run() table, section V table) of the same length."""
    t = reproduction_table("auge2006")
    return t, auge2006.runs.section_v(t)


def test_figure5_little_synchronized_loss_and_fair_sharing(both):
    # "Even with only two flows, there is little synchronized loss": both
    # flows lose in 6% (120 s) and 11% (300 s) of the congestion events with
    # a TCP loss with two flows, in none with four ("little" read as <= 25%).
    # "Bandwidth sharing is approximately fair": Jain >= 0.95 (measured
    # 0.97-1.00 with 2 and 4 flows).
    t = both[0].set_index(["flows", "buffer_pkts", "background"])
    assert t.loc[(2, 20, True), "sync_all"] <= 0.25
    assert t.loc[(4, 20, True), "sync_all"] <= 0.25
    for n in (2, 4):
        assert t.loc[(n, 20, True), "jain_index"] >= 0.95


def test_hstcp_leads_newreno_under_fifo_as_loss_per_window_increase_predicts(both):
    # Figure 6 middle: "the Reno connection is unable to compete fairly with
    # the more aggressive HSTCP connection" (625 packets). bufsim differs:
    # HSTCP's mean share over the six seeds is 0.553 +- 0.144 (120 s; seeds
    # 0.32-0.73) and 0.601 +- 0.089 (300 s; 0.49-0.71), below the 2/3 of
    # HSTCP taking twice NewReno's goodput but within the seeds' interval of
    # it: undecided. Why
    # (measured): the flows' self-clocked packets reach the full buffer at
    # the instants departures free a place and take it (departures go first
    # at equal times), so the overflow falls on the Poisson background: in
    # the first seed 1919 background drops against 24 TCP ones (120 s; 5680
    # against 62 in 300 s). Each TCP loss is the second of two packets a
    # window increase sends at once (test_fifo_tcp_drops_are_window_increases),
    # so both flows lose after the same growth and HSTCP's share is
    # increase_loss_share's (2 - b)/(2 + 2b): 0.590 and 0.588 at its mean
    # cwnd of 411 and 390 packets, inside the seeds' interval. HSTCP loses
    # 3-4x as often as NewReno (19 against 5, 48 against 14), as its a(w) of
    # about 4.4 increases per RTT against NewReno's 1 implies.
    v = both[1]
    mix = v.loc["hs1nr1-b625-fifo"]
    w_hs = auge2006.runs.hstcp_mean_cwnd(mix)
    mean, spread = mix["hstcp_share_mean"], mix["hstcp_share_spread"]
    assert abs(mean - m.hstcp_increase_loss_share(w_hs)) <= spread
    assert 0.5 < mean < 0.7 - spread
    (dr_hs, dr_nr), bg = mix["flow_drops"], mix["background_drops"]
    assert bg > 20 * (dr_hs + dr_nr)
    assert dr_hs > 2.5 * dr_nr
    c = auge2006.claims(both[0]).set_index("claim")
    row = c.loc["headline: V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)"]
    # Within the seeds' interval of the mark, the reason measured beside it;
    # ns-2, the paper's simulator, gives the paper's lead on the same seeds
    # (test_ns2_gives_the_same_window_alone_but_the_paper_s_hstcp_lead).
    assert row["verdict"] == "undecided" and "background" in row["why"]


def test_fifo_tcp_drops_are_window_increases():
    # The mechanism behind the FIFO mix's split (above): after the warm-up
    # every TCP packet the 625-packet buffer drops is the second of two that
    # its flow sent at the same instant (cwnd grew by one), the first having
    # taken the place a departure freed at that instant; the background,
    # whose Poisson arrivals fall between departures, takes the other drops
    # (measured: 24 TCP drops, all of them pairs; 1919 background drops).
    s = auge2006.runs.scenario_v("hs1nr1-b625-fifo", "120s")
    s["output"]["trace"] = True
    r = bufsim.simulate(s)
    tr = r.trace[r.trace["time_s"] > r.scenario["warmup_s"]]
    event = tr["event"].astype(str)
    tcp = tr["flow"] >= 0
    drops = tr[event.str.startswith("drop") & tcp]
    sent = set(
        zip(
            tr.loc[(event == "enqueue") & tcp, "time_s"], tr.loc[(event == "enqueue") & tcp, "flow"]
        )
    )
    assert len(drops) > 0
    assert all((t, f) in sent for t, f in zip(drops["time_s"], drops["flow"]))
    assert (event.str.startswith("drop") & ~tcp).sum() > 20 * len(drops)


def test_four_hstcp_flows_take_turns_under_fifo(both):
    # Figure 6 right: "one flow after the other gains a temporary
    # ascendancy": at least two flows hold the largest cwnd for >= 10% of
    # the time (measured 2 in 120 s, 3 in 300 s), and the leader's share of
    # the four windows stands above FQ's even sharing: 0.44 against 0.34 in
    # 120 s, 0.38 against 0.35 in 300 s.
    v = both[1]
    assert v.loc["hs4-b625-fifo", "leaders"] >= 2
    assert v.loc["hs4-b625-fifo", "lead_share"] > v.loc["hs4-b625-fq", "lead_share"] + 0.02
    assert 0.25 <= v.loc["hs4-b625-fq", "lead_share"] < 0.4


def test_hstcp_does_not_beat_newreno_at_20_packets_and_why(both):
    # Figure 6 left says one HSTCP flow "uses bandwidth more efficiently"
    # than Reno at 20 packets; bufsim differs: 0.388 of the residual against
    # NewReno's 0.398 (120 s), 0.417 against 0.421 (300 s). Why (measured):
    # the losses come from background bursts, not from the window reaching
    # the 312-packet pipe (mean cwnd 131-137 for NewReno); HSTCP's faster
    # increase meets them about three times as often (82 drops against 25,
    # 213 against 71) and its window is no larger: median cwnd 123 against
    # 123 (131 against 127 in 300 s), within 5%. Its mean (144, 150) is
    # above NewReno's only through fast recovery's inflation, accounting
    # that is not sent (test_newreno_recovery_inflation_is_accounting_not_sending):
    # one recovery peaks at 1850 packets in the 120 s run. With SACK the two
    # are within 0.05 (0.397 against 0.438, 0.405 against 0.450).
    t = both[0].set_index(["flows", "buffer_pkts", "background"])
    hs, nr = both[1].loc["hs1-b20-fifo"], t.loc[(1, 20, True)]
    assert hs["residual_share"] <= nr["residual_share"]
    assert hs["drops"] > 2 * nr["drops"]
    assert hs["median_cwnd"] == pytest.approx(nr["median_cwnd"], rel=0.05)
    assert nr["mean_cwnd"] < 312 / 2
    assert hs["residual_share_sack"] == pytest.approx(nr["residual_share_sack"], abs=0.05)
    c = auge2006.claims(both[0]).set_index("claim")
    row = c.loc["headline: V.A, 1 HSTCP flow, 20 packets (fig. 6 left)"]
    # The reason is measured; what explains the difference is ns-2, the
    # paper's simulator, giving HSTCP the same share here (where it ran).
    ran = row["ns2"] == row["ns2"]
    assert row["verdict"] == ("differs, explained" if ran else "differs, unexplained")
    assert "background bursts" in row["why"]


def test_fair_queueing_small_buffer_and_background(both):
    # Figure 7 left: "fair queuing barely alleviates the loss in performance
    # due to a very small buffer" (NewReno share within 0.1 of FIFO's;
    # measured within 0.001 in 120 and 300 s) "(it does, however, avoid loss for the
    # non-bottlenecked flows)": no background drop under FQ, over 100 under
    # FIFO.
    t, v = both
    fifo = t.set_index(["flows", "buffer_pkts", "background"]).loc[(1, 20, True), "residual_share"]
    assert v.loc["nr1-b20-fq", "residual_share"] == pytest.approx(fifo, abs=0.1)
    assert (v.loc[v["qdisc"] == "fq", "background_drops"] == 0).all()
    assert (v.loc[v["qdisc"] == "droptail", "background_drops"] > 100).all()


def test_fair_queueing_removes_the_hstcp_bias_but_not_ahead_and_why(both):
    # Figure 7 middle: "fair queuing considerably reduces the bias in favour
    # of HSTCP" (HSTCP share within 0.1 of 0.5, from 0.730 and 0.689 under
    # FIFO: the first seed in 120 and 300 s, whose split is a draw, see
    # MIX_SEEDS).
    # The claims compare the six seeds' means (FQ 0.486, FIFO 0.553 in 120 s).
    # "HSTCP does, however, gain slightly more": bufsim differs (0.48). Why
    # (measured): drop from the longest queue hits HSTCP's queue and its
    # NewReno-style recovery times out more often than NewReno's; with SACK
    # the split is even to 0.01 (both queues stay backlogged, DRR serves them
    # equally).
    v = both[1]
    fq, fifo = v.loc["hs1nr1-b625-fq"], v.loc["hs1nr1-b625-fifo"]
    assert fq["hstcp_share"] == pytest.approx(0.5, abs=0.1)
    assert fifo["hstcp_share"] - fq["hstcp_share"] >= 0.2
    assert fq["hstcp_share"] < 0.5
    (to_hs, to_nr), (dr_hs, dr_nr) = fq["flow_timeouts"], fq["flow_drops"]
    assert to_hs > 2 * to_nr and dr_hs > 2 * dr_nr
    assert fq["hstcp_share_sack"] == pytest.approx(0.5, abs=0.01)


def test_fair_queueing_counters_chaotic_windows_only_with_sack_and_why(both):
    # Figure 7 right: "fair queuing effectively counters the chaotic
    # behaviour" of 4 HSTCP flows. FQ: Jain >= 0.95, and with SACK a cwnd
    # variation lower than FIFO's by >= 2x (measured 3.1 and 2.8). Without
    # SACK bufsim differs: FQ's windows vary more than FIFO's (coefficient
    # of variation 0.649 against 0.406 in 120 s, 0.678 against 0.421 in
    # 300 s). Why (measured): under FIFO the flows' self-clocked packets
    # take the places departures free, so the overflow falls on the Poisson
    # background (4283 background drops against 69 TCP drops, 10988 against
    # 198), while FQ drops from the longest queue, a TCP one: 491 drops and
    # 30 timeouts against FIFO's 7 (1343 and 78 in 300 s), each timeout a
    # fall of cwnd to one packet; SACK removes most of them (4). The paper's
    # "desynchronized loss events due to flow isolation" differs too: under
    # FIFO the flows lose in a third of the congestion events (61 of 184),
    # about one flow at a time (0.279 of them per event with a TCP loss,
    # 0.285 in 300 s), under FQ 0.458 (0.379) of them per event.
    f, q = both[1].loc["hs4-b625-fifo"], both[1].loc["hs4-b625-fq"]
    assert q["jain_index"] >= 0.95 and q["jain_index_sack"] >= 0.95
    assert f["cwnd_cv_sack"] >= 2 * q["cwnd_cv_sack"]
    assert q["cwnd_cv"] > f["cwnd_cv"]
    assert f["background_drops"] > 20 * f["drops"]
    assert q["background_drops"] == 0 and q["drops"] > 5 * f["drops"]
    assert q["timeouts"] >= 3 * f["timeouts"]
    assert q["timeouts_sack"] <= q["timeouts"] / 5
    assert f["tcp_events"] < 0.5 * f["events"]
    assert f["sync_tcp"] < q["sync_tcp"]
    # The chaos claim is explained by a run: SACK, the cause (NewReno-style
    # recovery's timeouts under FQ) removed, meets the paper's 1.5x. The
    # synchronization claim has no such run.
    c = auge2006.claims(both[0]).set_index("claim")
    chaos = c.loc["V.B, 4 HSTCP flows, 625 packets, FQ (fig. 7 right)"]
    assert chaos["verdict"] == "differs, explained" and "SACK" in chaos["explained_by"]
    sync = c.loc["V.B, 4 HSTCP flows: synchronization"]
    assert sync["verdict"] == "differs, unexplained" and "background" in sync["why"]


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    "headline: 100 packets, a reasonable compromise": "agrees",
    # Ten times the link, 600 s quick, both ends of 'one or two hundred' (the
    # lower share): under the compromise's 0.70 beyond the seeds' interval;
    # at full length (3000 s, 5 seeds) 100 packets' 0.657 +- 0.045 leaves it
    # undecided.
    "headline: one or two hundred packets at any capacity": "differs, unexplained",
    # Below rho^n by construction (M/M/1/K blocking): a check.
    "the transparent regime's rho^n loss": "check",
    "headline: FQ damps new flows' slow start": "differs, explained",
    "headline: 1 flow, 20 packets": "agrees",
    "1 flow, 625 packets": "agrees",
    # The paper's expectations with no run of its ("should acquire 75%",
    # "around 80%"): checks of bufsim's sawtooth, 0.751 and 0.773 over whole
    # congestion cycles.
    "1 flow, 1 packet, no background": "check",
    "1 flow, 20 packets, no background": "check",
    "1, 2, 4 flows, 20 packets": "agrees",
    "2 flows, 20 packets: synchronization (fig. 5)": "agrees",
    "2, 4 flows, 20 packets: fairness (fig. 5)": "agrees",
    "headline: V.A, 1 HSTCP flow, 20 packets (fig. 6 left)": "differs, explained",
    # 'Unable to compete' read as HSTCP taking twice NewReno's goodput, 2/3
    # of the two: within the six seeds' interval of it.
    "headline: V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)": "undecided",
    # The leading cwnd's share 0.44 of the four, FQ's 0.34; 2 leaders; but
    # one seed, and FQ's cwnds vary more than FIFO's: no even reference.
    "V.A, 4 HSTCP flows, 625 packets, FIFO (fig. 6 right)": "undecided",
    "V.B, 1 NewReno flow, 20 packets, FQ (fig. 7 left)": "agrees",
    "V.B, background under FQ": "check",
    # The bias 'in favour of HSTCP' is signed: FQ's share 0.486 lies below
    # an even split, FIFO's above it over its whole interval: agrees.
    "headline: V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): bias": "agrees",
    # HSTCP's share 0.486 under FQ, not ahead; ns-2's DRR splits 0.495,
    # nearer the even split (the mark) than the packet engine's number: it
    # all but gives the even split and shows no difference.
    "V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): HSTCP ahead": "differs, unexplained",
    "V.B, 4 HSTCP flows, 625 packets, FQ (fig. 7 right)": "differs, explained",
    "V.B, 4 HSTCP flows: synchronization": "differs, unexplained",
}


def test_ns2_gives_the_same_window_alone_but_the_paper_s_hstcp_lead(quick_table):
    # The paper's own simulator on the same cases (ns-2.35, 120 s): one
    # NewReno flow alone at 20 packets reads 0.700 over the whole window,
    # as the packet engine's 0.702 (the paper: around 0.80; over whole
    # cycles the packet engine reads 0.773, which agrees). The FIFO mix is
    # not: ns-2's HSTCP takes 0.730 of the goodput over the six seeds
    # (0.59-0.82), the paper's "unable to compete", where the packet engine
    # gives 0.553; and ns-2's NewReno at 20 packets with background takes
    # 0.488 of the residual against the packet engine's 0.398. One HSTCP
    # flow at 20 packets: 0.389 in both, not the paper's "more efficiently
    # than Reno", so that difference is the setup's too.
    from bufsim import ns2

    if not ns2.available():
        pytest.skip("ns-2 is not installed")
    table = quick_table("auge2006")
    runs = auge2006.runs.ns2_runs(table)
    assert runs["alone_20"] == pytest.approx(0.70, abs=0.01)
    assert sum(runs["mix_shares"]) / len(runs["mix_shares"]) > 0.7
    assert runs["hs1_residual"] == pytest.approx(0.389, abs=0.02)
    c = auge2006.claims(table).set_index("claim")
    alone = c.loc["1 flow, 20 packets, no background"]
    assert alone["verdict"] == "check"
    hs = c.loc["headline: V.A, 1 HSTCP flow, 20 packets (fig. 6 left)"]
    assert hs["verdict"] == "differs, explained" and hs["ns2_verdict"] == "differs"
    assert "the paper's simulator gives" in hs["explained_by"]
    # ns-2 agrees with the paper on the mix; the packet engine's share lies
    # within its seeds' interval of the mark, ns-2's number beside it.
    mix = c.loc["headline: V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)"]
    assert mix["verdict"] == "undecided" and mix["explained_by"] == ""
    assert mix["ns2"] > 0.7 and mix["ns2_verdict"] == "agrees"


def test_ns2_drr_gives_the_packet_engine_s_fair_queueing(quick_table):
    # Section V.B on the paper's simulator with its own DRR (drop from the
    # longest queue), 120 s: one NewReno flow at 20 packets takes 0.447 of
    # the residual against ns-2's FIFO 0.488 (the packet engine 0.398 and
    # 0.398: FQ "barely alleviates" in both). The HSTCP + NewReno mix
    # splits 0.495 over the six seeds (0.491-0.500; the packet engine
    # 0.486): neither gives HSTCP the paper's slight lead, but ns-2 lies
    # nearer the even split than the packet engine's number, so it explains
    # nothing. A third flow's
    # arrival costs the existing traffic more under DRR than half of what
    # it costs under FIFO over seeds 1-10 (0.96 +- 0.16; the packet engine
    # 1.15 +- 0.49): ns-2 does not damp it to the half the claim reads
    # "considerably" as either, beyond its seed interval.
    from bufsim import ns2

    if not ns2.available():
        pytest.skip("ns-2 is not installed")
    table = quick_table("auge2006")
    runs = auge2006.runs.ns2_runs(table)
    assert runs["fq_nr1_residual"] == pytest.approx(0.447, abs=0.02)
    shares = runs["fq_mix_shares"]
    assert sum(shares) / len(shares) == pytest.approx(0.495, abs=0.005)
    assert max(shares) <= 0.5
    assert auge2006.runs._damping(runs["new_flow"]) == pytest.approx(0.96, abs=0.05)
    assert auge2006.runs._damping_spread(runs["new_flow"], 0.5) == pytest.approx(0.16, abs=0.03)
    c = auge2006.claims(table).set_index("claim")
    ahead = c.loc["V.B, HSTCP + NewReno, 625 packets, FQ (fig. 7 middle): HSTCP ahead"]
    assert ahead["ns2_verdict"] == "differs" and ahead["verdict"] == "differs, unexplained"
    left = c.loc["V.B, 1 NewReno flow, 20 packets, FQ (fig. 7 left)"]
    assert left["ns2_verdict"] == "agrees" and left["ns2"] == pytest.approx(0.447, abs=0.02)
    damp = c.loc["headline: FQ damps new flows' slow start"]
    assert damp["verdict"] == "differs, explained" and damp["ns2_verdict"] == "differs"


def test_auge_verdicts(quick_table):
    # The FIFO mix's mean share (0.553) lies below the 2/3 mark by less than
    # its six-seed interval (0.144): undecided, its reason measured in
    # test_hstcp_leads_newreno_under_fifo_as_loss_per_window_increase_predicts.
    # The lossless background under FQ is by construction (1024 queues) and
    # one flow without background is the paper's arithmetic: checks.
    c = auge2006.claims(quick_table("auge2006"))
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS
    mix = c.set_index("claim").loc[
        "headline: V.A, HSTCP + NewReno, 625 packets, FIFO (fig. 6 middle)"
    ]
    assert mix["spread"] >= auge2006.runs.TWICE - mix["bufsim"] > 0


def test_report_draws_the_papers_figures(both, tmp_path):
    from bufsim.report import reproduction_report
    from conftest import render_in_chromium

    page = reproduction_report("auge2006", table=both[0])
    figs = ("fig3_buffers", "fig4_arrivals", "fig5_flows", "fig6_hstcp_fifo", "fig7_fq")
    for fig in (*figs, "goodput_shares"):
        assert f'id="fig-{fig}"' in page
    assert page.count('class="text explained"') >= 1
    path = tmp_path / "auge2006.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "auge2006")


def test_newreno_recovery_inflation_is_accounting_not_sending():
    # Without SACK, fast recovery inflates cwnd by one segment per duplicate
    # ACK (RFC 6582 section 3.2, RFC 5681 section 3.2 step 4) and NewReno
    # repairs one hole per RTT, so after a burst of drops the HSTCP flow of
    # the HSTCP + NewReno case under FQ (drop from the longest queue, its
    # own: 102 drops in 120 s) peaks at 2508 packets, in 8 stretches above
    # the 937 the path holds (312 residual BDP + 625 buffer). Under FIFO the
    # same flow now inflates only once, in its first slow start (peak 3928,
    # 1.2-2.4 s): the background takes the later drops
    # (test_fifo_tcp_drops_are_window_increases). The inflation must be
    # bounded and must not be sent: while cwnd > 937 the flow puts at most
    # 177 packets per 100 ms RTT into the bottleneck (the pipe's 937 is the
    # bound checked), and the Impatient retransmit timer ends every inflated
    # stretch within 1.1 s (RTO 1 s plus the RTT before the first partial
    # ACK; checked at 2 s).
    s = auge2006.runs.scenario_v("hs1nr1-b625-fq", "120s")
    s["output"]["trace"] = True
    r = bufsim.simulate(s)
    hs = auge2006.runs.recovery_inflation(r, 0)
    assert hs["peak"] > 2000 and hs["stretches"] >= 5
    assert hs["max_sent_inflated"] <= 937.5
    assert hs["longest_s"] <= 2.0


def test_auge_headline_results(quick_table):
    # The 100-packet compromise: the flow gets 0.85 of the residual (quick),
    # above the 0.70 midpoint of the paper's 40% and 100%.
    t = quick_table("auge2006")
    c = auge2006.claims(t).set_index("claim")
    head = c[c["headline"]]
    assert list(head.index) == [k for k in QUICK_VERDICTS if k.startswith("headline: ")]
    assert head.iloc[0]["bufsim"] == pytest.approx(0.85, abs=0.05)
    # Poisson packets alone (fixed 1000 B, 60 s): no loss at 71% with 20
    # packets or at 90% with 100 (bounds 0.00106 and 0.0000266); 0.0018 at
    # 90% with 20, under its bound 0.12 (M/M/1/K: 0.0137).
    tr = t.attrs["transparent"].set_index(["rho", "buffer_pkts"])
    assert tr.loc[(0.71, 20), "loss_rate"] == 0 and tr.loc[(0.9, 100), "loss_rate"] == 0
    assert tr.loc[(0.9, 20), "loss_rate"] == pytest.approx(0.0018, abs=0.0008)
    assert tr.loc[(0.9, 20), "bound"] == pytest.approx(0.1216, abs=0.0001)
    # A third NewReno flow arriving at 40 s (625 packets, seeds 1-10): the
    # existing traffic loses 1561 more packets in the next 10 s under FIFO
    # (most of them the background's), 1798 under FQ (the existing flows',
    # whose queues are the longest): FQ does not damp it here, beyond the
    # seed interval (1.15 +- 0.49 against the mark 0.5).
    hit = auge2006.runs.new_flow_impact(t.attrs["new_flow"])
    assert hit["droptail"] == pytest.approx(1561, abs=100)
    assert hit["fq"] == pytest.approx(1798, abs=100)
    damp = c.loc["headline: FQ damps new flows' slow start"]
    assert damp["bufsim"] == pytest.approx(1.15, abs=0.1)
    assert abs(damp["bufsim"] - 0.5) > damp["spread"] == pytest.approx(0.49, abs=0.05)
    # The conclusion's "one or two hundred packets" for any capacity, on a
    # link ten times the paper's (500 Mbps, 250 Mbps of background): one
    # NewReno flow gets 0.661 of the residual at 200 packets and 0.628 at
    # 100 in 600 s runs, its sawtooth ten times longer than at 50 Mbps.
    cap = t.attrs["capacity"].groupby("buffer_pkts")["residual_share"].mean()
    assert cap[200] == pytest.approx(0.661, abs=0.01)
    assert cap[100] == pytest.approx(0.628, abs=0.01)
    # Both ends of the range: the lower share, 100 packets'.
    assert c.loc["headline: one or two hundred packets at any capacity", "bufsim"] == cap[100]
    # Section IV.B's 20 packets: 0.398 of the residual, the paper's 40%.
    assert c.loc["headline: 1 flow, 20 packets", "bufsim"] == pytest.approx(0.398, abs=0.01)
