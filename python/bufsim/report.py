"""Self-contained HTML reports of a run, a sweep, a results store or a reproduction.

One HTML file, readable offline: figures inline as SVG, styles inline, no
script, no external resource (a Content-Security-Policy of ``default-src
'none'`` forbids the browser from fetching anything). Built from the jinja2
template ``templates/report.html.j2``.

``bufsim report SOURCE -o report.html`` and :func:`write` take as SOURCE

* a result directory written by ``bufsim run`` / :meth:`Result.save`,
* a sweep spec (``.toml`` with ``base`` and ``[grid]``/``[[zip]]``): the
  sweep runs (or is read back from the store) and its curves are drawn,
* a results store directory (``results/``), optionally filtered by scenario
  name,
* the name of a reproduction (``auge2006``, ...; see ``bufsim reproduce list``),
  or ``all`` for every reproduction on one page.

Examples
--------
>>> r = bufsim.simulate(bufsim.examples.path("auge2006"))    # doctest: +SKIP
>>> html = bufsim.report.result_report(r)              # doctest: +SKIP
>>> bufsim.report.write("results/auge2006-packet", "auge.html")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import json
import logging
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import pandas as pd

from bufsim import fmt, plot, provenance
from bufsim.advise.advice import VIEWS as ADVICE_VIEWS
from bufsim.result import KEY_METRICS, WHOLE_RUN, Result, key_metrics, plain

if TYPE_CHECKING:
    from bufsim.reproduce import Reproduction

log = logging.getLogger(__name__)

__all__ = [
    "Figure",
    "advice_report",
    "advice_sections",
    "Section",
    "render",
    "result_report",
    "reproduction_report",
    "source_report",
    "sweep_report",
    "write",
]


#: Metrics drawn against the buffer in sweep reports (those present).
SWEEP_METRICS = ["utilization", "drop_rate", "p99_queue_delay_s", "jain_index"]


@dataclass
class Figure:
    """A figure of a report section: inline SVG and its caption."""

    id: str
    svg: str
    caption: str = ""


@dataclass
class Section:
    """A report section: title, paragraphs, HTML rendered from Markdown, an
    HTML table, figures, preformatted text."""

    id: str
    title: str
    text: list[str] = field(default_factory=list)
    html: str = ""
    table: str = ""
    figures: list[Figure] = field(default_factory=list)
    pre: str = ""


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bufsim", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
    )


def render(title: str, sections: list[Section], subtitle: str = "") -> str:
    """The report page: ``title``, a line of ``subtitle`` and the sections, as HTML."""
    return (
        _env()
        .get_template("report.html.j2")
        .render(title=title, subtitle=subtitle, sections=sections)
    )


def html_table(
    frame: pd.DataFrame,
    *,
    index: bool = False,
    classes: Mapping[str, Callable[[Any], str]] | None = None,
    numbers: Sequence[str] = (),
) -> str:
    """A DataFrame as an escaped HTML table (numbers right-aligned, text left).

    Cells read as :func:`bufsim.fmt.metric` gives them, with the unit the
    column's name implies. A column ``<c>_censored`` beside a column ``c``
    is not shown: where it is 1, ``c``'s cell is a lower bound, ``>= value``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    index : bool
        Show the index as the first column.
    classes : dict of {str: callable}, optional
        A column -> a function giving a CSS class per value (the verdict
        column's ``agrees``/``differs``).
    numbers : sequence of str
        Columns of numbers already formatted as text (right-aligned).
    """
    df = frame.reset_index() if index else frame
    flags = {c: f"{c}_censored" for c in df.columns if f"{c}_censored" in df.columns}
    columns = [c for c in df.columns if c not in flags.values()]
    text = {c: c not in numbers and not pd.api.types.is_numeric_dtype(df[c]) for c in columns}
    head = "".join(f'<th class="{"text" if text[c] else ""}">{_breakable(c)}</th>' for c in columns)
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in columns:
            v = r[c]
            cls = "text" if text[c] else ""
            if classes and c in classes:
                cls = f"{cls} {classes[c](v)}"
            shown = fmt.metric(str(c), v, censored=c in flags and r[flags[c]] == 1)
            cells.append(f'<td class="{cls.strip()}">{html.escape(shown)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _breakable(name: Any) -> str:
    """A column name, escaped, that may wrap after ``_``, ``=`` or ``,``
    (``p99_queue_delay<=10ms`` in a narrow column) rather than mid-word."""
    text = html.escape(str(name))
    for c in ("_", "=", ","):
        text = text.replace(c, f"{c}<wbr>")
    return text


def _provenance_section(rows: Mapping[str, Any]) -> Section:
    """What a report rests on, one row per field; numbers with the unit the
    field's name implies (``wall_s``)."""
    frame = pd.DataFrame(
        {"field": [str(k) for k in rows], "value": [fmt.metric(str(k), v) for k, v in rows.items()]}
    )
    return Section("provenance", "Provenance", table=html_table(frame))


#: A JSON number in e-notation (``3.7250895e-05``).
_JSON_E = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])")


def positional(text: str) -> str:
    """JSON text with its numbers in e-notation written out positionally,
    every digit kept (``3.7250895e-05`` -> ``0.000037250895``): still
    valid JSON, the same values, and readable."""
    import numpy as np

    return _JSON_E.sub(lambda m: np.format_float_positional(float(m.group(0)), trim="-"), text)


def _scenario_section(normalized: Mapping[str, Any], title: str, note: str = "") -> Section:
    """A scenario in words (:func:`bufsim.scenario.describe`), then its
    normalized JSON (SI units) folded away below."""
    from bufsim.scenario import describe

    raw = positional(json.dumps(plain(normalized, nan_to_none=True), indent=2))
    try:
        lines = describe(normalized)
    except (KeyError, TypeError, ValueError):
        # A result saved by an older bufsim lacks fields describe() reads.
        lines = ["this scenario was saved by an older bufsim: the JSON below states it"]
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    lead = f"<p>{html.escape(note)}</p>" if note else ""
    return Section(
        "scenario",
        title,
        html=f"{lead}<ul>{items}</ul><details><summary>The normalized scenario as JSON "
        f"(SI units)</summary><pre>{html.escape(raw)}</pre></details>",
    )


def _summary_frame(summary: Mapping[str, Any], keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The summary as text, key metrics first (or the ``keys`` given, in
    their order): units from the names, lower bounds as ``>= value`` (a
    ``<key>_censored`` of 1), counters of the whole run marked; the
    ``<key>_censored`` flags left out."""
    if keys is None:
        keys = [k for k in KEY_METRICS if k in summary] + [
            k for k in summary if k not in KEY_METRICS
        ]
    keys = [k for k in keys if not k.endswith("_censored")]
    return pd.DataFrame(
        {
            "metric": [k + (" (whole run)" if k in WHOLE_RUN else "") for k in keys],
            "value": [
                fmt.metric(k, summary[k], censored=summary.get(f"{k}_censored") == 1) for k in keys
            ],
        }
    )


def _fig(fid: str, fig: Any, caption: str) -> Figure:
    return Figure(fid, plot.svg(fig), caption)


def result_report(result: Result, title: str | None = None) -> str:
    """The report of one run: its summary and figures, then its scenario and provenance.

    Parameters
    ----------
    result : Result
        From :func:`bufsim.simulate` or :meth:`Result.load`.
    title : str, optional
        Page title (default: the scenario's name and the engine).

    Returns
    -------
    str
        The HTML page.
    """
    name = result.scenario.get("name", "run")
    # The key metrics (as `bufsim run` prints them), the figures right
    # after; every other metric folded below them.
    key = key_metrics(result.summary)
    more = _summary_frame(result.summary, [k for k in result.summary if k not in key])
    sections = [
        Section(
            "summary",
            "Summary",
            text=["After the warm-up, unless marked (whole run); >= marks a lower bound."],
            table=html_table(_summary_frame(result.summary, key), numbers=["value"])
            + (
                f"<details><summary>Every other metric ({len(more)})</summary>"
                f"{html_table(more, numbers=['value'])}</details>"
                if len(more)
                else ""
            ),
        )
    ]
    figures = []
    if not result.timeseries.empty:
        figures.append(
            _fig(
                "fig-timeseries",
                plot.timeseries(result),
                "Queue, utilization, windows and drops over time.",
            )
        )
    if {"rtt_s", "goodput_bps", "group"} <= set(result.flows.columns) and len(result.flows):
        figures.append(
            _fig("fig-goodput", plot.goodput_scatter(result), "Per-flow goodput against RTT.")
        )
    if {"finished", "large", "size_pkts"} <= set(result.flows.columns) and result.flows[
        "size_pkts"
    ].notna().any():
        figures.append(
            _fig(
                "fig-cdf",
                plot.flow_cdfs(result),
                "Per-flow throughput CDFs by class (paper 002, figures 2-7).",
            )
        )
    if figures:
        sections.append(Section("figures", "Figures", figures=figures))
    sections.append(_scenario_section(result.scenario, "Scenario"))
    sections.append(_provenance_section(_run_provenance(result)))
    return render(
        title or f"bufsim: {name} ({result.engine})", sections, subtitle=f"engine {result.engine}"
    )


def _run_provenance(result: Result) -> dict[str, Any]:
    """A run's provenance: bufsim's version and commit, engine, seed, one
    run, simulated and wall time (s), then what else the result recorded."""
    prov = dict(result.provenance)
    n = result.scenario
    simulated = (
        f"{fmt.metric('duration_s', n['duration_s'])} "
        f"(the first {fmt.metric('warmup_s', n['warmup_s'])} warm-up)"
        if "duration_s" in n
        else "-"
    )
    return {
        "bufsim version": prov.pop("version", provenance.__version__),
        "commit": f"{provenance.commit()} (of the source writing this report)",
        "engine": prov.pop("engine", result.engine),
        "seed": prov.pop("seed", n.get("seed")),
        "runs": 1,
        "simulated": simulated,
        "wall time": fmt.metric("wall_s", prov.pop("wall_s", math.nan)),
        "CPU time": fmt.metric("wall_s", prov.pop("cpu_s", math.nan)),
        **prov,
    }


def sweep_report(
    table: pd.DataFrame,
    title: str = "bufsim sweep",
    *,
    rules: Mapping[str, float] | None = None,
    base: Any = None,
    base_note: str = "Every run starts from this scenario; the swept fields replace its values.",
) -> str:
    """The report of a sweep table: curves against the buffer, what it
    swept, the runs, then its base scenario and what they rest on.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`bufsim.sweep` (or the store), with ``buffer_pkts``.
    title : str
        Page title.
    rules : dict of {str: float}, optional
        Rule buffers (packets) to mark on the curves.
    base : Scenario, dict or path, optional
        The base scenario (as :meth:`bufsim.Scenario.load` takes it),
        stated in words; without it the report says it is not known.
    base_note : str
        The sentence before the base scenario.

    Returns
    -------
    str
        The HTML page.
    """
    from bufsim.scenario import Scenario

    params = plot.swept_fields(table)
    figures = []
    if "buffer_pkts" in table and table["buffer_pkts"].nunique() > 1:
        for m in SWEEP_METRICS:
            if m in table and table[m].notna().any():
                errors = (
                    plot.curve_errors(table, m)
                    if (table["engine"] == "packet").any()
                    else pd.DataFrame()
                )
                axes = plot.swept_axes(table)
                cap = "; ".join(
                    f"{e}{plot.hue_name(table, axes, [r[a] for a in axes])}: RMS "
                    f"{fmt.metric(m, r.rms)}, max {fmt.metric(m, r.max_abs)} vs packet"
                    for e, r in errors.iterrows()
                    if r.points
                )
                split = f" One curve per {', '.join(axes)}." if axes else ""
                figures.append(
                    _fig(
                        f"fig-{m}",
                        plot.buffer_curves(table, m, rules=rules),
                        f"{m} against the buffer.{split} {cap}",
                    )
                )
    shown = [
        c
        for c in table.columns
        if c in ("engine", "seed", "status", "buffer_pkts") or c in KEY_METRICS or c in params
    ]
    normalized = Scenario.load(base).normalized if base is not None else None
    if normalized is not None:
        scenario = _scenario_section(normalized, "Base scenario", base_note)
    else:
        scenario = Section("scenario", "Base scenario", text=["Not known to this report."])
    # The curves first, then what varied and the runs; the settings last.
    sections = [Section("figures", "Curves", figures=figures)] if figures else []
    sections.append(_swept_section(table, params))
    attrs = table.attrs.get("sweep", {})
    text = [f"{len(table)} runs" + (f", {attrs.get('failed', 0)} failed" if attrs else "") + "."]
    sections.append(Section("table", "Runs", text=text, table=html_table(table[shown])))
    sections.append(scenario)
    sections.append(_provenance_section(_sweep_provenance(table, normalized)))
    return render(title, sections, subtitle="sweep")


def _swept_section(table: pd.DataFrame, params: list[str]) -> Section:
    """What a sweep varied: each swept field with its values in order, the
    engines and the seeds."""

    def values(col: str) -> str:
        seen = dict.fromkeys(json.dumps(plain(v), sort_keys=True) for v in table[col])
        return ", ".join(fmt.value(json.loads(v)) for v in seen)

    rows = {p: values(p) for p in params}
    rows["engine"] = values("engine")
    rows["seed"] = ", ".join(str(v) for v in sorted(set(table["seed"])))
    frame = pd.DataFrame({"field": list(rows), "values": list(rows.values())})
    text = [
        f"{len(params)} swept field{'s' if len(params) != 1 else ''}; every combination runs with "
        "every engine and seed (a model once, with the first seed)."
        if params
        else "No field swept: the base scenario with every engine and seed."
    ]
    return Section("swept", "What the sweep varies", text=text, table=html_table(frame))


def _sweep_provenance(table: pd.DataFrame, base: Mapping[str, Any] | None) -> dict[str, Any]:
    """A sweep's provenance: bufsim's version and commit, the builds that
    ran its rows, seeds, runs (ok, failed, reused), simulated time (when
    the normalized ``base`` scenario says it and no run changes it) and
    wall time (s)."""
    attrs = table.attrs.get("sweep", {})
    ok = table["status"] == "ok"
    runs = f"{len(table)} ({int(ok.sum())} ok, {int((~ok).sum())} failed"
    if "cached" in table:
        runs += f", {int(table['cached'].sum())} reused from the store"
    rows: dict[str, Any] = {
        "bufsim version": provenance.__version__,
        "commit": f"{provenance.commit()} (of the source writing this report)",
    }
    if "version" in table:
        rows["builds of the runs"] = ", ".join(sorted(set(table["version"].astype(str))))
    rows["seeds"] = ", ".join(str(v) for v in sorted(set(table["seed"])))
    rows["runs"] = runs + ")"
    simulated = ok & ~table["engine"].astype(str).str.startswith("model:")
    if base is not None and "duration" not in plot.swept_fields(table):
        rows["simulated"] = (
            f"{int(simulated.sum())} runs of {fmt.metric('duration_s', base['duration_s'])}: "
            f"{fmt.metric('duration_s', simulated.sum() * base['duration_s'])} "
            "(failed runs and models simulate nothing)"
        )
    if "wall_s" in attrs:
        rows["wall time"] = fmt.metric("wall_s", attrs["wall_s"])
    if "wall_s" in table:
        rows["wall time of the runs, summed"] = fmt.metric("wall_s", table["wall_s"].sum())
    return rows


def advice_sections(advice: Any, figures: bool = True) -> list[Section]:
    """An advice as report sections, the answer first: its first screen
    (:meth:`~bufsim.advise.Advice.first_screen`: the answer in packets,
    bytes and time at line rate, the cost line, the flags and the buffer
    that clears them, the stack, engines and seeds); then the
    trade-off figure (:func:`bufsim.plot.tradeoff`); then the tables (rules,
    models, fluid and packet side by side; the trade-off when no buffer
    meets every objective; the costs); the notes, the scenario's settings
    and the provenance last.

    Parameters
    ----------
    advice : bufsim.advise.Advice
        From :func:`bufsim.advise`.
    figures : bool
        Include the figure (the notebook view leaves it out).

    Returns
    -------
    list of Section
        In the order the report shows them.
    """
    a = advice
    # The first screen the console prints (Advice.first_screen), so the
    # answer, its cost and its flags are said in one place.
    screen = a.first_screen()
    items, flags = [], []
    for k, text in enumerate(screen):
        if text.startswith("FLAG "):
            flags.append(text)
            continue
        if flags:
            items.append(
                '<ul class="flags">'
                + "".join(f"<li>{html.escape(f)}</li>" for f in flags)
                + "</ul>"
            )
            flags = []
        cls = (
            "answer"
            if k == 0
            else "meta"
            if k == len(screen) - 1
            else "costs"
            if text.startswith("Cost at")
            else ""
        )
        items.append(
            f'<p class="{cls}">{html.escape(text)}</p>' if cls else f"<p>{html.escape(text)}</p>"
        )
    sections = [Section("answer", "Answer", html="".join(items))]
    if figures:
        try:
            fig = plot.tradeoff(a)
        except (ValueError, KeyError) as e:
            log.warning("no trade-off figure: %s", e)
        else:
            sections.append(
                Section(
                    "figures",
                    "The trade-off against the buffer",
                    figures=[
                        _fig(
                            "fig-advice",
                            fig,
                            "Each objective and each cost against the buffer (packets, log "
                            "axis): the packet engine's mean over seeds with its band, the "
                            "fluid scan beside it; green: where an objective holds and the "
                            "recommendation; grey: the rules' buffers, named above.",
                        )
                    ],
                )
            )
    sections.append(
        Section(
            "table",
            "Rules, models, fluid and packet side by side",
            table=html_table(a.formatted(a.table)),
        )
    )
    trade = pd.DataFrame() if a.feasible else a.tradeoff()
    if not trade.empty:
        sections.append(
            Section(
                "tradeoff",
                "The trade-off: buffers the packet engine measured",
                table=html_table(a.formatted(trade)),
            )
        )
    costs = a.cost_table()
    if not costs.empty:
        seeds = pd.to_numeric(costs["seeds"], errors="coerce")
        few = (
            f" {int(seeds.min())} seeds: the intervals are wide; where one would leave its "
            "metric's range it is shown by its ends, clipped to the range."
            if seeds.min() < 5
            else ""
        )
        sections.append(
            Section(
                "costs",
                "What each measured buffer costs",
                text=[
                    "Packet engine: mean ± the half-width of a two-sided "
                    f"{a.confidence:.0%} Student t interval over the seeds.{few}"
                ],
                table=html_table(_by_cost(costs) if len(costs) <= 6 else costs),
            )
        )
    notes = [t for t in (a.method, *a.notes) if t]
    if notes:
        sections.append(Section("notes", "Notes", text=notes))
    about = a.scenario.describe(buffer=False) if a.scenario is not None else []
    if about:
        sections.append(
            Section(
                "scenario",
                "Scenario (the stack each flow group assumes included)",
                html="<ul>" + "".join(f"<li>{html.escape(t)}</li>" for t in about) + "</ul>",
            )
        )
    prov = a.provenance()
    sections.append(
        Section(
            "provenance",
            "How it was computed",
            table=html_table(
                pd.DataFrame(
                    {"field": list(prov), "value": [_prov_value(k, v) for k, v in prov.items()]}
                )
            ),
        )
    )
    return sections


def _by_cost(costs: pd.DataFrame) -> pd.DataFrame:
    """:meth:`Advice.cost_table` (its buffers already formatted) turned a
    quarter: one row per cost, one column per measured buffer (``1448
    packets, recommended``), so that a
    few buffers' dozen costs fit the page instead of a dozen columns."""
    heads = [
        f"{b} packets, {src} ({n} seeds)"
        for b, src, n in zip(costs["buffer"], costs["source"], costs["seeds"])
    ]
    body = costs.drop(columns=["buffer", "source", "seeds"]).T
    body.columns = heads
    return body.rename_axis("cost").reset_index()


def _prov_value(field: str, v: Any) -> str:
    """A provenance value with its unit, read from the field's words
    (``wall s (search)``, ``simulated s``; packets simulated as a count)."""
    if isinstance(v, float) and (" s " in f" {field} " or field.startswith("wall s")):
        return fmt.metric("x_s", v)
    if isinstance(v, float) and field.startswith("packets"):
        return fmt.count(v, "packets")
    return fmt.value(v)


def _advice_title(advice: Any) -> str:
    return "bufsim advise: " + ", ".join(o.text for o in advice.objectives)


def advice_report(advice: Any) -> str:
    """The self-contained HTML report of an advice (:func:`advice_sections`):
    what :meth:`bufsim.advise.Advice.to_html` returns."""
    return render(_advice_title(advice), advice_sections(advice), subtitle="advice")


def advice_notebook(advice: Any) -> str:
    """An advice's notebook view: the report's sections (:func:`advice_sections`)
    but the figure (:meth:`bufsim.advise.Advice.plot` draws it), as one HTML
    ``<div>``: what :meth:`bufsim.advise.Advice._repr_html_` returns."""
    parts = [f"<h3>{html.escape(_advice_title(advice))}</h3>"]
    for sec in advice_sections(advice, figures=False):
        parts.append(f"<h4>{html.escape(sec.title)}</h4>")
        parts += [f"<p>{html.escape(p)}</p>" for p in sec.text]
        parts += [sec.html, sec.table]
    return f"<div>{''.join(parts)}</div>"


def markdown(text: str) -> str:
    """Markdown (CommonMark with tables) as HTML; raw HTML in the text is
    escaped, not passed through."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


#: CSS class of each verdict in the claims table.
VERDICT_CLASSES = {
    "agrees": "agrees",
    "agrees after tuning": "tuned",
    "differs, explained": "explained",
    "differs, unexplained": "differs",
    "undecided": "undecided",
    "check": "check",
}


def _verdict_section(
    rep: Reproduction, claims: pd.DataFrame, table: pd.DataFrame, prefix: str, head: str
) -> tuple[Section, pd.DataFrame]:
    """The counts per verdict, what run they come from, and the claims whose
    verdict differs at the other length (the stored full run for a quick
    table, or the verdicts kept with the code; the stored quick run for a
    full table). Returns the section and the claims with a column
    ``other length`` where a verdict differs."""
    from bufsim import reproduce

    name = rep.name
    quick = bool(table.attrs.get("quick", True))
    counts = reproduce.verdict_counts(claims)
    when = (
        f" at commit {table.attrs['commit']} on {table.attrs['created']}"
        if "created" in table.attrs
        else ""
    )
    text = [
        (
            "Quick run: the short version the test suite runs; verdicts can move at full length "
            f"(`bufsim reproduce {name}` runs and stores the full one, which reports then use)."
            if quick
            else f"Full-length run{when}."
        ),
        "; ".join(f"**{k}**: {v}" for k, v in counts.items())
        + ". Only *agrees* counts as reproduced; *differs, explained* names the run of this "
        "reproduction that shows the cause (column *explained_by*); *check* is a property of "
        "bufsim or the paper's own arithmetic, not a claim of the paper; *undecided* lies within "
        "one seed (or cycle) interval of its pass mark, or inside the range the paper's wording "
        "leaves open.",
    ]
    if line := reproduce.tunings_line(claims):
        text.append(line + ".")
    if line := reproduce.headline_line(claims):
        text.insert(0, line[0].upper() + line[1:] + ".")
    other_table = _stored(rep, quick=not quick)
    if other_table is not None:
        other = rep.verdicts(other_table)
        source = "the stored " + ("full" if quick else "quick") + " run"
    else:
        other = reproduce.full_verdicts(name) if quick else {}
        source = "the full run's verdicts kept with the code"
    claims = claims.copy()
    claims["other length"] = [
        other[c] if c in other and other[c] != v else ""
        for c, v in zip(claims["claim"], claims["verdict"])
    ]
    moved = int((claims["other length"] != "").sum())
    if other:
        text.append(
            f"{moved} verdict{'s differ' if moved != 1 else ' differs'} from {source} "
            "(column *other length* of the claims)."
            if moved
            else f"Every verdict is the same in {source}."
        )
    else:
        claims = claims.drop(columns="other length")
        if quick and (why := reproduce.full_not_run(name)):
            text.append(f"No full-length run's verdicts are kept for this reproduction: {why}.")
    section = Section(
        f"{prefix}verdicts", f"{head}Verdicts", html="".join(markdown(t) for t in text)
    )
    return section, claims


def _reproduction_sections(
    rep: Reproduction, table: pd.DataFrame, *, prefix: str = ""
) -> list[Section]:
    """A reproduction's sections: its verdict counts, setup, claims, findings
    beside the figures they explain, the other figures, and the run table
    (with the further tables of modules that define ``tables(table)``).

    ``prefix`` (e.g. ``"auge2006-"``) goes before every section and figure
    id and the name before every title, so several reproductions share a page.
    """
    head = f"{rep.name}: " if prefix else ""
    verdicts, claims = _verdict_section(rep, rep.claims(table), table, prefix, head)
    for col in ("paper", "why", "explained_by"):
        # Code spans hold formulas; the table shows them as plain text.
        claims[col] = claims[col].astype(str).str.replace("`", "", regex=False)
    from bufsim import reproduce

    headlines = reproduce.headline_table(claims)
    for col in ("paper", "run"):
        headlines[col] = headlines[col].astype(str).str.replace("`", "", regex=False)
    # The column a claim reads is for the tests, not the reader; the
    # headline fields are in the headline table; ns-2's number, or why it
    # has none, is one column beside bufsim's.
    ns2 = [reproduce.ns2_cell(r) for _, r in claims.iterrows()]
    claims = claims.drop(
        columns=["about", "headline", "measured_by", "ns2", "ns2_verdict", "ns2_why"]
    )
    claims.insert(claims.columns.get_loc("bufsim"), "ns-2.35", ns2)
    # Columns no claim of this paper uses (no tolerance, no seed spread, no
    # tuning, no explaining run) would only narrow the reasons.
    empty = [
        c
        for c in ("tolerance", "tolerance_source", "spread", "tuning", "explained_by")
        if claims[c].isna().all() or (claims[c].astype(str) == "").all()
    ]
    claims = claims.drop(columns=empty)
    sections = []
    if len(headlines):
        # The report opens with the paper's headline results.
        sections.append(
            Section(
                f"{prefix}headline",
                f"{head}Headline results",
                table=html_table(headlines, classes={"verdict": VERDICT_CLASSES.__getitem__}),
            )
        )
    sections += [
        verdicts,
        Section(
            f"{prefix}setup",
            f"{head}Setup and differences from the paper",
            html=markdown(rep.setup()),
        ),
        Section(
            f"{prefix}claims",
            f"{head}The paper's claims and bufsim's numbers",
            table=html_table(claims, classes={"verdict": VERDICT_CLASSES.__getitem__}),
        ),
    ]
    figures = rep.figures(table)
    captions = rep.captions(table)
    for i, finding in enumerate(rep.findings(table)):
        figs = []
        if finding.figure:
            figs = [
                _fig(
                    f"fig-{prefix}{finding.figure}",
                    figures.pop(finding.figure),
                    captions[finding.figure],
                )
            ]
        sections.append(
            Section(
                f"{prefix}finding-{i + 1}",
                f"{head}{finding.title}",
                html=markdown(finding.text),
                figures=figs,
            )
        )
    if figures:
        figs = [_fig(f"fig-{prefix}{k}", f, captions[k]) for k, f in figures.items()]
        sections.append(Section(f"{prefix}figures", f"{head}Further figures", figures=figs))
    sections.append(Section(f"{prefix}results", f"{head}Results", table=html_table(table)))
    for key, (title, frame) in rep.tables(table).items():
        sections.append(Section(f"{prefix}{key}", f"{head}{title}", table=html_table(frame)))
    return sections


def reproduction_report(
    rep: Reproduction | str,
    *,
    quick: bool = True,
    table: pd.DataFrame | None = None,
    progress: bool = False,
) -> str:
    """The report of a reproduction: its verdicts, setup, claims, findings and figures.

    Parameters
    ----------
    rep : Reproduction or str
        A reproduction (:class:`bufsim.reproduce.Reproduction`), or the name
        of one of bufsim's (:data:`bufsim.reproduce.PAPERS`).
    quick : bool
        Without ``table``: when no full run is stored (:func:`bufsim.reproduce.stored`),
        run the short version (as ``make test``) instead of the full one.
    table : pandas.DataFrame, optional
        An already computed ``run()`` table (its ``attrs["quick"]`` says
        which version it is).
    progress : bool
        When it runs: say each run on stderr as it starts (:class:`Lines
        <bufsim.sweep.progress.Lines>`, with the time elapsed).

    Returns
    -------
    str
        The HTML page.
    """
    from bufsim import reproduce

    if isinstance(rep, str):
        rep = reproduce.get(rep)
    if table is None:
        table = _reproduction_table(rep, quick, progress)
    length = "quick run" if table.attrs.get("quick", True) else "full run"
    return render(
        f"bufsim reproduction: {rep.name}",
        _reproduction_sections(rep, table),
        subtitle=f"{rep.what} ({length})",
    )


def _stored(rep: Reproduction, *, quick: bool) -> pd.DataFrame | None:
    """The run table ``bufsim reproduce`` stored for ``name``
    (:func:`bufsim.reproduce.stored`), or None when there is none or when
    this code can no longer read it (a run stored by an older bufsim whose
    table lacks a column the claims now use): then a warning says which
    commit stored it and how to run it again."""
    from bufsim import reproduce

    name = rep.name
    table = reproduce.stored(name, quick=quick)
    if table is None:
        return None
    try:
        rep.claims(table)
    except (KeyError, AttributeError, IndexError) as e:
        log.warning(
            "the stored %s run of %s (bufsim %s, commit %s) does not fit this code (%s: %s): "
            "left out; `bufsim reproduce %s%s` runs it again",
            "quick" if quick else "full",
            name,
            table.attrs.get("bufsim_version", "?"),
            table.attrs.get("commit", "?"),
            type(e).__name__,
            e,
            name,
            " --quick" if quick else "",
        )
        return None
    return table


def _reproduction_table(rep: Reproduction, quick: bool, progress: bool = False) -> pd.DataFrame:
    """The stored full run of ``rep`` if there is one, else a new run
    (quick or full as asked; with ``progress``, each run said on stderr)."""
    from bufsim.sweep.progress import Lines

    table = _stored(rep, quick=False)
    if table is None:
        say = Lines(f"reproduce {rep.name}").say if progress else None
        table = rep.run(quick=quick, progress=say)
    return table


def reproductions_report(
    tables: Mapping[str, pd.DataFrame] | None = None,
    *,
    quick: bool = True,
    progress: bool = False,
) -> str:
    """One report of several reproductions (``bufsim reproduce all``), each
    with its notes, claims, figures and results, one after the other.

    Parameters
    ----------
    tables : mapping of str to pandas.DataFrame, optional
        Reproduction name -> its ``run()`` table, in page order. Default:
        every reproduction (:data:`bufsim.reproduce.PAPERS`), run now.
    quick : bool
        Run the short versions (when ``tables`` is not given) and say so.
    progress : bool
        When they run: say each run on stderr as it starts.

    Returns
    -------
    str
        The HTML page; section and figure ids are prefixed with the
        reproduction's name (``auge2006-claims``, ``fig-auge2006-...``).
    """
    from bufsim import reproduce

    reps = {name: reproduce.get(name) for name in (reproduce.PAPERS if tables is None else tables)}
    if tables is None:
        tables = {name: _reproduction_table(rep, quick, progress) for name, rep in reps.items()}
    sections = [
        s
        for name, t in tables.items()
        for s in _reproduction_sections(reps[name], t, prefix=f"{name}-")
    ]
    return render(
        "bufsim reproductions",
        sections,
        subtitle="; ".join(
            f"{reps[n].what} ({'quick' if t.attrs.get('quick', True) else 'full'} run)"
            for n, t in tables.items()
        ),
    )


def source_report(
    source: str | Path, *, name: str | None = None, quick: bool = True, progress: bool = False
) -> str:
    """The report of SOURCE as ``bufsim report`` reads it (see the module doc).

    Parameters
    ----------
    source : str or Path
        A result directory, a sweep spec, a results store or a reproduction name.
    name : str, optional
        With a store: only the rows of this scenario name.
    quick : bool
        With a reproduction: the short version.
    progress : bool
        Say how the work goes on stderr, as the commands do: a sweep's
        progress bar on a terminal, else plain lines of the points done
        and an ETA every 10 s; each run of a reproduction as it starts.

    Raises
    ------
    ValueError
        SOURCE is none of the four (the message says what was looked for).
    """
    from bufsim import reproduce

    src = Path(source)
    if str(source) in reproduce.PAPERS and not src.exists():
        return reproduction_report(str(source), quick=quick, progress=progress)
    if str(source) == "all" and not src.exists():
        return reproductions_report(quick=quick, progress=progress)
    if src.is_dir() and (src / "summary.json").is_file():
        return result_report(Result.load(src))
    if src.is_dir() and (src / "store.sqlite").is_file():
        from bufsim.store import Store

        with Store(src) as db:
            table = db.table(name=name)
            if table.empty:
                raise ValueError(
                    f"the store {src} holds no rows" + (f" named {name!r}" if name else "")
                )
            first = db.get([table["key"].iloc[0]])
        return sweep_report(
            table,
            f"bufsim results: {name or src}",
            base=next(iter(first.values()))["scenario"] if first else None,
            base_note="The scenario of the table's first run; the others differ from it in "
            "the swept fields (the columns before engine).",
        )
    if src.is_file() and src.suffix == ".toml":
        from bufsim.sweep import load_spec
        from bufsim.sweep.progress import for_stderr

        spec = load_spec(src)
        label = f"sweep {spec.name or src.stem}"
        table = spec.run(progress=for_stderr(label) if progress else False)
        return sweep_report(table, f"bufsim {label}", base=spec.base)
    raise ValueError(
        f"{source!r} is not a result directory (with summary.json), a results store (with store.sqlite), "
        f"a sweep spec (.toml), a reproduction ({', '.join(reproduce.PAPERS)}) or all of them (all)"
    )


def write(source: str | Path, out: str | Path, **kwargs: Any) -> Path:
    """Write :func:`source_report` of ``source`` to the file ``out``; returns its path."""
    page = source_report(source, **kwargs)
    path = Path(out)
    path.write_text(page, encoding="utf-8")
    return path


# An advice is drawn and written from here: its views (Advice.plot,
# sections, to_html, _repr_html_) are these functions, installed when
# this module loads, so that advise imports neither report nor plot.
ADVICE_VIEWS.update(
    figure=plot.advice,
    sections=advice_sections,
    html=advice_report,
    notebook=advice_notebook,
)
