"""ns-2.35 as an engine (``engine="ns2"``): the scenario's dumbbell written
as one OTcl script and run in the installed ``ns``, the simulator four of
the five papers used.

:func:`write_script` turns the normalized scenario into the script
(:mod:`bufsim.ns2.otcl` says how each field maps, citing ns-2.35's source);
:func:`run` keeps it beside the results (its path is in the Result's
provenance, ``ns2_script``: ``ns script.tcl`` reruns it), runs ``ns`` and
parses what the script prints into the packet engine's shape, so
:func:`bufsim.simulate` returns the same :class:`~bufsim.Result`.

What the script measures:

- each monitored queue's monitor (``$ns monitor-queue``): arrivals,
  departures, drops and bytes sent, read every ``output.interval``, and the
  time integral of the queue in packets (mean queue); the queues are the
  bottleneck, or each link of a chain, and with two-way traffic the
  reverse link;
- a flow monitor on each of them (``makeflowmon Fid``): each flow's
  arrivals, departures, drops and bytes sent there (goodput: new data
  through the last link it crosses, as the packet engine counts it; see
  :func:`parse`); ACKs keep their data's flow id;
- each flow's agent at the warm-up and at the end: the highest cumulative
  ACK, data and retransmitted packets, timeouts (``nrexmit_``), cwnd and
  smoothed RTT; a finite transfer's end from its agent's ``done``.

What ns-2 runs as bufsim asks: the bottleneck (capacity, delay, buffer in
packets or bytes, DropTail, RED, or fq as ns-2's DRR on a dumbbell:
:func:`bufsim.ns2.otcl.fq_queue_lines`), chains (a router after each link, each
link's queue as the bottleneck's, flow groups crossing consecutive links,
a background source one), two-way traffic (the bottleneck's return
direction is the reverse link with its own rate and queue; reverse groups
send over it, every group's ACKs of ``reverse.ack_size`` queue on the
other direction), per-flow RTTs and starts (the normalized ``rtts_s`` and
``starts_s``: the packet engine's own draws), mss, rwnd, the initial
window, min RTO, SACK, delayed ACKs and their timeout, ECN, the SYN
(``connection_setup``), access links; TCP NewReno and SACK
(``Agent/TCP/Newreno``, ``Sack1``), HighSpeed (``windowOption_ 8``),
CUBIC, H-TCP and Scalable (TCP-Linux, ``Agent/TCP/Linux``); long-lived
FTP flows and finite transfers at the group's starts, of a fixed size or
of sizes drawn from the group's law (:func:`bufsim.ns2.otcl.transfer_sizes`)
and written as each transfer's size; Poisson background sources (UDP agents driven by ns-2's Exponential
on/off source with bursts of one packet,
:func:`bufsim.ns2.otcl.background_lines`); open loops (Poisson or
periodic arrivals, bursts, ``max_active``) and closed loops (users and
their think times) of transfers on pools of agent pairs, one pool per
group and RTT, a finished transfer's pair reset and reused as ns-2's web
traffic does (TCP-Linux: a new pair per transfer; a uniform RTT draw at
the nearest of 64 RTTs; :func:`bufsim.ns2.otcl.dynamic_lines`). Drawn
sizes, arrivals, RTTs and think times come from the packet engine's own
generator in Python (:class:`bufsim.ns2.otcl.CoreRng`), in its order, and
are written into the script: both engines run the same transfers (but a
lognormal law's sizes, an open loop's after a refusal, a closed loop's
after the first think times). Each transfer's start and end (its agent's
``done``) are printed by the script.

What it refuses, by field (:func:`check`): pools, background sources
other than Poisson, loops of more than 20,000 transfers on TCP-Linux
(a new pair each), with an access link slower than the script's own or
past 5,000,000 closed-loop turns, BBR, DCTCP, AIMD, CoDel, PIE and
fq_codel (Debian's ns-2.35 has none of the queues), fq on a chain, with
two-way traffic or loops, or in packets with packets of another size,
Adaptive RED, RED's Floyd variant, RACK, HyStart, random loss, send
jitter, a SYN on TCP-Linux, packet traces, cwnd series and per-half
statistics.

The work is :mod:`bufsim.ns2.driver`'s, which the ns2 engine
(:mod:`bufsim.engines.ns2`) calls; :func:`run` stands above the engines,
so that the driver never imports them.

What it ignores (:data:`IGNORED`): the stack profile's fine rules of
recovery and timers, which ns-2's agents fix their own way; the script's
header lists the values the scenario asked for. ``stack = "ns2"`` is the
packet engine's profile of ns-2.35's agents (``tcp/stack.rs``, each value
beside its line in ``ns-default.tcl`` or ``tcp/*.cc``): its values are
what ns-2 runs, so for a group on it the header lists only the fields the
scenario set over it (:func:`notes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bufsim.engines import simulate
from bufsim.ns2 import otcl as otcl
from bufsim.ns2.driver import BINARY as BINARY
from bufsim.ns2.driver import FIXED as FIXED
from bufsim.ns2.driver import IGNORED as IGNORED
from bufsim.ns2.driver import INSTALL_HINT as INSTALL_HINT
from bufsim.ns2.driver import PACKAGE as PACKAGE
from bufsim.ns2.driver import QDISCS as QDISCS
from bufsim.ns2.driver import TIMEOUT_S as TIMEOUT_S
from bufsim.ns2.driver import VARIANTS as VARIANTS
from bufsim.ns2.driver import available as available
from bufsim.ns2.driver import build as build
from bufsim.ns2.driver import check as check
from bufsim.ns2.driver import execute as execute
from bufsim.ns2.driver import in_workdir
from bufsim.ns2.driver import native as native
from bufsim.ns2.driver import notes as notes
from bufsim.ns2.driver import parse as parse
from bufsim.ns2.driver import version as version
from bufsim.ns2.driver import why_unavailable as why_unavailable
from bufsim.ns2.driver import write_script as write_script
from bufsim.result import Result
from bufsim.scenario import Scenario


def run(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    workdir: str | Path | None = None,
    progress: Callable[[float], Any] | None = None,
) -> Result:
    """Run ``scenario`` in ns-2 and return its :class:`~bufsim.Result`.

    Parameters
    ----------
    workdir : path, optional
        Where ``script.tcl`` and ``ns.out`` (its output) are kept; a new
        directory under the system's temporary one if not given. The
        Result's provenance names the script (``ns2_script``).

    Raises
    ------
    ScenarioError
        What ns-2 cannot express (:func:`check`).
    EngineError
        ``ns`` is missing, failed or ran out of time.
    """
    with in_workdir(workdir):
        return simulate(scenario, engine="ns2", progress=progress)
