"""The pages a reader can scan: no wall of text in docs/, the
README or the changelog, and every run time the docs quote is the one
measured (docs/timings.json).

What counts as a paragraph: a block of consecutive non-blank lines that is
prose. Not prose, so not counted: fenced code (``` or ~~~, to its closing
fence), tables (a line starting with ``|``), list items (``-``, ``*``,
``+`` or ``1.`` and the lines indented under them, counted apart from
the prose before them), headings (``#``), admonition markers
(``!!!``/``???`` lines; their indented body is prose and counted), HTML
lines (starting with ``<``), snippet includes (``--8<--``) and images.
A list is held to the same limit: items with a blank line between them
(a loose list, each item its own paragraph) are counted one by one,
items with none (a tight list, which renders as one block of text) are
counted together, so a list cannot hide a wall either. The changelog's
entries are counted one by one: its format is a tight list, and each
entry is held to three lines (:func:`test_each_changelog_entry_is_three_lines_with_a_link`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"

#: The most words a paragraph may hold.
MOST_WORDS = 150
#: The longest line outside tables and code, in characters: prose is
#: wrapped; a reason or a cell of thousands of characters is a wall.
LONGEST_LINE = 400


def scanned() -> list[Path]:
    """The pages held to the limits: every written docs page, the README
    and the changelog."""
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]


ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
NOT_PROSE = re.compile(r"^\s*(?:#|\||!!!|\?\?\?|<|--8<--|!\[)")


def paragraphs(text: str, tight: bool = True) -> list[tuple[int, str]]:
    """The prose paragraphs of a Markdown page: (first line number, text),
    by the rule in this module's docstring (``tight``: a tight list's
    items counted together; else each apart)."""
    out: list[tuple[int, str]] = []
    block: list[str] = []
    start = 0
    fence = ""
    # Whether the open block is a list's (items of a tight list join it).
    listed = False

    def close() -> None:
        if block:
            out.append((start, " ".join(block)))
            block.clear()

    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
            continue
        if stripped.startswith(("```", "~~~")):
            close()
            fence = stripped[:3]
            continue
        if not stripped or NOT_PROSE.match(line):
            close()
            continue
        if ITEM.match(line) and not (block and listed and tight):
            close()
        if not block:
            start = n
            listed = bool(ITEM.match(line))
        block.append(stripped)
    close()
    return out


def long_lines(text: str) -> list[tuple[int, int]]:
    """(line number, length) of the lines over :data:`LONGEST_LINE`
    characters outside code fences and tables."""
    out, fence = [], ""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif not stripped.startswith("|") and len(line) > LONGEST_LINE:
            out.append((n, len(line)))
    return out


def test_the_paragraph_rule_counts_prose_only():
    page = (
        "# A heading of many words\n\nOne two three.\nFour five.\n\n"
        "```python\nx = 1\n```\n\n| a | b |\n|---|---|\n\n- an item\n  its second line\n"
        "\n- another\n\n!!! note\n    Six seven.\n\nA lead:\n- tight\n- list\n"
    )
    # A loose list's items count apart; a tight list's together, apart
    # from the prose that leads it.
    assert paragraphs(page) == [
        (3, "One two three. Four five."),
        (13, "- an item its second line"),
        (16, "- another"),
        (19, "Six seven."),
        (21, "A lead:"),
        (22, "- tight - list"),
    ]
    assert paragraphs(page, tight=False)[-2:] == [(22, "- tight"), (23, "- list")]


@pytest.mark.parametrize("page", scanned(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_paragraph_is_a_wall(page):
    text = page.read_text()
    found = paragraphs(text, tight=page.name != "CHANGELOG.md")
    walls = [(n, len(p.split()), p[:60]) for n, p in found if len(p.split()) > MOST_WORDS]
    assert walls == [], f"paragraphs over {MOST_WORDS} words (line, words, start)"
    assert long_lines(text) == [], f"lines over {LONGEST_LINE} characters (line, length)"


def test_the_stack_profile_table_is_one_line_a_cell_with_a_section_per_field():
    # The table (generated when the site is built, mkdocs_hooks.INSERTED)
    # holds each profile's value from the core and where it comes from; the
    # explanation is the field's section below it on the Engines page. A
    # field the core adds needs both (reference.STACK_SOURCES, a section).
    from bufsim import reference
    from bufsim.scenario import STACK_FIELDS

    table = reference.stack_table().splitlines()
    fields = [f for f, _, _ in STACK_FIELDS]
    assert len(table) == 2 + len(fields) and len(fields) >= 26  # measured: 26 fields
    cells = [c.strip() for row in table for c in row.strip("|").split(" | ")]
    assert max(len(c) for c in cells) <= 80, max(cells, key=len)
    assert sorted(reference.STACK_SOURCES) == sorted(fields)
    page = (DOCS / "engines.md").read_text()
    assert "<!-- generated: stack_table -->" in page
    assert [f for f in fields if f"\n#### `{f}`\n" not in page] == []
    # The values are the core's: the Linux row of the initial window.
    assert "| [`initial_window`](#initial_window) | `1` " in table[2]
    assert "`10` (`TCP_INIT_CWND`)" in table[2]


def test_each_changelog_entry_is_three_lines_with_a_link():
    # The details and the measurements live in the docs page each entry
    # links (and the commit it names): an entry says what changed.
    text = (ROOT / "CHANGELOG.md").read_text()
    entries = re.findall(r"^- .*(?:\n  .*)*", text, re.M)
    assert len(entries) >= 140  # measured: 140 entries
    assert [e[:60] for e in entries if len(e.splitlines()) > 3] == []
    links = [re.search(r"\]\(docs/([\w/-]+\.md)\)", e) for e in entries]
    assert [e[:60] for e, m in zip(entries, links, strict=True) if not m] == []
    assert all((DOCS / m.group(1)).exists() for m in links if m)
    # The unreleased changes name their commit.
    unreleased = text.split("\n## [Unreleased]\n", 1)[1].split("\n## [", 1)[0]
    for e in re.findall(r"^- .*(?:\n  .*)*", unreleased, re.M):
        assert re.search(r";\s+`[0-9a-f]{7}`\)$", e), e[:60]


#: A run time a page quotes: "about 15 CPU s", "about 2 CPU minutes",
#: "about a minute", then the entry of docs/timings.json it comes from as
#: an HTML comment, ``<!-- time: KEY -->`` (hidden on the site and GitHub).
QUOTE = re.compile(
    r"about (a|\d+(?:\.\d+)?) (CPU )?(s|seconds?|min|minutes?)\b(?:<!-- time: ([\w-]+) -->)?"
)
#: How far a quote may be from the measured time, relative: a quote is
#: rounded ("about 100 CPU s" for 93.4), and CPU time moves between runs.
QUOTE_TOLERANCE = 0.25


def test_every_run_time_the_docs_quote_is_the_measured_one():
    # bench/timings.py runs each command the docs time and writes
    # docs/timings.json: its CPU seconds (what a quote with "CPU" gives:
    # the machine's load does not move it) and wall seconds.
    timings = json.loads((DOCS / "timings.json").read_text())
    quotes = []
    for page in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        for m in QUOTE.finditer(page.read_text()):
            n, cpu, unit, key = m.groups()
            quoted = (60.0 if n == "a" else float(n)) * (60 if unit.startswith("min") else 1)
            name = f"{page.name}: {m.group(0)}"
            assert key in timings, f"{name}: no <!-- time: KEY --> of docs/timings.json"
            measured = timings[key]["cpu_s" if cpu else "wall_s"]
            assert abs(quoted - measured) <= QUOTE_TOLERANCE * measured, (name, measured)
            quotes.append(key)
    assert len(quotes) >= 8  # measured: 8 quotes
