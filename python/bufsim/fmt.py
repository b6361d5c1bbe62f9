"""One number formatter for every view of a result: the CLI's tables, the
HTML report, the notebook views (``_repr_html_``) and figure labels.

A metric's unit follows from its name, as in the summaries: ``..._bps`` is a
rate in bit/s, ``..._s`` a time in seconds (also ``..._s_half1`` and the
like), ``..._bytes`` bytes; other values are fractions, ratios or counts.
Rates and times get an SI prefix and four significant digits, so the same
number reads the same everywhere (``152.6 us``, ``9.999 Gbps``).

Examples
--------
>>> from bufsim import fmt
>>> fmt.metric("p99_queue_delay_s", 1.526e-4)
'152.6 us'
>>> fmt.metric("goodput_bps", 9.999e9)
'9.999 Gbps'
>>> fmt.metric("fct_p99_small_s", 0.4, censored=True)
'>= 400 ms'
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

__all__ = [
    "bounds",
    "count",
    "interval",
    "metric",
    "number",
    "packets",
    "percent",
    "ratio",
    "si",
    "size",
    "unit_of",
    "value",
]

_PREFIXES = (
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "u"),
    (1e-9, "n"),
)

#: Units whose values take an SI prefix.
_PREFIXED = {"bps", "s", "B"}

#: The tail of a metric of one queue of several: a pool's port, a chain's
#: link, the reverse link of two-way traffic, or a traffic class's queue on
#: the link or on a pool's port (``utilization_port2``, ``queue_pkts_link0``,
#: ``drop_rate_reverse``, ``throughput_bps_class1``, ``drops_port0_class3``), or
#: a fabric's port or switch (``drops_leaf0.down3``, ``max_occupancy_bytes_spine1``).
PLACE = (
    r"_(?:(?:port|link)\d+(?:_class\d)?|class\d|reverse"
    r"|(?:host\d+\.up|(?:leaf|spine)\d+(?:\.(?:up|down)\d+)?)(?:_class\d)?)"
)

#: A metric name's unit: its suffix (before a ``_half1``/``_half2``,
#: ``_groupN`` or :data:`PLACE` tail) -> unit.
_SUFFIX = re.compile(rf"_(bps|s|bytes|pkts)(?:_half[12]|_group\d+|{PLACE})?$")


def unit_of(key: str) -> str:
    """The unit a metric's name implies: ``bps``, ``s``, ``B``, ``pkts`` or ``""``."""
    m = _SUFFIX.search(key)
    if not m:
        return ""
    return {"bytes": "B"}.get(m.group(1), m.group(1))


#: Metrics that are fractions of one (utilization, loss, Jain's index,
#: synchronization, the fraction of transfers completed, a group's share of
#: the goodput): their values and intervals stay in [0, 1].
FRACTIONS = {
    "utilization",
    "drop_rate",
    "loss_rate",
    "jain_index",
    "sync_mean",
    "sync_rtt",
    "share",
}

_TAIL = re.compile(rf"(?:_half[12]|_group\d+|{PLACE})$")


def bounds(key: str) -> tuple[float, float]:
    """The values a metric can take: ``(0, 1)`` for fractions
    (:data:`FRACTIONS`, ``completion_*``), ``(0, inf)`` for times, rates,
    sizes, counts and ratios (slowdowns, timeouts), ``(-inf, inf)`` otherwise.

    >>> bounds("jain_index"), bounds("utilization_port2"), bounds("fct_p99_small_s")
    ((0.0, 1.0), (0.0, 1.0), (0.0, inf))
    """
    base = _TAIL.sub("", key)
    if base in FRACTIONS or base.startswith("completion_"):
        return 0.0, 1.0
    if unit_of(key) or base.startswith(
        ("slowdown", "timeouts", "flow_timeout", "flows_", "drops", "packets_", "marks")
    ):
        return 0.0, math.inf
    return -math.inf, math.inf


def number(x: Any, digits: int = 4) -> str:
    """A plain number as a reader takes it in, never in e-notation.

    Whole numbers print whole (``128``; from 10,000 up with thousands
    separators, ``129,167``); other numbers with ``digits`` significant
    digits, positional (``0.9932``, ``0.00001234``), those of ``10**digits``
    and more rounded to whole (``12,346``). Beyond 10**15, where whole
    digits mean nothing, ``1.5 x 10^18``. NaN is ``-``, infinities ``inf``.

    >>> number(129167.0), number(1827), number(7.937e7), number(1.234e-5)
    ('129,167', '1827', '79,370,000', '0.00001234')
    """
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        return str(x)
    x = float(x) if not isinstance(x, int) else x
    if x != x:
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e15:
        e = int(math.floor(math.log10(abs(x))))
        return f"{x / 10**e:.{min(digits, 3)}g} x 10^{e}"
    if float(x).is_integer() or abs(x) >= 10**digits:
        n = round(x)
        return f"{n:,}" if abs(n) >= 10_000 else str(n)
    text = np.format_float_positional(
        float(x), precision=digits, unique=False, fractional=False, trim="-"
    )
    return "0" if text in ("-0", "") else text


def count(x: Any, unit: str) -> str:
    """A count with its unit, as :func:`number` prints it: ``count(129167,
    "packets") == "129,167 packets"``."""
    return f"{number(x)} {unit}"


def packets(x: Any) -> str:
    """A number of packets: ``packets(1.292e5) == "129,200 packets"``
    (whole numbers, as :func:`number`)."""
    return count(x, "packets")


def percent(x: Any, digits: int = 2) -> str:
    """A fraction as a percentage, ``digits`` significant digits:
    ``percent(0.0184) == "1.8%"``, ``percent(1.0) == "100%"``,
    ``percent(0.999) == "99.9%"`` (never 100% short of 1); NaN ``-``."""
    if not isinstance(x, (int, float, np.integer, np.floating)) or x != x:
        return "-"
    text = number(100 * x, digits)
    # 0.999 of transfers completed is not "100%": more digits until it shows.
    while text == "100" and x < 1 and digits < 6:
        digits += 1
        text = number(100 * x, digits)
    return f"{text}%"


def size(x: float, digits: int = 4) -> str:
    """A size in bytes with an SI prefix: ``size(2.172e6) == "2.172 MB"``."""
    return si(x, "B", digits)


def _prefix(x: float, digits: int) -> tuple[float, str]:
    """The SI scale and prefix for ``x`` shown with ``digits`` digits (one
    for zero, infinities and NaN)."""
    if x == 0 or not math.isfinite(x):
        return 1.0, ""
    for scale, prefix in _PREFIXES:
        if abs(x) >= scale * (1 - 0.5 * 10 ** (1 - digits)):
            return scale, prefix
    return _PREFIXES[-1]


def si(x: float, unit: str, digits: int = 4) -> str:
    """``x`` in ``unit`` with an SI prefix (T to n) and ``digits`` significant
    digits: ``si(1.526e-4, "s") == "152.6 us"``; ``"-"`` for NaN."""
    if x != x:
        return "-"
    scale, prefix = _prefix(x, digits)
    return f"{number(x / scale, digits)} {prefix}{unit}"


def metric(key: str, x: Any, *, censored: bool = False, digits: int = 4) -> str:
    """A metric's value with the unit its name implies (:func:`unit_of`).

    Parameters
    ----------
    key : str
        The metric's name (``p99_queue_delay_s``, ``goodput_bps``, ...).
    x : float
        Its value in SI units (seconds, bit/s, bytes), or a fraction/count.
    censored : bool
        The value is only a lower bound (a completion time that unfinished
        transfers leave unknown): shown as ``>= value``.
    digits : int
        Significant digits.

    Returns
    -------
    str
        ``"-"`` for NaN; whole numbers without a decimal point; a sequence
        of numbers (per-flow values in one cell) as its items, each with
        the unit, separated by ``; `` (``"5.811; 8.357"``), never as a
        Python tuple.
    """
    if _numbers(x):
        return "; ".join(metric(key, v, digits=digits) for v in x) or "-"
    if not isinstance(x, (int, float, np.integer, np.floating)) or isinstance(x, bool):
        return value(x)
    unit = unit_of(key)
    if x != x:
        return "-"
    if unit in _PREFIXED:
        text = si(float(x), unit, digits)
    else:
        text = number(x, digits) + (f" {unit}" if unit else "")
    return f">= {text}" if censored else text


def interval(
    key: str, mean: float, half: float, *, censored: bool = False, seeds: int | None = None
) -> str:
    """A mean and the half-width of its interval, both in the mean's unit
    and prefix: ``interval("fct_p99_small_s", 1.004, 0.67) == "1.004 s ± 0.67 s"``.

    An interval that would leave the metric's range (:func:`bounds`: a
    Jain's index of 0.82 ± 1.2, a loss rate below zero) is shown clipped to
    it, by its ends: ``"0.8197 (0 to 1)"``; with ``seeds`` given and under
    five, the ends say how few seeds they rest on (``"0.8197 (0 to 1, 2 seeds)"``).

    Parameters
    ----------
    key : str
        The metric's name (its unit, :func:`unit_of`; its range, :func:`bounds`).
    mean, half : float
        The mean and the half-width (NaN: no interval, the mean alone).
    censored : bool
        The mean is only a lower bound (``>=``).
    seeds : int, optional
        How many seeds the interval rests on.
    """
    text = metric(key, mean, censored=censored)
    if half != half or mean != mean:
        return text
    lo_b, hi_b = bounds(key)
    if mean - half < lo_b or mean + half > hi_b:
        lo, hi = max(mean - half, lo_b), min(mean + half, hi_b)
        few = f", {seeds} seeds" if seeds is not None and seeds < 5 else ""
        return f"{text} ({_end(key, lo)} to {_end(key, hi)}{few})"
    unit = unit_of(key)
    if unit in _PREFIXED:
        scale, prefix = _prefix(mean, 4)
        return f"{text} ± {number(half / scale, 2)} {prefix}{unit}"
    return f"{text} ± {number(half, 2)}" + (f" {unit}" if unit else "")


def _end(key: str, x: float) -> str:
    """An interval's end, three significant digits, with the metric's unit."""
    return metric(key, x, digits=3)


def _numbers(x: Any) -> bool:
    """Whether ``x`` is a tuple, list or 1-d array of numbers (one cell's
    per-flow values)."""
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and x.dtype.kind in "iuf"
    return isinstance(x, (tuple, list)) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in x
    )


def value(x: Any, digits: int = 4) -> str:
    """A table cell without a metric name: text as it is, booleans as
    ``True``/``False``, None empty, numbers as :func:`number` prints them
    (integers under 10**15 whole, without separators: seeds, counts of runs),
    NaN as ``-``; a sequence of numbers as its items separated by ``; ``
    (``value((5.811, 8.357)) == "5.811; 8.357"``; empty, ``-``).
    """
    if x is None:
        return ""
    if _numbers(x):
        return "; ".join(value(v, digits) for v in x) or "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, np.integer)) and abs(int(x)) < 10**15:
        return str(int(x))
    if isinstance(x, (int, float, np.integer, np.floating)):
        return number(x, digits)
    return str(x)


def ratio(x: float, digits: int = 2) -> str:
    """A dimensionless cost (Jain's index, timeouts per flow per second)
    with ``digits`` significant digits, as :func:`number` prints it:
    ``0.43``, ``0.17``, ``12``; ``< 0.001`` below a thousandth; ``-`` for
    NaN."""
    if x == x and x != 0 and abs(x) < 1e-3:
        return "< 0.001"
    return number(x, digits)
