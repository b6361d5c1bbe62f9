"""Random scenarios, both engines: the invariants every run must keep.

Hypothesis draws scenarios over every TCP variant, queue discipline and
traffic kind (persistent, finite, open and closed loop, Poisson background)
at small sizes (a run takes milliseconds). For each run:

* utilization in [0, 1], goodput and throughput at most the capacity
  (relative slack 1e-9 for float rounding of sums over packets);
* drop rate in [0, 1]; the queue never above the buffer;
* conservation (packet engine): packets sent = delivered + dropped + in flight;
* no NaN anywhere in the summary (each metric is defined when there is
  nothing to measure; README "When there is nothing to measure");
* the same scenario and seed give a bit-identical summary;
* the fluid engine either runs it or refuses it with a ScenarioError
  naming a field.

``make test`` draws 2,000 scenarios (derandomized: the same ones on every
machine); ``make bench`` sets ``BUFSIM_PROPERTY_EXAMPLES=20000``.
"""

from __future__ import annotations

import math
import os

import bufsim
import pytest
from bufsim.scenario import QDISCS, TCP_VARIANTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("BUFSIM_PROPERTY_EXAMPLES", "2000"))
#: Relative slack on "at most the capacity" (float sums over many packets).
SLACK = 1e-9

# Every registered variant and discipline (the core's registries).
VARIANTS = list(TCP_VARIANTS)
SIZES = [
    "1pkt",
    "20pkt",
    "100KB",
    {"exponential": "30pkt"},
    {"pareto": {"shape": 1.3, "min": "5pkt"}},
]


@st.composite
def groups(draw, delay_ms: float):
    rtt_min = 2 * delay_ms + draw(st.sampled_from([1.0, 5.0, 20.0, 80.0]))
    g: dict = {
        "tcp": draw(st.sampled_from(VARIANTS)),
        "rtt": f"{rtt_min}ms"
        if draw(st.booleans())
        else {"min": f"{rtt_min}ms", "max": f"{2 * rtt_min}ms"},
        "sack": draw(st.booleans()),
        "delayed_ack": draw(st.booleans()),
    }
    kind = draw(st.sampled_from(["persistent", "persistent", "finite", "open", "closed"]))
    if kind == "persistent":
        g["count"] = draw(st.integers(1, 6))
    elif kind == "finite":
        g["count"] = draw(st.integers(1, 6))
        g["size"] = draw(st.sampled_from(SIZES))
    elif kind == "open":
        g["arrival"] = {"load": draw(st.sampled_from([0.1, 0.5, 0.9]))}
        g["size"] = draw(st.sampled_from(SIZES))
    else:
        g["users"] = draw(st.integers(1, 5))
        g["think"] = draw(st.sampled_from(["0.1s", "1s"]))
        g["size"] = draw(st.sampled_from(SIZES))
    if draw(st.integers(0, 4)) == 0:
        g["access_rate"] = draw(st.sampled_from(["2Mbps", "50Mbps"]))
    if draw(st.integers(0, 6)) == 0:
        g["loss"] = 0.01
    if draw(st.integers(0, 4)) == 0:
        g["stack"] = draw(st.sampled_from(["linux", "ns3"]))
    if draw(st.integers(0, 4)) == 0:
        g["ecn"] = True
    return g


@st.composite
def scenarios(draw) -> dict:
    delay_ms = draw(st.sampled_from([1.0, 5.0, 20.0]))
    qdisc = draw(st.sampled_from(QDISCS))
    s: dict = {
        "duration": f"{draw(st.sampled_from([0.3, 1.0, 2.0]))}s",
        "warmup": f"{draw(st.sampled_from([0.0, 0.1]))}s",
        "seed": draw(st.integers(1, 10_000)),
        "link": {
            "capacity": f"{draw(st.sampled_from([1, 5, 10, 20]))}Mbps",
            "delay": f"{delay_ms}ms",
            "buffer": draw(st.sampled_from(["1pkt", "5pkt", "30pkt", "200pkt", "0.1BDP", "1BDP"])),
            "qdisc": qdisc,
        },
        "flows": draw(st.lists(groups(delay_ms), min_size=1, max_size=2)),
    }
    if qdisc == "red" and draw(st.booleans()):
        s["link"]["qdisc_params"] = {"ecn": True}
    if qdisc == "threshold":
        s["link"]["qdisc_params"] = {"k": draw(st.sampled_from([0, 5, 20, "30000B"]))}
    if draw(st.integers(0, 3)) == 0:
        s["background"] = [
            {
                "kind": "poisson",
                "rate": f"{draw(st.sampled_from([0.2, 0.8]))}Mbps",
                "packet_size": "1000B",
            }
        ]
    return s


def _check_invariants(r: bufsim.Result, engine: str) -> None:
    s = r.summary
    nans = [k for k, v in s.items() if isinstance(v, float) and math.isnan(v)]
    assert not nans, f"NaN in {nans}"
    cap = r.scenario["link"]["capacity_bps"]
    assert 0.0 <= s["utilization"] <= 1.0 + SLACK, s["utilization"]
    assert 0.0 <= s["goodput_bps"] <= cap * (1 + SLACK), (s["goodput_bps"], cap)
    assert s.get("throughput_bps", 0.0) <= cap * (1 + SLACK)
    assert 0.0 <= s["drop_rate"] <= 1.0, s["drop_rate"]
    buffer = r.scenario["link"]["buffer_pkts"]
    assert s["mean_queue_pkts"] <= buffer * (1 + SLACK) + SLACK, (s["mean_queue_pkts"], buffer)
    if engine == "packet":
        assert s["max_queue_pkts"] <= buffer, (s["max_queue_pkts"], buffer)
        assert (
            s["packets_sent"]
            == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
        ), s


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(raw=scenarios(), engine=st.sampled_from(["packet", "packet", "fluid"]))
def test_random_scenarios_keep_the_invariants(raw, engine):
    try:
        scn = bufsim.Scenario.load(raw)
    except bufsim.ScenarioError as e:
        # Drawn combinations the schema refuses (e.g. ECN on a queue without
        # marking): a named field, never a crash.
        assert e.path, str(e)
        return
    try:
        first = bufsim.simulate(scn, engine=engine)
    except bufsim.ScenarioError as e:
        assert engine == "fluid", f"the packet engine refused a valid scenario: {e}"
        assert e.path and str(e).startswith(e.path), str(e)
        return
    _check_invariants(first, engine)
    again = bufsim.simulate(scn, engine=engine)
    assert again.summary == first.summary, "same scenario and seed, different result"


def test_the_draw_covers_every_variant_discipline_and_kind():
    """The strategy reaches every TCP variant, discipline and traffic kind
    (a property test that never draws fq_codel tests nothing about it)."""
    from hypothesis import find

    for variant in VARIANTS:
        find(scenarios(), lambda s, v=variant: any(g["tcp"] == v for g in s["flows"]))
    for qdisc in QDISCS:
        find(scenarios(), lambda s, q=qdisc: s["link"]["qdisc"] == q)
    for key in ("size", "arrival", "users"):
        find(scenarios(), lambda s, k=key: any(k in g for g in s["flows"]))
    find(scenarios(), lambda s: "background" in s)


@pytest.mark.parametrize("engine", ["packet", "fluid"])
def test_nothing_to_measure_is_defined(engine):
    """A run where nothing crosses the link: every metric defined (no NaN)."""
    raw = {
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
        "flows": [{"count": 1, "rtt": "20ms", "start": "0.99s"}],
        "warmup": "0.5s",
    }
    r = bufsim.simulate(raw, engine=engine)
    assert not [k for k, v in r.summary.items() if v != v]
    assert r.summary["jain_index"] == 1.0 and r.summary["sync_mean"] == 0.0


@settings(
    max_examples=min(EXAMPLES, 300),
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(raw=scenarios())
def test_random_scenarios_count_every_transfer_started(raw):
    """Completions over starts (issue 36): per size class, over all groups
    and per group, the summary's ``flows_started``, ``flows_completed`` and
    ``completion`` are the counts of finite transfers that started in the
    measurement window and of those that finished, read off the flows table,
    and their ratio; a class or group with none has no keys."""
    from bufsim.flows import classify

    try:
        r = bufsim.simulate(raw)
    except bufsim.ScenarioError:
        return  # refused by the schema: the test above checks the field named
    s, norm = r.summary, r.scenario
    f = classify(r, finished_only=False)
    f = f[(f["start_s"] >= norm["warmup_s"]) & (f["start_s"] < norm["duration_s"])]
    for c in ("small", "large"):
        cls = f[f["class"] == c]
        parts = [("", cls)] + [(f"_group{k}", cls[cls["group"] == k]) for k in range(2)]
        for suffix, g in parts:
            if g.empty:
                assert f"flows_started_{c}{suffix}" not in s
                continue
            done = int((g["finished"] == 1.0).sum())
            assert s[f"flows_started_{c}{suffix}"] == len(g)
            assert s[f"flows_completed_{c}{suffix}"] == done
            assert s[f"completion_{c}{suffix}"] == done / len(g)
