"""Paper 001 (Barman, Smaragdakis & Matta, *The effect of router buffer size
on HighSpeed TCP performance*), sections III (drop-tail) and IV (RED): 10
HSTCP flows over 1 Gbps and 2.5 Gbps, the M/M/1/K fixed point beside the
packet and fluid engines, and two HSTCP flows with different RTTs. The
setup is :func:`setup`, the measured findings :func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else; every other name is its submodule's
(``barman2005.design.BASE``). (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.reproduce.barman2005.charts import figures
from bufsim.reproduce.barman2005.runs import claims, run, tables
from bufsim.reproduce.barman2005.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
