"""Faults: killed drivers and workers, two drivers on one store, damaged
stores, a full disk. After each, a rerun gives the table an undisturbed run
gives, and no process is left behind."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import bufsim
import pytest
from bufsim.store import DamagedRowsWarning, Store, StoreError
from conftest import cli

# About a second of one core per point (0.4-1.3 s at 120 s simulated; at
# 40 s the sped-up packet engine ended the whole sweep before a kill landed),
# so that kills land midway.
BASE = {
    "duration": "120s",
    "warmup": "0.5s",
    "link": {"capacity": "2Gbps", "delay": "10ms", "buffer": "1000pkt"},
    "flows": [{"count": 20, "rtt": {"min": "30ms", "max": "90ms"}}],
}
GRID = {"link.buffer": ["200pkt", "500pkt", "1000pkt", "2000pkt"], "flows[0].count": [10, 20]}
METRICS = ["utilization", "goodput_bps", "drop_rate", "mean_queue_delay_s"]
# Milliseconds per point: for the store damage tests, where nothing is killed.
LIGHT = {
    **BASE,
    "duration": "3s",
    "link": {"capacity": "100Mbps", "delay": "10ms", "buffer": "100pkt"},
}

#: Seconds within which every child of a killed driver must be gone.
CHILDREN_GONE_S = 5.0


def _script(tmp: Path, store: Path, *, grid=None, seeds=(1,), hold: float = 0.0) -> Path:
    """A driver script running the sweep (under __main__, as multiprocessing needs)."""
    path = tmp / f"driver{random.randrange(10**9)}.py"
    path.write_text(
        textwrap.dedent(f"""
        import json, sys, time
        import bufsim
        if __name__ == "__main__":
            t = bufsim.sweep({BASE!r}, {grid or GRID!r}, seeds={list(seeds)!r}, workers=2,
                             store={str(store)!r}, progress=False)
            time.sleep({hold})
            print(json.dumps({{"ran": t.attrs["sweep"]["ran"], "rows": t[{METRICS!r}].values.tolist()}}))
    """)
    )
    return path


def _parents() -> dict[int, int]:
    """pid -> parent pid of every live process."""
    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if fields[0] != b"Z":
                    parents[int(d)] = int(fields[1])
            except OSError:
                continue
    return parents


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, their children...)."""
    parents = _parents()
    out, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - out
        out |= frontier
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                    alive.add(p)
        except OSError:
            pass
    return alive


def _reference(tmp_path_factory) -> list:
    store = tmp_path_factory.mktemp("ref") / "store"
    t = bufsim.sweep(BASE, GRID, workers=0, store=store, progress=False)
    return t[METRICS].values.tolist()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list:
    """The undisturbed sweep's metric rows."""
    return _reference(tmp_path_factory)


def _run_driver(script: Path, cwd: Path) -> dict:
    p = subprocess.run(
        [sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def _stored(store: Path) -> int:
    """How many points the store holds (0 before the driver creates it)."""
    if not (store / "store.sqlite").is_file():
        return 0
    with Store(store) as db:
        return len(db)


def _kill_driver_midway(tmp_path: Path, store: Path, delay: float, after: int = 0) -> None:
    """Start a driver, kill -9 it after ``delay`` s and once the store holds
    ``after`` points (on a busy machine the first point can take longer than
    any fixed delay); assert its children die."""
    proc = subprocess.Popen(
        [sys.executable, str(_script(tmp_path, store))],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children: set[int] = set()
    t_end = time.monotonic() + delay
    give_up = time.monotonic() + 300
    while time.monotonic() < t_end or (after and _stored(store) < after):
        assert time.monotonic() < give_up, f"no {after} points stored within 300 s"
        children |= _descendants(proc.pid)
        time.sleep(0.05)
    children |= _descendants(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + CHILDREN_GONE_S
    while _alive(children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(children), f"left behind after kill -9 of the driver: {_alive(children)}"


def test_driver_killed_leaves_no_process_and_resumes(tmp_path, reference):
    store = tmp_path / "store"
    _kill_driver_midway(tmp_path, store, delay=1.0, after=1)
    with Store(store) as db:
        done_before = len(db)
    assert 0 < done_before < len(reference), "the kill must land midway"
    out = _run_driver(_script(tmp_path, store), tmp_path)
    assert out["rows"] == reference
    assert out["ran"] == len(reference) - done_before


@pytest.mark.slow
def test_kills_at_random_points_20_times(tmp_path, reference):
    """20 times, on a fresh store: kill -9 the driver or one of its workers
    at a random moment; then no process is left and a rerun gives the
    undisturbed table."""
    rng = random.Random(7)
    for i in range(20):
        store = tmp_path / f"store{i}"
        if rng.random() < 0.5:
            _kill_driver_midway(tmp_path, store, delay=rng.uniform(1.0, 6.0))
        else:
            _kill_a_worker(tmp_path, store, settle=rng.uniform(0.2, 3.0))
        assert _run_driver(_script(tmp_path, store), tmp_path)["rows"] == reference


def _kill_a_worker(tmp_path: Path, store: Path, settle: float) -> None:
    """Run a driver, kill -9 one of its workers ``settle`` s after both started; the driver completes."""
    proc = subprocess.Popen(
        [sys.executable, str(_script(tmp_path, store))],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and proc.poll() is None:
        # The workers: grandchildren of the driver (driver -> forkserver -> worker).
        parents = _parents()
        kids = {c for c, p in parents.items() if p == proc.pid}
        workers = sorted(c for c, p in parents.items() if p in kids)
        if len(workers) >= 2:
            time.sleep(settle)
            killed = workers[-1]
            try:
                os.kill(killed, signal.SIGKILL)
            except ProcessLookupError:
                # It ended during the settle time (a worker that finished
                # its points): look again for one that runs.
                killed = None
        time.sleep(0.05)
    out, err = proc.communicate(timeout=600)
    assert killed is not None, "no worker seen"
    assert proc.returncode == 0, err


def test_worker_killed_point_is_rerun(tmp_path, reference):
    """kill -9 of a worker while it runs a point: the pool restarts, the
    point reruns, the table is the undisturbed one."""
    store = tmp_path / "store"
    _kill_a_worker(tmp_path, store, settle=1.5)
    out = _run_driver(_script(tmp_path, store), tmp_path)
    assert out["rows"] == reference
    assert out["ran"] == 0


def test_two_drivers_split_the_work(tmp_path, reference):
    """Two drivers started together on one store: each point runs once, and
    both return the whole table."""
    store = tmp_path / "store"
    scripts = [_script(tmp_path, store), _script(tmp_path, store)]
    procs = [
        subprocess.Popen(
            [sys.executable, str(s)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s in scripts
    ]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        outs.append(json.loads(out.strip().splitlines()[-1]))
    assert [o["rows"] for o in outs] == [reference, reference]
    assert sum(o["ran"] for o in outs) == len(reference), [o["ran"] for o in outs]


def _filled_store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    bufsim.sweep(LIGHT, GRID, workers=0, store=store, progress=False, timeseries=True)
    return store


@pytest.fixture(scope="module")
def light_reference(tmp_path_factory) -> list:
    """The undisturbed light sweep's metric rows."""
    t = bufsim.sweep(
        LIGHT, GRID, workers=0, store=tmp_path_factory.mktemp("light") / "s", progress=False
    )
    return t[METRICS].values.tolist()


def test_a_damaged_row_is_reported_and_recomputed(tmp_path, light_reference):
    reference = light_reference
    store = _filled_store(tmp_path)
    with sqlite3.connect(store / "store.sqlite") as db:
        (key,) = db.execute("SELECT key FROM points LIMIT 1").fetchone()
        db.execute("UPDATE points SET summary = '{not json' WHERE key = ?", (key,))
    with Store(store) as s:
        with pytest.warns(DamagedRowsWarning, match=key):
            table = s.table()
        assert len(table) == len(reference) - 1
        assert table.attrs["damaged"] == [key]
        assert any(key in line for line in s.check())
    p = cli("results", "--store", str(store), "--check", timeout=60)
    assert p.returncode == 1 and key in p.stderr and "Traceback" not in p.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamagedRowsWarning)
        t = bufsim.sweep(LIGHT, GRID, workers=0, store=store, progress=False)
    assert t.attrs["sweep"]["ran"] == 1
    assert t[METRICS].values.tolist() == reference
    with Store(store) as s:
        assert s.check() == []


def test_a_damaged_time_series_file_is_recomputed(tmp_path, light_reference):
    reference = light_reference
    store = _filled_store(tmp_path)
    victim = sorted((store / "timeseries").glob("*.parquet"))[0]
    victim.write_bytes(b"garbage" * 10)
    with Store(store) as s:
        with pytest.raises(StoreError, match=victim.stem):
            s.timeseries(victim.stem)
        assert any(victim.stem in line for line in s.check())
    t, ts = bufsim.sweep(LIGHT, GRID, workers=0, store=store, progress=False, timeseries=True)
    assert t.attrs["sweep"]["ran"] == 1
    assert t[METRICS].values.tolist() == reference
    assert victim.stem in set(ts["key"])


@pytest.mark.parametrize("damage", ["truncated", "garbage", "schema", "file"])
def test_a_damaged_database_is_a_clear_error(tmp_path, damage):
    store = _filled_store(tmp_path)
    db_file = store / "store.sqlite"
    if damage == "truncated":
        for extra in ("-wal", "-shm"):
            Path(str(db_file) + extra).unlink(missing_ok=True)
        db_file.write_bytes(db_file.read_bytes()[:1000])
    elif damage == "garbage":
        for extra in ("-wal", "-shm"):
            Path(str(db_file) + extra).unlink(missing_ok=True)
        db_file.write_bytes(os.urandom(8192))
    elif damage == "schema":
        with sqlite3.connect(db_file) as db:
            db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    else:
        import shutil

        shutil.rmtree(store)
        store.write_text("not a folder")
    spec = tmp_path / "spec.toml"
    (tmp_path / "base.json").write_text(json.dumps(LIGHT))
    spec.write_text('base = "base.json"\n[grid]\n"link.buffer" = ["20pkt"]\n')
    for args in (
        ["sweep", str(spec), "--store", str(store), "--workers", "0", "-q"],
        ["results", "--store", str(store)],
    ):
        p = cli(*args, cwd=tmp_path, timeout=120)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr, p.stderr
        assert str(store) in p.stderr, p.stderr


def test_a_full_disk_is_a_clear_error_and_loses_nothing(tmp_path, light_reference):
    reference = light_reference
    """Writes beyond a file-size limit (as a full disk) fail with a StoreError
    naming the path; the points stored before stay, and a rerun completes."""
    store = tmp_path / "store"
    script = tmp_path / "full.py"
    script.write_text(
        textwrap.dedent(f"""
        import resource, signal, sys
        import bufsim
        if __name__ == "__main__":
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            from bufsim.store import Store
            Store({str(store)!r}).close()
            resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))
            try:
                bufsim.sweep({LIGHT!r}, {GRID!r}, workers=0, store={str(store)!r}, progress=False, timeseries=True)
            except bufsim.StoreError as e:
                print("StoreError:", e)
                sys.exit(2)
    """)
    )
    p = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "StoreError:" in p.stdout and str(store) in p.stdout
    assert "Traceback" not in p.stderr
    t = bufsim.sweep(LIGHT, GRID, workers=0, store=store, progress=False, timeseries=True)[0]
    assert t[METRICS].values.tolist() == reference
    with Store(store) as s:
        assert s.check() == []
