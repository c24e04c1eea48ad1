"""What the laws take: checks of exact reals, sequences, points and log-weights.

Each check returns the cleaned value or raises a ``ValueError`` naming the parameter (and the
index, for an entry of a sequence): non-numbers, NaN, infinities where they are not allowed,
values that do not fit a float64, sequences longer than a cap.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import Number, rational
from dpquant.reference.validation import MAX_FLOAT, check_real_array


def describe(x: Any) -> str:
    """``repr(x)`` cut to 80 characters, for an error message."""
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def is_real(x: Any) -> bool:
    """A real number of any exact or float type (int, float, Fraction, mpf, numpy), not a bool."""
    return isinstance(x, numbers.Real | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def exact_real(
    x: Any, name: str, *, neg_inf: bool = False, pos_inf: bool = False, fit: bool = True
) -> Number:
    """A real number kept exact (int, Fraction, float, mpf; numpy scalars as Python numbers):
    NaN refused, infinities refused unless allowed, finite values that do not fit a float64
    refused when ``fit``."""
    if not is_real(x):
        raise ParameterError(name, "must be a real number", describe(x))
    if isinstance(x, np.integer):
        x = int(x)
    elif isinstance(x, np.floating):
        value = float(x)
        if math.isinf(value) and np.isfinite(x):
            raise ParameterError(name, f"must fit a float64 (|{name}| <= {MAX_FLOAT:.4g})", repr(x))
        x = value
    if isinstance(x, float):
        nan, inf = math.isnan(x), math.isinf(x)
    elif isinstance(x, mpmath.mpf):
        nan, inf = bool(mpmath.isnan(x)), bool(mpmath.isinf(x))
    else:
        nan, inf = False, False
    if nan:
        raise ParameterError(name, "must be a real number", "nan")
    if inf:
        if (x > 0 and not pos_inf) or (x < 0 and not neg_inf):
            allowed = "finite"
            if neg_inf or pos_inf:
                allowed = "finite or -inf" if neg_inf else "finite or +inf"
            raise ParameterError(name, f"must be {allowed}", repr(x))
        return x
    if fit and not isinstance(x, float) and abs(x) > MAX_FLOAT:
        raise ParameterError(name, f"must fit a float64 (|{name}| <= {MAX_FLOAT:.4g})")
    return x


def check_point(x: Any, name: str) -> int | float | Fraction:
    """An evaluation point of a law's exact path: a real number (±inf allowed, NaN refused), kept
    exact (an mpf becomes the Fraction it equals)."""
    return rational(exact_real(x, name, neg_inf=True, pos_inf=True))


def sequence(values: Any, name: str, cap: int) -> Sequence[Any]:
    """A sequence (list, tuple, range, 1-D array or any object with ``__len__`` and
    ``__getitem__``) of at most ``cap`` items; strings, mappings and sets are refused."""
    if isinstance(values, str | bytes | dict | set | frozenset) or not (
        hasattr(values, "__len__") and hasattr(values, "__getitem__")
    ):
        raise ParameterError(name, "must be a sequence", describe(values))
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ParameterError(name, "must be one-dimensional", f"shape {values.shape}")
    n = len(values)
    if n > cap:
        raise ParameterError(name, f"must have at most {cap} items", n)
    return values


def float_vector(
    values: Any, name: str, cap: int, *, neg_inf: bool = False, pos_inf: bool = False
) -> np.ndarray:
    """A sequence of real numbers as a float64 array (exact values rounded once); NaN refused,
    infinities refused unless allowed, values that do not fit a float64 refused."""
    values = sequence(values, name, cap)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        with np.errstate(over="ignore"):
            arr = values.astype(np.float64)
        if values.dtype.kind == "f" and values.dtype.itemsize > 8:
            if np.any(np.isinf(arr) & np.isfinite(values)):
                raise ParameterError(name, "must hold values that fit a float64")
    elif isinstance(values, np.ndarray) and values.dtype.kind != "O":
        raise ParameterError(name, "must hold real numbers", f"dtype {values.dtype}")
    else:
        arr = np.empty(len(values))
        for k in range(len(values)):
            v = values[k]
            if type(v) is float:
                arr[k] = v
                continue
            arr[k] = float(exact_real(v, f"{name}[{k}]", neg_inf=True, pos_inf=True))
    if np.isfinite(arr).all():  # the common case, in one pass: nothing below can refuse it
        return arr
    bad = np.flatnonzero(np.isnan(arr))
    if bad.size:
        raise ParameterError(name, f"must not contain NaN (at index {bad[0]})")
    bad = np.flatnonzero((np.isposinf(arr) & (not pos_inf)) | (np.isneginf(arr) & (not neg_inf)))
    if bad.size:
        allowed = "finite" + (" or -inf" if neg_inf else "") + (" or +inf" if pos_inf else "")
        raise ParameterError(name, f"must be {allowed}", f"{arr[bad[0]]} at index {bad[0]}")
    return arr


def check_rows(y: Any, name: str, k: int) -> np.ndarray:
    """Points of R^k: an array (n, k), or one point of k coordinates; reals, ±inf allowed."""
    arr = check_real_array(y, name, allow_inf=True)
    if arr.ndim == 2 and arr.shape[1] == k:
        return arr
    if arr.ndim == 1 and arr.size == k:
        return arr.reshape(1, k)
    if k == 1 and arr.ndim <= 1:
        return arr.reshape(-1, 1)
    raise ParameterError(name, f"must be points of R^{k}: shape (n, {k})", f"shape {arr.shape}")


def check_log_weight(x: Any, name: str) -> Number:
    """A log-weight kept exact: a real number or -inf (a weight of 0); NaN and +inf refused."""
    if not is_real(x):
        raise ParameterError(name, "must be a real number or -inf", describe(x))
    return exact_real(x, name, neg_inf=True, fit=False)


def check_log_weights(values: Sequence[Any], name: str) -> list[Number]:
    """A sequence of log-weights (:func:`check_log_weight` each; float arrays checked at once)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.tolist()
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.dtype.itemsize <= 8:
        bad = np.flatnonzero(np.isnan(values) | np.isposinf(values))
        if bad.size:
            raise ParameterError(f"{name}[{bad[0]}]", "must be finite or -inf", values[bad[0]])
        return values.astype(np.float64).tolist()
    return [check_log_weight(values[k], f"{name}[{k}]") for k in range(len(values))]


__all__ = [
    "check_log_weight",
    "check_log_weights",
    "check_point",
    "check_rows",
    "describe",
    "exact_real",
    "float_vector",
    "is_real",
    "sequence",
]
