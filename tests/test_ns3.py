"""The ns-3 engine (``engine="ns3"``, bufsim.ns3): the driver builds against
the installed ns-3, the ns3 stack profile matches ns-3's defaults, drops are
counted where ns-3 makes them, unsupported input is refused by field, and
the quick validation subset agrees with the packet engine."""

from __future__ import annotations

import copy
import math

import bufsim
import numpy as np
import pandas as pd
import pytest
from bufsim import ns3
from bufsim.ns3 import validate
from bufsim.sweep import executors, worker
from conftest import cli


def _scn(**over):
    s = {
        "duration": "4s",
        "warmup": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [{"count": 4, "tcp": "newreno", "rtt": "40ms", "mss": "1000B", "stack": "ns3"}],
    }
    s.update(over)
    return s


def test_the_initial_rto_is_refused_with_ns3s_own_values():
    with pytest.raises(bufsim.ScenarioError) as e:
        bufsim.simulate(
            _scn(flows=[{"count": 1, "rtt": "40ms", "stack": "ns3", "initial_rto": "10ms"}]),
            engine="ns3",
        )
    assert str(e.value) == (
        "flows[0].initial_rto: 10 ms: the ns3 engine keeps ns-3.37's initial RTO (ConnTimeout "
        "3 s for the SYN, InitialEstimation 1 s for data); remove initial_rto or use "
        "engine='packet' or engine='ns2'"
    )


def test_the_ns3_profile_is_ns3s_defaults():
    # Every value of the packet engine's ns3 profile that ns-3 has as an
    # attribute, read from the installed ns-3 (3.37 here).
    d = ns3.defaults()
    g = bufsim.Scenario.load(_scn()).normalized["flows"][0]
    sock, base, l4 = d["ns3::TcpSocket"], d["ns3::TcpSocketBase"], d["ns3::TcpL4Protocol"]
    assert g["initial_window_pkts"] == int(sock["InitialCwnd"]) == 10
    assert g["delayed_ack"] == (int(sock["DelAckCount"]) == 2)
    assert g["delack_timeout_s"] == pytest.approx(float(sock["DelAckTimeout"].strip("+ns")) * 1e-9)
    assert g["min_rto_s"] == pytest.approx(float(base["MinRto"].strip("+ns")) * 1e-9) == 1.0
    assert g["sack"] == (base["Sack"] == "true")
    assert g["prr"] == (l4["RecoveryType"] == "ns3::TcpPrrRecovery")
    assert g["limited_transmit"] == (base["LimitedTransmit"] == "true")
    # ns-3's ReTxThreshold is RFC 5681's DupThresh of the packet engine.
    assert int(base["ReTxThreshold"]) == 3
    # ns-3's default variant is CUBIC, as Linux's; a profile leaves tcp alone.
    assert l4["SocketType"] == "ns3::TcpCubic"
    # Differences the driver sets by hand (driver.cc): timestamps off so a
    # segment is the scenario's mss on the wire; CUBIC's classic HyStart off
    # because the profile has hystart = false.
    assert base["Timestamp"] == "true"
    assert d["ns3::TcpCubic"]["HyStart"] == "true"


def test_access_links_are_the_drivers():
    # 100 x the fastest link, at least 10 Gbps; a group's own access link
    # and the caller's scenario are left alone; reverse groups get theirs.
    s = _scn()
    s["flows"].append({"count": 1, "rtt": "40ms", "access_rate": "5Mbps", "stack": "ns3"})
    s["reverse"] = {"buffer": "30pkt", "flows": [{"count": 1, "rtt": "40ms", "stack": "ns3"}]}
    out = ns3.access_links(s)
    assert [g.get("access_rate") for g in out["flows"]] == ["10000000000bps", "5Mbps"]
    assert out["flows"][0]["access_buffer"] == "1000000pkt"
    assert out["reverse"]["flows"][0]["access_rate"] == "10000000000bps"
    assert "access_rate" not in s["flows"][0]
    fast = _scn(link={"capacity": "1Gbps", "delay": "5ms", "buffer": "30pkt"})
    assert ns3.fast_rate_bps(bufsim.Scenario.load(fast).normalized) == 100e9


def test_a_flow_phase_locked_to_the_bottleneck_takes_the_freed_slot():
    # The suite's 20 flows at 100 Mbps, 1000 B, RTTs 20-60 ms evenly
    # spaced: 20 ms is 250 packet times of 80 us, so the first flow's
    # segments reach the bottleneck as a departure leaves and take the
    # place it frees (engine::queue, slots_pop_first_at_equal_times), as
    # ns-3's do one 0.8 us access serialization later: ns-3's 20 ms flow
    # gets 10.8 Mb/s against the 22 ms flow's 8.4 (1.29 times; 10 seeds),
    # more than its RTT alone gives it (22/20 = 1.1 to 1.21). Packet engine,
    # seeds 1-10: 10.9 and 8.5 (1.27 times), the 20 ms flow within the
    # suite's per-flow goodput tolerance (15%) of ns-3's.
    suite = validate.scenarios()["newreno-droptail-0.25bdp"]
    g = np.zeros(2)
    for seed in range(1, 11):
        s = copy.deepcopy(suite) | {"seed": seed}
        f = bufsim.simulate(s, engine="packet").flows.sort_values("rtt_s")
        g += f["goodput_bps"].to_numpy()[:2] / 10
    assert g[0] > 1.21 * g[1]
    assert abs(g[0] / 10.8e6 - 1) < validate.TOLERANCES["flow_goodput"][1]


def test_a_run_has_the_packet_engines_shape():
    p = bufsim.simulate(_scn(), engine="packet")
    n = bufsim.simulate(_scn(), engine="ns3")
    assert n.provenance["engine"] == "ns3" and n.provenance["ns3_version"] == ns3.version()
    for key in (
        "utilization",
        "drop_rate",
        "mean_queue_pkts",
        "p99_queue_delay_s",
        "jain_index",
        "sync_mean",
    ):
        assert key in n.summary
    assert set(p.timeseries.columns) == set(n.timeseries.columns)
    assert len(n.timeseries) == len(p.timeseries) == 40
    assert {"flow", "group", "goodput_bps", "drops", "retransmits", "timeouts"} <= set(
        n.flows.columns
    )
    assert len(n.flows) == 4
    # Little's law at the bottleneck: mean queue = arrival rate x mean wait,
    # the departures of a link busy u of the time being u C / packet size.
    rate = n.summary["utilization"] * 10e6 / 8000
    little = rate * n.summary["mean_queue_delay_s"]
    assert n.summary["mean_queue_pkts"] == pytest.approx(little, rel=0.05)
    # Goodput counts whole packets (bufsim's mss is the packet on the wire).
    assert n.summary["goodput_bps"] == pytest.approx(n.summary["throughput_bps"], rel=0.02)


def test_drops_are_counted_where_ns3_drops_them():
    # Poisson background at 12 Mbps into a 10 Mbps drop-tail link (the one
    # TCP transfer, 20 packets, is over before the warm-up ends): the link
    # is saturated, so the drop fraction of the arrivals is
    # 1 - C / offered = 1 - 10 / 12 = 0.167. ns-3 drops in the
    # traffic-control layer (TcDrop), not in the device queue.
    s = _scn(
        duration="20s",
        background=[{"kind": "poisson", "rate": "12Mbps", "packet_size": "1000B"}],
    )
    s["flows"][0].update(count=1, size="20pkt")
    r = bufsim.simulate(s, engine="ns3")
    assert r.summary["utilization"] == pytest.approx(1.0, abs=0.01)
    assert r.summary["drop_rate"] == pytest.approx(1 - 10 / 12, abs=0.01)
    assert r.summary["background_drops"] > 0


@pytest.mark.parametrize("size", [99, 100, 101])
def test_a_lone_transfer_completes_as_in_ns3(size):
    # One transfer alone on a 10 Mbps link, 40 ms RTT, IW 10, delayed ACKs,
    # no loss: a handshake, then slow start growing by one segment per ACK.
    # ns-3 acknowledges the first data segment at once and then every
    # second one, so with 100 segments the last one is alone and waits the
    # whole 200 ms delayed-ACK timer; with 99 or 101 it completes a pair.
    # The timer restarts for each held segment (an ACK sent stops it).
    def fct(n, engine):
        s = _scn(duration="3s", warmup="0s")
        s["flows"][0].update(count=1, size=f"{n}pkt")
        r = bufsim.simulate(s, engine=engine)
        assert r.flows["finished"].iloc[0] == 1
        return float(r.flows["fct_s"].iloc[0])

    n, p = fct(size, "ns3"), fct(size, "packet")
    assert p == pytest.approx(n, abs=1e-3)
    base = fct(99, "packet")
    assert p - base == pytest.approx(0.2 if size == 100 else 0.0, abs=0.005)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {"link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt", "qdisc": "fq"}},
            "link.qdisc",
        ),
        ({"link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "0pkt"}}, "link.buffer"),
        ({"flows": [{"count": 2, "tcp": "aimd", "rtt": "40ms", "stack": "ns3"}]}, "flows[0].tcp"),
        # The ns3 profile gives each variant ns-3.37's rules; a group that
        # sets one otherwise is refused by that key.
        *(
            (
                {
                    "flows": [
                        {
                            "count": 2,
                            "tcp": tcp,
                            "tcp_params": params,
                            "rtt": "40ms",
                            "stack": "ns3",
                        }
                    ]
                },
                f"flows[0].tcp_params.{next(iter(params))}",
            )
            for tcp, params in [
                ("cubic", {"reno_friendly": True, "c": 0.8}),
                ("cubic", {"mirror": "none"}),
                ("bbr", {"send_quantum": "draft"}),
                ("bbr", {"mirror": "none"}),
                ("scalable", {"low_window": 16}),
                ("scalable", {"legacy_decrease": True}),
                ("scalable", {"mirror": "none"}),
                ("highspeed", {"mirror": "none"}),
                ("htcp", {"mirror": "none"}),
                ("htcp", {"rtt_scaling": True}),
            ]
        ),
        ({"flows": [{"count": 2, "rtt": "40ms", "stack": "rfc"}]}, "flows[0].limited_transmit"),
        ({"flows": [{"count": 2, "rtt": "40ms", "stack": "linux"}]}, "flows[0].recovery"),
        (
            {"flows": [{"count": 2, "rtt": "40ms", "stack": "ns3", "jitter": "1ms"}]},
            "flows[0].jitter",
        ),
        (
            {
                "flows": [
                    {
                        "count": 2,
                        "tcp": "cubic",
                        "abc": True,
                        "rtt": "40ms",
                        "stack": "ns3",
                    }
                ]
            },
            "flows[0].abc",
        ),
        (
            {"flows": [{"count": 2, "rtt": "40ms", "stack": "ns3", "rtt_sampling": "rfc"}]},
            "flows[0].rtt_sampling",
        ),
        ({"output": {"trace": True}}, "output.trace"),
        # ns-3's RedQueueDisc is the packet engine's variant = "ns3" only,
        # without ns-3's Adaptive RED.
        (
            {"link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt", "qdisc": "red"}},
            "link.qdisc_params.variant",
        ),
        (
            {
                "link": {
                    "capacity": "10Mbps",
                    "delay": "5ms",
                    "buffer": "30pkt",
                    "qdisc": "red",
                    "qdisc_params": {"adaptive": True},
                },
            },
            "link.qdisc_params.adaptive",
        ),
        (
            {
                "link": {
                    "capacity": "10Mbps",
                    "delay": "5ms",
                    "buffer": "30pkt",
                    "qdisc": "red",
                    "qdisc_params": {"variant": "ns3", "wait": True},
                },
            },
            "link.qdisc_params.wait",
        ),
        (
            {
                "link": {
                    "capacity": "10Mbps",
                    "delay": "5ms",
                    "buffer": "30pkt",
                    "qdisc": "fq_codel",
                },
                "background": [{"kind": "poisson", "rate": "2Mbps", "packet_size": "1000B"}],
            },
            "background[0]",
        ),
        ({"reverse": {"buffer": "20pkt", "ack_size": "52B"}}, "reverse.ack_size"),
        ({"reverse": {"buffer": "20pkt", "qdisc": "fq"}}, "reverse.qdisc"),
        (
            {
                "reverse": {
                    "buffer": "20pkt",
                    "flows": [{"count": 1, "rtt": "40ms", "stack": "linux"}],
                }
            },
            "reverse.flows[0].recovery",
        ),
        (
            {
                "flows": [
                    {
                        "size": "64KB",
                        "arrival": {"every": "10ms", "burst": 16},
                        "rtt": "40ms",
                        "stack": "ns3",
                    }
                ]
            },
            "flows[0].arrival",
        ),
        (
            {"flows": [{"count": 1, "rtt": "40ms", "stack": "ns3", "initial_rto": "10ms"}]},
            "flows[0].initial_rto",
        ),
    ],
)
def test_what_ns3_cannot_express_is_refused_by_field(change, field):
    with pytest.raises(bufsim.ScenarioError) as e:
        bufsim.simulate(_scn(**change), engine="ns3")
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_a_background_refused_only_where_it_crosses_fq_codel():
    # On a chain whose first link is fq_codel, a background source on the
    # second link is one ns-3 runs as the packet engine does.
    link = {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"}
    bg = {"kind": "poisson", "rate": "2Mbps", "packet_size": "1000B"}
    s = _scn(links=[{**link, "qdisc": "fq_codel"}, link], background=[{**bg, "links": [1]}])
    del s["link"]
    s["flows"][0]["links"] = [0, 1]
    ns3.check(bufsim.Scenario.load(s))
    s["background"][0]["links"] = [0]
    with pytest.raises(bufsim.ScenarioError, match=r"^background\[0\]: crosses fq_codel"):
        ns3.check(bufsim.Scenario.load(s))


def _open_loop(load):
    """Transfers of Exp(20 pkt) arriving at `load`, RTTs uniform on [20, 60] ms."""
    return {
        "size": {"exponential": "20pkt"},
        "arrival": {"load": load},
        "rtt": {"min": "20ms", "max": "60ms"},
        "mss": "1000B",
        "stack": "ns3",
    }


def test_open_loop_arrivals_are_poisson_with_the_groups_laws():
    # 10 Mbps, transfers of Exp(20 pkt) (E[ceil X] = 1 / (1 - e^(-1/20)) =
    # 20.50 packets) at 30% load: 0.3 * 1e7 / (20.50 * 8000) = 18.3 arrivals
    # a second, 1100 in the 60 s window (Poisson: sd 33). RTTs uniform on
    # [20, 60] ms (mean 40 ms, sd 11.5 ms: se 0.35 ms). Tolerances: 4 standard
    # errors.
    s = _scn(duration="61s", warmup="1s")
    s["flows"] = [_open_loop(0.3)]
    r = bufsim.simulate(s, engine="ns3")
    f = r.flows
    rate = 0.3 * 1e7 / (20.50 * 8000)
    assert r.summary["flows_arrived"] == len(f)
    assert len(f) == pytest.approx(rate * 60, abs=4 * (rate * 60) ** 0.5)
    assert f["size_pkts"].mean() == pytest.approx(20.50, abs=4 * 20 / len(f) ** 0.5)
    assert f["rtt_s"].mean() == pytest.approx(0.040, abs=4 * 0.0115 / len(f) ** 0.5)
    assert f["rtt_s"].between(0.020, 0.060).all()
    # Light load: nearly every transfer finishes, each in at least its
    # handshake plus one round trip per window of slow start.
    assert r.summary["flows_completed"] >= 0.97 * len(f)
    done = f[f["finished"] == 1]
    assert (done["fct_s"] >= 2 * done["rtt_s"]).all()
    assert r.summary["utilization"] == pytest.approx(0.3, abs=0.05)


def test_segments_without_data_count_as_neither_flows_nor_background():
    # ns-3 sends SYNs, handshake ACKs and FINs through the bottleneck; the
    # packet engine its SYNs alone (a flow's drops count a lost one). The driver counts
    # them as packets of the queue only: every drop is a flow's (no
    # background here), and the bottleneck delivers at most what the
    # senders sent. Before it tagged them, each transfer's three or so
    # counted as background (16,658 delivered of 15,625 sent here, 22
    # background drops).
    s = _scn(duration="20s", warmup="0s")
    s["link"]["buffer"] = "20pkt"
    s["flows"] = [_open_loop(0.6)]
    r = bufsim.simulate(s, engine="ns3")
    f = r.flows
    assert len(f) > 600 and f["drops"].sum() > 500
    assert r.summary["background_drops"] == 0
    assert r.summary["packets_dropped"] == f["drops"].sum()
    assert r.summary["packets_delivered"] <= f["sent_pkts"].sum()


def test_every_retransmission_timeout_counts_as_in_the_packet_engine():
    # Two NewReno flows at 40 ms share 10 Mbps through a 1-packet buffer
    # (fixed RTTs, both starting at 0: one trajectory whatever the seed).
    # The second flow's retransmission times out, and its backed-off timer
    # expires once more in the same loss episode. ns-3 enters CA_LOSS once,
    # so a driver counting CongState changes saw 1 timeout; the packet engine
    # counts every expiry (2), and so does the driver, from the timer's
    # doubling in CA_LOSS.
    s = _scn(duration="30s", warmup="0s")
    s["link"]["buffer"] = "1pkt"
    s["flows"][0].update(count=2, start="0s")
    ns = bufsim.simulate(s, engine="ns3").flows
    pk = bufsim.simulate(s, engine="packet").flows
    assert ns["timeouts"].tolist() == pk["timeouts"].tolist() == [0, 2]


def test_an_open_loop_cap_refuses_arrivals():
    # 50 transfers a second of 200 packets (8 Mbit/s each) on a 10 Mbps
    # link: overload; at most 3 transfers at once, the rest refused.
    s = _scn(duration="10s", warmup="1s")
    s["flows"] = [
        {
            "size": "200pkt",
            "arrival": {"rate": "50/s"},
            "max_active": 3,
            "rtt": "40ms",
            "mss": "1000B",
            "stack": "ns3",
        }
    ]
    with pytest.warns(bufsim.OverloadWarning):
        r = bufsim.simulate(s, engine="ns3")
    assert r.summary["overload"] == 1
    assert r.summary["active_flows_max"] == 3
    assert r.summary["flows_refused"] > 300  # about 500 arrivals, few admitted


def test_closed_loop_users_think_between_transfers():
    # 10 users, fixed 50-packet transfers, a fixed 2 s think time, alone on
    # a 100 Mbps link with a 40 ms RTT and no loss: a transfer takes a
    # handshake and slow start (as the packet engine's ns3 profile gives
    # it), plus at most the serialization of the others' packets (all
    # users start together: 500 packets of 80 us, 40 ms). Each user thinks
    # from 0, so starts at 2 s (the window's start) and then every 2 s +
    # FCT: ceil(20 / (2 + FCT)) transfers each in the 20 s window, all
    # finished, and by Little's law (arrivals x mean time in the system)
    # len x mean FCT / 20 s active on average.
    s = _scn(duration="22s", warmup="2s")
    s["link"].update(capacity="100Mbps", buffer="1000pkt")
    s["flows"] = [
        {
            "users": 10,
            "think": {"fixed": "2s"},
            "size": "50pkt",
            "rtt": "40ms",
            "mss": "1000B",
            "stack": "ns3",
        }
    ]
    r = bufsim.simulate(s, engine="ns3")
    f = r.flows
    fct = f["fct_s"]
    assert r.summary["drop_rate"] == 0 and (f["finished"] == 1).all()
    assert f["start_s"].min() == pytest.approx(2.0)
    assert fct.max() - fct.min() <= 0.040
    packet = bufsim.simulate(s, engine="packet").flows["fct_s"].median()
    assert fct.median() == pytest.approx(packet, abs=1e-3)
    assert len(f) == 10 * math.ceil(20 / (2 + fct.median()))
    assert r.summary["active_flows_mean"] == pytest.approx(len(f) * fct.mean() / 20, rel=1e-6)


def test_the_ns3_profile_counts_slow_start_as_each_ns3_variant():
    # ns-3.37: NewReno's family one segment per ACK, CUBIC every acked
    # segment uncapped, DCTCP every one up to ssthresh (TcpLinuxReno).
    def abc(tcp):
        s = _scn(flows=[{"count": 1, "tcp": tcp, "rtt": "40ms", "stack": "ns3"}])
        return bufsim.Scenario.load(s).normalized["flows"][0]["abc"]

    assert [abc(t) for t in ("newreno", "highspeed", "cubic", "dctcp")] == [
        False,
        False,
        "uncapped",
        True,
    ]


def test_a_missing_ns3_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pkg-config, no g++
    monkeypatch.setenv("BUFSIM_CACHE", str(tmp_path))
    with pytest.raises(bufsim.EngineError, match="apt-get install libns3-dev"):
        bufsim.simulate(_scn(), engine="ns3")


def test_the_driver_is_cached_by_ns3_version_and_source():
    exe = ns3.driver()
    assert exe.parent.name.startswith(ns3.version() + "-")
    assert ns3.driver() == exe  # built once


def test_stored_ns3_runs_outlive_a_rebuilt_rust_engine(monkeypatch):
    # An ns-3 result depends on ns-3, the driver and its mapping, not on the
    # Rust engines: their rebuild must not discard hours of ns-3 runs.
    from bufsim import _core
    from bufsim.store import build_id

    before = {e: build_id(e) for e in ("packet", "ns3")}
    assert ns3.version() in before["ns3"] and before["ns3"] != before["packet"]
    monkeypatch.setattr(_core, "__build__", "rebuilt")
    assert build_id("ns3") == before["ns3"]
    assert build_id("packet") != before["packet"]


def test_a_sweep_runs_both_engines_side_by_side(tmp_path):
    table = bufsim.sweep(
        _scn(),
        {"link.buffer": ["10pkt", "40pkt"]},
        engines=["packet", "ns3"],
        store=tmp_path / "store",
    )
    assert sorted(table["engine"].unique()) == ["ns3", "packet"]
    assert len(table) == 4 and (table["status"] == "ok").all()
    wide = table.pivot_table(index="buffer_pkts", columns="engine", values="utilization")
    # Both engines: more buffer, at least as much utilization, and within
    # the validation tolerance of each other (0.02) at the larger buffer.
    assert (wide.diff().dropna() >= -0.01).all().all()
    assert abs(wide.loc[40, "ns3"] - wide.loc[40, "packet"]) <= 0.02


def test_the_quick_validation_subset_agrees(tmp_path, monkeypatch):
    metrics, runs = validate.validate(quick=True, store=tmp_path)
    assert list(runs["scenario"]) == list(validate.QUICK)
    bad = metrics[metrics["verdict"] == "beyond"]
    assert bad.empty, bad.to_string()
    assert not runs["verdict"].str.startswith("differs").any()
    assert (runs["speed_ratio"] > 1).all()
    page = validate.markdown(metrics, runs, ns3.version())
    assert "of 3 scenarios agree" in page
    # The runs are in the store: the same scenario again runs nothing and
    # gives the same rows, the CPU times those the runs measured.
    monkeypatch.setattr(executors, "run_point", lambda *a: pytest.fail("ran again"))
    name = validate.QUICK[0]
    rows, run = validate.validate_one(name, (1, 2, 3), quick=True, store=tmp_path)
    pd.testing.assert_frame_equal(
        pd.DataFrame(rows), metrics[metrics["scenario"] == name].reset_index(drop=True)
    )
    assert run["ns3_cpu_s"] == runs.set_index("scenario").loc[name, "ns3_cpu_s"]


def test_the_cli_table_fits_80_columns(tmp_path):
    import os

    p = cli(
        "validate-engines",
        "--quick",
        "--seeds",
        "1",
        "--packet-seeds",
        "2",
        "--only",
        "highspeed-droptail-0.25bdp",
        "--workers",
        "0",
        "-o",
        str(tmp_path),
        env={**os.environ, "COLUMNS": "80"},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "highspeed-droptail-0.25bdp" in p.stdout  # the longest name, whole
    assert "…" not in p.stdout, p.stdout
    assert max(len(line) for line in p.stdout.splitlines()) <= 80, p.stdout
    # Fewer packet-engine seeds than ns-3's: refused, naming the option.
    p = cli("validate-engines", "--seeds", "3", "--packet-seeds", "2", "-o", str(tmp_path))
    assert p.returncode != 0
    assert "--packet-seeds: must be at least --seeds and --max-seeds (3), got 2" in p.stderr


def test_a_scenario_not_agreeing_gets_a_second_look_with_more_seeds(monkeypatch):
    # Undecided with 3 ns-3 seeds: 10 (a CUBIC run's drop rate over 3
    # seeds can miss every explosion); the packet engine's seeds stay
    # 1-100. Agreeing or differing (a metric's interval wholly beyond its
    # tolerance) is decided: no second look.
    calls = []
    first = "undecided"

    def fake(name, seeds, packet_seeds, **kw):
        calls.append((tuple(seeds), len(packet_seeds)))
        return [], {"verdict": first if len(seeds) < 10 else "agrees"}

    monkeypatch.setattr(validate, "_validate_seeds", fake)
    for first in ("undecided", "differs, explained", "agrees"):
        calls.clear()
        got = validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=10)[1]
        assert got == {"verdict": "agrees" if first == "undecided" else first}
        more = [((*range(1, 11),), 100)] if first == "undecided" else []
        assert calls == [((1, 2, 3), 100), *more]
    calls.clear()
    first = "undecided"
    validate.validate_one("newreno-red-1bdp", (1, 2, 3))  # no second look asked
    assert calls == [((1, 2, 3), 100)]
    with pytest.raises(ValueError, match="packet_seeds: must be at least the 10 ns-3 seeds"):
        validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=10, packet_seeds=5)


def test_further_looks_stop_at_agreement(monkeypatch):
    # (10, 40): a scenario still undecided with 10 seeds takes 40; one
    # agreeing with 10 stops there.
    calls = []
    agrees_at = {}

    def fake(name, seeds, packet_seeds, **kw):
        calls.append(len(seeds))
        return [], {"verdict": "agrees" if len(seeds) >= agrees_at["n"] else "undecided"}

    monkeypatch.setattr(validate, "_validate_seeds", fake)
    for n, looked in ((40, [3, 10, 40]), (10, [3, 10]), (100, [3, 10, 40])):
        agrees_at["n"] = n
        calls.clear()
        validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=(10, 40))
        assert calls == looked
    # A scenario whose ns-3 seed costs tens of CPU minutes takes no look
    # beyond its MOST_SEEDS.
    calls.clear()
    validate.validate_one("newreno-10gbps", (1, 2, 3), max_seeds=(10, 40))
    assert calls == [3]
    monkeypatch.setitem(validate.MOST_SEEDS, "newreno-red-1bdp", 10)
    calls.clear()
    validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=(10, 40))
    assert calls == [3, 10]
    for bad in ((10, 10), (40, 10), (3,), 2):
        with pytest.raises(ValueError, match="max_seeds: each look must run more seeds"):
            validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=bad)
    p = cli("validate-engines", "--max-seeds", "10", "--max-seeds", "5", "--list")
    assert p.returncode == 0  # --list needs no looks
    p = cli("validate-engines", "--only", "nothing", "--max-seeds", "10", "--max-seeds", "5")
    assert p.returncode != 0
    said = " ".join(p.stderr.split())  # unwrapped
    assert "--max-seeds: each must be more than --seeds (3) and the --max-seeds before it" in said
    p = cli("validate-engines", "--only", "newreno-red-1bdp", "--reuse", "no/such/store")
    assert p.returncode != 0
    assert "--reuse: no results store in 'no/such/store'" in " ".join(p.stderr.split())


def test_the_page_says_which_scenarios_took_a_second_look():
    runs = pd.DataFrame({"seeds": [3, 10, 3, 10, 10]})
    assert validate._seeds_text(runs) == "3; 3 with 10 (not agreeing with 3: a second look)"
    assert validate._seeds_text(runs.iloc[[0, 2]]) == "3"
    runs = pd.DataFrame({"seeds": [3, 10, 40, 3, 40]})
    assert validate._seeds_text(runs) == (
        "3; 1 with 10 and 2 with 40 (not agreeing with 3, then with 10: further looks)"
    )


def test_the_full_suite_spans_what_the_issue_asks():
    suite = validate.scenarios()
    assert len(suite) >= 40
    scns = {k: bufsim.Scenario.load(v) for k, v in suite.items()}
    for scn in scns.values():
        ns3.check(scn)  # every scenario is one ns-3 can run
    norm = {k: scn.normalized for k, scn in scns.items()}
    variants = {g["cc"]["variant"] for s in norm.values() for g in s["flows"]}
    assert set(ns3.VARIANTS) <= variants
    assert set(ns3.QDISCS) <= {s["link"]["qdisc"] for s in norm.values()}
    ratio = pd.Series([s["link"]["buffer_pkts"] / s["link"]["bdp_pkts"] for s in norm.values()])
    assert ratio.min() <= 0.06 and ratio.max() >= 1.9
    rates = {s["link"]["capacity_bps"] for s in norm.values()}
    assert min(rates) == 10e6 and max(rates) == 10e9
    kinds = {g["kind"] for s in norm.values() for g in s["flows"]}
    assert kinds == {"persistent", "finite", "open", "closed"}
    assert any(s["background"] for s in norm.values())


def test_advise_verifies_its_answer_in_ns3(tmp_path):
    s = _scn(duration="6s", warmup="2s")
    s["flows"][0]["start"] = {"uniform": ["0s", "0.5s"]}
    a = bufsim.advise(
        s,
        ["utilization>=0.95"],
        quick=True,
        engines=("packet", "ns3"),
        store=tmp_path / "store",
    )
    note = next(n for n in a.notes if n.startswith("ns-3 "))
    assert f"at the recommended {a.buffer_pkts:g} packets (2 seeds)" in note
    assert "utilization>=0.95: ns-3 " in note and ("met in ns-3" in note)
    with pytest.raises(bufsim.AdviceError, match="ns3"):
        bufsim.advise(s, ["utilization>=0.95"], engines=("packet", "ns4"))


def test_a_failed_run_is_reported_not_fatal(monkeypatch):
    # ns-3 can crash (signal 11 in TcpRateLinux::SkbSent on a 2-packet
    # receive window under heavy loss): the suite records the scenario as
    # failed with the error and goes on.
    def crash(scenario, engine="packet", progress=None):
        raise bufsim.EngineError("ns-3 crashed (signal 11)")

    monkeypatch.setattr(worker, "simulate", crash)
    rows, run = validate.validate_one("newreno-red-1bdp", (1,), quick=True)
    assert rows == [] and run["verdict"] == "failed" and "signal 11" in run["reason"]
    page = validate.markdown(pd.DataFrame(rows), pd.DataFrame([run]), "3.37")
    assert "0 of 1 scenarios agree" in page and "1 failed" in page


def test_the_page_writes_a_shared_reason_once():
    # The CUBIC scenarios share one measured reason: the page gives it at
    # the first of them and points the others to it.
    shared = validate.EXPLAINED["cubic-droptail-0.25bdp"]
    assert validate.EXPLAINED["cubic-droptail-1bdp"] == shared
    run = dict(
        verdict="undecided",
        differs_on="",
        undecided_on="drop_rate",
        reason=shared,
        seeds=3,
        packet_seeds=100,
        packet_cpu_s=0.03,
        ns3_cpu_s=10.0,
        speed_ratio=333.0,
    )
    runs = pd.DataFrame(
        [dict(run, scenario="cubic-droptail-0.25bdp"), dict(run, scenario="cubic-droptail-1bdp")]
    )
    page = validate.markdown(pd.DataFrame([], columns=["scenario"]), runs, "3.37")
    summary, *rest = shared.split("\n\n")
    # The summary in the list, linked to the reason in full below the
    # metrics, each once.
    assert page.count(summary) == 1 and page.count("### cubic-droptail-0.25bdp") == 1
    assert page.count("(#cubic-droptail-025bdp)") == 1
    assert " ".join(rest[0].split()) in " ".join(page.split())
    assert (
        "- **cubic-droptail-1bdp** (undecided): the reason given for "
        "cubic-droptail-0.25bdp above." in page
    )


def test_the_reasons_are_data_naming_the_suites_scenarios():
    # The measured reasons live in reasons.toml beside validate.py, read
    # through importlib.resources (so it must ship as package data): each
    # names scenarios of the suite, none twice, and each text has a summary
    # paragraph before the rest (the page lists the summary).
    import tomllib
    from importlib import resources

    doc = tomllib.loads(
        resources.files("bufsim.ns3").joinpath("reasons.toml").read_text(encoding="utf-8")
    )
    names = [n for r in doc["reason"] for n in r["scenarios"]]
    assert len(names) == len(set(names)) == len(validate.EXPLAINED) == 8
    assert set(names) <= set(validate.scenarios())
    for r in doc["reason"]:
        assert r["text"].count("\n\n") >= 1 and "\\" not in r["text"], r["scenarios"]
        assert all(validate.EXPLAINED[n] == r["text"] for n in r["scenarios"])


def test_the_published_page_gives_the_codes_reasons():
    # docs/validate-engines.md is written from runs that take CPU hours, and
    # edited by hand when a reason changes without a rerun: its table must name
    # every scenario of the suite, its count line must match the table, and
    # each scenario that does not agree must carry the reason why_not gives
    # it, word for word: its summary (the first paragraph) in the list, the
    # rest, wrapped, in its section of "The reasons in full".
    import re
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "validate-engines.md").read_text()
    # The ns-3 part (the ns-2 table follows it).
    page = page.split("\n# The packet engine against ns-2\n", 1)[0]
    rows = re.findall(r"^\| ([\w.-]+) \| (agrees|undecided|differs, \w+|failed) \|", page, re.M)
    runs = pd.DataFrame(rows, columns=["scenario", "verdict"])
    assert sorted(runs["scenario"]) == sorted(validate.scenarios())
    agree = int((runs["verdict"] == "agrees").sum())
    assert f"{agree} of {len(runs)} scenarios agree within tolerance" in page
    runs["reason"] = [validate.EXPLAINED.get(n, "") if v != "agrees" else "" for n, v in rows]
    assert page.startswith(f"# The packet engine against ns-3\n\n**{agree} of {len(runs)} ")
    for name, why in validate.why_not(runs).items():
        summary, *rest = why.split("\n\n")
        link = rf" \(\[in full\]\(#{re.escape(validate._slug(name))}\)\)" if rest else ""
        line = rf"^- \*\*{re.escape(name)}\*\* \([^)]*\): {re.escape(summary)}{link}$"
        assert re.search(line, page, re.M), f"{name}: the page's reason is not the code's"
        if rest:
            section = page.split(f"\n### {name}\n", 1)[1].split("\n#", 1)[0]
            assert section.split() == " ".join(rest).split(), f"{name}: not the code's"


def test_the_kept_ns3_runs_are_this_builds_runs_of_the_suite():
    # validation/ns3-runs holds the ns-3 runs of the scenarios whose seeds
    # cost tens of CPU minutes, which `make validate` reuses (--reuse) and
    # docs/validate-engines.md was written from. They must be whole, hold
    # every seed MOST_SEEDS looks at, and be runs this driver and ns-3 make
    # of those scenarios (their keys, as validate-engines computes them), of
    # seeds `make validate` can look at: a changed driver fails here until
    # they are run again.
    from pathlib import Path

    from bufsim.store import Store
    from bufsim.sweep.spec import each

    def keys(most: dict[str, int]) -> set[str]:
        wanted = [
            dict(copy.deepcopy(validate.scenarios()[name]), seed=seed)
            for name, n in most.items()
            for seed in range(1, n + 1)
        ]
        return {p.key for p in each(wanted, "ns3")}

    with Store(Path(__file__).parents[1] / "validation" / "ns3-runs") as kept:
        assert kept.check() == []
        rows = kept.records()
        assert all(r["status"] == "ok" and kept.has_result(r["key"]) for r in rows)
    held = {r["key"] for r in rows}
    assert keys(validate.MOST_SEEDS) <= held <= keys(dict.fromkeys(validate.MOST_SEEDS, 100))


def test_variant_parameters_become_ns3_attributes():
    # CUBIC's C and beta, Scalable's a (AIFactor = 1/a), H-TCP's delta_l.
    cc = bufsim.Scenario.load(
        {
            "duration": "1s",
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
            "flows": [
                {
                    "tcp": "cubic",
                    "rtt": "40ms",
                    "stack": "ns3",
                    "tcp_params": {"c": 0.8, "beta": 0.8},
                },
                {
                    "tcp": "scalable",
                    "rtt": "40ms",
                    "stack": "ns3",
                    "tcp_params": {"a": 0.02, "low_window": 50},
                },
                {
                    "tcp": "htcp",
                    "rtt": "40ms",
                    "stack": "ns3",
                    "tcp_params": {"delta_l_s": 2.0},
                },
            ],
        }
    ).normalized["flows"]
    cubic = ns3.cc_attributes("flows[0]", cc[0]["cc"])
    assert (cubic["ns3::TcpCubic::C"], cubic["ns3::TcpCubic::Beta"]) == ("0.8", "0.8")
    assert ns3.cc_attributes("flows[1]", cc[1]["cc"])["ns3::TcpScalable::AIFactor"] == "50"
    assert ns3.cc_attributes("flows[2]", cc[2]["cc"])["ns3::TcpHtcp::DeltaL"] == "2000000000ns"
    # Every attribute named exists in the installed ns-3 with that class.
    d = ns3.defaults()
    for spec in ns3.CC.values():
        for name, _ in spec["attributes"].values():
            cls, attr = name.rsplit("::", 1)
            assert attr in d[cls], name


#: ns-3.37's drop rates on the suite's scenarios (mean over seeds 1 to
#: the count given), measured on 2026-11-25 and 2026-11-26 (Debian's
#: ns-3.37, the driver as of those days); the packet engine's mean is over
#: the same seeds. The 0.25 BDP Scalable scenario took the suite's second
#: look (10 seeds): within at 10 (0.00796), beyond by 3e-5 at 3 (0.00780);
#: so did the 0.25 BDP HighSpeed one (its Jain's index undecided at 3).
NS3_DROP_RATE = {
    "highspeed-droptail-0.25bdp": (0.005760, 10),
    "highspeed-droptail-1bdp": (0.003473, 3),
    "htcp-droptail-0.25bdp": (0.002306, 3),
    "htcp-droptail-1bdp": (0.001273, 3),
    "scalable-droptail-0.25bdp": (0.009492, 10),
    "scalable-droptail-1bdp": (0.004447, 3),
}


@pytest.mark.parametrize("name", list(NS3_DROP_RATE))
def test_the_variants_as_ns3_has_them_drop_as_ns3(name):
    # With the ns3 profile's rules (ns-3.37's HighSpeed table, H-TCP in
    # bytes, Scalable's cut by b at every window from the flight: mirror =
    # "ns-3.37", legacy_decrease = false) the packet engine's drop rate is
    # within the suite's tolerance of ns-3's; with the RFC/draft/paper laws
    # it was not (0.00428, 0.00191, 0.00479, 0.00429, 0.00254 before; at
    # 0.25 BDP Scalable cutting 1/8 of cwnd rather than of ns-3's flight in
    # whole segments dropped 0.0127). HighSpeed at 0.25 BDP needs the ns3
    # profile's recovery exit too (0.00458 with recovery_exit = "rfc").
    # There the RFC table is within too since limited transmit counts a
    # cumulative ACK that SACKs as a duplicate (0.00474, 2e-5 inside the
    # tolerance; ns-3 0.00576): the table tells at 1 BDP (0.00206 against
    # 0.00308 with ns-3's table).
    ns3_rate, seeds = NS3_DROP_RATE[name]

    def mean_drop(params, **flow):
        rates = []
        for seed in range(1, seeds + 1):
            s = copy.deepcopy(validate.scenarios()[name])
            s["seed"] = seed
            if params is not None:
                s["flows"][0]["tcp_params"] = params
            s["flows"][0].update(flow)
            rates.append(bufsim.simulate(s, engine="packet").summary["drop_rate"])
        return sum(rates) / len(rates)

    assert validate._within_tolerance("drop_rate", mean_drop(None), ns3_rate)
    tcp = name.split("-")[0]
    # The RFC's, the draft's and the paper's laws (Scalable still Reno
    # below 1/a packets, as ns-3's).
    before = {"scalable": {"low_window": 100, "legacy_decrease": True}}.get(tcp, {})
    before["mirror"] = "none"
    if name != "highspeed-droptail-0.25bdp":
        assert not validate._within_tolerance("drop_rate", mean_drop(before), ns3_rate)
    else:
        exit_rfc = mean_drop(None, recovery_exit="rfc")
        assert not validate._within_tolerance("drop_rate", exit_rfc, ns3_rate)


def test_the_variants_left_apart_from_ns3_have_a_measured_reason():
    # BBR, undecided on utilization (at 1 BDP the drop rate too: how long
    # ns-3's link stalls), keeps its measured reason (ns-3.37's window at
    # UINT32_MAX, its rate sampler), so a run beyond tolerance reads
    # "differs, explained".
    assert "bbr-droptail-1bdp" in validate.scenarios()
    assert "UINT32_MAX" in validate.EXPLAINED["bbr-droptail-1bdp"]
    assert validate._verdict("bbr-droptail-1bdp", ["jain_index"], []) == "differs, explained"


@pytest.mark.parametrize(
    ("buffer", "duration"),
    [
        # Both drop 1253 packets in the first 0.6 s, the same in every 10
        # ms (1252, each 10 ms within 2, before the rules of the 1 BDP case
        # below). Before pacing started with the segment that
        # completes the initial window and before ModulateCwndForRecovery
        # ran in all of a fast recovery with ns-3's loss count (|change of
        # GetLost()| over the ACK), the packet engine's cwnd held at
        # 1150-1445 through the recovery where ns-3's fell to 944, and it
        # dropped 79, 69, 131 and 235 packets in the 10 ms from 0.40 s where
        # ns-3 dropped 58, 0, 7 and 125.
        ("0.25BDP", "0.6s"),
        # Both drop 1337 packets in the first 0.7 s (Startup, two fast
        # recoveries, Drain), the same in every 10 ms. The first recovery
        # ends in Startup, so cwnd takes ssthresh's UINT32_MAX and the flow
        # sends at Startup's pacing rate until the next loss: 713 drops in
        # 0.59-0.62 s. Before the recovery's first window left out the
        # ACK's own retransmission (ns-3's m_bytesInFlight is read before
        # DoRetransmit sends it), the packet engine sent one segment more
        # at the recovery's start; that segment was lost, a new recovery
        # began on the ACK after the first one ended, and it dropped 630
        # packets in all.
        ("1BDP", "0.7s"),
    ],
)
def test_a_lone_bbr_flow_drops_as_in_ns3(buffer, duration):
    # One BBR flow (ns-3's TcpBbr through the ns3 profile) alone on 100
    # Mbps, 40 ms: deterministic in both engines until ProbeBW draws its
    # first phase at random, so its first overflows and recoveries can be
    # compared 10 ms by 10 ms.
    s = validate.access_links(
        {
            "duration": duration,
            "warmup": "0s",
            "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": buffer},
            "flows": [
                {
                    "tcp": "bbr",
                    "rtt": "40ms",
                    "mss": "1000B",
                    "stack": "ns3",
                }
            ],
            "output": {"interval": "10ms"},
        }
    )
    drops = {
        e: bufsim.simulate(s, engine=e).timeseries["drops"].to_numpy() for e in ("packet", "ns3")
    }
    assert drops["ns3"].sum() > 1000
    assert abs(drops["packet"].sum() - drops["ns3"].sum()) <= 0.01 * drops["ns3"].sum()
    assert np.abs(drops["packet"] - drops["ns3"]).max() <= 3


def _seed_means(name, seeds=3):
    """The summaries of the suite's scenario ``name`` over seeds 1 to
    ``seeds`` on both engines, and ``mean(engine, key)`` over them."""
    raw = validate.scenarios()[name]
    runs = {
        e: [bufsim.simulate({**raw, "seed": s}, engine=e).summary for s in range(1, seeds + 1)]
        for e in ("packet", "ns3")
    }

    def mean(engine, key):
        return sum(r[key] for r in runs[engine]) / seeds

    return runs, mean


def test_two_way_traffic_agrees_with_ns3():
    # The suite's two-way scenario (6 NewReno flows each way over 10 Mbps,
    # half a BDP of buffer each way), seeds 1-3: ns-3's bottleneck return
    # direction gets the reverse link's rate, buffer and queue, its ACKs
    # are ns-3's own. Measured (packet / ns-3, means): utilization 0.862 /
    # 0.866 forward and 0.858 / 0.859 backward, ACK compression 0.164 /
    # 0.173, reverse goodput 8.45 / 8.45 Mbit/s.
    runs, mean = _seed_means("newreno-two-way")

    for key, tol in (
        ("utilization", 0.02),
        ("utilization_reverse", 0.02),
        ("ack_compression", 0.02),
    ):
        assert abs(mean("ns3", key) - mean("packet", key)) <= tol, (key, runs)
    assert mean("ns3", "ack_compression") > 0.05
    rel = mean("ns3", "goodput_bps_reverse") / mean("packet", "goodput_bps_reverse") - 1
    assert abs(rel) <= 0.05, runs


def test_a_parking_lot_agrees_with_ns3():
    # The suite's parking lot (three 10 Mbps links, 6 NewReno flows through
    # all three and 6 through each alone, half a BDP each), seeds 1-10: ns-3
    # puts a router after each link. Measured (packet / ns-3, means): through
    # flows 3.09 / 2.79 Mbit/s (9.5% apart; 10.4% over seeds 1-3 alone)
    # against 6.59-6.70 / 6.89-7.00 for each link's own.
    runs, mean = _seed_means("newreno-parking-lot", seeds=10)

    for k in range(3):
        u = f"utilization_link{k}"
        assert abs(mean("ns3", u) - mean("packet", u)) <= 0.02, runs
        d = f"drop_rate_link{k}"
        assert abs(mean("ns3", d) - mean("packet", d)) <= 1e-4 + 0.2 * mean("packet", d), runs
    for g in range(4):
        rel = mean("ns3", f"goodput_bps_group{g}") / mean("packet", f"goodput_bps_group{g}") - 1
        assert abs(rel) <= 0.1, (g, runs)
    for e in runs:
        assert mean(e, "goodput_bps_group0") < 0.5 * mean(e, "goodput_bps_group1")


def test_cubic_in_whole_segments_raises_small_windows_past_rfc9438():
    # cubic-closedloop (5 long CUBIC flows beside 40 closed-loop users on
    # 20 Mbps): ns-3.37's utilization over seeds 1-10 is 0.7783, measured on
    # 2026-11-26. ns-3's TcpCubic in whole segments (mirror) regains
    # W_max at 1.5x per RTT in small windows, RFC 9438's continuous window
    # more slowly: over the same seeds, with ns-3's access links
    # (bufsim.ns3.access_links, as the suite runs it), the packet engine's
    # utilization is 0.757 with it and 0.679 without, the first the nearer
    # to ns-3 (without the access links 0.766 and 0.681). 0.757 against
    # 0.778 sits at the 0.02 tolerance's edge over 10 seeds; the suite's 3
    # seeds agree (0.764 against 0.751).
    def utilization(integer):
        u = []
        for seed in range(1, 11):
            s = copy.deepcopy(validate.scenarios()["cubic-closedloop"])
            s["seed"] = seed
            for g in s["flows"]:
                g["tcp_params"] = {"mirror": "ns-3.37" if integer else "none"}
            u.append(bufsim.simulate(s, engine="packet").summary["utilization"])
        return sum(u) / len(u)

    whole, rfc = utilization(True), utilization(False)
    assert whole - rfc > 0.02, (whole, rfc)
    assert abs(whole - 0.7783) < abs(rfc - 0.7783), (whole, rfc)
