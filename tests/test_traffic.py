"""Realistic traffic in the packet engine from the Python API:
finite transfers, open and closed loop, per-flow records and CDFs, the
empirical size CSV, overload and bad input (paper 002 section 4 is in
test_reproduce_papers.py)."""

from __future__ import annotations

import bufsim
import pytest
from bufsim import flows as bflows
from bufsim.engines import OverloadWarning
from hypothesis import assume, given, settings
from hypothesis import strategies as st

OPEN = {
    "duration": "120s",
    "warmup": "10s",
    "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
    "flows": [
        {"rtt": "40ms", "size": {"exponential": "60pkt"}, "arrival": {"load": 0.6}},
        {"count": 2, "rtt": "40ms"},
    ],
    "output": {"large_flow": "100KB"},
}


def test_open_loop_records_and_cdfs():
    r = bufsim.simulate(OPEN)
    f = r.flows
    for col in (
        "size_pkts",
        "start_s",
        "end_s",
        "fct_s",
        "bytes",
        "throughput_bps",
        "finished",
        "left_slow_start",
        "large",
        "loss_rate",
        "retransmits",
    ):
        assert col in f
    # Two persistent rows first, then one row per transfer.
    assert f["size_pkts"].isna().sum() == 2
    done = f[f["finished"] == 1]
    assert len(done) > 500
    assert (done["bytes"] == done["size_pkts"] * 1500).all()
    assert (done["fct_s"] > 0.04).all()  # at least one RTT
    # large = more than 100 KB = 67 packets of 1500 B.
    assert ((done["size_pkts"] > 100_000 / 1500) == (done["large"] == 1)).all()
    c = bflows.cdfs(r, "throughput_bps")
    assert set(c) == {"persistent", "large", "small"}
    assert c["large"]["F"].iloc[-1] == 1.0 and c["large"]["x"].is_monotonic_increasing
    s = bflows.summary(r)
    assert s.loc["small", "flows"] + s.loc["large", "flows"] == len(done)
    # Time series of active and long flows; the mean matches the summary's
    # exact time average within sampling error.
    ts = r.timeseries
    assert ts["active_flows"].max() <= r.summary["active_flows_max"]
    assert abs(ts["active_flows"].iloc[100:].mean() - r.summary["active_flows_mean"]) < 0.5
    assert r.summary["overload"] == 0.0


def test_empirical_sizes_relative_to_the_scenario_file(tmp_path):
    (tmp_path / "sizes.csv").write_text("size_pkts,cdf\n10,0.5\n20,1.0\n")
    (tmp_path / "s.toml").write_text(
        """
duration = "60s"
[link]
capacity = "10Mbps"
delay = "5ms"
buffer = "50pkt"
[[flows]]
rtt = "40ms"
size = { empirical = "sizes.csv" }
arrival = { rate = "10/s" }
"""
    )
    s = bufsim.Scenario.load(tmp_path / "s.toml")
    g = s.normalized["flows"][0]
    # Atom 0.5 at 10 packets, uniform on (10, 20]: mean of the rounded draw 10 + 0.5 * 5.5.
    assert g["mean_size_pkts"] == pytest.approx(12.75)
    assert g["kind"] == "open" and g["arrival_rate_per_s"] == pytest.approx(10.0)
    r = bufsim.simulate(s)
    done = r.flows[r.flows["finished"] == 1]
    assert done["size_pkts"].between(10, 20).all()
    assert abs((done["size_pkts"] == 10).mean() - 0.5) < 0.1  # ~600 draws


def test_overload_warns_and_caps():
    sc = {
        **OPEN,
        "duration": "40s",
        "flows": [
            {
                "rtt": "40ms",
                "size": {"exponential": "60pkt"},
                "arrival": {"load": 1.5},
                "max_active": 100,
            }
        ],
    }
    with pytest.warns(OverloadWarning, match="max_active"):
        r = bufsim.simulate(sc)
    assert r.summary["overload"] == 1.0
    assert r.summary["active_flows_max"] <= 100


def test_closed_loop_from_python():
    sc = {
        **OPEN,
        "flows": [{"rtt": "40ms", "size": "dhamdhere2006", "users": 20, "think": {"fixed": "1s"}}],
    }
    r = bufsim.simulate(sc)
    assert r.summary["active_flows_max"] <= 20
    assert r.scenario["flows"][0]["kind"] == "closed"
    assert r.scenario["flows"][0]["mean_size_pkts"] == pytest.approx(35.0, rel=0.02)


@pytest.mark.parametrize(
    "group, path, needle",
    [
        ({"size": {"pareto": {"shape": 0.5, "min": "1pkt"}}}, "flows[0].size.pareto.shape", "> 1"),
        ({"arrival": {"rate": "fast"}}, "flows[0].arrival", "/s"),
        ({"users": 3}, "flows[0].users", "not both"),
        ({"max_active": -1}, "flows[0].max_active", "from 1"),
        ({"think": "1s"}, "flows[0].think", "closed-loop"),
        ({"rtt": {"tree": {"nodes": 18}}}, "flows[0].rtt", "tree.min"),
        ({"size": {"empirical": "no-such-file.csv"}}, "flows[0].size.empirical", "cannot read"),
        ({"arrival": {"every": "10ms", "burst": 0}}, "flows[0].arrival", "burst.*from 1"),
        ({"arrival": {"every": "0s", "burst": 8}}, "flows[0].arrival", "every: must be > 0s"),
        ({"arrival": {"rate": "5/s", "every": "1s"}}, "flows[0].arrival", "exactly one of"),
        ({"arrival": {"burst": 8}}, "flows[0].arrival", "exactly one of"),
    ],
)
def test_bad_traffic_names_the_field(group, path, needle):
    g = {"rtt": "40ms", "size": {"exponential": "60pkt"}, "arrival": {"load": 0.5}, **group}
    with pytest.raises(bufsim.ScenarioError, match=needle) as e:
        bufsim.Scenario.load({**OPEN, "flows": [g]})
    assert path in str(e.value)


def test_fluid_engine_refuses_finite_traffic():
    with pytest.raises(bufsim.ScenarioError, match="persistent flows only"):
        bufsim.simulate(OPEN, engine="fluid")


def test_finite_traffic_puts_completion_times_in_the_summary():
    """Packet runs with finite transfers carry per-class completions and
    FCTs (mean, p99) in the summary over every transfer started in the
    measurement window, the unfinished ones at the time they had run;
    persistent-only runs have none (nothing to measure)."""
    import numpy as np

    raw = {
        "duration": "20s",
        "warmup": "2s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [
            {"count": 2, "rtt": "40ms"},
            {"arrival": {"load": 0.4}, "size": "dhamdhere2006", "rtt": "40ms"},
        ],
    }
    r = bufsim.simulate(raw)
    f = bflows.classify(r, finished_only=False)
    f = f[(f["class"] != "persistent") & (f["start_s"] >= 2.0)]
    for c in ("small", "large"):
        g = f[f["class"] == c]
        done = g["finished"] == 1.0
        assert len(g) > 10 and done.sum() >= len(g) - 10
        assert r.summary[f"flows_started_{c}"] == len(g)
        assert r.summary[f"flows_completed_{c}"] == done.sum()
        assert r.summary[f"completion_{c}"] == pytest.approx(done.mean(), rel=1e-12)
        elapsed = np.where(done, g["fct_s"], 20.0 - g["start_s"])
        # The Kaplan-Meier estimates (bufsim.flows) over all of them: the
        # transfers that arrived just before the end are censored early.
        mean, known = bflows.censored_mean(elapsed, done)
        assert known and r.summary[f"fct_mean_{c}_s_censored"] == 0.0
        assert r.summary[f"fct_mean_{c}_s"] == mean
        assert elapsed[done].mean() * 0.9 < mean < elapsed[done].mean() * 1.3
        p99, known = bflows.censored_quantile(elapsed, done, 0.99)
        assert known and r.summary[f"fct_p99_{c}_s"] == p99
        # Slowdown: FCT over the transfer alone on the link (size at 10 Mbps
        # plus the 40 ms RTT; 1500 B packets, the default mss), at least 1.
        ideal = g["size_pkts"] * 1500 * 8 / 10e6 + 0.04
        assert (g.loc[done, "slowdown"] >= 1 - 1e-9).all()
        assert r.summary[f"slowdown_mean_{c}"] == pytest.approx(
            bflows.censored_mean(elapsed / ideal, done)[0], rel=1e-9
        )
    # A transfer takes at least one RTT (40 ms) plus its serialization.
    assert r.summary["fct_mean_small_s"] > 0.04
    persistent = bufsim.simulate({**raw, "flows": raw["flows"][:1]})
    assert not [k for k in persistent.summary if k.startswith(("fct_", "flows_started"))]
    # output.halves: the same per half of the window (transfers by their
    # start: before 11 s, after), the run itself unchanged.
    h = bufsim.simulate({**raw, "output": {"halves": True}})
    assert {k: v for k, v in h.summary.items() if "_half" not in k and k != "events"} == {
        k: v for k, v in r.summary.items() if k != "events"
    }
    for c in ("small", "large"):
        g = f[f["class"] == c]
        done = (g["finished"] == 1.0).to_numpy()
        elapsed = np.where(done, g["fct_s"], 20.0 - g["start_s"])
        first = g["start_s"].to_numpy() < 11.0
        assert first.any() and (~first).any()
        assert (
            h.summary[f"fct_mean_{c}_s_half1"]
            == bflows.censored_mean(elapsed[first], done[first])[0]
        )
        assert (
            h.summary[f"fct_p99_{c}_s_half2"]
            == bflows.censored_quantile(elapsed[~first], done[~first], 0.99)[0]
        )
    # The halves' utilizations average to the window's (equal halves).
    u = (h.summary["utilization_half1"] + h.summary["utilization_half2"]) / 2
    assert u == pytest.approx(r.summary["utilization"], rel=1e-12)


def _incast(burst: int, stack: str = "rfc", buffer: str = "4MB") -> dict:
    """Incasts of ``burst`` transfers of 64 KB every 50 ms at 10 Gbps, 20 us RTT."""
    return {
        "duration": "0.2s",
        "warmup": "0s",
        "link": {"capacity": "10Gbps", "delay": "2us", "buffer": buffer},
        "flows": [
            {
                "size": "64KB",
                "arrival": {"every": "50ms", "burst": burst},
                "rtt": "20us",
                "mss": "1500B",
                "stack": stack,
            }
        ],
    }


def test_an_incast_starts_its_transfers_together_every_period():
    r = bufsim.simulate(_incast(32))
    g = r.scenario["flows"][0]
    # 32 transfers every 50 ms: 640 a second.
    assert (g["arrival_burst"], g["arrival_every_s"], g["arrival_rate_per_s"]) == (32, 0.05, 640.0)
    starts = r.flows["start_s"].round(9).value_counts().sort_index()
    assert list(starts.index) == pytest.approx([0.05, 0.10, 0.15])
    assert (starts == 32).all()


@pytest.mark.parametrize("stack, handshakes", [("rfc", 0), ("linux", 1)])
def test_a_lossless_incast_completes_as_the_link_drains_it(stack, handshakes):
    # With a buffer that holds every packet the link never idles once the
    # first segments arrive: the last of N transfers of S packets ends at
    # N S x packet time + one RTT (its last ACK), plus one RTT per handshake.
    r = bufsim.simulate(_incast(32, stack))
    assert r.summary["drop_rate"] == 0
    f = r.flows
    n, pkts, rtt = 32, int(f["size_pkts"].iloc[0]), 20e-6
    ideal = n * pkts * 1500 * 8 / 10e9 + (1 + handshakes) * rtt
    last = f.groupby(f["start_s"].round(9))["fct_s"].max()
    assert len(last) == 3
    assert ((last - ideal).abs() <= rtt).all(), (list(last), ideal)


@settings(max_examples=25, deadline=None)
@given(
    burst=st.integers(1, 64),
    buffer_kb=st.integers(10, 4000),
    size_kb=st.integers(1, 200),
    stack=st.sampled_from(["rfc", "linux"]),
)
def test_slowdown_is_never_below_one(burst, buffer_kb, size_kb, stack):
    # FCT over the ideal (size at the bottleneck rate plus the base RTT): no
    # transfer beats a lone one on an empty path, lossy incasts or not.
    scn = _incast(burst, stack, f"{buffer_kb}KB")
    scn["flows"][0]["size"] = f"{size_kb}KB"
    f = bufsim.simulate(scn).flows
    done = f[f["finished"] == 1]
    # A lossy incast on the rfc stack (1 s minimum RTO) may finish nothing
    # in 0.2 s: such a draw says nothing about slowdown.
    assume(len(done) > 0)
    assert (done["slowdown"] >= 1.0).all(), done["slowdown"].min()
