"""Confidence statements over seeds (Student t), shared by ``advise`` (one-
sided bounds) and ``plot`` (two-sided bands)."""

from __future__ import annotations

import math

import numpy as np


def t_half_width(values: np.ndarray, quantile: float) -> float:
    """Half-width ``t(quantile, n-1) * s / sqrt(n)`` of a Student t interval
    for the mean of ``values`` (n >= 2 finite values; same units as they).

    ``quantile`` is the t quantile: ``confidence`` for a one-sided bound,
    ``0.5 + confidence / 2`` for a two-sided interval.
    """
    from scipy import stats  # scipy loads on first use (see bufsim/__init__.py)

    n = len(values)
    return float(stats.t.ppf(quantile, n - 1) * np.std(values, ddof=1) / math.sqrt(n))
