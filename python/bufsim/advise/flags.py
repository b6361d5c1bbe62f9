"""Flags: the costs of a buffer an operator would question unasked.

An answer that meets its objectives may still lose 2% of the packets or
time every flow out every few seconds. Each :class:`Threshold` names such a
cost, the level past which the advice flags it, and why; the defaults are
:data:`THRESHOLDS`, in this one place, and ``advise(..., flags=[...])`` or
``bufsim advise --flag`` override them (:func:`parse_flag`):
``loss>2%``, ``timeouts>0.5``, ``jain<0.3``, ``unfinished>5%``, or
``loss=off`` to drop one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from bufsim.advise.objectives import _NUMBER, AdviceError


@dataclass(frozen=True)
class Threshold:
    """A cost the advice flags past a level.

    Attributes
    ----------
    name : str
        Its short name (``loss``), as ``--flag`` writes it.
    key : str
        The cost it reads (a column of :attr:`Advice.costs`):
        ``drop_rate`` (fraction), ``flow_timeout_rate`` (timeouts per flow
        per second), ``jain_index`` (0..1), ``unfinished`` (fraction of
        the transfers started).
    op : str
        ``">"``: flagged above ``limit``; ``"<"``: flagged below it.
    limit : float
        The level, in the cost's unit.
    reason : str
        Why an operator would question a cost past it, one short clause.
    words : str
        The cost's name in a sentence (``Jain's index``).
    """

    name: str
    key: str
    op: str
    limit: float
    reason: str
    words: str

    def passes(self, value: float) -> bool:
        """Whether ``value`` (the cost's unit) is past the limit (NaN never is)."""
        if value != value:
            return False
        return value > self.limit if self.op == ">" else value < self.limit


#: The default flags. Loss above 1%: TCP's throughput falls as
#: 1/sqrt(loss) (Mathis et al. 1997), so 1% already caps a 100 ms flow of
#: 1.5 kB packets near 1.5 Mbps, and a loss-sensitive application sees it.
#: A flow timing out more often than once every 10 s (0.1 timeouts per
#: flow per s): each timeout idles the flow for at least its minimum RTO
#: (200 ms in Linux, 1 s in RFC 6298) and restarts slow start. Jain's index
#: below 0.5: an index of k/n reads as k of the n flows sharing the link
#: equally and the others starved (Jain, Chiu and Hawe 1984), so below 0.5
#: half the flows are as good as starved. Unfinished transfers: a
#: transfer still running when the run ended has only a lower bound on
#: its completion time.
THRESHOLDS: tuple[Threshold, ...] = (
    Threshold("loss", "drop_rate", ">", 0.01, "TCP throughput falls as 1/sqrt(loss)", "loss"),
    Threshold(
        "timeouts",
        "flow_timeout_rate",
        ">",
        0.1,
        "a flow stalls for an RTO more often than every 10 s",
        "timeouts",
    ),
    Threshold(
        "jain",
        "jain_index",
        "<",
        0.5,
        "below 0.5, half the flows are as good as starved",
        "Jain's index",
    ),
    Threshold(
        "unfinished",
        "unfinished",
        ">",
        0.0,
        "their completion times are unknown",
        "unfinished transfers",
    ),
)

#: Other names ``--flag`` takes for each threshold: the summary metric it reads.
ALIASES = {t.key: t.name for t in THRESHOLDS if t.key != t.name}


@dataclass(frozen=True)
class Flag:
    """A cost past its threshold at one buffer.

    Attributes
    ----------
    name : str
        The threshold's name (``loss``).
    key : str
        The cost it reads (:attr:`Threshold.key`).
    buffer_pkts : float
        The buffer it was measured at, packets.
    value : float
        The cost there: the mean over the seeds, in the cost's unit
        (fraction, timeouts per flow per second, Jain's index).
    threshold : float
        The limit it passed, same unit.
    op : str
        ``">"`` (flagged above) or ``"<"`` (below).
    reason : str
        Why it is flagged.
    """

    name: str
    key: str
    buffer_pkts: float
    value: float
    threshold: float
    op: str
    reason: str

    @property
    def text(self) -> str:
        """``"loss 1.8% > 1%"``: the cost, the comparison and the limit."""
        return (
            f"{describe(self.key)} {show(self.key, self.value)} {self.op} "
            f"{show(self.key, self.threshold)}"
        )


def describe(key: str) -> str:
    """A cost's name in words (``drop_rate`` -> ``loss``; :attr:`Threshold.words`)."""
    return next((t.words for t in THRESHOLDS if t.key == key), key)


def show(key: str, x: float) -> str:
    """A flagged cost's value with its unit: fractions as percentages,
    timeouts per flow per second, Jain's index as a plain ratio."""
    from bufsim import fmt

    if x != x:
        return "not measured"
    if key in ("drop_rate", "unfinished"):
        return fmt.percent(x)
    if key == "flow_timeout_rate":
        return f"{fmt.ratio(x)} per flow per s"
    return fmt.ratio(x)


def parse_flag(text: str) -> tuple[str, Threshold | None]:
    """Read a threshold override such as ``"loss>2%"``, ``"timeouts>0.5"``,
    ``"jain<0.3"``, ``"unfinished>5%"`` or ``"loss=off"``.

    Parameters
    ----------
    text : str
        ``name>level`` or ``name<level``, the operator the threshold's own
        (:data:`THRESHOLDS`), or ``name=off``; a name of
        :data:`THRESHOLDS` or its metric (:data:`ALIASES`). Fractions (loss,
        Jain's index, unfinished) as a number or a percentage, timeouts per
        flow per second as a number.

    Returns
    -------
    (str, Threshold or None)
        The threshold's name and its new level (None: ``off``).

    Raises
    ------
    AdviceError
        Naming the flag, the value and what is allowed.
    """
    names = ", ".join(t.name for t in THRESHOLDS)
    if not isinstance(text, str):
        raise AdviceError(f"a flag is a string such as 'loss>0.02', got {text!r}")
    m = re.fullmatch(r"\s*([A-Za-z_]+)\s*(>|<|=)\s*(.+?)\s*", text)
    if not m:
        raise AdviceError(
            f"flag {text!r}: write name>level, name<level or name=off, e.g. 'loss>2%' or "
            f"'jain<0.3'; names: {names}"
        )
    name, op, level = m.groups()
    name = ALIASES.get(name, name)
    known = {t.name: t for t in THRESHOLDS}
    if name not in known:
        raise AdviceError(f"flag {text!r}: unknown cost {m.group(1)!r}; allowed: {names}")
    base = known[name]
    if op == "=":
        if level.lower() != "off":
            raise AdviceError(f"flag {text!r}: '=' only turns a flag off ({name}=off)")
        return name, None
    if op != base.op:
        raise AdviceError(
            f"flag {text!r}: {name} is flagged {'above' if base.op == '>' else 'below'} its "
            f"level: write {name}{base.op}{level}"
        )
    v = re.fullmatch(rf"({_NUMBER})\s*(%?)", level)
    if not v or (v.group(2) and name == "timeouts"):
        unit = "a number" if name == "timeouts" else "a number or a percentage"
        raise AdviceError(f"flag {text!r}: the {name} level is {unit}, got {level!r}")
    x = float(v.group(1)) / (100 if v.group(2) else 1)
    if not math.isfinite(x) or (name != "timeouts" and not 0 <= x <= 1):
        allowed = "a finite number >= 0" if name == "timeouts" else "between 0 and 1 (0-100%)"
        raise AdviceError(f"flag {text!r}: the level must be {allowed}, got {level!r}")
    return name, replace(base, limit=x)


def thresholds(overrides: Iterable[str] | None = None) -> tuple[Threshold, ...]:
    """:data:`THRESHOLDS` with ``overrides`` (:func:`parse_flag`) applied
    in order: a new level replaces a default's, ``name=off`` drops it."""
    out: dict[str, Threshold | None] = {t.name: t for t in THRESHOLDS}
    for text in overrides or ():
        name, t = parse_flag(text)
        out[name] = t
    return tuple(t for t in out.values() if t is not None)


def flags_of(cost: dict[str, float], buffer_pkts: float, ths: Sequence[Threshold]) -> list[Flag]:
    """The flags one buffer's costs raise: each threshold of ``ths`` whose
    cost (``cost[key]``, the mean over the seeds) is past its limit."""
    return [
        Flag(t.name, t.key, buffer_pkts, float(cost[t.key]), t.limit, t.op, t.reason)
        for t in ths
        if t.key in cost and t.passes(float(cost[t.key]))
    ]
