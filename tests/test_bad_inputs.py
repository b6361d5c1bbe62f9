"""A corpus of hostile inputs: every one a clear error naming the field or
the path, within a time and memory bound; no panic, no traceback, no hang.

Scenario dicts (every field of the schema given values of the wrong type,
sign, unit or size), scenario files (encodings, nesting, special files),
sweep specs and command lines. Store damage is in ``test_faults.py``.
"""

from __future__ import annotations

import copy
import os
import resource
from pathlib import Path

import bufsim
import pytest
from bufsim.sweep import SweepSpecError, expand
from conftest import cli

BASE = {
    "duration": "2s",
    "warmup": "0.5s",
    "seed": 1,
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"},
    "flows": [{"count": 2, "rtt": "40ms"}],
}

#: A hang guard, seconds: an in-process case takes milliseconds, and a refused
#: out-of-proportion run would take hours. Wall time under a loaded machine is
#: no pass mark, so no case asserts its own duration.
pytestmark = pytest.mark.timeout(120)
#: Peak RSS of this test process after the corpus, bytes.
PEAK_RSS_BYTES = 1.5e9

WRONG_TYPES = [[1, 2], {"x": 1}, True]


def _set(raw: dict, path: str, value) -> dict:
    s = copy.deepcopy(raw)
    *parents, last = path.split(".")
    node = s
    for key in parents:
        node = node[int(key)] if key.isdigit() else node.setdefault(key, {})
    node[int(last) if last.isdigit() else last] = value
    return s


def _field(path: str) -> str:
    """``flows.0.rtt`` as the error names it: ``flows[0].rtt``."""
    out = ""
    for part in path.split("."):
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out


# (path, bad values): each value must be refused naming the path.
FIELDS = {
    "duration": ["10", "-1s", "0s", "1e9s", "ten s", 5, *WRONG_TYPES],
    "warmup": ["3s", "-1s", "1 parsec", *WRONG_TYPES],
    "seed": [-1, 1.5, "one", 2**70, [1], {"x": 1}],
    "name": [5, ["a"], {"x": 1}],
    "link.capacity": ["10", "0bps", "-5Mbps", "10MBps", "fast", 1e7, *WRONG_TYPES],
    "link.delay": ["10", "-1ms", "1 parsec", 0.01, *WRONG_TYPES],
    "link.buffer": ["50", "-1pkt", "2.5pkt", "1e30pkt", "lots", -3, *WRONG_TYPES],
    "link.packet_size": ["10B", "70000B", "1500", "-1B", *WRONG_TYPES],
    "link.qdisc": ["wred", "", 3, *WRONG_TYPES],
    "link.qdisc_params": ["red", 3, [1]],
    "link.bdp_rtt": ["100", "-1ms", *WRONG_TYPES],
    "flows.0.count": [0, -1, 1.5, "two", 2**40, *WRONG_TYPES],
    "flows.0.tcp": ["bbr9", "", 5, *WRONG_TYPES],
    "flows.0.tcp_params": ["x", 3, [1]],
    "flows.0.rtt": [
        "40",
        "5ms",
        "-40ms",
        {"min": "80ms"},
        {"min": "90ms", "max": "50ms"},
        {"tree": {}},
        [],
        0.04,
        True,
    ],
    "flows.0.mss": ["10B", "70000B", "1500", *WRONG_TYPES],
    "flows.0.access_rate": ["10", "0bps", "-1Mbps", *WRONG_TYPES],
    "flows.0.access_buffer": ["10", "-1pkt", *WRONG_TYPES],
    "flows.0.jitter": ["10", "-1ms", *WRONG_TYPES],
    "flows.0.rwnd": ["10", "-1pkt", "0pkt", *WRONG_TYPES],
    "flows.0.initial_window": [0, -1, 1.5, "ten", 10**9, *WRONG_TYPES],
    "flows.0.min_rto": ["1", "-1s", *WRONG_TYPES],
    "flows.0.start": ["1", "-1s", "5s", ["0s"], {"x": 1}],
    "flows.0.stack": ["bsd", 1, *WRONG_TYPES],
    "flows.0.sack": ["yes", 1, [True]],
    "flows.0.delayed_ack": ["yes", 1, [True]],
    "flows.0.delack_timeout": ["40", "0ms", "500ms", "1s", "-1ms", *WRONG_TYPES],
    "flows.0.quick_acks": [-1, 1001, 1.5, "16", *WRONG_TYPES],
    "flows.0.push_ack": ["yes", 1, [True]],
    "flows.0.prr": ["yes", 1, [True]],
    "flows.0.recovery": ["fack", 1, *WRONG_TYPES],
    "flows.0.abc": ["yes", 1, [True]],
    "flows.0.limited_transmit": ["yes", 1, [True]],
    "flows.0.partial_ack_retransmit": ["yes", 1, [True]],
    "flows.0.dupack_growth": ["yes", 1, [True]],
    "flows.0.rto_ssthresh": ["half", 1, *WRONG_TYPES],
    "flows.0.rto_collapse": ["never", 1, *WRONG_TYPES],
    "flows.0.rto_timer": ["linux", 1, *WRONG_TYPES],
    "flows.0.recovery_entry": ["head", 1, *WRONG_TYPES],
    "flows.0.sack_pipe": ["linux", 1, *WRONG_TYPES],
    "flows.0.recovery_exit": ["grow", 1, *WRONG_TYPES],
    "flows.0.rtt_sampling": ["every", 1, *WRONG_TYPES],
    "flows.0.prr_variant": ["rfc6937", 1, *WRONG_TYPES],
    "flows.0.cut_from": ["window", 1, *WRONG_TYPES],
    "flows.0.ecn_reduction": ["halve", 1, *WRONG_TYPES],
    "flows.0.ce_ack": ["now", 1, *WRONG_TYPES],
    "flows.0.control_ect": ["always", 1, *WRONG_TYPES],
    "flows.0.hystart": ["yes", 1, [True]],
    "flows.0.ecn": ["yes", 1, [True]],
    "flows.0.loss": [-0.1, 1.5, "1%", *WRONG_TYPES],
    "flows.0.size": [
        "lots",
        -5,
        {"pareto": {}},
        {"empirical": "/dev/zero"},
        {"empirical": "/nonexistent.csv"},
        [1],
    ],
    "flows.0.connection_setup": ["yes", 1, [True]],
    "output.interval": ["1", "0s", "-1ms", *WRONG_TYPES],
    "output.cwnd": ["yes", 1, [True]],
    "output.trace": ["yes", 1, [True]],
    "output.halves": ["yes", 1, [True]],
    "output.large_flow": ["1", "0B", "-1B", *WRONG_TYPES],
    "fluid.step": ["1", "0s", "30ms", *WRONG_TYPES],
    "fluid.model": ["ode", 1, *WRONG_TYPES],
    "fluid.sync": [0, 1.5, -1, "half", [1]],
    "fluid.decrease": ["smooth", 1, *WRONG_TYPES],
}

SCENARIO_CASES = [(path, value) for path, values in FIELDS.items() for value in values]


def _refused(raw: dict) -> bufsim.ScenarioError:
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.Scenario.load(raw)
    return info.value


@pytest.mark.parametrize(
    "path, value", SCENARIO_CASES, ids=[f"{p}={v!r}"[:60] for p, v in SCENARIO_CASES]
)
def test_bad_scenario_field_is_named(path, value):
    e = _refused(_set(BASE, path, value))
    field = _field(path)
    # The error's path is the field or lies inside it ({min, max} RTTs, size tables...).
    assert e.path.startswith(field), (e.path, str(e))
    assert str(e).startswith(e.path + ":"), str(e)


OPEN_LOOP = {"arrival": {"load": 0.5}, "size": "20pkt", "rtt": "40ms"}

GROUP_CASES = [
    # (group, the field named)
    ({**OPEN_LOOP, "arrival": {"load": -1}}, "flows[1].arrival"),
    ({**OPEN_LOOP, "arrival": {"rate": "fast"}}, "flows[1].arrival"),
    ({**OPEN_LOOP, "arrival": {"load": 0.5, "rate": "1/s"}}, "flows[1].arrival"),
    ({**OPEN_LOOP, "max_active": 0}, "flows[1].max_active"),
    ({**OPEN_LOOP, "max_active": -5}, "flows[1].max_active"),
    ({**OPEN_LOOP, "count": 3}, "flows[1]"),
    ({"users": 0, "size": "20pkt", "rtt": "40ms", "think": "1s"}, "flows[1].users"),
    ({"users": 3, "size": "20pkt", "rtt": "40ms", "think": "-1s"}, "flows[1].think"),
    ({"users": 3, "size": "20pkt", "rtt": "40ms", "think": {"gamma": "1s"}}, "flows[1].think"),
    ({"count": 1, "rtt": "40ms", "colour": "red"}, "flows[1]"),
]


@pytest.mark.parametrize("group, field", GROUP_CASES)
def test_bad_traffic_group_is_named(group, field):
    raw = copy.deepcopy(BASE)
    raw["flows"].append(group)
    e = _refused(raw)
    assert e.path.startswith(field), (e.path, str(e))


BACKGROUND_CASES = [
    ({"kind": "cbr", "rate": "1Mbps", "packet_size": "1000B"}, "background[0].kind"),
    ({"kind": "poisson", "rate": "1", "packet_size": "1000B"}, "background[0].rate"),
    ({"kind": "poisson", "rate": "1Tbps", "packet_size": "1000B"}, "background[0].rate"),
    ({"kind": "poisson", "rate": "1Mbps", "packet_size": "10B"}, "background[0].packet_size"),
    ({"kind": "poisson", "rate": "1Mbps"}, "background[0]"),
    ({"kind": "poisson", "rate": "1Mbps", "packet_size": "1000B", "burst": 3}, "background[0]"),
    ("poisson", "background[0]"),
]


@pytest.mark.parametrize("bg, field", BACKGROUND_CASES)
def test_bad_background_is_named(bg, field):
    e = _refused({**BASE, "background": [bg]})
    assert e.path.startswith(field), (e.path, str(e))


TOP_CASES = [
    ({**BASE, "colour": "red"}, "colour"),
    ({k: v for k, v in BASE.items() if k != "link"}, "link"),
    ({k: v for k, v in BASE.items() if k != "duration"}, "duration"),
    ({**BASE, "flows": "many"}, "flows"),
    ({**BASE, "link": "10Mbps"}, "link"),
    ({**BASE, "output": 5}, "output"),
    ({**BASE, "fluid": [1]}, "fluid"),
    ({**BASE, "background": {"kind": "poisson"}}, "background"),
]


@pytest.mark.parametrize("raw, field", TOP_CASES)
def test_bad_scenario_shape_is_named(raw, field):
    e = _refused(raw)
    assert field in str(e), str(e)


# Values no TOML or JSON file can hold, given through the Python API.
PY_CASES = [
    ("flows.0.count", float("nan")),
    ("seed", float("inf")),
    ("link.capacity", float("-inf")),
    ("name", b"bytes"),
    ("name", {1, 2}),
    ("link.delay", object()),
    ("flows.0.rtt", complex(1, 2)),
]


@pytest.mark.parametrize("path, value", PY_CASES, ids=[p for p, _ in PY_CASES])
def test_values_that_are_not_plain_data_name_the_field(path, value):
    e = _refused(_set(BASE, path, value))
    assert e.path == _field(path), str(e)


def test_deep_nesting_is_refused_without_recursion_error():
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    e = _refused({**BASE, "link": {**BASE["link"], "qdisc_params": deep}})
    assert "nested more than" in str(e)


# Out-of-proportion runs: refused before running, naming the field that drives the cost.
COST_CASES = [
    (
        {
            "output": {"cwnd": True, "interval": "1us"},
            "duration": "10s",
            "flows": [{"count": 1000, "rtt": "40ms"}],
        },
        "packet",
        "output.cwnd",
    ),
    (
        {
            "output": {"cwnd": True, "interval": "1ms"},
            "duration": "10s",
            "flows": [{"count": 10**6, "rtt": "40ms"}],
        },
        "packet",
        "output.cwnd",
    ),
    ({"fluid": {"step": "1us"}, "duration": "1000s"}, "fluid", "fluid.step"),
    (
        {
            "link": {"capacity": "10Tbps", "delay": "1ms", "buffer": "100pkt"},
            "duration": "3s",
            "background": [{"kind": "poisson", "rate": "5Tbps", "packet_size": "1500B"}],
        },
        "packet",
        "duration",
    ),
    (
        {
            "link": {"capacity": "1Tbps", "delay": "1ms", "buffer": "100pkt"},
            "duration": "5s",
            "background": [{"kind": "poisson", "rate": "9Tbps", "packet_size": "1500B"}],
        },
        "packet",
        "background[0].rate",
    ),
    (
        {"duration": "100000s", "link": {"capacity": "1Gbps", "delay": "10ms", "buffer": "100pkt"}},
        "packet",
        "duration",
    ),
]


@pytest.mark.parametrize("patch, engine, field", COST_CASES)
def test_out_of_proportion_runs_are_refused_before_running(patch, engine, field):
    raw = {**BASE, "warmup": "0s", **patch}
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.simulate(raw, engine=engine)
    assert info.value.path == field, str(info.value)
    assert "more than the limit" in str(info.value)


def test_limits_come_from_the_environment(monkeypatch):
    raw = {**BASE, "duration": "10s"}
    monkeypatch.setenv("BUFSIM_MAX_PACKETS", "1000")
    with pytest.raises(
        bufsim.ScenarioError,
        match="about 8333 packets, more than the limit 1000;.*BUFSIM_MAX_PACKETS",
    ):
        bufsim.simulate(raw)
    monkeypatch.setenv("BUFSIM_MAX_PACKETS", "lots")
    with pytest.raises(bufsim.ScenarioError, match="BUFSIM_MAX_PACKETS='lots'"):
        bufsim.simulate(raw)
    monkeypatch.delenv("BUFSIM_MAX_PACKETS")
    monkeypatch.setenv("BUFSIM_MAX_MEMORY", "1KB")
    with pytest.raises(bufsim.ScenarioError, match="memory.*BUFSIM_MAX_MEMORY"):
        bufsim.simulate(raw)


def test_rtt_too_short_for_the_fluid_engine_runs_on_the_packet_engine():
    raw = _set(_set(BASE, "link.delay", "1us"), "flows.0.rtt", "3us")
    raw["duration"], raw["warmup"] = "0.01s", "0s"
    assert bufsim.simulate(raw).summary["utilization"] > 0
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.simulate(raw, engine="fluid")
    assert info.value.path == "flows[0].rtt"


# ----------------------------------------------------------------------------- files

FILE_CASES = [
    # (file name, bytes, what the message says)
    ("latin1.toml", 'name = "caf\xe9"\n'.encode("latin-1"), "not UTF-8"),
    ("utf16.toml", 'duration = "1s"\n'.encode("utf-16"), "not UTF-8"),
    ("binary.toml", bytes(range(256)), "not UTF-8"),
    ("empty.toml", b"", "duration"),
    ("broken.toml", b"duration = \n", "cannot parse"),
    ("broken.json", b'{"duration": ', "cannot parse"),
    ("list.json", b"[1, 2]", "a scenario is a JSON object"),
    ("string.json", b'"x"', "a scenario is a JSON object"),
    ("deep.json", b"[" * 5000 + b"]" * 5000, "nested more than"),
    ("deep.toml", b"x = " + b"[" * 5000 + b"]" * 5000, "nested more than"),
    ("nan.json", b'{"duration": NaN}', "must be finite"),
    ("dup.toml", b'duration = "1s"\nduration = "2s"\n', "cannot parse"),
]


@pytest.mark.parametrize("name, data, needle", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_scenario_files(tmp_path, name, data, needle):
    path = tmp_path / name
    path.write_bytes(data)
    e = _refused(path)
    assert needle in str(e), str(e)


def test_byte_order_mark_is_not_part_of_the_scenario(tmp_path):
    import tomli_w

    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + tomli_w.dumps(BASE).encode())
    assert bufsim.Scenario.load(path).normalized["link"]["buffer_pkts"] == 50


@pytest.mark.parametrize("kind", ["directory", "fifo", "missing"])
def test_special_files_as_scenarios(tmp_path, kind):
    path = tmp_path / "s.toml"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    e = _refused(path)
    assert str(path) in str(e)
    assert {
        "directory": "is a directory",
        "fifo": "not a regular file",
        "missing": "does not exist",
    }[kind] in str(e)


# ----------------------------------------------------------------------------- sweep specs

SPEC_CASES = [
    ({"link.buffer": []}, "grid['link.buffer']"),
    ({"link.buffer": "20pkt"}, "grid['link.buffer']"),
    ({"link.nope": ["1pkt"]}, "link.nope"),
    ({"flows[5].count": [1]}, "flows[5]"),
    ({"flows[x].count": [1]}, "flows[x]"),
    ({"link.buffer": ["20", "30pkt"]}, "link.buffer"),
    ({"duration": ["1s", "0s"]}, "duration"),
    ({"link": [{"capacity": "1Mbps"}], "link.buffer": ["1pkt"]}, "overlap"),
    (
        {
            "link.buffer": [f"{i}pkt" for i in range(1, 1001)],
            "flows[0].count": list(range(1, 1001)),
        },
        "BUFSIM_MAX_POINTS",
    ),
    ({}, "the grid is empty"),
]


@pytest.mark.parametrize("grid, needle", SPEC_CASES, ids=[n for _, n in SPEC_CASES])
def test_bad_sweep_specs(grid, needle):
    with pytest.raises(SweepSpecError) as info:
        expand(BASE, grid)
    assert needle in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"engines": ["ns4"]}, "ns4"),
        ({"engines": ["model:nope"]}, "model:nope"),
        ({"engines": []}, "engines"),
        ({"seeds": [-1]}, "seed"),
        ({"seeds": ["a"]}, "seed"),
        ({"seeds": []}, "seeds"),
    ],
)
def test_bad_sweep_options(kwargs, needle):
    with pytest.raises(SweepSpecError) as info:
        expand(BASE, {"link.buffer": ["20pkt"]}, **kwargs)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    "address", ["garbage", "tcp://", "http://x:1", "tcp://host", "host:port", ""]
)
def test_bad_scheduler_address_is_refused_at_once(address, tmp_path):
    with pytest.raises(SweepSpecError, match="scheduler"):
        bufsim.sweep(
            BASE, {"link.buffer": ["20pkt"]}, scheduler=address or " ", store=tmp_path / "st"
        )


# ----------------------------------------------------------------------------- the command line


#: Seconds a command line may run before the test counts it as a hang.
TIMEOUT_S = 60


@pytest.fixture
def scenario_file(tmp_path) -> Path:
    import tomli_w

    (tmp_path / "s.toml").write_text(tomli_w.dumps({**BASE, "duration": "1s", "warmup": "0s"}))
    (tmp_path / "spec.toml").write_text(
        'base = "s.toml"\n[grid]\n"link.buffer" = ["10pkt", "20pkt"]\n'
    )
    (tmp_path / "afile").write_text("x")
    return tmp_path / "s.toml"


CLI_CASES = [
    # (arguments, what stderr names)
    (["run", "s.toml", "--out", "afile"], "afile"),
    (["run", "s.toml", "--out", "afile/sub"], "afile"),
    (["run", "s.toml", "--out", "/proc/bufsim-x"], "/proc"),
    (["run", "s.toml", "--out", ""], "--out"),
    (["run", "s.toml", "--out", "."], "--out"),
    (["run", "s.toml", "--engine", "ns4"], "ns4"),
    (["run", "missing.toml"], "missing.toml"),
    (["run", "."], "is a directory"),
    (["run", "afile"], "cannot parse"),
    (["validate", "missing.toml"], "missing.toml"),
    (["sweep", "spec.toml", "--out", "t.txt"], "t.txt"),
    (["sweep", "spec.toml", "--out", "afile/t.csv"], "afile"),
    (["sweep", "spec.toml", "--store", "/proc/bufsim-x"], "/proc/bufsim-x"),
    (["sweep", "spec.toml", "--store", "afile"], "afile"),
    (["sweep", "spec.toml", "--scheduler", "garbage"], "garbage"),
    (["sweep", "spec.toml", "--workers", "-1"], "workers"),
    (["sweep", "missing.toml"], "missing.toml"),
    (["results", "--store", "nowhere"], "nowhere"),
    (["results", "--limit", "-1"], "--limit"),
    (["results", "--status", "meh"], "--status"),
    (["results", "--export", "/proc/x.csv"], "/proc"),
    (["results", "--where", "noequals"], "--where"),
    (["reproduce", "nobody2000"], "nobody2000"),
    (["report", "s.toml", "-o", "x.pdf"], "x.pdf"),
    (["report", "s.toml", "-o", "afile/x.html"], "afile"),
    (["advise", "s.toml", "-O", "speed>=1"], "speed"),
    # Flow completion times need transfers that finish; s.toml has long-lived flows only.
    (["advise", "s.toml", "-O", "fct_p99_small<=1s"], "'fct_p99_small<=1s': flow completion"),
    (["advise", "s.toml", "-O", "fct_mean_large<=2"], "'fct_mean_large<=2'"),
    (["advise", "s.toml", "-O", "utilization>=0.9", "--report", "x.txt"], "x.txt"),
    (["advise", "s.toml", "-O", "utilization>=0.9", "--report", "/proc/x.html"], "/proc"),
]


@pytest.mark.parametrize("args, needle", CLI_CASES, ids=[" ".join(a)[:50] for a, _ in CLI_CASES])
def test_bad_command_lines(scenario_file, args, needle):
    cwd = scenario_file.parent
    p = cli(*args, cwd=cwd, timeout=TIMEOUT_S)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    assert needle in " ".join(p.stderr.split()), p.stderr
    # Nothing was written where it should not be.
    assert not (cwd / "results" / "cli").exists()


def test_a_scenario_name_is_a_label_not_a_path(tmp_path):
    import tomli_w

    for name in ("../../escaped", "/tmp/absolute-bufsim-name"):
        (tmp_path / "s.toml").write_text(
            tomli_w.dumps({**BASE, "duration": "0.5s", "warmup": "0s", "name": name})
        )
        p = cli("run", "s.toml", "--quiet", cwd=tmp_path, timeout=TIMEOUT_S)
        assert p.returncode == 0, p.stderr
        written = [d for d in (tmp_path / "results").iterdir()]
        assert all(d.parent == tmp_path / "results" for d in written)
    assert not (tmp_path.parent.parent / "escaped-packet").exists()
    assert not Path("/tmp/absolute-bufsim-name-packet").exists()


def test_a_sweep_with_failed_points_exits_1(tmp_path):
    import tomli_w

    # The fluid engine refuses open-loop traffic: every fluid point fails.
    raw = {**BASE, "duration": "0.5s", "warmup": "0s", "flows": [OPEN_LOOP]}
    (tmp_path / "s.toml").write_text(tomli_w.dumps(raw))
    (tmp_path / "spec.toml").write_text(
        'base = "s.toml"\nengines = ["fluid"]\n[grid]\n"link.buffer" = ["10pkt", "20pkt"]\n'
    )
    p = cli("sweep", "spec.toml", "--quiet", "--workers", "0", cwd=tmp_path, timeout=TIMEOUT_S)
    assert p.returncode == 1, p.stderr
    assert "2 of 2 points failed" in p.stderr


def test_interrupted_save_leaves_no_result_that_reads_as_complete(tmp_path):
    r = bufsim.simulate({**BASE, "duration": "0.5s", "warmup": "0s"})
    out = r.save(tmp_path / "r")
    # A save cut short (an older bufsim, or a copy that stopped) misses files.
    (out / "flows.parquet").unlink()
    with pytest.raises(bufsim.ResultError, match="incomplete result.*flows.parquet"):
        bufsim.Result.load(out)
    (out / "summary.json").write_text("{not json")
    with pytest.raises(bufsim.ResultError, match="damaged result file|incomplete"):
        bufsim.Result.load(out)
    with pytest.raises(bufsim.ResultError, match="no bufsim result"):
        bufsim.Result.load(tmp_path / "nothing")
    # A save replaces an earlier result whole; it refuses a folder of other files.
    again = r.save(tmp_path / "r2")
    r.save(again)
    assert bufsim.Result.load(again).summary == pytest.approx(r.summary, nan_ok=True)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x")
    with pytest.raises(bufsim.OutputPathError, match="not a bufsim result"):
        r.save(tmp_path / "mine")
    assert (tmp_path / "mine" / "thesis.tex").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("cut_at", [1, 2, 3])
def test_interrupt_while_saving_leaves_the_earlier_result_or_none(tmp_path, monkeypatch, cut_at):
    """Ctrl-C at each Parquet write of Result.save: the folder holds the
    earlier result, whole, or nothing; no temporary folder is left."""
    import pandas as pd

    first = bufsim.simulate({**BASE, "duration": "0.5s", "warmup": "0s"})
    second = bufsim.simulate({**BASE, "duration": "0.5s", "warmup": "0s", "seed": 2})
    first.save(tmp_path / "r")
    real = pd.DataFrame.to_parquet
    calls = []

    def cut(self, *a, **k):
        calls.append(1)
        if len(calls) == cut_at:
            raise KeyboardInterrupt
        return real(self, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", cut)
    for target in ("r", "fresh"):
        calls.clear()
        with pytest.raises(KeyboardInterrupt):
            second.save(tmp_path / target)
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    assert bufsim.Result.load(tmp_path / "r").summary == pytest.approx(first.summary, nan_ok=True)
    assert not (tmp_path / "fresh").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_the_corpus_stays_within_memory():
    """Peak RSS of this process after the in-process corpus (it runs first in
    this file's order) and of the command-line children."""
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 < PEAK_RSS_BYTES
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 < PEAK_RSS_BYTES
