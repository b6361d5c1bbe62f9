"""The README's Python examples run as written (STYLE: examples are tests).

Every ```python block of README.md is executed in order in one namespace,
from a scratch directory; a block followed
directly by a plain ``` block must print exactly that block.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import markdown_blocks, run_python_block

ROOT = Path(__file__).parents[1]


def blocks() -> list[tuple[str, str | None]]:
    """(python code, expected output or None) for each python block."""
    return [(c, e) for lang, _, c, e in markdown_blocks(ROOT / "README.md") if lang == "python"]


def test_readme_has_python_examples():
    assert len(blocks()) >= 3


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    for code, expected in blocks():
        run_python_block(code, expected, namespace, "README.md")


def test_readme_scenario_example_is_valid():
    import tomllib

    import bufsim

    readme = ROOT / "README.md"
    toml_blocks = [code for lang, _, code, _ in markdown_blocks(readme) if lang == "toml"]
    scenario = next(b for b in toml_blocks if "[link]" in b)
    s = bufsim.Scenario.load(tomllib.loads(scenario))
    assert s.normalized["link"]["buffer_pkts"] == 20


def test_readme_sweep_block_runs_saved_as_a_script(tmp_path):
    # Saved as a file and run with python, the sweep's worker processes
    # import it again: without the main guard the README shows, that fails.
    code, expected = next((c, e) for c, e in blocks() if "bufsim.sweep(" in c)
    assert 'if __name__ == "__main__":' in code
    (tmp_path / "sweep_example.py").write_text(code)
    p = subprocess.run(
        [sys.executable, "sweep_example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == expected, p.stdout
