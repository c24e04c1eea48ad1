"""Vectorised inverse-CDF building blocks shared by the exact laws and the primitives.

Every function maps uniforms ``u`` in [0, 1) to draws, elementwise over numpy arrays, with no Python
loop per sample. The formulas are the stable forms of ``../shared/specs/tzamos20.md`` §2.7
(TRUNCATEDEXPONENTIAL of App. E.3 with the misplaced β corrected).
"""

from __future__ import annotations

import numpy as np

_TINY_RATE = 1e-12  # |a·w| below this: the truncated exponential is uniform to double precision


def exponential_offset_inverse(u: np.ndarray, a: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Inverse CDF of the density ∝ exp(a·t) on [0, width], evaluated at ``u``.

    Stable for any rate: for a < 0, t = log1p(u·expm1(a·w))/a; for a > 0,
    t = w + log(u + (1 − u)·exp(−a·w))/a (never overflows); for |a·w| tiny, t = u·w.
    ``width`` may be +inf when a < 0 (t = −log1p(−u)/|a|, an exponential law), and the mirrored
    case (a > 0, an infinite left end) is handled by :func:`truncated_exponential_inverse`.
    """
    u, a, width = np.broadcast_arrays(
        np.asarray(u, dtype=float), np.asarray(a, dtype=float), np.asarray(width, dtype=float)
    )
    out = np.empty(u.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        aw = a * width
        flat = np.abs(aw) < _TINY_RATE
        neg = ~flat & (a < 0)
        pos = ~flat & (a > 0)
        out[flat] = u[flat] * width[flat]
        an, wn, un = a[neg], width[neg], u[neg]
        out[neg] = np.log1p(un * np.expm1(an * wn)) / an
        ap, wp, up = a[pos], width[pos], u[pos]
        out[pos] = wp + np.log(up + (1.0 - up) * np.exp(-ap * wp)) / ap
    # Guard the closed interval against the last-ulp rounding of log/expm1.
    return np.clip(out, 0.0, width)


def truncated_exponential_inverse(
    u: np.ndarray, a: np.ndarray, left: np.ndarray, right: np.ndarray
) -> np.ndarray:
    """Inverse CDF of the density ∝ exp(a·y) on [left, right] (tzamos20 Alg. 10, corrected).

    The law does not depend on the intercept β of exp(a·y + β), which is why the stable form has
    no β at all. An infinite ``left`` needs a > 0 and an infinite ``right`` needs a < 0.
    """
    u, a, left, right = np.broadcast_arrays(
        np.asarray(u, dtype=float),
        np.asarray(a, dtype=float),
        np.asarray(left, dtype=float),
        np.asarray(right, dtype=float),
    )
    out = np.empty(u.shape, dtype=float)
    left_inf = np.isneginf(left)
    # Infinite left end: mirror y -> -y so the law is ∝ exp(-a·t) on [0, inf) measured from right.
    if left_inf.any():
        m = left_inf
        out[m] = right[m] - exponential_offset_inverse(1.0 - u[m], -a[m], np.inf)
    m = ~left_inf
    if m.any():
        out[m] = left[m] + exponential_offset_inverse(u[m], a[m], right[m] - left[m])
        out[m] = np.minimum(out[m], right[m])
    return out
