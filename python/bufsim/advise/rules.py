"""What the published rules and the analytic models say, before any packet run.

:func:`rule_rows` gives a row per published rule (BDP, Stanford
``CT/sqrt(N)``, paper 002's loss formula, paper 003's B0, paper 001's
HighSpeed fixed point, DCTCP's K + N, paper 000's transparent regime) with
its buffer, or why it does not apply to the traffic; :func:`model_columns`
adds what the analytic model (:func:`bufsim.models.predict`) predicts at
each row's buffer. These rows start :attr:`bufsim.advise.Advice.table`
(:func:`table_row`), and the search measures their buffers with the packet
engine. The log grid of buffers (:func:`buffer_grid`) and the scenario at
one of them (:func:`with_buffer`) are here too: the HighSpeed rule, the
model and the search share them. Buffers in packets.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, fmt, models
from bufsim.advise.fluid import fluid_form
from bufsim.advise.objectives import Objective
from bufsim.scenario import Scenario


def buffer_grid(lo: float, hi: float, per_doubling: int) -> list[int]:
    """Whole-packet buffers from ``lo`` to ``hi``, ``per_doubling`` per factor 2.

    Parameters
    ----------
    lo, hi : float
        The first and the last buffer, packets (``hi >= lo > 0``).
    per_doubling : int
        Points per doubling of the buffer: 4 a ratio of 2^(1/4) (19%)
        between neighbours, 2 of 41%.

    Returns
    -------
    list of int
        Buffers in packets, ascending, each at least 1; points that round
        to the same whole packet appear once.
    """
    n = int(math.ceil(math.log2(hi / lo) * per_doubling)) + 1
    vals = sorted({max(1, int(round(lo * 2 ** (k / per_doubling)))) for k in range(n)})
    return vals


def with_buffer(raw: Mapping[str, Any], b: float, axis: str = "link.buffer") -> dict[str, Any]:
    """A copy of a scenario as written with its buffer ``axis`` set to ``b``.

    Parameters
    ----------
    raw : mapping
        The scenario as written (the axis's table present).
    b : float
        The buffer, packets; truncated to a whole packet.
    axis : str
        ``"link.buffer"``, ``"pool.size"`` for a shared pool,
        ``"links[].buffer"``: each link's of a chain, or ``"fabric.buffer"``:
        each switch's of a fabric (in bytes, ``fabric.packet_size`` given).

    Returns
    -------
    dict
        A deep copy of ``raw`` with ``<axis> = "<b>pkt"``.
    """
    s = copy.deepcopy(dict(raw))
    if axis == "fabric.buffer":
        # A switch's buffer is written in bytes: b whole packets of the
        # fabric's packet size, one buffer for every switch.
        fabric = s["fabric"]
        fabric.pop("buffer_per_port_per_gbps", None)
        size = _core.parse_quantity(fabric["packet_size"], "size")
        fabric["buffer"] = f"{int(b) * int(size)}B"
        return s
    if axis == "links[].buffer":
        for link in s["links"]:
            link["buffer"] = f"{int(b)}pkt"
        return s
    table, field = axis.split(".")
    s[table][field] = f"{int(b)}pkt"
    return s


def kept_spine_buffer(raw: Mapping[str, Any]) -> str | None:
    """A fabric scenario's ``fabric.spine_buffer`` as written (bytes, e.g.
    ``"1MB"``): the spines' buffer, which advise keeps while it sizes the
    leaves; None when absent or when the scenario is not a fabric."""
    spine = raw.get("fabric", {}).get("spine_buffer")
    return None if spine is None else str(spine)


def table_row(source: str, b: float, applies: bool, note: str) -> dict[str, Any]:
    """One row of :attr:`bufsim.advise.Advice.table` before its packet columns.

    Parameters
    ----------
    source : str
        The rule, model or engine that gives the buffer (``"BDP"``,
        ``"fluid scan"``, ``"recommended"``, ...).
    b : float
        Its buffer, packets (NaN where it gives none).
    applies : bool
        Whether it applies to this traffic (for ``"recommended"``: whether
        some buffer meets every objective).
    note : str
        How it was computed, or why it does not apply.

    Returns
    -------
    dict
        ``source``, ``buffer_pkts`` (float, packets), ``applies``, ``note``.
    """
    return {"source": source, "buffer_pkts": float(b), "applies": applies, "note": note}


def left_out_notes(norm: Mapping[str, Any]) -> list[str]:
    """Notes on the groups the rules that count long-lived flows leave out.

    Parameters
    ----------
    norm : mapping
        The normalized scenario (:attr:`bufsim.Scenario.normalized`).

    Returns
    -------
    list of str
        One note per flow group whose traffic is not persistent (finite,
        open or closed).
    """
    return [
        f"flows[{i}] ({g['kind']} traffic) is left out of the rules that count long-lived flows"
        for i, g in enumerate(norm["flows"])
        if g["kind"] != "persistent"
    ]


def default_stack_notes(raw: Mapping[str, Any]) -> list[str]:
    """A note for the flow groups that name no ``stack``: the answer assumes
    the default ``linux`` profile (``crates/bufsim-core/src/tcp/stack.rs``:
    an initial window of 10 packets, a 200 ms minimum RTO, delayed ACKs,
    RACK), and naming a profile keeps the scenario's meaning.

    Parameters
    ----------
    raw : mapping
        The scenario as written (before validation fills in the stack).

    Returns
    -------
    list of str
        One note naming those groups, or none when every group names one.
    """
    unnamed = [i for i, g in enumerate(raw.get("flows", [])) if "stack" not in g]
    if not unnamed:
        return []
    groups = ", ".join(f"flows[{i}]" for i in unnamed)
    return [
        f"{groups} name no stack, so this answer assumes the default linux profile (an "
        "initial window of 10 packets, a 200 ms minimum RTO, delayed ACKs); set "
        'stack = "linux" to keep that meaning, or "rfc" for the RFCs\' minimums'
    ]


def _persistent_counts(norm: Mapping[str, Any]) -> dict[str, int]:
    """Long-lived flows per canonical TCP variant name."""
    out: dict[str, int] = {}
    for g in norm["flows"]:
        if g["kind"] == "persistent":
            out[g["tcp"]] = out.get(g["tcp"], 0) + int(g["count"])
    return out


def _flow_list(counts: Mapping[str, int], skip: Sequence[str] = ()) -> str:
    """``"1000 cubic, 5 bbr"``: the long-lived flows per variant, but those in ``skip``."""
    return ", ".join(f"{k} {t}" for t, k in sorted(counts.items()) if t not in skip)


def _left_out(counts: Mapping[str, int], covered: Sequence[str]) -> str:
    """``"; left out: 1000 cubic"`` for the long-lived flows a model does not cover."""
    rest = _flow_list(counts, covered)
    return f"; left out: {rest}" if rest else ""


def _only_variant(norm: Mapping[str, Any], tcp: str) -> dict[str, Any]:
    """``norm`` with only the long-lived groups of variant ``tcp``."""
    out = dict(norm)
    out["flows"] = [g for g in norm["flows"] if g["kind"] == "persistent" and g["tcp"] == tcp]
    return out


def saturation(norm: Mapping[str, Any]) -> models.SaturationCheck | None:
    """Paper 002 section 3.2 on the scenario: can its traffic fill the link?

    Long-lived flows offer at most ``min(access rate, rwnd / RTT)`` each
    (:func:`bufsim.models.saturable`); open traffic offers its load and
    background its rate; reverse groups (two-way traffic) load the other
    direction.

    Parameters
    ----------
    norm : mapping
        The normalized scenario (:attr:`bufsim.Scenario.normalized`).

    Returns
    -------
    bufsim.models.SaturationCheck or None
        Whether the link is saturable and the largest offered rate (bits/s)
        and load (fraction of the capacity); None when a closed-loop group
        makes the offered rate unbounded.
    """
    cap = norm["link"]["capacity_bps"]
    rtts, acc, rw = [], [], []
    extra = sum(b["rate_bps"] for b in norm.get("background", []))
    # A reverse group (two-way traffic) sends over the reverse link.
    for g in (g for g in norm["flows"] if not g.get("reverse")):
        if g["kind"] == "closed":
            return None
        if g["kind"] == "open":
            extra += (g.get("offered_load") or 0.0) * cap
            continue
        rtts += list(g["rtts_s"])
        acc += [g.get("access_rate_bps") or math.inf] * len(g["rtts_s"])
        w = g.get("rwnd_pkts")
        rw += [w * g["mss_bytes"] if w else math.inf] * len(g["rtts_s"])
    if not rtts:
        return models.SaturationCheck(extra >= cap, extra, extra / cap)
    return models.saturable(cap, rtts, access_rate_bps=acc, rwnd_bytes=rw, background_bps=extra)


def rule_rows(
    norm: Mapping[str, Any], objectives: list[Objective], grid_hi: float
) -> list[dict[str, Any]]:
    """Every published rule's buffer for this scenario and objectives, or why
    it does not apply.

    The rules: BDP (C x mean RTT), Stanford ``CT/sqrt(N)`` (paper 002 eq.
    1), paper 002's loss formula (eq. 3, with a ``drop_rate`` objective),
    paper 003's B0 for synchronized and desynchronized AIMD flows, paper
    001's HighSpeed fixed point (with a ``utilization`` objective,
    drop-tail), DCTCP's K + N (Alizadeh 2010, only when some flows are
    DCTCP) and paper 000's transparent regime (an unsaturable link with a
    ``drop_rate`` objective). With mixed TCP variants each rule takes the
    long-lived flows it covers and its note names those it left out.

    Parameters
    ----------
    norm : mapping
        The normalized scenario (:attr:`bufsim.Scenario.normalized`).
    objectives : list of Objective
        The objectives; their bounds enter the loss, HighSpeed and
        transparent-regime rules.
    grid_hi : float
        The largest buffer the HighSpeed fixed point is solved for, packets.

    Returns
    -------
    list of dict
        One :func:`table_row` per rule (``buffer_pkts`` in packets, NaN
        where it does not apply).
    """
    link = norm["link"]
    bdp = float(link["bdp_pkts"])
    # Mixed variants: each model takes the long-lived flows it covers and
    # says which it left out.
    counts = _persistent_counts(norm)
    n, tcps = sum(counts.values()), sorted(counts)
    rows: list[dict[str, Any]] = []

    def add(source: str, b: float, applies: bool, note: str) -> None:
        rows.append({"source": source, "buffer_pkts": float(b), "applies": applies, "note": note})

    add("BDP", bdp, True, f"C x mean RTT ({fmt.number(link['bdp_rtt_s'] * 1e3)} ms)")
    if n > 0:
        add(
            "Stanford CT/sqrt(N)",
            float(models.stanford_buffer_pkts(bdp, n)),
            True,
            f"N = {n} long-lived flows (paper 002 eq. 1)",
        )
    else:
        add("Stanford CT/sqrt(N)", math.nan, False, "no long-lived flows: N = 0")
    loss = [o for o in objectives if o.key == "drop_rate"]
    if loss and n > 0:
        b = float(models.loss_constrained_buffer_pkts(bdp, n, max(loss[0].bound, 1e-9)))
        add(
            "loss formula (paper 002 eq. 3)",
            b,
            True,
            f"p = (0.87 N)^2 / (CT + B)^2 <= {fmt.number(loss[0].bound)}, N = {n}",
        )
    elif loss:
        add("loss formula (paper 002 eq. 3)", math.nan, False, "needs long-lived flows")
    else:
        add("loss formula (paper 002 eq. 3)", math.nan, False, "no drop_rate objective")
    n_aimd = sum(counts.get(t, 0) for t in ("newreno", "aimd"))
    for sync in (True, False):
        name = f"B0 {'synchronized' if sync else 'desynchronized'} (paper 003)"
        if n_aimd:
            b = float(models.b0_symmetric(bdp, n_aimd, synchronized=sync))
            note = f"smallest buffer for full utilization, N = {n_aimd} AIMD flows"
            add(name, b, True, note + _left_out(counts, ("newreno", "aimd")))
        else:
            add(name, math.nan, False, f"AIMD/Reno flows only; here {tcps or 'none'}")
    util = [o for o in objectives if o.key == "utilization"]
    n_hs = counts.get("highspeed", 0)
    if n_hs and util and link["qdisc"] == "droptail":
        hs_norm = _only_variant(norm, "highspeed")
        bufs = np.array(buffer_grid(1, grid_hi, 4))
        t = models.sweep_buffer(hs_norm, bufs, model="highspeed_mm1k")
        ok = t[t["utilization"] >= util[0].bound]
        b = float(ok["buffer_pkts"].min()) if len(ok) else math.nan
        add(
            "HSTCP fixed point (paper 001)",
            b,
            bool(len(ok)),
            f"M/M/1/K fixed point reaching {util[0].text}, N = {n_hs} HighSpeed flows"
            + _left_out(counts, ("highspeed",)),
        )
    else:
        why = (
            "no utilization objective"
            if not util
            else "drop-tail only"
            if n_hs
            else f"HighSpeed flows only; here {tcps or 'none'}"
        )
        add("HSTCP fixed point (paper 001)", math.nan, False, why)
    _dctcp_rule(link, n, tcps, add)
    sat = saturation(norm)
    if sat is not None and not sat.saturable and loss:
        b = float(models.transparent_buffer_pkts(sat.max_load, max(loss[0].bound, 1e-12)))
        add(
            "transparent regime (paper 000)",
            b,
            True,
            f"offered load {sat.max_load:.2f} < 1: M/D/1/K loss <= {fmt.number(loss[0].bound)}",
        )
    else:
        why = (
            "the link is saturable (elastic regime)"
            if sat is None or sat.saturable
            else "no drop_rate objective"
        )
        add("transparent regime (paper 000)", math.nan, False, why)
    return rows


def _dctcp_rule(link: Mapping[str, Any], n: int, tcps: list[str], add: Callable) -> None:
    """DCTCP through step marking at K: the queue peaks at Q_max = K + N
    (Alizadeh et al., SIGCOMM 2010, section 3.3 eq. (9)), so that buffer
    holds it without loss; the link stays busy when K > C x RTT / 7 (eq. (13)).
    The row appears only when some flows are DCTCP."""
    name = "DCTCP K + N (Alizadeh 2010)"
    if "dctcp" not in tcps:
        return
    if not (all(t == "dctcp" for t in tcps) and link["qdisc"] == "threshold"):
        here = f"{tcps or 'none'} through {link['qdisc']}"
        add(
            name, math.nan, False, f"DCTCP flows through the threshold discipline only; here {here}"
        )
        return
    qp = link["qdisc_params"]
    k = qp["k"] if qp["k_unit"] == "packets" else qp["k"] / link["packet_size_bytes"]
    k_min = float(link["bdp_pkts"]) / 7
    verdict = "holds" if k > k_min else "fails: expect the queue to empty after each cut"
    add(
        name,
        float(k + n),
        True,
        f"Q_max = K + N = {fmt.number(k)} + {n} (eq. 9); full utilization needs "
        f"K > C x RTT / 7 = {k_min:.1f} packets (eq. 13): {verdict}",
    )


@dataclass
class Model:
    """The analytic model over the buffers of a search (:func:`_model_curve`).

    Attributes
    ----------
    name : str
        The model ``"auto"`` chose (``avrachenkov``, ``highspeed_mm1k``, ...).
    source : str
        Its paper and equation.
    assumptions : list of str
        What it assumes, in words (:data:`bufsim.models.scenario.SPECS`).
    curve : pandas.DataFrame
        One row per buffer (``buffer_pkts``, packets): its summary metrics
        (``utilization``, ``drop_rate``, ``mean_queue_delay_s``, ...).
    """

    name: str
    source: str
    assumptions: list[str]
    curve: pd.DataFrame


def _model_form(raw: Mapping[str, Any], norm: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The scenario the analytic models see when they do not cover it all,
    and what changed: the fluid form's stand-ins (:func:`fluid_form`: open
    traffic as Poisson background, which every model sees as a constant
    rate) and, of the long-lived flows, only the family with an analytic
    model (AIMD: ``avrachenkov``; HighSpeed: the fixed point) that has the
    most flows; the others are named as left out."""
    out, changed = fluid_form(raw, norm, stack=False)
    counts = _persistent_counts(norm)
    families = (("newreno", "aimd"), ("highspeed",))
    covered = max(families, key=lambda fam: sum(counts.get(t, 0) for t in fam))
    persistent = [g for g in norm["flows"] if g["kind"] == "persistent"]
    out["flows"] = [g for g, n in zip(out["flows"], persistent) if n["tcp"] in covered]
    notes = [changed] if changed else []
    left = _left_out(counts, covered)
    if left:
        notes.append(left.removeprefix("; "))
    return out, "; ".join(notes)


def _model_curve(
    raw: Mapping[str, Any], buffers: Iterable[float]
) -> tuple[Model | None, list[str]]:
    """The analytic model (:func:`bufsim.models.predict`, ``"auto"``) at
    each of ``buffers`` (packets, rounded; those below 1 skipped). A
    scenario no model covers as a whole is predicted on its model form
    (:func:`_model_form`), with a note saying what that changed.

    Returns
    -------
    (Model or None, list of str)
        The model and its curve (None: no model for this traffic), and the
        notes.
    """
    if "links" in raw:
        return None, ["no analytic model for a chain of links: the models cover one bottleneck"]
    if "fabric" in raw:
        return None, ["no analytic model for a fabric: the models cover one bottleneck"]
    form, note = dict(raw), ""
    try:
        models.predict(Scenario(with_buffer(form, 1)), model="auto")
    except (models.ModelInputError, ValueError):
        form, changed = _model_form(raw, Scenario(raw).normalized)
        if not form["flows"]:
            flows = _flow_list(_persistent_counts(Scenario(raw).normalized)) or "none"
            return None, [
                "no analytic model for this traffic: the models cover long-lived NewReno/AIMD "
                f"(paper 003) and HighSpeed (paper 001) flows; this scenario's long-lived flows: {flows}"
            ]
        note = f"no analytic model covers every flow: the model columns are for {changed}"
    rows, about = [], {}
    for b in sorted({int(round(b)) for b in buffers if b == b and b >= 1}):
        try:
            r = models.predict(Scenario(with_buffer(form, b)), model="auto")
        except (models.ModelInputError, ValueError) as e:
            return None, [f"no analytic model for this traffic: {e}"]
        rows.append({**r.summary, "buffer_pkts": float(b)})
        about = {"name": r.provenance["engine"].removeprefix("model:"), **r.provenance["model"]}
    model = Model(
        name=about.get("name", ""),
        source=about.get("source", ""),
        assumptions=list(about.get("assumptions", [])),
        curve=pd.DataFrame(rows) if rows else pd.DataFrame(columns=["buffer_pkts"]),
    )
    return model, [note] if note else []


def model_columns(
    table: pd.DataFrame, raw: Mapping[str, Any], objs: list[Objective], grid: Sequence[int] = ()
) -> tuple[list[str], Model | None]:
    """What the analytic model says at each row's buffer of ``table``, for
    the objectives it predicts (``"<objective> (model)"``; NaN where it has
    no answer), computed with the ``grid`` buffers too (:func:`_model_curve`,
    for :func:`engine_gap_notes`).

    Parameters
    ----------
    table : pandas.DataFrame
        The advice's table (a ``buffer_pkts`` column, packets); gains one
        column per objective, in place.
    raw : mapping
        The scenario as written (its buffer aside).
    objs : list of Objective
        The objectives.
    grid : sequence of int
        The search's grid of buffers, packets.

    Returns
    -------
    (list of str, Model or None)
        The notes and the model.
    """
    model, notes = _model_curve(raw, [*table["buffer_pkts"], *grid])
    curve = model.curve.set_index("buffer_pkts") if model is not None else pd.DataFrame()
    for o in objs:
        table[f"{o.text} (model)"] = [
            curve[o.key].get(float(round(b)), math.nan) if o.key in curve and b == b else math.nan
            for b in table["buffer_pkts"]
        ]
    return notes, model
