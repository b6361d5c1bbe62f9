"""Objectives: what ``bufsim advise`` is asked, and how runs are judged on it.

An objective is ``metric op bound`` (:func:`parse_objective`,
:class:`Objective`): the metric a run's summary key (:data:`METRICS`), the
bound in SI units (seconds, bits/s, fractions). Per-seed values are judged
on a one-sided Student t bound over the seeds (:meth:`Objective.holds`). A
completion time that unfinished transfers leave only a lower bound reads as
infinite (:func:`judged`), and an upper bound that the lower bound still
meets cannot be judged (:func:`cannot_judge`, :func:`observed`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bufsim import _core, fmt
from bufsim._core import BufsimError
from bufsim._stats import t_half_width


class AdviceError(BufsimError, ValueError):
    """The question cannot be answered as asked (bad objective, unreachable target)."""


#: objective name -> (summary key it reads, unit kind of its bound). Which
#: way it moves with the buffer: :attr:`Objective.grows_with_buffer`.
METRICS: dict[str, tuple[str, str]] = {
    "utilization": ("utilization", "fraction"),
    "drop_rate": ("drop_rate", "fraction"),
    "jain_index": ("jain_index", "fraction"),
    "mean_queue_delay": ("mean_queue_delay_s", "time"),
    "p50_queue_delay": ("p50_queue_delay_s", "time"),
    "p99_queue_delay": ("p99_queue_delay_s", "time"),
    "goodput": ("goodput_bps", "rate"),
    # Flow completion times of finite transfers (bufsim.flows.fct_summary):
    # not monotone in the buffer (an interval search, see advise()). Per
    # size class (small, large; medium and long splitting large at 10 MB),
    # mean, median and 99th percentile; a slowdown is the completion time
    # over the ideal one on an empty path, a ratio >= 1.
    **{
        f"fct_{s}_{c}": (f"fct_{s}_{c}_s", "time")
        for c in ("small", "medium", "long", "large")
        for s in ("mean", "p50", "p99")
    },
    **{
        f"slowdown_{s}_{c}": (f"slowdown_{s}_{c}", "ratio")
        for c in ("small", "medium", "long", "large")
        for s in ("mean", "p50", "p99")
    },
    # The same slowdowns spelled as an FCT statistic (fct_p99_slowdown_small),
    # as datacenter papers name them; they read the same summary keys.
    **{
        f"fct_{s}_slowdown_{c}": (f"slowdown_{s}_{c}", "ratio")
        for c in ("small", "medium", "long", "large")
        for s in ("mean", "p50", "p99")
    },
    # Incast query completion times (bufsim.flows.query_summary).
    **{f"qct_{s}": (f"qct_{s}_s", "time") for s in ("mean", "p50", "p99")},
}

#: Completion-time metrics: not monotone in the buffer, censored when a
#: transfer is unfinished.
COMPLETION_PREFIXES = ("fct_", "slowdown_", "qct_")

#: The completion-time metrics of :data:`METRICS` in short, for messages.
COMPLETION_FORMS = (
    "fct_<stat>_<class>",
    "slowdown_<stat>_<class> (or fct_<stat>_slowdown_<class>; stat mean, p50 or p99; class small, medium, long or large)",
    "qct_<stat>",
)


GROUP_GOODPUT = re.compile(r"goodput_bps_group(\d+)$")


_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"


@dataclass(frozen=True)
class Objective:
    """One objective: ``metric op bound``.

    Attributes
    ----------
    text : str
        As written (``"p99_queue_delay<=5ms"``).
    key : str
        The summary metric it reads (``p99_queue_delay_s``).
    op : str
        ``">="`` or ``"<="``.
    bound : float
        In SI units (seconds, bits/s, fractions).
    """

    text: str
    key: str
    op: str
    bound: float

    @property
    def grows_with_buffer(self) -> bool:
        """Whether the objective holds from some buffer up (else: up to some buffer)."""
        return not self.key.endswith("queue_delay_s")

    @property
    def monotone(self) -> bool:
        """Whether the objective changes one way along the buffer axis.

        Flow completion times do not: small flows' mean FCT on 10 Mbps with
        web traffic measured 1.0 s at 2 packets, 0.69 s at 100 and 1.7 s at
        300 (losses and timeouts at small buffers, queueing at large ones).
        """
        return not self.key.startswith(COMPLETION_PREFIXES)

    def _bound(self, values: Sequence[float], confidence: float) -> tuple[float, float] | None:
        """(mean, one-sided t bound toward failing) over the seeds; None without values."""
        v = np.asarray([x for x in values if x == x], dtype=float)
        if len(v) == 0:
            return None
        m = float(v.mean())
        half = 0.0
        # An infinite value (a completion time only known as a lower bound,
        # see judged()) decides the verdict alone: no interval around it.
        if len(v) > 1 and confidence > 0 and np.isfinite(v).all():
            half = t_half_width(v, confidence)
        return m, (m - half if self.op == ">=" else m + half)

    def holds(self, values: Sequence[float], confidence: float) -> bool:
        """Whether the objective holds on these per-seed values with the given
        one-sided confidence (Student t bound over seeds; the value itself
        with one seed)."""
        mb = self._bound(values, confidence)
        if mb is None:
            return False
        return mb[1] >= self.bound if self.op == ">=" else mb[1] <= self.bound

    def straddles(self, values: Sequence[float], confidence: float) -> bool:
        """Whether the verdict is undecided: the mean meets the bound and the
        one-sided t bound does not (with two seeds or more). More seeds
        narrow the interval (:func:`advise` runs them)."""
        mb = self._bound(values, confidence)
        if mb is None or len([x for x in values if x == x]) < 2:
            return False
        m, b = mb
        meets_mean = m >= self.bound if self.op == ">=" else m <= self.bound
        return meets_mean and not self.holds(values, confidence)

    def known(self, values: Sequence[float], quantile: float) -> bool:
        """Whether the verdict is known either way: the bound lies outside
        the Student t interval ``mean +- t(quantile, n - 1) s / sqrt(n)``
        of the per-seed values (two or more, all finite; NaN ones left
        out): the law the packet engine's ``output.stop`` applies to a
        run's batch means, the core's own (``_core.verdict_known``)."""
        v = [float(x) for x in values if x == x]
        return _core.verdict_known(v, self.op == ">=", self.bound, quantile)


#: advise's ``output.stop``: the window in this many batches, the first test
#: after this many (the core's defaults too).
STOP_BATCHES, STOP_MIN_BATCHES = 10, 4


def batch_measured(o: Objective) -> bool:
    """Whether a packet run measures objective ``o``'s metric batch by batch
    (``bufsim._core.STOP_METRICS`` and the groups' goodputs), so that a run
    can stop once its verdict is known."""
    return o.key in _core.STOP_METRICS or GROUP_GOODPUT.match(o.key) is not None


def stop_rule(objs: Sequence[Objective], confidence: float) -> dict[str, Any] | None:
    """The ``output.stop`` rule for packet runs judged on ``objs``: a run
    ends at the first batch boundary where each objective's verdict is
    known at ``confidence`` (the core's sequential batch-means test, see
    ``Stop`` in ``crates/bufsim-core/src/scenario/output.rs``), else at its
    duration. None when some objective's metric is not measured batch by
    batch (``bufsim._core.STOP_METRICS``; Jain's index and completion times
    are not): those runs measure their whole window."""
    if not objs or not all(batch_measured(o) for o in objs):
        return None
    decide = [{"metric": o.key, "op": o.op, "bound": o.bound} for o in objs]
    return {
        "decide": decide,
        "confidence": confidence,
        "batches": STOP_BATCHES,
        "min_batches": STOP_MIN_BATCHES,
    }


def _with_unit(field_: str, text: str, kind: str) -> float:
    text = text.strip()
    if kind == "fraction":
        m = re.fullmatch(rf"({_NUMBER})\s*(%?)", text)
        if not m:
            raise AdviceError(
                f"objective {field_!r}: a fraction is a number (or a percentage), got {text!r}"
            )
        return float(m.group(1)) / (100 if m.group(2) else 1)
    if kind == "ratio":
        if not re.fullmatch(_NUMBER, text):
            raise AdviceError(f"objective {field_!r}: a slowdown is a plain number, got {text!r}")
        return float(text)
    try:
        # The scenario's unit parsers (bufsim-core units.rs): one law for units.
        return _core.parse_quantity(text, "duration" if kind == "time" else "rate")
    except ValueError as e:
        raise AdviceError(f"objective {field_!r}: {e}") from None


def parse_objective(text: str) -> Objective:
    """Read an objective such as ``"utilization>=0.98"``, ``"p99_queue_delay<=5ms"``,
    ``"drop_rate<=1e-3"`` or ``"goodput_bps_group1>=20Mbps"``.

    Parameters
    ----------
    text : str
        ``metric>=bound`` or ``metric<=bound``: a metric of :data:`METRICS`
        or ``goodput_bps_group<k>``; a fraction as a number or a percentage,
        a time or a rate with its unit (``5ms``, ``20Mbps``, the scenario's
        units).

    Returns
    -------
    Objective
        Its bound in SI units (seconds, bits/s, fractions).

    Raises
    ------
    AdviceError
        Naming the objective and what is allowed.
    """
    if not isinstance(text, str):
        raise AdviceError(f"an objective is a string such as 'utilization>=0.98', got {text!r}")
    m = re.fullmatch(r"\s*([A-Za-z_0-9]+)\s*(>=|<=)\s*(.+?)\s*", text)
    if not m:
        raise AdviceError(
            f"objective {text!r}: write metric>=bound or metric<=bound, e.g. 'utilization>=0.98' or 'p99_queue_delay<=5ms'"
        )
    name, op, bound = m.groups()
    if GROUP_GOODPUT.fullmatch(name):
        key, kind = name, "rate"
    elif name in METRICS:
        key, kind = METRICS[name]
    else:
        plain = [k for k in METRICS if not k.startswith(COMPLETION_PREFIXES)]
        allowed = ", ".join([*plain, "goodput_bps_group<k>", *COMPLETION_FORMS])
        raise AdviceError(f"objective {text!r}: unknown metric {name!r}; allowed: {allowed}")
    value = _with_unit(text, bound, kind)
    if kind == "ratio" and value < 1:
        raise AdviceError(
            f"objective {text!r}: a slowdown is at least 1 (the ideal completion time), got "
            f"{fmt.number(value)}"
        )
    if kind == "fraction" and not 0 <= value <= 1:
        raise AdviceError(
            f"objective {text!r}: a fraction must be between 0 and 1, got {fmt.number(value)}"
        )
    if value < 0 or not math.isfinite(value):
        raise AdviceError(f"objective {text!r}: the bound must be a finite number >= 0")
    expected = "<=" if key.endswith("_s") or key == "drop_rate" or kind == "ratio" else ">="
    if op != expected:
        raise AdviceError(
            f"objective {text!r}: {name} is bounded {'above' if expected == '<=' else 'below'}: write {name}{expected}{bound}"
        )
    return Objective(text=text.strip(), key=key, op=op, bound=value)


def cannot_judge(o: Objective, mean: float, censored: bool) -> bool:
    """Whether a mean that is only a lower bound (``censored``: some run's
    completion time is) leaves objective ``o`` undecided: an upper bound
    that the lower bound still meets, so the true mean may or may not. A
    lower bound already past the bound is a failure.

    Parameters
    ----------
    o : Objective
        The objective.
    mean : float
        The mean of its metric over the seeds, SI units (:func:`observed`).
    censored : bool
        Whether that mean is only a lower bound.

    Returns
    -------
    bool
    """
    return bool(censored) and o.op == "<=" and mean <= o.bound


def judged(runs: pd.DataFrame, key: str) -> np.ndarray:
    """The runs' values of metric ``key`` as objectives judge them: a
    completion-time statistic that is only a lower bound (its ``_censored``
    column is 1) reads as infinite, so no upper bound on it holds there.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs of a sweep table, with a column ``key``.
    key : str
        A summary metric (:attr:`Objective.key`).

    Returns
    -------
    numpy.ndarray
        One value per run, SI units (seconds, bits/s, fractions); ``inf``
        where it is only a lower bound.
    """
    v = runs[key].to_numpy(dtype=float)
    censored = runs.get(f"{key}_censored")
    if censored is None:
        return v
    return np.where(censored.to_numpy() == 1.0, math.inf, v)


def observed(runs: pd.DataFrame, key: str) -> tuple[float, bool]:
    """The runs' mean of metric ``key`` (NaN without it) and whether that
    mean is only a lower bound: some run's value is (its ``_censored``
    column is 1, :func:`bufsim.flows.fct_summary`), and a mean over lower
    bounds and values bounds the true mean from below.

    Parameters
    ----------
    runs : pandas.DataFrame
        Runs of a sweep table.
    key : str
        A summary metric (:attr:`Objective.key`).

    Returns
    -------
    (float, bool)
        The mean, SI units (NaN without runs or without the column), and
        whether it is only a lower bound.
    """
    if key not in runs or runs.empty:
        return math.nan, False
    censored = runs.get(f"{key}_censored")
    return float(runs[key].mean()), censored is not None and bool((censored == 1.0).any())


def simulated_s(runs: pd.DataFrame, duration_s: float) -> pd.Series:
    """Each packet run's simulated seconds: where it stopped (``end_s``,
    ``output.stop``), else ``duration_s`` (seconds)."""
    end = runs["end_s"] if "end_s" in runs else pd.Series(math.nan, index=runs.index)
    return end.fillna(duration_s).astype(float)


def flow_timeout_rate(runs: pd.DataFrame, duration_s: float) -> pd.Series:
    """Each packet run's retransmission timeouts per flow per second: the
    one law for every view of this cost (the costs table, the flags, the
    notes).

    The senders' ``timeouts`` counters cover the whole run, slow start
    included (the warm-up does not reset them, unlike the window's
    statistics), so the rate divides by the run's simulated seconds
    (:func:`simulated_s`), not by its measurement window, and by the mean
    number of active flows (at least 1).

    Parameters
    ----------
    runs : pandas.DataFrame
        Packet runs of a sweep table (``timeouts``, ``active_flows_mean``).
    duration_s : float
        The runs' duration, seconds (a run that stopped early ends at its
        ``end_s``).

    Returns
    -------
    pandas.Series
        Timeouts per flow per second, one per run.
    """
    return (
        runs["timeouts"] / runs["active_flows_mean"].clip(lower=1) / simulated_s(runs, duration_s)
    )


def unfinished_share(runs: pd.DataFrame) -> pd.Series:
    """Each run's share of the transfers started in its window that had not
    finished when it ended (0..1, both size classes; 0 without finite
    traffic)."""
    started = pd.Series(0.0, index=runs.index)
    done = pd.Series(0.0, index=runs.index)
    for c in ("small", "large"):
        if f"flows_started_{c}" in runs:
            started += runs[f"flows_started_{c}"].fillna(0)
            done += runs[f"flows_completed_{c}"].fillna(0)
    return ((started - done) / started.where(started > 0)).fillna(0.0)
