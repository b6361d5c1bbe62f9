"""Alternatives compared by the buffer each needs.

An operator choosing a switch's buffer-management algorithm, its alpha,
a link's discipline or a TCP asks which needs the least buffer for the
same objectives. :func:`compare` runs one :func:`~bufsim.advise.advise`
search per value of one scenario field, with the same objectives, seeds
and confidence, and puts the answers side by side, smallest first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bufsim import fmt
from bufsim.advise.advice import Advice
from bufsim.advise.driver import advise
from bufsim.advise.objectives import AdviceError
from bufsim.scenario import Scenario
from bufsim.sweep.spec import _check_path, _set_path


@dataclass
class Comparison:
    """The answers of :func:`compare`, one per value of the field.

    Attributes
    ----------
    field : str
        The scenario field compared, as a sweep's grid writes it
        (``"fabric.algorithm"``).
    values : list
        Its values, in the order given.
    advices : list of Advice
        One search per value, in the same order.
    """

    field: str
    values: list[Any]
    advices: list[Advice]

    @property
    def table(self) -> pd.DataFrame:
        """One row per value, the smallest buffer first (values no buffer
        meets last): ``value``, ``feasible``, ``buffer_pkts``,
        ``buffer_bytes`` (NaN where infeasible), ``drop_rate`` (the
        fraction of packets lost at the answer, mean over seeds; in a
        fabric each run's worst switch's, as advise judges drop_rate)
        and ``binding`` (what sets the answer, in words)."""
        rows = [
            {
                "value": v,
                "feasible": a.feasible,
                "buffer_pkts": a.buffer_pkts,
                "buffer_bytes": a.buffer_bytes,
                "drop_rate": _drop_rate(a),
                "binding": a.binding,
            }
            for v, a in zip(self.values, self.advices)
        ]
        t = pd.DataFrame(rows)
        t["value"] = pd.Series(self.values, dtype=object)  # as given, 1 not 1.0
        key = t["buffer_pkts"].where(t["feasible"], math.inf)
        return t.loc[key.sort_values(kind="stable").index].reset_index(drop=True)

    def headline(self) -> str:
        """The comparison in one paragraph: which value needs the least
        buffer, and each other value's buffer and how much more it is (or
        that no buffer meets the objectives with it)."""
        t = self.table
        ok = t[t["feasible"]]
        if not len(ok):
            return f"With no value of {self.field} does a buffer meet every objective."
        best = ok.iloc[0]
        text = (
            f"{self.field} = {_show(best['value'])} needs the least buffer: "
            f"{fmt.number(best['buffer_pkts'])} packets "
            f"({fmt.metric('buffer_bytes', best['buffer_bytes'])})"
        )
        others = []
        for _, r in t.iloc[1:].iterrows():
            if r["feasible"]:
                more = r["buffer_pkts"] / best["buffer_pkts"] - 1
                others.append(
                    f"{_show(r['value'])} {fmt.number(r['buffer_pkts'])} packets "
                    f"(+{fmt.percent(more)})"
                )
            else:
                others.append(f"{_show(r['value'])}: no buffer meets them")
        return text + ("; " + ", ".join(others) if others else "") + "."


def _drop_rate(a: Advice) -> float:
    """The fraction of packets lost at the answer, mean over its seeds (in
    a fabric each run's worst switch's, the value the search judged); NaN
    where no packet run measured the answer."""
    cost = a.cost_at(a.buffer_pkts) if a.feasible else None
    return math.nan if cost is None else float(cost["drop_rate"])


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def parse_compare(text: str) -> tuple[str, list[Any]]:
    """``"fabric.algorithm=dt,abm"`` as the field and its values; each
    value a JSON number or boolean where it reads as one, else a string.

    Raises
    ------
    AdviceError
        No ``=``, an empty field or fewer than two values, naming what is
        allowed.
    """
    field, eq, rest = text.partition("=")
    values = [v.strip() for v in rest.split(",") if v.strip()]
    if not eq or not field.strip() or len(values) < 2:
        raise AdviceError(
            f"--compare {text!r}: write a scenario field and two or more values, "
            "e.g. fabric.algorithm=dt,abm or fabric.alpha=0.5,1,2"
        )

    def value(v: str) -> Any:
        try:
            return json.loads(v)
        except ValueError:
            return v

    return field.strip(), [value(v) for v in values]


def compare(
    scenario: Any,
    objectives: Iterable[str],
    field: str,
    values: Sequence[Any],
    **kwargs: Any,
) -> Comparison:
    """The buffer each value of ``field`` needs to meet ``objectives``.

    Parameters
    ----------
    scenario : Scenario, dict or path
        As :func:`~bufsim.advise.advise` takes it.
    objectives : iterable of str
        The objectives every search meets (:func:`parse_objective`).
    field : str
        A scenario field, as a sweep's grid writes it: ``"fabric.algorithm"``,
        ``"fabric.alpha"``, ``"link.qdisc"``, ``"flows[0].tcp"``.
    values : sequence
        Two or more values of it (each validated as the scenario's field
        before any run).
    **kwargs
        Passed to every :func:`~bufsim.advise.advise` search (``seeds``,
        ``quick``, ``store``, ...).

    Returns
    -------
    Comparison

    Raises
    ------
    AdviceError
        Fewer than two values, or one given twice.
    ScenarioError, SweepSpecError
        A field the scenario cannot hold, or a value it refuses (naming it).
    """
    values = list(values)
    if len(values) < 2 or len({json.dumps(v) for v in values}) < len(values):
        raise AdviceError(f"compare {field}: give two or more distinct values, got {values!r}")
    base = Scenario.load(scenario).raw
    steps = _check_path(base, field)
    scenarios = []
    for v in values:
        raw = json.loads(json.dumps(base))
        _set_path(raw, steps, v)
        scenarios.append(Scenario(raw))  # validated here, before any search runs
    objectives = list(objectives)
    return Comparison(field, values, [advise(s, objectives, **kwargs) for s in scenarios])
