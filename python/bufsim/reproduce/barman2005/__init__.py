"""Paper 001 (Barman, Smaragdakis & Matta, *The effect of router buffer size
on HighSpeed TCP performance*), sections III (drop-tail) and IV (RED): 10
HSTCP flows over 1 Gbps and 2.5 Gbps, the M/M/1/K fixed point beside the
packet and fluid engines, and two HSTCP flows with different RTTs. The
setup is :func:`setup`, the measured findings :func:`findings`.

The package: ``design`` (the scenario and constants), ``runs`` (the runs
and the claims), ``text`` (the setup, findings and captions, filled from
``prose.toml``) and ``charts`` (the figures); this module exposes the
reproduction contract (:class:`bufsim.reproduce.contract.Paper`) and the
public names of each. (``runs`` and ``charts``, not ``claims`` and
``figures``: a submodule named as a contract function would shadow it.)
"""

from bufsim.models.highspeed import ared_w_q
from bufsim.reproduce.barman2005.charts import (
    figures,
)
from bufsim.reproduce.barman2005.design import (
    ALMOST_SOURCE,
    ARED_RUN,
    BASE,
    BASE_25,
    CLOSE_SOURCE,
    DRASTIC_SOURCE,
    FASTER_SOURCE,
    FRACTIONS,
    FRACTIONS_25,
    FULL_BUFFER_PKTS,
    FULL_BUFFER_PKTS_25,
    FULL_ONLY,
    LINK_PPS,
    LOG_SOURCE,
    MORE_SOURCE,
    NO_CUTS,
    NO_NS2_25,
    NS2_CASES,
    NS2_RUN,
    P_L,
    PAPER,
    RED_LOSS,
    RED_LOSS_25,
    RED_MAX_P,
    RED_SYNC_RUN,
    REDUCES_SOURCE,
    SYNC,
    SYNC_RUN,
    TWO_FLOW_BUFFERS,
    TWO_FLOW_RTTS_MS,
)
from bufsim.reproduce.barman2005.runs import (
    claims,
    closed_form_utilization,
    gbps25,
    ns2_runs,
    red_scenario,
    run,
    run_25g,
    run_ns2,
    run_two_flows,
    scenario,
    scenario_25,
    tables,
    two_flow_scenario,
    two_flows,
)
from bufsim.reproduce.barman2005.text import (
    captions,
    findings,
    setup,
)

__all__ = [
    "ared_w_q",
    "ALMOST_SOURCE",
    "ARED_RUN",
    "BASE",
    "BASE_25",
    "CLOSE_SOURCE",
    "DRASTIC_SOURCE",
    "FASTER_SOURCE",
    "FRACTIONS",
    "FRACTIONS_25",
    "FULL_BUFFER_PKTS",
    "FULL_BUFFER_PKTS_25",
    "FULL_ONLY",
    "LINK_PPS",
    "LOG_SOURCE",
    "MORE_SOURCE",
    "NO_CUTS",
    "NO_NS2_25",
    "NS2_CASES",
    "NS2_RUN",
    "PAPER",
    "P_L",
    "REDUCES_SOURCE",
    "RED_LOSS",
    "RED_LOSS_25",
    "RED_MAX_P",
    "RED_SYNC_RUN",
    "SYNC",
    "SYNC_RUN",
    "TWO_FLOW_BUFFERS",
    "TWO_FLOW_RTTS_MS",
    "claims",
    "closed_form_utilization",
    "gbps25",
    "ns2_runs",
    "red_scenario",
    "run",
    "run_25g",
    "run_ns2",
    "run_two_flows",
    "scenario",
    "scenario_25",
    "tables",
    "two_flow_scenario",
    "two_flows",
    "captions",
    "findings",
    "setup",
    "figures",
]
