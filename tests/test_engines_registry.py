"""The engines behind one interface: every module of ``bufsim.ENGINES``
satisfies :class:`bufsim.engines.Engine`, and the callers (``simulate``,
the limits, the command line, sweeps, advise) read the registry, so one
more engine is one module and one line of it."""

from __future__ import annotations

import inspect
import json
import types
from typing import Any

import bufsim
import pytest
import tomli_w
from bufsim import cli, limits
from bufsim.engines import ENGINES, Engine, packet
from typer.testing import CliRunner

TINY: dict[str, Any] = {
    "name": "registry",
    "duration": "0.5s",
    "warmup": "0s",
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [{"count": 2, "rtt": "40ms", "mss": "1000B"}],
}

#: The interface's methods (the Protocol's members that are functions).
METHODS = {
    name: inspect.signature(member)
    for name, member in vars(Engine).items()
    if inspect.isfunction(member) and not name.startswith("_")
}


def test_the_interface_has_what_each_caller_asks():
    assert set(METHODS) == {"why_unavailable", "check", "estimate", "run", "version", "build"}
    assert set(Engine.__annotations__) == {"label", "transfers", "verifies"}


@pytest.mark.parametrize("name", list(ENGINES))
def test_every_registered_engine_satisfies_the_protocol(name):
    eng = ENGINES[name]
    assert isinstance(eng, Engine), name
    for method, sig in METHODS.items():
        own = inspect.signature(getattr(eng, method))
        # The same parameters as the Protocol's, less its ``self``.
        want = [p for p in sig.parameters if p != "self"]
        assert list(own.parameters) == want, (name, method, list(own.parameters))
    for attr, kind in (("label", str), ("transfers", bool), ("verifies", bool)):
        assert isinstance(getattr(eng, attr), kind), (name, attr)
    why = eng.why_unavailable()
    assert isinstance(why, str) and "\n" not in why, (name, why)
    if not why:
        cost = eng.estimate(bufsim.Scenario(TINY))
        # 0.5 s of 10 Mbps in 1000 B packets (1040 B on the wire with the
        # headers): about 600 bottleneck packets, or fluid flow-steps.
        assert cost["work_unit"] in limits.WORK_LIMITS, cost
        assert cost["work"] > 0 and cost["memory_bytes"] > 0, cost


def test_the_registry_is_in_the_command_lines_order():
    assert list(ENGINES) == ["packet", "fluid", "ns3", "ns2"]
    assert bufsim.ENGINES is ENGINES


def test_the_cli_engine_choices_come_from_the_registry(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    r = CliRunner().invoke(cli.app, ["run", "--help"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.replace("│", " ").split())
    assert f"Engine: {', '.join(ENGINES)}, or model:<name>" in text, text
    r = CliRunner().invoke(cli.app, ["advise", "--help"])
    text = " ".join(r.output.replace("│", " ").split())
    verifiers = [n for n, e in ENGINES.items() if e.verifies]
    assert verifiers == ["ns3", "ns2"]
    assert f"whether it agrees: {', '.join(verifiers)}" in text, text


def _toy(why: str = "") -> types.ModuleType:
    """A sixth engine: the packet engine under another name, as a module
    of its own, registered by one line."""
    toy = types.ModuleType("toy")
    toy.label = "the toy engine"
    toy.transfers = True
    toy.verifies = False
    toy.why_unavailable = lambda: why
    toy.check = packet.check
    toy.estimate = packet.estimate
    toy.run = packet.run
    toy.version = lambda: "0.1"
    toy.build = lambda: "toy-0.1"
    return toy


def test_one_registry_line_reaches_every_caller(tmp_path, monkeypatch):
    monkeypatch.setitem(ENGINES, "toy", _toy())
    # simulate, the limits and the store's key read it.
    r = bufsim.simulate(TINY, engine="toy")
    ref = bufsim.simulate(TINY, engine="packet")
    assert r.provenance["engine"] == "toy"
    assert r.summary["utilization"] == pytest.approx(ref.summary["utilization"], abs=1e-12)
    assert limits.estimate(bufsim.Scenario(TINY), "toy")["work"] == pytest.approx(
        limits.estimate(bufsim.Scenario(TINY), "packet")["work"]
    )
    from bufsim.store import build_id

    assert build_id("toy") == "toy-0.1"
    # validate lists it with its cost; sweeps take its name.
    (tmp_path / "s.toml").write_text(tomli_w.dumps(TINY))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    out = CliRunner().invoke(cli.app, ["validate", "s.toml"])
    assert out.exit_code == 0, out.output
    line = next(x for x in out.stdout.splitlines() if "toy engine" in x)
    assert line.strip().startswith("toy engine: can run it here: about"), line
    assert "of CPU" in line, line  # its estimate carries the packet engine's cpu_s
    from bufsim.sweep.spec import _engines

    assert _engines(["toy", "packet"]) == ["toy", "packet"]


def test_an_engine_that_cannot_run_here_says_why_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(ENGINES, "toy", _toy("the toy engine needs `toy`: install it"))
    (tmp_path / "s.toml").write_text(tomli_w.dumps(TINY))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    out = CliRunner().invoke(cli.app, ["validate", "s.toml"])
    assert out.exit_code == 0, out.output
    assert "toy engine: cannot run here: the toy engine needs `toy`: install it" in out.stdout
    # JSON output is the scenario alone, whatever the engines.
    js = CliRunner().invoke(cli.app, ["validate", "s.toml", "--json"])
    assert json.loads(js.stdout)["link"]["capacity_bps"] == 10e6


def test_advise_verifies_with_the_registrys_verifying_engines(tmp_path, monkeypatch):
    from bufsim.advise.driver import _check_arguments

    assert _check_arguments(["utilization>=0.9"], 0.9, 1, ["packet", "ns2"])
    with pytest.raises(bufsim.AdviceError) as e:
        _check_arguments(["utilization>=0.9"], 0.9, 1, ["packet", "toy"])
    assert "be among rules, fluid, packet, ns3, ns2; got ['packet', 'toy']" in str(e.value)
    (tmp_path / "s.toml").write_text(tomli_w.dumps(TINY))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    r = CliRunner().invoke(
        cli.app, ["advise", "s.toml", "-O", "utilization>=0.5", "--verify", "fluid"]
    )
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == (
        "error: --verify fluid: not an engine that verifies; allowed are ns3, ns2"
    ), r.stderr
