"""Figures (bufsim.plot), the HTML report (bufsim.report, `bufsim report`)
and the report opened in headless Chromium."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import bufsim
import pandas as pd
import pytest
from bufsim import plot, report
from conftest import render_in_chromium
from matplotlib.figure import Figure

SMALL = {
    "name": "report-small",
    "duration": "20s",
    "warmup": "2s",
    "link": {"capacity": "10Mbps", "delay": "20ms", "buffer": "30pkt"},
    "flows": [{"count": 3, "rtt": {"min": "50ms", "max": "90ms"}, "mss": "1000B"}],
    "output": {"interval": "100ms", "cwnd": True},
}


@pytest.fixture(scope="module")
def result():
    return bufsim.simulate(SMALL)


@pytest.fixture(scope="module")
def table():
    return bufsim.sweep(
        SMALL,
        grid={"link.buffer": ["10pkt", "0.5BDP", "1BDP"]},
        engines=["packet", "fluid", "model:avrachenkov"],
        seeds=[1, 2],
        store=None,
        workers=0,
        progress=False,
    )


def test_sweep_rows_carry_the_buffer_as_numbers(table):
    # Every engine, every row: packets and bytes (1000 B packets), no parsing of "0.5BDP".
    assert table["buffer_pkts"].notna().all() and table["buffer_bytes"].notna().all()
    bdp = bufsim.Scenario.load(SMALL).normalized["link"]["bdp_pkts"]
    by = table.groupby("link.buffer")["buffer_pkts"].unique()
    assert list(by["10pkt"]) == [10.0]
    assert by["1BDP"][0] == pytest.approx(bdp, abs=1)
    assert (table["buffer_bytes"] == table["buffer_pkts"] * 1000).all()


def test_curve_errors_and_confidence_band_by_hand():
    t = pd.DataFrame(
        {
            "engine": ["packet"] * 6 + ["fluid"] * 2,
            "buffer_pkts": [10, 10, 10, 20, 20, 20, 10, 20],
            "utilization": [0.7, 0.8, 0.9, 0.85, 0.9, 0.95, 0.9, 0.8],
        }
    )
    # Packet means 0.8 and 0.9; fluid 0.9 and 0.8: differences +0.1 and -0.1.
    e = plot.curve_errors(t, "utilization")
    assert e.loc["fluid", "points"] == 2
    assert e.loc["fluid", "rms"] == pytest.approx(0.1)
    assert e.loc["fluid", "max_abs"] == pytest.approx(0.1)
    # 95% t-interval of (0.7, 0.8, 0.9) on the logit scale (utilization
    # stays in [0, 1]; the plain interval 0.8 +- 0.2484 would reach 1.048):
    # logits 0.847, 1.386, 2.197, mean 1.477, sd 0.680, half-width
    # t(0.975, 2) * 0.680 / sqrt(3) = 1.689; back: 0.448 to 0.959.
    c = plot._curves(t, "utilization", "buffer_pkts", 0.95)
    row = c[(c.engine == "packet") & (c.x == 10)].iloc[0]
    z = [math.log(u / (1 - u)) for u in (0.7, 0.8, 0.9)]
    mz = sum(z) / 3
    sd = math.sqrt(sum((v - mz) ** 2 for v in z) / 2)
    half = 4.302653 * sd / math.sqrt(3)
    assert row["hi"] == pytest.approx(1 / (1 + math.exp(-(mz + half))), rel=1e-5)
    assert row["lo"] == pytest.approx(1 / (1 + math.exp(-(mz - half))), rel=1e-5)
    assert row["mean"] == pytest.approx(0.8) and 0 < row["lo"] < row["mean"] < row["hi"] < 1
    fig = plot.buffer_curves(t, "utilization", rules={"BDP": 15}, bound=0.85)
    assert isinstance(fig, Figure)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("RMS 0.1" in s and "max 0.1" in s for s in labels), labels


def test_buffer_curves_from_a_sweep(table):
    fig = table.pipe(plot.buffer_curves, "utilization", rules={"BDP": 50})
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert len(ax.get_lines()) >= 3  # packet, fluid, the model (+ rule line)
    with pytest.raises(ValueError, match="metric 'nope'"):
        plot.buffer_curves(table, "nope")
    with pytest.raises(ValueError, match="buffer_pkts and buffer_bytes"):
        plot.buffer_curves(table.drop(columns=["buffer_pkts"]), "utilization")


def test_result_figures_and_notebook_view(result):
    for kind in ("timeseries", "scatter"):
        assert isinstance(result.plot(kind), Figure)
    ts = result.plot()
    assert len(ts.axes) == 4  # queue, utilization, cwnd, drops
    with pytest.raises(ValueError, match="kind must be one of"):
        result.plot("pie")
    html = result._repr_html_()
    assert "<svg" in html and "utilization" in html


def test_flow_cdfs_of_finite_flows():
    s = dict(
        SMALL, flows=[{"rtt": "60ms", "size": {"exponential": "30pkt"}, "arrival": {"load": 0.5}}]
    )
    r = bufsim.simulate(s)
    fig = plot.flow_cdfs({"B=30": r})
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(s.startswith("B=30 small") for s in labels), labels
    # One class per panel (paper 002's figures 2-7), into given axes, from a
    # flows table with a throughput in bytes/s.
    f = r.flows.assign(throughput_Bps=r.flows["throughput_bps"] / 8)
    fig2, (top, bottom) = plot._figure(nrows=2)
    assert plot.flow_cdfs({"B=30": f}, "throughput_Bps", classes=["large"], ax=top) is fig2
    plot.flow_cdfs({"B=30": f}, "throughput_Bps", classes=["small"], ax=bottom)
    for ax, cls in ((top, "large"), (bottom, "small")):
        (line,) = ax.get_lines()
        assert line.get_label().startswith(f"B=30 {cls}")
        n = int((bufsim.flows.classify(r)["class"] == cls).sum())
        assert f"({n} flows)" in line.get_label()
        # bytes/s: the largest x is the fastest flow's bits/s over 8.
        fastest = bufsim.flows.classify(r).query("`class` == @cls")["throughput_bps"].max()
        assert line.get_xdata().max() == pytest.approx(fastest / 8)


def write_reports(tmp: Path, result, table) -> dict[str, Path]:
    paths = {"result": tmp / "result.html", "sweep": tmp / "sweep.html"}
    paths["result"].write_text(report.result_report(result))
    paths["sweep"].write_text(report.sweep_report(table, rules={"BDP": 50}))
    return paths


def test_reports_are_self_contained(tmp_path, result, table):
    paths = write_reports(tmp_path, result, table)
    for name, path in paths.items():
        page = path.read_text()
        assert "default-src 'none'" in page
        # Nothing that would load: no script, no stylesheet link, no external src/href.
        assert "<script" not in page and "<link" not in page
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page), name
        assert page.count("<svg") >= 1
    assert 'id="fig-timeseries"' in paths["result"].read_text()
    assert 'id="fig-utilization"' in paths["sweep"].read_text()


def test_cli_report_from_a_result_directory_and_bad_sources(tmp_path, result):
    result.save(tmp_path / "run")
    out = tmp_path / "r.html"
    cmd = [sys.executable, "-m", "bufsim.cli"]
    ok = subprocess.run(
        [*cmd, "report", str(tmp_path / "run"), "-o", str(out)], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    assert "fig-timeseries" in out.read_text()
    bad = subprocess.run(
        [*cmd, "report", str(tmp_path / "nothing"), "-o", str(out)], capture_output=True, text=True
    )
    said = " ".join(bad.stderr.split())  # the console wraps long lines
    assert bad.returncode == 2 and "is not a result directory" in said and "Traceback" not in said
    ext = subprocess.run(
        [*cmd, "report", str(tmp_path / "run"), "-o", str(tmp_path / "r.pdf")],
        capture_output=True,
        text=True,
    )
    assert ext.returncode == 2 and "use a .html or .htm file name" in " ".join(ext.stderr.split())


def test_reproduction_report_has_claims_with_verdicts():
    page = report.reproduction_report("auge2006", table=_auge_table())
    assert "The paper&#39;s claims" in page or "The paper's claims" in page
    assert 'class="text agrees"' in page


def _auge_table() -> pd.DataFrame:
    from bufsim.reproduce import auge2006

    return auge2006.run(quick=True)


def test_report_in_headless_chromium(tmp_path, result, table):
    open_in_chromium(tmp_path, write_reports(tmp_path, result, table))


def test_reproduction_report_in_headless_chromium(tmp_path, avrachenkov_quick_table):
    # Paper 003's reproduction report (claims table and three figures), the
    # quick table shared with tests/test_reproduce_papers.py.
    page = tmp_path / "avrachenkov2006.html"
    page.write_text(report.reproduction_report("avrachenkov2006", table=avrachenkov_quick_table))
    text = page.read_text()
    assert "default-src 'none'" in text and "<script" not in text and "<link" not in text
    assert text.count('<div class="figure"') == 3
    open_in_chromium(tmp_path, {"avrachenkov2006": page})


def open_in_chromium(tmp_path: Path, paths: dict[str, Path]) -> None:
    """Open each page in headless Chromium: not blank, every figure in the
    DOM, no request made by the page."""
    for name, page in paths.items():
        render_in_chromium(page, tmp_path, name)
