"""Every number a user reads is readable: no e-notation, and a unit where
the number's name implies one (never ``2.172e+06 bytes``, ``7.937e+07``
packets, ``BDP 1.292e+05 pkts`` or ``Jain's index 0.8197 ± 1.2``).

What is rendered: the CLI ``run`` summary (``--all``) of every shipped
example at a short duration, the HTML report of a run, a sweep and an
advice (``quick``), and the notebook views (``_repr_html_``) of a result, a
scenario and an advice. The checks:

* e-notation: a number token such as ``2.172e+06`` or ``1e-05``
  (:data:`E_NOTATION`) anywhere in the text a reader sees: the page's text
  outside its figures, and the figures' labels (matplotlib writes each
  text of an SVG as a comment beside its glyphs).
* units: a cell of a report table whose column name implies a unit
  (:func:`bufsim.fmt.unit_of`: ``..._s``, ``..._bps``, ``..._bytes``,
  ``..._pkts``), a value row of a key/value table (the run summary: the
  row's metric name implies it), or a cost of the advice (``p99
  queueing delay`` is a time, in a row or a column) is a number followed by that unit with its
  SI prefix (:data:`WITH_UNIT`), or ``-`` where nothing was measured.
  Columns whose names imply no unit hold fractions, ratios or counts.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import bufsim
import pytest
from bufsim import fmt, report

#: A number in e-notation, as a token (not inside a hash such as ``0e4173af``).
E_NOTATION = re.compile(r"(?<![0-9A-Za-z_.])[-+]?\d+(?:\.\d+)?[eE][-+]?\d+(?![0-9A-Za-z_])")

#: A value with its unit: ``>= 1.5 kB``, ``0 s``, ``129,167 pkts``; the
#: ``{}`` takes the unit. Interval tails (``± 3 ms``, ``(0 s to 14 ms)``)
#: may follow.
WITH_UNIT = r"^(>= )?-?[\d,]+(\.\d+)?( x 10\^\d+)? [TGMkmun]?{}\b"

#: The advice's cost columns (bufsim.advise.advice.COSTS) whose values carry a unit.
COST_UNITS = {
    "mean queueing delay": "s",
    "p99 queueing delay": "s",
    "p99 FCT, small": "s",
    "p99 FCT, large": "s",
}

SHORT = {"duration": "1.2s", "warmup": "0.2s"}

TINY = {
    "name": "numbers-tiny",
    "duration": "4s",
    "warmup": "1s",
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [
        {"count": 3, "rtt": {"min": "20ms", "max": "60ms"}, "mss": "1000B"},
        {
            "size": "20pkt",
            "arrival": {"load": 0.1},
            "rtt": "40ms",
            "mss": "1000B",
        },
    ],
}


def e_notation(text: str) -> list[str]:
    """The e-notation tokens of ``text``."""
    return [m.group(0) for m in E_NOTATION.finditer(text)]


def readable_text(page: str) -> str:
    """What a reader sees of an HTML page: its text outside the figures
    (tags dropped, entities decoded) and every figure's labels (the SVG
    comments matplotlib writes beside each text's glyphs)."""
    labels = []
    for svg in re.findall(r"<svg.*?</svg>", page, flags=re.S):
        labels += re.findall(r"<!--\s*(.*?)\s*-->", svg, flags=re.S)
    rest = re.sub(r"<svg.*?</svg>", " ", page, flags=re.S)
    rest = re.sub(r"<style.*?</style>", " ", rest, flags=re.S)
    rest = re.sub(r"<[^>]+>", " ", rest)
    return html.unescape(rest) + "\n" + "\n".join(labels)


def tables(page: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each HTML table of ``page``: its header cells and its rows of cells, as text."""

    def text(cell: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()

    out = []
    for t in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        head = [text(c) for c in re.findall(r"<th[^>]*>(.*?)</th>", t, flags=re.S)]
        rows = [
            [text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, flags=re.S)]
            for r in re.findall(r"<tr>(.*?)</tr>", t, flags=re.S)
        ]
        out.append((head, [r for r in rows if r]))
    return out


def unit_of_cell(column: str, row: list[str], head: list[str]) -> str:
    """The unit a table cell must carry: its column's (by name, or an
    advice cost column's), or in a key/value table (``metric``/``field``,
    ``value``) its row key's; ``""`` for none."""
    if column in ("value", "values") and head and head[0] in ("metric", "field"):
        return fmt.unit_of(row[0].removesuffix(" (whole run)"))
    if head and head[0] == "cost" and column != "cost":
        # The advice's costs, one row per cost and a column per buffer.
        return COST_UNITS.get(row[0], "")
    return fmt.unit_of(column) or COST_UNITS.get(column, "")


def unitless(page: str) -> list[str]:
    """The cells of ``page``'s tables that should carry a unit and do not,
    as ``column: cell``."""
    bad = []
    for head, rows in tables(page):
        for row in rows:
            for column, cell in zip(head, row):
                unit = unit_of_cell(column, row, head)
                if not unit or cell in ("-", ""):
                    continue
                want = {"bytes": "B"}.get(unit, unit)
                if not re.match(WITH_UNIT.format(re.escape(want)), cell):
                    bad.append(f"{column}: {cell}")
    return bad


def assert_readable(text: str, page: str | None = None) -> None:
    found = e_notation(text)
    assert not found, f"e-notation: {found[:10]}"
    if page is not None:
        bad = unitless(page)
        assert not bad, f"numbers without their unit: {bad[:10]}"


# -- the checks themselves -------------------------------------------------


def test_the_checks_catch_unreadable_numbers():
    # Numbers as reports printed them fail; hashes and ids do not.
    assert e_notation("buffer 2.172e+06 bytes") == ["2.172e+06"]
    assert e_notation("BDP 1.292e+05 pkts, loss 1e-05") == ["1.292e+05", "1e-05"]
    assert not e_notation("scenario_hash f35987bc71c6b0e4173afa37b, id m3e8f2b1c")
    page = report.html_table(
        __import__("pandas").DataFrame({"p99_queue_delay_s": ["0.0001526"], "drops": [3]}),
        numbers=["p99_queue_delay_s"],
    )
    assert unitless(page) == ["p99_queue_delay_s: 0.0001526"]
    ok = report.html_table(__import__("pandas").DataFrame({"p99_queue_delay_s": [1.526e-4]}))
    assert unitless(ok) == []


# -- the CLI -----------------------------------------------------------------


def _short(name: str, tmp: Path) -> Path:
    """The shipped example ``name`` with a short run (:data:`SHORT`), as JSON."""
    raw = tomllib.loads(bufsim.examples.path(name).read_text())
    raw.update(SHORT)
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize("name", bufsim.examples.names())
def test_cli_run_summary_of_every_example(name, tmp_path):
    from bufsim import cli
    from typer.testing import CliRunner

    scenario = _short(name, tmp_path)
    res = CliRunner().invoke(
        cli.app,
        ["run", str(scenario), "--all", "--store", "", "--out", str(tmp_path / "out")],
        terminal_width=120,
    )
    assert res.exit_code == 0, res.output[-2000:]
    assert_readable(res.output)
    # Each summary row: the metric, its value with the unit its name implies.
    rows = re.findall(r"│ (\S+)\s+│\s+(.+?) │", res.output)
    assert len(rows) >= 10, res.output[-2000:]
    for key, cell in rows:
        unit = {"bytes": "B"}.get(fmt.unit_of(key), fmt.unit_of(key))
        if unit and cell != "-":
            assert re.match(WITH_UNIT.format(re.escape(unit)), cell), (key, cell)


# -- the reports and notebook views -------------------------------------------


@pytest.fixture(scope="module")
def run():
    raw = tomllib.loads(bufsim.examples.path("dc-incast").read_text())
    raw.update(SHORT)
    return bufsim.simulate(raw)


@pytest.fixture(scope="module")
def advice(tmp_path_factory):
    return bufsim.advise(
        TINY,
        ["utilization>=0.9", "p99_queue_delay<=20ms"],
        quick=True,
        store=tmp_path_factory.mktemp("store"),
        workers=0,
    )


def test_run_report_and_notebook_view(run):
    page = report.result_report(run)
    assert_readable(readable_text(page), page)
    view = run._repr_html_()
    assert_readable(readable_text(view), None)
    raw = tomllib.loads(bufsim.examples.path("backbone-5000").read_text())
    scenario = bufsim.Scenario.load({**raw, **SHORT})
    # BDP 129167 packets: whole, with separators, never 1.292e+05.
    assert "BDP 129,167 packets" in scenario._repr_html_()
    assert_readable(readable_text(scenario._repr_html_()))


def test_sweep_report():
    table = bufsim.sweep(
        TINY,
        grid={"link.buffer": ["5pkt", "40pkt"]},
        engines=["packet", "fluid"],
        seeds=[1, 2],
        store=None,
        workers=0,
        progress=False,
    )
    page = report.sweep_report(table, base=TINY)
    assert_readable(readable_text(page), page)


def test_advice_report_and_notebook_view(advice):
    page = advice.to_html()
    assert_readable(readable_text(page), page)
    view = advice._repr_html_()
    assert_readable(readable_text(view), view)
    # The answer leads, with its size in bytes and time at the line rate.
    answer = readable_text(page).split("The trade-off")[0]
    assert advice.feasible, advice.binding
    assert f"Answer: {advice.answer()} meets your objectives" in answer
    line_rate = fmt.metric("delay_s", advice.buffer_bytes * 8 / 10e6)
    assert f"({fmt.size(advice.buffer_bytes)}, {line_rate} at 10 Mbps)" in advice.answer()
    assert f"Cost at {fmt.number(advice.buffer_pkts)} packets (2 seeds): loss " in answer
