"""The fluid phases: the fluid scan, paper 004's range and the resync.

:func:`fluid_scan` bisects the fluid engine's edges on the grid (where the
scenario has a fluid form); they are where the packet bisection starts
(:mod:`~bufsim.advise.search.packet`). :func:`sync_rule` is paper 004's
row of the rules' table: the fluid edge at the least and the most loss
synchronization. After the packet bisection, :func:`resync` finds the
fluid edge again at the synchronization the packet runs measured, where
the two engines disagree by more than :data:`ENGINE_GAP`. What they find
is a :class:`FluidScan`. Buffers in packets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim.advise.fluid import SYNC_FLOOR, SYNC_GAP, SYNC_RANGE
from bufsim.advise.objectives import AdviceError, Objective, judged
from bufsim.advise.rules import table_row
from bufsim.advise.search.grid import first_true_together, round_points
from bufsim.advise.search.plan import Plan
from bufsim.advise.search.probes import Probes
from bufsim.advise.search.runs import FluidFailed, Runner

#: An edge that the fluid scan or the analytic model puts more than this
#: factor away (either way) from the packet engine's is reported with the
#: likely reasons (:func:`~bufsim.advise.notes.engine_gap_notes`).
ENGINE_GAP = 2.0


@dataclass
class FluidScan:
    """What the fluid engine found (all empty where it did not run).

    Attributes
    ----------
    error : str
        Why the scenario has no fluid form (empty: it has one).
    objs : list of Objective
        The objectives the fluid engine measures.
    guess_up, guess_down : int or None
        Grid indices where the scan puts the edges of the objectives that
        grow with the buffer and of those that shrink (None: not found).
    table : pandas.DataFrame
        The scan's runs.
    resynced : tuple or None
        The fluid edge at the packet engine's measured synchronization
        (:func:`resync`): (X, grid index of its edge or None, the packet
        and the fluid ``sync_mean`` that asked for it); None: not run.
    """

    error: str = ""
    objs: list[Objective] = field(default_factory=list)
    guess_up: int | None = None
    guess_down: int | None = None
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    resynced: tuple[float, int | None, float, float] | None = None


def caveat(p: Plan) -> str:
    """What the fluid runs changed in the scenario (:func:`fluid_form`), as a note."""
    return f" (fluid form of the scenario: {p.fluid_changes})" if p.fluid_changes else ""


def fluid_runs(
    runner: Runner,
    grid: list[int],
    points: Iterable[int],
    *,
    phase: str,
    engine: str = "fluid",
    overrides: Mapping[str, Any] | None = None,
) -> None:
    """The fluid engine at the indices ``points`` of ``grid`` (buffers,
    packets) it has not run yet under the label ``engine``, in one
    sweep, kept in the runner's tables under that label. Raises
    :class:`FluidFailed` when a run fails."""
    done = set(runner.fluid_at(engine)["buffer_pkts"])
    new = [grid[i] for i in sorted(set(points)) if float(grid[i]) not in done]
    if not new:
        return
    runner.say(phase, f"{phase}: {', '.join(map(str, new))} packets")
    t = runner.run(new, "fluid", [int(runner.plan.norm["seed"])], overrides)
    bad = t[t["status"] != "ok"]
    if len(bad):
        raise FluidFailed(float(bad["buffer_pkts"].iloc[0]), str(bad["error"].iloc[0]))
    runner.runs.append(t.assign(engine=engine))


def fluid_edges(
    runner: Runner,
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
    (:func:`~bufsim.advise.search.grid.first_true_together`), each round's
    points in one sweep (:func:`fluid_runs`). The fluid curves are taken as monotone in the
    buffer, as the packet search takes the packet engine's. ``ends``:
    the grid's ends first."""

    def run(points: list[int]) -> None:
        fluid_runs(runner, grid, points, phase=phase, engine=engine, overrides=overrides)

    def pred(f: Callable[[pd.DataFrame], bool]) -> Callable[[int], bool]:
        def at(i: int) -> bool:
            t = runner.fluid_at(engine)
            return f(t[t["buffer_pkts"] == float(grid[i])])

        return at

    return first_true_together({k: pred(f) for k, f in preds.items()}, len(grid), run, ends=ends)


def fluid_scan(p: Plan, runner: Runner) -> tuple[FluidScan, str]:
    """The fluid engine's edges on the grid (every other point in
    ``quick`` mode): the first buffer meeting the objectives that grow
    with the buffer and the last meeting those that shrink, bisected
    (:func:`fluid_edges`). They are where the packet search starts
    (:func:`~bufsim.advise.search.grid.gallop`): the fluid model is no ground truth, so the
    packet search walks away from a wrong edge."""
    scan = FluidScan()
    grid, n = p.fluid_grid, len(p.fluid_grid)
    runner.say("fluid scan", f"fluid scan: bisecting {n} buffers")
    try:
        # The bisection's first round: its runs say whether the
        # scenario has a fluid form and what the fluid engine measures.
        fluid_runs(runner, grid, round_points([(-1, n)]), phase="fluid scan")
        ft = runner.fluid_at()
        scan.objs = [o for o in p.objs if o.key in ft and ft[o.key].notna().all()]
        measurable = [o for o in scan.objs if o.monotone]
        grows = [o for o in measurable if o.grows_with_buffer]
        shrinks = [o for o in measurable if not o.grows_with_buffer]
        preds: dict[str, Callable[[pd.DataFrame], bool]] = {}
        if grows:
            preds["grows"] = lambda t: _meets(t, grows, 0.0)[0]
        if shrinks:
            # The last buffer where they hold is before the first where they fail.
            preds["shrinks"] = lambda t: not _meets(t, shrinks, 0.0)[0]
        edges = fluid_edges(runner, grid, preds, phase="fluid scan")
    except FluidFailed as e:
        if not e.error.startswith("ScenarioError:"):
            # A run that crashed (not a refusal) says nothing about the
            # buffer: stop, as a failed packet run does.
            raise AdviceError(
                f"the fluid run at {fmt.number(e.buffer)} packets failed: {e.error}"
            ) from None
        # A scenario without a fluid form: say why, go on with packets.
        scan.error = e.error
        return scan, "no fluid scan: " + scan.error
    scan.table = runner.fluid_at()
    if not measurable:
        return scan, "fluid scan: the fluid engine measures none of the monotone objectives"
    said = []
    if grows:
        texts = " and ".join(o.text for o in grows)
        if edges["grows"] == n:
            said.append(f"{texts} at no buffer of the grid")
        else:
            scan.guess_up = p.grid.index(grid[edges["grows"]])
            said.append(f"{texts} from {grid[edges['grows']]} packets")
    if shrinks:
        texts = " and ".join(o.text for o in shrinks)
        if edges["shrinks"] == 0:
            said.append(f"{texts} at no buffer of the grid")
        else:
            scan.guess_down = p.grid.index(grid[edges["shrinks"] - 1])
            said.append(f"{texts} up to {grid[edges['shrinks'] - 1]} packets")
    others = [o.text for o in p.objs if o not in measurable]
    tail = f"; not judged by it: {', '.join(others)}" if others else ""
    runs = len(scan.table)
    return scan, f"fluid engine ({runs} runs of {n} buffers) meets " + "; ".join(said) + tail


def sync_rule(p: Plan, runner: Runner, scan: FluidScan) -> dict[str, Any]:
    """Paper 004's range: the fluid engine's smallest buffer meeting the
    objectives at the least and the most loss synchronization (X in
    :data:`SYNC_RANGE`, ``fluid.sync``)."""
    name = "fluid loss-sync range (paper 004)"
    if "fluid" not in p.engines:
        return table_row(name, math.nan, False, "the fluid engine is not among engines")
    if p.quick:
        return table_row(name, math.nan, False, "not computed with quick (two more fluid scans)")
    if scan.error:
        why = f"not every flow is fluid-modelable: {scan.error}"
        return table_row(name, math.nan, False, why)
    fluid = scan.objs
    if not fluid:
        return table_row(name, math.nan, False, "no objective the fluid engine measures")
    grid, n = p.fluid_grid, len(p.fluid_grid)
    grows = [o for o in fluid if o.monotone and o.grows_with_buffer]
    found: dict[float, float] = {}
    for x in SYNC_RANGE:
        label, phase = f"fluid X={fmt.number(x)}", f"fluid loss sync X = {fmt.number(x)}"
        try:
            # The first buffer where the objectives that grow with the
            # buffer hold; the others must hold there too.
            i = fluid_edges(
                runner,
                grid,
                {"meets": lambda t: _meets(t, grows, 0.0)[0]} if grows else {},
                phase=phase,
                engine=label,
                overrides={"fluid": {"sync": x}},
            ).get("meets", 0)
            if i < n:
                fluid_runs(
                    runner, grid, [i], phase=phase, engine=label, overrides={"fluid": {"sync": x}}
                )
        except FluidFailed as e:
            return table_row(name, math.nan, False, f"the fluid engine failed: {e.error}")
        ft = runner.fluid_at(label)
        ok = i < n and _meets(ft[ft["buffer_pkts"] == float(grid[i])], fluid, 0.0)[0]
        found[x] = float(grid[i]) if ok else math.nan
    lo_x, hi_x = SYNC_RANGE
    txt = ", ".join(
        f"X = {fmt.number(x)}: "
        + (f"{fmt.number(b)} packets" if b == b else f"none up to {p.grid[-1]}")
        for x, b in found.items()
    )
    note = f"fluid engine with loss synchronization (paper 004 eq. 8) meets {', '.join(o.text for o in fluid)} at {txt}"
    others = [o.text for o in p.objs if o not in fluid]
    if others:
        note += f"; not judged here: {', '.join(others)}"
    b = found[hi_x] if found[hi_x] == found[hi_x] else found[lo_x]
    return table_row(name, b, b == b, note + caveat(p))


def resync(p: Plan, runner: Runner, probes: Probes, scan: FluidScan, rec: float) -> None:
    """The fluid edge found again at the packet engine's loss synchronization.

    The fluid form without ``fluid.sync`` splits each overflow among
    every flow in proportion to its rate (paper 004 eq. (5)), so every
    flow cuts at once; many flows with spread RTTs lose a few at a time
    (the packet runs' ``sync_mean``), and a link whose flows cut fewer
    at a time stays busy with less buffer (paper 004 section III.B,
    figure 6). When the fluid edge is more than :data:`ENGINE_GAP` from
    the packet engine's edge ``rec`` (packets; ``probes`` its runs) and the packet runs
    there measured a synchronization below the fluid scan's by more
    than :data:`SYNC_GAP`, the fluid engine is bisected over the grid up to
    its edge with ``fluid.sync`` set to the measured value (paper 004
    eq. (8)'s X, floored at :data:`SYNC_FLOOR`; less synchronization
    needs no more buffer). The result, :attr:`FluidScan.resynced`, goes
    into the note of :func:`~bufsim.advise.notes.engine_gap_notes`; the answer stays the packet
    engine's.
    """
    i = scan.guess_up
    if i is None or rec != rec or scan.table.empty:
        return
    if 1 / ENGINE_GAP <= p.grid[i] / rec <= ENGINE_GAP:
        return
    if (p.fluid_raw.get("fluid") or {}).get("sync") is not None:
        return
    objs = [o for o in p.objs if o.monotone and o.grows_with_buffer]
    if any(o not in scan.objs for o in objs) or "sync_mean" not in scan.table:
        return
    packet = [v for v in probes.values(int(rec), "sync_mean") if v == v]
    curve = scan.table.groupby("buffer_pkts")["sync_mean"].mean()
    f = float(curve[min(curve.index, key=lambda k: abs(math.log(k / rec)))])
    if not packet or not float(np.mean(packet)) * SYNC_GAP < f:
        return
    measured = float(np.mean(packet))
    x = max(round(measured, 3), SYNC_FLOOR)
    try:
        edge = fluid_edges(
            runner,
            p.grid[: i + 1],
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
    scan.resynced = (x, edge if edge <= i else None, measured, f)


def _meets(table: pd.DataFrame, objs: list[Objective], confidence: float) -> list[bool]:
    """Per buffer of ``table`` (ascending): whether every objective holds."""
    out = []
    for _, g in table.groupby("buffer_pkts", sort=True):
        out.append(all(o.holds(judged(g, o.key).tolist(), confidence) for o in objs))
    return out
