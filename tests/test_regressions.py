"""Regression tests of defects found by random and hostile scenarios
(each reproducer failed before its fix)."""

from __future__ import annotations

import bufsim
import pytest


def test_fair_queueing_with_open_loop_flows_runs():
    # FQ sized its per-flow queues for the flows known at the start; the
    # transfers an open loop creates during the run indexed past them
    # ("index out of bounds" at queue/fq.rs).
    s = {
        "name": "x",
        "duration": "4s",
        "link": {
            "capacity": "200Mbps",
            "delay": "93ms",
            "buffer": "73000B",
            "qdisc": "fq",
            "qdisc_params": {"background_flows": 1},
            "packet_size": "300B",
        },
        "flows": [{"rtt": "280ms", "size": "dhamdhere2006", "arrival": {"load": 1.1}}],
    }
    r = bufsim.simulate(s)
    assert 0.5 < r.summary["utilization"] <= 1.0


@pytest.mark.parametrize(
    "engine, scenario",
    [
        # Fluid: a chosen flow was charged more loss than it sent (flows that
        # grew after the congestion event's choice were charged nothing):
        # 2.37e10 bps of goodput on a 7.9 Mbps link.
        (
            "fluid",
            {
                "name": "x",
                "duration": "1.3s",
                "link": {"capacity": "7.9e+06bps", "delay": "0ms", "buffer": "1pkt"},
                "flows": [
                    {"rtt": {"uniform": ["1ms", "170ms"]}},
                    {
                        "count": 2,
                        "rtt": {"uniform": ["1ms", "1ms"]},
                        "start": {"uniform": ["0s", "0.65s"]},
                    },
                ],
            },
        ),
        # Packet: goodput counted the advance of rcv_nxt, crediting a short
        # window with segments that crossed before it (480 kbps on 210 kbps).
        (
            "packet",
            {
                "name": "x",
                "duration": "1.3s",
                "warmup": "1.2s",
                "link": {
                    "capacity": "210000bps",
                    "delay": "0ms",
                    "buffer": "3BDP",
                    "packet_size": "230B",
                },
                "flows": [{"rtt": {"uniform": ["1ms", "50ms"]}}],
            },
        ),
    ],
)
def test_goodput_never_exceeds_capacity(engine, scenario):
    r = bufsim.simulate(scenario, engine=engine)
    cap = r.scenario["link"]["capacity_bps"]
    assert r.summary["goodput_bps"] <= cap * (1 + 1e-9)
    assert r.flows["goodput_bps"].sum() <= cap * (1 + 1e-9)


def test_both_engines_name_the_time_series_alike():
    # The fluid engine wrote window_flow<i> where the packet engine (and the
    # README) say cwnd_flow<i>.
    s = {
        "name": "x",
        "duration": "5s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
        "flows": [{"count": 2, "rtt": "40ms"}],
        "output": {"interval": "100ms", "cwnd": True},
    }
    cols = {e: set(bufsim.simulate(s, engine=e).timeseries.columns) for e in ("packet", "fluid")}
    assert {"cwnd_flow0", "cwnd_flow1"} <= cols["packet"] & cols["fluid"]


@pytest.mark.parametrize("engine", ["packet", "fluid"])
def test_a_window_is_zero_until_its_flow_starts(engine):
    # The packet engine reported the initial window before a flow started,
    # where the fluid engine and ns-3's CongestionWindow trace report 0.
    s = {
        "name": "x",
        "duration": "2s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
        "flows": [{"rtt": "40ms"}, {"rtt": "40ms", "start": "1s"}],
        "output": {"interval": "100ms", "cwnd": True},
    }
    ts = bufsim.simulate(s, engine=engine).timeseries
    late = ts["cwnd_flow1"]
    assert (late[late.index < 1.0] == 0).all()
    assert (late[late.index > 1.05] >= 1).all()
    assert (ts["cwnd_flow0"] >= 1).all()


@pytest.mark.parametrize(
    "params, field",
    [
        ({"adaptive": True}, "adaptive"),
        ({"ecn": True}, "ecn"),
        ({"mode": "bytes"}, "mode"),
        ({"variant": "ns3"}, "variant"),
    ],
)
def test_fluid_red_refuses_what_it_would_ignore(params, field):
    # The fluid RED model silently ran adaptive, ECN and byte-mode RED as plain RED.
    s = {
        "name": "x",
        "duration": "5s",
        "link": {
            "capacity": "10Mbps",
            "delay": "10ms",
            "buffer": "100pkt",
            "qdisc": "red",
            "qdisc_params": {"min_th": 20, "max_th": 60, **params},
        },
        "flows": [{"count": 2, "rtt": "40ms"}],
    }
    with pytest.raises(
        bufsim.ScenarioError, match=rf"link\.qdisc_params\.{field}: .*engine=\"packet\""
    ):
        bufsim.simulate(s, engine="fluid")
    assert bufsim.simulate(s).summary["utilization"] > 0  # the packet engine runs it


def test_simulate_and_run_take_the_sweep_engine_names(tmp_path):
    # `bufsim run --engine model:avrachenkov` was refused though sweeps accept it.
    import json
    import subprocess
    import sys

    from bufsim.reproduce import avrachenkov2006

    s = avrachenkov2006.runs.scenario(5, 100, duration="30s")
    r = bufsim.simulate(s, engine="model:avrachenkov")
    assert r.engine == "model:avrachenkov" and 0.9 < r.summary["utilization"] <= 1
    with pytest.raises(bufsim.ScenarioError, match="unknown model, allowed are model:auto"):
        bufsim.simulate(s, engine="model:nope")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bufsim",
            "run",
            str(path),
            "--engine",
            "model:avrachenkov",
            "--out",
            str(tmp_path / "out"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert bufsim.Result.load(tmp_path / "out").engine == "model:avrachenkov"
