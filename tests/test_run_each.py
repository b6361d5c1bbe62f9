"""bufsim.sweep.run_each and the reproductions that run through it: whole
results kept in the store, read back equal, resumed after an interruption,
the same on any number of workers."""

from __future__ import annotations

import bufsim
import pandas as pd
import pytest
from bufsim import reproduce
from bufsim.store import Store, StoreError
from bufsim.sweep import RunFailed, SweepSpecError, executors, run_each


def _scenario(buffer_pkts: int, seed: int = 1) -> dict:
    return {
        "name": f"each-b{buffer_pkts}",
        "duration": "4s",
        "warmup": "1s",
        "seed": seed,
        "link": {"capacity": "20Mbps", "delay": "5ms", "buffer": f"{buffer_pkts}pkt"},
        "flows": [
            # A reproduction's scenario names its stack (reproduce.simulate_each).
            {
                "count": 3,
                "tcp": "newreno",
                "stack": "rfc",
                "rtt": "40ms",
                "start": {"uniform": ["0s", "1s"]},
            }
        ],
    }


def _same(a: bufsim.Result, b: bufsim.Result) -> None:
    assert a.summary == pytest.approx(b.summary, nan_ok=True)
    for frame in ("flows", "congestion_events", "timeseries"):
        pd.testing.assert_frame_equal(getattr(a, frame), getattr(b, frame))


@pytest.fixture
def counted(monkeypatch):
    """How many runs the executors start (in-process runs only)."""
    calls: list[str] = []
    real = executors.run_point

    def run_point(raw, engine, keep="summary"):
        calls.append(raw["name"])
        return real(raw, engine, keep)

    monkeypatch.setattr(executors, "run_point", run_point)
    return calls


def test_results_read_back_equal_to_direct_runs(tmp_path, counted):
    raws = [_scenario(5), _scenario(40)]
    engines = ["packet", "fluid"]
    got = run_each(raws, engines, store=tmp_path, workers=0, progress=False)
    assert counted == ["each-b5", "each-b40"]
    for r, raw, engine in zip(got, raws, engines):
        _same(r, bufsim.simulate(raw, engine=engine))
        assert r.engine == engine
    # A packet run with losses has congestion events and a per-flow table;
    # each run says what it cost, as it measured it.
    assert len(got[0].congestion_events) > 0 and len(got[0].flows) == 3
    assert all(0 < r.provenance["cpu_s"] < 60 and r.provenance["wall_s"] > 0 for r in got)
    again = run_each(raws, engines, store=tmp_path, workers=0, progress=False)
    assert counted == ["each-b5", "each-b40"]  # nothing ran the second time
    for a, b in zip(got, again):
        _same(a, b)


def test_an_interrupted_call_keeps_its_finished_runs(tmp_path, monkeypatch):
    raws = [_scenario(b) for b in (5, 10, 20)]
    real = executors.run_point
    ran: list[str] = []

    def interrupted(raw, engine, keep="summary"):
        if len(ran) == 2:
            raise KeyboardInterrupt
        ran.append(raw["name"])
        return real(raw, engine, keep)

    monkeypatch.setattr(executors, "run_point", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_each(raws, store=tmp_path, workers=0, progress=False)
    with Store(tmp_path) as db:
        assert len(db) == 2
    ran.clear()
    monkeypatch.setattr(executors, "run_point", lambda *a: (ran.append(a[0]["name"]), real(*a))[1])
    run_each(raws, store=tmp_path, workers=0, progress=False)
    assert ran == ["each-b20"]


def test_a_damaged_stored_result_is_run_again(tmp_path, counted):
    raw = _scenario(10)
    first = run_each([raw], store=tmp_path, workers=0, progress=False)[0]
    (damaged,) = (tmp_path / "results").iterdir()
    (damaged / "flows.parquet").write_bytes(b"not parquet")
    again = run_each([raw], store=tmp_path, workers=0, progress=False)[0]
    assert counted == ["each-b10", "each-b10"]
    _same(first, again)


def test_runs_merged_from_another_store_are_reused(tmp_path, counted):
    raws = [_scenario(5), _scenario(40)]
    made = run_each(raws, store=tmp_path / "a", workers=0, progress=False, name="made")
    with Store(tmp_path / "a") as a:
        damaged = next(r["key"] for r in a.records() if r["name"] == "each-b5")
        (tmp_path / "a" / "results" / damaged / "flows.parquet").write_bytes(b"not parquet")
        with Store(tmp_path / "b") as b:
            assert b.merge(a) == 2 and b.merge(a) == 0  # the second merge finds both there
            assert b.sweeps() == {"made": 2}
            rows_a = {r["key"]: r for r in a.records()}
            assert {r["key"]: r for r in b.records()} == rows_a  # rows as stored
        with Store(None) as memory, pytest.raises(StoreError, match="directories"):
            memory.merge(a)
    counted.clear()
    again = run_each(raws, store=tmp_path / "b", workers=0, progress=False)
    # The intact result was reused; the damaged one was not copied, so it ran again.
    assert counted == ["each-b5"]
    for x, y in zip(made, again):
        _same(x, y)


def test_workers_do_not_change_results(tmp_path):
    raws = [_scenario(b, seed=s) for b, s in ((5, 1), (10, 2), (20, 3))]
    alone = run_each(raws, store=None, workers=0, progress=False)
    pooled = run_each(raws, store=tmp_path, workers=2, progress=False)
    for a, b in zip(alone, pooled):
        _same(a, b)


def test_a_failed_run_names_itself(tmp_path):
    # A HighSpeed model refuses NewReno flows when it runs, not at validation.
    with pytest.raises(
        RunFailed,
        match=r"run 1 \(each-b10, engine model:highspeed_mm1k, seed 1\) failed: .*describes tcp highspeed",
    ):
        run_each(
            [_scenario(5), _scenario(10)],
            ["packet", "model:highspeed_mm1k"],
            store=tmp_path,
            workers=0,
        )


def test_bad_input_fails_before_anything_runs(tmp_path, counted):
    with pytest.raises(SweepSpecError, match="engines: 1 names for 2 scenarios"):
        run_each([_scenario(5), _scenario(10)], ["packet"], store=tmp_path)
    with pytest.raises(SweepSpecError, match="engine 'warp' is unknown"):
        run_each([_scenario(5)], "warp", store=tmp_path)
    bad = _scenario(5)
    bad["link"]["buffer"] = "lots"
    with pytest.raises(SweepSpecError, match=r"scenario 1: link\.buffer"):
        run_each([_scenario(5), bad], store=tmp_path)
    assert counted == []


def _toy_runs(quick: bool = False, progress=None) -> pd.DataFrame:
    """A reproduction's ``run``: a single run, then several together."""
    one = reproduce.simulate(_scenario(5))
    many = reproduce.simulate_each([_scenario(10), _scenario(20)], ["packet", "fluid"])
    return pd.DataFrame(
        {"buffer": [5, 10, 20], "utilization": [r.summary["utilization"] for r in (one, *many)]}
    )


def test_a_reproduction_runs_through_the_store(tmp_path, counted):
    toy = reproduce.Reproduction(
        name="toy",
        what="three runs",
        setup=lambda: reproduce.prose("none"),
        runs=_toy_runs,
        claims=lambda t: reproduce.Claims().table(),
        findings=lambda t: [],
        figures=lambda t: {},
        captions=lambda t: {},
        tables=lambda t: {},
    )
    direct = _toy_runs()  # outside Reproduction.run: bufsim.simulate, no store
    assert counted == []
    first = toy.run(quick=True, store=tmp_path, workers=0)
    assert counted == ["each-b5", "each-b10", "each-b20"]
    second = toy.run(quick=True, store=tmp_path, workers=0)
    assert counted == ["each-b5", "each-b10", "each-b20"]  # all read from the store
    pd.testing.assert_frame_equal(first, direct)
    pd.testing.assert_frame_equal(second, direct)
    assert first.attrs["quick"] is True


def test_a_reproductions_engines_are_checked_the_same_either_way():
    # Outside Reproduction.run the runs are direct, but a list of engines of
    # another length is refused as run_each refuses it, not cut short.
    with pytest.raises(SweepSpecError, match="engines: 1 names for 2 scenarios"):
        reproduce.simulate_each([_scenario(5), _scenario(10)], ["packet"])
    with pytest.raises(SweepSpecError, match="engine 'warp' is unknown"):
        reproduce.simulate(_scenario(5), "warp")


def test_a_reproduction_refuses_a_group_that_names_no_stack():
    # The default profile (linux) is not a paper's: a reproduction pins its own.
    raw = _scenario(5)
    del raw["flows"][0]["stack"]
    with pytest.raises(ValueError, match=r"^each-b5: flows\[0\] names no stack"):
        reproduce.simulate_each([raw])
