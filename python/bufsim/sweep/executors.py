"""Executors of a sweep: the local process pool, a Dask cluster, claims and leases.

:class:`Runner` wraps the executor the points go to (a local
``ProcessPoolExecutor`` whose workers watch their driver, in-process runs for
``workers=0``, a Dask client's executor, or one the caller gives) and restarts
a local pool whose worker died. :func:`execute` claims each point in the
store before submitting it, renews the claims while points run, leaves points
another driver holds to it, and reruns alone the points a dead worker held.

The tunables below are read from this module when they are used: set them
here (``bufsim.sweep.executors.LEASE_S``), not on :mod:`bufsim.sweep`.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import multiprocessing
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bufsim.store import Store, process_alive
from bufsim.sweep.spec import Point, SweepSpecError
from bufsim.sweep.worker import failure, run_point


def default_workers() -> int:
    """Number of usable CPU cores (the default worker count).

    Returns
    -------
    int
        The cores this process may run on (at least 1).
    """
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


#: What a worker process reads when the main script calls bufsim again
#: while the worker imports it (a script without a main guard).
MAIN_GUARD = (
    "bufsim runs points in worker processes, which import the main script again, and "
    "this script called bufsim while they imported it: call bufsim.sweep() (or advise, "
    'run_each) under `if __name__ == "__main__":`, or pass workers=0 to run in this '
    "process (a Python multiprocessing rule)"
)

#: The environment variable that names the file a worker creates when it
#: meets :data:`MAIN_GUARD`, so that the driver says why its pool broke.
_GUARD_FILE_ENV = "BUFSIM_MAIN_GUARD_FILE"


def refuse_in_worker_import() -> None:
    """Raise :data:`MAIN_GUARD` in a worker process that is importing the
    main script (``multiprocessing``'s ``_inheriting``), leaving the file
    the driver looks for; nothing elsewhere.

    Raises
    ------
    RuntimeError
        In such a worker.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        if path := os.environ.get(_GUARD_FILE_ENV):
            with open(path, "w"):
                pass
        raise RuntimeError(MAIN_GUARD)


def _guard_file() -> str:
    return os.path.join(tempfile.gettempdir(), f"bufsim-main-guard-{os.getpid()}")


def _main_guard_tripped() -> bool:
    """Whether a worker of this driver met :data:`MAIN_GUARD` (once)."""
    try:
        os.remove(_guard_file())
        return True
    except FileNotFoundError:
        return False


def _pool(workers: int) -> cf.ProcessPoolExecutor:
    """A local pool whose workers exit when this process dies.

    Raises
    ------
    RuntimeError
        The main script was read from standard input: worker processes
        cannot import it again.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and getattr(main, "__spec__", None) is None and not os.path.exists(path):
        raise RuntimeError(
            f"bufsim runs points in worker processes, which import the main script again, and "
            f"this one was read from {path}: save it as a file (calling bufsim under "
            '`if __name__ == "__main__":`), or pass workers=0 to run in this process'
        )
    # Before the forkserver starts: its workers inherit the variable.
    os.environ[_GUARD_FILE_ENV] = _guard_file()
    return cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_mp_context(),
        initializer=_watch_driver,
        initargs=(os.getpid(),),
    )


#: What the worker processes' environment sets, unless the driver's does:
#: one OpenBLAS thread. Importing numpy starts OpenBLAS's thread pool, whose
#: threads spin for a while after they start: CPU time every worker pays
#: once, for linear algebra that simulations never do.
WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def _mp_context() -> multiprocessing.context.BaseContext:
    # Not fork: the Rust extension and threads are loaded in the driver.
    if sys.platform.startswith("linux"):
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["bufsim.sweep"])
        _start_forkserver()
        return ctx
    return multiprocessing.get_context("spawn")


def _start_forkserver() -> None:
    """Start the forkserver the workers fork from (one per driver process,
    kept running) with :data:`WORKER_ENV` in its environment, which its
    preloaded imports and every worker inherit; the driver's own
    environment is left as it was."""
    from multiprocessing import forkserver

    added = {k: v for k, v in WORKER_ENV.items() if k not in os.environ}
    os.environ.update(added)
    try:
        forkserver.ensure_running()
    finally:
        for k in added:
            del os.environ[k]


def check_scheduler_address(address: Any) -> None:
    """Refuse what is not a Dask scheduler address at once (not after a connect timeout).

    Parameters
    ----------
    address : str
        Allowed: ``tcp://host:port`` (also ``tls``, ``ws``, ``wss``, ``ucx``,
        ``inproc`` schemes) or ``host:port``.

    Raises
    ------
    SweepSpecError
        ``address`` is not of that form.
    """
    if not isinstance(address, str) or not re.fullmatch(
        r"(?:(?:tcp|tls|ws|wss|ucx)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}|inproc://\S+", address.strip()
    ):
        raise SweepSpecError(
            f"scheduler {address!r}: not a Dask scheduler address; write tcp://host:port (e.g. tcp://127.0.0.1:8786)"
        )


#: Seconds to wait for a Dask scheduler to answer before giving up.
DASK_CONNECT_TIMEOUT_S = 20.0


class Runner:
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
    def local(cls, workers: int) -> Runner:
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
    def dask(cls, address: str) -> Runner:
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

    @classmethod
    def pick(
        cls, executor: cf.Executor | None, scheduler: str | None, workers: int | None
    ) -> Runner:
        """The given executor (not shut down), else the Dask scheduler's, else a local pool.

        A local pool has ``workers`` processes (default: :func:`default_workers`).
        """
        if executor is not None:
            return cls(executor, window=None, owned=False, label=type(executor).__name__)
        if scheduler:
            return cls.dask(scheduler)
        return cls.local(default_workers() if workers is None else workers)

    def submit(self, point: Point, keep: str = "summary") -> cf.Future:
        return self.executor.submit(run_point, point.raw, point.engine, keep)

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


#: Seconds a driver's claim on a point lasts without renewal (it renews a
#: third of the way; a claim of a dead process of this host lapses at once).
LEASE_S = 60.0
#: Seconds between looks at the store for points another driver runs.
POLL_S = 0.5


def execute(
    todo: list[Point], runner: Runner, db: Store, owner: str, keep: str
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
    yield from _Execution(todo, runner, db, owner, keep).run()


#: What :meth:`_Execution._outcome` returns for a point to rerun alone.
_RERUN: Any = object()


class _Execution:
    """The state of one :func:`execute`: where each point to run is.

    A point is in ``queue`` (not yet claimed), ``pending`` (submitted, by
    future), ``elsewhere`` (claimed by another driver, by key) or
    ``suspects`` (held by a worker that died: rerun one at a time, its index
    then in ``alone``).
    """

    def __init__(self, todo: list[Point], runner: Runner, db: Store, owner: str, keep: str):
        self.runner = runner
        self.db = db
        self.owner = owner
        self.keep = keep
        self.queue = collections.deque(todo)
        self.suspects: collections.deque[Point] = collections.deque()
        self.elsewhere: dict[str, Point] = {}  # run by another driver
        self.alone: set[int] = set()  # indices of points rerun alone after a worker died
        self.pending: dict[cf.Future, Point] = {}
        self.window = runner.window or len(todo)
        self.completed = 0
        self.deaths_alone = 0
        self.renewed = time.monotonic()

    def run(self) -> Iterable[tuple[Point, dict[str, Any] | None]]:
        """Yield (point, outcome) or (point, None) until no point is left."""
        yield from self._fill()
        while self.pending or self.queue or self.elsewhere:
            if not self.pending:
                yield from self._finished_elsewhere()
                yield from self._fill()
                if not self.pending and self.elsewhere:
                    time.sleep(POLL_S)
                continue
            finished = self._wait()
            if finished:
                yield from self._collect(finished)

    def _submit(self, p: Point) -> None:
        try:
            fut = self.runner.submit(p, self.keep)
        except RuntimeError as e:  # a broken executor we may not restart
            fut = cf.Future()
            fut.set_exception(e)
        except OSError as e:
            # A worker died while the pool started another (the forkserver's
            # socket closed under it): the pool is broken.
            fut = cf.Future()
            fut.set_exception(BrokenProcessPool(f"{type(e).__name__}: {e}"))
        self.pending[fut] = p

    def _claim_more(self) -> list[Point]:
        """Submit what the window allows; return the points found done elsewhere."""
        done_elsewhere = []
        if self.suspects:
            if not self.pending:
                p = self.suspects.popleft()
                self.alone.add(p.index)
                self._submit(p)
            return done_elsewhere
        while self.queue and len(self.pending) < self.window:
            p = self.queue.popleft()
            state = self.db.claim(p.key, self.owner, LEASE_S, keep=self.keep)
            if state == "mine":
                self._submit(p)
            elif state == "done":
                done_elsewhere.append(p)
            else:
                self.elsewhere[p.key] = p
        return done_elsewhere

    def _fill(self) -> Iterable[tuple[Point, None]]:
        """Submit what the window allows, then yield the points found done elsewhere."""
        for p in self._claim_more():
            yield p, None

    def _finished_elsewhere(self) -> Iterable[tuple[Point, None]]:
        """Points another driver stored; those it abandoned go back in the queue."""
        if not self.elsewhere:
            return
        stored = self.db.get(self.elsewhere)
        for key in list(self.elsewhere):
            if key in stored:
                yield self.elsewhere.pop(key), None
        if not self.pending and not self.queue:
            for key in list(self.elsewhere):
                state = self.db.claim(key, self.owner, LEASE_S, keep=self.keep)
                if state != "taken":
                    self.queue.append(self.elsewhere.pop(key))

    def _wait(self) -> set[cf.Future]:
        """The futures done within a third of a lease; renews the claims when due."""
        finished, _ = cf.wait(
            list(self.pending), timeout=LEASE_S / 3, return_when=cf.FIRST_COMPLETED
        )
        if time.monotonic() - self.renewed > LEASE_S / 3:
            self.db.renew((p.key for p in self.pending.values()), self.owner, LEASE_S)
            self.renewed = time.monotonic()
        return finished

    def _collect(self, finished: set[cf.Future]) -> Iterable[tuple[Point, dict[str, Any] | None]]:
        """Yield the finished points' outcomes (in point order), then refill.

        When the local pool broke, every pending point is collected, the pool
        restarted, and the points it held queued as suspects.
        """
        pool_broke = any(
            isinstance(f.exception(), BrokenProcessPool) for f in finished if not f.cancelled()
        )
        if pool_broke:
            # Every other pending call of a broken pool fails too; some may
            # have finished just before: collect them all now.
            finished, _ = cf.wait(list(self.pending))
        rerun: list[Point] = []
        for fut in sorted(finished, key=lambda f: self.pending[f].index):
            point = self.pending.pop(fut)
            out = self._outcome(fut, point)
            if out is _RERUN:
                rerun.append(point)
                continue
            self.alone.discard(point.index)
            self.completed += 1
            yield point, out
        if pool_broke and self.runner.can_restart():
            self.runner.restart()
            self.suspects.extend(rerun)
        yield from self._finished_elsewhere()
        yield from self._fill()

    def _outcome(self, fut: cf.Future, point: Point) -> dict[str, Any]:
        """The outcome of a finished future, or :data:`_RERUN` for a point to rerun alone."""
        try:
            return fut.result()
        except (BrokenProcessPool, cf.CancelledError) as e:
            if _main_guard_tripped():
                raise RuntimeError(MAIN_GUARD) from None
            if point.index in self.alone or not self.runner.can_restart():
                return self._died(point, e)
            return _RERUN
        except Exception as e:  # executor-level failure (Dask KilledWorker, pickling, ...)
            return failure(f"{type(e).__name__}: {e}")

    def _died(self, point: Point, e: BaseException) -> dict[str, Any]:
        """The failure of a point whose worker died, one we cannot or need not rerun.

        Raises
        ------
        RuntimeError
            When a second point run alone killed its worker before any point
            finished: the workers cannot run (a script without a main guard
            is told so earlier, by :data:`MAIN_GUARD`; this is any other
            cause, such as a worker that cannot import bufsim or runs out of
            memory at once).
        """
        self.deaths_alone += point.index in self.alone
        if self.deaths_alone >= 2 and self.completed == 0:
            raise RuntimeError(
                "worker processes die before finishing any point (see their error output above); "
                "workers=0 runs the points in this process, where the error shows"
            ) from e
        return failure(f"worker process died while running this point ({type(e).__name__}: {e})")
