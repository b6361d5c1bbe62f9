"""Sweep specifications: grid and zip axes, paths into the scenario, points.

Everything here runs before any point does: :func:`expand` turns a base
scenario, its axes, engines and seeds into validated :class:`Point` objects,
and :func:`each` a list of whole scenarios (spec files are read by
:mod:`bufsim.sweep.specfile`). A bad specification raises :class:`SweepSpecError`, naming the point's
parameters and the field.

Grid paths are dotted paths into the raw scenario: ``link.buffer``,
``flows[0].count``, ``link.qdisc_params.min_th`` (:func:`parse_path`). A
path that sets a group's ``tcp`` keeps only the ``tcp_params`` the variant
takes (:func:`_params_taken`).
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bufsim import _core, limits
from bufsim.engines import ENGINES
from bufsim.result import plain
from bufsim.scenario import TCP_VARIANTS, Scenario, flow_mix
from bufsim.store import build_id, point_key


class SweepSpecError(_core.BufsimError, ValueError):
    """A sweep specification is invalid (raised before anything runs)."""


# ----------------------------------------------------------------------------- paths

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def parse_path(path: Any) -> list[str | int]:
    """Split a dotted path (``flows[0].count``) into keys and list indices.

    Parameters
    ----------
    path : str
        ``name`` or ``name[i]`` parts joined by dots.

    Returns
    -------
    list of str and int
        The table keys and list indices in order: ``["flows", 0, "count"]``.

    Raises
    ------
    SweepSpecError
        If ``path`` is not a string of ``name``/``name[i]`` parts joined by dots.
    """
    if not isinstance(path, str) or not path:
        raise SweepSpecError(
            f"grid path must be a non-empty string such as 'link.buffer', got {path!r}"
        )
    steps: list[str | int] = []
    for part in path.split("."):
        m = _SEGMENT.fullmatch(part)
        if not m:
            raise SweepSpecError(
                f"grid path {path!r}: cannot read {part!r}; write fields as 'link.buffer' or 'flows[0].count'"
            )
        steps.append(m.group(1))
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return steps


def _check_path(base: Mapping[str, Any], path: str) -> list[str | int]:
    """Parse ``path`` and check it against the raw base scenario's structure.

    Lists must exist and hold the index; a missing table key is allowed (it
    may be an optional field: the core's validation decides).
    """
    steps = parse_path(path)
    node: Any = base
    where = ""
    for step in steps:
        if node is None:  # below a key the base does not have: the core decides
            break
        if isinstance(step, int):
            if not isinstance(node, list):
                raise SweepSpecError(
                    f"grid path {path!r}: {where or 'the scenario'} is not a list in the base scenario "
                    f"({type(node).__name__}), so it cannot take [{step}]"
                )
            if step >= len(node):
                raise SweepSpecError(
                    f"grid path {path!r}: index {step} out of range, the base scenario has "
                    f"{len(node)} entr{'y' if len(node) == 1 else 'ies'} in {where}"
                )
            node = node[step]
            where = f"{where}[{step}]"
        else:
            if not isinstance(node, Mapping):
                raise SweepSpecError(
                    f"grid path {path!r}: {where} is a {type(node).__name__} in the base scenario, not a table, "
                    f"so it has no field {step!r}"
                )
            where = f"{where}.{step}" if where else step
            node = node.get(step)
    return steps


def _set_path(raw: dict[str, Any], steps: Sequence[str | int], value: Any) -> None:
    node: Any = raw
    for step, nxt in zip(steps[:-1], steps[1:]):
        if isinstance(step, str) and step not in node:
            node[step] = [] if isinstance(nxt, int) else {}
        node = node[step]
    node[steps[-1]] = copy.deepcopy(value)


def _values(label: str, values: Any) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__iter__"):
        raise SweepSpecError(
            f"{label} must be a list of values, got {type(values).__name__} {values!r} "
            f"(write [{values!r}] for a single value)"
        )
    out = [plain(v) for v in values]
    if not out:
        raise SweepSpecError(f"{label} is empty: give at least one value")
    return out


# ----------------------------------------------------------------------------- points


@dataclass
class Point:
    """One run of a sweep: parameters, engine, seed and the validated scenario.

    Attributes
    ----------
    index : int
        Position in the sweep (the table's row order).
    params : dict
        ``{path: value}`` of the grid axes for this point.
    engine : str
        ``packet``, ``fluid`` or ``model:<name>``.
    seed : int
        The scenario seed of this run.
    raw : dict
        The scenario (unit strings) that runs.
    key : str
        Store key: hash of (scenario, engine, seed, the engine's build, :func:`~bufsim.store.build_id`).
    name : str
        The scenario's name.
    buffer_pkts, buffer_bytes : float
        The bottleneck buffer this point resolves to (packets of the link's
        reference size, bytes).
    bdp_pkts : float
        The bottleneck's bandwidth-delay product, packets (``link.bdp_pkts``).
    flow_mix : str
        The flow groups, each as its count and TCP
        (:func:`bufsim.scenario.flow_mix`).
    """

    index: int
    params: dict[str, Any]
    engine: str
    seed: int
    raw: dict[str, Any]
    key: str
    name: str = ""
    buffer_pkts: float = math.nan
    buffer_bytes: float = math.nan
    bdp_pkts: float = math.nan
    flow_mix: str = ""


def _engines(engines: Any) -> list[str]:
    if isinstance(engines, str):
        engines = [engines]
    engines = _values("engines", engines)
    known = list(ENGINES)
    for e in engines:
        if not isinstance(e, str):
            raise SweepSpecError(f"engines must be names (strings), got {e!r}")
        if e.startswith("model:"):
            from bufsim.models import MODELS

            if e[len("model:") :] not in MODELS:
                raise SweepSpecError(
                    f"engine {e!r}: unknown model, allowed are {', '.join('model:' + m for m in MODELS)}"
                )
        elif e not in known:
            raise SweepSpecError(
                f"engine {e!r} is unknown: allowed are {', '.join(known)} or 'model:<name>' (bufsim.models.MODELS)"
            )
    if len(set(engines)) != len(engines):
        raise SweepSpecError(f"engines lists a name twice: {engines}")
    return engines


def _seeds(seeds: Any) -> list[int]:
    seeds = _values("seeds", seeds)
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise SweepSpecError(f"seeds must be non-negative integers, got {s!r} in {seeds}")
    if len(set(seeds)) != len(seeds):
        raise SweepSpecError(f"seeds lists a seed twice: {seeds}")
    return seeds


def base_raw(base: Any) -> dict[str, Any]:
    """A copy of the raw form of a base scenario (a Scenario, dict or
    path), validated; a :class:`SweepSpecError` says what is wrong."""
    try:
        return copy.deepcopy(Scenario.load(base).raw)
    except _core.ScenarioError as e:
        raise SweepSpecError(f"base scenario: {e}") from None


def fmt_params(params: Mapping[str, Any]) -> str:
    """A point's parameters as ``path=value, ...`` for messages and logs."""
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"


def expand(
    base_scenario: Scenario | Mapping[str, Any] | str | Path,
    grid: Mapping[str, Any] | None = None,
    engines: Sequence[str] | str = ("packet",),
    seeds: Sequence[int] | None = None,
    *,
    zip: Sequence[Mapping[str, Any]] | None = None,  # noqa: A002 - matches the spec's [[zip]]
) -> list[Point]:
    """Expand a sweep into its points, each validated; nothing runs.

    Parameters are those of :func:`sweep`.

    Returns
    -------
    list of Point
        In table order: grid combinations (first axis slowest), then
        engines, then seeds.

    Raises
    ------
    SweepSpecError
        Unknown or malformed path, empty grid or axis, zipped lists of
        different lengths, overlapping paths, bad engine or seed, or a point
        whose scenario fails validation (the message gives the point's
        parameters and the core's message, which names the field).
    """
    base = base_raw(base_scenario)
    axes = _axes(grid, zip)
    steps = _checked_paths(base, axes)
    engines = _engines(engines)
    seed_list = None if seeds is None else _seeds(seeds)
    if seed_list is not None and "seed" in steps:
        raise SweepSpecError("'seed' is both a grid path and set by seeds=: use one of them")
    _check_size(axes, engines, seed_list)
    return _points(base, axes, steps, engines, seed_list)


#: One axis of the product: its paths, and per step along it one value per path.
_Axis = tuple[list[str], list[tuple[Any, ...]]]


def _axes(grid: Any, zipped: Any) -> list[_Axis]:
    """The product axes: one per grid path, then one per zipped group.

    Raises
    ------
    SweepSpecError
        ``grid`` not a table, an axis not a non-empty list, a zipped group
        not a non-empty table or with lists of different lengths, no axis.
    """
    if grid is None:
        grid = {}
    if not isinstance(grid, Mapping):
        raise SweepSpecError(f"grid must be a table of path = [values], got {type(grid).__name__}")
    if zipped is None:
        zipped = []
    if isinstance(zipped, Mapping):
        zipped = [zipped]
    axes: list[_Axis] = []
    for path, values in grid.items():
        axes.append(([path], [(v,) for v in _values(f"grid[{path!r}]", values)]))
    for g, group in enumerate(zipped):
        axes.append(_zip_axis(g, group))
    if not axes:
        raise SweepSpecError(
            "the grid is empty: give at least one axis, e.g. grid={'link.buffer': ['20pkt', '100pkt']}"
        )
    return axes


def _zip_axis(g: int, group: Any) -> _Axis:
    """Zipped group number ``g``: one axis whose lists advance together."""
    if not isinstance(group, Mapping) or not group:
        raise SweepSpecError(
            f"zip[{g}] must be a non-empty table of path = [values], got {group!r}"
        )
    lists = {p: _values(f"zip[{g}][{p!r}]", v) for p, v in group.items()}
    lengths = {p: len(v) for p, v in lists.items()}
    if len(set(lengths.values())) != 1:
        raise SweepSpecError(
            f"zip[{g}]: zipped lists must have equal lengths, got "
            + ", ".join(f"{p}: {n}" for p, n in lengths.items())
        )
    return list(lists), [tuple(vals) for vals in zip(*lists.values())]


def _checked_paths(base: Mapping[str, Any], axes: list[_Axis]) -> dict[str, list[str | int]]:
    """Every path of the axes, parsed and checked against the base: ``{path: steps}``.

    Raises
    ------
    SweepSpecError
        A path that does not read or does not fit the base (:func:`_check_path`),
        a path in more than one axis, or two paths of which one contains the other.
    """
    paths = [p for ps, _ in axes for p in ps]
    steps = {p: _check_path(base, p) for p in paths}
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise SweepSpecError(f"grid path {dup[0]!r} appears in more than one axis")
    for a, b in itertools.permutations(paths, 2):
        sa, sb = steps[a], steps[b]
        if len(sa) < len(sb) and sb[: len(sa)] == sa:
            raise SweepSpecError(f"grid paths {a!r} and {b!r} overlap (one contains the other)")
    return steps


def _check_size(axes: list[_Axis], engines: list[str], seed_list: list[int] | None) -> None:
    """Refuse a sweep of more runs than :func:`bufsim.limits.points_limit` allows.

    The size is known before any scenario is built: a sweep out of proportion
    is refused at once (validating 10^6 points alone takes over a minute).
    """
    sizes = [len(vals) for _, vals in axes]
    n_seeds = len(seed_list) if seed_list is not None else 1
    models = sum(e.startswith("model:") for e in engines)  # once per combination
    total = math.prod(sizes) * ((len(engines) - models) * n_seeds + models)
    if total > limits.points_limit():
        shape = " x ".join(f"{len(vals)} {'+'.join(ps)}" for ps, vals in axes)
        raise SweepSpecError(
            f"the sweep has {total} runs ({shape}, x {len(engines)} engines x {n_seeds} seeds), more than the "
            f"{limits.points_limit()} allowed: split it, or set BUFSIM_MAX_POINTS"
        )


def _points(
    base: Mapping[str, Any],
    axes: list[_Axis],
    steps: Mapping[str, list[str | int]],
    engines: list[str],
    seed_list: list[int] | None,
) -> list[Point]:
    """Build and validate every point, in table order: combinations, then engines, then seeds.

    A model is deterministic: it runs once per combination (with the first
    seed), not once per seed.
    """
    points: list[Point] = []
    validated = 0  # scenarios validated so far: the number an error gives its point
    for combo in itertools.product(*[vals for _, vals in axes]):
        params: dict[str, Any] = {}
        for (ps, _), vals in zip(axes, combo):
            params.update(zip(ps, vals))
        runs: list[tuple[Scenario, int, str]] = []  # one per seed
        for seed in seed_list if seed_list is not None else [None]:
            scn = _point_scenario(base, steps, params, seed, validated)
            validated += 1
            runs.append((scn, int(scn.normalized["seed"]), scn.hash()))
        for engine in engines:
            for scn, run_seed, digest in runs[:1] if engine.startswith("model:") else runs:
                points.append(_point(len(points), params, engine, scn, run_seed, digest))
    return points


def _point(
    index: int,
    params: Mapping[str, Any],
    engine: str,
    scn: Scenario,
    seed: int,
    digest: str,
) -> Point:
    """The point of a validated scenario with its seed and hash."""
    link = scn.normalized["link"]
    return Point(
        index=index,
        params=dict(params),
        engine=engine,
        seed=seed,
        raw=scn.raw,
        key=point_key(digest, engine, seed, build_id(engine)),
        name=scn.name,
        buffer_pkts=float(link["buffer_pkts"]),
        buffer_bytes=float(link["buffer_bytes"]),
        bdp_pkts=float(link["bdp_pkts"]),
        flow_mix=flow_mix(scn.normalized["flows"]),
    )


def engines_per_run(engines: str | Sequence[str], n: int) -> list[str]:
    """One engine name per run of ``n``: ``engines`` repeated when it is one
    name, else the list itself, each name checked (as :func:`sweep`'s).

    Raises
    ------
    SweepSpecError
        An unknown engine, or a list of another length than ``n``.
    """
    per_run = [engines] * n if isinstance(engines, str) else list(engines)
    if len(per_run) != n:
        raise SweepSpecError(
            f"engines: {len(per_run)} names for {n} scenarios; give one, or one each"
        )
    for e in dict.fromkeys(per_run):
        _engines(e)
    return per_run


def each(
    scenarios: Sequence[Scenario | Mapping[str, Any] | str | Path],
    engines: str | Sequence[str] = "packet",
) -> list[Point]:
    """The points of a list of scenarios, one run each; nothing runs.

    Parameters
    ----------
    scenarios : list of Scenario, dict or path
        Each a whole scenario (its own seed).
    engines : str or list of str
        One engine for all, or one per scenario (names as :func:`sweep`'s).

    Returns
    -------
    list of Point
        In the order given, without parameters.

    Raises
    ------
    SweepSpecError
        A bad engine, an engines list of another length, or a scenario that
        fails validation (the message gives its position and the core's
        message, which names the field).
    """
    scenarios = list(scenarios)
    per_run = engines_per_run(engines, len(scenarios))
    points = []
    for i, (raw, engine) in enumerate(zip(scenarios, per_run)):
        try:
            scn = Scenario.load(raw)
        except _core.ScenarioError as e:
            raise SweepSpecError(f"scenario {i}: {e}") from None
        points.append(_point(i, {}, engine, scn, int(scn.normalized["seed"]), scn.hash()))
    return points


def _point_scenario(
    base: Mapping[str, Any],
    steps: Mapping[str, list[str | int]],
    params: Mapping[str, Any],
    seed: int | None,
    number: int,
) -> Scenario:
    """The validated scenario of one point: the base with ``params`` (and ``seed``) set.

    Raises
    ------
    SweepSpecError
        The scenario fails validation: the message gives the point's
        ``number``, its parameters, the core's message and, when the field
        named is one the base does not have, the paths that added it.
    """
    raw = copy.deepcopy(base)
    for p, v in params.items():
        _set_path(raw, steps[p], v)
    _params_taken(raw, [steps[p] for p in params])
    if seed is not None:
        raw["seed"] = seed
    try:
        return Scenario(raw)
    except _core.ScenarioError as e:
        seed_txt = "" if seed is None else f", seed={seed}"
        missing = [p for p in params if _missing_in(base, steps[p])]
        note = (
            f" (not in the base scenario: {', '.join(missing)})"
            if missing and _mentions(str(e), missing)
            else ""
        )
        raise SweepSpecError(
            f"sweep point {number} ({fmt_params(params)}{seed_txt}): {e}{note}"
        ) from None


@functools.cache
def _taken(tcp: str) -> frozenset[str]:
    """The ``tcp_params`` names TCP variant ``tcp`` takes (the core's registry)."""
    from bufsim import reference

    return frozenset(reference.params("tcp", tcp))


def _params_taken(raw: dict[str, Any], set_paths: Sequence[Sequence[str | int]]) -> None:
    """Where a point sets a flow group's ``tcp``, drop the base's
    ``tcp_params`` the new variant does not take, in place.

    A grid over ``flows[0].tcp = ["cubic", "bbr"]`` on a base of BBR with
    ``tcp_params = {version = 3}`` runs CUBIC with its defaults and BBR v3,
    where CUBIC refused ``version``. Parameters the point sets itself
    (``flows[0].tcp_params`` or one of its fields) are kept: a wrong one is
    the core's to refuse, naming it.
    """
    for steps in set_paths:
        if len(steps) < 3 or steps[-1] != "tcp" or steps[-3] != "flows":
            continue
        prefix = list(steps[:-1])
        group: Any = raw
        for step in prefix:
            group = group[step]
        tcp, params = group.get("tcp"), group.get("tcp_params")
        if tcp not in TCP_VARIANTS or not isinstance(params, dict):
            continue
        named = [
            list(s[len(prefix) + 1 :])
            for s in set_paths
            if list(s[: len(prefix) + 1]) == [*prefix, "tcp_params"]
        ]
        if [] in named:  # the point sets the whole table
            continue
        mine = {s[0] for s in named}
        group["tcp_params"] = {k: v for k, v in params.items() if k in _taken(tcp) or k in mine}


def _missing_in(base: Mapping[str, Any], steps: Sequence[str | int]) -> bool:
    node: Any = base
    for step in steps:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return True
    return False


def _mentions(message: str, paths: Iterable[str]) -> bool:
    field_part = message.split(":", 1)[0]
    return any(field_part.startswith(p.split(".")[0].split("[")[0]) for p in paths)
