"""Every TCP variant and queue discipline from the Python API.

The numbers are checked in the Rust tests (``crates/bufsim-core/tests/
packet_cc_*.rs``, ``packet_qdisc_*.rs``); here each is selected through
``bufsim.simulate`` and checked for a real, variant-specific number.
"""

import math

import bufsim
import pytest
from bufsim.scenario import ScenarioError

VARIANTS = ["newreno", "reno", "aimd", "highspeed", "scalable", "cubic", "htcp", "dctcp"]
QDISCS = ["droptail", "red", "fq", "codel", "fq_codel", "pie", "threshold"]


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
    with pytest.raises(
        ScenarioError,
        match=r"link.qdisc.*allowed are droptail, red, fq, codel, fq_codel, pie, threshold",
    ):
        bufsim.Scenario.load(_scn(qdisc="sfq"))
