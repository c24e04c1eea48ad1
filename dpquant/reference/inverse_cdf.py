"""Vectorised inverse-CDF building blocks shared by the exact laws and the primitives.

Every function maps uniforms ``u`` in [0, 1] to draws, elementwise over numpy arrays, with no Python
loop per sample. The formulas are the stable forms of TRUNCATEDEXPONENTIAL (tzamos20 App. E.3,
Alg. 10, with the misplaced β corrected; ``notes/tzamos20.md``): they never form e^{a·y}, so any
finite rate works, from 5e-324 to 1.8e308, and every draw lies in the closed interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_positive, check_real, check_real_array

_TINY_RATE = 1e-12  # |a·w| below this: the truncated exponential is uniform to double precision
_BELOW_ONE = float(np.nextafter(1.0, 0.0))  # the largest double below 1

FLOAT_GRID_FRACTION = 2.0**-12
"""The float samplers of the primitives (:func:`dpquant.reference.primitives.laplace.sample_laplace`,
:mod:`dpquant.reference.primitives.truncated`) refuse parameters under which the float spacing where the
draws fall exceeds this fraction of the law's scale (its σ, 1/|rate|, or the interval's width):
rounding a draw to a float then moves any probability P(Y <= y) by less than 2^−13 ≈ 1.2e-4,
below what a conformance test of the largest sample (10^7 draws, DKW band ≈ 9e-4 at level 1e-7)
can see. Beyond it the draws fall on a grid coarse against the scale (Laplace(1, 1e-16) in floats
gives P(Y < loc) = 0.28 instead of 0.5)."""


def coarse_float_grid(reach: float, scale: float) -> bool:
    """True when the float spacing at magnitude ``reach`` (at least the smallest subnormal) exceeds
    :data:`FLOAT_GRID_FRACTION` times ``scale`` (> 0), or when ``reach`` is not finite."""
    reach, scale = check_real(reach, "reach"), check_positive(scale, "scale")
    if not np.isfinite(reach):
        return True
    with np.errstate(over="ignore"):  # the spacing at the largest float is inf: coarse
        return float(np.spacing(abs(float(reach)))) > scale * FLOAT_GRID_FRACTION


def _floats(x: Any, name: str, *, allow_inf: bool = False) -> np.ndarray:
    """``x`` as float64 (a float64 array is used as is: one NaN/inf pass, no copy)."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        bad = np.isnan(x) if allow_inf else ~np.isfinite(x)
        if bad.any():
            kind = "real" if allow_inf else "finite real"
            raise ParameterError(
                name,
                f"must hold {kind} numbers (no NaN{'' if allow_inf else ' or inf'})",
            )
        return x
    return check_real_array(x, name, allow_inf=allow_inf)


def _broadcast(arrays: list[np.ndarray], names: str) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ParameterError(names, "must broadcast to one shape", f"shapes {shapes}") from None


def _check_uniforms(u: np.ndarray) -> None:
    if u.size and (u.min() < 0.0 or u.max() > 1.0):
        raise ParameterError("u", "must hold uniforms in [0, 1]")


def exponential_offset_inverse(u: Any, a: Any, width: Any) -> np.ndarray:
    """Inverse CDF of the density ∝ exp(a·t) on [0, width], evaluated at ``u`` in [0, 1].

    Stable for any finite rate: for a < 0, t = log1p(u·expm1(a·w))/a; for a > 0,
    t = w + log1p((1 − u)·expm1(−a·w))/a (the same in the mirrored variable w − t, never
    overflowing, accurate when a·w is small); for |a·w| < 1e-12, t = u·w (uniform to double
    precision). ``width`` may be +inf when a < 0 (t = −log1p(−u)/|a|, an exponential law; u = 1
    is read as the largest double below 1, so the draw stays finite), and the mirrored case
    (a > 0, an infinite left end) is handled by :func:`truncated_exponential_inverse`. A tail
    whose draws overflow (37/|a| beyond the float range) raises ``ValueError``. The result lies in
    [0, width].
    """
    u = _floats(u, "u")
    a = _floats(a, "a")
    width = _floats(width, "width", allow_inf=True)
    u, a, width = _broadcast([u, a, width], "u, a and width")
    _check_uniforms(u)
    if width.size and width.min() < 0:
        raise ParameterError("width", "must be >= 0")
    infinite = np.isinf(width)
    if infinite.any():
        if not (a[infinite] < 0).all():
            raise ValueError("a must be < 0 where width is infinite (an exponential tail)")
        u = np.where(infinite, np.minimum(u, _BELOW_ONE), u)
    out = np.empty(u.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        aw = a * width
        flat = np.abs(aw) < _TINY_RATE
        neg = ~flat & (a < 0)
        pos = ~flat & (a > 0)
        out[flat] = u[flat] * width[flat]
        an, wn, un = a[neg], width[neg], u[neg]
        out[neg] = np.log1p(un * np.expm1(an * wn)) / an
        ap, wp, up = a[pos], width[pos], u[pos]
        out[pos] = wp + np.log1p((1.0 - up) * np.expm1(-ap * wp)) / ap
    # Guard the closed interval against the last-ulp rounding of log/expm1 (u = 0 with a > 0
    # gives w + log(0)/a = -inf, which is the left end 0).
    out = np.asarray(np.clip(out, 0.0, width))
    _check_tail_draws(out)
    return out


def _check_tail_draws(out: np.ndarray) -> None:
    """A draw on an infinite tail overflows only when 37/|a| (or the shift by the finite end)
    does not fit a float: refuse rather than return inf."""
    if not np.isfinite(out).all():
        raise ValueError(
            "a is too small for an infinite tail: its draws (up to 37/|a| from the finite end) "
            "overflow the float range"
        )


def truncated_exponential_inverse(u: Any, a: Any, left: Any, right: Any) -> np.ndarray:
    """Inverse CDF of the density ∝ exp(a·y) on [left, right] (tzamos20 Alg. 10, corrected),
    evaluated at ``u`` in [0, 1]; every draw lies in [left, right].

    The law does not depend on the intercept β of exp(a·y + β), which is why the stable form has
    no β at all. An infinite ``left`` needs a > 0 and an infinite ``right`` needs a < 0 (one
    infinite end at most); a finite interval needs left < right and a width right − left that
    fits a float.
    """
    u = _floats(u, "u")
    a = _floats(a, "a")
    left = _floats(left, "left", allow_inf=True)
    right = _floats(right, "right", allow_inf=True)
    u, a, left, right = _broadcast([u, a, left, right], "u, a, left and right")
    _check_uniforms(u)
    if not (left < right).all():
        raise ParameterError("left", "must be < right")
    left_inf = np.isneginf(left)
    right_inf = np.isposinf(right)
    if (left_inf & right_inf).any() or np.isposinf(left).any() or np.isneginf(right).any():
        raise ValueError("left and right must not both be infinite (one tail at most)")
    if not (a[left_inf] > 0).all():
        raise ValueError("a must be > 0 where left is -inf")
    if not (a[right_inf] < 0).all():
        raise ValueError("a must be < 0 where right is +inf")
    finite = ~left_inf & ~right_inf
    with np.errstate(over="ignore"):
        if not np.isfinite(right[finite] - left[finite]).all():
            raise ValueError("right - left must be a finite float (no overflow)")
    out = np.empty(u.shape, dtype=float)
    with np.errstate(over="ignore"):
        width = right - left  # inf on a tail
        flat = np.abs(a * np.where(np.isinf(width), 1.0, width)) < _TINY_RATE
    # Measure every draw from the end where the mass sits, so that a law concentrated within
    # 1e-300 of that end is not rounded onto it: for a > 0 (increasing density, including an
    # infinite left end) mirror y -> right − s, s ∝ exp(−a·s) on [0, width], at 1 − u (the map
    # stays increasing in u); for a <= 0 (and flat laws) y = left + s.
    rising = ((a > 0) & ~flat) | left_inf
    if rising.any():
        m = rising
        out[m] = right[m] - exponential_offset_inverse(1.0 - u[m], -a[m], width[m])
    m = ~rising
    if m.any():
        out[m] = left[m] + exponential_offset_inverse(u[m], a[m], width[m])
    out = np.asarray(np.clip(out, left, right))
    _check_tail_draws(out)
    return out


__all__ = [
    "FLOAT_GRID_FRACTION",
    "coarse_float_grid",
    "exponential_offset_inverse",
    "truncated_exponential_inverse",
]
