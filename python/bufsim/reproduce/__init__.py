"""Reproductions of the papers' published results, a package per paper.

A reproduction is a :class:`Reproduction`: what it reproduces and seven
functions, which each paper of this package defines and :func:`get` collects:

* ``run(quick=False, progress=None) -> pandas.DataFrame``: the runs, one row
  per case; ``quick=True`` is the short version the test suite runs, the
  full version runs in ``make bench`` and ``bufsim reproduce``. Its
  simulations go through :func:`simulate` and :func:`simulate_each`, so that
  under :meth:`Reproduction.run` they run through the sweep machinery
  (:func:`bufsim.sweep.run_each`): stored as each finishes, read back on a
  second run, resumed after an interruption, spread over local workers or a
  Dask cluster;
* ``setup() -> Prose``: the setup, what the paper reports and where bufsim's
  setup differs from it, as Markdown whose numbers come from the module's
  constants (:func:`prose`);
* ``claims(table) -> pandas.DataFrame``: each of the paper's statements
  beside bufsim's number with a verdict, one of :data:`VERDICTS`
  (:class:`Claims`);
* ``findings(table) -> list[Finding]``: what the runs show and why, each
  beside the figure it explains, with every number filled from the run;
* ``figures(table) -> dict`` of matplotlib Figures and ``captions(table) ->
  dict`` of the same keys: one sentence saying what each figure shows;
* ``tables(table) -> dict``: further tables, key -> (title, frame), ``{}``
  for none.

These seven are :class:`bufsim.reproduce.contract.Paper`, a
:class:`typing.Protocol` every paper satisfies (its test checks them all).

No measured number lives in a docstring or a string typed by hand: the
report's tests fail on any number of a setup or finding that did not come
through a field of :func:`prose` (:func:`stray_numbers`).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import importlib
import json
import math
import re
import string
import textwrap
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from bufsim.result import Result
    from bufsim.store import Store

#: name -> (module, what it reproduces)
PAPERS: dict[str, str] = {
    "auge2006": "paper 000 sections IV.B and V: NewReno and HSTCP flows with Poisson background, buffers 20/100/625, FIFO and fair queueing",
    "barman2005": "paper 001 sections III-IV: 10 HSTCP flows at 1 and 2.5 Gbps, utilization vs buffer fraction, drop-tail and RED; two HSTCP flows with different RTTs",
    "avrachenkov2006": "paper 003 section III: N = 1-20 flows with one RTT, Theorem 1 vs simulation, B0 against N",
    "kumar2010": "paper 004 section III.B: fluid, 10 Gbps, 4 TCP variants x loss synchronization X",
    "dhamdhere2006": "paper 002 section 4: persistent+mice, closed- and open-loop TCP at B = 18 and 500 packets",
    "addanki2022": "ABM (SIGCOMM 2022): a leaf-spine of 64 hosts, web search and incast under DT, ABM, CS, LQD and static, CUBIC and DCTCP",
}


@dataclass(frozen=True)
class Finding:
    """A finding of a reproduction: what its runs show and why.

    Attributes
    ----------
    title : str
        A short heading (no numbers).
    text : Prose
        Markdown made by :func:`prose`, every number filled from the run or
        a declared constant.
    figure : str
        The key in ``figures(table)`` of the figure the finding explains
        (the report draws it beside the text); empty for none.
    """

    title: str
    text: Prose
    figure: str = ""


def variant(
    base: dict[str, Any], name: str, *, duration: str | None = None, buffer_pkts: int | None = None
) -> dict[str, Any]:
    """A case of a paper's base scenario: a deep copy of ``base`` renamed.

    Parameters
    ----------
    base : dict
        A raw scenario (unit strings); it is not modified.
    name : str
        The case's scenario name.
    duration : str, optional
        Simulated time with its unit (``"120s"``); default: the base's.
    buffer_pkts : int, optional
        The link buffer, packets; default: the base's.

    Returns
    -------
    dict
        The raw scenario of the case.
    """
    s = copy.deepcopy(base)
    s["name"] = name
    if duration is not None:
        s["duration"] = duration
    if buffer_pkts is not None:
        s["link"]["buffer"] = f"{buffer_pkts}pkt"
    return s


def whole_cycles(r: Result) -> dict[str, float]:
    """A run's utilization over whole congestion cycles: from its first
    congestion event after the warm-up to its last, each cycle one event to
    the next. The theories the papers compare with (a sawtooth's mean over
    a cycle) describe this; a window that starts inside the regrowth from
    slow start's loss or ends inside a cycle weighs a part of a cycle
    alone. The cycles are the run's regeneration points, so their means
    are its replications (the spread a single run gives).

    Parameters
    ----------
    r : bufsim.Result
        A run with a ``utilization`` time series and congestion events.

    Returns
    -------
    dict
        ``utilization`` (0..1, the time series' mean over the whole
        cycles), ``cycles`` (their number), ``spread`` (the two-sided 95%
        Student t half-width of the cycles' means, NaN under two cycles),
        ``first_s`` and ``last_s`` (the first and last event, seconds).
        NaN where fewer than two events follow the warm-up.
    """
    import numpy as np

    from bufsim._stats import t_half_width

    ev = np.sort(r.congestion_events["time_s"].to_numpy())
    ev = ev[ev >= r.scenario["warmup_s"]]
    if len(ev) < 2:
        nan = math.nan
        return {"utilization": nan, "cycles": 0.0, "spread": nan, "first_s": nan, "last_s": nan}
    u = r.timeseries["utilization"]
    t = u.index.to_numpy()
    per = [float(u[(t >= a) & (t < b)].mean()) for a, b in zip(ev[:-1], ev[1:], strict=True)]
    return {
        "utilization": float(u[(t >= ev[0]) & (t < ev[-1])].mean()),
        "cycles": float(len(per)),
        "spread": t_half_width(np.array(per), 0.975) if len(per) >= 2 else math.nan,
        "first_s": float(ev[0]),
        "last_s": float(ev[-1]),
    }


#: Where ``bufsim reproduce`` keeps its runs and ``bufsim report NAME`` looks
#: for them (relative to the working directory).
RESULTS = Path("results/reproduce")

#: The verdicts of each reproduction's full run, ``{name: {claim: verdict}}``,
#: kept with the code so that a quick report can mark where its verdicts
#: differ from the full length's on a machine that never ran it. A slow test
#: (``tests/test_reproduce_all.py``) fails when a full run gives other verdicts.
#: A reproduction whose full run has not been made has none, and its reason
#: under ``not_run`` (:func:`full_not_run`), which the quick report shows.
FULL_VERDICTS = Path(__file__).with_name("full_verdicts.json")


def save(name: str, table: pd.DataFrame, *, quick: bool, directory: Path | None = None) -> Path:
    """Keep a reproduction's run table for later reports.

    Parameters
    ----------
    name : str
        The reproduction (a key of :data:`PAPERS`).
    table : pandas.DataFrame
        Its ``run()`` table; ``attrs`` gains ``quick``, ``bufsim_version``,
        ``commit`` and ``created`` (UTC, ISO 8601).
    quick : bool
        Whether it is the quick version.
    directory : Path, optional
        Where to write ``NAME.pkl`` (full) or ``NAME-quick.pkl``; default
        :data:`RESULTS`.

    Returns
    -------
    Path
        The file written (a pandas pickle: the tables keep further tables
        in ``attrs``, which neither CSV nor Parquet holds).
    """
    from bufsim import provenance

    table.attrs.update(
        quick=quick,
        bufsim_version=provenance.__version__,
        commit=provenance.commit(),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    directory = RESULTS if directory is None else directory
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}{'-quick' if quick else ''}.pkl"
    table.to_pickle(path)
    return path


def stored(name: str, *, quick: bool = False, directory: Path | None = None) -> pd.DataFrame | None:
    """The run table :func:`save` kept for ``name``, or None if there is none.

    Parameters
    ----------
    name : str
        The reproduction.
    quick : bool
        The quick version's table instead of the full one's.
    directory : Path, optional
        Where :func:`save` wrote it; default :data:`RESULTS`.
    """
    import pandas as pd

    directory = RESULTS if directory is None else directory
    path = directory / f"{name}{'-quick' if quick else ''}.pkl"
    return pd.read_pickle(path) if path.is_file() else None


def full_verdicts(name: str) -> dict[str, str]:
    """The verdicts of ``name``'s full run as kept in :data:`FULL_VERDICTS`
    (claim -> verdict; empty when none are kept)."""
    if not FULL_VERDICTS.is_file():
        return {}
    return json.loads(FULL_VERDICTS.read_text())["verdicts"].get(name, {})


def full_headline_counts(name: str) -> dict[str, int]:
    """:func:`headline_counts` of ``name``'s full run as kept in
    :data:`FULL_VERDICTS` (its ``headlines``: the headline claims; zeros
    when none are kept)."""
    import pandas as pd

    if not FULL_VERDICTS.is_file():
        return headline_counts(pd.DataFrame({"verdict": [], "headline": []}))
    kept = json.loads(FULL_VERDICTS.read_text())
    verdicts = kept["verdicts"].get(name, {})
    heads = set(kept.get("headlines", {}).get(name, ()))
    claims = pd.DataFrame(
        {"verdict": list(verdicts.values()), "headline": [c in heads for c in verdicts]}
    )
    return headline_counts(claims)


def full_not_run(name: str) -> str:
    """Why no full run's verdicts are kept for ``name`` (empty when they
    are, or when no reason is kept)."""
    if not FULL_VERDICTS.is_file():
        return ""
    return json.loads(FULL_VERDICTS.read_text()).get("not_run", {}).get(name, "")


@dataclass(frozen=True)
class Reproduction:
    """A paper's reproduction: its setup, its runs, the paper's claims with
    their verdicts, its findings and figures (what the module doc lists).

    :func:`get` builds one from a module of this package; any object with
    these attributes is a reproduction to :func:`bufsim.report.reproduction_report`.

    Attributes
    ----------
    name : str
        Its short name (``avrachenkov2006``).
    what : str
        What it reproduces: the paper, its sections, the cases.
    setup, runs, claims, findings, figures, captions, tables : callable
        The paper's functions of the same names (``runs`` is its ``run``),
        as :class:`bufsim.reproduce.contract.Paper` names them.
    """

    name: str
    what: str
    setup: Callable[[], Prose]
    runs: Callable[..., pd.DataFrame]
    claims: Callable[[pd.DataFrame], pd.DataFrame]
    findings: Callable[[pd.DataFrame], list[Finding]]
    figures: Callable[[pd.DataFrame], dict[str, Any]]
    captions: Callable[[pd.DataFrame], dict[str, Prose]]
    tables: Callable[[pd.DataFrame], dict[str, tuple[str, pd.DataFrame]]]

    def run(
        self,
        quick: bool = False,
        *,
        store: Store | str | Path | None = None,
        workers: int | None = 0,
        scheduler: str | None = None,
        progress: Callable[[str], Any] | None = None,
    ) -> pd.DataFrame:
        """Run the reproduction: its simulations go through the sweep
        machinery (:func:`bufsim.sweep.run_each`) and ``store``.

        Parameters
        ----------
        quick : bool
            The short version (what the test suite runs).
        store : Store, str, Path or None
            The results store its runs are kept in and read back from: a
            second call runs nothing that is stored, an interrupted one
            loses no finished run. ``None`` (default): in memory.
        workers : int or None
            Local worker processes for the runs a reproduction starts
            together (``0``, the default: in this process; ``None``: one
            per core). Results do not depend on it.
        scheduler : str, optional
            A Dask scheduler's address: the runs go to its workers.
        progress : callable, optional
            Called with a line of text before each case.

        Returns
        -------
        pandas.DataFrame
            The run table; ``attrs["quick"]`` says which version it is.
        """
        with running(store=store, workers=workers, scheduler=scheduler):
            table = self.runs(quick=quick, progress=progress)
        table.attrs["quick"] = quick
        return table

    def verdicts(self, table: pd.DataFrame) -> dict[str, str]:
        """Claim -> verdict of a run table."""
        claims = self.claims(table)
        return dict(zip(claims["claim"], claims["verdict"]))


def get(name: str) -> Reproduction:
    """The reproduction called ``name`` (a key of :data:`PAPERS`).

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    if name not in PAPERS:
        raise ValueError(f"unknown reproduction {name!r}: choose from {', '.join(PAPERS)}")
    from bufsim.reproduce.contract import Paper

    paper = importlib.import_module(f"bufsim.reproduce.{name}")
    if not isinstance(paper, Paper):
        raise TypeError(f"bufsim.reproduce.{name} does not define what a Paper names")
    return Reproduction(
        name=name,
        what=PAPERS[name],
        setup=paper.setup,
        runs=paper.run,
        claims=paper.claims,
        findings=paper.findings,
        figures=paper.figures,
        captions=paper.captions,
        tables=paper.tables,
    )


@dataclass(frozen=True)
class _Runs:
    """Where :func:`simulate` sends a reproduction's runs (:func:`running`)."""

    store: Store | str | Path | None
    workers: int | None
    scheduler: str | None


_RUNS: contextvars.ContextVar[_Runs | None] = contextvars.ContextVar("bufsim_runs", default=None)


@contextlib.contextmanager
def running(
    *,
    store: Store | str | Path | None = None,
    workers: int | None = 0,
    scheduler: str | None = None,
) -> Iterator[None]:
    """Within it, :func:`simulate` and :func:`simulate_each` run through
    :func:`bufsim.sweep.run_each` with this store and these workers
    (:meth:`Reproduction.run` opens it; parameters as there)."""
    from bufsim.store import Store

    own = store is not None and not isinstance(store, Store)
    db = Store(store) if own else store
    token = _RUNS.set(_Runs(db, workers, scheduler))
    try:
        yield
    finally:
        _RUNS.reset(token)
        if own:
            db.close()


def _pinned(raw: Mapping[str, Any]) -> None:
    """Refuse a reproduction's scenario with a flow group that names no
    ``stack``: the default profile (``linux``) is not the paper's, and a
    profile named keeps a reproduction's numbers whatever the default.

    Raises
    ------
    ValueError
        Naming the first such group.
    """
    groups = [("flows", i, g) for i, g in enumerate(raw.get("flows", []))]
    reverse = (raw.get("reverse") or {}).get("flows", [])
    groups += [("reverse.flows", i, g) for i, g in enumerate(reverse)]
    for table, i, g in groups:
        if "stack" not in g:
            raise ValueError(
                f"{raw.get('name', 'a reproduction')}: {table}[{i}] names no stack; a "
                'reproduction pins the profile its paper used (stack = "rfc")'
            )


def simulate_each(
    scenarios: Sequence[Mapping[str, Any]], engines: str | Sequence[str] = "packet"
) -> list[Result]:
    """Run a reproduction's scenarios, each once: within :func:`running`
    through the sweep machinery and its store (together, so local workers
    or a Dask cluster run them side by side), else directly
    (:func:`bufsim.simulate`, one after the other).

    Parameters
    ----------
    scenarios : list of dict
        Raw scenarios, each with its seed.
    engines : str or list of str
        One engine for all, or one per scenario (``packet``, ``fluid``,
        ``ns3``, ``model:<name>``).

    Returns
    -------
    list of Result
        One per scenario, in order; the same whichever way they ran.
    """
    from bufsim.sweep.spec import engines_per_run

    for raw in scenarios:
        _pinned(getattr(raw, "raw", raw))
    runs = _RUNS.get()
    per_run = engines_per_run(engines, len(scenarios))
    if runs is None:
        from bufsim.engines import simulate as direct

        return [direct(raw, engine=e) for raw, e in zip(scenarios, per_run)]
    from bufsim.sweep import run_each

    # One run goes in this process: a pool or a cluster pays off for several.
    alone = len(scenarios) == 1
    return run_each(
        scenarios,
        per_run,
        store=runs.store,
        workers=0 if alone else runs.workers,
        scheduler=None if alone else runs.scheduler,
        progress=False,
    )


def simulate(scenario: Mapping[str, Any], engine: str = "packet") -> Result:
    """One run of :func:`simulate_each`: a reproduction's ``bufsim.simulate``."""
    return simulate_each([scenario], engine)[0]


#: The verdict categories, in the order reports count them. Only ``agrees``
#: counts as reproduced:
#:
#: * ``agrees``: bufsim's number meets the paper's claim with nothing tuned,
#:   against a pass mark whose source the claim states;
#: * ``agrees after tuning``: it does only after a parameter was chosen to
#:   match (the claim names the parameter and how it was chosen; the counts
#:   group the claims resting on one tuning, :func:`tunings`);
#: * ``differs, explained``: it does not, and a run of the same reproduction
#:   shows the named cause (an :class:`Explanation`: the cause changed brings
#:   the packet engine within tolerance of the paper, or the paper's own
#:   simulator gives the same difference);
#: * ``differs, unexplained``: it does not, and no run shows why;
#: * ``undecided``: the value lies within one seed interval of its pass mark
#:   (for one long run, the interval over its whole congestion cycles,
#:   :func:`whole_cycles`), or between the two ends of a range the paper's
#:   wording leaves open ("almost 98%": 2 or 3 points), so the runs cannot
#:   decide it;
#: * ``check``: a property of bufsim, a value that holds by construction or
#:   arithmetic on the paper's own numbers, not a claim that bufsim's runs
#:   could contradict.
VERDICTS = (
    "agrees",
    "agrees after tuning",
    "differs, explained",
    "differs, unexplained",
    "undecided",
    "check",
)

#: The columns of :meth:`Claims.table`.
CLAIM_COLUMNS = (
    "claim",
    "paper",
    "bufsim",
    "tolerance",
    "tolerance_source",
    "spread",
    "verdict",
    "tuning",
    "why",
    "explained_by",
    "about",
    "headline",
    "measured_by",
    "ns2",
    "ns2_verdict",
    "ns2_why",
)

#: The columns of :func:`headline_table`: the result, the paper's number,
#: ns-2.35's here (``-`` where no ns-2 run measures it), the packet
#: engine's, the verdict and the run it rests on.
HEADLINE_COLUMNS = ("result", "paper", "ns-2.35", "packet engine", "verdict", "run")


@dataclass(frozen=True)
class Explanation:
    """A run that shows the cause of a claim's difference: the cause changed
    (a stack profile field, a parameter the paper leaves unstated,
    synchronization) and the claim's quantity measured again, or the
    paper's own simulator (ns-2) run on the same case.

    A claim's ``differs, explained`` is computed from it: the explanation
    holds when the run's ``value`` meets ``target`` (within ``tolerance``,
    or beyond it as ``kind`` says). Build one with :meth:`near`,
    :meth:`at_least` or :meth:`at_most`.

    Attributes
    ----------
    run : str
        The run and what it changes (``"fluid with X = 0.3"``); no numbers
        typed in (:func:`prose` fields only).
    value : float
        The claim's quantity in that run, in the claim's unit.
    target : float
        The paper's number (a counterfactual) or the packet engine's (the
        paper's simulator giving the same difference).
    tolerance : float
        Allowed distance from ``target`` (``kind == "near"``), same unit.
    source : str
        Where ``target`` and ``tolerance`` come from.
    kind : str
        ``near``, ``at_least`` or ``at_most``.
    """

    run: str
    value: float
    target: float
    source: str
    tolerance: float = 0.0
    kind: str = "near"

    def __post_init__(self) -> None:
        if self.kind not in ("near", "at_least", "at_most"):
            raise ValueError(f"explanation kind {self.kind!r}: choose near, at_least or at_most")
        if not self.source or not self.run:
            raise ValueError(f"explanation {self.run!r}: it needs its run and its source")

    @classmethod
    def near(
        cls, run: str, value: float, target: float, tolerance: float, source: str
    ) -> Explanation:
        """The run's value within ``tolerance`` of ``target``."""
        return cls(run, float(value), float(target), source, float(tolerance), "near")

    @classmethod
    def at_least(cls, run: str, value: float, bound: float, source: str) -> Explanation:
        """The run's value at least ``bound`` (the paper's "more than")."""
        return cls(run, float(value), float(bound), source, 0.0, "at_least")

    @classmethod
    def at_most(cls, run: str, value: float, bound: float, source: str) -> Explanation:
        """The run's value at most ``bound`` (the paper's "less than")."""
        return cls(run, float(value), float(bound), source, 0.0, "at_most")

    @property
    def shows(self) -> bool:
        """Whether the run shows the cause (its value meets its target)."""
        if math.isnan(self.value):
            return False
        if self.kind == "at_least":
            return self.value >= self.target
        if self.kind == "at_most":
            return self.value <= self.target
        return abs(self.value - self.target) <= self.tolerance

    def text(self) -> str:
        """One line for the claims table: the run, its number, the target."""
        from bufsim import fmt

        rel = {
            "near": "within " + fmt.number(self.tolerance) + " of",
            "at_least": ">=",
            "at_most": "<=",
        }
        mark = "meets" if self.shows else "misses"
        return (
            f"{self.run}: {fmt.number(self.value)} {mark} {rel[self.kind]} "
            f"{fmt.number(self.target)} ({self.source})"
        )


#: The ns-2 run a claim's ns-2.35 number comes from, unless it names one.
NS2_RUN = "ns-2.35, the paper's simulator, with the paper's setup"


@dataclass(frozen=True)
class Ns2:
    """ns-2.35's number for a claim: the paper's own simulator run here
    with the paper's stated setup (``engine="ns2"``).

    Attributes
    ----------
    run : str
        The run (case, length, seeds; no numbers typed in).
    value : float
        Its number, in the claim's unit.
    ok : bool
        Whether it meets the paper's claim by the claim's own pass mark.
    tolerance : float
        How far it may lie from the packet engine's number for both to
        differ from the paper "the same way" (the claim's tolerance unless
        the claim gives its own; NaN: as far as the packet engine's number
        lies from the pass mark; never farther than ns-2's own number lies
        from the mark, :func:`judge`).
    """

    run: str
    value: float
    ok: bool
    tolerance: float = math.nan


def judge(
    value: float,
    ok: bool,
    *,
    undecided: bool = False,
    tuned: bool = False,
    runs: Sequence[Explanation] = (),
    ns2: Ns2 | None = None,
    mark: float = math.nan,
) -> tuple[str, tuple[Explanation, ...]]:
    """The verdict rule, the one place it lives: a claim's verdict from the
    packet engine's number, ns-2's and the counterfactual runs.

    * the value within one interval of its pass mark: ``undecided``;
    * the packet engine meets the claim: ``agrees`` (``agrees after
      tuning`` when a tuned parameter is needed);
    * it differs, and ns-2.35 with the paper's setup differs from the paper
      the same way (misses the pass mark too, within ``ns2.tolerance`` of
      the packet engine's number; with no tolerance, no farther from it
      than it lies from ``mark``; with neither, ns-2 explains nothing; and
      nearer the packet engine's number than the mark, where the mark is
      known: an ns-2 number just past the mark all but meets the paper,
      and shows no difference): ``differs, explained``, the ns-2 run the
      explanation ("the paper's simulator gives X here");
    * it differs otherwise (ns-2 agrees with the paper, lies elsewhere or
      did not run): ``differs, explained`` when every counterfactual run in
      ``runs`` shows its cause (:attr:`Explanation.shows`), else
      ``differs, unexplained``.

    Parameters
    ----------
    value : float
        The packet engine's number, in the claim's unit.
    ok : bool
        Whether it meets the claim.
    undecided : bool
        Whether it lies within its seed interval of the pass mark.
    tuned : bool
        Whether meeting the claim rests on a tuned parameter.
    runs : list of Explanation
        The reproduction's counterfactual runs for a difference.
    ns2 : Ns2, optional
        ns-2.35's number for the claim (None: no ns-2 run measures it).
    mark : float, optional
        The pass mark, for "the same way" when ns-2 has no tolerance.

    Returns
    -------
    (str, tuple of Explanation)
        The verdict (one of :data:`VERDICTS`) and the runs that explain, or
        fail to explain, a difference (the ns-2 run first where it explains).
    """
    if undecided:
        return "undecided", tuple(runs)
    if ok:
        return ("agrees after tuning" if tuned else "agrees"), tuple(runs)
    # Without a tolerance, "the same way" is ns-2 no farther from the packet
    # engine than the packet engine is from the pass mark; in either case
    # no farther from it than from the mark.
    tol = math.nan if ns2 is None else ns2.tolerance
    if math.isnan(tol):
        tol = abs(value - mark)
    if ns2 is not None and not math.isnan(mark):
        tol = min(tol, abs(ns2.value - mark))
    if ns2 is not None and not ns2.ok and not math.isnan(ns2.value) and not math.isnan(tol):
        from bufsim import fmt

        source = f"the paper's simulator gives {fmt.number(ns2.value)} here"
        same = Explanation.near(ns2.run, ns2.value, value, tol, source)
        if same.shows:
            return "differs, explained", (same,)
    runs = tuple(runs)
    return (
        "differs, explained" if runs and all(e.shows for e in runs) else "differs, unexplained"
    ), runs


class Claims:
    """The rows of a reproduction's ``claims(table)``: each of the paper's
    statements beside bufsim's number, with a verdict (one of
    :data:`VERDICTS`) and its reason.

    :meth:`near`, :meth:`at_least` and :meth:`at_most` compare a value with
    a pass mark and derive the verdict; :meth:`add` takes a decision made
    elsewhere (an ordering, several values at once); :meth:`check` records a
    property of bufsim that is not the paper's to confirm.
    """

    def __init__(
        self,
        no_ns2: str = "",
        *,
        twin: Claims | None = None,
        twin_run: str = NS2_RUN,
        twin_missing: str = "",
    ) -> None:
        """``no_ns2``: why ns-2 cannot run the claims of this reproduction
        that name no ns-2 run (``ns2`` left out) nor a reason of their own
        (a fluid model's reproduction: ``"fluid model"``).

        ``twin``: the same claims computed by the same code from the
        reproduction's ns-2 runs in place of the packet engine's (a run
        table of the same shape, :meth:`values`): a claim that names no
        ns-2 number takes the twin's value and verdict, from ``twin_run``;
        where the twin's value is NaN (the ns-2 runs lack a case the claim
        reads), ``twin_missing`` says why, a few words."""
        self.no_ns2 = no_ns2
        self.twin = {} if twin is None else twin.values()
        self.twin_run = twin_run
        self.twin_missing = twin_missing
        # claim -> (value, whether it meets the claim), as added.
        self._met: dict[str, tuple[float, bool]] = {}
        self.rows: list[dict[str, Any]] = []
        # claim -> the numbers its texts hold that no prose() field produced.
        self.stray: dict[str, list[str]] = {}

    def add(
        self,
        claim: str,
        paper: str,
        value: float,
        ok: bool,
        why: str,
        *,
        tolerance: float = math.nan,
        source: str = "",
        tuned: str = "",
        explained_by: Explanation | Sequence[Explanation] = (),
        mark: float = math.nan,
        spread: float = math.nan,
        about: str = "",
        headline: bool = False,
        measured_by: str = "",
        ns2: float | None = None,
        ns2_ok: bool | None = None,
        ns2_run: str = NS2_RUN,
        ns2_tolerance: float = math.nan,
        ns2_explains: bool = True,
        no_ns2: str = "",
    ) -> None:
        """One claim of the paper and bufsim's number for it.

        Parameters
        ----------
        claim : str
            Its short name (unique within the reproduction).
        paper : str
            What the paper says, with its number where it gives one.
        value : float
            bufsim's number, in the unit ``paper`` uses.
        ok : bool
            Whether ``value`` meets the claim.
        why : str
            What the number is and, where it differs, the measured reason.
        tolerance : float, optional
            The allowed distance from the paper's number, in ``value``'s unit.
        source : str
            Where the pass mark (``ok``'s threshold, the tolerance) comes
            from: the paper's wording quoted, a seed interval, a closed
            form. Required.
        tuned : str, optional
            The parameter chosen to match and how it was chosen; a claim
            met only with it is ``agrees after tuning``. Claims resting on
            one tuning give the same text (:func:`tunings` groups them).
        explained_by : Explanation or list of Explanation, optional
            The runs of the same reproduction that show the cause of a
            difference: it is ``differs, explained`` when every one holds
            (:attr:`Explanation.shows`), else ``differs, unexplained``.
        mark : float, optional
            The pass mark ``value`` is compared with; with ``spread``, a
            value within ``spread`` of it is ``undecided``.
        spread : float, optional
            Half-width of the value's interval over seeds, or over one
            run's whole congestion cycles, or of the range the paper's
            wording leaves open around the mark (same unit).
        about : str, optional
            The run table's column ``value`` is read from (``name`` or
            ``attr:name`` for a column of ``table.attrs[attr]``;
            ``flows:name`` for a column of the per-flow tables a module's
            ``case_flows`` returns): a test perturbs it and sees the verdict
            move. A claim that reads no such column says why in ``about``
            prefixed ``"fixed: "``.
        headline : bool, optional
            One of the paper's headline results (its abstract, conclusion
            or a result its section states as the finding): the report
            opens with these (:func:`headline_table`) and the counts give
            them apart (:func:`headline_counts`).
        measured_by : str, optional
            The run that measures ``value`` (required for a headline):
            its engine, case and length, no numbers typed in.
        ns2 : float, optional
            The same quantity from the reproduction's ns-2.35 run with the
            paper's setup, where one measures it (NaN: that run did not
            run here, ns-2 not installed; left out: no ns-2 run measures
            the claim, and ``no_ns2`` or the reproduction's reason says why).
        ns2_ok : bool, optional
            Whether ``ns2`` meets the claim, by the same pass mark as
            ``value`` (:meth:`near`, :meth:`at_least` and :meth:`at_most`
            compute it; required with ``ns2`` here).
        ns2_run : str, optional
            The ns-2 run (case, length, seeds; no numbers typed in).
        ns2_tolerance : float, optional
            How far ns-2's number may lie from the packet engine's for the
            two to differ from the paper "the same way"; default the
            claim's ``tolerance`` (:func:`judge`).
        ns2_explains : bool, optional
            False where ns-2 runs only one side of what the claim compares
            (the simulation a fluid model is set against): its number is
            shown, and a difference it shares is not explained by it, as
            the other side is bufsim's own.
        no_ns2 : str, optional
            Why ns-2 cannot run the claim's setup, a few words ("fluid
            model", "closed form"): shown in the ns-2.35 column.

        Raises
        ------
        ValueError
            A claim without the source of its pass mark, a claim name
            used twice, a headline without the run that measures it or
            whose name does not start ``headline: `` (or another claim's
            that does), or an ns-2 number without its verdict.
        """
        if not source:
            raise ValueError(f"claim {claim!r}: a pass mark needs its source")
        if headline and not measured_by:
            raise ValueError(f"headline claim {claim!r}: it needs the run that measures it")
        if headline != claim.startswith("headline: "):
            raise ValueError(
                f"claim {claim!r}: a headline's name, and only one's, starts 'headline: '"
            )
        if any(r["claim"] == claim for r in self.rows):
            raise ValueError(f"claim {claim!r} is stated twice")
        runs = (explained_by,) if isinstance(explained_by, Explanation) else tuple(explained_by)
        self._met[claim] = (float(value), bool(ok))
        if ns2 is None and claim in self.twin:
            # The same claim from the ns-2 runs (its pass mark's verdict).
            ns2, ns2_ok = self.twin[claim]
            ns2_run = self.twin_run
            if math.isnan(ns2):
                ns2, no_ns2 = None, no_ns2 or self.twin_missing
        if ns2 is None:
            ns2, no_ns2 = math.nan, no_ns2 or self.no_ns2
        if not math.isnan(ns2) and ns2_ok is None:
            raise ValueError(f"claim {claim!r}: an ns-2 number needs ns2_ok, its own verdict")
        undecided = not math.isnan(spread) and not math.isnan(mark) and abs(value - mark) <= spread
        paper_sim = None
        if not math.isnan(ns2):
            paper_sim = Ns2(
                ns2_run,
                float(ns2),
                bool(ns2_ok),
                tolerance if math.isnan(ns2_tolerance) else ns2_tolerance,
            )
        verdict, runs = judge(
            value,
            ok,
            undecided=undecided,
            tuned=bool(tuned),
            runs=runs,
            ns2=paper_sim if ns2_explains else None,
            mark=mark,
        )
        self._row(
            claim,
            paper,
            value,
            verdict,
            why,
            tolerance,
            source,
            spread,
            tuned,
            runs,
            about,
            (headline, measured_by, ns2),
            (paper_sim, no_ns2),
        )

    def near(
        self,
        claim: str,
        paper: str,
        value: float,
        target: float,
        tolerance: float,
        why: str,
        **kw: Any,
    ) -> None:
        """A claim met when ``|value - target| <= tolerance``; the pass mark
        is the nearer end of that interval (keywords as :meth:`add`)."""
        mark = target - tolerance if value < target else target + tolerance
        ok = abs(value - target) <= tolerance
        kw.setdefault("ns2_ok", abs(_nan(kw.get("ns2")) - target) <= tolerance)
        self.add(claim, paper, value, ok, why, tolerance=tolerance, mark=mark, **kw)

    def at_least(
        self, claim: str, paper: str, value: float, bound: float, why: str, **kw: Any
    ) -> None:
        """A claim met when ``value >= bound`` (keywords as :meth:`add`)."""
        kw.setdefault("ns2_ok", _nan(kw.get("ns2")) >= bound)
        self.add(claim, paper, value, value >= bound, why, mark=bound, **kw)

    def at_most(
        self, claim: str, paper: str, value: float, bound: float, why: str, **kw: Any
    ) -> None:
        """A claim met when ``value <= bound`` (keywords as :meth:`add`)."""
        kw.setdefault("ns2_ok", _nan(kw.get("ns2")) <= bound)
        self.add(claim, paper, value, value <= bound, why, mark=bound, **kw)

    def check(self, claim: str, paper: str, value: float, why: str) -> None:
        """A property of bufsim, or arithmetic on the paper's own numbers:
        shown beside the claims, counted apart, never as reproduced."""
        if any(r["claim"] == claim for r in self.rows):
            raise ValueError(f"claim {claim!r} is stated twice")
        self._row(
            claim,
            paper,
            value,
            "check",
            why,
            math.nan,
            "",
            math.nan,
            "",
            (),
            "",
            (False, "", math.nan),
            (None, ""),
        )

    def _row(
        self,
        claim: str,
        paper: str,
        value: float,
        verdict: str,
        why: str,
        tolerance: float,
        source: str,
        spread: float,
        tuned: str,
        runs: tuple[Explanation, ...],
        about: str,
        head: tuple[bool, str, float],
        sim: tuple[Ns2 | None, str],
    ) -> None:
        strays = stray_numbers(paper) + stray_numbers(why) + stray_numbers(head[1])
        if sim[0] is not None:
            strays += stray_numbers(sim[0].run)
        strays += [x for e in runs for x in stray_numbers(e.run)]
        if strays:
            self.stray[claim] = strays
        self.rows.append(
            {
                "claim": claim,
                "paper": paper,
                "bufsim": float(value),
                "tolerance": tolerance,
                "tolerance_source": source,
                "spread": spread,
                "verdict": verdict,
                "tuning": tuned,
                "why": why,
                # The runs matter where the claim differs; where it agrees
                # they explain nothing.
                "explained_by": "; ".join(e.text() for e in runs)
                if verdict.startswith("differs")
                else "",
                "about": about,
                "headline": bool(head[0]),
                "measured_by": head[1],
                "ns2": float(head[2]),
                # ns-2's own verdict against the paper, or why it has none.
                "ns2_verdict": "" if sim[0] is None else ("agrees" if sim[0].ok else "differs"),
                "ns2_why": sim[1],
            }
        )

    def values(self) -> dict[str, tuple[float, bool]]:
        """Per claim added (checks left out), its number and whether it
        meets the claim by its pass mark: a twin's (``Claims(twin=...)``)."""
        return dict(self._met)

    def table(self) -> pd.DataFrame:
        """One row per claim, columns :data:`CLAIM_COLUMNS`: ``bufsim`` the
        number, ``tolerance`` and ``spread`` in its unit (NaN where none),
        ``verdict`` one of :data:`VERDICTS`, ``tuning`` the tuned parameter,
        ``explained_by`` the runs that explain (or fail to explain) a
        difference, ``about`` the run table column the value is read from,
        ``headline`` whether it is a headline result, ``measured_by`` the
        run measuring it, ``ns2`` ns-2.35's value (NaN where none),
        ``ns2_verdict`` whether it meets the paper (``agrees``, ``differs``,
        empty where none) and ``ns2_why`` why ns-2 has no number;
        ``attrs["stray_numbers"]``: per claim, the numbers of its ``paper`` and
        ``why`` texts that did not come through a field of :func:`prose`."""
        import pandas as pd

        table = pd.DataFrame(self.rows, columns=list(CLAIM_COLUMNS))
        table.attrs["stray_numbers"] = dict(self.stray)
        return table


def verdict_counts(claims: pd.DataFrame) -> dict[str, int]:
    """How many claims of a :meth:`Claims.table` fall in each of
    :data:`VERDICTS` (every category present, zero where none)."""
    counts = claims["verdict"].value_counts()
    unknown = set(counts.index) - set(VERDICTS)
    if unknown:
        raise ValueError(f"verdicts {sorted(unknown)} are not among {VERDICTS}")
    return {v: int(counts.get(v, 0)) for v in VERDICTS}


def _nan(x: float | None) -> float:
    """``x``, NaN for None (a claim with no ns-2 run)."""
    return math.nan if x is None else x


def ns2_cell(row: Mapping[str, Any]) -> str:
    """A claim's ns-2.35 cell: ns-2's number, else why ns-2 has no number
    (``ns2_why``), else ``-``."""
    from bufsim import fmt

    if not math.isnan(row["ns2"]):
        return fmt.number(row["ns2"])
    return row.get("ns2_why", "") or "-"


def ns2_counts(claims: pd.DataFrame) -> dict[str, int]:
    """How ns-2.35 fares on a :meth:`Claims.table`'s claims (checks left
    out): ``claims`` their number, ``ns2`` those an ns-2 run measures,
    ``reproduced`` those where ns-2's own number meets the paper's (the
    claim's pass mark), ``cannot`` those with no ns-2 run in this table
    (the claim says why: a setup ns-2 cannot express, or a run the full
    version alone makes)."""
    c = claims[claims["verdict"] != "check"]
    verdict = c["ns2_verdict"] if "ns2_verdict" in c else c["claim"].map(lambda _: "")
    why = c["ns2_why"] if "ns2_why" in c else verdict
    return {
        "claims": len(c),
        "ns2": int((verdict != "").sum()),
        "reproduced": int((verdict == "agrees").sum()),
        "cannot": int((why != "").sum()),
    }


def ns2_line(claims: pd.DataFrame) -> str:
    """``ns-2.35 reproduces 4 of the 9 claims it runs (12 claims; 3 without
    an ns-2 run)``, or empty where no ns-2 run measures a claim."""
    n = ns2_counts(claims)
    if not n["ns2"]:
        return ""
    return (
        f"ns-2.35 reproduces {n['reproduced']} of the {n['ns2']} claims it runs "
        f"({n['claims']} claims; {n['cannot']} without an ns-2 run)"
    )


def headline_table(claims: pd.DataFrame) -> pd.DataFrame:
    """The headline results of a :meth:`Claims.table`, the table a
    reproduction's report opens with (columns :data:`HEADLINE_COLUMNS`):
    numbers formatted (:func:`bufsim.fmt.number`), ns-2.35's number or
    why ns-2 has none (:func:`ns2_cell`), the run the verdict rests on (the runs
    that explain a difference, else the run that measures it)."""
    import pandas as pd

    from bufsim import fmt

    head = claims[claims["headline"]] if "headline" in claims else claims.iloc[:0]
    rows = [
        {
            "result": r["claim"],
            "paper": r["paper"],
            "ns-2.35": ns2_cell(r),
            "packet engine": fmt.number(r["bufsim"]),
            "verdict": r["verdict"],
            "run": r["explained_by"] or r["measured_by"],
        }
        for _, r in head.iterrows()
    ]
    return pd.DataFrame(rows, columns=list(HEADLINE_COLUMNS))


#: The categories :func:`headline_counts` gives, from the verdicts.
HEADLINE_COUNTS = {
    "reproduced": ("agrees",),
    "explained by a run": ("differs, explained",),
    "unexplained": ("differs, unexplained",),
    "tuned or undecided": ("agrees after tuning", "undecided"),
}


def headline_counts(claims: pd.DataFrame) -> dict[str, int]:
    """How many headline results of a :meth:`Claims.table` are reproduced
    (``agrees``), explained by a run (``differs, explained``), unexplained,
    or tuned or undecided; ``headline`` the number of them."""
    head = claims[claims["headline"]] if "headline" in claims else claims.iloc[:0]
    out = {"headline": len(head)}
    for k, verdicts in HEADLINE_COUNTS.items():
        out[k] = int(head["verdict"].isin(verdicts).sum())
    return out


def headline_line(claims: pd.DataFrame) -> str:
    """``headline results: 3 reproduced / 1 explained by a run / 1
    unexplained`` (and tuned or undecided where any), or empty."""
    c = headline_counts(claims)
    if not c["headline"]:
        return ""
    line = (
        f"headline results: {c['reproduced']} reproduced / {c['explained by a run']} "
        f"explained by a run / {c['unexplained']} unexplained"
    )
    if c["tuned or undecided"]:
        line += f" ({c['tuned or undecided']} tuned or undecided)"
    return line + f", of {c['headline']}"


def tunings(claims: pd.DataFrame) -> dict[str, int]:
    """The tunings of a :meth:`Claims.table`: each tuned parameter (the
    ``tuning`` text its claims share) -> how many claims rest on it, the
    ``undecided`` and differing ones included."""
    tuned = claims.loc[claims["tuning"] != "", "tuning"]
    return {str(k): int(n) for k, n in tuned.value_counts(sort=False).items()}


def tunings_line(claims: pd.DataFrame) -> str:
    """``3 claims rest on 1 tuned parameter: send jitter ...``, or empty."""
    t = tunings(claims)
    if not t:
        return ""
    n = sum(t.values())
    return (
        f"{n} claim{'s rest' if n != 1 else ' rests'} on {len(t)} tuned "
        f"parameter{'s' if len(t) != 1 else ''}: " + "; ".join(t)
    )


class Prose(str):
    """Markdown text made by :func:`prose`: a ``str`` that also knows where
    its fields' outputs lie (``spans``, character ranges), so a test can tell
    a number that came from a run or a declared constant from one typed into
    the text."""

    spans: tuple[tuple[int, int], ...] = ()

    def __add__(self, other: str) -> Prose:
        """Concatenation keeps both sides' spans (a plain ``str`` has none)."""
        out = Prose(str(self) + str(other))
        shift = len(self)
        out.spans = self.spans + tuple(
            (a + shift, b + shift) for a, b in getattr(other, "spans", ())
        )
        return out

    def __radd__(self, other: str) -> Prose:
        out = Prose(str(other) + str(self))
        shift = len(other)
        out.spans = tuple((a + shift, b + shift) for a, b in self.spans)
        return out


#: A number as it appears in text: digits, optional thousands commas, decimals
#: and exponent, with a sign only after a space or bracket. Digits right after
#: a letter, a dot, a hyphen or a slash (``ns-2``, ``IV.B``, ``x2``) are part
#: of a name, not a number.
NUMBER = re.compile(r"(?:(?<=[\s(\[])[-+]|(?<![\w.\-/+]))\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def prose(template: str, **values: Any) -> Prose:
    """Fill a Markdown ``template``'s ``{name:spec}`` fields from ``values``.

    Every number in a reproduction's text comes through a field: a value of
    its run, or a constant the module declares (the paper's numbers, the
    setup). :func:`stray_numbers` finds those typed in by hand. A value that
    is itself :class:`Prose` keeps its own spans.

    Parameters
    ----------
    template : str
        Markdown with :meth:`str.format` fields; the indentation of a
        triple-quoted string and surrounding white space are removed.
    **values
        The fields' values.

    Returns
    -------
    Prose
        The text, with ``spans`` where the fields' outputs lie.
    """
    formatter = string.Formatter()
    spans: list[tuple[int, int]] = []
    parts: list[str] = []
    at = 0
    for literal, field, spec, conv in formatter.parse(textwrap.dedent(template).strip()):
        parts.append(literal)
        at += len(literal)
        if field is None:
            continue
        value = formatter.get_field(field, (), values)[0]
        text = formatter.format_field(formatter.convert_field(value, conv), spec or "")
        if isinstance(value, Prose) and not spec and not conv:
            spans.extend((a + at, b + at) for a, b in value.spans)
        else:
            spans.append((at, at + len(text)))
        parts.append(text)
        at += len(text)
    out = Prose("".join(parts))
    out.spans = tuple(spans)
    return out


def templates(package: str) -> dict[str, Any]:
    """A paper's prose templates: its ``prose.toml``, read once at import.

    Each paper that is a package keeps the templates its setup, findings and
    captions fill (:func:`prose`) in ``prose.toml`` beside its code, shipped
    as package data and read through :mod:`importlib.resources`.

    Parameters
    ----------
    package : str
        The paper's package (``bufsim.reproduce.kumar2010``: a text module's
        ``__package__``).

    Returns
    -------
    dict
        The TOML document: ``setup`` (a template or a table of them),
        ``findings`` and ``captions`` (tables of templates).
    """
    text = resources.files(package).joinpath("prose.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


#: A citation before a number (a paper's section, equation, figure, table or
#: theorem, an RFC, a paper of ``shared/papers``), possibly a list of them
#: (``figures 5 and 6``, ``sections III-IV``, ``eqs. (1), (3)``).
CITATION = re.compile(
    r"\b(?:eqs?\.|equations?|figs?\.|figures?|sections?|tables?|theorems?|corollary|"
    r"corollaries|lemma|papers?|rfcs?|appendix|references?)\s*(?:[([]?[\dIVX.]+[)\]]?\s*(?:,|and|-|to|or)?\s*)*[(\[]?$",
    re.IGNORECASE,
)


def stray_numbers(text: str) -> list[str]:
    """The numbers in ``text`` that no field of :func:`prose` produced and
    that are not citations (``eq. (12)``, ``Figure 7``, ``section 4``,
    ``RFC 6298``) or inside a code span (a formula: `` `(mu RTT)^2/(18 N)` ``).

    Parameters
    ----------
    text : Prose or str
        Text made by :func:`prose` (a plain ``str`` has no produced numbers).

    Returns
    -------
    list of str
        Each such number, bracketed, with the 30 characters before it: the
        message of a failing test. Empty when every number came from a field.
    """
    spans = getattr(text, "spans", ())
    # Code spans hold formulas and identifiers (`B0 = (mu RTT)^2 / (18 N)`):
    # blanked, not scanned.
    text_ = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), str(text))
    out = []
    for m in NUMBER.finditer(text_):
        before = text_[max(0, m.start() - 40) : m.start()]
        if any(a <= m.start() and m.end() <= b for a, b in spans):
            continue
        if CITATION.search(before):
            continue
        out.append(f"...{before[-30:]}[{m.group(0)}]")
    return out
