"""The one result shape shared by the packet engine, the fluid engine and the models.

A :class:`Result` holds

* ``summary`` -- a flat ``dict`` of scalar metrics (SI units: seconds, bits/s,
  packets, fractions in [0, 1]),
* ``timeseries`` -- a :class:`pandas.DataFrame` indexed by simulated time
  ``time_s`` (seconds) with one column per sampled quantity,
* ``flows`` -- a :class:`pandas.DataFrame` with one row per flow,
* ``provenance`` -- a ``dict`` saying what produced the result (engine,
  bufsim version, seed, scenario hash, wall-clock seconds),
* ``scenario`` -- the normalized scenario (a plain ``dict``, SI units) it came from,
* ``congestion_events`` -- a :class:`pandas.DataFrame`, one row per congestion event,
* ``trace`` -- a :class:`pandas.DataFrame`, one row per event at the bottleneck
  queue (packet engine with ``output.trace = true``; empty otherwise).

Results round-trip to a directory (``summary.json``, ``provenance.json``,
``scenario.json``, ``timeseries.parquet``, ``flows.parquet``,
``congestion_events.parquet``, and ``trace.parquet`` when there is a trace)
with :meth:`Result.save` and :meth:`Result.load`; :meth:`Result.to_pcap`
writes the trace's packets as a pcap capture.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bufsim import fmt
from bufsim._core import BufsimError
from bufsim._paths import check_output_dir

#: The files every saved result has.
RESULT_FILES = (
    "summary.json",
    "provenance.json",
    "scenario.json",
    "timeseries.parquet",
    "flows.parquet",
    "congestion_events.parquet",
)
#: Files a saved result has only when there is something to put in them
#: (``trace.parquet``: a result with a packet trace).
OPTIONAL_RESULT_FILES = ("trace.parquet",)


class ResultError(BufsimError, OSError):
    """A result directory that cannot be written or read (missing, incomplete, damaged)."""


#: Summary metrics a buffer-sizing reader looks at first, in this order
#: (the compact run summary, reports, notebooks).
KEY_METRICS = [
    "utilization",
    "goodput_bps",
    "drop_rate",
    "mean_queue_delay_s",
    "p99_queue_delay_s",
    "mean_queue_pkts",
    "jain_index",
    "sync_mean",
    "timeouts",
]

#: Summary counters that cover the whole run (the others start after the warm-up).
WHOLE_RUN = {
    "packets_sent",
    "packets_delivered",
    "packets_dropped",
    "packets_in_flight",
    "access_drops",
    "events",
}


def key_metrics(summary: Mapping[str, Any]) -> list[str]:
    """The summary's key buffer-sizing metrics, as ``bufsim run`` prints
    them without ``--all``: :data:`KEY_METRICS`, per-group goodput with
    several groups, each port's or link's utilization, mean queue, p99
    queueing delay and drop rate (a fabric's: each switch's mean and largest
    occupancy and drop rate), two-way traffic's reverse goodput and
    ACKs, and with finite transfers their completions, p99 FCT and
    slowdown (per finite group too when there are several).

    Parameters
    ----------
    summary : mapping
        :attr:`Result.summary`.

    Returns
    -------
    list of str
        The keys, in the order shown.
    """
    import re

    s = summary
    groups = [k for k in s if k.startswith("goodput_bps_group")]
    places = [
        k
        for k in s
        if re.fullmatch(
            rf"(utilization|throughput_bps|mean_queue_pkts|p99_queue_delay_s|drop_rate){fmt.PLACE}",
            k,
        )
    ]
    # A fabric's ports are many: its switches stand for them (--all lists
    # every port).
    switches = [
        k
        for k in s
        if re.fullmatch(r"(mean_occupancy_pkts|max_occupancy_bytes|drop_rate)_(leaf|spine)\d+", k)
    ]
    if switches:
        places = switches
    keys = [k for k in KEY_METRICS if k in s] + (groups if len(groups) > 1 else []) + places
    keys += [
        k for k in ("goodput_bps_reverse", "ack_compression", "ack_gap_cv", "ack_drops") if k in s
    ]
    finite = sorted(
        {
            int(k.rsplit("group", 1)[1])
            for k in s
            if k.startswith("flows_started_") and "_group" in k
        }
    )
    for c in ("small", "large"):
        each = (f"completion_{c}", f"fct_p99_{c}_s", f"slowdown_p99_{c}")
        keys += [k for k in (f"flows_started_{c}", f"flows_completed_{c}", *each) if k in s]
        if len(finite) > 1:
            keys += [f"{k}_group{g}" for g in finite for k in each]
    return [k for k in dict.fromkeys(keys) if k in s]


def plain(value: Any, *, nan_to_none: bool = False) -> Any:
    """Plain Python values (dicts, lists, scalars) from numpy scalars and
    arrays, tuples and mappings; with ``nan_to_none``, non-finite floats
    become ``None`` (strict JSON has no NaN)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v, nan_to_none=nan_to_none) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, nan_to_none=nan_to_none) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return plain(value.tolist(), nan_to_none=nan_to_none)
    if nan_to_none and isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass
class Result:
    """Outcome of one run of an engine (``"packet"``, ``"fluid"``) or a model.

    Attributes
    ----------
    summary : dict
        Scalar metrics. Common keys: ``utilization`` (fraction of bottleneck
        capacity carrying packets, 0..1), ``goodput_bps`` (bits/s, all flows),
        ``drop_rate`` (dropped / arrived packets at the bottleneck),
        ``mean_queue_pkts``, ``mean_queue_delay_s``, ``p50_queue_delay_s``,
        ``p99_queue_delay_s``, ``jain_index``, ``sync_mean`` (mean fraction of
        flows losing a packet per congestion event).
    timeseries : pandas.DataFrame
        Indexed by ``time_s`` (seconds of simulated time).
    flows : pandas.DataFrame
        One row per flow (``flow``, ``group``, ``goodput_bps``, ...).
    provenance : dict
        ``engine``, ``version``, ``build``, ``seed``, ``scenario_hash``,
        ``wall_s`` and ``cpu_s`` (the run's wall-clock and CPU seconds; CPU
        counts this process and, for the ns3 engine, ns-3's).
    scenario : dict
        The normalized scenario (SI units) that produced the result.
    congestion_events : pandas.DataFrame
        One row per congestion event (``time_s``, ``fraction`` of flows that
        lost a packet in it); empty for models.
    trace : pandas.DataFrame
        The packet trace of the bottleneck queue, recorded by the packet
        engine when the scenario sets ``output.trace = true`` (empty
        otherwise): one row per event in time order, columns ``time_s``
        (seconds), ``event`` (categorical: ``enqueue``, ``dequeue`` or
        ``drop_<reason>`` with the reasons of the summary's
        ``drops_<reason>`` counters), ``flow`` (the flows table's id; -1 for
        background packets), ``seq`` (segment number; -1 for a SYN, -2 for
        the handshake's ACK, 0 for background),
        ``size_bytes``, ``queue_pkts`` (packets waiting after the event, a
        running count: an arrival dropped at once shows one above the buffer
        on its ``enqueue`` row) and ``ecn`` (ECN bits: 1 ECT, 2 CE, 4 CWR;
        an AQM's CE mark shows on the ``dequeue`` row). It covers the whole
        run, warm-up included.
    """

    summary: dict[str, Any]
    timeseries: pd.DataFrame = field(default_factory=pd.DataFrame)
    flows: pd.DataFrame = field(default_factory=pd.DataFrame)
    provenance: dict[str, Any] = field(default_factory=dict)
    scenario: dict[str, Any] = field(default_factory=dict)
    congestion_events: pd.DataFrame = field(default_factory=pd.DataFrame)
    trace: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def engine(self) -> str:
        """Name of what produced this result (``packet``, ``fluid`` or a model name)."""
        return str(self.provenance.get("engine", "unknown"))

    def save(self, directory: str | Path) -> Path:
        """Write the result into ``directory`` and return its path.

        Files: ``summary.json``, ``provenance.json``, ``scenario.json``,
        ``timeseries.parquet``, ``flows.parquet``, ``congestion_events.parquet``
        and, when the result has a packet trace, ``trace.parquet``.
        They are written into a temporary folder beside ``directory`` that is
        then renamed into place (replacing an earlier result there), so an
        interrupted save leaves the earlier result or nothing, never half.

        Raises
        ------
        ResultError
            If ``directory`` cannot be written (the message says why).
        """
        out = Path(directory)
        check_output_dir(out)
        tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        try:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            for name, payload in (
                ("summary", self.summary),
                ("provenance", self.provenance),
                ("scenario", self.scenario),
            ):
                (tmp / f"{name}.json").write_text(
                    json.dumps(plain(payload, nan_to_none=True), indent=2, sort_keys=True) + "\n"
                )
            self.timeseries.to_parquet(tmp / "timeseries.parquet")
            self.flows.to_parquet(tmp / "flows.parquet", index=False)
            self.congestion_events.to_parquet(tmp / "congestion_events.parquet", index=False)
            if len(self.trace):
                self.trace.to_parquet(tmp / "trace.parquet", index=False)
            if out.exists():
                os.replace(out, old)
            os.replace(tmp, out)
        except BaseException as e:
            shutil.rmtree(tmp, ignore_errors=True)
            if old.exists() and not out.exists():
                os.replace(old, out)
            if isinstance(e, OSError):
                raise ResultError(
                    f"cannot write the result to {str(out)!r}: {e.strerror or e}"
                ) from None
            raise
        shutil.rmtree(old, ignore_errors=True)
        return out

    @classmethod
    def load(cls, directory: str | Path) -> Result:
        """Read a result written by :meth:`save` (``trace.parquet`` is
        optional: without it, :attr:`trace` is empty).

        Raises
        ------
        ResultError
            If ``directory`` holds no result, or an incomplete or damaged one
            (the message names the file).
        """
        src = Path(directory)
        if not src.is_dir():
            raise ResultError(f"no bufsim result in {str(src)!r}: not a directory")
        missing = [f for f in RESULT_FILES if not (src / f).is_file()]
        if len(missing) == len(RESULT_FILES):
            raise ResultError(
                f"no bufsim result in {str(src)!r} (none of {', '.join(RESULT_FILES)})"
            )
        if missing:
            raise ResultError(
                f"incomplete result in {str(src)!r}: {', '.join(missing)} missing (an interrupted save?); run it again"
            )

        def _read(name: str, read: Callable[[Path], Any]) -> Any:
            try:
                return read(src / name)
            except Exception as e:  # JSON, Arrow or OS errors: the file is damaged
                raise ResultError(f"damaged result file {str(src / name)!r}: {e}") from None

        jsons = {
            n: _read(f"{n}.json", lambda p: json.loads(p.read_text()))
            for n in ("summary", "provenance", "scenario")
        }
        if not all(isinstance(v, dict) for v in jsons.values()):
            raise ResultError(
                f"damaged result in {str(src)!r}: a JSON file does not hold an object"
            )
        read_frame = lambda p: pd.read_parquet(p)  # noqa: E731
        summary = {k: math.nan if v is None else v for k, v in jsons["summary"].items()}
        return cls(
            summary=summary,
            timeseries=_read("timeseries.parquet", read_frame),
            flows=_read("flows.parquet", read_frame),
            provenance=jsons["provenance"],
            scenario=jsons["scenario"],
            congestion_events=_read("congestion_events.parquet", read_frame),
            trace=_read("trace.parquet", read_frame)
            if (src / "trace.parquet").is_file()
            else pd.DataFrame(),
        )

    def to_pcap(self, path: str | Path) -> Path:
        """Write the packets that left the bottleneck as a pcap capture.

        One record per ``dequeue`` row of :attr:`trace`, stamped with the
        simulated time (nanoseconds) its serialization started: a
        synthesized IPv4 + TCP header (background packets: IPv4 + UDP),
        40 bytes captured, the packet size as original length. Addresses,
        ports and sequence numbers are described in :mod:`bufsim.pcap`.
        Wireshark, tshark and tcpdump read it.

        Parameters
        ----------
        path : str or Path
            The ``.pcap`` file to write (replaced if it exists).

        Returns
        -------
        Path
            ``path``.

        Raises
        ------
        ResultError
            If the result has no packet trace (run the packet engine with
            ``output.trace = true``), or the file cannot be written.
        """
        from bufsim.pcap import write_pcap

        if self.trace.empty:
            raise ResultError(
                "this result has no packet trace: run the packet engine with output.trace = true "
                "(bufsim run --pcap FILE sets it)"
            )
        out = Path(path)
        try:
            write_pcap(self.trace, out)
        except OSError as e:
            raise ResultError(f"cannot write {str(out)!r}: {e.strerror or e}") from None
        return out

    def plot(self, kind: str = "timeseries", **options: Any) -> Any:
        """A figure of this result (:mod:`bufsim.plot`).

        Parameters
        ----------
        kind : str
            ``"timeseries"`` (queue, utilization, windows, drops),
            ``"scatter"`` (per-flow goodput against RTT) or ``"cdf"``
            (per-flow throughput CDFs by class; ``column=`` picks another
            flows-table column).
        **options
            Passed to the plotting function.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from bufsim import plot

        kinds = {
            "timeseries": plot.timeseries,
            "scatter": plot.goodput_scatter,
            "cdf": plot.flow_cdfs,
        }
        if kind not in kinds:
            raise ValueError(f"kind must be one of {', '.join(kinds)}, got {kind!r}")
        return kinds[kind](self, **options)

    def _repr_html_(self) -> str:
        """Notebook view: the key metrics and, if there is a time series, a small figure."""
        import html

        from bufsim import fmt, plot

        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td>{html.escape(fmt.metric(k, self.summary[k]))}</td></tr>"
            for k in KEY_METRICS
            if isinstance(self.summary.get(k), (int, float))
        )
        name = html.escape(str(self.scenario.get("name", "")))
        fig = ""
        if not self.timeseries.empty:
            f = plot.timeseries(self, max_flows=4)
            f.set_size_inches(6, 1.2 * len(f.axes) + 0.5)
            fig = plot.svg(f)
        return (
            f"<div><b>bufsim Result</b> {name} ({html.escape(self.engine)}, {len(self.flows)} flows)"
            f"<table>{rows}</table>{fig}</div>"
        )

    def __repr__(self) -> str:
        keys = ", ".join(
            f"{k}={fmt.number(v)}" if isinstance(v, float) else f"{k}={v}"
            for k, v in list(self.summary.items())[:6]
        )
        return f"Result(engine={self.engine!r}, {keys}, flows={len(self.flows)})"
