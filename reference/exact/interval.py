"""Certified privacy loss with interval arithmetic (``mpmath.iv``).

For two :class:`~reference.distributions.PiecewiseLogLinear` laws, every quantity of the exact
privacy loss (piece masses, normalisers, log-density differences at the merged breakpoints) is
recomputed from the laws' exact parameters (``exact_parameters``: Fractions and floats, never
rounded beforehand) in interval arithmetic at :data:`IV_DPS` digits. The result is an interval that
provably contains sup log(p/q); "verified ≤ ε" then means its upper end is ≤ ε.

Unlike the mpmath path, no piece is skipped in the normaliser, so certification costs O(pieces)
interval operations: meant for the small families of the exact audits.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from reference.distributions import PiecewiseLogLinear, _merged_cells

IV_DPS = 60


@contextmanager
def iv_precision(dps: int = IV_DPS) -> Iterator[None]:
    """Run interval arithmetic at ``dps`` digits (at least the current setting)."""
    saved = iv.dps
    iv.dps = max(saved, dps)
    try:
        yield
    finally:
        iv.dps = saved


def to_iv(x: Any) -> Any:
    """An interval that contains ``x`` exactly (a point for floats and ints)."""
    if isinstance(x, Fraction):
        return iv.mpf(x.numerator) / x.denominator
    if isinstance(x, mpmath.mpf):
        return iv.mpf(x)
    return iv.mpf(float(x)) if not isinstance(x, int) else iv.mpf(x)


def _is_neg_inf(x: Any) -> bool:
    return not isinstance(x, Fraction) and float(x) == float("-inf")


def _iv_integral(a: Any, b: Any, left: Any, right: Any) -> Any:
    """Interval enclosure of ∫_left^right exp(a·y + b) dy on a finite or half-infinite piece."""
    A, B = to_iv(a), to_iv(b)
    lo_inf = not isinstance(left, Fraction) and float(left) == float("-inf")
    hi_inf = not isinstance(right, Fraction) and float(right) == float("inf")
    if lo_inf:
        return iv.exp(A * to_iv(right) + B) / A
    if hi_inf:
        return iv.exp(A * to_iv(left) + B) / (-A)
    L, R = to_iv(left), to_iv(right)
    if a == 0:
        return (R - L) * iv.exp(B)
    return (iv.exp(A * R + B) - iv.exp(A * L + B)) / A


def certified_log_normalizer(law: PiecewiseLogLinear) -> Any:
    """Interval enclosure of log ∫ exp(a·y + b) over all pieces of ``law``."""
    with iv_precision():
        total = iv.mpf(0)
        for i in range(len(law)):
            left, right, a, b = law.exact_parameters(i)
            if not _is_neg_inf(b):
                total += _iv_integral(a, b, left, right)
        return iv.log(total)


def _log_density_form(law: PiecewiseLogLinear, left: Any, right: Any, log_z: Any):
    """(slope, intercept − log Z) of the piece covering the cell (left, right) as intervals, from
    the unrounded parameters; None where the density is zero."""
    xb = law._exact_list()
    if left < xb[0] or right > xb[-1]:
        return None
    i = min(bisect.bisect_right(xb, left) - 1, len(law) - 1)
    _, _, a, b = law.exact_parameters(i)
    if _is_neg_inf(b):
        return None
    return to_iv(a), to_iv(b) - log_z


def certified_max_log_ratio(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of ess sup log(p/q); ``iv.mpf('inf')`` where q vanishes under p."""
    with iv_precision():
        lzp, lzq = certified_log_normalizer(p), certified_log_normalizer(q)
        lo, hi = mpmath.mpf("-inf"), mpmath.mpf("-inf")
        for left, right in _merged_cells(p, q):
            fp = _log_density_form(p, left, right, lzp)
            if fp is None:
                continue
            fq = _log_density_form(q, left, right, lzq)
            if fq is None:
                return iv.mpf("inf")
            slope, const = fp[0] - fq[0], fp[1] - fq[1]
            for y in (left, right):
                if not isinstance(y, Fraction) and not mpmath.isfinite(float(y)):
                    if slope.a != 0 or slope.b != 0:
                        return iv.mpf("inf")
                    value = const
                else:
                    value = slope * to_iv(y) + const
                lo, hi = max(lo, value.a), max(hi, value.b)
        return iv.mpf([lo, hi])


def certified_privacy_loss(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Any:
    """Interval enclosure of sup |log p − log q| (both directions)."""
    with iv_precision():
        a, b = certified_max_log_ratio(p, q), certified_max_log_ratio(q, p)
        return iv.mpf([max(a.a, b.a), max(a.b, b.b)])
