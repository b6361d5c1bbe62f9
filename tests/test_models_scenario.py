"""bufsim.models.scenario: predict / sweep_buffer on normalized scenarios, and README examples."""

import bufsim
import bufsim.models as m
import numpy as np
import pandas as pd
import pytest
from bufsim.models import ModelInputError, predict, sweep_buffer
from bufsim.result import Result


def make_scenario(
    tcp="newreno",
    n=5,
    rtt=0.006,
    capacity_bps=100e6,
    pkt=500,
    buffer_pkts=100,
    qdisc="droptail",
    background=(),
    access_rate_bps=None,
    rwnd_pkts=None,
    tcp_params=None,
):
    """The normalized scenario (SI units) the core makes of these settings.

    Built through ``bufsim.Scenario.load`` so that the models read exactly
    what the validator produces. ``background`` items are
    ``{"kind", "rate_bps", "packet_size_bytes"}``.
    """
    rtts = [rtt] * n if np.isscalar(rtt) else list(rtt)
    # The models' laws assume the RFCs' stack (an ACK per packet): pinned.
    flow = {
        "count": n,
        "tcp": tcp,
        "stack": "rfc",
        "rtt": [f"{r * 1e3:.10g}ms" for r in rtts],
        "mss": f"{pkt}B",
    }
    if tcp_params:
        flow["tcp_params"] = tcp_params
    if access_rate_bps is not None:
        flow["access_rate"] = f"{access_rate_bps:.10g}bps"
    if rwnd_pkts is not None:
        flow["rwnd"] = f"{rwnd_pkts}pkt"
    raw = {
        "name": "t",
        "duration": "10s",
        "warmup": "1s",
        "seed": 7,
        "link": {
            "capacity": f"{capacity_bps:.10g}bps",
            "delay": "1ms",
            "buffer": f"{buffer_pkts}pkt",
            "packet_size": f"{pkt}B",
            "qdisc": qdisc,
        },
        "flows": [flow],
        "background": [
            {
                "kind": b["kind"],
                "rate": f"{b['rate_bps']:.10g}bps",
                "packet_size": f"{b['packet_size_bytes']}B",
            }
            for b in background
        ],
    }
    return bufsim.Scenario.load(raw).normalized


def test_predict_avrachenkov_matches_theorem1():
    # Paper 003's example: 100 Mbps, 500 B packets, BDP 150 packets, N = 5
    s = make_scenario(buffer_pkts=100)
    r = predict(s, model="avrachenkov_sync")
    assert isinstance(r, Result)
    assert r.provenance["engine"] == "model:avrachenkov_sync"
    assert r.provenance["version"] == bufsim.__version__
    # What the model used and assumed, on the Result.
    assert r.provenance["model"]["source"].startswith("paper 003")
    assert r.provenance["model"]["flows"].startswith("5 flows of groups 0 (newreno)")
    assert any("synchronized" in a for a in r.provenance["model"]["assumptions"])
    mu, alpha = 25000.0, m.aimd_alpha([0.006] * 5)
    rate, xbar = m.theorem1(100, mu, alpha, 0.5)
    # the adapter works in bits; the same numbers in packets (rtol 1e-12, unit conversion only)
    assert r.summary["utilization"] == pytest.approx(rate / mu, rel=1e-12)
    assert r.summary["mean_queue_pkts"] == pytest.approx(xbar, rel=1e-12)
    assert r.summary["mean_queue_delay_s"] == pytest.approx(xbar / mu, rel=1e-12)
    assert r.summary["goodput_bps"] == pytest.approx(rate * 4000, rel=1e-12)
    assert r.summary["b0_pkts"] == pytest.approx(250.0, rel=1e-12)
    assert 0 < r.summary["drop_rate"] < 0.01
    assert list(r.flows.columns) == ["flow", "group", "tcp", "rtt_s", "goodput_bps"]
    assert r.flows["goodput_bps"].sum() == pytest.approx(r.summary["goodput_bps"], rel=1e-12)


def test_auto_chooses_by_tcp_variant():
    assert predict(make_scenario()).engine == "model:avrachenkov"
    assert predict(make_scenario()).summary["synchronized"] is False
    hs = make_scenario("highspeed", 10, list(np.linspace(0.1155, 0.1245, 10)), 1e9, 1000, 1250)
    assert predict(hs).engine == "model:highspeed_mm1k"
    hs["link"]["qdisc"] = "red"
    assert predict(hs).engine == "model:highspeed_red"
    with pytest.raises(ModelInputError, match=r"no analytic model for flows of tcp \['cubic'\]"):
        predict(make_scenario("cubic"))


def test_sweep_highspeed_matches_fixed_point_and_paper001():
    rtts = list(np.linspace(0.1155, 0.1245, 10))
    s = make_scenario("highspeed", 10, rtts, 1e9, 1000, 1250)
    bufs = [125, 1250, 2500]
    table = sweep_buffer(s, bufs)
    for col in ("buffer_pkts", "utilization", "drop_rate", "mean_queue_delay_s", "mean_queue_pkts"):
        assert col in table.columns
    direct = m.hstcp_fixed_point(1e9, rtts, bufs, packet_size_bytes=1000)
    pd.testing.assert_series_equal(table["utilization"], direct["utilization"], rtol=1e-12)
    # paper 001: > 0.9 at 10% of 12500 packets
    assert table["utilization"][1] > 0.9
    # predict at the scenario's own buffer is the same row
    assert predict(s).summary["utilization"] == pytest.approx(table["utilization"][1], rel=1e-12)


def test_sweep_avrachenkov_paper003_curve():
    s = make_scenario(n=5)
    t = sweep_buffer(s, [0, 125, 250, 400], model="avrachenkov_sync")
    # Corollary 1 at B = 0 (75%), full utilization from B0 = 250 on; queue B - 2B0/3 beyond
    np.testing.assert_allclose(t["utilization"][[0, 2, 3]], [0.75, 1.0, 1.0], rtol=1e-12)
    assert t["mean_queue_pkts"][3] == pytest.approx(400 - 500 / 3, rel=1e-12)
    assert t["utilization"].is_monotonic_increasing


def test_sqrt_model_paper002():
    # 200 Reno flows, 50 Mbps, 60 ms, 1500 B: BDP 250; with delayed ACKs the constant is
    # sqrt(3/4) = 0.866 (paper 002 uses 0.87): p(B=18) = (0.866*200)^2/268^2 = 0.4177
    s = make_scenario(n=200, rtt=0.06, capacity_bps=50e6, pkt=1500, buffer_pkts=18)
    s["flows"][0]["delayed_ack"] = True
    r = predict(s, model="sqrt")
    assert r.summary["drop_rate"] == pytest.approx((np.sqrt(0.75) * 200) ** 2 / 268**2, rel=1e-12)
    assert r.summary["utilization"] == 1.0 and r.summary["saturable"] is True
    # flows limited to 100 kbps cannot saturate the link: the model reports it
    lim = make_scenario(n=200, rtt=0.06, capacity_bps=50e6, pkt=1500, access_rate_bps=1e5)
    r2 = predict(lim, model="sqrt")
    assert r2.summary["saturable"] is False
    assert r2.summary["utilization"] == pytest.approx(0.4, rel=1e-12)
    assert np.isnan(r2.summary["drop_rate"])


def test_models_read_tcp_params():
    # AIMD(a = 4) grows four times as fast as AIMD(1): Theorem 1's rate and
    # mean queue follow alpha = a N / RTT^2 (paper 003), so they must move.
    plain = predict(make_scenario("aimd", buffer_pkts=20), model="avrachenkov_sync")
    fast = predict(
        make_scenario("aimd", buffer_pkts=20, tcp_params={"a": 4}), model="avrachenkov_sync"
    )
    mu = 25000.0
    rate, xbar = m.theorem1(20, mu, 4 * m.aimd_alpha([0.006] * 5), 0.5)
    assert fast.summary["utilization"] == pytest.approx(rate / mu, rel=1e-12)
    assert fast.summary["mean_queue_pkts"] == pytest.approx(xbar, rel=1e-12)
    assert fast.summary["utilization"] > plain.summary["utilization"]


def test_background_reduces_tcp_share():
    bg = [{"kind": "poisson", "rate_bps": 25e6, "packet_size_bytes": 500}]
    r = predict(make_scenario(buffer_pkts=400, background=bg), model="avrachenkov")
    assert r.summary["utilization"] == pytest.approx(1.0, rel=1e-12)
    assert r.summary["goodput_bps"] == pytest.approx(75e6, rel=1e-12)


@pytest.mark.parametrize(
    "mutate,kwargs,match",
    [
        (
            lambda s: s["link"].update(capacity_bps=-5.0),
            {},
            r"scenario.link.capacity_bps must be > 0, got -5.0",
        ),
        (lambda s: s.update(flows=[]), {}, r"scenario.flows must contain at least one flow group"),
        (
            lambda s: s["flows"][0].update(rtts_s=[0.1]),
            {},
            r"scenario.flows\[0\].rtts_s must have one RTT per flow \(5\)",
        ),
        (lambda s: s["flows"][0].update(count=0), {}, r"scenario.flows\[0\].count must be >= 1"),
        (lambda s: s["link"].pop("buffer_pkts"), {}, r"scenario.link.buffer_pkts is missing"),
        (lambda s: None, {"model": "fluid"}, r"model must be one of auto, avrachenkov"),
        (
            lambda s: None,
            {"model": "highspeed_mm1k"},
            r"scenario.flows\[0\].tcp: model 'highspeed_mm1k' \(paper 001.*\) describes tcp highspeed, got 'newreno'",
        ),
        (
            lambda s: s["link"].update(qdisc="red"),
            {"model": "avrachenkov"},
            r"scenario.link.qdisc: model 'avrachenkov' \(paper 003.*\) describes 'droptail', got 'red'",
        ),
        (
            lambda s: s["flows"][0].update(kind="open"),
            {"model": "sqrt"},
            r"scenario.flows\[0\]: model 'sqrt' .* persistent flows only, this group is open traffic",
        ),
        (
            lambda s: s.update(
                background=[{"kind": "poisson", "rate_bps": 2e8, "packet_size_bytes": 500}]
            ),
            {},
            r"background rate .* must be below",
        ),
    ],
)
def test_bad_scenarios(mutate, kwargs, match):
    s = make_scenario()
    mutate(s)
    with pytest.raises(ModelInputError, match=match):
        predict(s, **kwargs)


def test_takes_a_scenario_as_simulate_does(tmp_path):
    """A Scenario, a raw dict, a file or a normalized dict: the same prediction."""
    import tomli_w

    raw = {
        "duration": "10s",
        "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "100pkt", "packet_size": "500B"},
        "flows": [{"count": 5, "rtt": "6ms", "mss": "500B"}],
    }
    (tmp_path / "s.toml").write_text(tomli_w.dumps(raw))
    scn = bufsim.Scenario.load(raw)
    expected = predict(scn.normalized).summary
    for source in (scn, raw, tmp_path / "s.toml", str(tmp_path / "s.toml")):
        r = predict(source)
        assert r.summary == expected
        assert r.provenance["scenario_hash"] == scn.hash()
    assert sweep_buffer(tmp_path / "s.toml", [5]).shape[0] == 1
    with pytest.raises(
        ModelInputError, match=r"scenario must be a bufsim.Scenario, a scenario dict or file"
    ):
        predict([1, 2])
    with pytest.raises(bufsim.ScenarioError, match="link.capacity"):
        predict(
            {
                "duration": "1s",
                "link": {"capacity": "fast", "delay": "1ms", "buffer": "1pkt"},
                "flows": [],
            }
        )


def test_sweep_rejects_bad_buffers():
    with pytest.raises(ModelInputError, match=r"buffers_pkts must be >= 0"):
        sweep_buffer(make_scenario(), [10, -1])
