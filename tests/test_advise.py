"""`bufsim advise`: objectives in, a verified buffer out."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import bufsim
import pandas as pd
import pytest
from bufsim.advise import AdviceError, parse_objective
from bufsim.reproduce import avrachenkov2006
from conftest import cli


@pytest.mark.parametrize(
    "text, key, op, bound",
    [
        ("utilization>=0.98", "utilization", ">=", 0.98),
        ("utilization >= 98%", "utilization", ">=", 0.98),
        ("p99_queue_delay<=5ms", "p99_queue_delay_s", "<=", 0.005),
        ("mean_queue_delay<=250us", "mean_queue_delay_s", "<=", 250e-6),
        ("drop_rate<=1e-3", "drop_rate", "<=", 1e-3),
        ("goodput_bps_group1>=20Mbps", "goodput_bps_group1", ">=", 20e6),
        ("jain_index>=0.9", "jain_index", ">=", 0.9),
        ("fct_p99_small<=2s", "fct_p99_small_s", "<=", 2.0),
        ("fct_mean_large <= 1500ms", "fct_mean_large_s", "<=", 1.5),
    ],
)
def test_objectives_parse_with_units(text, key, op, bound):
    o = parse_objective(text)
    assert (o.key, o.op) == (key, op)
    assert o.bound == pytest.approx(bound)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("throughput>=0.9", "unknown metric 'throughput'"),
        ("utilization<=0.9", "bounded below"),
        ("p99_queue_delay>=5ms", "bounded above"),
        ("p99_queue_delay<=5", "with a unit ps, ns, us, ms, s or min"),
        ("utilization>=1.5", "between 0 and 1"),
        ("utilization=0.9", "write metric>=bound"),
        ("drop_rate<=0.01pkt", "a fraction is a number"),
        ("fct_mean_small>=1s", "bounded above"),
        ("fct_p99_large<=3", "with a unit"),
        ("slowdown_p99_small<=0.5", "a slowdown is at least 1"),
        ("slowdown_p99_small<=10ms", "a slowdown is a plain number"),
        ("slowdown_p99_small>=10", "bounded above"),
    ],
)
def test_bad_objectives_name_themselves(text, needle):
    with pytest.raises(AdviceError, match=needle) as e:
        parse_objective(text)
    assert text in str(e.value)


def test_confidence_bound_over_seeds():
    o = parse_objective("utilization>=0.9")
    # Mean 0.92, s = 0.01 over 3 seeds: the one-sided 95% bound is
    # 0.92 - t(0.95, 2) * 0.01 / sqrt(3) = 0.92 - 0.01686 = 0.9031 >= 0.9.
    assert o.holds([0.91, 0.92, 0.93], 0.95)
    # Same mean, s = 0.03: bound 0.92 - 0.0506 < 0.9.
    assert not o.holds([0.89, 0.92, 0.95], 0.95)


def test_undecided_verdicts_straddle_the_bound():
    o = parse_objective("utilization>=0.98")
    # Mean 0.98667, s = 0.01528 over 3 seeds: the one-sided 95% bound is
    # 0.98667 - 2.920 * 0.01528 / sqrt(3) = 0.9609 < 0.98 <= the mean: undecided.
    assert o.straddles([0.97, 0.99, 1.0], 0.95) and not o.holds([0.97, 0.99, 1.0], 0.95)
    # Decided either way: the bound holds (0.991 - 0.0017), or the mean fails.
    assert not o.straddles([0.99, 0.991, 0.992], 0.95)
    assert not o.straddles([0.90, 0.91], 0.95)
    # One seed has no interval: nothing to straddle.
    assert not o.straddles([0.981], 0.95)


def test_known_verdicts_lie_outside_the_t_interval():
    o = parse_objective("utilization>=0.98")
    # Two seeds, mean 0.991, s = 0.001414: t(0.975, 1) = 12.706, half-width
    # 12.706 * 0.001414 / sqrt(2) = 0.0127: 0.9783 < 0.98, not known.
    assert not o.known([0.99, 0.992], 0.975)
    # 0.9995 +- 0.00635: all above 0.98, known (it holds).
    assert o.known([0.999, 1.0], 0.975) and o.holds([0.999, 1.0], 0.95)
    # 0.925 +- 0.318 reaches 0.98: not known; 0.90 +- 0.0127: known (it fails).
    assert not o.known([0.90, 0.95], 0.975)
    assert o.known([0.899, 0.901], 0.975) and not o.holds([0.899, 0.901], 0.95)
    # An upper bound, one value, and a censored completion time.
    d = parse_objective("p99_queue_delay<=5ms")
    assert d.known([0.001, 0.0011], 0.975) and not d.known([0.0049, 0.0051], 0.975)
    assert not o.known([0.99], 0.975)
    assert not parse_objective("fct_mean_small<=1s").known([0.5, math.inf], 0.975)
    # The law is the core's (output.stop's); a quantile outside (0, 1) is refused.
    with pytest.raises(ValueError, match="quantile: must be between 0 and 1"):
        o.known([0.9, 0.95], 1.5)


def test_fct_objectives_need_finite_traffic():
    s = {
        "name": "long",
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
        "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
    }
    with pytest.raises(AdviceError, match="'fct_p99_small<=1s'.*only long-lived.*finite, open"):
        bufsim.advise(s, ["fct_p99_small<=1s"], store=None, workers=0)


#: Four long-lived Reno flows and web transfers at 30% load on 10 Mbps, 100 ms
#: RTT: small flows' mean FCT is 1.6 s at 2 packets (losses, timeouts), 0.77 s
#: at 30 and 1.2 s at 300 (queueing), seeds 1-2.
WEB_MIX = {
    "name": "web-mix",
    "duration": "60s",
    "warmup": "10s",
    "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
    # The numbers are the rfc profile's: pinned.
    "flows": [
        {
            "count": 4,
            "stack": "rfc",
            "rtt": "100ms",
            "mss": "1000B",
            "start": {"uniform": ["0s", "1s"]},
        },
        {
            "size": "dhamdhere2006",
            "arrival": {"load": 0.3},
            "stack": "rfc",
            "rtt": "100ms",
            "mss": "1000B",
        },
    ],
}


@pytest.fixture(scope="module")
def web_mix(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    events = []
    a = bufsim.advise(WEB_MIX, ["fct_mean_small<=1s"], seeds=2, store=store, progress=events.append)
    return a, store, events


def test_fct_objective_gives_an_interval(web_mix):
    a, store, _ = web_mix
    assert a.feasible
    t = a.tradeoff().set_index("buffer_pkts")
    fct = t["fct_mean_small<=1s"]
    holds = t["fct_mean_small<=1s holds"]
    # Not monotone: too small and too large a buffer both fail the bound
    # (by 20% and more), the range between holds it (below).
    assert fct.iloc[0] > 1.2 and fct.iloc[-1] > 1.2
    # A range with both edges found: each edge holds, its outer grid neighbour fails.
    lo, hi = a.range
    assert a.buffer_pkts == lo and 2 <= lo < hi <= 300
    assert holds[lo] and holds[hi]
    assert not holds[t.index[t.index < lo].max()] and not holds[t.index[t.index > hi].min()]
    # A dense sweep (seeds 1-2, the mean against the bound) puts the edges of
    # the feasible set within one quick grid step (a factor 2^(1/2)) of the range.
    buffers = [2, 3, 4, 5, 6, 8, 11, 16, 32, 64, 100, 128, 150, 181, 256, 362]
    d = bufsim.sweep(
        WEB_MIX,
        grid={"link.buffer": [f"{b}pkt" for b in buffers]},
        seeds=[1, 2],
        store=store,
        progress=False,
    )
    mean = d.groupby("buffer_pkts")["fct_mean_small_s"].mean()
    ok = mean[mean <= 1.0].index
    assert ok.min() == pytest.approx(lo, rel=0.42)
    # The upper edge is where the mean first exceeds 1 s, or where a seed's
    # mean is not identified (its longest transfer still running at the end
    # of the run, so the mean is only a lower bound): then the objective
    # cannot be judged there and counts as not met.
    above = a.runs[(a.runs["engine"] == "packet") & (a.runs["buffer_pkts"] > hi)]
    nxt = above[above["buffer_pkts"] == above["buffer_pkts"].min()]
    unjudged = (nxt["fct_mean_small_s_censored"] == 1.0).any()
    assert ok.max() == pytest.approx(hi, rel=0.42) or (
        unjudged and any(n.startswith("fct_mean_small_s cannot be judged") for n in a.notes)
    )
    assert "interval search" in a.method
    # Completion times are not measured batch by batch: no run stops early.
    assert "fct_mean_small<=1s is not measured batch by batch, so no run stops early" in a.notes[-1]
    assert "stopped_early" not in a.runs
    # Where some seed's mean FCT is only a lower bound, the trade-off says so,
    # every view shows ">= x", and no such buffer is on the Pareto front.
    packet = a.runs[a.runs["engine"] == "packet"]
    censored = packet.groupby("buffer_pkts")["fct_mean_small_s_censored"].max() == 1.0
    assert t["fct_mean_small<=1s censored"].equals(censored.rename("fct_mean_small<=1s censored"))
    shown = a.formatted(a.tradeoff()).set_index("buffer_pkts")["fct_mean_small<=1s"]
    assert all(shown[b].startswith(">= ") == c for b, c in censored.items())
    assert not (t["pareto"] & t["fct_mean_small<=1s censored"]).any()


def test_adaptive_seeds_follow_the_rule(web_mix):
    a, _, _ = web_mix
    o = a.objectives[0]
    packet = a.runs[a.runs["engine"] == "packet"]
    more = 0
    for b, g in packet.groupby("buffer_pkts"):
        first = g.sort_values("seed")[o.key].tolist()
        # Rule: more seeds (2 at a time, up to 3 x 2) only where the first two straddle the bound.
        assert len(first) in (2, 4, 6)
        assert (len(first) > 2) == o.straddles(first[:2], 0.95), (b, first)
        if len(first) == 4:
            assert o.straddles(first[:2], 0.95) and not o.straddles(first, 0.95)
        more += len(first) > 2
    assert more >= 1 and "adaptive seeds" in " ".join(a.notes)


def test_progress_covers_the_search(web_mix):
    a, _, events = web_mix
    phases = list(dict.fromkeys(e.phase for e in events))
    # No loss-synchronization scans: the fluid engine measures no FCT.
    # (adaptive seeds run wherever a verdict straddles the bound: in the
    # scan or at the edges).
    assert phases[:2] == ["fluid scan", "packet interval scan"] and phases[-2:] == [
        "rule check",
        "done",
    ]
    assert set(phases[2:-2]) == {"packet interval edges", "adaptive seeds"}
    assert all(x.done <= y.done for x, y in zip(events, events[1:]))
    assert all(e.done <= e.total for e in events)
    # Every run of the search is counted, and the bar ends full.
    assert events[-1].done == events[-1].total == len(a.runs)
    assert any("packet interval scan 3/" in e.message for e in events)


def test_fluid_form_and_the_paper_004_rule_with_web_traffic(web_mix):
    from bufsim.advise.fluid import fluid_form as _fluid_form

    scn = bufsim.Scenario.load(WEB_MIX)
    raw, changed = _fluid_form(scn.raw, scn.normalized)
    # The open-loop group becomes Poisson background at its offered load:
    # 30% of 10 Mbps.
    assert len(raw["flows"]) == 1 and raw["background"][0]["kind"] == "poisson"
    rate = bufsim.Scenario.load(raw).normalized["background"][0]["rate_bps"]
    assert rate == pytest.approx(0.3 * 10e6, rel=1e-4)
    assert "flows[1] (open) as Poisson background" in changed
    a, _, _ = web_mix
    t = a.table.set_index("source")
    assert "Poisson background" in t.loc["fluid scan", "note"]
    row = t.loc["fluid loss-sync range (paper 004)"]
    assert not row["applies"] and row["note"] == "no objective the fluid engine measures"


@pytest.fixture(scope="module")
def two_reno(tmp_path_factory):
    # Two Reno flows, 10 Mbps, 100 ms: no duration or warm-up given.
    s = {
        "name": "two-reno",
        "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
        "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
    }
    store = tmp_path_factory.mktemp("store")
    return bufsim.advise(s, ["utilization>=0.95"], seeds=2, store=store)


def test_duration_and_warmup_from_the_time_scales(two_reno):
    a = two_reno
    # BDP = 10 Mbps x 100 ms / 8000 bit = 125 packets, N = 2: W = 2 BDP / N = 125,
    # a congestion epoch W/2 = 62.5 RTTs = 6.25 s. Warm-up: slow start
    # log2(125) RTTs = 0.70 s plus 2 epochs = 13.2 s; measurement 5 epochs = 31.25 s.
    assert a.warmup_s == pytest.approx(13.2, abs=0.05)
    assert a.duration_s == pytest.approx(13.2 + 31.3, abs=0.05)
    assert "derived from the scenario's time scales" in a.notes[0]


def test_time_scales_of_cubic_flows():
    from bufsim.timescales import time_scales

    norm = bufsim.Scenario.load(
        {
            "name": "cubic",
            "duration": "1s",
            "link": {"capacity": "1Gbps", "delay": "45ms", "buffer": "1pkt"},
            "flows": [{"count": 10, "tcp": "cubic", "rtt": "100ms", "mss": "1000B"}],
        }
    ).normalized
    t = time_scales(norm)
    # BDP 12500 packets, W = 2 BDP / 10 = 2500: K = cbrt(2500 x 0.3 / 0.4)
    # = cbrt(1875) = 12.331 s (RFC 9438 eq. 2). Warm-up: log2(2500) x 0.1 s
    # + 2 K = 25.79 s -> 25.8; measurement 5 K = 61.66 s -> 61.7.
    assert t["epoch_s"] == pytest.approx(12.331, abs=1e-3)
    assert t["warmup_s"] == pytest.approx(25.8) and t["duration_s"] == pytest.approx(87.5)
    assert not t["capped"] and "RFC 9438" in t["why"]


def test_paper_004_fluid_sync_range(two_reno):
    a = two_reno
    row = a.table.set_index("source").loc["fluid loss-sync range (paper 004)"]
    assert row["applies"]
    x03 = float(re.search(r"X = 0.3: (\d+) packets", row["note"]).group(1))
    x1 = float(re.search(r"X = 1: (\d+) packets", row["note"]).group(1))
    # Paper 004 section III: less synchronization, more utilization at a given
    # buffer, so a smaller buffer.
    assert x03 < x1 and row["buffer_pkts"] == x1
    # Two flows with one RTT synchronize: the packet engine's answer lies
    # within two grid steps (2^(1/2)) of the X = 1 answer.
    assert a.buffer_pkts == pytest.approx(x1, rel=0.42)
    assert "fluid X=0.3" in set(a.runs["engine"]) and "fluid X=1" in set(a.runs["engine"])


def test_convergence_halves_on_a_hand_made_runs_table():
    from bufsim.advise.convergence import convergence as _convergence

    norm = bufsim.Scenario.load(
        {
            "name": "c",
            "duration": "10s",
            "warmup": "2s",
            "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "10pkt"},
            "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
        }
    ).normalized
    runs = pd.DataFrame(
        {
            "engine": ["packet", "packet", "fluid"],
            "buffer_pkts": [10.0, 10.0, 10.0],
            "seed": [1, 2, 1],
            "utilization_half1": [0.90, 0.95, 0.5],
            "utilization_half2": [0.95, 0.955, 1.0],
            "mean_queue_delay_s_half1": [0.008, 0.006, 0.0],
            "mean_queue_delay_s_half2": [0.010, 0.010, 0.0],
            "fct_p99_small_s_half1": [1.0, math.nan, 0.0],
            "fct_p99_small_s_half2": [1.3, 1.0, 0.0],
        }
    )
    objs = [
        parse_objective("utilization>=0.9"),
        parse_objective("mean_queue_delay<=20ms"),
        parse_objective("fct_p99_small<=2s"),
    ]
    c = _convergence(runs, norm, objs).set_index(["metric", "seed"])
    # Only the packet runs; a half without the metric (seed 2's FCT) is not judged.
    assert len(c) == 5
    assert c.loc[("utilization", 1), "first_half"] == pytest.approx(0.90)
    # Utilization 0.05 apart > 0.01: not converged; 0.005 apart: converged.
    assert not c.loc[("utilization", 1), "converged"] and c.loc[("utilization", 2), "converged"]
    # Delay within 20% of the larger half plus one packet time (1000 B at
    # 10 Mbps: 0.8 ms): 8 then 10 ms agree (2 <= 2.8), 6 then 10 ms do not.
    assert c.loc[("mean_queue_delay_s", 1), "converged"]
    assert not c.loc[("mean_queue_delay_s", 2), "converged"]
    # FCT relative: 1.0 then 1.3 s differ by 0.3 > 0.2 x 1.3.
    assert not c.loc[("fct_p99_small_s", 1), "converged"]


def test_a_short_warm_up_is_flagged(tmp_path):
    s = {
        "name": "cold",
        "duration": "4s",
        "warmup": "0s",
        "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
        "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
    }
    a = bufsim.advise(
        s, ["utilization>=0.8"], seeds=1, quick=True, store=tmp_path, engines=["packet"]
    )
    assert not a.converged
    warn = [n for n in a.notes if n.startswith("WARNING: not converged")]
    assert warn and "lengthen duration or warmup" in warn[0]
    rec = a.convergence[a.convergence["buffer_pkts"] == a.buffer_pkts]
    bad = rec[~rec["converged"]]
    assert len(bad) and ((bad["first_half"] - bad["second_half"]).abs() > 0.01).all()


@pytest.fixture(scope="module")
def paper003(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    s = avrachenkov2006.runs.scenario(5, 1, duration="40s")
    return s, store, bufsim.advise(s, ["utilization>=0.999"], seeds=3, store=store, workers=0)


def test_advise_matches_a_dense_packet_sweep_on_paper_003(paper003):
    s, store, a = paper003
    assert a.feasible
    # A dense sweep over the same seeds (the advisor's runs come from the store).
    buffers = list(range(80, 260, 10))
    t = bufsim.sweep(
        s,
        grid={"link.buffer": [f"{b}pkt" for b in buffers]},
        seeds=[1, 2, 3],
        store=store,
        workers=0,
        progress=False,
    )
    o = parse_objective("utilization>=0.999")
    dense = min(b for b, g in t.groupby("buffer_pkts") if o.holds(g["utilization"].tolist(), 0.95))
    assert a.buffer_pkts == pytest.approx(dense, rel=0.15), (a.buffer_pkts, dense)
    # Theorem 1's B0 beside it: (C T)^2 / (18 N) = 150^2 / 90 = 250 synchronized.
    rules = a.table.set_index("source")
    assert rules.loc["B0 synchronized (paper 003)", "buffer_pkts"] == pytest.approx(250)
    assert rules.loc["BDP", "buffer_pkts"] == pytest.approx(150)
    # The packet engine measured every applicable rule's buffer.
    assert rules.loc["BDP", "meets all"] is True or rules.loc["BDP", "meets all"] == True  # noqa: E712
    # The buffer one grid step below fails.
    assert "fails" in a.binding
    # The analytic model (desynchronized, paper 003) meets the objective
    # from a far smaller buffer: a note says so, the packet engine decides.
    from bufsim import models
    from bufsim.advise.rules import buffer_grid as _grid
    from bufsim.advise.rules import with_buffer as _with_buffer

    grid = _grid(1.0, 4 * 150.0, 4)
    util = [
        models.predict(bufsim.Scenario(_with_buffer(s, b))).summary["utilization"] for b in grid
    ]
    edge = grid[next(k for k, u in enumerate(util) if u >= 0.999)]
    assert edge < a.buffer_pkts / 2
    (note,) = [n for n in a.notes if "the analytic model" in n]
    assert note.startswith(
        f"engines disagree on utilization>=0.999: the packet engine decides (it holds from "
        f"{a.buffer_pkts:g} packets); the analytic model (avrachenkov) puts that edge at {edge} packets"
    )
    # The analytic model's prediction beside the packet measurement: paper
    # 003's desynchronized model gives full utilization at B0 = 6 packets,
    # where the packet engine's synchronized identical-RTT flows get 0.78.
    model = rules["utilization>=0.999 (model)"]
    assert (
        model["B0 desynchronized (paper 003)"]
        > 0.99
        > rules.loc["B0 desynchronized (paper 003)", "utilization>=0.999"]
    )


def test_runs_stop_once_the_verdicts_are_known_with_the_same_answer(paper003, tmp_path):
    # Paper 003's advise test again, every packet run measuring its whole
    # window: the same answer, at more simulated seconds (measured: 24
    # runs, all stopped at the 4th of 10 batches: 672 s against 960 s).
    s, _, a = paper003
    full = bufsim.advise(
        s, ["utilization>=0.999"], seeds=3, store=tmp_path, workers=0, stop_early=False
    )
    assert (a.buffer_pkts, a.range) == (full.buffer_pkts, full.range)
    p, q = a.provenance(), full.provenance()
    assert q["packet runs stopped early"] == 0
    assert p["packet runs stopped early"] >= p["packet runs"] / 2
    assert p["simulated s (packet runs)"] <= 0.8 * q["simulated s (packet runs)"]
    # A stopped run ends at a batch boundary: 10 batches of 2 s after the
    # 20 s warm-up, from the 4th.
    runs = a.runs[a.runs["engine"] == "packet"]
    stopped = runs[runs["stopped_early"] == 1.0]
    batch = (a.duration_s - a.warmup_s) / 10
    k = (stopped["end_s"] - a.warmup_s) / batch
    assert (k.round(9) == stopped["batches_run"]).all() and (k >= 4).all() and (k < 10).all()
    assert "stopped at a batch boundary once every objective's verdict was known" in a.notes[-1]
    # Seeds in waves: where seeds 1-2 knew every verdict, seed 3 did not run
    # (at 128 and 152 packets here); the rules' buffers run every seed once
    # (108, the fluid loss-sync rule's, was probed too).
    (waves,) = [n for n in a.notes if n.startswith("seeds in waves")]
    waved = {float(b) for b in re.findall(r"(\d+) packets", waves.split(": ", 1)[1])}
    seeds = runs.groupby("buffer_pkts")["seed"].apply(sorted)
    assert {128.0, 152.0} <= waved and all(seeds[b] == [1, 2] for b in waved - {108.0})
    assert seeds[108.0] == seeds[150.0] == [1, 2, 3]
    assert "every packet run measured its whole window (stop_early=False" in full.notes[-1]


def test_advice_outputs(paper003, tmp_path):
    _, _, a = paper003
    d = a.to_dict()
    assert d["buffer_pkts"] == a.buffer_pkts and d["feasible"]
    json.dumps(d)  # strict JSON
    page = a.to_html()
    assert 'id="fig-advice"' in page and "<script" not in page
    assert len(a.plot().axes) == 1
    # The notebook view opens with the first screen: the answer, its cost.
    view = a._repr_html_()
    assert f"Answer: {a.buffer_pkts:g} packets" in view and "Cost at " in view
    assert d["outcome"] == "meets" and d["first_screen"][0].startswith("Answer: ")


def test_conflicting_objectives_give_a_trade_off(tmp_path):
    # Two Reno flows on 10 Mbps with a 100 ms RTT need about a BDP (125
    # packets) for full utilization, which queues for 100 ms; 2 ms of p99
    # delay allows only a couple of packets.
    s = {
        "name": "conflict",
        "duration": "30s",
        "warmup": "5s",
        "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
        "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
    }
    a = bufsim.advise(
        s,
        ["utilization>=0.99", "p99_queue_delay<=2ms"],
        seeds=2,
        store=tmp_path,
        workers=0,
    )
    assert not a.feasible
    assert (
        "utilization>=0.99 needs at least" in a.binding
        and "p99_queue_delay<=2ms allows at most" in a.binding
    )
    assert len(a.runs[a.runs["engine"] == "packet"]["buffer_pkts"].unique()) >= 3
    # The trade-off: one row per measured buffer; no buffer meets both; the
    # Pareto set runs from the smallest (best delay) to the best utilization,
    # and along it utilization rises as the delay does.
    t = a.tradeoff()
    assert len(t) >= 3 and list(t["buffer_pkts"]) == sorted(t["buffer_pkts"])
    assert not (t["utilization>=0.99 holds"] & t["p99_queue_delay<=2ms holds"]).any()
    front = t[t["pareto"]]
    assert front["buffer_pkts"].iloc[0] == t["buffer_pkts"].iloc[0]
    # The best utilization is on the front (ties within 0.1% of the bound).
    assert front["utilization>=0.99"].max() >= t["utilization>=0.99"].max() - 1e-3 * 0.99
    # Past the full-utilization buffer more buffer is only more delay: off the front.
    assert not t["pareto"].iloc[-1]
    assert front["utilization>=0.99"].is_monotonic_increasing
    assert front["p99_queue_delay<=2ms"].is_monotonic_increasing
    assert a.to_dict()["tradeoff"]


def test_unsaturable_link_is_refused_with_what_it_needs():
    # Paper 002 section 3.2's example: 60 users with 1 Mbps access links on 100 Mbps.
    s = {
        "name": "dsl",
        "duration": "10s",
        "link": {"capacity": "100Mbps", "delay": "10ms", "buffer": "1pkt"},
        "flows": [{"count": 60, "rtt": "60ms", "access_rate": "1Mbps"}],
    }
    with pytest.raises(AdviceError, match="not saturable.*paper 002 section 3.2.*at most 0.600"):
        bufsim.advise(s, ["utilization>=0.9"], store=None, workers=0)


def test_a_failed_packet_run_stops_the_search_with_its_error(monkeypatch):
    # A failed run has no metrics; judged, it would read as "the objective
    # fails at this buffer" and move the answer. advise stops and says why.
    import importlib

    worker = importlib.import_module("bufsim.sweep.worker")
    real = worker.simulate

    def failing(raw, engine):
        if engine == "packet":
            raise bufsim.EngineError("injected engine failure")
        return real(raw, engine=engine)

    monkeypatch.setattr(worker, "simulate", failing)
    s = avrachenkov2006.runs.scenario(5, 1, duration="30s")
    with pytest.raises(AdviceError, match=r"packet run at \d+ packets .*injected engine failure"):
        bufsim.advise(s, ["utilization>=0.9"], engines=("packet",), store=None, workers=0)


def test_a_crashed_fluid_run_stops_the_search_while_a_refusal_does_not(monkeypatch):
    # A fluid run that crashes (not a ScenarioError refusal) says nothing
    # about the buffer: advise stops, as for a failed packet run. Before,
    # it read as "this scenario has no fluid form" and the search went on
    # without the fluid edges.
    import importlib

    worker = importlib.import_module("bufsim.sweep.worker")
    real = worker.simulate

    def crashing(raw, engine):
        if engine == "fluid":
            raise RuntimeError("injected crash")
        return real(raw, engine=engine)

    monkeypatch.setattr(worker, "simulate", crashing)
    s = avrachenkov2006.runs.scenario(5, 1, duration="30s")
    with pytest.raises(
        AdviceError, match=r"fluid run at \d+ packets failed: RuntimeError: injected crash"
    ):
        bufsim.advise(s, ["utilization>=0.9"], engines=("fluid", "packet"), store=None, workers=0)
    # A refusal (BBR has no fluid law) is a verdict on the scenario: the
    # search goes on with packets and says why it has no fluid scan.
    monkeypatch.setattr(worker, "simulate", real)
    s = avrachenkov2006.runs.scenario(5, 1, duration="3s")
    s.update(warmup="1s")
    s["flows"][0].update(tcp="bbr", sack=True)
    a = bufsim.advise(s, ["utilization>=0.5"], engines=("fluid", "packet"), store=None, workers=0)
    scan = a.table.set_index("source").loc["fluid scan", "note"]
    assert scan.startswith("no fluid scan: ScenarioError: flows[0].tcp")
    (note,) = [n for n in a.notes if n.startswith("no analytic model")]
    assert "the models cover long-lived NewReno/AIMD" in note
    assert note.endswith("this scenario's long-lived flows: 5 bbr")
    assert a.feasible


def test_hstcp_fixed_point_rule_on_paper_001():
    from bufsim.advise import parse_objective as po
    from bufsim.advise.rules import rule_rows as _rules
    from bufsim.reproduce import barman2005

    norm = bufsim.Scenario.load(barman2005.runs.scenario(0.1)).normalized
    rows = {
        r["source"]: r for r in _rules(norm, [po("utilization>=0.9")], 4 * norm["link"]["bdp_pkts"])
    }
    hs = rows["HSTCP fixed point (paper 001)"]
    # Paper 001: about 10% of the BDP (12500 packets) gives 90% utilization;
    # the M/M/1/K fixed point reaches it with less (0.995 at 10%).
    assert hs["applies"] and hs["buffer_pkts"] <= 0.1 * norm["link"]["bdp_pkts"]


@pytest.mark.slow
def test_advise_on_paper_001_hstcp(tmp_path):
    # Paper 001 section III: 10 HSTCP flows, 1 Gbps, 120 ms, 1 KB packets:
    # "about 10%" of 12500 packets gives 90% utilization. Measured (3 seeds,
    # 200 s runs): 1024 packets (8.2%), 18 packet runs, the fluid engine at
    # X = 1 gives the same buffer. The M/M/1/K fixed point asks for 91
    # packets, where the packet engine reads 0.15: the fixed point has no
    # timeouts, and NewReno HSTCP windows of ~1250 packets losing bursts in a
    # 91-packet buffer time out.
    from bufsim.reproduce import barman2005

    a = bufsim.advise(barman2005.runs.scenario(0.1), ["utilization>=0.9"], seeds=3, store=tmp_path)
    frac = a.buffer_pkts / barman2005.design.FULL_BUFFER_PKTS
    assert a.feasible and 0.05 <= frac <= 0.2, frac  # "about 10%", within a factor 2
    t = a.table.set_index("source")
    fp = t.loc["HSTCP fixed point (paper 001)"]
    assert fp["buffer_pkts"] < a.buffer_pkts
    assert fp["utilization>=0.9"] < 0.9  # the packet engine at the fixed point's buffer


def test_fluid_form_leaves_out_finite_and_closed_traffic():
    from bufsim.advise.fluid import fluid_form as _fluid_form

    scn = bufsim.Scenario.load(
        {
            "name": "mix",
            "duration": "5s",
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "10pkt"},
            "flows": [
                {"count": 2, "rtt": "20ms", "stack": "rfc"},
                {"count": 10, "size": "30pkt", "rtt": "20ms"},
                {"users": 3, "think": "1s", "size": "20pkt", "rtt": "20ms"},
            ],
        }
    )
    raw, changed = _fluid_form(scn.raw, scn.normalized)
    assert len(raw["flows"]) == 1 and "background" not in raw
    assert changed == "flows[1] (finite) left out; flows[2] (closed) left out"


def test_rules_take_the_flows_each_model_covers():
    # The 10 Gbps example mixes 1000 CUBIC and 1000 NewReno flows with web
    # traffic: B0 (paper 003) takes the 1000 AIMD flows, BDP^2 / (18 N)
    # synchronized, and names the CUBIC flows it left out.
    from bufsim.advise import parse_objective as po
    from bufsim.advise.rules import rule_rows as _rules

    norm = bufsim.Scenario.load(bufsim.examples.path("advise-10g")).normalized
    bdp = norm["link"]["bdp_pkts"]
    rows = {r["source"]: r for r in _rules(norm, [po("utilization>=0.98")], 4 * bdp)}
    b0 = rows["B0 synchronized (paper 003)"]
    assert b0["applies"] and b0["buffer_pkts"] == pytest.approx(bdp**2 / (18 * 1000))
    assert "N = 1000 AIMD flows; left out: 1000 cubic" in b0["note"]
    hs = rows["HSTCP fixed point (paper 001)"]
    assert not hs["applies"] and "HighSpeed flows only" in hs["note"]
    # The model columns: avrachenkov on the NewReno flows, the web traffic
    # as Poisson background at its offered load (0.1 x 10 Gbps).
    from bufsim.advise.rules import model_columns as _model_columns

    t = pd.DataFrame({"source": ["x", "y"], "buffer_pkts": [1000.0, 20000.0]})
    notes, model = _model_columns(
        t,
        bufsim.Scenario.load(bufsim.examples.path("advise-10g")).raw,
        [po("utilization>=0.98"), po("mean_queue_delay<=5ms")],
    )
    assert notes == [
        "no analytic model covers every flow: the model columns are for flows[2] (open) "
        "as Poisson background of 1 Gbps; left out: 1000 cubic"
    ]
    assert model.name == "avrachenkov" and list(model.curve["buffer_pkts"]) == [1000.0, 20000.0]
    assert t["utilization>=0.98 (model)"].between(0.9, 1.0).all()
    # A full buffer of B packets at 1.2 us each bounds the mean delay.
    assert (t["mean_queue_delay<=5ms (model)"] <= t["buffer_pkts"] * 1.2e-6 + 1e-9).all()


def test_cli_advise_json_and_errors(tmp_path):
    s = tmp_path / "s.json"
    s.write_text(json.dumps(avrachenkov2006.runs.scenario(5, 1, duration="30s")))
    cmd = ["advise", str(s), "--store", str(tmp_path / "st")]
    ok = cli(*cmd, "-O", "utilization>=0.99", "--quick", "--json")
    assert ok.returncode == 0, ok.stderr
    d = json.loads(ok.stdout)
    assert d["feasible"] and d["buffer_pkts"] > 1
    runs = d["provenance"]["packet runs"]
    assert runs > 0 and d["provenance"]["packet runs run now"] == runs
    # The same search again: every run comes from the store, and the table
    # says what it cost.
    again = cli("-v", *cmd, "-O", "utilization>=0.99", "--quick")
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stdout.split())
    assert f"what it cost: {runs} packet runs (0 run now, the others read from the store)" in said
    bad = cli(*cmd, "-O", "utilisation>=0.99")
    said = " ".join(bad.stderr.split())
    assert (
        bad.returncode == 2 and "unknown metric 'utilisation'" in said and "Traceback" not in said
    )


def test_the_10g_example_is_a_valid_scenario():
    s = bufsim.Scenario.load(bufsim.examples.path("advise-10g"))
    assert sum(g["count"] for g in s.normalized["flows"]) == 2000
    # The checkout's experiments/advise-10g.toml is the same file (a link).
    here = Path(__file__).resolve().parents[1] / "experiments" / "advise-10g.toml"
    assert bufsim.Scenario.load(here).normalized == s.normalized


@pytest.mark.parametrize("first_true", [True, False])
@pytest.mark.parametrize("hint", [None, "exact", "off by 3", "creeping", "far"])
def test_search_from_a_guess_finds_the_edge(first_true, hint):
    from bufsim.advise.search.grid import gallop as _search

    n = 37
    most: dict[str | None, int] = {}
    for edge in range(-1, n + 1):
        # The first index past the edge: where the predicate turns.
        turn = edge if first_true else edge + 1

        def suggest(a, b, turn=turn):
            # What the measurements might say: the turn itself, a miss by 3,
            # one step inside the bracket from its top (a model that
            # always sees the edge just below), or the far end.
            j = {
                "exact": turn,
                "off by 3": turn + 3,
                "creeping": b - 1,
                "far": a + 1,
            }[hint]
            j = min(max(j, a + 1), b - 1)
            return j if a < j < b else None

        for guess in (None, edge - 9, edge - 1, edge, edge + 1, edge + 13):
            if guess is not None and not 0 <= guess < n:
                continue
            probed: set[int] = set()

            def pred(i, edge=edge, probed=probed):
                assert 0 <= i < n
                probed.add(i)
                return i >= edge if first_true else i <= edge

            want = min(max(edge, 0), n) if first_true else min(max(edge, -1), n - 1)
            got = _search(pred, guess, n, first_true=first_true, suggest=suggest if hint else None)
            assert got == want, (edge, guess, got)
            if guess == edge and 0 < edge < n - 1 and hint in (None, "exact"):
                # An exact guess: the edge and its neighbour across it.
                assert len(probed) == 2, (edge, sorted(probed))
            if hint == "exact" and 0 < turn < n:
                # An exact suggestion: the guess (without one, both ends of
                # the grid), then the edge's pair.
                assert len(probed) <= (3 if guess is not None else 4), (edge, guess, probed)
            most[hint] = max(most.get(hint, 0), len(probed))
    # Every hint within the unguided search's bound (measured, n = 37:
    # at most 8 probes unguided, 4 with the exact turn, 9 off by 3, 13 with
    # a suggestion always at the top of the bracket or at its bottom).
    assert most[hint] <= 2 * math.ceil(math.log2(n)) + 2
    assert hint != "exact" or most[hint] <= 4


def test_a_guess_that_says_nothing_starts_the_walk_a_doubling_away():
    from bufsim.advise.search.grid import gallop as _search

    # A grid of 2 points per doubling, the edge 7 below a guess that holds
    # with nothing measured (a link never idle): the walk's first step is a
    # doubling (2 points), not the neighbour; every edge is still found.
    n = 37
    for edge in range(0, 30):
        seen: list[int] = []

        def pred(i, edge=edge, seen=seen):
            seen.append(i)
            return i >= edge

        guess = min(edge + 7, n - 1)
        got = _search(pred, guess, n, first_true=True, first_step=lambda i: 2)
        assert got == edge, (edge, got)
        assert seen[:2] == [guess, max(guess - 2, 0)] or guess - edge < 2, (edge, seen)
    seen.clear()
    _search(lambda i: seen.append(i) or i >= 10, 17, n, first_true=True, first_step=lambda i: 2)
    assert seen == [17, 15, 11, 3, 7, 9, 10], seen


@pytest.mark.parametrize("n", [1, 2, 19, 38, 77])
def test_fluid_edges_are_bisected_together(n):
    from bufsim.advise.search.grid import first_true_together as _first_true_together

    # Every pair of edges (first true index; n: none) over grids the fluid
    # scan uses (19 points quick, 77 full): found exactly, every round at
    # most two runs, the rounds within the bound of a bisection of each
    # (log2 for two edges together, log3 for one).
    worst = {1: 0, 2: 0}
    for up in range(n + 1):
        for down in range(n + 1):
            rounds: list[list[int]] = []
            got = _first_true_together(
                {"up": lambda i, e=up: i >= e, "down": lambda i, e=down: i >= e},
                n,
                rounds.append,
            )
            assert got == {"up": up, "down": down}
            assert all(len(r) <= 2 and all(0 <= i < n for i in r) for r in rounds)
            worst[2] = max(worst[2], len(rounds))
        rounds = []
        assert _first_true_together({"up": lambda i, e=up: i >= e}, n, rounds.append) == {"up": up}
        worst[1] = max(worst[1], len(rounds))
        # From the ends: an edge at either end in one round, else one more.
        rounds = []
        got = _first_true_together({"up": lambda i, e=up: i >= e}, n, rounds.append, ends=True)
        assert got == {"up": up}
        assert len(rounds) == 1 if up in (0, n) else len(rounds) <= 1 + worst[1]
    assert worst[2] <= math.ceil(math.log2(n + 1)), worst
    assert worst[1] <= math.ceil(math.log(n + 1, 3)), worst


def test_calibrated_edge_shifts_the_fluid_curve_by_the_packet_measurement():
    from bufsim.advise import parse_objective as po
    from bufsim.advise.fluid import calibrated_edge as _calibrated_edge

    # The 10 Gbps example's fluid scan: utilization 0.940 / 0.9828 / 1.0 at
    # 5793 / 11585 / 23170 packets; the packet engine reads 1.0 at 11585.
    curve = pd.Series([0.85, 0.940, 0.9828, 1.0, 1.0], index=[2896, 5793, 11585, 23170, 46341])
    util = po("utilization>=0.98")
    # Fluid edge: 0.98 log-interpolated between 5793 and 11585, 5793 x
    # 2^((0.98 - 0.94) / 0.0428) = 11070 packets; the packet engine's 1.0
    # is the fluid's at 23170 (its first buffer at 1.0), half as far again:
    # the edge moves to 11070 x 11585 / 23170 = 5535.
    assert _calibrated_edge(curve, util, 1.0, 11585) == pytest.approx(5535, rel=2e-3)
    # A packet engine that reads what the fluid reads leaves the edge.
    edge = 5793 * (11585 / 5793) ** ((0.98 - 0.94) / (0.9828 - 0.94))
    assert _calibrated_edge(curve, util, 0.9828, 11585) == pytest.approx(edge, rel=1e-9)
    # Worse than the fluid (0.94 at 11585, the fluid's 0.94 is at 5793): it moves up.
    assert _calibrated_edge(curve, util, 0.94, 11585) == pytest.approx(
        edge * 11585 / 5793, rel=1e-9
    )
    # A link never idle only bounds the shift: 1.0 at 46341, where the
    # fluid reaches it at 23170, says the packet engine needs at most twice
    # the fluid's buffer, not that it needs twice: the fluid's own edge.
    assert _calibrated_edge(curve, util, 1.0, 46341) == pytest.approx(edge, rel=1e-9)
    # Without a measurement: the fluid's own edge, interpolated.
    assert _calibrated_edge(curve, util) == pytest.approx(edge, rel=1e-9)
    # An objective met at no fluid buffer gives no edge.
    assert _calibrated_edge(curve * 0.9, util, 1.0, 11585) is None
    # "<=" objectives that grow with the buffer (loss) read the other way.
    loss = pd.Series([0.04, 0.02, 0.01, 0.005], index=[100, 200, 400, 800])
    moved = _calibrated_edge(loss, po("drop_rate<=0.01"), 0.005, 400)
    assert moved == pytest.approx(400 * 400 / 800)


def test_calibration_point_is_the_measurement_nearest_the_bound():
    from bufsim.advise import parse_objective as po
    from bufsim.advise.fluid import calibrated_edge as _calibrated_edge
    from bufsim.advise.fluid import calibration_point as _calibration_point

    curve = pd.Series([0.85, 0.940, 0.9828, 1.0, 1.0], index=[2896, 5793, 11585, 23170, 46341])
    util = po("utilization>=0.98")
    # The 10 Gbps example's quick search probes 4096 and 5793 for the delay
    # edge first (the packet engine reads 0.99815 and 0.9983 there): 4096 is
    # nearer the bound. The fluid reads 0.99815 at 11585 x
    # 2^((0.99815 - 0.9828) / 0.0172) = 21487, so its edge 11070 moves to
    # 11070 x 4096 / 21487 = 2109: the grid point 2048, where the search
    # then finds the edge (2048 fails, 2896 holds) in two probes.
    means = {4096.0: 0.99815, 5793.0: 0.9983}
    assert _calibration_point(means, curve, util) == 4096.0
    edge = 5793 * (11585 / 5793) ** ((0.98 - 0.94) / (0.9828 - 0.94))
    eq = 11585 * 2 ** ((0.99815 - 0.9828) / (1.0 - 0.9828))
    assert _calibrated_edge(curve, util, 0.99815, 4096) == pytest.approx(edge * 4096 / eq, rel=1e-9)
    assert 2000 < edge * 4096 / eq < 2200
    # A value at the fluid's best (1.0) only bounds the shift: an
    # unsaturated one is preferred even when farther from the bound.
    assert _calibration_point({11585.0: 1.0, 2048.0: 0.95}, curve, util) == 2048.0
    # Only saturated values: the nearest one; none: None.
    assert _calibration_point({11585.0: 1.0, 23170.0: 1.0}, curve, util) == 11585.0
    assert _calibration_point({}, curve, util) is None
    # "<=" objectives (loss falls with the buffer) compare the other way.
    loss = pd.Series([0.04, 0.02, 0.01, 0.005], index=[100, 200, 400, 800])
    assert _calibration_point({800.0: 0.004, 200.0: 0.03}, loss, po("drop_rate<=0.01")) == 200.0


def test_advice_shows_what_the_buffer_costs(web_mix):
    # At the recommended buffer: loss, timeouts, delays, fairness and the
    # transfers' completions, each as the mean over the seeds with its
    # two-sided t interval, in the table, the JSON and the report.
    import numpy as np
    from bufsim._stats import t_half_width

    a, _, _ = web_mix
    rec = a.costs[a.costs["source"] == "recommended"].iloc[0]
    runs = a.runs[(a.runs["engine"] == "packet") & (a.runs["buffer_pkts"] == a.buffer_pkts)]
    assert rec["seeds"] == len(runs) >= 2
    assert rec["drop_rate"] == pytest.approx(runs["drop_rate"].mean(), rel=1e-12)
    assert rec["drop_rate ±"] == pytest.approx(
        t_half_width(runs["drop_rate"].to_numpy(), 0.975), rel=1e-12
    )
    # The senders' timeouts cover the whole run: per flow per simulated second.
    rate = (runs["timeouts"] / runs["active_flows_mean"] / a.duration_s).to_numpy()
    assert rec["flow_timeout_rate"] == pytest.approx(np.mean(rate), rel=1e-12)
    assert 0 < rec["completion_small"] <= 1
    text = a.cost_table()
    row = text[text["source"] == "recommended"].iloc[0]
    assert " ± " in row["loss rate"] and row["p99 FCT, small"].endswith(" s")
    assert any(c["source"] == "recommended" for c in a.to_dict()["costs"])
    assert "What each measured buffer costs" in a.to_html()
    assert "What each measured buffer costs" in a._repr_html_()


def test_advice_states_its_scenario_stack_and_provenance(web_mix):
    # The report says what the answer is for (link, flows, RTTs, the stack
    # each group assumes) and what it rests on (version, commit, seeds,
    # runs, simulated and wall time), readable rather than a JSON dump.
    a, _, _ = web_mix
    lines = a.scenario.describe(buffer=False)
    assert lines[1].startswith("link: 10 Mbps, one-way delay 45 ms, droptail, BDP")
    assert "stack rfc" in lines[2] and "RTT 100 ms" in lines[2]
    # Its groups name their stack; groups that name none get a note on what
    # the answer then assumes.
    assert not any("name no stack" in n for n in a.notes)
    from bufsim.advise.rules import default_stack_notes

    unnamed = {
        **WEB_MIX,
        "flows": [{k: v for k, v in g.items() if k != "stack"} for g in WEB_MIX["flows"]],
    }
    (note,) = default_stack_notes(unnamed)
    assert note.startswith("flows[0], flows[1] name no stack") and "default linux" in note
    p = a.provenance()
    packet = a.runs[a.runs["engine"] == "packet"]
    assert p["packet runs"] == len(packet) and p["seeds"].startswith("1, 2")
    assert p["simulated s (packet runs)"] == pytest.approx(len(packet) * 60.0)
    assert p["wall s (search)"] > 0
    # What it cost: every packet run's bottleneck packets and wall time.
    assert p["packets simulated (packet runs)"] == (
        packet["packets_delivered"].sum() + packet["packets_dropped"].sum()
    )
    assert 0 < p["wall s (packet runs)"] == pytest.approx(packet["wall_s"].sum())
    assert p["packet runs run now"] == (~packet["cached"]).sum()
    page = a.to_html()
    assert "How it was computed" in page and "stack rfc" in page and "bufsim version" in page
    assert a.to_dict()["provenance"]["packet runs"] == len(packet)
    assert "<li>" in a.scenario._repr_html_()


def _gap_notes(s, edges, model=None):
    """engine_gap_notes for a search laid out in one namespace ``s``: its
    plan's fields and the fluid scan's under their former names."""
    from bufsim.advise.notes import engine_gap_notes
    from bufsim.advise.search.fluid_scan import FluidScan

    scan = FluidScan(
        objs=s.fluid_objs,
        guess_up=s.guess_up,
        guess_down=s.guess_down,
        table=s.fluid_table,
        resynced=s.resynced,
    )
    return engine_gap_notes(s, scan, s.runs, edges, model)


def test_engines_that_disagree_say_so_and_why():
    # The 5000-flow backbone port of issue 36 in miniature: the fluid scan
    # (every flow cutting at each overflow) puts the edge at 2896 packets,
    # the packet engine answers 128, where it measured a loss
    # synchronization of 0.19 and many timeouts. The note says which engine
    # decides, by how much the fluid differs and the measured reasons.
    from types import SimpleNamespace

    from bufsim.advise.search.packet import Edges as _Edges

    runs = pd.DataFrame(
        {
            "engine": ["fluid", "packet", "packet"],
            "buffer_pkts": [2896.0, 128.0, 128.0],
            "sync_mean": [1.0, 0.18, 0.20],
            "timeouts": [0.0, 27000.0, 28000.0],
            "active_flows_mean": [5000.0, 5000.0, 5000.0],
        }
    )
    util = parse_objective("utilization>=0.95")
    s = SimpleNamespace(
        objs=[util],
        fluid_objs=[util],
        guess_up=1,
        guess_down=None,
        grid=[128, 2896],
        runs=[runs],
        fluid_table=runs[runs["engine"] == "fluid"],
        norm={"duration_s": 32.0, "warmup_s": 15.0},
        fluid_raw={},
        resynced=None,
    )
    (note,) = _gap_notes(s, _Edges(lower=0, upper=1))
    assert note.startswith(
        "engines disagree on utilization>=0.95: the packet engine decides (it holds from 128 "
        "packets); the fluid scan puts that edge at 2896 packets (22.6x)."
    )
    # 27000 and 28000 timeouts of 5000 flows over the whole 32 s run (the
    # senders' counters cover it, warm-up included): 0.17 per flow per second.
    assert (
        "synchronization of 0.19 (sync_mean) and 0.17 timeouts per flow per second (whole run)"
        in note
    )
    assert "fluid form overstates the buffer" in note
    # No buffer meets every objective: the edge is still compared.
    assert _gap_notes(s, _Edges(lower=0, upper=-1, interval=None)) == [note]
    # Within a factor of two (2048 against 2896): nothing to say.
    assert _gap_notes(SimpleNamespace(**{**vars(s), "grid": [2048, 2896]}), _Edges(0, 1)) == []
    # With the fluid edge found again at the measured synchronization
    # (X = 0.19, grid index 0: 128 packets), the note gives it instead.
    s.resynced = (0.19, 0, 0.19, 1.0)
    (note,) = _gap_notes(s, _Edges(lower=0, upper=1))
    assert "synchronization of 0.19 where the fluid scan had 1;" in note
    assert "with fluid.sync = 0.19 the fluid engine puts the edge at 128 packets (1x" in note


def test_engine_gaps_at_the_delay_edge_and_in_the_model_columns():
    # One mechanism for every edge and engine: utilization holds from 64
    # packets and the mean delay up to 256 for the packet engine. The fluid
    # scan agrees on the first edge and allows only 32 packets of delay
    # (8x less); the analytic model meets the utilization from 16 packets
    # (4x less) and the delay up to 512 (2x: within ENGINE_GAP).
    from types import SimpleNamespace

    from bufsim.advise.rules import Model as _Model
    from bufsim.advise.search.packet import Edges as _Edges
    from bufsim.models.scenario import SPECS

    util, delay = parse_objective("utilization>=0.95"), parse_objective("mean_queue_delay<=5ms")
    grid = [16, 32, 64, 128, 256, 512]
    runs = pd.DataFrame(
        {
            "engine": ["packet"] * 2,
            "buffer_pkts": [256.0, 256.0],
            "sync_mean": [0.5, 0.5],
            "timeouts": [0.0, 0.0],
            "active_flows_mean": [10.0, 10.0],
        }
    )
    s = SimpleNamespace(
        objs=[util, delay],
        fluid_objs=[util, delay],
        guess_up=2,
        guess_down=1,
        grid=grid,
        runs=[runs],
        fluid_table=pd.DataFrame({"buffer_pkts": [16.0]}),
        norm={"duration_s": 30.0, "warmup_s": 10.0},
        fluid_raw={},
        resynced=None,
    )
    model = _Model(
        name="avrachenkov",
        source=SPECS["avrachenkov"].source,
        assumptions=list(SPECS["avrachenkov"].assumptions),
        curve=pd.DataFrame(
            {
                "buffer_pkts": [float(b) for b in grid],
                "utilization": [0.96, 0.97, 0.98, 0.99, 1.0, 1.0],
                "mean_queue_delay_s": [0.5e-3, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3],
            }
        ),
    )
    model_note, fluid_note = _gap_notes(s, _Edges(lower=2, upper=4), model)
    assert model_note.startswith(
        "engines disagree on utilization>=0.95: the packet engine decides (it holds from 64 "
        "packets); the analytic model (avrachenkov) puts that edge at 16 packets (0.25x). The "
        "model (paper 003 (Avrachenkov et al.) Theorem 1) assumes: persistent flows only"
    )
    assert "desynchronized: one flow cuts its window per congestion event" in model_note
    assert fluid_note.startswith(
        "engines disagree on mean_queue_delay<=5ms: the packet engine decides (it holds up to "
        "256 packets); the fluid scan puts that edge at 32 packets (0.125x). The fluid form has"
    )
    assert "the packet runs at 256 packets measured a loss synchronization of 0.5" in fluid_note
    # An engine that does not measure every objective of an edge is not compared on it.
    s.fluid_objs = [util]
    assert _gap_notes(s, _Edges(lower=2, upper=4), model) == [model_note]


def test_a_many_flow_port_explains_the_fluid_gap_with_its_measured_sync():
    # The backbone port of issue 36 at a tenth of its rate: 1000 CUBIC flows
    # (linux stack, RTTs 10-300 ms) on 1 Gbps. Measured: the packet engine
    # answers 45 packets for utilization >= 0.95; the fluid scan (every flow
    # cutting at each overflow) put the edge at 181 (4x). The packet runs
    # lose few flows at a time (sync_mean 0.26) and time out (0.55 per flow
    # per second); the fluid engine at that synchronization (X = 0.264)
    # meets the objective from 1 packet: it has no timeouts. The packet
    # answer lies between the two fluid edges, and the note says so.
    raw = {
        "name": "backbone-1g",
        "seed": 1,
        "link": {"capacity": "1Gbps", "delay": "5ms", "buffer": "1BDP", "packet_size": "1500B"},
        "flows": [
            {
                "count": 1000,
                "tcp": "cubic",
                "rtt": {"uniform": ["10ms", "300ms"]},
                "mss": "1500B",
                "stack": "linux",
                "start": {"uniform": ["0s", "1s"]},
            }
        ],
    }
    a = bufsim.advise(raw, ["utilization>=0.95"], quick=True, store=None, workers=0)
    assert a.feasible and 23 <= a.buffer_pkts <= 91
    (note,) = [n for n in a.notes if n.startswith("engines disagree")]
    fluid = a.runs[a.runs["engine"] == "fluid"]
    edge = fluid.loc[fluid["utilization"] >= 0.95, "buffer_pkts"].min()
    assert edge / a.buffer_pkts > 2
    resync = a.runs[a.runs["engine"].str.startswith("fluid X=")]
    x = float(resync["engine"].iloc[0].removeprefix("fluid X="))
    packet = a.runs[(a.runs["engine"] == "packet") & (a.runs["buffer_pkts"] == a.buffer_pkts)]
    assert x == pytest.approx(packet["sync_mean"].mean(), abs=5e-4) and 0.1 < x < 0.5
    resync_edge = resync.loc[resync["utilization"] >= 0.95, "buffer_pkts"].min()
    assert resync_edge < a.buffer_pkts < edge
    assert f"with fluid.sync = {x:g} the fluid engine puts the edge at {resync_edge:g}" in note
    assert "loses no time to timeouts" in note
    assert not any("name no stack" in n for n in a.notes)
    # The reruns at the measured synchronization count among the fluid runs.
    assert a.provenance()["fluid runs"] == len(fluid) + len(resync)
    window = a.duration_s - a.warmup_s
    assert (packet["timeouts"] / packet["active_flows_mean"] / window).mean() > 0.1


def _hand_made_advice():
    """An infeasible advice over hand-made packet runs (seeds 1-2; three at
    40 packets, as adaptive seeds leave them): utilization >= 0.95 against
    p99 FCT <= 500 ms. At 10 packets the FCT of seed 1 is only a lower
    bound (0.3 s, transfers unfinished), so the mean 0.3 s is one too."""
    from bufsim.advise import Advice
    from bufsim.advise.advice import measured_table as _measured_table

    objs = [parse_objective("utilization>=0.95"), parse_objective("fct_p99_small<=500ms")]
    runs = pd.DataFrame(
        {
            "engine": ["packet"] * 7 + ["fluid"] * 3,
            "buffer_pkts": [10.0, 10.0, 20.0, 20.0, 40.0, 40.0, 40.0, 10.0, 20.0, 40.0],
            "seed": [1, 2, 1, 2, 1, 2, 3, 1, 1, 1],
            "utilization": [0.80, 0.80, 0.92, 0.921, 0.97, 0.971, 0.972, 0.85, 0.95, 0.99],
            "fct_p99_small_s": [0.3, 0.3, 0.45, 0.451, 0.60, 0.601, 0.602, 0.35, 0.5, 0.65],
            "fct_p99_small_s_censored": [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        }
    )
    table = pd.DataFrame(
        [{"source": "BDP", "buffer_pkts": 10.0, "applies": True, "note": "C x mean RTT"}]
    )
    table = _measured_table(table, runs, objs, 0.95, False, math.nan)
    scn = bufsim.Scenario.load(
        {
            "name": "hand",
            "duration": "10s",
            "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
            "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B", "stack": "linux"}],
        }
    )
    return Advice(
        objectives=objs,
        feasible=False,
        buffer_pkts=math.nan,
        buffer_bytes=math.nan,
        range=(math.nan, math.nan),
        binding="utilization>=0.95 needs at least 40 packets but ...",
        table=table,
        runs=runs,
        confidence=0.95,
        packet_size_bytes=1000,
        notes=["engines disagree on utilization>=0.95: the packet engine decides"],
        duration_s=10.0,
        warmup_s=2.0,
        scenario=scn,
    )


def test_a_lower_bound_is_shown_as_one_and_never_on_the_front():
    a = _hand_made_advice()
    o = "fct_p99_small<=500ms"
    # The table keeps the lower bound's flag beside the mean; it meets nothing.
    bdp = a.table.iloc[0]
    assert bdp[o] == pytest.approx(0.3) and bdp[f"{o} censored"] and bdp["meets all"] is False
    t = a.tradeoff().set_index("buffer_pkts")
    assert list(t[f"{o} censored"]) == [True, False, False]
    assert not t.loc[10.0, f"{o} holds"]
    # 0.3 s would be the best FCT, so on the front were it a value; as a
    # lower bound it is not, and it dominates no other buffer: 20 (0.92,
    # 450 ms) and 40 (0.971, 601 ms) are the front.
    assert list(t["pareto"]) == [False, True, True]
    # Its verdict in words: the lower bound (300 ms) still meets 500 ms, so
    # it cannot be judged there; 601 ms at 40 packets fails.
    assert list(t[f"{o} verdict"]) == ["cannot be judged", "holds", "fails"]
    assert list(t["utilization>=0.95 verdict"]) == ["fails", "fails", "holds"]
    # Every view says ">= 300 ms" for it, with the units of bufsim.fmt.
    shown = a.formatted(a.tradeoff()).set_index("buffer_pkts")
    assert shown.loc[10.0, o] == ">= 300 ms" and shown.loc[20.0, o] == "450.5 ms"
    assert shown.loc[40.0, "utilization>=0.95"] == "0.971" and f"{o} censored" not in shown
    assert a.formatted(a.table).loc[0, o] == ">= 300 ms"
    for page in (a.to_html(), a._repr_html_()):
        assert "&gt;= 300 ms" in page and ">0.3<" not in page and "0.4505" not in page


def test_the_notebook_view_carries_notes_scenario_and_provenance():
    a = _hand_made_advice()
    view = a._repr_html_()
    assert "engines disagree on utilization&gt;=0.95" in view
    assert "stack linux" in view and "link: 10 Mbps, one-way delay 45 ms" in view
    assert "How it was computed" in view and "bufsim version" in view
    # Infeasible: the trade-off is in both views, from the same sections.
    assert "The trade-off" in view and "The trade-off" in a.to_html()
    assert [s.title for s in a.sections(figures=False)] == [
        s.title for s in a.sections() if s.id != "figures"
    ]


def test_the_advice_figure_states_its_seeds_bound_and_errors_with_units():
    a = _hand_made_advice()
    fig = a.plot()
    util, fct = fig.axes
    # Adaptive seeds: two per buffer, three at 40 packets; over so few the
    # band is cut at the seeds' extremes (bufsim.plot._seed_spread), and
    # the title says so. Both seeds at 10 packets give 0.80: no band there.
    assert util.get_title().replace("\n", " ") == (
        "utilization>=0.95 band: 95% t-interval over 2 seeds per point (3 at 40): "
        "interval wide, cut at the seeds' extremes; no band where the seeds give one value"
    )
    labels = [x.get_text() for x in fct.get_legend().get_texts()]
    assert "objective 500 ms" in labels
    # The mean at 10 packets is a lower bound: marked as one.
    assert "only a lower bound (unfinished transfers)" in labels
    # Fluid against packet means: 50, 49.5 and 49 ms apart: RMS 49.5 ms.
    (fluid,) = [x for x in labels if x.startswith("fluid")]
    assert fluid == "fluid (vs packet: RMS 49.5 ms, max 50 ms)"


def test_unjudgeable_completion_times_are_not_stated_as_failures():
    from types import SimpleNamespace

    from bufsim.advise.search.packet import Edges as _Edges
    from bufsim.advise.search.probes import Probes
    from bufsim.advise.search.runs import Runner
    from bufsim.advise.search.verdict import verdict

    o = parse_objective("fct_mean_small<=1s")
    s = SimpleNamespace(grid=[2, 4, 8, 16], objs=[o], hi=16.0, bdp=4.0)
    runner = Runner(s, {}, None)
    probes = Probes(s, runner)

    def runs(values, censored):
        return pd.DataFrame(
            {
                "engine": "packet",
                "buffer_pkts": [float(b) for b in s.grid],
                "fct_mean_small_s": values,
                "fct_mean_small_s_censored": censored,
            }
        )

    # 2 fails (1.5 s), 4 and 8 are lower bounds below 1 s (0.6 and 0.8 s),
    # 16 is a lower bound already past it (1.2 s): a failure.
    runner.runs = [runs([1.5, 0.6, 0.8, 1.2], [0.0, 1.0, 1.0, 1.0])]
    probes.probed = {b: [False] for b in s.grid}
    feasible, _, _, why = verdict(s, probes, _Edges(lower=0, upper=3, interval=None))
    assert not feasible
    assert why == (
        "fct_mean_small<=1s holds at no buffer from 2 to 16 packets where it can be judged; "
        "it cannot be judged at 4, 8 packets (unfinished transfers leave it only a lower "
        "bound there)"
    )
    runner.runs = [runs([0.6, 0.6, 0.8, 0.9], [1.0, 1.0, 1.0, 1.0])]
    why = verdict(s, probes, _Edges(lower=0, upper=3, interval=None))[3]
    assert why.startswith("fct_mean_small<=1s cannot be judged at any buffer measured from 2 to 16")
    # A recommendation whose next smaller buffer could not be judged says so.
    runner.runs = [runs([0.6, 0.7, 0.8, 0.9], [0.0, 1.0, 0.0, 0.0])]
    probes.probed = {2: [False], 4: [False], 8: [True], 16: [True]}
    feasible, rec, _, binding = verdict(s, probes, _Edges(lower=0, upper=3, interval=(2, 3)))
    assert feasible and rec == 8
    assert binding == (
        "Binding: fct_mean_small<=1s (at the next smaller grid buffer, 4 packets, "
        "fct_mean_small<=1s cannot be judged: unfinished transfers leave it only a lower bound)."
    )
    # A lower bound past the bound there is a failure.
    runner.runs = [runs([0.6, 1.3, 0.8, 0.9], [0.0, 1.0, 0.0, 0.0])]
    binding = verdict(s, probes, _Edges(lower=0, upper=3, interval=(2, 3)))[3]
    assert (
        binding == "Binding: fct_mean_small<=1s (the next smaller grid buffer, 4 packets, fails)."
    )


def test_crossing_reads_the_packet_measurements_on_their_scales():
    from bufsim.advise.search.probes import Probes
    from bufsim.advise.search.runs import Runner

    # The 5000-flow backbone example's quick search: utilization over two
    # seeds at 2048, 1024 and 512 packets (its edge lies between 91
    # packets, 0.9397, and 128, 0.9603).
    runner = Runner(None, {}, None)
    s = Probes(None, runner)

    def probe(b, key, v):
        runner.runs.append(
            pd.DataFrame({"engine": "packet", "buffer_pkts": [float(b)] * 2, key: [v, v]})
        )
        s.probed[b] = [True]

    for b, u in ((2048, 1.0), (1024, 0.9999984879), (512, 0.9986765971)):
        probe(b, "utilization", u)
    o = parse_objective("utilization>=0.95")
    # Extrapolated on log(1 - u) along the buffer from 512 and 1024 (the
    # 1.0 at 2048 says nothing about how far below the edge is).
    y0, y1, y = math.log(1 - 0.9986765971), math.log(1 - 0.9999984879), math.log(0.05)
    want = 512 + (y - y0) * (1024 - 512) / (y1 - y0)
    assert s.crossing(o) == pytest.approx(want) and 230 < want < 245
    # Along log buffer the same two points put it at 353 packets: further
    # from the edge the longer runs measured.
    along_log = math.exp(math.log(512) + (y - y0) * math.log(2) / (y1 - y0))
    assert 350 < along_log < 356
    # A probe past the bound: interpolated between the pair that straddles it.
    probe(91, "utilization", 0.9396663191)
    y0 = math.log(1 - 0.9396663191)
    y1 = math.log(1 - 0.9986765971)
    assert s.crossing(o) == pytest.approx(91 + (y - y0) * (512 - 91) / (y1 - y0))
    # One probe that says something is not enough.
    runner.runs, s.probed = [], {}
    probe(2048, "utilization", 1.0)
    probe(724, "utilization", 0.99975)
    assert s.crossing(o) is None
    # A delay: its log along log buffer (a power law; here proportional).
    runner.runs, s.probed = [], {}
    probe(100, "p99_queue_delay_s", 0.001)
    probe(400, "p99_queue_delay_s", 0.004)
    assert s.crossing(parse_objective("p99_queue_delay<=2ms")) == pytest.approx(200)


def test_a_fifo_queue_bounds_its_delays_by_its_length():
    from bufsim.advise.search.plan import fifo_wait_per_packet

    # 20 NewReno flows fill a 50-packet drop-tail queue on 10 Mbps: a
    # packet waits at most 50 serializations of 1500 B (1.2 ms each), and
    # the p99 the summary reports, read at a histogram bin's middle, at
    # most 1/256 above it. It comes close: the queue is full most of the time.
    s = {
        "duration": "10s",
        "warmup": "2s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
        "flows": [{"count": 20, "tcp": "newreno", "rtt": "40ms", "mss": "1500B"}],
    }
    norm = bufsim.Scenario.load(s).normalized
    wait = fifo_wait_per_packet(norm, "link.buffer")
    assert wait == pytest.approx(1.2e-3 * (1 + 1 / 256), rel=1e-9)
    for seed in (1, 2):
        r = bufsim.simulate({**s, "seed": seed})
        for key in ("mean_queue_delay_s", "p50_queue_delay_s", "p99_queue_delay_s"):
            assert r.summary[key] <= 50 * wait, (seed, key)
        assert r.summary["p99_queue_delay_s"] >= 0.95 * 50 * 1.2e-3
    # The largest packet sets it: background datagrams of 9000 B.
    big = {**s, "background": [{"kind": "poisson", "rate": "1Mbps", "packet_size": "9000B"}]}
    wait_big = fifo_wait_per_packet(bufsim.Scenario.load(big).normalized, "link.buffer")
    assert wait_big == pytest.approx(7.2e-3 * (1 + 1 / 256), rel=1e-6)
    # No bound where packets are not served in arrival order, or where the
    # buffer searched is not one link's.
    fq = {**s, "link": {**s["link"], "qdisc": "fq"}}
    assert fifo_wait_per_packet(bufsim.Scenario.load(fq).normalized, "link.buffer") is None
    assert fifo_wait_per_packet(norm, "pool.size") is None


def test_advise_holds_a_fifo_delay_bound_without_runs(tmp_path):
    # A delay objective a FIFO queue cannot break up to 8 packets (10 ms /
    # 1.2 ms): the search runs nothing there, and the range's top is the
    # last of them. Utilization >= 0.5 holds from 1 packet.
    s = {
        "duration": "6s",
        "warmup": "2s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
        "flows": [{"count": 10, "tcp": "newreno", "stack": "rfc", "rtt": "40ms", "mss": "1500B"}],
    }
    a = bufsim.advise(
        s,
        ["utilization>=0.5", "p99_queue_delay<=10ms"],
        engines=["packet"],
        quick=True,
        store=tmp_path,
    )
    ran = set(a.runs["buffer_pkts"].astype(int))
    held = [n for n in a.notes if "held without a packet run up to" in n]
    assert held and "p99_queue_delay<=10ms" in held[0], a.notes
    known = int(re.search(r"up to (\d+) packets", held[0]).group(1))
    assert known * 1.2e-3 * (1 + 1 / 256) <= 0.010
    # Bisected from the grid's middle down to 1 packet: 181, 11 (past the
    # bound: it breaks it), 1; nothing ran between 1 and the bound.
    assert a.range == (1.0, float(known)) and known == 8, (a.range, a.notes)
    assert ran == {1, 11, 181}, ran
