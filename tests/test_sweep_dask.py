"""Sweeps on a real Dask cluster give the local pool's table, point for point.

Two clusters: an in-process ``LocalCluster`` (worker processes, fixture), and
``dask scheduler`` plus two ``dask worker`` processes started as commands, as
a user would. Everything binds to 127.0.0.1 and is stopped at teardown.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import bufsim
import pandas as pd
import pytest
from conftest import SWEEP_BASE, stable

distributed = pytest.importorskip("distributed")

BASE = dict(SWEEP_BASE, name="dask-test")
GRID = {"link.buffer": ["10pkt", "20pkt", "40pkt"]}
ZIP = [{"flows[0].count": [1, 3], "flows[0].rtt": ["40ms", "80ms"]}]
SEEDS = [1, 2]
ENGINES = ["packet", "model:avrachenkov"]


@pytest.fixture(scope="module")
def local_table() -> pd.DataFrame:
    """The sweep on the local process pool (2 workers)."""
    return bufsim.sweep(BASE, GRID, ENGINES, SEEDS, zip=ZIP, workers=2, store=None, progress=False)


@pytest.fixture(scope="module")
def local_cluster():
    """A Dask LocalCluster of two single-threaded worker processes on 127.0.0.1."""
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    try:
        yield cluster
    finally:
        cluster.close(timeout=30)


@pytest.mark.timeout(120)
def test_local_cluster_equals_local_pool(local_cluster, local_table, tmp_path):
    t = bufsim.sweep(
        BASE,
        GRID,
        ENGINES,
        SEEDS,
        zip=ZIP,
        scheduler=local_cluster.scheduler_address,
        store=tmp_path / "s",
        progress=False,
    )
    assert t.attrs["sweep"]["executor"].startswith("Dask scheduler tcp://127.0.0.1:")
    # 3 buffers x 2 zipped x (2 packet seeds + 1 model row: a model is deterministic).
    assert t.attrs["sweep"]["ran"] == len(t) == 18
    pd.testing.assert_frame_equal(stable(t), stable(local_table), check_exact=True)
    # Rerun on the cluster: everything comes from the store.
    again = bufsim.sweep(
        BASE,
        GRID,
        ENGINES,
        SEEDS,
        zip=ZIP,
        scheduler=local_cluster.scheduler_address,
        store=tmp_path / "s",
        progress=False,
    )
    assert again.attrs["sweep"]["ran"] == 0 and again["cached"].all()


@pytest.mark.timeout(60)
def test_executor_argument_takes_a_dask_executor(local_cluster, local_table):
    from distributed import Client

    with Client(local_cluster.scheduler_address, set_as_default=False) as client:
        t = bufsim.sweep(
            BASE,
            GRID,
            ENGINES,
            SEEDS,
            zip=ZIP,
            executor=client.get_executor(),
            store=None,
            progress=False,
        )
        assert client.status == "running"  # a given executor is not shut down
    pd.testing.assert_frame_equal(stable(t), stable(local_table), check_exact=True)


def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules["bufsim.sweep.executors"], "DASK_CONNECT_TIMEOUT_S", 2.0)
    port = _free_port()
    with pytest.raises(
        bufsim.SweepSpecError,
        match=f"cannot connect to the Dask scheduler at 'tcp://127.0.0.1:{port}'",
    ):
        bufsim.sweep(
            BASE, GRID, scheduler=f"tcp://127.0.0.1:{port}", store=tmp_path / "s", progress=False
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 15
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


@pytest.mark.timeout(150)
def test_dask_scheduler_and_two_worker_commands(local_table, tmp_path):
    dask = Path(sys.executable).with_name("dask")
    assert dask.is_file(), f"{dask} missing (pip install 'bufsim[dask]')"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = dict(
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp_path
    )
    procs: list[subprocess.Popen] = []
    try:
        procs.append(
            subprocess.Popen(
                [
                    str(dask),
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--no-dashboard",
                ],
                **common,
            )
        )
        for i in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(dask),
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                        "--memory-limit",
                        "0",
                        "--name",
                        f"w{i}",
                        "--local-directory",
                        str(tmp_path),
                    ],
                    **common,
                )
            )
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:  # the scheduler takes a moment to listen
            try:
                client = Client(address, timeout="5s", set_as_default=False)
                break
            except OSError:
                assert all(p.poll() is None for p in procs), "a dask process exited early"
                assert time.monotonic() < deadline, "the dask scheduler did not come up"
                time.sleep(0.5)
        with client:
            client.wait_for_workers(2, timeout=60)
            assert len(client.scheduler_info()["workers"]) == 2
        # Through the environment variable, as `bufsim sweep` reads it.
        os.environ["DASK_SCHEDULER_ADDRESS"] = address
        try:
            t = bufsim.sweep(
                BASE, GRID, ENGINES, SEEDS, zip=ZIP, store=tmp_path / "s", progress=False
            )
        finally:
            del os.environ["DASK_SCHEDULER_ADDRESS"]
        assert t.attrs["sweep"]["executor"] == f"Dask scheduler {address}"
        pd.testing.assert_frame_equal(stable(t), stable(local_table), check_exact=True)
        # Both workers took part.
        with Client(address, timeout="10s", set_as_default=False) as client:
            counts = client.run(lambda dask_worker: dask_worker.state.executed_count)
        assert len(counts) == 2 and all(n > 0 for n in counts.values()), counts
    finally:
        _stop(procs)
        for p in procs:
            if p.stderr:
                p.stderr.close()
    assert all(p.poll() is not None for p in procs)
