"""DCTCP (RFC 8257) with step marking at K (the ``threshold`` discipline)
from the Python API, the CLI, a sweep and ``advise``, and its bad inputs.

The numbers against the DCTCP analysis (queue amplitude, Q_max = K + N,
utilization vs K) are checked in ``crates/bufsim-core/tests/packet_dctcp.rs``;
here the same setting (10 Gbps, 100 us RTT, C x RTT = 83 packets) is reached
through each entry point and checked for the same kind of number.
"""

from __future__ import annotations

import bufsim
import pytest
from bufsim.scenario import FLUID_VARIANTS, ScenarioError
from conftest import cli

K = 20
N = 4


def _scn(k=K, n=N, **flow) -> dict:
    return {
        "duration": "0.1s",
        "warmup": "0.02s",
        "link": {
            "capacity": "10Gbps",
            "delay": "20us",
            "buffer": "200pkt",
            "qdisc": "threshold",
            "qdisc_params": {"k": k},
        },
        "flows": [{"count": n, "tcp": "dctcp", "rtt": "100us", "mss": "1500B", **flow}],
    }


def test_api_runs_dctcp_through_step_marking():
    r = bufsim.simulate(_scn())
    s = r.summary
    # ECN is implied by tcp = "dctcp"; K is normalized with its unit.
    assert r.scenario["flows"][0]["ecn"] is True
    assert r.scenario["flows"][0]["tcp"] == "dctcp"
    assert r.scenario["link"]["qdisc_params"] == {"k": K, "k_unit": "packets"}
    # K = 20 > C x RTT / 7 = 11.9: full utilization, the queue around K
    # (between Q_min = K + N - A = 9.6 and Q_max = K + N = 24, Alizadeh et
    # al. 2010 eqs. (8)-(10)); marks, not drops.
    assert s["utilization"] >= 0.99
    assert K - 6 <= s["mean_queue_pkts"] <= K + N
    assert s["packets_dropped"] == 0
    assert r.flows["ecn_reductions"].sum() > 100


def test_cli_runs_a_dctcp_scenario(tmp_path):
    (tmp_path / "s.toml").write_text(
        """
duration = "0.1s"
warmup = "0.02s"

[link]
capacity = "10Gbps"
delay = "20us"
buffer = "200pkt"
qdisc = "threshold"
qdisc_params = { k = "30000B" }

[[flows]]
count = 4
tcp = "dctcp"
rtt = "100us"
mss = "1500B"
"""
    )
    p = cli("run", "s.toml", "--out", "out", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    r = bufsim.Result.load(tmp_path / "out")
    # K = 30000 B = 20 packets of 1500 B: the same run as K = 20 packets.
    assert r.scenario["link"]["qdisc_params"] == {"k": 30000, "k_unit": "bytes"}
    assert r.summary["utilization"] >= 0.99
    assert r.summary["packets_dropped"] == 0


def test_sweep_over_k_shows_the_seventh_of_a_bdp():
    # Eq. (13): K > C x RTT / 7 = 11.9 keeps the link busy; K = 1 does not
    # (the Rust test measures 0.9775 for N = 4).
    t = bufsim.sweep(_scn(), {"link.qdisc_params.k": [1, 12]}, store=None, workers=0)
    u = dict(zip(t["link.qdisc_params.k"], t["utilization"], strict=True))
    assert u[12] >= 0.99
    assert u[1] < 0.99 and u[1] < u[12] - 0.01, u


def test_advise_sizes_the_buffer_at_k_plus_n():
    # With step marking the queue peaks at Q_max = K + N = 24 (eq. (9)), so
    # the smallest buffer with full utilization is just above it (the
    # grid's 23 packets fails, 32 holds).
    s = _scn()
    del s["duration"], s["warmup"]
    a = bufsim.advise(s, ["utilization>=0.99"], seeds=1, quick=True, store=None, workers=0)
    assert a.feasible
    assert K + N - 1 <= a.buffer_pkts <= 2 * (K + N), a.buffer_pkts
    # The rule beside it: Q_max = K + N, with eq. (13)'s verdict on K.
    rule = a.table.set_index("source").loc["DCTCP K + N (Alizadeh 2010)"]
    assert rule["applies"] and rule["buffer_pkts"] == K + N
    assert "C x RTT / 7 = 11.9 packets (eq. 13): holds" in rule["note"]
    # No fluid scan for DCTCP: the advice says why.
    assert "dctcp" not in FLUID_VARIANTS


@pytest.mark.parametrize(
    "stack, control_ect, started",
    [("linux", None, 100), ("ns3", None, 86), ("linux", "rfc", 29)],
)
def test_dctcp_syns_carry_ect_so_transfers_start_above_k(stack, control_ect, started):
    # 64 long DCTCP flows hold a threshold queue around K = 100 packets;
    # 100 x 64 KB transfers open with a handshake at 20 ms. A SYN without
    # ECT above K is dropped (RFC 3168 section 6.1.1 keeps it off; the
    # threshold queue drops non-ECT packets above K) and resent only after
    # 1 s (Linux) or 3 s (ns-3), past the run's end. Linux and ns-3.37 set
    # ECT on DCTCP's SYNs and ACKs (control_ect = "cc": tcp_ecn_send_syn,
    # TcpSocketBase::AddSocketTags): every transfer starts under linux
    # (86 of 100 with ns-3's 1 s minimum RTO). With RFC 3168's rule, 29
    # (a 100 Gbps, 0.6 s run, transfers at 0.1 s: 16).
    rule = {} if control_ect is None else {"control_ect": control_ect}
    rtt = {"uniform": ["10us", "100us"]}
    grp = {"tcp": "dctcp", "rtt": rtt, "stack": stack, **rule}
    r = bufsim.simulate(
        {
            "duration": "0.05s",
            "warmup": "0s",
            "link": {
                "capacity": "10Gbps",
                "delay": "2us",
                "buffer": "1000pkt",
                "qdisc": "threshold",
                "qdisc_params": {"k": 100},
            },
            "flows": [
                {"count": 64, **grp},
                {"count": 100, "size": "64KB", "start": "0.02s", **grp},
            ],
        }
    )
    transfers = r.flows[r.flows.group == 1]
    assert int((transfers.delivered_pkts > 0).sum()) == started


def test_fluid_engine_refuses_dctcp_naming_the_field():
    s = _scn()
    s["link"] = {**s["link"], "qdisc": "droptail", "qdisc_params": {}}
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.tcp.*dctcp.*fraction of ECN-marked"):
        bufsim.simulate(s, engine="fluid")
    with pytest.raises(ScenarioError, match=r"link\.qdisc.*threshold"):
        bufsim.simulate(_scn(), engine="fluid")


@pytest.mark.parametrize(
    "edit,path,needle",
    [
        (lambda s: s["link"].update(qdisc_params={}), "link.qdisc_params.k", "required"),
        (lambda s: s["link"].update(qdisc_params={"k": -5}), "link.qdisc_params.k", "-5"),
        (lambda s: s["link"].update(qdisc_params={"k": 2.5}), "link.qdisc_params.k", "whole"),
        (lambda s: s["link"].update(qdisc_params={"k": "0.2BDP"}), "link.qdisc_params.k", "BDP"),
        (lambda s: s["link"].update(qdisc_params={"k": "-5pkt"}), "link.qdisc_params.k", "-5pkt"),
        (lambda s: s["link"].update(qdisc_params={"k": 5, "K": 5}), "link.qdisc_params.K", "k"),
        (lambda s: s["flows"][0].update(ecn=False), "flows[0].ecn", "needs ECN"),
        (lambda s: s["flows"][0].update(tcp_params={"g": 0}), "flows[0].tcp_params.g", "between"),
        (
            lambda s: s["flows"][0].update(tcp_params={"alpha_init": 2}),
            "flows[0].tcp_params.alpha_init",
            "between",
        ),
    ],
)
def test_bad_dctcp_and_threshold_inputs_name_the_field(edit, path, needle):
    s = _scn()
    edit(s)
    with pytest.raises(ScenarioError) as e:
        bufsim.Scenario.load(s)
    assert e.value.path == path, str(e.value)
    assert needle in str(e.value), str(e.value)
