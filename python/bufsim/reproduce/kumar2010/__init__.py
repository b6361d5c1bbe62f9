"""Paper 004 (Kumar, Azad & Park, *A fluid-based simulation study: the effect
of loss synchronization on sizing buffers over 10 Gbps high speed networks*),
section III: fluid simulation with the loss-synchronization module (Figure
6: four TCP variants x the minimum synchronized fraction X x the buffer),
the modelling choices the paper leaves open measured beside it, the
fluid engine calibrated by the packet engine's synchronization, and
figure 6's orderings (CUBIC against AIMD at 5% of BDP) checked at packet
level and against the closed forms of the laws for synchronized flows
(:func:`bufsim.models.cubic_sync_utilization`,
:func:`bufsim.models.aimd_sync_utilization`). The setup is :func:`setup`,
the measured findings :func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else; every other name is its submodule's
(``kumar2010.design.BASE``). (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.reproduce.kumar2010.charts import figures
from bufsim.reproduce.kumar2010.runs import claims, run, tables
from bufsim.reproduce.kumar2010.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
