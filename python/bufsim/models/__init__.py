"""Analytic models of router buffers: closed forms and fixed points.

Pure Python (numpy/scipy), independent of the simulators. One module per
family:

* :mod:`~bufsim.models.rules` -- BDP, Stanford ``CT/sqrt(N)``, loss-constrained
  sizing and the saturable-link test (papers 000, 002);
* :mod:`~bufsim.models.tcp_throughput` -- square-root and PFTK formulas;
* :mod:`~bufsim.models.avrachenkov` -- hybrid AIMD/drop-tail model, B0, Pareto
  set and optimal buffers (paper 003);
* :mod:`~bufsim.models.highspeed` -- HighSpeed TCP (RFC 3649), the M/M/1/K
  and RED fixed points and Adaptive RED's weight (paper 001), HSTCP's share
  beside NewReno (paper 000);
* :mod:`~bufsim.models.synchronized` -- utilization of fully synchronized
  AIMD and CUBIC sawtooths (paper 004);
* :mod:`~bufsim.models.flowlevel` -- processor sharing, link regimes and
  transparent-regime buffers (paper 000);
* :mod:`~bufsim.models.queueing` -- M/M/1/K, M/D/1/K, M/D/1;
* :mod:`~bufsim.models.scenario` -- :func:`predict` and :func:`sweep_buffer` on a
  normalized scenario, returning the simulators' result shape.

Bad input raises :class:`ModelInputError` (a :class:`ValueError`) naming the
argument and the allowed range.
"""

from bufsim.models._validate import ModelInputError
from bufsim.models.avrachenkov import (
    aimd_alpha,
    aimd_beta,
    b0,
    b0_symmetric,
    corollary1_rate,
    corollary2_mean_buffer,
    cycle_duration,
    optimal_buffer_delay_bound,
    optimal_buffer_rate_floor,
    optimal_buffer_weighted,
    pareto_set,
    theorem1,
)
from bufsim.models.flowlevel import (
    flow_regime,
    ps_mean_flows,
    ps_prob_n,
    ps_tail,
    transparent_buffer_pkts,
    transparent_loss,
)
from bufsim.models.highspeed import (
    HSTCPParams,
    hstcp_a,
    hstcp_b,
    hstcp_fixed_point,
    hstcp_increase_loss_share,
    hstcp_p,
    hstcp_throughput,
    hstcp_window,
    ns2_adaptive_red,
)
from bufsim.models.queueing import (
    md1_mean_queue,
    md1k_distribution,
    md1k_loss,
    md1k_mean_queue,
    mm1k_distribution,
    mm1k_loss,
    mm1k_mean_queue,
    state_dependent_distribution,
)
from bufsim.models.rules import (
    SaturationCheck,
    bdp_bytes,
    bdp_pkts,
    loss_constrained_buffer_pkts,
    persistent_loss_rate,
    saturable,
    stanford_buffer_pkts,
)
from bufsim.models.scenario import MODELS, predict, sweep_buffer
from bufsim.models.synchronized import aimd_sync_utilization, cubic_sync_utilization, kept_for
from bufsim.models.tcp_throughput import (
    PAPER002_SQRT_CONSTANT,
    pftk_fill_loss,
    pftk_throughput,
    slow_start_floor_Bps,
    sqrt_throughput,
)

__all__ = [
    "ModelInputError",
    # rules
    "bdp_bytes",
    "bdp_pkts",
    "stanford_buffer_pkts",
    "persistent_loss_rate",
    "loss_constrained_buffer_pkts",
    "SaturationCheck",
    "saturable",
    # TCP throughput
    "PAPER002_SQRT_CONSTANT",
    "sqrt_throughput",
    "pftk_throughput",
    "pftk_fill_loss",
    "slow_start_floor_Bps",
    # paper 003
    "aimd_alpha",
    "aimd_beta",
    "b0",
    "b0_symmetric",
    "theorem1",
    "corollary1_rate",
    "corollary2_mean_buffer",
    "cycle_duration",
    "pareto_set",
    "optimal_buffer_delay_bound",
    "optimal_buffer_rate_floor",
    "optimal_buffer_weighted",
    # paper 001
    "HSTCPParams",
    "hstcp_a",
    "hstcp_b",
    "hstcp_p",
    "hstcp_window",
    "hstcp_throughput",
    "hstcp_fixed_point",
    "hstcp_increase_loss_share",
    "ns2_adaptive_red",
    # paper 004
    "aimd_sync_utilization",
    "cubic_sync_utilization",
    "kept_for",
    # paper 000
    "ps_prob_n",
    "ps_tail",
    "ps_mean_flows",
    "flow_regime",
    "transparent_loss",
    "transparent_buffer_pkts",
    # queueing
    "mm1k_distribution",
    "mm1k_loss",
    "mm1k_mean_queue",
    "state_dependent_distribution",
    "md1k_distribution",
    "md1k_loss",
    "md1k_mean_queue",
    "md1_mean_queue",
    # scenario adapter
    "MODELS",
    "predict",
    "sweep_buffer",
]
