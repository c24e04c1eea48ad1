"""The exact parameters of a piecewise log-linear density: read from optional, possibly lazy
sequences (``Fraction``, ``int``, ``mpf``, or anything with ``__getitem__``) and checked against
the float parameters they stand for.

A law with 10^6 pieces may carry exact parameters that cost nothing until its exact path is used
(``dpquant.reference.exact.mp.LazySequence``); exact values given as lists are checked at construction,
lazy ones when they are read.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import Indexed, Number, is_inf
from dpquant.reference.distributions.inputs import describe, exact_real, sequence
from dpquant.reference.distributions.limits import MAX_PIECES


def exact_at(exact: Indexed | None, floats: np.ndarray, i: int) -> Number:
    """Entry ``i`` of the exact values, or of the floats when there are none."""
    if exact is not None:
        return exact[i]
    return float(floats[i])


def checked_exact(v: Any, name: str, i: int, neg_inf: bool, *, pos_inf: bool = False) -> Number:
    """An exact parameter read from a (possibly lazy) sequence: a real number, not NaN."""
    if type(v) is float or type(v) is Fraction or type(v) is int:
        if type(v) is float and math.isnan(v):
            raise ParameterError(f"{name}[{i}]", "must be a real number", "nan")
        return v
    return exact_real(v, f"{name}[{i}]", neg_inf=neg_inf, pos_inf=pos_inf, fit=False)


def _rounds_to(exact: Any, value: float) -> bool:
    """``exact`` lies within 4 float spacings of the double ``value``."""
    try:
        approx = float(exact)
    except OverflowError:
        return False
    with np.errstate(over="ignore"):
        return abs(approx - value) <= 4 * float(np.spacing(abs(value)))


def exact_or_none(
    values: Any,
    exact: Indexed | None,
    floats: np.ndarray,
    name: str,
    neg_inf: bool,
    pos_inf: bool,
) -> Indexed | None:
    """The exact values of a parameter: ``exact`` when given (its length, and for a list its
    entries, checked against ``floats``: infinite at the same places, rounding to them but for
    the intercepts), else the given ``values`` themselves when they hold exact numbers the floats
    would round (``Fraction``, ``mpf``, integers above 2^53), else None (the floats are exact)."""
    if exact is not None:
        exact = sequence(exact, name, MAX_PIECES + 1)
        if len(exact) != len(floats):
            raise ParameterError(
                name,
                f"must have the same length as the float values ({len(floats)})",
                len(exact),
            )
        if isinstance(exact, list | tuple | np.ndarray):
            for k in range(len(exact)):
                v = exact_real(
                    exact[k], f"{name}[{k}]", neg_inf=neg_inf, pos_inf=pos_inf, fit=False
                )
                if is_inf(v) != bool(np.isinf(floats[k])):
                    raise ParameterError(
                        f"{name}[{k}]",
                        "must be infinite exactly where the float value is",
                        f"{describe(v)} for {floats[k]!r}",
                    )
                if name != "exact_intercepts" and not is_inf(v) and not _rounds_to(v, floats[k]):
                    raise ParameterError(
                        f"{name}[{k}]",
                        f"must round to the float value {floats[k]!r}",
                        describe(v),
                    )
        return exact
    if isinstance(values, np.ndarray) and values.dtype != object:
        return None
    items = [values[k] for k in range(len(values))]
    if any(
        isinstance(v, Fraction | mpmath.mpf)
        or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and abs(int(v)) > 2**53)
        for v in items
    ):
        return items
    return None


__all__ = ["checked_exact", "exact_at", "exact_or_none"]
