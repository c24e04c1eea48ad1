"""α-fatness (Definition 1) of fukuchi19: the constants of Examples 1 and 2 (App. A).

F is α-fat when F(x) >= C(x − x_min)^α for x_min < x < x̄ (Definition 1).

* **Example 1** (Beta): F the CDF of x_min + (x_max − x_min)·Beta(α, β) is α-fat with x̄ = x_max
  and C = min{1, (αB(α, β))^{−1}}/(x_max − x_min)^α; the paper prints max, which is wrong
  (:func:`beta_fatness_constant`, with the printed form as an option; :func:`beta_cdf_exact`).
* **Example 2** (truncated normal): α = 1 and C = min{φ(a), φ(b)}/(σ(Φ(b) − Φ(a))) with the
  parenthesis the paper drops (:func:`truncated_normal_fatness_constant`, :func:`normal_mass`).

Both errata, with their tests, are in ``notes/fukuchi19.md``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import exact_real, finite_mp
from dpquant.reference.validation import (
    check_choice,
    check_finite,
    check_fraction,
    check_positive,
    check_real,
)

BETA_FORMS = ("min", "paper_max")
"""Example 1's constant: ``"min"`` (correct) or ``"paper_max"`` (as printed)."""
MAX_BETA_SHAPE = 1000
"""The largest Beta shape :func:`beta_cdf_exact` accepts (mpmath's incomplete Beta function)."""


def beta_fatness_constant(alpha: Any, beta: Any, width: Any = 1.0, form: str = "min") -> mpmath.mpf:
    """C of Example 1 for x_min + width·Beta(α, β): min{1, (αB(α, β))^{−1}}/width^α (x̄ = x_max).

    ``form="paper_max"`` gives the printed max{1, (αB(α, β))^{−1}}/width^α, which is wrong:
    inf_{0<y<=1} I_y(α, β)/y^α = min{1, 1/(αB)} because I_y/y^α = (1/B)∫₀¹s^{α−1}(1 − ys)^{β−1}ds is
    monotone in y (1/(αB) at y → 0, 1 at y = 1). Counterexample to max: α = 1, β = 2,
    F(y) = 2y − y² < 2y.
    """
    alpha, beta = check_positive(alpha, "alpha"), check_positive(beta, "beta")
    width = check_positive(width, "width")
    check_choice(form, "form", BETA_FORMS)
    with workdps():
        al = to_mpf(alpha)
        inv = 1 / (al * mpmath.beta(al, to_mpf(beta)))
        top = mpmath.mpf(1)
        value = min(top, inv) if form == "min" else max(top, inv)
        return finite_mp(value / to_mpf(width) ** al, "alpha, beta, width")


def beta_cdf_exact(y: Any, alpha: Any, beta: Any) -> mpmath.mpf:
    """I_y(α, β), the Beta(α, β) CDF at y ∈ [0, 1], at the working precision."""
    alpha, beta = check_positive(alpha, "alpha"), check_positive(beta, "beta")
    if max(alpha, beta) > MAX_BETA_SHAPE:
        raise ValueError(
            f"alpha and beta must be at most {MAX_BETA_SHAPE} here (mpmath's incomplete Beta "
            f"function does not converge in reasonable time beyond), got ({alpha!r}, {beta!r})"
        )
    with workdps():
        yy = to_mpf(exact_real(y, "y"))
        if not 0 <= yy <= 1:
            raise ParameterError("y", "must lie in [0, 1]", y)
        try:
            value = mpmath.betainc(to_mpf(alpha), to_mpf(beta), 0, yy, regularized=True)
        except (mpmath.libmp.NoConvergence, ValueError, ZeroDivisionError):
            raise ValueError(
                f"y, alpha, beta: mpmath's incomplete Beta function does not converge at "
                f"({y!r}, {alpha!r}, {beta!r})"
            ) from None
        return finite_mp(value, "y, alpha, beta")


def _erfc(z: mpmath.mpf) -> mpmath.mpf:
    """erfc(z) at the working precision, also for |z| beyond mpmath's own range: for z > 10^8
    the asymptotic series e^{−z²}/(z√π)·Σ_k (−1)^k (2k − 1)!!/(2z²)^k (each term 10^-16 times
    the previous: eight terms exceed 60 digits); erfc(−z) = 2 − erfc(z)."""
    if mpmath.isinf(z):
        return mpmath.mpf(0) if z > 0 else mpmath.mpf(2)
    if abs(z) <= 10**8:
        return mpmath.erfc(z)
    if z < 0:
        return 2 - _erfc(-z)
    x = 1 / (2 * z * z)
    series, term = mpmath.mpf(0), mpmath.mpf(1)
    for k in range(8):
        series += term
        term *= -(2 * k + 1) * x
    return mpmath.exp(-z * z) / (z * mpmath.sqrt(mpmath.pi)) * series


def _mp_real(x: Any, name: str) -> mpmath.mpf:
    """A real number (±inf allowed, no NaN) as an mpf: mpf kept, others checked."""
    if isinstance(x, mpmath.mpf):
        if mpmath.isnan(x):
            raise ParameterError(name, "must be a real number", "nan")
        return x
    if isinstance(x, Fraction):
        return to_mpf(check_fraction(x, name))
    return to_mpf(check_real(x, name))


def normal_mass(a: Any, b: Any) -> mpmath.mpf:
    """Φ(b) − Φ(a) for a <= b without cancellation in either tail (erfc on the far side)."""
    with workdps():
        a, b = _mp_real(a, "a"), _mp_real(b, "b")
        if a > b:
            raise ValueError(f"a and b: need a <= b, got a = {a}, b = {b}")
        r2 = mpmath.sqrt(2)
        if a >= 0:
            return (_erfc(a / r2) - _erfc(b / r2)) / 2
        if b <= 0:
            return (_erfc(-b / r2) - _erfc(-a / r2)) / 2
        return 1 - (_erfc(-a / r2) + _erfc(b / r2)) / 2


def truncated_normal_fatness_constant(mu: Any, sigma: Any, x_min: Any, x_max: Any) -> mpmath.mpf:
    """C of Example 2: min{φ(a), φ(b)}/(σ(Φ(b) − Φ(a))), a = (x_min − μ)/σ, b = (x_max − μ)/σ,
    with α = 1 and x̄ = x_max (the paper drops a parenthesis). The truncated normal density is
    unimodal, so its minimum over [x_min, x_max] is at an end: F(x) >= C(x − x_min)."""
    mu, sigma = check_finite(mu, "mu"), check_positive(sigma, "sigma")
    lo, hi = check_finite(x_min, "x_min"), check_finite(x_max, "x_max")
    if not lo < hi:
        raise ParameterError("x_min", "must be < x_max", f"({lo}, {hi})")
    with workdps():
        a = (to_mpf(lo) - to_mpf(mu)) / to_mpf(sigma)
        b = (to_mpf(hi) - to_mpf(mu)) / to_mpf(sigma)
        mass = normal_mass(a, b)
        if not mass > 0:
            raise ValueError("mu, sigma, x_min, x_max: the truncation interval has no mass")
        value = min(mpmath.npdf(a), mpmath.npdf(b)) / (to_mpf(sigma) * mass)
        return finite_mp(value, "mu, sigma, x_min, x_max")


__all__ = [
    "BETA_FORMS",
    "MAX_BETA_SHAPE",
    "beta_cdf_exact",
    "beta_fatness_constant",
    "normal_mass",
    "truncated_normal_fatness_constant",
]
