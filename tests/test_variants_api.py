"""Every TCP variant and queue discipline from the Python API.

The numbers are checked in the Rust tests (``crates/bufsim-core/tests/
packet_cc_*.rs``, ``packet_qdisc_*.rs``); here each is selected through
``bufsim.simulate`` and checked for a real, variant-specific number.
"""

import math

import bufsim
import pytest
from bufsim.scenario import ScenarioError

#: Every name of the registry whose window under random loss follows a loss
#: response function; BBR's follows its bandwidth and RTT estimates, not p
#: (tests/test_bbr.py checks it).
VARIANTS = [t for t in bufsim._core.TCP_VARIANTS if t != "bbr"]
QDISCS = list(bufsim._core.QDISCS)


def _scn(tcp="newreno", qdisc="droptail", params=None, loss=0.0, duration="60s"):
    return {
        "duration": duration,
        "warmup": "10s",
        "link": {
            "capacity": "10Gbps",
            "delay": "1ms",
            "buffer": "100000pkt",
            "qdisc": qdisc,
            "qdisc_params": params or {},
        },
        "flows": [{"tcp": tcp, "rtt": "20ms", "mss": "1500B", "loss": loss}],
        "output": {"interval": "10ms", "cwnd": True},
    }


@pytest.mark.parametrize("tcp", VARIANTS)
def test_variant_runs_and_mean_window_is_its_response(tcp):
    # p = 1e-3 with a 10 Gbps link: the window is set by p alone. Reno-like
    # variants (and HSTCP at its Low_Window 38) sit near sqrt(3/(2p)) = 38.7;
    # Scalable near 0.08/p = 80. Tolerance 20% (60 s gives ~150 loss cycles).
    r = bufsim.simulate(_scn(tcp, loss=1e-3))
    ts = r.timeseries
    w = ts.loc[ts.index > 10.0, "cwnd_flow0"].mean()
    want = 0.08 / 1e-3 if tcp == "scalable" else math.sqrt(3 / (2 * 1e-3))
    if tcp == "cubic":
        want *= 1.1  # RFC 9438 Reno-friendly region sits ~10% above Reno (Rust test)
    assert abs(w / want - 1) < 0.2, (tcp, w, want)


@pytest.mark.parametrize("qdisc", QDISCS)
def test_qdisc_selectable_and_defaults_normalized(qdisc):
    s = {
        "duration": "20s",
        "link": {"capacity": "20Mbps", "delay": "10ms", "buffer": "500pkt", "qdisc": qdisc},
        "flows": [{"count": 4, "rtt": "100ms", "mss": "1500B"}],
    }
    if qdisc == "threshold":
        # K has no default; these NewReno flows are not ECN-capable: dropped above K.
        s["link"]["qdisc_params"] = {"k": 40}
    r = bufsim.simulate(s)
    # 20 s including slow start; RED's 5/15-packet defaults keep the queue short: > 60%.
    assert r.summary["utilization"] > 0.6
    qp = r.scenario["link"]["qdisc_params"]
    if qdisc == "codel":
        assert qp == {"target_s": 0.005, "interval_s": 0.1}
        # CoDel keeps the median queueing delay under twice its 5 ms target
        # (the 500-packet buffer alone would allow 300 ms); the Rust test
        # packet_qdisc_fq.rs checks it settles near 5 ms under overload.
        assert r.summary["p50_queue_delay_s"] < 0.01
    if qdisc == "red":
        assert (qp["min_th"], qp["max_th"], qp["max_p"], qp["w_q"], qp["gentle"]) == (
            5,
            15,
            0.1,
            0.002,
            True,
        )
    if qdisc == "pie":
        assert qp["target_s"] == 0.015
    if qdisc == "threshold":
        assert qp == {"k": 40, "k_unit": "packets"}


def test_bad_qdisc_params_name_the_field():
    with pytest.raises(ScenarioError, match=r"link.qdisc_params.target.*unit"):
        bufsim.Scenario.load(_scn(qdisc="codel", params={"target": 5}))
    with pytest.raises(ScenarioError, match=r"link.qdisc_params.quantm.*allowed are quantum"):
        bufsim.Scenario.load(_scn(qdisc="fq", params={"quantm": "1500B"}))
    with pytest.raises(ScenarioError, match=r"link.qdisc_params.drop_batch.*got 0"):
        bufsim.Scenario.load(_scn(qdisc="fq_codel", params={"drop_batch": 0}))
    with pytest.raises(
        ScenarioError,
        match=r"link.qdisc.*allowed are droptail, red, fq, codel, fq_codel, pie, threshold",
    ):
        bufsim.Scenario.load(_scn(qdisc="sfq"))


@pytest.mark.parametrize("tcp", bufsim._core.TCP_VARIANTS)
def test_every_registered_variant_declares_its_time_scale(tcp):
    # advise's run lengths come from each variant's own law in the core's
    # registry (Variant::epoch), never from a per-variant branch in Python:
    # every registered name, aliases included, gets a finite epoch whose
    # law is stated. BDP 125 packets, N = 2: W = 2 BDP / N = 125, RTT 100 ms.
    from bufsim.timescales import time_scales

    norm = bufsim.Scenario.load(
        {
            "name": tcp,
            "duration": "1s",
            "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
            "flows": [{"count": 2, "tcp": tcp, "rtt": "100ms", "mss": "1000B"}],
        }
    ).normalized
    t = time_scales(norm)
    expected = {
        "newreno": 6.25,  # W/2 = 62.5 RTTs
        "aimd": 6.25,
        "htcp": 6.25,  # at most AIMD's W/2
        "dctcp": 6.25,
        "cubic": (125 * 0.3 / 0.4) ** (1 / 3),  # K = cbrt(93.75) = 4.54 s
        "scalable": math.log(1 / 0.875) / math.log(1.01) * 0.1,  # 13.42 RTTs
        "bbr": 10.0,  # ProbeRTT once per 10 s RTprop window
    }
    canonical = norm["flows"][0]["tcp"]
    assert math.isfinite(t["epoch_s"]) and t["epoch_s"] > 0
    assert f"longest congestion epoch {t['epoch_s']:.3g} s: {canonical}, " in t["why"]
    if canonical in expected:
        assert t["epoch_s"] == pytest.approx(expected[canonical], rel=1e-9)


def test_a_variant_parameter_moves_its_time_scale():
    # The law reads the group's own tcp_params: CUBIC with C = 0.1 regains
    # the same cut in cbrt(4) = 1.587 times K at C = 0.4.
    from bufsim.timescales import time_scales

    def epoch(params):
        flows = [{"count": 2, "tcp": "cubic", "rtt": "100ms", "mss": "1000B"}]
        flows[0]["tcp_params"] = params
        raw = {
            "name": "c",
            "duration": "1s",
            "link": {"capacity": "10Mbps", "delay": "45ms", "buffer": "1pkt"},
            "flows": flows,
        }
        return time_scales(bufsim.Scenario.load(raw).normalized)["epoch_s"]

    assert epoch({"c": 0.1}) / epoch({}) == pytest.approx(4 ** (1 / 3), rel=1e-12)


@pytest.mark.parametrize("qdisc", QDISCS)
def test_the_registry_states_each_disciplines_defaults_and_reasons(qdisc):
    # bufsim.scenario.DISCIPLINES (the core's description) gives the
    # parameters a 1 Gbps link of 1500 B packets normalizes to, names the
    # one without a default, and lists the drop counters its runs report.
    from bufsim.scenario import DISCIPLINES

    info = DISCIPLINES[qdisc]
    s = {
        "duration": "2s",
        "link": {"capacity": "1Gbps", "delay": "1ms", "buffer": "100pkt", "qdisc": qdisc},
        "flows": [{"count": 2, "rtt": "10ms", "mss": "1500B"}],
    }
    if info["required"] is not None:
        assert info["defaults"] is None
        with pytest.raises(ScenarioError, match=info["required"]):
            bufsim.Scenario.load(s)
        s["link"]["qdisc_params"] = {info["required"]: 40}
    else:
        assert bufsim.Scenario.load(s).normalized["link"]["qdisc_params"] == info["defaults"]
    r = bufsim.simulate(s)
    assert [k[len("drops_") :] for k in r.summary if k.startswith("drops_")] == info["drop_reasons"]
