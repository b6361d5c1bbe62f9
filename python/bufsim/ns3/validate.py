"""How well the packet engine agrees with ns-3: the validation suite behind
``bufsim validate-engines`` (and ``make validate``).

Each scenario of :func:`scenarios` runs on ns-3 (:mod:`bufsim.ns3`) over a
few seeds (3, then 6 and 10 on the planned looks, :data:`LOOKS`, while a
metric stays undecided: a run takes ns-3 seconds to minutes) and on the packet engine
with ``stack = "ns3"`` (the packet engine's mirror of ns-3's defaults)
over :data:`PACKET_SEEDS` seeds (a run takes it well under a second, and
the more seeds, the narrower its mean's interval: the comparison's
uncertainty is then ns-3's). :func:`validate` compares the seed means of
the metrics in :data:`TOLERANCES` and times both engines; :func:`markdown`
writes the table as a report page. The runs go through
:func:`bufsim.sweep.run_each`: with a store, each is kept as it finishes,
so an interrupted validation resumes and more seeds add to those stored
(ns-3's runs take minutes), and a scenario's runs spread over workers.

The tolerances: utilization 0.02 absolute; loss rate 20% relative plus
1e-4; mean queue, p99 queueing delay, per-flow goodput and FCT median 15%
relative; Jain's index 0.05 absolute.

The verdict of a metric is an equivalence test, two one-sided tests
(TOST: Schuirmann 1987, J. Pharmacokinet. Biopharm. 15(6):657-680) on
the difference of the two engines' seed means, Welch's interval over
each engine's per-seed values (Welch-Satterthwaite degrees of freedom):
``within`` when the (1 - 2 alpha) interval of the difference lies inside
[-tol, +tol] (both one-sided tests reject "the difference is beyond the
tolerance" at level alpha), ``beyond`` when it lies wholly outside, and
``undecided`` otherwise. A wide spread can then only leave a metric
undecided, never make it agree.

The looks are planned as a group-sequential test plans them: the
reference engine's seed counts fixed in advance (:data:`LOOKS`, 3, 6 and
10 seeds), and the error of a false agreement, :data:`ALPHA` for each
one-sided test, spent over them by Lan and DeMets's Pocock-type function
alpha * ln(1 + (e - 1) t), t the look's seeds over the last look's (Lan &
DeMets 1983, Biometrika 70(3):659-663; Jennison & Turnbull 2000, Group
Sequential Methods, ch. 6 and 7): look k tests at alpha(t_k) -
alpha(t_k-1) (:func:`spending`). Those add up to ALPHA, so by the union
bound the chance of a false ``within`` (or ``beyond``) at any look is at
most ALPHA however many looks run; the exact group-sequential bounds,
which account for the looks' correlation, would be a little less strict.
A metric stops at the look where it is decided: its row is that look's;
a scenario stops when none is undecided or one is beyond. A scenario
``agrees`` when every metric is within, ``differs`` when one is beyond
(``explained`` when :data:`EXPLAINED` gives the measured reason), else
``undecided``.

``against="ns2"`` (:func:`scenarios`) runs the same suite against ns-2.35
(:mod:`bufsim.ns2`), the scenarios it can express, under the same
tolerances and rule; the others are refused with the field.
"""

from __future__ import annotations

import copy
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim._stats import t_half_width
from bufsim.ns3 import access_links
from bufsim.store import Store
from bufsim.sweep import RunFailed, run_each

#: Seeds the packet engine runs each scenario with (seeds 1 to this): its
#: seed mean's 95% interval is then about a third of that over 10 seeds,
#: for under a minute of CPU a scenario.
PACKET_SEEDS = 100

#: The planned looks: the reference engine's seeds at each (``make
#: validate``'s ``--seeds 3 --max-seeds 6 --max-seeds 10``).
LOOKS = (3, 6, 10)

#: Each one-sided test's error, spent over the looks (:func:`spending`):
#: a ``within`` verdict rests on a (1 - 2 alpha_k) interval.
ALPHA = 0.05

#: Metric -> (absolute, relative) tolerance: the difference of the seed
#: means must lie within +-(absolute + relative * |packet|).
TOLERANCES: dict[str, tuple[float, float]] = {
    "utilization": (0.02, 0.0),
    "drop_rate": (1e-4, 0.20),
    "mean_queue_pkts": (0.0, 0.15),
    "p99_queue_delay_s": (0.0, 0.15),
    "jain_index": (0.05, 0.0),
    "flow_goodput": (0.0, 0.15),
    "fct_median_s": (0.0, 0.15),
}

#: The measured reason of each scenario that differs or stays undecided
#: (scenario -> Markdown), read once from ``reasons.toml`` beside this
#: module: where ns-3.37 departs from the RFCs and Linux (with its source
#: line), what was measured to find it. Its first paragraph is a summary of
#: two lines or so (the one the page lists); paragraphs and list items
#: (``- ``) are apart by a blank line. A reason may cover several scenarios
#: (the CUBIC ones, the BBR ones). A scenario that differs and is not here is
#: unexplained.
EXPLAINED: dict[str, str] = {
    name: reason["text"]
    for reason in tomllib.loads(
        resources.files(__package__).joinpath("reasons.toml").read_text(encoding="utf-8")
    )["reason"]
    for name in reason["scenarios"]
}

#: Scenario -> the most ns-3 seeds a look of it takes. An ns-3 seed of
#: these can cost over an hour of CPU (ns-3's TcpTxBuffer walks the sent
#: list at every ACK, so its cost grows with the windows), more than one
#: machine's session, so their seeds are gathered in the repository's
#: store of their ns-3 runs (validation/ns3-runs, ``bufsim
#: validate-engines --reuse``) and a cap rises to a look's count once it
#: holds them; it holds newreno-10gbps's seeds 1-6 and cubic-1gbps's 1-9,
#: so both take the second look (6) and stop short of the third (10).
#: newreno-10gbps's seeds 1-9 took 0.7 to 111 CPU minutes, its seed 10 by
#: its pace about 3 hours; cubic-1gbps's seeds 1-9 4 to 33, its seed 10
#: reached 5.3 s of its 10 s in 38.
MOST_SEEDS: dict[str, int] = {"newreno-10gbps": 6, "cubic-1gbps": 6}

#: Scenario names of the quick subset ``make test`` runs.
QUICK = ("paper003-n20-b60", "newreno-red-1bdp", "newreno-transfers")


def _base(
    rate: str = "100Mbps", rtt: Any = None, count: int = 20, mss: str = "1000B"
) -> dict[str, Any]:
    return {
        "duration": "20s",
        "warmup": "5s",
        "link": {"capacity": rate, "delay": "5ms", "buffer": "1BDP"},
        "flows": [
            {
                "count": count,
                "tcp": "newreno",
                "rtt": rtt or {"min": "20ms", "max": "60ms"},
                "mss": mss,
                "stack": "ns3",
                # Random starts, so that each seed is another trajectory:
                # flows that all start at 0 with fixed RTTs repeat one run
                # whatever the seed, and one run of a phase-locked system
                # says little about the other engine's.
                "start": {"uniform": ["0s", "1s"]},
            }
        ],
    }


def _tcp(group: dict[str, Any], tcp: str) -> None:
    # The group's ``stack = "ns3"`` gives each variant the rules ns-3.37
    # implements (``tcp_params.mirror`` and what ns-3 fixes: the core's
    # table, :data:`bufsim.ns3.PROFILE_CC`).
    group["tcp"] = tcp


def _loops(tcp: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An open-loop and a closed-loop scenario of ``tcp`` on 20 Mbps, with
    paper 002's transfer sizes (``"dhamdhere2006"``, mean 35.5 packets)."""
    # Open loop: transfers arriving at 70% load (about 50 a second),
    # nothing persistent.
    open_loop = _base(rate="20Mbps")
    open_loop["flows"] = [
        {
            "size": "dhamdhere2006",
            "arrival": {"load": 0.7},
            "rtt": {"min": "20ms", "max": "60ms"},
            "mss": "1000B",
            "stack": "ns3",
        }
    ]
    _tcp(open_loop["flows"][0], tcp)
    # Closed loop: 40 users thinking 1 s between transfers, beside 5 long flows.
    closed_loop = _base(rate="20Mbps", count=5)
    users = {
        "users": 40,
        "think": "1s",
        "size": "dhamdhere2006",
        "rtt": {"min": "20ms", "max": "60ms"},
        "mss": "1000B",
        "stack": "ns3",
    }
    _tcp(closed_loop["flows"][0], tcp)
    _tcp(users, tcp)
    closed_loop["flows"].append(users)
    # 60 s: in 20 s the offered load of heavy-tailed sizes varies from seed
    # to seed by about 15% (utilization 0.72 +- 0.11 over three seeds).
    for s in (open_loop, closed_loop):
        s["duration"] = "60s"
    return open_loop, closed_loop


def scenarios(against: str = "ns3") -> dict[str, dict[str, Any]]:
    """The suite: name -> raw scenario (``stack = "ns3"``, seeds set by
    :func:`validate`). Variants ns-3 has, every shared discipline, buffers
    from 0.05 to 2 BDP, links from 10 Mbps to 10 Gbps, persistent flows,
    finite transfers, open- and closed-loop arrivals, Poisson background,
    two-way traffic, a parking lot, and paper 003's setup.

    ``against="ns2"``: the same scenarios as both engines run them against
    ns-2.35 (:func:`for_ns2`)."""
    if against == "ns2":
        return {name: for_ns2(s) for name, s in _suite().items()}
    if against != "ns3":
        raise ValueError(f"against: {against!r}; the suite runs against ns3 or ns2")
    return _suite()


def _suite() -> dict[str, dict[str, Any]]:
    """:func:`scenarios` against ns-3."""
    out: dict[str, dict[str, Any]] = {}

    def add(name: str, s: dict[str, Any], **link: Any) -> None:
        s["link"].update(link)
        out[name] = s

    for tcp in ("newreno", "cubic", "highspeed", "htcp", "scalable", "bbr"):
        for buf in ("0.25BDP", "1BDP"):
            s = _base()
            _tcp(s["flows"][0], tcp)
            add(f"{tcp}-droptail-{buf.lower()}", s, buffer=buf)
    for k in (10, 40):
        s = _base()
        _tcp(s["flows"][0], "dctcp")
        add(f"dctcp-threshold-k{k}", s, buffer="1BDP", qdisc="threshold", qdisc_params={"k": k})
    for tcp in ("newreno", "cubic"):
        for q, params in (
            ("red", {"min_th": 20, "max_th": 60, "w_q": 0.002, "variant": "ns3"}),
            ("codel", {}),
            ("fq_codel", {}),
            ("pie", {}),
        ):
            s = _base()
            _tcp(s["flows"][0], tcp)
            add(f"{tcp}-{q.replace('_', '')}-1bdp", s, qdisc=q, qdisc_params=params)
    for buf in ("0.05BDP", "0.1BDP", "0.5BDP", "2BDP"):
        add(f"newreno-droptail-{buf.lower()}", _base(), buffer=buf)
    # ns-3's cost grows with the packets simulated and, per ACK, with the
    # window (its TcpTxBuffer walks the sent list): at 10 Gbps the 20-60 ms
    # RTTs of the other scenarios took one 3 s seed over 5 CPU minutes
    # unfinished, so the 10 Gbps port has datacenter RTTs (2-6 ms, the
    # link 0.5 ms of them) and a 1 s run (NewReno: 71 s of ns-3 a seed).
    # CUBIC is left out there: ns-3.37's uncapped slow start (mirrored by
    # the profile, `abc = "uncapped"`) grows windows of thousands of
    # segments, and one such seed ran 20 CPU minutes without finishing.
    for rate, dur, warm, count, delay, flow, tcps in (
        ("10Mbps", "60s", "10s", 5, "5ms", {}, ("newreno", "cubic")),
        ("1Gbps", "10s", "3s", 20, "5ms", {}, ("newreno", "cubic")),
        (
            "10Gbps",
            "1s",
            "0.3s",
            20,
            "0.5ms",
            # Every flow starts within the warm-up.
            {"rtt": {"min": "2ms", "max": "6ms"}, "start": {"uniform": ["0s", "0.1s"]}},
            ("newreno",),
        ),
    ):
        for tcp in tcps:
            s = _base(rate=rate, count=count, mss="1500B")
            s["flows"][0].update(flow)
            _tcp(s["flows"][0], tcp)
            s["duration"], s["warmup"] = dur, warm
            add(f"{tcp}-{rate.lower()}", s, buffer="0.5BDP", delay=delay)
    for tcp in ("newreno", "cubic"):
        # Four long flows and 60 transfers, all at 40 ms: the transfers'
        # completion times beside long flows (RTT unfairness is the
        # scenarios above).
        s = _base(count=4, rtt="40ms")
        _tcp(s["flows"][0], tcp)
        transfers = {
            "count": 60,
            "size": "100KB",
            "rtt": "40ms",
            "stack": "ns3",
            "start": {"uniform": ["3s", "8s"]},
        }
        _tcp(transfers, tcp)
        s["flows"].append(transfers)
        s["warmup"] = "3s"
        add(f"{tcp}-transfers", s, buffer="0.5BDP")
    for tcp in ("newreno", "cubic"):
        open_loop, closed_loop = _loops(tcp)
        add(f"{tcp}-openloop", open_loop, buffer="0.5BDP")
        add(f"{tcp}-closedloop", closed_loop, buffer="0.5BDP")
        s = _base(count=10)
        _tcp(s["flows"][0], tcp)
        s["background"] = [{"kind": "poisson", "rate": "20Mbps", "packet_size": "1000B"}]
        add(f"{tcp}-background", s, buffer="0.5BDP")
    for n in (5, 20):
        for b in (60, 120):
            # Paper 003 section 5's packet setup: 100 Mbps, 6 ms RTT, 500 B
            # packets, NewReno with SACK, drop-tail.
            s = _base(count=n, rtt="6ms", mss="500B")
            add(f"paper003-n{n}-b{b}", s, delay="1ms", buffer=f"{b}pkt")
    # Two-way traffic: the same NewReno group each way over 10 Mbps, its
    # reverse link as fast with as much buffer (ACKs queue behind data).
    s = _base(rate="10Mbps", count=6, mss="1500B")
    s["duration"], s["warmup"] = "40s", "10s"
    s["reverse"] = {"buffer": "0.5BDP", "flows": [copy.deepcopy(s["flows"][0])]}
    add("newreno-two-way", s, buffer="0.5BDP")
    # A parking lot: three 10 Mbps links, 6 NewReno flows through all
    # three and 6 through each alone, half a BDP on each link.
    s = _base(rate="10Mbps", count=6, rtt={"min": "40ms", "max": "80ms"}, mss="1500B")
    s["duration"], s["warmup"] = "40s", "10s"
    link = {**s.pop("link"), "buffer": "0.5BDP"}
    s["links"] = [dict(link) for _ in range(3)]
    through = s["flows"][0]
    s["flows"] = [{**through, "links": [0, 1, 2]}] + [{**through, "links": [k]} for k in range(3)]
    out["newreno-parking-lot"] = s
    for name, key, value in (
        ("noack", "delayed_ack", False),
        ("nosack", "sack", False),
        ("iw1", "initial_window", 1),
    ):
        s = _base()
        s["flows"][0][key] = value
        add(f"newreno-{name}", s, buffer="0.5BDP")
    # Both engines run one topology: ns-3's access links in both.
    return {name: access_links(s) for name, s in out.items()}


#: The TCP parameters ns-2.35's TCP-Linux fixes where bufsim's defaults
#: differ (tcp/linux/src/tcp_scalable.c: TCP_SCALABLE_AI_CNT 50, Reno
#: below TCP_SCALABLE_LOW_WINDOW 50 packets, cutting by 1/8 at every window).
NS2_PARAMS: dict[str, dict[str, Any]] = {
    "scalable": {"a": 0.02, "low_window": 50, "legacy_decrease": False}
}


def for_ns2(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A suite scenario as both engines run it against ns-2: each group on
    ``stack = "ns2"`` (the packet engine's profile of ns-2.35's agents,
    what the ns2 engine runs natively), with its variant's parameters as
    ns-2 runs them (:data:`NS2_PARAMS`) in place of ns-3's
    (the ``ns3`` profile's, :data:`bufsim.ns3.PROFILE_CC`), and a TCP-Linux variant's group (CUBIC, H-TCP,
    Scalable: :data:`bufsim.ns2.otcl.LINUX`) without a SYN, as ns-2's
    TCP-Linux agent runs (``connection_setup = false``, and so
    ``quick_acks = 1``: the DelAck sink ACKs packet 0, here data, at once);
    the topology (ns-3's access links included) unchanged."""
    from bufsim.ns2.otcl import LINUX

    out = copy.deepcopy(dict(raw))
    for g in out["flows"] + out.get("reverse", {}).get("flows", []):
        g["stack"] = "ns2"
        g.pop("tcp_params", None)
        if g.get("tcp") in NS2_PARAMS:
            g["tcp_params"] = dict(NS2_PARAMS[g["tcp"]])
        if g.get("tcp") in LINUX:
            g["connection_setup"] = False
            g["quick_acks"] = 1
    return out


def _metrics(r: Any) -> dict[str, Any]:
    s = r.summary
    # A metric the engine does not measure (ns-2 gives no p99 queueing
    # delay) is left out, and so not compared.
    m = {
        k: float(s[k])
        for k in ("utilization", "drop_rate", "mean_queue_pkts", "p99_queue_delay_s", "jain_index")
        if k in s
    }
    f = r.flows
    persistent = f[f["size_pkts"].isna()] if "size_pkts" in f else f
    m["per_flow"] = persistent.set_index("flow")["goodput_bps"]
    done = f[f.get("finished", 0) == 1] if "finished" in f else f.iloc[:0]
    m["fct_median_s"] = float(done["fct_s"].median()) if len(done) else math.nan
    return m


def tolerance(metric: str, pkt: float) -> float:
    """The half-width of the interval a metric's difference must lie in
    (same units as the metric): absolute + relative * |packet|."""
    a, rel = TOLERANCES[metric]
    return a + rel * abs(pkt)


def _within_tolerance(metric: str, pkt: float, ref: float) -> bool:
    """Whether two means differ by at most the metric's tolerance (a point
    comparison, no spread)."""
    return abs(ref - pkt) <= tolerance(metric, pkt)


def spending(looks: Sequence[int], alpha: float = ALPHA) -> tuple[float, ...]:
    """Each look's share of ``alpha`` (a probability), by Lan and DeMets's
    Pocock-type spending function alpha * ln(1 + (e - 1) t) with t =
    ``looks[k] / looks[-1]`` (seed counts, increasing; Lan & DeMets 1983,
    Biometrika 70(3):659-663): the increments, which add up to ``alpha``.

    A single look gets all of ``alpha``; more looks each get less, so that
    looking again cannot raise the chance of a false verdict above it.
    """
    spent = [alpha * math.log(1 + (math.e - 1) * n / looks[-1]) for n in looks]
    return tuple(b - a for a, b in zip((0.0, *spent[:-1]), spent))


def tost(
    diff: float,
    se: tuple[float, float],
    df: tuple[float, float],
    tol: float,
    alpha: float,
) -> tuple[str, float, float]:
    """Two one-sided tests of ``|difference| <= tol`` at level ``alpha``.

    Parameters
    ----------
    diff : the difference of the two seed means (the metric's units).
    se : each mean's standard error (same units; 0 when its seeds agree).
    df : each one's degrees of freedom (seeds - 1).
    tol : the tolerance (same units), above 0.
    alpha : each one-sided test's level (probability).

    Returns
    -------
    (verdict, low, high)
        ``within`` when Welch's (1 - 2 alpha) interval of the difference,
        [low, high], lies inside [-tol, tol]; ``beyond`` when it lies
        wholly outside; else ``undecided`` (also without an interval: a
        mean over one seed, or a mean missing).
    """
    from scipy import stats  # scipy loads on first use (see bufsim/__init__.py)

    if not math.isfinite(diff):
        return "undecided", math.nan, math.nan
    if not all(math.isfinite(x) for x in (*se, *df)):
        return "undecided", math.nan, math.nan
    v = [x * x for x in se]
    total = sum(v)
    if total > 0:
        # Welch-Satterthwaite: each engine's share of the variance.
        dof = total**2 / sum(vi * vi / d for vi, d in zip(v, df) if vi > 0)
        half = float(stats.t.ppf(1 - alpha, dof)) * math.sqrt(total)
    else:
        half = 0.0
    low, high = diff - half, diff + half
    if -tol <= low and high <= tol:
        return "within", low, high
    if low > tol or high < -tol:
        return "beyond", low, high
    return "undecided", low, high


def validate(
    names: Iterable[str] | None = None,
    seeds: Sequence[int] = (1, 2, 3),
    *,
    max_seeds: int | Sequence[int] | None = None,
    packet_seeds: int = PACKET_SEEDS,
    quick: bool = False,
    progress: Callable[[str], Any] | None = None,
    store: Store | str | Path | None = None,
    workers: int | None = 0,
    against: str = "ns3",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the suite on the packet engine and the reference engine.

    Parameters
    ----------
    names : scenario names of :func:`scenarios` (default: all, or
        :data:`QUICK` with ``quick``).
    seeds : the seeds each scenario runs with on the reference engine:
        the first look.
    max_seeds : the seed counts of the further looks, increasing (one
        count, or several: ``(6, 10)``, ``make validate``'s, makes
        :data:`LOOKS`). A scenario with a metric undecided (and none
        beyond) runs again with the next count, the next seed numbers
        added (the stored runs are reused); none beyond a scenario's
        :data:`MOST_SEEDS` on ns-3. The looks are planned: each tests at
        its share of :data:`ALPHA` (:func:`spending` over the first
        look's count and these). ``None``: one look, at all of ALPHA.
    packet_seeds : the packet engine runs seeds 1 to this (at least
        ``len(seeds)`` and every ``max_seeds``; :data:`PACKET_SEEDS`).
    quick : the quick subset, 10 s runs (``make test``).
    progress : called with a line of text after each scenario.
    store : the results store the runs are kept in and read back from
        (:func:`bufsim.sweep.run_each`); ``None``: in memory.
    workers : local worker processes for a scenario's runs (``0``: in
        this process; ``None``: one per core).
    against : the reference engine, ``"ns3"`` or ``"ns2"`` (the scenarios
        of :func:`scenarios` for it; one it cannot express is
        ``refused``).

    Returns
    -------
    (metrics, runs)
        ``metrics``: one row per scenario and metric, of the look that
        decided it (or the last): ``packet`` and the reference engine's
        name, ``ns3`` or ``ns2`` (seed means), ``packet_ci`` and
        ``ns3_ci``/``ns2_ci`` (95% t-interval half-widths over the
        seeds), ``low``/``high`` (the difference's (1 - 2 alpha)
        interval, reference - packet, the metric's units), ``alpha`` (the
        look's level), ``seeds`` (the reference engine's at that look),
        ``tolerance`` (its text), ``verdict`` (``within``, ``undecided``
        or ``beyond``). ``runs``: one row per scenario: ``verdict``
        (``agrees``, ``undecided``, ``differs, explained``, ``differs,
        unexplained``, ``failed`` or ``refused``), ``differs_on`` and
        ``undecided_on`` (the metrics), ``reason`` (:data:`EXPLAINED`'s,
        for one that differs with ns-3; the error of one refused or
        failed), ``seeds`` and ``packet_seeds`` (how many each engine
        ran), ``packet_wall_s``/``ns3_wall_s`` and
        ``packet_cpu_s``/``ns3_cpu_s`` (``ns2_...`` against ns-2: seconds
        a run, the mean over its seeds, as each run measured them),
        ``speed_ratio`` (reference CPU / packet CPU, a run each).
    """
    suite = scenarios(against)
    chosen = list(names) if names is not None else list(QUICK if quick else suite)
    unknown = [n for n in chosen if n not in suite]
    if unknown:
        raise KeyError(f"unknown validation scenario(s) {unknown}; known: {', '.join(suite)}")
    rows: list[dict[str, Any]] = []
    runs = []
    for name in chosen:
        metric_rows, run = validate_one(
            name,
            seeds,
            max_seeds=max_seeds,
            packet_seeds=packet_seeds,
            quick=quick,
            progress=progress,
            store=store,
            workers=workers,
            against=against,
        )
        rows += metric_rows
        runs.append(run)
    return pd.DataFrame(rows), pd.DataFrame(runs)


def validate_one(
    name: str,
    seeds: Sequence[int] = (1, 2, 3),
    *,
    max_seeds: int | Sequence[int] | None = None,
    packet_seeds: int = PACKET_SEEDS,
    quick: bool = False,
    progress: Callable[[str], Any] | None = None,
    store: Store | str | Path | None = None,
    workers: int | None = 0,
    against: str = "ns3",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One scenario of the suite on both engines: its metric rows and its
    run row (see :func:`validate`, whose parameters these are). A run that
    fails (ns-3 crashing, say) gives the verdict ``failed`` with the error
    as the reason; a scenario the reference engine cannot express,
    ``refused`` with its error (the field and what is allowed)."""
    looks = looks_of(len(seeds), max_seeds)
    most = max((len(seeds), *looks))
    if packet_seeds < most:
        raise ValueError(
            f"packet_seeds: must be at least the {most} ns-3 seeds, got {packet_seeds}"
        )
    refused = _refusal(name, against)
    if refused:
        run = {"scenario": name, "seeds": 0, "packet_seeds": 0, "verdict": "refused"}
        run.update(reason=refused, differs_on="", undecided_on="")
        return [], run | _times({"packet": [], against: []}, against)
    alphas = spending((len(seeds), *looks))
    kw = dict(
        packet_seeds=tuple(range(1, packet_seeds + 1)),
        quick=quick,
        progress=progress,
        store=store,
        workers=workers,
        against=against,
    )
    rows, run = _validate_seeds(name, seeds, alpha=alphas[0], decided=(), **kw)
    # The planned looks: another while a metric is undecided and none is
    # beyond (the scenario's verdict then is settled either way). A metric
    # decided at a look keeps that look's row; the next look judges the
    # others at its own share of ALPHA.
    cap = MOST_SEEDS.get(name) if against == "ns3" else None
    for n, alpha in zip(looks, alphas[1:]):
        if run["verdict"] != "undecided" or (cap is not None and n > cap):
            break
        more = range(max(seeds) + 1, max(seeds) + 1 + n - len(seeds))
        decided = [r for r in rows if r["verdict"] != "undecided"]
        rows, run = _validate_seeds(name, (*seeds, *more), alpha=alpha, decided=decided, **kw)
    return rows, run


def looks_of(first: int, max_seeds: int | Sequence[int] | None) -> tuple[int, ...]:
    """The seed counts of the looks after the first one's ``first`` seeds:
    ``max_seeds`` as a tuple, checked to increase from ``first``.

    Raises
    ------
    ValueError
        A count not above the one before it (or ``first``).
    """
    if max_seeds is None:
        return ()
    looks = (max_seeds,) if isinstance(max_seeds, int) else tuple(int(n) for n in max_seeds)
    for before, n in zip((first, *looks), looks):
        if n <= before:
            raise ValueError(
                f"max_seeds: each look must run more seeds than the one before it "
                f"({before}), got {list(looks)}"
            )
    return looks


def _refusal(name: str, against: str) -> str:
    """Why ``against`` cannot run the scenario (its error, naming the
    field), or ``""``."""
    if against == "ns3":
        return ""
    from bufsim import ns2
    from bufsim.scenario import Scenario, ScenarioError

    try:
        ns2.check(Scenario.load(dict(copy.deepcopy(scenarios(against)[name]), seed=1)))
    except ScenarioError as e:
        return str(e)
    return ""


def _validate_seeds(
    name: str,
    seeds: Sequence[int],
    *,
    packet_seeds: Sequence[int],
    quick: bool,
    progress: Callable[[str], Any] | None,
    store: Store | str | Path | None,
    workers: int | None,
    alpha: float = ALPHA,
    decided: Iterable[dict[str, Any]] = (),
    against: str = "ns3",
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`validate_one`'s look over exactly ``seeds`` on the reference
    engine and ``packet_seeds`` on the packet engine, judging at level
    ``alpha`` the metrics not in ``decided`` (rows of an earlier look,
    kept)."""
    base = copy.deepcopy(scenarios(against)[name])
    if quick:
        base["duration"], base["warmup"] = "10s", "3s"
    engines = ("packet", against)
    # The reference engine's runs first: the costly ones start while the
    # packet engine's wait.
    order = [(seed, against) for seed in seeds] + [(seed, "packet") for seed in packet_seeds]
    run: dict[str, Any] = {"scenario": name, "seeds": len(seeds), "packet_seeds": len(packet_seeds)}
    try:
        results = run_each(
            [dict(base, seed=seed) for seed, _ in order],
            [engine for _, engine in order],
            store=store,
            workers=workers,
            progress=False,
        )
    except RunFailed as e:
        run.update(verdict="failed", reason=str(e), differs_on="", undecided_on="")
        return [], run | _times({e: [] for e in engines}, against)
    per: dict[str, list[Any]] = {
        e: [r for (_, e_), r in zip(order, results) if e_ == e] for e in engines
    }
    if progress:
        progress(
            f"{name}: "
            + ", ".join(
                f"{e} {len(per[e])} seeds {sum(r.provenance['wall_s'] for r in per[e]):.1f} s"
                for e in engines
            )
        )
    metrics = {e: [_metrics(r) for r in rs] for e, rs in per.items()}
    rows = _compare(name, metrics, alpha, len(seeds), against)
    kept = {r["metric"]: r for r in decided}
    rows = [kept.get(r["metric"], r) for r in rows]
    beyond = [r["metric"] for r in rows if r["verdict"] == "beyond"]
    close = [r["metric"] for r in rows if r["verdict"] == "undecided"]
    explained = EXPLAINED if against == "ns3" else {}
    run.update(
        verdict=_verdict(name, beyond, close, explained),
        reason=explained.get(name, "") if beyond or close else "",
        differs_on=", ".join(beyond),
        undecided_on=", ".join(close),
    )
    return rows, run | _times(per, against)


def _times(per: dict[str, list[Any]], against: str = "ns3") -> dict[str, float]:
    """Each engine's wall and CPU seconds a run (the mean over its runs;
    NaN with none) and the ratio of the CPU times."""

    def mean(rs: list[Any], key: str) -> float:
        return sum(r.provenance[key] for r in rs) / len(rs) if rs else math.nan

    wall = {e: mean(rs, "wall_s") for e, rs in per.items()}
    cpu = {e: mean(rs, "cpu_s") for e, rs in per.items()}
    return {
        "packet_wall_s": wall["packet"],
        f"{against}_wall_s": wall[against],
        "packet_cpu_s": cpu["packet"],
        f"{against}_cpu_s": cpu[against],
        "speed_ratio": cpu[against] / max(cpu["packet"], 1e-9),
    }


def _compare(
    name: str,
    per: dict[str, list[dict[str, Any]]],
    alpha: float = ALPHA,
    seeds: int | None = None,
    against: str = "ns3",
) -> list[dict[str, Any]]:
    """Each metric's seed means, 95% intervals, the difference's (1 - 2
    alpha) interval and verdict (:func:`judge`)."""
    rows = []
    for metric in TOLERANCES:
        key = "per_flow" if metric == "flow_goodput" else metric
        if any(key not in m for ms in per.values() for m in ms):
            continue
        if metric == "flow_goodput":
            pk, ref = _flow_goodput(per, against)
        else:
            pk = _summary([m[metric] for m in per["packet"]])
            ref = _summary([m[metric] for m in per[against]])
        if math.isnan(pk[0]) and math.isnan(ref[0]):
            continue
        verdict, low, high = judge(metric, pk, ref, alpha)
        rows.append(
            {
                "scenario": name,
                "metric": metric,
                "packet": pk[0],
                "packet_ci": pk[1],
                against: ref[0],
                f"{against}_ci": ref[1],
                "low": low,
                "high": high,
                "alpha": alpha,
                "seeds": seeds if seeds is not None else ref[3],
                "tolerance": _tol_text(*TOLERANCES[metric]),
                "verdict": verdict,
            }
        )
    return rows


def judge(
    metric: str,
    pkt: tuple[float, float, float, int],
    ref: tuple[float, float, float, int],
    alpha: float = ALPHA,
) -> tuple[str, float, float]:
    """A metric's verdict from each engine's (mean, 95% half-width,
    standard error, seeds) (:func:`_summary`): :func:`tost` on ref -
    packet at level ``alpha`` against :func:`tolerance`. A mean one engine
    has and the other lacks (FCTs where no transfer finished) is
    ``beyond``."""
    if math.isnan(pkt[0]) != math.isnan(ref[0]):
        return "beyond", math.nan, math.nan
    return tost(
        ref[0] - pkt[0],
        (pkt[2], ref[2]),
        (pkt[3] - 1, ref[3] - 1),
        tolerance(metric, pkt[0]),
        alpha,
    )


def look_alpha(seeds: int, looks: Sequence[int] = LOOKS, alpha: float = ALPHA) -> float:
    """The level a look over ``seeds`` reference seeds tests at in the plan
    ``looks`` (:func:`spending`); a count past the last look's, that
    look's level (more seeds than planned make its test no less strict)."""
    shares = spending(looks, alpha)
    if seeds in looks:
        return shares[looks.index(seeds)]
    if seeds > looks[-1]:
        return shares[-1]
    raise ValueError(f"seeds: {seeds} is no look of the plan {list(looks)}")


def from_published(mean: float, ci: float, seeds: int) -> tuple[float, float, float, int]:
    """:func:`_summary`'s tuple from a published seed mean, its 95%
    t-interval half-width and its seed count: the standard error is the
    half-width over t(0.975, seeds - 1), so Welch's interval needs no more
    than a page shows."""
    from scipy import stats

    if seeds < 2 or not math.isfinite(ci):
        return mean, ci, math.nan, seeds
    return mean, ci, ci / float(stats.t.ppf(0.975, seeds - 1)), seeds


def rejudge(
    metrics: pd.DataFrame,
    packet_seeds: int,
    looks: Sequence[int] = LOOKS,
    against: str = "ns3",
) -> pd.DataFrame:
    """The verdicts the rule gives a table of published numbers: each row's
    seed means and 95% half-widths (``packet``, ``packet_ci``, the
    reference engine's and its ``_ci``), its reference ``seeds`` and the
    packet engine's ``packet_seeds``, judged at the level of the look of
    that many seeds in the plan ``looks`` (:func:`look_alpha`). Returns a
    copy with ``low``, ``high``, ``alpha`` and ``verdict`` recomputed."""
    out = metrics.copy()
    got = []
    for r in out.to_dict("records"):
        alpha = look_alpha(int(r["seeds"]), looks)
        pk = from_published(r["packet"], r["packet_ci"], packet_seeds)
        ref = from_published(r[against], r[f"{against}_ci"], int(r["seeds"]))
        got.append((*judge(r["metric"], pk, ref, alpha), alpha))
    out["verdict"], out["low"], out["high"], out["alpha"] = (list(c) for c in zip(*got))
    return out


def _verdict(
    name: str, beyond: list[str], close: list[str], explained: dict[str, str] | None = None
) -> str:
    if beyond:
        known = EXPLAINED if explained is None else explained
        return "differs, explained" if name in known else "differs, unexplained"
    return "undecided" if close else "agrees"


def _summary(values: Sequence[float]) -> tuple[float, float, float, int]:
    """(mean, 95% t half-width, standard error, n) of the finite values
    (NaN where there are too few)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    if not n:
        return math.nan, math.nan, math.nan, 0
    if n < 2:
        return float(x.mean()), math.nan, math.nan, n
    return float(x.mean()), t_half_width(x, 0.975), float(x.std(ddof=1) / math.sqrt(n)), n


def _flow_goodput(
    per: dict[str, list[dict[str, Any]]], against: str = "ns3"
) -> tuple[tuple[float, float, float, int], tuple[float, float, float, int]]:
    """Per-flow goodput as a distribution (flows with the same RTT are
    exchangeable, so flow i of one engine is not flow i of the other): each
    seed's goodputs sorted, averaged rank by rank over the seeds; returned
    as 1 (packet) against 1 + the median over ranks of |ref - packet| / the
    mean flow's goodput, so the relative tolerance reads against it. The
    intervals are each engine's median over ranks of the rank's 95%
    t-interval over the seeds, on the same scale; the standard errors
    those over the t quantile. Each as :func:`_summary`'s tuple."""
    from scipy import stats

    nan = (math.nan, math.nan, math.nan, 0)

    def ranked(engine: str) -> np.ndarray:
        runs = [np.sort(m["per_flow"].to_numpy(dtype=float)) for m in per[engine]]
        return np.array(runs) if runs and len(runs[0]) else np.empty((0, 0))

    pk, ref = ranked("packet"), ranked(against)
    if not pk.size or pk.shape[1] != ref.shape[1]:
        return nan, nan
    scale = pk.mean()
    rel = float(np.median(np.abs(ref.mean(axis=0) - pk.mean(axis=0))) / scale)

    def spread(x: np.ndarray, mean: float) -> tuple[float, float, float, int]:
        n = len(x)
        if n < 2:
            return mean, math.nan, math.nan, n
        h = float(np.median([t_half_width(col, 0.975) for col in x.T]) / scale)
        return mean, h, h / float(stats.t.ppf(0.975, n - 1)), n

    return spread(pk, 1.0), spread(ref, 1.0 + rel)


def _tol_text(a: float, rel: float) -> str:
    parts = [f"{fmt.number(a)}"] if a else []
    if rel:
        parts.append(f"{rel:.0%}")
    return " + ".join(parts)


def _seeds_text(runs: pd.DataFrame) -> str:
    """The seeds the scenarios ran with: one number, or the first look's
    and how many took each further look (``max_seeds``)."""
    n = runs["seeds"].astype(int).value_counts().sort_index()
    if len(n) <= 1:
        return str(n.index[0]) if len(n) else "0"
    first, rest = n.index[0], n.iloc[1:]
    more = " and ".join(f"{c} with {k}" for k, c in rest.items())
    if len(rest) == 1:
        return f"{first}; {more} (not agreeing with {first}: a second look)"
    before = ", then with ".join(str(k) for k in n.index[:-1])
    return f"{first}; {more} (not agreeing with {before}: further looks)"


#: The reference engines' names on the page.
_NAMES = {"ns3": "ns-3", "ns2": "ns-2"}


def markdown(
    metrics: pd.DataFrame,
    runs: pd.DataFrame,
    version: str,
    notes: str = "",
    against: str = "ns3",
) -> str:
    """The agreement table as a Markdown page a reader can scan: the count
    and the table first (with the seeds each verdict needed); per scenario
    that does not agree its verdict and the first paragraph of its reason
    (a summary of two lines or so), linked to the reason in full lower
    down; ``notes`` (Markdown: what is particular to the run) after them;
    then each metric's two seed means with their 95% intervals and the
    difference's (1 - 2 alpha) interval, and the reasons in full, wrapped.
    ``version``: the reference engine's (``against``)."""
    ref = _NAMES[against]
    counts = runs["verdict"].value_counts()
    agree = int(counts.get("agrees", 0))
    lines = [
        f"# The packet engine against {ref}",
        "",
        f"**{agree} of {len(runs)} scenarios agree within tolerance** "
        f"({agree / max(len(runs), 1):.1%}); "
        + ", ".join(f"{int(n)} {v}" for v, n in counts.items() if v != "agrees")
        + ".",
        "",
        f"Each scenario runs on {ref} and on the packet engine with the "
        + ("ns3 stack profile;" if against == "ns3" else "ns2 stack profile;"),
        "the table says whether their seed means agree (an equivalence test, below),",
        f"after how many {ref} seeds, and how much faster the packet engine is.",
        "Below it: why the rest do not agree, and every metric.",
        "",
        f"| scenario | verdict | {ref} seeds | beyond tolerance | undecided "
        f"| packet CPU s a run | {ref} CPU s a run | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cpu = f"{against}_cpu_s"
    for r in runs.to_dict("records"):
        refused = r["verdict"] == "refused"
        seeds = "-" if refused else f"{int(r['seeds'])}"
        times = (
            "- | - | -"
            if refused or math.isnan(r[cpu])
            else f"{r['packet_cpu_s']:.3f} | {r[cpu]:.1f} | {r['speed_ratio']:.0f}x"
        )
        lines.append(
            f"| {r['scenario']} | {r['verdict']} | {seeds} | {r['differs_on'] or '-'} | "
            f"{r['undecided_on'] or '-'} | {times} |"
        )
    ran = runs[runs["verdict"] != "refused"]
    lines += [
        "",
        f"Seeds on {ref}: {_seeds_text(ran)}; on the packet engine: "
        + "/".join(str(int(n)) for n in sorted(ran["packet_seeds"].dropna().unique()))
        + ".",
        f"{ref} {version} is Debian's package, built for distribution, not tuned for speed:",
        "the speed ratio is against that build.",
        "",
        "Tolerances: " + "; ".join(f"{m} {_tol_text(*t)}" for m, t in TOLERANCES.items()) + ".",
    ]
    if len(metrics) and "verdict" in metrics:
        per = metrics["verdict"].value_counts()
        lines += [
            "",
            f"Metrics: {len(metrics)}; "
            + ", ".join(f"{int(per.get(v, 0))} {v}" for v in ("within", "undecided", "beyond"))
            + ".",
        ]
    rest = runs[runs["verdict"] != "agrees"]
    whys = why_not(rest) if len(rest) else {}
    in_full = {n: w for n, w in whys.items() if "\n\n" in w}
    if len(rest):
        lines += ["", "## Why the rest do not agree"]
        # The metrics are the table's; each item a line (a long one would
        # be a wall), a blank line between items: a loose list, each item
        # its own paragraph (a tight one renders as one block of text).
        for r in rest.itertuples():
            first = whys[r.scenario].split("\n\n")[0]
            more = f" ([in full](#{_slug(r.scenario)}))" if r.scenario in in_full else ""
            lines += ["", f"- **{r.scenario}** ({r.verdict}): {first}{more}"]
    if notes:
        lines += ["", notes.strip()]
    lines += [
        "",
        "## Every metric",
        "",
        "The seed means with their 95% intervals, and the interval of the difference",
        f"({ref} - packet) at the level of the look that decided the metric (its {ref}",
        "seeds and 1 - 2 alpha).",
        "",
        f"| scenario | metric | packet | {ref} | difference | tolerance | seeds "
        "| 1 - 2 alpha | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in metrics.to_dict("records"):
        lines.append(
            f"| {r['scenario']} | {r['metric']} | {_pm(r['packet'], r['packet_ci'])} | "
            f"{_pm(r[against], r[f'{against}_ci'])} | {_interval(r['low'], r['high'])} | "
            f"{r['tolerance']} | {int(r['seeds'])} | {1 - 2 * r['alpha']:.1%} | {r['verdict']} |"
        )
    if in_full:
        lines += ["", "## The reasons in full"]
        for name, why in in_full.items():
            lines += ["", f"### {name}", ""]
            for block in why.split("\n\n")[1:]:
                lines += [*_wrap(block), ""]
            lines.pop()
    return "\n".join(lines) + "\n"


def _interval(low: float, high: float) -> str:
    if math.isnan(low):
        return "-"
    return f"{fmt.number(low, 2)} to {fmt.number(high, 2)}"


def _slug(heading: str) -> str:
    """The anchor Python-Markdown's toc extension gives a heading."""
    s = re.sub(r"[^\w\s-]", "", heading).strip().lower()
    return re.sub(r"[-\s]+", "-", s)


#: A word that would read as Markdown's syntax at the start of a line (a
#: list item, a heading, a table, a quote or HTML): never wrapped to one.
_LEADING_SYNTAX = re.compile(r"^(?:[-*+>#|<]|\d+[.)])")


def _wrap(block: str, width: int = 88) -> list[str]:
    """A paragraph, or a list item (``- ...``), as lines of at most
    ``width`` characters (a word longer stays whole), no line but the
    first starting with Markdown syntax."""
    item = block.startswith("- ")
    words: list[str] = []
    for w in (block[2:] if item else block).split():
        if words and _LEADING_SYNTAX.match(w):
            words[-1] += " " + w
        else:
            words.append(w)
    lines: list[str] = []
    line = ""
    for w in words:
        if not line:
            line = ("- " if item and not lines else "  " if item else "") + w
        elif len(line) + 1 + len(w) > width:
            lines.append(line)
            line = ("  " if item else "") + w
        else:
            line += " " + w
    return [*lines, line]


def why_not(runs: pd.DataFrame) -> dict[str, str]:
    """Scenario -> why it does not agree, for the rows of ``runs`` (as
    :func:`validate` returns them) that do not: its ``reason``, written
    once where several scenarios share one (the CUBIC explosions) and
    pointed to at the others; else what its verdict says."""
    first_with: dict[str, str] = {}
    out = {}
    for r in runs[runs["verdict"] != "agrees"].itertuples():
        if r.reason in first_with:
            out[r.scenario] = f"the reason given for {first_with[r.reason]} above."
        elif r.reason:
            first_with[r.reason] = r.scenario
            out[r.scenario] = r.reason
        elif r.verdict == "undecided":
            out[r.scenario] = (
                "the interval of the difference reaches past the tolerance on the metrics "
                "the table names: the seeds run cannot tell (see the seeds column)."
            )
        else:
            out[r.scenario] = "not yet explained."
    return out


def _pm(v: float, ci: float) -> str:
    if math.isnan(v):
        return "-"
    return f"{fmt.number(v)}" if math.isnan(ci) else f"{fmt.number(v)} ± {fmt.number(ci, 2)}"
