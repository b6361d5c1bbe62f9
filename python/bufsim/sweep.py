"""Sweeps: run a grid of scenarios on a local process pool or a Dask cluster.

A sweep expands a grid over fields of a base scenario, runs every point with
every engine and seed, stores each finished point in the results store
(:mod:`bufsim.store`) as soon as it finishes, and returns one tidy table.

Grid paths are dotted paths into the raw scenario: ``link.buffer``,
``flows[0].count``, ``background[0].rate``, ``link.qdisc_params.min_th``. A
path may set a field the base scenario does not have (``link.qdisc``,
``flows[0].loss``); the core's validation decides whether the schema knows it.

Axes
    ``grid={"link.buffer": [...], "flows[0].count": [...]}`` -- product axes:
    every combination runs.
    ``zip=[{"flows[0].count": [1, 2, 4], "link.buffer": ["20pkt", "40pkt", "80pkt"]}]``
    -- each group is one axis whose lists (of equal length) advance together.
Every expanded point is validated before anything runs: a bad spec fails fast
with a :class:`SweepSpecError` naming the point's parameters and the field.

Determinism: a point's seed is written into its scenario, the engines are
deterministic per scenario, so the table is the same whatever the executor
and the number of workers.

Spec files (``bufsim sweep spec.toml``)::

    name = "buffer-vs-flows"          # optional label
    base = "scenario.toml"            # path relative to this file, or an inline [base] table
    engines = ["packet", "model:avrachenkov"]   # default ["packet"]
    seeds = [1, 2, 3]                 # default: the base scenario's seed

    [grid]                            # product axes
    "link.buffer" = ["20pkt", "100pkt", "1BDP"]

    [[zip]]                           # zipped axis: equal-length lists advance together
    "flows[0].count" = [1, 2, 4]
    "link.delay" = ["10ms", "20ms", "40ms"]

Example
-------
>>> import bufsim
>>> table = bufsim.sweep("auge.toml", grid={"link.buffer": ["20pkt", "100pkt"]},
...                      seeds=[1, 2], workers=2)          # doctest: +SKIP
>>> table.groupby("link.buffer")["utilization"].mean()    # doctest: +SKIP
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import copy
import itertools
import json
import logging
import math
import multiprocessing
import os
import re
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bufsim import _core, limits
from bufsim.engines import ENGINES, simulate
from bufsim.result import plain
from bufsim.scenario import Scenario
from bufsim.store import (
    Store,
    build_id,
    claim_owner,
    encode_json,
    point_key,
    process_alive,
    records_table,
)

log = logging.getLogger(__name__)

__all__ = ["Point", "SweepSpec", "SweepSpecError", "expand", "load_spec", "run_point", "sweep"]


class SweepSpecError(_core.BufsimError, ValueError):
    """A sweep specification is invalid (raised before anything runs)."""


# ----------------------------------------------------------------------------- paths

_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


def parse_path(path: Any) -> list[str | int]:
    """Split a dotted path (``flows[0].count``) into keys and list indices.

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
        Store key: hash of (scenario, engine, seed, bufsim version).
    name : str
        The scenario's name.
    buffer_pkts, buffer_bytes : float
        The bottleneck buffer this point resolves to (packets of the link's
        reference size, bytes).
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


def _base_raw(base: Any) -> dict[str, Any]:
    try:
        return copy.deepcopy(Scenario.load(base).raw)
    except _core.ScenarioError as e:
        raise SweepSpecError(f"base scenario: {e}") from None


def _fmt_params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"


def expand(  # noqa: C901 - to split (issue 16)
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
    base = _base_raw(base_scenario)
    zipped = zip
    if grid is None:
        grid = {}
    if not isinstance(grid, Mapping):
        raise SweepSpecError(f"grid must be a table of path = [values], got {type(grid).__name__}")
    if zipped is None:
        zipped = []
    if isinstance(zipped, Mapping):
        zipped = [zipped]
    axes: list[tuple[list[str], list[tuple[Any, ...]]]] = []
    for path, values in grid.items():
        axes.append(([path], [(v,) for v in _values(f"grid[{path!r}]", values)]))
    for g, group in enumerate(zipped):
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
        axes.append((list(lists), [tuple(vals) for vals in _zip_lists(*lists.values())]))
    if not axes:
        raise SweepSpecError(
            "the grid is empty: give at least one axis, e.g. grid={'link.buffer': ['20pkt', '100pkt']}"
        )
    paths = [p for ps, _ in axes for p in ps]
    steps = {p: _check_path(base, p) for p in paths}
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise SweepSpecError(f"grid path {dup[0]!r} appears in more than one axis")
    for a, b in itertools.permutations(paths, 2):
        sa, sb = steps[a], steps[b]
        if len(sa) < len(sb) and sb[: len(sa)] == sa:
            raise SweepSpecError(f"grid paths {a!r} and {b!r} overlap (one contains the other)")
    engines = _engines(engines)
    seed_list = None if seeds is None else _seeds(seeds)
    if seed_list is not None and "seed" in paths:
        raise SweepSpecError("'seed' is both a grid path and set by seeds=: use one of them")

    # The size is known before any scenario is built: refuse a sweep out of
    # proportion at once (validating 10^6 points alone takes over a minute).
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
    version = build_id()
    points: list[Point] = []
    validated = 0  # scenarios validated so far: the number an error gives its point
    for combo in itertools.product(*[vals for _, vals in axes]):
        params: dict[str, Any] = {}
        for (ps, _), vals in _zip_lists(axes, combo):
            params.update(_zip_lists(ps, vals))
        runs: list[tuple[Scenario, int, str]] = []  # one per seed
        for seed in seed_list if seed_list is not None else [None]:
            raw = copy.deepcopy(base)
            for p, v in params.items():
                _set_path(raw, steps[p], v)
            if seed is not None:
                raw["seed"] = seed
            try:
                scn = Scenario(raw)
            except _core.ScenarioError as e:
                seed_txt = "" if seed is None else f", seed={seed}"
                missing = [p for p in params if _missing_in(base, steps[p])]
                note = (
                    f" (not in the base scenario: {', '.join(missing)})"
                    if missing and _mentions(str(e), missing)
                    else ""
                )
                raise SweepSpecError(
                    f"sweep point {validated} ({_fmt_params(params)}{seed_txt}): {e}{note}"
                ) from None
            validated += 1
            runs.append((scn, int(scn.normalized["seed"]), scn.hash()))
        # Table order: combinations, then engines, then seeds. A model is
        # deterministic: it runs once per combination, not once per seed.
        for engine in engines:
            for scn, run_seed, digest in runs[:1] if engine.startswith("model:") else runs:
                link = scn.normalized["link"]
                points.append(
                    Point(
                        index=len(points),
                        params=dict(params),
                        engine=engine,
                        seed=run_seed,
                        raw=scn.raw,
                        key=point_key(digest, engine, run_seed, version),
                        name=scn.name,
                        buffer_pkts=float(link["buffer_pkts"]),
                        buffer_bytes=float(link["buffer_bytes"]),
                    )
                )
    return points


_zip_lists = zip  # the builtin, since expand() takes a keyword named ``zip``


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


# ----------------------------------------------------------------------------- running one point


def run_point(raw: Mapping[str, Any], engine: str) -> dict[str, Any]:
    """Run one point (in a worker) and return what the store keeps.

    Returns
    -------
    dict
        ``status`` (``ok``/``failed``), ``summary`` (dict or None), ``error``
        (``"ExceptionType: message"`` or None), ``wall_s`` and ``timeseries``
        (Parquet bytes, or None when the engine produced no time series).
        Engine and model errors are caught and returned; only
        ``KeyboardInterrupt`` and ``SystemExit`` propagate.
    """
    t0 = time.perf_counter()
    try:
        result = simulate(raw, engine=engine)
        summary = {k: plain(v) for k, v in result.summary.items()}
        ts = parquet_bytes(result.timeseries)
    except Exception as e:  # a failing point is data, not a crash
        return _failure(f"{type(e).__name__}: {e}", wall_s=time.perf_counter() - t0)
    return {
        "status": "ok",
        "summary": summary,
        "error": None,
        "wall_s": time.perf_counter() - t0,
        "timeseries": ts,
    }


def parquet_bytes(frame: pd.DataFrame | None) -> bytes | None:
    """A time series as Parquet bytes (what the store keeps), None when empty."""
    if frame is None or (frame.shape[0] == 0 and frame.shape[1] == 0):
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame), sink)
    return sink.getvalue().to_pybytes()


# ----------------------------------------------------------------------------- executors


def default_workers() -> int:
    """Number of usable CPU cores (the default worker count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class _InProcess(cf.Executor):
    """Runs each call at submit time in this process (``workers=0``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except Exception as e:
            fut.set_exception(e)
        return fut


#: Seconds between a worker's checks that its driver is alive.
DRIVER_CHECK_S = 0.5


def _watch_driver(driver_pid: int) -> None:
    """Worker initializer: exit as soon as the driver process is gone.

    A driver killed with SIGKILL cannot stop its pool; without this its
    workers would finish (and lose) their points and then wait forever on the
    call queue. A daemon thread checks every :data:`DRIVER_CHECK_S` seconds
    (the simulations release the GIL, so it runs during a run) and ends the
    process with ``os._exit``.
    """
    import threading

    def watch() -> None:
        while process_alive(driver_pid):
            time.sleep(DRIVER_CHECK_S)
        os._exit(3)

    threading.Thread(target=watch, name="bufsim-driver-watch", daemon=True).start()


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    """A local pool whose workers exit when this process dies."""
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_mp_context(),
        initializer=_watch_driver,
        initargs=(os.getpid(),),
    )


def _mp_context() -> multiprocessing.context.BaseContext:
    # Not fork: the Rust extension and threads are loaded in the driver.
    if sys.platform.startswith("linux"):
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["bufsim.sweep"])
        return ctx
    return multiprocessing.get_context("spawn")


def check_scheduler_address(address: Any) -> None:
    """Refuse what is not a Dask scheduler address at once (not after a connect timeout).

    Allowed: ``tcp://host:port`` (also ``tls``, ``ws``, ``wss``, ``ucx``,
    ``inproc`` schemes) or ``host:port``.
    """
    if not isinstance(address, str) or not re.fullmatch(
        r"(?:(?:tcp|tls|ws|wss|ucx)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}|inproc://\S+", address.strip()
    ):
        raise SweepSpecError(
            f"scheduler {address!r}: not a Dask scheduler address; write tcp://host:port (e.g. tcp://127.0.0.1:8786)"
        )


#: Seconds to wait for a Dask scheduler to answer before giving up.
DASK_CONNECT_TIMEOUT_S = 20.0


class _Runner:
    """The executor a sweep submits to, with restart after a local worker dies."""

    def __init__(
        self,
        executor: cf.Executor,
        *,
        window: int | None,
        owned: bool,
        local_workers: int | None = None,
        client: Any = None,
        label: str = "",
    ):
        self.executor = executor
        self.window = window
        self.owned = owned
        self.local_workers = local_workers
        self.client = client
        self.label = label

    @classmethod
    def local(cls, workers: int) -> _Runner:
        if workers == 0:
            return cls(_InProcess(), window=1, owned=True, label="in-process")
        return cls(
            _pool(workers),
            window=2 * workers,
            owned=True,
            local_workers=workers,
            label=f"{workers} local workers",
        )

    @classmethod
    def dask(cls, address: str) -> _Runner:
        check_scheduler_address(address)
        try:
            from distributed import Client
        except ImportError:
            raise SweepSpecError(
                "a Dask scheduler was given but dask.distributed is not installed: pip install 'bufsim[dask]'"
            ) from None
        try:
            client = Client(address, timeout=f"{DASK_CONNECT_TIMEOUT_S}s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise SweepSpecError(
                f"cannot connect to the Dask scheduler at {address!r}: {e}"
            ) from None
        # A window of twice the cluster's threads: points are claimed in the
        # store as they are submitted, so two clients sharing a store split them.
        threads = sum(client.nthreads().values()) or 1
        return cls(
            client.get_executor(pure=False),
            window=2 * threads,
            owned=True,
            client=client,
            label=f"Dask scheduler {address}",
        )

    def submit(self, point: Point) -> cf.Future:
        return self.executor.submit(run_point, point.raw, point.engine)

    def can_restart(self) -> bool:
        return self.local_workers is not None

    def restart(self) -> None:
        self._stop_pool(cancel=True)
        self.executor = _pool(self.local_workers)

    def _stop_pool(self, cancel: bool) -> None:
        ex = self.executor
        ex.shutdown(wait=not cancel, cancel_futures=cancel)
        if cancel and isinstance(ex, cf.ProcessPoolExecutor):
            # Running points are abandoned: stop their workers now.
            for proc in list((getattr(ex, "_processes", None) or {}).values()):
                if proc.is_alive():
                    proc.terminate()

    def close(self, cancel: bool = False) -> None:
        if not self.owned:
            return
        if self.client is not None:
            self.client.close()
        else:
            self._stop_pool(cancel)


# ----------------------------------------------------------------------------- progress


class _Progress:
    """A rich progress bar (points done, failures, ETA), or a callback, or nothing."""

    def __init__(
        self,
        mode: bool | Callable[[dict[str, Any]], Any] | None,
        total: int,
        cached: int,
        label: str,
    ):
        self.callback = mode if callable(mode) else None
        self.state = {"total": total, "done": 0, "failed": 0, "cached": cached}
        self.bar = None
        show = mode is True or (mode is None and _interactive())
        if show and self.callback is None and total > 0:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"),
                TextColumn("{task.fields[cached]} cached"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self.bar.start()
            self.task = self.bar.add_task(f"sweep [{label}]", total=total, failed=0, cached=cached)

    def advance(self, failed: bool) -> None:
        self.state["done"] += 1
        self.state["failed"] += int(failed)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, failed=self.state["failed"])
        if self.callback is not None:
            self.callback(dict(self.state))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _interactive() -> bool:
    try:
        from rich.console import Console

        return Console(stderr=True).is_terminal
    except Exception:  # pragma: no cover
        return False


# ----------------------------------------------------------------------------- the sweep


def sweep(  # noqa: C901 - to split (issue 16)
    base_scenario: Scenario | Mapping[str, Any] | str | Path,
    grid: Mapping[str, Any] | None = None,
    engines: Sequence[str] | str = ("packet",),
    seeds: Sequence[int] | None = None,
    *,
    zip: Sequence[Mapping[str, Any]] | None = None,  # noqa: A002 - matches the spec's [[zip]]
    workers: int | None = None,
    scheduler: str | None = None,
    executor: cf.Executor | None = None,
    store: Store | str | Path | None = "results",
    timeseries: bool = False,
    retry_failed: bool = True,
    progress: bool | Callable[[dict[str, Any]], Any] | None = None,
    name: str | None = None,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Run a grid of scenarios and return one tidy table.

    Parameters
    ----------
    base_scenario : Scenario, dict, or path to a ``.toml``/``.json`` scenario
        The scenario every point starts from.
    grid : dict of {path: list}
        Product axes: dotted paths into the raw scenario (``"link.buffer"``,
        ``"flows[0].count"``) to lists of values (with units, as in a
        scenario file). Every combination runs.
    engines : list of str, default ``["packet"]``
        Names in :data:`bufsim.ENGINES` or ``"model:<name>"`` (a model of
        :func:`bufsim.models.predict`). Every point runs with every engine.
    seeds : list of int, optional
        Every point runs once per seed (written into the scenario's
        ``seed``). Default: the base scenario's seed.
    zip : list of dict of {path: list}, optional
        Zipped axes: in each group the lists (of equal length) advance
        together; each group is one axis of the product.
    workers : int, optional
        Local worker processes (default: the number of cores). ``0`` runs
        every point in this process (for debugging).
    scheduler : str, optional
        Address of a Dask scheduler (``"tcp://host:8786"``); the points run
        on its workers. Default: ``$DASK_SCHEDULER_ADDRESS`` when set and
        ``workers`` is not given.
    executor : concurrent.futures.Executor, optional
        Run the points on this executor instead (it is not shut down).
    store : Store, str, Path or None, default ``"results"``
        The results store directory (or an open :class:`~bufsim.store.Store`).
        Points already stored with status ``ok`` are reused, not rerun.
        ``None``: an in-memory store (nothing persists).
    timeseries : bool, default False
        Also return the per-run time series (see Returns).
    retry_failed : bool, default True
        Rerun points the store holds as failed.
    progress : bool or callable, optional
        ``None`` (default): a rich progress bar on stderr when it is a
        terminal; ``True``/``False``: always/never; a callable is called after
        each point with ``{"total", "done", "failed", "cached"}``.
    name : str, optional
        Name the sweep in the store (a spec file's ``name``), so that
        ``Store.table(sweep=name)`` and ``bufsim results --sweep NAME`` find
        its points among others.

    Returns
    -------
    pandas.DataFrame
        One row per point, engine and seed (a model, deterministic, once
        per point, with the first seed), in grid order: the parameter
        columns (named by their paths, values as given), ``engine``, ``seed``,
        ``status`` (``ok``/``failed``), ``error``, the summary metrics (NaN
        when failed), ``name``, ``key`` (the store key), ``wall_s``,
        ``cached`` (True if reused from the store), and ``buffer_pkts`` /
        ``buffer_bytes``, the buffer each point resolves to (packets,
        bytes), for every engine, so curves need no parsing of ``"0.1BDP"``. ``table.attrs["sweep"]``
        holds counts (``points``, ``ran``, ``cached``, ``failed``), the
        failures grouped by error (``errors``), the store path and the wall
        time.
    (table, timeseries) : tuple of DataFrame, if ``timeseries=True``
        ``timeseries`` is long-form: ``key``, the parameter columns,
        ``engine``, ``seed``, ``time_s`` and the sampled quantities (failed
        points and engines without time series contribute no rows).

    Raises
    ------
    SweepSpecError
        Bad spec, detected before anything runs (see :func:`expand`).
    KeyboardInterrupt
        Ctrl-C: the points finished so far are in the store; running the same
        sweep again resumes.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(_MAIN_GUARD)
    points = expand(base_scenario, grid, engines, seeds, zip=zip)
    params_order = list(points[0].params) if points else []
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 0
    ):
        raise SweepSpecError(f"workers must be an integer >= 0, got {workers!r}")
    if scheduler is None and executor is None and workers is None:
        scheduler = os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if scheduler:
        check_scheduler_address(scheduler)

    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise SweepSpecError(f"name must be a non-empty string, got {name!r}")
    own_store = not isinstance(store, Store)
    db = store if isinstance(store, Store) else Store(store)
    t0 = time.perf_counter()
    try:
        if name is not None:
            db.tag(name, (p.key for p in points))
        stored = db.get(p.key for p in points)
        done: dict[str, dict[str, Any]] = {}
        for key, rec in stored.items():
            if rec["status"] == "failed" and retry_failed:
                continue
            if timeseries and rec["timeseries"] and not db.has_timeseries(key):
                continue
            done[key] = rec
        cached = set(done)
        todo: list[Point] = []
        seen: set[str] = set()
        for p in points:
            if p.key not in cached and p.key not in seen:
                seen.add(p.key)
                todo.append(p)
        ran = 0
        label = "nothing to run"
        if todo:
            if executor is not None:
                runner = _Runner(executor, window=None, owned=False, label=type(executor).__name__)
            elif scheduler:
                runner = _Runner.dask(scheduler)
            else:
                runner = _Runner.local(default_workers() if workers is None else workers)
            label = runner.label
            log.info(
                "sweep: %d points, %d in the store %s, %d to run on %s",
                len(points),
                len(cached),
                db.path,
                len(todo),
                label,
            )
            bar = _Progress(progress, len(todo), len(cached), label)
            owner = claim_owner()
            try:
                for point, out in _execute(todo, runner, db, owner, timeseries):
                    if out is None:  # another driver sharing the store ran it
                        done[point.key] = db.get([point.key])[point.key]
                        bar.advance(done[point.key]["status"] != "ok")
                        continue
                    rec = dict(
                        key=point.key,
                        name=point.name,
                        engine=point.engine,
                        seed=point.seed,
                        scenario=point.raw,
                        params=point.params,
                        status=out["status"],
                        summary=out["summary"],
                        error=out["error"],
                        wall_s=out["wall_s"],
                        version=build_id(),
                    )
                    db.put(**rec, timeseries=out["timeseries"])
                    log.debug(
                        "sweep: point %d (%s, %s, seed %d) %s in %.2f s%s",
                        point.index,
                        _fmt_params(point.params),
                        point.engine,
                        point.seed,
                        out["status"],
                        out["wall_s"],
                        "" if out["status"] == "ok" else f": {out['error']}",
                    )
                    rec["summary"] = _roundtrip(out["summary"])
                    done[point.key] = rec
                    ran += 1
                    bar.advance(out["status"] != "ok")
            except BaseException:
                bar.close()
                runner.close(cancel=True)
                db.release(owner)
                raise
            bar.close()
            runner.close()
        recs = []
        for p in points:
            rec = dict(done[p.key])
            rec.update(params=p.params, engine=p.engine, seed=p.seed, name=p.name, key=p.key)
            recs.append(rec)
        table = records_table(
            recs,
            params_order=params_order,
            extra={
                "cached": [p.key in cached for p in points],
                "buffer_pkts": [p.buffer_pkts for p in points],
                "buffer_bytes": [p.buffer_bytes for p in points],
            },
        )
        failed = table[table["status"] == "failed"]
        table.attrs["sweep"] = {
            "points": len(points),
            "ran": ran,
            "cached": int(table["cached"].sum()),
            "failed": len(failed),
            "errors": dict(collections.Counter(failed["error"])),
            "store": db.path,
            "executor": label,
            "wall_s": time.perf_counter() - t0,
        }
        if not timeseries:
            return table
        return table, _timeseries_long(db, table, params_order)
    finally:
        if own_store:
            db.close()


_MAIN_GUARD = (
    "bufsim.sweep() was called while a worker process was importing the main script: "
    "worker processes import it again, so a script must call bufsim.sweep() under "
    '`if __name__ == "__main__":` (a Python multiprocessing rule)'
)


def _roundtrip(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The summary as it reads back from the store (so fresh and cached rows are equal)."""
    return None if summary is None else json.loads(encode_json(summary))


#: Seconds a driver's claim on a point lasts without renewal (it renews a
#: third of the way; a claim of a dead process of this host lapses at once).
LEASE_S = 60.0
#: Seconds between looks at the store for points another driver runs.
POLL_S = 0.5


def _execute(  # noqa: C901 - to split (issue 16)
    todo: list[Point], runner: _Runner, db: Store, owner: str, timeseries: bool
) -> Iterable[tuple[Point, dict[str, Any] | None]]:
    """Run the points and yield (point, outcome) as each finishes, or
    (point, None) when another driver sharing the store finished it.

    Each point is claimed in the store before it is submitted
    (:meth:`Store.claim`); a point another live driver holds is left to it
    and read from the store once it is there (or taken over if that driver
    dies or its lease lapses). Claims are renewed while points run.

    If a local worker process dies (killed, crashed), the pool is restarted
    and the points it held are rerun one at a time, so that only a point that
    kills its worker on its own is recorded as failed.
    """
    queue = collections.deque(todo)
    suspects: collections.deque[Point] = collections.deque()
    elsewhere: dict[str, Point] = {}  # run by another driver
    alone: set[int] = set()  # indices of points rerun alone after a worker died
    pending: dict[cf.Future, Point] = {}
    window = runner.window or len(todo)
    completed = deaths_alone = 0
    renewed = time.monotonic()

    def submit(p: Point) -> None:
        try:
            fut = runner.submit(p)
        except RuntimeError as e:  # a broken executor we may not restart
            fut = cf.Future()
            fut.set_exception(e)
        pending[fut] = p

    def fill() -> list[Point]:
        """Submit what the window allows; return the points found done elsewhere."""
        done_elsewhere = []
        if suspects:
            if not pending:
                p = suspects.popleft()
                alone.add(p.index)
                submit(p)
            return done_elsewhere
        while queue and len(pending) < window:
            p = queue.popleft()
            state = db.claim(p.key, owner, LEASE_S, timeseries=timeseries)
            if state == "mine":
                submit(p)
            elif state == "done":
                done_elsewhere.append(p)
            else:
                elsewhere[p.key] = p
        return done_elsewhere

    def finished_elsewhere() -> Iterable[tuple[Point, None]]:
        """Points another driver stored; those it abandoned go back in the queue."""
        if not elsewhere:
            return
        stored = db.get(elsewhere)
        for key in list(elsewhere):
            if key in stored:
                yield elsewhere.pop(key), None
        if not pending and not queue:
            for key in list(elsewhere):
                state = db.claim(key, owner, LEASE_S, timeseries=timeseries)
                if state != "taken":
                    queue.append(elsewhere.pop(key))

    for p in fill():
        yield p, None
    while pending or queue or elsewhere:
        if not pending:
            yield from finished_elsewhere()
            for p in fill():
                yield p, None
            if not pending and elsewhere:
                time.sleep(POLL_S)
            continue
        finished, _ = cf.wait(list(pending), timeout=LEASE_S / 3, return_when=cf.FIRST_COMPLETED)
        if time.monotonic() - renewed > LEASE_S / 3:
            db.renew((p.key for p in pending.values()), owner, LEASE_S)
            renewed = time.monotonic()
        if not finished:
            continue
        pool_broke = any(
            isinstance(f.exception(), BrokenProcessPool) for f in finished if not f.cancelled()
        )
        if pool_broke:
            # Every other pending call of a broken pool fails too; some may
            # have finished just before: collect them all now.
            finished, _ = cf.wait(list(pending))
        rerun: list[Point] = []
        for fut in sorted(finished, key=lambda f: pending[f].index):
            point = pending.pop(fut)
            try:
                out = fut.result()
            except (BrokenProcessPool, cf.CancelledError) as e:
                if point.index in alone or not runner.can_restart():
                    deaths_alone += point.index in alone
                    if deaths_alone >= 2 and completed == 0:
                        raise RuntimeError(
                            "worker processes die before finishing any point (see their error output above). "
                            'If a script calls bufsim.sweep(), call it under `if __name__ == "__main__":`'
                        ) from e
                    out = _failure(
                        f"worker process died while running this point ({type(e).__name__}: {e})"
                    )
                else:
                    rerun.append(point)
                    continue
            except Exception as e:  # executor-level failure (Dask KilledWorker, pickling, ...)
                out = _failure(f"{type(e).__name__}: {e}")
            alone.discard(point.index)
            completed += 1
            yield point, out
        if pool_broke and runner.can_restart():
            runner.restart()
            suspects.extend(rerun)
        yield from finished_elsewhere()
        for p in fill():
            yield p, None


def _failure(error: str, wall_s: float = math.nan) -> dict[str, Any]:
    """The outcome of a point that failed (what :func:`run_point` returns)."""
    return {
        "status": "failed",
        "summary": None,
        "error": error,
        "wall_s": wall_s,
        "timeseries": None,
    }


def _timeseries_long(db: Store, table: pd.DataFrame, params_order: list[str]) -> pd.DataFrame:
    head_cols = ["key", *params_order, "engine", "seed"]
    frames = []
    for _, row in table[table["status"] == "ok"].iterrows():
        if not db.has_timeseries(row["key"]):
            continue
        ts = db.timeseries(row["key"]).reset_index()
        for i, col in enumerate(head_cols):
            ts.insert(i, col, [row[col]] * len(ts))
        frames.append(ts)
    if not frames:
        return pd.DataFrame(columns=[*head_cols, "time_s"])
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- spec files

_SPEC_KEYS = {"name", "description", "base", "engines", "seeds", "grid", "zip"}


@dataclass
class SweepSpec:
    """A sweep read from a TOML spec file (see the module docstring for the format)."""

    base: dict[str, Any]
    grid: dict[str, Any] = field(default_factory=dict)
    zip: list[dict[str, Any]] = field(default_factory=list)
    engines: list[str] = field(default_factory=lambda: ["packet"])
    seeds: list[int] | None = None
    name: str | None = None
    path: Path | None = None

    def expand(self) -> list[Point]:
        """The validated points (nothing runs)."""
        return expand(self.base, self.grid, self.engines, self.seeds, zip=self.zip)

    def run(self, **options: Any) -> Any:
        """Run it: ``options`` are those of :func:`sweep` (workers, scheduler, store, ...)."""
        options.setdefault("name", self.name)
        return sweep(self.base, self.grid, self.engines, self.seeds, zip=self.zip, **options)


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a sweep spec file (TOML).

    Raises
    ------
    SweepSpecError
        Unreadable file, unknown top-level key, bad base, or any error
        :func:`expand` finds (every point is validated here).
    """
    path = Path(path)
    if not path.is_file():
        raise SweepSpecError(f"sweep spec {str(path)!r} does not exist")
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise SweepSpecError(f"{path}: cannot parse: {e}") from None
    unknown = sorted(set(doc) - _SPEC_KEYS)
    if unknown:
        raise SweepSpecError(
            f"{path}: unknown key {unknown[0]!r}; a sweep spec has {', '.join(sorted(_SPEC_KEYS))}"
        )
    if "base" not in doc:
        raise SweepSpecError(f"{path}: 'base' is missing (a scenario file path or a [base] table)")
    base = doc["base"]
    if isinstance(base, str):
        base = path.parent / base  # an absolute base stays as it is
    elif not isinstance(base, Mapping):
        raise SweepSpecError(
            f"{path}: 'base' must be a scenario file path or a [base] table, got {base!r}"
        )
    try:
        raw = _base_raw(base)
    except SweepSpecError as e:
        raise SweepSpecError(f"{path}: {e}") from None
    grid = doc.get("grid", {})
    if not isinstance(grid, Mapping):
        raise SweepSpecError(f'{path}: [grid] must be a table of "path" = [values]')
    zipped = doc.get("zip", [])
    if isinstance(zipped, Mapping):
        zipped = [zipped]
    if not isinstance(zipped, list):
        raise SweepSpecError(f'{path}: zip must be [[zip]] tables of "path" = [values]')
    engines = doc.get("engines", ["packet"])
    seeds = doc.get("seeds")
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        raise SweepSpecError(f"{path}: 'name' must be a string, got {name!r}")
    spec = SweepSpec(
        base=raw,
        grid=dict(grid),
        zip=[dict(z) for z in zipped],
        engines=engines,
        seeds=seeds,
        name=name,
        path=path,
    )
    try:
        spec.expand()
    except SweepSpecError as e:
        raise SweepSpecError(f"{path}: {e}") from None
    return spec
