"""The answer of :func:`bufsim.advise.advise`: :class:`Advice` and its views.

:class:`Advice` carries the recommended buffer and its range, the table of
rules, models, fluid and packet side by side, every run, the trade-off, the
costs and the convergence check, and shows them as text tables
(:meth:`Advice.formatted`, :meth:`Advice.cost_table`), JSON
(:meth:`Advice.to_dict`), a figure (:meth:`Advice.plot`), report sections
(:meth:`Advice.sections`) and HTML. The table's packet columns
(:func:`measured_table`) and the costs (:func:`costs`, :data:`COSTS`) are
computed here from the runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim._stats import t_half_width
from bufsim.advise.objectives import Objective, cannot_judge, judged, observed
from bufsim.advise.rules import table_row
from bufsim.scenario import Scenario


@dataclass
class Advice:
    """The answer of :func:`advise`.

    Attributes
    ----------
    objectives : list of Objective
    feasible : bool
        Some buffer meets every objective.
    buffer_pkts, buffer_bytes : float
        The recommended buffer: the smallest grid buffer meeting every
        objective with the requested confidence (NaN if infeasible).
    range : tuple of float
        Smallest and largest grid buffers meeting every objective, packets.
    binding : str
        The objective that sets the answer (or, infeasible, the pair that
        conflict), in words.
    table : pandas.DataFrame
        Rules, models, fluid scan and packet verification side by side:
        ``source``, ``buffer_pkts``, ``applies``, ``note``, where the
        packet engine ran there each objective's measured mean (and
        ``meets all``), and each objective as the analytic model predicts
        it at that buffer (``"<objective> (model)"``, NaN where the model
        has no such metric or does not cover the traffic).
    runs : pandas.DataFrame
        Every fluid and packet run of the search (a sweep table).
    confidence : float
        One-sided confidence of each objective's check.
    method : str
        How the search went, in words.
    notes : list of str
        What the search derived or found on the way (time scales, adaptive
        seeds, convergence warnings starting with ``WARNING``).
    convergence : pandas.DataFrame
        Per packet run (``buffer_pkts``, ``seed``) and objective metric
        (``metric``): its value over the first and the second half of the
        measurement window and whether they agree within
        :data:`CONVERGENCE_TOL` (``converged``).
    duration_s, warmup_s : float
        The packet runs' duration and warm-up, seconds (derived from the
        scenario's time scales when it does not give them).
    costs : pandas.DataFrame
        What the recommended buffer and every rule's buffer the packet
        engine measured cost: loss, timeouts, queueing delay, fairness and
        completions, each with its interval over seeds (:func:`costs`).
    scenario : Scenario or None
        The scenario the advice is for (its buffer aside), with the
        duration and warm-up the search used.
    wall_s : float
        Wall time of the whole search, seconds.
    """

    objectives: list[Objective]
    feasible: bool
    buffer_pkts: float
    buffer_bytes: float
    range: tuple[float, float]
    binding: str
    table: pd.DataFrame
    runs: pd.DataFrame
    confidence: float
    packet_size_bytes: int
    method: str = ""
    notes: list[str] = field(default_factory=list)
    convergence: pd.DataFrame = field(default_factory=pd.DataFrame)
    duration_s: float = math.nan
    warmup_s: float = math.nan
    costs: pd.DataFrame = field(default_factory=pd.DataFrame)
    scenario: Scenario | None = None
    wall_s: float = math.nan

    @property
    def sized(self) -> str:
        """What :attr:`buffer_pkts` sizes: ``"buffer"`` (``link.buffer``),
        for a shared pool ``"pool size"`` (``pool.size``), for a chain
        ``"buffer of each link"`` (every ``links[i].buffer``)."""
        norm = self.scenario.normalized if self.scenario is not None else {}
        if "pool" in norm:
            return "pool size"
        return "buffer of each link" if "links" in norm else "buffer"

    def provenance(self) -> dict[str, Any]:
        """What the answer rests on and what it cost: bufsim's version and
        commit, the seeds, the packet and fluid runs (cached ones included,
        and how many of them ran in this search), how many packet runs
        stopped once their verdicts were known (``output.stop``), the packet
        runs' simulated seconds and bottleneck packets (delivered and dropped), the wall
        seconds of the packet runs (summed, as each run measured it, in
        whichever search ran it) and of the search."""
        from bufsim import provenance

        runs = self.runs
        packet = runs[runs["engine"] == "packet"] if "engine" in runs else runs.iloc[:0]
        # The fluid scan and its reruns at a set synchronization ("fluid X=...").
        fluid = runs[runs["engine"].str.startswith("fluid")] if "engine" in runs else runs.iloc[:0]
        return {
            "bufsim version": provenance.__version__,
            "commit": provenance.commit(),
            "seeds": ", ".join(str(int(v)) for v in sorted(packet["seed"].unique()))
            if len(packet)
            else "",
            "packet runs": len(packet),
            "packet runs run now": int((~packet["cached"].astype(bool)).sum())
            if "cached" in packet
            else len(packet),
            "fluid runs": len(fluid),
            "simulated s (packet runs)": float(simulated_s(packet, self.duration_s).sum()),
            "packet runs stopped early": int((packet["stopped_early"] == 1.0).sum())
            if "stopped_early" in packet
            else 0,
            "packets simulated (packet runs)": float(
                sum(
                    packet[k].sum() for k in ("packets_delivered", "packets_dropped") if k in packet
                )
            ),
            "wall s (packet runs)": float(packet["wall_s"].sum())
            if "wall_s" in packet
            else math.nan,
            "wall s (search)": self.wall_s,
        }

    @property
    def converged(self) -> bool:
        """No convergence warning at the decisive buffers (both edges of
        :attr:`range` and their outer grid neighbours; infeasible, the
        buffers the binding objectives name)."""
        return not any(n.startswith("WARNING: not converged") for n in self.notes)

    def tradeoff(self) -> pd.DataFrame:
        """What each buffer the packet engine measured gives, and which are
        Pareto-optimal: the choices left when no buffer meets every objective.

        Returns
        -------
        pandas.DataFrame
            One row per measured buffer (packets, ascending): each
            objective's mean over the seeds (its column named by the
            objective; SI units), whether that mean is only a lower bound
            (``"<objective> censored"``: some seed's completion time is,
            :func:`observed`), whether it holds at the requested confidence
            (``"<objective> holds"``), the verdict in words
            (``"<objective> verdict"``: ``holds``, ``fails`` or ``cannot be
            judged``, :func:`cannot_judge`), and ``pareto``: no other measured
            buffer is at least as good on every objective and better on one
            (better: higher for a ``>=`` objective, lower for ``<=``;
            differences within 0.1% of the objective's bound are ties, so
            that 0.99996 against 1.0 does not make a larger buffer "better").
            A buffer with a lower bound among its values is never on the
            front, and a lower bound beats no other buffer's value: its
            true value is unknown.
        """
        runs = self.runs
        if runs.empty or "engine" not in runs:
            return pd.DataFrame()
        packet = runs[runs["engine"] == "packet"]
        rows = [
            {"buffer_pkts": float(b), **_measured(g, self.objectives, self.confidence)}
            for b, g in packet.groupby("buffer_pkts")
        ]
        t = pd.DataFrame(rows).sort_values("buffer_pkts", ignore_index=True)
        censored = t[[f"{o.text} censored" for o in self.objectives]].to_numpy()
        # Oriented so that larger is better for every objective; a lower
        # bound on a "<=" objective may be any worse value: -inf.
        score = np.column_stack(
            [
                np.where(censored[:, k], -np.inf, t[o.text] * (1 if o.op == ">=" else -1))
                for k, o in enumerate(self.objectives)
            ]
        )
        tie = np.array([1e-3 * max(abs(o.bound), 1e-12) for o in self.objectives])
        t["pareto"] = [
            not censored[i].any()
            and not any(
                (score[j] >= score[i] - tie).all() and (score[j] > score[i] + tie).any()
                for j in range(len(t))
                if j != i
            )
            for i in range(len(t))
        ]
        for o in self.objectives:
            t[f"{o.text} verdict"] = [
                "holds" if h else "cannot be judged" if cannot_judge(o, v, c) else "fails"
                for h, v, c in zip(t[f"{o.text} holds"], t[o.text], t[f"{o.text} censored"])
            ]
        return t

    def formatted(self, frame: pd.DataFrame) -> pd.DataFrame:
        """:attr:`table` or :meth:`tradeoff` as text a reader takes in: each
        objective's measured and model values with their unit
        (:func:`bufsim.fmt.metric`), ``>= x`` where the measurement is only
        a lower bound; the ``censored`` flags folded into the values, and
        the ``holds`` flags into the trade-off's verdicts.

        Parameters
        ----------
        frame : pandas.DataFrame
            :attr:`table` or :meth:`tradeoff`.

        Returns
        -------
        pandas.DataFrame
            The same rows; objective columns as text.
        """
        out = frame.copy()
        for o in self.objectives:
            flag = f"{o.text} censored"
            censored = out[flag] if flag in out else pd.Series(False, index=out.index)
            if o.text in out:
                out[o.text] = [
                    fmt.metric(o.key, v, censored=bool(c)) for v, c in zip(out[o.text], censored)
                ]
            if f"{o.text} (model)" in out:
                out[f"{o.text} (model)"] = [fmt.metric(o.key, v) for v in out[f"{o.text} (model)"]]
            out = out.drop(columns=[flag], errors="ignore")
            if f"{o.text} verdict" in out:
                out = out.drop(columns=[f"{o.text} holds"], errors="ignore")
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (``bufsim advise --json``)."""
        from bufsim.result import plain

        return plain(
            {
                "objectives": [o.text for o in self.objectives],
                "feasible": self.feasible,
                "buffer_pkts": self.buffer_pkts,
                "buffer_bytes": self.buffer_bytes,
                "range_pkts": list(self.range),
                "binding": self.binding,
                "confidence": self.confidence,
                "method": self.method,
                "notes": self.notes,
                "converged": self.converged,
                "duration_s": self.duration_s,
                "warmup_s": self.warmup_s,
                "table": self.table.to_dict(orient="records"),
                "convergence": self.convergence.to_dict(orient="records"),
                "tradeoff": self.tradeoff().to_dict(orient="records"),
                "costs": self.costs.to_dict(orient="records"),
                "scenario": self.scenario.normalized if self.scenario is not None else None,
                "provenance": self.provenance(),
            },
            nan_to_none=True,
        )

    def cost_table(self) -> pd.DataFrame:
        """:attr:`costs` as text a reader takes in: per measured buffer, each
        metric's mean and interval over the seeds with its unit
        (:mod:`bufsim.fmt`), ``>=`` where only a lower bound is known.

        Returns
        -------
        pandas.DataFrame
            ``buffer`` (packets), ``source``, ``seeds`` and one column per
            metric (:data:`COSTS`, then completions and p99 FCT and slowdown
            per class with finite traffic).
        """
        names = {k: n for n, k in (*COSTS, *_finite_costs("small"), *_finite_costs("large"))}
        out = []
        for r in self.costs.to_dict("records"):
            row = {"buffer": f"{r['buffer_pkts']:g}", "source": r["source"], "seeds": r["seeds"]}
            for k in [c for c in self.costs.columns if f"{c} ±" in self.costs.columns]:
                censored = r.get(f"{k}_censored") == 1.0
                row[names[k]] = fmt.interval(k, r[k], r[f"{k} ±"], censored=censored)
            out.append(row)
        return pd.DataFrame(out)

    def plot(self) -> Any:
        """Each objective's metric against the buffer (packet runs with
        confidence bands, fluid beside them, at X = 0.3 and 1 too where paper
        004's rule ran), the bound, every rule's buffer, the recommendation
        and the range where every objective holds marked, and the means
        that are only lower bounds (triangles); each panel's title says
        the seeds behind each point (:func:`bufsim.plot.buffer_curves`);
        one panel per objective."""
        from bufsim import plot

        fig, axes = plot.figure(8.4, 3.2 * len(self.objectives), nrows=len(self.objectives))
        rules = {
            r.source: r.buffer_pkts
            for r in self.table.itertuples()
            if r.applies
            and r.source not in ("recommended", "fluid scan")
            and r.buffer_pkts == r.buffer_pkts
        }
        trade = self.tradeoff()
        for ax, o in zip(axes, self.objectives):
            plot.buffer_curves(
                self.runs,
                o.key,
                rules=rules,
                bound=o.bound,
                confidence=self.confidence,
                ax=ax,
                title=o.text,
            )
            # A mean over lower bounds is drawn like the others: mark it.
            low = trade[trade[f"{o.text} censored"]] if len(trade) else trade
            if len(low):
                ax.scatter(
                    low["buffer_pkts"],
                    low[o.text],
                    marker="^",
                    s=60,
                    facecolors="none",
                    edgecolors="#c00000",
                    zorder=5,
                    label="only a lower bound (unfinished transfers)",
                )
            if self.feasible:
                ax.axvspan(
                    *self.range, color="#2e7d32", alpha=0.08, lw=0, label="every objective holds"
                )
                ax.axvline(self.buffer_pkts, color="#2e7d32", lw=2, alpha=0.6, label="recommended")
            plot.outside(ax)
        return fig

    def sections(self, figures: bool = True) -> list[Any]:
        """The advice as report sections (:func:`bufsim.report.advice_sections`):
        the answer, its cost line and flags first, then the trade-off figure
        (``figures``), the tables, and the notes, settings and provenance
        last. What :meth:`to_html` and the notebook view show.

        Parameters
        ----------
        figures : bool
            Include the figure's section (the notebook view leaves it out).

        Returns
        -------
        list of bufsim.report.Section
            In the order a report shows them.
        """
        from bufsim.report import advice_sections

        return advice_sections(self, figures)

    def _title(self) -> str:
        return "bufsim advise: " + ", ".join(o.text for o in self.objectives)

    def to_html(self) -> str:
        """The self-contained HTML report of this advice (:meth:`sections`)."""
        from bufsim.report import render

        return render(self._title(), self.sections(), subtitle="advice")

    def _repr_html_(self) -> str:
        """Notebook view: the report's sections (:meth:`sections`) but the figure
        (:meth:`plot` draws it)."""
        import html

        parts = [f"<h3>{html.escape(self._title())}</h3>"]
        for sec in self.sections(figures=False):
            parts.append(f"<h4>{html.escape(sec.title)}</h4>")
            parts += [f"<p>{html.escape(p)}</p>" for p in sec.text]
            parts += [sec.html, sec.table]
        return f"<div>{''.join(parts)}</div>"


#: What a buffer costs, as a port engineer reads it: (column, summary key or
#: derived metric, unit key for bufsim.fmt). Completions and FCTs join where
#: the scenario has finite traffic.
COSTS = (
    ("utilization", "utilization"),
    ("loss rate", "drop_rate"),
    ("timeouts per flow per s", "flow_timeout_rate"),
    ("mean queueing delay", "mean_queue_delay_s"),
    ("p99 queueing delay", "p99_queue_delay_s"),
    ("Jain's index", "jain_index"),
)


def _finite_costs(c: str) -> tuple[tuple[str, str], ...]:
    """The costs of finite transfers of size class ``c`` (``small``/``large``):
    (name, summary key) as in :data:`COSTS`."""
    return (
        (f"completed, {c}", f"completion_{c}"),
        (f"p99 FCT, {c}", f"fct_p99_{c}_s"),
        (f"p99 slowdown, {c}", f"slowdown_p99_{c}"),
    )


def simulated_s(runs: pd.DataFrame, duration_s: float) -> pd.Series:
    """Each packet run's simulated seconds: where it stopped (``end_s``,
    ``output.stop``), else ``duration_s``."""
    end = runs["end_s"] if "end_s" in runs else pd.Series(math.nan, index=runs.index)
    return end.fillna(duration_s).astype(float)


def costs(
    table: pd.DataFrame,
    runs: pd.DataFrame,
    duration_s: float,
    warmup_s: float,
    confidence: float,
) -> pd.DataFrame:
    """What each buffer the packet engine measured in ``table`` (the
    recommendation and every rule it checked) costs: per metric of
    :data:`COSTS` (and completions and p99 FCT per class with finite
    traffic) the mean over the seeds and the half-width of its two-sided
    Student t interval at ``confidence`` (NaN with one seed).

    Parameters
    ----------
    table : pandas.DataFrame
        The advice's table (``source``, ``buffer_pkts`` in packets).
    runs : pandas.DataFrame
        Every run of the search (a sweep table).
    duration_s, warmup_s : float
        The runs' duration and warm-up, seconds: each run's measurement
        window, from the warm-up to the run's end (``end_s`` where it
        stopped early, ``output.stop``, else the duration), makes its
        timeouts per flow a rate per second.
    confidence : float
        The two-sided confidence of the intervals (0..1).

    Returns
    -------
    pandas.DataFrame
        One row per (source, buffer): ``source``, ``buffer_pkts``,
        ``seeds``, and per metric key ``k`` the columns ``k`` (mean, SI
        units) and ``k ±`` (half-width); ``k_censored`` is 1 where some
        seed's value is only a lower bound.
    """
    if runs.empty or "engine" not in runs:
        return pd.DataFrame()
    packet = runs[runs["engine"] == "packet"].copy()
    window_s = simulated_s(packet, duration_s) - warmup_s
    packet["flow_timeout_rate"] = (
        packet["timeouts"] / packet["active_flows_mean"].clip(lower=1) / window_s
    )
    keys = [k for _, k in COSTS]
    for c in ("small", "large"):
        if f"flows_started_{c}" in packet:
            keys += [k for _, k in _finite_costs(c)]
    rows = []
    for r in table.itertuples():
        b = r.buffer_pkts
        g = packet[packet["buffer_pkts"] == float(round(b))] if b == b else packet.iloc[:0]
        if g.empty:
            continue
        row: dict[str, Any] = {"source": r.source, "buffer_pkts": float(b), "seeds": len(g)}
        for k in keys:
            v = g[k].to_numpy(dtype=float) if k in g else np.array([math.nan])
            row[k] = float(np.mean(v))
            row[f"{k} ±"] = (
                t_half_width(v, 0.5 + confidence / 2)
                if len(v) > 1 and np.isfinite(v).all()
                else math.nan
            )
            if f"{k}_censored" in g:
                row[f"{k}_censored"] = float((g[f"{k}_censored"] == 1.0).any())
        rows.append(row)
    return pd.DataFrame(rows)


def measured_table(
    table: pd.DataFrame,
    runs: pd.DataFrame,
    objs: list[Objective],
    confidence: float,
    feasible: bool,
    rec: float,
) -> pd.DataFrame:
    """Each row's packet measurement (:func:`_measure`: objective means,
    whether each is only a lower bound, ``meets all``) and the recommendation.

    Parameters
    ----------
    table : pandas.DataFrame
        The rules' rows (:func:`bufsim.advise.rules.table_row`); gains the
        measurement's columns, in place.
    runs : pandas.DataFrame
        Every run of the search (a sweep table).
    objs : list of Objective
        The objectives.
    confidence : float
        One-sided confidence of each objective's check (0..1).
    feasible : bool
        Whether some buffer meets every objective.
    rec : float
        The recommended buffer, packets (NaN if infeasible).

    Returns
    -------
    pandas.DataFrame
        ``table``'s rows and a ``"recommended"`` row after them.
    """
    measured = [_measure(runs, r.buffer_pkts, objs, confidence) for r in table.itertuples()]
    for col in _measure(runs, math.nan, objs, confidence):
        table[col] = [m[col] for m in measured]
    rec_row = table_row(
        "recommended", rec, feasible, "packet engine, smallest grid buffer meeting every objective"
    )
    rec_row.update(_measure(runs, rec, objs, confidence))
    return pd.DataFrame([*table.to_dict("records"), rec_row], columns=list(table.columns))


def _measured(runs: pd.DataFrame, objs: list[Objective], confidence: float) -> dict[str, Any]:
    """Per objective, over the packet runs ``runs`` at one buffer: its mean
    (column named by the objective), whether that is only a lower bound
    (``"<objective> censored"``, :func:`observed`) and whether it holds
    at ``confidence`` (``"<objective> holds"``; a lower bound never meets
    an upper bound, :func:`judged`)."""
    row: dict[str, Any] = {}
    for o in objs:
        row[o.text], row[f"{o.text} censored"] = observed(runs, o.key)
        per_seed = judged(runs, o.key) if o.key in runs else np.array([])
        row[f"{o.text} holds"] = o.holds(per_seed.tolist(), confidence)
    return row


def _measure(
    runs: pd.DataFrame, b: float, objs: list[Objective], confidence: float
) -> dict[str, Any]:
    """The packet runs at buffer ``b`` (packets) as :attr:`Advice.table`
    shows them: per objective its mean and ``"<objective> censored"``
    (:func:`_measured`; NaN and False where not run), then ``meets all``
    (None where not run)."""
    g = runs.iloc[:0] if runs.empty or b != b else runs
    if len(g):
        g = g[(g["engine"] == "packet") & (g["buffer_pkts"] == float(int(round(b))))]
    m = _measured(g, objs, confidence)
    out: dict[str, Any] = {}
    for o in objs:
        out[o.text], out[f"{o.text} censored"] = m[o.text], m[f"{o.text} censored"]
    out["meets all"] = all(m[f"{o.text} holds"] for o in objs) if len(g) else None
    return out
