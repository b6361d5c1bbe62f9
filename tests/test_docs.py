"""The docs site builds offline with ``mkdocs build --strict``, and every
code block of its pages runs (STYLE: examples are tests).

Each page's blocks run in order, in a scratch folder and a Python
namespace of the page's own: a ```toml block with a ``title`` is written
to that file; a ```python block is executed, and a plain ``` block right
after it must be exactly what it prints; each ``$ bufsim ...`` line of a
```console block runs as a command and must succeed. ```sh blocks are
synopses and the install (``make``), not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHROMIUM_FLAGS, chromium, markdown_blocks, run_python_block

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"


def nav() -> list[str]:
    """The pages of mkdocs.yml's nav, in its order."""
    return re.findall(r"^ +- [^:]+: (\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), flags=re.M)


def pages() -> list[Path]:
    """The written pages (not those mkdocs_hooks.py generates), in the nav's order."""
    return [DOCS / p for p in nav() if (DOCS / p).exists()]


def test_every_page_is_in_the_nav_and_has_runnable_blocks():
    listed = {str(p.relative_to(DOCS)) for p in pages()}
    assert listed == {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    # The others are generated from the code (mkdocs_hooks.py).
    assert set(nav()) - listed == {"scenario-reference.md", "reproduction-figures.md"}
    langs = [lang for lang, *_ in markdown_blocks(DOCS / "getting-started.md")]
    assert {"toml", "console", "python"} <= set(langs)


def test_the_site_builds_offline_and_strict(tmp_path, quick_store):
    # The reproduction figures come from the quick runs the reproduction
    # tests share (conftest.quick_store): whichever runs first pays.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "BUFSIM_DOCS_STORE": str(quick_store)}
    mkdocs = Path(sys.executable).with_name("mkdocs")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    site = tmp_path / "site"
    for p in nav():
        html = (site / Path(p).with_suffix(".html")).read_text()
        # No web fonts or scripts from a CDN: the pages read offline.
        assert "fonts.googleapis" not in html and "cdn.jsdelivr" not in html, p.name
    api = (site / "reference.html").read_text()
    assert "bufsim.simulate" in api and "Simulate a scenario." in api
    # Sphinx roles in the docstrings read as code (mkdocs_hooks.SphinxRoles).
    assert ":func:" not in api and "<code>bufsim.models.predict</code>" in api
    changelog = (site / "changelog.html").read_text()
    assert "output.stop" in changelog
    # CHANGELOG.md's links to docs/PAGE.md are the site's (mkdocs_hooks).
    assert 'href="advise.html"' in changelog and 'href="docs/' not in changelog
    # The stack-profile table, generated from the core, links each field
    # to its section.
    engines = (site / "engines.html").read_text()
    assert '<a href="#initial_window"><code>initial_window</code></a>' in engines
    assert 'id="initial_window"' in engines and "generated: stack_table" not in engines
    assert (site / "search" / "search_index.js").exists()
    # The scenario reference, generated from the schema.
    ref = (site / "scenario-reference.html").read_text()
    assert "<code>cut_from</code>" in ref and "allowed are droptail, red" in ref
    # Every reproduction's figures, drawn from its quick run, with captions.
    from bufsim import reproduce

    figs = (site / "reproduction-figures.html").read_text()
    for name in reproduce.PAPERS:
        assert f'src="figures/{name}-' in figs, name
    drawn = sorted((site / "figures").glob("*.png"))
    assert len(drawn) == figs.count('src="figures/') >= 5 * 3
    assert figs.count("Quick run's verdicts: ") == len(reproduce.PAPERS)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in drawn)
    # Opened from file:// in headless Chromium (no network): the page
    # renders, not blank, with its navigation and code blocks.
    from matplotlib.image import imread

    page = (site / "getting-started.html").as_uri()
    base = [*chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "getting-started.png"
    run = subprocess.run(
        [*base, f"--screenshot={shot}", "--window-size=1100,1400", page],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    img = imread(shot)[..., :3]
    assert img.std() > 0.05 and (img.mean(axis=2) < 0.6).mean() > 0.01
    dom = subprocess.run(
        [*base, "--dump-dom", page], capture_output=True, text=True, timeout=120
    ).stdout
    assert "A first advice" in dom and "md-nav" in dom and 'class="highlight"' in dom


def test_the_scenario_reference_describes_every_field_the_schema_accepts():
    from bufsim import reference

    accepted = [p for t in reference.TABLES for p in reference.fields(t)]
    assert len(accepted) >= 74  # measured: 74 fields in 8 tables
    assert [p for p in accepted if not reference.DESCRIPTIONS.get(p)] == []
    # Nor describes a field the schema does not accept.
    assert set(reference.DESCRIPTIONS) == set(accepted)
    # The tables' fields, and a wrong value's error from the core.
    assert "flows[].rtt" in accepted and "output.stop.confidence" in accepted
    assert "allowed are newreno, reno" in reference.bad_value_error("flows[].tcp")
    assert reference.bad_value_error("link") == "a table"
    assert reference.params("qdisc", "codel") == ["target", "interval"]
    assert reference.params("tcp", "newreno") == []


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(DOCS).with_suffix("")))
def test_docs_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bufsim_cli = Path(sys.executable).with_name("bufsim")
    namespace: dict = {"__name__": "docs"}
    for lang, info, code, expected in markdown_blocks(page):
        if lang == "toml":
            title = re.search(r'title="([^"]+)"', info)
            if title:
                (tmp_path / title.group(1)).write_text(code)
        elif lang == "python":
            run_python_block(code, expected, namespace, page.name)
        elif lang == "console":
            for line in code.splitlines():
                if not line.startswith("$ "):
                    continue
                args = shlex.split(line[2:])
                assert args[0] == "bufsim", line
                done = subprocess.run(
                    [str(bufsim_cli), *args[1:]], capture_output=True, text=True, timeout=600
                )
                assert done.returncode == 0, (line, done.stderr[-2000:])


def test_the_traffic_example_is_valid():
    import tomllib

    import bufsim

    page = DOCS / "scenarios.md"
    toml_blocks = [code for lang, _, code, _ in markdown_blocks(page) if lang == "toml"]
    traffic = next(b for b in toml_blocks if "arrival = { load = 0.95 }" in b)
    # The traffic example shows [[flows]] groups only: give it a link.
    raw = tomllib.loads('duration = "10s"\n' + traffic)
    raw["link"] = {"capacity": "50Mbps", "delay": "10ms", "buffer": "100pkt"}
    s = bufsim.Scenario.load(raw)
    assert [g["kind"] for g in s.normalized["flows"]] == ["open", "closed", "open"]
    assert s.normalized["flows"][1]["users"] == 800


def test_the_engines_page_lists_every_registered_variant_and_discipline():
    # The variants and disciplines tables have a row for every entry of the
    # core's registries (a variant's with its aliases): a variant or a
    # discipline is not registered without its documentation.
    from bufsim.scenario import DISCIPLINES, VARIANTS

    text = (DOCS / "engines.md").read_text()
    rows = re.findall(r"^\| (`[a-z_0-9]+`(?:, `[a-z_0-9]+`)*) \|", text, flags=re.M)
    documented = {tuple(re.findall(r"`([a-z_0-9]+)`", r)) for r in rows}
    missing = [
        (v["name"], *v["aliases"])
        for v in VARIANTS.values()
        if (v["name"], *v["aliases"]) not in documented
    ] + [(d,) for d in DISCIPLINES if (d,) not in documented]
    assert missing == []


def test_the_pages_run_commands():
    # Enough of the pages' console sessions to be worth the name.
    sessions = [
        line
        for page in pages()
        for lang, _, code, _ in markdown_blocks(page)
        if lang == "console"
        for line in code.splitlines()
        if line.startswith("$ bufsim ")
    ]
    assert len(sessions) >= 5


def test_the_site_draws_its_figures():
    # mkdocs_hooks.figures runs each block that saves the image right after
    # it: the site shows what the code draws, not a committed file.
    import importlib.util

    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "mkdocs_hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    drawn = hooks.figures(DOCS)
    assert list(drawn) == ["buffer-curves.png"]
    assert drawn["buffer-curves.png"][:8] == b"\x89PNG\r\n\x1a\n"
