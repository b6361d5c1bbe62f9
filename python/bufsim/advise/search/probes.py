"""Measuring at a buffer: :class:`Probes`, the packet engine's verdicts so far.

A probe runs the packet engine at one grid buffer over the first
:data:`FIRST_WAVE` seeds, the rest of ``seeds`` unless those already know
every verdict, and more while a verdict rests on the noise (adaptive
seeds, up to :data:`ADAPTIVE_MAX_FACTOR` x ``seeds``); it keeps each
objective's verdict there (:attr:`Probes.probed`). From the probes so far
:meth:`Probes.crossing` puts where an objective's mean crosses its bound,
which the packet bisection follows (:meth:`Probes.suggest`).
:meth:`Probes.check_rules` measures the rules' buffers the same way.
Buffers in packets; a grid index is a position in ``plan.grid``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bufsim.advise.objectives import Objective, cannot_judge, judged, observed
from bufsim.advise.search.grid import Suggest
from bufsim.advise.search.plan import FIFO_BOUNDED, Plan
from bufsim.advise.search.runs import Runner

#: Adaptive seeds: at a buffer where some objective's verdict is undecided,
#: up to this many times ``seeds`` runs in all.
ADAPTIVE_MAX_FACTOR = 3

#: Seeds run first at each probed buffer; the others of ``seeds`` run only
#: where these leave some verdict unknown (:meth:`Probes.first_wave_knows`).
FIRST_WAVE = 2


class Probes:
    """The packet engine's measurements of one search, buffer by buffer.

    Parameters
    ----------
    plan : Plan
        The search's plan (grid, objectives, seeds, confidence, budget).
    runner : Runner
        Where the runs go and are kept.

    Attributes
    ----------
    probed : dict
        Buffer (packets) -> each objective's verdict there.
    adaptive : dict
        Buffer -> seeds run there, where more than ``seeds``.
    first_wave : list of int
        Buffers whose first wave of seeds knew every verdict.
    undecided : list of int
        Buffers left undecided (quick, or the most seeds or the budget reached).
    unjudged : dict
        (buffer, metric) -> (lower bound, unfinished, started) where a
        completion-time objective cannot be judged.
    """

    def __init__(self, plan: Plan, runner: Runner):
        self.plan, self.runner = plan, runner
        self.probed: dict[int, list[bool]] = {}
        self.adaptive: dict[int, int] = {}
        self.first_wave: list[int] = []
        self.undecided: list[int] = []
        self.unjudged: dict[tuple[int, str], tuple[float, int, int]] = {}

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
        """Every packet run at buffer ``b`` (packets) so far (:meth:`Runner.at`)."""
        return self.runner.at(b)

    def a_priori(self, k: int, i: int) -> bool:
        """Whether objective ``k`` holds at grid index ``i`` without a run: a
        queueing delay bound that a FIFO queue of ``grid[i]`` packets
        cannot exceed (:func:`~bufsim.advise.search.plan.fifo_wait_per_packet`)."""
        o = self.plan.objs[k]
        return (
            self.plan.wait_per_pkt_s is not None
            and o.key in FIFO_BOUNDED
            and o.op == "<="
            and self.plan.grid[i] * self.plan.wait_per_pkt_s <= o.bound
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
        failing = [o for o, ok in zip(self.plan.objs, self.probed.get(b, [])) if not ok]
        return failing if failing and all(self.unjudgeable(b, o) for o in failing) else []

    def probe(self, i: int, phase: str, step: str) -> list[bool]:
        """Every objective's verdict at grid index ``i`` (running it if new):
        the first :data:`FIRST_WAVE` seeds, the rest of ``seeds`` unless
        those already know every verdict (:meth:`first_wave_knows`), and
        more while a verdict is undecided (:meth:`add_seeds`)."""
        b = self.plan.grid[i]
        if b not in self.probed:
            wave = self.plan.seed_list[:FIRST_WAVE]
            self.runner.say(phase, f"{phase} {step}: {b} packets x {len(wave)} seeds")
            self.runner.packet(b, wave)
            rest = self.plan.seed_list[len(wave) :]
            if rest and self.first_wave_knows(b):
                self.first_wave.append(b)
            elif rest:
                self.runner.say(phase, f"{phase} {step}: {b} packets, seeds {rest[0]}-{rest[-1]}")
                self.runner.packet(b, rest)
            self.add_seeds(b)
            self.probed[b] = [
                o.holds(self.values(b, o.key), self.plan.confidence) for o in self.plan.objs
            ]
        return self.probed[b]

    def first_wave_knows(self, b: int) -> bool:
        """Whether the first wave of seeds at buffer ``b`` knows every
        objective's verdict (:meth:`Objective.known`) at the quantile that
        splits ``1 - confidence`` between this look and the one after all
        ``seeds`` (Bonferroni over the two looks): then the other seeds
        need not run, and the verdict is the usual t bound over the seeds
        run, which this decides."""
        q = 1 - (1 - self.plan.confidence) / 2
        return all(o.known(self.values(b, o.key), q) for o in self.plan.objs)

    def add_seeds(self, b: int) -> None:
        """Adaptive seeds. Rule: while some objective's mean over the seeds
        and its one-sided t bound lie on opposite sides of the objective's
        bound (the interval straddles it: the verdict rests on the noise),
        run ``seeds`` more seeds (the next numbers) at this buffer, up to
        :data:`ADAPTIVE_MAX_FACTOR` x ``seeds`` in all and within the budget."""
        n = self.plan.seeds
        while any(o.straddles(self.values(b, o.key), self.plan.confidence) for o in self.plan.objs):
            if self.plan.quick or n + self.plan.seeds > ADAPTIVE_MAX_FACTOR * self.plan.seeds:
                self.undecided.append(b)
                return
            more = list(range(n + 1, n + self.plan.seeds + 1))
            if (
                self.plan.budget is not None
                and self.runner.packet_runs + len(more) > self.plan.budget
            ):
                self.undecided.append(b)
                return
            self.runner.say(
                "adaptive seeds", f"adaptive seeds: {b} packets, seeds {more[0]}-{more[-1]}"
            )
            self.runner.total += len(more)
            self.runner.packet(b, more)
            n += self.plan.seeds
            self.adaptive[b] = n

    def margin(self, i: int, k: int) -> float:
        """How far objective ``k``'s mean at grid index ``i`` is inside its bound (relative)."""
        o = self.plan.objs[k]
        v = [x for x in self.values(self.plan.grid[i], o.key) if x == x]
        if not v:
            return -math.inf
        m = float(np.mean(v))
        return (m - o.bound if o.op == ">=" else o.bound - m) / max(abs(o.bound), 1e-12)

    def says_nothing(self, ks: list[int], i: int) -> bool:
        """Whether every objective ``ks`` holds at grid index ``i`` with a
        mean that says nothing of how far the edge is (:func:`_scaled` has
        no value for it: a utilization within 1e-6 of 1, no loss, no
        delay)."""
        b = self.plan.grid[i]
        for k in ks:
            o = self.plan.objs[k]
            v = [x for x in self.values(b, o.key) if math.isfinite(x)]
            if not v or _scaled(o.key, float(np.mean(v))) is not None:
                return False
        return True

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

    def suggest(self, ks: list[int]) -> Suggest:
        """Where the packet measurements so far put the edge of objectives
        ``ks`` (all growing with the buffer, or all shrinking), for
        :func:`~bufsim.advise.search.grid.gallop`: the first grid index at or past the buffer where
        each objective's mean crosses its bound (:meth:`crossing`; the
        largest of them for objectives that grow, the smallest for those
        that shrink), kept strictly inside the bracket ``(a, b)``; None
        while some objective has no estimate."""

        def at(a: int, b: int) -> int | None:
            est = [self.crossing(self.plan.objs[k]) for k in ks]
            known = [e for e in est if e is not None]
            if len(known) < len(est):
                return None
            target = (max if self.plan.objs[ks[0]].grows_with_buffer else min)(known)
            j = next(
                (i for i, g in enumerate(self.plan.grid) if g >= target), len(self.plan.grid) - 1
            )
            j = min(max(j, a + 1), b - 1)
            return j if a < j < b else None

        return at

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
                missing = [k for k in self.plan.seed_list if k not in have]
                if missing:
                    self.runner.say("rule check", f"rule check: {r.source} at {b} packets")
                    self.runner.packet(b, missing)
                    self.add_seeds(b)


#: Metrics that are fractions growing to 1 with the buffer.
FRACTIONS = ("utilization", "jain_index")


def _scaled(key: str, value: float) -> float | None:
    """``value`` of metric ``key`` on the scale :meth:`Probes.crossing`
    interpolates on: ``log(1 - value)`` for a fraction that grows to 1
    (utilization, Jain's index; None within 1e-6 of 1), ``log(value)`` for
    a delay or a loss rate (None at 0), the value itself otherwise."""
    if key in FRACTIONS:
        return math.log(1 - value) if value < 1 - 1e-6 else None
    if key == "drop_rate" or key.endswith("queue_delay_s"):
        return math.log(value) if value > 0 else None
    return value


def _unfinished(runs: pd.DataFrame, key: str) -> tuple[float, int, int]:
    """Over runs whose ``key`` is censored: its smallest lower bound, and
    how many transfers of its size class were unfinished and started."""
    c = "large" if "_large" in key else "small"
    started = int(runs[f"flows_started_{c}"].sum())
    return float(runs[key].min()), started - int(runs[f"flows_completed_{c}"].sum()), started
