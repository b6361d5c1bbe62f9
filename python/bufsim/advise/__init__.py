"""``bufsim advise``: from an objective to a verified buffer size.

For one link (a scenario whose ``link.buffer`` is ignored) and objectives
such as ``utilization>=0.98`` and ``p99_queue_delay<=5ms``, :func:`advise`

0. derives ``duration`` and ``warmup`` from the scenario's time scales when
   it does not give them (:func:`bufsim.timescales.time_scales`);
1. checks that the objectives can be met at all (a utilization target on a
   link the traffic cannot saturate, paper 002 section 3.2, is refused with
   what would be needed; flow completion times need finite traffic);
2. lists every published rule (BDP, Stanford ``CT/sqrt(N)``, paper 002's
   loss formula, paper 003's B0 for synchronized and desynchronized flows,
   paper 001's HighSpeed fixed point, paper 000's transparent regime, paper
   004's fluid loss-synchronization range at X = 0.3 and 1) with its buffer,
   or why it does not apply to this traffic;
3. finds the fluid engine's edges on a log grid of buffers (where the
   scenario has a fluid form) by bisection, to bracket the answer;
4. searches the smallest buffer that meets every objective with the packet
   engine: a bisection over the grid for the monotone objectives, an
   interval search (scan one buffer per doubling, bisect both edges) for
   flow completion times, ``seeds`` runs per probed buffer and more where a
   verdict is undecided (adaptive seeds), each objective judged on a
   one-sided Student t confidence bound over the seeds; the buffer one grid
   step below must fail;
5. measures every rule's buffer with the packet engine too;
6. checks that each packet run converged: every objective's metric over the
   first and the second half of its measurement window agree
   (:data:`CONVERGENCE_TOL`; the packet engine measures both halves with
   ``output.halves``), with a warning in :attr:`Advice.notes` where they do
   not at the decisive buffers.

Every run goes through :func:`bufsim.sweep`, so the results store caches it
(an interrupted search resumes where it stopped) and a Dask scheduler
spreads it. Objectives that pull apart (utilization wants a large buffer,
delay a small one) give a trade-off, not an error: :class:`Advice` then says
which objective binds and keeps the runs for the trade-off curve.

Monotonicity is assumed along the buffer axis for utilization, goodput,
fairness, loss and queueing delay objectives: the first four hold from some
buffer up, delay objectives up to some buffer. Flow completion times are
assumed to hold on one interval of buffers (a note says so when the scan
sees two). The grid has four points per doubling of the buffer (ratio
2^(1/4), 19%), in ``quick`` mode two (41%).

Example
-------
>>> a = bufsim.advise(bufsim.examples.path("advise-10g"),
...                   ["utilization>=0.98", "p99_queue_delay<=5ms"])   # doctest: +SKIP
>>> a.buffer_pkts, a.range                                             # doctest: +SKIP

Modules
-------
Each imports only those above it:

:mod:`~bufsim.advise.objectives`
    Objectives and how per-seed values are judged on them
    (:func:`parse_objective`, :class:`Objective`, :class:`AdviceError`).
:mod:`~bufsim.advise.fluid`
    The fluid form of a scenario, its reruns at a set loss synchronization,
    the fluid edge calibrated by a packet measurement.
:mod:`~bufsim.advise.rules`
    The published rules and the analytic model at each buffer (the table
    the search starts from), the grid of buffers.
:mod:`~bufsim.advise.convergence`
    The first against the second half of each packet run
    (:data:`CONVERGENCE_TOL`).
:mod:`~bufsim.advise.search`
    The search, a module per phase in the order it runs: the plan, the
    runs, the probes, the fluid scan, the packet bisection, the verdict,
    the verification by another engine (:class:`AdviseProgress`).
:mod:`~bufsim.advise.notes`
    Notes on a finished search: engines that disagree, objectives left
    unjudged.
:mod:`~bufsim.advise.flags`
    The costs an operator would question unasked (loss, timeouts, Jain's
    index, unfinished transfers): :data:`THRESHOLDS`, :class:`Flag`.
:mod:`~bufsim.advise.advice`
    :class:`Advice`: the answer and its tables (its figure and report are
    :mod:`bufsim.plot`'s and :mod:`bufsim.report`'s, installed from above).
:mod:`~bufsim.advise.driver`
    :func:`advise` and :func:`cost`.
:mod:`~bufsim.advise.compare`
    :func:`compare`: one search per value of a scenario field, side by
    side (:class:`Comparison`).
"""

from bufsim.advise.advice import COSTS as COSTS
from bufsim.advise.advice import Advice
from bufsim.advise.compare import Comparison, compare
from bufsim.advise.convergence import CONVERGENCE_TOL as CONVERGENCE_TOL
from bufsim.advise.driver import advise
from bufsim.advise.driver import cost as cost
from bufsim.advise.driver import with_time_scales as with_time_scales
from bufsim.advise.flags import THRESHOLDS as THRESHOLDS
from bufsim.advise.flags import Flag as Flag
from bufsim.advise.flags import Threshold as Threshold
from bufsim.advise.flags import parse_flag as parse_flag
from bufsim.advise.fluid import SYNC_FLOOR as SYNC_FLOOR
from bufsim.advise.fluid import SYNC_GAP as SYNC_GAP
from bufsim.advise.fluid import SYNC_RANGE as SYNC_RANGE
from bufsim.advise.objectives import METRICS as METRICS
from bufsim.advise.objectives import AdviceError, Objective, parse_objective
from bufsim.advise.search import ADAPTIVE_MAX_FACTOR as ADAPTIVE_MAX_FACTOR
from bufsim.advise.search import ENGINE_GAP as ENGINE_GAP
from bufsim.advise.search import AdviseProgress

__all__ = [
    "Advice",
    "AdviceError",
    "AdviseProgress",
    "Comparison",
    "Objective",
    "advise",
    "compare",
    "parse_objective",
]
