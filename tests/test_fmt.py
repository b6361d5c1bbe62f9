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
    assert fmt.interval("utilization", 0.9932, 0.0049) == "0.9932 ± 0.0049"
    # An interval past the metric's range is shown clipped, by its ends:
    # utilization cannot pass 1, Jain's index neither (never 0.8197 ± 1.2
    # over 2 seeds), a loss rate cannot fall below 0.
    assert fmt.interval("utilization", 0.9932, 0.0079) == "0.9932 (0.985 to 1)"
    # A fraction short of 1 never reads 100%.
    assert (fmt.percent(0.999), fmt.percent(1.0), fmt.percent(0.0184)) == ("99.9%", "100%", "1.8%")
    assert fmt.interval("jain_index", 0.8197, 1.2, seeds=2) == "0.8197 (0 to 1, 2 seeds)"
    assert fmt.interval("drop_rate", 0.004, 0.01) == "0.004 (0 to 0.014)"
    assert fmt.interval("fct_p99_small_s", 0.004, 0.01) == "4 ms (0 s to 14 ms)"
    assert fmt.interval("utilization", 0.9932, math.nan) == "0.9932"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (129167.0, "129,167"),
        (1827.0, "1827"),
        (7.937e7, "79,370,000"),
        (12345.6, "12,346"),
        (0.99321, "0.9932"),
        (1.234e-5, "0.00001234"),
        (1e300, "1 x 10^300"),
        (-2.5, "-2.5"),
        (math.inf, "inf"),
        (math.nan, "-"),
    ],
)
def test_numbers_never_in_e_notation(x, text):
    assert fmt.number(x) == text


def test_sizes_and_counts():
    # The report printed 2.172e+06 bytes and BDP 1.292e+05 pkts.
    assert fmt.size(2.172e6) == "2.172 MB"
    assert fmt.packets(129167) == "129,167 packets"
    assert fmt.metric("packets_delivered", 7.937e7) == "79,370,000"
    # Beyond the prefixes (T to n) the mantissa stays positional.
    assert fmt.si(1.5e18, "B") == "1,500,000 TB"
    assert fmt.si(2e-12, "s") == "0.002 ns"


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


def test_advice_views_and_notes_read_through_fmt():
    # The advice's notebook view and report printed the objective columns
    # raw (p99_queue_delay<=5ms 0.001235) and notes by hand (">= 0.4 s").
    import pandas as pd
    from bufsim.advise import Advice, parse_objective
    from bufsim.advise.notes import unjudged_notes as _unjudged_notes

    o = parse_objective("p99_queue_delay<=5ms")
    table = pd.DataFrame(
        [
            {
                "source": "BDP",
                "buffer_pkts": 125.0,
                "applies": True,
                "note": "",
                o.text: 1.235e-3,
                f"{o.text} censored": False,
                "meets all": True,
                f"{o.text} (model)": 1.2e-3,
            }
        ]
    )
    a = Advice(
        objectives=[o],
        feasible=True,
        buffer_pkts=125.0,
        buffer_bytes=187500.0,
        range=(125.0, 125.0),
        binding="",
        table=table,
        runs=pd.DataFrame(),
        confidence=0.95,
        packet_size_bytes=1500,
    )
    view = a._repr_html_()
    assert ">1.235 ms<" in view and ">1.2 ms<" in view and "0.001235" not in view
    assert "125 packets (187.5 kB)" in view
    (note,) = _unjudged_notes({(64, "fct_p99_small_s"): (0.4, 3, 10)})
    assert note.startswith("fct_p99_small_s cannot be judged at 1 buffer (64 packets): 30%-30%")
    assert "only known to be >= 400 ms;" in note
