"""Paper 002 (Dhamdhere & Dovrolis, *Open issues in router buffer sizing*,
CCR 2006), section 4: the loss rate against the buffer (figure 1) and the
per-flow throughput and loss distributions (figures 2-7) of persistent,
closed-loop and open-loop TCP traffic at the Stanford buffer B_s = 18
packets and at B_l = 500 packets (2 BDP). The setup is :func:`setup`, the
measured findings :func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else; every other name is its submodule's
(``dhamdhere2006.design.BASE``). (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.reproduce.dhamdhere2006.charts import figures
from bufsim.reproduce.dhamdhere2006.runs import claims, run, tables
from bufsim.reproduce.dhamdhere2006.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
