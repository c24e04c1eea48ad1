"""Input checks shared by the imola25 modules: integer rank arrays, quantile vectors, the central
adjacencies, sorted data inside the bounds, and exact (mpmath) reals.

Every check returns the checked value or raises a ``ValueError`` naming the parameter.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, check_adjacency
from dpquant.reference.exact.mp import to_mpf
from dpquant.reference.validation import (
    check_data,
    check_domain,
    check_epsilon,
    check_finite,
    check_positive,
    check_probability,
)

MAX_QUANTILES = 10**5
"""Most quantiles (or ranks) one release of the imola25 mechanisms answers."""

_ABS_INT = 2**60  # entries of a rank array: sums and differences of two stay inside int64


def check_int_array(values: Any, name: str, *, max_abs: int = _ABS_INT) -> np.ndarray:
    """An int64 array of integers (not bools, not floats) of any shape, entries with
    |v| <= ``max_abs``: from a numpy integer array or a (nested) list/tuple of ints."""
    what = "an array of integers"
    hold = "must hold integers (ints, not floats or bools)"
    if isinstance(values, np.ndarray):
        arr = values
        if arr.dtype.kind == "O":
            items = arr.ravel().tolist()
        elif arr.dtype.kind in "iu":
            items = None
        else:
            raise ValueError(f"{name} {hold}, got dtype {arr.dtype}")
    elif isinstance(values, list | tuple | range):
        try:
            arr = np.array(values, dtype=object)
        except ValueError:
            raise ParameterError(name, f"must be {what}", "a ragged sequence") from None
        items = arr.ravel().tolist()
    else:
        raise ParameterError(name, f"must be {what}", type(values).__name__)
    if items is not None:
        for t in set(map(type, items)):
            if issubclass(t, bool | np.bool_) or not issubclass(t, numbers.Integral | np.integer):
                raise ValueError(f"{name} {hold}, got values of type {t.__name__}")
        if items and (min(items) < -max_abs or max(items) > max_abs):
            raise ParameterError(name, f"must hold integers of magnitude <= {max_abs}")
        return np.array(items, dtype=np.int64).reshape(arr.shape)
    if arr.size and (int(arr.min()) < -max_abs or int(arr.max()) > max_abs):
        raise ParameterError(name, f"must hold integers of magnitude <= {max_abs}")
    return arr.astype(np.int64)


def check_quantiles(quantiles: Any, name: str = "quantiles") -> np.ndarray:
    """A non-empty 1-D array of at most :data:`MAX_QUANTILES` strictly increasing quantiles in
    the open interval (0, 1) (numbers only, under the data policy of
    :func:`dpquant.reference.validation.check_data`)."""
    if isinstance(quantiles, list | tuple | np.ndarray) and len(quantiles) > MAX_QUANTILES:
        raise ParameterError(name, f"must hold at most {MAX_QUANTILES} values", len(quantiles))
    q = check_data(quantiles, name)
    if np.any(q <= 0) or np.any(q >= 1):
        raise ParameterError(name, "must lie in the open interval (0, 1)", q.tolist()[:10])
    if np.any(np.diff(q) <= 0):
        raise ParameterError(name, "must be strictly increasing (sorted, no duplicates)")
    return q


def check_adjacency_central(adjacency: Any, owner: str | None = None) -> Adjacency:
    """'add_remove' or 'replace_one' (central DP only), as an :class:`Adjacency`; the error names
    ``owner`` if given."""
    adjacency = check_adjacency(adjacency)
    if adjacency not in ("add_remove", "replace_one"):
        where = "" if owner is None else f" for {owner}"
        raise ParameterError("adjacency", f"must be 'add_remove' or 'replace_one'{where}")
    return adjacency


def check_release_fields(mechanism: Any) -> None:
    """Check and normalise, in place, the fields the quantile-release mechanisms of this package
    share (a frozen dataclass's ``quantiles``, ``epsilon``, ``bounds`` and ``adjacency``):
    quantiles as a tuple of floats (:func:`check_quantiles`), ε > 0, finite bounds (lo, hi) and a
    central adjacency (:func:`check_adjacency_central`, stored as the :class:`Adjacency`)."""
    quantiles = check_quantiles(mechanism.quantiles)
    object.__setattr__(mechanism, "quantiles", tuple(quantiles.tolist()))
    object.__setattr__(mechanism, "epsilon", check_epsilon(mechanism.epsilon))
    object.__setattr__(mechanism, "bounds", check_domain(mechanism.bounds, "bounds", finite=True))
    object.__setattr__(mechanism, "adjacency", check_adjacency_central(mechanism.adjacency))


@dataclass(frozen=True)
class SortedData:
    """Data validated, clamped and sorted once (``values``, read-only), inside ``bounds``:
    :meth:`~dpquant.reference.slice_quantiles.mechanism.SliceQuantiles.prepare` or :func:`sorted_data`
    make it, and a release on it skips the O(n) checks and the sort (the authors' code takes
    sorted data and checks nothing). ``clamp``: whether out-of-bounds values were clamped (a
    SliceQuantiles without ``clamp`` refuses them instead)."""

    values: np.ndarray
    bounds: tuple[float, float]
    clamp: bool

    def __len__(self) -> int:
        return int(self.values.size)


def sorted_data(data: Any, bounds: tuple[float, float]) -> SortedData:
    """The data clamped into ``bounds`` and sorted once, for repeated baseline releases
    (:func:`~dpquant.reference.slice_quantiles.aq_mechanism.approximate_quantiles` takes it as data)."""
    values = clamp_sorted(data, bounds)
    values.setflags(write=False)
    return SortedData(values, check_domain(bounds, "bounds", finite=True), True)


def clamp_sorted(data: Any, bounds: tuple[float, float]) -> np.ndarray:
    """The data clamped into ``bounds`` and sorted (a new array; the baselines clamp their input,
    as the authors' code does); a :class:`SortedData` for the same bounds is used as it is (its
    read-only values, no copy)."""
    bounds = check_domain(bounds, "bounds", finite=True)
    if isinstance(data, SortedData):
        if data.bounds == bounds:
            return data.values
        data = data.values
    return clamp_sort(check_data(data, "data", allow_empty=True), bounds)


def clamp_sort(x: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """Checked data ``x`` (a float array the caller owns, e.g. from
    :meth:`dpquant.reference.core.MechanismBase.check_input`) clamped into ``bounds`` and sorted in
    place; returned. Sorted input skips the sort (one O(n) check)."""
    if not isinstance(x, np.ndarray) or x.ndim != 1 or x.dtype != np.float64:
        raise ParameterError("x", "must be a 1-D float64 numpy array (checked data)")
    if x.size and (x.min() < bounds[0] or x.max() > bounds[1]):
        np.clip(x, bounds[0], bounds[1], out=x)
    if x.size > 1 and not np.all(x[1:] >= x[:-1]):
        x.sort()
    return x


def check_sorted_inside(x: Any, bounds: tuple[float, float]) -> np.ndarray:
    """Sorted data ``x`` inside ``bounds`` (low-level entry points take clamped, sorted data)."""
    x = check_data(x, "x", allow_empty=True)
    if np.any(x[1:] < x[:-1]):
        raise ParameterError("x", "must be sorted in non-decreasing order")
    if x.size and (x[0] < bounds[0] or x[-1] > bounds[1]):
        raise ParameterError(
            "x",
            f"must lie inside bounds {bounds} (clamp it first)",
            f"[{x[0]}, {x[-1]}]",
        )
    return x


# ----------------------------------------------------------------------------- exact reals
def real_mpf(x: Any, name: str) -> mpmath.mpf:
    """A finite real as an exact mpf (floats, ints, Fractions, numpy scalars and mpfs)."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(name, "must be a finite real number", x)
        return x
    if isinstance(x, Fraction | int) and not isinstance(x, bool):
        return to_mpf(x)
    return to_mpf(check_finite(x, name))


def probability_mpf(p: Any, name: str = "p") -> mpmath.mpf:
    """A probability in the open interval (0, 1) as an mpf, with 1 − p above the working
    precision (1e-20)."""
    if isinstance(p, mpmath.mpf):
        value = p
    elif isinstance(p, Fraction) and 0 < p < 1:
        value = to_mpf(p)
    else:
        value = to_mpf(check_probability(p, name, open_left=True, open_right=True))
    if not 0 < value < 1:
        raise ParameterError(name, "must lie in (0, 1)", repr(p))
    if 1 - value < mpmath.mpf(10) ** -20:
        raise ParameterError(name, "must be at most 1 − 1e-20 (working precision)", repr(p))
    return value


def positive_mpf(x: Any, name: str) -> mpmath.mpf:
    """A finite real > 0 as an exact mpf (floats, ints, Fractions and mpfs accepted)."""
    if isinstance(x, mpmath.mpf):
        value = x
    else:
        check_positive(x, name)
        value = to_mpf(x if isinstance(x, Fraction | int) else float(x))
    if not (mpmath.isfinite(value) and value > 0):
        raise ParameterError(name, "must be a finite number > 0", repr(x))
    return value
