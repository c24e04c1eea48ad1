"""mpmath helpers: one working precision for the project and exact conversions.

All exact computations run at :data:`DPS` decimal digits (>= 50). Floats convert to ``mpf``
exactly (a double has 53 bits, far below the working precision); ``Fraction`` converts by one
correctly rounded division.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import mp

DPS = 60
mp.dps = max(mp.dps, DPS)

MP_NINF = mpmath.mpf("-inf")
MP_INF = mpmath.mpf("inf")


def workdps():
    """Context manager pinning the working precision to :data:`DPS` digits."""
    return mpmath.workdps(DPS)


def to_mpf(x: Any) -> mpmath.mpf:
    """Exact (floats, ints) or correctly rounded (Fractions) conversion to ``mpf``."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def logsumexp(values: Iterable[mpmath.mpf]) -> mpmath.mpf:
    """log Σ exp(v) in mpmath, exact to the working precision; -inf for no finite term."""
    vals = [v for v in values if v != MP_NINF]
    if not vals:
        return MP_NINF
    top = max(vals)
    if top == MP_INF:
        return MP_INF
    return top + mpmath.log(mpmath.fsum(mpmath.exp(v - top) for v in vals))


class LazySequence:
    """A read-only sequence whose items are computed on access (and cached).

    Lets a law with 10^6 pieces carry exact parameters without paying for them until its exact
    path is used.
    """

    def __init__(self, length: int, item: Any):
        self._length = int(length)
        self._item = item
        self._cache: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i: int) -> Any:
        if not -self._length <= i < self._length:
            raise IndexError(i)
        i %= self._length
        if i not in self._cache:
            self._cache[i] = self._item(i)
        return self._cache[i]
