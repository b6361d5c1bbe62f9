"""Sweeps: grid expansion, bad specs, determinism across executors, the store as a cache,
failed points, a killed worker and a killed driver (kill -9), time series, the CLI."""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import bufsim
import pandas as pd
import pytest
from bufsim.store import Store
from bufsim.sweep import SweepSpecError, expand, load_spec
from conftest import SWEEP_BASE as BASE
from conftest import cli, default_sigint, stable

GRID = {"link.buffer": ["10pkt", "40pkt"]}
ZIP = [{"flows[0].count": [1, 3], "flows[0].rtt": ["40ms", "80ms"]}]
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    """The sweep run point by point in this process, with no store."""
    return bufsim.sweep(BASE, GRID, seeds=SEEDS, zip=ZIP, workers=0, store=None, progress=False)


# ----------------------------------------------------------------------------- expansion


def test_expand_orders_product_zip_engines_seeds():
    points = expand(BASE, GRID, ["packet", "model:avrachenkov"], SEEDS, zip=ZIP)
    # 2 buffers x 2 zipped x (2 packet seeds + 1 model point: a model is
    # deterministic, it runs once per combination with the first seed).
    assert len(points) == 2 * 2 * 3
    assert [p.index for p in points] == list(range(12))
    first = points[0]
    assert first.params == {"link.buffer": "10pkt", "flows[0].count": 1, "flows[0].rtt": "40ms"}
    assert (first.engine, first.seed) == ("packet", 1)
    assert [(p.engine, p.seed) for p in points[:4]] == [
        ("packet", 1),
        ("packet", 2),
        ("model:avrachenkov", 1),
        ("packet", 1),
    ]
    # Zipped lists advance together; the first product axis is the slowest.
    assert points[3].params == {"link.buffer": "10pkt", "flows[0].count": 3, "flows[0].rtt": "80ms"}
    assert points[6].params["link.buffer"] == "40pkt"
    # The values land in the scenario; the seed too.
    assert points[4].raw["flows"][0]["count"] == 3 and points[4].raw["seed"] == 2
    assert points[4].raw["link"]["buffer"] == "10pkt"
    # Keys differ for every (scenario, engine, seed) and are stable.
    assert len({p.key for p in points}) == 12
    assert [p.key for p in expand(BASE, GRID, ["packet", "model:avrachenkov"], SEEDS, zip=ZIP)] == [
        p.key for p in points
    ]
    # The base is not modified.
    assert BASE["link"]["buffer"] == "20pkt"


def test_expand_sets_optional_field_absent_from_base():
    points = expand(BASE, {"flows[0].loss": [0.0, 0.01]})
    assert [p.raw["flows"][0]["loss"] for p in points] == [0.0, 0.01]


def test_without_seeds_uses_the_base_seed():
    points = expand(dict(BASE, seed=7), GRID)
    assert [p.seed for p in points] == [7, 7]


def test_a_grid_over_the_seed_is_the_seed_column():
    # A grid over `seed` used to crash the table (two values per row for one
    # column); the seed parameter is the run's seed, one column.
    t = bufsim.sweep(dict(BASE, duration="1s"), grid={"seed": [3, 4]}, store=None, workers=1)
    assert t["seed"].tolist() == [3, 4]
    assert list(t.columns).count("seed") == 1
    assert t["utilization"].between(0, 1).all()


@pytest.mark.parametrize(
    "kwargs, needles",
    [
        ({"grid": {"link.bufer": ["10pkt"]}}, ["link.bufer", "unknown field `bufer`"]),
        ({"grid": {"linkk.buffer": ["10pkt"]}}, ["linkk", "unknown field"]),
        ({"grid": {"flows[3].count": [1]}}, ["flows[3].count", "index 3 out of range"]),
        ({"grid": {"link.buffer.size": [1]}}, ["link.buffer.size", "not a table"]),
        ({"grid": {"flows..count": [1]}}, ["flows..count", "cannot read"]),
        ({"grid": {}}, ["grid is empty"]),
        ({"grid": {"link.buffer": []}}, ["link.buffer", "empty"]),
        ({"grid": {"link.buffer": "20pkt"}}, ["link.buffer", "must be a list"]),
        ({"grid": ["link.buffer"]}, ["grid must be a table"]),
        ({"grid": {"flows[0].count": [1, "two"]}}, ["flows[0].count='two'", "invalid type"]),
        (
            {"grid": {"link.buffer": ["20pkt", "20xx"]}},
            ["link.buffer='20xx'", "invalid buffer size"],
        ),
        ({"grid": {"link.capacity": ["10Mbps", 10]}}, ["link.capacity=10", "link.capacity"]),
        (
            {"grid": GRID, "zip": [{"flows[0].count": [1, 2], "flows[0].rtt": ["40ms"]}]},
            ["zip[0]", "equal lengths"],
        ),
        ({"grid": GRID, "zip": [{"link.buffer": ["1pkt"]}]}, ["link.buffer", "more than one axis"]),
        ({"grid": {"link": [{}], "link.buffer": ["1pkt"]}}, ["overlap"]),
        ({"grid": GRID, "engines": ["pakcet"]}, ["pakcet", "allowed are"]),
        ({"grid": GRID, "engines": ["model:nope"]}, ["model:nope", "unknown model"]),
        ({"grid": GRID, "seeds": [1, 1.5]}, ["seeds", "1.5"]),
        ({"grid": GRID, "seeds": []}, ["seeds", "empty"]),
        ({"grid": {"seed": [1, 2]}, "seeds": [3]}, ["seed", "seeds="]),
    ],
)
def test_bad_specs_fail_before_anything_runs(tmp_path, kwargs, needles):
    store = tmp_path / "store"
    with pytest.raises(SweepSpecError) as info:
        bufsim.sweep(BASE, store=store, workers=1, progress=False, **kwargs)
    message = str(info.value)
    for needle in needles:
        assert needle in message, message
    assert not store.exists(), "nothing may run (or be stored) for a bad spec"


def test_bad_base_scenario_is_a_spec_error():
    with pytest.raises(SweepSpecError, match=r"base scenario: link.buffer"):
        expand(dict(BASE, link={"capacity": "10Mbps", "delay": "10ms", "buffer": "lots"}), GRID)


# ----------------------------------------------------------------------------- running


def test_table_shape_and_values(reference):
    t = reference
    assert len(t) == 2 * 2 * 2
    assert list(t.columns[:6]) == [
        "link.buffer",
        "flows[0].count",
        "flows[0].rtt",
        "engine",
        "seed",
        "status",
    ]
    assert (t["status"] == "ok").all() and t["error"].isna().all()
    assert t["utilization"].between(0.3, 1.0).all()
    # Each row is exactly what simulate() gives for that point.
    row = t.iloc[5]
    scn = copy.deepcopy(BASE)
    scn["link"]["buffer"], scn["flows"][0]["count"], scn["flows"][0]["rtt"], scn["seed"] = (
        row["link.buffer"],
        int(row["flows[0].count"]),
        row["flows[0].rtt"],
        int(row["seed"]),
    )
    direct = bufsim.simulate(scn)
    for metric, value in direct.summary.items():
        assert row[metric] == value, metric
    # The seed matters (the scenario is random), the buffer too.
    by_seed = t.groupby("seed")["packets_sent"].apply(tuple)
    assert by_seed[1] != by_seed[2]
    assert t.attrs["sweep"]["points"] == 8 and t.attrs["sweep"]["failed"] == 0


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [1, 2])
def test_same_table_whatever_the_worker_count(tmp_path, reference, workers):
    t = bufsim.sweep(
        BASE, GRID, seeds=SEEDS, zip=ZIP, workers=workers, store=tmp_path / "s", progress=False
    )
    pd.testing.assert_frame_equal(stable(t), stable(reference), check_exact=True)
    assert t.attrs["sweep"]["ran"] == 8


@pytest.mark.timeout(120)
def test_rerun_reuses_stored_points(tmp_path, reference):
    store = tmp_path / "s"
    first = bufsim.sweep(BASE, GRID, seeds=SEEDS, zip=ZIP, workers=2, store=store, progress=False)
    with Store(store) as db:
        stamps = {r["key"]: r["finished"] for r in db.records()}
    assert len(stamps) == 8
    # A larger sweep holding the first: only the new points run.
    bigger = {"link.buffer": ["10pkt", "40pkt", "80pkt"]}
    second = bufsim.sweep(
        BASE, bigger, seeds=SEEDS, zip=ZIP, workers=2, store=store, progress=False
    )
    assert second.attrs["sweep"]["ran"] == 4 and second.attrs["sweep"]["cached"] == 8
    assert second["cached"].sum() == 8
    with Store(store) as db:
        assert len(db) == 12
        for r in db.records():
            if r["key"] in stamps:
                assert r["finished"] == stamps[r["key"]], "a stored point was recomputed"
    reused = second[second["link.buffer"] != "80pkt"]
    pd.testing.assert_frame_equal(stable(reused), stable(first), check_exact=True)
    third = bufsim.sweep(BASE, GRID, seeds=SEEDS, zip=ZIP, workers=2, store=store, progress=False)
    assert third.attrs["sweep"]["ran"] == 0 and third["cached"].all()
    pd.testing.assert_frame_equal(stable(third), stable(reference), check_exact=True)


def test_failing_points_are_recorded_and_do_not_stop_the_sweep(tmp_path):
    # The Avrachenkov model refuses background traffic above the capacity;
    # the packet engine runs those points.
    grid = {"background[0].rate": ["2Mbps", "12Mbps"]}
    store = tmp_path / "s"
    t = bufsim.sweep(
        BASE, grid, engines=["packet", "model:avrachenkov"], workers=0, store=store, progress=False
    )
    assert list(t["status"]) == ["ok", "ok", "ok", "failed"]
    bad = t.iloc[3]
    assert bad["engine"] == "model:avrachenkov" and "capacity" in bad["error"]
    assert bad["error"].startswith("ModelInputError: ")
    assert pd.isna(bad["utilization"])
    info = t.attrs["sweep"]
    assert info["failed"] == 1 and list(info["errors"].values()) == [1]
    with Store(store) as db:
        failed = db.table(status="failed")
        assert len(failed) == 1 and failed["error"].iloc[0] == bad["error"]
    # A rerun retries failed points only (they fail again), or keeps them.
    again = bufsim.sweep(
        BASE, grid, engines=["packet", "model:avrachenkov"], workers=0, store=store, progress=False
    )
    assert again.attrs["sweep"]["ran"] == 1
    kept = bufsim.sweep(
        BASE,
        grid,
        engines=["packet", "model:avrachenkov"],
        workers=0,
        store=store,
        progress=False,
        retry_failed=False,
    )
    assert kept.attrs["sweep"]["ran"] == 0 and kept["status"].tolist() == t["status"].tolist()


def test_progress_callback_and_timeseries(tmp_path):
    seen = []
    t, ts = bufsim.sweep(
        BASE, GRID, workers=0, store=tmp_path / "s", timeseries=True, progress=seen.append
    )
    assert (
        [s["done"] for s in seen] == [1, 2] and seen[-1]["total"] == 2 and seen[-1]["failed"] == 0
    )
    assert list(ts.columns[:5]) == ["key", "link.buffer", "engine", "seed", "time_s"]
    assert set(ts["key"]) == set(t["key"])
    # 3 s sampled every 100 ms, per point; equal to the direct run's time series.
    one = (
        ts[ts["link.buffer"] == "40pkt"]
        .set_index("time_s")
        .drop(columns=["key", "link.buffer", "engine", "seed"])
    )
    direct = bufsim.simulate(dict(BASE, link=dict(BASE["link"], buffer="40pkt"))).timeseries
    pd.testing.assert_frame_equal(one, direct, check_exact=True)
    # Cached points give their time series too.
    t2, ts2 = bufsim.sweep(
        BASE, GRID, workers=0, store=tmp_path / "s", timeseries=True, progress=False
    )
    assert t2["cached"].all()
    pd.testing.assert_frame_equal(ts2, ts, check_exact=True)


def _kill_a_worker_once(state: dict) -> None:
    if state["done"] == 3:
        workers = [
            p
            for p in multiprocessing.active_children()
            if "Fork" in type(p).__name__ or "Spawn" in type(p).__name__
        ]
        assert workers, "no worker process to kill"
        os.kill(workers[0].pid, signal.SIGKILL)


@pytest.mark.timeout(120)
def test_a_killed_worker_loses_only_its_point(tmp_path):
    grid = {"link.buffer": ["5pkt", "10pkt", "20pkt", "40pkt", "80pkt"], "flows[0].count": [1, 2]}
    ref = bufsim.sweep(BASE, grid, workers=0, store=None, progress=False)
    t = bufsim.sweep(BASE, grid, workers=2, store=tmp_path / "s", progress=_kill_a_worker_once)
    assert (t["status"] == "ok").all(), t["error"].dropna().tolist()
    pd.testing.assert_frame_equal(stable(t), stable(ref), check_exact=True)
    with Store(tmp_path / "s") as db:
        assert len(db) == 10


# ----------------------------------------------------------------------------- kill -9 of the driver

DRIVER = textwrap.dedent(
    """
    import json, sys
    import bufsim
    if __name__ == "__main__":
        base, grid, store = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
        bufsim.sweep(base, grid, seeds=[1, 2], workers=1, store=store, progress=False)
    """
)
# About 40 ms per point: long enough to kill the driver halfway.
SLOW = dict(
    BASE,
    duration="20s",
    link={"capacity": "100Mbps", "delay": "10ms", "buffer": "50pkt"},
    flows=[{"count": 8, "rtt": "40ms", "mss": "1000B", "start": {"uniform": ["0s", "1s"]}}],
    background=[{"kind": "poisson", "rate": "10Mbps", "packet_size": "1000B"}],
)
SLOW_GRID = {
    "link.buffer": [f"{b}pkt" for b in (10, 20, 30, 40, 50, 60, 80, 100, 150, 200)],
    "flows[0].count": [4, 8],
}


def _stored(store: Path) -> int:
    db = store / "store.sqlite"
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM points").fetchone()[0]
    except sqlite3.OperationalError:  # table not created yet
        return 0


@pytest.mark.timeout(180)
def test_kill_9_of_the_driver_then_rerun_resumes(tmp_path):
    store = tmp_path / "s"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    total = 2 * len(SLOW_GRID["link.buffer"]) * len(SLOW_GRID["flows[0].count"])  # 40 points
    proc = subprocess.Popen(
        [sys.executable, str(script), json.dumps(SLOW), json.dumps(SLOW_GRID), str(store)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while _stored(store) < total // 3:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the driver stored too few points in time"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its pool workers, if still alive
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        proc.stderr.close()
    with Store(store) as db:
        before = {r["key"]: r["finished"] for r in db.records()}
    assert total // 3 <= len(before) < total, "the kill should land halfway"

    resumed = bufsim.sweep(SLOW, SLOW_GRID, seeds=[1, 2], workers=2, store=store, progress=False)
    info = resumed.attrs["sweep"]
    assert info["cached"] == len(before) and info["ran"] == total - len(before)
    assert set(resumed.loc[resumed["cached"], "key"]) == set(before)
    with Store(store) as db:
        after = {r["key"]: r["finished"] for r in db.records()}
    assert len(after) == total, "no point lost or duplicated"
    assert all(after[k] == v for k, v in before.items()), (
        "a point finished before the kill was recomputed"
    )

    uninterrupted = bufsim.sweep(
        SLOW, SLOW_GRID, seeds=[1, 2], workers=0, store=None, progress=False
    )
    pd.testing.assert_frame_equal(stable(resumed), stable(uninterrupted), check_exact=True)


# ----------------------------------------------------------------------------- spec files and the CLI

SPEC = """
name = "cli-sweep"
engines = ["packet"]
seeds = [1, 2]

[base]
name = "spec-base"
duration = "3s"
seed = 1
[base.link]
capacity = "10Mbps"
delay = "10ms"
buffer = "20pkt"
[[base.flows]]
count = 2
rtt = "40ms"
mss = "1000B"
start = { uniform = ["0s", "1s"] }

[grid]
"link.buffer" = ["10pkt", "40pkt"]

[[zip]]
"flows[0].count" = [1, 3]
"flows[0].rtt" = ["40ms", "80ms"]
"""


def test_load_spec_with_base_file_and_inline(tmp_path):
    (tmp_path / "scn.json").write_text(json.dumps(BASE))
    (tmp_path / "a.toml").write_text(
        'base = "scn.json"\nseeds = [3]\n[grid]\n"link.buffer" = ["10pkt"]\n'
    )
    spec = load_spec(tmp_path / "a.toml")
    assert spec.base == BASE and spec.engines == ["packet"] and spec.seeds == [3]
    points = spec.expand()
    assert len(points) == 1 and points[0].raw["seed"] == 3
    (tmp_path / "b.toml").write_text(SPEC)
    assert len(load_spec(tmp_path / "b.toml").expand()) == 8


@pytest.mark.parametrize(
    "text, needle",
    [
        ('base = "missing.toml"\n[grid]\n"link.buffer" = ["1pkt"]\n', "does not exist"),
        ('[grid]\n"link.buffer" = ["1pkt"]\n', "'base' is missing"),
        ('base = "scn.json"\ngird = {}\n', "unknown key 'gird'"),
        ('base = "scn.json"\n[grid]\n', "grid is empty"),
        (
            'base = "scn.json"\n[grid]\n"link.buffer" = ["1pkt", "2 parcels"]\n',
            "link.buffer='2 parcels'",
        ),
        ('base = "scn.json"\n[grid]\n"flows[0].cnt" = [1]\n', "flows[0].cnt"),
        ('base = "scn.json"\n[grid = \n', "cannot parse"),
    ],
)
def test_bad_spec_files(tmp_path, text, needle):
    (tmp_path / "scn.json").write_text(json.dumps(BASE))
    (tmp_path / "spec.toml").write_text(text)
    with pytest.raises(SweepSpecError) as info:
        load_spec(tmp_path / "spec.toml")
    assert needle in str(info.value) and "spec.toml" in str(info.value)


@pytest.mark.timeout(180)
def test_cli_sweep_resume_and_results(tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC)
    r = cli(
        "sweep",
        "spec.toml",
        "--workers",
        "2",
        "--store",
        "st",
        "--out",
        "table.csv",
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "8 points: 8 ran, 0 reused" in r.stdout and "0 failed" in r.stdout
    table = pd.read_csv(tmp_path / "table.csv")
    assert len(table) == 8 and (table["status"] == "ok").all()
    api = bufsim.sweep(
        load_spec(tmp_path / "spec.toml").base,
        {"link.buffer": ["10pkt", "40pkt"]},
        seeds=[1, 2],
        zip=ZIP,
        workers=0,
        store=None,
        progress=False,
    )
    assert table["utilization"].tolist() == api["utilization"].tolist()

    r = cli("sweep", "spec.toml", "--store", "st", "--quiet", cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and "8 points: 0 ran, 8 reused" in r.stdout, r.stdout + r.stderr
    r = cli("sweep", "spec.toml", "--store", "st", "--dry-run", cwd=tmp_path, timeout=120)
    assert "8 points (8 already in st, 0 to run)" in r.stdout

    r = cli(
        "results",
        "--store",
        "st",
        "--where",
        "link.buffer=10pkt",
        "--where",
        "flows[0].count=3",
        "--export",
        "sel.parquet",
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    sel = pd.read_parquet(tmp_path / "sel.parquet")
    assert len(sel) == 2 and set(sel["seed"]) == {1, 2} and (sel["link.buffer"] == "10pkt").all()
    r = cli("results", "--store", "st", "--export", "all.csv", cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and len(pd.read_csv(tmp_path / "all.csv")) == 8
    r = cli("results", "--store", "st", "--status", "ok", cwd=tmp_path, timeout=120)
    assert r.returncode == 0 and "8 points (0 failed)" in r.stdout


def test_cli_errors(tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC.replace('"10pkt", "40pkt"', '"10pkt", "40 parcels"'))
    r = cli("sweep", "spec.toml", "--store", "st", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "link.buffer='40 parcels'" in r.stderr
    assert not (tmp_path / "st").exists()
    r = cli("results", "--store", "nowhere", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "no results store" in r.stderr
    r = cli("results", "--store", "nowhere", "--status", "maybe", cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "--status" in r.stderr


@pytest.mark.timeout(120)
def test_cli_ctrl_c_keeps_finished_points(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        "seeds = [1, 2]\n[base]\n"
        + "\n".join(
            f"{k} = {json.dumps(v)}" for k, v in SLOW.items() if not isinstance(v, (dict, list))
        )
        + f"\nlink = {_toml_inline(SLOW['link'])}\nflows = [{_toml_inline(SLOW['flows'][0])}]\n"
        + f"background = [{_toml_inline(SLOW['background'][0])}]\n"
        + '[grid]\n"link.buffer" = '
        + json.dumps(SLOW_GRID["link.buffer"])
        + "\n"
        + '"flows[0].count" = '
        + json.dumps(SLOW_GRID["flows[0].count"])
        + "\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bufsim.cli", "sweep", str(spec), "--store", "st", "--workers", "1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,  # as a terminal's Ctrl-C finds it (test_cli)
    )
    try:
        deadline = time.monotonic() + 90
        while _stored(tmp_path / "st") < 5:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err
    n = _stored(tmp_path / "st")
    assert 5 <= n < 40
    r = cli(
        "sweep", str(spec), "--store", "st", "--workers", "2", "--quiet", cwd=tmp_path, timeout=120
    )
    assert r.returncode == 0 and f"40 points: {40 - n} ran, {n} reused" in r.stdout, (
        r.stdout + r.stderr
    )


def _toml_inline(d: dict) -> str:
    parts = []
    for k, v in d.items():
        parts.append(f"{k} = {_toml_inline(v) if isinstance(v, dict) else json.dumps(v)}")
    return "{ " + ", ".join(parts) + " }"


def test_workers_run_with_one_openblas_thread_and_the_driver_keeps_its_env():
    from bufsim.sweep import executors

    before = os.environ.get("OPENBLAS_NUM_THREADS")
    runner = executors.Runner.local(1)
    try:
        got = runner.executor.submit(os.getenv, "OPENBLAS_NUM_THREADS").result(timeout=120)
    finally:
        runner.close()
    assert got == (before if before is not None else "1")
    assert os.environ.get("OPENBLAS_NUM_THREADS") == before


# ----------------------------------------------------------------------------- scripts without a main guard

UNGUARDED = textwrap.dedent(
    """
    import json, sys
    import bufsim
    base, grid = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    bufsim.sweep(base, grid, workers=2, store=None, progress=False)
    """
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("from_stdin", [False, True])
def test_a_script_without_a_main_guard_is_told_how_to_fix_it(tmp_path, from_stdin):
    # Worker processes import the main script again; without
    # `if __name__ == "__main__":` its sweep call runs in them. The driver
    # says so, and how to fix it, instead of a BrokenProcessPool per point;
    # a script read from standard input cannot be imported at all.
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    args = [json.dumps(BASE), json.dumps({"link.buffer": ["5pkt", "10pkt"]})]
    cmd = [sys.executable, "-", *args] if from_stdin else [sys.executable, str(script), *args]
    p = subprocess.run(
        cmd,
        input=UNGUARDED if from_stdin else None,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=110,
    )
    assert p.returncode != 0
    # The workers print the same error's traceback to the stderr they
    # share with the driver, and under load a worker's lines can follow
    # the driver's: the last exception line is the one that tells.
    raised = [line for line in p.stderr.splitlines() if re.match(r"[\w.]+(Error|Pool): ", line)]
    last = raised[-1]
    assert last.startswith("RuntimeError: bufsim runs points in worker processes"), p.stderr
    assert 'if __name__ == "__main__":' in last and "workers=0" in last
    assert ("<stdin>" in last) == from_stdin
    assert "BrokenProcessPool" not in last


def test_the_shipped_research_sweep_runs_from_the_cli(tmp_path):
    # `bufsim sweep --example variants`: four variants x six buffers x three
    # seeds on paper 000's link, the table written with --out.
    spec = bufsim.examples.spec("variants")
    assert bufsim.examples.specs() == ["variants"]
    assert "four TCP variants" in bufsim.examples.describe("variants")
    p = cli(
        "sweep",
        "--example",
        "variants",
        "--workers",
        "2",
        "--out",
        "t.csv",
        "-q",
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    t = pd.read_csv(tmp_path / "t.csv")
    assert len(t) == 72 and (t["status"] == "ok").all()
    u = t.groupby(["flows[0].tcp", "buffer_pkts"])["utilization"].mean().unstack()
    assert sorted(u.index) == ["bbr", "cubic", "highspeed", "newreno"]
    # Loss-based variants fill the link better with a BDP of buffer (625
    # packets) than with 5 packets: paper 000's range of regimes.
    for v in ("newreno", "cubic", "highspeed"):
        assert u.loc[v, 625.0] > u.loc[v, 5.0] + 0.05, u
    # Copied next to one's work, it runs the same from the file.
    copied = bufsim.examples.copy("variants", tmp_path)
    assert copied.read_text() == spec.read_text()
    p = cli("sweep", str(copied), "--dry-run", "--store", "results", cwd=tmp_path, timeout=120)
    assert p.returncode == 0 and "72 points (72 already in results" in p.stdout, p.stdout
    # Neither or both of a file and --example, or an unknown name: refused.
    for args, said in (
        ((), "give a sweep spec file or --example NAME"),
        (("x.toml", "--example", "variants"), "give a sweep spec file or --example NAME"),
        (("--example", "nope"), "sweep example 'nope': unknown; the sweep examples are variants"),
    ):
        p = cli("sweep", *args, cwd=tmp_path, timeout=120)
        assert p.returncode == 2 and said in " ".join(p.stderr.split()), p.stderr


def test_two_drivers_on_one_store_read_each_others_points_as_cached(tmp_path):
    # Two sweeps of the same grid at once on one store split the points by
    # claims; a point the other driver ran is read from the store, and it
    # counts as reused (cached=True) in the table of the driver that read it:
    # each point ran once, and exactly one of the two tables says it ran.
    import threading

    grid = {"link.buffer": [f"{b}pkt" for b in (10, 20, 30, 40)]}
    tables: list[pd.DataFrame] = []

    def drive() -> None:
        tables.append(
            bufsim.sweep(BASE, grid, seeds=[1, 2], store=tmp_path / "st", workers=0, progress=False)
        )

    drivers = [threading.Thread(target=drive) for _ in range(2)]
    for t in drivers:
        t.start()
    for t in drivers:
        t.join(timeout=300)
    assert len(tables) == 2
    a, b = (t.set_index("key") for t in tables)
    assert len(a) == len(b) == 8
    ran_here = (~a["cached"]).astype(int) + (~b["cached"].reindex(a.index)).astype(int)
    assert (ran_here == 1).all(), ran_here
    assert tables[0].attrs["sweep"]["ran"] + tables[1].attrs["sweep"]["ran"] == 8
    assert tables[0].attrs["sweep"]["cached"] + tables[1].attrs["sweep"]["cached"] == 8


def test_the_cli_sweep_recomputes_a_damaged_time_series_file(tmp_path):
    # A point whose time series file is damaged runs again (and its file is
    # replaced) instead of being reused with the damage left in the store.
    from bufsim.cli import app
    from typer.testing import CliRunner

    (tmp_path / "s.json").write_text(json.dumps({**BASE, "duration": "1s"}))
    (tmp_path / "spec.toml").write_text(
        'base = "s.json"\n[grid]\n"link.buffer" = ["10pkt", "20pkt", "30pkt"]\n'
    )
    args = ["sweep", str(tmp_path / "spec.toml"), "--store", str(tmp_path / "st"), "-q"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    with Store(tmp_path / "st") as db:
        key = db.table()["key"].iloc[1]
        path = db._ts_path(key)
        assert db.has_timeseries(key)
    path.write_bytes(b"not parquet")
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "3 points: 1 ran, 2 reused" in again.output, again.output
    with Store(tmp_path / "st") as db:
        assert db.has_timeseries(key)
        assert db.check() == []


def test_a_grid_over_tcp_keeps_the_tcp_params_each_variant_takes():
    # Base: BBR v3 with a send quantum. A grid over the TCP runs CUBIC with
    # its own defaults (it refused "version") and BBR with both parameters.
    base = {
        "duration": "2s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "1BDP"},
        "flows": [
            {
                "count": 2,
                "tcp": "bbr",
                "tcp_params": {"version": 3, "send_quantum": "segment"},
                "rtt": "40ms",
            }
        ],
    }
    points = expand(base, grid={"flows[0].tcp": ["cubic", "bbr"]})
    assert [p.raw["flows"][0]["tcp_params"] for p in points] == [
        {},
        {"version": 3, "send_quantum": "segment"},
    ]
    assert [p.flow_mix for p in points] == ["2 x cubic", "2 x bbr v3"]
    assert base["flows"][0]["tcp_params"]["version"] == 3  # the base is left as given
    # A parameter the point sets itself is kept: CUBIC refuses it, naming it.
    with pytest.raises(
        SweepSpecError, match=r"flows\[0\]\.tcp_params\.version: unknown parameter for cubic"
    ):
        expand(base, grid={"flows[0].tcp": ["cubic"], "flows[0].tcp_params.version": [3]})
