"""The README's Python examples run as written (STYLE: examples are tests).

Every ```python block of README.md is executed in order in one namespace,
from a scratch directory; a block followed
directly by a plain ``` block must print exactly that block.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def blocks() -> list[tuple[str, str | None]]:
    """(python code, expected output or None) for each python block."""
    text = (ROOT / "README.md").read_text()
    found = list(re.finditer(r"^```(\w*)\n(.*?)^```$", text, flags=re.S | re.M))
    out = []
    for k, block in enumerate(found):
        if block.group(1) == "python":
            nxt = found[k + 1] if k + 1 < len(found) else None
            adjacent = (
                nxt is not None
                and nxt.group(1) == ""
                and not text[block.end() : nxt.start()].strip()
            )
            out.append((block.group(2), nxt.group(2) if adjacent else None))
    return out


def test_readme_has_python_examples():
    assert len(blocks()) >= 3


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    for code, expected in blocks():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), namespace)
        if expected is not None:
            assert buf.getvalue() == expected, code


def test_readme_scenario_example_is_valid():
    import tomllib

    import bufsim

    text = (ROOT / "README.md").read_text()
    toml_blocks = re.findall(r"^```toml\n(.*?)^```$", text, flags=re.S | re.M)
    scenario = next(b for b in toml_blocks if "[link]" in b)
    s = bufsim.Scenario.load(tomllib.loads(scenario))
    assert s.normalized["link"]["buffer_pkts"] == 20


def test_readme_traffic_example_is_valid():
    import tomllib

    import bufsim

    text = (ROOT / "README.md").read_text()
    toml_blocks = re.findall(r"^```toml\n(.*?)^```$", text, flags=re.S | re.M)
    traffic = next(b for b in toml_blocks if "arrival = { load = 0.95 }" in b)
    # The traffic example shows [[flows]] groups only: give it a link.
    raw = tomllib.loads('duration = "10s"\n' + traffic)
    raw["link"] = {"capacity": "50Mbps", "delay": "10ms", "buffer": "100pkt"}
    s = bufsim.Scenario.load(raw)
    assert [g["kind"] for g in s.normalized["flows"]] == ["open", "closed", "open"]
    assert s.normalized["flows"][1]["users"] == 800


def test_readme_console_sessions_run(tmp_path):
    """Every ``$ bufsim ...`` line of the README's console blocks runs, in
    order, from a scratch directory, with the installed ``bufsim`` script."""
    import shlex
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text()
    commands = [
        line[2:]
        for block in re.findall(r"^```console\n(.*?)^```$", text, flags=re.S | re.M)
        for line in block.splitlines()
        if line.startswith("$ ")
    ]
    assert len(commands) >= 5
    script = Path(sys.executable).parent / "bufsim"
    for command in commands:
        args = shlex.split(command)
        assert args[0] == "bufsim", command
        p = subprocess.run(
            [str(script), *args[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
        assert p.returncode == 0, (command, p.stderr)


def test_readme_tables_list_every_registered_variant_and_discipline():
    # The variants and disciplines tables have a row for every entry of the
    # core's registries (a variant's with its aliases): a variant or a
    # discipline is not registered without its documentation.
    from bufsim.scenario import DISCIPLINES, VARIANTS

    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| (`[a-z_0-9]+`(?:, `[a-z_0-9]+`)*) \|", text, flags=re.M)
    documented = {tuple(re.findall(r"`([a-z_0-9]+)`", r)) for r in rows}
    missing = [
        (v["name"], *v["aliases"])
        for v in VARIANTS.values()
        if (v["name"], *v["aliases"]) not in documented
    ] + [(d,) for d in DISCIPLINES if (d,) not in documented]
    assert missing == []
