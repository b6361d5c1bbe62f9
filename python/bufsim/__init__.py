"""bufsim: router buffer sizing workbench.

Three ways to answer how much buffer a link needs, side by side on one scenario:
closed-form models (:mod:`bufsim.models`), a fluid simulator and a packet-level
simulator (Rust core, :func:`bufsim.simulate`).
"""

from bufsim.result import Result

__version__ = "0.1.0"

__all__ = ["Result", "__version__"]
