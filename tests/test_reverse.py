"""Two-way traffic (``reverse``) from the Python API and the CLI: the
reverse link's statistics and ACK compression, reverse flow groups in the
results, a sweep over the reverse buffer, the engines that refuse it, and
bad input named by field. The laws (ACKs over an idle reverse link as over
the return path, a slow reverse link clocking the forward rate, the
symmetry of data both ways) are checked in the core's tests
(``crates/bufsim-core/tests/packet_reverse.rs``)."""

from __future__ import annotations

import copy
import json

import bufsim
import pytest
from bufsim.models import ModelInputError
from conftest import cli, refusal

_GROUP = {"count": 6, "rtt": {"uniform": ["40ms", "80ms"]}, "sack": True}

#: 10 Mbps each way, 6 flows each way, 30 packets each way.
TWO_WAY = {
    "duration": "20s",
    "warmup": "5s",
    "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
    "flows": [dict(_GROUP)],
    "reverse": {"buffer": "30pkt", "flows": [dict(_GROUP)]},
}


def test_the_reverse_link_reports_its_own_statistics():
    r = bufsim.simulate(TWO_WAY)
    s = r.summary
    # Both links carry data, and ACKs of the other direction.
    assert s["utilization_reverse"] > 0.85 and s["utilization"] > 0.85
    assert s["goodput_bps_reverse"] == s["goodput_bps_group1"] > 7e6
    # The forward summary counts the forward groups only.
    assert s["goodput_bps"] == s["goodput_bps_group0"]
    assert s["ack_compression"] > 0.1 and s["ack_gap_mean_s"] > 0
    assert s["drops_reverse"] > 0 and s["max_queue_pkts_reverse"] <= 30
    assert "queue_pkts_reverse" in r.timeseries
    # The flows table holds both directions' flows, by group.
    assert sorted(r.flows["group"].unique()) == [0, 1]
    norm = r.scenario
    assert norm["reverse"]["ack_size_bytes"] == 40
    assert norm["reverse"]["link"]["capacity_bps"] == 10e6
    assert [g.get("reverse", False) for g in norm["flows"]] == [False, True]


def test_a_sweep_sizes_the_reverse_buffer():
    table = bufsim.sweep(
        TWO_WAY, grid={"reverse.buffer": ["3pkt", "100pkt"]}, workers=0, store=None
    )
    by = table.set_index("reverse.buffer")
    assert by.loc["3pkt", "max_queue_pkts_reverse"] <= 3
    assert by.loc["3pkt", "goodput_bps_reverse"] < by.loc["100pkt", "goodput_bps_reverse"]


def test_cli_runs_two_way_traffic(tmp_path):
    path = tmp_path / "two-way.json"
    path.write_text(json.dumps(TWO_WAY))
    out = cli("run", str(path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for key in ("utilization_reverse", "goodput_bps_reverse", "ack_compression"):
        assert key in out.stdout
    out = cli("validate", str(path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "reverse: 10 Mbps" in out.stdout and "over the reverse link" in out.stdout


def test_engines_without_two_way_traffic_refuse_it():
    with pytest.raises(bufsim.ScenarioError, match="^reverse: the fluid engine's ACKs return"):
        bufsim.simulate(TWO_WAY, engine="fluid")
    with pytest.raises(ModelInputError, match="^scenario.reverse: model 'avrachenkov'"):
        bufsim.simulate(TWO_WAY, engine="model:avrachenkov")
    # ns-3 builds it (tests/test_ns3.py compares the engines).


def test_advise_sizes_the_forward_buffer_on_the_packet_engine_alone():
    # The two-way example (10 flows each way on 20 Mbps, RTTs 40-120 ms):
    # utilization >= 0.95 needs 27 packets one way, and as many when the
    # reverse link carries the ACKs alone; with data both ways the
    # compressed ACKs make the senders bursty and it needs 64 (measured).
    # Measured on the rfc profile (an ACK per packet: the ACK clock the
    # reverse data compresses), pinned.
    raw = bufsim.Scenario.load(bufsim.examples.path("two-way")).raw
    for g in raw["flows"] + raw["reverse"]["flows"]:
        g["stack"] = "rfc"
    one_way = copy.deepcopy(raw)
    del one_way["reverse"]
    acks_only = copy.deepcopy(raw)
    del acks_only["reverse"]["flows"]
    sized = {}
    for name, s in (("one way", one_way), ("ACKs only", acks_only), ("two ways", raw)):
        a = bufsim.advise(s, ["utilization>=0.95"], workers=0, store=None)
        assert a.feasible
        sized[name] = a.buffer_pkts
        left_out = [n for n in a.notes if n.startswith("two-way traffic (reverse)")]
        assert bool(left_out) == ("reverse" in s), a.notes
    assert sized["ACKs only"] == sized["one way"]
    assert sized["two ways"] >= 2 * sized["one way"], sized
    # Its cost estimate counts no fluid runs.
    from bufsim.advise import cost

    assert cost(raw, ["utilization>=0.95"])["fluid_runs"] == 0


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (lambda s: s["reverse"].pop("buffer"), ["reverse", "missing field `buffer`"]),
        (lambda s: s["reverse"].update(capacity="0bps"), ["reverse.capacity", "must be > 0bps"]),
        (lambda s: s["reverse"].update(ack_size="10B"), ["reverse.ack_size", "between 40B"]),
        (lambda s: s["reverse"].update(delay="1ms"), ["reverse", "unknown field `delay`"]),
        (
            lambda s: s["reverse"]["flows"][0].update(rtt="5ms"),
            ["reverse.flows[0].rtt", "link.delay"],
        ),
        (
            lambda s: s["reverse"]["flows"][0].update(links=[0]),
            ["reverse.flows[0]", "remove port, links and class"],
        ),
        (
            lambda s: s.update(pool={"size": "100pkt", "ports": 2}),
            ["reverse", "not with a [pool]"],
        ),
        (lambda s: s.update(output={"trace": True}), ["output.trace", "[reverse]"]),
    ],
)
def test_bad_two_way_input_names_the_field(edit, fragments):
    message = refusal(TWO_WAY, edit)
    for fragment in fragments:
        assert fragment in message


def test_the_timeseries_figure_draws_the_reverse_queue():
    from bufsim import plot

    fig = plot.timeseries(bufsim.simulate(TWO_WAY))
    queue = fig.axes[0]
    assert [t.get_text() for t in queue.get_legend().get_texts()] == ["forward", "reverse"]


def test_the_goodput_figure_draws_the_forward_links_fair_share():
    from bufsim import plot

    r = bufsim.simulate(TWO_WAY)
    ax = plot.goodput_scatter(r).axes[0]
    (line,) = ax.get_lines()
    # 10 Mbps over the forward group's 6 flows, not over all 12.
    assert line.get_ydata()[0] == pytest.approx(10 / 6)
    assert ax.get_legend().get_texts()[-1].get_text() == "capacity / forward flows"


def test_reverse_groups_are_no_load_on_the_forward_link():
    # 4 forward flows capped at 20 packets each (rwnd) over 80 ms offer
    # at most 4 x 20 x 1500 B x 8 / 80 ms = 12 Mbit/s to a 100 Mbps link;
    # a persistent reverse group adds nothing to what it can carry.
    from bufsim.advise.rules import saturation

    s = {
        "duration": "10s",
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [{"count": 4, "rtt": "80ms", "mss": "1500B", "rwnd": "20pkt"}],
        "reverse": {"buffer": "30pkt", "flows": [{"count": 4, "rtt": "80ms"}]},
    }
    sat = saturation(bufsim.Scenario.load(s).normalized)
    assert sat.max_offered_bps == pytest.approx(4 * 20 * 1500 * 8 / 0.08)
    with pytest.raises(bufsim.AdviceError, match="cannot be met at any buffer"):
        bufsim.advise(s, ["utilization>=0.9"], quick=True, workers=0, store=None)


def test_completion_times_are_the_forward_groups():
    # Transfers only in the reverse direction: the headline completion-time
    # keys have no transfer to count, the reverse group keeps its own.
    s = copy.deepcopy(TWO_WAY)
    s["reverse"]["flows"] = [
        {"size": "50KB", "arrival": {"rate": "20/s"}, "rtt": "40ms", "sack": True}
    ]
    r = bufsim.simulate(s).summary
    assert r["flows_started_small_group1"] > 100 and r["fct_mean_small_s_group1"] > 0.04
    # Their slowdowns against the reverse link's rate (10 Mbit/s here).
    assert r["slowdown_mean_small_group1"] > 1
    assert "fct_mean_small_s" not in r and "flows_started_small" not in r
