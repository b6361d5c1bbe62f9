"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

BASE: dict[str, Any] = {
    "duration": "20s",
    "link": {"capacity": "10Mbps", "delay": "20ms", "buffer": "50pkt"},
    "flows": [{"count": 1, "rtt": "100ms", "mss": "1000B"}],
}


@pytest.fixture
def base() -> dict[str, Any]:
    """A small valid scenario (a fresh copy per test)."""
    return copy.deepcopy(BASE)
