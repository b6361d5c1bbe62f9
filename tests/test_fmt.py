"""One number formatter (bufsim.fmt) for the CLI, the report, the notebook
views and the figures: the same number reads the same everywhere."""

from __future__ import annotations

import math

import bufsim
import pytest
from bufsim import fmt, report


@pytest.mark.parametrize(
    ("key", "value", "text"),
    [
        ("p99_queue_delay_s", 1.526e-4, "152.6 us"),
        ("mean_queue_delay_s", 0.0, "0 s"),
        ("goodput_bps", 9.999e9, "9.999 Gbps"),
        ("goodput_bps_group3", 1.032e6, "1.032 Mbps"),
        ("fct_p99_small_s_half1", 2e-3, "2 ms"),
        # 999.96 us rounds to 1000 us at four digits: shown as 1 ms.
        ("p99_queue_delay_s", 999.96e-6, "1 ms"),
        ("buffer_bytes", 1500.0, "1.5 kB"),
        ("mean_queue_pkts", 15.3, "15.3 pkts"),
        ("utilization", 0.99321, "0.9932"),
        ("timeouts", 3.0, "3"),
        ("utilization", math.nan, "-"),
    ],
)
def test_metric_units_follow_the_name(key, value, text):
    assert fmt.metric(key, value) == text


def test_bounds_and_intervals():
    assert fmt.metric("fct_p99_small_s", 0.4, censored=True) == ">= 400 ms"
    # The half-width takes the mean's prefix, two digits.
    assert fmt.interval("fct_p99_small_s", 1.004, 0.67) == "1.004 s ± 0.67 s"
    assert fmt.interval("p99_queue_delay_s", 3.464e-3, 0.0) == "3.464 ms ± 0 ms"
    assert fmt.interval("utilization", 0.9932, 0.0079) == "0.9932 ± 0.0079"
    assert fmt.interval("utilization", 0.9932, math.nan) == "0.9932"


def test_cli_report_and_notebook_agree():
    # A queueing delay reads the same in the report's tables, the notebook
    # view and the CLI (which prints fmt.metric): no 0.0001526 on one and
    # 152.6 us on the other.
    import pandas as pd

    table = report.html_table(pd.DataFrame({"p99_queue_delay_s": [1.526e-4]}))
    assert "152.6 us" in table
    r = bufsim.simulate(
        {
            "duration": "2s",
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
            "flows": [{"count": 2, "rtt": "40ms"}],
        }
    )
    assert fmt.metric("p99_queue_delay_s", r.summary["p99_queue_delay_s"]) in r._repr_html_()
