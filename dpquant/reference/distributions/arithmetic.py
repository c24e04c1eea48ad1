"""Exact real arithmetic shared by the laws: exact values, differences and affine forms without
cancellation, and float views of mpmath log-values.

An exact value is an ``int``, a ``float`` (an exact binary rational), a ``Fraction`` or an mpmath
``mpf``; ±inf are floats or mpfs. Differences and affine forms a·e + b are computed exactly
(``Fraction``) or at a precision raised by the digits that cancel, then rounded once to the
working precision (``notes/foundation.md``, "Exact laws at the extremes").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol, TypeAlias

import mpmath
import numpy as np

from dpquant.reference.exact.mp import DPS, MP_INF, MP_NINF, to_mpf, workdps

Number: TypeAlias = float | int | Fraction | mpmath.mpf
"""An exact real number as the laws store it."""


class Indexed(Protocol):
    """Values read by index: a list, a tuple, a 1-D array or a lazy sequence such as
    :class:`dpquant.reference.exact.mp.LazySequence` (anything with ``__len__`` and ``__getitem__``)."""

    def __len__(self) -> int: ...

    def __getitem__(self, i: int, /) -> Any: ...


_DIGITS_PER_BIT = 0.30103  # log10(2)


def is_inf(x: Any) -> bool:
    """``x`` is an infinite float or mpf (exact rationals are never infinite)."""
    if isinstance(x, float):
        return math.isinf(x)
    if isinstance(x, mpmath.mpf):
        return bool(mpmath.isinf(x))
    return False


def rational(x: Any) -> int | float | Fraction:
    """An exact real as an int, float or Fraction (an mpf becomes the Fraction it equals exactly;
    an infinite mpf the float infinity), so that any two values compare exactly in Python."""
    if isinstance(x, mpmath.mpf):
        if mpmath.isinf(x):
            return math.inf if x > 0 else -math.inf
        sign, man, exp, _ = x._mpf_
        man = -int(man) if sign else int(man)
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def magnitude(x: mpmath.mpf) -> int:
    """About log2 |x| of an mpf (0 for 0)."""
    return 0 if x == 0 else int(mpmath.mag(x))


def extra_digits(bits: int) -> int:
    """The decimal digits of a number of ``bits`` binary digits (rounded down)."""
    return int(bits * _DIGITS_PER_BIT)


def diff(x: Any, y: Any) -> mpmath.mpf:
    """x − y for exact reals (int, float, Fraction, mpf; ±inf floats), rounded once to the
    working precision: no cancellation, whatever the magnitudes."""
    if is_inf(x) or is_inf(y):
        if is_inf(x) and is_inf(y):
            if (x > 0) == (y > 0):
                raise ValueError("x − y of two equal infinities is undefined")
            return MP_INF if x > 0 else MP_NINF
        return (MP_INF if x > 0 else MP_NINF) if is_inf(x) else (MP_NINF if y > 0 else MP_INF)
    if type(x) is float and type(y) is float:
        return mpmath.mpf(x) - mpmath.mpf(y)
    if isinstance(x, mpmath.mpf) or isinstance(y, mpmath.mpf):
        return to_mpf(x) - to_mpf(y)
    return to_mpf(Fraction(x) - Fraction(y))


def affine_exact(a: Any, e: Any, b: Any) -> Number:
    """a·e + b exactly: a Fraction when the three are rationals (int, float, Fraction), else an
    mpf computed at a precision raised by the digits that a·e and b may cancel; -inf when b is."""
    if is_inf(b):
        return MP_NINF
    if a == 0:
        return rational(b) if not isinstance(b, mpmath.mpf) else b
    if not any(isinstance(v, mpmath.mpf) for v in (a, e, b)):
        return Fraction(rational(a)) * Fraction(rational(e)) + Fraction(rational(b))
    with workdps():
        am, em, bm = to_mpf(a), to_mpf(e), to_mpf(b)
        bits = max(0, magnitude(am) + magnitude(em), magnitude(bm))
    with mpmath.workdps(DPS + extra_digits(bits) + 10):
        return to_mpf(a) * to_mpf(e) + to_mpf(b)


def exact_difference(x: Number, y: Number) -> mpmath.mpf:
    """x − y for two finite exact values, rounded once: exactly for rationals, else at a precision
    raised by the digits of the larger one (a log-density of 1e308 minus another keeps its digits).
    """
    if not isinstance(x, mpmath.mpf) and not isinstance(y, mpmath.mpf):
        return to_mpf(Fraction(x) - Fraction(y))
    with workdps():
        bits = max(magnitude(to_mpf(x)), magnitude(to_mpf(y)), 0)
    with mpmath.workdps(DPS + extra_digits(bits) + 10):
        value = to_mpf(x) - to_mpf(y)
    return +value


def relative_log_weights(weights: Sequence[Number]) -> list[mpmath.mpf]:
    """Each log-weight minus the largest finite one, computed exactly and rounded once (-inf
    stays -inf): normalising then loses no digit, however large the weights (1e21, 10**400).

    Binary values (int, float, mpf) are subtracted by ``mpmath.fsub``, which rounds the exact
    difference once, whatever the gap between their exponents; only Fractions go through exact
    rationals (an mpf such as −2·e^{−1e300} has a rational of 2^(1.4·10^300) as denominator,
    which took minutes to build: notes/foundation.md, "Issue 34")."""
    finite = [w for w in weights if not is_inf(w)]
    if not finite:
        return [MP_NINF] * len(weights)
    with workdps():
        if all(isinstance(w, mpmath.mpf) or type(w) in (int, float) for w in finite):
            top = max(finite)  # int, float and mpf compare exactly
            return [MP_NINF if is_inf(w) else mpmath.fsub(w, top) for w in weights]
        exact = [None if is_inf(w) else rational(w) for w in weights]
        top = max(r for r in exact if r is not None)
        out = []
        for r in exact:
            if r is None:
                out.append(MP_NINF)
            elif type(r) is float and type(top) is float:
                out.append(mpmath.mpf(r) - mpmath.mpf(top))
            else:
                out.append(to_mpf(Fraction(r) - Fraction(top)))
        return out


def float_logsumexp(x: np.ndarray) -> float:
    """log Σ exp(x) of a float array, without overflow (the largest term factored out)."""
    peak = float(np.max(x))
    if not np.isfinite(peak):
        return peak
    return peak + math.log(float(np.sum(np.exp(x - peak))))


def float_of_log(x: Any) -> float:
    """An mpf log-value as a float (-inf stays -inf)."""
    return -np.inf if x == MP_NINF else float(x)


def float_log_of_mass(x: Any) -> float:
    """log of an mpf mass as a float (-inf for a mass of 0)."""
    return -np.inf if x == 0 else float(mpmath.log(x))


__all__ = [
    "Number",
    "Indexed",
    "affine_exact",
    "diff",
    "exact_difference",
    "extra_digits",
    "float_log_of_mass",
    "float_logsumexp",
    "float_of_log",
    "is_inf",
    "magnitude",
    "rational",
    "relative_log_weights",
]
