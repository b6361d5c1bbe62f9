"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd
import pytest

BASE: dict[str, Any] = {
    "duration": "20s",
    "link": {"capacity": "10Mbps", "delay": "20ms", "buffer": "50pkt"},
    "flows": [{"count": 1, "rtt": "100ms", "mss": "1000B"}],
}


#: The sweep tests' base: short packet runs with random elements (Poisson
#: background, random starts), so that the seed matters.
SWEEP_BASE: dict[str, Any] = {
    "name": "sweep-test",
    "duration": "3s",
    "seed": 1,
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [{"count": 2, "rtt": "40ms", "mss": "1000B", "start": {"uniform": ["0s", "1s"]}}],
    "background": [{"kind": "poisson", "rate": "2Mbps", "packet_size": "1000B"}],
}


def stable(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep table without the columns that legitimately differ between
    runs of the same sweep (``wall_s``, ``cached``)."""
    return table.drop(columns=["wall_s", "cached"]).reset_index(drop=True)


@pytest.fixture
def base() -> dict[str, Any]:
    """A small valid scenario (a fresh copy per test)."""
    return copy.deepcopy(BASE)


@pytest.fixture(scope="session")
def avrachenkov_quick_table() -> pd.DataFrame:
    """Paper 003's quick reproduction table (about 35 s), run once per session
    for the reproduction and report tests; do not modify it."""
    from bufsim.reproduce import avrachenkov2006

    return avrachenkov2006.run(quick=True)
