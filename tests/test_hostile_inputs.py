"""Hostile inputs on the command line: every bad scenario, file,
objective, filter, engine, seed, store or option given to run, validate,
advise, sweep, report or results ends in one ``error:`` line that names the
field, exit status 2 and no traceback; text with Rich markup in it prints
literally.

The commands run in this process (``typer.testing.CliRunner``): most cases
fail at validation, in milliseconds.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import bufsim
import pytest
import tomli_w
from bufsim import cli
from conftest import DELETE, edit
from typer.testing import CliRunner

#: A tiny valid scenario: 0.2 s at 10 Mbps, one flow (a run of it takes milliseconds).
TINY: dict[str, Any] = {
    "name": "hostile",
    "duration": "0.2s",
    "warmup": "0s",
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [{"count": 1, "rtt": "40ms", "mss": "1000B"}],
}

#: A shared-buffer switch of two ports, its port given as a one-element
#: ``[[links]]`` (the core reads it as ``[link]``).
POOL: dict[str, Any] = {
    "name": "pool",
    "duration": "0.05s",
    "warmup": "0s",
    "links": [{"capacity": "1Gbps", "delay": "10us", "buffer": "100pkt"}],
    "pool": {"size": "500KB", "ports": 2, "alpha": 1.0},
    "flows": [{"count": 2, "rtt": "100us", "port": 0}],
}


#: (dotted path, bad value, what the error line names), each written as a
#: scenario file and given to validate, run and advise.
SCENARIO_CASES: list[tuple[str, Any, str]] = [
    # Rich markup in values and keys.
    ("link.buffer", "[/bold]20pkt", "link.buffer"),
    ("link.capacity", "[red]10Mbps", "link.capacity"),
    ("flows.0.tcp", "[/x]", "tcp"),
    ("flows.0.rtt", "[bold]", "rtt"),
    ("[/foo]", 1, "[/foo]"),
    ("link.[/foo]", 1, "[/foo]"),
    ("flows.0.[b]", 1, "[b]"),
    # Numbers out of range: huge, negative, zero, NaN, infinite.
    ("link.buffer", "1e30pkt", "link.buffer"),
    ("link.buffer", "-5pkt", "link.buffer"),
    ("link.buffer", "nanpkt", "link.buffer"),
    ("link.buffer", "infpkt", "link.buffer"),
    ("link.buffer", 1e30, "link.buffer"),
    ("link.buffer", -1, "link.buffer"),
    ("link.buffer", math.nan, "link.buffer"),
    ("link.capacity", "0bps", "link.capacity"),
    ("link.capacity", "-1Gbps", "link.capacity"),
    ("link.capacity", "1e400bps", "link.capacity"),
    ("link.capacity", "nanGbps", "link.capacity"),
    ("link.capacity", math.inf, "link.capacity"),
    ("link.delay", "-1ms", "link.delay"),
    ("link.delay", "1e30s", "link.delay"),
    ("duration", "0s", "duration"),
    ("duration", "-1s", "duration"),
    ("duration", "1e30s", "duration"),
    ("duration", "infs", "duration"),
    ("warmup", "5s", "warmup"),
    ("seed", 1e20, "seed"),
    ("seed", -1, "seed"),
    ("seed", 1.5, "seed"),
    ("seed", math.nan, "seed"),
    ("flows.0.count", 0, "count"),
    ("flows.0.count", -1, "count"),
    ("flows.0.count", 1e20, "count"),
    ("flows.0.count", 1.5, "count"),
    ("flows.0.count", 10**15, "count"),
    ("flows.0.rtt", "-1ms", "rtt"),
    ("flows.0.rtt", "0s", "rtt"),
    ("flows.0.rtt", {"uniform": ["80ms", "40ms"]}, "rtt"),
    ("flows.0.mss", "0B", "mss"),
    ("flows.0.mss", "1e30B", "mss"),
    # Wrong units.
    ("link.buffer", "10Mbps", "link.buffer"),
    ("link.buffer", "20", "link.buffer"),
    ("link.capacity", "10pkt", "link.capacity"),
    ("link.capacity", "10", "link.capacity"),
    ("link.delay", "10pkt", "link.delay"),
    ("duration", "10Mbps", "duration"),
    ("flows.0.rtt", "40", "rtt"),
    ("flows.0.mss", "1000bps", "mss"),
    # Wrong types.
    ("seed", "x", "seed"),
    ("seed", True, "seed"),
    ("duration", True, "duration"),
    ("duration", [1], "duration"),
    ("link", 5, "link"),
    ("link", "x", "link"),
    ("link", [], "link"),
    ("link.capacity", [1], "link.capacity"),
    ("flows", 5, "flows"),
    ("flows", [1], "flows"),
    ("flows.0.count", "x", "count"),
    ("flows.0.tcp", 5, "tcp"),
    ("flows.0.tcp", "nope", "tcp"),
    ("name", 5, "name"),
    # Unknown keys, missing ones.
    ("foo", 1, "foo"),
    ("link.foo", 1, "foo"),
    ("flows.0.foo", 1, "foo"),
    ("link.capacity", DELETE, "capacity"),
    ("link", DELETE, "link"),
]

#: (dotted path, bad value, what the error line names) on :data:`POOL`.
POOL_CASES: list[tuple[str, Any, str]] = [
    ("pool.alpha", 1e300, "pool.alpha"),
    ("pool.alpha", -1.0, "pool.alpha"),
    ("pool.alpha", math.nan, "pool.alpha"),
    ("pool.ports", 0, "pool.ports"),
    ("pool.ports", 10**12, "pool.ports"),
    ("pool.size", "-1KB", "pool.size"),
    ("pool.size", "[/x]", "pool.size"),
    ("flows.0.port", 7, "port"),
]

#: Scenario files that are no scenario: (file name, bytes or None for a
#: directory, what the error line names).
FILE_CASES: list[tuple[str, bytes | None, str]] = [
    ("empty.toml", b"", "missing field"),
    ("binary.toml", bytes(range(256)), "binary.toml"),
    ("broken.toml", b"duration = \n", "broken.toml"),
    ("broken.json", b'{"duration": ', "broken.json"),
    ("list.json", b"[1, 2]", "list.json"),
    ("markup.toml", b'name = "x"\n[/red]\n', "markup.toml"),
    ("dir.toml", None, "dir.toml"),
    ("scenario.yaml", b"duration: 1s\n", "scenario.yaml"),
]

#: Objectives that advise refuses, and validate -O with them.
BAD_OBJECTIVES: list[tuple[str, str]] = [
    ("[/x]>=1", "[/x]"),
    ("", "objective"),
    ("utilization", "utilization"),
    (">=1", ">=1"),
    ("utilization>=", "utilization>="),
    ("utilization>=x", "utilization>=x"),
    ("utilization>=nan", "utilization>=nan"),
    ("utilization>=inf", "utilization>=inf"),
    ("utilization=>0.9", "utilization=>0.9"),
    ("utilization>=2", "utilization>=2"),
    ("p99_queue_delay<=5pkt", "p99_queue_delay<=5pkt"),
    ("p99_queue_delay<=-1ms", "p99_queue_delay<=-1ms"),
    ("speed>=1", "speed"),
    ("fct_p99_small<=1s", "fct_p99_small<=1s"),
]


def _write_cases(folder: Path) -> None:
    """Write every scenario and file case into ``folder``: ``s.toml`` (the
    valid one), ``mN.toml``, ``pN.toml``, the file cases, a sweep spec and
    a results store holding one run, and a damaged copy of that store."""
    (folder / "s.toml").write_text(tomli_w.dumps(TINY))
    (folder / "pool.toml").write_text(tomli_w.dumps(POOL))
    for i, (path, value, _) in enumerate(SCENARIO_CASES):
        (folder / f"m{i}.toml").write_text(tomli_w.dumps(edit(TINY, path, value)))
    for i, (path, value, _) in enumerate(POOL_CASES):
        (folder / f"p{i}.toml").write_text(tomli_w.dumps(edit(POOL, path, value)))
    for name, data, _ in FILE_CASES:
        if data is None:
            (folder / name).mkdir()
        else:
            (folder / name).write_bytes(data)
    (folder / "afile").write_text("x")
    spec = 'base = "s.toml"\n[grid]\n"link.buffer" = ["10pkt", "20pkt"]\n'
    (folder / "spec.toml").write_text(spec)
    for name, text in SPEC_CASES.items():
        (folder / f"{name}.toml").write_text(text)


#: Sweep specs that are no sweep: file stem -> text.
SPEC_CASES: dict[str, str] = {
    "spec-empty-grid": 'base = "s.toml"\n[grid]\n',
    "spec-unknown-path": 'base = "s.toml"\n[grid]\n"link.nope" = ["1pkt"]\n',
    "spec-markup-path": 'base = "s.toml"\n[grid]\n"[/x]" = ["1pkt"]\n',
    "spec-markup-value": 'base = "s.toml"\n[grid]\n"link.buffer" = ["[/x]"]\n',
    "spec-bad-engine": 'base = "s.toml"\nengines = ["ns4"]\n[grid]\n"link.buffer" = ["10pkt"]\n',
    "spec-bad-seeds": 'base = "s.toml"\nseeds = [-1]\n[grid]\n"link.buffer" = ["10pkt"]\n',
    "spec-float-seed": 'base = "s.toml"\nseeds = [1e20]\n[grid]\n"link.buffer" = ["10pkt"]\n',
    "spec-no-base": 'base = "nowhere.toml"\n[grid]\n"link.buffer" = ["10pkt"]\n',
    "spec-bad-base": 'base = "m0.toml"\n[grid]\n"link.buffer" = ["10pkt"]\n',
    "spec-unknown-key": 'base = "s.toml"\n"[/foo]" = 1\n[grid]\n"link.buffer" = ["10pkt"]\n',
}

#: What each sweep spec's error line names.
SPEC_NEEDLES = {
    "spec-empty-grid": "grid",
    "spec-unknown-path": "link.nope",
    "spec-markup-path": "[/x]",
    "spec-markup-value": "link.buffer",
    "spec-bad-engine": "ns4",
    "spec-bad-seeds": "seed",
    "spec-float-seed": "seed",
    "spec-no-base": "nowhere.toml",
    "spec-bad-base": "link.buffer",
    "spec-unknown-key": "[/foo]",
}

ADVISE = ["-O", "utilization>=0.9", "--quick", "--store", "st"]
RUN = ["--store", "", "--out", "out"]


def _cases() -> list[tuple[str, list[str], str]]:
    """(test id, command line, what the error line names) for every probe input."""
    cases: list[tuple[str, list[str], str]] = []
    for i, (path, value, needle) in enumerate(SCENARIO_CASES):
        what = f"{path}={value!r}"[:40]
        cases.append((f"validate {what}", ["validate", f"m{i}.toml"], needle))
        cases.append((f"run {what}", ["run", f"m{i}.toml", *RUN], needle))
        cases.append((f"advise {what}", ["advise", f"m{i}.toml", *ADVISE], needle))
    for i, (path, value, needle) in enumerate(POOL_CASES):
        what = f"{path}={value!r}"[:40]
        cases.append((f"validate pool {what}", ["validate", f"p{i}.toml"], needle))
        cases.append((f"run pool {what}", ["run", f"p{i}.toml", *RUN], needle))
    for name, _, needle in FILE_CASES:
        for command, extra in (("validate", []), ("run", RUN), ("advise", ADVISE)):
            cases.append((f"{command} file {name}", [command, name, *extra], needle))
        # report and sweep read a .toml as a sweep spec: an empty one has no base.
        spec_needle = "base" if name == "empty.toml" else needle
        cases.append((f"report file {name}", ["report", name, "-o", "r.html"], spec_needle))
    for command, extra in (("validate", []), ("run", RUN), ("advise", ADVISE)):
        cases.append((f"{command} missing", [command, "missing.toml", *extra], "missing.toml"))
        cases.append((f"{command} --example [/x]", [command, "--example", "[/x]", *extra], "[/x]"))
    for objective, needle in BAD_OBJECTIVES:
        cases.append((f"validate -O {objective}", ["validate", "s.toml", "-O", objective], needle))
        cases.append(
            (
                f"advise -O {objective}",
                ["advise", "s.toml", "-O", objective, "--quick", "--store", "st"],
                needle,
            )
        )
    for engine in ("ns4", "", "[/x]", "model:", "model:nope", "PACKET"):
        cases.append(
            (f"run --engine {engine!r}", ["run", "s.toml", "--engine", engine, *RUN], engine)
        )
    for option, value, needle in (
        ("--seeds", "0", "seeds"),
        ("--seeds", "-1", "seeds"),
        ("--confidence", "1.5", "confidence"),
        ("--confidence", "nan", "confidence"),
        ("--confidence", "0", "confidence"),
        ("--budget", "0", "--budget"),
        ("--budget", "-1", "--budget"),
    ):
        cases.append(
            (
                f"advise {option} {value}",
                ["advise", "s.toml", "-O", "utilization>=0.9", "--store", "st", option, value],
                needle,
            )
        )
    for stem, needle in SPEC_NEEDLES.items():
        cases.append((f"sweep {stem}", ["sweep", f"{stem}.toml", "--store", "st"], needle))
        cases.append(
            (
                f"sweep --dry-run {stem}",
                ["sweep", f"{stem}.toml", "--dry-run", "--store", "st"],
                needle,
            )
        )
    for name, _, needle in FILE_CASES:
        spec_needle = "base" if name == "empty.toml" else needle
        cases.append((f"sweep file {name}", ["sweep", name, "--store", "st"], spec_needle))
    cases += [
        ("advise --store afile", ["advise", "s.toml", *ADVISE[:3], "--store", "afile"], "afile"),
        (
            "advise --store damaged",
            ["advise", "s.toml", *ADVISE[:3], "--store", "damaged"],
            "damaged",
        ),
        ("sweep --example [/x]", ["sweep", "--example", "[/x]"], "[/x]"),
        ("sweep --workers -1", ["sweep", "spec.toml", "--workers", "-1"], "workers"),
        ("sweep --store afile", ["sweep", "spec.toml", "--store", "afile"], "afile"),
        ("sweep --store damaged", ["sweep", "spec.toml", "--store", "damaged"], "damaged"),
        ("sweep --scheduler [/x]", ["sweep", "spec.toml", "--scheduler", "[/x]"], "[/x]"),
        (
            "results --where foo.bar=1",
            ["results", "--store", "good", "--where", "foo.bar=1"],
            "foo.bar",
        ),
        ("results --where [/x]=1", ["results", "--store", "good", "--where", "[/x]=1"], "[/x]"),
        ("results --where =1", ["results", "--store", "good", "--where", "=1"], "--where"),
        ("results --where noequals", ["results", "--store", "good", "--where", "x"], "--where"),
        ("results --status [/x]", ["results", "--store", "good", "--status", "[/x]"], "[/x]"),
        ("results --limit -1", ["results", "--store", "good", "--limit", "-1"], "--limit"),
        ("results --store afile", ["results", "--store", "afile"], "afile"),
        ("results --store missing", ["results", "--store", "nowhere"], "nowhere"),
        ("results --store damaged", ["results", "--store", "damaged"], "damaged"),
        ("results --export x.txt", ["results", "--store", "good", "--export", "x.txt"], "x.txt"),
        ("report damaged store", ["report", "damaged", "-o", "r.html"], "damaged"),
        ("report missing", ["report", "nowhere", "-o", "r.html"], "nowhere"),
        ("report [/x]", ["report", "[/x]", "-o", "r.html"], "[/x]"),
        ("report empty folder", ["report", "emptydir", "-o", "r.html"], "emptydir"),
        ("report -o x.pdf", ["report", "s.toml", "-o", "x.pdf"], "x.pdf"),
        ("report -o afile/x.html", ["report", "s.toml", "-o", "afile/x.html"], "afile"),
        ("report --example [/x]", ["report", "--example", "[/x]", "-o", "r.html"], "[/x]"),
        ("report --name [/x]", ["report", "good", "--name", "[/x]", "-o", "r.html"], "[/x]"),
        ("report a scenario file", ["report", "m0.toml", "-o", "r.html"], "m0.toml"),
    ]
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder holding every case's files, a results store ``good`` with
    one run of ``s.toml`` and its damaged copy ``damaged``."""
    import shutil

    folder = tmp_path_factory.mktemp("hostile")
    _write_cases(folder)
    (folder / "emptydir").mkdir()
    bufsim.sweep(
        folder / "s.toml",
        {"link.buffer": ["20pkt"]},
        store=folder / "good",
        workers=0,
        progress=False,
    )
    shutil.copytree(folder / "good", folder / "damaged")
    db = folder / "damaged" / "store.sqlite"
    db.write_bytes(b"this is not an SQLite database" * 100)
    return folder


def invoke(folder: Path, args: list[str], monkeypatch) -> Any:
    """Run ``bufsim ARGS`` in ``folder``, in this process."""
    monkeypatch.chdir(folder)
    monkeypatch.setenv("COLUMNS", "80")
    return CliRunner().invoke(cli.app, args)


def assert_refused(result: Any, needle: str) -> str:
    """``result`` ended in one ``error:`` line naming ``needle``, exit
    status 2, no traceback; returns that line."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(result.exception))
        raise AssertionError(f"traceback:\n{tb}")
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, (result.exit_code, result.stdout, result.stderr)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert needle in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("args, needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input_ends_in_one_error_line(folder, monkeypatch, args, needle):
    line = assert_refused(invoke(folder, args, monkeypatch), needle)
    # Numbers in errors read as numbers: no 20-digit integers.
    assert not any(len(w) > 15 and w.isdigit() for w in line.replace(",", " ").split()), line


def test_the_probe_covers_many_kinds_of_input():
    # At least 185 inputs, of every kind above.
    assert len(CASES) >= 185, len(CASES)


# ----------------------------------------------------------------------------- single cases


def _scenario(folder: Path, raw: dict[str, Any], name: str = "x.toml") -> str:
    (folder / name).write_text(tomli_w.dumps(raw))
    return name


def test_a_name_with_markup_is_valid_and_prints_literally(tmp_path, monkeypatch):
    name = _scenario(tmp_path, {**TINY, "name": "[/red]x [bold]y"})
    r = invoke(tmp_path, ["validate", name], monkeypatch)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("valid. [/red]x [bold]y: 200 ms simulated"), r.stdout


def test_the_cores_messages_keep_their_brackets(tmp_path, monkeypatch):
    # The core says "not with a [pool] or a chain (links)"; Rich markup would eat "[pool]".
    raw = copy.deepcopy(POOL)
    raw["reverse"] = {"buffer": "100pkt", "flows": [{"count": 1, "rtt": "100us"}]}
    name = _scenario(tmp_path, raw)
    line = assert_refused(invoke(tmp_path, ["validate", name], monkeypatch), "reverse")
    assert "not with a [pool] or a chain (links)" in line, line


def test_a_pool_with_a_one_element_links_validates_and_is_advised(tmp_path, monkeypatch):
    # The core reads a one-element [[links]] as [link]; validate and advise
    # must too, as run does.
    name = _scenario(tmp_path, POOL)
    r = invoke(tmp_path, ["validate", name], monkeypatch)
    assert r.exit_code == 0, (r.output, r.exception)
    out = " ".join(r.stdout.split())
    assert "advise for utilization>=0.98: about" in out, out
    from bufsim.advise.driver import _shared_form

    scn, notes = _shared_form(bufsim.Scenario.load(tmp_path / name))
    assert "buffer" not in scn.raw["links"][0]
    assert any("links[0].buffer (100pkt" in n for n in notes), notes


def test_validate_says_which_engines_run_here_and_prices_only_those(tmp_path, monkeypatch):
    # The fluid engine refuses a pool and ns-3 builds no pool: neither is
    # priced, and the advise search counts no fluid runs.
    name = _scenario(tmp_path, POOL)
    r = invoke(tmp_path, ["validate", name], monkeypatch)
    out = " ".join(r.stdout.split())
    assert "packet engine: can run it here: about" in out, out
    assert "fluid engine: cannot run it: pool" in out, out
    assert "ns3 engine: cannot run it: pool" in out, out
    assert out.count("fluid runs") == 2 and out.count("and no fluid runs") == 2, out
    assert "e+" not in out, out


def test_validate_prices_the_fluid_scan_of_the_fluid_form(tmp_path, monkeypatch):
    # Linux's stack has HyStart++, which the fluid engine refuses; advise's
    # fluid scan runs the scenario's fluid form (HyStart++ off) instead, and
    # validate says so beside the count.
    raw = {**TINY, "flows": [{"count": 1, "rtt": "40ms", "mss": "1000B", "stack": "linux"}]}
    r = invoke(tmp_path, ["validate", _scenario(tmp_path, raw)], monkeypatch)
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    assert "fluid engine: cannot run it: flows[0].hystart: true" in out, out
    from bufsim.advise import cost

    runs = cost(tmp_path / "x.toml")["fluid_runs"]
    assert runs > 0
    assert f"and {runs} fluid runs (of its fluid form: flows[0].hystart off" in out, out


def _no_ns3(monkeypatch) -> None:
    """ns-3's development files missing, as pkg-config reports it."""
    from bufsim import ns3

    def version() -> str:
        raise bufsim.EngineError(ns3.INSTALL_HINT)

    monkeypatch.setattr(ns3, "version", version)
    monkeypatch.setattr(ns3, "available", lambda: False)


def test_run_on_ns3_without_ns3_is_one_error_line(tmp_path, monkeypatch):
    _no_ns3(monkeypatch)
    raw = {**TINY, "flows": [{"count": 1, "rtt": "40ms", "mss": "1000B", "stack": "ns3"}]}
    name = _scenario(tmp_path, raw)
    r = invoke(tmp_path, ["run", name, "--engine", "ns3", *RUN], monkeypatch)
    line = assert_refused(r, "--engine ns3")
    assert "apt-get install libns3-dev" in line, line
    assert not (tmp_path / "out").exists()


def test_validate_without_ns3_says_it_cannot_run_here(tmp_path, monkeypatch):
    _no_ns3(monkeypatch)
    raw = {**TINY, "flows": [{"count": 1, "rtt": "40ms", "mss": "1000B", "stack": "ns3"}]}
    r = invoke(tmp_path, ["validate", _scenario(tmp_path, raw)], monkeypatch)
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    assert "ns3 engine: cannot run here: the ns3 engine needs ns-3's development files" in out
    assert "packet engine: can run it here" in out, out


def test_validate_objective_refuses_what_advise_refuses(tmp_path, monkeypatch):
    # TINY has long-lived flows only: no completion time to judge.
    name = _scenario(tmp_path, TINY)
    advise = assert_refused(
        invoke(tmp_path, ["advise", name, "-O", "fct_p99_small<=1s", "--quick"], monkeypatch),
        "fct_p99_small",
    )
    validate = assert_refused(
        invoke(tmp_path, ["validate", name, "-O", "fct_p99_small<=1s"], monkeypatch),
        "fct_p99_small",
    )
    assert validate == advise
    # Without -O the default objective's refusal is a line of the output, not an error.
    r = invoke(tmp_path, ["validate", name], monkeypatch)
    assert r.exit_code == 0, r.output


def test_sweep_dry_run_says_what_its_engine_cannot_run(tmp_path, monkeypatch):
    _scenario(tmp_path, POOL, "pool.toml")
    (tmp_path / "spec.toml").write_text(
        'base = "pool.toml"\nengines = ["ns3", "packet"]\n[grid]\n"pool.alpha" = [0.5, 1.0]\n'
    )
    r = invoke(tmp_path, ["sweep", "spec.toml", "--dry-run", "--store", "st"], monkeypatch)
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    assert out.startswith("4 points (0 already in st, 2 to run, 2 that their engine cannot run)"), (
        out
    )
    assert "2 on the ns3 engine: cannot run it: pool" in out, out
    assert not (tmp_path / "st").exists()


def test_numbers_in_errors_are_readable(tmp_path, monkeypatch):
    cases = [
        (
            {**TINY, "link": {**TINY["link"], "buffer": "1e30pkt"}},
            "1 x 10^30 packets, out of range",
        ),
        (edit(POOL, "pool.alpha", 1e300), "at most 1000000, got 1 x 10^300"),
        ({**TINY, "seed": 1e20}, "seed: must be a whole number"),
    ]
    for raw, needle in cases:
        line = assert_refused(
            invoke(tmp_path, ["validate", _scenario(tmp_path, raw)], monkeypatch), needle
        )
        assert "18446744073709551615" not in line and "floating point" not in line, line
