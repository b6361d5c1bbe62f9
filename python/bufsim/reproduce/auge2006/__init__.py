"""Paper 000 (Augé & Roberts, *Buffer sizing for elastic traffic*, NGI 2006),
section IV.B (the elastic regime, figures 3-5) and section V (HighSpeed TCP
and fair queueing, figures 6 and 7): persistent NewReno and HSTCP flows
with a Poisson background over a 50 Mbps link at buffers of 20, 100 and 625
packets. The setup is :func:`setup`, the measured findings :func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else; every other name is its submodule's
(``auge2006.design.BASE``). (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.reproduce.auge2006.charts import figures
from bufsim.reproduce.auge2006.runs import claims, run, tables
from bufsim.reproduce.auge2006.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
