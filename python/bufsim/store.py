"""The results store: every finished sweep point, keyed by what produced it.

A store is a directory (``results/`` by default) holding

* ``store.sqlite`` -- an SQLite database in WAL mode (readers work alongside
  the writer), one row per point in table ``points``:

  ========== ==========================================================
  key        SHA-256 of (scenario hash, engine, seed, bufsim build)
  name       the scenario's name
  engine     ``packet``, ``fluid`` or ``model:<name>``
  seed       the scenario seed of this run
  scenario   the raw scenario (JSON, unit strings as written)
  params     the sweep parameters of the point (JSON ``{path: value}``)
  summary    the result's summary metrics (JSON; ``NULL`` when failed)
  status     ``ok`` or ``failed``
  error      why it failed (``NULL`` when ok)
  wall_s     wall-clock seconds the run took (in the worker)
  version    the bufsim build that produced it (``version+hash of the
             engine's sources``, :func:`build_id`)
  timeseries 1 if ``timeseries/<key>.parquet`` holds its time series
  finished   UTC time the driver stored it (ISO 8601)
  ========== ==========================================================

  and table ``claims`` (key, owner, expires): the points a driver is running
  now (:meth:`Store.claim`), so that drivers sharing a store split the work;
  table ``sweeps`` (sweep, key): which named sweeps (a spec's ``name``,
  ``run`` for ``bufsim run``) hold which points; a point serves every sweep
  that has it.

* ``timeseries/<key>.parquet`` -- the run's time series (indexed by ``time_s``).

* ``results/<key>/`` -- the whole :class:`~bufsim.result.Result` of a point
  run with ``keep="result"`` (:func:`bufsim.sweep.run_each`: per-flow table,
  congestion events, time series, provenance), as :meth:`Result.save
  <bufsim.result.Result.save>` writes it; :meth:`Store.result` reads it back.

What a run keeps is one of :data:`KEEP`, each level holding the one before:
a point stored with less than a sweep asks for is run again.

A point is written as one transaction right after its time series file is in
place (written to a temporary name, then renamed), so a killed process leaves
either the whole point or none of it. Writing a key again replaces its row:
the store never holds two rows for one key.

Damage (a disk error, a file edited by hand) stays local: a row whose JSON no
longer decodes, or a time series file that no longer reads, is reported (a
:class:`DamagedRowsWarning` naming the keys; ``table.attrs["damaged"]``) and
left out, and a sweep treats it as missing, so it is recomputed and
overwritten; the rest of the store stays usable. :meth:`Store.check` (``bufsim
results --check``) runs SQLite's integrity check and reads every row and time
series file. Every failure to open or read the store is a :class:`StoreError`
naming the file.

Example
-------
>>> from bufsim.store import Store
>>> store = Store("results")                      # doctest: +SKIP
>>> store.table(engine="packet", status="ok")     # doctest: +SKIP
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import socket
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from bufsim._core import BufsimError
from bufsim.result import RESULT_FILES, Result, ResultError

__all__ = ["Store", "StoreError", "DamagedRowsWarning", "point_key", "KEEP"]

SCHEMA_VERSION = 1

#: What the store keeps of a run, least first: its summary (always), also
#: its time series, also its whole result (every table of
#: :class:`~bufsim.result.Result`).
KEEP = ("summary", "timeseries", "result")

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
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sweeps (sweep TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (sweep, key));
"""

_COLUMNS = (
    "key",
    "name",
    "engine",
    "seed",
    "scenario",
    "params",
    "summary",
    "status",
    "error",
    "wall_s",
    "version",
    "timeseries",
    "finished",
)


#: How long (s) a store operation waits for another process's lock before failing.
_BUSY_TIMEOUT_S = 60.0


def _retry_locked(step):
    """Run ``step()``, again while SQLite answers "database is locked", for up to
    :data:`_BUSY_TIMEOUT_S` seconds.

    Opening a new store from several processes at once (two sweep drivers, a
    driver and its workers) races on switching the file to WAL and creating
    the tables. SQLite returns SQLITE_BUSY there at once, without waiting on its
    busy timeout, where waiting could deadlock (https://sqlite.org/c3ref/busy_handler.html);
    the step is idempotent, so it is simply run again after a short pause.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    pause = 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(2 * pause, 0.25)


class StoreError(BufsimError, RuntimeError):
    """The store cannot be opened or read (the message says which file and why)."""


class DamagedRowsWarning(UserWarning):
    """Rows of the store that no longer decode were left out (the message gives their keys)."""


def _sqlite_errors(method):
    """Turn SQLite's errors inside a store method into a :class:`StoreError` naming the file."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as e:
            raise StoreError(
                f"{self.path}: {e} (the database is damaged: `bufsim results --check` tells what; "
                "move the store aside and rerun to recompute)"
            ) from None
        except OSError as e:
            raise StoreError(f"{self.root}: {e.strerror or e}") from None

    return wrapper


def _write_whole(dst: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` fill a temporary file beside ``dst``, then rename it
    to ``dst``, so ``dst`` is whole or absent."""
    tmp = dst.with_name(f"{dst.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy folder ``src`` to ``dst`` (replacing it) through a temporary name,
    as :meth:`Result.save <bufsim.result.Result.save>` writes one."""
    tmp = dst.parent / f".{dst.name}.tmp-{os.getpid()}"
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(src, tmp)
        shutil.rmtree(dst, ignore_errors=True)
        os.replace(tmp, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_id(engine: str = "packet") -> str:
    """The build that produces ``engine``'s results. Stored results are keyed
    on it, so a rebuilt engine never reuses another build's results.

    It is the engine's :meth:`~bufsim.engines.Engine.build`: for ``"ns3"``
    ``version+ns3-<ns-3 version>-<hash>`` (:func:`bufsim.ns3.build`: the
    driver and its scenario mapping), so a change to the Rust engines keeps
    the (costly) ns-3 runs; for ``"ns2"`` likewise
    ``version+ns2-<ns-2 version>-<hash>`` (:func:`bufsim.ns2.build`: the
    OTcl writer and parser); for the others (and the analytic models)
    ``version+hash`` of the Rust engine's sources (``bufsim._core.__build__``).
    """
    from bufsim import _core
    from bufsim.engines import ENGINES

    if engine in ENGINES:
        return ENGINES[engine].build()
    return f"{_core.__version__}+{_core.__build__}"


def claim_owner() -> str:
    """This process's name as a claim owner: ``host:pid:nonce``."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(4).hex()}"


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host runs (a zombie, killed but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _owner_alive(owner: str) -> bool:
    """Whether a claim's owner may still run: a process of another host is
    assumed alive (its lease expires), one of this host is checked."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    return process_alive(int(pid))


def point_key(scenario_hash: str, engine: str, seed: int, version: str) -> str:
    """The key of one run: SHA-256 of (scenario hash, engine, seed, bufsim build :func:`build_id`)."""
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
        self._memory_results: dict[str, Result] = {}
        #: Keys of the damaged rows the last read left out.
        self.damaged: list[str] = []
        if self.root is None:
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        else:
            if self.root.exists() and not self.root.is_dir():
                raise StoreError(f"store {str(self.root)!r} exists and is not a directory")
            try:
                (self.root / "timeseries").mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(
                    f"cannot create store {str(self.root)!r}: {e.strerror or e}"
                ) from None
            try:
                self._db = sqlite3.connect(
                    self.root / "store.sqlite",
                    timeout=_BUSY_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
            except sqlite3.Error as e:
                raise StoreError(f"cannot open store {str(self.root)!r}: {e}") from None
        try:
            found = _retry_locked(self._initialize)
        except sqlite3.OperationalError as e:
            raise StoreError(f"cannot open store {self.path!r}: {e}") from None
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a bufsim results store ({e})") from None
        if str(found) != str(SCHEMA_VERSION):
            raise StoreError(
                f"{self.path}: store schema version {found}, this bufsim reads version {SCHEMA_VERSION}"
            )

    def _initialize(self) -> str:
        """Set the journal mode, create the tables if missing; return the schema version found."""
        if self.root is not None:
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a committed point survives the process being
            # killed (it is in the WAL); only a power loss can drop the last ones.
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        (found,) = self._db.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()
        return str(found)

    # ------------------------------------------------------------------ paths

    @property
    def path(self) -> str:
        """The SQLite file (``":memory:"`` for an in-memory store)."""
        return ":memory:" if self.root is None else str(self.root / "store.sqlite")

    def _ts_path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / "timeseries" / f"{key}.parquet"

    def _result_path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / "results" / key

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r}, points={len(self)})"

    @_sqlite_errors
    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    # ------------------------------------------------------------------ writing

    @_sqlite_errors
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
        result: Result | None = None,
    ) -> None:
        """Store one finished point (replacing any row with the same key).

        ``timeseries`` is the time series as Parquet bytes; it is written to
        ``timeseries/<key>.parquet`` (temporary name, then rename) before the
        row is committed, so a row never points at a missing file. ``result``,
        the whole result, is written the same way to ``results/<key>/``.
        """
        if status not in ("ok", "failed"):
            raise ValueError(f"status must be 'ok' or 'failed', got {status!r}")
        if result is not None:
            if self.root is None:
                self._memory_results[key] = result
            else:
                result.save(self._result_path(key))
        if timeseries is not None:
            if self.root is None:
                self._memory_ts[key] = timeseries
            else:
                _write_whole(self._ts_path(key), lambda tmp: tmp.write_bytes(timeseries))
        row = (
            key,
            name,
            engine,
            int(seed),
            encode_json(scenario),
            encode_json(params),
            None if summary is None else encode_json(summary),
            status,
            error,
            None if wall_s is None else float(wall_s),
            version,
            int(timeseries is not None),
            datetime.now(UTC).isoformat(timespec="microseconds"),
        )
        with self._transaction():
            self._db.execute(
                f"INSERT OR REPLACE INTO points ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                row,
            )
            self._db.execute("DELETE FROM claims WHERE key = ?", (key,))

    # ------------------------------------------------------------------ claims

    def _transaction(self):
        """``with store._transaction():`` one write transaction (BEGIN IMMEDIATE ... COMMIT)."""
        import contextlib

        @contextlib.contextmanager
        def tx():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

        return tx()

    @_sqlite_errors
    def claim(self, key: str, owner: str, lease_s: float, *, keep: str = "summary") -> str:
        """Claim point ``key`` for ``owner`` for ``lease_s`` seconds.

        Two drivers (processes, hosts, Dask clients) sharing a store split a
        sweep this way: each claims a point before running it. Returns
        ``"mine"`` (claimed: run it), ``"done"`` (a row is stored, with what
        ``keep`` (one of :data:`KEEP`) asks for readable: read it) or
        ``"taken"`` (another live owner holds it). A claim whose lease
        expired, or whose owner is a process of this host that is gone, is
        taken over.
        """
        if self.root is None:
            return "mine"
        now = time.time()
        with self._transaction():
            row = self._db.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM points WHERE key = ? AND status = 'ok'", (key,)
            ).fetchone()
            if row is not None and self._decoded([row]) and self.holds(key, keep):
                return "done"  # (a damaged row, time series or result is run again)
            row = self._db.execute(
                "SELECT owner, expires FROM claims WHERE key = ?", (key,)
            ).fetchone()
            if row is not None and row[0] != owner and row[1] > now and _owner_alive(row[0]):
                return "taken"
            self._db.execute(
                "INSERT OR REPLACE INTO claims (key, owner, expires) VALUES (?, ?, ?)",
                (key, owner, now + lease_s),
            )
        return "mine"

    @_sqlite_errors
    def renew(self, keys: Iterable[str], owner: str, lease_s: float) -> None:
        """Extend ``owner``'s claims on ``keys`` by ``lease_s`` seconds from now."""
        if self.root is None:
            return
        expires = time.time() + lease_s
        with self._transaction():
            self._db.executemany(
                "UPDATE claims SET expires = ? WHERE key = ? AND owner = ?",
                [(expires, k, owner) for k in keys],
            )

    @_sqlite_errors
    def tag(self, sweep: str, keys: Iterable[str]) -> None:
        """Record that sweep ``sweep`` holds the points ``keys``."""
        with self._transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO sweeps (sweep, key) VALUES (?, ?)",
                [(sweep, k) for k in keys],
            )

    @_sqlite_errors
    def sweeps(self) -> dict[str, int]:
        """The named sweeps and how many points each holds."""
        return dict(
            self._db.execute(
                "SELECT sweep, COUNT(*) FROM sweeps GROUP BY sweep ORDER BY sweep"
            ).fetchall()
        )

    @_sqlite_errors
    def release(self, owner: str) -> None:
        """Drop every claim of ``owner`` (a driver that stops early)."""
        if self.root is not None:
            self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))

    @_sqlite_errors
    def delete(self, keys: Iterable[str]) -> int:
        """Remove points (and their time series); returns how many rows went."""
        keys = list(keys)
        n = 0
        for key in keys:
            n += self._db.execute("DELETE FROM points WHERE key = ?", (key,)).rowcount
            self._memory_ts.pop(key, None)
            self._memory_results.pop(key, None)
            if self.root is not None:
                self._ts_path(key).unlink(missing_ok=True)
                shutil.rmtree(self._result_path(key), ignore_errors=True)
        return n

    @_sqlite_errors
    def merge(self, other: Store) -> int:
        """Copy into this store every point of ``other`` it lacks: its row
        (as stored, its ``finished`` time kept), its time series and whole
        result files, and the sweeps naming it; return how many were copied.

        A key names the scenario, engine, seed and build that produced a
        point (:func:`point_key`), so a point of a key this store holds is
        the same run and is left as it is, and a copied point is reused
        only by the build that produced it. Each point's files are in place
        before its row is committed, as :meth:`put` writes them, so an
        interrupted merge leaves whole points. Rows of ``other`` that no
        longer decode are left out (a :class:`DamagedRowsWarning` names
        them), and a file of ``other`` that no longer reads is not copied
        (a sweep then runs the point again).

        Raises
        ------
        StoreError
            Either store kept in memory (``Store(None)``): merging copies files.
        """
        if self.root is None or other.root is None:
            raise StoreError("merge: both stores must be directories, not Store(None)")
        have = {k for (k,) in self._db.execute("SELECT key FROM points")}
        rows = other._db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM points ORDER BY finished, key"
        ).fetchall()
        wanted = [r for r in rows if r[0] not in have]
        good = {rec["key"] for rec in other._decoded(wanted)}
        copied = 0
        for row in wanted:
            key = row[0]
            if key not in good:
                continue
            if other.has_result(key):
                _copy_tree(other._result_path(key), self._result_path(key))
            has_ts = other.has_timeseries(key)
            if has_ts:
                copy = functools.partial(shutil.copyfile, other._ts_path(key))
                _write_whole(self._ts_path(key), copy)
            row = (*row[: _COLUMNS.index("timeseries")], int(has_ts), row[-1])
            sweeps = other._db.execute("SELECT sweep FROM sweeps WHERE key = ?", (key,))
            with self._transaction():
                self._db.execute(
                    f"INSERT INTO points ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                    row,
                )
                self._db.executemany(
                    "INSERT OR IGNORE INTO sweeps (sweep, key) VALUES (?, ?)",
                    [(sweep, key) for (sweep,) in sweeps.fetchall()],
                )
            copied += 1
        return copied

    # ------------------------------------------------------------------ reading

    @_sqlite_errors
    def get(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The stored rows of ``keys`` (missing keys are absent), JSON fields
        decoded; damaged rows are absent too (a :class:`DamagedRowsWarning`
        names them)."""
        keys = list(dict.fromkeys(keys))
        rows = []
        cur = self._db.cursor()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            cur.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM points WHERE key IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            rows += cur.fetchall()
        return {rec["key"]: rec for rec in self._decoded(rows)}

    def _decoded(self, rows: list[tuple]) -> list[dict[str, Any]]:
        """Decode rows; warn about and leave out those that no longer decode."""
        good, damaged = [], []
        for row in rows:
            try:
                good.append(_decode(dict(zip(_COLUMNS, row))))
            except (ValueError, TypeError, KeyError):
                damaged.append(str(row[0]))
        self.damaged = damaged
        if damaged:
            warnings.warn(
                f"{self.path}: {len(damaged)} damaged row(s) left out (a sweep recomputes them): "
                + ", ".join(damaged[:5])
                + (" ..." if len(damaged) > 5 else ""),
                DamagedRowsWarning,
                stacklevel=3,
            )
        return good

    def has_timeseries(self, key: str) -> bool:
        """Whether the time series of ``key`` is stored and readable (its Parquet footer reads)."""
        if self.root is None:
            return key in self._memory_ts
        path = self._ts_path(key)
        if not path.is_file():
            return False
        import pyarrow.parquet as pq

        try:
            pq.read_metadata(path)
        except Exception:  # ArrowInvalid, OSError: a damaged file counts as missing
            return False
        return True

    def holds(self, key: str, keep: str) -> bool:
        """Whether the store holds what ``keep`` (one of :data:`KEEP`) asks
        for of point ``key``, readable, beyond its row: for ``summary`` a
        readable time series file if there is one, its time series, or its
        whole result."""
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {', '.join(KEEP)}, got {keep!r}")
        if keep == "timeseries":
            return self.has_timeseries(key)
        if keep == "result":
            return self.has_result(key)
        # A damaged time series file counts as not held: the point runs
        # again and replaces it, rather than leave it for a reader to trip on.
        if self.root is not None and self._ts_path(key).is_file():
            return self.has_timeseries(key)
        return True

    def has_result(self, key: str) -> bool:
        """Whether the whole result of ``key`` is stored and readable: every
        file of it is there, and every Parquet footer reads (as
        :meth:`has_timeseries` checks a time series; the tables themselves
        are read once, by :meth:`result`)."""
        if self.root is None:
            return key in self._memory_results
        import pyarrow.parquet as pq

        path = self._result_path(key)
        if not all((path / f).is_file() for f in RESULT_FILES):
            return False
        try:
            for f in path.glob("*.parquet"):
                pq.read_metadata(f)
        except Exception:  # ArrowInvalid, OSError: a damaged file counts as missing
            return False
        return True

    def result(self, key: str) -> Result:
        """The whole result of one point stored with ``keep="result"``.

        Raises
        ------
        KeyError
            If the store holds no result for ``key``.
        StoreError
            If it holds a damaged one (rerunning the point replaces it).
        """
        if self.root is None:
            if key not in self._memory_results:
                raise KeyError(f"no result stored for point {key}")
            return self._memory_results[key]
        path = self._result_path(key)
        if not path.is_dir():
            raise KeyError(f"no result stored for point {key} ({path} missing)")
        try:
            return Result.load(path)
        except ResultError as e:
            raise StoreError(f"the result of point {key} is damaged ({e}); run it again") from None

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
        try:
            return pd.read_parquet(path)
        except Exception as e:  # ArrowInvalid, OSError
            raise StoreError(
                f"{path}: the time series of point {key} is damaged ({e}); rerun the sweep to recompute it"
            ) from None

    @_sqlite_errors
    def records(self) -> list[dict[str, Any]]:
        """Every stored row, JSON fields decoded, oldest first (damaged rows
        left out with a :class:`DamagedRowsWarning`)."""
        cur = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM points ORDER BY finished, key")
        return self._decoded(cur.fetchall())

    def check(self) -> list[str]:
        """What is wrong with the store, one line per problem (empty: sound).

        Runs SQLite's ``PRAGMA integrity_check``, decodes every row and reads
        the footer of every time series file the rows point at.
        """
        import pyarrow.parquet as pq

        problems: list[str] = []
        try:
            verdict = [r[0] for r in self._db.execute("PRAGMA integrity_check").fetchall()]
            if verdict != ["ok"]:
                problems += [f"SQLite integrity check: {v}" for v in verdict]
            rows = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM points").fetchall()
        except sqlite3.DatabaseError as e:
            return problems + [f"{self.path}: {e}"]
        for row in rows:
            rec = dict(zip(_COLUMNS, row))
            try:
                _decode(dict(rec))
            except (ValueError, TypeError, KeyError) as e:
                problems.append(f"row {rec['key']}: does not decode ({e})")
                continue
            if rec["timeseries"] and self.root is not None:
                path = self._ts_path(str(rec["key"]))
                try:
                    pq.read_metadata(path)
                except Exception as e:
                    problems.append(f"row {rec['key']}: time series {path}: {e}")
        return problems

    def table(
        self,
        *,
        engine: str | None = None,
        status: str | None = None,
        name: str | None = None,
        sweep: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> pd.DataFrame:
        """The stored points as one tidy table, optionally filtered.

        Parameters
        ----------
        engine, status, name : str, optional
            Keep only rows with this engine, status (``ok``/``failed``) or
            scenario name.
        sweep : str, optional
            Keep only the points of the sweep of this name (a spec's
            ``name``; ``run`` for ``bufsim run``).
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
        damaged = list(self.damaged)
        if engine is not None:
            recs = [r for r in recs if r["engine"] == engine]
        if status is not None:
            recs = [r for r in recs if r["status"] == status]
        if name is not None:
            recs = [r for r in recs if r["name"] == name]
        if sweep is not None:
            keys = {
                k for (k,) in self._db.execute("SELECT key FROM sweeps WHERE sweep = ?", (sweep,))
            }
            recs = [r for r in recs if r["key"] in keys]
        for path, value in (where or {}).items():
            recs = [r for r in recs if path in r["params"] and _matches(r["params"][path], value)]
        table = records_table(recs)
        table.attrs["damaged"] = damaged
        return table


def _matches(stored: Any, wanted: Any) -> bool:
    if stored == wanted:
        return True
    if isinstance(wanted, str):
        text = stored if isinstance(stored, str) else json.dumps(stored)
        return text == wanted
    return False


def _decode(rec: dict[str, Any]) -> dict[str, Any]:
    """A stored row with its JSON fields decoded (ValueError/TypeError if damaged)."""
    rec["scenario"] = json.loads(rec["scenario"])
    rec["params"] = json.loads(rec["params"])
    rec["summary"] = None if rec["summary"] is None else json.loads(rec["summary"])
    if not isinstance(rec["scenario"], dict) or not isinstance(rec["params"], dict):
        raise TypeError("scenario and params must be JSON objects")
    if rec["summary"] is not None and not isinstance(rec["summary"], dict):
        raise TypeError("summary must be a JSON object")
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
    buffer each row's scenario resolves to, packets and bytes), ``bdp_pkts``
    (its bandwidth-delay product, packets) and ``flow_mix`` (its flow
    groups in words) unless ``extra`` gives them.
    """
    param_cols, metric_cols = _record_columns(recs, params_order)
    cols = _empty_columns(param_cols, metric_cols)
    for r in recs:
        _append_record(cols, r, param_cols, metric_cols)
    df = pd.DataFrame(cols)
    if "seed" in df:
        df["seed"] = df["seed"].astype("int64")
    for c, values in (extra or {}).items():
        df[c] = values
    if "buffer_pkts" not in df and recs:
        cols4 = ("buffer_pkts", "buffer_bytes", "bdp_pkts", "flow_mix")
        for c, values in zip(cols4, zip(*(_buffer(r.get("scenario")) for r in recs))):
            df[c] = values
    return df


#: The record fields between the parameters and the metrics, and after the metrics.
_FIXED_COLS = ("engine", "seed", "status", "error")
_TAIL_COLS = ("name", "key", "wall_s")


def _record_columns(
    recs: list[dict[str, Any]], params_order: list[str] | None
) -> tuple[list[str], list[str]]:
    """The parameter and the metric names of the records.

    Each in order of first appearance, the parameters after ``params_order``.
    """
    # A parameter named like a fixed column (a grid over ``seed``) is that
    # column: the run's seed is the scenario's.
    param_cols: list[str] = [p for p in params_order or [] if p not in _FIXED_COLS]
    metric_cols: list[str] = []
    seen_p, seen_m = set(param_cols) | set(_FIXED_COLS), set()
    for r in recs:
        for p in r["params"]:
            if p not in seen_p:
                seen_p.add(p)
                param_cols.append(p)
        for m in r.get("summary") or {}:
            if m not in seen_m:
                seen_m.add(m)
                metric_cols.append(m)
    return param_cols, metric_cols


def _empty_columns(param_cols: list[str], metric_cols: list[str]) -> dict[str, list[Any]]:
    """The table's columns, empty and in order.

    A metric named like a parameter path becomes ``summary.<name>`` (both are kept).
    """
    cols: dict[str, list[Any]] = {c: [] for c in param_cols}
    for c in _FIXED_COLS:
        cols[c] = []
    for m in metric_cols:
        if m in cols:  # a metric named like a parameter path: keep both
            cols[f"summary.{m}"] = []
        else:
            cols[m] = []
    for c in _TAIL_COLS:
        cols.setdefault(c, [])
    return cols


def _append_record(
    cols: dict[str, list[Any]], r: Mapping[str, Any], param_cols: list[str], metric_cols: list[str]
) -> None:
    """Append one record's row to ``cols`` (None for a missing parameter, NaN for a metric)."""
    params = r["params"]
    for c in param_cols:
        cols[c].append(params.get(c, None))
    for c in _FIXED_COLS:
        cols[c].append(r.get(c))
    summary = r.get("summary") or {}
    for m in metric_cols:
        target = f"summary.{m}" if f"summary.{m}" in cols else m
        cols[target].append(summary.get(m, math.nan))
    for c in _TAIL_COLS:
        cols[c].append(r.get(c))


def _buffer(raw: Any) -> tuple[float, float, float, str]:
    """The buffer (packets, bytes), the BDP (packets) and the flow groups in
    words a stored scenario resolves to (NaN and "" if it does not load)."""
    from bufsim._core import ScenarioError
    from bufsim.scenario import Scenario, flow_mix

    try:
        norm = Scenario(raw).normalized
    except ScenarioError:  # a row stored by another version whose scenario no longer loads
        return math.nan, math.nan, math.nan, ""
    link = norm["link"]
    return (
        float(link["buffer_pkts"]),
        float(link["buffer_bytes"]),
        float(link["bdp_pkts"]),
        flow_mix(norm["flows"]),
    )
