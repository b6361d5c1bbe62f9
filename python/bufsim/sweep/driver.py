"""The sweep driver: :func:`sweep` expands, reuses the store, runs the rest,
tabulates; :func:`run_each` does the same for a list of scenarios and returns
their whole results.

It runs in the calling process (the driver): points already in the store are
reused, the others go to an executor (:mod:`bufsim.sweep.executors`), each
outcome is stored as it arrives, and the table is built from the store's
records (:func:`bufsim.store.records_table`).
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import json
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bufsim._core import BufsimError
from bufsim.result import Result
from bufsim.scenario import Scenario
from bufsim.store import Store, build_id, claim_owner, encode_json, records_table
from bufsim.sweep.executors import (
    Runner,
    check_scheduler_address,
    execute,
    refuse_in_worker_import,
)
from bufsim.sweep.progress import Progress
from bufsim.sweep.spec import Point, SweepSpecError, each, expand, fmt_params

# The name the sweep has always logged under (the package's).
log = logging.getLogger("bufsim.sweep")


def sweep(
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
        bytes), for every engine, so curves need no parsing of ``"0.1BDP"``,
        ``bdp_pkts``, the point's bandwidth-delay product (packets), and
        ``flow_mix``, its flow groups in words (``"4 x cubic + 1 x bbr v1"``). ``table.attrs["sweep"]``
        holds the swept fields in order (``params``), counts (``points``,
        ``ran``, ``cached``, ``failed``), the
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
    refuse_in_worker_import()
    points = expand(base_scenario, grid, engines, seeds, zip=zip)
    params_order = list(points[0].params) if points else []
    scheduler = _resolve_scheduler(workers, scheduler, executor)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise SweepSpecError(f"name must be a non-empty string, got {name!r}")
    keep = "timeseries" if timeseries else "summary"
    own_store = not isinstance(store, Store)
    db = store if isinstance(store, Store) else Store(store)
    t0 = time.perf_counter()
    try:
        if name is not None:
            db.tag(name, (p.key for p in points))
        done, cached, ran, label = _run_points(
            db, points, keep, retry_failed, executor, scheduler, workers, progress
        )
        table = _table(points, done, cached, params_order)
        failed = table[table["status"] == "failed"]
        table.attrs["sweep"] = {
            "params": params_order,
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


class RunFailed(BufsimError, RuntimeError):
    """A run of :func:`run_each` failed (the message names it and why)."""


def run_each(
    scenarios: Sequence[Scenario | Mapping[str, Any] | str | Path],
    engines: Sequence[str] | str = "packet",
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: cf.Executor | None = None,
    store: Store | str | Path | None = "results",
    progress: bool | Callable[[dict[str, Any]], Any] | None = None,
    name: str | None = None,
) -> list[Result]:
    """Run each scenario once, through the store, and return the whole results.

    Where :func:`sweep` tabulates the summaries of a grid, this runs a list
    of scenarios that need not share a base (the steps of a search, a
    paper's cases) and returns every table of each :class:`Result`. The
    runs go through the same machinery: each finished run is stored as it
    arrives (``results/<key>/`` beside its row, :meth:`Store.result`), runs
    already stored are read back instead of run, an interrupted call loses
    no finished run, and the runs spread over a local pool or a Dask
    cluster. A stored result reads back equal to a fresh one: every result
    returned is read from the store (a store on disk: from its files).

    Parameters
    ----------
    scenarios : list of Scenario, dict or path
        Each a whole scenario, run with its own seed.
    engines : str or list of str, default ``"packet"``
        One engine for all runs, or one per scenario (names as :func:`sweep`'s).
    workers, scheduler, executor, store, progress, name
        As :func:`sweep`'s.

    Returns
    -------
    list of Result
        One per scenario, in the order given.

    Raises
    ------
    SweepSpecError
        A bad engine or scenario, before anything runs (:func:`bufsim.sweep.spec.each`).
    RunFailed
        A run failed: the message gives its position, name, engine and error
        (the other runs are stored).
    """
    refuse_in_worker_import()
    points = each(scenarios, engines)
    scheduler = _resolve_scheduler(workers, scheduler, executor)
    own_store = not isinstance(store, Store)
    db = store if isinstance(store, Store) else Store(store)
    try:
        if name is not None:
            db.tag(name, (p.key for p in points))
        done, *_ = _run_points(db, points, "result", True, executor, scheduler, workers, progress)
        for p in points:
            if done[p.key]["status"] != "ok":
                raise RunFailed(
                    f"run {p.index} ({p.name}, engine {p.engine}, seed {p.seed}) failed: "
                    f"{done[p.key]['error']}"
                )
        return [db.result(p.key) for p in points]
    finally:
        if own_store:
            db.close()


def _run_points(
    db: Store,
    points: list[Point],
    keep: str,
    retry_failed: bool,
    executor: cf.Executor | None,
    scheduler: str | None,
    workers: int | None,
    progress: bool | Callable[[dict[str, Any]], Any] | None,
) -> tuple[dict[str, dict[str, Any]], set[str], int, str]:
    """Reuse what the store holds of ``points``, run the rest; return the
    records by key, the keys reused, how many ran here and the executor's label."""
    done = _reusable(db, points, retry_failed, keep)
    cached = set(done)
    todo = _todo(points, cached)
    if not todo:
        return done, cached, 0, "nothing to run"
    runner = Runner.pick(executor, scheduler, workers)
    log.info(
        "sweep: %d points, %d in the store %s, %d to run on %s",
        len(points),
        len(cached),
        db.path,
        len(todo),
        runner.label,
    )
    bar = Progress(progress, len(todo), len(cached), runner.label)
    ran = _run(todo, runner, db, bar, keep, done, cached)
    return done, cached, ran, runner.label


def _resolve_scheduler(
    workers: int | None, scheduler: str | None, executor: cf.Executor | None
) -> str | None:
    """Check ``workers`` and return the Dask scheduler address the sweep uses, if any.

    ``$DASK_SCHEDULER_ADDRESS`` when none of the three is given.

    Raises
    ------
    SweepSpecError
        ``workers`` not an integer >= 0, or a scheduler that is not an address.
    """
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 0
    ):
        raise SweepSpecError(f"workers must be an integer >= 0, got {workers!r}")
    if scheduler is None and executor is None and workers is None:
        scheduler = os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if scheduler:
        check_scheduler_address(scheduler)
    return scheduler


def _reusable(
    db: Store, points: list[Point], retry_failed: bool, keep: str
) -> dict[str, dict[str, Any]]:
    """The stored records the sweep reuses, by key.

    Not reused: failed points when ``retry_failed``, and points whose time
    series (``keep="timeseries"``, where the engine gave one) or whole
    result (``keep="result"``) is missing from the store.
    """
    stored = db.get(p.key for p in points)
    done: dict[str, dict[str, Any]] = {}
    for key, rec in stored.items():
        if rec["status"] == "failed":
            if retry_failed:
                continue
        elif (keep != "timeseries" or rec["timeseries"]) and not db.holds(key, keep):
            continue
        done[key] = rec
    return done


def _todo(points: list[Point], cached: set[str]) -> list[Point]:
    """The points to run: not in ``cached``, each key once (in point order)."""
    todo: list[Point] = []
    seen: set[str] = set()
    for p in points:
        if p.key not in cached and p.key not in seen:
            seen.add(p.key)
            todo.append(p)
    return todo


def _run(
    todo: list[Point],
    runner: Runner,
    db: Store,
    bar: Progress,
    keep: str,
    done: dict[str, dict[str, Any]],
    cached: set[str],
) -> int:
    """Run ``todo`` on ``runner``, storing each outcome as it arrives; return how many ran here.

    Each point's record goes into ``done``; one that another driver sharing
    the store ran is read from the store and its key added to ``cached``
    (this driver reused it, as it reuses what the store held at the start).
    On any exception, Ctrl-C included, the
    bar stops, the running points are cancelled and this driver's claims
    are released before it propagates.
    """
    owner = claim_owner()
    ran = 0
    try:
        for point, out in execute(todo, runner, db, owner, keep):
            if out is None:  # another driver sharing the store ran it
                done[point.key] = db.get([point.key])[point.key]
                cached.add(point.key)
                bar.advance(done[point.key]["status"] != "ok")
                continue
            done[point.key] = _record(db, point, out)
            ran += 1
            bar.advance(out["status"] != "ok")
    except BaseException:
        bar.close()
        runner.close(cancel=True)
        db.release(owner)
        raise
    bar.close()
    runner.close()
    return ran


def _record(db: Store, point: Point, out: Mapping[str, Any]) -> dict[str, Any]:
    """Store a point's outcome (:func:`run_point`'s) and return its record as the store reads it."""
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
        version=build_id(point.engine),
    )
    db.put(**rec, timeseries=out["timeseries"], result=out["result"])
    log.debug(
        "sweep: point %d (%s, %s, seed %d) %s in %.2f s%s",
        point.index,
        fmt_params(point.params),
        point.engine,
        point.seed,
        out["status"],
        out["wall_s"],
        "" if out["status"] == "ok" else f": {out['error']}",
    )
    rec["summary"] = _roundtrip(out["summary"])
    return rec


def _table(
    points: list[Point],
    done: Mapping[str, Mapping[str, Any]],
    cached: set[str],
    params_order: list[str],
) -> pd.DataFrame:
    """The sweep's table: one row per point, from its record (see :func:`sweep`)."""
    recs = []
    for p in points:
        rec = dict(done[p.key])
        rec.update(params=p.params, engine=p.engine, seed=p.seed, name=p.name, key=p.key)
        recs.append(rec)
    return records_table(
        recs,
        params_order=params_order,
        extra={
            "cached": [p.key in cached for p in points],
            "buffer_pkts": [p.buffer_pkts for p in points],
            "buffer_bytes": [p.buffer_bytes for p in points],
            "bdp_pkts": [p.bdp_pkts for p in points],
            "flow_mix": [p.flow_mix for p in points],
        },
    )


def _roundtrip(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The summary as it reads back from the store (so fresh and cached rows are equal)."""
    return None if summary is None else json.loads(encode_json(summary))


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
