"""Reproduction of paper 001 (Barman et al. 2005) sections III-IV against what the paper reports.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import math

import bufsim.models as m
import pytest
from bufsim.reproduce import barman2005


@pytest.fixture(scope="module")
def barman(reproduction_table):
    return reproduction_table("barman2005").set_index("fraction")


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


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    # Figure 3's fixed point against the packet engine: 0.59 off at 2%
    # (quick); ns-2's 20 s runs farther still, so explained by that run.
    "headline: figure 3's model along the curve": "differs, explained",
    "10% of BDP, model": "check",
    "headline: 10% of BDP, packet": "agrees",
    "10% of BDP, fluid": "agrees",
    "20% of BDP, model": "check",
    "headline: 20% of BDP, packet": "agrees",
    "20% of BDP, fluid": "agrees",
    # The fixed point rerun holds 0.968 at 2%: no drop.
    "headline: 2% of BDP, model": "differs, unexplained",
    "headline: 2% of BDP, packet": "agrees",
    "paper 004 figure 5": "check",
    "RED, 10% of BDP, packet (fig. 7)": "differs, unexplained",
    "RED, 10% of BDP, fluid (fig. 7)": "differs, unexplained",
    "RED, 20% of BDP, packet (fig. 7)": "differs, unexplained",
    "RED, 20% of BDP, fluid (fig. 7)": "differs, unexplained",
    "RED, 40% of BDP, packet (fig. 7)": "differs, unexplained",
    "RED, 40% of BDP, fluid (fig. 7)": "differs, unexplained",
    "RED loss rate, packet, buffer >= 10%": "differs, unexplained",
    "RED loss rate, model, buffer >= 10%": "check",
    "drop-tail loss rate, packet, buffer >= 10%": "differs, unexplained",
    "2.5 Gbps, 10% of 6250, model (fig. 4)": "check",
    "2.5 Gbps, 10% of 6250, packet (fig. 4)": "differs, unexplained",
    "2.5 Gbps, 40% of 6250, packet (fig. 4)": "differs, unexplained",
    "RED, 2.5 Gbps, 40% of 6250, packet, Adaptive RED (fig. 8)": "differs, unexplained",
    # The RED fixed point gives 5.8e-6, not the paper's "around 1e-6".
    "RED loss rate, 2.5 Gbps, model": "differs, unexplained",
    "RED loss rate, 2.5 Gbps, packet, Adaptive RED": "differs, unexplained",
    "two HSTCP flows, under-buffered (fig. 5)": "agrees",
    "two HSTCP flows, over-buffered (fig. 6)": "agrees",
    "two HSTCP flows, larger buffer (figs. 5-6)": "differs, unexplained",
}


def test_barman_verdicts(quick_table):
    c = barman2005.claims(quick_table("barman2005"))
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS


def test_barman_closed_form_along_figure3(quick_table):
    # Section II's eq. (3) at each of the five buffer fractions, fed the
    # packet run's window cuts per packet sent (1.2e-5 to 5.2e-5, quick)
    # and its RTT with the mean queue: 0.24-0.73 where the packet engine
    # carries 0.38-1.00. Fed the drop rate (several packets per cut) it
    # reads 0.02-0.12: the closed form's p is one loss per epoch.
    t = quick_table("barman2005").set_index("fraction")
    model = barman2005.runs.closed_form_utilization(t)
    assert list(model.index) == list(barman2005.design.FRACTIONS)
    assert model[0.1] == pytest.approx(0.73, abs=0.08)
    assert model[0.02] == pytest.approx(0.24, abs=0.08)
    drops = barman2005.runs.closed_form_utilization(t, "packet_drop_rate")
    assert (drops < 0.15).all()
    # The headline compares the fixed point Figure 3 plots: 0.97 at 2%
    # against the packet engine's 0.38 (quick), 0.59 off; ns-2 is farther
    # (its 20 s quick runs), so the difference is explained by that run.
    c = barman2005.claims(quick_table("barman2005")).set_index("claim")
    row = c.loc["headline: figure 3's model along the curve"]
    assert row["headline"] and row["bufsim"] == pytest.approx(0.59, abs=0.03)


def test_barman_claims_table_states_every_claim_with_a_verdict(barman, quick):
    # The report's claims table: the paper's statements, each with bufsim's
    # number and a verdict; the headline result first, then 9 of section
    # III: the packet and fluid engines agree, the fixed point and paper
    # 004's figure 5 are checks (the paper's own arithmetic rerun, a
    # property of bufsim), except where the rerun misses the paper: the
    # fixed point holds 0.968 at 2% of the BDP, no "drastic drop".
    c = barman2005.claims(barman.reset_index())
    assert len(c) == (28 if quick else 31)
    assert c["why"].str.len().min() > 20
    assert list(c["headline"]).index(False) == 1
    first = c.iloc[1:10].set_index("claim")["verdict"]
    assert first.pop("headline: 2% of BDP, model") == "differs, unexplained"
    model = first.index.str.contains("model") | (first.index == "paper 004 figure 5")
    # At full length 20% reads 0.954 against "almost 98%", 2-3 points off:
    # undecided.
    agree = first[~model].drop([] if quick else ["headline: 20% of BDP, packet"])
    assert (first[model] == "check").all() and (agree == "agrees").all(), first
    assert quick or first["headline: 20% of BDP, packet"] == "undecided"
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


def test_barman_red_fixed_point_gives_the_papers_loss_rate(barman):
    # Section IV: "The loss rate is 10^-5 for buffer ratio >= 0.1". The RED
    # fixed point (min_th = 0.4 K, max_th = K, max_p = 0.1) gives 9.7e-6 to
    # 1.0e-5 there and, like the drop-tail one, high utilization (0.988 at
    # 10%, 0.994 at 20%).
    big = barman[barman.index >= 0.1]
    assert (abs(big["red_model_loss"].apply(math.log10) + 5) <= 0.05).all()
    assert barman.loc[0.1, "red_model"] == pytest.approx(0.988, abs=0.005)
    assert barman.loc[0.2, "red_model"] == pytest.approx(0.994, abs=0.005)


def test_barman_red_simulation_sits_below_the_red_fixed_point(barman, quick):
    # Figure 7 shows simulation close to the RED fixed point. Here, with
    # simple RED at the paper's thresholds, the packet and fluid engines read
    # 0.83-0.92 at 10% and 20%, 0.07-0.16 under the fixed point: RED's early
    # drops hit most flows in one congestion event (packet sync_mean
    # 0.60-0.74) and the link idles after the common cut. They also sit
    # below the same engines under drop-tail. The packet run's spread over
    # seeds 1-8 (RED's drop draws), quick (60 s): 0.835-0.881 at 10% (up to
    # 0.153 under the fixed point), 0.874-0.916 at 20%; full (200 s, seeds
    # 1-3): 0.862-0.879 and 0.894-0.903. Whether the packet engine takes
    # two arrivals of the same picosecond in one order or the other (its
    # module doc) moves a run within that spread, not the spread. The bound
    # on the gap follows the spread: 0.16 quick, 0.15 full.
    top = 0.16 if quick else 0.15
    for frac in (0.1, 0.2):
        row = barman.loc[frac]
        assert row["red_packet_sync"] >= 0.5
        for source in ("packet", "fluid"):
            gap = row["red_model"] - row[f"red_{source}"]
            assert 0.06 <= gap <= top, (frac, source, gap)
            assert row[f"red_{source}"] < row[source], (frac, source)
    c = barman2005.claims(barman.reset_index()).set_index("claim")
    red = c[c.index.str.contains("fig. 7")]
    assert len(red) == 6 and (red["verdict"] != "agrees").all()
    # The packet claims read the paper's Adaptive RED as ns-2.35 sets it up
    # (min_th 312 and max_th 938 packets at 1 Gbps, whatever the buffer):
    # 0.917 and 0.914 at 10% and 20% quick, 0.915 and 0.918 in 200 s runs,
    # 0.07-0.08 under the fixed point, beyond the 'almost' tolerance (0.03).
    # The fluid with X = 0.3 under simple RED, 0.87 and 0.91, misses the
    # RED fixed point's 0.988 and 0.994 too.
    ared = red.loc["RED, 10% of BDP, packet (fig. 7)"]
    assert ared["bufsim"] == pytest.approx(0.915, abs=0.02)
    # ns-2.35 under the same Adaptive RED (200 s): 0.907 and 0.905, the same
    # difference, which it explains at full length; its 20 s quick runs sit
    # in slow start's aftermath and explain nothing.
    packet = red[red.index.str.contains("packet")]
    want = "differs, unexplained" if quick else "differs, explained"
    assert (packet["verdict"] == want).all(), packet["verdict"]
    assert (red.loc[red.index.str.contains("fluid"), "verdict"] == "differs, unexplained").all()
    for frac in (0.1, 0.2):
        row = barman.loc[frac]
        assert row["red_model"] - row["red_ared_packet"] > 0.03, frac
        assert row["red_model"] - row["red_fluid_x0.3"] > 0.05, frac
    fluid = red[red.index.str.contains("fluid")]
    assert fluid["explained_by"].str.contains(" misses ").all()
    # The report draws Figure 7 (utilization and loss rates under RED).
    from bufsim.report import reproduction_report

    page = reproduction_report("barman2005", table=barman.reset_index())
    assert 'id="fig-red"' in page


def test_barman_loss_rates_against_the_paper(barman, quick):
    # Section III: "in simulations, we find that the loss rate is mostly equal
    # to p_l" (1e-3). The packet engine's drop-tail loss from 10% on is
    # 1.1e-4 to 1.3e-4, an order below p_l (HSTCP at w ~ 1500 packets per
    # flow needs p ~ 1e-5, not p_l, which sets w = w_l = 38): differs.
    # Under the paper's Adaptive RED the packet engine loses 1.6e-5 to
    # 4.4e-5 (quick: 40% in its 60 s run is 0.64 decades off, differs) and
    # 2.1e-5 to 2.6e-5 in 200 s runs, within half a decade of the paper's
    # 1e-5 at every buffer: agrees.
    big = barman[barman.index >= 0.1]
    assert big["packet_drop_rate"].between(5e-5, 3e-4).all()
    assert big["red_ared_packet_drop_rate"].between(1e-5, 6e-5).all()
    c = barman2005.claims(barman.reset_index()).set_index("claim")
    # ns-2.35's drop-tail runs lose 1.2e-4 to 1.5e-4 at full length, as
    # the packet engine does: explained there (its 20 s quick runs are not).
    drop_tail = c.loc["drop-tail loss rate, packet, buffer >= 10%", "verdict"]
    assert drop_tail == ("differs, unexplained" if quick else "differs, explained")
    red = c.loc["RED loss rate, packet, buffer >= 10%", "verdict"]
    assert red == ("differs, unexplained" if quick else "agrees")
    # The fixed point's own loss is the paper's arithmetic rerun: a check.
    assert c.loc["RED loss rate, model, buffer >= 10%", "verdict"] == "check"


def test_barman_25g_fixed_point_agrees_packet_collapses_at_ten_percent(barman, quick):
    # Figure 4 (2.5 Gbps, RTTs 38-142 ms, buffer as a fraction of 6250):
    # the paper reports "similar trends" to figure 3 (> 0.9 at 10%). The
    # M/M/1/K fixed point gives 0.988 at 10% (625 packets); the packet
    # engine 0.42-0.47: 625 packets are 2.2% of the BDP at the 90 ms mean
    # RTT (28,125 packets), where the 1 Gbps case collapses too (2%:
    # 0.32-0.37), ACK-clocked window bursts overflow the buffer at a mean
    # queue of 8-10 packets. From 40% (2500 packets) the packet engine
    # reaches 0.98 once the start's losses are past (the full run's
    # window, 100-200 s: 0.977-0.990 with the shortest RTT moved by up to
    # 0.2 ms); the fluid engine, without bursts, stays near 0.9 at 10%.
    # The quick run's window (25-50 s) still holds the start: 0.887-0.967
    # over the same RTT moves, so it must only clear the collapsed 10%.
    g = barman2005.runs.gbps25(barman).set_index("fraction")
    assert g.loc[0.1, "model"] == pytest.approx(0.988, abs=0.005)
    assert g.loc[0.1, "packet"] < 0.6 and g.loc[0.1, "packet_queue"] < 30
    assert g.loc[0.1, "fluid"] > 0.85
    c = barman2005.claims(barman.reset_index()).set_index("claim")
    if quick:
        assert g.loc[0.4, "packet"] > 0.85
    else:
        assert g.loc[0.4, "packet"] == pytest.approx(0.98, abs=0.02)
        assert c.loc["2.5 Gbps, 40% of 6250, packet (fig. 4)", "verdict"] == "agrees"
    assert c.loc["2.5 Gbps, 10% of 6250, model (fig. 4)", "verdict"] == "check"
    # ns-2.35 runs 2.5 Gbps at full length only, and collapses there too
    # (0.44): explained.
    at_10 = c.loc["2.5 Gbps, 10% of 6250, packet (fig. 4)", "verdict"]
    assert at_10 == ("differs, unexplained" if quick else "differs, explained")
    # Section IV on figure 8: "the loss rate is around 10^-6"; the RED fixed
    # point gives 5.8e-6 to 6.0e-6 (log10 0.75 off: differs).
    assert (g["red_model_loss"].between(5e-6, 7e-6)).all()


def test_barman_paper_adaptive_red_is_ns2s(barman, quick):
    # Section IV: "Adaptive-RED in which min_th and max_th are dynamically
    # adjusted", as ns-2.35 sets it up when a script only turns it on
    # (red.cc initialize_params): min_th = max(5, 5 ms x C / 2), max_th =
    # 3 min_th, w_q = 1 - exp(-1 / (10 rtt C)), rtt = max(0.1 s, 3 (delay +
    # 1/C)); C = 312,500 packets/s at 2.5 Gbps: 781.25, 2343.75, 3.2e-6.
    p = m.ns2_adaptive_red(2.5e9, 0.010)
    assert (p["min_th"], p["max_th"]) == (781.25, 2343.75)
    assert p["w_q"] == pytest.approx(1 - math.exp(-1 / 312_500), rel=1e-9)
    assert m.ns2_adaptive_red(1e9, 0.050)["w_q"] == pytest.approx(
        1 - math.exp(-1 / (10 * 3 * (0.050 + 8e-6) * 125_000)), rel=1e-9
    )
    # At 2.5 Gbps, 10% (625 packets) lies below min_th: no early drop, and
    # the run is the drop-tail run packet for packet. Above it, simple RED
    # at the fixed point's thresholds (w_q = 0.002 per packet, a 1.6 ms
    # average) follows the window bursts across min_th and falls more than
    # 0.1 below Adaptive RED: 0.57 against 0.86 at 40% (quick).
    g = barman2005.runs.gbps25(barman).set_index("fraction")
    assert g.loc[0.1, "red_ared_packet_early_drops"] == 0
    assert g.loc[0.1, "red_ared_packet"] == g.loc[0.1, "packet"]
    frac = 0.4 if quick else 0.2
    assert g.loc[frac, "red_ared_packet"] > g.loc[frac, "red_packet"] + 0.1


def test_barman_two_flows_rtt_unfairness(barman, quick):
    # Figures 5 and 6: two HSTCP flows, RTTs 80 and 42 ms, 1 Gbps. "The
    # unfairness ... is due to difference in RTTs": the 42 ms flow gets
    # 2.8x the 80 ms flow's goodput under-buffered (1000 packets; RTT ratio
    # 1.9), more than the RTTs alone (synchronized losses, HSTCP's
    # w ~ p^-0.835). "A larger bottleneck buffer reduces the unfairness":
    # over-buffered (10,000 packets) 1.9x in the full run (900 s, 300 s
    # warm-up). The ratios themselves are draws: a start-up timeout of one
    # flow or the other decides a run, and with an RTT moved by 1 us the
    # full run reads 1.8-51x under-buffered and 1.08-7.0x over-buffered
    # (the quick run's under-buffered ratio, 100 s: 1.5-13x), so the values
    # are not asserted.
    # What held in all six RTT pairs tried, on this engine and the one
    # before HighSpeed's a(w) moved to the whole window, is the paper's
    # point: the shorter-RTT flow ahead, and less so over the larger buffer.
    t = barman2005.runs.two_flows(barman).set_index("case")
    assert (t["ratio"] > 1.0).all()
    assert t.loc["under-buffered", "utilization"] > 0.95
    if not quick:
        assert t.loc["over-buffered", "ratio"] < t.loc["under-buffered", "ratio"]
        c = barman2005.claims(barman.reset_index()).set_index("claim")
        assert c.loc["two HSTCP flows, larger buffer (figs. 5-6)", "verdict"] == "agrees"


def test_barman_25g_claims_take_ns2s_full_runs(barman):
    # ns-2.35 runs figures 4 and 8 at 2.5 Gbps in the full version only
    # (about 4 CPU minutes per 200 s run): each drop-tail and Adaptive RED
    # claim reads its own case's run, judged by the claim's pass mark;
    # quick, the reason stands in the ns-2 column.
    import pandas as pd
    from bufsim.reproduce import Claims

    g = barman2005.runs.gbps25(barman).set_index("fraction")
    fracs = barman2005.design.FRACTIONS_25
    n = pd.DataFrame(
        [
            {"case": case, "fraction": f, "utilization": u, "drop_rate": 1e-6 * (1 + i)}
            for i, f in enumerate(fracs)
            for case, u in (("droptail25", 0.5 + 0.1 * i), ("red25", 0.9 + 0.02 * i))
        ]
    )
    for quick in (False, True):
        c = Claims()
        barman2005.runs._claims_25g(c, barman, g, n if not quick else n.iloc[:0], quick)
        t = c.table().set_index("claim")
        row = t.loc["2.5 Gbps, 40% of 6250, packet (fig. 4)"]
        red = t.loc["RED, 2.5 Gbps, 40% of 6250, packet, Adaptive RED (fig. 8)"]
        # Simple RED is not the paper's setup: told in the Adaptive RED
        # claim's reason, not judged.
        assert not t.index.str.contains("simple RED").any()
        assert "simple RED" in red["why"]
        if quick:
            assert math.isnan(row["ns2"]) and row["ns2_why"] == barman2005.design.FULL_ONLY
            continue
        # 40% is the third fraction: drop-tail 0.7 (misses 0.98 +- 0.03),
        # Adaptive RED 0.94.
        assert row["ns2"] == pytest.approx(0.7) and row["ns2_verdict"] != "agrees"
        assert red["ns2"] == pytest.approx(0.94)
        loss = t.loc["RED loss rate, 2.5 Gbps, packet, Adaptive RED"]
        # Read where Adaptive RED dropped early, as the packet engine's rate.
        early = g["red_ared_packet_early_drops"]
        acted = [i + 1 for i, f in enumerate(fracs) if f in g.index and early[f] > 0]
        assert acted and loss["ns2"] == pytest.approx(1e-6 * math.prod(acted) ** (1 / len(acted)))
