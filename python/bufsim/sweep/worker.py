"""What a worker process runs: one point, its outcome as the store keeps it.

:func:`run_point` is submitted to the executors by its qualified name
(``bufsim.sweep.worker.run_point``): pool workers import it from here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import pandas as pd

from bufsim.engines import simulate
from bufsim.result import plain


def run_point(raw: Mapping[str, Any], engine: str, keep: str = "summary") -> dict[str, Any]:
    """Run one point (in a worker) and return what the store keeps.

    Parameters
    ----------
    raw : dict
        The point's scenario (unit strings), as :attr:`Point.raw`.
    engine : str
        ``packet``, ``fluid`` or ``model:<name>``.
    keep : str
        One of :data:`bufsim.store.KEEP`: with ``"result"`` the outcome also
        holds the whole :class:`~bufsim.result.Result`.

    Returns
    -------
    dict
        ``status`` (``ok``/``failed``), ``summary`` (dict or None), ``error``
        (``"ExceptionType: message"`` or None), ``wall_s`` (wall-clock
        seconds of the run), ``timeseries`` (Parquet bytes, or None when the
        engine produced no time series) and ``result`` (the whole Result
        with ``keep="result"``, else None).
        Engine and model errors are caught and returned; only
        ``KeyboardInterrupt`` and ``SystemExit`` propagate.
    """
    t0 = time.perf_counter()
    try:
        result = simulate(raw, engine=engine)
        summary = {k: plain(v) for k, v in result.summary.items()}
        ts = parquet_bytes(result.timeseries)
    except Exception as e:  # a failing point is data, not a crash
        return failure(f"{type(e).__name__}: {e}", wall_s=time.perf_counter() - t0)
    return {
        "status": "ok",
        "summary": summary,
        "error": None,
        "wall_s": time.perf_counter() - t0,
        "timeseries": ts,
        "result": result if keep == "result" else None,
    }


def parquet_bytes(frame: pd.DataFrame | None) -> bytes | None:
    """A time series as Parquet bytes (what the store keeps).

    Parameters
    ----------
    frame : pandas.DataFrame or None
        A result's time series (indexed by time).

    Returns
    -------
    bytes or None
        A Parquet file's bytes; None for no frame or an empty one (no rows
        and no columns).
    """
    if frame is None or (frame.shape[0] == 0 and frame.shape[1] == 0):
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame), sink)
    return sink.getvalue().to_pybytes()


def failure(error: str, wall_s: float = math.nan) -> dict[str, Any]:
    """The outcome of a point that failed (what :func:`run_point` returns)."""
    return {
        "status": "failed",
        "summary": None,
        "error": error,
        "wall_s": wall_s,
        "timeseries": None,
        "result": None,
    }
