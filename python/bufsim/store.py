"""The results store: every finished sweep point, keyed by what produced it.

A store is a directory (``results/`` by default) holding

* ``store.sqlite`` -- an SQLite database in WAL mode (readers work alongside
  the writer), one row per point in table ``points``:

  ========== ==========================================================
  key        SHA-256 of (scenario hash, engine, seed, bufsim version)
  name       the scenario's name
  engine     ``packet``, ``fluid`` or ``model:<name>``
  seed       the scenario seed of this run
  scenario   the raw scenario (JSON, unit strings as written)
  params     the sweep parameters of the point (JSON ``{path: value}``)
  summary    the result's summary metrics (JSON; ``NULL`` when failed)
  status     ``ok`` or ``failed``
  error      why it failed (``NULL`` when ok)
  wall_s     wall-clock seconds the run took (in the worker)
  version    bufsim version that produced it
  timeseries 1 if ``timeseries/<key>.parquet`` holds its time series
  finished   UTC time the driver stored it (ISO 8601)
  ========== ==========================================================

* ``timeseries/<key>.parquet`` -- the run's time series (indexed by ``time_s``).

A point is written as one transaction right after its time series file is in
place (written to a temporary name, then renamed), so a killed process leaves
either the whole point or none of it. Writing a key again replaces its row:
the store never holds two rows for one key.

Example
-------
>>> from bufsim.store import Store
>>> store = Store("results")                      # doctest: +SKIP
>>> store.table(engine="packet", status="ok")     # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd

from bufsim._core import BufsimError

__all__ = ["Store", "StoreError", "point_key"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
    key        TEXT PRIMARY KEY,
    name       TEXT,
    engine     TEXT NOT NULL,
    seed       INTEGER NOT NULL,
    scenario   TEXT NOT NULL,
    params     TEXT NOT NULL,
    summary    TEXT,
    status     TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error      TEXT,
    wall_s     REAL,
    version    TEXT NOT NULL,
    timeseries INTEGER NOT NULL DEFAULT 0,
    finished   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS points_engine ON points (engine);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

_COLUMNS = (
    "key", "name", "engine", "seed", "scenario", "params", "summary",
    "status", "error", "wall_s", "version", "timeseries", "finished",
)


class StoreError(BufsimError, RuntimeError):
    """The store cannot be opened or read (the message says which file and why)."""


def point_key(scenario_hash: str, engine: str, seed: int, version: str) -> str:
    """The key of one run: SHA-256 of (scenario hash, engine, seed, bufsim version)."""
    import hashlib

    text = json.dumps([scenario_hash, engine, int(seed), version], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def encode_json(value: Any) -> str:
    """JSON text of a stored field, numpy scalars as Python numbers.

    NaN and inf survive as the (non-standard) JSON tokens Python reads back.
    """
    return json.dumps(value, sort_keys=False, default=_default)


def _default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


class Store:
    """A results store in directory ``root`` (created if missing).

    Parameters
    ----------
    root : str or Path or None
        The store directory. ``None`` keeps everything in memory (nothing
        survives the process; useful for tests and throw-away sweeps).

    Raises
    ------
    StoreError
        If ``root`` exists and is not a directory, or the database is not a
        bufsim store of a known schema version.
    """

    def __init__(self, root: str | Path | None = "results"):
        self.root = None if root is None else Path(root)
        self._memory_ts: dict[str, bytes] = {}
        if self.root is None:
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            if self.root.exists() and not self.root.is_dir():
                raise StoreError(f"store {str(self.root)!r} exists and is not a directory")
            try:
                (self.root / "timeseries").mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot create store {str(self.root)!r}: {e.strerror or e}") from None
            try:
                self._db = sqlite3.connect(
                    self.root / "store.sqlite", timeout=60.0, isolation_level=None, check_same_thread=False
                )
                self._db.execute("PRAGMA journal_mode=WAL")
                # WAL + NORMAL: a committed point survives the process being
                # killed (it is in the WAL); only a power loss can drop the last ones.
                self._db.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.Error as e:
                raise StoreError(f"cannot open store {str(self.root)!r}: {e}") from None
        try:
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            (found,) = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a bufsim results store ({e})") from None
        if int(found) != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema version {found}, this bufsim reads version {SCHEMA_VERSION}"
            )

    # ------------------------------------------------------------------ paths

    @property
    def path(self) -> str:
        """The SQLite file (``":memory:"`` for an in-memory store)."""
        return ":memory:" if self.root is None else str(self.root / "store.sqlite")

    def _ts_path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / "timeseries" / f"{key}.parquet"

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r}, points={len(self)})"

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    # ------------------------------------------------------------------ writing

    def put(
        self,
        *,
        key: str,
        name: str,
        engine: str,
        seed: int,
        scenario: Mapping[str, Any],
        params: Mapping[str, Any],
        status: str,
        summary: Mapping[str, Any] | None = None,
        error: str | None = None,
        wall_s: float | None = None,
        version: str,
        timeseries: bytes | None = None,
    ) -> None:
        """Store one finished point (replacing any row with the same key).

        ``timeseries`` is the time series as Parquet bytes; it is written to
        ``timeseries/<key>.parquet`` (temporary name, then rename) before the
        row is committed, so a row never points at a missing file.
        """
        if status not in ("ok", "failed"):
            raise ValueError(f"status must be 'ok' or 'failed', got {status!r}")
        if timeseries is not None:
            if self.root is None:
                self._memory_ts[key] = timeseries
            else:
                final = self._ts_path(key)
                tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
                tmp.write_bytes(timeseries)
                os.replace(tmp, final)
        row = (
            key, name, engine, int(seed), encode_json(scenario), encode_json(params),
            None if summary is None else encode_json(summary), status, error,
            None if wall_s is None else float(wall_s), version, int(timeseries is not None),
            datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        )
        self._db.execute(
            f"INSERT OR REPLACE INTO points ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
            row,
        )

    def delete(self, keys: Iterable[str]) -> int:
        """Remove points (and their time series); returns how many rows went."""
        keys = list(keys)
        n = 0
        for key in keys:
            n += self._db.execute("DELETE FROM points WHERE key = ?", (key,)).rowcount
            self._memory_ts.pop(key, None)
            if self.root is not None:
                self._ts_path(key).unlink(missing_ok=True)
        return n

    # ------------------------------------------------------------------ reading

    def get(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The stored rows of ``keys`` (missing keys are absent), JSON fields decoded."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, dict[str, Any]] = {}
        cur = self._db.cursor()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            cur.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM points WHERE key IN ({', '.join('?' * len(chunk))})", chunk
            )
            for row in cur.fetchall():
                rec = _decode(dict(zip(_COLUMNS, row)))
                out[rec["key"]] = rec
        return out

    def has_timeseries(self, key: str) -> bool:
        """Whether the time series of ``key`` is stored."""
        if self.root is None:
            return key in self._memory_ts
        return self._ts_path(key).is_file()

    def timeseries(self, key: str) -> pd.DataFrame:
        """The time series of one point (indexed by ``time_s``).

        Raises
        ------
        KeyError
            If the store holds no time series for ``key``.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.root is None:
            if key not in self._memory_ts:
                raise KeyError(f"no time series stored for point {key}")
            return pq.read_table(pa.BufferReader(self._memory_ts[key])).to_pandas()
        path = self._ts_path(key)
        if not path.is_file():
            raise KeyError(f"no time series stored for point {key} ({path} missing)")
        return pd.read_parquet(path)

    def records(self) -> list[dict[str, Any]]:
        """Every stored row, JSON fields decoded, oldest first."""
        cur = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM points ORDER BY finished, key")
        return [_decode(dict(zip(_COLUMNS, row))) for row in cur.fetchall()]

    def table(
        self,
        *,
        engine: str | None = None,
        status: str | None = None,
        name: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> pd.DataFrame:
        """The stored points as one tidy table, optionally filtered.

        Parameters
        ----------
        engine, status, name : str, optional
            Keep only rows with this engine, status (``ok``/``failed``) or
            scenario name.
        where : dict, optional
            Keep only rows whose sweep parameter ``path`` equals the value
            (``{"link.buffer": "20pkt"}``). A value given as a string also
            matches the stored value's string form (``"20"`` matches ``20``).

        Returns
        -------
        pandas.DataFrame
            One row per point: the parameter columns (dotted paths), ``engine``,
            ``seed``, ``status``, ``error``, the summary metrics, then ``name``,
            ``key``, ``wall_s``, ``version``, ``finished``.
        """
        recs = self.records()
        if engine is not None:
            recs = [r for r in recs if r["engine"] == engine]
        if status is not None:
            recs = [r for r in recs if r["status"] == status]
        if name is not None:
            recs = [r for r in recs if r["name"] == name]
        for path, value in (where or {}).items():
            recs = [r for r in recs if path in r["params"] and _matches(r["params"][path], value)]
        return records_table(recs)


def _matches(stored: Any, wanted: Any) -> bool:
    if stored == wanted:
        return True
    if isinstance(wanted, str):
        text = stored if isinstance(stored, str) else json.dumps(stored)
        return text == wanted
    return False


def _decode(rec: dict[str, Any]) -> dict[str, Any]:
    rec["scenario"] = json.loads(rec["scenario"])
    rec["params"] = json.loads(rec["params"])
    rec["summary"] = None if rec["summary"] is None else json.loads(rec["summary"])
    rec["timeseries"] = bool(rec["timeseries"])
    return rec


def records_table(
    recs: list[dict[str, Any]],
    *,
    params_order: list[str] | None = None,
    extra: Mapping[str, list[Any]] | None = None,
) -> pd.DataFrame:
    """Build the tidy table of a list of point records (one row each).

    Columns: parameters (in ``params_order``, then any others in order of
    appearance), ``engine``, ``seed``, ``status``, ``error``, the summary
    metrics (in order of first appearance), then ``name``, ``key``, ``wall_s``,
    any ``extra`` columns, and ``buffer_pkts`` / ``buffer_bytes`` (the
    buffer each row's scenario resolves to, packets and bytes) unless
    ``extra`` gives them.
    """
    param_cols: list[str] = list(params_order or [])
    metric_cols: list[str] = []
    seen_p, seen_m = set(param_cols), set()
    for r in recs:
        for p in r["params"]:
            if p not in seen_p:
                seen_p.add(p)
                param_cols.append(p)
        for m in r.get("summary") or {}:
            if m not in seen_m:
                seen_m.add(m)
                metric_cols.append(m)
    cols: dict[str, list[Any]] = {c: [] for c in param_cols}
    fixed = ["engine", "seed", "status", "error"]
    tail = ["name", "key", "wall_s"]
    for c in fixed:
        cols[c] = []
    for m in metric_cols:
        if m in cols:  # a metric named like a parameter path: keep both
            cols[f"summary.{m}"] = []
        else:
            cols[m] = []
    for c in tail:
        cols.setdefault(c, [])
    for r in recs:
        params = r["params"]
        for c in param_cols:
            cols[c].append(params.get(c, None))
        for c in fixed:
            cols[c].append(r.get(c))
        summary = r.get("summary") or {}
        for m in metric_cols:
            target = f"summary.{m}" if f"summary.{m}" in cols else m
            cols[target].append(summary.get(m, math.nan))
        for c in tail:
            cols[c].append(r.get(c))
    df = pd.DataFrame(cols)
    if "seed" in df:
        df["seed"] = df["seed"].astype("int64")
    for c, values in (extra or {}).items():
        df[c] = values
    if "buffer_pkts" not in df and recs:
        df["buffer_pkts"], df["buffer_bytes"] = zip(*(_buffer(r.get("scenario")) for r in recs))
    return df


def _buffer(raw: Any) -> tuple[float, float]:
    """The buffer (packets, bytes) a stored scenario resolves to (NaN if it does not load)."""
    from bufsim._core import ScenarioError
    from bufsim.scenario import Scenario

    try:
        link = Scenario(raw).normalized["link"]
    except ScenarioError:  # a row stored by another version whose scenario no longer loads
        return math.nan, math.nan
    return float(link["buffer_pkts"]), float(link["buffer_bytes"])
