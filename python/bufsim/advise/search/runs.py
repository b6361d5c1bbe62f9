"""Running the search's simulations: :class:`Runner`, the search's ledger.

Every run of every phase goes through :meth:`Runner.run`, one
:func:`bufsim.sweep.sweep` (so the results store caches it and a Dask
scheduler spreads it); the runner keeps the tables (:attr:`Runner.runs`),
counts runs done and expected and reports them as :class:`AdviseProgress`.
:meth:`Runner.packet` runs the packet engine within the budget
(:class:`Budget`); :meth:`Runner.at` and :meth:`Runner.fluid_at` read back
what ran at a buffer. Buffers in packets.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bufsim import fmt
from bufsim.advise.objectives import AdviceError, flow_timeout_rate, unfinished_share
from bufsim.advise.rules import with_buffer
from bufsim.advise.search.plan import CHAIN_AXIS, FABRIC_AXIS, Plan, worst_place

# The name advise has always logged under (the package's).
log = logging.getLogger("bufsim.advise")


@dataclass(frozen=True)
class AdviseProgress:
    """Where :func:`advise` is: what it does and how many runs are done.

    Attributes
    ----------
    phase : str
        ``"fluid scan"``, ``"fluid loss sync"``, ``"packet bisection"``,
        ``"packet interval scan"``, ``"adaptive seeds"``, ``"rule check"``
        or ``"done"``.
    message : str
        In words, e.g. ``"packet bisection 3/7: 152 packets x 5 seeds"``.
    done : int
        Runs finished (fluid and packet, cached ones included).
    total : int
        Runs expected (an estimate that grows when the search needs more).
    """

    phase: str
    message: str
    done: int
    total: int

    def __str__(self) -> str:
        return self.message


class FluidFailed(Exception):
    """A fluid run failed: its buffer (packets) and its error."""

    def __init__(self, buffer: float, error: str):
        super().__init__(f"the fluid run at {fmt.number(buffer)} packets failed: {error}")
        self.buffer, self.error = buffer, error


class Budget(Exception):
    """The ``budget`` of packet runs is used up: the search stops where it is."""


class Runner:
    """Every run of one search, and its progress.

    Parameters
    ----------
    plan : Plan
        The search's plan (its scenario, axis, places, stop rule, budget).
    sweep_options : dict
        ``store``, ``scheduler``, ``workers`` for :func:`bufsim.sweep.sweep`.
    progress : callable or None
        Called with an :class:`AdviseProgress` as runs finish and phases start.
    total : int
        The runs expected at the start (:func:`~bufsim.advise.search.plan.estimate`).
    """

    def __init__(
        self,
        plan: Plan,
        sweep_options: dict[str, Any],
        progress: Callable[[AdviseProgress], Any] | None,
        total: int = 0,
    ):
        self.plan = plan
        self.sweep_options = sweep_options
        self.progress = progress
        self.runs: list[pd.DataFrame] = []
        self.packet_runs = 0
        self.done, self.total = 0, total
        self.phase = self.message = ""

    def say(self, phase: str, message: str) -> None:
        """Start ``phase``: log ``message`` and report it to ``progress``."""
        self.phase, self.message = phase, message
        log.info("advise: %s", message)
        self._report(message)

    def _report(self, message: str) -> None:
        self.total = max(self.total, self.done)
        if self.progress is not None:
            self.progress(AdviseProgress(self.phase, message, self.done, self.total))

    def run(
        self,
        buffers: list[int],
        engine: str,
        seed_list: list[int],
        overrides: Mapping[str, Any] | None = None,
    ) -> pd.DataFrame:
        """One sweep of ``buffers`` x ``seed_list`` (cached runs come from the store)."""
        from bufsim.sweep import sweep

        p = self.plan
        base = with_buffer(p.fluid_raw if engine == "fluid" else p.raw, buffers[0], p.axis)
        # Overrides merge into the base's tables one level deep: a
        # {"fluid": {"sync": x}} keeps the scenario's other fluid settings.
        for k, v in copy.deepcopy(dict(overrides or {})).items():
            base[k] = (
                {**base[k], **v} if isinstance(v, dict) and isinstance(base.get(k), dict) else v
            )
        if engine == "packet":
            # Each metric over both halves of the window too (the
            # convergence check), and the end once the verdicts are known.
            stop = {"stop": p.stop} if p.stop else {}
            base["output"] = {**base.get("output", {}), "halves": True, **stop}
        start = self.done

        def tick(_: Mapping[str, Any]) -> None:
            self.done += 1
            self._report(self.message)

        values = [f"{b}pkt" for b in buffers]
        if p.axis == FABRIC_AXIS:
            # A switch's buffer is written in bytes (rules.with_buffer).
            values = [with_buffer(p.raw, b, p.axis)["fabric"]["buffer"] for b in buffers]
        # A chain's links take the same buffer: their axes advance together.
        axes = (
            {"zip": [{f"links[{i}].buffer": values for i in range(len(p.norm["links"]))}]}
            if p.axis == CHAIN_AXIS
            else {"grid": {p.axis: values}}
        )
        out = sweep(
            base,
            **axes,
            engines=[engine],
            seeds=seed_list,
            progress=tick,
            **self.sweep_options,
        )
        self.done = start + len(buffers) * len(seed_list)
        if p.axis == FABRIC_AXIS:
            # The table's buffer is the fabric's link's (a NIC's); the
            # search's is each switch's, in packets.
            pkts = dict(zip(values, buffers, strict=True))
            out["buffer_pkts"] = out[p.axis].map(pkts).astype(float)
            out["buffer_bytes"] = out["buffer_pkts"] * int(p.norm["link"]["packet_size_bytes"])
        return worst_place(out, p.objs, p.places) if p.places else out

    def packet(self, b: int, seed_list: list[int]) -> pd.DataFrame:
        """The packet engine at buffer ``b`` (packets) over ``seed_list``, kept
        in :attr:`runs`. Raises :class:`Budget` past the budget and
        :class:`AdviceError` when a run fails."""
        budget = self.plan.budget
        if budget is not None and self.packet_runs + len(seed_list) > budget:
            raise Budget()
        t = self.run([b], "packet", seed_list)
        failed = t[t["status"] != "ok"]
        if len(failed):
            # A failed run has no metrics: judging it would read as "the
            # objective fails here" and move the answer. Stop and say why.
            raise AdviceError(
                f"the packet run at {b} packets (seed {failed['seed'].iloc[0]}) failed: "
                f"{failed['error'].iloc[0]}"
            )
        # Timeouts per flow per second, one law for every view of it.
        t = t.assign(
            flow_timeout_rate=flow_timeout_rate(t, float(self.plan.norm["duration_s"])),
            unfinished=unfinished_share(t),
        )
        self.runs.append(t)
        self.packet_runs += len(seed_list)
        return t

    def at(self, b: float) -> pd.DataFrame:
        """Every packet run at buffer ``b`` (packets) so far."""
        tables = [
            t[(t["engine"] == "packet") & (t["buffer_pkts"] == float(b))]
            for t in self.runs
            if "engine" in t
        ]
        return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()

    def fluid_at(self, engine: str = "fluid") -> pd.DataFrame:
        """Every fluid run labelled ``engine`` so far, by buffer."""
        tables = [t[t["engine"] == engine] for t in self.runs if "engine" in t]
        if not tables:
            return pd.DataFrame({"buffer_pkts": []})
        return pd.concat(tables, ignore_index=True).sort_values("buffer_pkts", kind="stable")

    def table(self) -> pd.DataFrame:
        """Every run so far, fluid and packet, in one table."""
        return pd.concat(self.runs, ignore_index=True) if self.runs else pd.DataFrame()
