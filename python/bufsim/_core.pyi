"""Type stubs of the compiled core (crates/bufsim-py)."""

from collections.abc import Callable
from typing import Any

__version__: str
__build__: str
"""A hash of the engine's sources at build time (results are keyed on it)."""
TCP_VARIANTS: list[str]
"""Every name ``flows[].tcp`` may give (the core's variant registry)."""
QDISCS: list[str]
"""Every name ``link.qdisc`` may give (the core's discipline registry)."""
FLUID_QDISCS: list[str]
"""The disciplines the fluid engine models."""
FLUID_VARIANTS: list[str]
"""Every name of the variants the fluid engine models."""
STOP_METRICS: list[str]
"""The summary metrics ``output.stop`` may judge."""
DELAY_QUANTILE_ERROR: float
"""How far above the true value a delay quantile may read, relative (half a log bin)."""

class BufsimError(Exception):
    """The root of bufsim's exceptions."""

class ScenarioError(BufsimError, ValueError):
    """A scenario failed validation; the message names the field, the value and what is allowed."""

    path: str
    """The field, e.g. ``flows[0].rtt``."""

class EngineError(BufsimError, RuntimeError):
    """An engine failed internally (a bug: please report it)."""

def build_commit() -> str:
    """The short git commit the extension was built from, or "" outside a checkout."""

def variants() -> str:
    """The variant registry as JSON text: per variant ``name``, ``aliases``, ``fluid``
    (``"law"`` with ``rate_form``, or ``"none"`` with ``why``), ``ecn_per_packet``,
    ``needs_sack`` and ``defaults`` (its ``tcp_params`` with their defaults)."""

def stack_cc_params() -> str:
    """The controllers' rules each stack profile fills, as JSON text: per profile
    name, per variant (canonical name) the ``tcp_params`` the profile gives it (a
    flow group's own ``tcp_params`` override each); variants given none are left
    out."""

def disciplines() -> str:
    """The discipline registry as JSON text: per discipline ``name``, ``fluid``,
    ``drop_reasons`` (``overflow`` first), ``defaults`` (on a 1 Gbps link of 1500 B
    packets; null when a parameter has no default) and ``required``."""

class Scenario:
    """A raw scenario (JSON text) validated and resolved once; ScenarioError names a bad field."""

    def __init__(self, text: str) -> None: ...
    def normalized(self) -> str:
        """The normalized scenario (JSON text, SI units)."""
    def estimate(self, engine: str) -> dict[str, Any]:
        """What running ``engine`` costs (work, memory and the fields driving them); see bufsim.limits."""
    def simulate(
        self, engine: str = "packet", progress: Callable[[float], Any] | None = None
    ) -> dict[str, Any]:
        """Run an engine; see bufsim.simulate."""

def parse_quantity(text: str, kind: str) -> float:
    """A quantity with a unit in SI (kind ``duration`` -> s, ``rate`` -> bit/s, ``size`` -> bytes); ValueError if malformed."""

def congestion_epoch(cc: str, window_pkts: float, rtt_s: float) -> dict[str, Any]:
    """A long-lived flow's congestion epoch under its variant's law: ``cc`` is a flow group's
    normalized ``cc`` (JSON text), ``window_pkts`` packets, ``rtt_s`` seconds; returns ``seconds``,
    ``rtts`` (NaN where the law is not counted in round trips) and ``law`` (words and citation)."""

def verdict_known(values: list[float], at_least: bool, bound: float, quantile: float) -> bool:
    """Whether ``mean(values) >= bound`` (``at_least``; else ``<=``) is known either way: the
    bound outside the Student t interval at ``quantile`` (0..1) of two or more finite values (the
    law of ``output.stop``)."""
