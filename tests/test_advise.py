"""`bufsim advise`: objectives in, a verified buffer out."""

from __future__ import annotations

import json
import subprocess
import sys

import bufsim
import pytest
from bufsim.advise import AdviceError, parse_objective
from bufsim.reproduce import avrachenkov2006


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


@pytest.fixture(scope="module")
def paper003(tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    s = avrachenkov2006.scenario(5, 1, duration="40s")
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
    # The analytic model's prediction beside the packet measurement: paper
    # 003's desynchronized model gives full utilization at B0 = 6 packets,
    # where the packet engine's synchronized identical-RTT flows get 0.78.
    model = rules["utilization>=0.999 (model)"]
    assert (
        model["B0 desynchronized (paper 003)"]
        > 0.99
        > rules.loc["B0 desynchronized (paper 003)", "utilization>=0.999"]
    )


def test_advice_outputs(paper003, tmp_path):
    _, _, a = paper003
    d = a.to_dict()
    assert d["buffer_pkts"] == a.buffer_pkts and d["feasible"]
    json.dumps(d)  # strict JSON
    page = a.to_html()
    assert 'id="fig-advice"' in page and "<script" not in page
    assert len(a.plot().axes) == 1
    assert "Recommended" in a._repr_html_()


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
        quick=True,
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


def test_hstcp_fixed_point_rule_on_paper_001():
    from bufsim.advise import _rules
    from bufsim.advise import parse_objective as po
    from bufsim.reproduce import barman2005

    norm = bufsim.Scenario.load(barman2005.scenario(0.1)).normalized
    rows = {
        r["source"]: r for r in _rules(norm, [po("utilization>=0.9")], 4 * norm["link"]["bdp_pkts"])
    }
    hs = rows["HSTCP fixed point (paper 001)"]
    # Paper 001: about 10% of the BDP (12500 packets) gives 90% utilization;
    # the M/M/1/K fixed point reaches it with less (0.995 at 10%).
    assert hs["applies"] and hs["buffer_pkts"] <= 0.1 * norm["link"]["bdp_pkts"]


def test_cli_advise_json_and_errors(tmp_path):
    s = tmp_path / "s.json"
    s.write_text(json.dumps(avrachenkov2006.scenario(5, 1, duration="30s")))
    cmd = [sys.executable, "-m", "bufsim.cli", "advise", str(s), "--store", str(tmp_path / "st")]
    ok = subprocess.run(
        [*cmd, "-O", "utilization>=0.99", "--quick", "--json"], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    d = json.loads(ok.stdout)
    assert d["feasible"] and d["buffer_pkts"] > 1
    bad = subprocess.run([*cmd, "-O", "utilisation>=0.99"], capture_output=True, text=True)
    said = " ".join(bad.stderr.split())
    assert (
        bad.returncode == 2 and "unknown metric 'utilisation'" in said and "Traceback" not in said
    )


def test_the_10g_example_is_a_valid_scenario():
    s = bufsim.Scenario.load(bufsim.examples.path("advise-10g"))
    assert sum(g["count"] for g in s.normalized["flows"]) == 2000
