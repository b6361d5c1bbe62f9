"""Paper 003 (Avrachenkov, Ayesta & Piunovskiy, *Optimal choice of the buffer
size in the Internet routers*), section III: N NewReno flows with one RTT
through a 100 Mbps bottleneck; Theorem 1, the fluid engine and the packet
engine against the buffer, the Pareto set of rate against mean queue
(Figure 7), and B0, the smallest buffer for 99.9% utilization, against N
(Figure 8). The setup is :func:`setup`, the measured findings
:func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else; every other name is its submodule's
(``avrachenkov2006.design.BASE``). (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.reproduce.avrachenkov2006.charts import figures
from bufsim.reproduce.avrachenkov2006.runs import claims, run, tables
from bufsim.reproduce.avrachenkov2006.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
