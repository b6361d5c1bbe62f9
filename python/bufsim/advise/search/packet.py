"""The packet bisection: the smallest grid buffer the packet engine passes.

:func:`packet_search` finds the packet engine's edges (:class:`Edges`) on
the grid, starting from the fluid scan's (:func:`calibrated_guess`) and
probing buffer by buffer (:class:`~bufsim.advise.search.probes.Probes`);
:func:`interval` searches the interval where the objectives not
monotone in the buffer (completion times) hold. Buffers in packets; a grid
index is a position in ``plan.grid``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bufsim import fmt
from bufsim.advise.fluid import calibrated_edge, calibration_point
from bufsim.advise.search.fluid_scan import FluidScan
from bufsim.advise.search.grid import bisect, gallop
from bufsim.advise.search.plan import Plan
from bufsim.advise.search.probes import Probes
from bufsim.advise.search.runs import Budget


@dataclass
class Edges:
    """Grid indices the packet search found (None: not found / stopped)."""

    lower: int | None = None  # first index where the "grows" objectives hold
    upper: int | None = None  # last index where the "shrinks" objectives hold
    interval: tuple[int, int] | None = (0, 0)  # feasible interval of the non-monotone ones
    stopped: str = ""
    notes: list[str] = field(default_factory=list)
    # Where the lower edge's search started when the packet measurements
    # moved the fluid edge (:func:`calibrated_guess`; None: not moved).
    calibrated: int | None = None


def packet_search(p: Plan, probes: Probes, scan: FluidScan) -> Edges:
    """Bisect the monotone objectives, then the interval of the others.

    The edge of the objectives that shrink with the buffer first (from
    the fluid scan's edge, or the largest buffer where a FIFO queue cannot
    break them), then the edge of those that grow (from the fluid edge
    moved by the packet measurements so far, :func:`calibrated_guess`),
    each a gallop from its guess (:func:`~bufsim.advise.search.grid.gallop`)
    or a bisection; then the interval of the objectives not monotone in
    the buffer between them (:func:`interval`).

    Parameters
    ----------
    p : Plan
        The search's plan.
    probes : Probes
        The packet measurements (probed as the search goes).
    scan : FluidScan
        The fluid scan's edges (none: a bisection of the whole grid).

    Returns
    -------
    Edges
        The grid indices found; ``stopped`` says why when the budget ran out.
    """
    n = len(p.grid)
    up = [k for k, o in enumerate(p.objs) if o.monotone and o.grows_with_buffer]
    down = [k for k, o in enumerate(p.objs) if o.monotone and not o.grows_with_buffer]
    free = [k for k, o in enumerate(p.objs) if not o.monotone]
    edges = Edges()
    count = itertools.count(1)
    expect = math.ceil(math.log2(n)) + 1
    # Delay objectives known to hold without a run up to this buffer
    # (packets; :meth:`Probes.a_priori`), when the search relied on it.
    known_to: int | None = None

    def holds(ks: list[int]) -> Callable[[int], bool]:
        def pred(i: int) -> bool:
            nonlocal known_to
            if all(probes.a_priori(k, i) for k in ks):
                known_to = max(known_to or 0, p.grid[i])
                return True
            step = f"{next(count)}/~{expect * ((len(up) > 0) + (len(down) > 0))}"
            return all(probes.probe(i, "packet bisection", step)[k] for k in ks)

        return pred

    try:
        # Largest index where every "shrinks" objective holds (delay:
        # the fluid engine's edge is close, a queue is a queue; from the
        # largest buffer where a FIFO queue cannot break them if that is
        # further). Done first: its probes calibrate the other edge.
        known = [i for i in range(n) if down and all(probes.a_priori(k, i) for k in down)]
        start = max(
            [i for i in (scan.guess_down, known[-1] if known else None) if i is not None],
            default=None,
        )
        edges.upper = (
            gallop(
                holds(down),
                start,
                n,
                first_true=False,
                suggest=probes.suggest(down),
            )
            if down
            else n - 1
        )
        if known_to is not None:
            texts = ", ".join(p.objs[k].text for k in down)
            edges.notes.append(
                f"{texts} held without a packet run up to {known_to} packets: a "
                f"FIFO queue of B packets delays a packet by at most B x "
                f"{fmt.metric('mean_queue_delay_s', p.wait_per_pkt_s)} (the largest "
                "packet's serialization, and the delay histogram's half bin)"
            )
        # Smallest index where every "grows" objective holds (monotone
        # predicate), from the fluid edge moved by the packet engine's
        # measurements so far (the interpolated fluid edge is probed
        # for one when there are none).
        guess = scan.guess_up
        if up and guess is not None:
            guess = calibrated_guess(p, probes, scan, scan.guess_up, up)
            if not probes.probed:
                holds(up)(guess)
                guess = calibrated_guess(p, probes, scan, scan.guess_up, up)
            edges.calibrated = guess if guess != scan.guess_up else None
        edges.lower = (
            gallop(
                holds(up),
                guess,
                n,
                first_true=True,
                suggest=probes.suggest(up),
                first_step=lambda i: p.per_doubling if probes.says_nothing(up, i) else 1,
            )
            if up
            else 0
        )
        if free:
            a, b = edges.lower, edges.upper
            edges.interval = interval(p, probes, free, a, b, edges.notes) if a <= b else None
        else:
            edges.interval = (0, n - 1)
    except Budget:
        edges.lower = edges.upper = None
        edges.stopped = f"the budget of {p.budget} packet runs was used up before the search ended"
    return edges


def calibrated_guess(p: Plan, probes: Probes, scan: FluidScan, i: int, ks: list[int]) -> int:
    """The fluid edge (grid index ``i``), log-interpolated from the fluid
    scan and moved by what the packet engine measured
    (:func:`calibrated_edge` per objective ``ks``, from the probed
    buffer that calibrates it best, :func:`calibration_point`; without
    a packet measurement, not moved): the largest of their edges, to
    the nearest grid point. ``i`` itself when the fluid scan does not
    measure every one of them."""
    edges = []
    for k in ks:
        o = p.objs[k]
        if o not in scan.objs:
            return i
        curve = scan.table.groupby("buffer_pkts")[o.key].mean()
        means = {}
        for b in probes.probed:
            v = [x for x in probes.values(b, o.key) if x == x]
            if v:
                means[float(b)] = float(np.mean(v))
        at = calibration_point(means, curve, o)
        e = calibrated_edge(curve, o) if at is None else calibrated_edge(curve, o, means[at], at)
        if e is None:
            return i
        edges.append(e)
    target = max(edges)
    return min(range(len(p.grid)), key=lambda j: abs(math.log(p.grid[j] / target)))


def interval(
    p: Plan, probes: Probes, ks: list[int], a: int, b: int, notes: list[str]
) -> tuple[int, int] | None:
    """Interval search for objectives not monotone in the buffer (flow
    completion times): probe every ``per_doubling``-th grid index of
    ``a..b`` (one per doubling), then bisect both edges of the feasible
    scan points against their failing neighbours. Assumes the feasible
    set is one interval (a note says so when the scan sees two)."""
    scan = sorted({*range(a, b + 1, p.per_doubling), b})
    ok: list[int] = []
    for j, i in enumerate(scan):
        if all(probes.probe(i, "packet interval scan", f"{j + 1}/{len(scan)}")[k] for k in ks):
            ok.append(i)
    if not ok:
        # The feasible set may be narrower than a doubling: look next to the best scan point.
        best = max(scan, key=lambda i: min(probes.margin(i, k) for k in ks))
        for i in range(max(a, best - p.per_doubling + 1), min(b, best + p.per_doubling)):
            if all(probes.probe(i, "packet interval scan", "near the best")[k] for k in ks):
                ok.append(i)
        if not ok:
            return None
    runs = [ok[0]]
    for i in ok[1:]:
        if any(not all(probes.probed[p.grid[s]][k] for k in ks) for s in scan if runs[-1] < s < i):
            notes.append(
                f"{', '.join(p.objs[k].text for k in ks)} holds on more than one interval "
                f"of buffers; the range is the first ({p.grid[ok[0]]} packets up)"
            )
            break
        runs.append(i)
    first, last = runs[0], runs[-1]

    def pred(i: int) -> bool:
        return all(probes.probe(i, "packet interval edges", "bisection")[k] for k in ks)

    prev = max([s for s in scan if s < first], default=None)
    nxt = min([s for s in scan if s > last], default=None)
    lo = bisect(pred, prev + 1, first, first_true=True) if prev is not None else first
    hi = bisect(pred, last, nxt - 1, first_true=False) if nxt is not None else last
    return lo, hi
