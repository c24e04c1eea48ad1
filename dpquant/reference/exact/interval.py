"""Interval arithmetic (``mpmath.iv``) on exact reals: enclosures that provably contain a value.

:func:`to_iv` turns an exact real (``int``, ``float``, ``Fraction``, ``mpf``) into an interval
that contains it exactly, :func:`iv_difference` does the same for x − y without rounding first,
and :func:`iv_precision` raises the working precision of the interval context for a block. The
certified divergences built on them live with the laws
(:mod:`dpquant.reference.distributions.certified`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath import iv

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf
from dpquant.reference.validation import check_int

IV_DPS = 60
"""The default working precision (decimal digits) of the interval enclosures."""

MAX_IV_DPS = 10_000
"""The largest precision :func:`iv_precision` takes."""


@contextmanager
def iv_precision(dps: int = IV_DPS) -> Iterator[None]:
    """Run interval arithmetic at ``dps`` digits (at least the current setting; an int in
    [1, :data:`MAX_IV_DPS`])."""
    dps = check_int(dps, "dps", minimum=1, maximum=MAX_IV_DPS)
    saved = iv.dps
    iv.dps = max(saved, dps)
    try:
        yield
    finally:
        iv.dps = saved


def to_iv(x: Any) -> Any:
    """An interval that contains ``x`` exactly (a point for floats and ints; ±inf allowed)."""
    if isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Real | np.integer | np.floating):
        raise ParameterError("x", "must be a real number", f"{x!r:.80}")
    if isinstance(x, Fraction):
        return iv.mpf(x.numerator) / x.denominator
    if isinstance(x, mpmath.mpf):
        if mpmath.isnan(x):
            raise ParameterError("x", "must be a real number", "nan")
        return iv.mpf(x)
    if isinstance(x, numbers.Integral | np.integer):
        return iv.mpf(int(x))
    value = float(x)
    if math.isnan(value):
        raise ParameterError("x", "must be a real number", "nan")
    infinite = isinstance(x, float) or (isinstance(x, np.floating) and not np.isfinite(x))
    if math.isinf(value) and not infinite:  # a finite value beyond the float range
        raise ParameterError("x", "must fit a float64", repr(x))
    return iv.mpf(value)


def is_infinite(x: Any) -> bool:
    """``x`` (an exact real: int, Fraction, float or mpf) is ±inf."""
    return not isinstance(x, Fraction | int) and bool(mpmath.isinf(x))


def iv_difference(x: Any, y: Any) -> Any:
    """x − y for finite exact reals, as an interval containing it exactly."""
    if isinstance(x, mpmath.mpf) or isinstance(y, mpmath.mpf):
        return to_iv(x) - to_iv(y)
    return to_iv(Fraction(x) - Fraction(y))


def product_digits(*values: Any) -> int:
    """About the number of decimal digits before the point of the product of ``values`` (exact
    reals): the precision a cancellation against that product needs on top of the working one."""
    bits = 0
    for v in values:
        m = v if isinstance(v, mpmath.mpf) else to_mpf(v)
        bits += 0 if m == 0 else int(mpmath.mag(m))
    return max(0, int(bits * 0.30103))


__all__ = [
    "IV_DPS",
    "MAX_IV_DPS",
    "is_infinite",
    "iv_difference",
    "iv_precision",
    "product_digits",
    "to_iv",
]
