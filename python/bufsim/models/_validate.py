"""Input checks shared by every module of :mod:`bufsim.models`.

One helper per kind of check, so that every model reports bad input the same
way: a :class:`ModelInputError` (a :class:`ValueError`) whose message names the
argument, the allowed range and the offending value, e.g.
``"capacity_bps must be > 0, got -5.0"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bufsim import fmt
from bufsim._core import BufsimError

__all__ = [
    "ModelInputError",
    "as_array",
    "check_range",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_int_at_least",
    "scalar_or_array",
]


class ModelInputError(BufsimError, ValueError):
    """Bad input to an analytic model (names the argument and the allowed range)."""


def _fmt(value: Any) -> str:
    return repr(float(value)) if np.isscalar(value) else repr(value)


def as_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a float ndarray; refuse non-numbers and NaN."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelInputError(
            f"{name} must be a number or an array of numbers, got {value!r}"
        ) from None
    if arr.size == 0:
        raise ModelInputError(f"{name} must not be empty")
    if np.isnan(arr).any():
        raise ModelInputError(f"{name} must not be NaN, got {value!r}")
    return arr


def _fail(name: str, rule: str, arr: np.ndarray, bad: np.ndarray) -> None:
    idx = np.flatnonzero(bad)
    if idx.size:
        first = arr.ravel()[idx[0]]
        where = f" (element {idx[0]})" if arr.ndim else ""
        raise ModelInputError(f"{name} must be {rule}, got {_fmt(first)}{where}")


def check_range(
    name: str,
    value: Any,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> np.ndarray:
    """Check ``lo (<|<=) value (<|<=) hi`` elementwise and return a float array.

    ``None`` for a bound means unbounded on that side (infinite values are then
    refused unless the bound is ``None`` *and* the value is ``+inf`` on the
    upper side, which some callers use for "no cap").
    """
    arr = as_array(name, value)
    if lo is not None and hi is not None:
        rule = f"in {'(' if lo_open else '['}{fmt.number(lo)}, {fmt.number(hi)}{')' if hi_open else ']'}"
    elif lo is not None:
        rule = f"{'>' if lo_open else '>='} {fmt.number(lo)}"
    elif hi is not None:
        rule = f"{'<' if hi_open else '<='} {fmt.number(hi)}"
    else:
        rule = "finite"
    bad = np.zeros(arr.shape, dtype=bool)
    if lo is not None:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi is not None:
        bad |= (arr >= hi) if hi_open else (arr > hi)
        bad |= ~np.isfinite(arr)
    elif lo is None:
        bad |= ~np.isfinite(arr)
    else:
        bad |= np.isneginf(arr)
    _fail(name, rule, arr, bad)
    return arr


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> np.ndarray:
    """``value > 0`` (finite unless ``allow_inf``)."""
    arr = check_range(name, value, 0.0, lo_open=True)
    if not allow_inf:
        _fail(name, "> 0 and finite", arr, ~np.isfinite(arr))
    return arr


def check_nonnegative(name: str, value: Any, *, allow_inf: bool = False) -> np.ndarray:
    """``value >= 0`` (finite unless ``allow_inf``)."""
    arr = check_range(name, value, 0.0)
    if not allow_inf:
        _fail(name, ">= 0 and finite", arr, ~np.isfinite(arr))
    return arr


def check_probability(
    name: str, value: Any, *, closed_lo: bool = False, closed_hi: bool = False
) -> np.ndarray:
    """A probability in (0, 1); ``closed_lo``/``closed_hi`` admit 0 or 1."""
    return check_range(name, value, 0.0, 1.0, lo_open=not closed_lo, hi_open=not closed_hi)


def check_int_at_least(name: str, value: Any, lo: int) -> np.ndarray:
    """Integers ``>= lo`` (floats with integral values are accepted)."""
    arr = check_range(name, value, float(lo))
    _fail(name, f"an integer >= {lo}", arr, ~np.isfinite(arr) | (arr != np.round(arr)))
    return arr.astype(np.int64)


def scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """Return a Python float for 0-d results, the array otherwise."""
    arr = np.asarray(arr)
    return float(arr) if arr.ndim == 0 else arr
