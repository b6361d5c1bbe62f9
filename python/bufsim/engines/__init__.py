"""Run a scenario through an engine and get a :class:`~bufsim.result.Result`.

``engine="packet"`` is the discrete-event packet-level simulator (the
ground truth); ``engine="fluid"`` integrates the fluid model of paper 004
(per-flow window ODEs, the loss-synchronization module) or paper 003's
hybrid model; ``engine="ns3"`` and ``engine="ns2"`` run the same scenario
in the installed ns-3 (:mod:`bufsim.ns3`) and ns-2.35 (:mod:`bufsim.ns2`),
to check the packet engine against them. All take the same scenario and
return the same Result shape.

Each engine is one module beside this one (``packet.py``, ``fluid.py``,
``ns3.py``, ``ns2.py``) with the one interface :class:`Engine`: whether it
can run here, what it refuses, what a run costs, the run itself.
:data:`ENGINES` (``registry.py``) registers them; :func:`simulate`, :mod:`bufsim.limits`,
the command line (``run``, ``validate``, sweeps) and advise read it, so a
new engine is one module and one line of :data:`ENGINES`.
"""

from __future__ import annotations

import copy
import logging
import resource
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, limits
from bufsim.engines.registry import ENGINES, Engine
from bufsim.result import Result
from bufsim.scenario import Scenario

__all__ = [
    "ENGINES",
    "Engine",
    "OverloadWarning",
    "cpu_seconds",
    "group_shares",
    "simulate",
    "trace_frame",
]

log = logging.getLogger(__name__)


def simulate(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    engine: str = "packet",
    progress: Callable[[float], Any] | None = None,
) -> Result:
    """Simulate a scenario.

    Parameters
    ----------
    scenario : Scenario, dict, or path to a ``.toml``/``.json`` file
        The scenario (see the README for the schema).
    engine : str
        A name of :data:`ENGINES` (``"packet"``, ``"fluid"``, ``"ns3"``,
        ``"ns2"``) or ``"model:<name>"`` (an analytic model of
        :data:`bufsim.models.MODELS`, through :func:`bufsim.models.predict`),
        the same names as :func:`bufsim.sweep` takes.
    progress : callable, optional
        Called now and then with the simulated time reached (seconds).
        Raising from it stops the run with that exception.

    Returns
    -------
    Result
        ``summary`` (utilization 0..1, goodput in bits/s, drop rate, queue in
        packets and seconds, Jain index, loss synchronization), ``timeseries``
        (indexed by ``time_s``), ``flows`` (one row per flow) and
        ``congestion_events`` (one row per congestion event) and ``trace``
        (the bottleneck's packet trace with ``output.trace = true``, else empty).

    Raises
    ------
    ScenarioError
        Invalid scenario or engine name (the message names the field), or a
        run out of proportion: more work or memory than :mod:`bufsim.limits`
        allows (the message names the field that drives it).
    KeyboardInterrupt
        Ctrl-C during the run (nothing partial is returned).
    """
    scn = Scenario.load(scenario)
    if isinstance(engine, str) and engine.startswith("model:"):
        from bufsim.models import MODELS, predict

        model = engine[len("model:") :]
        if model not in MODELS:
            raise _core.ScenarioError(
                f"engine {engine!r}: unknown model, allowed are {', '.join('model:' + m for m in MODELS)}"
            )
        return predict(scn, model=model)
    if not isinstance(engine, str) or engine not in ENGINES:
        raise _core.ScenarioError(
            f"engine must be one of {', '.join(ENGINES)} or 'model:<name>', got {engine!r}"
        )
    cost = limits.check(scn, engine)
    log.info(
        "%s: %s engine, seed %s, about %.3g %s",
        scn.name,
        engine,
        scn.normalized["seed"],
        cost["work"],
        cost["work_unit"],
    )
    t0, c0 = time.perf_counter(), cpu_seconds()
    raw = ENGINES[engine].run(scn, progress)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    log.info("%s: %s engine done in %.3f s wall", scn.name, engine, wall)
    ts = pd.DataFrame(raw["timeseries"])
    if "time_s" in ts:
        ts = ts.set_index("time_s")
    flows = pd.DataFrame(raw["flows"])
    for col in ("flow", "group"):
        if col in flows:
            flows[col] = flows[col].astype("int64")
    _warn_overload(raw["summary"])
    summary = {k: float(v) for k, v in raw["summary"].items()}
    if ENGINES[engine].transfers and "size_pkts" in flows and flows["size_pkts"].notna().any():
        from bufsim.flows import add_ideal, fct_summary, query_summary

        # Finite transfers: their slowdowns, completions and completion
        # times (and per half of the window).
        norm = scn.normalized
        mss = [g["mss_bytes"] for g in norm["flows"]]
        add_ideal(flows, _group_rates(norm), mss)
        window = (norm["warmup_s"], norm["duration_s"])
        half = sum(window) / 2 if norm["output"]["halves"] else None
        # With two-way traffic the headline keys are the forward groups'
        # (as the summary's other flow counts); each group keeps its own.
        reverse = [g for g, grp in enumerate(norm["flows"]) if grp.get("reverse")]
        forward = flows[~flows["group"].isin(reverse)]
        summary.update(fct_summary(forward, window, halfway_s=half, mss_bytes=mss))
        if reverse:
            every = fct_summary(flows, window, mss_bytes=mss)
            summary.update({k: v for k, v in every.items() if "_group" in k})
        # Incast queries: each completes with its last response.
        summary.update(query_summary(flows, window))
    summary.update(group_shares(summary, scn.normalized["flows"]))
    return Result(
        summary=summary,
        timeseries=ts,
        flows=flows,
        provenance={
            "engine": engine,
            "version": _core.__version__,
            "build": _core.__build__,
            "seed": scn.normalized["seed"],
            "scenario_hash": scn.hash(),
            "wall_s": wall,
            "cpu_s": cpu,
            **raw.get("provenance", {}),
        },
        scenario=copy.deepcopy(scn.normalized),
        congestion_events=pd.DataFrame(raw["congestion_events"]),
        trace=trace_frame(raw["trace"], raw.get("trace_events", ())),
    )


def group_shares(summary: Mapping[str, float], groups: Sequence[Any]) -> dict[str, float]:
    """Each forward group's share of the forward groups' goodput,
    ``share_group<k>`` = ``goodput_bps_group<k>`` / their sum (a fraction;
    the shares sum to 1), with two forward groups or more; 0 each when none
    delivered anything. Reverse groups cross another link: they get none.

    Parameters
    ----------
    summary : dict
        A run's summary, with ``goodput_bps_group<k>`` (bits/s).
    groups : list of dict
        The normalized scenario's flow groups.
    """
    rates = {
        k: summary[f"goodput_bps_group{k}"]
        for k, g in enumerate(groups)
        if not g.get("reverse") and f"goodput_bps_group{k}" in summary
    }
    if len(rates) < 2:
        return {}
    total = sum(rates.values())
    return {f"share_group{k}": (v / total if total > 0 else 0.0) for k, v in rates.items()}


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its children that
    finished (the ns3 and ns2 engines run their simulator as one), so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def trace_frame(columns: Mapping[str, Any], events: Sequence[str]) -> pd.DataFrame:
    """The packet trace as a DataFrame (see :attr:`bufsim.Result.trace`)
    from the core's columns of floats; empty when there are none.

    ``event`` becomes a categorical of ``events``, the run's names of the
    core's event codes (``enqueue``, ``dequeue``, ``drop_<reason>`` for its
    discipline's reasons), the counts integers (``ecn``: uint8), ``time_s``
    stays float seconds.
    """
    if not columns:
        return pd.DataFrame()
    codes = np.asarray(columns["event"]).astype(np.int8)
    return pd.DataFrame(
        {
            "time_s": np.asarray(columns["time_s"]),
            "event": pd.Categorical.from_codes(codes, categories=list(events)),
            "flow": np.asarray(columns["flow"]).astype(np.int64),
            "seq": np.asarray(columns["seq"]).astype(np.int64),
            "size_bytes": np.asarray(columns["size_bytes"]).astype(np.int64),
            "queue_pkts": np.asarray(columns["queue_pkts"]).astype(np.int64),
            "ecn": np.asarray(columns["ecn"]).astype(np.uint8),
        }
    )


class OverloadWarning(UserWarning):
    """An open-loop group hit its ``max_active`` cap: offered load above capacity."""


def _group_rates(norm: Mapping[str, Any]) -> list[float]:
    """Each flow group's bottleneck rate, bits/s: the slowest link it
    crosses on a chain, the reverse link for a reverse group, else the link."""
    links = norm.get("links") or [norm["link"]]
    reverse = norm.get("reverse", {}).get("link", {}).get("capacity_bps")
    return [
        reverse
        if g.get("reverse")
        else min(links[k]["capacity_bps"] for k in g.get("links") or [0])
        for g in norm["flows"]
    ]


def _warn_overload(summary: Mapping[str, float]) -> None:
    """Warn when open-loop arrivals were refused (``summary["overload"] == 1``)."""
    if summary.get("overload", 0.0) > 0:
        import warnings

        warnings.warn(
            f"overload: {int(summary.get('flows_refused', 0))} open-loop arrivals were refused because a group "
            "held max_active transfers (offered load above what the link carries); statistics describe a "
            "capped system. Lower arrival.load or raise flows[].max_active.",
            OverloadWarning,
            stacklevel=3,
        )
