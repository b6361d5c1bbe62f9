"""The ``bufsim`` command line.

``bufsim run scenario.toml`` runs one scenario and writes its result;
``bufsim validate`` checks a scenario and prints it normalized;
``bufsim demo`` runs the main job (paper 000, section IV.B).
The library never imports this module.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

import bufsim
from bufsim.result import Result

app = typer.Typer(
    help="bufsim: router buffer sizing workbench (models, fluid and packet simulation).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

#: Runs shorter than this (wall seconds) show no progress bar.
PROGRESS_AFTER_S = 2.0


class _LazyProgress:
    """A rich progress bar over simulated time that appears only on long runs."""

    def __init__(self, total_s: float, label: str, enabled: bool):
        self.total = total_s
        self.label = label
        self.enabled = enabled and console.is_terminal
        self.t0 = time.monotonic()
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, sim_s: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.t0 < PROGRESS_AFTER_S:
                return
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total)
        self.bar.update(self.task, completed=sim_s)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _fmt(key: str, value: float) -> str:
    if value != value:  # NaN
        return "-"
    if key.endswith("_bps"):
        return f"{value / 1e6:.3f} Mbps"
    if key.endswith("_s"):
        return f"{value * 1e3:.3f} ms"
    if key in ("utilization", "drop_rate", "jain_index", "sync_mean"):
        return f"{value:.4f}"
    return f"{value:.6g}"


def print_summary(result: Result, title: str) -> None:
    """Print a result's summary as a table."""
    table = Table(title=title, show_header=True)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in result.summary.items():
        table.add_row(key, _fmt(key, value))
    console.print(table)


def _fail(message: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/red] {message}", highlight=False)
    raise typer.Exit(code)


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (.toml or .json).")],
    engine: Annotated[str, typer.Option(help=f"Engine: {', '.join(bufsim.ENGINES)}.")] = "packet",
    out: Annotated[Optional[Path], typer.Option(help="Output directory (default: results/<name>-<engine>).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no table.")] = False,
) -> None:
    """Run one scenario, print its summary and write the result (Parquet + JSON)."""
    try:
        scn = bufsim.Scenario.load(scenario)
    except bufsim.ScenarioError as e:
        _fail(str(e))
    progress = _LazyProgress(scn.normalized["duration_s"], f"{scn.name} [{engine}]", not quiet)
    try:
        result = bufsim.simulate(scn, engine=engine, progress=progress)
    except bufsim.ScenarioError as e:
        progress.close()
        _fail(str(e))
    except KeyboardInterrupt:
        progress.close()
        err_console.print("interrupted: nothing written")
        raise typer.Exit(130)
    progress.close()
    target = out or Path("results") / f"{scn.name}-{engine}"
    result.save(target)
    if not quiet:
        print_summary(result, f"{scn.name} ({engine} engine, {result.provenance['wall_s']:.2f} s wall)")
    console.print(f"result written to {target}")


@app.command()
def validate(scenario: Annotated[Path, typer.Argument(help="Scenario file (.toml or .json).")]) -> None:
    """Check a scenario and print it normalized (SI units) as JSON."""
    try:
        scn = bufsim.Scenario.load(scenario)
    except bufsim.ScenarioError as e:
        _fail(str(e))
    console.print_json(json.dumps(scn.normalized))


@app.command()
def demo(
    quick: Annotated[bool, typer.Option(help="Shorter runs (seconds instead of minutes).")] = False,
) -> None:
    """The main job: paper 000 section IV.B (50 Mbps, 25 Mbps Poisson background,
    1/2/4 NewReno flows, buffers 20/100/625 packets) next to the paper's values."""
    from bufsim.reproduce import auge2006

    table = auge2006.run(quick=quick, progress=lambda msg: err_console.print(msg, highlight=False))
    out = Table(
        title="Paper 000 (Augé & Roberts 2006) section IV.B: 50 Mbps, FIFO drop-tail",
        caption="share = TCP goodput / residual capacity (capacity - background)",
    )
    for header in ("flows", "buffer", "bg", "util", "TCP Mbps", "share NewReno", "share SACK", "paper says"):
        out.add_column(header, justify="right")
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


def main() -> None:
    """Entry point of the ``bufsim`` script."""
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
