"""The search for the smallest buffer, one module per phase, in the order it runs.

:mod:`~bufsim.advise.search.plan`
    What is sized, on which grid, with how many seeds (:class:`Plan`).
:mod:`~bufsim.advise.search.runs`
    Every run through :func:`bufsim.sweep.sweep`, and the progress
    (:class:`Runner`, :class:`AdviseProgress`).
:mod:`~bufsim.advise.search.grid`
    Index searches over a grid (gallop, bisection, several predicates at once).
:mod:`~bufsim.advise.search.probes`
    The packet engine's verdicts at a buffer, with seeds in waves and
    adaptive seeds (:class:`Probes`).
:mod:`~bufsim.advise.search.fluid_scan`
    The fluid scan, paper 004's range and the resync (:class:`FluidScan`).
:mod:`~bufsim.advise.search.packet`
    The packet bisection from the fluid edge (:class:`Edges`).
:mod:`~bufsim.advise.search.verdict`
    The recommended buffer, its range and what binds it.
:mod:`~bufsim.advise.search.verify`
    A verifying engine (ns-3, ns-2) at the recommended buffer.
"""

from bufsim.advise.search.fluid_scan import ENGINE_GAP as ENGINE_GAP
from bufsim.advise.search.probes import ADAPTIVE_MAX_FACTOR as ADAPTIVE_MAX_FACTOR
from bufsim.advise.search.runs import AdviseProgress as AdviseProgress
