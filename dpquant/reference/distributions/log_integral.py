"""The exact integral of an exponential of a linear function, log ∫ exp(a·t + b) dt: the mass of
one piece of a piecewise log-linear density, in mpmath."""

from __future__ import annotations

import mpmath

from dpquant.reference.distributions.arithmetic import Number, affine_exact, diff, is_inf
from dpquant.reference.distributions.inputs import check_point, exact_real
from dpquant.reference.exact.mp import MP_INF, MP_NINF, to_mpf, workdps


def log_integral_mp(a: mpmath.mpf, b: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """log ∫_lo^hi exp(a·t + b) dt for mpf arguments (checked by the caller): -inf when b = -inf
    or lo >= hi, +inf where the integral diverges. On a finite interval the two ends are combined
    with ``expm1`` around the larger end, so a steep or a narrow piece keeps its digits."""
    if b == MP_NINF or not lo < hi:
        return MP_NINF
    if mpmath.isinf(lo) or mpmath.isinf(hi):
        if mpmath.isinf(lo) and mpmath.isinf(hi):
            return MP_INF
        if mpmath.isinf(hi):
            if a >= 0:
                return MP_INF
            return a * lo + b - mpmath.log(-a)
        if a <= 0:
            return MP_INF
        return a * hi + b - mpmath.log(a)
    w = hi - lo
    if a == 0:
        return b + mpmath.log(w)
    if a > 0:
        return a * hi + b + mpmath.log(-mpmath.expm1(-a * w)) - mpmath.log(a)
    return a * lo + b + mpmath.log(-mpmath.expm1(a * w)) - mpmath.log(-a)


def log_integral_exp_linear(a: Number, b: Number, left: Number, right: Number) -> mpmath.mpf:
    """Exact log ∫_left^right exp(a·y + b) dy (mpmath).

    Args:
        a: The slope, finite.
        b: The intercept, finite or -inf.
        left: The left end, real (±inf allowed).
        right: The right end, likewise.

    Returns:
        The log-integral: +inf where the integral diverges, -inf when left >= right or
            b = -inf.

    Raises:
        ValueError: NaN or a non-number.
    """
    a = exact_real(a, "a", fit=False)
    b = exact_real(b, "b", neg_inf=True, fit=False)
    left = check_point(left, "left")
    right = check_point(right, "right")
    with workdps():
        if is_inf(b) or not left < right:
            return MP_NINF
        if is_inf(left) or is_inf(right):
            return log_integral_mp(to_mpf(a), to_mpf(b), to_mpf(left), to_mpf(right))
        # anchored at the end where a·y is largest: a·(y − e) + (a·e + b), exact
        e = right if a > 0 else left
        top = to_mpf(affine_exact(a, e, b))
        return log_integral_mp(to_mpf(a), top, diff(left, e), diff(right, e))


__all__ = ["log_integral_exp_linear", "log_integral_mp"]
