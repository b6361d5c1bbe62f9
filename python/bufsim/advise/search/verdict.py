"""The verdict: the recommended buffer, its range, and what binds it.

From the packet bisection's :class:`~bufsim.advise.search.packet.Edges`,
:func:`verdict` gives the smallest and largest grid buffers inside every
edge and the objectives that bind (:func:`binding`), or says in words why
no grid buffer meets every objective (:func:`infeasible`);
:func:`decisive` names the buffers the verdict rests on (where the
convergence check looks). Buffers in packets.
"""

from __future__ import annotations

import math

from bufsim import fmt
from bufsim.advise.objectives import Objective
from bufsim.advise.search.packet import Edges
from bufsim.advise.search.plan import Plan
from bufsim.advise.search.probes import Probes


def verdict(p: Plan, probes: Probes, e: Edges) -> tuple[bool, float, tuple[float, float], str]:
    """(feasible, recommended buffer, range, binding) from the search's edges.

    Infeasible: NaN buffer and range, and why (:func:`infeasible`).
    Feasible: the smallest and largest grid buffers (packets) inside
    every edge, and the objectives that bind (:func:`binding`).
    """
    why = infeasible(p, probes, e)
    if why:
        return False, math.nan, (math.nan, math.nan), why
    assert e.lower is not None and e.upper is not None and e.interval is not None
    lo = max(e.lower, e.interval[0])
    hi = min(e.upper, e.interval[1])
    rec = p.grid[lo]
    return True, float(rec), (float(rec), float(p.grid[hi])), binding(p, probes, e, lo)


def infeasible(p: Plan, probes: Probes, e: Edges) -> str:
    """Why no grid buffer meets every objective, in words; empty when some
    does. The search stopped, the growing objectives hold nowhere on the
    grid, they need more buffer than the shrinking ones allow, or the
    non-monotone ones hold nowhere between (:func:`no_interval`)."""
    grid, n = p.grid, len(p.grid)
    up, down, _ = kinds(p.objs)
    if e.stopped:
        return e.stopped
    assert e.lower is not None and e.upper is not None
    if e.lower >= n:
        return (
            f"{', '.join(up)} is not met up to {grid[-1]} packets ({fmt.number(p.hi / p.bdp)} BDP)"
        )
    if e.lower > e.upper:
        return (
            f"{', '.join(up)} needs at least {grid[e.lower]} packets but "
            f"{', '.join(down)} allows at most {grid[e.upper] if e.upper >= 0 else 0} packets"
        )
    if e.interval is None:
        return no_interval(p, probes, e)
    return ""


def no_interval(p: Plan, probes: Probes, e: Edges) -> str:
    """Why the objectives not monotone in the buffer hold at no buffer
    between the monotone ones' edges: they fail there, or cannot be
    judged where unfinished transfers leave them only a lower bound."""
    assert e.lower is not None and e.upper is not None
    grid = p.grid
    up, down, free = kinds(p.objs)
    span = f"from {grid[e.lower]} to {grid[e.upper]} packets"
    verb = "holds" if len(up + down) == 1 else "hold"
    where = f" (where {', '.join(up + down)} {verb})" if up or down else ""
    # A completion time that unfinished transfers leave a lower
    # bound is no failure: say where it could not be judged.
    probed = [b for b in sorted(probes.probed) if grid[e.lower] <= b <= grid[e.upper]]
    unknown = [b for b in probed if probes.cannot_judge(b)]
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


def binding(p: Plan, probes: Probes, e: Edges, lo: int) -> str:
    """Which objectives set the answer at grid index ``lo``, and what the
    next smaller grid buffer shows: a failure, or objectives it cannot
    judge."""
    assert e.lower is not None and e.interval is not None
    grid = p.grid
    up, down, free = kinds(p.objs)
    binders = (free if e.interval[0] > e.lower else up) or down or free
    below = grid[lo - 1] if lo else 0
    unknown = probes.cannot_judge(below)
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


def kinds(objs: list[Objective]) -> tuple[list[str], list[str], list[str]]:
    """The objectives' texts by how they move with the buffer: those that
    hold from some buffer up, those that hold up to some buffer, and
    those not monotone (completion times)."""
    up = [o.text for o in objs if o.monotone and o.grows_with_buffer]
    down = [o.text for o in objs if o.monotone and not o.grows_with_buffer]
    free = [o.text for o in objs if not o.monotone]
    return up, down, free


def decisive(grid: list[int], e: Edges, rng: tuple[float, float]) -> list[float]:
    """The buffers the verdict rests on: both edges of the range and their
    outer grid neighbours; infeasible, the buffers the binding pair names."""
    if rng[0] == rng[0]:
        below = [b for b in grid if b < rng[0]][-1:]
        return [*rng, *below, *[b for b in grid if b > rng[1]][:1]]
    n = len(grid)
    return [grid[i] for i in (e.lower, e.upper) if i is not None and 0 <= i < n]
