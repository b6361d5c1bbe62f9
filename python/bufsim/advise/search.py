"""The search for the smallest buffer: :class:`Search`, phase by phase.

:class:`Search` holds the state of one :func:`bufsim.advise.advise` and runs
its phases: the fluid scan (:meth:`Search.fluid_scan`; paper 004's range,
:meth:`Search.fluid_sync_rule`), the packet search
(:meth:`Search.packet_search`: a bisection, or a galloping search from the
fluid edge, :func:`_search`, for the monotone objectives;
:meth:`Search.interval` for completion times), adaptive seeds
(:meth:`Search.add_seeds`), the verdict (:meth:`Search.verdict`), the
rules' buffers (:meth:`Search.check_rules`) and the convergence check
(:meth:`Search.convergence`). Every run goes through
:func:`bufsim.sweep.sweep`; the caller sees :class:`AdviseProgress`.
Buffers in packets; a grid index is a position in :attr:`Search.grid`.
"""

from __future__ import annotations

import copy
import itertools
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, fmt
from bufsim.advise.convergence import convergence
from bufsim.advise.fluid import (
    SYNC_FLOOR,
    SYNC_GAP,
    SYNC_RANGE,
    calibrated_edge,
    calibration_point,
    fluid_form,
)
from bufsim.advise.objectives import (
    AdviceError,
    Objective,
    cannot_judge,
    flow_timeout_rate,
    judged,
    observed,
    stop_rule,
    unfinished_share,
)
from bufsim.advise.rules import buffer_grid, table_row, with_buffer
from bufsim.scenario import DISCIPLINES, Scenario

# The name advise has always logged under (the package's).
log = logging.getLogger("bufsim.advise")


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

#: Seeds run first at each probed buffer; the others of ``seeds`` run only
#: where these leave some verdict unknown (:meth:`Search.first_wave_knows`).
FIRST_WAVE = 2


#: An edge that the fluid scan or the analytic model puts more than this
#: factor away (either way) from the packet engine's is reported with the
#: likely reasons (:func:`engine_gap_notes`).
ENGINE_GAP = 2.0


class FluidFailed(Exception):
    """A fluid run failed: its buffer (packets) and its error."""

    def __init__(self, buffer: float, error: str):
        super().__init__(f"the fluid run at {fmt.number(buffer)} packets failed: {error}")
        self.buffer, self.error = buffer, error


class Budget(Exception):
    """The ``budget`` of packet runs is used up: the search stops where it is."""


@dataclass
class Edges:
    """Grid indices the packet search found (None: not found / stopped)."""

    lower: int | None = None  # first index where the "grows" objectives hold
    upper: int | None = None  # last index where the "shrinks" objectives hold
    interval: tuple[int, int] | None = (0, 0)  # feasible interval of the non-monotone ones
    stopped: str = ""
    notes: list[str] = field(default_factory=list)


class Search:
    """The state of one :func:`advise` search, phase by phase.

    Parameters
    ----------
    scn : Scenario
        The scenario, its duration and warm-up given (its buffer aside).
    objs : list of Objective
        The objectives.
    engines : sequence of str
        Which of ``"rules"``, ``"fluid"``, ``"packet"`` and the verifying
        engines (``"ns3"``, ``"ns2"``) take part.
    seeds : int
        Packet runs per probed buffer (two at most with ``quick``).
    confidence : float
        One-sided confidence of each objective's check (0..1).
    quick : bool
        Two grid points per doubling (else four), the fluid scan on every
        other one, no adaptive seeds.
    budget : int or None
        At most this many packet runs (:class:`Budget` when used up).
    sweep_options : dict
        ``store``, ``scheduler``, ``workers`` for :func:`bufsim.sweep.sweep`.
    progress : callable or None
        Called with an :class:`AdviseProgress` as runs finish and phases start.
    stop_early : bool
        Packet runs end once every objective's verdict is known
        (:func:`stop_rule`), where the objectives allow it.
    """

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
        stop_early: bool = True,
    ):
        self.scn, self.objs, self.engines = scn, objs, engines
        # output.stop of every packet run (None: runs measure their whole window).
        self.stop = stop_rule(objs, confidence) if stop_early else None
        self.raw, self.norm = scn.raw, scn.normalized
        # A pool (its size is the buffer searched) or a chain (one buffer on
        # each link): each objective holds on every port or link that
        # carries flows (:func:`worst_place`), which the batch rule does
        # not measure.
        self.places = busy_places(self.norm)
        self.axis = axis_of(self.norm)
        if self.places:
            self.stop = None
        self.fluid_raw, self.fluid_changes = fluid_form(self.raw, self.norm)
        self.confidence, self.budget = confidence, budget
        self.seeds = min(seeds, 2) if quick else seeds
        self.seed_list = list(range(1, self.seeds + 1))
        self.per_doubling = 2 if quick else 4
        # A chain's grid reaches as far as its busy links' largest BDP needs.
        links = [
            self.norm["links"][int(p.removeprefix("link"))]
            for p in self.places
            if p.startswith("link")
        ] or [self.norm["link"]]
        self.bdp = max(max(float(x["bdp_pkts"]) for x in links), 1.0)
        self.hi = max(4 * self.bdp, 16.0)
        if "pool" in self.norm:
            # n busy ports each hold about alpha / (1 + n alpha) of the pool
            # (Choudhury & Hahne's fixed point): the grid reaches as far
            # for each of them as it does for one link.
            alpha = float(self.norm["pool"]["alpha"])
            self.hi *= (1 + len(self.places) * alpha) / alpha
        self.grid = buffer_grid(1.0, self.hi, self.per_doubling)
        self.wait_per_pkt_s = fifo_wait_per_packet(self.norm, self.axis)
        # Delay objectives known to hold without a run up to this buffer
        # (packets; :meth:`a_priori`), when the search relied on it.
        self.delay_known_to: int | None = None
        self.sweep_options = sweep_options
        self.progress = progress
        self.runs: list[pd.DataFrame] = []
        self.probed: dict[int, list[bool]] = {}
        self.packet_runs = 0
        self.adaptive: dict[int, int] = {}  # buffer -> seeds run there when more than seeds
        self.first_wave: list[int] = []  # buffers whose first wave knew every verdict
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
        """Start ``phase``: log ``message`` and report it to ``progress``."""
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

        base = with_buffer(self.fluid_raw if engine == "fluid" else self.raw, buffers[0], self.axis)
        # Overrides merge into the base's tables one level deep: a
        # {"fluid": {"sync": x}} keeps the scenario's other fluid settings.
        for k, v in copy.deepcopy(dict(overrides or {})).items():
            base[k] = (
                {**base[k], **v} if isinstance(v, dict) and isinstance(base.get(k), dict) else v
            )
        if engine == "packet":
            # Each metric over both halves of the window too (the
            # convergence check), and the end once the verdicts are known.
            stop = {"stop": self.stop} if self.stop else {}
            base["output"] = {**base.get("output", {}), "halves": True, **stop}
        start = self.done

        def tick(_: Mapping[str, Any]) -> None:
            self.done += 1
            self._report(self.message)

        values = [f"{b}pkt" for b in buffers]
        # A chain's links take the same buffer: their axes advance together.
        axes = (
            {"zip": [{f"links[{i}].buffer": values for i in range(len(self.norm["links"]))}]}
            if self.axis == CHAIN_AXIS
            else {"grid": {self.axis: values}}
        )
        out = sweep(
            base,
            **axes,
            engines=[engine],
            seeds=seed_list,
            progress=tick,
            **self.sweep_options,
        )
        self.done = start + len(buffers) * len(seed_list)
        return worst_place(out, self.objs, self.places) if self.places else out

    def packet(self, b: int, seed_list: list[int]) -> pd.DataFrame:
        """The packet engine at buffer ``b`` (packets) over ``seed_list``, kept
        in :attr:`runs`. Raises :class:`Budget` past the budget and
        :class:`AdviceError` when a run fails."""
        if self.budget is not None and self.packet_runs + len(seed_list) > self.budget:
            raise Budget()
        t = self.run([b], "packet", seed_list)
        failed = t[t["status"] != "ok"]
        if len(failed):
            # A failed run has no metrics: judging it would read as "the
            # objective fails here" and move the answer. Stop and say why.
            raise AdviceError(
                f"the packet run at {b} packets (seed {failed['seed'].iloc[0]}) failed: "
                f"{failed['error'].iloc[0]}"
            )
        # Timeouts per flow per second, one law for every view of it.
        t = t.assign(
            flow_timeout_rate=flow_timeout_rate(t, float(self.norm["duration_s"])),
            unfinished=unfinished_share(t),
        )
        self.runs.append(t)
        self.packet_runs += len(seed_list)
        return t

    def verify(self, engine: str, b: int) -> str:
        """``engine`` (a verifying one: ns-3, ns-2) at buffer ``b`` over the
        packet runs' seeds: a note with each objective's mean in both
        engines and whether it holds in ``engine``."""
        from bufsim.engines import ENGINES

        name = ENGINES[engine].label
        self.say(engine, f"{name} at {b} packets, {len(self.seed_list)} seeds")
        t = self.run([b], engine, self.seed_list)
        failed = t[t["status"] != "ok"]
        if len(failed):
            return f"{name} could not run at {b} packets: {failed['error'].iloc[0]}"
        parts = []
        for o in self.objs:
            ok = o.holds(judged(t, o.key).tolist(), self.confidence)
            parts.append(
                f"{o.text}: {name} {_shown(t, o.key)}, packet {_shown(self.at(b), o.key)} "
                f"({'met' if ok else 'NOT met'} in {name})"
            )
        return (
            f"{name} {ENGINES[engine].version()} at the recommended {b} packets "
            f"({len(self.seed_list)} seeds): " + "; ".join(parts)
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
        return judged(g, key).tolist()

    def at(self, b: float) -> pd.DataFrame:
        """Every packet run at buffer ``b`` (packets) so far."""
        tables = [
            t[(t["engine"] == "packet") & (t["buffer_pkts"] == float(b))]
            for t in self.runs
            if "engine" in t
        ]
        return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()

    def a_priori(self, k: int, i: int) -> bool:
        """Whether objective ``k`` holds at grid index ``i`` without a run: a
        queueing delay bound that a FIFO queue of ``grid[i]`` packets
        cannot exceed (:func:`fifo_wait_per_packet`)."""
        o = self.objs[k]
        return (
            self.wait_per_pkt_s is not None
            and o.key in FIFO_BOUNDED
            and o.op == "<="
            and self.grid[i] * self.wait_per_pkt_s <= o.bound
        )

    def unjudgeable(self, b: float, o: Objective) -> bool:
        """Whether the packet runs at buffer ``b`` cannot judge objective
        ``o`` (an upper bound on a completion time): some run's value is
        only a lower bound (:func:`observed`) and the mean of those lower
        bounds and values still meets the bound, so the true mean may or
        may not. A lower bound already past the bound is a failure."""
        return cannot_judge(o, *observed(self.at(b), o.key))

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
        # The fluid bisections: two runs a round (:func:`_first_true_together`).
        fluid = 2 * math.ceil(math.log2(len(self.fluid_grid) + 1))
        fluid *= 1 + (len(SYNC_RANGE) if sync else 0)
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
        """What the fluid runs changed in the scenario (:func:`fluid_form`), as a note."""
        return f" (fluid form of the scenario: {self.fluid_changes})" if self.fluid_changes else ""

    def fluid_runs(
        self,
        grid: list[int],
        points: Iterable[int],
        *,
        phase: str,
        engine: str = "fluid",
        overrides: Mapping[str, Any] | None = None,
    ) -> None:
        """The fluid engine at the indices ``points`` of ``grid`` (buffers,
        packets) it has not run yet under the label ``engine``, in one
        sweep, kept in :attr:`runs` under that label. Raises
        :class:`FluidFailed` when a run fails."""
        done = set(self.fluid_at(engine)["buffer_pkts"])
        new = [grid[i] for i in sorted(set(points)) if float(grid[i]) not in done]
        if not new:
            return
        self.say(phase, f"{phase}: {', '.join(map(str, new))} packets")
        t = self.run(new, "fluid", [int(self.norm["seed"])], overrides)
        bad = t[t["status"] != "ok"]
        if len(bad):
            raise FluidFailed(float(bad["buffer_pkts"].iloc[0]), str(bad["error"].iloc[0]))
        self.runs.append(t.assign(engine=engine))

    def fluid_at(self, engine: str = "fluid") -> pd.DataFrame:
        """Every fluid run labelled ``engine`` so far, by buffer."""
        tables = [t[t["engine"] == engine] for t in self.runs if "engine" in t]
        if not tables:
            return pd.DataFrame({"buffer_pkts": []})
        return pd.concat(tables, ignore_index=True).sort_values("buffer_pkts", kind="stable")

    def fluid_edges(
        self,
        grid: list[int],
        preds: Mapping[str, Callable[[pd.DataFrame], bool]],
        *,
        phase: str,
        engine: str = "fluid",
        overrides: Mapping[str, Any] | None = None,
        ends: bool = False,
    ) -> dict[str, int]:
        """For each predicate of ``preds`` (called with the fluid run at one
        buffer; false below some buffer of ``grid`` and true from it on),
        the first index of ``grid`` where it holds (``len(grid)``:
        nowhere): a bisection of every predicate together
        (:func:`_first_true_together`), each round's points in one sweep
        (:meth:`fluid_runs`). The fluid curves are taken as monotone in the
        buffer, as the packet search takes the packet engine's. ``ends``:
        the grid's ends first."""

        def run(points: list[int]) -> None:
            self.fluid_runs(grid, points, phase=phase, engine=engine, overrides=overrides)

        def pred(f: Callable[[pd.DataFrame], bool]) -> Callable[[int], bool]:
            def at(i: int) -> bool:
                t = self.fluid_at(engine)
                return f(t[t["buffer_pkts"] == float(grid[i])])

            return at

        return _first_true_together(
            {k: pred(f) for k, f in preds.items()}, len(grid), run, ends=ends
        )

    def fluid_scan(self) -> str:
        """The fluid engine's edges on the grid (every other point in
        ``quick`` mode): the first buffer meeting the objectives that grow
        with the buffer and the last meeting those that shrink, bisected
        (:meth:`fluid_edges`). They are where the packet search starts
        (:func:`_search`): the fluid model is no ground truth, so the
        packet search walks away from a wrong edge."""
        grid, n = self.fluid_grid, len(self.fluid_grid)
        self.say("fluid scan", f"fluid scan: bisecting {n} buffers")
        try:
            # The bisection's first round: its runs say whether the
            # scenario has a fluid form and what the fluid engine measures.
            self.fluid_runs(grid, _round_points([(-1, n)]), phase="fluid scan")
            ft = self.fluid_at()
            self.fluid_objs = [o for o in self.objs if o.key in ft and ft[o.key].notna().all()]
            measurable = [o for o in self.fluid_objs if o.monotone]
            grows = [o for o in measurable if o.grows_with_buffer]
            shrinks = [o for o in measurable if not o.grows_with_buffer]
            preds: dict[str, Callable[[pd.DataFrame], bool]] = {}
            if grows:
                preds["grows"] = lambda t: _meets(t, grows, 0.0)[0]
            if shrinks:
                # The last buffer where they hold is before the first where they fail.
                preds["shrinks"] = lambda t: not _meets(t, shrinks, 0.0)[0]
            edges = self.fluid_edges(grid, preds, phase="fluid scan")
        except FluidFailed as e:
            if not e.error.startswith("ScenarioError:"):
                # A run that crashed (not a refusal) says nothing about the
                # buffer: stop, as a failed packet run does.
                raise AdviceError(
                    f"the fluid run at {fmt.number(e.buffer)} packets failed: {e.error}"
                ) from None
            # A scenario without a fluid form: say why, go on with packets.
            self.fluid_error = e.error
            return "no fluid scan: " + self.fluid_error
        self.fluid_table = self.fluid_at()
        if not measurable:
            return "fluid scan: the fluid engine measures none of the monotone objectives"
        said = []
        if grows:
            texts = " and ".join(o.text for o in grows)
            if edges["grows"] == n:
                said.append(f"{texts} at no buffer of the grid")
            else:
                self.guess_up = self.grid.index(grid[edges["grows"]])
                said.append(f"{texts} from {grid[edges['grows']]} packets")
        if shrinks:
            texts = " and ".join(o.text for o in shrinks)
            if edges["shrinks"] == 0:
                said.append(f"{texts} at no buffer of the grid")
            else:
                self.guess_down = self.grid.index(grid[edges["shrinks"] - 1])
                said.append(f"{texts} up to {grid[edges['shrinks'] - 1]} packets")
        others = [o.text for o in self.objs if o not in measurable]
        tail = f"; not judged by it: {', '.join(others)}" if others else ""
        runs = len(self.fluid_table)
        return f"fluid engine ({runs} runs of {n} buffers) meets " + "; ".join(said) + tail

    def fluid_sync_rule(self) -> dict[str, Any]:
        """Paper 004's range: the fluid engine's smallest buffer meeting the
        objectives at the least and the most loss synchronization (X in
        :data:`SYNC_RANGE`, ``fluid.sync``)."""
        name = "fluid loss-sync range (paper 004)"
        if "fluid" not in self.engines:
            return table_row(name, math.nan, False, "the fluid engine is not among engines")
        if self.quick:
            return table_row(
                name, math.nan, False, "not computed with quick (two more fluid scans)"
            )
        if self.fluid_error:
            why = f"not every flow is fluid-modelable: {self.fluid_error}"
            return table_row(name, math.nan, False, why)
        fluid = self.fluid_objs
        if not fluid:
            return table_row(name, math.nan, False, "no objective the fluid engine measures")
        grid, n = self.fluid_grid, len(self.fluid_grid)
        grows = [o for o in fluid if o.monotone and o.grows_with_buffer]
        found: dict[float, float] = {}
        for x in SYNC_RANGE:
            label, phase = f"fluid X={fmt.number(x)}", f"fluid loss sync X = {fmt.number(x)}"
            try:
                # The first buffer where the objectives that grow with the
                # buffer hold; the others must hold there too.
                i = self.fluid_edges(
                    grid,
                    {"meets": lambda t: _meets(t, grows, 0.0)[0]} if grows else {},
                    phase=phase,
                    engine=label,
                    overrides={"fluid": {"sync": x}},
                ).get("meets", 0)
                if i < n:
                    self.fluid_runs(
                        grid, [i], phase=phase, engine=label, overrides={"fluid": {"sync": x}}
                    )
            except FluidFailed as e:
                return table_row(name, math.nan, False, f"the fluid engine failed: {e.error}")
            ft = self.fluid_at(label)
            ok = i < n and _meets(ft[ft["buffer_pkts"] == float(grid[i])], fluid, 0.0)[0]
            found[x] = float(grid[i]) if ok else math.nan
        lo_x, hi_x = SYNC_RANGE
        txt = ", ".join(
            f"X = {fmt.number(x)}: "
            + (f"{fmt.number(b)} packets" if b == b else f"none up to {self.grid[-1]}")
            for x, b in found.items()
        )
        note = f"fluid engine with loss synchronization (paper 004 eq. 8) meets {', '.join(o.text for o in fluid)} at {txt}"
        others = [o.text for o in self.objs if o not in fluid]
        if others:
            note += f"; not judged here: {', '.join(others)}"
        b = found[hi_x] if found[hi_x] == found[hi_x] else found[lo_x]
        return table_row(name, b, b == b, note + self.fluid_caveat())

    def probe(self, i: int, phase: str, step: str) -> list[bool]:
        """Every objective's verdict at grid index ``i`` (running it if new):
        the first :data:`FIRST_WAVE` seeds, the rest of ``seeds`` unless
        those already know every verdict (:meth:`first_wave_knows`), and
        more while a verdict is undecided (:meth:`add_seeds`)."""
        b = self.grid[i]
        if b not in self.probed:
            wave = self.seed_list[:FIRST_WAVE]
            self.say(phase, f"{phase} {step}: {b} packets x {len(wave)} seeds")
            self.packet(b, wave)
            rest = self.seed_list[len(wave) :]
            if rest and self.first_wave_knows(b):
                self.first_wave.append(b)
            elif rest:
                self.say(phase, f"{phase} {step}: {b} packets, seeds {rest[0]}-{rest[-1]}")
                self.packet(b, rest)
            self.add_seeds(b)
            self.probed[b] = [o.holds(self.values(b, o.key), self.confidence) for o in self.objs]
        return self.probed[b]

    def first_wave_knows(self, b: int) -> bool:
        """Whether the first wave of seeds at buffer ``b`` knows every
        objective's verdict (:meth:`Objective.known`) at the quantile that
        splits ``1 - confidence`` between this look and the one after all
        ``seeds`` (Bonferroni over the two looks): then the other seeds
        need not run, and the verdict is the usual t bound over the seeds
        run, which this decides."""
        q = 1 - (1 - self.confidence) / 2
        return all(o.known(self.values(b, o.key), q) for o in self.objs)

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

    def packet_search(self) -> Edges:
        """Bisect the monotone objectives, then the interval of the others."""
        n = len(self.grid)
        up = [k for k, o in enumerate(self.objs) if o.monotone and o.grows_with_buffer]
        down = [k for k, o in enumerate(self.objs) if o.monotone and not o.grows_with_buffer]
        free = [k for k, o in enumerate(self.objs) if not o.monotone]
        edges = Edges()
        count = itertools.count(1)
        expect = math.ceil(math.log2(n)) + 1

        def holds(ks: list[int]) -> Callable[[int], bool]:
            def pred(i: int) -> bool:
                if all(self.a_priori(k, i) for k in ks):
                    self.delay_known_to = max(self.delay_known_to or 0, self.grid[i])
                    return True
                step = f"{next(count)}/~{expect * ((len(up) > 0) + (len(down) > 0))}"
                return all(self.probe(i, "packet bisection", step)[k] for k in ks)

            return pred

        try:
            # Largest index where every "shrinks" objective holds (delay:
            # the fluid engine's edge is close, a queue is a queue; from the
            # largest buffer where a FIFO queue cannot break them if that is
            # further). Done first: its probes calibrate the other edge.
            known = [i for i in range(n) if down and all(self.a_priori(k, i) for k in down)]
            start = max(
                [i for i in (self.guess_down, known[-1] if known else None) if i is not None],
                default=None,
            )
            edges.upper = (
                _search(
                    holds(down),
                    start,
                    n,
                    first_true=False,
                    suggest=self.suggest(down),
                )
                if down
                else n - 1
            )
            if self.delay_known_to is not None:
                texts = ", ".join(self.objs[k].text for k in down)
                edges.notes.append(
                    f"{texts} held without a packet run up to {self.delay_known_to} packets: a "
                    f"FIFO queue of B packets delays a packet by at most B x "
                    f"{fmt.metric('mean_queue_delay_s', self.wait_per_pkt_s)} (the largest "
                    "packet's serialization, and the delay histogram's half bin)"
                )
            # Smallest index where every "grows" objective holds (monotone
            # predicate), from the fluid edge moved by the packet engine's
            # measurements so far (the interpolated fluid edge is probed
            # for one when there are none).
            guess = self.guess_up
            if up and guess is not None:
                guess = self.calibrated_guess(self.guess_up, up)
                if not self.probed:
                    holds(up)(guess)
                    guess = self.calibrated_guess(self.guess_up, up)
                self.calibrated = guess if guess != self.guess_up else None
            edges.lower = (
                _search(
                    holds(up),
                    guess,
                    n,
                    first_true=True,
                    suggest=self.suggest(up),
                    first_step=lambda i: self.per_doubling if self.says_nothing(up, i) else 1,
                )
                if up
                else 0
            )
            if free:
                a, b = edges.lower, edges.upper
                edges.interval = self.interval(free, a, b, edges.notes) if a <= b else None
            else:
                edges.interval = (0, n - 1)
        except Budget:
            edges.lower = edges.upper = None
            edges.stopped = (
                f"the budget of {self.budget} packet runs was used up before the search ended"
            )
        return edges

    def says_nothing(self, ks: list[int], i: int) -> bool:
        """Whether every objective ``ks`` holds at grid index ``i`` with a
        mean that says nothing of how far the edge is (:func:`_scaled` has
        no value for it: a utilization within 1e-6 of 1, no loss, no
        delay)."""
        b = self.grid[i]
        for k in ks:
            o = self.objs[k]
            v = [x for x in self.values(b, o.key) if math.isfinite(x)]
            if not v or _scaled(o.key, float(np.mean(v))) is not None:
                return False
        return True

    def suggest(self, ks: list[int]) -> Suggest:
        """Where the packet measurements so far put the edge of objectives
        ``ks`` (all growing with the buffer, or all shrinking), for
        :func:`_search`: the first grid index at or past the buffer where
        each objective's mean crosses its bound (:meth:`crossing`; the
        largest of them for objectives that grow, the smallest for those
        that shrink), kept strictly inside the bracket ``(a, b)``; None
        while some objective has no estimate."""

        def at(a: int, b: int) -> int | None:
            est = [self.crossing(self.objs[k]) for k in ks]
            known = [e for e in est if e is not None]
            if len(known) < len(est):
                return None
            target = (max if self.objs[ks[0]].grows_with_buffer else min)(known)
            j = next((i for i, g in enumerate(self.grid) if g >= target), len(self.grid) - 1)
            j = min(max(j, a + 1), b - 1)
            return j if a < j < b else None

        return at

    def crossing(self, o: Objective) -> float | None:
        """The buffer (packets) where objective ``o``'s mean over the seeds
        crosses its bound, from the buffers probed so far: interpolated
        between the two neighbouring probes that straddle the bound, else
        extrapolated from the two probes nearest it, on scales where the
        curve is nearer a line (:func:`_scaled`): the log of the shortfall
        of a fraction from 1 along the buffer (a queue's idle share and loss
        fall geometrically with its size, as M/M/1/B's rho^B; measured on
        the 5000-flow backbone example, the log shortfall of utilization
        falls 0.007-0.017 per packet from 45 to 1024 packets, where along
        log buffer its slope grows twentyfold), the log of a delay or a
        loss rate along log buffer (power laws). None with fewer than two
        probes that say something (a utilization of exactly 1 does not: it
        holds from some buffer below, however far)."""
        target = _scaled(o.key, o.bound)
        if target is None:
            return None
        linear = o.key in FRACTIONS
        pts = []
        for b in sorted(self.probed):
            v = [x for x in self.values(b, o.key) if math.isfinite(x)]
            y = _scaled(o.key, float(np.mean(v))) if v else None
            if y is not None:
                pts.append((float(b) if linear else math.log(b), y))
        if len(pts) < 2:
            return None
        pairs = [(p, q) for p, q in zip(pts, pts[1:]) if (p[1] - target) * (q[1] - target) <= 0]
        (x0, y0), (x1, y1) = (
            pairs[0] if pairs else sorted(pts, key=lambda p: abs(p[1] - target))[:2]
        )
        if y0 == y1:
            return None
        x = x0 + (target - y0) * (x1 - x0) / (y1 - y0)
        return x if linear else math.exp(x)

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
        note of :func:`engine_gap_notes`; the answer stays the packet
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
        try:
            edge = self.fluid_edges(
                self.grid[: i + 1],
                {"meets": lambda t: _meets(t, objs, 0.0)[0]},
                phase=f"fluid resync X = {fmt.number(x)}",
                engine=f"fluid X={fmt.number(x)}",
                overrides={"fluid": {"sync": x}},
                # Less synchronization needs no more buffer, often far less.
                ends=True,
            )["meets"]
        except FluidFailed as e:
            raise AdviceError(
                f"the fluid run at {fmt.number(e.buffer)} packets, fluid.sync = {fmt.number(x)}, failed: {e.error}"
            ) from None
        self.resynced = (x, edge if edge <= i else None, p, f)

    def calibrated_guess(self, i: int, ks: list[int]) -> int:
        """The fluid edge (grid index ``i``), log-interpolated from the fluid
        scan and moved by what the packet engine measured
        (:func:`calibrated_edge` per objective ``ks``, from the probed
        buffer that calibrates it best, :func:`calibration_point`; without
        a packet measurement, not moved): the largest of their edges, to
        the nearest grid point. ``i`` itself when the fluid scan does not
        measure every one of them."""
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
            at = calibration_point(means, curve, o)
            e = (
                calibrated_edge(curve, o)
                if at is None
                else calibrated_edge(curve, o, means[at], at)
            )
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

    def verdict(self, e: Edges) -> tuple[bool, float, tuple[float, float], str]:
        """(feasible, recommended buffer, range, binding) from the search's edges.

        Infeasible: NaN buffer and range, and why (:meth:`infeasible`).
        Feasible: the smallest and largest grid buffers (packets) inside
        every edge, and the objectives that bind (:meth:`binding`).
        """
        why = self.infeasible(e)
        if why:
            return False, math.nan, (math.nan, math.nan), why
        assert e.lower is not None and e.upper is not None and e.interval is not None
        lo = max(e.lower, e.interval[0])
        hi = min(e.upper, e.interval[1])
        rec = self.grid[lo]
        return True, float(rec), (float(rec), float(self.grid[hi])), self.binding(e, lo)

    def kinds(self) -> tuple[list[str], list[str], list[str]]:
        """The objectives' texts by how they move with the buffer: those that
        hold from some buffer up, those that hold up to some buffer, and
        those not monotone (completion times)."""
        objs = self.objs
        up = [o.text for o in objs if o.monotone and o.grows_with_buffer]
        down = [o.text for o in objs if o.monotone and not o.grows_with_buffer]
        free = [o.text for o in objs if not o.monotone]
        return up, down, free

    def infeasible(self, e: Edges) -> str:
        """Why no grid buffer meets every objective, in words; empty when some
        does. The search stopped, the growing objectives hold nowhere on the
        grid, they need more buffer than the shrinking ones allow, or the
        non-monotone ones hold nowhere between (:meth:`no_interval`)."""
        grid, n = self.grid, len(self.grid)
        up, down, _ = self.kinds()
        if e.stopped:
            return e.stopped
        assert e.lower is not None and e.upper is not None
        if e.lower >= n:
            return f"{', '.join(up)} is not met up to {grid[-1]} packets ({fmt.number(self.hi / self.bdp)} BDP)"
        if e.lower > e.upper:
            return (
                f"{', '.join(up)} needs at least {grid[e.lower]} packets but "
                f"{', '.join(down)} allows at most {grid[e.upper] if e.upper >= 0 else 0} packets"
            )
        if e.interval is None:
            return self.no_interval(e)
        return ""

    def no_interval(self, e: Edges) -> str:
        """Why the objectives not monotone in the buffer hold at no buffer
        between the monotone ones' edges: they fail there, or cannot be
        judged where unfinished transfers leave them only a lower bound."""
        assert e.lower is not None and e.upper is not None
        grid = self.grid
        up, down, free = self.kinds()
        span = f"from {grid[e.lower]} to {grid[e.upper]} packets"
        verb = "holds" if len(up + down) == 1 else "hold"
        where = f" (where {', '.join(up + down)} {verb})" if up or down else ""
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
        return why

    def binding(self, e: Edges, lo: int) -> str:
        """Which objectives set the answer at grid index ``lo``, and what the
        next smaller grid buffer shows: a failure, or objectives it cannot
        judge."""
        assert e.lower is not None and e.interval is not None
        grid = self.grid
        up, down, free = self.kinds()
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
        return binding

    def decisive(self, e: Edges, rng: tuple[float, float]) -> list[float]:
        """The buffers the verdict rests on: both edges of the range and their
        outer grid neighbours; infeasible, the buffers the binding pair names."""
        if rng[0] == rng[0]:
            below = [b for b in self.grid if b < rng[0]][-1:]
            return [*rng, *below, *[b for b in self.grid if b > rng[1]][:1]]
        n = len(self.grid)
        return [self.grid[i] for i in (e.lower, e.upper) if i is not None and 0 <= i < n]

    def check_rules(self, table: pd.DataFrame) -> None:
        """The packet engine at every applicable rule's buffer over every
        one of ``seeds`` (those a probe there already ran are not run, nor
        counted, twice; cached runs are reused), and more where a verdict
        is undecided, as at a probed buffer (:meth:`add_seeds`)."""
        for r in table.itertuples():
            if (
                r.applies
                and r.buffer_pkts == r.buffer_pkts
                and r.buffer_pkts >= 1
                and r.source != "fluid scan"
            ):
                b = int(round(r.buffer_pkts))
                ran = self.at(b)
                have = set(ran["seed"].astype(int)) if len(ran) else set()
                missing = [k for k in self.seed_list if k not in have]
                if missing:
                    self.say("rule check", f"rule check: {r.source} at {b} packets")
                    self.packet(b, missing)
                    self.add_seeds(b)

    def convergence(self, focus: Iterable[float]) -> tuple[pd.DataFrame, list[str]]:
        """First against second half of every packet run's measurement window."""
        runs = [t for t in self.runs if "engine" in t]
        table = pd.concat(runs, ignore_index=True) if runs else pd.DataFrame()
        conv = convergence(table, self.norm, self.objs)
        notes = []
        if conv.empty:
            return conv, notes
        bad = conv[~conv["converged"]]
        focus = {float(b) for b in focus if b == b}
        decisive = bad[bad["buffer_pkts"].isin(focus)]
        # Ports and links report no halves: the check reads their summary.
        together = " of the ports or links together" if self.places else ""
        if len(decisive):
            worst = decisive.iloc[0]
            notes.append(
                f"WARNING: not converged: {len(decisive)} of {int(conv['buffer_pkts'].isin(focus).sum())} "
                f"checks at the decisive buffers differ between the halves of the measurement window "
                f"beyond the tolerance (e.g. {worst['metric']}{together} at {fmt.number(worst['buffer_pkts'])} "
                "packets, seed "
                f"{fmt.number(worst['seed'])}: {fmt.metric(worst['metric'], worst['first_half'])} then "
                f"{fmt.metric(worst['metric'], worst['second_half'])}); "
                "lengthen duration or warmup"
            )
        elif len(bad):
            notes.append(
                f"converged{together} at the decisive buffers; {len(bad)} of {len(conv)} checks "
                "elsewhere differ between the halves beyond the tolerance"
            )
        return conv, notes


#: ``suggest(a, b)``: an index strictly between ``a`` and ``b`` where the
#: measurements so far put the edge (the first index past it), or None.
Suggest = Callable[[int, int], "int | None"]


def _search(
    pred: Callable[[int], bool],
    guess: int | None,
    n: int,
    *,
    first_true: bool,
    suggest: Suggest | None = None,
    first_step: Callable[[int], int] | None = None,
) -> int:
    """For a monotone predicate over a grid of ``n`` points: the first index
    where it is true (``first_true``; ``n`` if none) or the last (``-1`` if
    none). Without a ``guess``, a bisection of the whole grid; with one (the
    fluid scan's edge), a galloping search from it: probe the guess and its
    neighbour, then steps of 1, 2, 4, ... away from it until the predicate
    changes, then bisect the indices inside that step. An exact guess
    costs two probes (the edge and the point one below it, which the answer
    must show failing); a guess ``d`` points off about ``2 log2 d`` more.

    ``suggest`` (the first index past the edge the measurements so far
    point at, :meth:`Search.suggest`) replaces a gallop step or a bisection
    point where it has one. The gallop's step still doubles, and after a
    suggested step that did not reach the edge a suggestion shorter than
    half of it is taken once in a row at most; inside a bracket, two steps
    that do not halve it are followed by a bisection step. So a wrong suggestion costs a few
    probes at most, a good one leaves the edge and its neighbour.

    ``first_step(guess)`` (default 1), asked once the guess holds, sets
    the walk's first step: a guess that holds with nothing measured (a
    link never idle) is no neighbour of the edge."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        flip = None if guess is None else min(guess + 1, n - 1)
        return _search(lambda i: not pred(i), flip, n, first_true=True, suggest=suggest) - 1
    if guess is None:
        return _bisect(pred, 0, n - 1, first_true=True, suggest=suggest)
    # After a suggested step that did not reach the edge, one shorter than
    # half the gallop's step is taken once in a row at most (the edge
    # right next to the last probe), so the walk cannot creep.
    step, guided, short = 1, False, False
    if pred(guess):
        step = first_step(guess) if first_step else 1
        hi = guess  # true; walk down until false
        while hi > 0:
            s = suggest(-1, hi) if suggest else None
            cut = s is not None and guided and hi - s < step // 2
            if cut and short:
                s = None
            lo = max(hi - step if s is None else s, 0)
            if not pred(lo):
                return _between(pred, lo, hi, suggest)
            hi, step, guided, short = lo, 2 * step, s is not None, cut and s is not None
        return 0
    lo = guess  # false; walk up until true
    while lo < n - 1:
        s = suggest(lo, n) if suggest else None
        cut = s is not None and guided and s - lo < step // 2
        if cut and short:
            s = None
        hi = min(lo + step if s is None else s, n - 1)
        if pred(hi):
            return _between(pred, lo, hi, suggest)
        lo, step, guided, short = hi, 2 * step, s is not None, cut and s is not None
    return n


def _round_points(brackets: Iterable[tuple[int, int]], per_round: int = 2) -> list[int]:
    """The indices one round of :func:`_first_true_together` runs: each
    distinct open bracket ``(a, b)`` (``b - a > 1``) cut into equal parts
    by ``per_round`` points shared among the brackets (at least one each)."""
    open_ = sorted({(a, b) for a, b in brackets if b - a > 1})
    per = max(1, per_round // max(len(open_), 1))
    return sorted(
        {a + (b - a) * j // (per + 1) for a, b in open_ for j in range(1, per + 1)}
        - {a for a, _ in open_}
    )


def _first_true_together(
    preds: Mapping[str, Callable[[int], bool]],
    n: int,
    run: Callable[[list[int]], None],
    per_round: int = 2,
    *,
    ends: bool = False,
) -> dict[str, int]:
    """For monotone predicates over indices ``0..n-1`` (false, then true):
    the first index where each is true (``n`` if none), bisected together.
    Each round calls ``run`` once with the points of every bracket still
    open (:func:`_round_points`: ``per_round`` points shared among them,
    so that a round's runs fill ``per_round`` workers), then asks each
    predicate at the points inside its bracket. The points depend on the
    predicates' answers only, never on the workers: the same runs whatever
    their number. About ``log2 n`` rounds for two predicates, ``log3 n``
    for one. With ``ends``, the first round runs the two ends of the
    grid (an edge expected at either end costs one round)."""
    brackets = {k: (-1, n) for k in preds}
    if ends and n > 0:
        run(sorted({0, n - 1}))
        for k in preds:
            brackets[k] = (-1, 0) if preds[k](0) else (0, n - 1) if preds[k](n - 1) else (n - 1, n)
    while True:
        open_ = {k: ab for k, ab in brackets.items() if ab[1] - ab[0] > 1}
        if not open_:
            return {k: b for k, (_, b) in brackets.items()}
        points = _round_points(open_.values(), per_round)
        run(points)
        for k, (a, b) in open_.items():
            inside = [i for i in points if a < i < b]
            b = next((i for i in inside if preds[k](i)), b)
            a = max((i for i in inside if i < b), default=a)
            brackets[k] = (a, b)


def _between(pred: Callable[[int], bool], a: int, b: int, suggest: Suggest | None = None) -> int:
    """The first true index of a monotone predicate known false at ``a``
    and true at ``b`` (``a < b``): bisection of the indices between them,
    or the index ``suggest`` gives, as long as every two steps halve the
    bracket (a bisection step after two that do not)."""
    widths: list[int] = []  # the bracket's width before each step
    bisect_next = False
    while b - a > 1:
        s = None if bisect_next or suggest is None else suggest(a, b)
        m = s if s is not None and a < s < b else (a + b) // 2
        widths.append(b - a)
        a, b = (a, m) if pred(m) else (m, b)
        bisect_next = s is not None and len(widths) >= 2 and 2 * (b - a) > widths[-2]
    return b


def _bisect(
    pred: Callable[[int], bool],
    lo: int,
    hi: int,
    *,
    first_true: bool,
    suggest: Suggest | None = None,
) -> int:
    """For a monotone predicate over ``lo..hi``: the first index where it is
    true (``first_true``; ``hi + 1`` if none) or the last index where it is
    true (``lo - 1`` if none); ``suggest`` as in :func:`_between`."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        return _bisect(lambda i: not pred(i), lo, hi, first_true=True, suggest=suggest) - 1
    if not pred(hi):
        return hi + 1
    if pred(lo):
        return lo
    return _between(pred, lo, hi, suggest)


#: Metrics that are fractions growing to 1 with the buffer.
FRACTIONS = ("utilization", "jain_index")


def _scaled(key: str, value: float) -> float | None:
    """``value`` of metric ``key`` on the scale :meth:`Search.crossing`
    interpolates on: ``log(1 - value)`` for a fraction that grows to 1
    (utilization, Jain's index; None within 1e-6 of 1), ``log(value)`` for
    a delay or a loss rate (None at 0), the value itself otherwise."""
    if key in FRACTIONS:
        return math.log(1 - value) if value < 1 - 1e-6 else None
    if key == "drop_rate" or key.endswith("queue_delay_s"):
        return math.log(value) if value > 0 else None
    return value


def _meets(table: pd.DataFrame, objs: list[Objective], confidence: float) -> list[bool]:
    out = []
    for _, g in table.groupby("buffer_pkts", sort=True):
        out.append(all(o.holds(judged(g, o.key).tolist(), confidence) for o in objs))
    return out


def _unfinished(runs: pd.DataFrame, key: str) -> tuple[float, int, int]:
    """Over runs whose ``key`` is censored: its smallest lower bound, and
    how many transfers of its size class were unfinished and started."""
    c = "large" if "_large" in key else "small"
    started = int(runs[f"flows_started_{c}"].sum())
    return float(runs[key].min()), started - int(runs[f"flows_completed_{c}"].sum()), started


def _shown(runs: pd.DataFrame, key: str) -> str:
    """The runs' mean of metric ``key`` as text (:func:`bufsim.fmt.metric`),
    ``>= x`` where it is only a lower bound (:func:`observed`)."""
    mean, censored = observed(runs, key)
    return fmt.metric(key, mean, censored=censored)


#: The summary metrics each port of a pool and each link of a chain
#: report (``<key>_port<k>``, ``<key>_link<k>``): the objectives advise
#: judges port by port or link by link.
PLACE_KEYS = ("utilization", "drop_rate", "mean_queue_delay_s", "p99_queue_delay_s")

#: The search's axis on a chain: every ``links[i].buffer`` at once.
CHAIN_AXIS = "links[].buffer"


def axis_of(norm: Mapping[str, Any]) -> str:
    """What advise sizes in a normalized scenario: ``"link.buffer"``,
    ``"pool.size"`` (a pool) or :data:`CHAIN_AXIS` (a chain)."""
    if "pool" in norm:
        return "pool.size"
    return CHAIN_AXIS if "links" in norm else "link.buffer"


#: The delay statistics a FIFO queue bounds by its length (all at most the
#: longest wait).
FIFO_BOUNDED = ("mean_queue_delay_s", "p50_queue_delay_s", "p99_queue_delay_s")


def fifo_wait_per_packet(norm: Mapping[str, Any], axis: str) -> float | None:
    """The most each packet of the buffer adds to a packet's queueing delay
    as the summary reports it, seconds, when the buffer searched is one
    link's and its discipline serves one queue in arrival order
    (``fifo`` in :func:`bufsim._core.disciplines`); None otherwise.

    A packet admitted to a queue holding at most B packets (the one being
    serialized apart) waits for the rest of that one and at most B - 1
    before it: at most B serializations of the largest packet the link
    carries (flows' segments, background datagrams, the reverse
    traffic's ACKs). A delay quantile is read at its histogram bin's
    middle, at most ``DELAY_QUANTILE_ERROR`` above the sample; the mean
    is exact. So any of :data:`FIFO_BOUNDED` is at most B times this."""
    if axis != "link.buffer":
        return None
    link = norm["link"]
    if not DISCIPLINES[link["qdisc"]]["fifo"]:
        return None
    sizes = [int(g["mss_bytes"]) for g in norm["flows"]]
    sizes += [int(b["packet_size_bytes"]) for b in norm.get("background") or []]
    if norm.get("reverse"):
        sizes.append(int(norm["reverse"]["ack_size_bytes"]))
    # Serialization rounded up to whole picoseconds, as the engine's
    # clock counts it (BitsPerSec::tx_time), with one more for the float.
    tx_s = (math.ceil(max(sizes) * 8.0 * 1e12 / float(link["capacity_bps"])) + 1) * 1e-12
    return tx_s * (1 + _core.DELAY_QUANTILE_ERROR)


def busy_places(norm: Mapping[str, Any]) -> list[str]:
    """The ports of a normalized scenario's pool or the links of its chain
    that carry flow groups, as their summary tails (``port0``, ``link2``),
    in order; empty for one link."""
    if "pool" in norm:
        return [f"port{k}" for k in sorted({int(g.get("port", 0)) for g in norm["flows"]})]
    if "links" in norm:
        return [f"link{k}" for k in sorted({k for g in norm["flows"] for k in g["links"]})]
    return []


def worst_place(
    runs: pd.DataFrame, objs: Sequence[Objective], places: Sequence[str]
) -> pd.DataFrame:
    """Packet runs of a pool or a chain judged on every port or link in
    ``places``: each objective's column becomes its worst place's value
    (the least for a ``>=`` objective, the greatest for ``<=``; NaN where a
    place's is).

    Parameters
    ----------
    runs : pandas.DataFrame
        A sweep's table, with the ``<key>_<place>`` columns.
    objs : sequence of Objective
        The objectives (their keys in :data:`PLACE_KEYS`).
    places : sequence of str
        The summary tails judged (:func:`busy_places`).

    Returns
    -------
    pandas.DataFrame
        ``runs`` with each objective's column replaced.
    """
    out = runs.copy()
    for o in objs:
        names = [f"{o.key}_{p}" for p in places]
        if any(n not in out for n in names):
            # No run gave them (every one failed): the caller reports why.
            continue
        cols = out[names]
        out[o.key] = (
            cols.min(axis=1, skipna=False) if o.op == ">=" else cols.max(axis=1, skipna=False)
        )
    return out
