"""``bufsim advise``: from an objective to a verified buffer size.

For one link (a scenario whose ``link.buffer`` is ignored) and objectives
such as ``utilization>=0.98`` and ``p99_queue_delay<=5ms``, :func:`advise`

1. checks that the objectives can be met at all (a utilization target on a
   link the traffic cannot saturate, paper 002 section 3.2, is refused with
   what would be needed);
2. lists every published rule (BDP, Stanford ``CT/sqrt(N)``, paper 002's
   loss formula, paper 003's B0 for synchronized and desynchronized flows,
   paper 001's HighSpeed fixed point, paper 000's transparent regime) with
   its buffer, or why it does not apply to this traffic;
3. scans a log grid of buffers with the fluid engine (where the scenario has
   a fluid form) to bracket the answer;
4. searches the smallest buffer that meets every objective with the packet
   engine: a bisection over the grid, ``seeds`` runs per probed buffer, each
   objective judged on a one-sided Student t confidence bound over the seeds;
   the buffer one grid step below must fail;
5. measures every rule's buffer with the packet engine too.

Every run goes through :func:`bufsim.sweep`, so the results store caches it
(an interrupted search resumes where it stopped) and a Dask scheduler
spreads it. Objectives that pull apart (utilization wants a large buffer,
delay a small one) give a trade-off, not an error: :class:`Advice` then says
which objective binds and keeps the runs for the trade-off curve.

Monotonicity is assumed along the buffer axis: utilization, goodput and
fairness objectives hold from some buffer up, loss objectives too, queueing
delay objectives up to some buffer. The grid has four points per doubling
of the buffer (ratio 2^(1/4), 19%) in ``quick`` mode two (41%).

Example
-------
>>> a = bufsim.advise(bufsim.examples.path("advise-10g"),
...                   ["utilization>=0.98", "p99_queue_delay<=5ms"])   # doctest: +SKIP
>>> a.buffer_pkts, a.range                                             # doctest: +SKIP
"""

from __future__ import annotations

import copy
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bufsim import _core, models
from bufsim._core import BufsimError
from bufsim.scenario import Scenario

log = logging.getLogger(__name__)

__all__ = ["Advice", "AdviceError", "Objective", "advise", "parse_objective"]


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

    def holds(self, values: Sequence[float], confidence: float) -> bool:
        """Whether the objective holds on these per-seed values with the given
        one-sided confidence (Student t bound over seeds; the value itself
        with one seed)."""
        v = np.asarray([x for x in values if x == x], dtype=float)
        if len(v) == 0:
            return False
        m = float(v.mean())
        half = 0.0
        if len(v) > 1 and confidence > 0:
            half = float(stats.t.ppf(confidence, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)))
        return m - half >= self.bound if self.op == ">=" else m + half <= self.bound


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

    def tradeoff(self) -> pd.DataFrame:
        """What each buffer the packet engine measured gives, and which are
        Pareto-optimal: the choices left when no buffer meets every objective.

        Returns
        -------
        pandas.DataFrame
            One row per measured buffer (packets, ascending): each
            objective's mean over the seeds (its column named by the
            objective), whether it holds at the requested confidence
            (``"<objective> holds"``), and ``pareto``: no other measured
            buffer is at least as good on every objective and better on one
            (better: higher for a ``>=`` objective, lower for ``<=``;
            differences within 0.1% of the objective's bound are ties, so
            that 0.99996 against 1.0 does not make a larger buffer "better").
        """
        runs = self.runs
        if runs.empty or "engine" not in runs:
            return pd.DataFrame()
        packet = runs[runs["engine"] == "packet"]
        rows = []
        for b, g in packet.groupby("buffer_pkts"):
            row: dict[str, Any] = {"buffer_pkts": float(b)}
            for o in self.objectives:
                row[o.text] = float(g[o.key].mean())
                row[f"{o.text} holds"] = o.holds(g[o.key].tolist(), self.confidence)
            rows.append(row)
        t = pd.DataFrame(rows).sort_values("buffer_pkts", ignore_index=True)
        # Oriented so that larger is better for every objective.
        score = np.column_stack([t[o.text] * (1 if o.op == ">=" else -1) for o in self.objectives])
        tie = np.array([1e-3 * max(abs(o.bound), 1e-12) for o in self.objectives])
        t["pareto"] = [
            not any(
                (score[j] >= score[i] - tie).all() and (score[j] > score[i] + tie).any()
                for j in range(len(t))
                if j != i
            )
            for i in range(len(t))
        ]
        return t

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
                "table": self.table.to_dict(orient="records"),
                "tradeoff": self.tradeoff().to_dict(orient="records"),
            },
            nan_to_none=True,
        )

    def plot(self) -> Any:
        """Each objective's metric against the buffer (packet runs with
        confidence bands, fluid beside them), the bound, every rule's buffer
        and the recommendation marked; one panel per objective."""
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
            if self.feasible:
                ax.axvline(self.buffer_pkts, color="#2e7d32", lw=2, alpha=0.6, label="recommended")
                ax.legend(fontsize=8)
        return fig

    def to_html(self) -> str:
        """The self-contained HTML report of this advice."""
        from bufsim import plot
        from bufsim.report import Figure as RFigure
        from bufsim.report import Section, html_table, render

        verdict = (
            f"Recommended buffer: {self.buffer_pkts:g} packets ({self.buffer_bytes:g} bytes); "
            f"every objective holds from {self.range[0]:g} to {self.range[1]:g} packets. {self.binding}"
            if self.feasible
            else f"No buffer meets every objective: {self.binding}"
        )
        sections = [
            Section("answer", "Answer", text=[verdict, self.method, *self.notes]),
            Section(
                "table",
                "Rules, models, fluid and packet side by side",
                table=html_table(self.table),
            ),
            Section(
                "figures",
                "Objectives against the buffer",
                figures=[RFigure("fig-advice", plot.svg(self.plot()))],
            ),
        ]
        return render(
            "bufsim advise: " + ", ".join(o.text for o in self.objectives),
            sections,
            subtitle="advice",
        )

    def _repr_html_(self) -> str:
        from bufsim.report import html_table

        head = (
            f"<b>Recommended: {self.buffer_pkts:g} packets</b> (range {self.range[0]:g}-{self.range[1]:g})"
            if self.feasible
            else "<b>Infeasible</b>"
        )
        return f"<div>{head}<p>{self.binding}</p>{html_table(self.table)}</div>"


def _grid(lo: float, hi: float, per_doubling: int) -> list[int]:
    """Whole-packet buffers from ``lo`` to ``hi``, ``per_doubling`` per factor 2."""
    n = int(math.ceil(math.log2(hi / lo) * per_doubling)) + 1
    vals = sorted({max(1, int(round(lo * 2 ** (k / per_doubling)))) for k in range(n)})
    return vals


def _groups(norm: Mapping[str, Any]) -> tuple[int, list[str], list[str]]:
    """(persistent flows, their tcp names, notes on the other groups)."""
    n, tcps, notes = 0, [], []
    for i, g in enumerate(norm["flows"]):
        if g["kind"] == "persistent":
            n += g["count"]
            tcps.append(g["tcp"])
        else:
            notes.append(
                f"flows[{i}] ({g['kind']} traffic) is left out of the rules that count long-lived flows"
            )
    return n, tcps, notes


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
    n, tcps, _ = _groups(norm)
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
    aimd = n > 0 and all(t in ("newreno", "reno", "aimd") for t in tcps)
    for sync in (True, False):
        name = f"B0 {'synchronized' if sync else 'desynchronized'} (paper 003)"
        if aimd:
            b = float(models.b0_symmetric(bdp, n, synchronized=sync))
            add(name, b, True, "smallest buffer for full utilization, AIMD flows")
        else:
            add(name, math.nan, False, f"AIMD/Reno flows only; here {sorted(set(tcps)) or 'none'}")
    util = [o for o in objectives if o.key == "utilization"]
    hs = n > 0 and all(t == "highspeed" for t in tcps) and link["qdisc"] == "droptail"
    if hs and util:
        bufs = np.array(_grid(1, grid_hi, 4))
        t = models.sweep_buffer(norm, bufs, model="highspeed_mm1k")
        ok = t[t["utilization"] >= util[0].bound]
        b = float(ok["buffer_pkts"].min()) if len(ok) else math.nan
        add(
            "HSTCP fixed point (paper 001)",
            b,
            bool(len(ok)),
            f"M/M/1/K fixed point reaching {util[0].text}",
        )
    else:
        why = (
            "no utilization objective"
            if not util
            else f"HighSpeed flows through drop-tail only; here {sorted(set(tcps)) or 'none'}"
        )
        add("HSTCP fixed point (paper 001)", math.nan, False, why)
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


def _with_buffer(raw: Mapping[str, Any], b: float) -> dict[str, Any]:
    s = copy.deepcopy(dict(raw))
    s["link"]["buffer"] = f"{int(b)}pkt"
    return s


def advise(  # noqa: C901 - to split (issue 16)
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
    progress: Callable[[str], Any] | None = None,
) -> Advice:
    """The smallest buffer that meets every objective, verified by the packet engine.

    Parameters
    ----------
    scenario : Scenario, dict or path
        The link and its traffic; ``link.buffer`` is ignored.
    objectives : iterable of str
        E.g. ``["utilization>=0.98", "p99_queue_delay<=5ms"]`` (see
        :func:`parse_objective`).
    engines : sequence of str
        Which of ``"rules"``, ``"fluid"``, ``"packet"`` take part.
    seeds : int
        Packet runs per probed buffer (seeds 1..seeds).
    confidence : float
        One-sided confidence (0..1) with which each objective must hold,
        over the seeds (Student t).
    quick : bool
        Two seeds, a coarser grid: a first answer in a fraction of the time.
    budget : int, optional
        At most this many packet runs (the search stops and says so).
    scheduler : str, optional
        A Dask scheduler address for the runs.
    workers : int, optional
        Local worker processes.
    store : str, Path, Store or None
        The results store (cached runs are reused).
    progress : callable, optional
        Called with a line of text as the search goes.

    Returns
    -------
    Advice

    Raises
    ------
    AdviceError
        Bad objectives, or a target no buffer can meet (e.g. a utilization
        the traffic cannot offer).
    """
    from bufsim.sweep import sweep

    objs = [parse_objective(o) for o in objectives]
    if not objs:
        raise AdviceError("give at least one objective, e.g. 'utilization>=0.98'")
    if not 0 < confidence < 1:
        raise AdviceError(f"confidence must be between 0 and 1, got {confidence!r}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise AdviceError(f"seeds must be a whole number >= 1, got {seeds!r}")
    unknown = set(engines) - {"rules", "fluid", "packet"}
    if unknown or "packet" not in engines:
        raise AdviceError(
            f"engines must include 'packet' and be among rules, fluid, packet; got {list(engines)}"
        )

    def say(msg: str) -> None:
        log.info("advise: %s", msg)
        if progress is not None:
            progress(msg)

    scn = Scenario.load(scenario)
    raw, norm = scn.raw, scn.normalized
    link = norm["link"]
    if quick:
        seeds = min(seeds, 2)
    per_doubling = 2 if quick else 4

    notes: list[str] = list(_groups(norm)[2])
    for o in objs:
        if _GROUP_GOODPUT.fullmatch(o.key) and int(o.key.rsplit("group", 1)[1]) >= len(
            norm["flows"]
        ):
            raise AdviceError(
                f"objective {o.text!r}: the scenario has {len(norm['flows'])} flow groups"
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

    bdp = max(float(link["bdp_pkts"]), 1.0)
    lo, hi = 1.0, max(4 * bdp, 16.0)
    grid = _grid(lo, hi, per_doubling)
    rules = _rules(norm, objs, hi) if "rules" in engines else []

    def run(buffers: list[int], engine: str, seed_list: list[int]) -> pd.DataFrame:
        base = _with_buffer(raw, buffers[0])
        return sweep(
            base,
            grid={"link.buffer": [f"{b}pkt" for b in buffers]},
            engines=[engine],
            seeds=seed_list,
            store=store,
            scheduler=scheduler,
            workers=workers,
            progress=False,
        )

    runs: list[pd.DataFrame] = []
    lo_i, hi_i = 0, len(grid) - 1
    fluid_note = ""
    if "fluid" in engines:
        say(f"fluid scan: {len(grid)} buffers")
        ft = run(grid, "fluid", [int(norm["seed"])])
        if (ft["status"] == "ok").all():
            runs.append(ft)
            ok_f = _meets(ft, objs, 0.0)
            fluid_ok = [b for b, ok in zip(grid, ok_f) if ok]
            if fluid_ok:
                fluid_note = f"fluid engine meets every objective from {fluid_ok[0]} packets"
                i = grid.index(fluid_ok[0])
                # Bisect around the fluid answer first (the fluid model is no
                # ground truth: the search widens when the packet engine disagrees).
                lo_i, hi_i = max(0, i - 2 * per_doubling), min(len(grid) - 1, i + 2 * per_doubling)
            else:
                fluid_note = "fluid engine meets no buffer of the grid"
        else:
            # A scenario without a fluid form: say why, go on with packets.
            fluid_note = "no fluid scan: " + str(ft.loc[ft["status"] != "ok", "error"].iloc[0])
    seed_list = list(range(1, seeds + 1))
    probed: dict[int, tuple[bool, list[bool]]] = {}
    packet_runs = 0

    def probe(i: int) -> tuple[bool, list[bool]]:
        nonlocal packet_runs
        b = grid[i]
        if b not in probed:
            if budget is not None and packet_runs + len(seed_list) > budget:
                raise _Budget()
            say(f"packet: {b} packets x {len(seed_list)} seeds")
            t = run([b], "packet", seed_list)
            runs.append(t)
            packet_runs += len(seed_list)
            each = [o.holds(t[o.key].tolist(), confidence) for o in objs]
            probed[b] = (all(each), each)
        return probed[b]

    up = [k for k, o in enumerate(objs) if o.grows_with_buffer]
    down = [k for k, o in enumerate(objs) if not o.grows_with_buffer]
    stopped = ""
    try:
        # Smallest index where every "grows" objective holds (monotone predicate).
        n = len(grid)
        lower = (
            _search(lambda i: all(probe(i)[1][k] for k in up), lo_i, hi_i, n, first_true=True)
            if up
            else 0
        )
        # Largest index where every "shrinks" objective holds.
        upper = (
            _search(lambda i: all(probe(i)[1][k] for k in down), lo_i, hi_i, n, first_true=False)
            if down
            else n - 1
        )
    except _Budget:
        lower, upper = None, None
        stopped = f"the budget of {budget} packet runs was used up before the search ended"
    feasible = lower is not None and upper is not None and lower <= upper and lower < len(grid)
    if feasible:
        assert lower is not None and upper is not None
        rec = grid[lower]
        rng = (float(rec), float(grid[upper]))
        binders = [objs[k].text for k in up] or [objs[k].text for k in down]
        binding = f"Binding: {', '.join(binders)} (the next smaller grid buffer, {grid[lower - 1] if lower else 0} packets, fails)."
        if lower == 0:
            binding = "Every objective holds already at 1 packet."
    else:
        rec, rng = math.nan, (math.nan, math.nan)
        if stopped:
            binding = stopped
        elif lower is None or lower >= len(grid):
            binding = f"{', '.join(objs[k].text for k in up)} is not met up to {grid[-1]} packets ({hi / bdp:g} BDP)"
        else:
            binding = (
                f"{', '.join(objs[k].text for k in up)} needs at least {grid[lower]} packets but "
                f"{', '.join(objs[k].text for k in down)} allows at most {grid[upper] if upper >= 0 else 0} packets"
            )
    table = pd.DataFrame(rules, columns=["source", "buffer_pkts", "applies", "note"])
    if fluid_note:
        table.loc[len(table)] = {
            "source": "fluid scan",
            "buffer_pkts": math.nan,
            "applies": "fluid" in engines,
            "note": fluid_note,
        }
    # The packet engine at every applicable rule's buffer (same seeds; cached runs are reused).
    if "rules" in engines and not stopped:
        for r in table.itertuples():
            if (
                r.applies
                and r.buffer_pkts == r.buffer_pkts
                and r.buffer_pkts >= 1
                and r.source != "fluid scan"
            ):
                b = int(round(r.buffer_pkts))
                say(f"packet at {r.source}: {b} packets")
                runs.append(run([b], "packet", seed_list))
    all_runs = pd.concat(runs, ignore_index=True) if runs else pd.DataFrame()
    measured = []
    for r in table.itertuples():
        measured.append(_measure(all_runs, r.buffer_pkts, objs, confidence))
    for k, o in enumerate(objs):
        table[o.text] = [m[k] for m in measured]
    table["meets all"] = [m[-1] for m in measured]
    rec_row = {
        "source": "recommended",
        "buffer_pkts": rec,
        "applies": feasible,
        "note": "packet engine, smallest grid buffer meeting every objective",
    }
    rec_meas = _measure(all_runs, rec, objs, confidence)
    rec_row.update({o.text: rec_meas[k] for k, o in enumerate(objs)})
    rec_row["meets all"] = rec_meas[-1]
    table.loc[len(table)] = rec_row
    # What the analytic model (bufsim.models.predict, "auto") says at each
    # buffer, for the objectives it predicts; NaN where it has no answer.
    model_note = ""
    for o in objs:
        table[f"{o.text} (model)"] = math.nan
    for i, b in table["buffer_pkts"].items():
        if b != b or b < 1 or model_note:
            continue
        try:
            pred = models.predict(Scenario(_with_buffer(raw, round(b))), model="auto").summary
        except (models.ModelInputError, ValueError) as e:
            model_note = f"no analytic model for this traffic: {e}"
            continue
        for o in objs:
            table.loc[i, f"{o.text} (model)"] = pred.get(o.key, math.nan)
    if model_note:
        notes.append(model_note)
    size = int(link["packet_size_bytes"])
    method = (
        f"Packet bisection over a log grid of {len(grid)} buffers (1 to {grid[-1]} packets, "
        f"{per_doubling} per doubling), {len(seed_list)} seeds per buffer, {packet_runs} packet runs in the "
        f"search; each objective checked on a one-sided {confidence:.0%} Student t bound over the seeds."
    )
    return Advice(
        objectives=objs,
        feasible=feasible,
        buffer_pkts=float(rec),
        buffer_bytes=float(rec) * size,
        range=rng,
        binding=binding,
        table=table,
        runs=all_runs,
        confidence=confidence,
        packet_size_bytes=size,
        method=method,
        notes=notes,
    )


class _Budget(Exception):
    pass


def _search(pred: Callable[[int], bool], lo: int, hi: int, n: int, *, first_true: bool) -> int:
    """:func:`_bisect` in the bracket ``lo..hi`` of a grid of ``n`` points,
    continued outside the bracket when the answer lies beyond one of its ends."""
    r = _bisect(pred, lo, hi, first_true=first_true)
    if first_true:
        if r == hi + 1 and hi + 1 < n:
            return _bisect(pred, hi + 1, n - 1, first_true=True)
        if r == lo and lo > 0:
            return _bisect(pred, 0, lo, first_true=True)
        return r
    if r == lo - 1 and lo > 0:
        return _bisect(pred, 0, lo - 1, first_true=False)
    if r == hi and hi < n - 1:
        return _bisect(pred, hi, n - 1, first_true=False)
    return r


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
    a, b = lo, hi  # pred(a) false, pred(b) true
    while b - a > 1:
        m = (a + b) // 2
        a, b = (a, m) if pred(m) else (m, b)
    return b


def _meets(table: pd.DataFrame, objs: list[Objective], confidence: float) -> list[bool]:
    out = []
    for _, g in table.groupby("buffer_pkts", sort=True):
        out.append(all(o.holds(g[o.key].tolist(), confidence) for o in objs))
    return out


def _measure(runs: pd.DataFrame, b: float, objs: list[Objective], confidence: float) -> list[Any]:
    """Per objective the packet mean at buffer ``b`` (NaN where not run), then whether all hold."""
    if runs.empty or b != b:
        return [math.nan] * len(objs) + [None]
    g = runs[(runs["engine"] == "packet") & (runs["buffer_pkts"] == float(int(round(b))))]
    if g.empty:
        return [math.nan] * len(objs) + [None]
    return [float(g[o.key].mean()) for o in objs] + [
        all(o.holds(g[o.key].tolist(), confidence) for o in objs)
    ]
