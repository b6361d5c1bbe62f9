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

Modules
-------
:mod:`~bufsim.sweep.spec`
    Grid and zip axes, paths into the scenario, validation
    (:func:`expand`, :func:`each`, :class:`SweepSpecError`).
:mod:`~bufsim.sweep.specfile`
    Spec files (:func:`load_spec`, :class:`SweepSpec`), above the driver.
:mod:`~bufsim.sweep.driver`
    :func:`sweep`: reuse the store, run the rest, build the table;
    :func:`run_each`: the same for a list of scenarios, returning their
    whole results (the runs behind a search or a reproduction).
:mod:`~bufsim.sweep.executors`
    Local process pool, Dask, claims and leases in the store, the workers'
    watch on their driver (and the tunables ``LEASE_S``, ``POLL_S``,
    ``DRIVER_CHECK_S``, ``DASK_CONNECT_TIMEOUT_S``, read there).
:mod:`~bufsim.sweep.worker`
    :func:`run_point`, what a worker process runs.
:mod:`~bufsim.sweep.progress`
    The progress bar or callback.
"""

from bufsim.sweep.driver import RunFailed, run_each, sweep
from bufsim.sweep.executors import DASK_CONNECT_TIMEOUT_S as DASK_CONNECT_TIMEOUT_S
from bufsim.sweep.executors import DRIVER_CHECK_S as DRIVER_CHECK_S
from bufsim.sweep.executors import LEASE_S as LEASE_S
from bufsim.sweep.executors import POLL_S as POLL_S
from bufsim.sweep.executors import check_scheduler_address as check_scheduler_address
from bufsim.sweep.executors import default_workers as default_workers
from bufsim.sweep.spec import Point, SweepSpecError, each, expand
from bufsim.sweep.spec import parse_path as parse_path
from bufsim.sweep.specfile import SweepSpec, load_spec
from bufsim.sweep.worker import parquet_bytes as parquet_bytes
from bufsim.sweep.worker import run_point

__all__ = [
    "Point",
    "RunFailed",
    "SweepSpec",
    "SweepSpecError",
    "each",
    "expand",
    "load_spec",
    "run_each",
    "run_point",
    "sweep",
]
