"""Scenario adapter: run an analytic model on the same scenario as the simulators.

:func:`predict` returns a :class:`bufsim.result.Result` (same shape as the
packet and fluid engines: ``summary``, ``flows``, ``provenance``,
``scenario``; the models have no time series), and :func:`sweep_buffer` a
table with one row per buffer size, so that model, fluid and packet curves can
be overlaid.

The scenario is the *normalized* dict returned by the Rust validator (SI
units: bits/s, seconds, bytes, packets). Models:

``"avrachenkov"`` / ``"avrachenkov_sync"``
    Paper 003 (Avrachenkov et al.) Theorem 1 for the AIMD flows (newreno, reno,
    aimd with ``tcp_params`` ``a``, ``b``), desynchronized (one flow cuts
    per congestion event) or synchronized (every flow cuts), drop-tail.
    Capacity left by Poisson background is the fluid service rate ``mu``; ``alpha = sum_i a_i MSS_i / RTT_i^2``.
``"highspeed_mm1k"`` / ``"highspeed_red"``
    Paper 001 (Barman et al.) fixed point for HighSpeed TCP flows with an
    M/M/1/K drop-tail queue (eqs. (4)-(5)) or RED (section IV). RED
    thresholds come from ``link.qdisc_params`` ``min_th``/``max_th``
    (packets) and ``max_p``, default ``0.4 K``, ``K`` and 0.1; in a buffer
    sweep they scale with the buffer, as in the paper.
``"sqrt"``
    N Reno flows saturating the link, loss from paper 002 (Dhamdhere &
    Dovrolis) eq. (3) with the harmonic-mean RTT (paper 002 section 4.1);
    the queue is taken as full, as eq. (3) assumes. If the saturable-link test
    (paper 002 section 3.2) fails, the loss and queue are NaN and the
    utilization is the largest load the flows can offer.
``"auto"``
    newreno/reno/aimd flows -> ``"avrachenkov"`` (desynchronized);
    highspeed flows -> ``"highspeed_mm1k"`` (``"highspeed_red"`` when
    ``link.qdisc == "red"``).

Each model has a stated domain (:data:`SPECS`: the paper, the TCP variants
and the queue discipline it covers, its assumptions): persistent flows only,
a Poisson background as a constant rate. A scenario outside it (web traffic,
a variant the model does not describe) is refused with the field named;
every model Result says in ``provenance["model"]`` which flows it used and
what it assumed.

Common summary keys: ``utilization`` (0..1, background included),
``goodput_bps`` (TCP flows), ``drop_rate``, ``mean_queue_pkts`` (packets of
``link.packet_size_bytes``), ``mean_queue_delay_s`` (backlog / capacity),
plus model-specific ones.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, fmt
from bufsim.models import avrachenkov as av
from bufsim.models import highspeed as hs
from bufsim.models import rules
from bufsim.models._validate import (
    ModelInputError,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_range,
)
from bufsim.result import Result

__all__ = ["MODELS", "SPECS", "ModelSpec", "predict", "sweep_buffer"]

_AIMD = frozenset({"newreno", "reno", "aimd"})


@dataclass(frozen=True)
class ModelSpec:
    """The stated domain of a scenario model: what it covers and assumes."""

    #: The paper and equation it implements.
    source: str
    #: The TCP variants (``flows[].tcp``) it describes.
    tcp: frozenset[str]
    #: The queue discipline (``link.qdisc``) it describes.
    qdisc: str
    #: What it assumes beyond that, in words.
    assumptions: tuple[str, ...]


_PERSISTENT = "persistent flows only (no slow start, no timeouts: a long-run average)"
_BACKGROUND = "Poisson background taken as a constant rate (the capacity left to TCP)"

#: Every model's domain (``"auto"`` picks one of them from the flows' TCP).
SPECS: dict[str, ModelSpec] = {
    "avrachenkov": ModelSpec(
        "paper 003 (Avrachenkov et al.) Theorem 1",
        _AIMD,
        "droptail",
        (
            _PERSISTENT,
            "fluid AIMD windows",
            "desynchronized: one flow cuts its window per congestion event",
            _BACKGROUND,
        ),
    ),
    "avrachenkov_sync": ModelSpec(
        "paper 003 (Avrachenkov et al.) Theorem 1",
        _AIMD,
        "droptail",
        (
            _PERSISTENT,
            "fluid AIMD windows",
            "synchronized: every flow cuts its window at every congestion event",
            _BACKGROUND,
        ),
    ),
    "highspeed_mm1k": ModelSpec(
        "paper 001 (Barman et al.) eqs. (4)-(5)",
        frozenset({"highspeed"}),
        "droptail",
        (
            _PERSISTENT,
            "M/M/1/K queue fed at the flows' total rate",
            "independent packet losses",
            _BACKGROUND,
        ),
    ),
    "highspeed_red": ModelSpec(
        "paper 001 (Barman et al.) section IV (RED)",
        frozenset({"highspeed"}),
        "red",
        (
            _PERSISTENT,
            "RED drop probability at the M/M/1/K mean queue",
            "independent packet losses",
            _BACKGROUND,
        ),
    ),
    "sqrt": ModelSpec(
        "paper 002 (Dhamdhere & Dovrolis) eq. (3)",
        _AIMD,
        "droptail",
        (
            _PERSISTENT,
            "flows saturate the link and the queue is full (eq. (3))",
            "square-root throughput law with the harmonic-mean RTT",
            _BACKGROUND,
        ),
    ),
}

MODELS = ("auto", *SPECS)


@dataclass
class _View:
    """The fields of a normalized scenario that the models use, validated.

    Per-flow arrays have one entry per flow (groups expanded); ``tcp_params``
    has one dict per flow group (index it with ``group``).
    """

    capacity_bps: float
    buffer_pkts: int
    pkt_bytes: float
    qdisc: str
    qdisc_params: dict
    background_bps: float
    tcp: list[str]
    group: np.ndarray
    rtt: np.ndarray
    mss: np.ndarray
    max_rate_bps: np.ndarray
    path_loss: np.ndarray
    delayed_ack: np.ndarray
    tcp_params: list[dict]


def _get(d: Any, key: str, path: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise ModelInputError(f"{path}.{key} is missing")
    return d[key]


def _normalized(scenario: Any) -> tuple[dict, str | None]:
    """The normalized dict of a scenario given as :func:`bufsim.simulate` takes
    it (a ``Scenario``, a raw dict, a ``.toml``/``.json`` path), or of an
    already normalized dict (SI units)."""
    from pathlib import Path

    from bufsim.scenario import Scenario

    if isinstance(scenario, dict):
        link = scenario.get("link")
        if isinstance(link, dict) and "capacity_bps" in link:
            return scenario, None
    if isinstance(scenario, (Scenario, dict, str, Path)):
        loaded = Scenario.load(scenario)
        return loaded.normalized, loaded.hash()
    raise ModelInputError(
        f"scenario must be a bufsim.Scenario, a scenario dict or file, or a normalized dict; "
        f"got {type(scenario).__name__}"
    )


def _view(scenario: dict) -> _View:
    link = _get(scenario, "link", "scenario")
    cap = float(
        check_positive("scenario.link.capacity_bps", _get(link, "capacity_bps", "scenario.link"))
    )
    buf = int(
        check_int_at_least(
            "scenario.link.buffer_pkts", _get(link, "buffer_pkts", "scenario.link"), 0
        )
    )
    pkt = float(
        check_positive(
            "scenario.link.packet_size_bytes", _get(link, "packet_size_bytes", "scenario.link")
        )
    )
    qdisc = str(link.get("qdisc", "droptail"))
    bg = 0.0
    for i, b in enumerate(scenario.get("background") or []):
        if b.get("kind", "poisson") != "poisson":
            raise ModelInputError(
                f"scenario.background[{i}].kind must be 'poisson' for the models, got {b.get('kind')!r}"
            )
        bg += float(
            check_nonnegative(
                f"scenario.background[{i}].rate_bps",
                _get(b, "rate_bps", f"scenario.background[{i}]"),
            )
        )
    groups = scenario.get("flows") or []
    if not groups:
        raise ModelInputError("scenario.flows must contain at least one flow group")
    tcp, grp, rtt, mss, rate, loss, dack, params = [], [], [], [], [], [], [], []
    for g, f in enumerate(groups):
        path = f"scenario.flows[{g}]"
        n = int(check_int_at_least(f"{path}.count", _get(f, "count", path), 1))
        rtts = np.atleast_1d(check_positive(f"{path}.rtts_s", _get(f, "rtts_s", path)))
        if rtts.shape != (n,):
            raise ModelInputError(
                f"{path}.rtts_s must have one RTT per flow ({n}), got {rtts.size}"
            )
        m = float(check_positive(f"{path}.mss_bytes", _get(f, "mss_bytes", path)))
        cap_f = np.full(n, np.inf)
        if f.get("access_rate_bps") is not None:
            cap_f = np.minimum(
                cap_f, float(check_positive(f"{path}.access_rate_bps", f["access_rate_bps"]))
            )
        if f.get("rwnd_pkts") is not None:
            rw = float(check_positive(f"{path}.rwnd_pkts", f["rwnd_pkts"]))
            cap_f = np.minimum(cap_f, rw * m * 8.0 / rtts)
        tcp += [str(_get(f, "tcp", path))] * n
        grp += [g] * n
        rtt.append(rtts)
        mss += [m] * n
        rate.append(cap_f)
        loss += [float(check_range(f"{path}.loss", f.get("loss", 0.0), 0.0, 1.0, hi_open=True))] * n
        dack += [bool(f.get("delayed_ack", False))] * n
        # The variant's parameters, defaults filled, as the core normalized them.
        params.append({k: v for k, v in (f.get("cc") or {}).items() if k != "variant"})
    return _View(
        capacity_bps=cap,
        buffer_pkts=buf,
        pkt_bytes=pkt,
        qdisc=qdisc,
        qdisc_params=dict(link.get("qdisc_params") or {}),
        background_bps=bg,
        tcp=tcp,
        group=np.array(grp),
        rtt=np.concatenate(rtt),
        mss=np.array(mss),
        max_rate_bps=np.concatenate(rate),
        path_loss=np.array(loss),
        delayed_ack=np.array(dack),
        tcp_params=params,
    )


def _choose(scenario: dict, model: str) -> str:
    """The model to run (``auto`` resolved), after checking the scenario is in its domain."""
    if model not in MODELS:
        raise ModelInputError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    groups = scenario.get("flows") or []
    if not groups:
        raise ModelInputError("scenario.flows must contain at least one flow group")
    if model == "auto":
        variants = {str(g.get("tcp")) for g in groups}
        qdisc = (scenario.get("link") or {}).get("qdisc", "droptail")
        if variants and variants <= _AIMD:
            model = "avrachenkov"
        elif variants == {"highspeed"}:
            model = "highspeed_red" if qdisc == "red" else "highspeed_mm1k"
        else:
            raise ModelInputError(
                f"model 'auto' has no analytic model for flows of tcp {sorted(variants)}: "
                "newreno/reno/aimd (avrachenkov, avrachenkov_sync, sqrt) or highspeed alone "
                "(highspeed_mm1k, highspeed_red); use engine 'packet' or 'fluid'"
            )
    _check_domain(scenario, model)
    return model


def _check_domain(scenario: dict, name: str) -> None:
    """Refuse a scenario outside model ``name``'s domain, naming the field."""
    spec = SPECS[name]
    what = f"model {name!r} ({spec.source})"
    if scenario.get("fabric") is not None:
        raise ModelInputError(
            f"scenario.fabric: {what} models one link with its own buffer, not a fabric of "
            "switches sharing buffers over paths of links; use engine 'packet'"
        )
    if scenario.get("pool") is not None:
        raise ModelInputError(
            f"scenario.pool: {what} models one link with its own buffer, not ports sharing a "
            "pool; use engine 'packet'"
        )
    if "queues" in (scenario.get("link") or {}):
        raise ModelInputError(
            f"scenario.link.queues: {what} models one queue per link, not "
            f"{len(scenario['link']['queues'])} queues of traffic classes; use engine 'packet'"
        )
    if scenario.get("links"):
        raise ModelInputError(
            f"scenario.links: {what} models one bottleneck, not a chain of them; use engine 'packet'"
        )
    if scenario.get("reverse") is not None:
        raise ModelInputError(
            f"scenario.reverse: {what} returns ACKs over an uncongested path, not queued behind "
            "two-way traffic; use engine 'packet'"
        )
    for g, f in enumerate(scenario.get("flows") or []):
        kind = f.get("kind", "persistent")
        if kind != "persistent":
            raise ModelInputError(
                f"scenario.flows[{g}]: {what} models persistent flows only, this group is {kind} traffic; "
                "use engine 'packet' (or 'fluid' for persistent flows)"
            )
        if f.get("tcp") not in spec.tcp:
            raise ModelInputError(
                f"scenario.flows[{g}].tcp: {what} describes tcp {', '.join(sorted(spec.tcp))}, got {f.get('tcp')!r}"
            )
    qdisc = (scenario.get("link") or {}).get("qdisc", "droptail")
    if qdisc != spec.qdisc:
        raise ModelInputError(
            f"scenario.link.qdisc: {what} describes {spec.qdisc!r}, got {qdisc!r}"
        )


def _tcp_capacity(v: _View, name: str) -> float:
    """Capacity left to the TCP flows by the Poisson background, bits/s (> 0)."""
    cap = v.capacity_bps - v.background_bps
    if cap <= 0:
        raise ModelInputError(
            f"scenario.background rate ({fmt.si(v.background_bps, 'bps')}) must be below "
            f"scenario.link.capacity_bps ({fmt.si(v.capacity_bps, 'bps')}) for model {name!r}"
        )
    return cap


def _share(weights: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Split ``total`` (one value per buffer) across flows proportionally to ``weights``."""
    return np.outer(total, weights / weights.sum())


# ----------------------------------------------------------------------------- models


def _avrachenkov(v: _View, buffers: np.ndarray, synchronized: bool):
    mu = _tcp_capacity(v, "avrachenkov")
    inc = np.array(
        [v.tcp_params[g].get("a", 1.0) if t == "aimd" else 1.0 for t, g in zip(v.tcp, v.group)]
    )
    dec = np.array(
        [v.tcp_params[g].get("b", 0.5) if t == "aimd" else 0.5 for t, g in zip(v.tcp, v.group)]
    )
    n = len(v.tcp)
    alpha = float(np.sum(inc * 8.0 * v.mss / v.rtt**2))  # bits/s^2, paper 003 eq. (2)
    beta0 = float(np.mean(1.0 - dec))
    n_sig = n if synchronized else 1
    beta = float(av.aimd_beta(n, n_sig, beta0=beta0))
    bits = buffers * 8.0 * v.pkt_bytes
    rate, xbar = (np.atleast_1d(x) for x in av.theorem1(bits, mu, alpha, beta))
    offered_max = float(v.max_rate_bps.sum())
    rate = np.minimum(rate, offered_max)
    cycle = np.atleast_1d(av.cycle_duration(bits, mu, alpha, beta))
    pkts_per_cycle = rate * cycle / (8.0 * float(np.mean(v.mss)))
    table = pd.DataFrame(
        {
            "buffer_pkts": buffers,
            "utilization": (rate + v.background_bps) / v.capacity_bps,
            "drop_rate": np.minimum(1.0, n_sig / pkts_per_cycle),
            "mean_queue_pkts": xbar / (8.0 * v.pkt_bytes),
            "mean_queue_delay_s": xbar / v.capacity_bps,
            "goodput_bps": rate,
        }
    )
    flows = _share(v.mss * np.sqrt(inc) / v.rtt, rate)
    b0_pkts = float(av.b0(mu, alpha, beta)) / (8.0 * v.pkt_bytes)
    extra = {
        "b0_pkts": b0_pkts,
        "beta": beta,
        "synchronized": bool(synchronized),
        "saturable": offered_max >= mu,
    }
    return table, flows, extra


def _highspeed(v: _View, buffers: np.ndarray, qdisc: str):
    name = "highspeed_red" if qdisc == "red" else "highspeed_mm1k"
    plist = [
        hs.HSTCPParams(
            **{
                k: float(p[k])
                for k in ("low_window", "high_window", "high_p", "high_decrease", "low_p")
                if k in p
            }
        )
        for p in v.tcp_params
    ]
    if any(p != plist[0] for p in plist):
        raise ModelInputError(
            f"model {name!r} needs the same tcp_params in every flow group, got {v.tcp_params}"
        )
    if np.ptp(v.mss) > 0:
        raise ModelInputError(
            f"model {name!r} needs one mss_bytes for all flows, got {sorted(set(v.mss))}"
        )
    mss = float(v.mss[0])
    kw: dict[str, Any] = {}
    if qdisc == "red":
        qp = v.qdisc_params
        ref = max(v.buffer_pkts, 1)
        kw = {
            "red_min_th_frac": float(qp.get("min_th", 0.4 * ref)) / ref,
            "red_max_th_frac": float(qp.get("max_th", ref)) / ref,
            "red_max_p": float(qp.get("max_p", 0.1)),
        }
    bufs = check_int_at_least("buffers_pkts", buffers, 1)
    table = hs.hstcp_fixed_point(
        v.capacity_bps,
        v.rtt,
        bufs,
        packet_size_bytes=mss,
        params=plist[0],
        qdisc=qdisc,
        background_bps=v.background_bps,
        max_rate_bps=v.max_rate_bps,
        path_loss=v.path_loss,
        **kw,
    )
    # Per-flow goodput at the fixed point (paper 001 eq. (4) terms).
    p_i = np.clip(
        table["loss_rate"].to_numpy()[:, None]
        + v.path_loss * (1 - table["loss_rate"].to_numpy()[:, None]),
        1e-300,
        1 - 1e-12,
    )
    r_i = v.rtt + table["mean_queue_delay_s"].to_numpy()[:, None]
    lam = np.minimum(
        np.asarray(hs.hstcp_throughput(p_i, r_i, plist[0])), v.max_rate_bps / (8.0 * mss)
    )
    flows = lam * (1.0 - table["loss_rate"].to_numpy()[:, None]) * 8.0 * mss
    table["mean_queue_pkts"] = table["mean_queue_pkts"] * mss / v.pkt_bytes
    # Paper 001's loss probability p is the bottleneck's drop rate.
    return table.rename(columns={"loss_rate": "drop_rate"}), flows, {}


def _sqrt(v: _View, buffers: np.ndarray):
    n = len(v.tcp)
    cap_tcp = _tcp_capacity(v, "sqrt")
    t_eff = n / np.sum(1.0 / v.rtt)  # harmonic mean (paper 002 section 4.1, footnote 1)
    mss = float(np.mean(v.mss))
    b = 2.0 if v.delayed_ack.all() else 1.0
    bdp = cap_tcp * t_eff / (8.0 * mss)
    sat = rules.saturable(
        v.capacity_bps, v.rtt, access_rate_bps=v.max_rate_bps, background_bps=v.background_bps
    )
    buf_tcp = buffers * v.pkt_bytes / mss
    if sat.saturable:
        loss = np.atleast_1d(
            rules.persistent_loss_rate(bdp, n, buf_tcp, constant=np.sqrt(3.0 / (2.0 * b)))
        )
        util = np.ones(buffers.shape)
        goodput = np.full(buffers.shape, cap_tcp)
        queue = buffers.astype(float)
    else:
        loss = np.full(buffers.shape, np.nan)
        queue = np.full(buffers.shape, np.nan)
        util = np.full(buffers.shape, sat.max_load)
        goodput = np.full(buffers.shape, sat.max_offered_bps - v.background_bps)
    table = pd.DataFrame(
        {
            "buffer_pkts": buffers,
            "utilization": util,
            "drop_rate": loss,
            "mean_queue_pkts": queue,
            "mean_queue_delay_s": queue * 8.0 * v.pkt_bytes / v.capacity_bps,
            "goodput_bps": goodput,
        }
    )
    flows = _share(v.mss / v.rtt, goodput)
    if not sat.saturable:
        flows = np.minimum(flows, v.max_rate_bps)
    extra = {"saturable": sat.saturable, "max_load": sat.max_load, "effective_rtt_s": float(t_eff)}
    return table, flows, extra


def _run(v: _View, model: str, buffers: np.ndarray):
    if model in ("avrachenkov", "avrachenkov_sync"):
        return _avrachenkov(v, buffers, synchronized=model == "avrachenkov_sync")
    if model in ("highspeed_mm1k", "highspeed_red"):
        return _highspeed(v, buffers, "red" if model == "highspeed_red" else "droptail")
    return _sqrt(v, buffers)


# ----------------------------------------------------------------------------- public


def sweep_buffer(scenario: Any, buffers_pkts, model: str = "auto") -> pd.DataFrame:
    """Evaluate a model over buffer sizes for one scenario.

    Parameters
    ----------
    scenario : bufsim.Scenario, dict or path
        What :func:`bufsim.simulate` takes (a ``Scenario``, a raw dict, a
        ``.toml``/``.json`` file), or a normalized dict (SI units).
    buffers_pkts : int or array_like
        Buffer sizes, packets of ``link.packet_size_bytes`` (>= 0; >= 1 for
        the HighSpeed models).
    model : str
        One of :data:`MODELS` (see the module docstring and :data:`SPECS`).

    Returns
    -------
    pandas.DataFrame
        One row per buffer: ``buffer_pkts``, ``utilization``, ``drop_rate``,
        ``mean_queue_delay_s`` (s), ``mean_queue_pkts``, ``goodput_bps``
        (plus ``offered_load`` for the HighSpeed models).
    """
    norm = _normalized(scenario)[0]
    name = _choose(norm, model)
    v = _view(norm)
    bufs = np.atleast_1d(check_int_at_least("buffers_pkts", buffers_pkts, 0))
    table, _, _ = _run(v, name, bufs)
    return table.reset_index(drop=True)


def predict(scenario: Any, model: str = "auto") -> Result:
    """Predict the scenario's metrics at its own buffer size with an analytic model.

    Parameters
    ----------
    scenario : bufsim.Scenario, dict or path
        What :func:`bufsim.simulate` takes (a ``Scenario``, a raw dict, a
        ``.toml``/``.json`` file), or a normalized dict (SI units).
    model : str
        One of :data:`MODELS` (see the module docstring and :data:`SPECS`).

    Returns
    -------
    bufsim.result.Result
        ``summary`` with ``utilization``, ``goodput_bps``, ``drop_rate``,
        ``mean_queue_pkts``, ``mean_queue_delay_s`` and model-specific keys;
        ``flows`` (``flow``, ``group``, ``tcp``, ``rtt_s``, ``goodput_bps``);
        ``provenance`` with ``engine = "model:<name>"``, ``version`` and
        ``model``: its ``source`` (paper and equation), the ``flows`` it used
        and its ``assumptions``.

    Raises
    ------
    ModelInputError
        A scenario outside the model's domain (naming the field: web
        traffic, a TCP variant or a queue discipline it does not describe).
    """
    t0 = time.perf_counter()
    scenario, digest = _normalized(scenario)
    name = _choose(scenario, model)
    v = _view(scenario)
    table, flows, extra = _run(v, name, np.array([v.buffer_pkts]))
    row = table.iloc[0].to_dict()
    summary = {
        "utilization": float(row["utilization"]),
        "goodput_bps": float(row["goodput_bps"]),
        "drop_rate": float(row["drop_rate"]),
        "mean_queue_pkts": float(row["mean_queue_pkts"]),
        "mean_queue_delay_s": float(row["mean_queue_delay_s"]),
        "buffer_pkts": int(v.buffer_pkts),
    }
    if "offered_load" in row:
        summary["offered_load"] = float(row["offered_load"])
    summary.update(extra)
    flows_df = pd.DataFrame(
        {
            "flow": np.arange(len(v.tcp)),
            "group": v.group,
            "tcp": v.tcp,
            "rtt_s": v.rtt,
            "goodput_bps": flows[0],
        }
    )
    provenance = {
        "engine": f"model:{name}",
        "version": _core.__version__,
        "build": _core.__build__,
        "seed": scenario.get("seed"),
        "wall_s": time.perf_counter() - t0,
    }
    if digest is not None:
        provenance["scenario_hash"] = digest
    spec = SPECS[name]
    groups = sorted(set(v.group.tolist()))
    provenance["model"] = {
        "source": spec.source,
        "flows": f"{len(v.tcp)} flows of groups {', '.join(map(str, groups))} "
        f"({', '.join(sorted(set(v.tcp)))}), {fmt.si(v.background_bps, 'bps')} of Poisson background",
        "assumptions": list(spec.assumptions),
    }
    return Result(summary=summary, flows=flows_df, provenance=provenance, scenario=scenario)
