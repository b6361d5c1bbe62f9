"""What a finished search says beyond its answer: notes for :attr:`Advice.notes`.

Where the fluid scan or the analytic model puts an edge more than
:data:`~bufsim.advise.search.fluid_scan.ENGINE_GAP` away from the packet engine's, and
why (:func:`engine_gap_notes`); where unfinished transfers left a
completion time only a lower bound (:func:`unjudged_notes`); where flows
never sent data or sat idle through a run's window (:func:`silent_flow_notes`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pandas as pd

from bufsim import fmt
from bufsim.advise.objectives import flow_timeout_rate
from bufsim.advise.rules import Model
from bufsim.advise.search.fluid_scan import ENGINE_GAP, FluidScan
from bufsim.advise.search.packet import Edges
from bufsim.advise.search.plan import Plan


def engine_gap_notes(
    p: Plan,
    scan: FluidScan,
    runs: Sequence[pd.DataFrame],
    edges: Edges,
    model: Model | None = None,
) -> list[str]:
    """A note per edge where the fluid scan or the analytic model and the
    packet engine differ by more than :data:`ENGINE_GAP`.

    The edges compared: the first grid buffer meeting every objective that
    grows with the buffer (:attr:`Edges.lower`) and the last meeting every
    delay objective (:attr:`Edges.upper`), each where the packet engine
    found it and the other engine measures all of those objectives (the
    fluid scan's :attr:`FluidScan.guess_up` and ``guess_down``; the model's
    from its values on the grid). The packet engine decides; the note says
    by how much the other differs and what it assumes: for the fluid form
    against what the packet runs measured at the edge (loss
    synchronization, timeouts) and where the fluid engine put the edge at
    the measured synchronization (:attr:`FluidScan.resynced`), for the model
    its stated assumptions. Also when no buffer meets every objective.

    Parameters
    ----------
    p : Plan
        The search's plan (its objectives, grid, scenario and fluid form).
    scan : FluidScan
        What the fluid scan and its resync found.
    runs : sequence of pandas.DataFrame
        The search's run tables.
    edges : Edges
        The grid indices the packet search found.
    model : Model, optional
        The analytic model's curve over the grid (:func:`bufsim.advise.rules.model_columns`).

    Returns
    -------
    list of str
        One note per edge that differs, buffers in packets and their ratio.
    """
    n = len(p.grid)
    others = []
    if not scan.table.empty:
        others.append(("the fluid scan", scan.objs, scan.guess_up, scan.guess_down))
    if model is not None:
        on_grid = model.curve.set_index("buffer_pkts").reindex([float(b) for b in p.grid])
        covered = [o for o in p.objs if o.key in on_grid and on_grid[o.key].notna().all()]
        edge: dict[bool, int | None] = {}
        for grows in (True, False):
            objs = [o for o in covered if o.monotone and o.grows_with_buffer == grows]
            ok = [i for i in range(n) if all(o.holds([on_grid[o.key].iloc[i]], 0) for o in objs)]
            edge[grows] = (ok[0] if grows else ok[-1]) if objs and ok else None
        others.append((f"the analytic model ({model.name})", covered, edge[True], edge[False]))
    notes = []
    for grows in (True, False):
        objs = [o for o in p.objs if o.monotone and o.grows_with_buffer == grows]
        packet = edges.lower if grows else edges.upper
        if not objs or packet is None or not 0 <= packet < n:
            continue
        pb = float(p.grid[packet])
        for engine, covered, up, down in others:
            i = up if grows else down
            if i is None or any(o not in covered for o in objs):
                continue
            ratio = p.grid[i] / pb
            if 1 / ENGINE_GAP <= ratio <= ENGINE_GAP:
                continue
            why = (
                _fluid_gap(p, scan, runs, grows, pb)
                if engine == "the fluid scan"
                else f"The model ({model.source}) assumes: {'; '.join(model.assumptions)}"
            )
            notes.append(
                f"engines disagree on {' and '.join(o.text for o in objs)}: the packet engine "
                f"decides (it holds {'from' if grows else 'up to'} {fmt.number(pb)} packets); {engine} puts "
                f"that edge at {fmt.number(p.grid[i])} packets ({fmt.value(ratio, 3)}x). {why}"
            )
    return notes


def _fluid_gap(
    p: Plan, scan: FluidScan, runs: Sequence[pd.DataFrame], grows: bool, pb: float
) -> str:
    """Why the fluid scan's edge may differ from the packet engine's at
    ``pb`` packets: what the fluid form assumes, what the packet runs
    measured there, and (for the edge of the objectives that grow with the
    buffer) the fluid edge at the measured synchronization."""
    table = pd.concat(runs, ignore_index=True)
    g = table[(table["engine"] == "packet") & (table["buffer_pkts"] == pb)]
    sync = float(g["sync_mean"].mean())
    # The runs' own rate (Runner.packet adds it by flow_timeout_rate): the
    # costs' figure, by the same law where a runs table lacks it.
    rate = (
        g["flow_timeout_rate"]
        if "flow_timeout_rate" in g
        else flow_timeout_rate(g, float(p.norm["duration_s"]))
    )
    timeouts = float(rate.mean())
    x = (p.fluid_raw.get("fluid") or {}).get("sync")
    assumed = (
        "every flow cutting its window at each overflow (fluid.sync unset)"
        if x is None
        else f"at least {fmt.number(x)} of the flows cutting at each overflow (fluid.sync)"
    )
    why = ""
    if grows and scan.resynced is not None:
        rx, edge, measured, f = scan.resynced
        if edge is None:
            at = f"still above {fmt.number(p.grid[scan.guess_up])} packets"
        else:
            at = f"at {fmt.number(p.grid[edge])} packets ({fmt.value(p.grid[edge] / pb, 3)}x the packet engine's edge)"
            if p.grid[edge] < pb and timeouts > 0:
                at += ": below it, as the fluid model loses no time to timeouts"
        why = (
            f". The packet runs measured a synchronization of {fmt.metric('sync_mean', measured)} where "
            f"the fluid scan had {fmt.metric('sync_mean', f)}; with fluid.sync = {fmt.number(rx)} the fluid "
            f"engine puts the edge {at}"
        )
    elif grows and p.grid[scan.guess_up] > pb and sync < 0.5:
        why = (
            ": with fewer flows cutting per loss event, less buffer keeps the link busy, so the "
            "fluid form overstates the buffer"
        )
    return (
        f"The fluid form has {assumed}; the packet runs at {fmt.number(pb)} packets measured a loss "
        f"synchronization of {fmt.metric('sync_mean', sync)} (sync_mean) and "
        f"{fmt.ratio(timeouts)} timeouts per flow per second (whole run), which the "
        f"fluid model has no notion of{why}"
    )


def unjudged_notes(unjudged: Mapping[tuple[int, str], tuple[float, int, int]]) -> list[str]:
    """One note per completion-time metric that unfinished transfers left
    unjudged at some buffers: where, its lower bound, the unfinished share.

    Parameters
    ----------
    unjudged : mapping
        (buffer in packets, summary key) -> (the smallest lower bound of the
        metric there, SI units; transfers unfinished; transfers started)
        (:attr:`~bufsim.advise.search.probes.Probes.unjudged`).

    Returns
    -------
    list of str
        One note per metric, in key order.
    """
    notes = []
    for key in sorted({k for _, k in unjudged}):
        at = sorted((b, v) for (b, k), v in unjudged.items() if k == key)
        lost = [v[1] / v[2] for _, v in at]
        notes.append(
            f"{key} cannot be judged at {len(at)} buffer{'s' if len(at) > 1 else ''} "
            f"({', '.join(str(b) for b, _ in at)} packets): {min(lost):.0%}-{max(lost):.0%} of the "
            f"transfers started were unfinished when the runs ended, so it is only known to be "
            f"{fmt.metric(key, min(v[0] for _, v in at), censored=True)}; the objective counts as not met there "
            "(a longer duration lets them finish; timeouts in the runs table say why they stall)"
        )
    return notes


def silent_flow_notes(runs: pd.DataFrame) -> list[str]:
    """One note per flow group whose flows never sent data, or delivered
    nothing in the window, in some packet runs: what ``bufsim run`` prints
    for one run (:func:`bufsim.cli.silent_flows`), over the measured points.

    Parameters
    ----------
    runs : pandas.DataFrame
        The search's runs (a row per buffer and seed) with the summary's
        ``never_started_group<k>``, ``never_started_syn_lost_group<k>`` and
        ``idle_group<k>`` (flow counts, present where a run had such flows).

    Returns
    -------
    list of str
        Per group and kind: the runs with such flows, their buffers
        (packets) and the most flows in one run; the flows waiting for a SYN
        retry after a lost SYN where any were.
    """
    if runs.empty:
        return []
    if "engine" in runs:
        runs = runs[runs["engine"] == "packet"]
    notes = []
    found = [m for c in runs.columns if (m := re.fullmatch(r"(never_started|idle)_group(\d+)", c))]
    # Group by group, flows that never started before idle ones.
    for m in sorted(found, key=lambda m: (int(m.group(2)), m.group(1) == "idle")):
        col, (kind, g) = m.group(0), m.groups()
        hit = runs[runs[col].fillna(0) > 0]
        if hit.empty:
            continue
        buffers = sorted({int(b) for b in hit["buffer_pkts"]})
        at = ", ".join(str(b) for b in buffers)
        what = (
            "never sent data"
            if kind == "never_started"
            else "delivered nothing in the window (stalled: waiting for a retransmission timeout)"
        )
        why = ""
        lost = f"never_started_syn_lost_group{g}"
        if kind == "never_started" and lost in hit and hit[lost].fillna(0).max() > 0:
            why = (
                f" (at most {int(hit[lost].fillna(0).max())} waiting for a SYN retry after a "
                "lost SYN)"
            )
        notes.append(
            f"flows of group {g} {what} in {len(hit)} of {len(runs)} packet runs "
            f"(buffer{'s' if len(buffers) > 1 else ''} {at} packets), up to "
            f"{int(hit[col].max())} in a run{why}: their goodput is 0, which lowers "
            "Jain's index and the group's share"
        )
    return notes
