"""Searches over a grid of ``n`` points for where a monotone predicate turns.

Pure index arithmetic, with no notion of buffers or runs: the packet
bisection (:mod:`~bufsim.advise.search.packet`) calls :func:`gallop` from
the fluid scan's edge, :func:`bisect` inside a bracket; the fluid scan
(:mod:`~bufsim.advise.search.fluid_scan`) calls
:func:`first_true_together`, which bisects several predicates in rounds
of runs (:func:`round_points`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

#: ``suggest(a, b)``: an index strictly between ``a`` and ``b`` where the
#: measurements so far put the edge (the first index past it), or None.
Suggest = Callable[[int, int], "int | None"]


def gallop(
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
    point at, :meth:`~bufsim.advise.search.probes.Probes.suggest`)
    replaces a gallop step or a bisection point where it has one. The
    gallop's step still doubles, and after a suggested step that did not
    reach the edge a suggestion shorter than half of it is taken once in a
    row at most; inside a bracket, two steps that do not halve it are
    followed by a bisection step. So a wrong suggestion costs a few probes
    at most, a good one leaves the edge and its neighbour.

    ``first_step(guess)`` (default 1), asked once the guess holds, sets
    the walk's first step: a guess that holds with nothing measured (a
    link never idle) is no neighbour of the edge."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        flip = None if guess is None else min(guess + 1, n - 1)
        return gallop(lambda i: not pred(i), flip, n, first_true=True, suggest=suggest) - 1
    if guess is None:
        return bisect(pred, 0, n - 1, first_true=True, suggest=suggest)
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
                return between(pred, lo, hi, suggest)
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
            return between(pred, lo, hi, suggest)
        lo, step, guided, short = hi, 2 * step, s is not None, cut and s is not None
    return n


def round_points(brackets: Iterable[tuple[int, int]], per_round: int = 2) -> list[int]:
    """The indices one round of :func:`first_true_together` runs: each
    distinct open bracket ``(a, b)`` (``b - a > 1``) cut into equal parts
    by ``per_round`` points shared among the brackets (at least one each)."""
    open_ = sorted({(a, b) for a, b in brackets if b - a > 1})
    per = max(1, per_round // max(len(open_), 1))
    return sorted(
        {a + (b - a) * j // (per + 1) for a, b in open_ for j in range(1, per + 1)}
        - {a for a, _ in open_}
    )


def first_true_together(
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
    open (:func:`round_points`: ``per_round`` points shared among them,
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
        points = round_points(open_.values(), per_round)
        run(points)
        for k, (a, b) in open_.items():
            inside = [i for i in points if a < i < b]
            b = next((i for i in inside if preds[k](i)), b)
            a = max((i for i in inside if i < b), default=a)
            brackets[k] = (a, b)


def between(pred: Callable[[int], bool], a: int, b: int, suggest: Suggest | None = None) -> int:
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


def bisect(
    pred: Callable[[int], bool],
    lo: int,
    hi: int,
    *,
    first_true: bool,
    suggest: Suggest | None = None,
) -> int:
    """For a monotone predicate over ``lo..hi``: the first index where it is
    true (``first_true``; ``hi + 1`` if none) or the last index where it is
    true (``lo - 1`` if none); ``suggest`` as in :func:`between`."""
    if not first_true:
        # The last true index is just before the first index where it turns false.
        return bisect(lambda i: not pred(i), lo, hi, first_true=True, suggest=suggest) - 1
    if not pred(hi):
        return hi + 1
    if pred(lo):
        return lo
    return between(pred, lo, hi, suggest)
