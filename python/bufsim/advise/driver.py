"""The entry points: :func:`advise` runs a search, :func:`cost` estimates one.

:func:`advise` checks its arguments and whether the objectives can be met
at all, fills in ``duration`` and ``warmup`` from the scenario's time
scales (:func:`with_time_scales`), runs the phases of the search
(:mod:`bufsim.advise.search`) in order, each handed what the ones before
found, and gathers their findings into an
:class:`~bufsim.advise.advice.Advice`. The steps, in words:
:mod:`bufsim.advise`.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bufsim import fmt
from bufsim.advise.advice import Advice, costs, measured_table, simulated_s
from bufsim.advise.convergence import convergence_notes
from bufsim.advise.flags import thresholds
from bufsim.advise.notes import engine_gap_notes, silent_flow_notes, unjudged_notes
from bufsim.advise.objectives import (
    COMPLETION_FORMS,
    COMPLETION_PREFIXES,
    GROUP_GOODPUT,
    STOP_BATCHES,
    STOP_MIN_BATCHES,
    AdviceError,
    Objective,
    batch_measured,
    parse_objective,
)
from bufsim.advise.rules import (
    default_stack_notes,
    kept_spine_buffer,
    left_out_notes,
    model_columns,
    rule_rows,
    saturation,
    table_row,
    with_buffer,
)
from bufsim.advise.search.fluid_scan import FluidScan, fluid_scan, resync, sync_rule
from bufsim.advise.search.fluid_scan import caveat as fluid_caveat
from bufsim.advise.search.packet import Edges, packet_search
from bufsim.advise.search.plan import (
    PLACE_KEYS,
    SWITCH_KEYS,
    Plan,
    busy_places,
    estimate,
    plan,
)
from bufsim.advise.search.probes import ADAPTIVE_MAX_FACTOR, FIRST_WAVE, Probes
from bufsim.advise.search.runs import AdviseProgress, Budget, Runner
from bufsim.advise.search.verdict import decisive, verdict
from bufsim.advise.search.verify import verify
from bufsim.scenario import Scenario
from bufsim.timescales import time_scales


def _check_arguments(
    objectives: Iterable[str], confidence: float, seeds: int, engines: Sequence[str]
) -> list[Objective]:
    objs = [parse_objective(o) for o in objectives]
    if not objs:
        raise AdviceError("give at least one objective, e.g. 'utilization>=0.98'")
    if not 0 < confidence < 1:
        raise AdviceError(f"confidence must be between 0 and 1, got {confidence!r}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise AdviceError(f"seeds must be a whole number >= 1, got {seeds!r}")
    allowed = ["rules", "fluid", "packet", *_verifiers()]
    if set(engines) - set(allowed) or "packet" not in engines:
        raise AdviceError(
            f"engines must include 'packet' and be among {', '.join(allowed)}; got {list(engines)}"
        )
    return objs


def _verifiers() -> list[str]:
    """The engines that may verify an answer at the recommended buffer
    (:attr:`bufsim.engines.Engine.verifies`): ns-3, ns-2."""
    from bufsim.engines import ENGINES

    return [name for name, e in ENGINES.items() if e.verifies]


def _engines_for(
    norm: Mapping[str, Any], engines: Sequence[str]
) -> tuple[tuple[str, ...], list[str]]:
    """The engines of ``engines`` that model scenario ``norm``, and a note
    naming those left out: with two-way traffic (``reverse``) the rules and
    the fluid engine return ACKs over an uncongested path; with a chain they
    model one bottleneck, and with a pool they and the verifying engines
    (ns-3, ns-2) model one link with its own buffer. The packet engine alone
    then sizes the buffer (a verifying engine may still check a two-way or
    a chain's answer, or say why it cannot)."""
    from bufsim.engines import ENGINES

    # The verifying simulators build two-way traffic and chains (or refuse
    # them by field), not a pool.
    if "fabric" in norm:
        what, why = "a fabric", "model one link with a buffer of its own"
        left_out = ("rules", "fluid", *_verifiers())
    elif "reverse" in norm:
        what, why = "two-way traffic (reverse)", "return ACKs over an uncongested path"
        left_out = ("rules", "fluid")
    elif "pool" in norm:
        what, why = "a shared pool", "model one link with a buffer of its own"
        left_out = ("rules", "fluid", *_verifiers())
    elif "links" in norm:
        what, why = "a chain of links", "model one bottleneck"
        left_out = ("rules", "fluid")
    else:
        return tuple(engines), []
    out = [e for e in engines if e in left_out]
    if not out:
        return tuple(engines), []
    names = {"rules": "the rules", **{name: e.label for name, e in ENGINES.items()}}
    return tuple(e for e in engines if e not in out), [
        f"{what}: {' and '.join(names[e] for e in out)} left out, as they {why}; the packet "
        "engine alone sized the buffer"
    ]


def _shared_form(scn: Scenario) -> tuple[Scenario, list[str]]:
    """A pool's or a chain's scenario as advise sizes it
    (:func:`bufsim.advise.search.plan.axis_of`), and the notes saying what the
    answer is. A pool's ``link.buffer`` (each port's own cap) is dropped,
    with a note, so that a port may take the pool up to its threshold."""
    norm = scn.normalized
    places = ", ".join(busy_places(norm))
    if "fabric" in norm:
        return _fabric_form(scn)
    if "links" in norm:
        return scn, [
            f"chain: the answer is each link's buffer (links[i].buffer, the same on all "
            f"{len(norm['links'])}); every objective holds on each link that carries flows "
            f"({places}): a run's value is its worst link's (utilization_link<k>, ...)"
        ]
    if "pool" not in norm:
        return scn, []
    p = norm["pool"]
    notes = [
        f"pool: the answer is pool.size, the buffer its {p['ports']} ports share (alpha "
        f"{fmt.number(p['alpha'])}: n busy ports hold about alpha/(1 + n alpha) of it each); every "
        f"objective holds on each port that carries flows ({places}): a run's value is its "
        "worst port's (utilization_port<k>, drop_rate_port<k>, ...)"
    ]
    raw = copy.deepcopy(scn.raw)
    # The ports' link: [link], or a one-element [[links]] (the core reads it as [link]).
    where, link = ("link", raw["link"]) if "link" in raw else ("links[0]", raw["links"][0])
    if "buffer" in link:
        notes.append(
            f"pool: {where}.buffer ({link['buffer']}, each port's own cap) left out, so that "
            "a port may take the pool up to its threshold"
        )
        del link["buffer"]
        scn = Scenario(raw)
    return scn, notes


def _fabric_form(scn: Scenario) -> tuple[Scenario, list[str]]:
    """A fabric's scenario as advise sizes it: its packet size written
    out (:func:`~bufsim.advise.rules.with_buffer` writes the buffer in
    bytes of it), and the notes saying what the answer is."""
    norm = scn.normalized
    raw = copy.deepcopy(scn.raw)
    pkt = int(norm["link"]["packet_size_bytes"])
    raw["fabric"]["packet_size"] = f"{pkt}B"
    names = [w["name"] for w in norm["fabric"]["switches"]]
    spine = kept_spine_buffer(raw)
    which = (
        f"each leaf's buffer, the spines' kept at fabric.spine_buffer ({spine})"
        if spine is not None
        else "each switch's buffer"
    )
    notes = [
        f"fabric: the answer is fabric.buffer in packets of {pkt} B, {which}; "
        f"drop_rate holds on every switch ({', '.join(names)}): a run's value is its worst "
        "switch's (drop_rate_<switch>); completion times are over all transfers"
    ]
    if "buffer_per_port_per_gbps" in raw["fabric"]:
        notes.append(
            f"fabric: buffer_per_port_per_gbps ({raw['fabric']['buffer_per_port_per_gbps']}) "
            f"replaced by fabric.buffer, one size for every {'leaf' if spine else 'switch'}"
        )
    return Scenario(raw), notes


def _check_fit(objs: list[Objective], norm: Mapping[str, Any]) -> None:
    """Refuse objectives the scenario cannot measure or meet, naming them."""
    if "fabric" in norm:
        # Each switch reports its drop rate; completion times and slowdowns
        # are the fabric's (axis fabric.buffer, plan.busy_places).
        for o in objs:
            if o.key not in SWITCH_KEYS and not o.key.startswith(COMPLETION_PREFIXES):
                raise AdviceError(
                    f"objective {o.text!r}: with a fabric advise judges drop_rate on every "
                    "switch and the completion times over all transfers; allowed: drop_rate, "
                    + ", ".join(COMPLETION_FORMS)
                )
    if "pool" in norm or "links" in norm:
        place = "port" if "pool" in norm else "link"
        for o in objs:
            if o.key not in PLACE_KEYS:
                raise AdviceError(
                    f"objective {o.text!r}: with a {'pool' if place == 'port' else 'chain'} "
                    f"advise judges each objective on every {place} that carries flows, and a "
                    f"{place} reports utilization, drop_rate, mean_queue_delay and "
                    "p99_queue_delay only"
                )
    link = norm["link"]
    # Completion times are the forward groups' (a reverse group keeps its own keys).
    finite = [
        g["kind"] for g in norm["flows"] if g["kind"] != "persistent" and not g.get("reverse")
    ]
    for o in objs:
        if GROUP_GOODPUT.fullmatch(o.key) and int(o.key.rsplit("group", 1)[1]) >= len(
            norm["flows"]
        ):
            raise AdviceError(
                f"objective {o.text!r}: the scenario has {len(norm['flows'])} flow groups"
            )
        if o.key.startswith(COMPLETION_PREFIXES) and not finite:
            raise AdviceError(
                f"objective {o.text!r}: flow completion times need transfers that finish; this "
                "scenario has only long-lived (persistent) flows; add a flow group with finite, "
                "open (arrival) or closed (users) traffic"
            )
    util = [
        o for o in objs if o.key == "utilization" and "pool" not in norm and "links" not in norm
    ]
    sat = saturation(norm)
    if util and sat is not None and sat.max_load < util[0].bound:
        raise AdviceError(
            f"objective {util[0].text!r} cannot be met at any buffer: the link is not saturable "
            f"(paper 002 section 3.2): its flows and background can offer at most {sat.max_load:.3f} of the "
            f"capacity ({fmt.number(sat.max_offered_bps / 1e6, 4)} of {fmt.number(link['capacity_bps'] / 1e6, 4)} Mbps); "
            f"it would need {fmt.number(util[0].bound * link['capacity_bps'] / 1e6, 4)} Mbps of offered traffic "
            "(more flows, faster access links or larger receive windows)"
        )


def _raw_scenario(scenario: Any) -> dict[str, Any]:
    """The scenario as written (before validation), so missing times can be filled."""
    from bufsim import scenario as sc

    if isinstance(scenario, Scenario):
        return copy.deepcopy(scenario.raw)
    if isinstance(scenario, Mapping):
        return copy.deepcopy(dict(scenario))
    if isinstance(scenario, (str, Path)):
        raw = sc.read_file(Path(scenario))
        if isinstance(raw, dict):
            sc.resolve_paths(raw, Path(scenario).parent)
            return raw
    return Scenario.load(scenario).raw  # raises the scenario error


def with_time_scales(scenario: Any) -> tuple[Scenario, str]:
    """The scenario with ``duration``/``warmup`` derived from its time scales
    (:func:`bufsim.timescales.time_scales`) where it does not give them, and
    a note saying what was chosen (empty when it gives both).

    Parameters
    ----------
    scenario : Scenario, dict or path
        As :func:`advise` takes it. A given ``duration`` is kept, and the
        derived warm-up is at most half of it.

    Returns
    -------
    (Scenario, str)
        The scenario with both times (seconds in its normalized form), and
        the note.

    Raises
    ------
    ScenarioError
        When the scenario is invalid (naming the field).
    """
    raw = _raw_scenario(scenario)
    if not isinstance(raw, dict) or ("duration" in raw and "warmup" in raw):
        return Scenario.load(scenario if not isinstance(raw, dict) else raw), ""
    probe = dict(raw)
    # A placeholder long enough for any start time, only to read the time scales.
    probe.setdefault("duration", "3600s")
    probe.pop("warmup", None)
    ts = time_scales(Scenario(probe).normalized)
    given = "duration" in raw
    if given:
        duration = Scenario(probe).normalized["duration_s"]
        warm = min(ts["warmup_s"], duration / 2)
        raw["warmup"] = f"{warm:g}s"
        note = f"warm-up {fmt.number(warm)} s derived from the scenario's time scales ({ts['why']})"
    else:
        raw["duration"] = f"{ts['duration_s']:g}s"
        raw.setdefault("warmup", f"{ts['warmup_s']:g}s")
        note = (
            f"duration {raw['duration']} and warm-up {raw['warmup']} derived from the "
            f"scenario's time scales ({ts['why']})"
        )
    return Scenario(raw), note


def cost(
    scenario: Any, objectives: Iterable[str] = ("utilization>=0.98",), *, quick: bool = False
) -> dict[str, Any]:
    """What :func:`advise` on ``scenario`` is expected to run, before it runs.

    The search's own estimate of its runs (the grid, a bisection per
    objective edge, the rules' checks; adaptive seeds and interval scans can
    add more) times what one packet run costs (:func:`bufsim.limits.estimate`
    at a buffer of one BDP).

    Parameters
    ----------
    scenario : Scenario, dict or path
        As :func:`advise` takes it (``duration`` may be left out).
    objectives : iterable of str
        The objectives (their kind sets the search); default utilization.
    quick : bool
        The ``--quick`` search.

    Returns
    -------
    dict
        ``packet_runs``, ``fluid_runs`` (counts), ``packets_per_run`` and
        ``packets`` (bottleneck packets, one run and all), ``duration_s``
        and ``warmup_s`` of each run (seconds), ``timing`` (how they were
        derived, empty when given).
    """
    from bufsim import limits

    objs = _check_arguments(objectives, 0.95, 5, ("rules", "fluid", "packet"))
    scn, timing = with_time_scales(scenario)
    _check_fit(objs, scn.normalized)
    scn, _ = _shared_form(scn)
    engines, _ = _engines_for(scn.normalized, ("rules", "fluid", "packet"))
    p = plan(scn, objs, engines=engines, seeds=5, confidence=0.95, quick=quick, budget=None)
    expected = estimate(p, rule_rows(p.norm, objs, p.hi) if "rules" in engines else [])
    at_bdp = Scenario(with_buffer(p.raw, p.bdp, p.axis))
    per_run = float(limits.estimate(at_bdp, "packet")["work"])
    return {
        "packet_runs": expected["packet"],
        "fluid_runs": expected["fluid"],
        "packets_per_run": per_run,
        "packets": per_run * expected["packet"],
        "duration_s": float(p.norm["duration_s"]),
        "warmup_s": float(p.norm["warmup_s"]),
        "timing": timing,
    }


def advise(
    scenario: Any,
    objectives: Iterable[str],
    *,
    engines: Sequence[str] = ("rules", "fluid", "packet"),
    seeds: int = 5,
    confidence: float = 0.95,
    quick: bool = False,
    budget: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    store: Any = "results",
    progress: Callable[[AdviseProgress], Any] | None = None,
    stop_early: bool = True,
    flags: Iterable[str] | None = None,
) -> Advice:
    """The smallest buffer that meets every objective, verified by the packet engine.

    Parameters
    ----------
    scenario : Scenario, dict or path
        The link and its traffic; ``link.buffer`` is ignored. Without
        ``duration`` (or ``warmup``) they are derived from the scenario's
        time scales (:func:`bufsim.timescales.time_scales`).
    objectives : iterable of str
        E.g. ``["utilization>=0.98", "p99_queue_delay<=5ms"]`` (see
        :func:`parse_objective`).
    engines : sequence of str
        Which of ``"rules"``, ``"fluid"``, ``"packet"`` take part, and a
        verifying engine (``"ns3"``, ``"ns2"``: those of
        :data:`bufsim.ENGINES` that verify): it runs the recommended buffer
        over the same seeds and a note says whether each objective holds
        there too (the answer stays the packet engine's).
    seeds : int
        Packet runs per probed buffer (seeds 1..seeds); up to
        :data:`ADAPTIVE_MAX_FACTOR` times more where a verdict is undecided.
    confidence : float
        One-sided confidence (0..1) with which each objective must hold,
        over the seeds (Student t).
    quick : bool
        A first answer in a fraction of the time: two seeds and no adaptive
        seeds (an undecided verdict stands, with a note), a grid of two
        points per doubling (the fluid scan one), no packet runs at the
        rules' buffers and no paper 004 loss-synchronization range.
    budget : int, optional
        At most this many packet runs (the search stops and says so).
    scheduler : str, optional
        A Dask scheduler address for the runs.
    workers : int, optional
        Local worker processes.
    store : str, Path, Store or None
        The results store (cached runs are reused).
    progress : callable, optional
        Called with an :class:`AdviseProgress` (its ``str`` a line of text)
        as each run finishes and each phase starts.
    stop_early : bool
        End each packet run at the first batch boundary (of
        :data:`STOP_BATCHES`, from :data:`STOP_MIN_BATCHES`) where every
        objective's verdict is known at ``confidence``
        (a sequential batch-means t test, Bonferroni over the boundaries:
        ``output.stop``); False, or an objective not measured batch by
        batch (Jain's index, completion times), runs the whole window.
    flags : iterable of str, optional
        Overrides of the flagged costs' thresholds
        (:data:`~bufsim.advise.flags.THRESHOLDS`), e.g. ``["loss>2%",
        "jain=off"]`` (:func:`~bufsim.advise.flags.parse_flag`); checked
        before any run.

    Returns
    -------
    Advice

    Raises
    ------
    AdviceError
        Bad objectives, or a target no buffer can meet (e.g. a utilization
        the traffic cannot offer).
    """
    t0 = time.perf_counter()
    objs = _check_arguments(objectives, confidence, seeds, engines)
    levels = thresholds(flags)
    scn, timing = with_time_scales(scenario)
    _check_fit(objs, scn.normalized)
    scn, pool_notes = _shared_form(scn)
    engines, engine_notes = _engines_for(scn.normalized, engines)
    # The plan: what is sized, on which grid, with how many seeds.
    p = plan(
        scn,
        objs,
        engines=engines,
        seeds=seeds,
        confidence=confidence,
        quick=quick,
        budget=budget,
        stop_early=stop_early,
    )
    notes = (
        ([timing] if timing else [])
        + pool_notes
        + engine_notes
        + default_stack_notes(p.raw)
        + left_out_notes(p.norm)
    )
    # The rules' and the models' buffers, before any run.
    rules = rule_rows(p.norm, objs, p.hi) if "rules" in engines else []
    expected = estimate(p, rules)
    runner = Runner(
        p,
        {"store": store, "scheduler": scheduler, "workers": workers},
        progress,
        total=expected["fluid"] + expected["packet"],
    )
    probes = Probes(p, runner)
    # The fluid scan: where the packet bisection starts.
    scan, fluid_note = FluidScan(), ""
    if "fluid" in engines:
        scan, fluid_note = fluid_scan(p, runner)
        fluid_note += fluid_caveat(p)
    if "rules" in engines:
        rules.append(sync_rule(p, runner, scan))
    # The packet bisection, and its verdict.
    edges = packet_search(p, probes, scan)
    notes += edges.notes
    feasible, rec, rng, binding = verdict(p, probes, edges)
    if feasible and "fluid" in engines and edges.lower is not None:
        # At the packet engine's edge of the objectives that grow with the
        # buffer: the one the fluid scan's edge is compared with.
        resync(p, runner, probes, scan, float(p.grid[edges.lower]))
    if fluid_note:
        rules.append(table_row("fluid scan", math.nan, True, fluid_note))
    table = pd.DataFrame(rules, columns=["source", "buffer_pkts", "applies", "note"])
    # The rules' buffers measured by the packet engine.
    if quick and "rules" in engines:
        notes.append("quick: the rules' buffers were not measured by the packet engine")
    elif "rules" in engines and not edges.stopped:
        try:
            probes.check_rules(table)
        except Budget:
            notes.append(f"the budget of {budget} packet runs left some rules unchecked")
    all_runs = runner.table()
    worst = (
        _worst_switch(p, runner.at(rec if feasible else p.grid[-1])) if "fabric" in p.norm else ""
    )
    table = measured_table(table, all_runs, objs, confidence, feasible, rec)
    model_notes, model = model_columns(table, p.raw, objs, p.grid)
    notes += model_notes + engine_gap_notes(p, scan, runner.runs, edges, model)
    # Convergence at the buffers the verdict rests on.
    convergence, conv_notes = convergence_notes(
        runner.runs, p.norm, objs, decisive(p.grid, edges, rng), places=bool(p.places)
    )
    notes += conv_notes + _seed_notes(p, probes, runner)
    notes += unjudged_notes(probes.unjudged)
    notes += silent_flow_notes(all_runs)
    notes.append(_stop_note(p, stop_early, all_runs))
    # The verification by another engine at the answer.
    for engine in engines:
        if engine in _verifiers() and feasible:
            notes.append(verify(p, runner, engine, int(rec)))
    runner.total = runner.done  # the bar ends full
    runner.say("done", f"done: {runner.packet_runs} packet runs")
    return Advice(
        objectives=objs,
        feasible=feasible,
        buffer_pkts=float(rec),
        buffer_bytes=float(rec) * int(p.norm["link"]["packet_size_bytes"]),
        range=rng,
        binding=binding,
        table=table,
        runs=all_runs,
        confidence=confidence,
        packet_size_bytes=int(p.norm["link"]["packet_size_bytes"]),
        method=_method(p, runner, scan, edges),
        notes=notes,
        convergence=convergence,
        duration_s=float(p.norm["duration_s"]),
        warmup_s=float(p.norm["warmup_s"]),
        costs=costs(
            table, all_runs, float(p.norm["duration_s"]), float(p.norm["warmup_s"]), confidence
        ),
        scenario=scn,
        wall_s=time.perf_counter() - t0,
        thresholds=levels,
        quick=quick,
        worst_place=worst,
    )


def _seed_notes(p: Plan, probes: Probes, runner: Runner) -> list[str]:
    """Where the seeds in waves, the adaptive seeds and the undecided
    verdicts were, in words."""
    notes = []
    if probes.first_wave:
        notes.append(
            f"seeds in waves: at {len(probes.first_wave)} of {len(probes.probed)} probed buffers the "
            f"first {FIRST_WAVE} seeds knew every verdict (the bound outside their t interval "
            f"at {fmt.number(1 - (1 - p.confidence) / 2)}, Bonferroni over two looks), so the other "
            f"{p.seeds - FIRST_WAVE} did not run: "
            + ", ".join(f"{b} packets" for b in sorted(probes.first_wave))
        )
    if probes.adaptive:
        notes.append(
            "adaptive seeds (a t interval straddled a bound): "
            + ", ".join(f"{b} packets x {k}" for b, k in sorted(probes.adaptive.items()))
        )
    if probes.undecided:
        notes.append(
            (
                f"undecided at {p.seeds} seeds (quick: no adaptive seeds): "
                if p.quick
                else f"still undecided after {ADAPTIVE_MAX_FACTOR} x {p.seeds} seeds or at the budget: "
            )
            + ", ".join(f"{b} packets" for b in sorted(set(probes.undecided)))
        )
    return notes


def _worst_switch(p: Plan, at: pd.DataFrame) -> str:
    """The switch with the most drops at a buffer and its port with the
    most, in words, from the packet runs ``at`` that buffer (their
    ``drop_rate_<switch>`` and ``drop_rate_<switch>.<port>`` columns, mean
    over seeds): the one that decides a drop_rate objective. Without a
    drop, the queue with the longest p99 queueing delay (what short
    transfers wait behind)."""
    if at.empty:
        return "No packet run at the answer names the fabric's worst switch."
    b = int(at["buffer_pkts"].iloc[0])

    def means(prefix: str) -> dict[str, float]:
        cols = [c for c in at.columns if c.startswith(prefix)]
        return {c.removeprefix(prefix): float(at[c].mean()) for c in cols}

    rates = {w: r for w, r in means("drop_rate_").items() if w in p.places}
    if not rates:
        return "The runs report no switch's drop rate."
    worst = max(rates, key=lambda w: rates[w])
    seeds = f"mean of {len(at)} seeds"
    if rates[worst] > 0:
        ports = {q: r for q, r in means(f"drop_rate_{worst}.").items()}
        port = max(ports, key=lambda q: ports[q])
        others = ", ".join(f"{w} {fmt.percent(r)}" for w, r in rates.items() if w != worst)
        spine = kept_spine_buffer(p.raw)
        kept = (
            f" Its buffer is fabric.spine_buffer ({spine}), which the search keeps."
            if spine is not None and worst.startswith("spine")
            else ""
        )
        return (
            f"Worst switch at {b} packets: {worst}, drop rate {fmt.percent(rates[worst])}, "
            f"most at its port {port} ({fmt.percent(ports[port])}; {seeds}; {others}).{kept}"
        )
    delays = means("p99_queue_delay_s_")
    if not delays:
        return f"No switch drops at {b} packets ({seeds})."
    queue = max(delays, key=lambda q: delays[q])
    nic = ", a host's NIC, which fabric.buffer does not size" if queue.startswith("host") else ""
    return (
        f"No switch drops at {b} packets; the longest queueing is at {queue}{nic}: p99 "
        f"{fmt.metric('p99_queue_delay_s', delays[queue])} ({seeds})."
    )


def _stop_note(p: Plan, stop_early: bool, runs: pd.DataFrame) -> str:
    """What the packet runs' stop rule (``output.stop``) did, in words;
    ``runs`` every run of the search."""
    if not stop_early:
        return "every packet run measured its whole window (stop_early=False, --full-runs)"
    if p.places:
        return (
            "every packet run measured its whole window: each objective is judged on every "
            "port, link or switch carrying flows, which the runs' batch rule does not measure"
        )
    if p.stop is None:
        others = ", ".join(o.text for o in p.objs if not batch_measured(o))
        return (
            f"every packet run measured its whole window: {others} is not measured batch "
            "by batch, so no run stops early"
        )
    packet = runs[runs["engine"] == "packet"] if "engine" in runs else runs
    if packet.empty:
        return "no packet run"
    stopped = int((packet["stopped_early"] == 1.0).sum())
    duration = float(p.norm["duration_s"])
    sim = float(simulated_s(packet, duration).sum())
    return (
        f"{stopped} of {len(packet)} packet runs stopped at a batch boundary once every "
        f"objective's verdict was known (output.stop: the window in {STOP_BATCHES} batches, "
        f"tested from batch {STOP_MIN_BATCHES} on with a t test on the batch means at "
        f"{fmt.number(p.confidence)}, Bonferroni over the boundaries): {fmt.number(sim, 4)} s simulated of "
        f"{fmt.number(len(packet) * duration, 4)} s at full length"
    )


def _method(p: Plan, runner: Runner, scan: FluidScan, edges: Edges) -> str:
    """How the search went, in words (:attr:`Advice.method`)."""
    free = any(not o.monotone for o in p.objs)
    return (
        f"Packet search over a log grid of {len(p.grid)} buffers (1 to {p.grid[-1]} packets, "
        f"{p.per_doubling} per doubling)"
        + (
            ", from the fluid scan's edges (galloping, then bisection)"
            if scan.guess_up is not None or scan.guess_down is not None
            else ", bisection"
        )
        + ", each step where the packet measurements so far put the edge when they can"
        + (
            f" (the lower edge's search started at {p.grid[edges.calibrated]} packets: the "
            f"fluid's edge at {p.grid[scan.guess_up]} log-interpolated between its grid points "
            "and moved by the packet engine's measurements)"
            if edges.calibrated is not None and scan.guess_up is not None
            else ""
        )
        + (
            ", an interval search (scan, then both edges bisected) for flow completion times"
            if free
            else ""
        )
        + f", {len(p.seed_list)} seeds per buffer "
        + ("(quick: no adaptive seeds), " if p.quick else "(more where a verdict was undecided), ")
        + f"{runner.packet_runs} packet runs of up to {fmt.number(p.norm['duration_s'])} s "
        f"({fmt.number(p.norm['warmup_s'])} s warm-up); "
        f"each objective checked on a one-sided {p.confidence:.0%} Student t bound over the seeds."
    )
