"""Addanki, Apostolaki, Ghobadi, Schmid & Vanbever, *ABM: Active Buffer
Management in Datacenters* (SIGCOMM 2022): the authors' leaf-spine setup
(``inet-tub/ns3-datacenter``, ``examples/ABM/run-main.sh``) in the packet
engine's ``[fabric]``, CUBIC's load and request-size sweeps under DT, ABM,
complete sharing, LQD and a static partition (figures 6 and 7), DCTCP's
request-size and buffer-size sweeps under DT and ABM (figures 9 (b) and 11
(a)), and the abstract's numbers and the figures' orderings as claims, each
beside the authors' published simulator output for the figure it names. The setup is :func:`setup`, the measured findings
:func:`findings`.

The package: ``design`` (the scenario and constants), ``authors`` (the
authors' published output, read into ``authors_p99.csv``), ``runs`` (the
runs and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures). This module exports the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and
nothing else.
"""

from bufsim.reproduce.addanki2022.charts import figures
from bufsim.reproduce.addanki2022.runs import claims, run, tables
from bufsim.reproduce.addanki2022.text import captions, findings, setup

__all__ = ["setup", "run", "claims", "findings", "figures", "captions", "tables"]
