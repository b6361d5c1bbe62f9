"""Reproductions of papers 001, 002, 003 and 004 against what the papers report.

The quick versions run in `make test`; the full ones are marked slow and run
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from bufsim import report
from bufsim.reproduce import avrachenkov2006, barman2005, dhamdhere2006, kumar2010
from conftest import render_in_chromium


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


def test_barman_claims_table_states_every_claim_with_a_verdict(barman, quick):
    # The report's claims table: the paper's statements above, each with
    # bufsim's number and a verdict (all agree, as the tests above check).
    # The first 8 are section III's (all agree); the RED and loss-rate
    # claims that follow, then the 2.5 Gbps (figures 4 and 8) and two-flow
    # (figures 5 and 6) claims, are checked in the tests below.
    c = barman2005.claims(barman.reset_index())
    assert len(c) == (25 if quick else 31)
    assert set(c.columns) >= {"claim", "paper", "bufsim", "verdict", "why"}
    assert c["why"].str.len().min() > 20
    first = c.iloc[:8]
    assert (first["verdict"] == "agrees").all(), first[first["verdict"] != "agrees"]
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
    assert len(red) == 4 and (red["verdict"] == "differs").all()
    # The report draws Figure 7 (utilization and loss rates under RED).
    from bufsim.report import reproduction_report

    page = reproduction_report("barman2005", table=barman.reset_index())
    assert 'id="fig-red"' in page


def test_barman_loss_rates_against_the_paper(barman):
    # Section III: "in simulations, we find that the loss rate is mostly equal
    # to p_l" (1e-3). The packet engine's drop-tail loss from 10% on is
    # 1.1e-4 to 1.3e-4, an order below p_l (HSTCP at w ~ 1500 packets per
    # flow needs p ~ 1e-5, not p_l, which sets w = w_l = 38): differs.
    # Under RED the packet engine's 3e-5 to 8e-5 is 3-8 times the paper's
    # 1e-5 (differs); the RED fixed point's 1e-5 agrees.
    big = barman[barman.index >= 0.1]
    assert big["packet_drop_rate"].between(5e-5, 3e-4).all()
    assert big["red_packet_drop_rate"].between(2e-5, 1.5e-4).all()
    c = barman2005.claims(barman.reset_index()).set_index("claim")
    assert c.loc["drop-tail loss rate, packet, buffer >= 10%", "verdict"] == "differs"
    assert c.loc["RED loss rate, packet, buffer >= 10%", "verdict"] == "differs"
    assert c.loc["RED loss rate, model, buffer >= 10%", "verdict"] == "agrees"


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
    g = barman2005.gbps25(barman).set_index("fraction")
    assert g.loc[0.1, "model"] == pytest.approx(0.988, abs=0.005)
    assert g.loc[0.1, "packet"] < 0.6 and g.loc[0.1, "packet_queue"] < 30
    assert g.loc[0.1, "fluid"] > 0.85
    c = barman2005.claims(barman.reset_index()).set_index("claim")
    if quick:
        assert g.loc[0.4, "packet"] > 0.85
    else:
        assert g.loc[0.4, "packet"] == pytest.approx(0.98, abs=0.02)
        assert c.loc["2.5 Gbps, 40% of 6250, packet (fig. 4)", "verdict"] == "agrees"
    assert c.loc["2.5 Gbps, 10% of 6250, model (fig. 4)", "verdict"] == "agrees"
    assert c.loc["2.5 Gbps, 10% of 6250, packet (fig. 4)", "verdict"] == "differs"
    # Section IV on figure 8: "the loss rate is around 10^-6"; the RED fixed
    # point gives 5.8e-6 to 6.0e-6 (log10 0.75 off: differs).
    assert (g["red_model_loss"].between(5e-6, 7e-6)).all()


def test_barman_25g_red_average_over_bursts(barman, quick):
    # The open problem of the first attempt (RED packet 0.45-0.49 at 20%
    # against the RED fixed point's 0.987): simple RED's w_q = 0.002 per
    # packet averages over 1.6 ms at 2.5 Gbps, so the average follows the
    # window bursts across min_th. With Adaptive RED's w_q = 1 - exp(-1/C)
    # (a 1 s average; the paper ran Adaptive RED) utilization rises by more
    # than 0.1 where the bursts rule: at 20% in the full run (0.487 to 0.913),
    # at 40% in the 50 s quick run (0.66 to 0.87; after the full run's 100 s
    # warm-up only 0.852 to 0.877). At 10% the 1 s average never reaches
    # min_th, no early drop, and the run is the drop-tail run packet for
    # packet.
    g = barman2005.gbps25(barman).set_index("fraction")
    assert barman2005.ared_w_q(2.5e9) == pytest.approx(3.2e-6, rel=1e-3)
    frac = 0.4 if quick else 0.2
    assert g.loc[frac, "red_ared_packet"] > g.loc[frac, "red_packet"] + 0.1
    assert g.loc[0.1, "red_ared_packet_early_drops"] == 0
    assert g.loc[0.1, "red_ared_packet"] == g.loc[0.1, "packet"]


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
    t = barman2005.two_flows(barman).set_index("case")
    assert (t["ratio"] > 1.0).all()
    assert t.loc["under-buffered", "utilization"] > 0.95
    if not quick:
        assert t.loc["over-buffered", "ratio"] < t.loc["under-buffered", "ratio"]
        c = barman2005.claims(barman.reset_index()).set_index("claim")
        assert c.loc["two HSTCP flows, larger buffer (figs. 5-6)", "verdict"] == "agrees"


# ----------------------------------------------------------------- paper 002


@pytest.fixture(scope="module")
def dhamdhere(quick):
    return dhamdhere2006.run(quick=quick)


def _cases(table):
    """The base cases (no variant, seed 1) by (traffic, buffer_pkts)."""
    base = table[(table["variant"] == "rfc") & (table["seed"] == 1)]
    return {(r.traffic, r.buffer_pkts): r for r in base.itertuples()}


def test_dhamdhere_small_buffer_costs_loss(dhamdhere, quick):
    by = _cases(dhamdhere)
    for t in ("persistent", "closed", "open"):
        # The main point of paper 002: the Stanford buffer costs loss.
        assert by[(t, 18)].loss_rate > 1.4 * by[(t, 500)].loss_rate
        assert by[(t, 500)].utilization > 0.94
    # Open loop at 18 packets: paper "about 12%"; bufsim 12.7-14%.
    assert abs(by[("open", 18)].loss_rate - 0.12) < (0.05 if quick else 0.03)
    # Persistent flows at 500 packets: eq. (3), p = (0.87 N)^2 / (C T + B)^2 with N = 200: 5.4%.
    p3 = (0.87 * 200) ** 2 / (250 + 500) ** 2
    assert abs(by[("persistent", 500)].loss_rate - p3) < 0.02
    # Persistent flows: the number of long flows is ~200 (no more than 200 + mice).
    assert 180 < by[("persistent", 18)].long_flows_mean < 230
    # Every case has finished large flows (persistent flows count as large).
    assert dhamdhere["large_median_throughput_Bps"].notna().all()


def test_dhamdhere_open_loop_buffer_absorbs_bursts_only():
    # Open loop: the buffer absorbs bursts only; loss falls by 5x or more
    # (paper: ~12x). The loss at 500 packets is a few hundred drops and
    # varies by seed (1.4% to 2.6% over seeds 1-3 in 120 s), so the ratio is
    # taken over the mean of three seeds.
    def mean_loss(b):
        return (
            sum(dhamdhere2006.run_case("open", b, 120, seed)["loss_rate"] for seed in (1, 2, 3)) / 3
        )

    assert mean_loss(18) > 5 * mean_loss(500)


def test_dhamdhere_figure1_loss_falls_with_the_buffer(dhamdhere):
    # Figure 1 as a curve: the loss falls from 3 to 1000 packets for every
    # traffic type, slowly (a power law) for persistent flows and the closed
    # loop, to "practically zero" for the open loop (below 1% at 1000
    # packets, 4 BDP), which falls fastest (section 4.3).
    base = dhamdhere[dhamdhere["variant"] == "rfc"]
    loss = base.groupby(["traffic", "buffer_pkts"])["loss_rate"].mean()
    for t in ("persistent", "closed", "open"):
        chain = [loss[(t, b)] for b in (3, 18, 150, 500, 1000)]
        assert all(a > b for a, b in zip(chain, chain[1:])), (t, chain)
    assert loss[("open", 1000)] < 0.01
    for t in ("persistent", "closed"):
        assert loss[(t, 1000)] > 3 * loss[("open", 1000)]
        assert loss[(t, 18)] / loss[(t, 500)] < loss[("open", 18)] / loss[("open", 500)]


def test_dhamdhere_why_persistent_loss_is_not_two_percent(dhamdhere):
    # The paper's "about 2%" at 500 packets contradicts its own eq. (3),
    # which gives 2% only for N = 122; bufsim's loss is eq. (3) fed with the
    # N and the mean queue it measures (within 20%), and delayed ACKs (the
    # b = 2 behind eq. (2)'s constant 0.87) cut it by a third or more.
    by = _cases(dhamdhere)
    p = by[("persistent", 500)]
    assert p.eq3_measured_loss == pytest.approx(p.loss_rate, rel=0.2)
    assert 190 < p.long_flows_mean < 230
    v = dhamdhere.set_index(["traffic", "variant", "buffer_pkts", "seed"])["loss_rate"]
    assert v[("persistent", "delayed_ack", 500, 1)] < 0.67 * p.loss_rate
    # ns-2's 0.2 s minimum RTO raises it instead.
    assert v[("persistent", "min_rto_0.2s", 500, 1)] > p.loss_rate


def test_dhamdhere_persistent_curve_follows_pftk_not_eq3(dhamdhere):
    # Eq. (3) is the square-root law without timeouts: it crosses bufsim's
    # persistent curve near 500 packets and is off by more than 2x at 18
    # (42% vs 8.7%) and at 1000 packets (1.9% vs 4.2%). PFTK with timeouts
    # (T0 = 1 s, an ACK per segment as bufsim), solved for the loss at which
    # the 200 flows fill the link, stays within a factor 1.9 at every buffer
    # from 3 to 1000 packets (1.2-1.8 measured, PFTK below).
    base = dhamdhere[(dhamdhere["variant"] == "rfc") & (dhamdhere["traffic"] == "persistent")]
    curve = base.groupby("buffer_pkts")[["loss_rate", "pftk_loss", "eq3_loss"]].mean()
    ratio = curve["loss_rate"] / curve["pftk_loss"]
    assert ratio.between(1.0, 1.9).all(), ratio
    eq3 = curve["eq3_loss"] / curve["loss_rate"]
    assert eq3[18] > 2 and eq3[1000] < 0.5, eq3
    # With delayed ACKs (b = 2, eq. (2)'s 0.87) the same fixed point gives
    # the paper's "about 2%" at 500 packets within a point (2.6%).
    assert curve.loc[500, "loss_rate"] > 0.04
    assert dhamdhere2006.pftk_loss(500, b=2.0) == pytest.approx(0.02, abs=0.01)


def test_dhamdhere_why_open_loop_large_flows_are_ten_times_faster(dhamdhere):
    # Paper: median large-flow throughput ~15,000 bytes/s at B_l, and ~70% of
    # large flows lossless there. bufsim: 70-81% lossless (agrees), and no
    # lossless large transfer is as slow as 15,000 bytes/s (a 100 KB transfer
    # from the farthest node with a full queue needs 8 RTTs of 0.65 s: 19 kB/s),
    # so the median is 5x or more the paper's; the open loop has only 10-25
    # long flows at B_l where the paper reports 200.
    by = _cases(dhamdhere)
    o = by[("open", 500)]
    assert 0.6 <= o.large_no_loss_fraction <= 0.85
    assert o.lossless_large_min_Bps > 15_000
    assert o.large_median_throughput_Bps > 5 * 15_000
    assert o.long_flows_mean < 50 < by[("open", 18)].long_flows_mean
    # The paper's 15 kB/s would need about 230 large flows in progress (58% of
    # the bytes); bufsim's open loop has 20-30 at B_l. Mice (3-25 packets of
    # 1500 B) are never large: the persistent runs count exactly their 200.
    assert o.large_flows_mean < 50
    assert by[("persistent", 500)].large_flows_mean == 200
    # The floor, by hand: 67 packets (100.5 KB) need the handshake and
    # ceil(log2(68)) = 7 rounds, 8 x (0.53 + 0.12) s = 5.2 s: 19,327 B/s.
    assert dhamdhere2006.slow_start_floor_Bps(67, 0.53) == pytest.approx(100_500 / 5.2)
    # Every lossless large transfer at B_l beats its own floor.
    f = dhamdhere2006.case_flows("open", 500, float(dhamdhere["duration_s"].iloc[0]), 1)
    ok = f[(f["finished"] == 1.0) & (f["large"] == 1.0) & (f["drops"] == 0)]
    floor = dhamdhere2006.slow_start_floor_Bps(ok["size_pkts"], ok["rtt_s"])
    assert len(ok) > 500 and (ok["throughput_Bps"] >= floor).all()


def test_dhamdhere_closed_loop_utilization_lost_to_timeouts(dhamdhere):
    # "almost 100%" utilization: the closed loop at 18 packets keeps 0.90;
    # ns-2's 0.2 s minimum RTO (instead of RFC 6298's 1 s) gives back 3 points
    # or more: flows with 1-3 packet windows sit out their timeouts.
    by = _cases(dhamdhere)
    v = dhamdhere.set_index(["traffic", "variant", "buffer_pkts", "seed"])["utilization"]
    assert 0.85 < by[("closed", 18)].utilization < 0.95
    assert v[("closed", "min_rto_0.2s", 18, 1)] > by[("closed", 18)].utilization + 0.03
    assert by[("persistent", 18)].utilization > 0.97


def test_dhamdhere_open_loop_small_buffer_median_is_set_by_timeouts(quick):
    # Open loop, large flows, B = 18: the paper's median is 10,000 bytes/s,
    # bufsim's 24-30 kB/s. The median large transfer sees 3 timeouts (2-4
    # allowed); throughput falls with each timeout, and the paper's 10 kB/s
    # is below the median of every class: those with at most 4 timeouts read
    # 18 kB/s and more (checked at 1.5x the paper's value), the 5+ class
    # comes nearest (15 kB/s in 120 s, 13 kB/s in 600 s). Little's law: the
    # large transfers' bytes over their time in the system is 17-23 kB/s,
    # and the median sits above it (1.3-1.4x) where the paper's value would
    # sit below (0.4-0.6x).
    f = dhamdhere2006.case_flows("open", 18, 120.0 if quick else 600.0)
    g = f[(f["finished"] == 1.0) & (f["large"] == 1.0)]
    assert 2 <= g["timeouts"].median() <= 4
    by = g.groupby(g["timeouts"].clip(upper=5))["throughput_Bps"].median()
    assert (by.diff().dropna() < 0).all()
    assert by.loc[:4].min() > 15_000 and 10_000 < by.loc[5] < 20_000
    mean_rate = g["bytes"].sum() / g["fct_s"].sum()
    assert 15_000 < mean_rate < 25_000
    assert 1.1 < g["throughput_Bps"].median() / mean_rate < 1.6


def test_dhamdhere_bad_case_names_the_argument():
    with pytest.raises(ValueError, match="traffic must be one of persistent, closed, open"):
        dhamdhere2006.scenario("bursty", 18)
    with pytest.raises(ValueError, match="variant_name must be one of rfc, delayed_ack"):
        dhamdhere2006.scenario("open", 18, variant_name="cubic")
    # A variant sets its fields in every flow group (persistent flows and mice).
    s = dhamdhere2006.scenario("persistent", 18, 10, variant_name="delayed_ack")
    assert [g["delayed_ack"] for g in s["flows"]] == [True, True]
    assert s["name"] == "dhamdhere2006-persistent-B18-delayed_ack"


def test_dhamdhere_claims_and_report(dhamdhere, tmp_path):
    c = dhamdhere2006.claims(dhamdhere).set_index("claim")
    assert set(c.columns) >= {"paper", "bufsim", "tolerance", "verdict", "why"}
    assert c["why"].str.len().min() > 20
    # The statements bufsim reproduces ...
    for claim in (
        "eq. (3): persistent, B = 500",
        "figure 1: how fast loss falls",
        "utilization: persistent, B = 18",
        "N long flows: persistent",
        "figure 4: closed loop, large flows",
        "figure 6: open loop",
        "figure 7: open loop, large flows, B = 500",
        "figure 7: open loop, large flows, B = 18",
    ):
        assert c.loc[claim, "verdict"] == "agrees", (claim, c.loc[claim].to_dict())
    # Open loop at 18 packets: 12.7% in 120 s (agrees), 13.6% over 600 s and
    # three seeds (1.6 points above the paper's 12%: differs), the population
    # wandering near the loop's capacity; the reason says so either way.
    o18 = c.loc["figure 1: open, B = 18"]
    assert o18["bufsim"] == pytest.approx(0.12, abs=0.03) and "population" in o18["why"]
    # ... and those it does not, each with its investigated reason.
    for claim, needle in (
        ("figure 1: persistent, B = 500", "eq. (3)"),
        ("figure 1: closed, B = 18", "delayed ACKs"),
        ("figure 6: open loop, large flows, B = 500", "statements conflict"),
        ("utilization: closed, B = 18", "minimum RTO"),
        ("figure 6: open loop, large flows, B = 18", "timeouts set it"),
    ):
        assert c.loc[claim, "verdict"] == "differs", (claim, c.loc[claim].to_dict())
        assert needle in c.loc[claim, "why"], claim
    from bufsim.report import reproduction_report

    page = reproduction_report("dhamdhere2006", table=dhamdhere)
    for fig in ("loss_vs_buffer", "throughput_open", "loss_persistent"):
        assert f'id="fig-{fig}"' in page
    assert page.count('class="text agrees"') >= 9 and 'class="text differs"' in page
    path = tmp_path / "dhamdhere2006.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "dhamdhere2006")


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
def kumar_table(quick):
    return kumar2010.run(quick=quick)


@pytest.fixture(scope="module")
def kumar(kumar_table):
    return kumar2010.pivot(kumar_table)


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


def test_kumar_aimd_sync_closed_form():
    # Synchronized halvings, buffer f x BDP: the aggregate window climbs from
    # (1 + f) / 2 to 1 + f. f = 0: the classic 3/4; f = 0.05: 0.785 (hand:
    # a = 0.525, ((1 - 0.2756) / 2 + 0.05) / 0.525 = 0.7851).
    assert kumar2010.aimd_sync_utilization(0.0) == pytest.approx(0.75, abs=1e-12)
    assert kumar2010.aimd_sync_utilization(0.05) == pytest.approx(0.7851, abs=1e-4)
    assert kumar2010.aimd_sync_utilization(1.0) == 1.0


def test_kumar_aimd_follows_the_synchronized_sawtooth_not_the_paper(kumar):
    # Paper 004 figure 6(c): AIMD "more than 90% even for 5% of BDP" at X = 1.
    # bufsim: 0.808 (quick) / 0.816 (full), within 0.05 of the closed form
    # 0.785 and below the paper's 90%.
    u = kumar.loc[0.05, ("aimd", 1.0)]
    assert abs(u - kumar2010.aimd_sync_utilization(0.05)) < 0.05
    assert u < 0.9


def test_kumar_choices_measured(kumar_table):
    t = kumar_table

    def u(case, variant, x, frac=0.05):
        return kumar2010._u(t, variant, x, frac, case)

    # eq. (1) literally (decrease = "rate") cuts for every packet's worth of
    # lost fluid: HighSpeed falls from 0.98-1.0 to below 0.7 at 5%.
    for x in kumar2010.SYNC:
        assert u("default", "highspeed", x) > 0.95
        assert u("eq. (1) rate decrease", "highspeed", x) < 0.7
    # CUBIC has no rate form; the case is absent rather than wrong.
    assert math.isnan(u("eq. (1) rate decrease", "cubic", 0.3))
    # The m_k draw and policy only matter below X = 1: at X = 1 every flow
    # loses and the runs are identical.
    for v in kumar2010.VARIANTS:
        for case in ("m_k = ceil(XN)", "m_k sd 0.5 N", "random flows lose"):
            assert u(case, v, 1.0) == pytest.approx(u("default", v, 1.0), abs=1e-12)
    # The 4 ms default step agrees with 1 ms within 0.005 at X = 1; below,
    # the step moves the congestion events and so the m_k draws: within 0.02
    # (AIMD at X = 0.3, 2 seeds: 0.899 against 0.911).
    for v in kumar2010.VARIANTS:
        for x in kumar2010.SYNC:
            tol = 0.005 if x == 1.0 else 0.02
            assert u("step 1 ms", v, x) == pytest.approx(u("default", v, x), abs=tol)
    # Slow start ends at the first congestion event, 1.2-1.5 s into every run.
    first = t.loc[t["case"] == "default", "first_congestion_s"]
    assert first.between(1.2, 1.5).all()


def test_kumar_claims_and_report(kumar_table, tmp_path):
    c = kumar2010.claims(kumar_table).set_index("claim")
    assert set(c.columns) >= {"paper", "bufsim", "tolerance", "verdict", "why"}
    assert c["why"].str.len().min() > 60
    for claim in (
        "6(a): HSTCP at 5% of BDP",
        "6(a), 6(c): lower X, HSTCP and AIMD",
        "6(b): HSTCP above CUBIC",
        "6(b): CUBIC above 20% of BDP",
        "6(d): H-TCP at 5% of BDP",
        "section III: measured from the first congestion event",
    ):
        assert c.loc[claim, "verdict"] == "agrees", (claim, c.loc[claim].to_dict())
    # The orderings the paper reports and bufsim does not, each with its
    # measured reason: CUBIC above 90% at 5% for every X (0.92 at X = 1),
    # AIMD below CUBIC, and X mattering as much for CUBIC and H-TCP.
    for claim, needle in (
        ("6(c): AIMD at 5% of BDP", "closed form"),
        ("6(b): CUBIC at 5% of BDP", "alpha_cubic"),
        ("6(c): AIMD above CUBIC", "cut"),
        ("6(c): AIMD comparable to HSTCP", "one packet per RTT"),
        ("section V: X matters little for CUBIC and H-TCP", "m_k"),
    ):
        assert c.loc[claim, "verdict"] == "differs", (claim, c.loc[claim].to_dict())
        assert needle in c.loc[claim, "why"], claim
    assert c.loc["6(b): CUBIC at 5% of BDP", "bufsim"] > 0.95
    assert c.loc["6(c): AIMD above CUBIC", "bufsim"] < -0.05
    from bufsim.report import reproduction_report

    page = reproduction_report("kumar2010", table=kumar_table)
    for fig in (
        "fig6a_highspeed",
        "fig6b_cubic",
        "fig6c_aimd",
        "fig6d_htcp",
        "choices",
        "calibrated",
        "calibrated_series",
    ):
        assert f'id="fig-{fig}"' in page
    # The calibrated comparison's table is a section of its own.
    assert 'id="calibrated"' in page and "fluid_cal" in page
    assert page.count('class="text agrees"') >= 6 and 'class="text differs"' in page
    path = tmp_path / "kumar2010.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "kumar2010")


def test_kumar_cli_writes_the_calibrated_table(kumar_table, quick, monkeypatch, tmp_path):
    # `bufsim reproduce kumar2010` prints and writes the calibrated
    # comparison beside the main table (the fixture's table stands in).
    from bufsim.cli import app
    from typer.testing import CliRunner

    monkeypatch.setattr(kumar2010, "run", lambda quick, progress: kumar_table)
    args = ["reproduce", "kumar2010", "--out", str(tmp_path)] + (["--quick"] if quick else [])
    res = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "Fluid calibrated by packet" in res.output
    written = pd.read_csv(tmp_path / f"kumar2010{'-quick' if quick else ''}-calibrated.csv")
    pd.testing.assert_frame_equal(
        written, kumar2010.calibrated(kumar_table).reset_index(drop=True), check_dtype=False
    )


@pytest.fixture(scope="module")
def kumar_cal(kumar_table):
    return kumar2010.calibrated(kumar_table)


def test_kumar_calibrated_x_is_a_minimum(kumar_cal):
    # Fluid calibrated by packet: X = the packet run's sync_mean. Paper 004
    # eq. (8) makes X a minimum (m_k >= ceil(X N)), so the fluid's own
    # measured sync at that X is at least X (exactly: every event draws
    # whole flows), and at least the packet's; X matched on the measured
    # sync is at most the packet's sync_mean and its fluid sync lies within
    # 0.1 (one flow of ten) of the packet's.
    t = kumar_cal[kumar_cal["packet_sync"].notna()]
    assert len(t) >= 2
    assert (t["packet_sync"].between(0.1, 1.0)).all()
    assert (t["x_matched"] <= t["x_cal"] + 1e-9).all()
    # (A fluid run without a congestion event after the warm-up has no
    # measured sync: NaN, left out.)
    assert (t["fluid_cal_sync"].dropna() >= t["x_cal"][t["fluid_cal_sync"].notna()] - 1e-9).all()
    assert ((t["fluid_matched_sync"] - t["packet_sync"]).abs().dropna() <= 0.1).all()
    # Runs without a congestion event after the warm-up have nothing to
    # calibrate with: their calibrated columns are empty, not invented.
    none = kumar_cal[kumar_cal["packet_sync"].isna()]
    assert (none["packet_events"] == 0).all() and none["fluid_cal"].isna().all()


def test_kumar_calibrated_agrees_only_where_bursts_fit(kumar_table, kumar_cal, quick):
    if quick:
        # The quick version (5% of BDP, 30 s, 10 s warm-up) cannot say
        # whether the calibrated fluid agrees with the packet engine: the
        # packet runs are still filling the pipe (slow start's overshoot
        # leaves the windows at a third of it, 3-9 timeouts), 0.34-0.45
        # against the fluid's 0.62-1.00, whose slow start ends at 1.3-1.5 s.
        # What it asserts is that.
        t = kumar_cal.set_index("variant")
        assert (t["packet"] < 0.5).all() and t["packet_fill_s"].isna().all()
        assert (t["packet_late"] < 0.6).all() and (t["packet_timeouts"] >= 3).all()
        for x in kumar2010.SYNC:
            assert t.loc["highspeed", f"fluid_x{x:g}"] > 0.95
            assert (t[f"fluid_x{x:g}"] > t["packet"] + 0.2).all()
        return
    # The full version: 600 s runs (100 s warm-up) at 1%, 5% and 20% of BDP.
    t = kumar_cal.set_index(["variant", "fraction"])
    tol = kumar2010.CALIBRATED_TOL  # 0.03 utilization
    # 20%: the calibrated fluid meets the packet engine within 0.005
    # (HSTCP 1.000/1.000, CUBIC 0.990/0.994, H-TCP 0.919/0.924); the packet
    # flows synchronize strongly (sync_mean 0.83-0.96 at 5% and 20%), and
    # the paper's X = 0.3 would lift H-TCP to 1.000.
    for v in ("highspeed", "cubic", "htcp"):
        assert abs(t.loc[(v, 0.2), "fluid_cal"] - t.loc[(v, 0.2), "packet"]) <= tol, v
        for f in (0.05, 0.2):
            assert t.loc[(v, f), "packet_sync"] >= 0.8, (v, f)
    assert t.loc[("htcp", 0.2), "fluid_x0.3"] > t.loc[("htcp", 0.2), "packet"] + 0.05
    # 5%: HSTCP agrees (0.965/0.990); CUBIC and H-TCP are 0.15-0.17 below
    # the fluid, still filling and losing at a mean queue under 5% of the
    # buffer (205-232 of 7083 packets): bursts.
    assert (
        abs(t.loc[("highspeed", 0.05), "fluid_cal"] - t.loc[("highspeed", 0.05), "packet"]) <= tol
    )
    for v in ("cubic", "htcp"):
        r = t.loc[(v, 0.05)]
        assert r["fluid_cal"] - r["packet"] > 0.1 and r["packet_queue"] < 0.05 * r["buffer_pkts"]
        assert r["packet_late"] > r["packet"] + 0.02
    # 1%: packet 0.28-0.54 against 0.82-0.95, flat (second half within
    # 0.03), at a mean queue under 25 of 1417 packets: a burst-loss steady
    # state. HSTCP's 0.54 (queue 22) is the top: on the scenario's RTT
    # lattice (80-260 ms in even steps); with the shortest RTT moved by
    # 0.1-0.2 ms it reads 0.33-0.34 (queue 10-11).
    one = kumar_cal[kumar_cal["fraction"] == 0.01]
    assert (one["packet"] < 0.6).all() and (one["fluid_cal"] > 0.8).all()
    assert (one["fluid_cal"] - one["packet"] > 0.3).all()
    assert ((one["packet_late"] - one["packet"]).abs() < 0.03).all()
    assert (one["packet_queue"] < 25).all()
    # AIMD climbs from slow start's overshoot at 0.063 of the link per 100 s:
    # no congestion event at 5% and 20% within 600 s, nothing to calibrate.
    for f in (0.05, 0.2):
        assert t.loc[("aimd", f), "packet_events"] == 0
        assert 0.5 < t.loc[("aimd", f), "packet"] < t.loc[("aimd", f), "packet_late"] < 0.9
    c = kumar2010.claims(kumar_table).set_index("claim")
    assert c.loc["fluid calibrated by packet, 20% of BDP", "verdict"] == "agrees"
    for f in ("1%", "5%"):
        assert c.loc[f"fluid calibrated by packet, {f} of BDP", "verdict"] == "differs"
    assert c.loc["packet engine's synchronization", "verdict"] == "differs"


# ----------------------------------------------------------------- all papers


def test_reproductions_on_one_page(barman, avrachenkov, kumar_table, quick, tmp_path):
    # `bufsim reproduce all` writes one report: here three reproductions'
    # tables (computed above) on one page, every figure and section id
    # prefixed by its paper so none collides, opened in headless Chromium.
    tables = {
        "barman2005": barman.reset_index(),
        "avrachenkov2006": avrachenkov,
        "kumar2010": kumar_table,
    }
    page = report.reproductions_report(tables, quick=quick)
    ids = re.findall(r'<div class="figure" id="([^"]+)"', page)
    for name in tables:
        assert any(i.startswith(f"fig-{name}-") for i in ids), (name, ids)
        assert f'id="{name}-claims"' in page and f'id="{name}-setup"' in page
    assert len(ids) == len(set(ids))
    path = tmp_path / "all.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "all")
