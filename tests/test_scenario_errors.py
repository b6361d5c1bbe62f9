"""Bad scenarios give a bufsim.ScenarioError naming the field, the value and
what is allowed; none panics."""

from __future__ import annotations

import bufsim
import pytest
from conftest import DELETE, edit

BAD = [
    # (path, value, expected fragments of the message)
    ("duration", 100, ["duration", "unit", "100ms"]),
    ("duration", "100", ["duration", "invalid duration", "ms"]),
    ("duration", "0s", ["duration", "must be > 0s"]),
    ("warmup", "30s", ["warmup", "shorter than duration"]),
    ("link.capacity", "50Mbs", ["link.capacity", "invalid rate", "Mbps"]),
    ("link.capacity", "-5Mbps", ["link.capacity", "invalid rate"]),
    ("link.capacity", "0bps", ["link.capacity", "must be > 0bps"]),
    ("link.buffer", "20", ["link.buffer", "pkt", "BDP", "time at line rate"]),
    ("link.buffer", "2min", ["link.buffer", "pkt", "BDP", "10us"]),
    ("link.buffer", "2.5pkt", ["link.buffer", "whole number"]),
    ("link.buffer", "0pkt", ["link.buffer", "at least one packet"]),
    ("link.qdisc", "sfq", ["link.qdisc", "unknown queue discipline", "droptail"]),
    ("link.capcity", "1Mbps", ["link", "unknown field `capcity`", "capacity"]),
    ("link.delay", DELETE, ["link", "missing field `delay`"]),
    ("flows.0.count", 0, ["flows[0].count", "must be >= 1"]),
    ("flows.0.count", "two", ["flows[0].count", "invalid type"]),
    ("flows.0.tcp", "vegas", ["flows[0].tcp", "unknown TCP variant", "newreno"]),
    ("flows.0.rtt", "30ms", ["flows[0].rtt", "shorter than twice link.delay"]),
    ("flows.0.rtt", ["100ms", "120ms"], ["flows[0].rtt", "2 values but count is 1"]),
    ("flows.0.rtt", {"min": "120ms", "max": "100ms"}, ["flows[0].rtt", "min", "max"]),
    ("flows.0.rtt", {"gauss": "100ms"}, ["flows[0].rtt", 'unknown key "gauss"']),
    ("flows.0.mss", "10B", ["flows[0].mss", "between 64B and 65535B"]),
    ("flows.0.loss", 1.5, ["flows[0].loss", "probability in [0, 1)"]),
    ("flows.0.loss", "1%", ["flows[0].loss", "invalid type"]),
    ("flows.0.start", "25s", ["flows[0].start", "not before duration"]),
    ("flows.0.initial_window", 0, ["flows[0].initial_window", "from 1 to 1000"]),
    ("flows.0.min_rto", "0s", ["flows[0].min_rto", ">= 1ms"]),
    ("flows.0.initial_rto", "0.5ms", ["flows[0].initial_rto", "got 500 us", "at least 1ms", "60s"]),
    ("flows.0.initial_rto", "2min", ["flows[0].initial_rto", "at most 60s"]),
    ("flows.0.initial_rto", 10, ["flows[0].initial_rto", "unit"]),
    ("flows.0.rwnd", "0.5BDP", ["flows[0].rwnd", "not a BDP fraction"]),
    ("flows.0.rwnd", "1ms", ["flows[0].rwnd", "or a time"]),
    ("flows.0.access_buffer", "50pkt", ["flows[0].access_buffer", "needs access_rate"]),
    ("flows.0.tcp_params", {"a": 2}, ["flows[0].tcp_params.a", "unknown parameter for newreno"]),
    ("flows.0.sack", "yes", ["flows[0].sack", "invalid type"]),
    ("output.interval", "0s", ["output.interval", "must be > 0s"]),
    ("seed", -1, ["seed", "invalid value"]),
]


@pytest.mark.parametrize("path,value,fragments", BAD, ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_bad_field_is_named(base, path, value, fragments):
    base["warmup"] = "1s"
    base["output"] = {"interval": "1s"}
    bad = edit(base, path, value)
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.Scenario.load(bad)
    msg = str(info.value)
    for fragment in fragments:
        assert fragment in msg, f"{fragment!r} not in {msg!r}"


@pytest.mark.parametrize(
    "background,fragments",
    [
        (
            {"kind": "cbr", "rate": "1Mbps", "packet_size": "1000B"},
            ["background[0].kind", "poisson"],
        ),
        ({"kind": "poisson", "rate": "1Mbps"}, ["background[0]", "missing field `packet_size`"]),
        (
            {"kind": "poisson", "rate": "500Mbps", "packet_size": "1000B"},
            ["background[0].rate", "10 times"],
        ),
    ],
)
def test_bad_background(base, background, fragments):
    base["background"] = [background]
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.simulate(base)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_bad_sources(tmp_path):
    with pytest.raises(bufsim.ScenarioError, match="does not exist"):
        bufsim.Scenario.load(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("duration = \n")
    with pytest.raises(bufsim.ScenarioError, match="cannot parse"):
        bufsim.Scenario.load(broken)
    with pytest.raises(bufsim.ScenarioError, match="must be a dict"):
        bufsim.Scenario.load(42)
    # A YAML file is named as such, with what bufsim reads, not read as TOML.
    yaml = tmp_path / "s.yaml"
    yaml.write_text("name: x\nduration: 10s\n")
    with pytest.raises(bufsim.ScenarioError, match=r"YAML is not read; .*\.toml .*\.json"):
        bufsim.Scenario.load(yaml)
    with pytest.raises(bufsim.ScenarioError, match="^duration: a object .* is not scenario data"):
        bufsim.Scenario.load({"duration": object()})


def test_bad_engine(base):
    with pytest.raises(bufsim.ScenarioError, match="engine must be one of"):
        bufsim.simulate(base, engine="ns4")


def test_bdp_buffer_needs_an_rtt(base):
    base["flows"] = []
    base["link"]["buffer"] = "0.5BDP"
    base["link"]["packet_size"] = "1000B"
    # Without flows the BDP refers to twice the link delay: 10 Mbps * 40 ms / 8000 bits = 50 packets.
    assert bufsim.Scenario.load(base).normalized["link"]["buffer_pkts"] == 25
    base["link"]["bdp_rtt"] = "200ms"
    assert bufsim.Scenario.load(base).normalized["link"]["buffer_pkts"] == 125


@pytest.mark.parametrize(
    "buffer, pkts, nbytes, mode",
    [
        # 10 Mbps: 10 ms of line rate is 12,500 B, 12 packets of 1000 B.
        ("10ms", 12, 12_500, "bytes"),
        ("800us", 1, 1_000, "bytes"),
        ("12MB", 12_000, 12_000_000, "bytes"),
        ("32MiB", 33_554, 33_554_432, "bytes"),
        ("20pkt", 20, 20_000, "packets"),
    ],
)
def test_buffers_in_time_and_in_bytes_with_prefixes(base, buffer, pkts, nbytes, mode):
    base["link"].update(capacity="10Mbps", buffer=buffer, packet_size="1000B")
    link = bufsim.Scenario.load(base).normalized["link"]
    assert (link["buffer_pkts"], link["buffer_bytes"], link["buffer_mode"]) == (pkts, nbytes, mode)


def test_jitter_is_a_bounded_duration(base):
    base["flows"][0]["jitter"] = "2s"
    with pytest.raises(bufsim.ScenarioError, match=r"flows\[0\]\.jitter: must be at most 1s"):
        bufsim.Scenario.load(base)
    base["flows"][0]["jitter"] = 0.001
    with pytest.raises(bufsim.ScenarioError, match=r"flows\[0\]\.jitter.*unit"):
        bufsim.Scenario.load(base)


def test_one_root_for_every_bufsim_error_and_the_field_as_an_attribute():
    import pickle

    import bufsim

    for cls in (
        bufsim.ScenarioError,
        bufsim.EngineError,
        bufsim.SweepSpecError,
        bufsim.StoreError,
        bufsim.ModelInputError,
        bufsim.AdviceError,
    ):
        assert issubclass(cls, bufsim.BufsimError), cls
    assert issubclass(bufsim.ScenarioError, ValueError) and issubclass(
        bufsim.EngineError, RuntimeError
    )
    raw = {
        "name": "x",
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "1ms", "buffer": "5pkt"},
        "flows": [{"rtt": "oops"}],
    }
    with pytest.raises(bufsim.BufsimError) as e:
        bufsim.Scenario.load(raw)
    assert e.value.path == "flows[0].rtt" and str(e.value).startswith("flows[0].rtt: ")
    # Errors cross process boundaries (sweeps on a pool or Dask).
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is bufsim.ScenarioError and str(again) == str(e.value)


def test_the_initial_rto_is_normalized_only_when_set(base):
    # Unset, the normalized scenario is what it was before the field (no
    # key: results and stored runs keep their keys); set, in seconds.
    plain = bufsim.Scenario.load(base).normalized
    assert "initial_rto_s" not in plain["flows"][0]
    set_ = edit(base, "flows.0.initial_rto", "10ms")
    g = bufsim.Scenario.load(set_).normalized["flows"][0]
    assert g["initial_rto_s"] == pytest.approx(0.01, rel=1e-12)
    del g["initial_rto_s"]
    assert g == plain["flows"][0]
