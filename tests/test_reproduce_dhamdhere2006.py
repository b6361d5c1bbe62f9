"""Reproduction of paper 002 (Dhamdhere & Dovrolis 2006) section 4 against what the paper reports.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import bufsim.models as m
import numpy as np
import pandas as pd
import pytest
from bufsim.reproduce import dhamdhere2006
from conftest import render_in_chromium


@pytest.fixture(scope="module")
def dhamdhere(reproduction_table):
    return reproduction_table("dhamdhere2006")


def _cases(table):
    """The base cases (no variant, seed 1) by (traffic, buffer_pkts)."""
    base = table[(table["variant"] == "rfc") & (table["seed"] == 1)]
    return {(r.traffic, r.buffer_pkts): r for r in base.itertuples()}


def test_dhamdhere_small_buffer_costs_loss(dhamdhere, quick):
    by = _cases(dhamdhere)
    for t in ("persistent", "closed", "open"):
        assert by[(t, 500)].utilization > 0.94
    for t in ("closed", "open"):
        # The main point of paper 002: the Stanford buffer costs loss
        # (closed 11.0% against 6.9%, open 12.7% against 2.5% in 120 s).
        assert by[(t, 18)].loss_rate > 1.4 * by[(t, 500)].loss_rate
    # Persistent flows lose more at B_s too, but far less than the paper's
    # 7-8% against 2% (3.75x) or eq. (3)'s 42% against 5.4% (7.8x): timeouts
    # set their loss at every buffer, and PFTK with timeouts (the fixed point
    # of test_dhamdhere_persistent_curve_follows_pftk_not_eq3) falls 1.65x
    # from 18 to 500 packets (6.7% to 4.1%); bufsim 6.9% to 5.8% (1.19x in
    # 120 s, 1.18x in 600 s, 1.21x over seeds 1-3), flatter still, as its B_l loss
    # sits 1.4x above PFTK's (with 1 Gbps access links 6.95% against 5.7%).
    p = by[("persistent", 18)].loss_rate / by[("persistent", 500)].loss_rate
    assert 1.1 < p < dhamdhere2006.runs.pftk_loss(18) / dhamdhere2006.runs.pftk_loss(500), p
    # Open loop at 18 packets: paper "about 12%"; bufsim 12.7-14%.
    assert abs(by[("open", 18)].loss_rate - 0.12) < (0.05 if quick else 0.03)
    # Persistent flows at 500 packets: eq. (3), p = (0.87 N)^2 / (C T + B)^2 with N = 200: 5.4%.
    p3 = (0.87 * 200) ** 2 / (250 + 500) ** 2
    assert abs(by[("persistent", 500)].loss_rate - p3) < 0.02
    # Persistent flows: the long flows are the 200 persistent ones plus the
    # mice out of slow start, so no more than 200 + the mice in progress
    # (time-averaged over the window). At B_s: 248 against 200 + 61 in 120 s;
    # the mice lose 21% of their packets there, time out 1.7 times each
    # (mean FCT 4.1 s) and 79% leave slow start; 1 Gbps access links give
    # 238.
    d = float(dhamdhere["duration_s"].iloc[0])
    f = dhamdhere2006.runs.case_flows("persistent", 18, d, 1)
    mice = f[f["size_pkts"].notna()]
    start = mice["start_s"].clip(lower=30.0)
    end = mice["end_s"].fillna(30.0 + d).clip(upper=30.0 + d)
    in_progress = float((end - start).clip(lower=0).sum() / d)
    assert 180 < by[("persistent", 18)].long_flows_mean < 200 + in_progress, in_progress
    # Every case has finished large flows (persistent flows count as large).
    assert dhamdhere["large_median_throughput_Bps"].notna().all()


def test_dhamdhere_open_loop_buffer_absorbs_bursts_only():
    # Open loop: the buffer absorbs bursts only; loss falls by 5x or more
    # (paper: ~12x). The loss at 500 packets is a few hundred drops and
    # varies by seed (1.4% to 2.6% over seeds 1-3 in 120 s), so the ratio is
    # taken over the mean of three seeds.
    def mean_loss(b):
        return (
            sum(
                dhamdhere2006.runs.run_case("open", b, 120, seed)["loss_rate"] for seed in (1, 2, 3)
            )
            / 3
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
    # (42% vs 6.9%) and at 1000 packets (1.9% vs 4.4%). PFTK with timeouts
    # (T0 = 1 s, an ACK per segment as bufsim), solved for the loss at which
    # the 200 flows fill the link, meets bufsim within 10% from 18 to 72
    # packets (loss / PFTK 0.97-1.03 in 120 s, 0.99-1.04 over 600 s and
    # three seeds) and lies below it elsewhere, within a factor 1.9 at every
    # buffer from 3 to 1000 packets (1.25-1.72 at 3-12 packets, 1.08-1.82 at
    # 150-1000); with 1 Gbps access links 0.98 at 36 as well.
    base = dhamdhere[(dhamdhere["variant"] == "rfc") & (dhamdhere["traffic"] == "persistent")]
    curve = base.groupby("buffer_pkts")[["loss_rate", "pftk_loss", "eq3_loss"]].mean()
    ratio = curve["loss_rate"] / curve["pftk_loss"]
    assert ratio.loc[18:72].between(0.9, 1.1).all(), ratio
    assert ratio.drop([18, 36, 72]).between(1.0, 1.9).all(), ratio
    eq3 = curve["eq3_loss"] / curve["loss_rate"]
    assert eq3[18] > 2 and eq3[1000] < 0.5, eq3
    # With delayed ACKs (b = 2, eq. (2)'s 0.87) the same fixed point gives
    # the paper's "about 2%" at 500 packets within a point (2.6%).
    assert curve.loc[500, "loss_rate"] > 0.04
    assert dhamdhere2006.runs.pftk_loss(500, b=2.0) == pytest.approx(0.02, abs=0.01)


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
    assert m.slow_start_floor_Bps(67, 0.53) == pytest.approx(100_500 / 5.2)
    # Every lossless large transfer at B_l beats its own floor.
    f = dhamdhere2006.runs.case_flows("open", 500, float(dhamdhere["duration_s"].iloc[0]), 1)
    ok = f[(f["finished"] == 1.0) & (f["large"] == 1.0) & (f["drops"] == 0)]
    floor = m.slow_start_floor_Bps(ok["size_pkts"], ok["rtt_s"])
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
    f = dhamdhere2006.runs.case_flows("open", 18, 120.0 if quick else 600.0)
    g = f[(f["finished"] == 1.0) & (f["large"] == 1.0)]
    assert 2 <= g["timeouts"].median() <= 4
    by = g.groupby(g["timeouts"].clip(upper=5))["throughput_Bps"].median()
    assert (by.diff().dropna() < 0).all()
    assert by.loc[:4].min() > 15_000 and 10_000 < by.loc[5] < 20_000
    mean_rate = g["bytes"].sum() / g["fct_s"].sum()
    assert 15_000 < mean_rate < 25_000
    assert 1.1 < g["throughput_Bps"].median() / mean_rate < 1.6


def test_dhamdhere_open_loop_small_buffer_median_follows_littles_law(dhamdhere):
    # Open loop, B = 18: the large transfers' bytes over their time in the
    # system is their goodput over the number in progress (Little's law),
    # within 15% (transfers already running at the warm-up are not in the
    # table, so the first seconds undercount the population: 12% in 120 s,
    # 2% in 600 s). The median is k = 1.2-1.5 times that rate in every seed
    # and variant run (delayed ACKs, 0.2 s minimum RTO; 1.1-1.6 allowed) and
    # in every fifth of the run. The population wanders between the fifths
    # (their mean rate G_L / N_L spans 1.26-1.68x over seeds 1-3, 120 and
    # 600 s) and the median follows it: the slope of log median against log
    # mean rate over the fifths exceeds 1/2, that is k varies less than the
    # median (var log k < var log median), measured 0.71-1.05 in 120 s
    # (seeds 1-3) and 1.29 in 600 s. How far the window medians themselves
    # move is the sample path's: 1.25x in this run (the population 1.35x),
    # 1.49x with 1 Gbps access links, 1.63-1.87x with seeds 2 and 3.
    d = float(dhamdhere["duration_s"].iloc[0])
    f = dhamdhere2006.runs.case_flows("open", 18, d, 1)
    rate = dhamdhere2006.runs.large_mean_rate_Bps(f)
    rows = dhamdhere[(dhamdhere["traffic"] == "open") & (dhamdhere["buffer_pkts"] == 18)]
    seed1 = rows[(rows["variant"] == "rfc") & (rows["seed"] == 1)].iloc[0]
    assert seed1.large_mean_rate_Bps == rate
    little = seed1.large_goodput_Bps / dhamdhere2006.runs.large_in_progress(f, d)
    assert little == pytest.approx(rate, rel=dhamdhere2006.design.LITTLE_TOL)
    k = rows["large_median_throughput_Bps"] / rows["large_mean_rate_Bps"]
    assert len(k) >= 3 and k.between(1.1, 1.6).all(), k
    w = dhamdhere2006.runs.little_windows(f, d)
    assert len(w) == 5 and (w["transfers"] > 100).all()
    assert w["k"].between(1.0, 1.6).all(), w
    assert w["mean_rate_Bps"].max() > 1.2 * w["mean_rate_Bps"].min(), w
    slope = np.polyfit(np.log(w["mean_rate_Bps"]), np.log(w["median_Bps"]), 1)[0]
    assert slope > 0.5, w
    # The paper's 10,000 bytes/s with N = 200 needs k = 0.6-0.65 (below 0.7),
    # under two thirds of the smallest k measured, near the 0.5 floor that
    # holds whenever throughput does not depend on size.
    kp = 10_000 * 200 / seed1.large_goodput_Bps
    assert 0.5 < kp < 0.7 and kp < k.min() / 1.5
    # Per-flow throughput read otherwise still differs beyond the claim's
    # tolerance (the paper's value + 50%): transfers over 400 KB (the
    # paper's other threshold) and unfinished ones counted to the end.
    g = f[(f["finished"] == 1.0) & (f["large"] == 1.0)]
    assert g.loc[g["size_pkts"] * 1500 > 400e3, "throughput_Bps"].median() > 15_000
    assert (f.loc[f["large"] == 1.0, "throughput_bps"] / 8).median() > 15_000


def test_dhamdhere_bad_case_names_the_argument():
    with pytest.raises(ValueError, match="traffic must be one of persistent, closed, open"):
        dhamdhere2006.runs.scenario("bursty", 18)
    with pytest.raises(ValueError, match="variant_name must be one of rfc, delayed_ack"):
        dhamdhere2006.runs.scenario("open", 18, variant_name="cubic")
    # A variant sets its fields in every flow group (persistent flows and mice).
    s = dhamdhere2006.runs.scenario("persistent", 18, 10, variant_name="delayed_ack")
    assert [g["delayed_ack"] for g in s["flows"]] == [True, True]
    assert s["name"] == "dhamdhere2006-persistent-B18-delayed_ack"


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    # A difference is "explained" only where a run with the named cause
    # changed meets the paper: delayed ACKs (which the paper leaves unstated)
    # bring the closed loop at B = 18 and the open loop at B = 500 within
    # its loss range; the open loop's utilization is its offered load by
    # construction (a check).
    # B_s = 250 / sqrt(200) is the paper's arithmetic and every run's
    # input; the N it rests on is 'headline: N long flows: open'.
    "B_s = 18 (eq. (1), section 4.3)": "check",
    "headline: high loss at B_s": "agrees",
    # The open loop's loss falls 5.1x from B_s to B_l (12.7% to 2.5%), not
    # the order of magnitude section 4.3 says; with delayed ACKs 14.4x.
    "headline: open loop: loss an order of magnitude lower with B_l": "differs, explained",
    "headline: closed-loop loss against the buffer": "agrees",
    # The closed loop's loss falls 1.60x, the persistent flows' 1.19x: the
    # other way round from section 4.3 (the paper's numbers: 1.9 and 3.75);
    # ns-2.35 differs the same way (QUICK_VERDICTS_NS2).
    "headline: closed-loop loss falls less than the persistent flows'": "differs, unexplained",
    "figure 1: open, B = 18": "agrees",
    "figure 1: persistent, B = 18": "agrees",
    "figure 1: closed, B = 18": "differs, explained",
    "figure 1: open, B = 500": "differs, explained",
    "figure 1: persistent, B = 500": "differs, unexplained",
    "figure 1: closed, B = 500": "differs, unexplained",
    # Eq. (3) at figure 1's two buffers against the paper's own figure 1:
    # arithmetic. Its claim on the curve: loss as (C T + B)^-2, slope -2;
    # bufsim's persistent loss falls with a slope of -0.24 from B_s on,
    # beyond the paper's own figure 1 (-1.28, 0.72 off).
    "eq. (3): persistent, B = 18": "check",
    "eq. (3): persistent, B = 500": "check",
    "eq. (3): loss against the buffer": "differs, unexplained",
    "headline: figure 1: how fast loss falls": "agrees",
    "utilization: persistent, B = 18": "agrees",
    "utilization: persistent, B = 500": "agrees",
    "utilization: closed, B = 18": "differs, unexplained",
    "utilization: closed, B = 500": "agrees",
    # The open loop carries the load its transfers offer (0.962 of the link
    # in this window): 0.928 and 0.969, set by the arrivals, not the buffer.
    "utilization: open, B = 18": "check",
    "utilization: open, B = 500": "check",
    # The closed loop's 0.901 at B_s: the abstract's full utilization fails.
    "headline: full utilization at B_s": "differs, unexplained",
    # Section 4.3's feedback: the closed loop's offered load 0.887 at B_s,
    # 0.989 at B_l (1.115x; ns-2.35 1.10x); the open loop's 1.000x.
    "closed loop: the offered load grows as the loss falls": "agrees",
    # Section 4.3's cause of figure 6: the active flows' per-second
    # standard deviation over mean, open 0.160 / closed 0.063 / persistent
    # 0.024 at B_s (0.216 / 0.100 / 0.021 at B_l): the smaller step 2.2.
    "figure 6: the open loop's active flows vary the most": "agrees",
    "N long flows: persistent": "check",
    "N long flows: closed": "agrees after tuning",
    # The N behind B_s: the open loop's 259 long flows (15.5 packets through
    # eq. (1)), beyond the 150-250 that 'about 200' allows; the 0.2 s
    # minimum RTO run gives 217 flows, but it is one seed and the quick run
    # has no seed interval to stand for its own, nor to tell it steady (it
    # leaves 3.1% of its offered bytes undelivered beyond an ideal server
    # fed the same arrivals), so it explains nothing; ns-2.35's (168
    # flows) meets the paper.
    "headline: N long flows: open": "differs, unexplained",
    # Over 4800 s the open loop leaves 0.16% (B_s) and 0.01% (B_l) of its
    # offered bytes undelivered beyond an ideal work-conserving server fed
    # the same arrivals, under the paper's load precision (0.5%); over the
    # 120 s window 4.65% and 0.08%: a bounded backlog's share, falling as
    # 1/T. At 3 packets 5.2% over 4800 s.
    "open loop stable, B = 18": "agrees",
    "open loop stable, B = 500": "agrees",
    # The two figure 2 claims on persistent flows moved to "agrees" when the
    # engine came to pop a departure before an arrival at the same instant:
    # flows gaining with B_l 0.53 -> 0.79 (paper: about 0.8), p90/p10 ratio
    # B_l / B_s 0.88 -> 0.30 (below 0.8). The old order cost the ACK-clocked
    # arrivals landing on departure instants their place and scrambled who got
    # the link; now the 43 flows within 1% of the shortest RTT take a median
    # 126 kB/s at B_s, 26x the others, and B_l's 117 ms of queue shrinks that
    # to 9x. Per-flow shares at B_s depend on how bursts reach the link: with
    # 10 Gbps access links the same (0.30), with 1 Gbps 0.86-1.31 over seeds
    # 1-3 (flows gaining 0.84-0.89), with 100 Mbps 0.60; the loss stays
    # 6.9-7.3% at B_s in all but the 100 Mbps case (8.9%).
    "headline: figure 2: persistent flows": "agrees",
    # 'About' a fraction read off a CDF is within 0.1: the mice doing better
    # at B_s 0.26 (about 0.5), lossless at B_s 0.21 (about 0.4).
    "figure 2: mice": "differs, unexplained",
    "figure 3: mice, B = 18": "differs, unexplained",
    # About 70% at the less lossy B_l: 40% here, as ns-2's (full run).
    "figure 3: mice, B = 500": "differs, explained",
    # Section 4.3's reasons: the lossless mice's median 52.3 kB/s at B_s,
    # 17.9 at B_l (B_l's 117 ms of queue); the mice with a drop lose 23.1%
    # at B_s, 18.8% at B_l, 1.23x against 'much larger' read as 1.5x.
    "figure 2: lossless mice faster with B_s": "agrees",
    "figure 3: mice with drops lose much more with B_s": "differs, unexplained",
    "headline: figure 2: variability": "agrees",
    "headline: figure 4: closed loop, large flows": "agrees",
    "figure 4: closed loop, small flows": "agrees",
    # p90/p10 of large flows 0.52 times as wide at B_l.
    "figure 4: closed loop, variability": "agrees",
    # The large flows' median throughput B_l / B_s: closed loop 1.65,
    # persistent flows 2.55 (ns-2.35: 0.63 of it too).
    "figure 4: the closed loop gains less than figure 2's persistent flows": "agrees",
    "headline: figure 6: open loop": "agrees",
    # The open loop's transfer latency over its size decile's median:
    # p90/p10 0.4 times as wide at B_l.
    # Footnote 2: with transfers over 400 KB large, the B_l / B_s median
    # throughput ratios 11.5 (large) and 1.7 (small); 5.3 and 1.6 at 100 KB.
    "footnote 2: figure 6 with a 400 KB threshold": "agrees",
    "headline: abstract: transfer latency variability": "agrees",
    # Every finished transfer's throughput CDF: B_l's quantile above B_s's
    # at all 99 levels (the small transfers alone at 92%).
    "headline: conclusion: open loop, practically all transfers": "agrees",
    "figure 6: open loop, large flows, B = 18": "differs, unexplained",
    "figure 6: open loop, large flows, B = 500": "differs, unexplained",
    "figure 7: open loop, large flows, B = 500": "agrees",
    "figure 7: open loop, large flows, B = 18": "agrees",
    # Small transfers without a drop: 41% at B_s, 93% at B_l.
    "figure 7: open loop, small flows": "agrees",
}


#: Where ns-2 is installed: the differences ns-2.35 with the paper's setup
#: at its own defaults (stack = "ns2": 0.2 s minimum RTO, initial window 2)
#: shares (quick, seed 1, 20 s after the warm-up): a loss falling more
#: slowly than eq. (3) says, and the closed loop's loss falling more than
#: the persistent flows' (1.22x theirs, the packet engine 1.35x, 0.35 from
#: the mark: both through the persistent flows' shallow loss curve, 1.67x
#: and 1.19x from B_s to B_l against the paper's 3.75x). Its open loop
#: holds 168 long flows at B_s, inside the paper's band, and leaves 9.6%
#: (B_s) and 0.86% (B_l) of the offered bytes beyond the ideal server fed
#: the same arrivals, farther from the packet engine's 4.65% and 0.08%
#: than those lie from none. Where ns-2 misses
#: otherwise it does not miss as the
#: packet engine does (loss at B_l 8.1 % persistent and 5.8 % closed
#: against the packet engine's 5.8 % and 6.9 %, the closed loop's
#: utilization at B_s 0.937 and 0.901, the open loop's large flows at B_l
#: 177 and 164 kB/s, the mice without a loss at B_s 8.5 % against 20.6 %,
#: beyond the claim's 0.1), and it meets the paper on the mice beating the
#: persistent flows (56 %, the packet engine 26 %): those stay unexplained.
QUICK_VERDICTS_NS2 = {
    # ns-2's slope between its two quick buffers: -0.50.
    "eq. (3): loss against the buffer": "differs, explained",
    "headline: closed-loop loss falls less than the persistent flows'": "differs, explained",
    # ns-2.35's mice with a drop lose 1.28x as much at B_s, within the 0.27
    # the packet engine's 1.23 lies from the mark and nearer it than the
    # mark (at full length ns-2's 1.45 lies nearer the mark: unexplained).
    "figure 3: mice with drops lose much more with B_s": "differs, explained",
}


def test_dhamdhere_verdicts(quick_table):
    from bufsim import ns2

    expected = {**QUICK_VERDICTS, **(QUICK_VERDICTS_NS2 if ns2.available() else {})}
    c = dhamdhere2006.claims(quick_table("dhamdhere2006"))
    assert dict(zip(c["claim"], c["verdict"])) == expected


def test_dhamdhere_headline_results(quick_table):
    # Quick, one seed, 120 s: the loss at B_s 6.9% (persistent), 11.0%
    # (closed), 12.7% (open), all in the paper's 5%-15% widened by a point;
    # the open loop's falling 5.1x to B_l; the closed loop's loss 11.0% at
    # B_s over 6.9% at B_l, 1.6, inside the 1.2-3.0 that 7-8% over about 4%
    # allows (each a point wider), but 1.35x the persistent flows' 1.19.
    c = dhamdhere2006.claims(quick_table("dhamdhere2006")).set_index("claim")
    head = c[c["headline"]]
    assert list(head.index) == [k for k in QUICK_VERDICTS if k.startswith("headline: ")]
    n_open = head.loc["headline: N long flows: open"]
    assert n_open["bufsim"] == pytest.approx(259, abs=15)
    assert "gives B_s = 15.5 packets" in n_open["why"]
    # A 0.2 s minimum RTO (ns-2.35's default) gives 217 flows, inside the
    # band, but in one seed, with no interval: the run is named, and misses.
    why = n_open["explained_by"]
    assert why.startswith("the same case with ns-2's 0.2 s minimum RTO")
    assert "its open loop steady" in why and "misses" in why
    assert "no seed interval" in why and "one seed" in n_open["why"]
    assert c.loc["B_s = 18 (eq. (1), section 4.3)", "bufsim"] == pytest.approx(17.7, abs=0.05)
    assert head.iloc[0]["bufsim"] == pytest.approx(0.069, abs=0.01)
    assert head.iloc[1]["bufsim"] == pytest.approx(5.1, abs=0.5)
    assert head.iloc[2]["bufsim"] == pytest.approx(1.6, abs=0.3)
    assert head.iloc[3]["bufsim"] == pytest.approx(1.35, abs=0.2)
    assert (head["measured_by"] != "").all()
    # ns-2.35's numbers where it is installed (quick, seed 1, at its own
    # defaults; measured: B_s 19.3 packets from the open loop's 168 long
    # flows, the loss at B_s 13.6 %, the closed loop's loss ratio 2.0).
    from bufsim import ns2

    assert head["ns2"].notna().all() == ns2.available()


def _two_seeds(table, change=None, ns2=None):
    """``table`` with its base rows again as seed 2, equal but for
    ``change`` ({(traffic, buffer, column): function of seed 1's value}),
    and its ns-2 rows set from ``ns2`` ({(traffic, buffer, column): value}):
    a seed interval for the claims that read one (half the two seeds'
    range), without new runs."""
    import copy

    attrs = copy.deepcopy(table.attrs)
    t = table.copy()
    t.attrs = {}
    other = t[t["variant"] == "rfc"].assign(seed=2)
    for (traffic, b, col), f in (change or {}).items():
        at = (other["traffic"] == traffic) & (other["buffer_pkts"] == b)
        other.loc[at, col] = other.loc[at, col].map(f)
    rows = attrs["ns2"]["rows"]
    for (traffic, b, col), v in (ns2 or {}).items():
        rows.loc[(rows["traffic"] == traffic) & (rows["buffer_pkts"] == b), col] = v
    out = pd.concat([t, other], ignore_index=True)
    out.attrs = attrs
    return out


def _headline_and_n(table):
    """The headline and N claims of ``table`` (no per-flow tables read), with
    the ns-2 twin's numbers, by claim."""
    from bufsim.reproduce import Claims

    runs = dhamdhere2006.runs
    c = Claims(twin=runs._ns2_claims(table))
    runs._headline_claims(c, table, runs._means(table))
    runs._n_claims(c, table, runs._means(table))
    return c.table().set_index("claim")


def test_dhamdhere_ns2_explains_n_against_the_same_arrivals(quick_table):
    # The open loop's N behind B_s. ns-2 runs
    # seed 1's arrivals only, so it is compared with the packet engine's
    # run of seed 1 (259 long flows quick, 4.65% of its offered bytes
    # undelivered beyond an ideal server fed the same arrivals), not with
    # the mean over seeds: it explains when it misses the paper's band by
    # more than the base runs' seed interval (its own unknown), lies within
    # the claim's quarter of N (50 flows) of that run, and is no less steady
    # than it. A second seed here holds 100 flows more (mean 309, interval
    # 50, which leaves the 0.2 s minimum RTO run's 217 no room, so only
    # ns-2 can explain): 305 misses the band by 55 and lies 46 flows from
    # seed 1; 295 misses it by 45, within the interval; 320 lies 61 flows
    # from seed 1; at 305 a backlog of 5% beyond the ideal server is less
    # steady than seed 1's run.
    from bufsim import ns2

    if not ns2.available():
        pytest.skip("ns-2 is not installed")
    table = quick_table("dhamdhere2006")
    claims = ("headline: N long flows: open",)
    more = {("open", 18, "long_flows_mean"): lambda x: x + 100.0}
    for n, excess, verdict in (
        (305.0, 0.04, "differs, explained"),
        (295.0, 0.04, "differs, unexplained"),
        (320.0, 0.04, "differs, unexplained"),
        (305.0, 0.05, "differs, unexplained"),
    ):
        set_ns2 = {("open", 18, "long_flows_mean"): n, ("open", 18, "excess_backlog"): excess}
        c = _headline_and_n(_two_seeds(table, more, set_ns2))
        assert [c.loc[k, "verdict"] for k in claims] == [verdict], (n, excess)
        if verdict == "differs, explained":
            assert c.loc[claims[0], "explained_by"].startswith("ns-2.35")
    # As run: 168 flows, inside the band, leaving 9.6% of the offered bytes
    # undelivered beyond the ideal server: it explains nothing.
    rows = table.attrs["ns2"]["rows"]
    o = rows[(rows["traffic"] == "open") & (rows["buffer_pkts"] == 18)].iloc[0]
    assert o.excess_backlog == pytest.approx(0.096, abs=0.01)
    assert o.long_flows_drift == pytest.approx(0.18, abs=0.02)
    c = dhamdhere2006.claims(table).set_index("claim")
    for k in claims:
        assert "less steady than" in c.loc[k, "why"]
        assert "so ns-2 explains nothing" in c.loc[k, "why"]


def test_dhamdhere_rto_run_explains_only_inside_by_the_seed_interval(quick_table):
    # The 0.2 s minimum RTO run is one seed: it explains N only if it lies
    # inside the band by the base runs' seed interval, which stands for its
    # own. It holds 217 flows (quick), 33 inside: a second seed 40 flows
    # above the first (interval 20) lets it, one 80 above (interval 40) does
    # not. Its open loop is steady: it leaves 3.1% of its offered bytes
    # beyond the ideal server, the base runs 4.65%; with a second seed at
    # -3.35% (mean 0.65%) it is less steady than they are, and explains
    # nothing.
    table = quick_table("dhamdhere2006")
    for more, excess, verdict in (
        (40.0, 0.0, "differs, explained"),
        (80.0, 0.0, "differs, unexplained"),
        (40.0, 0.08, "differs, unexplained"),
    ):
        two = _two_seeds(
            table,
            {
                ("open", 18, "excess_backlog"): lambda x, e=excess: x - e,
                ("open", 18, "long_flows_mean"): lambda x, m=more: x + m,
            },
        )
        c = _headline_and_n(two)
        assert c.loc["headline: N long flows: open", "verdict"] == verdict, (more, excess)


def test_dhamdhere_ns2_shares_the_closed_ratio_by_the_default_tolerance(quick_table):
    # The closed loop's loss ratio over the persistent flows' (1.35 quick)
    # misses the paper's 'below 1' by 0.35; ns-2.35 (1.22) differs the same
    # way within that distance, the judge's default as for every at_most
    # claim: explained. ns-2's closed loop at B_s losing 1.2 times as much
    # (1.46, 0.11 away) still explains; 1.5 times (1.83, 0.48 away) does
    # not; 0.8 times (0.98) meets the paper and explains nothing.
    from bufsim import ns2

    if not ns2.available():
        pytest.skip("ns-2 is not installed")
    table = quick_table("dhamdhere2006")
    claim = "headline: closed-loop loss falls less than the persistent flows'"
    loss = table.attrs["ns2"]["rows"].set_index(["traffic", "buffer_pkts"])["loss_rate"]
    for f, verdict in (
        (1.0, "differs, explained"),
        (1.2, "differs, explained"),
        (1.5, "differs, unexplained"),
        (0.8, "differs, unexplained"),
    ):
        two = _two_seeds(table, ns2={("closed", 18, "loss_rate"): loss[("closed", 18)] * f})
        assert _headline_and_n(two).loc[claim, "verdict"] == verdict, f
    why = dhamdhere2006.claims(table).set_index("claim").loc[claim, "why"]
    assert "shallow loss curve" in why and "eq. (3): loss against the buffer" in why


def test_dhamdhere_ideal_queue_by_hand():
    # Capacity 1 packet/s; 4 packets at t = 0, 2 at t = 1; window 0-6 s.
    # Work: 4 at 0, 4 - 1 + 2 = 5 at 1, 3 at 3, 0 at 6. Processor sharing:
    # the first alone to t = 1 (3 left), then each at 1/2: the second's 2
    # done at t = 5, the first's last packet alone to t = 6. Flows in it:
    # 1 over [0, 1), 2 over [1, 5), 1 over [5, 6): 5/3 over each half.
    got = dhamdhere2006.runs.ideal_queue([(0.0, 0, 4), (1.0, 0, 2)], (0.0, 3.0, 6.0), 1.0)
    assert got == pytest.approx(
        {
            "arrived_first": 2.0,
            "arrived_second": 0.0,
            "backlog_start": 4.0,
            "backlog_mid": 3.0,
            "backlog_end": 0.0,
            "flows_first": 5 / 3,
            "flows_second": 5 / 3,
        }
    )


def test_dhamdhere_backlog_excess_is_the_goodput_the_ideal_server_beats():
    # A run whose goodput is what the ideal server served leaves nothing
    # beyond it; one percent of the offered bytes less, one percent.
    runs = dhamdhere2006.runs
    s = runs.ideal_server(1, 20.0)
    arrived = s["arrived_first"] + s["arrived_second"]
    served = arrived - s["backlog_end"] + s["backlog_start"]
    for short in (0.0, 0.01):
        good = {"goodput_bps": (served - short * arrived) * 1500 * 8 / 20.0}
        got = runs.backlog_excess("open", 1, good, 20.0)
        assert got["excess_backlog"] == pytest.approx(short, abs=1e-12)
    assert np.isnan(runs.backlog_excess("closed", 1, good, 20.0)["excess_backlog"])


def test_dhamdhere_ns2_drift_from_its_half_run():
    # N over the first half 100, over the whole window 110: the second
    # half's is 120, 20% above the first.
    assert dhamdhere2006.runs._ns2_drift(100.0, 110.0) == pytest.approx(0.2)


def test_dhamdhere_stable_claims_read_the_long_runs(quick_table):
    # The claim averages over the seeds of the long runs (attrs["long"])
    # the share of the offered bytes each left undelivered beyond the ideal
    # server fed its arrivals; half their range is its seed interval; the
    # mark is half a percent (the paper's load, given to the percent).
    import copy

    from bufsim.reproduce import Claims

    table = quick_table("dhamdhere2006")
    runs = dhamdhere2006.runs
    long = table.attrs["long"]
    assert set(long["buffer_pkts"]) == {3, 18, 500}
    assert (long["duration_s"] == 4800.0).all()
    for shares, verdict in (
        ((0.001, 0.003), "agrees"),
        ((0.004, 0.008), "undecided"),
        ((0.008, 0.012), "differs, unexplained"),
    ):
        t = table.copy()
        t.attrs = copy.deepcopy(table.attrs)
        rows = [
            {"buffer_pkts": b, "seed": s, "excess_backlog": x, "duration_s": 4800.0}
            for b in (3, 18, 500)
            for s, x in zip((1, 2), shares, strict=True)
        ]
        t.attrs["long"] = pd.DataFrame(rows)
        c = Claims()
        runs._stable_claims(c, t, runs._means(t))
        got = c.table().set_index("claim")
        for b in (18, 500):
            row = got.loc[f"open loop stable, B = {b}"]
            assert row["bufsim"] == pytest.approx(sum(shares) / 2)
            assert row["spread"] == pytest.approx((shares[1] - shares[0]) / 2)
            assert row["verdict"] == verdict, (shares, b)
    # Without the long runs (ns-2's twin) the claim has no number.
    t = table.copy()
    t.attrs = {}
    c = Claims()
    runs._stable_claims(c, t, runs._means(t))
    assert c.table()["bufsim"].isna().all()


def test_dhamdhere_claims_and_report(dhamdhere, tmp_path):
    c = dhamdhere2006.claims(dhamdhere).set_index("claim")
    assert c["why"].str.len().min() > 20
    # Open loop at 18 packets: 12.7% in 120 s, 13.6% over 600 s and three
    # seeds, the population wandering near the loop's capacity; the reason
    # says so either way.
    o18 = c.loc["figure 1: open, B = 18"]
    assert o18["bufsim"] == pytest.approx(0.12, abs=0.03) and "population" in o18["why"]
    # Those bufsim does not reproduce, each with its investigated reason.
    for claim, needle in (
        ("figure 1: persistent, B = 500", "eq. (3)"),
        ("figure 1: closed, B = 18", "delayed ACKs"),
        ("figure 6: open loop, large flows, B = 500", "statements conflict"),
        ("utilization: closed, B = 18", "minimum RTO"),
        ("figure 6: open loop, large flows, B = 18", "Little's law sets bufsim's median"),
    ):
        assert c.loc[claim, "verdict"].startswith("differs"), (claim, c.loc[claim].to_dict())
        assert needle in c.loc[claim, "why"], claim
    # The persistent N is set by construction: a check, not an agreement.
    assert c.loc["N long flows: persistent", "verdict"] == "check"
    # Figures 2-7 draw seed 1's runs; their captions say so, and that the
    # claims pool every seed where more than one ran.
    caps = dhamdhere2006.captions(dhamdhere)
    several = dhamdhere["seed"].nunique() > 1
    for key in ("throughput_persistent", "loss_open"):
        assert "seed 1 alone" in caps[key]
        assert ("the claims pool the flows of seeds" in caps[key]) == several
    assert "delayed ACKs (dotted)" in caps["loss_vs_buffer"]
    assert ("the band: their range" in caps["loss_vs_buffer"]) == several
    from bufsim.report import reproduction_report

    page = reproduction_report("dhamdhere2006", table=dhamdhere)
    for fig in ("loss_vs_buffer", "throughput_open", "loss_persistent"):
        assert f'id="fig-{fig}"' in page
    assert page.count('class="text agrees"') >= 9 and 'class="text explained"' in page
    # An explained difference names its run and that run's number: ns-2.35
    # with the paper's setup where it is installed (it gives the same loss,
    # 11.7 % against 11.0 %, quick), else the delayed-ACK counterfactual.
    from bufsim import ns2

    closed = c.loc["figure 1: closed, B = 18"]
    assert closed["verdict"] == "differs, explained"
    run = "ns-2.35 with the paper's setup" if ns2.available() else "the same case with delayed ACKs"
    assert closed["explained_by"].startswith(run)
    assert "the paper's simulator gives" in closed["explained_by"] or not ns2.available()
    path = tmp_path / "dhamdhere2006.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "dhamdhere2006")
