"""The answer of :func:`bufsim.advise.advise`: :class:`Advice` and its views.

:class:`Advice` carries the recommended buffer and its range, the table of
rules, models, fluid and packet side by side, every run, the trade-off, the
costs, the flags (costs past a threshold, :mod:`bufsim.advise.flags`) and
the convergence check, and shows them as a first screen
(:meth:`Advice.first_screen`: the answer, its cost, the flags, the stack),
text tables
(:meth:`Advice.formatted`, :meth:`Advice.cost_table`), JSON
(:meth:`Advice.to_dict`). The figure, report sections and HTML
(:meth:`Advice.plot`, :meth:`Advice.sections`, :meth:`Advice.to_html`, the
notebook view) are drawn from above, by :func:`bufsim.plot.advice` and
:mod:`bufsim.report`, which install them in :data:`VIEWS`: advise imports
neither. The table's packet columns (:func:`measured_table`) and the costs
(:func:`costs`, :data:`COSTS`) are computed here from the runs.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim._stats import t_half_width
from bufsim.advise.flags import THRESHOLDS, Flag, Threshold, describe, flags_of, show, thresholds
from bufsim.advise.objectives import (
    Objective,
    cannot_judge,
    flow_timeout_rate,
    judged,
    observed,
    simulated_s,
    unfinished_share,
)
from bufsim.advise.rules import kept_spine_buffer, table_row
from bufsim.scenario import Scenario

#: The title of the costs at each measured buffer (:meth:`Advice.measured_costs`).
MEASURED_COSTS = "Cost at each buffer measured (! past a flag's threshold)"


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
        What each buffer the packet engine measured costs (the
        recommendation, every rule's buffer it checked, every buffer the
        search probed): loss, timeouts, queueing delay, fairness and
        completions, each with its interval over seeds (:func:`costs`).
        Never empty when a packet run ran, feasible or not.
    scenario : Scenario or None
        The scenario the advice is for (its buffer aside), with the
        duration and warm-up the search used.
    wall_s : float
        Wall time of the whole search, seconds.
    thresholds : tuple of Threshold
        The costs flagged past a level (:data:`~bufsim.advise.flags.THRESHOLDS`
        unless overridden: :meth:`with_flags`, ``advise(..., flags=...)``).
    quick : bool
        The search ran in quick mode (no packet runs at the rules' buffers).
    worst_place : str
        In a fabric, the switch with the most drops at the answer (or at
        the largest buffer measured when none meets every objective), in
        words: the one that decides a drop_rate objective. Empty otherwise.
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
    thresholds: tuple[Threshold, ...] = THRESHOLDS
    quick: bool = False
    worst_place: str = ""

    @property
    def sized(self) -> str:
        """What :attr:`buffer_pkts` sizes: ``"buffer"`` (``link.buffer``),
        for a shared pool ``"pool size"`` (``pool.size``), for a chain
        ``"buffer of each link"`` (every ``links[i].buffer``), for a fabric
        ``"buffer of each switch"`` (``fabric.buffer``), or ``"buffer of
        each leaf"`` when ``fabric.spine_buffer`` keeps the spines'."""
        norm = self.scenario.normalized if self.scenario is not None else {}
        if "pool" in norm:
            return "pool size"
        if "fabric" in norm:
            if kept_spine_buffer(self.scenario.raw) is not None:
                return "buffer of each leaf"
            return "buffer of each switch"
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

    # ------------------------------------------------------- the first screen
    def with_flags(self, overrides: Iterable[str]) -> Advice:
        """The same advice with its thresholds overridden
        (:func:`~bufsim.advise.flags.parse_flag`: ``"loss>2%"``,
        ``"jain<0.3"``, ``"timeouts=off"``); no run is repeated.

        Raises
        ------
        AdviceError
            A flag that does not parse, naming it and what is allowed.
        """
        return replace(self, thresholds=thresholds(overrides))

    def cost_at(self, buffer_pkts: float) -> dict[str, Any] | None:
        """The row of :attr:`costs` at ``buffer_pkts`` (packets), None where
        the packet engine did not run there."""
        if self.costs.empty or buffer_pkts != buffer_pkts:
            return None
        rows = self.costs[self.costs["buffer_pkts"] == float(buffer_pkts)]
        return rows.iloc[0].to_dict() if len(rows) else None

    def flags_at(self, buffer_pkts: float) -> list[Flag]:
        """The costs past their thresholds (:attr:`thresholds`) at
        ``buffer_pkts`` (packets): each mean over the seeds against its level."""
        cost = self.cost_at(buffer_pkts)
        return [] if cost is None else flags_of(cost, float(buffer_pkts), self.thresholds)

    def measured_buffers(self) -> list[float]:
        """Every buffer the packet engine measured, packets, ascending."""
        return sorted({float(b) for b in self.costs["buffer_pkts"]}) if len(self.costs) else []

    @property
    def flags(self) -> list[Flag]:
        """The costs an operator would question: at the recommended buffer
        when one meets every objective, else at every buffer the packet
        engine measured (each :class:`~bufsim.advise.flags.Flag` names its
        buffer, value, threshold and reason)."""
        if self.feasible:
            return self.flags_at(self.buffer_pkts)
        return [f for b in self.measured_buffers() for f in self.flags_at(b)]

    @property
    def clearing_pkts(self) -> float:
        """The smallest measured buffer where no cost is flagged, packets:
        among those meeting every objective when some buffer does (the
        recommendation itself when it raises no flag), else among all the
        search measured; NaN when none."""
        ok = set(self.measured_buffers())
        if self.feasible:
            ok = set(self._holding())
        clear = [b for b in sorted(ok) if not self.flags_at(b)]
        return clear[0] if clear else math.nan

    def _holding(self) -> list[float]:
        """The measured buffers where every objective holds, packets."""
        trade = self.tradeoff()
        if trade.empty:
            return []
        holds = trade[[f"{o.text} holds" for o in self.objectives]].all(axis=1)
        return [float(b) for b in trade.loc[holds, "buffer_pkts"]]

    @property
    def outcome(self) -> str:
        """``"meets"`` (some buffer meets every objective), ``"cannot be
        judged"`` (at some measured buffer no objective fails and one is
        only bounded by unfinished transfers: a longer run may meet it) or
        ``"fails"`` (every measured buffer fails some objective)."""
        if self.feasible:
            return "meets"
        trade = self.tradeoff()
        for _, row in trade.iterrows():
            verdicts = [row[f"{o.text} verdict"] for o in self.objectives]
            if "fails" not in verdicts and "cannot be judged" in verdicts:
                return "cannot be judged"
        return "fails"

    def judging_duration_s(self) -> float:
        """The run length that judges the completion-time objectives
        unfinished transfers left unjudged, seconds: the last transfer's
        start plus the largest such bound (a transfer then either finishes
        within the bound or is known to exceed it). NaN when transfers
        arrive all through the run (no last start) or none is unjudged."""
        norm = self.scenario.normalized if self.scenario is not None else {}
        fct = [o for o in self.objectives if o.key.startswith("fct_") and o.op == "<="]
        groups = [g for g in norm.get("flows", []) if g["kind"] != "persistent"]
        if not fct or not groups or any(g["kind"] != "finite" for g in groups):
            return math.nan
        last = max(max(g.get("starts_s") or [0.0]) for g in groups)
        return float(last + max(o.bound for o in fct))

    def cost_cells(self, cost: dict[str, Any], mark: bool = False) -> list[tuple[str, str]]:
        """One buffer's costs as (name, value with its unit) pairs: loss,
        timeouts per flow per s, p99 queueing delay, Jain's index, and with
        finite traffic per size class the share of transfers completed and
        their p99 completion time and slowdown (``>=`` where only a lower
        bound); each the mean over the seeds. :meth:`cost_text` and the
        console's tables show these.

        Parameters
        ----------
        cost : dict
            A row of :attr:`costs`.
        mark : bool
            End each flagged value with ``!`` (:attr:`thresholds`).
        """
        flagged = {f.key for f in flags_of(cost, cost["buffer_pkts"], self.thresholds)}
        cells = []

        def add(name: str, key: str, text: str) -> None:
            cells.append((name, text + ("!" if mark and key in flagged else "")))

        for name, key in (
            ("loss", "drop_rate"),
            ("timeouts", "flow_timeout_rate"),
            ("p99 delay", "p99_queue_delay_s"),
            ("Jain", "jain_index"),
        ):
            x = float(cost.get(key, math.nan))
            add(name, key, fmt.metric(key, x) if key.endswith("_s") else show(key, x))
        for c in ("small", "large"):
            done = cost.get(f"completion_{c}", math.nan)
            if done != done:
                continue
            add(f"{c} done", "unfinished", fmt.percent(done))
            censored = cost.get(f"fct_p99_{c}_s_censored") == 1.0
            add(
                f"{c} p99 FCT",
                "",
                fmt.metric(f"fct_p99_{c}_s", cost[f"fct_p99_{c}_s"], censored=censored),
            )
            slow = cost.get(f"slowdown_p99_{c}", math.nan)
            if slow == slow:
                censored = cost.get(f"slowdown_p99_{c}_censored") == 1.0
                add(f"{c} slowdown", "", f"{'>= ' if censored else ''}{fmt.ratio(slow)}")
        return cells

    def measured_costs(self) -> list[tuple[float, list[tuple[str, str]]]]:
        """Each buffer the packet engine measured (packets, ascending) with
        its costs (:meth:`cost_cells`, flagged values marked ``!``): what
        the first screen shows, titled :data:`MEASURED_COSTS`, when no
        buffer meets every objective (as lines in :meth:`first_screen`, as
        a table on the console)."""
        out = []
        for b in self.measured_buffers():
            cost = self.cost_at(b)
            assert cost is not None
            out.append((b, self.cost_cells(cost, mark=True)))
        return out

    def cost_text(self, cost: dict[str, Any], mark: bool = False) -> str:
        """One buffer's costs in words, one line (:meth:`cost_cells`)."""
        return ", ".join(f"{n} {v}" for n, v in self.cost_cells(cost, mark))

    def stack_line(self) -> str:
        """The stack each flow group assumes, the engines and the seeds, in one line."""
        norm = self.scenario.normalized if self.scenario is not None else {}
        groups: dict[str, int] = {}
        for g in norm.get("flows", []):
            what = f"{g.get('stack', '?')} {g['cc']['variant']}"
            groups[what] = groups.get(what, 0) + int(g["count"] or 0)
        flows = ", ".join(f"{k} ({n} flows)" if n else k for k, n in groups.items())
        ran = {str(e).split(" ")[0] for e in self.runs.get("engine", pd.Series(dtype=str))}
        rules = (
            "source" in self.table
            and (~self.table["source"].isin(["recommended", "fluid scan"])).any()
        )
        engines = ["rules"] * bool(rules) + [e for e in ("fluid", "packet") if e in ran]
        seeds = self.provenance()["seeds"]
        return (
            f"stack: {flows or 'none'}; engines: {', '.join(engines)}; seeds {seeds}; "
            f"runs of {fmt.metric('duration_s', self.duration_s)} "
            f"({fmt.metric('warmup_s', self.warmup_s)} warm-up)"
        )

    def first_screen(self) -> list[str]:
        """The advice's first screen as paragraphs of plain text: the answer
        (packets, bytes, time at line rate) or why there is none ("fails" or
        "cannot be judged", and the run length that would judge it), what
        it costs (:meth:`cost_text`), each flag with its reason, the
        smallest buffer that clears the flags, and the stack line
        (:meth:`stack_line`). The console, the report and the notebook
        show these first.

        Returns
        -------
        list of str
            One paragraph each (wrap them to the page); costs at each
            measured buffer, one paragraph per buffer, when no buffer meets
            every objective.
        """
        out = [self.headline()] + [self.worst_place] * bool(self.worst_place)
        if self.feasible:
            cost = self.cost_at(self.buffer_pkts)
            if cost is not None:
                out.append(
                    f"Cost at {fmt.number(self.buffer_pkts)} packets ({int(cost['seeds'])} seeds): "
                    + self.cost_text(cost)
                )
            out += [f"FLAG {f.text}: {f.reason}" for f in self.flags]
            out.append(self.clearing_text())
        else:
            rows = self.measured_costs()
            if rows:
                out.append(f"{MEASURED_COSTS}:")
            out += [
                f"  {fmt.number(b)} packets: " + ", ".join(f"{n} {v}" for n, v in cells)
                for b, cells in rows
            ]
            out.append(self.thresholds_text())
        out.append(self.stack_line())
        return out

    def headline(self) -> str:
        """The answer in one paragraph: the buffer (:meth:`answer`), its
        range and what binds it; or that no buffer meets every objective,
        whether that "fails" or "cannot be judged" (:attr:`outcome`), why,
        and the run length that would judge it (:meth:`judging_duration_s`)."""
        if self.feasible:
            what = "" if self.sized == "buffer" else f" ({self.sized})"
            return (
                f"Answer{what}: {self.answer()} meets your objectives; they hold from "
                f"{fmt.number(self.range[0])} to {fmt.number(self.range[1])} packets. {self.binding}"
            )
        kind = self.outcome
        text = f"No buffer meets every objective ({kind}): {self.binding}"
        d = self.judging_duration_s()
        if kind == "cannot be judged" and d == d:
            text += (
                f". A run of at least {fmt.metric('duration_s', d)} (the last transfer's start "
                f"plus the bound; these ran {fmt.metric('duration_s', self.duration_s)}) would "
                "judge it"
            )
        elif kind == "cannot be judged":
            text += ". A longer run would judge it"
        past = self._past_as_lower_bound() if kind == "fails" else []
        for objective, lo, hi in past:
            where = (
                f"{fmt.number(lo)} packets"
                if lo == hi
                else (f"{fmt.number(lo)} to {fmt.number(hi)} packets")
            )
            text += (
                f". At {where}, {objective} fails even as a lower bound: transfers still "
                f"unfinished when the {fmt.metric('duration_s', self.duration_s)} runs ended "
                "already exceed the bound, so a longer run would not meet it there"
            )
        return text + "."

    def _past_as_lower_bound(self) -> list[tuple[str, float, float]]:
        """The upper-bound objectives that fail at some measured buffer on a
        value that is only a lower bound (unfinished transfers), known to
        fail there however long the run, each with the least and largest
        such buffer, packets."""
        trade = self.tradeoff()
        out = []
        for o in self.objectives:
            if not len(trade):
                break
            past = (trade[f"{o.text} verdict"] == "fails") & trade[f"{o.text} censored"].astype(
                bool
            )
            if past.any():
                b = trade.loc[past, "buffer_pkts"]
                out.append((o.text, float(b.min()), float(b.max())))
        return out

    def thresholds_text(self) -> str:
        """Each flagged cost's level and reason, one line: ``"Flags: loss >
        1% (TCP throughput falls as 1/sqrt(loss)); ..."``."""
        if not self.thresholds:
            return "Flags: none set."
        return "Flags: " + "; ".join(
            f"{describe(t.key)} {t.op} {show(t.key, t.limit)} ({t.reason})" for t in self.thresholds
        )

    def answer(self) -> str:
        """The recommended buffer in packets, bytes and time at line rate:
        ``"128 packets (192 kB, 153.6 us at 10 Gbps)"``; empty if infeasible."""
        if not self.feasible:
            return ""
        norm = self.scenario.normalized if self.scenario is not None else {}
        cap = (norm.get("link") or {}).get("capacity_bps")
        drain = (
            f", {fmt.metric('drain_s', self.buffer_bytes * 8 / cap)} at "
            f"{fmt.metric('capacity_bps', cap)}"
            if cap
            else ""
        )
        return f"{fmt.number(self.buffer_pkts)} packets ({fmt.metric('buffer_bytes', self.buffer_bytes)}{drain})"

    def clearing_text(self) -> str:
        """The smallest buffer that clears the flags at the answer, in words."""
        flags = self.flags
        if not flags:
            names = ", ".join(describe(t.key) for t in self.thresholds)
            return f"No flag: {names or 'no threshold set'} within their thresholds."
        clear = self.clearing_pkts
        keeps = " and ".join(
            f"{describe(f.key)} {'under' if f.op == '>' else 'over'} {show(f.key, f.threshold)}"
            for f in flags
        )
        if clear != clear:
            # The largest buffer measured where the objectives hold: how far
            # the flags are from clearing there.
            top = max(self._holding(), default=math.nan)
            there = ", ".join(
                f"{describe(f.key)} {show(f.key, f.value)}" for f in self.flags_at(top)
            )
            at = (
                f": at {fmt.number(top)} packets, the largest measured there, {there}"
                if there
                else ""
            )
            return f"No buffer measured where your objectives hold keeps {keeps}{at}."
        return f"{fmt.number(self.buffer_pkts)} packets meets your objectives; {fmt.number(clear)} also keeps {keeps}."

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
                "quick": self.quick,
                "outcome": self.outcome,
                "answer": self.answer(),
                "flags": [asdict(f) for f in self.flags],
                "thresholds": [asdict(t) for t in self.thresholds],
                "clearing_pkts": self.clearing_pkts,
                "judging_duration_s": self.judging_duration_s(),
                "first_screen": self.first_screen(),
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
        names = {
            k: n for n, k in (*COSTS, UNFINISHED, *_finite_costs("small"), *_finite_costs("large"))
        }
        out = []
        for r in self.costs.to_dict("records"):
            row = {
                "buffer": f"{fmt.number(r['buffer_pkts'])}",
                "source": r["source"],
                "seeds": r["seeds"],
            }
            for k in [c for c in self.costs.columns if f"{c} ±" in self.costs.columns]:
                censored = r.get(f"{k}_censored") == 1.0
                row[names[k]] = fmt.interval(k, r[k], r[f"{k} ±"], censored=censored)
            out.append(row)
        return pd.DataFrame(out)

    def rule_buffers(self) -> dict[str, float]:
        """Each applicable rule's buffer (packets) by its name, the
        recommendation and the fluid scan left out: what the figures mark."""
        return {
            r.source: r.buffer_pkts
            for r in self.table.itertuples()
            if r.applies
            and r.source not in ("recommended", "fluid scan")
            and r.buffer_pkts == r.buffer_pkts
        }

    def plot(self) -> Any:
        """Each objective's metric against the buffer (packet runs with
        confidence bands, fluid beside them, at X = 0.3 and 1 too where paper
        004's rule ran), the bound, every rule's buffer, the recommendation
        and the range where every objective holds marked, and the means
        that are only lower bounds (triangles); one panel per objective
        (:func:`bufsim.plot.advice`)."""
        return _view("figure")(self)

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
        return _view("sections")(self, figures)

    def to_html(self) -> str:
        """The self-contained HTML report of this advice
        (:func:`bufsim.report.advice_report`)."""
        return _view("html")(self)

    def _repr_html_(self) -> str:
        """Notebook view: the report's sections but the figure (:meth:`plot`
        draws it; :func:`bufsim.report.advice_notebook`)."""
        return _view("notebook")(self)


#: How an :class:`Advice` is drawn and written, by name: ``"figure"``,
#: ``"sections"``, ``"html"`` and ``"notebook"``, each called with the
#: advice. The layers above advise fill it as they load
#: (:mod:`bufsim.report` installs all four, the figure being
#: :func:`bufsim.plot.advice`), so advise imports neither: they render an
#: advice from above.
VIEWS: dict[str, Callable[..., Any]] = {}

#: The module that installs :data:`VIEWS`, loaded by name on first use:
#: it imports matplotlib, which ``import bufsim`` leaves out (as pandas
#: loads its plotting backend by name).
VIEWS_MODULE = "bufsim.report"


def _view(name: str) -> Callable[..., Any]:
    """The view ``name`` of :data:`VIEWS`, its module loaded if need be."""
    if name not in VIEWS:
        importlib.import_module(VIEWS_MODULE)
    return VIEWS[name]


#: Rule names as the compact table shows them (the paper in -v's notes).
SHORT_SOURCES = {
    "Stanford CT/sqrt(N)": "Stanford",
    "B0 synchronized": "B0 sync",
    "B0 desynchronized": "B0 desync",
    "HSTCP fixed point": "HSTCP",
    "transparent regime": "transparent",
    "fluid loss-sync range": "fluid X range",
}


def short_source(source: str) -> str:
    """A rule's name without its paper (``"B0 desynchronized (paper 003)"``
    -> ``"B0 desync"``), for tables 80 columns wide."""
    name = source.split(" (paper")[0]
    return SHORT_SOURCES.get(name, name)


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


#: The share of transfers unfinished when the run ended, with finite traffic.
UNFINISHED = ("unfinished transfers", "unfinished")


def _finite_costs(c: str) -> tuple[tuple[str, str], ...]:
    """The costs of finite transfers of size class ``c`` (``small``/``large``):
    (name, summary key) as in :data:`COSTS`."""
    return (
        (f"completed, {c}", f"completion_{c}"),
        (f"p99 FCT, {c}", f"fct_p99_{c}_s"),
        (f"p99 slowdown, {c}", f"slowdown_p99_{c}"),
    )


def costs(
    table: pd.DataFrame,
    runs: pd.DataFrame,
    duration_s: float,
    warmup_s: float,
    confidence: float,
) -> pd.DataFrame:
    """What each buffer the packet engine measured costs (the rows of
    ``table`` it ran: the recommendation and every rule it checked, then
    every other buffer the search probed, source ``"searched"``): per
    metric of :data:`COSTS` (and with finite traffic the share of
    transfers unfinished, completions and p99 FCT and slowdown per class)
    the mean over the seeds and the half-width of its two-sided Student t
    interval at ``confidence`` (NaN with one seed). Timeouts per flow per
    second follow :func:`~bufsim.advise.objectives.flow_timeout_rate`.

    Parameters
    ----------
    table : pandas.DataFrame
        The advice's table (``source``, ``buffer_pkts`` in packets).
    runs : pandas.DataFrame
        Every run of the search (a sweep table).
    duration_s, warmup_s : float
        The runs' duration and warm-up, seconds (a run that stopped early,
        ``output.stop``, ends at its ``end_s``).
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
    # The search adds both per run (Runner.packet); a runs table made
    # otherwise gets them by the same laws.
    if "flow_timeout_rate" not in packet:
        packet["flow_timeout_rate"] = flow_timeout_rate(packet, duration_s)
    if "unfinished" not in packet:
        packet["unfinished"] = unfinished_share(packet)
    keys = [k for _, k in COSTS]
    finite = [c for c in ("small", "large") if f"flows_started_{c}" in packet]
    if finite:
        keys.append("unfinished")
    for c in finite:
        keys += [k for _, k in _finite_costs(c)]
    # The table's rows (the recommendation, the rules), then every other
    # buffer the search probed.
    sources = [(r.source, r.buffer_pkts) for r in table.itertuples()]
    named = {float(round(b)) for _, b in sources if b == b}
    sources += [("searched", b) for b in sorted(set(packet["buffer_pkts"])) if b not in named]
    rows = []
    for source, b in sources:
        g = packet[packet["buffer_pkts"] == float(round(b))] if b == b else packet.iloc[:0]
        if g.empty:
            continue
        # The buffer the runs had (a rule's 11.46 packets ran at 11).
        row: dict[str, Any] = {"source": source, "buffer_pkts": float(round(b)), "seeds": len(g)}
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
