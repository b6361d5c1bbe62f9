"""A chain of bottlenecks (``links``) from the Python API and the CLI:
per-link statistics, a sweep over one link's buffer, the engines that
refuse it, and bad input named by field. The parking-lot result and each
link's conservation are checked in the core's tests
(``crates/bufsim-core/tests/packet_chain.rs``)."""

from __future__ import annotations

import json

import bufsim
import pytest
from bufsim.models import ModelInputError
from conftest import cli, refusal


def _link(capacity: str, buffer: str = "50pkt") -> dict:
    return {"capacity": capacity, "delay": "5ms", "buffer": buffer}


#: Two links: 20 Mbps then 10 Mbps; 6 flows cross both, 6 cross the
#: second only, Poisson packets at 5 Mbps on the first. The RTTs are drawn:
#: with one RTT for all (60 ms) the flows are phase-locked to the links
#: (Floyd and Jacobson's phase effect, 1992) and the through flows' share of
#: the second link swings with the seed (51-61% over seeds 1-3; 49-50%
#: drawn).
CHAIN = {
    "duration": "20s",
    "warmup": "5s",
    "links": [_link("20Mbps"), _link("10Mbps")],
    "flows": [
        {"count": 6, "rtt": {"uniform": ["40ms", "80ms"]}, "links": [0, 1]},
        {"count": 6, "rtt": {"uniform": ["40ms", "80ms"]}, "links": [1]},
    ],
    "background": [{"kind": "poisson", "rate": "5Mbps", "packet_size": "1000B", "links": [0]}],
}


def test_links_report_their_own_statistics():
    r = bufsim.simulate(CHAIN)
    s = r.summary
    # The second link is the bottleneck of both groups: full, and the first
    # carries the through flows' 6/12 of it (about 5 Mbit/s) and 5 Mbit/s of
    # Poisson packets: about half of its 20.
    assert s["utilization_link1"] > 0.99
    assert s["utilization_link0"] == pytest.approx(0.5, abs=0.1)
    assert s["drops_link1"] > 0 and s["mean_queue_pkts_link1"] > s["mean_queue_pkts_link0"]
    # The summary's utilization weighs the links by capacity.
    weighted = (20 * s["utilization_link0"] + 10 * s["utilization_link1"]) / 30
    assert s["utilization"] == pytest.approx(weighted, rel=1e-9)
    assert s["capacity_bps"] == 30e6
    ts = r.timeseries
    assert (ts["queue_pkts_link0"] + ts["queue_pkts_link1"] - ts["queue_pkts"]).abs().max() < 1e-6
    # The normalized scenario keeps the chain; `link` is its first link.
    norm = r.scenario
    assert [x["capacity_bps"] for x in norm["links"]] == [20e6, 10e6]
    assert norm["link"]["capacity_bps"] == 20e6
    assert norm["flows"][0]["links"] == [0, 1] and norm["background"][0]["links"] == [0]


def test_a_sweep_sizes_one_link_of_the_chain():
    table = bufsim.sweep(CHAIN, grid={"links[1].buffer": ["5pkt", "100pkt"]}, workers=0, store=None)
    by = table.set_index("links[1].buffer")
    assert by.loc["5pkt", "max_queue_pkts_link1"] <= 5
    assert by.loc["5pkt", "utilization_link1"] < by.loc["100pkt", "utilization_link1"]


def test_cli_runs_a_chain(tmp_path):
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(CHAIN))
    out = cli("run", str(path), "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["utilization_link1"] > 0.99


def test_engines_without_a_chain_refuse_it():
    with pytest.raises(
        bufsim.ScenarioError, match="^links: the fluid engine models one bottleneck"
    ):
        bufsim.simulate(CHAIN, engine="fluid")
    with pytest.raises(ModelInputError, match="^scenario.links: model 'avrachenkov'"):
        bufsim.simulate(CHAIN, engine="model:avrachenkov")
    # ns-3 builds chains (tests/test_ns3.py compares the engines), each
    # link as the bottleneck is: a link's discipline it lacks is named.
    from bufsim import ns3

    bad = {**CHAIN, "links": [_link("20Mbps"), {**_link("10Mbps"), "qdisc": "fq"}]}
    with pytest.raises(bufsim.ScenarioError, match=r"^links\[1\].qdisc: 'fq': ns-3 has no"):
        ns3.check(bufsim.Scenario.load(bad))


def test_advise_sizes_every_links_buffer_for_its_busiest_link():
    # Flows through the middle link of three are the dumbbell's flows bit
    # for bit (the core's tests): advise on the chain gives the dumbbell's
    # answer, 16 packets for utilization >= 0.95 with 8 SACK flows on 10
    # Mbps (13 fail; five seeds), set on every link.
    group = {"count": 8, "rtt": {"uniform": ["40ms", "120ms"]}, "sack": True}
    one = {
        "duration": "30s",
        "warmup": "5s",
        "link": _link("10Mbps"),
        "flows": [group],
    }
    chain = {
        "duration": "30s",
        "warmup": "5s",
        "links": [_link("100Mbps"), _link("10Mbps"), _link("100Mbps")],
        "flows": [{**group, "links": [1]}],
    }
    a, b = (bufsim.advise(s, ["utilization>=0.95"], workers=0, store=None) for s in (one, chain))
    assert a.buffer_pkts == b.buffer_pkts == 16
    assert b.sized == "buffer of each link"
    assert (b.runs["links[0].buffer"] == b.runs["links[1].buffer"]).all()
    assert (b.runs["utilization"] == b.runs["utilization_link1"]).all()
    assert any(n.startswith("chain: the answer is each link's buffer") for n in b.notes)
    with pytest.raises(bufsim.AdviceError, match=r"^objective 'jain_index>=0.9': with a chain"):
        bufsim.advise(CHAIN, ["jain_index>=0.9"], quick=True, workers=0, store=None)


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (lambda s: s.update(links=[]), ["links", "1 to 64 links, got 0"]),
        (lambda s: s.update(link=_link("1Mbps")), ["links", "not both"]),
        (lambda s: s["links"][1].update(capacity="0bps"), ["links[1].capacity", "must be > 0bps"]),
        (lambda s: s["links"][1].pop("buffer"), ["links[1]", "missing field `buffer`"]),
        (
            lambda s: s["links"][0].update(qdisc="sfq"),
            ["links[0].qdisc", "unknown queue discipline"],
        ),
        (
            lambda s: s["flows"][0].update(links=[1, 0]),
            ["flows[0].links", "consecutive links in order"],
        ),
        (
            lambda s: s["flows"][0].update(links=[0, 2]),
            ["flows[0].links", "link 2 is not between 0 and 1"],
        ),
        (lambda s: s["flows"][0].update(links=[]), ["flows[0].links", "the list is empty"]),
        (
            lambda s: s["flows"][0].update(rtt="15ms"),
            ["flows[0].rtt", "twice the delays of links [0, 1]"],
        ),
        (
            lambda s: s["background"][0].update(links=[0, 1]),
            ["background[0].links", "cross one link"],
        ),
        (
            lambda s: s.update(pool={"size": "100pkt", "ports": 2}),
            ["pool", "a chain (links) has none"],
        ),
        (lambda s: s.update(output={"trace": True}), ["output.trace", "chain"]),
        # 150 Mbps is under 10 times the first link's 20 but over the second's 10.
        (
            lambda s: s["background"][0].update(links=[1], rate="150Mbps"),
            ["background[0].rate", "more than 10 times links[1].capacity"],
        ),
    ],
)
def test_bad_chains_name_the_field(edit, fragments):
    message = refusal(CHAIN, edit)
    for fragment in fragments:
        assert fragment in message


def test_links_without_a_chain_are_refused():
    s = {
        "duration": "5s",
        "link": _link("10Mbps"),
        "flows": [{"count": 1, "rtt": "40ms", "links": [1]}],
    }
    with pytest.raises(bufsim.ScenarioError, match=r"flows\[0\].links: \[1\]: there is one link"):
        bufsim.simulate(s)


def test_the_shipped_parking_lot_example():
    # 10 flows through three 100 Mbps links against 10 through each alone:
    # the through flows get less than half as much each (measured: 2.3
    # against 7.6-7.7 Mbit/s per group of 10).
    s = bufsim.simulate(bufsim.examples.path("parking-lot")).summary
    for k in (1, 2, 3):
        assert s["goodput_bps_group0"] < 0.5 * s[f"goodput_bps_group{k}"]
        assert s[f"utilization_link{k - 1}"] > 0.98


def test_the_description_names_each_link_and_each_groups_path():
    lines = bufsim.Scenario.load(CHAIN).describe()
    assert lines[1].startswith("links[0]: 20 Mbps") and lines[2].startswith("links[1]: 10 Mbps")
    flows = [x for x in lines if x.startswith(("flows[0]:", "flows[1]:", "background[0]:"))]
    assert [x.split(", through ")[1] for x in flows] == [
        "links [0, 1]",
        "links [1]",
        "links [0]",
    ]


def test_the_timeseries_figure_draws_each_links_queue():
    from bufsim import plot

    fig = plot.timeseries(bufsim.simulate(CHAIN))
    queue = fig.axes[0]
    assert [t.get_text() for t in queue.get_legend().get_texts()] == ["together", "link0", "link1"]
    assert len(queue.get_lines()) == 3
