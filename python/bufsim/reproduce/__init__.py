"""Reproductions of the papers' published results, one module per paper.

Each module has ``run(quick=False, progress=None) -> pandas.DataFrame`` and
documents the setup, what the paper reports and where bufsim differs.
``quick=True`` is the short version the test suite runs; the full version
runs in ``make bench`` and ``bufsim reproduce``.
"""

from __future__ import annotations

import copy
import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: name -> (module, what it reproduces)
PAPERS: dict[str, str] = {
    "auge2006": "paper 000 sections IV.B and V: NewReno and HSTCP flows with Poisson background, buffers 20/100/625, FIFO and fair queueing",
    "barman2005": "paper 001 sections III-IV: 10 HSTCP flows at 1 and 2.5 Gbps, utilization vs buffer fraction, drop-tail and RED; two HSTCP flows with different RTTs",
    "avrachenkov2006": "paper 003 section III: N = 1-20 flows with one RTT, Theorem 1 vs simulation, B0 against N",
    "kumar2010": "paper 004 section III.B: fluid, 10 Gbps, 4 TCP variants x loss synchronization X",
    "dhamdhere2006": "paper 002 section 4: persistent+mice, closed- and open-loop TCP at B = 18 and 500 packets",
}


def variant(
    base: dict[str, Any], name: str, *, duration: str | None = None, buffer_pkts: int | None = None
) -> dict[str, Any]:
    """A case of a paper's base scenario: a deep copy of ``base`` renamed.

    Parameters
    ----------
    base : dict
        A raw scenario (unit strings); it is not modified.
    name : str
        The case's scenario name.
    duration : str, optional
        Simulated time with its unit (``"120s"``); default: the base's.
    buffer_pkts : int, optional
        The link buffer, packets; default: the base's.

    Returns
    -------
    dict
        The raw scenario of the case.
    """
    s = copy.deepcopy(base)
    s["name"] = name
    if duration is not None:
        s["duration"] = duration
    if buffer_pkts is not None:
        s["link"]["buffer"] = f"{buffer_pkts}pkt"
    return s


def load(name: str) -> ModuleType:
    """The reproduction module called ``name`` (a key of :data:`PAPERS`)."""
    if name not in PAPERS:
        raise ValueError(f"unknown reproduction {name!r}: choose from {', '.join(PAPERS)}")
    return importlib.import_module(f"bufsim.reproduce.{name}")


class Claims:
    """The rows of a reproduction's ``claims(table)``: each of the paper's
    statements beside bufsim's number, with a verdict and its reason."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(
        self,
        claim: str,
        paper: str,
        value: float,
        ok: bool,
        why: str,
        tolerance: float = float("nan"),
    ) -> None:
        """One claim: its name, the paper's words, bufsim's number, whether
        it agrees (within ``tolerance`` where there is one) and why."""
        self.rows.append(
            {
                "claim": claim,
                "paper": paper,
                "bufsim": value,
                "tolerance": tolerance,
                "verdict": "agrees" if ok else "differs",
                "why": why,
            }
        )

    def table(self) -> pd.DataFrame:
        """``claim``, ``paper``, ``bufsim``, ``tolerance``, ``verdict`` (``agrees``/``differs``), ``why``."""
        import pandas as pd

        return pd.DataFrame(self.rows)
