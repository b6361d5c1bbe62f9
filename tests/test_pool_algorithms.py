"""``pool.algorithm``, the buffer management of a shared pool, from the
Python API: the shipped switch example under each algorithm, what each one
lets port 0's incasts take, the engines that refuse a pool whatever its
algorithm, and bad input named by field. Each rule's closed form is checked
in the core's tests (``crates/bufsim-core/tests/packet_pool_algorithms.rs``
and the unit tests of ``crates/bufsim-core/src/queue/shared/``)."""

from __future__ import annotations

import copy

import bufsim
import pytest
from bufsim.models import ModelInputError
from conftest import ABM_BURST, refusal

ALGORITHMS = ("static", "complete", "dt", "lqd", "abm")


def _example(burst: int = 64) -> dict:
    """The switch-pool example on the rfc profile (every packet 1500 B, so
    the 500 KB pool is 333 packets: see ``test_pool.py``), its incast
    ``burst`` transfers of 64 KB every 20 ms (64 as shipped)."""
    raw = bufsim.Scenario.load(bufsim.examples.path("switch-pool")).raw
    for g in raw["flows"]:
        g["stack"] = "rfc"
    raw["flows"][1]["arrival"]["burst"] = burst
    return raw


def _runs(burst: int) -> dict[str, dict[str, float]]:
    out = {}
    for algorithm in ALGORITHMS:
        s = _example(burst)
        s["pool"]["algorithm"] = algorithm
        out[algorithm] = bufsim.simulate(s).summary
    return out


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, float]]:
    """The example's summary under each algorithm, as shipped."""
    return _runs(64)


@pytest.fixture(scope="module")
def heavy() -> dict[str, dict[str, float]]:
    """The same with incasts of 160 x 64 KB, 10 MB every 20 ms."""
    return _runs(160)


POOL_PKTS = 333


def test_the_shipped_incast_under_each_algorithm(runs):
    for s in runs.values():
        assert s["pool_size_pkts"] == POOL_PKTS
        for k in (1, 2, 3):
            assert s[f"utilization_port{k}"] == pytest.approx(0.6, abs=0.01)
            assert s[f"drops_port{k}"] == 0
    # Static partition: port 0 is capped at its quarter, 83 packets, and
    # its incasts lose there (measured: 1,066 drops).
    assert runs["static"]["max_queue_pkts_port0"] == POOL_PKTS // 4
    assert runs["static"]["drops_port0"] > 500
    # Complete sharing and LQD: the pool absorbs the whole incast, port 0
    # peaking at 216 packets of its 333 without a drop.
    for name in ("complete", "lqd"):
        s = runs[name]
        assert 200 <= s["max_queue_pkts_port0"] < POOL_PKTS and s["drops_port0"] == 0, name
    # The dynamic threshold: alpha (B - Q) <= 166.5 (alpha 1) with ports
    # 1-3 holding a few packets; the incast loses there (measured: 398).
    dt = runs["dt"]
    assert 150 <= dt["max_queue_pkts_port0"] <= 167 and dt["drops_port0"] > 100


def test_abm_with_one_congested_port_is_the_dynamic_threshold(runs, heavy):
    # Ports 1-3 hold a packet or two of their 20-packet saturation, so ABM's
    # n_p stays near 1 and its threshold near DT's alpha (B - Q): port 0's
    # queue peaks where DT's does and averages within 5% of it (measured:
    # 0.9% and 2% under, the others' few packets adding to n_p), its
    # drops within 15% (measured: 6% and 0%).
    for case in (runs, heavy):
        abm, dt = case["abm"], case["dt"]
        assert abm["max_queue_pkts_port0"] == dt["max_queue_pkts_port0"]
        assert abm["mean_queue_pkts_port0"] == pytest.approx(dt["mean_queue_pkts_port0"], rel=0.05)
        assert abm["mean_queue_pkts_port0"] <= dt["mean_queue_pkts_port0"]
        assert abm["drops_port0"] == pytest.approx(dt["drops_port0"], rel=0.15)


def test_a_heavy_incast_takes_the_pool_unless_the_algorithm_stops_it(heavy):
    # Complete sharing lets port 0 take the whole pool, and ports 1-3 then
    # lose their packets (measured: about 300 each of 15 Gbps).
    cs = heavy["complete"]
    assert cs["max_queue_pkts_port0"] == POOL_PKTS == cs["max_queue_pkts"]
    for k in (1, 2, 3):
        assert cs[f"drops_port{k}"] > 100
    # LQD too, but a packet for ports 1-3 pushes one of port 0's out: they
    # lose nothing, and fewer packets are lost in all.
    lqd = heavy["lqd"]
    assert lqd["max_queue_pkts_port0"] == POOL_PKTS
    assert all(lqd[f"drops_port{k}"] == 0 for k in (1, 2, 3))
    assert lqd["drop_rate"] < cs["drop_rate"]
    # Static, DT and ABM hold port 0 at their thresholds, B / 4 and
    # alpha (B - Q), and ports 1-3 lose nothing.
    assert heavy["static"]["max_queue_pkts_port0"] == POOL_PKTS // 4
    for name in ("static", "dt", "abm"):
        s = heavy[name]
        assert s["max_queue_pkts_port0"] <= 167
        assert all(s[f"drops_port{k}"] == 0 for k in (1, 2, 3)), name


def test_the_description_names_the_algorithm():
    def pool_line(algorithm: str) -> str:
        s = _example()
        s["pool"]["algorithm"] = algorithm
        lines = bufsim.Scenario.load(s).describe()
        return next(x for x in lines if x.startswith("pool:"))

    head = (
        "pool: 4 ports, each a copy of the link, sharing 333 packets (500 kB, counted in bytes); "
    )
    assert pool_line("static") == head + "static partition: each port 83 packets (125 kB)"
    assert (
        pool_line("complete") == head + "complete sharing: any queue grows while the pool has room"
    )
    assert pool_line("lqd").startswith(head + "longest-queue drop: a full pool pushes")
    assert pool_line("abm") == head + (
        "ABM: a queue grows while it holds less than 1 times the free pool over the congested "
        "ports, counted every 30 us"
    )
    assert pool_line("dt") == head + "a queue grows while it holds less than 1 times the free pool"
    norm = bufsim.Scenario.load(_example()).normalized
    assert norm["pool"]["algorithm"] == "dt" and "interval_s" not in norm["pool"]


@pytest.mark.parametrize("algorithm", ["static", "lqd", "abm"])
def test_every_other_engine_refuses_a_pool_by_field(algorithm):
    s = _example()
    s["pool"]["algorithm"] = algorithm
    with pytest.raises(bufsim.ScenarioError, match="^pool: the fluid engine models one link"):
        bufsim.simulate(s, engine="fluid")
    with pytest.raises(ModelInputError, match="^scenario.pool: model 'avrachenkov'"):
        bufsim.simulate(s, engine="model:avrachenkov")
    from bufsim import ns2, ns3

    for engine in (ns2, ns3):
        with pytest.raises(bufsim.ScenarioError, match="^pool: "):
            engine.check(bufsim.Scenario.load(s))


POOL = {
    "duration": "1s",
    "link": {"capacity": "100Mbps", "delay": "1ms"},
    "pool": {"size": "300pkt", "ports": 2},
    "background": [{"kind": "poisson", "rate": "60Mbps", "packet_size": "1000B", "port": 1}],
}


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (
            lambda s: s["pool"].update(algorithm="red"),
            ["pool.algorithm", "one of static, complete, dt, lqd, abm, fab", 'got "red"'],
        ),
        (lambda s: s["pool"].update(algorithm=1), ["pool.algorithm", "string"]),
        (
            lambda s: s["pool"].update(interval="10us"),
            ["pool.interval", "only the abm algorithm", 'not pool.algorithm "dt"'],
        ),
        (
            lambda s: s["pool"].update(algorithm="abm", interval="0s"),
            ["pool.interval", "must be > 0s and at most 1s"],
        ),
        (
            lambda s: s["pool"].update(algorithm="abm", interval=30),
            ["pool.interval", "with a unit"],
        ),
        (
            lambda s: s["pool"].update(algorithm="abm", unscheduled={"alpha": -1}),
            ["pool.unscheduled.alpha: must be > 0 and at most 1000000, got -1"],
        ),
        (
            lambda s: s["pool"].update(algorithm="abm", unscheduled={"bytes": "0B"}),
            ["pool.unscheduled.bytes: must be > 0B and at most 1GB, got 0B"],
        ),
        (
            lambda s: s["pool"].update(algorithm="abm", unscheduled={"bytes": 100000}),
            ["pool.unscheduled.bytes", "with a unit"],
        ),
        (
            lambda s: s["pool"].update(unscheduled={"alpha": 8, "rtt": "80us"}),
            ["pool.unscheduled.rtt", "unknown field", "`alpha` or `bytes`"],
        ),
        (
            lambda s: s["pool"].update(algorithm="fab", fab={"window": "2s"}),
            ["pool.fab.window: must be > 0s and at most 1s, got 2 s"],
        ),
        (
            lambda s: s["pool"].update(algorithm="fab", fab={"bytes": "0B"}),
            ["pool.fab.bytes: must be > 0B and at most 1GB, got 0B"],
        ),
        (
            lambda s: s["pool"].update(algorithm="fab", fab={"alpha": -2}),
            ["pool.fab.alpha: must be > 0 and at most 1000000, got -2"],
        ),
        (
            lambda s: s["pool"].update(algorithm="fab", fab={"size": "1KB"}),
            ["pool.fab.size", "unknown field", "`window`, `bytes`, `alpha`"],
        ),
        (
            lambda s: (s["pool"].update(algorithm="lqd"), s["link"].update(qdisc="fq")),
            ["pool.algorithm", '"lqd" pushes a packet out', 'link.qdisc "fq"', "droptail"],
        ),
    ],
)
def test_bad_algorithms_name_the_field(edit, fragments):
    message = refusal(POOL, edit)
    for fragment in fragments:
        assert fragment in message, message


def test_alpha_is_kept_by_the_algorithms_without_one():
    # A sweep over pool.algorithm keeps the example's alpha: static,
    # complete and lqd ignore it (their runs equal those without it).
    s = copy.deepcopy(POOL)
    s["pool"]["algorithm"] = "complete"
    with_alpha = copy.deepcopy(s)
    with_alpha["pool"]["alpha"] = 4.0
    a, b = bufsim.simulate(s).summary, bufsim.simulate(with_alpha).summary
    assert a["drops_port1"] == b["drops_port1"] and a["mean_queue_pkts"] == b["mean_queue_pkts"]


#: 16 DCTCP transfers of 15 KB (10 packets: the linux profile's initial
#: window, all sent at once) fanning in to port 0 of a 100-packet ABM pool
#: at 1 ms, port 1 carrying 6 Gbps of Poisson packets.
def _burst(algorithm: str, unscheduled: dict | None) -> dict[str, float]:
    s = copy.deepcopy(ABM_BURST)
    s["pool"]["algorithm"] = algorithm
    if unscheduled is not None:
        s["pool"]["unscheduled"] = unscheduled
    return bufsim.simulate(s).summary


def test_the_first_rtt_priority_admits_a_burst_plain_abm_drops():
    prio = {"alpha": 1024, "bytes": "100KB"}
    plain, tagged = _burst("abm", None), _burst("abm", prio)
    # Every packet of a 15 KB transfer is in its first 100 KB. Plain ABM
    # (alpha 1, one congested port) holds port 0 under half the free pool:
    # 50 of the 160 packets arriving at once, 124 drops in all (measured);
    # with alpha 1024 the burst fills the pool, 100 packets, and 74 drops.
    assert plain["max_queue_pkts_port0"] == 50
    assert tagged["max_queue_pkts_port0"] == 100
    assert plain["drops_port0"] == pytest.approx(124, abs=10)
    assert tagged["drops_port0"] == pytest.approx(74, abs=10)
    assert tagged["drops_port0"] <= plain["drops_port0"] - 40
    assert plain["drops_port1"] == tagged["drops_port1"] == 0
    assert plain["flows_completed"] == tagged["flows_completed"] == 16
    # Given without its fields: alpha 1024 and one BDP of the link (10
    # Gbps x 80 us = 100 KB), the same run.
    assert _burst("abm", {}) == tagged
    # Another algorithm ignores it (a sweep over the algorithm keeps it).
    assert _burst("dt", prio) == _burst("dt", None)


def test_the_first_rtt_priority_is_described_and_normalized_only_when_set():
    s = copy.deepcopy(ABM_BURST)
    assert "unscheduled" not in bufsim.Scenario.load(s).normalized["pool"]
    s["pool"]["unscheduled"] = {"alpha": 512}
    scn = bufsim.Scenario.load(s)
    assert scn.normalized["pool"]["unscheduled"] == {"alpha": 512.0, "bytes": 100_000}
    line = next(x for x in scn.describe() if x.startswith("pool:"))
    assert line.endswith(
        "counted every 30 us; a transfer's first 100 kB sent take 512 times it "
        "(the first-RTT priority)"
    ), line


def _fab(fab: dict | None) -> dict[str, float]:
    s = copy.deepcopy(ABM_BURST)
    s["pool"]["algorithm"] = "fab"
    if fab is not None:
        s["pool"]["fab"] = fab
    return bufsim.simulate(s).summary


def test_fab_admits_the_new_flows_burst_dt_drops():
    # The same burst under FAB: every packet is within its flow's first 15
    # packets at port 0, so its threshold takes alpha 1024 and the burst
    # fills the pool, where DT (alpha 1) holds port 0 at 50 packets.
    # Measured: 124 drops under DT, 74 under FAB.
    dt, fab = _burst("dt", None), _fab(None)
    assert dt["max_queue_pkts_port0"] == 50
    assert fab["max_queue_pkts_port0"] == 100
    assert dt["drops_port0"] == pytest.approx(124, abs=10)
    assert fab["drops_port0"] == pytest.approx(74, abs=10)
    assert fab["drops_port0"] <= dt["drops_port0"] - 40
    assert fab["flows_completed"] == 16
    # A count limit of 1 byte: no count is below it (a packet's own bytes
    # are counted first), and FAB is DT, run for run.
    assert _fab({"bytes": "1B"}) == dt


def test_fab_is_described_and_normalized_only_under_fab():
    s = copy.deepcopy(ABM_BURST)
    s["pool"]["fab"] = {"window": "2ms"}
    assert "fab" not in bufsim.Scenario.load(s).normalized["pool"]
    s["pool"]["algorithm"] = "fab"
    scn = bufsim.Scenario.load(s)
    fab = scn.normalized["pool"]["fab"]
    assert fab == {"window_s": 0.002, "bytes": 15 * 1500, "alpha": 1024.0}
    line = next(x for x in scn.describe() if x.startswith("pool:"))
    assert line.endswith(
        "FAB: a queue grows while it holds less than 1 times the free pool; a flow's first "
        "22.5 kB at a port, counted anew after 2 ms of silence, take 1024 times it"
    ), line
