"""Scenario adapter: run an analytic model on the same scenario as the simulators.

:func:`predict` returns a :class:`bufsim.result.Result` (same shape as the
packet and fluid engines: ``summary``, ``flows``, ``provenance``,
``scenario``; the models have no time series), and :func:`sweep_buffer` a
table with one row per buffer size, so that model, fluid and packet curves can
be overlaid.

The scenario is the *normalized* dict returned by the Rust validator (SI
units: bits/s, seconds, bytes, packets). Models:

``"avrachenkov"``
    Paper 003 (Avrachenkov et al.) Theorem 1 for the AIMD flows (newreno, reno,
    aimd with ``tcp_params`` ``a``, ``b``), synchronized or not
    (``synchronized=``), drop-tail. Capacity left by Poisson background is
    the fluid service rate ``mu``; ``alpha = sum_i a_i MSS_i / RTT_i^2``.
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

from bufsim import _core
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

__all__ = ["MODELS", "predict", "sweep_buffer"]

MODELS = ("auto", "avrachenkov", "highspeed_mm1k", "highspeed_red", "sqrt")
_AIMD = {"newreno", "reno", "aimd"}


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
    """The normalized dict of a ``bufsim.Scenario`` (``.normalized``) or of a dict."""
    if hasattr(scenario, "normalized"):
        digest = scenario.hash() if callable(getattr(scenario, "hash", None)) else None
        return scenario.normalized, digest
    if not isinstance(scenario, dict):
        raise ModelInputError(
            f"scenario must be a bufsim.Scenario or its normalized dict, got {type(scenario).__name__}"
        )
    link = scenario.get("link")
    if isinstance(link, dict) and "capacity_bps" not in link and "capacity" in link:
        raise ModelInputError(
            "scenario.link.capacity_bps is missing: this looks like a raw scenario (unit strings); "
            "pass bufsim.Scenario.load(raw) or its .normalized dict"
        )
    return scenario, None


def _view(scenario: dict) -> _View:
    link = _get(scenario, "link", "scenario")
    cap = float(check_positive("scenario.link.capacity_bps", _get(link, "capacity_bps", "scenario.link")))
    buf = int(check_int_at_least("scenario.link.buffer_pkts", _get(link, "buffer_pkts", "scenario.link"), 0))
    pkt = float(check_positive("scenario.link.packet_size_bytes", _get(link, "packet_size_bytes", "scenario.link")))
    qdisc = str(link.get("qdisc", "droptail"))
    bg = 0.0
    for i, b in enumerate(scenario.get("background") or []):
        if b.get("kind", "poisson") != "poisson":
            raise ModelInputError(f"scenario.background[{i}].kind must be 'poisson' for the models, got {b.get('kind')!r}")
        bg += float(check_nonnegative(f"scenario.background[{i}].rate_bps", _get(b, "rate_bps", f"scenario.background[{i}]")))
    groups = scenario.get("flows") or []
    if not groups:
        raise ModelInputError("scenario.flows must contain at least one flow group")
    tcp, grp, rtt, mss, rate, loss, dack, params = [], [], [], [], [], [], [], []
    for g, f in enumerate(groups):
        path = f"scenario.flows[{g}]"
        n = int(check_int_at_least(f"{path}.count", _get(f, "count", path), 1))
        rtts = np.atleast_1d(check_positive(f"{path}.rtts_s", _get(f, "rtts_s", path)))
        if rtts.shape != (n,):
            raise ModelInputError(f"{path}.rtts_s must have one RTT per flow ({n}), got {rtts.size}")
        m = float(check_positive(f"{path}.mss_bytes", _get(f, "mss_bytes", path)))
        cap_f = np.full(n, np.inf)
        if f.get("access_rate_bps") is not None:
            cap_f = np.minimum(cap_f, float(check_positive(f"{path}.access_rate_bps", f["access_rate_bps"])))
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
        capacity_bps=cap, buffer_pkts=buf, pkt_bytes=pkt, qdisc=qdisc,
        qdisc_params=dict(link.get("qdisc_params") or {}), background_bps=bg,
        tcp=tcp, group=np.array(grp), rtt=np.concatenate(rtt), mss=np.array(mss),
        max_rate_bps=np.concatenate(rate), path_loss=np.array(loss), delayed_ack=np.array(dack),
        tcp_params=params,
    )


def _choose(v: _View, model: str) -> str:
    if model not in MODELS:
        raise ModelInputError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    variants = set(v.tcp)
    if model != "auto":
        return model
    if variants <= _AIMD:
        return "avrachenkov"
    if variants == {"highspeed"}:
        return "highspeed_red" if v.qdisc == "red" else "highspeed_mm1k"
    raise ModelInputError(
        f"model 'auto' has no analytic model for flows of tcp {sorted(variants)}: "
        "newreno/reno/aimd (avrachenkov, sqrt) or highspeed alone (highspeed_mm1k, highspeed_red)"
    )


def _require(v: _View, name: str, allowed: set[str], qdisc: str) -> None:
    bad = sorted(set(v.tcp) - allowed)
    if bad:
        raise ModelInputError(
            f"model {name!r} needs flows with tcp in {sorted(allowed)}, got {bad} in scenario.flows"
        )
    if v.qdisc != qdisc:
        raise ModelInputError(f"model {name!r} models scenario.link.qdisc {qdisc!r}, got {v.qdisc!r}")


def _tcp_capacity(v: _View, name: str) -> float:
    """Capacity left to the TCP flows by the Poisson background, bits/s (> 0)."""
    cap = v.capacity_bps - v.background_bps
    if cap <= 0:
        raise ModelInputError(
            f"scenario.background rate ({v.background_bps:g} bps) must be below "
            f"scenario.link.capacity_bps ({v.capacity_bps:g}) for model {name!r}"
        )
    return cap


def _share(weights: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Split ``total`` (one value per buffer) across flows proportionally to ``weights``."""
    return np.outer(total, weights / weights.sum())


# ----------------------------------------------------------------------------- models


def _avrachenkov(v: _View, buffers: np.ndarray, synchronized: bool):
    _require(v, "avrachenkov", _AIMD, "droptail")
    mu = _tcp_capacity(v, "avrachenkov")
    inc = np.array([v.tcp_params[g].get("a", 1.0) if t == "aimd" else 1.0 for t, g in zip(v.tcp, v.group)])
    dec = np.array([v.tcp_params[g].get("b", 0.5) if t == "aimd" else 0.5 for t, g in zip(v.tcp, v.group)])
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
            "loss_rate": np.minimum(1.0, n_sig / pkts_per_cycle),
            "mean_queue_pkts": xbar / (8.0 * v.pkt_bytes),
            "mean_queue_delay_s": xbar / v.capacity_bps,
            "goodput_bps": rate,
        }
    )
    flows = _share(v.mss * np.sqrt(inc) / v.rtt, rate)
    b0_pkts = float(av.b0(mu, alpha, beta)) / (8.0 * v.pkt_bytes)
    extra = {"b0_pkts": b0_pkts, "beta": beta, "synchronized": bool(synchronized), "saturable": offered_max >= mu}
    return table, flows, extra


def _highspeed(v: _View, buffers: np.ndarray, qdisc: str):
    name = "highspeed_red" if qdisc == "red" else "highspeed_mm1k"
    _require(v, name, {"highspeed"}, qdisc)
    plist = [hs.HSTCPParams(**{k: float(p[k]) for k in ("low_window", "high_window", "high_p", "high_decrease", "low_p") if k in p}) for p in v.tcp_params]
    if any(p != plist[0] for p in plist):
        raise ModelInputError(f"model {name!r} needs the same tcp_params in every flow group, got {v.tcp_params}")
    if np.ptp(v.mss) > 0:
        raise ModelInputError(f"model {name!r} needs one mss_bytes for all flows, got {sorted(set(v.mss))}")
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
        v.capacity_bps, v.rtt, bufs, packet_size_bytes=mss, params=plist[0], qdisc=qdisc,
        background_bps=v.background_bps, max_rate_bps=v.max_rate_bps, path_loss=v.path_loss, **kw,
    )
    # Per-flow goodput at the fixed point (paper 001 eq. (4) terms).
    p_i = np.clip(table["loss_rate"].to_numpy()[:, None] + v.path_loss * (1 - table["loss_rate"].to_numpy()[:, None]), 1e-300, 1 - 1e-12)
    r_i = v.rtt + table["mean_queue_delay_s"].to_numpy()[:, None]
    lam = np.minimum(np.asarray(hs.hstcp_throughput(p_i, r_i, plist[0])), v.max_rate_bps / (8.0 * mss))
    flows = lam * (1.0 - table["loss_rate"].to_numpy()[:, None]) * 8.0 * mss
    table["mean_queue_pkts"] = table["mean_queue_pkts"] * mss / v.pkt_bytes
    return table, flows, {}


def _sqrt(v: _View, buffers: np.ndarray):
    _require(v, "sqrt", _AIMD, "droptail")
    n = len(v.tcp)
    cap_tcp = _tcp_capacity(v, "sqrt")
    t_eff = n / np.sum(1.0 / v.rtt)  # harmonic mean (paper 002 section 4.1, footnote 1)
    mss = float(np.mean(v.mss))
    b = 2.0 if v.delayed_ack.all() else 1.0
    bdp = cap_tcp * t_eff / (8.0 * mss)
    sat = rules.saturable(v.capacity_bps, v.rtt, access_rate_bps=v.max_rate_bps, background_bps=v.background_bps)
    buf_tcp = buffers * v.pkt_bytes / mss
    if sat.saturable:
        loss = np.atleast_1d(rules.persistent_loss_rate(bdp, n, buf_tcp, constant=np.sqrt(3.0 / (2.0 * b))))
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
            "loss_rate": loss,
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


def _run(v: _View, model: str, buffers: np.ndarray, synchronized: bool):
    if model == "avrachenkov":
        return _avrachenkov(v, buffers, synchronized)
    if model in ("highspeed_mm1k", "highspeed_red"):
        return _highspeed(v, buffers, "red" if model == "highspeed_red" else "droptail")
    return _sqrt(v, buffers)


# ----------------------------------------------------------------------------- public


def sweep_buffer(scenario: Any, buffers_pkts, model: str = "auto", *, synchronized: bool = False) -> pd.DataFrame:
    """Evaluate a model over buffer sizes for one scenario.

    Parameters
    ----------
    scenario : bufsim.Scenario or dict
        A ``bufsim.Scenario`` (its ``.normalized`` dict is used) or the
        normalized dict itself (SI units), as returned by the Rust validator.
    buffers_pkts : int or array_like
        Buffer sizes, packets of ``link.packet_size_bytes`` (>= 0; >= 1 for
        the HighSpeed models).
    model : str
        One of :data:`MODELS` (see the module docstring).
    synchronized : bool
        For ``"avrachenkov"``: all flows cut at every congestion event.

    Returns
    -------
    pandas.DataFrame
        One row per buffer: ``buffer_pkts``, ``utilization``, ``loss_rate``,
        ``mean_queue_delay_s`` (s), ``mean_queue_pkts``, ``goodput_bps``
        (plus ``offered_load`` for the HighSpeed models).
    """
    v = _view(_normalized(scenario)[0])
    name = _choose(v, model)
    bufs = np.atleast_1d(check_int_at_least("buffers_pkts", buffers_pkts, 0))
    table, _, _ = _run(v, name, bufs, synchronized)
    return table.reset_index(drop=True)


def predict(scenario: Any, model: str = "auto", *, synchronized: bool = False) -> Result:
    """Predict the scenario's metrics at its own buffer size with an analytic model.

    Parameters
    ----------
    scenario : bufsim.Scenario or dict
        A ``bufsim.Scenario`` (its ``.normalized`` dict is used) or the
        normalized dict itself (SI units), as returned by the Rust validator.
    model : str
        One of :data:`MODELS` (see the module docstring).
    synchronized : bool
        For ``"avrachenkov"``: all flows cut at every congestion event.

    Returns
    -------
    bufsim.result.Result
        ``summary`` with ``utilization``, ``goodput_bps``, ``drop_rate``,
        ``mean_queue_pkts``, ``mean_queue_delay_s`` and model-specific keys;
        ``flows`` (``flow``, ``group``, ``tcp``, ``rtt_s``, ``goodput_bps``);
        ``provenance`` with ``engine = "model:<name>"`` and ``version``.
    """
    t0 = time.perf_counter()
    scenario, digest = _normalized(scenario)
    v = _view(scenario)
    name = _choose(v, model)
    table, flows, extra = _run(v, name, np.array([v.buffer_pkts]), synchronized)
    row = table.iloc[0].to_dict()
    summary = {
        "utilization": float(row["utilization"]),
        "goodput_bps": float(row["goodput_bps"]),
        "drop_rate": float(row["loss_rate"]),
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
        "seed": scenario.get("seed"),
        "wall_s": time.perf_counter() - t0,
    }
    if digest is not None:
        provenance["scenario_hash"] = digest
    if name == "avrachenkov":
        provenance["synchronized"] = bool(synchronized)
    return Result(summary=summary, flows=flows_df, provenance=provenance, scenario=scenario)
