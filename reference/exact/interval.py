"""Certified privacy loss with interval arithmetic (``mpmath.iv``).

For two :class:`~reference.distributions.PiecewiseLogLinear` laws, every quantity of the exact
privacy loss (piece masses, normalisers, log-density differences at the merged breakpoints) is
recomputed from the laws' exact parameters (``exact_parameters``: Fractions and floats, never
rounded beforehand) in interval arithmetic at :data:`IV_DPS` digits. The result is an interval that
provably contains sup log(p/q); "verified ≤ ε" then means its upper end is ≤ ε.

Each piece is evaluated in its anchored form a·(y − e) + c (``notes/foundation.md``, "Exact laws"):
c = a·e + b is an exact rational when the parameters are rationals, else an interval computed at
a precision raised by the digits that a·e and b cancel; y − e is an exact rational. So a huge slope
times a huge breakpoint never widens the enclosure.

Unlike the mpmath path, no piece is skipped in the normaliser, so certification costs O(pieces)
interval operations: meant for the small families of the exact audits.
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath import iv

from reference.distributions import PiecewiseLogLinear, _merged_cells
from reference.exact.mp import to_mpf
from reference.validation import check_int

IV_DPS = 60
MAX_IV_DPS = 10_000


def _check_law(law: Any, name: str) -> PiecewiseLogLinear:
    if not isinstance(law, PiecewiseLogLinear):
        raise ValueError(f"{name} must be a PiecewiseLogLinear, got {type(law).__name__}")
    return law


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
    if isinstance(x, bool | np.bool_) or not isinstance(
        x, numbers.Real | np.integer | np.floating
    ):
        raise ValueError(f"x must be a real number, got {x!r:.80}")
    if isinstance(x, Fraction):
        return iv.mpf(x.numerator) / x.denominator
    if isinstance(x, mpmath.mpf):
        if mpmath.isnan(x):
            raise ValueError("x must be a real number, got nan")
        return iv.mpf(x)
    if isinstance(x, numbers.Integral | np.integer):
        return iv.mpf(int(x))
    value = float(x)
    if math.isnan(value):
        raise ValueError("x must be a real number, got nan")
    if math.isinf(value) and np.isfinite(x):
        raise ValueError(f"x must fit a float64, got {x!r}")
    return iv.mpf(value)


def _is_inf(x: Any) -> bool:
    return not isinstance(x, Fraction | int) and mpmath.isinf(x)


def _sub(x: Any, y: Any) -> Any:
    """x − y for finite exact reals, as an interval containing it exactly."""
    if isinstance(x, mpmath.mpf) or isinstance(y, mpmath.mpf):
        return to_iv(x) - to_iv(y)
    return to_iv(Fraction(x) - Fraction(y))


def _digits(*values: Any) -> int:
    """About the number of decimal digits before the point of the product of ``values``."""
    bits = 0
    for v in values:
        m = v if isinstance(v, mpmath.mpf) else to_mpf(v)
        bits += 0 if m == 0 else int(mpmath.mag(m))
    return max(0, int(bits * 0.30103))


def _anchored(law: PiecewiseLogLinear, i: int) -> tuple[Any, Any, Any] | None:
    """(A, e, C) of piece ``i``: slope interval, exact anchor, interval of c − r with c = a·e + b
    its log-density at the anchor and r the law's reference (:func:`_reference`); None for a
    piece of zero density."""
    left, right, a, b = law.exact_parameters(i)
    if _is_inf(b):
        return None
    e, top = law.anchor(i)
    ref = law._reference_top()
    if isinstance(top, Fraction | int) and isinstance(ref, Fraction | int):
        return to_iv(a), e, to_iv(Fraction(top) - Fraction(ref))
    with iv_precision(IV_DPS + max(_digits(a, e), _digits(ref)) + 10):
        top_iv = to_iv(b) if a == 0 else to_iv(a) * to_iv(e) + to_iv(b)
        return to_iv(a), e, top_iv - to_iv(ref)


def _reference(law: PiecewiseLogLinear) -> Any:
    """The law's reference log-density r (exact, at the anchor of its heaviest piece): pieces are
    evaluated relative to it, so that huge log-densities keep their digits."""
    return to_iv(law._reference_top())


def _iv_integral(form: tuple[Any, Any, Any], left: Any, right: Any) -> Any:
    """Interval enclosure of ∫_left^right exp(A·(y − e) + C) dy on a finite or half-infinite
    piece."""
    A, e, C = form
    if _is_inf(left):
        return iv.exp(A * _sub(right, e) + C) / A
    if _is_inf(right):
        return iv.exp(A * _sub(left, e) + C) / (-A)
    if A.a == 0 and A.b == 0:
        return _sub(right, left) * iv.exp(C)
    return (iv.exp(A * _sub(right, e) + C) - iv.exp(A * _sub(left, e) + C)) / A


def _log_normalizer_rel(law: PiecewiseLogLinear) -> Any:
    """Interval enclosure of log ∫ exp(a·y + b − r) over all pieces (r: :func:`_reference`)."""
    total = iv.mpf(0)
    xb = law._exact_list()
    for i in range(len(law)):
        form = _anchored(law, i)
        if form is not None:
            total += _iv_integral(form, xb[i], xb[i + 1])
    return iv.log(total)


def certified_log_normalizer(law: PiecewiseLogLinear) -> Any:
    """Interval enclosure of log ∫ exp(a·y + b) over all pieces of ``law``."""
    _check_law(law, "law")
    with iv_precision(IV_DPS + _digits(law._reference_top())):
        return _reference(law) + _log_normalizer_rel(law)


def _log_density_form(law: PiecewiseLogLinear, left: Any, right: Any, log_z: Any):
    """(A, e, C − log Z) of the piece covering the cell (left, right) as intervals, from the
    unrounded parameters; None where the density is zero."""
    xb = law._exact_list()
    if left < xb[0] or right > xb[-1]:
        return None
    i = min(bisect.bisect_right(xb, left) - 1, len(law) - 1)
    form = _anchored(law, i)
    if form is None:
        return None
    A, e, C = form
    return A, e, C - log_z


def certified_max_log_ratio(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of ess sup log(p/q); ``iv.mpf('inf')`` where q vanishes under p."""
    _check_law(p, "p")
    _check_law(q, "q")
    with iv_precision():
        lzp, lzq = _log_normalizer_rel(p), _log_normalizer_rel(q)
        lo, hi = mpmath.mpf("-inf"), mpmath.mpf("-inf")
        for left, right in _merged_cells(p, q):
            fp = _log_density_form(p, left, right, lzp)
            if fp is None:
                continue
            fq = _log_density_form(q, left, right, lzq)
            if fq is None:
                return iv.mpf("inf")
            slope = fp[0] - fq[0]
            for y in (left, right):
                if _is_inf(y):
                    if slope.a == 0 and slope.b == 0:  # a constant ratio on a half-line
                        value = _at(fp, fq, None)
                    elif (y > 0 and slope.b < 0) or (y < 0 and slope.a > 0):
                        continue  # the ratio tends to 0 there
                    else:
                        return iv.mpf("inf")
                else:
                    value = _at(fp, fq, y)
                lo, hi = max(lo, value.a), max(hi, value.b)
        return iv.mpf([lo, hi])


def _at(fp: tuple[Any, Any, Any], fq: tuple[Any, Any, Any], y: Any) -> Any:
    """log p(y) − log q(y) as an interval (y None: the constant ratio of equal slopes)."""
    if y is None:
        # equal slopes: a·(y − e_p) + c_p − a·(y − e_q) − c_q = a·(e_q − e_p) + c_p − c_q
        return fp[0] * _sub(fq[1], fp[1]) + fp[2] - fq[2]
    return fp[0] * _sub(y, fp[1]) + fp[2] - (fq[0] * _sub(y, fq[1]) + fq[2])


def certified_privacy_loss(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of sup |log p − log q| (both directions)."""
    _check_law(p, "p")
    _check_law(q, "q")
    with iv_precision():
        a, b = certified_max_log_ratio(p, q), certified_max_log_ratio(q, p)
        return iv.mpf([max(a.a, b.a), max(a.b, b.b)])
