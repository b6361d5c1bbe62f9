"""The reproductions' figures and tables read as their captions say: legends
off the traces, caption colours that match the markers, no empty rows, no
Python tuples in table cells.

The figures are drawn from small synthetic tables shaped as the reproductions'
run tables, so each test runs in well under a second and fails on the drawing
itself, whatever the runs measure.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from bufsim import fmt
from bufsim.report import html_table
from bufsim.reproduce import auge2006, avrachenkov2006, barman2005, dhamdhere2006, kumar2010
from matplotlib.colors import to_rgb


def _series(flows: int, seed: int) -> pd.DataFrame:
    """A time series shaped as auge2006's: utilization per 100 ms and one
    cwnd column per flow, both filling their panels from edge to edge
    (uniform noise over the whole range), so a legend anywhere inside a
    panel covers some of their points."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, 120.0, 0.1)
    cols = {"utilization": rng.uniform(0.0, 1.0, len(t))}
    for k in range(flows):
        cols[f"cwnd_flow{k}"] = rng.uniform(0.0, 100.0, len(t))
    return pd.DataFrame(cols, index=t)


def _covered_points(fig) -> list[tuple[str, int]]:
    """(legend entry, count) of the plotted points each legend covers,
    in display coordinates after the figure is drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    covered = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for line in ax.get_lines():
                xy = line.get_xydata()
                xy = xy[np.isfinite(xy).all(axis=1)]
                if not len(xy):
                    continue
                shown = ax.transData.transform(xy)
                clip = ax.get_window_extent(renderer)
                visible = (
                    (shown[:, 0] >= clip.x0)
                    & (shown[:, 0] <= clip.x1)
                    & (shown[:, 1] >= clip.y0)
                    & (shown[:, 1] <= clip.y1)
                )
                inside = (
                    visible
                    & (shown[:, 0] >= box.x0)
                    & (shown[:, 0] <= box.x1)
                    & (shown[:, 1] >= box.y0)
                    & (shown[:, 1] <= box.y1)
                )
                if inside.any():
                    covered.append((line.get_label(), int(inside.sum())))
    return covered


def test_auge_series_legends_cover_no_trace():
    # Figures 3, 5, 6 and 7 of paper 000: utilization over cwnd, one column
    # per case, cwnd traces that fill their panels; the legend (the flows'
    # colours and the paper's utilization marks) must cover none of their
    # points. Inside a panel, at "upper left" or "lower right", it covered
    # dozens of the synthetic traces' 1200 points per flow.
    series = [(f"{n} flows", _series(n, n)) for n in (1, 2, 4)]
    fig = auge2006.charts._series_panels(series, "test", {0: (0.7, "paper: 40% of the residual")})
    assert _covered_points(fig) == []
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    labels = [t.get_text() for lg in legends for t in lg.get_texts()]
    assert labels == [
        "paper: 40% of the residual (1 flows)",
        "cwnd of flow0",
        "cwnd of flow1",
        "cwnd of flow2",
        "cwnd of flow3",
    ]


#: The colours a caption may name, as RGB.
_NAMED = {"red": (0.75, 0.0, 0.0), "grey": (0.5, 0.5, 0.5), "blue": (0.12, 0.31, 0.47)}


def _colour_name(colour) -> str:
    """The name in :data:`_NAMED` nearest (RGB distance) to a matplotlib colour."""
    rgb = np.array(to_rgb(colour))
    return min(_NAMED, key=lambda k: float(np.sum((rgb - np.array(_NAMED[k])) ** 2)))


def _kumar_table() -> pd.DataFrame:
    """A run table shaped as kumar2010.run's: every case, variant, X and
    buffer fraction the reproduction runs, the alternatives only for the
    variants that have them (``ALT_ONLY``)."""
    rows = []
    cases = ["default", *kumar2010.design.WARMUPS, *kumar2010.design.ALTERNATIVES]
    for case in cases:
        for variant in kumar2010.design.VARIANTS:
            if variant not in kumar2010.design.ALT_ONLY.get(case, kumar2010.design.VARIANTS):
                continue
            for x in kumar2010.design.SYNC:
                for f in kumar2010.design.FRACTIONS:
                    u = 0.8 + 0.1 * x + 0.1 * f
                    rows.append((case, variant, x, f, u, 0.01))
    return pd.DataFrame(
        rows, columns=["case", "variant", "sync", "fraction", "utilization", "utilization_sd"]
    )


def test_kumar_caption_names_the_paper_marks_colour():
    # Figure 6's panels draw the paper's levels as markers; the caption says
    # which colour they are. It said "red" over grey markers.
    table = _kumar_table()
    captions = kumar2010.captions(table)
    marked = 0
    for v, (letter, _) in kumar2010.design.PANELS.items():
        fig = kumar2010.charts._panel(table, v)
        paper = [ln for ln in fig.axes[0].get_lines() if str(ln.get_label()).startswith("paper")]
        caption = captions[f"fig6{letter}_{v}"]
        for line in paper:
            name = _colour_name(line.get_color())
            assert re.search(rf"\b{name}\b", caption), (v, name, caption)
            assert line.get_markerfacecolor() == "none"
            assert "open" in caption
            marked += 1
    # HSTCP, CUBIC and AIMD have a level in the paper's text; H-TCP has none.
    assert marked == 3


def test_kumar_choices_have_no_empty_row():
    # The modelling-choices figure: one row per choice in each variant's
    # panel. The rate form exists for AIMD and HSTCP only, fast convergence
    # for CUBIC only; each panel lists those it has (HSTCP, AIMD and CUBIC
    # 8 rows, H-TCP 7), every row with a point for each X. Before, every
    # panel had all 9 rows, the missing ones empty.
    fig = kumar2010.charts._choices(_kumar_table())
    rows = {}
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        # The points, not the 90% rule (a line, in axes coordinates).
        points = [ln.get_xydata() for ln in ax.get_lines() if ln.get_linestyle() == "None"]
        ys = np.concatenate([p[np.isfinite(p).all(axis=1), 1] for p in points if len(p)])
        for k, label in enumerate(labels):
            assert np.sum(np.isclose(ys, k)) == len(kumar2010.design.SYNC), (ax.get_title(), label)
        rows[ax.get_title().split(" at ")[0]] = len(labels)
    assert rows == {"HSTCP": 8, "CUBIC": 8, "AIMD": 8, "H-TCP": 7}


def test_table_cells_show_no_python_tuples():
    # auge2006's run table keeps each case's per-flow goodputs as a tuple
    # (Mbit/s); the results table showed "(5.811, 8.357)" and "(9.951,)".
    frame = pd.DataFrame(
        {
            "flows": [2, 1, 3],
            "goodput_mbps": [(5.811, 8.357), (9.951,), ()],
            "goodput_bps": [[5.811e6, 8.357e6], [9.951e6], np.array([1e6, 2e6, 3e6])],
        }
    )
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html_table(frame))
    assert cells == [
        "2",
        "5.811; 8.357",
        "5.811 Mbps; 8.357 Mbps",
        "1",
        "9.951",
        "9.951 Mbps",
        "3",
        "-",
        "1 Mbps; 2 Mbps; 3 Mbps",
    ]
    assert fmt.value((5.811, 8.357)) == "5.811; 8.357"
    # Text in a tuple is not a list of numbers: shown as it is.
    assert fmt.value(("a", 1)) == "('a', 1)"


def test_dhamdhere_captions_name_red_marks_where_drawn():
    # Figures 2-7 of paper 002: the captions said "red marks are the numbers
    # the paper's text gives" on the three throughput figures, two of which
    # have none, and not on the loss figures that have them (3 and 7).
    from bufsim.plot import figure

    captions = dhamdhere2006.captions(pd.DataFrame())
    said = {}
    for traffic in dhamdhere2006.design.TRAFFIC:
        for column, key in (("throughput_Bps", "throughput"), ("loss_rate", "loss")):
            fig, (ax,) = figure()
            for cls in ("persistent", "large", "small"):
                dhamdhere2006.charts._mark_paper(ax, traffic, cls, column)
            colours = {_colour_name(ln.get_color()) for ln in ax.get_lines()}
            caption = captions[f"{key}_{traffic}"]
            assert ("red marks" in caption) == bool(colours), (traffic, key, caption)
            assert colours <= {"red"}
            said[f"{key}_{traffic}"] = bool(colours)
    assert [k for k, v in said.items() if v] == ["loss_persistent", "throughput_open", "loss_open"]


def _barman_red_table() -> pd.DataFrame:
    """A table shaped as barman2005.run's, for the RED figure."""
    f = np.array([0.02, 0.05, 0.1, 0.2, 0.4])
    u = np.linspace(0.3, 1.0, len(f))
    loss = np.geomspace(1e-3, 1e-5, len(f))
    return pd.DataFrame(
        {
            "fraction": f,
            "red_model": u,
            "red_packet": u[::-1],
            # The paper's Adaptive RED runs from 10% of the BDP on.
            "red_ared_packet": np.where(f >= 0.1, 0.9, np.nan),
            "red_ared_packet_drop_rate": np.where(f >= 0.1, 2e-5, np.nan),
            "red_fluid": u,
            "packet": u[::-1],
            "red_model_loss": loss,
            "red_packet_drop_rate": loss[::-1],
            "red_fluid_drop_rate": loss,
            "packet_drop_rate": loss[::-1],
        }
    )


def _texts(fig) -> list[str]:
    """Every legend entry and title of a figure."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for lg in legends for t in lg.get_texts()] + [
        ax.get_title() for ax in fig.axes
    ]


def test_barman_red_figure_legends_read_without_e_notation_off_the_curves():
    # Paper 001's figure 7: the paper's loss levels were labelled "1e-5" and
    # "p_l = 1e-3"; the loss legend sat over the curves falling from 2%.
    # ns-2.35's Adaptive RED points are drawn beside the curves.
    ns2 = pd.DataFrame(
        {"case": ["red", "red"], "fraction": [0.1, 0.2], "utilization": [0.907, 0.905]}
    )
    fig = barman2005.charts._red_figure(_barman_red_table(), ns2)
    texts = _texts(fig)
    assert "paper, RED: 0.00001" in texts and "paper, drop-tail: p_l = 0.001" in texts
    assert "ns-2.35, Adaptive RED" in texts
    assert not [t for t in texts if re.search(r"\de-?\d", t)]
    assert _covered_points(fig) == []


def test_barman_two_flow_legend_covers_no_window():
    # Paper 001's figures 5 and 6: the two flows' windows; the legend sat at
    # the upper left of each window panel, over the sawtooth.
    t = pd.DataFrame(
        {
            "case": ["under-buffered", "over-buffered"],
            "buffer_pkts": [1000, 10000],
            "long_mbps": [292.0, 90.0],
            "short_mbps": [681.0, 910.0],
        }
    )
    rng = np.random.default_rng(1)
    time = np.arange(0.0, 100.0, 0.1)
    t.attrs["series"] = {
        c: pd.DataFrame(
            {
                "cwnd_flow0": rng.uniform(0, 5000, len(time)),
                "cwnd_flow1": rng.uniform(0, 5000, len(time)),
                "queue_pkts": rng.uniform(0, b, len(time)),
            },
            index=time,
        )
        for c, b in zip(t["case"], t["buffer_pkts"])
    }
    fig = barman2005.charts._two_flow_figure(t)
    assert _covered_points(fig) == []
    assert [x.get_text() for x in fig.legends[0].get_texts()] == [
        "HSTCP1, RTT 80 ms",
        "HSTCP2, RTT 42 ms",
    ]


def test_avrachenkov_b0_scan_reads_without_e_notation_off_the_curves():
    # The B0 reading figure (paper 003): the titles said "crosses 1e-3", the
    # axis "0 drawn at 1e-05", and the legend sat over Theorem 1's curve.
    rows = []
    for setting in ("deterministic", "jitter"):
        for n in avrachenkov2006.design.PAPER:
            for b in range(0, 170, 10):
                u = 1 - 0.5 * np.exp(-b / 20)
                rows.append((setting, n, b, u, u, u))
    table = pd.DataFrame(
        rows, columns=["setting", "n", "buffer_pkts", "packet", "theorem1", "fluid"]
    )
    fig = avrachenkov2006.charts._figure_b0_scan(table)
    texts = _texts(fig) + [ax.get_ylabel() for ax in fig.axes]
    assert "N = 5: B0 is where the curve crosses 0.001 (99.9%)" in texts
    assert "1 - utilization (0 drawn at 0.00001)" in texts
    assert not [t for t in texts if re.search(r"\de-?\d", t)]
    assert _covered_points(fig) == []


def test_kumar_calibrated_series_legend_covers_no_trace():
    # The calibrated runs' utilization over time: the legend sat at the
    # lower right of the first panel, over the packet engine's trace.
    rng = np.random.default_rng(2)
    time = np.arange(0.0, 30.0, 0.1)
    cal = pd.DataFrame({"variant": list(kumar2010.design.PANELS)})
    cal.attrs["warmup_s"] = 10.0
    cal.attrs["series"] = {
        (v, 0.05): pd.DataFrame(
            {"packet": rng.uniform(0, 1, len(time)), "fluid_cal": rng.uniform(0, 1, len(time))},
            index=time,
        )
        for v in kumar2010.design.PANELS
    }
    fig = kumar2010.charts._calibrated_series_figure(cal)
    assert _covered_points(fig) == []
    assert len(fig.legends) == 1


def test_dhamdhere_cdf_legends_cover_no_curve():
    # Figures 2-7 of paper 002: per-flow CDFs, whose legend sat at the lower
    # right, where a CDF that rises late runs (the open loop's large flows
    # at B_l: 10-30% of them above 100,000 bytes/s).
    rng = np.random.default_rng(3)

    def flows(scale: float) -> pd.DataFrame:
        n = 400
        large = np.arange(n) < n // 4
        return pd.DataFrame(
            {
                "size_pkts": np.where(large, 1000.0, 10.0),
                "finished": 1.0,
                "large": large.astype(float),
                "throughput_Bps": scale * rng.lognormal(10.0, 1.0, n),
                "loss_rate": rng.uniform(0, 0.3, n),
            }
        )

    fig = dhamdhere2006.charts._flow_figure(
        {18: flows(1.0), 500: flows(20.0)}, "open", "throughput_Bps"
    )
    assert _covered_points(fig) == []
