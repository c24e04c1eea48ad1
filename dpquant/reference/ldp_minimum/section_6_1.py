"""Sec. 6.1 of fukuchi19 (synthetic data): the experiments' fixed data and the f(u) claim.

* :func:`beta_fixed_data`: the fixed data of the synthetic study, x_min + Δ·Beta(α, β) quantiles.
* :func:`section_6_1_f`, :func:`section_6_1_f_float`, :func:`section_6_1_series_coefficient`:
  f(u) = e^u(1 + e^u)/(e^u − 1)², for which the paper's f(u) <= 2/u² ("for ε small enough", used
  to discuss the error against ε) is false for every u > 0 (``notes/fukuchi19.md``, errata).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import MAX_POINTS, exact_real
from dpquant.reference.validation import check_finite, check_int, check_positive, check_real_array


def beta_fixed_data(n: int, alpha: Any, beta: Any, x_min: Any, width: Any) -> np.ndarray:
    """The fixed data of Sec. 6.1: F(x_(i)) = (i − 1)/(N − 1) (the fixed data setting, Sec. 3)
    with F the CDF of x_min + Δ·Beta(α, β), i.e. x_(i) = x_min + Δ·BetaPPF((i − 1)/(N − 1); α, β),
    clipped to [−1, 1] against rounding; N >= 2 (``notes/fukuchi19.md``, reproduction)."""
    n = check_int(n, "n", minimum=2, maximum=MAX_POINTS)
    alpha, beta = check_positive(alpha, "alpha"), check_positive(beta, "beta")
    x_min, width = check_finite(x_min, "x_min"), check_positive(width, "width")
    if x_min < -1 or x_min + width > 1 + 1e-12:
        raise ValueError(
            f"x_min and width: [x_min, x_min + width] must lie in [−1, 1], got "
            f"[{x_min}, {x_min + width}]"
        )
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # scipy's "root finding gave up"
            q = stats.beta.ppf(np.arange(n) / (n - 1), alpha, beta)
    except (OverflowError, FloatingPointError, ArithmeticError, RuntimeWarning):
        q = np.array([math.nan])
    if not np.all(np.isfinite(q)):
        raise ValueError(
            f"alpha and beta: scipy's Beta quantile function is not finite for "
            f"alpha = {alpha!r}, beta = {beta!r}"
        )
    return np.clip(x_min + width * q, -1.0, 1.0)


def section_6_1_f(u: Any) -> mpmath.mpf:
    """f(u) = e^u(1 + e^u)/(e^u − 1)² (Sec. 6.1), u > 0, at the working precision.

    The paper bounds f(u)^{1/(2α)} <= (2L²/ε²)^{1/(2α)}, i.e. f(u) <= 2/u² with u = ε/L. That is
    false for every u > 0: u²f(u) − 2 = g(u)/(e^u − 1)² with g(u) = u²(e^u + e^{2u}) − 2e^{2u} +
    4e^u − 2 = Σ_{n>=3} [n(n − 1) + 4 + 2^{n−2}(n(n − 1) − 8)]·u^n/n!, every coefficient > 0;
    f(u) = 2/u² + 1/u + 1/3 + u/12 + O(u³). Valid instead: f(u) <= K/u² for u <= u₀ with
    K = u₀²f(u₀) (u²f(u) is increasing).
    """
    with workdps():
        uu = to_mpf(exact_real(u, "u"))
        if not uu > 0:
            raise ParameterError("u", "must be > 0", u)
        return mpmath.exp(uu) * (1 + mpmath.exp(uu)) / mpmath.expm1(uu) ** 2


def section_6_1_f_float(u: Any) -> np.ndarray:
    """Vectorised f(u) = (1 + e^{−u})/expm1(−u)² (the same function, stable for large u)."""
    u = check_real_array(u, "u")
    if np.any(~(u > 0)):
        raise ParameterError("u", "must be > 0")
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        out = (1.0 + np.exp(-u)) / np.expm1(-u) ** 2
    if not np.all(np.isfinite(out)):
        raise ParameterError("u", "must be at least about 2e-154 (f(u) ≈ 2/u² must fit a float)")
    return out


def section_6_1_series_coefficient(n: int) -> Fraction:
    """The n-th Taylor coefficient of g(u) = u²(e^u + e^{2u}) − 2e^{2u} + 4e^u − 2:
    [n(n − 1) + 4 + 2^{n−2}(n(n − 1) − 8)]/n! for n >= 3, and 0 for n <= 2 (see section_6_1_f)."""
    n = check_int(n, "n", minimum=0, maximum=10_000)
    if n <= 2:
        return Fraction(0)
    return Fraction(n * (n - 1) + 4 + 2 ** (n - 2) * (n * (n - 1) - 8), math.factorial(n))


__all__ = [
    "beta_fixed_data",
    "section_6_1_f",
    "section_6_1_f_float",
    "section_6_1_series_coefficient",
]
