"""Certified privacy loss with interval arithmetic (``mpmath.iv``).

For two :class:`~dpquant.reference.distributions.PiecewiseLogLinear` laws, every quantity of the exact
privacy loss (piece masses, normalisers, log-density differences at the merged breakpoints) is
recomputed from the laws' exact parameters (``exact_parameters``: Fractions and floats, never
rounded beforehand) in interval arithmetic at :data:`dpquant.reference.exact.interval.IV_DPS` digits. The
result is an interval that provably contains sup log(p/q); "verified ≤ ε" then means its upper
end is ≤ ε.

Each piece is evaluated in its anchored form a·(y − e) + c (``notes/foundation.md``, "Exact laws"):
c = a·e + b is an exact rational when the parameters are rationals, else an interval computed at
a precision raised by the digits that a·e and b cancel; y − e is an exact rational. So a huge slope
times a huge breakpoint never widens the enclosure.

Unlike the mpmath path, no piece is skipped in the normaliser, so certification costs O(pieces)
interval operations: meant for the small families of the exact audits.
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpquant.errors import ParameterError
from dpquant.reference.distributions.cells import merged_cells
from dpquant.reference.distributions.piecewise import PiecewiseLogLinear
from dpquant.reference.exact.interval import (
    IV_DPS,
    is_infinite,
    iv_difference,
    iv_precision,
    product_digits,
    to_iv,
)

_IvForm = tuple[Any, Any, Any]  # (A, e, C): slope interval, exact anchor, log-density interval


def _check_law(law: Any, name: str) -> PiecewiseLogLinear:
    if not isinstance(law, PiecewiseLogLinear):
        raise ParameterError(name, "must be a PiecewiseLogLinear", type(law).__name__)
    return law


def _anchored(law: PiecewiseLogLinear, i: int) -> _IvForm | None:
    """(A, e, C) of piece ``i``: slope interval, exact anchor, interval of c − r with c = a·e + b
    its log-density at the anchor and r the law's reference log-density
    (:meth:`~dpquant.reference.distributions.PiecewiseLogLinear.reference_log_density`); None for a
    piece of zero density."""
    left, right, a, b = law.exact_parameters(i)
    if is_infinite(b):
        return None
    e, top = law.anchor(i)
    ref = law.reference_log_density()
    if isinstance(top, Fraction | int) and isinstance(ref, Fraction | int):
        return to_iv(a), e, to_iv(Fraction(top) - Fraction(ref))
    with iv_precision(IV_DPS + max(product_digits(a, e), product_digits(ref)) + 10):
        top_iv = to_iv(b) if a == 0 else to_iv(a) * to_iv(e) + to_iv(b)
        return to_iv(a), e, top_iv - to_iv(ref)


def _iv_integral(form: _IvForm, left: Any, right: Any) -> Any:
    """Interval enclosure of ∫_left^right exp(A·(y − e) + C) dy on a finite or half-infinite
    piece."""
    A, e, C = form
    if is_infinite(left):
        return iv.exp(A * iv_difference(right, e) + C) / A
    if is_infinite(right):
        return iv.exp(A * iv_difference(left, e) + C) / (-A)
    if A.a == 0 and A.b == 0:
        return iv_difference(right, left) * iv.exp(C)
    return (iv.exp(A * iv_difference(right, e) + C) - iv.exp(A * iv_difference(left, e) + C)) / A


def _log_normalizer_rel(law: PiecewiseLogLinear) -> Any:
    """Interval enclosure of log ∫ exp(a·y + b − r) over all pieces (r: the reference
    log-density)."""
    total = iv.mpf(0)
    xb = law.exact_breaks
    for i in range(len(law)):
        form = _anchored(law, i)
        if form is not None:
            total += _iv_integral(form, xb[i], xb[i + 1])
    return iv.log(total)


def certified_log_normalizer(law: PiecewiseLogLinear) -> Any:
    """Interval enclosure of the law's log-normaliser.

    Args:
        law: A piecewise log-linear law.

    Returns:
        An mpmath interval holding log ∫ exp(a·y + b) over all its pieces.
    """
    _check_law(law, "law")
    with iv_precision(IV_DPS + product_digits(law.reference_log_density())):
        return to_iv(law.reference_log_density()) + _log_normalizer_rel(law)


def _log_density_form(law: PiecewiseLogLinear, left: Any, right: Any, log_z: Any) -> _IvForm | None:
    """(A, e, C − log Z) of the piece covering the cell (left, right) as intervals, from the
    unrounded parameters; None where the density is zero."""
    xb = law.exact_breaks
    if left < xb[0] or right > xb[-1]:
        return None
    i = min(bisect.bisect_right(xb, left) - 1, len(law) - 1)
    form = _anchored(law, i)
    if form is None:
        return None
    A, e, C = form
    return A, e, C - log_z


def certified_max_log_ratio(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of ess sup log(p/q), one direction of the privacy loss.

    Args:
        p: A piecewise log-linear law.
        q: Another.

    Returns:
        An mpmath interval; ``iv.mpf('inf')`` where q vanishes under p.
    """
    _check_law(p, "p")
    _check_law(q, "q")
    with iv_precision():
        lzp, lzq = _log_normalizer_rel(p), _log_normalizer_rel(q)
        lo, hi = mpmath.mpf("-inf"), mpmath.mpf("-inf")
        for left, right in merged_cells(p, q):
            fp = _log_density_form(p, left, right, lzp)
            if fp is None:
                continue
            fq = _log_density_form(q, left, right, lzq)
            if fq is None:
                return iv.mpf("inf")
            slope = fp[0] - fq[0]
            for y in (left, right):
                if is_infinite(y):
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


def _at(fp: _IvForm, fq: _IvForm, y: Any) -> Any:
    """log p(y) − log q(y) as an interval (y None: the constant ratio of equal slopes)."""
    if y is None:
        # equal slopes: a·(y − e_p) + c_p − a·(y − e_q) − c_q = a·(e_q − e_p) + c_p − c_q
        return fp[0] * iv_difference(fq[1], fp[1]) + fp[2] - fq[2]
    return fp[0] * iv_difference(y, fp[1]) + fp[2] - (fq[0] * iv_difference(y, fq[1]) + fq[2])


def certified_privacy_loss(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of the privacy loss sup |log p − log q| (both directions).

    Args:
        p: A piecewise log-linear law.
        q: Another.

    Returns:
        An mpmath interval.
    """
    _check_law(p, "p")
    _check_law(q, "q")
    with iv_precision():
        a, b = certified_max_log_ratio(p, q), certified_max_log_ratio(q, p)
        return iv.mpf([max(a.a, b.a), max(a.b, b.b)])


__all__ = ["certified_log_normalizer", "certified_max_log_ratio", "certified_privacy_loss"]
