"""``bufsim advise``: from an objective to a verified buffer size.

For one link (a scenario whose ``link.buffer`` is ignored) and objectives
such as ``utilization>=0.98`` and ``p99_queue_delay<=5ms``, :func:`advise`

0. derives ``duration`` and ``warmup`` from the scenario's time scales when
   it does not give them (:func:`bufsim.timescales.time_scales`);
1. checks that the objectives can be met at all (a utilization target on a
   link the traffic cannot saturate, paper 002 section 3.2, is refused with
   what would be needed; flow completion times need finite traffic);
2. lists every published rule (BDP, Stanford ``CT/sqrt(N)``, paper 002's
   loss formula, paper 003's B0 for synchronized and desynchronized flows,
   paper 001's HighSpeed fixed point, paper 000's transparent regime, paper
   004's fluid loss-synchronization range at X = 0.3 and 1) with its buffer,
   or why it does not apply to this traffic;
3. scans a log grid of buffers with the fluid engine (where the scenario has
   a fluid form) to bracket the answer;
4. searches the smallest buffer that meets every objective with the packet
   engine: a bisection over the grid for the monotone objectives, an
   interval search (scan one buffer per doubling, bisect both edges) for
   flow completion times, ``seeds`` runs per probed buffer and more where a
   verdict is undecided (adaptive seeds), each objective judged on a
   one-sided Student t confidence bound over the seeds; the buffer one grid
   step below must fail;
5. measures every rule's buffer with the packet engine too;
6. checks that each packet run converged: every objective's metric over the
   first and the second half of its measurement window agree
   (:data:`CONVERGENCE_TOL`; the packet engine measures both halves with
   ``output.halves``), with a warning in :attr:`Advice.notes` where they do
   not at the decisive buffers.

Every run goes through :func:`bufsim.sweep`, so the results store caches it
(an interrupted search resumes where it stopped) and a Dask scheduler
spreads it. Objectives that pull apart (utilization wants a large buffer,
delay a small one) give a trade-off, not an error: :class:`Advice` then says
which objective binds and keeps the runs for the trade-off curve.

Monotonicity is assumed along the buffer axis for utilization, goodput,
fairness, loss and queueing delay objectives: the first four hold from some
buffer up, delay objectives up to some buffer. Flow completion times are
assumed to hold on one interval of buffers (a note says so when the scan
sees two). The grid has four points per doubling of the buffer (ratio
2^(1/4), 19%), in ``quick`` mode two (41%).

Example
-------
>>> a = bufsim.advise(bufsim.examples.path("advise-10g"),
...                   ["utilization>=0.98", "p99_queue_delay<=5ms"])   # doctest: +SKIP
>>> a.buffer_pkts, a.range                                             # doctest: +SKIP
"""

from __future__ import annotations

import copy
import itertools
import logging
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, fmt, models
from bufsim._core import BufsimError
from bufsim._stats import t_half_width
from bufsim.scenario import Scenario
from bufsim.timescales import time_scales

log = logging.getLogger(__name__)

__all__ = ["Advice", "AdviceError", "AdviseProgress", "Objective", "advise", "parse_objective"]


class AdviceError(BufsimError, ValueError):
    """The question cannot be answered as asked (bad objective, unreachable target)."""


#: objective name -> (summary key it reads, unit kind of its bound). Which
#: way it moves with the buffer: :attr:`Objective.grows_with_buffer`.
METRICS: dict[str, tuple[str, str]] = {
    "utilization": ("utilization", "fraction"),
    "drop_rate": ("drop_rate", "fraction"),
    "jain_index": ("jain_index", "fraction"),
    "mean_queue_delay": ("mean_queue_delay_s", "time"),
    "p50_queue_delay": ("p50_queue_delay_s", "time"),
    "p99_queue_delay": ("p99_queue_delay_s", "time"),
    "goodput": ("goodput_bps", "rate"),
    # Flow completion times of finite transfers (bufsim.flows.fct_summary):
    # not monotone in the buffer (an interval search, see advise()).
    "fct_mean_small": ("fct_mean_small_s", "time"),
    "fct_p99_small": ("fct_p99_small_s", "time"),
    "fct_mean_large": ("fct_mean_large_s", "time"),
    "fct_p99_large": ("fct_p99_large_s", "time"),
}
_GROUP_GOODPUT = re.compile(r"goodput_bps_group(\d+)$")
_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"


@dataclass(frozen=True)
class Objective:
    """One objective: ``metric op bound``.

    Attributes
    ----------
    text : str
        As written (``"p99_queue_delay<=5ms"``).
    key : str
        The summary metric it reads (``p99_queue_delay_s``).
    op : str
        ``">="`` or ``"<="``.
    bound : float
        In SI units (seconds, bits/s, fractions).
    """

    text: str
    key: str
    op: str
    bound: float

    @property
    def grows_with_buffer(self) -> bool:
        """Whether the objective holds from some buffer up (else: up to some buffer)."""
        return not self.key.endswith("queue_delay_s")

    @property
    def monotone(self) -> bool:
        """Whether the objective changes one way along the buffer axis.

        Flow completion times do not: small flows' mean FCT on 10 Mbps with
        web traffic measured 1.0 s at 2 packets, 0.69 s at 100 and 1.7 s at
        300 (losses and timeouts at small buffers, queueing at large ones).
        """
        return not self.key.startswith("fct_")

    def _bound(self, values: Sequence[float], confidence: float) -> tuple[float, float] | None:
        """(mean, one-sided t bound toward failing) over the seeds; None without values."""
        v = np.asarray([x for x in values if x == x], dtype=float)
        if len(v) == 0:
            return None
        m = float(v.mean())
        half = 0.0
        # An infinite value (a completion time only known as a lower bound,
        # see _judged) decides the verdict alone: no interval around it.
        if len(v) > 1 and confidence > 0 and np.isfinite(v).all():
            half = t_half_width(v, confidence)
        return m, (m - half if self.op == ">=" else m + half)

    def holds(self, values: Sequence[float], confidence: float) -> bool:
        """Whether the objective holds on these per-seed values with the given
        one-sided confidence (Student t bound over seeds; the value itself
        with one seed)."""
        mb = self._bound(values, confidence)
        if mb is None:
            return False
        return mb[1] >= self.bound if self.op == ">=" else mb[1] <= self.bound

    def straddles(self, values: Sequence[float], confidence: float) -> bool:
        """Whether the verdict is undecided: the mean meets the bound and the
        one-sided t bound does not (with two seeds or more). More seeds
        narrow the interval (:func:`advise` runs them)."""
        mb = self._bound(values, confidence)
        if mb is None or len([x for x in values if x == x]) < 2:
            return False
        m, b = mb
        meets_mean = m >= self.bound if self.op == ">=" else m <= self.bound
        return meets_mean and not self.holds(values, confidence)


def _with_unit(field_: str, text: str, kind: str) -> float:
    text = text.strip()
    if kind == "fraction":
        m = re.fullmatch(rf"({_NUMBER})\s*(%?)", text)
        if not m:
            raise AdviceError(
                f"objective {field_!r}: a fraction is a number (or a percentage), got {text!r}"
            )
        return float(m.group(1)) / (100 if m.group(2) else 1)
    try:
        # The scenario's unit parsers (bufsim-core units.rs): one law for units.
        return _core.parse_quantity(text, "duration" if kind == "time" else "rate")
    except ValueError as e:
        raise AdviceError(f"objective {field_!r}: {e}") from None


def parse_objective(text: str) -> Objective:
    """Read an objective such as ``"utilization>=0.98"``, ``"p99_queue_delay<=5ms"``,
    ``"drop_rate<=1e-3"`` or ``"goodput_bps_group1>=20Mbps"``.

    Raises
    ------
    AdviceError
        Naming the objective and what is allowed.
    """
    if not isinstance(text, str):
        raise AdviceError(f"an objective is a string such as 'utilization>=0.98', got {text!r}")
    m = re.fullmatch(r"\s*([A-Za-z_0-9]+)\s*(>=|<=)\s*(.+?)\s*", text)
    if not m:
        raise AdviceError(
            f"objective {text!r}: write metric>=bound or metric<=bound, e.g. 'utilization>=0.98' or 'p99_queue_delay<=5ms'"
        )
    name, op, bound = m.groups()
    if _GROUP_GOODPUT.fullmatch(name):
        key, kind = name, "rate"
    elif name in METRICS:
        key, kind = METRICS[name]
    else:
        allowed = ", ".join([*METRICS, "goodput_bps_group<k>"])
        raise AdviceError(f"objective {text!r}: unknown metric {name!r}; allowed: {allowed}")
    value = _with_unit(text, bound, kind)
    if kind == "fraction" and not 0 <= value <= 1:
        raise AdviceError(f"objective {text!r}: a fraction must be between 0 and 1, got {value:g}")
    if value < 0 or not math.isfinite(value):
        raise AdviceError(f"objective {text!r}: the bound must be a finite number >= 0")
    expected = "<=" if key.endswith("_s") or key == "drop_rate" else ">="
    if op != expected:
        raise AdviceError(
            f"objective {text!r}: {name} is bounded {'above' if expected == '<=' else 'below'}: write {name}{expected}{bound}"
        )
    return Objective(text=text.strip(), key=key, op=op, bound=value)


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
        completions, each with its interval over seeds (:func:`_costs`).
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

    def provenance(self) -> dict[str, Any]:
        """What the answer rests on: bufsim's version and commit, the seeds,
        the packet and fluid runs (cached ones included), the packet runs'
        simulated seconds and the search's wall time (seconds)."""
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
            "fluid runs": len(fluid),
            "simulated s (packet runs)": float(len(packet) * self.duration_s),
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
            :func:`_observed`), whether it holds at the requested confidence
            (``"<objective> holds"``), the verdict in words
            (``"<objective> verdict"``: ``holds``, ``fails`` or ``cannot be
            judged``, :func:`_cannot_judge`), and ``pareto``: no other measured
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
                "holds" if h else "cannot be judged" if _cannot_judge(o, v, c) else "fails"
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
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from bufsim import plot

        fig = Figure(figsize=(6.4, 3.2 * len(self.objectives)), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(self.objectives), 1, squeeze=False)[:, 0]
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
            ax.legend(fontsize=8)
        return fig

    def sections(self, figures: bool = True) -> list[Any]:
        """The advice as report sections (:class:`bufsim.report.Section`):
        the answer with every note, the scenario with the stack each flow
        group assumes, how it was computed (provenance), the rules, models,
        fluid and packet side by side, the trade-off when no buffer meets
        every objective, the costs, and (``figures``) the figure. What
        :meth:`to_html` and the notebook view show.

        Parameters
        ----------
        figures : bool
            Include the figure's section (the notebook view leaves it out).

        Returns
        -------
        list of bufsim.report.Section
            In the order a report shows them.
        """
        from bufsim import plot
        from bufsim.report import Figure as RFigure
        from bufsim.report import Section, html_table

        verdict = (
            f"Recommended buffer: {self.buffer_pkts:g} packets "
            f"({fmt.metric('buffer_bytes', self.buffer_bytes)}); every objective holds from "
            f"{self.range[0]:g} to {self.range[1]:g} packets. {self.binding}"
            if self.feasible
            else f"No buffer meets every objective: {self.binding}"
        )
        about = self.scenario.describe(buffer=False) if self.scenario is not None else []
        prov = self.provenance()
        prov_frame = pd.DataFrame(
            {"field": list(prov), "value": [fmt.value(v) for v in prov.values()]}
        )
        sections = [
            Section("answer", "Answer", text=[t for t in (verdict, self.method, *self.notes) if t]),
            Section(
                "scenario", "Scenario (the stack each flow group assumes included)", text=about
            ),
            Section("provenance", "How it was computed", table=html_table(prov_frame)),
            Section(
                "table",
                "Rules, models, fluid and packet side by side",
                table=html_table(self.formatted(self.table)),
            ),
        ]
        trade = pd.DataFrame() if self.feasible else self.tradeoff()
        if not trade.empty:
            sections.append(
                Section(
                    "tradeoff",
                    "The trade-off: buffers the packet engine measured",
                    table=html_table(self.formatted(trade)),
                )
            )
        sections.append(
            Section(
                "costs",
                "What each measured buffer costs",
                text=[
                    "Packet engine: mean ± the half-width of a two-sided "
                    f"{self.confidence:.0%} Student t interval over the seeds."
                ],
                table=html_table(self.cost_table()),
            )
        )
        if figures:
            sections.append(
                Section(
                    "figures",
                    "Objectives against the buffer",
                    figures=[RFigure("fig-advice", plot.svg(self.plot()))],
                )
            )
        return sections

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
            parts.append(sec.table)
        return f"<div>{''.join(parts)}</div>"


def _grid(lo: float, hi: float, per_doubling: int) -> list[int]:
    """Whole-packet buffers from ``lo`` to ``hi``, ``per_doubling`` per factor 2."""
    n = int(math.ceil(math.log2(hi / lo) * per_doubling)) + 1
    vals = sorted({max(1, int(round(lo * 2 ** (k / per_doubling)))) for k in range(n)})
    return vals


def _left_out_notes(norm: Mapping[str, Any]) -> list[str]:
    """Notes on the groups the rules that count long-lived flows leave out."""
    return [
        f"flows[{i}] ({g['kind']} traffic) is left out of the rules that count long-lived flows"
        for i, g in enumerate(norm["flows"])
        if g["kind"] != "persistent"
    ]


def _default_stack_notes(raw: Mapping[str, Any]) -> list[str]:
    """A note for the flow groups that name no ``stack``: the answer assumes
    the ``rfc`` profile (``crates/bufsim-core/src/tcp/stack.rs``: an initial
    window of 1 packet, a 1 s minimum RTO and no handshake, so a 1 s first
    RTO), which real hosts do not run."""
    unnamed = [i for i, g in enumerate(raw.get("flows", [])) if "stack" not in g]
    if not unnamed:
        return []
    groups = ", ".join(f"flows[{i}]" for i in unnamed)
    return [
        f"{groups} name no stack, so this answer assumes the rfc profile (an initial window of "
        "1 packet, a 1 s minimum RTO and no handshake, so a 1 s first RTO); for a port carrying "
        'Linux hosts set stack = "linux"'
    ]


def _persistent_counts(norm: Mapping[str, Any]) -> dict[str, int]:
    """Long-lived flows per canonical TCP variant name."""
    out: dict[str, int] = {}
    for g in norm["flows"]:
        if g["kind"] == "persistent":
            out[g["tcp"]] = out.get(g["tcp"], 0) + int(g["count"])
    return out


def _flow_list(counts: Mapping[str, int], skip: Sequence[str] = ()) -> str:
    """``"1000 cubic, 5 bbr"``: the long-lived flows per variant, but those in ``skip``."""
    return ", ".join(f"{k} {t}" for t, k in sorted(counts.items()) if t not in skip)


def _left_out(counts: Mapping[str, int], covered: Sequence[str]) -> str:
    """``"; left out: 1000 cubic"`` for the long-lived flows a model does not cover."""
    rest = _flow_list(counts, covered)
    return f"; left out: {rest}" if rest else ""


def _only_variant(norm: Mapping[str, Any], tcp: str) -> dict[str, Any]:
    """``norm`` with only the long-lived groups of variant ``tcp``."""
    out = dict(norm)
    out["flows"] = [g for g in norm["flows"] if g["kind"] == "persistent" and g["tcp"] == tcp]
    return out


def _saturation(norm: Mapping[str, Any]) -> models.SaturationCheck | None:
    """Paper 002 section 3.2 on the scenario; None when a closed loop makes it unbounded."""
    cap = norm["link"]["capacity_bps"]
    rtts, acc, rw = [], [], []
    extra = sum(b["rate_bps"] for b in norm.get("background", []))
    for g in norm["flows"]:
        if g["kind"] == "closed":
            return None
        if g["kind"] == "open":
            extra += (g.get("offered_load") or 0.0) * cap
            continue
        rtts += list(g["rtts_s"])
        acc += [g.get("access_rate_bps") or math.inf] * len(g["rtts_s"])
        w = g.get("rwnd_pkts")
        rw += [w * g["mss_bytes"] if w else math.inf] * len(g["rtts_s"])
    if not rtts:
        return models.SaturationCheck(extra >= cap, extra, extra / cap)
    return models.saturable(cap, rtts, access_rate_bps=acc, rwnd_bytes=rw, background_bps=extra)


def _rules(
    norm: Mapping[str, Any], objectives: list[Objective], grid_hi: float
) -> list[dict[str, Any]]:
    link = norm["link"]
    bdp = float(link["bdp_pkts"])
    # Mixed variants: each model takes the long-lived flows it covers and
    # says which it left out.
    counts = _persistent_counts(norm)
    n, tcps = sum(counts.values()), sorted(counts)
    rows: list[dict[str, Any]] = []

    def add(source: str, b: float, applies: bool, note: str) -> None:
        rows.append({"source": source, "buffer_pkts": float(b), "applies": applies, "note": note})

    add("BDP", bdp, True, f"C x mean RTT ({link['bdp_rtt_s'] * 1e3:g} ms)")
    if n > 0:
        add(
            "Stanford CT/sqrt(N)",
            float(models.stanford_buffer_pkts(bdp, n)),
            True,
            f"N = {n} long-lived flows (paper 002 eq. 1)",
        )
    else:
        add("Stanford CT/sqrt(N)", math.nan, False, "no long-lived flows: N = 0")
    loss = [o for o in objectives if o.key == "drop_rate"]
    if loss and n > 0:
        b = float(models.loss_constrained_buffer_pkts(bdp, n, max(loss[0].bound, 1e-9)))
        add(
            "loss formula (paper 002 eq. 3)",
            b,
            True,
            f"p = (0.87 N)^2 / (CT + B)^2 <= {loss[0].bound:g}, N = {n}",
        )
    elif loss:
        add("loss formula (paper 002 eq. 3)", math.nan, False, "needs long-lived flows")
    else:
        add("loss formula (paper 002 eq. 3)", math.nan, False, "no drop_rate objective")
    n_aimd = sum(counts.get(t, 0) for t in ("newreno", "aimd"))
    for sync in (True, False):
        name = f"B0 {'synchronized' if sync else 'desynchronized'} (paper 003)"
        if n_aimd:
            b = float(models.b0_symmetric(bdp, n_aimd, synchronized=sync))
            note = f"smallest buffer for full utilization, N = {n_aimd} AIMD flows"
            add(name, b, True, note + _left_out(counts, ("newreno", "aimd")))
        else:
            add(name, math.nan, False, f"AIMD/Reno flows only; here {tcps or 'none'}")
    util = [o for o in objectives if o.key == "utilization"]
    n_hs = counts.get("highspeed", 0)
    if n_hs and util and link["qdisc"] == "droptail":
        hs_norm = _only_variant(norm, "highspeed")
        bufs = np.array(_grid(1, grid_hi, 4))
        t = models.sweep_buffer(hs_norm, bufs, model="highspeed_mm1k")
        ok = t[t["utilization"] >= util[0].bound]
        b = float(ok["buffer_pkts"].min()) if len(ok) else math.nan
        add(
            "HSTCP fixed point (paper 001)",
            b,
            bool(len(ok)),
            f"M/M/1/K fixed point reaching {util[0].text}, N = {n_hs} HighSpeed flows"
            + _left_out(counts, ("highspeed",)),
        )
    else:
        why = (
            "no utilization objective"
            if not util
            else "drop-tail only"
            if n_hs
            else f"HighSpeed flows only; here {tcps or 'none'}"
        )
        add("HSTCP fixed point (paper 001)", math.nan, False, why)
    _dctcp_rule(link, n, tcps, add)
    sat = _saturation(norm)
    if sat is not None and not sat.saturable and loss:
        b = float(models.transparent_buffer_pkts(sat.max_load, max(loss[0].bound, 1e-12)))
        add(
            "transparent regime (paper 000)",
            b,
            True,
            f"offered load {sat.max_load:.2f} < 1: M/D/1/K loss <= {loss[0].bound:g}",
        )
    else:
        why = (
            "the link is saturable (elastic regime)"
            if sat is None or sat.saturable
            else "no drop_rate objective"
        )
        add("transparent regime (paper 000)", math.nan, False, why)
    return rows


def _fluid_form(
    raw: Mapping[str, Any], norm: Mapping[str, Any], *, stack: bool = True
) -> tuple[dict[str, Any], str]:
    """The scenario the fluid scan runs, and what it changed (empty: nothing).

    The fluid engine models persistent flows without per-packet stack
    features. For the scan, which only brackets the packet search (the
    packet engine judges every buffer), finite-transfer groups become
    Poisson background at their offered load (bits/s = arrival rate x mean
    size x MSS x 8), and HyStart++, delayed ACKs and access links are turned
    off (with ``stack``). Random path loss has no such stand-in: it stays,
    and the fluid engine refuses it with its reason.
    """
    out = copy.deepcopy(dict(raw))
    flows, changed = [], []
    background = list(out.get("background", []))
    for k, (g, n) in enumerate(zip(out.get("flows", []), norm["flows"])):
        if n["kind"] != "persistent":
            bps = 0.0
            if n["kind"] == "open":
                bps = n["arrival_rate_per_s"] * n["mean_size_pkts"] * n["mss_bytes"] * 8
            if bps > 0:
                background.append(
                    {
                        "kind": "poisson",
                        "rate": f"{bps:.6g}bps",
                        "packet_size": f"{n['mss_bytes']}B",
                    }
                )
                changed.append(
                    f"flows[{k}] ({n['kind']}) as Poisson background of {fmt.metric('rate_bps', bps)}"
                )
            else:
                changed.append(f"flows[{k}] ({n['kind']}) left out")
            continue
        g = dict(g)
        if not stack:
            flows.append(g)
            continue
        for field_ in ("hystart", "delayed_ack"):
            if n[field_]:
                g[field_] = False
                changed.append(f"flows[{k}].{field_} off")
        if n["access_rate_bps"] is not None:
            g.pop("access_rate", None)
            g.pop("access_buffer", None)
            changed.append(f"flows[{k}] without its access link")
        flows.append(g)
    out["flows"] = flows
    if background:
        out["background"] = background
    return out, "; ".join(changed)


def _dctcp_rule(link: Mapping[str, Any], n: int, tcps: list[str], add: Callable) -> None:
    """DCTCP through step marking at K: the queue peaks at Q_max = K + N
    (Alizadeh et al., SIGCOMM 2010, section 3.3 eq. (9)), so that buffer
    holds it without loss; the link stays busy when K > C x RTT / 7 (eq. (13)).
    The row appears only when some flows are DCTCP."""
    name = "DCTCP K + N (Alizadeh 2010)"
    if "dctcp" not in tcps:
        return
    if not (all(t == "dctcp" for t in tcps) and link["qdisc"] == "threshold"):
        here = f"{tcps or 'none'} through {link['qdisc']}"
        add(
            name, math.nan, False, f"DCTCP flows through the threshold discipline only; here {here}"
        )
        return
    qp = link["qdisc_params"]
    k = qp["k"] if qp["k_unit"] == "packets" else qp["k"] / link["packet_size_bytes"]
    k_min = float(link["bdp_pkts"]) / 7
    verdict = "holds" if k > k_min else "fails: expect the queue to empty after each cut"
    add(
        name,
        float(k + n),
        True,
        f"Q_max = K + N = {k:g} + {n} (eq. 9); full utilization needs "
        f"K > C x RTT / 7 = {k_min:.1f} packets (eq. 13): {verdict}",
    )


def _with_buffer(raw: Mapping[str, Any], b: float) -> dict[str, Any]:
    s = copy.deepcopy(dict(raw))
    s["link"]["buffer"] = f"{int(b)}pkt"
    return s


@dataclass(frozen=True)
class AdviseProgress:
    """Where :func:`advise` is: what it does and how many runs are done.

    Attributes
    ----------
    phase : str
        ``"fluid scan"``, ``"fluid loss sync"``, ``"packet bisection"``,
        ``"packet interval scan"``, ``"adaptive seeds"``, ``"rule check"``
        or ``"done"``.
    message : str
        In words, e.g. ``"packet bisection 3/7: 152 packets x 5 seeds"``.
    done : int
        Runs finished (fluid and packet, cached ones included).
    total : int
        Runs expected (an estimate that grows when the search needs more).
    """

    phase: str
    message: str
    done: int
    total: int

    def __str__(self) -> str:
        return self.message


#: Adaptive seeds: at a buffer where some objective's verdict is undecided,
#: up to this many times ``seeds`` runs in all.
ADAPTIVE_MAX_FACTOR = 3
#: The X values of paper 004's fluid loss-synchronization range (section
#: III.A: X = 1 all flows lose at each congestion event; 0.3 its least
#: synchronized case).
SYNC_RANGE = (0.3, 1.0)
#: The fluid form is resynchronized (:meth:`_Search.resync`) when the packet
#: engine's measured loss synchronization (``sync_mean``) at its edge is below
#: the fluid scan's at the nearest buffer by more than this factor.
SYNC_GAP = 2.0
#: The least X a resynchronized fluid scan uses (``fluid.sync`` must be > 0).
SYNC_FLOOR = 0.01
#: Convergence: the largest difference between the first and second half of
#: a packet run's measurement window (the core's ``<metric>_half1`` and
#: ``_half2``, ``output.halves``), per kind of objective: fractions
#: (utilization, Jain's index) absolute; goodputs absolute, as a fraction of
#: the link's capacity; loss rates relative, with a floor of 1e-4; queueing
#: delays relative, with a floor of one packet's transmission time; flow
#: completion times relative.
CONVERGENCE_TOL = {"fraction": 0.01, "goodput": 0.01, "loss": 0.25, "delay": 0.2, "fct": 0.2}


class _Budget(Exception):
    pass


def _check_arguments(
    objectives: Iterable[str], confidence: float, seeds: int, engines: Sequence[str]
) -> list[Objective]:
    objs = [parse_objective(o) for o in objectives]
    if not objs:
        raise AdviceError("give at least one objective, e.g. 'utilization>=0.98'")
    if not 0 < confidence < 1:
        raise AdviceError(f"confidence must be between 0 and 1, got {confidence!r}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise AdviceError(f"seeds must be a whole number >= 1, got {seeds!r}")
    unknown = set(engines) - {"rules", "fluid", "packet", "ns3"}
    if unknown or "packet" not in engines:
        raise AdviceError(
            f"engines must include 'packet' and be among rules, fluid, packet, ns3; got {list(engines)}"
        )
    return objs


def _raw_scenario(scenario: Any) -> dict[str, Any]:
    """The scenario as written (before validation), so missing times can be filled."""
    from bufsim import scenario as sc

    if isinstance(scenario, Scenario):
        return copy.deepcopy(scenario.raw)
    if isinstance(scenario, Mapping):
        return copy.deepcopy(dict(scenario))
    if isinstance(scenario, (str, Path)):
        raw = sc.read_file(Path(scenario))
        if isinstance(raw, dict):
            sc.resolve_paths(raw, Path(scenario).parent)
            return raw
    return Scenario.load(scenario).raw  # raises the scenario error


def with_time_scales(scenario: Any) -> tuple[Scenario, str]:
    """The scenario with ``duration``/``warmup`` derived from its time scales
    (:func:`bufsim.timescales.time_scales`) where it does not give them, and
    a note saying what was chosen (empty when it gives both)."""
    raw = _raw_scenario(scenario)
    if not isinstance(raw, dict) or ("duration" in raw and "warmup" in raw):
        return Scenario.load(scenario if not isinstance(raw, dict) else raw), ""
    probe = dict(raw)
    # A placeholder long enough for any start time, only to read the time scales.
    probe.setdefault("duration", "3600s")
    probe.pop("warmup", None)
    ts = time_scales(Scenario(probe).normalized)
    given = "duration" in raw
    if given:
        duration = Scenario(probe).normalized["duration_s"]
        warm = min(ts["warmup_s"], duration / 2)
        raw["warmup"] = f"{warm:g}s"
        note = f"warm-up {warm:g} s derived from the scenario's time scales ({ts['why']})"
    else:
        raw["duration"] = f"{ts['duration_s']:g}s"
        raw.setdefault("warmup", f"{ts['warmup_s']:g}s")
        note = (
            f"duration {raw['duration']} and warm-up {raw['warmup']} derived from the "
            f"scenario's time scales ({ts['why']})"
        )
    return Scenario(raw), note


def cost(
    scenario: Any, objectives: Iterable[str] = ("utilization>=0.98",), *, quick: bool = False
) -> dict[str, Any]:
    """What :func:`advise` on ``scenario`` is expected to run, before it runs.

    The search's own estimate of its runs (the grid, a bisection per
    objective edge, the rules' checks; adaptive seeds and interval scans can
    add more) times what one packet run costs (:func:`bufsim.limits.estimate`
    at a buffer of one BDP).

    Parameters
    ----------
    scenario : Scenario, dict or path
        As :func:`advise` takes it (``duration`` may be left out).
    objectives : iterable of str
        The objectives (their kind sets the search); default utilization.
    quick : bool
        The ``--quick`` search.

    Returns
    -------
    dict
        ``packet_runs``, ``fluid_runs`` (counts), ``packets_per_run`` and
        ``packets`` (bottleneck packets, one run and all), ``duration_s``
        and ``warmup_s`` of each run (seconds), ``timing`` (how they were
        derived, empty when given).
    """
    from bufsim import limits

    objs = _check_arguments(objectives, 0.95, 5, ("rules", "fluid", "packet"))
    scn, timing = with_time_scales(scenario)
    s = _Search(
        scn,
        objs,
        engines=("rules", "fluid", "packet"),
        seeds=5,
        confidence=0.95,
        quick=quick,
        budget=None,
        sweep_options={},
        progress=None,
    )
    s.estimate(_rules(s.norm, objs, s.hi))
    at_bdp = Scenario(_with_buffer(s.raw, s.bdp))
    per_run = float(limits.estimate(at_bdp, "packet")["work"])
    return {
        "packet_runs": s.expected["packet"],
        "fluid_runs": s.expected["fluid"],
        "packets_per_run": per_run,
        "packets": per_run * s.expected["packet"],
        "duration_s": float(s.norm["duration_s"]),
        "warmup_s": float(s.norm["warmup_s"]),
        "timing": timing,
    }


def _check_fit(objs: list[Objective], norm: Mapping[str, Any]) -> None:
    """Refuse objectives the scenario cannot measure or meet, naming them."""
    link = norm["link"]
    finite = [g["kind"] for g in norm["flows"] if g["kind"] != "persistent"]
    for o in objs:
        if _GROUP_GOODPUT.fullmatch(o.key) and int(o.key.rsplit("group", 1)[1]) >= len(
            norm["flows"]
        ):
            raise AdviceError(
                f"objective {o.text!r}: the scenario has {len(norm['flows'])} flow groups"
            )
        if o.key.startswith("fct_") and not finite:
            raise AdviceError(
                f"objective {o.text!r}: flow completion times need transfers that finish; this "
                "scenario has only long-lived (persistent) flows; add a flow group with finite, "
                "open (arrival) or closed (users) traffic"
            )
    util = [o for o in objs if o.key == "utilization"]
    sat = _saturation(norm)
    if util and sat is not None and sat.max_load < util[0].bound:
        raise AdviceError(
            f"objective {util[0].text!r} cannot be met at any buffer: the link is not saturable "
            f"(paper 002 section 3.2): its flows and background can offer at most {sat.max_load:.3f} of the "
            f"capacity ({sat.max_offered_bps / 1e6:.4g} of {link['capacity_bps'] / 1e6:.4g} Mbps); "
            f"it would need {util[0].bound * link['capacity_bps'] / 1e6:.4g} Mbps of offered traffic "
            "(more flows, faster access links or larger receive windows)"
        )


@dataclass
class _Edges:
    """Grid indices the packet search found (None: not found / stopped)."""

    lower: int | None = None  # first index where the "grows" objectives hold
    upper: int | None = None  # last index where the "shrinks" objectives hold
    interval: tuple[int, int] | None = (0, 0)  # feasible interval of the non-monotone ones
    stopped: str = ""
    notes: list[str] = field(default_factory=list)


class _Search:
    """The state of one :func:`advise` search, phase by phase."""

    def __init__(
        self,
        scn: Scenario,
        objs: list[Objective],
        *,
        engines: Sequence[str],
        seeds: int,
        confidence: float,
        quick: bool,
        budget: int | None,
        sweep_options: dict[str, Any],
        progress: Callable[[AdviseProgress], Any] | None,
    ):
        self.scn, self.objs, self.engines = scn, objs, engines
        self.raw, self.norm = scn.raw, scn.normalized
        self.fluid_raw, self.fluid_changes = _fluid_form(self.raw, self.norm)
        self.confidence, self.budget = confidence, budget
        self.seeds = min(seeds, 2) if quick else seeds
        self.seed_list = list(range(1, self.seeds + 1))
        self.per_doubling = 2 if quick else 4
        link = self.norm["link"]
        self.bdp = max(float(link["bdp_pkts"]), 1.0)
        self.hi = max(4 * self.bdp, 16.0)
        self.grid = _grid(1.0, self.hi, self.per_doubling)
        self.sweep_options = sweep_options
        self.progress = progress
        self.runs: list[pd.DataFrame] = []
        self.probed: dict[int, list[bool]] = {}
        self.packet_runs = 0
        self.adaptive: dict[int, int] = {}  # buffer -> seeds run there when more than seeds
        self.undecided: list[int] = []
        # (buffer, metric) -> (lower bound, unfinished, started) where a
        # completion-time objective cannot be judged.
        self.unjudged: dict[tuple[int, str], tuple[float, int, int]] = {}
        self.done, self.total = 0, 0
        self.phase = self.message = ""
        self.quick = quick
        # What the fluid scan found: its error, or the objectives it measures.
        self.fluid_error = ""
        self.fluid_objs: list[Objective] = []
        # The fluid engine's grid: every other point in quick mode.
        self.fluid_grid = self.grid[:: 2 if quick else 1]
        # Grid indices where the fluid scan puts the edges (None: no scan).
        self.guess_up: int | None = None
        self.guess_down: int | None = None
        self.fluid_table = pd.DataFrame()
        # The fluid edge moved by the packet engine's measurement there
        # (:meth:`calibrated_guess`; None: not moved).
        self.calibrated: int | None = None
        # The fluid edge at the packet engine's measured synchronization
        # (:meth:`resync`): (X, grid index of its edge or None, the packet
        # and the fluid sync_mean that asked for it); None: not run.
        self.resynced: tuple[float, int | None, float, float] | None = None

    # -------------------------------------------------------------- running

    def say(self, phase: str, message: str) -> None:
        self.phase, self.message = phase, message
        log.info("advise: %s", message)
        self._report(message)

    def _report(self, message: str) -> None:
        self.total = max(self.total, self.done)
        if self.progress is not None:
            self.progress(AdviseProgress(self.phase, message, self.done, self.total))

    def run(
        self,
        buffers: list[int],
        engine: str,
        seed_list: list[int],
        overrides: Mapping[str, Any] | None = None,
    ) -> pd.DataFrame:
        """One sweep of ``buffers`` x ``seed_list`` (cached runs come from the store)."""
        from bufsim.sweep import sweep

        base = _with_buffer(self.fluid_raw if engine == "fluid" else self.raw, buffers[0])
        # Overrides merge into the base's tables one level deep: a
        # {"fluid": {"sync": x}} keeps the scenario's other fluid settings.
        for k, v in copy.deepcopy(dict(overrides or {})).items():
            base[k] = (
                {**base[k], **v} if isinstance(v, dict) and isinstance(base.get(k), dict) else v
            )
        if engine == "packet":
            # Each metric over both halves of the window too (the convergence check).
            base["output"] = {**base.get("output", {}), "halves": True}
        start = self.done

        def tick(_: Mapping[str, Any]) -> None:
            self.done += 1
            self._report(self.message)

        out = sweep(
            base,
            grid={"link.buffer": [f"{b}pkt" for b in buffers]},
            engines=[engine],
            seeds=seed_list,
            progress=tick,
            **self.sweep_options,
        )
        self.done = start + len(buffers) * len(seed_list)
        return out

    def packet(self, b: int, seed_list: list[int]) -> pd.DataFrame:
        if self.budget is not None and self.packet_runs + len(seed_list) > self.budget:
            raise _Budget()
        t = self.run([b], "packet", seed_list)
        failed = t[t["status"] != "ok"]
        if len(failed):
            # A failed run has no metrics: judging it would read as "the
            # objective fails here" and move the answer. Stop and say why.
            raise AdviceError(
                f"the packet run at {b} packets (seed {failed['seed'].iloc[0]}) failed: "
                f"{failed['error'].iloc[0]}"
            )
        self.runs.append(t)
        self.packet_runs += len(seed_list)
        return t

    def ns3_check(self, b: int) -> str:
        """ns-3 at buffer ``b`` over the packet runs' seeds: a note with each
        objective's mean in both engines and whether it holds in ns-3."""
        from bufsim import ns3

        self.say("ns3", f"ns-3 at {b} packets, {len(self.seed_list)} seeds")
        t = self.run([b], "ns3", self.seed_list)
        failed = t[t["status"] != "ok"]
        if len(failed):
            return f"ns-3 could not run at {b} packets: {failed['error'].iloc[0]}"
        parts = []
        for o in self.objs:
            ok = o.holds(_judged(t, o.key).tolist(), self.confidence)
            parts.append(
                f"{o.text}: ns-3 {_shown(t, o.key)}, packet {_shown(self.at(b), o.key)} "
                f"({'met' if ok else 'NOT met'} in ns-3)"
            )
        return (
            f"ns-3 {ns3.version()} at the recommended {b} packets ({len(self.seed_list)} seeds): "
            + "; ".join(parts)
        )

    def values(self, b: int, key: str) -> list[float]:
        """Every packet run's ``key`` at buffer ``b`` so far.

        A completion-time statistic that unfinished transfers leave
        unidentified is only a lower bound (:func:`bufsim.flows.fct_summary`):
        it reads as infinite, so that no upper bound on it is judged met
        there, and the buffer is noted in :attr:`unjudged`."""
        g = self.at(b)
        if key not in g:
            return []
        censored = g.get(f"{key}_censored", pd.Series(0.0, index=g.index)) == 1.0
        if censored.any():
            self.unjudged[(b, key)] = _unfinished(g[censored], key)
        return _judged(g, key).tolist()

    def at(self, b: float) -> pd.DataFrame:
        """Every packet run at buffer ``b`` (packets) so far."""
        tables = [
            t[(t["engine"] == "packet") & (t["buffer_pkts"] == float(b))]
            for t in self.runs
            if "engine" in t
        ]
        return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()

    def unjudgeable(self, b: float, o: Objective) -> bool:
        """Whether the packet runs at buffer ``b`` cannot judge objective
        ``o`` (an upper bound on a completion time): some run's value is
        only a lower bound (:func:`_observed`) and the mean of those lower
        bounds and values still meets the bound, so the true mean may or
        may not. A lower bound already past the bound is a failure."""
        return _cannot_judge(o, *_observed(self.at(b), o.key))

    def cannot_judge(self, b: int) -> list[Objective]:
        """The objectives that fail at probed buffer ``b`` when each of them
        only cannot be judged there (:meth:`unjudgeable`), so no verdict
        "fails" is known at ``b``; empty otherwise."""
        failing = [o for o, ok in zip(self.objs, self.probed.get(b, [])) if not ok]
        return failing if failing and all(self.unjudgeable(b, o) for o in failing) else []

    # -------------------------------------------------------------- phases

    def estimate(self, rules: list[dict[str, Any]]) -> None:
        """The runs the search expects (the progress bar's total)."""
        n = len(self.grid)
        sync = "rules" in self.engines and not self.quick
        fluid = len(self.fluid_grid) * (1 + (len(SYNC_RANGE) if sync else 0))
        steps = 2 * (math.ceil(math.log2(n)) + 2)
        if any(not o.monotone for o in self.objs):
            steps += n // self.per_doubling + 2 * math.ceil(math.log2(self.per_doubling) + 1)
        checks = (
            0
            if self.quick
            else sum(1 for r in rules if r["applies"] and r["buffer_pkts"] == r["buffer_pkts"])
        )
        packet = (steps + checks) * self.seeds
        if self.budget is not None:
            packet = min(packet, self.budget)
        self.expected = {"packet": packet, "fluid": fluid if "fluid" in self.engines else 0}
        self.total = self.expected["fluid"] + packet

    def fluid_caveat(self) -> str:
        """What the fluid runs changed in the scenario (:func:`_fluid_form`), as a note."""
        return f" (fluid form of the scenario: {self.fluid_changes})" if self.fluid_changes else ""

    def fluid_scan(self) -> str:
        """Scan the grid with the fluid engine (every other point in ``quick``
        mode). Its edges, the first buffer meeting the objectives that grow
        with the buffer and the last meeting those that shrink, are where
        the packet search starts (:func:`_search`): the fluid model is no
        ground truth, so the packet search walks away from a wrong edge."""
        grid = self.fluid_grid
        self.say("fluid scan", f"fluid scan: {len(grid)} buffers")
        ft = self.run(grid, "fluid", [int(self.norm["seed"])])
        if not (ft["status"] == "ok").all():
            failed = ft[ft["status"] != "ok"]
            error = str(failed["error"].iloc[0])
            if not error.startswith("ScenarioError:"):
                # A run that crashed (not a refusal) says nothing about the
                # buffer: stop, as a failed packet run does.
                b = failed["buffer_pkts"].iloc[0]
                raise AdviceError(f"the fluid run at {b:g} packets failed: {error}")
            # A scenario without a fluid form: say why, go on with packets.
            self.fluid_error = error
            return "no fluid scan: " + self.fluid_error
        self.runs.append(ft)
        self.fluid_table = ft
        self.fluid_objs = [o for o in self.objs if o.key in ft and ft[o.key].notna().all()]
        measurable = [o for o in self.fluid_objs if o.monotone]
        if not measurable:
            return "fluid scan: the fluid engine measures none of the monotone objectives"
        said = []
        for grows in (True, False):
            objs = [o for o in measurable if o.grows_with_buffer == grows]
            if not objs:
                continue
            texts = " and ".join(o.text for o in objs)
            ok = [b for b, m in zip(grid, _meets(ft, objs, 0.0)) if m]
            if not ok:
                said.append(f"{texts} at no buffer of the grid")
            elif grows:
                self.guess_up = self.grid.index(ok[0])
                said.append(f"{texts} from {ok[0]} packets")
            else:
                self.guess_down = self.grid.index(ok[-1])
                said.append(f"{texts} up to {ok[-1]} packets")
        others = [o.text for o in self.objs if o not in measurable]
        tail = f"; not judged by it: {', '.join(others)}" if others else ""
        return "fluid engine meets " + "; ".join(said) + tail

    def fluid_sync_rule(self) -> dict[str, Any]:
        """Paper 004's range: the fluid engine's smallest buffer meeting the
        objectives at the least and the most loss synchronization (X in
        :data:`SYNC_RANGE`, ``fluid.sync``)."""
        name = "fluid loss-sync range (paper 004)"
        if "fluid" not in self.engines:
            return _row(name, math.nan, False, "the fluid engine is not among engines")
        if self.quick:
            return _row(name, math.nan, False, "not computed with quick (two more fluid scans)")
        if self.fluid_error:
            why = f"not every flow is fluid-modelable: {self.fluid_error}"
            return _row(name, math.nan, False, why)
        fluid = self.fluid_objs
        if not fluid:
            return _row(name, math.nan, False, "no objective the fluid engine measures")
        found: dict[float, float] = {}
        for x in SYNC_RANGE:
            grid = self.fluid_grid
            self.say("fluid loss sync", f"fluid loss sync X = {x:g}: {len(grid)} buffers")
            ft = self.run(grid, "fluid", [int(self.norm["seed"])], {"fluid": {"sync": x}})
            if not (ft["status"] == "ok").all():
                err = str(ft.loc[ft["status"] != "ok", "error"].iloc[0])
                return _row(name, math.nan, False, f"the fluid engine failed: {err}")
            ft = ft.assign(engine=f"fluid X={x:g}")
            self.runs.append(ft)
            ok = [b for b, m in zip(grid, _meets(ft, fluid, 0.0)) if m]
            found[x] = float(ok[0]) if ok else math.nan
        lo_x, hi_x = SYNC_RANGE
        txt = ", ".join(
            f"X = {x:g}: " + (f"{b:g} packets" if b == b else f"none up to {self.grid[-1]}")
            for x, b in found.items()
        )
        note = f"fluid engine with loss synchronization (paper 004 eq. 8) meets {', '.join(o.text for o in fluid)} at {txt}"
        others = [o.text for o in self.objs if o not in fluid]
        if others:
            note += f"; not judged here: {', '.join(others)}"
        b = found[hi_x] if found[hi_x] == found[hi_x] else found[lo_x]
        return _row(name, b, b == b, note + self.fluid_caveat())

    def probe(self, i: int, phase: str, step: str) -> list[bool]:
        """Every objective's verdict at grid index ``i`` (running it if new),
        with more seeds while a verdict is undecided (:meth:`add_seeds`)."""
        b = self.grid[i]
        if b not in self.probed:
            self.say(phase, f"{phase} {step}: {b} packets x {len(self.seed_list)} seeds")
            self.packet(b, self.seed_list)
            self.add_seeds(b)
            self.probed[b] = [o.holds(self.values(b, o.key), self.confidence) for o in self.objs]
        return self.probed[b]

    def add_seeds(self, b: int) -> None:
        """Adaptive seeds. Rule: while some objective's mean over the seeds
        and its one-sided t bound lie on opposite sides of the objective's
        bound (the interval straddles it: the verdict rests on the noise),
        run ``seeds`` more seeds (the next numbers) at this buffer, up to
        :data:`ADAPTIVE_MAX_FACTOR` x ``seeds`` in all and within the budget."""
        n = self.seeds
        while any(o.straddles(self.values(b, o.key), self.confidence) for o in self.objs):
            if self.quick or n + self.seeds > ADAPTIVE_MAX_FACTOR * self.seeds:
                self.undecided.append(b)
                return
            more = list(range(n + 1, n + self.seeds + 1))
            if self.budget is not None and self.packet_runs + len(more) > self.budget:
                self.undecided.append(b)
                return
            self.say("adaptive seeds", f"adaptive seeds: {b} packets, seeds {more[0]}-{more[-1]}")
            self.total += len(more)
            self.packet(b, more)
            n += self.seeds
            self.adaptive[b] = n

    def packet_search(self) -> _Edges:
        """Bisect the monotone objectives, then the interval of the others."""
        n = len(self.grid)
        up = [k for k, o in enumerate(self.objs) if o.monotone and o.grows_with_buffer]
        down = [k for k, o in enumerate(self.objs) if o.monotone and not o.grows_with_buffer]
        free = [k for k, o in enumerate(self.objs) if not o.monotone]
        edges = _Edges()
        count = itertools.count(1)
        expect = math.ceil(math.log2(n)) + 1

        def holds(ks: list[int]) -> Callable[[int], bool]:
            def pred(i: int) -> bool:
                step = f"{next(count)}/~{expect * ((len(up) > 0) + (len(down) > 0))}"
                return all(self.probe(i, "packet bisection", step)[k] for k in ks)

            return pred

        try:
            # Largest index where every "shrinks" objective holds (delay:
            # the fluid engine's edge is close, a queue is a queue). Done
            # first: its probes calibrate the other edge for free.
            edges.upper = (
                _search(holds(down), self.guess_down, n, first_true=False) if down else n - 1
            )
            # Smallest index where every "grows" objective holds (monotone
            # predicate), from the fluid edge moved by the packet engine's
            # measurements so far (the fluid edge itself is probed for it
            # when there are none).
            guess = self.guess_up
            if up and guess is not None:
                if not self.probed:
                    holds(up)(guess)
                guess = self.calibrated_guess(guess, up)
                self.calibrated = guess if guess != self.guess_up else None
            edges.lower = _search(holds(up), guess, n, first_true=True) if up else 0
            if free:
                a, b = edges.lower, edges.upper
                edges.interval = self.interval(free, a, b, edges.notes) if a <= b else None
            else:
                edges.interval = (0, n - 1)
        except _Budget:
            edges.lower = edges.upper = None
            edges.stopped = (
                f"the budget of {self.budget} packet runs was used up before the search ended"
            )
        return edges

    def resync(self, rec: float) -> None:
        """The fluid edge found again at the packet engine's loss synchronization.

        The fluid form without ``fluid.sync`` splits each overflow among
        every flow in proportion to its rate (paper 004 eq. (5)), so every
        flow cuts at once; many flows with spread RTTs lose a few at a time
        (the packet runs' ``sync_mean``), and a link whose flows cut fewer
        at a time stays busy with less buffer (paper 004 section III.B,
        figure 6). When the fluid edge is more than :data:`ENGINE_GAP` from
        the packet engine's edge ``rec`` (packets) and the packet runs
        there measured a synchronization below the fluid scan's by more
        than :data:`SYNC_GAP`, the fluid engine is bisected over the grid up to
        its edge with ``fluid.sync`` set to the measured value (paper 004
        eq. (8)'s X, floored at :data:`SYNC_FLOOR`; less synchronization
        needs no more buffer). The result, :attr:`resynced`, goes into the
        note of :func:`_engine_gap_notes`; the answer stays the packet
        engine's.
        """
        i = self.guess_up
        if i is None or rec != rec or self.fluid_table.empty:
            return
        if 1 / ENGINE_GAP <= self.grid[i] / rec <= ENGINE_GAP:
            return
        if (self.fluid_raw.get("fluid") or {}).get("sync") is not None:
            return
        objs = [o for o in self.objs if o.monotone and o.grows_with_buffer]
        if any(o not in self.fluid_objs for o in objs) or "sync_mean" not in self.fluid_table:
            return
        packet = [v for v in self.values(int(rec), "sync_mean") if v == v]
        curve = self.fluid_table.groupby("buffer_pkts")["sync_mean"].mean()
        f = float(curve[min(curve.index, key=lambda k: abs(math.log(k / rec)))])
        if not packet or not float(np.mean(packet)) * SYNC_GAP < f:
            return
        p = float(np.mean(packet))
        x = max(round(p, 3), SYNC_FLOOR)
        step = itertools.count(1)

        def meets(j: int) -> bool:
            bj = self.grid[j]
            self.say("fluid resync", f"fluid resync X = {x:g}: {bj} packets (run {next(step)})")
            t = self.run([bj], "fluid", [int(self.norm["seed"])], {"fluid": {"sync": x}})
            if not (t["status"] == "ok").all():
                raise AdviceError(
                    f"the fluid run at {bj} packets, fluid.sync = {x:g}, failed: "
                    f"{t['error'].iloc[0]}"
                )
            self.runs.append(t.assign(engine=f"fluid X={x:g}"))
            return _meets(t, objs, 0.0)[0]

        edge = _bisect(meets, 0, i, first_true=True)
        self.resynced = (x, edge if edge <= i else None, p, f)

    def calibrated_guess(self, i: int, ks: list[int]) -> int:
        """The fluid edge at grid index ``i`` moved by what the packet engine
        measured (:func:`_calibrated_edge` per objective ``ks``, from the
        probed buffer that calibrates it best, :func:`_calibration_point`;
        the largest of their edges, to the nearest grid point). ``i``
        itself when the fluid scan or the packet runs do not measure every
        one of them."""
        edges = []
        for k in ks:
            o = self.objs[k]
            if o not in self.fluid_objs:
                return i
            curve = self.fluid_table.groupby("buffer_pkts")[o.key].mean()
            means = {}
            for b in self.probed:
                v = [x for x in self.values(b, o.key) if x == x]
                if v:
                    means[float(b)] = float(np.mean(v))
            at = _calibration_point(means, curve, o)
            e = None if at is None else _calibrated_edge(curve, o, means[at], at)
            if e is None:
                return i
            edges.append(e)
        target = max(edges)
        return min(range(len(self.grid)), key=lambda j: abs(math.log(self.grid[j] / target)))

    def interval(self, ks: list[int], a: int, b: int, notes: list[str]) -> tuple[int, int] | None:
        """Interval search for objectives not monotone in the buffer (flow
        completion times): probe every ``per_doubling``-th grid index of
        ``a..b`` (one per doubling), then bisect both edges of the feasible
        scan points against their failing neighbours. Assumes the feasible
        set is one interval (a note says so when the scan sees two)."""
        scan = sorted({*range(a, b + 1, self.per_doubling), b})
        ok: list[int] = []
        for j, i in enumerate(scan):
            if all(self.probe(i, "packet interval scan", f"{j + 1}/{len(scan)}")[k] for k in ks):
                ok.append(i)
        if not ok:
            # The feasible set may be narrower than a doubling: look next to the best scan point.
            best = max(scan, key=lambda i: min(self.margin(i, k) for k in ks))
            for i in range(max(a, best - self.per_doubling + 1), min(b, best + self.per_doubling)):
                if all(self.probe(i, "packet interval scan", "near the best")[k] for k in ks):
                    ok.append(i)
            if not ok:
                return None
        runs = [ok[0]]
        for i in ok[1:]:
            if any(
                not all(self.probed[self.grid[s]][k] for k in ks) for s in scan if runs[-1] < s < i
            ):
                notes.append(
                    f"{', '.join(self.objs[k].text for k in ks)} holds on more than one interval "
                    f"of buffers; the range is the first ({self.grid[ok[0]]} packets up)"
                )
                break
            runs.append(i)
        first, last = runs[0], runs[-1]

        def pred(i: int) -> bool:
            return all(self.probe(i, "packet interval edges", "bisection")[k] for k in ks)

        prev = max([s for s in scan if s < first], default=None)
        nxt = min([s for s in scan if s > last], default=None)
        lo = _bisect(pred, prev + 1, first, first_true=True) if prev is not None else first
        hi = _bisect(pred, last, nxt - 1, first_true=False) if nxt is not None else last
        return lo, hi

    def margin(self, i: int, k: int) -> float:
        """How far objective ``k``'s mean at grid index ``i`` is inside its bound (relative)."""
        o = self.objs[k]
        v = [x for x in self.values(self.grid[i], o.key) if x == x]
        if not v:
            return -math.inf
        m = float(np.mean(v))
        return (m - o.bound if o.op == ">=" else o.bound - m) / max(abs(o.bound), 1e-12)

    def verdict(self, e: _Edges) -> tuple[bool, float, tuple[float, float], str]:
        """(feasible, recommended buffer, range, binding) from the search's edges."""
        grid, objs, n = self.grid, self.objs, len(self.grid)
        up = [o.text for o in objs if o.monotone and o.grows_with_buffer]
        down = [o.text for o in objs if o.monotone and not o.grows_with_buffer]
        free = [o.text for o in objs if not o.monotone]
        if e.stopped:
            return False, math.nan, (math.nan, math.nan), e.stopped
        assert e.lower is not None and e.upper is not None
        if e.lower >= n:
            return (
                False,
                math.nan,
                (math.nan, math.nan),
                (
                    f"{', '.join(up)} is not met up to {grid[-1]} packets ({self.hi / self.bdp:g} BDP)"
                ),
            )
        if e.lower > e.upper:
            return (
                False,
                math.nan,
                (math.nan, math.nan),
                (
                    f"{', '.join(up)} needs at least {grid[e.lower]} packets but "
                    f"{', '.join(down)} allows at most {grid[e.upper] if e.upper >= 0 else 0} packets"
                ),
            )
        if e.interval is None:
            span = f"from {grid[e.lower]} to {grid[e.upper]} packets"
            where = f" (where {', '.join(up + down)} hold)" if up or down else ""
            # A completion time that unfinished transfers leave a lower
            # bound is no failure: say where it could not be judged.
            probed = [b for b in sorted(self.probed) if grid[e.lower] <= b <= grid[e.upper]]
            unknown = [b for b in probed if self.cannot_judge(b)]
            if not unknown:
                why = f"{', '.join(free)} holds at no buffer {span}{where}"
            elif len(unknown) == len(probed):
                why = f"{', '.join(free)} cannot be judged at any buffer measured {span}{where}"
            else:
                why = (
                    f"{', '.join(free)} holds at no buffer {span} where it can be judged{where}; "
                    f"it cannot be judged at {', '.join(map(str, unknown))} packets"
                )
            if unknown:
                why += " (unfinished transfers leave it only a lower bound there)"
            return False, math.nan, (math.nan, math.nan), why
        lo = max(e.lower, e.interval[0])
        hi = min(e.upper, e.interval[1])
        rec = grid[lo]
        binders = (free if e.interval[0] > e.lower else up) or down or free
        below = grid[lo - 1] if lo else 0
        unknown = self.cannot_judge(below)
        if unknown:
            at = (
                f"at the next smaller grid buffer, {below} packets, "
                f"{', '.join(o.text for o in unknown)} cannot be judged: unfinished transfers "
                "leave it only a lower bound"
            )
        else:
            at = f"the next smaller grid buffer, {below} packets, fails"
        binding = f"Binding: {', '.join(binders)} ({at})."
        if lo == 0:
            binding = "Every objective holds already at 1 packet."
        return True, float(rec), (float(rec), float(grid[hi])), binding

    def decisive(self, e: _Edges, rng: tuple[float, float]) -> list[float]:
        """The buffers the verdict rests on: both edges of the range and their
        outer grid neighbours; infeasible, the buffers the binding pair names."""
        if rng[0] == rng[0]:
            below = [b for b in self.grid if b < rng[0]][-1:]
            return [*rng, *below, *[b for b in self.grid if b > rng[1]][:1]]
        n = len(self.grid)
        return [self.grid[i] for i in (e.lower, e.upper) if i is not None and 0 <= i < n]

    def check_rules(self, table: pd.DataFrame) -> None:
        """The packet engine at every applicable rule's buffer (same seeds;
        cached runs are reused)."""
        for r in table.itertuples():
            if (
                r.applies
                and r.buffer_pkts == r.buffer_pkts
                and r.buffer_pkts >= 1
                and r.source != "fluid scan"
            ):
                b = int(round(r.buffer_pkts))
                self.say("rule check", f"rule check: {r.source} at {b} packets")
                self.packet(b, self.seed_list)

    def convergence(self, focus: Iterable[float]) -> tuple[pd.DataFrame, list[str]]:
        """First against second half of every packet run's measurement window."""
        runs = [t for t in self.runs if "engine" in t]
        table = pd.concat(runs, ignore_index=True) if runs else pd.DataFrame()
        conv = _convergence(table, self.norm, self.objs)
        notes = []
        if conv.empty:
            return conv, notes
        bad = conv[~conv["converged"]]
        focus = {float(b) for b in focus if b == b}
        decisive = bad[bad["buffer_pkts"].isin(focus)]
        if len(decisive):
            worst = decisive.iloc[0]
            notes.append(
                f"WARNING: not converged: {len(decisive)} of {int(conv['buffer_pkts'].isin(focus).sum())} "
                f"checks at the decisive buffers differ between the halves of the measurement window "
                f"beyond the tolerance (e.g. {worst['metric']} at {worst['buffer_pkts']:g} packets, seed "
                f"{worst['seed']:g}: {fmt.metric(worst['metric'], worst['first_half'])} then "
                f"{fmt.metric(worst['metric'], worst['second_half'])}); "
                "lengthen duration or warmup"
            )
        elif len(bad):
            notes.append(
                f"converged at the decisive buffers; {len(bad)} of {len(conv)} checks elsewhere differ "
                "between the halves beyond the tolerance"
            )
        return conv, notes


#: An edge that the fluid scan or the analytic model puts more than this
#: factor away (either way) from the packet engine's is reported with the
#: likely reasons (:func:`_engine_gap_notes`).
ENGINE_GAP = 2.0


@dataclass
class _Model:
    """The analytic model over the buffers of a search (:func:`_model_curve`).

    Attributes
    ----------
    name : str
        The model ``"auto"`` chose (``avrachenkov``, ``highspeed_mm1k``, ...).
    source : str
        Its paper and equation.
    assumptions : list of str
        What it assumes, in words (:data:`bufsim.models.scenario.SPECS`).
    curve : pandas.DataFrame
        One row per buffer (``buffer_pkts``, packets): its summary metrics
        (``utilization``, ``drop_rate``, ``mean_queue_delay_s``, ...).
    """

    name: str
    source: str
    assumptions: list[str]
    curve: pd.DataFrame


def _engine_gap_notes(s: _Search, edges: _Edges, model: _Model | None = None) -> list[str]:
    """A note per edge where the fluid scan or the analytic model and the
    packet engine differ by more than :data:`ENGINE_GAP`.

    The edges compared: the first grid buffer meeting every objective that
    grows with the buffer (:attr:`_Edges.lower`) and the last meeting every
    delay objective (:attr:`_Edges.upper`), each where the packet engine
    found it and the other engine measures all of those objectives (the
    fluid scan's :attr:`_Search.guess_up` and ``guess_down``; the model's
    from its values on the grid). The packet engine decides; the note says
    by how much the other differs and what it assumes: for the fluid form
    against what the packet runs measured at the edge (loss
    synchronization, timeouts) and where the fluid engine put the edge at
    the measured synchronization (:meth:`_Search.resync`), for the model
    its stated assumptions. Also when no buffer meets every objective.
    """
    n = len(s.grid)
    others = []
    if not s.fluid_table.empty:
        others.append(("the fluid scan", s.fluid_objs, s.guess_up, s.guess_down))
    if model is not None:
        on_grid = model.curve.set_index("buffer_pkts").reindex([float(b) for b in s.grid])
        covered = [o for o in s.objs if o.key in on_grid and on_grid[o.key].notna().all()]
        edge: dict[bool, int | None] = {}
        for grows in (True, False):
            objs = [o for o in covered if o.monotone and o.grows_with_buffer == grows]
            ok = [i for i in range(n) if all(o.holds([on_grid[o.key].iloc[i]], 0) for o in objs)]
            edge[grows] = (ok[0] if grows else ok[-1]) if objs and ok else None
        others.append((f"the analytic model ({model.name})", covered, edge[True], edge[False]))
    notes = []
    for grows in (True, False):
        objs = [o for o in s.objs if o.monotone and o.grows_with_buffer == grows]
        packet = edges.lower if grows else edges.upper
        if not objs or packet is None or not 0 <= packet < n:
            continue
        pb = float(s.grid[packet])
        for engine, covered, up, down in others:
            i = up if grows else down
            if i is None or any(o not in covered for o in objs):
                continue
            ratio = s.grid[i] / pb
            if 1 / ENGINE_GAP <= ratio <= ENGINE_GAP:
                continue
            why = (
                _fluid_gap(s, grows, pb)
                if engine == "the fluid scan"
                else f"The model ({model.source}) assumes: {'; '.join(model.assumptions)}"
            )
            notes.append(
                f"engines disagree on {' and '.join(o.text for o in objs)}: the packet engine "
                f"decides (it holds {'from' if grows else 'up to'} {pb:g} packets); {engine} puts "
                f"that edge at {s.grid[i]:g} packets ({fmt.value(ratio, 3)}x). {why}"
            )
    return notes


def _fluid_gap(s: _Search, grows: bool, pb: float) -> str:
    """Why the fluid scan's edge may differ from the packet engine's at
    ``pb`` packets: what the fluid form assumes, what the packet runs
    measured there, and (for the edge of the objectives that grow with the
    buffer) the fluid edge at the measured synchronization."""
    runs = pd.concat(s.runs, ignore_index=True)
    g = runs[(runs["engine"] == "packet") & (runs["buffer_pkts"] == pb)]
    window = float(s.norm["duration_s"] - s.norm["warmup_s"])
    sync = float(g["sync_mean"].mean())
    timeouts = float((g["timeouts"] / g["active_flows_mean"].clip(lower=1)).mean() / window)
    x = (s.fluid_raw.get("fluid") or {}).get("sync")
    assumed = (
        "every flow cutting its window at each overflow (fluid.sync unset)"
        if x is None
        else f"at least {x:g} of the flows cutting at each overflow (fluid.sync)"
    )
    why = ""
    if grows and s.resynced is not None:
        rx, edge, p, f = s.resynced
        if edge is None:
            at = f"still above {s.grid[s.guess_up]:g} packets"
        else:
            at = f"at {s.grid[edge]:g} packets ({fmt.value(s.grid[edge] / pb, 3)}x the packet engine's edge)"
            if s.grid[edge] < pb and timeouts > 0:
                at += ": below it, as the fluid model loses no time to timeouts"
        why = (
            f". The packet runs measured a synchronization of {fmt.metric('sync_mean', p)} where "
            f"the fluid scan had {fmt.metric('sync_mean', f)}; with fluid.sync = {rx:g} the fluid "
            f"engine puts the edge {at}"
        )
    elif grows and s.grid[s.guess_up] > pb and sync < 0.5:
        why = (
            ": with fewer flows cutting per loss event, less buffer keeps the link busy, so the "
            "fluid form overstates the buffer"
        )
    return (
        f"The fluid form has {assumed}; the packet runs at {pb:g} packets measured a loss "
        f"synchronization of {fmt.metric('sync_mean', sync)} (sync_mean) and "
        f"{fmt.metric('flow_timeout_rate', timeouts)} timeouts per flow per second, which the "
        f"fluid model has no notion of{why}"
    )


def _cannot_judge(o: Objective, mean: float, censored: bool) -> bool:
    """Whether a mean that is only a lower bound (``censored``: some run's
    completion time is) leaves objective ``o`` undecided: an upper bound
    that the lower bound still meets, so the true mean may or may not. A
    lower bound already past the bound is a failure."""
    return bool(censored) and o.op == "<=" and mean <= o.bound


def _judged(runs: pd.DataFrame, key: str) -> np.ndarray:
    """The runs' values of metric ``key`` as objectives judge them: a
    completion-time statistic that is only a lower bound (its ``_censored``
    column is 1) reads as infinite, so no upper bound on it holds there."""
    v = runs[key].to_numpy(dtype=float)
    censored = runs.get(f"{key}_censored")
    if censored is None:
        return v
    return np.where(censored.to_numpy() == 1.0, math.inf, v)


def _unfinished(runs: pd.DataFrame, key: str) -> tuple[float, int, int]:
    """Over runs whose ``key`` is censored: its smallest lower bound, and
    how many transfers of its size class were unfinished and started."""
    c = "large" if "_large" in key else "small"
    started = int(runs[f"flows_started_{c}"].sum())
    return float(runs[key].min()), started - int(runs[f"flows_completed_{c}"].sum()), started


def _unjudged_notes(unjudged: Mapping[tuple[int, str], tuple[float, int, int]]) -> list[str]:
    """One note per completion-time metric that unfinished transfers left
    unjudged at some buffers: where, its lower bound, the unfinished share."""
    notes = []
    for key in sorted({k for _, k in unjudged}):
        at = sorted((b, v) for (b, k), v in unjudged.items() if k == key)
        lost = [v[1] / v[2] for _, v in at]
        notes.append(
            f"{key} cannot be judged at {len(at)} buffer{'s' if len(at) > 1 else ''} "
            f"({', '.join(str(b) for b, _ in at)} packets): {min(lost):.0%}-{max(lost):.0%} of the "
            f"transfers started were unfinished when the runs ended, so it is only known to be "
            f"{fmt.metric(key, min(v[0] for _, v in at), censored=True)}; the objective counts as not met there "
            "(a longer duration lets them finish; timeouts in the runs table say why they stall)"
        )
    return notes


def _row(source: str, b: float, applies: bool, note: str) -> dict[str, Any]:
    return {"source": source, "buffer_pkts": float(b), "applies": applies, "note": note}


def _half_tolerance(key: str, norm: Mapping[str, Any]) -> Callable[[float, float], bool]:
    """Whether two halves' values of metric ``key`` agree (:data:`CONVERGENCE_TOL`)."""
    link = norm["link"]
    t = CONVERGENCE_TOL
    if key.startswith("goodput"):
        tol = t["goodput"] * link["capacity_bps"]
        return lambda a, b: abs(a - b) <= tol
    if key == "drop_rate":
        return lambda a, b: abs(a - b) <= t["loss"] * max(a, b) + 1e-4
    if key.endswith("queue_delay_s"):
        one = 8 * link["packet_size_bytes"] / link["capacity_bps"]
        return lambda a, b: abs(a - b) <= t["delay"] * max(a, b) + one
    if key.startswith("fct_"):
        return lambda a, b: abs(a - b) <= t["fct"] * max(a, b)
    return lambda a, b: abs(a - b) <= t["fraction"]


def _convergence(
    runs: pd.DataFrame, norm: Mapping[str, Any], objs: list[Objective]
) -> pd.DataFrame:
    """Per packet run and objective, its metric over the first and the
    second half of the measurement window (the core's ``_half1`` and
    ``_half2`` metrics) and whether they agree within :data:`CONVERGENCE_TOL`.
    A half without the metric (no transfer finished in it) is not judged.

    Returns
    -------
    pandas.DataFrame
        ``buffer_pkts``, ``seed``, ``metric``, ``first_half``,
        ``second_half``, ``converged``.
    """
    cols = ["buffer_pkts", "seed", "metric", "first_half", "second_half", "converged"]
    rows = []
    if "engine" in runs:
        runs = runs[runs["engine"] == "packet"]
        for key in dict.fromkeys(o.key for o in objs):
            h1, h2 = f"{key}_half1", f"{key}_half2"
            if h1 not in runs or h2 not in runs:
                continue
            agree = _half_tolerance(key, norm)
            for r in runs[["buffer_pkts", "seed", h1, h2]].itertuples(index=False):
                a, b = float(r[2]), float(r[3])
                if a == a and b == b:
                    rows.append([float(r[0]), r[1], key, a, b, agree(a, b)])
    return pd.DataFrame(rows, columns=cols).astype({"converged": bool})


def advise(
    scenario: Any,
    objectives: Iterable[str],
    *,
    engines: Sequence[str] = ("rules", "fluid", "packet"),
    seeds: int = 5,
    confidence: float = 0.95,
    quick: bool = False,
    budget: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    store: Any = "results",
    progress: Callable[[AdviseProgress], Any] | None = None,
) -> Advice:
    """The smallest buffer that meets every objective, verified by the packet engine.

    Parameters
    ----------
    scenario : Scenario, dict or path
        The link and its traffic; ``link.buffer`` is ignored. Without
        ``duration`` (or ``warmup``) they are derived from the scenario's
        time scales (:func:`bufsim.timescales.time_scales`).
    objectives : iterable of str
        E.g. ``["utilization>=0.98", "p99_queue_delay<=5ms"]`` (see
        :func:`parse_objective`).
    engines : sequence of str
        Which of ``"rules"``, ``"fluid"``, ``"packet"`` take part, and
        ``"ns3"``: ns-3 (:mod:`bufsim.ns3`) runs the recommended buffer over
        the same seeds and a note says whether each objective holds there
        too (the answer stays the packet engine's).
    seeds : int
        Packet runs per probed buffer (seeds 1..seeds); up to
        :data:`ADAPTIVE_MAX_FACTOR` times more where a verdict is undecided.
    confidence : float
        One-sided confidence (0..1) with which each objective must hold,
        over the seeds (Student t).
    quick : bool
        A first answer in a fraction of the time: two seeds and no adaptive
        seeds (an undecided verdict stands, with a note), a grid of two
        points per doubling (the fluid scan one), no packet runs at the
        rules' buffers and no paper 004 loss-synchronization range.
    budget : int, optional
        At most this many packet runs (the search stops and says so).
    scheduler : str, optional
        A Dask scheduler address for the runs.
    workers : int, optional
        Local worker processes.
    store : str, Path, Store or None
        The results store (cached runs are reused).
    progress : callable, optional
        Called with an :class:`AdviseProgress` (its ``str`` a line of text)
        as each run finishes and each phase starts.

    Returns
    -------
    Advice

    Raises
    ------
    AdviceError
        Bad objectives, or a target no buffer can meet (e.g. a utilization
        the traffic cannot offer).
    """
    t0 = time.perf_counter()
    objs = _check_arguments(objectives, confidence, seeds, engines)
    scn, timing = with_time_scales(scenario)
    _check_fit(objs, scn.normalized)
    s = _Search(
        scn,
        objs,
        engines=engines,
        seeds=seeds,
        confidence=confidence,
        quick=quick,
        budget=budget,
        sweep_options={"store": store, "scheduler": scheduler, "workers": workers},
        progress=progress,
    )
    notes = ([timing] if timing else []) + _default_stack_notes(s.raw) + _left_out_notes(s.norm)
    rules = _rules(s.norm, objs, s.hi) if "rules" in engines else []
    s.estimate(rules)
    fluid_note = s.fluid_scan() + s.fluid_caveat() if "fluid" in engines else ""
    if "rules" in engines:
        rules.append(s.fluid_sync_rule())
    edges = s.packet_search()
    notes += edges.notes
    feasible, rec, rng, binding = s.verdict(edges)
    if feasible and "fluid" in engines and edges.lower is not None:
        # At the packet engine's edge of the objectives that grow with the
        # buffer: the one the fluid scan's edge is compared with.
        s.resync(float(s.grid[edges.lower]))
    if fluid_note:
        rules.append(_row("fluid scan", math.nan, True, fluid_note))
    table = pd.DataFrame(rules, columns=["source", "buffer_pkts", "applies", "note"])
    if quick and "rules" in engines:
        notes.append("quick: the rules' buffers were not measured by the packet engine")
    elif "rules" in engines and not edges.stopped:
        try:
            s.check_rules(table)
        except _Budget:
            notes.append(f"the budget of {budget} packet runs left some rules unchecked")
    all_runs = pd.concat(s.runs, ignore_index=True) if s.runs else pd.DataFrame()
    table = _measured_table(table, all_runs, objs, confidence, feasible, rec)
    model_notes, model = _model_columns(table, s.raw, objs, s.grid)
    notes += model_notes + _engine_gap_notes(s, edges, model)
    convergence, conv_notes = s.convergence(s.decisive(edges, rng))
    notes += conv_notes
    if s.adaptive:
        notes.append(
            "adaptive seeds (a t interval straddled a bound): "
            + ", ".join(f"{b} packets x {k}" for b, k in sorted(s.adaptive.items()))
        )
    if s.undecided:
        notes.append(
            (
                f"undecided at {s.seeds} seeds (quick: no adaptive seeds): "
                if quick
                else f"still undecided after {ADAPTIVE_MAX_FACTOR} x {s.seeds} seeds or at the budget: "
            )
            + ", ".join(f"{b} packets" for b in sorted(set(s.undecided)))
        )
    notes += _unjudged_notes(s.unjudged)
    if "ns3" in engines and feasible:
        notes.append(s.ns3_check(int(rec)))
    s.total = s.done  # the bar ends full
    s.say("done", f"done: {s.packet_runs} packet runs")
    return Advice(
        objectives=objs,
        feasible=feasible,
        buffer_pkts=float(rec),
        buffer_bytes=float(rec) * int(s.norm["link"]["packet_size_bytes"]),
        range=rng,
        binding=binding,
        table=table,
        runs=all_runs,
        confidence=confidence,
        packet_size_bytes=int(s.norm["link"]["packet_size_bytes"]),
        method=_method(s),
        notes=notes,
        convergence=convergence,
        duration_s=float(s.norm["duration_s"]),
        warmup_s=float(s.norm["warmup_s"]),
        costs=_costs(table, all_runs, float(s.norm["duration_s"] - s.norm["warmup_s"]), confidence),
        scenario=scn,
        wall_s=time.perf_counter() - t0,
    )


def _method(s: _Search) -> str:
    free = any(not o.monotone for o in s.objs)
    return (
        f"Packet search over a log grid of {len(s.grid)} buffers (1 to {s.grid[-1]} packets, "
        f"{s.per_doubling} per doubling)"
        + (
            ", from the fluid scan's edges (galloping, then bisection)"
            if s.guess_up is not None or s.guess_down is not None
            else ", bisection"
        )
        + (
            f" (the lower edge moved from the fluid's {s.grid[s.guess_up]} to "
            f"{s.grid[s.calibrated]} packets by the packet engine's measurements)"
            if s.calibrated is not None and s.guess_up is not None
            else ""
        )
        + (
            ", an interval search (scan, then both edges bisected) for flow completion times"
            if free
            else ""
        )
        + f", {len(s.seed_list)} seeds per buffer "
        + ("(quick: no adaptive seeds), " if s.quick else "(more where a verdict was undecided), ")
        + f"{s.packet_runs} packet runs of {s.norm['duration_s']:g} s ({s.norm['warmup_s']:g} s warm-up); "
        f"each objective checked on a one-sided {s.confidence:.0%} Student t bound over the seeds."
    )


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


def _costs(
    table: pd.DataFrame, runs: pd.DataFrame, window_s: float, confidence: float
) -> pd.DataFrame:
    """What each buffer the packet engine measured in ``table`` (the
    recommendation and every rule it checked) costs: per metric of
    :data:`COSTS` (and completions and p99 FCT per class with finite
    traffic) the mean over the seeds and the half-width of its two-sided
    Student t interval at ``confidence`` (NaN with one seed).

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


def _measured_table(
    table: pd.DataFrame,
    runs: pd.DataFrame,
    objs: list[Objective],
    confidence: float,
    feasible: bool,
    rec: float,
) -> pd.DataFrame:
    """Each row's packet measurement (:func:`_measure`: objective means,
    whether each is only a lower bound, ``meets all``) and the recommendation."""
    measured = [_measure(runs, r.buffer_pkts, objs, confidence) for r in table.itertuples()]
    for col in _measure(runs, math.nan, objs, confidence):
        table[col] = [m[col] for m in measured]
    rec_row = _row(
        "recommended", rec, feasible, "packet engine, smallest grid buffer meeting every objective"
    )
    rec_row.update(_measure(runs, rec, objs, confidence))
    return pd.DataFrame([*table.to_dict("records"), rec_row], columns=list(table.columns))


def _model_form(raw: Mapping[str, Any], norm: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The scenario the analytic models see when they do not cover it all,
    and what changed: the fluid form's stand-ins (:func:`_fluid_form`: open
    traffic as Poisson background, which every model sees as a constant
    rate) and, of the long-lived flows, only the family with an analytic
    model (AIMD: ``avrachenkov``; HighSpeed: the fixed point) that has the
    most flows; the others are named as left out."""
    out, changed = _fluid_form(raw, norm, stack=False)
    counts = _persistent_counts(norm)
    families = (("newreno", "aimd"), ("highspeed",))
    covered = max(families, key=lambda fam: sum(counts.get(t, 0) for t in fam))
    persistent = [g for g in norm["flows"] if g["kind"] == "persistent"]
    out["flows"] = [g for g, n in zip(out["flows"], persistent) if n["tcp"] in covered]
    notes = [changed] if changed else []
    left = _left_out(counts, covered)
    if left:
        notes.append(left.removeprefix("; "))
    return out, "; ".join(notes)


def _model_curve(
    raw: Mapping[str, Any], buffers: Iterable[float]
) -> tuple[_Model | None, list[str]]:
    """The analytic model (:func:`bufsim.models.predict`, ``"auto"``) at
    each of ``buffers`` (packets, rounded; those below 1 skipped). A
    scenario no model covers as a whole is predicted on its model form
    (:func:`_model_form`), with a note saying what that changed.

    Returns
    -------
    (_Model or None, list of str)
        The model and its curve (None: no model for this traffic), and the
        notes.
    """
    form, note = dict(raw), ""
    try:
        models.predict(Scenario(_with_buffer(form, 1)), model="auto")
    except (models.ModelInputError, ValueError):
        form, changed = _model_form(raw, Scenario(raw).normalized)
        if not form["flows"]:
            flows = _flow_list(_persistent_counts(Scenario(raw).normalized)) or "none"
            return None, [
                "no analytic model for this traffic: the models cover long-lived NewReno/AIMD "
                f"(paper 003) and HighSpeed (paper 001) flows; this scenario's long-lived flows: {flows}"
            ]
        note = f"no analytic model covers every flow: the model columns are for {changed}"
    rows, about = [], {}
    for b in sorted({int(round(b)) for b in buffers if b == b and b >= 1}):
        try:
            r = models.predict(Scenario(_with_buffer(form, b)), model="auto")
        except (models.ModelInputError, ValueError) as e:
            return None, [f"no analytic model for this traffic: {e}"]
        rows.append({**r.summary, "buffer_pkts": float(b)})
        about = {"name": r.provenance["engine"].removeprefix("model:"), **r.provenance["model"]}
    model = _Model(
        name=about.get("name", ""),
        source=about.get("source", ""),
        assumptions=list(about.get("assumptions", [])),
        curve=pd.DataFrame(rows) if rows else pd.DataFrame(columns=["buffer_pkts"]),
    )
    return model, [note] if note else []


def _model_columns(
    table: pd.DataFrame, raw: Mapping[str, Any], objs: list[Objective], grid: Sequence[int] = ()
) -> tuple[list[str], _Model | None]:
    """What the analytic model says at each row's buffer of ``table``, for
    the objectives it predicts (``"<objective> (model)"``; NaN where it has
    no answer), computed with the ``grid`` buffers too (:func:`_model_curve`,
    for :func:`_engine_gap_notes`).

    Returns
    -------
    (list of str, _Model or None)
        The notes and the model.
    """
    model, notes = _model_curve(raw, [*table["buffer_pkts"], *grid])
    curve = model.curve.set_index("buffer_pkts") if model is not None else pd.DataFrame()
    for o in objs:
        table[f"{o.text} (model)"] = [
            curve[o.key].get(float(round(b)), math.nan) if o.key in curve and b == b else math.nan
            for b in table["buffer_pkts"]
        ]
    return notes, model


def _calibrated_edge(curve: pd.Series, o: Objective, value: float, at: float) -> float | None:
    """Where objective ``o`` starts to hold for the packet engine, guessed
    from the fluid scan and one packet measurement, buffers in packets.

    ``curve`` is the fluid engine's metric per buffer (index, ascending),
    ``value`` the packet engine's mean at buffer ``at``. The packet
    engine's curve is taken as the fluid's shifted along log(buffer) (less
    loss synchronization than the fluid model's moves the whole curve to
    smaller buffers, paper 004 section III): the fluid reads ``value`` at
    a buffer B_eq (log-interpolated between grid points; the first buffer
    of the fluid's best value when the packet engine does better still),
    and the fluid's edge moves by ``at / B_eq``. None when the fluid curve
    never meets ``o``.
    """
    sign = 1.0 if o.op == ">=" else -1.0
    b = curve.index.to_numpy(dtype=float)
    f = sign * curve.to_numpy(dtype=float)

    def first_at_least(y: float) -> float | None:
        ok = np.flatnonzero(f >= y)
        if not len(ok):
            return None
        k = int(ok[0])
        if k == 0 or f[k] == f[k - 1]:
            return float(b[k])
        t = (y - f[k - 1]) / (f[k] - f[k - 1])
        return float(math.exp(math.log(b[k - 1]) + t * math.log(b[k] / b[k - 1])))

    edge = first_at_least(sign * o.bound)
    equivalent = first_at_least(min(sign * value, float(f.max())))
    if edge is None or equivalent is None:
        return None
    return edge * at / equivalent


def _calibration_point(
    means: Mapping[float, float], curve: pd.Series, o: Objective
) -> float | None:
    """The buffer whose packet measurement calibrates the fluid curve best
    for objective ``o`` (:func:`_calibrated_edge`), from ``means`` (buffer
    in packets -> the packet engine's mean there): the one nearest the
    objective's bound, among those the fluid curve does not saturate (a
    value at or past the fluid's best only bounds the shift). None
    without measurements."""
    if not means:
        return None
    sign = 1.0 if o.op == ">=" else -1.0
    best = float((sign * curve.to_numpy(dtype=float)).max())
    unsaturated = {b: v for b, v in means.items() if sign * v < best}
    pool = unsaturated or means
    return min(pool, key=lambda b: (abs(pool[b] - o.bound), b))


def _search(pred: Callable[[int], bool], guess: int | None, n: int, *, first_true: bool) -> int:
    """For a monotone predicate over a grid of ``n`` points: the first index
    where it is true (``first_true``; ``n`` if none) or the last (``-1`` if
    none). Without a ``guess``, a bisection of the whole grid; with one (the
    fluid scan's edge), a galloping search from it: probe the guess and its
    neighbour, then steps of 1, 2, 4, ... away from it until the predicate
    changes, then bisect the indices inside that step. An exact guess
    costs two probes (the edge and the point one below it, which the answer
    must show failing); a guess ``d`` points off about ``2 log2 d`` more."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        flip = None if guess is None else min(guess + 1, n - 1)
        return _search(lambda i: not pred(i), flip, n, first_true=True) - 1
    if guess is None:
        return _bisect(pred, 0, n - 1, first_true=True)
    step = 1
    if pred(guess):
        hi = guess  # true; walk down until false
        while hi > 0:
            lo = max(hi - step, 0)
            if not pred(lo):
                return _between(pred, lo, hi)
            hi, step = lo, 2 * step
        return 0
    lo = guess  # false; walk up until true
    while lo < n - 1:
        hi = min(lo + step, n - 1)
        if pred(hi):
            return _between(pred, lo, hi)
        lo, step = hi, 2 * step
    return n


def _between(pred: Callable[[int], bool], a: int, b: int) -> int:
    """The first true index of a monotone predicate known false at ``a``
    and true at ``b`` (``a < b``): bisection of the indices between them."""
    while b - a > 1:
        m = (a + b) // 2
        a, b = (a, m) if pred(m) else (m, b)
    return b


def _bisect(pred: Callable[[int], bool], lo: int, hi: int, *, first_true: bool) -> int:
    """For a monotone predicate over ``lo..hi``: the first index where it is
    true (``first_true``; ``hi + 1`` if none) or the last index where it is
    true (``lo - 1`` if none)."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        return _bisect(lambda i: not pred(i), lo, hi, first_true=True) - 1
    if not pred(hi):
        return hi + 1
    if pred(lo):
        return lo
    return _between(pred, lo, hi)


def _meets(table: pd.DataFrame, objs: list[Objective], confidence: float) -> list[bool]:
    out = []
    for _, g in table.groupby("buffer_pkts", sort=True):
        out.append(all(o.holds(_judged(g, o.key).tolist(), confidence) for o in objs))
    return out


def _observed(runs: pd.DataFrame, key: str) -> tuple[float, bool]:
    """The runs' mean of metric ``key`` (NaN without it) and whether that
    mean is only a lower bound: some run's value is (its ``_censored``
    column is 1, :func:`bufsim.flows.fct_summary`), and a mean over lower
    bounds and values bounds the true mean from below."""
    if key not in runs or runs.empty:
        return math.nan, False
    censored = runs.get(f"{key}_censored")
    return float(runs[key].mean()), censored is not None and bool((censored == 1.0).any())


def _shown(runs: pd.DataFrame, key: str) -> str:
    """The runs' mean of metric ``key`` as text (:func:`bufsim.fmt.metric`),
    ``>= x`` where it is only a lower bound (:func:`_observed`)."""
    mean, censored = _observed(runs, key)
    return fmt.metric(key, mean, censored=censored)


def _measured(runs: pd.DataFrame, objs: list[Objective], confidence: float) -> dict[str, Any]:
    """Per objective, over the packet runs ``runs`` at one buffer: its mean
    (column named by the objective), whether that is only a lower bound
    (``"<objective> censored"``, :func:`_observed`) and whether it holds
    at ``confidence`` (``"<objective> holds"``; a lower bound never meets
    an upper bound, :func:`_judged`)."""
    row: dict[str, Any] = {}
    for o in objs:
        row[o.text], row[f"{o.text} censored"] = _observed(runs, o.key)
        judged = _judged(runs, o.key) if o.key in runs else np.array([])
        row[f"{o.text} holds"] = o.holds(judged.tolist(), confidence)
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
