"""mpmath helpers: one working precision for the project and exact conversions.

All exact computations run at :data:`DPS` decimal digits (>= 50). Floats convert to ``mpf``
exactly (a double has 53 bits, far below the working precision); ``Fraction`` converts by one
correctly rounded division.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath import mp

from dpquant.errors import ParameterError

DPS = 60
mp.dps = max(mp.dps, DPS)

MP_NINF = mpmath.mpf("-inf")
MP_INF = mpmath.mpf("inf")


def workdps() -> Any:
    """Context manager pinning the working precision to :data:`DPS` digits."""
    return mpmath.workdps(DPS)


def to_mpf(x: Any, name: str = "x") -> mpmath.mpf:
    """Exact (floats, ints) or correctly rounded (Fractions) conversion to ``mpf``.

    Real numbers only (``int``, ``float``, ``Fraction``, ``mpf`` and numpy's integer and float
    scalars): strings, booleans, complex numbers and other objects raise ``ValueError`` naming
    ``name`` (mpmath itself would parse ``"1"``). NaN and infinities pass through unchanged.
    """
    if isinstance(x, mpmath.mpf):
        return x
    kind = type(x)
    if kind is float or kind is int:
        return mpmath.mpf(x)
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Real | np.integer | np.floating):
        raise ParameterError(name, "must be a real number", f"{x!r:.80}")
    if isinstance(x, numbers.Integral | np.integer):
        return mpmath.mpf(int(x))
    if isinstance(x, np.floating) and not isinstance(x, float):
        value = float(x)
        if math.isinf(value) and np.isfinite(x):
            raise ParameterError(name, "must fit a float64", repr(x))
        return mpmath.mpf(value)
    return mpmath.mpf(x)


def logsumexp(values: Iterable[mpmath.mpf]) -> mpmath.mpf:
    """log Σ exp(v) in mpmath, exact to the working precision; -inf for no finite term.

    ``values``: an iterable of real numbers (``ValueError`` for anything else, NaN included);
    +inf gives +inf."""
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise ParameterError("values", "must be an iterable of real numbers", f"{values!r:.80}")
    vals = [v for v in (to_mpf(x, "values") for x in values) if v != MP_NINF]
    if not vals:
        return MP_NINF
    if any(mpmath.isnan(v) for v in vals):
        raise ParameterError("values", "must not contain NaN")
    top = max(vals)
    if top == MP_INF:
        return MP_INF
    return top + mpmath.log(mpmath.fsum(mpmath.exp(v - top) for v in vals))


class LazySequence:
    """A read-only sequence whose items are computed on access (and cached).

    Lets a law with 10^6 pieces carry exact parameters without paying for them until its exact
    path is used.
    """

    _length: int

    def __init__(self, length: int, item: Callable[[int], Any]):
        if isinstance(length, bool | np.bool_) or not isinstance(
            length, numbers.Integral | np.integer
        ):
            raise ParameterError("length", "must be an integer >= 0", f"{length!r:.80}")
        if not 0 <= length <= sys.maxsize:
            raise ParameterError("length", f"must be an integer in [0, {sys.maxsize}]", length)
        if not callable(item):
            raise ParameterError("item", "must be a callable item(i)", type(item).__name__)
        self._length = int(length)
        self._item = item
        self._cache: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i: int) -> Any:
        if isinstance(i, bool | np.bool_) or not isinstance(i, numbers.Integral | np.integer):
            raise IndexError(f"index must be an integer, got {i!r:.80}")
        if not -self._length <= i < self._length:
            raise IndexError(i)
        i %= self._length
        if i not in self._cache:
            self._cache[i] = self._item(i)
        return self._cache[i]


__all__ = ["DPS", "MP_INF", "MP_NINF", "LazySequence", "logsumexp", "to_mpf", "workdps"]
