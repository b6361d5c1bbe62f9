"""Statistics drawn right: curves split by every swept axis, bands inside
the metric's range, one point per buffer given relative to the BDP."""

from __future__ import annotations

import math

import bufsim
import numpy as np
import pandas as pd
import pytest
from bufsim import plot, report
from hypothesis import given, settings
from hypothesis import strategies as st


@given(
    st.lists(st.floats(0.0, 1.0), min_size=2, max_size=12),
    st.sampled_from([0.5, 0.9, 0.95, 0.99]),
)
@settings(max_examples=300, deadline=None)
def test_a_fraction_band_never_leaves_zero_to_one(values, confidence):
    m, lo, hi = plot._mean_ci(pd.Series(values), confidence, plot.value_range("utilization"))
    assert 0.0 <= lo <= m + 1e-12 and m - 1e-12 <= hi <= 1.0


@given(st.lists(st.floats(0.0, 10.0), min_size=2, max_size=12))
@settings(max_examples=300, deadline=None)
def test_a_delay_band_never_goes_below_zero(values):
    m, lo, hi = plot._mean_ci(pd.Series(values), 0.95, plot.value_range("p99_queue_delay_s"))
    assert lo >= 0.0 and lo <= m + 1e-12 <= hi + 2e-12


def test_value_ranges():
    assert plot.value_range("utilization") == (0.0, 1.0)
    assert plot.value_range("completion_small") == (0.0, 1.0)
    assert plot.value_range("p99_queue_delay_s") == (0.0, math.inf)
    assert plot.value_range("slowdown_p99_small") == (0.0, math.inf)


def _research_sweep() -> pd.DataFrame:
    base = {
        "duration": "6s",
        "warmup": "2s",
        "link": {"capacity": "20Mbps", "delay": "5ms", "buffer": "10pkt"},
        "flows": [
            {
                "count": 4,
                "tcp": "newreno",
                "rtt": {"min": "20ms", "max": "80ms"},
                "start": {"uniform": ["0s", "1s"]},
            }
        ],
    }
    return bufsim.sweep(
        base,
        grid={
            "link.buffer": ["3pkt", "10pkt", "40pkt"],
            "flows[0].tcp": ["newreno", "cubic", "highspeed"],
        },
        seeds=[1, 2, 3],
        store=None,
        progress=False,
        workers=0,
    )


def test_research_sweep_draws_one_band_per_tcp_variant_inside_zero_to_one(tmp_path):
    # Buffers x 3 TCP variants x 3 seeds: the report once pooled the TCP
    # axis into "a 95% t-interval over 9 seeds" and drew a utilization band
    # from -3.3 to +4.7. Now one curve per variant, over its own 3 seeds.
    t = _research_sweep()
    assert plot.swept_axes(t) == ["flows[0].tcp"]
    c = plot._curves(t, "utilization", "buffer_pkts", 0.95, ["flows[0].tcp"])
    assert len(c) == 9 and (c["n"] == 3).all()
    assert ((c["lo"] >= 0) & (c["hi"] <= 1)).all()
    fig = plot.buffer_curves(t, "utilization")
    ax = fig.axes[0]
    labels = [x.get_text() for x in ax.get_legend().get_texts()]
    # A swept TCP names the flow group (its count and TCP), not "tcp = cubic".
    assert sorted(labels) == [f"packet, 4 x {v}" for v in ("cubic", "highspeed", "newreno")]
    assert "over 3 seeds per point" in ax.get_title()
    for poly in ax.collections:
        y = np.concatenate([p.vertices[:, 1] for p in poly.get_paths()])
        assert y.min() >= 0 and y.max() <= 1
    page = report.sweep_report(t)
    assert "One curve per flows[0].tcp" in page


def test_a_buffer_relative_to_the_bdp_is_one_point():
    # "1BDP" with RTTs drawn per seed resolves to a packet count per seed:
    # the runs of one given buffer form one point (at their mean), with an
    # interval, not one point per seed.
    t = pd.DataFrame(
        {
            "engine": ["packet"] * 3,
            "link.buffer": ["1BDP"] * 3,
            "buffer_pkts": [825.0, 856.0, 906.0],
            "utilization": [0.97, 0.98, 0.99],
        }
    )
    c = plot._curves(t, "utilization", "buffer_pkts", 0.95)
    assert (
        len(c) == 1 and c["x"].iloc[0] == pytest.approx(862.333, rel=1e-5) and c["n"].iloc[0] == 3
    )


def test_time_and_rate_axes_read_as_the_cli_prints_them():
    t = pd.DataFrame(
        {
            "engine": ["packet"] * 4,
            "buffer_pkts": [10.0, 10.0, 100.0, 100.0],
            "p99_queue_delay_s": [0.002, 0.003, 0.04, 0.05],
        }
    )
    fig = plot.buffer_curves(t, "p99_queue_delay_s")
    fig.canvas.draw()
    labels = [x.get_text() for x in fig.axes[0].get_yticklabels() if x.get_text()]
    assert labels and all(label.endswith("s") for label in labels), labels
    assert any(label.endswith(" ms") for label in labels), labels


def test_a_swept_top_level_field_splits_the_curves_too():
    # warmup, a top-level field with no dot in its path, splits the curves
    # like any swept field: two curves of 2 seeds per point, not one band
    # "over 4 seeds per point".
    base = {
        "name": "warmups",
        "duration": "4s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "10pkt"},
        "flows": [{"count": 2, "tcp": "newreno", "rtt": "40ms"}],
    }
    t = bufsim.sweep(
        base,
        grid={"link.buffer": ["5pkt", "20pkt"], "warmup": ["0s", "1s"]},
        seeds=[1, 2],
        store=None,
        progress=False,
        workers=0,
    )
    assert t.attrs["sweep"]["params"] == ["link.buffer", "warmup"]
    assert plot.swept_axes(t) == ["warmup"]
    c = plot._curves(t, "utilization", "buffer_pkts", 0.95, plot.swept_axes(t))
    assert len(c) == 4 and (c["n"] == 2).all()


def test_a_bdp_buffer_with_drawn_rtts_resolves_once_per_scenario():
    # "1BDP" with RTTs drawn per seed is one buffer, one x value: the BDP
    # takes the RTT law's mean, not each seed's draws (uniform on [20, 180]
    # ms: 100 ms; 10 Mbps, 1000 B: 125 packets for every seed).
    base = {
        "name": "bdp-once",
        "duration": "2s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "10pkt"},
        "flows": [{"count": 5, "rtt": {"uniform": ["20ms", "180ms"]}, "mss": "1000B"}],
    }
    t = bufsim.sweep(
        base, grid={"link.buffer": ["1BDP"]}, seeds=[1, 2, 3], store=None, progress=False, workers=0
    )
    assert (t["buffer_pkts"] == 125).all()


def _bbr_cubic_sweep(**grid) -> pd.DataFrame:
    base = {
        "duration": "3s",
        "warmup": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "1BDP"},
        "flows": [
            {"count": 4, "tcp": "cubic", "rtt": "40ms"},
            {"count": 1, "tcp": "bbr", "rtt": "40ms"},
        ],
    }
    return bufsim.sweep(base, grid=grid, seeds=[1], store=None, progress=False, workers=0)


def test_buffer_in_bdp_multiples_divides_by_each_points_bdp():
    # RTT 40 ms, 1500 B: BDP 33.33 packets at 10 Mbps, 66.67 at 20 Mbps.
    # x = buffer_pkts / bdp_pkts gives the multiples as swept.
    t = _bbr_cubic_sweep(
        **{"link.buffer": ["0.25BDP", "0.5BDP", "1BDP"], "link.capacity": ["10Mbps", "20Mbps"]}
    )
    assert sorted(set(t["bdp_pkts"].round(2))) == [33.33, 66.67]
    fig = plot.buffer_curves(t, "utilization", x="buffer_bdp")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "buffer (BDP)"
    # The buffer runs in whole packets (0.25 x 33.33 = 8.33 runs as 8, x =
    # 0.24): x is within half a packet of the multiple swept.
    c = plot._curves(t, "utilization", "buffer_bdp", 0.95, ["link.capacity"])
    bdp = c["link.capacity"].map({"10Mbps": 100 / 3, "20Mbps": 200 / 3})
    swept = np.tile([0.25, 0.5, 1.0], 2)
    assert len(c) == 6 and ((c["x"] - swept).abs() <= 0.5 / bdp + 1e-12).all()
    assert c["x"].round(3).tolist() == [0.24, 0.51, 0.99, 0.255, 0.495, 1.005]
    assert [len(line.get_xdata()) for line in ax.get_lines()] == [3, 3]


def test_a_legend_names_the_flow_group_when_a_groups_count_is_swept():
    t = _bbr_cubic_sweep(**{"link.buffer": ["0.5BDP", "1BDP"], "flows[0].count": [1, 4]})
    assert list(dict.fromkeys(t["flow_mix"])) == [
        "1 x cubic + 1 x bbr v1",
        "4 x cubic + 1 x bbr v1",
    ]
    fig = plot.buffer_curves(t, "utilization")
    labels = [x.get_text() for x in fig.axes[0].get_legend().get_texts()]
    assert labels == ["packet, 1 x cubic + 1 x bbr v1", "packet, 4 x cubic + 1 x bbr v1"]


def test_seeds_that_agree_draw_no_band_and_the_title_says_deterministic():
    # Three seeds with one value per point (a deterministic run): no band,
    # the title says so; one seed alone says there is one run per point.
    t = pd.DataFrame(
        {
            "engine": ["packet"] * 6,
            "buffer_pkts": [10.0] * 3 + [100.0] * 3,
            "utilization": [0.5] * 3 + [0.9] * 3,
        }
    )
    fig = plot.buffer_curves(t, "utilization")
    ax = fig.axes[0]
    assert len(ax.collections) == 0
    assert "deterministic: the 3 seeds give one value per point, no band" in ax.get_title()
    one = plot.buffer_curves(t.drop_duplicates(), "utilization").axes[0]
    assert len(one.collections) == 0 and "one run per point: no band" in one.get_title()
    # One point whose seeds differ gets its band, the other none.
    t.loc[0, "utilization"] = 0.4
    ax = plot.buffer_curves(t, "utilization").axes[0]
    assert len(ax.collections) == 1
    title = ax.get_title().replace("\n", " ")
    assert "over 3 seeds per point" in title
    assert title.endswith("; no band where the seeds give one value")
