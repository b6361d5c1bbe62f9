"""The results store: round trips, one row per key, WAL readers next to a writer, filters, errors."""

from __future__ import annotations

import math
import sqlite3

import bufsim
import pandas as pd
import pytest
from bufsim.store import Store, StoreError, point_key
from conftest import cli

SCENARIO = {"name": "s", "link": {"buffer": "20pkt"}}


def put(
    store: Store,
    key: str,
    *,
    status: str = "ok",
    params=None,
    summary=None,
    ts: bytes | None = None,
    **kw,
):
    store.put(
        key=key,
        name=kw.get("name", "s"),
        engine=kw.get("engine", "packet"),
        seed=kw.get("seed", 1),
        scenario=SCENARIO,
        params=params or {"link.buffer": "20pkt"},
        status=status,
        summary=summary
        if summary is not None
        else ({"utilization": 0.5} if status == "ok" else None),
        error=None if status == "ok" else "EngineError: boom",
        wall_s=0.1,
        version="0.0.0",
        timeseries=ts,
    )


def ts_bytes(frame: pd.DataFrame) -> bytes:
    import io

    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


def test_point_key_depends_on_every_part():
    base = point_key("h", "packet", 1, "0.1.0")
    assert len(base) == 64
    assert (
        len(
            {
                base,
                point_key("g", "packet", 1, "0.1.0"),
                point_key("h", "fluid", 1, "0.1.0"),
                point_key("h", "packet", 2, "0.1.0"),
                point_key("h", "packet", 1, "0.2.0"),
            }
        )
        == 5
    )
    assert point_key("h", "packet", 1, "0.1.0") == base


def test_round_trip_and_replace(tmp_path):
    frame = pd.DataFrame({"time_s": [0.1, 0.2], "queue_pkts": [3.0, 4.5]}).set_index("time_s")
    with Store(tmp_path / "r") as store:
        put(
            store,
            "k1",
            summary={"utilization": 0.1 + 0.2, "odd": math.nan, "flag": True, "n": 3},
            ts=ts_bytes(frame),
        )
        put(store, "k2", status="failed")
        rec = store.get(["k1", "k2", "missing"])
        assert set(rec) == {"k1", "k2"}
        s = rec["k1"]["summary"]
        assert (
            s["utilization"] == 0.1 + 0.2
            and math.isnan(s["odd"])
            and s["flag"] is True
            and s["n"] == 3
        )
        assert rec["k1"]["scenario"] == SCENARIO and rec["k1"]["params"] == {"link.buffer": "20pkt"}
        assert rec["k2"]["summary"] is None and rec["k2"]["error"] == "EngineError: boom"
        pd.testing.assert_frame_equal(store.timeseries("k1"), frame)
        assert not store.has_timeseries("k2")
        with pytest.raises(KeyError, match="k2"):
            store.timeseries("k2")
        # Writing a key again replaces its row.
        put(store, "k2", summary={"utilization": 0.9})
        assert len(store) == 2 and store.get(["k2"])["k2"]["status"] == "ok"
        assert store.delete(["k1"]) == 1 and not store.has_timeseries("k1") and len(store) == 1
    # No temporary files left behind.
    assert [p.name for p in (tmp_path / "r" / "timeseries").iterdir()] == []


def test_wal_mode_and_a_reader_alongside_a_writer(tmp_path):
    with Store(tmp_path / "r") as store:
        put(store, "k1")
        mode = (
            sqlite3.connect(tmp_path / "r" / "store.sqlite")
            .execute("PRAGMA journal_mode")
            .fetchone()[0]
        )
        assert mode == "wal"
        writer = sqlite3.connect(tmp_path / "r" / "store.sqlite", isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("DELETE FROM points")
        # A reader sees the last committed state while the write transaction is open.
        assert len(store.table()) == 1
        writer.execute("ROLLBACK")
        writer.close()


def test_table_filters(tmp_path):
    with Store(tmp_path / "r") as store:
        put(store, "a", params={"link.buffer": "20pkt", "flows[0].count": 1}, seed=1)
        put(store, "b", params={"link.buffer": "40pkt", "flows[0].count": 2}, seed=2)
        put(
            store,
            "c",
            params={"link.buffer": "40pkt", "flows[0].count": 2},
            engine="model:sqrt",
            seed=1,
        )
        put(store, "d", params={"link.buffer": "40pkt"}, status="failed", name="other")
        t = store.table()
        assert list(t.columns[:6]) == [
            "link.buffer",
            "flows[0].count",
            "engine",
            "seed",
            "status",
            "error",
        ]
        assert len(t) == 4
        assert store.table(engine="packet")["key"].tolist() == ["a", "b", "d"]
        assert store.table(status="failed")["key"].tolist() == ["d"]
        assert store.table(name="other")["key"].tolist() == ["d"]
        assert sorted(store.table(where={"link.buffer": "40pkt", "flows[0].count": 2})["key"]) == [
            "b",
            "c",
        ]
        assert store.table(where={"flows[0].count": "1"})["key"].tolist() == [
            "a"
        ]  # text form matches
        assert store.table(where={"link.qdisc": "red"}).empty


def test_in_memory_store():
    with Store(None) as store:
        put(store, "k", ts=ts_bytes(pd.DataFrame({"x": [1.0]})))
        assert store.path == ":memory:" and len(store) == 1
        assert store.timeseries("k")["x"].tolist() == [1.0]


def test_bad_stores(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="not a directory"):
        Store(tmp_path / "file")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "store.sqlite").write_text("this is not sqlite" * 100)
    with pytest.raises(StoreError, match="file is not a database"):
        Store(tmp_path / "junk")
    with Store(tmp_path / "old") as store:
        store._db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(tmp_path / "old")
    with Store(tmp_path / "r") as store, pytest.raises(ValueError, match="status"):
        put(store, "k", status="maybe")


def _open_in_step(roots, barrier, errors):
    for root in roots:
        barrier.wait()
        try:
            Store(root).close()
        except StoreError as e:
            errors.put(str(e))


def test_processes_opening_a_new_store_at_once(tmp_path):
    """Four processes open each of 40 new stores at the same moment (as two
    sweep drivers and their workers do): every open succeeds. SQLite refuses
    the race on switching to WAL and creating the tables at once, without
    waiting; before the store retried it, about 2% of such opens failed with
    "database is locked" (29 of 1,200 on this machine)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    roots = [tmp_path / f"s{i}" for i in range(40)]
    barrier, errors = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_open_in_step, args=(roots, barrier, errors)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    assert [p.exitcode for p in procs] == [0] * 4
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []
    for root in roots:
        with Store(root) as store:
            assert len(store) == 0


def test_sweeps_are_told_apart_and_runs_are_recorded(tmp_path):
    """A spec's name tags its points; bufsim run records its run as sweep
    'run', keyed as a sweep's point, so a sweep reuses it; a model runs
    once per point whatever the seeds; keys carry the engine build."""
    import tomli_w

    base = {
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
        "flows": [{"count": 2, "rtt": "20ms"}],
    }
    (tmp_path / "s.toml").write_text(tomli_w.dumps(base))
    p = cli("run", "s.toml", "--quiet", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (tmp_path / "spec.toml").write_text(
        'name = "buffer-vs-flows"\nbase = "s.toml"\nengines = ["packet", "model:avrachenkov"]\nseeds = [1, 2]\n'
        '[grid]\n"link.buffer" = ["20pkt", "40pkt"]\n'
    )
    p = cli("sweep", "spec.toml", "-q", "--workers", "0", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    # 2 buffers x (2 packet seeds + 1 model row); the 20pkt seed-1 packet point was the run's.
    assert "6 points: 5 ran, 1 reused" in p.stdout
    with Store(tmp_path / "results") as db:
        assert db.sweeps() == {"buffer-vs-flows": 6, "run": 1}
        assert len(db.table(sweep="buffer-vs-flows")) == 6
        assert {r["version"] for r in db.records()} == {
            f"{bufsim.__version__}+{bufsim._core.__build__}"
        }
    p = cli("results", "--name", "buffer-vs-flows", cwd=tmp_path)
    assert "a sweep is: --sweep buffer-vs-flows" in " ".join(p.stdout.split())
    p = cli("results", "--sweep", "buffer-vs-flows", cwd=tmp_path)
    assert p.returncode == 0 and "6 points" in p.stdout
