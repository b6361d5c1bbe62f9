"""Rules of thumb for router buffers, and the saturable-link test.

* Bandwidth-delay product, ``B = C T`` (paper 000 (Augé & Roberts) section I;
  paper 002 (Dhamdhere & Dovrolis) section 1).
* The "Stanford" rule ``B = C T / sqrt(N)`` (paper 002 eq. (1)).
* Loss-constrained sizing from paper 002 eq. (3),
  ``p = (0.87 N)^2 / (C T_p + B)^2``: the loss rate of N persistent flows for a
  buffer B, and its inverse, the buffer keeping the loss rate under a target.
* The saturable-link test of paper 002 section 3.2: can the offered load,
  limited by access rates or receive-window caps, saturate the link at all?

Buffers are in packets; ``bdp_pkts`` is ``capacity * rtt / (8 * packet size)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bufsim.models._validate import (
    ModelInputError,
    check_nonnegative,
    check_positive,
    check_probability,
    check_range,
    scalar_or_array,
)
from bufsim.models.tcp_throughput import PAPER002_SQRT_CONSTANT

__all__ = [
    "bdp_bytes",
    "bdp_pkts",
    "stanford_buffer_pkts",
    "persistent_loss_rate",
    "loss_constrained_buffer_pkts",
    "SaturationCheck",
    "saturable",
]


def bdp_bytes(capacity_bps, rtt_s):
    """Bandwidth-delay product in bytes, ``C * RTT / 8``.

    Parameters
    ----------
    capacity_bps : float or array_like
        Link capacity, bits/s (> 0).
    rtt_s : float or array_like
        Round-trip time, seconds (> 0).

    Returns
    -------
    float or numpy.ndarray
        Bytes.
    """
    c = check_positive("capacity_bps", capacity_bps)
    t = check_positive("rtt_s", rtt_s)
    return scalar_or_array(c * t / 8.0)


def bdp_pkts(capacity_bps, rtt_s, packet_size_bytes):
    """Bandwidth-delay product in packets (the BDP rule's buffer).

    Paper 000 (Augé & Roberts) section I and paper 002 (Dhamdhere & Dovrolis)
    section 1: a buffer of ``C * T`` keeps one flow (or synchronized flows)
    fully utilizing the link.

    Parameters
    ----------
    capacity_bps : float or array_like
        Link capacity, bits/s (> 0).
    rtt_s : float or array_like
        Round-trip time, seconds (> 0).
    packet_size_bytes : float or array_like
        Packet size, bytes (> 0).

    Returns
    -------
    float or numpy.ndarray
        Packets (not rounded).
    """
    s = check_positive("packet_size_bytes", packet_size_bytes)
    return scalar_or_array(np.asarray(bdp_bytes(capacity_bps, rtt_s)) / s)


def stanford_buffer_pkts(bdp_pkts, n_flows):
    """The "Stanford" rule ``B = C T / sqrt(N)``, packets.

    Paper 002 (Dhamdhere & Dovrolis) eq. (1) (Appenzeller et al.): enough
    buffer for N desynchronized long flows to keep the link busy.

    Parameters
    ----------
    bdp_pkts : float or array_like
        ``C T`` in packets (> 0).
    n_flows : float or array_like
        Number of long flows bottlenecked at the link (>= 1).

    Returns
    -------
    float or numpy.ndarray
        Packets (not rounded; paper 002 rounds 250/sqrt(200) = 17.7 to 18).

    Notes
    -----
    Paper 003 (Avrachenkov et al.) section III prints 67 (N=5) and 21 (N=20)
    for a BDP of 150 packets; 150/sqrt(20) is 33.5, so the 21 is a typo.
    """
    bdp = check_positive("bdp_pkts", bdp_pkts)
    n = check_range("n_flows", n_flows, 1.0)
    return scalar_or_array(bdp / np.sqrt(n))


def persistent_loss_rate(
    bdp_pkts, n_flows, buffer_pkts, *, constant: float = PAPER002_SQRT_CONSTANT
):
    """Loss rate of N persistent flows saturating a link, paper 002 eq. (3).

    ``p = (0.87 N)^2 / (C T_p + B)^2``: every flow follows the square-root law
    (paper 002 eq. (2)) with RTT ``T_p + B/C`` (full buffer) and the N flows
    share the capacity. Values above 1 mean the model has broken down (flows
    in timeouts); they are capped at 1.

    Parameters
    ----------
    bdp_pkts : float or array_like
        ``C T_p`` in packets, with ``T_p`` the round-trip propagation delay (> 0).
    n_flows : float or array_like
        Number of persistent flows (>= 1).
    buffer_pkts : float or array_like
        Buffer, packets (>= 0).
    constant : float
        Square-root-law constant (paper 002: 0.87).

    Returns
    -------
    float or numpy.ndarray
        Loss probability in (0, 1].
    """
    bdp = check_positive("bdp_pkts", bdp_pkts)
    n = check_range("n_flows", n_flows, 1.0)
    b = check_nonnegative("buffer_pkts", buffer_pkts)
    c = float(check_positive("constant", constant))
    return scalar_or_array(np.minimum(1.0, (c * n) ** 2 / (bdp + b) ** 2))


def loss_constrained_buffer_pkts(
    bdp_pkts, n_flows, target_loss, *, constant: float = PAPER002_SQRT_CONSTANT
):
    """Smallest buffer keeping N persistent flows' loss rate at or below a target.

    Inverse of paper 002 (Dhamdhere & Dovrolis) eq. (3):
    ``B = 0.87 N / sqrt(p*) - C T_p``, clipped at 0 (a link whose BDP alone
    meets the target needs no buffer for this objective).

    Parameters
    ----------
    bdp_pkts : float or array_like
        ``C T_p`` in packets (> 0).
    n_flows : float or array_like
        Number of persistent flows (>= 1).
    target_loss : float or array_like
        Target loss probability, in (0, 1).
    constant : float
        Square-root-law constant (paper 002: 0.87).

    Returns
    -------
    float or numpy.ndarray
        Packets (not rounded).
    """
    bdp = check_positive("bdp_pkts", bdp_pkts)
    n = check_range("n_flows", n_flows, 1.0)
    p = check_probability("target_loss", target_loss)
    c = float(check_positive("constant", constant))
    return scalar_or_array(np.maximum(0.0, c * n / np.sqrt(p) - bdp))


class SaturationCheck(NamedTuple):
    """Outcome of :func:`saturable`."""

    saturable: bool
    """Whether the flows (plus background) can load the link to capacity."""
    max_offered_bps: float
    """Largest aggregate rate the flows and the background can offer, bits/s."""
    max_load: float
    """``max_offered_bps / capacity_bps``."""


def saturable(
    capacity_bps, rtts_s, *, access_rate_bps=None, rwnd_bytes=None, background_bps=0.0
) -> SaturationCheck:
    """Saturable-link test of paper 002 (Dhamdhere & Dovrolis) section 3.2.

    Each flow can send at most ``min(access rate, rwnd / RTT)``; the link is
    saturable when the sum of these limits plus the background rate reaches
    the capacity. Paper 002's examples: 60 DSL users at 1 Mbps on a 100 Mbps
    link (max load 0.6), and 100 flows with a 32 KB window and 100 ms RTT on an
    OC-12 (about 260 Mbps of 620 Mbps): neither is saturable.

    Parameters
    ----------
    capacity_bps : float
        Link capacity, bits/s (> 0).
    rtts_s : array_like
        Round-trip time of each flow, seconds (> 0); one entry per flow.
    access_rate_bps : float or array_like, optional
        Access (peak) rate of each flow, bits/s (> 0; ``None`` or ``inf``: no limit).
    rwnd_bytes : float or array_like, optional
        Receive-window cap of each flow, bytes (> 0; ``None`` or ``inf``: no cap).
    background_bps : float
        Non-TCP (open-loop) traffic offered to the link, bits/s (>= 0).

    Returns
    -------
    SaturationCheck
    """
    c = float(check_positive("capacity_bps", capacity_bps))
    rtt = np.atleast_1d(check_positive("rtts_s", rtts_s))
    if rtt.ndim != 1:
        raise ModelInputError(
            f"rtts_s must be one-dimensional (one RTT per flow), got shape {rtt.shape}"
        )
    limit = np.full(rtt.shape, np.inf)
    if access_rate_bps is not None:
        acc = check_positive("access_rate_bps", access_rate_bps, allow_inf=True)
        limit = np.minimum(limit, np.broadcast_to(acc, rtt.shape))
    if rwnd_bytes is not None:
        rw = check_positive("rwnd_bytes", rwnd_bytes, allow_inf=True)
        limit = np.minimum(limit, np.broadcast_to(rw, rtt.shape) * 8.0 / rtt)
    bg = float(check_nonnegative("background_bps", background_bps))
    offered = float(limit.sum()) + bg
    return SaturationCheck(
        saturable=bool(offered >= c), max_offered_bps=offered, max_load=offered / c
    )
