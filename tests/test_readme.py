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
