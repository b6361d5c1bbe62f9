"""HighSpeed TCP (RFC 3649) and the buffer fixed points of paper 001.

Barman, Smaragdakis & Matta, *The effect of router buffer size on HighSpeed
TCP performance* (paper 001), with HighSpeed TCP as in RFC 3649 (Floyd).

* ``a(w)``, ``b(w)``, ``p(w)`` of RFC 3649 / paper 001 section II.A, and the
  response function ``w(p)`` (about ``0.12 / p^0.835``).
* The throughput ``lambda(p, R)`` of paper 001 eq. (3), re-derived (see below),
  its approximation ``w(p)/R``, and a numerical integration of the same
  window cycle with the exact ``a(w)``, ``b(w)`` for cross-checking.
* The N-flow fixed point with an M/M/1/K drop-tail queue (eqs. (4)-(5)) and
  with RED (section IV, M/M/1/K with state-dependent drop), returning
  utilization, loss rate and queueing delay as functions of the buffer.

Derivation of eq. (3) (where we differ from the printed paper)
----------------------------------------------------------------
Above ``w_l`` the window grows as ``dw/dt = a(w)/R`` with
``a(w) = 2 w^2 b p(w) / (2 - b)``, ``p(w) = p_l (w/w_l)^(c/A)``,
``A = log(w_h/w_l)``, ``c = log(p_h/p_l)``. Holding ``b = b(w_p)`` constant
over a cycle (the paper's approximation), ``dw/dt = K w^(1 - s)`` with
``s = -(1 + c/A) > 0``. A cycle goes from ``(1 - b) w_p`` to the peak
``w_p = w(p)``; integrating ``dt = dw / (K w^(1-s))`` and
``dN = w dt / R`` gives

    lambda = N_d / T_d = (w_p / R) * s/(s+1) * (1 - (1-b)^(s+1)) / (1 - (1-b)^s)

which is the paper's next-to-last line of eq. (3)
(``(1 + A/c) [(1-b)^(-c/A) - 1] / [(1-b)^(-(1+c/A)) - 1] w_p / R``).
Differences from the printed text (typos in the paper):

* the last line of eq. (3) has the exponent ``-1/(1 + c/A)`` in the
  denominator; the line above it, and the derivation, give ``-(1 + c/A)``;
* ``y`` is printed as ``log(w_h/w_l)/log(w_h/w_l)`` (= 1); it is
  ``log(w/w_l)/log(w_h/w_l)``;
* the exponent of ``w(t)`` is printed as ``-(A+c)/(A+c)``; it is
  ``-A/(A+c)``;
* the approximation ``lambda ~ (w_l/R)(p/p_l)^(A/c) = w(p)/R`` drops the
  bracket, i.e. it uses the peak window as the mean window (about 5% high
  near ``b = 0.1``, 27% high near ``w_l``).

Below ``w_l`` (``p >= p_l``) HighSpeed TCP is Reno: ``a = 1``, ``b = 1/2``,
``w(p) = w_l sqrt(p_l / p)`` (RFC 3649's ``1.2/sqrt(p)``);
the same cycle argument with constant increase gives ``lambda = 0.75 w_p / R``.

The defaults are the core's (the variant registry, ``bufsim.scenario.VARIANTS``),
so the model and the engines read one law: RFC 3649 section 5's Low_Window,
High_Window, High_P and High_Decrease, and ``Low_P`` derived as the loss rate
at which standard TCP's window ``1.2/sqrt(p)`` is Low_Window, ``(1.2/38)^2 =
9.97e-4`` (the RFC rounds it to 1e-3; paper 001 section II.A writes ``p_l =
1.5/w_l^2``, 1.04e-3, and uses 1e-3 in its experiments).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bufsim import fmt
from bufsim.models import queueing
from bufsim.models._validate import (
    ModelInputError,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_probability,
    check_range,
    scalar_or_array,
)
from bufsim.scenario import VARIANTS

__all__ = [
    "HSTCPParams",
    "hstcp_a",
    "hstcp_b",
    "hstcp_p",
    "hstcp_window",
    "hstcp_throughput",
    "hstcp_fixed_point",
    "hstcp_increase_loss_share",
    "ns2_adaptive_red",
]


#: The core's HighSpeed defaults (RFC 3649 section 5).
_CORE = VARIANTS["highspeed"]["defaults"]

#: Standard TCP's response function ``w = 1.2/sqrt(p)`` (RFC 3649 section 1).
STANDARD_RESPONSE = 1.2


@dataclass(frozen=True)
class HSTCPParams:
    """HighSpeed TCP parameters; the defaults are the core's, RFC 3649's
    (section 5).

    Attributes
    ----------
    low_window : float
        Low_Window, packets: Reno behaviour at or below it (38).
    high_window : float
        High_Window, packets (83000).
    high_p : float
        High_P, loss rate at which the window is High_Window (1e-7).
    high_decrease : float
        High_Decrease, b(High_Window) (0.1).
    low_p : float, optional
        Low_P, loss rate at Low_Window; default ``(1.2 / low_window)^2``,
        as the core derives it (9.97e-4 at 38; paper 001 writes 1.5/w_l^2).
    """

    low_window: float = _CORE["low_window"]
    high_window: float = _CORE["high_window"]
    high_p: float = _CORE["high_p"]
    high_decrease: float = _CORE["high_decrease"]
    low_p: float | None = None

    def __post_init__(self) -> None:
        check_range("low_window", self.low_window, 1.0)
        if self.low_p is None:
            object.__setattr__(self, "low_p", (STANDARD_RESPONSE / self.low_window) ** 2)
        if not self.high_window > self.low_window:
            raise ModelInputError(
                f"high_window must be > low_window ({fmt.number(self.low_window)}), got {float(self.high_window)!r}"
            )
        check_probability("low_p", self.low_p)
        check_range("high_p", self.high_p, 0.0, self.low_p, lo_open=True, hi_open=True)
        check_range("high_decrease", self.high_decrease, 0.0, 0.5, lo_open=True)

    @property
    def log_w_ratio(self) -> float:
        """``A = log(high_window / low_window)``."""
        return float(np.log(self.high_window / self.low_window))

    @property
    def log_p_ratio(self) -> float:
        """``c = log(high_p / low_p)`` (negative)."""
        return float(np.log(self.high_p / self.low_p))


DEFAULT_PARAMS = HSTCPParams()


def _w(w):
    return check_positive("w", w)


def hstcp_b(w, params: HSTCPParams = DEFAULT_PARAMS):
    """Decrease factor ``b(w)`` (window becomes ``(1 - b) w`` on a loss).

    RFC 3649 section 5 / paper 001 (Barman et al.) section II.A:
    ``b(w) = (b_h - 0.5) log(w/w_l)/log(w_h/w_l) + 0.5`` above ``w_l``, 0.5 at
    or below. Above ``w_h`` the formula keeps extrapolating (as the RFC's).

    Parameters
    ----------
    w : float or array_like
        Congestion window, packets (> 0).
    params : HSTCPParams

    Returns
    -------
    float or numpy.ndarray
    """
    ww = _w(w)
    y = np.log(np.maximum(ww, params.low_window) / params.low_window) / params.log_w_ratio
    return scalar_or_array(y * (params.high_decrease - 0.5) + 0.5)


def hstcp_p(w, params: HSTCPParams = DEFAULT_PARAMS):
    """Loss rate at which the average window is ``w``: ``p(w)``.

    RFC 3649 section 5 / paper 001 section II.A:
    ``p(w) = p_l (w/w_l)^(c/A)`` above ``w_l``; Reno's ``p_l (w_l/w)^2`` at or
    below (continuous at ``w_l``).

    Parameters
    ----------
    w : float or array_like
        Window, packets (> 0).
    params : HSTCPParams

    Returns
    -------
    float or numpy.ndarray
        Loss probability.
    """
    ww = _w(w)
    expo = np.where(ww > params.low_window, params.log_p_ratio / params.log_w_ratio, -2.0)
    return scalar_or_array(params.low_p * (ww / params.low_window) ** expo)


def hstcp_a(w, params: HSTCPParams = DEFAULT_PARAMS):
    """Increase per RTT ``a(w) = 2 w^2 b(w) p(w) / (2 - b(w))``, packets.

    RFC 3649 section 5 / paper 001 section II.A; 1 at or below ``w_l``.

    Parameters
    ----------
    w : float or array_like
        Window, packets (> 0).
    params : HSTCPParams

    Returns
    -------
    float or numpy.ndarray
        Packets per RTT.
    """
    ww = _w(w)
    b = np.asarray(hstcp_b(ww, params))
    p = np.asarray(hstcp_p(ww, params))
    a = 2.0 * ww**2 * b * p / (2.0 - b)
    return scalar_or_array(np.where(ww > params.low_window, a, 1.0))


def hstcp_window(loss_prob, params: HSTCPParams = DEFAULT_PARAMS):
    """Response function ``w(p)``, the inverse of :func:`hstcp_p`, packets.

    ``w = w_l (p/p_l)^(A/c)`` for ``p < p_l`` (RFC 3649: about
    ``0.12 / p^0.835``), ``w_l sqrt(p_l/p)`` (Reno) for ``p >= p_l``.

    Parameters
    ----------
    loss_prob : float or array_like
        Loss probability, in (0, 1).
    params : HSTCPParams

    Returns
    -------
    float or numpy.ndarray
        Packets.
    """
    p = check_probability("loss_prob", loss_prob)
    expo = np.where(p < params.low_p, params.log_w_ratio / params.log_p_ratio, -0.5)
    return scalar_or_array(params.low_window * (p / params.low_p) ** expo)


def _cycle_factor(s, b):
    """Mean/peak window over a cycle from (1-b) w_p to w_p with dw/dt ~ w^(1-s)."""
    q = 1.0 - b
    return s / (s + 1.0) * (1.0 - q ** (s + 1.0)) / (1.0 - q**s)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(96)


def hstcp_throughput(
    loss_prob, rtt_s, params: HSTCPParams = DEFAULT_PARAMS, *, method: str = "exact"
):
    """Throughput of one HighSpeed TCP flow, packets per second.

    Paper 001 (Barman et al.) eq. (3), re-derived (see the module docstring).

    Parameters
    ----------
    loss_prob : float or array_like
        Loss probability p, in (0, 1).
    rtt_s : float or array_like
        Round-trip time R including queueing, seconds (> 0).
    params : HSTCPParams
    method : {"exact", "approx", "numeric"}
        ``"exact"``: the closed form of eq. (3) (``b`` held at ``b(w_p)``
        over the cycle); ``"approx"``: eq. (3)'s approximation ``w(p)/R``;
        ``"numeric"``: the same cycle (decrease ``b(w_p)``) integrated
        numerically with the exact, window-dependent ``a(w)`` (Gauss-Legendre,
        96 nodes); it differs from ``"exact"`` by < 0.3% for ``p <= 1e-5``
        and by up to 3% just below ``p_l``.

    Returns
    -------
    float or numpy.ndarray
        Packets per second.
    """
    p = check_probability("loss_prob", loss_prob)
    rtt = check_positive("rtt_s", rtt_s)
    wp = np.asarray(hstcp_window(p, params))
    if method == "approx":
        return scalar_or_array(wp / rtt)
    b = np.asarray(hstcp_b(wp, params))
    if method == "exact":
        s = np.where(wp > params.low_window, -(1.0 + params.log_p_ratio / params.log_w_ratio), 1.0)
        return scalar_or_array(wp * _cycle_factor(s, b) / rtt)
    if method == "numeric":
        lo = np.log((1.0 - b) * wp)[..., None]
        hi = np.log(wp)[..., None]
        u = 0.5 * (hi - lo) * _GL_X + 0.5 * (hi + lo)  # log-window nodes
        w = np.exp(u)
        a = np.asarray(hstcp_a(w, params))
        dt = _GL_W * w / a  # dt/R per du (dw = w du)
        return scalar_or_array((dt * w).sum(-1) / dt.sum(-1) / rtt)
    raise ModelInputError(f"method must be one of 'exact', 'approx', 'numeric', got {method!r}")


def _red_accept(k: int, min_th: float, max_th: float, max_p: float) -> np.ndarray:
    """RED admission probability in states n = 0..k-1 (paper 001 section IV)."""
    n = np.arange(k, dtype=float)
    drop = np.where(n <= min_th, 0.0, (n - min_th) * max_p / (max_th - min_th))
    drop = np.where(n >= max_th, 1.0, np.minimum(drop, 1.0))
    return 1.0 - drop


def hstcp_fixed_point(
    capacity_bps: float,
    rtts_s,
    buffer_pkts,
    *,
    packet_size_bytes: float = 1000.0,
    params: HSTCPParams = DEFAULT_PARAMS,
    qdisc: str = "droptail",
    throughput: str = "exact",
    red_min_th_frac: float = 0.4,
    red_max_th_frac: float = 1.0,
    red_max_p: float = 0.1,
    background_bps: float = 0.0,
    max_rate_bps=None,
    path_loss=0.0,
) -> pd.DataFrame:
    """Utilization, loss and delay of N HighSpeed TCP flows vs. buffer size.

    Paper 001 (Barman et al.): solve ``rho = sum_i lambda_i(p, R_i) / C``
    (eq. (4)) with ``R_i = 2 d_i + (MSS/C) L`` and, for ``qdisc="droptail"``,
    the M/M/1/K loss ``p`` and mean queue ``L`` (eq. (5)); for
    ``qdisc="red"``, the M/M/1/K with state-dependent drop of section IV
    (``p_red = sum_n pi(n) p(n)``, ``min_th = 0.4 K`` and ``max_th = K`` as in
    the paper's evaluation, drop probability rising linearly to ``max_p``).
    The right-hand side decreases in ``rho``, so the root is unique and is
    found with :func:`scipy.optimize.brentq`.

    Parameters
    ----------
    capacity_bps : float
        Bottleneck capacity, bits/s (> 0).
    rtts_s : array_like
        Round-trip propagation delay ``2 d_i`` of each flow, seconds (> 0).
    buffer_pkts : int or array_like
        Buffer sizes K to evaluate, packets (>= 1).
    packet_size_bytes : float
        Packet (MSS) size, bytes (> 0); the service time is ``8 MSS / C``.
    params : HSTCPParams
    qdisc : {"droptail", "red"}
    throughput : {"exact", "approx", "numeric"}
        Passed to :func:`hstcp_throughput` as ``method``.
    red_min_th_frac, red_max_th_frac : float
        RED thresholds as fractions of K (0 <= min < max <= 1).
    red_max_p : float
        RED drop probability at ``max_th``, in (0, 1] (not given in the paper;
        0.1 is the ns-2 default).
    background_bps : float
        Poisson background traffic offered to the queue, bits/s (>= 0).
    max_rate_bps : float or array_like, optional
        Per-flow sending-rate cap (access rate or rwnd/RTT), bits/s.
    path_loss : float or array_like
        Extra random loss on each flow's path, in [0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per buffer size: ``buffer_pkts``, ``offered_load`` (rho),
        ``utilization`` (busy fraction of the link, 0..1), ``loss_rate``
        (at the queue), ``mean_queue_pkts``, ``mean_queue_delay_s``
        (``L * 8 MSS / C``, as in eq. (5)), ``goodput_bps`` (HSTCP flows).
    """
    c_bps = float(check_positive("capacity_bps", capacity_bps))
    d2 = np.atleast_1d(check_positive("rtts_s", rtts_s))
    ks = np.atleast_1d(check_int_at_least("buffer_pkts", buffer_pkts, 1))
    mss = float(check_positive("packet_size_bytes", packet_size_bytes))
    bg = float(check_nonnegative("background_bps", background_bps))
    cap = (
        np.inf
        if max_rate_bps is None
        else check_positive("max_rate_bps", max_rate_bps, allow_inf=True)
    )
    cap_pps = np.broadcast_to(np.asarray(cap, float) / (8.0 * mss), d2.shape)
    ploss = np.broadcast_to(check_range("path_loss", path_loss, 0.0, 1.0, hi_open=True), d2.shape)
    if qdisc not in ("droptail", "red"):
        raise ModelInputError(f"qdisc must be 'droptail' or 'red', got {qdisc!r}")
    if qdisc == "red":
        lo_f = float(check_range("red_min_th_frac", red_min_th_frac, 0.0, 1.0, hi_open=True))
        hi_f = float(check_range("red_max_th_frac", red_max_th_frac, lo_f, 1.0, lo_open=True))
        maxp = float(check_range("red_max_p", red_max_p, 0.0, 1.0, lo_open=True))
    c_pps = c_bps / (8.0 * mss)
    service_s = 1.0 / c_pps
    bg_load = bg / c_bps
    from scipy import optimize  # scipy loads on first use (see bufsim/__init__.py)

    rows = []
    for k in ks:
        k = int(k)
        if qdisc == "droptail":

            def queue(rho, k=k):
                return (
                    float(queueing.mm1k_loss(rho, k)),
                    float(queueing.mm1k_mean_queue(rho, k)),
                    None,
                )

        else:
            accept = _red_accept(k, lo_f * k, hi_f * k, maxp)
            drop = np.append(1.0 - accept, 1.0)
            n = np.arange(k + 1)

            def queue(rho, accept=accept, drop=drop, n=n):
                pi = queueing.state_dependent_distribution(rho, accept)
                return float(pi @ drop), float(pi @ n), float(pi[0])

        def flows(rho):
            loss, mean_q, _ = queue(rho)
            p_i = np.clip(loss + ploss - loss * ploss, 1e-300, 1.0 - 1e-12)
            rate = hstcp_throughput(p_i, d2 + mean_q * service_s, params, method=throughput)
            return np.minimum(np.asarray(rate), cap_pps), loss, mean_q

        def f(rho):
            return rho - bg_load - flows(rho)[0].sum() / c_pps

        hi = 2.0
        while f(hi) < 0.0:
            hi *= 2.0
            if hi > 1e9:
                raise ModelInputError(
                    f"no fixed point for buffer_pkts={int(k)}: the flows' offered load still exceeds "
                    f"rho = {fmt.number(hi, 3)} (their throughput does not fall with load); check capacity_bps and rtts_s"
                )
        rho = optimize.brentq(f, 1e-12, hi, xtol=1e-14, rtol=1e-12)
        rates, loss, mean_q = flows(rho)
        p0 = queue(rho)[2]
        util = rho * (1.0 - loss) if p0 is None else 1.0 - p0
        rows.append(
            {
                "buffer_pkts": k,
                "offered_load": rho,
                "utilization": util,
                "loss_rate": loss,
                "mean_queue_pkts": mean_q,
                "mean_queue_delay_s": mean_q * service_s,
                "goodput_bps": float((rates * (1.0 - loss)).sum() * 8.0 * mss),
            }
        )
    return pd.DataFrame(rows)


def hstcp_increase_loss_share(w_hstcp: float) -> float:
    """HSTCP's fraction of the goodput beside a NewReno flow of the same RTT
    when every loss is one packet per window increase, equally likely for
    both flows (paper 000's FIFO mix at 625 packets).

    With a loss probability ``p`` per packet of increase, each flow loses
    after growing by ``1/p`` packets, whatever its increase rule. NewReno's
    sawtooth then runs from ``W/2`` to ``W = 2/p`` (mean ``3/(2p)``), HSTCP's
    from ``(1 - b) W`` to ``W = 1/(b p)`` (mean ``(2 - b)/(2 b p)``), so
    HSTCP's share of the goodput is ``(2 - b)/(2 + 2 b)``, with ``b = b(w)``
    RFC 3649's decrease factor (:func:`hstcp_b`): 0.5 at ``b = 0.5``, 0.59
    at ``w = 400`` packets (``b = 0.378``).

    Parameters
    ----------
    w_hstcp : float
        HSTCP's mean cwnd, packets.

    Returns
    -------
    float
        HSTCP's share of the two flows' goodput, 0..1.
    """
    b = float(hstcp_b(w_hstcp))
    return (2 - b) / (2 + 2 * b)


def ns2_adaptive_red(
    capacity_bps: float, link_delay_s: float, packet_bytes: int = 1000
) -> dict[str, float | bool | str]:
    """Adaptive RED as ns-2.35 sets it up when a script only turns it on
    (``adaptive_ 1``): the ``qdisc_params`` of a ``red`` link. Paper 001
    section IV ran "Adaptive-RED in which min_th and max_th are dynamically
    adjusted"; ns-default.tcl leaves ``thresh_``, ``maxthresh_`` at 0,
    ``q_weight_`` at -1, ``targetdelay_`` at 5 ms, ``linterm_`` at 10 and
    ``gentle_`` on, and ``REDQueue::initialize_params`` (red.cc) derives:

    - ``min_th = max(5, targetdelay C / 2)`` and ``max_th = 3 min_th``, ``C``
      the link's packets/s: 312.5 and 937.5 packets at 1 Gbps, 781.25 and
      2343.75 at 2.5 Gbps (1000 B packets);
    - ``w_q = 1 - exp(-1 / (10 rtt C))``, ``rtt = max(0.1, 3 (delay + 1/C))``
      s: 5.3e-6 at 1 Gbps with 50 ms of delay, 3.2e-6 at 2.5 Gbps with 10 ms;
    - ``max_p`` starting at ``1 / linterm_ = 0.1``, adapted at the first
      arrival ``interval_`` = 0.5 s after its last change (Floyd, Gummadi
      and Shenker 2001, Fig. 2; red.cc ``updateMaxP``);
    - ns-2's RED rules (``variant = "ns3"``, which ns-3 took from ns-2) and
      its spacing of the early drops (``wait_`` true: ``wait``).

    Parameters
    ----------
    capacity_bps : float
        Link capacity, bits/s.
    link_delay_s : float
        The link's one-way propagation delay, s.
    packet_bytes : int
        Packet size, bytes.

    Returns
    -------
    dict
        ``min_th``, ``max_th`` (packets), ``max_p``, ``w_q``, ``gentle``,
        ``adaptive``, ``variant`` and ``wait``.
    """
    pps = capacity_bps / (8.0 * packet_bytes)
    min_th = max(5.0, 0.005 * pps / 2.0)
    rtt = max(0.1, 3.0 * (link_delay_s + 1.0 / pps))
    return {
        "min_th": min_th,
        "max_th": 3.0 * min_th,
        "max_p": 0.1,
        "w_q": 1.0 - float(np.exp(-1.0 / (10.0 * rtt * pps))),
        "gentle": True,
        "adaptive": True,
        "variant": "ns3",
        "wait": True,
    }
