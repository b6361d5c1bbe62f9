"""bufsim: router buffer sizing workbench.

Three ways to answer how much buffer a link needs, side by side on one scenario:
closed-form models (:mod:`bufsim.models`), a fluid simulator and a packet-level
simulator (Rust core), all through :func:`bufsim.simulate` and one
:class:`bufsim.Result` shape.

Importing bufsim stays light because every sweep worker imports it:
matplotlib (``bufsim.plot``, ``bufsim.report``) and scipy (inside the
functions that call it) load on first use, since they cost most of an
import and a worker that only simulates needs neither.
"""

from bufsim import examples
from bufsim._core import BufsimError, EngineError, ScenarioError, __version__
from bufsim._paths import OutputPathError
from bufsim.advise import Advice, AdviceError, advise
from bufsim.engines import ENGINES, OverloadWarning, simulate
from bufsim.models import ModelInputError
from bufsim.result import Result, ResultError
from bufsim.scenario import Scenario
from bufsim.store import StoreError
from bufsim.sweep import SweepSpecError, sweep

__all__ = [
    "Advice",
    "AdviceError",
    "BufsimError",
    "ENGINES",
    "EngineError",
    "ModelInputError",
    "OutputPathError",
    "OverloadWarning",
    "Result",
    "ResultError",
    "Scenario",
    "ScenarioError",
    "StoreError",
    "SweepSpecError",
    "advise",
    "examples",
    "simulate",
    "sweep",
    "__version__",
    "plot",
    "report",
]


def __getattr__(name: str):
    """``bufsim.plot`` and ``bufsim.report`` import matplotlib: load them on first use."""
    if name in ("plot", "report"):
        import importlib

        return importlib.import_module(f"bufsim.{name}")
    raise AttributeError(f"module 'bufsim' has no attribute {name!r}")
