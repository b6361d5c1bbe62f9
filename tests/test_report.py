"""Figures (bufsim.plot), the HTML report (bufsim.report, `bufsim report`)
and the report opened in headless Chromium."""

from __future__ import annotations

import dataclasses
import html
import math
import re
import subprocess
from pathlib import Path

import bufsim
import numpy as np
import pandas as pd
import pytest
from bufsim import fmt, plot, provenance, report
from conftest import cli, render_in_chromium
from matplotlib.figure import Figure

SMALL = {
    "name": "report-small",
    "duration": "20s",
    "warmup": "2s",
    "link": {"capacity": "10Mbps", "delay": "20ms", "buffer": "30pkt"},
    "flows": [{"count": 3, "rtt": {"min": "50ms", "max": "90ms"}, "mss": "1000B"}],
    "output": {"interval": "100ms", "cwnd": True},
}


#: SMALL with the Linux stack and two fields set over it: the report must say both.
LINUX_5MS = dict(
    SMALL,
    flows=[dict(SMALL["flows"][0], stack="linux", min_rto="5ms", connection_setup=False)],
)


@pytest.fixture(scope="module")
def result():
    return bufsim.simulate(LINUX_5MS)


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
    m, lo, hi = plot._mean_ci(t["utilization"][:3], 0.95, plot.value_range("utilization"))
    z = [math.log(u / (1 - u)) for u in (0.7, 0.8, 0.9)]
    mz = sum(z) / 3
    sd = math.sqrt(sum((v - mz) ** 2 for v in z) / 2)
    half = 4.302653 * sd / math.sqrt(3)
    assert hi == pytest.approx(1 / (1 + math.exp(-(mz + half))), rel=1e-5)
    assert lo == pytest.approx(1 / (1 + math.exp(-(mz - half))), rel=1e-5)
    assert m == pytest.approx(0.8) and 0 < lo < m < hi < 1
    # Drawn, the band is cut at the seeds' extremes (0.7 and 0.9): over few
    # seeds a t-interval claims more than they show (over 2 seeds, t = 12.7,
    # a completion time's band spanned 20 decades).
    c = plot._curves(t, "utilization", "buffer_pkts", 0.95)
    row = c[(c.engine == "packet") & (c.x == 10)].iloc[0]
    assert (row["lo"], row["mean"], row["hi"]) == pytest.approx((0.7, 0.8, 0.9))
    assert row["cut"]
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
    fig2, (top, bottom) = plot.figure(nrows=2)
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
    paths["sweep"].write_text(report.sweep_report(table, rules={"BDP": 50}, base=SMALL))
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
    ok = cli("report", str(tmp_path / "run"), "-o", str(out))
    assert ok.returncode == 0, ok.stderr
    assert "fig-timeseries" in out.read_text()
    bad = cli("report", str(tmp_path / "nothing"), "-o", str(out))
    said = " ".join(bad.stderr.split())  # the console wraps long lines
    assert bad.returncode == 2 and "is not a result directory" in said and "Traceback" not in said
    ext = cli("report", str(tmp_path / "run"), "-o", str(tmp_path / "r.pdf"))
    assert ext.returncode == 2 and "use a .html or .htm file name" in " ".join(ext.stderr.split())


def cells(page: str, section: str) -> dict[str, str]:
    """The two-column table of a report section as {first cell: second}."""
    body = page.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r"<tr><td[^>]*>(.*?)</td><td[^>]*>(.*?)</td>", body)
    return {html.unescape(k): html.unescape(v) for k, v in rows}


def test_run_report_states_units_lower_bounds_scenario_and_provenance(result):
    # The brief's bare numbers (0.4, 9900000000, 0.00015) read with their
    # units; a completion time that unfinished transfers leave unknown
    # (its _censored flag is 1) reads as a lower bound, the flag not shown.
    summary = {
        **result.summary,
        "fct_p99_small_s": 0.4,
        "fct_p99_small_s_censored": 1.0,
        "fct_mean_small_s": 0.25,
        "fct_mean_small_s_censored": 0.0,
        "goodput_bps": 9.9e9,
        "p99_queue_delay_s": 0.00015,
    }
    page = report.result_report(dataclasses.replace(result, summary=summary))
    got = cells(page, "summary")
    assert got["fct_p99_small_s"] == ">= 400 ms"
    assert got["fct_mean_small_s"] == "250 ms"
    assert got["goodput_bps"] == "9.9 Gbps"
    assert got["p99_queue_delay_s"] == "150 us"
    # Counts whole, with thousands separators from 10,000 up.
    n = int(summary["packets_sent"])
    assert n > 10_000 and got["packets_sent (whole run)"] == f"{n:,}"
    assert not any(k.endswith("_censored") or k == "drops_codel" for k in got)
    # The scenario in words before its folded JSON: every field the run
    # assumed, the stack's overrides named.
    scenario = page.split('id="scenario"', 1)[1].split("</section>", 1)[0]
    lines = [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", scenario)]
    assert lines == bufsim.Scenario.load(LINUX_5MS).describe()
    assert lines[0] == "report-small: 20 s simulated (warm-up 2 s), seed 1"
    assert lines[1] == (
        "link: 10 Mbps, one-way delay 20 ms, droptail, buffer 30 packets (30 kB), "
        "BDP 87.5 packets of 1 kB at RTT 70 ms"
    )
    assert lines[2] == (
        "flows[0]: 3 long-lived flows starting at 0 s, newreno, stack linux (set over it: "
        "min RTO 5 ms, handshake off), 1 kB packets, RTT 50 ms to 90 ms"
    )
    assert "initial window 10 packets, min RTO 5 ms, handshake off, SACK on, RACK-TLP" in lines[3]
    assert "<details><summary>" in scenario and "&quot;min_rto_s&quot;: 0.005" in scenario
    prov = cells(page, "provenance")
    assert prov["bufsim version"] == bufsim.__version__
    assert prov["commit"].startswith(provenance.commit())
    assert prov["seed"] == "1" and prov["runs"] == "1" and prov["engine"] == "packet"
    assert prov["simulated"] == "20 s (the first 2 s warm-up)"
    assert prov["wall time"] == fmt.metric("wall_s", result.provenance["wall_s"])


def test_sweep_report_states_base_axes_and_provenance(table):
    page = report.sweep_report(table, base=SMALL)
    base = page.split('id="scenario"', 1)[1].split("</section>", 1)[0]
    assert html.escape(bufsim.Scenario.load(SMALL).describe()[1]) in base
    swept = cells(page, "swept")
    assert swept == {
        "link.buffer": "10pkt, 0.5BDP, 1BDP",
        "engine": "packet, fluid, model:avrachenkov",
        "seed": "1, 2",
    }
    prov = cells(page, "provenance")
    # 3 buffers x (2 packet + 2 fluid runs + 1 model run).
    assert prov["runs"] == "15 (15 ok, 0 failed, 0 reused from the store)"
    assert prov["seeds"] == "1, 2" and prov["bufsim version"] == bufsim.__version__
    assert prov["simulated"] == "12 runs of 20 s: 240 s (failed runs and models simulate nothing)"
    assert prov["wall time"] == fmt.metric("wall_s", table.attrs["sweep"]["wall_s"])
    assert prov["wall time of the runs, summed"] == fmt.metric("wall_s", table["wall_s"].sum())
    # Without a base scenario the report says it does not know it.
    assert "Not known to this report." in report.sweep_report(table)


def test_reproduction_report_says_each_run_on_stderr(monkeypatch, capsys):
    # `bufsim report <paper>` runs the reproduction when no run is stored:
    # each run it starts is said on stderr, with the time elapsed.
    from bufsim import reproduce
    from bufsim.reproduce import auge2006

    said = []

    def run(quick, progress=None):
        said.append(quick)
        if progress is not None:
            progress("running auge2006 flows=1 buffer=20pkt background=True ...")
        return pd.DataFrame({"x": [1]})

    monkeypatch.setattr(reproduce, "stored", lambda name, quick=False: None)
    monkeypatch.setattr(auge2006, "run", run)
    rep = reproduce.get("auge2006")
    table = report._reproduction_table(rep, True, progress=True)
    assert said == [True] and table.attrs["quick"] is True
    err = capsys.readouterr().err
    assert re.fullmatch(
        r"reproduce auge2006: running auge2006 flows=1 buffer=20pkt background=True \.\.\. "
        r"\(0 s elapsed\)\n",
        err,
    ), err
    report._reproduction_table(rep, False)
    assert said == [True, False] and capsys.readouterr().err == ""


def test_reproduction_report_has_claims_with_verdicts():
    page = report.reproduction_report("auge2006", table=_auge_table())
    assert "The paper&#39;s claims" in page or "The paper's claims" in page
    assert 'class="text agrees"' in page


def _auge_table() -> pd.DataFrame:
    from bufsim.reproduce import auge2006

    return auge2006.run(quick=True)


def test_report_in_headless_chromium(tmp_path, result, table):
    paths = write_reports(tmp_path, result, table)
    open_in_chromium(tmp_path, paths)
    # What the browser shows: the summary with units, the scenario in
    # words (the stack overrides of LINUX_5MS included), the JSON folded.
    dom = rendered_text(tmp_path, paths["result"])
    s = result.summary
    assert f"p99_queue_delay_s {fmt.metric('p99_queue_delay_s', s['p99_queue_delay_s'])}" in dom
    assert s["p99_queue_delay_s"] < 1 and " ms" in fmt.metric(
        "p99_queue_delay_s", s["p99_queue_delay_s"]
    )
    assert f"goodput_bps {fmt.metric('goodput_bps', s['goodput_bps'])}" in dom
    assert "stack linux (set over it: min RTO 5 ms, handshake off)" in dom
    assert "<details><summary>The normalized scenario as JSON" in dom and "<pre>" in dom
    sweep = rendered_text(tmp_path, paths["sweep"])
    assert "link.buffer 10pkt, 0.5BDP, 1BDP" in sweep and "seeds 1, 2" in sweep


#: A port with long-lived flows and short transfers, small enough for a
#: quick advice in seconds.
ADVICE = {
    "name": "report-advice",
    "duration": "4s",
    "warmup": "1s",
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [
        {"count": 3, "rtt": {"min": "20ms", "max": "60ms"}, "mss": "1000B", "stack": "linux"},
        {
            "size": "20pkt",
            "arrival": {"load": 0.1},
            "rtt": "40ms",
            "mss": "1000B",
            "stack": "linux",
        },
    ],
}


@pytest.fixture(scope="module")
def advice(tmp_path_factory):
    return bufsim.advise(
        ADVICE,
        ["utilization>=0.9", "p99_queue_delay<=20ms"],
        quick=True,
        store=tmp_path_factory.mktemp("store"),
        workers=0,
    )


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def legends_clear_of_axes(fig: Figure) -> None:
    """Every legend of ``fig`` (the axes' and the figure's) drawn outside
    every axes' data area, and every entry of it drawing something."""
    fig.canvas.draw()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    assert legends
    for leg in legends:
        box = leg.get_window_extent()
        for ax in fig.axes:
            assert not _overlaps(box, ax.get_window_extent()), (
                [t.get_text() for t in leg.get_texts()],
                box,
                ax.get_window_extent(),
            )
        assert all(h is not None for h in leg.legend_handles)


def test_figures_keep_their_legends_off_the_data(table, result, advice):
    legends_clear_of_axes(plot.buffer_curves(table, "utilization", rules={"BDP": 50}))
    legends_clear_of_axes(plot.timeseries(result))
    legends_clear_of_axes(plot.goodput_scatter(result))
    legends_clear_of_axes(advice.plot())
    fig = plot.tradeoff(advice)
    legends_clear_of_axes(fig)
    # One panel per objective, then loss, timeouts per flow per s (p99
    # queueing delay is an objective here): the costs beside the objectives.
    titles = [ax.get_title().split("\n")[0] for ax in fig.axes]
    assert titles == [
        "utilization>=0.9",
        "p99_queue_delay<=20ms",
        "cost: loss rate",
        "cost: timeouts per flow per s",
    ]
    # Every legend entry draws something: the fluid engine measures no
    # timeouts, and its curve leaves no entry where it drew nothing.
    labels = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {"packet", "where an objective holds"} <= labels
    assert any(lbl.startswith("recommended: ") for lbl in labels)
    for ax in fig.axes:
        assert all(
            np.isfinite(ln.get_ydata()).any() for ln in ax.get_lines() if ln.get_label()[0] != "_"
        )


def test_bands_stay_within_what_the_seeds_show():
    # Two seeds of a completion time 133 times apart: the 95% t-interval on
    # the log scale is the geometric mean times exp(+-12.71 x 3.46 / sqrt 2),
    # 27 decades; drawn, the band ends at the seeds and the log axis at 1.5
    # times past them.
    t = pd.DataFrame(
        {
            "engine": ["packet"] * 4,
            "buffer_pkts": [10, 10, 20, 20],
            "fct_p99_small_s": [0.003, 0.4, 0.001, 0.0011],
        }
    )
    m, lo, hi = plot._mean_ci(t["fct_p99_small_s"][:2], 0.95, (0, math.inf))
    assert 1e26 < hi / lo < 1e28 and m == pytest.approx(0.2015)
    fig = plot.buffer_curves(t, "fct_p99_small_s")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    bottom, top = ax.get_ylim()
    assert bottom == pytest.approx(0.001 / 1.5) and top == pytest.approx(0.4 * 1.5)
    title = ax.get_title().replace("\n", " ")
    assert "2 seeds per point: interval wide, cut at the seeds' extremes" in title


def test_advice_report_opens_with_the_answer_then_the_tradeoff(advice):
    page = advice.to_html()
    ids = re.findall(r'<section class="section" id="([^"]+)"', page)
    assert ids[:3] == ["answer", "figures", "table"]
    assert ids[-3:] == ["notes", "scenario", "provenance"]
    answer = page.split('id="answer"', 1)[1].split("</section>", 1)[0]
    text = html.unescape(re.sub(r"<[^>]+>", "", answer))
    # The console's first screen, said once (Advice.first_screen).
    for line in advice.first_screen():
        assert line in text
    assert f"Answer: {advice.answer()} meets your objectives" in text
    cost = advice.cost_at(advice.buffer_pkts)
    assert f"loss {fmt.percent(cost['drop_rate'])}" in text
    assert "stack: " in text and "seeds 1, 2" in text
    assert page.count('<div class="figure"') == 1 and 'id="fig-advice"' in page


def test_advice_report_shows_flags_where_the_advice_has_them(advice):
    # Flags under the cost line, each with its reason, their thresholds on
    # the figure, and the buffer that clears them, as the console says them.
    flagged = advice.with_flags(["loss>0.001%", "unfinished=off"])
    assert [f.key for f in flagged.flags] == ["drop_rate"]
    page = report.advice_report(flagged)
    answer = html.unescape(page.split('id="answer"', 1)[1].split("</section>", 1)[0])
    (flag,) = [t for t in flagged.first_screen() if t.startswith("FLAG ")]
    assert f'<ul class="flags"><li>{flag}</li></ul>' in answer
    assert flagged.clearing_text() in answer
    # The loss panel draws the threshold once (a flag per buffer repeats it).
    fig = plot.tradeoff(flagged)
    (panel,) = [ax for ax in fig.axes if ax.get_title() == "cost: loss rate"]
    lines = [ln for ln in panel.get_lines() if ln.get_label() == "a flag's threshold"]
    assert len(lines) == 1 and list(lines[0].get_ydata()) == [0.00001, 0.00001]
    # No flags: none shown.
    page = report.advice_report(
        advice.with_flags(["loss=off", "timeouts=off", "jain=off", "unfinished=off"])
    )
    assert 'class="flags"' not in page


def test_advice_report_in_headless_chromium(tmp_path, advice):
    page = tmp_path / "advice.html"
    page.write_text(advice.to_html())
    open_in_chromium(tmp_path, {"advice": page})
    dom = rendered_text(tmp_path, page)
    # The answer comes before the figure, the figure before the tables.
    assert dom.index("Answer: ") < dom.index('id="fig-advice"') < dom.index("side by side")


def rendered_text(tmp: Path, page: Path) -> str:
    """The DOM headless Chromium renders of ``page``, table cells joined by
    spaces (``metric value``)."""
    from conftest import CHROMIUM_FLAGS, chromium

    dom = subprocess.run(
        [
            *chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp / 'dom'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    return re.sub(r"</td>\s*<td[^>]*>", " ", dom)


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


def test_a_stored_run_this_code_cannot_read_is_left_out_with_a_warning(
    tmp_path, monkeypatch, caplog
):
    # A run stored by an older bufsim whose table lacks a column the claims
    # now read: the report leaves it out and says which commit stored it and
    # how to run it again, instead of failing with a KeyError.
    import pandas as pd
    from bufsim import reproduce

    table = pd.DataFrame({"n": [5], "buffer_pkts": [1]})
    table.attrs.update(commit="0123abc", bufsim_version="0.0.1")
    monkeypatch.setattr(reproduce, "RESULTS", tmp_path)
    reproduce.save("avrachenkov2006", table, quick=False, directory=tmp_path)
    assert reproduce.stored("avrachenkov2006") is not None
    with caplog.at_level("WARNING", logger="bufsim.report"):
        assert report._stored(reproduce.get("avrachenkov2006"), quick=False) is None
    (msg,) = [r.getMessage() for r in caplog.records]
    assert "stored full run of avrachenkov2006" in msg and "does not fit this code" in msg
    assert "`bufsim reproduce avrachenkov2006` runs it again" in msg


def test_provenance_names_the_build_commit_outside_a_checkout(monkeypatch):
    # An installed wheel has no git checkout around it: the commit comes
    # from the record the extension keeps from its build
    # (bufsim._core.build_commit()), shortened as git's --short gives it.
    import subprocess as sp

    from bufsim import _core

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    def not_a_checkout(*args, **kwargs):
        return sp.CompletedProcess(args, 128, stdout="", stderr="fatal: not a git repository")

    full = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setattr(_core, "build_commit", lambda: full, raising=False)
    for git in (no_git, not_a_checkout):
        monkeypatch.setattr(provenance.subprocess, "run", git)
        assert provenance.commit() == "0123456"
    # A record that is not a full hash is shown as it is.
    monkeypatch.setattr(_core, "build_commit", lambda: "v0.1.0-3-gabc1234", raising=False)
    assert provenance.commit() == "v0.1.0-3-gabc1234"
    # An empty record, or none (an older build): unknown.
    monkeypatch.setattr(_core, "build_commit", lambda: "", raising=False)
    assert provenance.commit() == "unknown"
    monkeypatch.delattr(_core, "build_commit", raising=False)
    assert provenance.commit() == "unknown"
    # In a checkout git's answer wins over the record.
    monkeypatch.setattr(_core, "build_commit", lambda: full, raising=False)
    monkeypatch.setattr(
        provenance.subprocess,
        "run",
        lambda *a, **k: sp.CompletedProcess(a, 0, stdout="fedcba9\n", stderr=""),
    )
    assert provenance.commit() == "fedcba9"


def test_run_report_leads_with_the_key_metrics_then_the_figures(result):
    # 90 summary rows stood between a pool's run and its figures: the key
    # metrics (those `bufsim run` prints) come first, the others folded.
    page = report.result_report(result)
    ids = re.findall(r'<section class="section" id="([^"]+)"', page)
    assert ids == ["summary", "figures", "scenario", "provenance"]
    body = page.split('id="summary"', 1)[1].split("</section>", 1)[0]
    first, folded = body.split("<details>", 1)
    shown = [html.unescape(k) for k in re.findall(r"<tr><td[^>]*>(.*?)</td>", first)]
    assert shown == bufsim.result.key_metrics(result.summary)
    assert shown[:3] == ["utilization", "goodput_bps", "drop_rate"]
    rest = [k for k in result.summary if k not in shown and not k.endswith("_censored")]
    assert f"Every other metric ({len(rest)})" in folded
