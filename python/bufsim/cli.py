"""The ``bufsim`` command line.

``bufsim run scenario.toml`` runs one scenario and writes its result;
``bufsim validate`` checks a scenario and prints it normalized;
``bufsim demo`` runs the main job (paper 000, section IV.B);
``bufsim sweep spec.toml`` runs a parameter sweep into the results store,
``bufsim results`` lists, filters and exports what the store holds and
``bufsim report SOURCE -o report.html`` writes an HTML report.
The library never imports this module.
"""

from __future__ import annotations

import json
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

import bufsim
from bufsim import fmt
from bufsim.result import Result
from bufsim.sweep.progress import Lines, for_stderr

app = typer.Typer(
    help="bufsim: router buffer sizing workbench (models, fluid and packet simulation).",
    no_args_is_help=True,
    # `bufsim --install-completion` installs shell completion (bash, zsh, fish).
    add_completion=True,
    pretty_exceptions_enable=False,
    # Help texts are plain text: brackets such as [grid] and [[zip]] stay.
    rich_markup_mode=None,
)
# Text prints literally: scenario names, values, paths and the core's
# messages hold brackets ("[pool]", a name "[/red]x") that Rich markup would
# eat or choke on. Styled text opts in with markup=True and escapes what it
# interpolates (rich.markup.escape).
console = Console(markup=False)
err_console = Console(stderr=True, markup=False)


def _version(value: bool) -> None:
    if value:
        console.print(f"bufsim {bufsim.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            help="Log what bufsim does on stderr (-v: steps, -vv: details).",
        ),
    ] = 0,
) -> None:
    """bufsim: router buffer sizing workbench (models, fluid and packet simulation)."""
    if verbose:
        import logging

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s", "%H:%M:%S")
        )
        log = logging.getLogger("bufsim")
        log.addHandler(handler)
        log.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)


def _scenario_arg(scenario: Path | None, example: str | None, what: str = "scenario") -> Path:
    """The scenario file (``what="sweep spec"``: the sweep spec): the argument,
    or the packaged example ``--example NAME``."""
    if (scenario is None) == (example is None):
        _fail(
            f"give a {what} file or --example NAME (one of them; `bufsim examples` lists the examples)"
        )
    if example is not None:
        try:
            return (bufsim.examples.spec if what == "sweep spec" else bufsim.examples.path)(example)
        except bufsim.BufsimError as e:
            _fail(str(e))
    return scenario


_EXAMPLE_HELP = "A scenario shipped with bufsim instead of a file (`bufsim examples` lists them)."

#: Runs shorter than this (wall seconds) show no progress bar.
PROGRESS_AFTER_S = 2.0


class _LazyProgress:
    """A rich progress bar over simulated time on stderr that appears only
    on long runs; plain lines (:class:`~bufsim.sweep.progress.Lines`) when
    stderr is not a terminal."""

    def __init__(self, total_s: float, label: str, enabled: bool):
        self.total = total_s
        self.label = label
        self.enabled = enabled and err_console.is_terminal
        self.lines = Lines(label) if enabled and not err_console.is_terminal else None
        self.t0 = time.monotonic()
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, sim_s: float) -> None:
        if self.lines is not None:
            self.lines(sim_s, self.total, "s simulated")
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.t0 < PROGRESS_AFTER_S:
                return
            self.bar = Progress(
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total)
        self.bar.update(self.task, completed=sim_s)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def print_summary(result: Result, title: str, *, everything: bool = False) -> None:
    """Print a result's summary as a table: the key buffer-sizing metrics
    (per-group goodput too with several groups; each port's or link's
    utilization, mean queue, p99 queueing delay and drop rate with a pool or
    a chain), or with
    ``everything`` every metric (the drop counters are those of the run's
    discipline)."""
    from bufsim.result import WHOLE_RUN, key_metrics

    s = result.summary
    keys = list(s) if everything else key_metrics(s)
    table = Table(
        title=title,
        show_header=True,
        caption="after the warm-up, unless marked (whole run)"
        if everything
        else "the key metrics; --all for every one, --json for machines",
    )
    table.add_column("metric", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    for key in keys:
        censored = s.get(f"{key}_censored") == 1.0
        table.add_row(
            key + (" (whole run)" if key in WHOLE_RUN else ""),
            fmt.metric(key, s[key], censored=censored),
        )
    console.print(table)
    for line in silent_flows(s):
        console.print(line, highlight=False)


def silent_flows(summary: dict[str, float]) -> list[str]:
    """One line per flow group with flows that never sent data or sat
    idle through the window (``never_started_group<k>``,
    ``never_started_syn_lost_group<k>``, ``idle_group<k>``), and one for
    data held behind unrepaired losses (``undelivered_pkts``): what a
    lower Jain's index or goodput alone would not say."""
    out = []
    for k in sorted(summary):
        if m := re.fullmatch(r"never_started_group(\d+)", k):
            g, n = m.group(1), int(summary[k])
            lost = int(summary.get(f"never_started_syn_lost_group{g}", 0))
            why = f" ({lost} waiting for a SYN retry after a lost SYN)" if lost else ""
            out.append(f"note: {n} flows of group {g} never sent data{why}")
        elif m := re.fullmatch(r"idle_group(\d+)", k):
            out.append(
                f"note: {int(summary[k])} flows of group {m.group(1)} delivered nothing in the "
                "window (stalled: waiting for a retransmission timeout)"
            )
    if summary.get("undelivered_pkts", 0) > 0:
        out.append(
            f"note: {int(summary['undelivered_pkts'])} packets crossed the bottleneck but were "
            "held behind an unrepaired loss at the end: not goodput"
        )
    return out


#: Runs with at most this many flows print a row for each by default.
FLOW_ROWS = 20

#: The per-flow columns ``run`` prints (those the engine gives), with their headers.
_FLOW_COLUMNS = (
    ("flow", "flow"),
    ("group", "group"),
    ("rtt_s", "RTT"),
    ("goodput_bps", "goodput"),
    ("loss_rate", "loss rate"),
    ("timeouts", "timeouts"),
    ("retransmits", "resent"),
)


def print_flows(result: Result, *, every: bool = False) -> None:
    """Print a row per flow: its group, RTT, goodput, loss rate, timeouts and
    retransmissions (with finite transfers, its completion time); all of
    them with ``every`` or at most :data:`FLOW_ROWS` flows, else a line
    saying how many there are and that ``--flows`` lists them."""
    f = result.flows
    if f.empty:
        return
    if len(f) > FLOW_ROWS and not every:
        console.print(f"{len(f)} flows: --flows prints a row for each", highlight=False)
        return
    # The columns an engine gives (the fluid engine and the models give fewer).
    cols = [(k, h) for k, h in _FLOW_COLUMNS if k in f]
    if "size_pkts" in f and f["size_pkts"].notna().any() and "fct_s" in f:
        cols.append(("fct_s", "FCT"))
    t = Table(title="per flow", box=box.SIMPLE_HEAD, pad_edge=False)
    for _, h in cols:
        t.add_column(h, justify="right", no_wrap=True)
    for r in f.sort_values("flow").to_dict("records"):
        cells = []
        for k, _ in cols:
            if k in ("flow", "group"):
                cells.append(str(int(r[k])))
            elif k == "fct_s" and r["size_pkts"] == r["size_pkts"] and r[k] != r[k]:
                cells.append("unfinished")
            else:
                cells.append(fmt.metric(k, r[k]))
        t.add_row(*cells)
    console.print(t)


def _fail(message: str, code: int = 2) -> None:
    """Print ``error: MESSAGE`` on stderr, literally and on one line (a
    terminal may wrap it; no hard breaks), and exit with ``code``."""
    err_console.print(
        Text.assemble(("error:", "red"), " ", str(message)), highlight=False, soft_wrap=True
    )
    raise typer.Exit(code)


@app.command()
def run(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (.toml or .json).")] = None,
    example: Annotated[str | None, typer.Option(help=_EXAMPLE_HELP)] = None,
    engine: Annotated[
        str,
        typer.Option(
            help=f"Engine: {', '.join(bufsim.ENGINES)}, or model:<name> (an analytic model)."
        ),
    ] = "packet",
    out: Annotated[
        Path | None, typer.Option(help="Output directory (default: results/<name>-<engine>).")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")
    ] = False,
    everything: Annotated[
        bool, typer.Option("--all", help="Every summary metric, not only the key ones.")
    ] = False,
    flows: Annotated[
        bool,
        typer.Option(
            "--flows",
            help=f"A row per flow however many (by default up to {FLOW_ROWS} flows get one).",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (for machines).")
    ] = False,
    store: Annotated[
        Path | None,
        typer.Option(
            help="Also record the run in this results store (as sweep 'run'); '' for none."
        ),
    ] = Path("results"),
    pcap: Annotated[
        Path | None,
        typer.Option(
            help="Also write the packets that left the bottleneck to this .pcap file (sets output.trace; "
            "packet engine)."
        ),
    ] = None,
) -> None:
    """Run one scenario and print its summary.

    Prints the key metrics and a row per flow, and writes the result
    (Parquet + JSON) into --out."""
    from bufsim._paths import check_output_dir, check_output_file, safe_label

    scenario = _scenario_arg(scenario, example)
    try:
        scn = bufsim.Scenario.load(scenario)
        if pcap is not None:
            # The capture is made from the packet trace: record it.
            raw = dict(scn.raw)
            raw["output"] = {**raw.get("output", {}), "trace": True}
            scn = bufsim.Scenario.load(raw)
            check_output_file(pcap, (".pcap",), "--pcap")
        # The name is a label: results/<name>-<engine> stays inside results/.
        target = out if out is not None else Path("results") / safe_label(f"{scn.name}-{engine}")
        check_output_dir(target, "--out")
    except (bufsim.ScenarioError, bufsim.OutputPathError) as e:
        _fail(str(e))
    progress = _LazyProgress(scn.normalized["duration_s"], f"{scn.name} [{engine}]", not quiet)
    try:
        result = bufsim.simulate(scn, engine=engine, progress=progress)
    except (bufsim.ScenarioError, bufsim.EngineError) as e:
        # EngineError: ns-3's files are missing, or its driver did not build.
        progress.close()
        _fail(f"--engine {engine}: {e}" if isinstance(e, bufsim.EngineError) else str(e))
    except KeyboardInterrupt:
        progress.close()
        err_console.print("interrupted: nothing written")
        raise typer.Exit(130) from None
    progress.close()
    try:
        result.save(target)
        if pcap is not None:
            result.to_pcap(pcap)
        if store is not None and str(store) not in ("", "."):
            _record_run(store, scn, engine, result)
    except (bufsim.ResultError, bufsim.StoreError) as e:
        _fail(str(e))
    if as_json:
        from bufsim.result import plain

        print(json.dumps(plain(result.summary, nan_to_none=True), indent=2))
        return
    if not quiet:
        title = f"{scn.name} ({engine} engine, {result.provenance['wall_s']:.2f} s wall)"
        print_summary(result, title, everything=everything)
        print_flows(result, every=flows)
        model = result.provenance.get("model")
        if model:
            console.print(
                f"{model['source']}, on {model['flows']}; assumes: {'; '.join(model['assumptions'])}",
                highlight=False,
            )
    console.print(f"result written to {target}")
    if pcap is not None:
        dequeued = int((result.trace["event"] == "dequeue").sum())
        console.print(f"{dequeued} packets written to {pcap}")


def _record_run(store: Path, scn: bufsim.Scenario, engine: str, result: bufsim.Result) -> None:
    """Put a run into the results store, keyed as a sweep's point (a later
    sweep of the same scenario, engine and seed reuses it), as sweep ``run``."""
    from bufsim.result import plain
    from bufsim.store import Store, build_id, point_key
    from bufsim.sweep import parquet_bytes

    key = point_key(scn.hash(), engine, int(scn.normalized["seed"]), build_id(engine))
    with Store(store) as db:
        db.put(
            key=key,
            name=scn.name,
            engine=engine,
            seed=int(scn.normalized["seed"]),
            scenario=scn.raw,
            params={},
            status="ok",
            summary={k: plain(v) for k, v in result.summary.items()},
            wall_s=result.provenance.get("wall_s"),
            version=build_id(engine),
            timeseries=parquet_bytes(result.timeseries),
        )
        db.tag("run", [key])


def _cannot_run(scn: bufsim.Scenario, engine: str) -> str:
    """Why ``engine`` cannot run ``scn`` here ("cannot run here: <what to
    install>", from the engine's :meth:`~bufsim.engines.Engine.why_unavailable`;
    "cannot run it: <field>: ...", from its check or the limits), or ""
    when it can."""
    from bufsim import limits

    eng = bufsim.ENGINES[engine]
    why = eng.why_unavailable()
    if why:
        return f"cannot run here: {why}"
    try:
        # The engine's own refusals (the fluid engine refuses a pool,
        # two-way traffic, HyStart++, ...), then the limits.
        eng.check(scn)
        limits.check(scn, engine)
    except bufsim.ScenarioError as e:
        return f"cannot run it: {e}"
    return ""


def _print_advise_costs(
    scn: bufsim.Scenario, objectives: list[str], costs: list[dict[str, Any]]
) -> None:
    """The lines of ``validate`` that price an advise search and its
    ``--quick`` form (``costs``, :func:`bufsim.advise.cost`'s)."""
    fluid_refused, fluid_changes = _fluid_scan(scn)
    for quick, c in zip((False, True), costs):
        # The search scans with the fluid engine on the scenario's fluid
        # form (stack features off, transfers as background) where it runs.
        if not c["fluid_runs"]:
            fluid = "no fluid runs"
        elif fluid_refused:
            fluid = f"no fluid runs (the fluid engine cannot run its fluid form: {fluid_refused})"
        else:
            fluid = f"{c['fluid_runs']} fluid runs" + (
                f" (of its fluid form: {fluid_changes})" if fluid_changes else ""
            )
        console.print(
            f"  advise{' --quick' if quick else ''} for {', '.join(objectives)}: about "
            f"{c['packet_runs']} packet runs of {fmt.metric('duration_s', c['duration_s'])} "
            f"({_about(c['packets_per_run'])} packets, about "
            f"{_cpu(c['packets_per_run'])} of CPU each; {_about(c['packets'])} in "
            f"all: about {_cpu(c['packets'])} of CPU) and {fluid}",
            highlight=False,
        )


def _fluid_scan(scn: bufsim.Scenario) -> tuple[str, str]:
    """Why the fluid engine cannot run the form of ``scn`` that advise's
    fluid scan runs (:func:`bufsim.advise.fluid.fluid_form`; "" when it
    can), and what that form changes."""
    from bufsim import limits
    from bufsim.advise.fluid import fluid_form

    raw, changes = fluid_form(scn.raw, scn.normalized)
    try:
        limits.check(bufsim.Scenario(raw), "fluid")
    except bufsim.ScenarioError as e:
        return str(e), changes
    return "", changes


def _about(estimate: float) -> str:
    """An estimate to three significant digits, written out (``88,700,000``)."""
    return fmt.number(float(f"{estimate:.3g}"))


def _cpu(packets: float) -> str:
    """The CPU time the packet engine takes for ``packets`` bottleneck
    packets (:data:`bufsim.limits.PACKETS_PER_CPU_S`), with its unit."""
    from bufsim import limits

    return fmt.metric("cpu_s", packets / limits.PACKETS_PER_CPU_S)


@app.command()
def validate(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (.toml or .json).")] = None,
    example: Annotated[str | None, typer.Option(help=_EXAMPLE_HELP)] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole normalized scenario (SI units) as JSON.")
    ] = False,
    objective: Annotated[
        list[str] | None,
        typer.Option(
            "--objective",
            "-O",
            help="Price the advise search for this objective, as advise takes it "
            "(repeat for more; default utilization>=0.98).",
        ),
    ] = None,
) -> None:
    """Check a scenario and price its runs.

    Prints what it describes, whether each engine can run it here and what a
    run of each and an advise search cost. Without duration (or warm-up) they are
    derived from the scenario's time scales, as advise derives them."""
    from bufsim import limits
    from bufsim.advise import AdviceError, parse_objective, with_time_scales
    from bufsim.advise import cost as advise_cost

    scenario = _scenario_arg(scenario, example)
    objectives = objective or ["utilization>=0.98"]
    try:
        for o in objectives:
            parse_objective(o)
    except AdviceError as e:
        _fail(str(e))
    try:
        scn, timing = with_time_scales(scenario)
    except bufsim.ScenarioError as e:
        _fail(str(e))
    # The advise search's cost, before anything prints: objectives that
    # advise refuses are refused here too, with its message and exit status.
    try:
        costs = (
            []
            if as_json and not objective
            else [advise_cost(scn.raw, objectives, quick=quick) for quick in (False, True)]
        )
    except (AdviceError, bufsim.ScenarioError) as e:
        if objective:
            _fail(str(e))
        costs, refused = [], str(e)
    if as_json:
        print(json.dumps(scn.normalized))
        return
    head, *rest = scn.describe()
    console.print(f"valid. {head}", highlight=False)
    for line in rest:
        console.print(f"  {line}", highlight=False)
    runnable = []
    for engine in bufsim.ENGINES:
        why = _cannot_run(scn, engine)
        if why:
            console.print(f"  {engine} engine: {why}", highlight=False)
            continue
        runnable.append(engine)
        cost = limits.estimate(scn, engine)
        cpu = f" (about {fmt.metric('cpu_s', cost['cpu_s'])} of CPU)" if "cpu_s" in cost else ""
        console.print(
            f"  {engine} engine: can run it here: about {_about(cost['work'])} "
            f"{cost['work_unit']}{cpu}, {fmt.metric('memory_bytes', cost['memory_bytes'])} of memory",
            highlight=False,
        )
    if timing:
        console.print(f"  {timing}", highlight=False)
    if "packet" not in runnable:
        console.print("  advise: cannot run it (it needs the packet engine)", highlight=False)
    elif not costs:
        console.print(f"  advise: cannot estimate it: {refused}", highlight=False)
    else:
        _print_advise_costs(scn, objectives, costs)
    console.print("--json prints the whole normalized scenario", highlight=False)


@app.command()
def demo(
    quick: Annotated[bool, typer.Option(help="Shorter runs (seconds instead of minutes).")] = False,
) -> None:
    """Run the main job: paper 000, section IV.B.

    50 Mbps, 25 Mbps Poisson background, 1/2/4 NewReno flows, buffers
    20/100/625 packets, next to the paper's values."""
    from bufsim.reproduce import auge2006

    table = auge2006.run(quick=quick, progress=Lines("demo").say)

    out = Table(
        title="Paper 000 (Augé & Roberts 2006) section IV.B: 50 Mbps, FIFO drop-tail",
        caption="NewReno, SACK: goodput / (capacity - background); paper: what paper 000 says",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for header in ("flows", "buffer", "bg", "util", "TCP Mbps", "NewReno", "SACK", "paper"):
        out.add_column(header, justify="left" if header == "paper" else "right", no_wrap=True)
    for r in table.itertuples(index=False):
        out.add_row(
            str(r.flows),
            f"{r.buffer_pkts} pkt",
            "25 Mbps" if r.background else "-",
            f"{r.utilization:.3f}",
            f"{r.tcp_mbps:.2f}",
            f"{r.residual_share:.3f}",
            f"{r.residual_share_sack:.3f}",
            r.paper,
        )
    console.print(out)


#: The metrics a sweep table shows, with their short headers.
_SWEEP_METRICS = {
    "utilization": "util",
    "goodput_bps": "goodput",
    "drop_rate": "drops",
    "mean_queue_delay_s": "delay",
}


def _sweep_table(table, limit: int = 30) -> Table:
    """A compact table of a sweep's rows (it fits 80 columns): parameters
    (headed by their last path step; the caption gives the full paths),
    engine, seed, a few metrics, and status and error when a point failed;
    the first ``limit`` rows (0: every row)."""
    import math

    limit = limit or len(table)
    params = list(
        table.columns[: list(table.columns).index("engine")]
    )  # parameter columns come first
    short = {p: p.split(".")[-1] for p in params}
    if len(set(short.values())) < len(short):
        short = {p: p for p in params}
    metrics = [m for m in _SWEEP_METRICS if m in table.columns]
    failed = bool((table["status"] == "failed").any())
    cols = params + ["engine", "seed"] + metrics + (["status", "error"] if failed else [])
    headers = {**short, **_SWEEP_METRICS}
    out = Table(show_header=True, box=box.SIMPLE_HEAD, pad_edge=False)
    for c in cols:
        out.add_column(
            headers.get(c, c),
            justify="left" if c == "error" else "right",
            no_wrap=c != "error",
            overflow="fold",
        )
    for row in table.head(limit).itertuples(index=False):
        values = dict(zip(table.columns, row))
        cells = []
        for c in cols:
            v = values[c]
            if c == "error":
                cells.append("" if v is None else str(v))
            elif c == "status":
                cells.append("ok" if v == "ok" else Text("failed", style="red"))
            elif c in metrics:
                cells.append(
                    "-"
                    if v is None or (isinstance(v, float) and math.isnan(v))
                    else fmt.metric(c, float(v))
                )
            else:
                cells.append(str(v))
        out.add_row(*cells)
    notes = [f"{short[p]} = {p}" for p in params if short[p] != p]
    if len(table) > limit:
        notes.append(f"first {limit} of {len(table)} rows (--limit 0: all)")
    if notes:
        out.caption = "; ".join(notes)
    return out


_TABLE_SUFFIXES = (".csv", ".parquet")


def _check_out(path: Path | None, suffixes: tuple[str, ...], what: str) -> None:
    """Fail now, before the work, if ``path`` cannot be written."""
    from bufsim._paths import check_output_file

    if path is not None:
        try:
            check_output_file(path, suffixes, what)
        except bufsim.OutputPathError as e:
            _fail(str(e))


def _export(table, path: Path) -> None:
    """Write a table as CSV or Parquet (by the file's suffix, checked by :func:`_check_out`)."""
    if path.suffix.lower() == ".parquet":
        frame = table.copy()
        for c in frame.columns:  # mixed-type parameter columns: store their text
            if frame[c].dtype == object:
                frame[c] = frame[c].map(
                    lambda v: v if v is None or isinstance(v, str) else json.dumps(v)
                )
        frame.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)


@app.command()
def sweep(
    spec: Annotated[
        Path | None,
        typer.Argument(help="Sweep spec (.toml): base, engines, seeds, [grid], [[zip]]."),
    ] = None,
    example: Annotated[
        str | None,
        typer.Option(
            help="A sweep spec shipped with bufsim instead of a file (`bufsim examples` lists them)."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Local worker processes (default: the number of cores).")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Dask scheduler address (tcp://host:port); runs the points on its workers.",
            envvar="DASK_SCHEDULER_ADDRESS",
        ),
    ] = None,
    store: Annotated[Path, typer.Option(help="Results store directory.")] = Path("results"),
    out: Annotated[
        Path | None, typer.Option(help="Also write the table to this .csv or .parquet file.")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Check the spec, count points and cached ones; run nothing."
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")
    ] = False,
    limit: Annotated[int, typer.Option(help="Rows of the table to print (0: every row).")] = 30,
) -> None:
    """Run a parameter sweep into the results store.

    Finished points land in the store as they finish, so a rerun resumes."""
    from bufsim.store import Store, StoreError
    from bufsim.sweep import SweepSpecError, load_spec

    if limit < 0:
        _fail(f"--limit must be >= 0 (rows to print; 0 prints every row), got {limit}")
    _check_out(out, _TABLE_SUFFIXES, "--out")
    spec = _scenario_arg(spec, example, "sweep spec")
    try:
        sp = load_spec(spec)
    except SweepSpecError as e:
        _fail(str(e))
    if dry_run:
        points = sp.expand()
        stored = {}
        if (store / "store.sqlite").is_file():  # a dry run creates nothing
            with Store(store) as db:
                stored = db.get(p.key for p in points)
        todo = [p for p in points if stored.get(p.key, {}).get("status") != "ok"]
        # Points whose engine cannot run them (ns-3 on a pool, ns-3 not
        # installed, the fluid engine on two-way traffic) would only fail.
        refused: dict[tuple[str, str], int] = {}
        for p in todo:
            why = (
                ""
                if p.engine.startswith("model:")
                else _cannot_run(bufsim.Scenario(p.raw), p.engine)
            )
            if why:
                refused[(p.engine, why)] = refused.get((p.engine, why), 0) + 1
        n_refused = sum(refused.values())
        console.print(
            f"{len(points)} points ({len(points) - len(todo)} already in {store}, "
            f"{len(todo) - n_refused} to run"
            + (f", {n_refused} that their engine cannot run" if n_refused else "")
            + ")",
            highlight=False,
        )
        for (engine, why), n in refused.items():
            console.print(f"  {n} on the {engine} engine: {why}", highlight=False)
        return
    try:
        table = sp.run(
            workers=workers,
            scheduler=scheduler,
            store=store,
            progress=False if quiet else for_stderr(f"sweep {sp.name or spec.stem}"),
        )
    except (SweepSpecError, StoreError) as e:
        _fail(str(e))
    except KeyboardInterrupt:
        err_console.print(
            f"interrupted: finished points are in {store}; run the same command again to resume"
        )
        raise typer.Exit(130) from None
    info = table.attrs["sweep"]
    if not quiet:
        console.print(_sweep_table(table, limit))
    console.print(
        f"{info['points']} points: {info['ran']} ran, {info['cached']} reused from {store}, "
        f"{info['failed']} failed ({info['executor']}, {info['wall_s']:.1f} s)"
    )
    for error, count in info["errors"].items():
        err_console.print(
            Text.assemble("  ", (f"{count} failed:", "red"), f" {error}"), highlight=False
        )
    if out is not None:
        _export(table, out)
        console.print(f"table written to {out}")
    if info["failed"]:
        # Exit status 1: some points failed (the table and the store hold why).
        err_console.print(f"{info['failed']} of {info['points']} points failed", highlight=False)
        raise typer.Exit(1)


@app.command()
def results(
    store: Annotated[Path, typer.Option(help="Results store directory.")] = Path("results"),
    engine: Annotated[str | None, typer.Option(help="Only this engine.")] = None,
    status: Annotated[str | None, typer.Option(help="Only 'ok' or 'failed' points.")] = None,
    name: Annotated[str | None, typer.Option(help="Only this scenario name.")] = None,
    sweep_name: Annotated[
        str | None,
        typer.Option(
            "--sweep", help="Only the points of this sweep (a spec's name; 'run' for bufsim run)."
        ),
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(help="PATH=VALUE: only points with this sweep parameter (repeatable)."),
    ] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write the rows to this .csv or .parquet file.")
    ] = None,
    limit: Annotated[int, typer.Option(help="Rows to print (0: every row).")] = 30,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Check the store (SQLite integrity, every row and time series file); exit 1 if damaged.",
        ),
    ] = False,
) -> None:
    """List, filter and export what the results store holds."""
    import warnings

    from bufsim.store import DamagedRowsWarning, Store, StoreError

    if status not in (None, "ok", "failed"):
        _fail(f"--status must be 'ok' or 'failed', got {status!r}")
    if limit < 0:
        _fail(f"--limit must be >= 0 (rows to print; 0 prints every row), got {limit}")
    _check_out(export, _TABLE_SUFFIXES, "--export")
    filters = {}
    for item in where or []:
        path, sep, value = item.partition("=")
        if not sep or not path:
            _fail(f"--where {item!r}: write PATH=VALUE, e.g. --where link.buffer=20pkt")
        try:
            filters[path.strip()] = json.loads(value)
        except json.JSONDecodeError:
            filters[path.strip()] = value
    if not (store / "store.sqlite").is_file():
        _fail(f"no results store in {str(store)!r} (run `bufsim sweep` first, or give --store)")
    try:
        with Store(store) as db, warnings.catch_warnings():
            warnings.simplefilter("ignore", DamagedRowsWarning)  # said below, once
            if check:
                problems = db.check()
                for line in problems:
                    err_console.print(f"damaged: {line}", highlight=False)
                console.print(
                    f"{db.path}: {'damaged, ' + str(len(problems)) + ' problem(s)' if problems else 'sound'}"
                    f" ({len(db)} points)",
                    highlight=False,
                )
                raise typer.Exit(1 if problems else 0)
            _check_where(db, filters, store)
            table = db.table(
                engine=engine, status=status, name=name, sweep=sweep_name, where=filters
            )
            sweeps = db.sweeps()
    except StoreError as e:
        _fail(str(e))
    for key in table.attrs.get("damaged", []):
        err_console.print(
            Text.assemble(
                ("damaged row left out:", "red"),
                f" {key} (a sweep recomputes it; --check tells more)",
            ),
            highlight=False,
        )
    if export is not None:
        _export(table, export)
        console.print(f"{len(table)} rows written to {export}")
        return
    if table.empty:
        hint = ""
        if name is not None and name in sweeps:
            hint = f" (no scenario is named {name!r}, but a sweep is: --sweep {name})"
        elif sweep_name is not None:
            hint = f" (the sweeps in {store}: {', '.join(sweeps) or 'none'})"
        console.print(f"no matching points{hint}", highlight=False)
        return
    console.print(_sweep_table(table, limit))
    n_failed = int((table["status"] == "failed").sum())
    console.print(
        f"{len(table)} points ({n_failed} failed) in {store}"
        + (f"; sweeps: {', '.join(f'{k} ({v})' for k, v in sweeps.items())}" if sweeps else ""),
        highlight=False,
    )


def _check_where(db: Any, filters: dict[str, Any], store: Path) -> None:
    """Refuse a ``--where`` path that no stored point has as a sweep
    parameter: it would match nothing, silently."""
    if not filters:
        return
    known = sorted({p for r in db.records() for p in r["params"]})
    for path in filters:
        if path not in known:
            _fail(
                f"--where {path}: no point in {str(store)!r} has the sweep parameter "
                f"{path!r}; its parameters: {', '.join(known) or 'none'}"
            )


@app.command()
def examples(
    action: Annotated[str, typer.Argument(help="list, or copy NAME [DEST].")] = "list",
    name: Annotated[str | None, typer.Argument(help="With copy: the example.")] = None,
    dest: Annotated[Path, typer.Argument(help="With copy: a folder or a file name.")] = Path("."),
) -> None:
    """List the shipped example scenarios, or copy one.

    A copy is a file to edit; `bufsim run --example NAME` runs one as it is."""
    if action == "list":
        from rich import box

        for what, names, command in (
            ("scenario", bufsim.examples.names(), "run"),
            ("sweep spec", bufsim.examples.specs(), "sweep"),
        ):
            listing = Table(
                box=box.SIMPLE_HEAD,
                pad_edge=False,
                caption=f"bufsim {command} --example NAME runs one; "
                "bufsim examples copy NAME copies it",
            )
            listing.add_column("name", no_wrap=True, style="bold")
            listing.add_column(what)
            for n in names:
                listing.add_row(n, bufsim.examples.describe(n))
            console.print(listing)
        return
    if action != "copy" or name is None:
        _fail(f"write `bufsim examples list` or `bufsim examples copy NAME [DEST]`, got {action!r}")
    try:
        target = bufsim.examples.copy(name, dest)
    except bufsim.BufsimError as e:
        _fail(str(e))
    console.print(f"copied to {target}")


@app.command()
def checks(
    quick: Annotated[
        bool, typer.Option(help="The short runs (what the test suite runs); --no-quick: the long.")
    ] = True,
    ns3: Annotated[
        bool,
        typer.Option(
            "--ns3",
            help="Also run the checks ns-3 can run cheaply in ns-3.37, and on the packet "
            "engine with the same ns-3 form (stack = ns3).",
        ),
    ] = False,
) -> None:
    """Check TCP behaviour against the literature.

    The checks of bufsim.checks. Each row: the check, what it measured against what its source expects,
    and the verdict; with --ns3 also ns-3's number and the packet engine's on the same ns-3 form;
    a failing check's finding follows the table."""
    import bufsim.checks as suite

    if ns3:
        from bufsim import ns3 as ns3_engine

        if not ns3_engine.available():
            _fail(f"--ns3: ns-3 is not installed; {ns3_engine.INSTALL_HINT}")
    table = suite.run_all(quick=quick, ns3=ns3)
    by_name = {c.name: c for c in suite.CHECKS}
    listing = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for column in ("check", "measured", "expected", "verdict"):
        listing.add_column(column, no_wrap=column != "check")
    for row in table.itertuples():
        listing.add_row(
            row.name, fmt.number(row.measured), by_name[row.name].expectation, row.verdict
        )
    console.print(listing)
    if ns3:
        # A second table: the checks ns-3 ran, each beside the packet engine's.
        beside = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for column in ("check", "packet", "ns-3", "packet, ns-3 form"):
            beside.add_column(column, no_wrap=True)
        for row in table[table["ns3"].notna()].itertuples():
            beside.add_row(
                row.name, *(fmt.number(v) for v in (row.measured, row.ns3, row.packet_ns3))
            )
        console.print(beside)
        console.print(
            'ns-3: ns-3.37 on the check\'s ns-3 form (every group on stack = "ns3" with the '
            "tcp_params ns-3's class needs); packet, ns-3 form: the packet engine on that same "
            "form; the other checks have no ns-3 form that runs in minutes",
            highlight=False,
        )
    passed = int((table["verdict"] == "pass").sum())
    console.print(f"{passed} of {len(table)} checks pass; sources: bufsim.checks.CHECKS")
    for row in table[table["verdict"] == "fail"].itertuples():
        console.print(f"{row.name}: {row.finding or row.source}")


@app.command()
def reproduce(
    name: Annotated[
        str,
        typer.Argument(
            help="Which paper: one of the names `bufsim reproduce list` shows, or 'all'."
        ),
    ],
    quick: Annotated[
        bool, typer.Option(help="The short version (what the test suite runs).")
    ] = False,
    out: Annotated[Path, typer.Option(help="Directory for the CSV tables.")] = Path(
        "results/reproduce"
    ),
    workers: Annotated[
        int | None,
        typer.Option(
            help="Local worker processes for the runs a reproduction starts together "
            "(default: one per core; 0 runs them in this process).",
            min=0,
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Address of a Dask scheduler (tcp://host:8786) to run on."),
    ] = None,
) -> None:
    """Reproduce a paper's published results.

    Print the table and the paper's claims beside bufsim's numbers, and write them as CSV and the HTML report
    (figures included) into OUT; 'all' writes one report of every paper.

    Every run is kept in the results store OUT/runs as it finishes: running
    the same reproduction again reads the stored runs instead of running
    them, so an interrupted one resumes where it stopped."""
    from bufsim import reproduce as rep

    if name == "list":
        from rich import box

        listing = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        listing.add_column("name", no_wrap=True, style="bold")
        listing.add_column("what it reproduces")
        for key, what in rep.PAPERS.items():
            listing.add_row(key, what)
        console.print(listing)
        return
    names = list(rep.PAPERS) if name == "all" else [name]
    tables, counts, tuned, heads, ns2 = {}, {}, {}, {}, {}
    if scheduler is not None:
        from bufsim.sweep import check_scheduler_address

        try:
            check_scheduler_address(scheduler)
        except bufsim.BufsimError as e:
            _fail(str(e))
    for key in names:
        try:
            reproduction = rep.get(key)
        except ValueError as e:
            _fail(str(e))
        out.mkdir(parents=True, exist_ok=True)
        table = reproduction.run(
            quick=quick,
            store=out / "runs",
            workers=workers,
            scheduler=scheduler,
            progress=Lines(f"reproduce {key}").say,
        )
        stem = f"{key}{'-quick' if quick else ''}"

        def show(title: Text, frame: Any, path: Path) -> None:
            frame.to_csv(path, index=False)
            console.print(title)
            console.print(frame.to_string(index=False, float_format=fmt.number), soft_wrap=True)
            console.print(f"written to {path}")

        rep.save(key, table, quick=quick, directory=out)
        show(Text.assemble((key, "bold"), f": {reproduction.what}"), table, out / f"{stem}.csv")
        for sub, (title, frame) in reproduction.tables(table).items():
            show(Text(title, style="bold"), frame, out / f"{stem}-{sub}.csv")
        claims = reproduction.claims(table)
        counts[key] = _print_claims(claims, out / f"{stem}-claims.csv")
        tuned[key] = rep.tunings_line(claims)
        heads[key] = rep.headline_counts(claims)
        ns2[key] = rep.ns2_counts(claims)
        tables[key] = table
    from bufsim import report

    page = (
        report.reproductions_report(tables, quick=quick)
        if name == "all"
        else report.reproduction_report(reproduction, quick=quick, table=tables[name])
    )
    html_path = out / f"{name}{'-quick' if quick else ''}.html"
    html_path.write_text(page, encoding="utf-8")
    _print_counts(counts, quick, tuned, heads, ns2)
    console.print(f"report written to {html_path}")


def _print_counts(
    counts: dict[str, dict[str, int]],
    quick: bool,
    tuned: dict[str, str] | None = None,
    heads: dict[str, dict[str, int]] | None = None,
    ns2: dict[str, dict[str, int]] | None = None,
) -> None:
    """Print, per paper, its headline results reproduced / explained by a
    run / unexplained (``heads``, :func:`bufsim.reproduce.headline_counts`),
    how many claims fall in each verdict category, how many of them
    ns-2.35 itself reproduces from the paper (``ns2``,
    :func:`bufsim.reproduce.ns2_counts`), then the tuned parameters its
    ``agrees after tuning`` rest on."""
    from bufsim.reproduce import HEADLINE_COUNTS, VERDICTS

    if heads:
        h = Table(
            title=f"Headline results per paper ({'quick' if quick else 'full'} runs)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        h.add_column("paper", no_wrap=True, style="bold")
        h.add_column("headline results", justify="right")
        for k in HEADLINE_COUNTS:
            h.add_column(k, justify="right")
        for key, row in heads.items():
            h.add_row(key, str(row["headline"]), *(str(row[k]) for k in HEADLINE_COUNTS))
        console.print(h)

    t = Table(
        title=f"Verdicts per paper ({'quick' if quick else 'full'} runs; only 'agrees' counts as reproduced)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    t.add_column("paper", no_wrap=True, style="bold")
    for v in VERDICTS:
        t.add_column(v, justify="right")
    for key, row in counts.items():
        t.add_row(key, *(str(row[v]) for v in VERDICTS))
    console.print(t)
    if ns2:
        n = Table(
            title="ns-2.35, the papers' simulator, with each paper's setup: how many claims "
            "it reproduces itself (its number within the claim's pass mark)",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        n.add_column("paper", no_wrap=True, style="bold")
        for col in ("claims", "ns-2 runs", "ns-2 reproduces", "no ns-2 run"):
            n.add_column(col, justify="right")
        for key, row in ns2.items():
            n.add_row(key, *(str(row[k]) for k in ("claims", "ns2", "reproduced", "cannot")))
        console.print(n)
    for key, line in (tuned or {}).items():
        if line:
            console.print(f"{key}: {line}")


#: Colour of each verdict in the terminal.
_VERDICT_COLOURS = {
    "agrees": "green",
    "agrees after tuning": "blue",
    "differs, explained": "yellow",
    "differs, unexplained": "red",
    "undecided": "magenta",
    "check": "dim",
}


def _print_claims(claims, path: Path) -> dict[str, int]:
    """Print a reproduction's claims table (the paper's statements, bufsim's
    numbers, verdicts and reasons), write it as CSV to ``path`` and return
    the count of each verdict."""
    from bufsim.reproduce import ns2_cell, verdict_counts

    claims.to_csv(path, index=False)
    t = Table(title="The paper's claims and bufsim's numbers", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("claim", "paper", "ns-2.35", "bufsim", "tolerance", "verdict", "why"):
        t.add_column(col, overflow="fold")
    for _, r in claims.iterrows():
        colour = _VERDICT_COLOURS[r["verdict"]]
        tol = (
            ""
            if r["tolerance"] != r["tolerance"]
            else f"{fmt.number(r['tolerance'])} ({r['tolerance_source']})"
        )
        why = r["why"] + (f" Tuned: {r['tuning']}." if r["tuning"] else "")
        if r["explained_by"]:
            why += f" Run: {r['explained_by']}."
        t.add_row(
            str(r["claim"]),
            str(r["paper"]),
            ns2_cell(r),
            fmt.number(r["bufsim"]),
            tol,
            Text(r["verdict"], style=colour),
            why,
        )
    console.print(t)
    console.print(f"claims written to {path}")
    return verdict_counts(claims)


@app.command()
def advise(
    ctx: typer.Context,
    scenario: Annotated[
        Path | None,
        typer.Argument(help="Scenario file (.toml or .json); its link.buffer is ignored."),
    ] = None,
    objective: Annotated[
        list[str] | None,
        typer.Option(
            "--objective",
            "-O",
            help="An objective such as utilization>=0.98 or p99_queue_delay<=5ms (repeat for more).",
        ),
    ] = None,
    seeds: Annotated[int, typer.Option(help="Packet runs per probed buffer.")] = 5,
    confidence: Annotated[
        float, typer.Option(help="One-sided confidence for each objective over the seeds.")
    ] = 0.95,
    quick: Annotated[
        bool, typer.Option(help="Two seeds and a coarser grid: a first answer fast.")
    ] = False,
    budget: Annotated[int | None, typer.Option(help="At most this many packet runs.")] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (tcp://host:port).")
    ] = None,
    store: Annotated[
        Path, typer.Option(help="Results store directory (runs are cached there).")
    ] = Path("results"),
    report_path: Annotated[
        Path | None, typer.Option("--report", help="Also write the HTML report here.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
    example: Annotated[str | None, typer.Option(help=_EXAMPLE_HELP)] = None,
    verify_ns3: Annotated[
        bool,
        typer.Option(
            "--verify-ns3",
            help="Also run ns-3 at the recommended buffer and say whether it agrees "
            "(as --verify ns3).",
        ),
    ] = False,
    verify: Annotated[
        list[str] | None,
        typer.Option(
            "--verify",
            help="Also run this engine at the recommended buffer and say whether it agrees: "
            f"{', '.join(n for n, e in bufsim.ENGINES.items() if e.verifies)} (repeat for more).",
        ),
    ] = None,
    full_runs: Annotated[
        bool,
        typer.Option(
            "--full-runs",
            help="Run every packet run to its duration (by default a run stops once "
            "each objective's verdict is known).",
        ),
    ] = False,
    flag: Annotated[
        list[str] | None,
        typer.Option(
            "--flag",
            help="Flag a cost past this level instead of the default: loss>2%, "
            "timeouts>0.5 (per flow per s), jain<0.3, unfinished>5%, or loss=off (repeat for more).",
        ),
    ] = None,
    compare: Annotated[
        str | None,
        typer.Option(
            "--compare",
            help="Search once per value of a scenario field and compare the buffers they "
            "need: fabric.algorithm=dt,abm,lqd or fabric.alpha=0.5,1,2.",
        ),
    ] = None,
) -> None:
    """Find the smallest buffer that meets every objective.

    Each answer is verified with the packet engine. The answer, its cost and
    the flags come first; -v adds the rules' notes, the scenario, the
    convergence check and what the search cost. --compare runs one search
    per value of a field and leads with the value that needs the least."""
    from bufsim.advise import AdviceError
    from bufsim.advise import advise as run_advise
    from bufsim.advise.compare import compare as run_compare
    from bufsim.advise.compare import parse_compare
    from bufsim.advise.flags import thresholds

    scenario = _scenario_arg(scenario, example)
    if not objective:
        _fail('give at least one objective: -O "utilization>=0.98" (repeat -O for more)')
    if budget is not None and budget < 1:
        _fail(f"--budget must be at least 1 packet run, got {budget}")
    try:
        thresholds(flag)  # refused before any run, as a bad -O is
    except AdviceError as e:
        _fail(str(e))
    verifiers = [n for n, e in bufsim.ENGINES.items() if e.verifies]
    for name in verify or []:
        if name not in verifiers:
            _fail(
                f"--verify {name}: not an engine that verifies; allowed are {', '.join(verifiers)}"
            )
    checks = [*(["ns3"] if verify_ns3 else []), *(verify or [])]
    _check_out(report_path, (".html", ".htm"), "--report")
    try:
        compared = None if compare is None else parse_compare(compare)
    except AdviceError as e:
        _fail(str(e))
    if compared is not None and report_path is not None:
        _fail("--report writes one search's advice: with --compare, leave it out")
    bar, say = _advise_progress(terminal=err_console.is_terminal and not as_json)
    try:
        if bar is not None:
            bar.start()
        search = (
            run_advise
            if compared is None
            else lambda *args, **kw: run_compare(*args, *compared, **kw)
        )
        a = search(
            scenario,
            objective,
            seeds=seeds,
            confidence=confidence,
            quick=quick,
            budget=budget,
            scheduler=scheduler,
            store=store,
            progress=say,
            stop_early=not full_runs,
            flags=flag,
            engines=("rules", "fluid", "packet", *dict.fromkeys(checks)),
        )
    except (
        AdviceError,
        bufsim.ScenarioError,
        bufsim.SweepSpecError,
        bufsim.EngineError,
        bufsim.StoreError,
    ) as e:
        _fail(str(e))
    finally:
        if bar is not None:
            bar.stop()
    verbose = (ctx.parent.params.get("verbose") or 0) if ctx.parent is not None else 0
    if compared is not None:
        _print_comparison(a, as_json=as_json, verbose=bool(verbose))
        return
    if report_path is not None:
        report_path.write_text(a.to_html(), encoding="utf-8")
    if as_json:
        print(json.dumps(a.to_dict(), indent=2))
        return
    _print_advice(a, verbose=bool(verbose))
    if report_path is not None:
        console.print(f"report written to {report_path}")


def _print_comparison(c: Any, as_json: bool, verbose: bool) -> None:
    """A :class:`~bufsim.advise.compare.Comparison` on the console: its
    headline, then one row per value (smallest buffer first); with
    ``verbose`` each search's advice below. ``as_json``: the table and
    every advice as JSON."""
    if as_json:
        print(
            json.dumps(
                {
                    "field": c.field,
                    "table": json.loads(c.table.to_json(orient="records")),
                    "advices": [a.to_dict() for a in c.advices],
                },
                indent=2,
            )
        )
        return
    console.print(
        f"[bold]bufsim advise --compare {escape(c.field)}:[/bold]", highlight=False, markup=True
    )
    console.print(c.headline(), style="bold green", highlight=False)
    t = Table(box=box.SIMPLE_HEAD)
    scn = c.advices[0].scenario
    loss = "loss (worst switch)" if scn is not None and "fabric" in scn.normalized else "loss"
    for name, justify in ((c.field, "left"), ("buffer", "right"), (loss, "right"), ("", "left")):
        t.add_column(name, justify=justify)
    for _, r in c.table.iterrows():
        ok = bool(r["feasible"])
        t.add_row(
            escape(str(r["value"])),
            fmt.packets(r["buffer_pkts"]) if ok else "none",
            fmt.percent(r["drop_rate"]) if ok else "-",
            "" if ok else escape(r["binding"]),
        )
    console.print(t)
    for value, a in zip(c.values, c.advices) if verbose else ():
        console.print(
            f"\n[bold]{escape(c.field)} = {escape(str(value))}[/bold]", highlight=False, markup=True
        )
        _print_advice(a, verbose=False)


def _advise_progress(terminal: bool) -> tuple[Progress | None, Callable[[Any], None]]:
    """One progress bar for a whole advise search: what it does, runs done,
    ETA; plain lines (:class:`~bufsim.sweep.progress.Lines`) when stderr is
    no terminal or stdout carries JSON."""
    if not terminal:
        lines = Lines("advise")
        return None, lambda p: lines(p.done, p.total, "runs", p.message)
    bar = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.fields[runs]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )
    # The runs count shows once the search knows how many it expects.
    task = bar.add_task("advise: starting", total=None, runs="")

    def say(p: Any) -> None:
        runs = f"{p.done}/{p.total} runs" if p.total else ""
        bar.update(
            task, description=f"advise: {p.message}", completed=p.done, total=p.total, runs=runs
        )

    return bar, say


#: The most buffers the first screen's cost table shows when no buffer
#: meets every objective (40 lines in all).
ADVICE_COST_ROWS = 12


def _cost_table(a: Any) -> Any:
    """The costs at each buffer measured (when no buffer meets every
    objective) as a console table, at most ADVICE_COST_ROWS rows; None
    without a packet run."""
    from bufsim.advise.advice import MEASURED_COSTS

    per_flow = " per flow per s"
    c = Table(
        title=MEASURED_COSTS,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
    )
    # Slowdowns stay in the cost line (-v, --json), 80 columns, unless
    # an objective is one.
    judged = any(o.key.startswith("slowdown_") for o in a.objectives)
    rows = [
        (b, [cell for cell in cells if judged or "slowdown" not in cell[0]])
        for b, cells in a.measured_costs()
    ]
    if not rows:
        return None
    # At most ADVICE_COST_ROWS buffers, spread over those measured, on
    # the first screen; -v's cost tables have them all.
    shown = rows
    if len(rows) > ADVICE_COST_ROWS:
        step = (len(rows) - 1) / (ADVICE_COST_ROWS - 1)
        shown = [rows[round(k * step)] for k in range(ADVICE_COST_ROWS)]
        c.caption = f"{len(shown)} of the {len(rows)} buffers measured; -v: all"
    c.add_column("packets", justify="right")
    for name, _ in rows[0][1]:
        c.add_column(name + (per_flow if name == "timeouts" else ""), justify="right")
    for b, cells in shown:
        c.add_row(fmt.number(b), *(v.replace(per_flow, "") for _, v in cells))
    return c


def _print_advice(a: Any, verbose: bool = False) -> None:
    """The advice on the console: its first screen (answer, cost, flags,
    the buffer that clears them, the stack line) and the compact table of
    rules, 80 columns and about 40 lines; with ``verbose`` then the
    scenario, the full table with the model's values and the rules'
    notes, the trade-off, the costs at every measured buffer, how the
    search went, what it cost and every note."""
    import textwrap

    from bufsim.advise.advice import short_source

    width = min(console.width, 100)

    def para(text: str, style: str | None = None) -> None:
        for line in textwrap.wrap(text, width=width, subsequent_indent="  ") or [""]:
            console.print(line, style=style, highlight=False)

    console.print(
        "[bold]bufsim advise:[/bold] " + escape(", ".join(o.text for o in a.objectives)),
        highlight=False,
        markup=True,
    )
    if a.feasible:
        for text in a.first_screen():
            style = "bold yellow" if text.startswith("FLAG ") else None
            para(text, "bold green" if text.startswith("Answer") else style)
    else:
        # The same costs at every buffer measured, as a table.
        para(a.headline(), "bold red")
        if a.worst_place:
            para(a.worst_place)
        if (costs := _cost_table(a)) is not None:
            console.print(costs)
        para(a.thresholds_text())
        para(a.stack_line())
    # The rules side by side: one cell for what the packet engine measured
    # at each rule's buffer, the objectives as short keys (O1, O2, ...);
    # the rules that do not apply named in one line.
    keys = {o.text: f"O{k}" for k, o in enumerate(a.objectives, 1)}
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("#", justify="right")
    t.add_column("rule", no_wrap=True)
    t.add_column("packets", justify="right", no_wrap=True)
    t.add_column("packet engine (" + ", ".join(keys.values()) + ")")
    idle = []
    for k, row in enumerate(a.table.to_dict("records"), 1):
        b = row["buffer_pkts"]
        name = short_source(str(row["source"]))
        if row["source"] == "recommended" and not a.feasible:
            continue
        if b != b and row["source"] != "fluid scan" and row["meets all"] is None:
            idle.append((k, name, str(row.get("note") or "")))
            continue
        buffer = "n/a" if b != b else fmt.number(b, 3)
        t.add_row(str(k), name, buffer, _measured_cell(a, row, keys))
    console.print(t)
    para("  ".join(f"{v} {k}" for k, v in keys.items()))
    quick = [f"{k} {n}" for k, n, note in idle if note.startswith("not computed with quick")]
    other = [f"{k} {n}" for k, n, note in idle if not note.startswith("not computed with quick")]
    if other:
        para("does not apply here: " + ", ".join(other) + " (-v: why)")
    if quick:
        para("not computed in --quick: " + ", ".join(quick))
    if not verbose:
        console.print(
            "-v: the rules' reasons, all costs, scenario, convergence, provenance",
            style="dim",
            highlight=False,
        )
        return
    _print_advice_detail(a)


def _measured_cell(a: Any, row: dict, keys: dict[str, str]) -> str:
    """What the packet engine measured at one row of the advice's table:
    each objective's mean (``>=`` a lower bound) and the verdict, or why
    nothing was measured there (never a bare ``-``)."""
    note = str(row.get("note") or "")
    if row["meets all"] is not None:
        values = ", ".join(
            f"{keys[o.text]} "
            + fmt.metric(o.key, row[o.text], censored=bool(row.get(f"{o.text} censored")))
            for o in a.objectives
        )
        return f"{values}: {'meets all' if row['meets all'] else 'not met'}"
    if row["source"] == "fluid scan":
        return "fluid engine only (-v: its edges)"
    if note.startswith("not computed with quick"):
        return "not computed in --quick"
    if not row["applies"] or row["buffer_pkts"] != row["buffer_pkts"]:
        return "does not apply (-v: why)"
    return "not run in --quick" if a.quick else "not run (budget)"


def _print_advice_detail(a: Any) -> None:
    """The advice's detail under -v: everything the compact view leaves out."""

    from bufsim.advise.advice import short_source

    console.print()
    if a.scenario is not None:
        for line in a.scenario.describe(buffer=False):
            console.print(f"scenario: {line}", highlight=False)
    t = Table(
        title="Rules, models and packet engine",
        caption="objective cells: packet engine mean (analytic model)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    t.add_column("#", justify="right")
    t.add_column("rule", no_wrap=True)
    t.add_column("packets", justify="right")
    for k, _o in enumerate(a.objectives, 1):
        t.add_column(f"O{k}", justify="right")
    t.add_column("meets all")
    for k, row in enumerate(a.table.to_dict("records"), 1):
        b = row["buffer_pkts"]
        buffer = "n/a" if b != b else fmt.number(b, 3)
        cells = [str(k), short_source(str(row["source"])), buffer]
        # Where the packet engine did not run: no buffer to run, or why not.
        idle = "n/a" if b != b else "not run in --quick" if a.quick else "not run"
        for o in a.objectives:
            measured, model = row[o.text], row.get(f"{o.text} (model)", math.nan)
            censored = bool(row.get(f"{o.text} censored", False))
            cell = idle if measured != measured else fmt.metric(o.key, measured, censored=censored)
            if model == model:
                cell += f" ({fmt.metric(o.key, model)})"
            cells.append(cell)
        m = row["meets all"]
        cells.append(idle if m is None else "yes" if m else "no")
        t.add_row(*cells)
    console.print(t)
    for k, row in enumerate(a.table.to_dict("records"), 1):
        if row["note"]:
            console.print(f"{k:>2}. {row['source']}: {row['note']}", highlight=False)
    if not a.feasible:
        _print_tradeoff(a)
    _print_costs(a)
    console.print(a.method, highlight=False)
    p = a.provenance()
    console.print(
        f"what it cost: {p['packet runs']} packet runs ({p['packet runs run now']} run now, "
        f"the others read from the store), {p['packet runs stopped early']} of them stopped "
        f"once their verdicts were known, {fmt.metric('simulated_s', p['simulated s (packet runs)'])} "
        f"simulated, {fmt.metric('packets', p['packets simulated (packet runs)'])} bottleneck "
        f"packets, {fmt.metric('wall_s', p['wall s (packet runs)'])} of packet-run wall time; "
        f"{p['fluid runs']} fluid runs; the search took {fmt.metric('wall_s', p['wall s (search)'])}",
        highlight=False,
    )
    for note in a.notes:
        style = "bold yellow" if note.startswith("WARNING") else None
        console.print(note, style=style, highlight=False)


def _print_tradeoff(a: Any) -> None:
    """The buffers the packet engine measured when none meets every
    objective, each objective's value (a lower bound as ``>= x``) and
    whether it holds there."""
    trade = a.tradeoff()
    if not trade.empty:
        t = Table(title="The trade-off: buffers the packet engine measured (* Pareto-optimal)")
        t.add_column("buffer", justify="right")
        for o in a.objectives:
            t.add_column(o.text, justify="right")
        for _, row in trade.iterrows():
            cells = [fmt.number(row["buffer_pkts"]) + (" *" if row["pareto"] else "")]
            for o in a.objectives:
                verdict = row[f"{o.text} verdict"]
                value = fmt.metric(o.key, row[o.text], censored=bool(row[f"{o.text} censored"]))
                cells.append(value + ("" if verdict == "holds" else f" ({verdict})"))
            t.add_row(*cells)
        console.print(t)


def _print_costs(a: Any) -> None:
    """What each buffer the packet engine measured costs (the recommendation,
    the rules it checked, every buffer the search probed), one row per
    metric, three buffers per table so that it fits 80 columns."""
    costs = a.cost_table()
    if costs.empty:
        return
    rows = list(costs.itertuples(index=False))
    for first in range(0, len(rows), 3):
        t = Table(
            title="What each measured buffer costs" if first == 0 else None,
            caption=f"packet engine: mean ± {a.confidence:.0%} t interval over the seeds"
            if first + 3 >= len(rows)
            else None,
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        t.add_column("")
        for r in rows[first : first + 3]:
            t.add_column(f"{r.buffer} pkts\n{r.source}\n{r.seeds} seeds", justify="right")
        for col in costs.columns[3:]:
            t.add_row(col, *(str(v) for v in costs[col].iloc[first : first + 3]))
        console.print(t)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return fmt.number(value)
    return "" if value is None else str(value)


@app.command()
def report(
    source: Annotated[
        str | None,
        typer.Argument(
            help="A result directory, a sweep spec (.toml), a results store, or a reproduction name."
        ),
    ] = None,
    example: Annotated[
        str | None,
        typer.Option(
            help="A sweep spec shipped with bufsim instead of SOURCE (`bufsim examples` lists them)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")] = Path(
        "report.html"
    ),
    name: Annotated[str | None, typer.Option(help="With a store: only this scenario name.")] = None,
    full: Annotated[
        bool, typer.Option(help="With a reproduction: the full runs instead of the quick ones.")
    ] = False,
) -> None:
    """Write a self-contained HTML report.

    Figures inline, no network access."""
    from bufsim import report as rep

    _check_out(out, (".html", ".htm"), "--out")
    if example is not None and source is None and example in bufsim.examples.names():
        # A scenario example is a run's input, not a report's: say how to get one.
        _fail(
            f"--example {example!r} is a scenario; a report reads a sweep spec "
            f"({', '.join(bufsim.examples.specs())}) or a run's result: "
            f"bufsim run --example {example} --out DIR, then bufsim report DIR"
        )
    if (source is None) == (example is None):
        _fail(
            "give a SOURCE (a result directory, a sweep spec, a results store or a "
            "reproduction name) or --example NAME, one of them"
        )
    if example is not None:
        source = str(_scenario_arg(None, example, "sweep spec"))
    try:
        path = rep.write(source, out, name=name, quick=not full, progress=True)
    except (bufsim.BufsimError, ValueError, OSError) as e:
        # BufsimError: a damaged store (StoreError), a bad spec, a failed engine.
        _fail(str(e))
    console.print(f"report written to {path}")


@app.command("validate-engines")
def validate_engines(
    quick: Annotated[
        bool, typer.Option(help="The three-scenario subset of `make test` (10 s runs).")
    ] = False,
    only: Annotated[
        list[str] | None, typer.Option(help="Run only this scenario (repeatable); see --list.")
    ] = None,
    seeds: Annotated[int, typer.Option(min=1, max=20, help="ns-3 seeds per scenario.")] = 3,
    max_seeds: Annotated[
        list[int] | None,
        typer.Option(
            min=1,
            max=100,
            help="Run a scenario that does not agree with --seeds again on ns-3 with this "
            "many (default: no); repeat it, increasing, for further looks at one that "
            "still does not.",
        ),
    ] = None,
    packet_seeds: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=1000,
            help="Packet-engine seeds per scenario, at least --seeds and --max-seeds "
            "(default: 100, bufsim.ns3.validate.PACKET_SEEDS).",
        ),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the scenarios and exit.")] = False,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for metrics.csv, runs.csv and report.md.")
    ] = Path("results/validate-engines"),
    reuse: Annotated[
        list[Path] | None,
        typer.Option(
            help="A results store whose runs are copied into OUT/runs first (repeatable): "
            "a run of this build stored there is not run again. `make validate` gives "
            "the repository's validation/ns3-runs, the ns-3 runs of the costliest scenarios.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Local worker processes for a scenario's runs (default: one per core; "
            "0 runs them in this process).",
        ),
    ] = None,
    against: Annotated[
        str,
        typer.Option(
            help="The reference simulator: ns3 (ns-3.37, the packet engine with stack = "
            '"ns3") or ns2 (ns-2.35, the packet engine with stack = "ns2"; the scenarios '
            "ns-2 cannot express are listed as refused)."
        ),
    ] = "ns3",
) -> None:
    """Check the packet engine against ns-3 (or ns-2).

    Run the packet engine (stack = "ns3") and ns-3 on the validation
    scenarios and print how well they agree, metric by metric (an
    equivalence test over the seeds, its looks planned in advance), with
    both engines' CPU time.

    Every run is kept in the results store OUT/runs as it finishes: an
    interrupted validation resumes, and more --seeds add to the stored ones.
    A run is keyed by its scenario, seed and engine build (for ns-3: the
    driver and ns-3's version), so one copied with --reuse is the run this
    build would make."""
    from bufsim.ns3 import validate as v

    if against not in ("ns3", "ns2"):
        _fail(f"--against: {against!r}; the suite runs against ns3 or ns2")
    if list_:
        for name in v.scenarios():
            console.print(name, highlight=False)
        return
    import pandas as pd

    packet_seeds = v.PACKET_SEEDS if packet_seeds is None else packet_seeds
    try:
        looks = v.looks_of(seeds, max_seeds)
    except ValueError:
        _fail(
            f"--max-seeds: each must be more than --seeds ({seeds}) and the --max-seeds "
            f"before it, got {max_seeds}"
        )
    least = max((seeds, *looks))
    if packet_seeds < least:
        _fail(
            f"--packet-seeds: must be at least --seeds and --max-seeds ({least}), "
            f"got {packet_seeds}"
        )
    names = only or list(v.QUICK if quick else v.scenarios())
    unknown = [n for n in names if n not in v.scenarios()]
    if unknown:
        _fail(f"unknown scenario(s) {unknown}; bufsim validate-engines --list names them")
    for src in reuse or []:
        if not (src / "store.sqlite").is_file():
            _fail(f"--reuse: no results store in {str(src)!r} (a folder holding store.sqlite)")
    version = _reference_version(against)
    out.mkdir(parents=True, exist_ok=True)
    _reuse(out / "runs", reuse or [])
    rows: list[dict[str, Any]] = []
    run_rows: list[dict[str, Any]] = []
    for name in names:
        metric_rows, run = v.validate_one(
            name,
            tuple(range(1, seeds + 1)),
            max_seeds=looks,
            packet_seeds=packet_seeds,
            quick=quick,
            progress=Lines("validate-engines").say,
            store=out / "runs",
            workers=workers,
            against=against,
        )
        rows += metric_rows
        run_rows.append(run)
        # Written after each scenario: an interrupted suite keeps what ran.
        metrics, runs = pd.DataFrame(rows), pd.DataFrame(run_rows)
        metrics.to_csv(out / "metrics.csv", index=False)
        runs.to_csv(out / "runs.csv", index=False)
        (out / "report.md").write_text(v.markdown(metrics, runs, version, against=against))
    # Five short columns fit 80 (the metrics each verdict rests on follow
    # the table, a line per scenario, instead of being cut to fit).
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    table.add_column("scenario", no_wrap=True, min_width=max(map(len, runs["scenario"])))
    table.add_column("verdict")
    # CPU seconds a run (each engine's mean over its seeds).
    ref = {"ns3": "ns-3", "ns2": "ns-2"}[against]
    for h in (f"{ref} CPU", "packet CPU", "ratio"):
        table.add_column(h, justify="right")
    for r in runs.to_dict("records"):
        ran = r["verdict"] != "refused"
        table.add_row(
            r["scenario"],
            r["verdict"],
            fmt.metric("ns3_cpu_s", r[f"{against}_cpu_s"]) if ran else "-",
            fmt.metric("packet_cpu_s", r["packet_cpu_s"]) if ran else "-",
            f"{r['speed_ratio']:.0f}x" if ran else "-",
        )
    console.print(table)
    counts = runs["verdict"].value_counts()
    others = ", ".join(f"{int(n)} {v}" for v, n in counts.items() if v != "agrees")
    console.print(
        f"{int(counts.get('agrees', 0))} of {len(runs)} scenarios agree"
        + (f"; {others}" if others else "")
        + f". Report: {out / 'report.md'}",
        highlight=False,
    )
    whys = v.why_not(runs)
    for r in runs[~runs["verdict"].isin(["agrees", "failed", "refused"])].itertuples():
        on = "; ".join(
            f"{what}: {m}"
            for what, m in (("beyond", r.differs_on), ("undecided", r.undecided_on))
            if m
        )
        why = whys[r.scenario]
        console.print(f"  {r.scenario} ({on}): {why}", highlight=False)
    for r in runs[runs["verdict"].isin(["failed", "refused"])].itertuples():
        console.print(f"  {r.scenario} {r.verdict}: {r.reason}", highlight=False)


def _reference_version(against: str) -> str:
    """The version of validate-engines' reference engine, once it is
    checked to run here (else one error line)."""
    from bufsim import ns2, ns3

    try:
        if against == "ns3":
            version = ns3.version()
            ns3.driver()
            return version
        if not ns2.available():
            _fail(ns2.why_unavailable())
        return ns2.version()
    except bufsim.BufsimError as e:
        _fail(str(e))


def _reuse(store: Path, sources: list[Path]) -> None:
    """Copy the runs of each results store of ``sources`` into ``store``
    (:meth:`Store.merge <bufsim.store.Store.merge>`), saying how many."""
    from bufsim.store import Store, StoreError

    for src in sources:
        try:
            with Store(store) as db, Store(src) as other:
                n = db.merge(other)
        except StoreError as e:
            _fail(f"--reuse {str(src)!r}: {e}")
        console.print(f"{n} runs copied from {src} into {store}", highlight=False)


def _verbose_first(args: list[str]) -> list[str]:
    """``args`` with every ``-v``/``-vv``/``--verbose`` moved before the
    subcommand, where the app's callback reads it: users type it after the
    subcommand too (``bufsim run s.toml -v``). Arguments after ``--`` stay."""
    end = args.index("--") if "--" in args else len(args)
    flag = [a == "--verbose" or (len(a) > 1 and a.strip("v") == "-") for a in args[:end]]
    head = [a for a, f in zip(args[:end], flag) if f]
    return head + [a for a, f in zip(args[:end], flag) if not f] + args[end:]


def main() -> None:
    """Entry point of the ``bufsim`` script."""
    sys.argv[1:] = _verbose_first(sys.argv[1:])
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
