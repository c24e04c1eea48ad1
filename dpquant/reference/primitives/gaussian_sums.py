"""Rigorous sums of the Gaussian function over the integers: the normaliser, the tails and the
second moment of the discrete Gaussian N_ℤ(μ, σ²) of Canonne, Kamath and Steinke, "The Discrete
Gaussian for Differential Privacy" (NeurIPS 2020, arXiv:2004.00010; CKS20), Definition 1.

With g(x) = exp(−x²/(2σ²)) this module computes, each with a proved bound on what it leaves out:

* θ(m) = Σ_{k∈ℤ} g(k − m) for real m (:func:`gaussian_log_theta`): N_ℤ's normaliser is θ(0), and
  θ(αk) is the sum of the Rényi divergence of two discrete Gaussians (CKS20, Proposition 5);
* S(d) = Σ_{k>=d} g(k) for integer d (:func:`gaussian_tail`): the tails of N_ℤ;
* Σ_k k²·g(k)/θ(0) (:func:`gaussian_variance`): the variance of N_ℤ(0, σ²).

Every sum is returned with a bound on its relative error, which is at most
:data:`SUM_RELATIVE_ERROR` (10^−70: ten digits below the working precision) and is met by
construction: each loop stops at the first index where the bound holds, and a sum that could not
meet it raises ``ArithmeticError`` (never reached for σ² in the documented ranges; never a silent
approximation). The bounds, each proved in the docstring of the helper that uses it:

* **direct sums** stop where a geometric series dominates the rest: for a >= 0,
  Σ_{i>=0} g(a + i) <= g(a)/(1 − e^{−a/σ²}), since (a + i)² >= a² + 2ai;
* **the Poisson summation formula** (the Jacobi theta transformation):
  θ(m) = σ√(2π)·Σ_{j∈ℤ} e^{−2π²σ²j²}·cos(2πjm), whose terms beyond J sum to at most
  2e^{−2π²σ²(J+1)²}/(1 − e^{−4π²σ²(J+1)}) by the same geometric argument; it converges in a few
  terms for σ >= 1, where the direct sum needs ~18σ;
* **Euler–Maclaurin summation** for the tails at large σ (:func:`_tail_euler_maclaurin`).
"""

from __future__ import annotations

from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import DPS, to_mpf
from dpquant.reference.validation import check_int

_GUARD = 20  # extra decimal digits of the internal computations
SUM_RELATIVE_ERROR = mpmath.mpf(10) ** -(DPS + 10)
"""The relative error every sum of this module is computed to (10^−70 at 60 digits): each
returns its own proved bound, at most this."""

MAX_DIRECT_TERMS = 4096
"""Most terms of a direct tail sum; tails that need more (σ above ~200, within ~0.04σ² of the
centre) are summed by Euler–Maclaurin, whose remainder is bounded in closed form."""

_MAX_ORDER = 300  # most Euler–Maclaurin terms (about 60 suffice at the smallest σ that uses it)


def _guarded():
    """At least DPS + GUARD digits (more when a caller raised the precision)."""
    return mpmath.workdps(max(mpmath.mp.dps, DPS) + _GUARD)


def _check_sigma2(sigma2: Any) -> mpmath.mpf:
    value = to_mpf(sigma2, "sigma2")
    if not (mpmath.isfinite(value) and value > 0):
        raise ParameterError("sigma2", "must be a finite number > 0", str(sigma2))
    return value


def _unreached(what: str) -> ArithmeticError:
    return ArithmeticError(f"{what}: the error bound was not met (a bug: please report it)")


# --------------------------------------------------------------------------------------------
# θ(m) = Σ_k g(k − m)
# --------------------------------------------------------------------------------------------


def gaussian_log_theta(m: Any, sigma2: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """log θ(m), θ(m) = Σ_{k∈ℤ} exp(−(k − m)²/(2σ²)), with a bound on θ's relative error.

    θ(0) is the normaliser of CKS20's Definition 1; θ(m) <= θ(0) for every real m, with equality
    exactly at integers (from the Poisson form below: every cosine is 1 only there), which is
    the inequality of CKS20's Proposition 5.

    For σ² < 1 the sum is direct over |k − m0| <= K + 1/2, m0 = m − round(m) ∈ [−1/2, 1/2]:
    the terms with k >= K + 1 have k − m0 >= K + 1/2 =: a, so they sum to at most
    g(a)/(1 − e^{−a/σ²}), and likewise for k <= −K − 1; K grows until twice that is below
    :data:`SUM_RELATIVE_ERROR` times the partial sum (a lower bound of θ, all terms > 0).
    For σ² >= 1, the Poisson summation formula (module docstring) with the terms j <= J; the
    bracket 1 + 2Σ e^{−2π²σ²j²}cos(2πjm) is at least 1 − 5.4·10^−9, so the left-out tail
    bounds the relative error.

    Args:
        m: A real number (int, float, ``Fraction`` or mpf; reduced exactly modulo 1).
        sigma2: σ² > 0, finite.

    Returns:
        (log θ(m), a bound on the relative error of θ(m)), as mpf.

    Raises:
        ValueError: ``m`` or ``sigma2`` is not a finite real number (``sigma2`` > 0).
    """
    s2 = _check_sigma2(sigma2)
    with _guarded():
        mm = to_mpf(m, "m")
        if not mpmath.isfinite(mm):
            raise ParameterError("m", "must be a finite real number", str(m))
        m0 = mm - mpmath.nint(mm)
        if s2 < 1:
            return _log_theta_direct(m0, s2)
        return _log_theta_poisson(m0, s2)


def _log_theta_direct(m0: mpmath.mpf, s2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    half_rate = 1 / (2 * s2)
    total = mpmath.exp(-half_rate * m0**2)
    for k in range(1, 10_000):
        total += mpmath.exp(-half_rate * (k - m0) ** 2) + mpmath.exp(-half_rate * (k + m0) ** 2)
        a = k + mpmath.mpf(0.5)
        bound = 2 * mpmath.exp(-half_rate * a**2) / -mpmath.expm1(-a / s2)
        if bound <= SUM_RELATIVE_ERROR * total:
            return mpmath.log(total), bound / total
    raise _unreached("theta (direct)")  # pragma: no cover - K <= 19 for σ² < 1


def _log_theta_poisson(m0: mpmath.mpf, s2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    c = 2 * mpmath.pi**2 * s2  # >= 19.7
    series = mpmath.mpf(0)
    floor = 1 - 2 * mpmath.exp(-c) / -mpmath.expm1(-2 * c)  # bracket >= floor > 0
    for j in range(1, 1000):
        series += 2 * mpmath.exp(-c * j * j) * mpmath.cospi(2 * j * m0)
        bound = 2 * mpmath.exp(-c * (j + 1) ** 2) / -mpmath.expm1(-2 * c * (j + 1))
        if bound <= SUM_RELATIVE_ERROR * floor:
            log_theta = mpmath.log(2 * mpmath.pi * s2) / 2 + mpmath.log1p(series)
            return log_theta, bound / floor
    raise _unreached("theta (Poisson)")  # pragma: no cover - J <= 3 for σ² >= 1


# --------------------------------------------------------------------------------------------
# S(d) = Σ_{k>=d} g(k)
# --------------------------------------------------------------------------------------------


def gaussian_tail(d: Any, sigma2: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """S(d) = Σ_{k>=d} exp(−k²/(2σ²)) for an integer d, with a bound on its relative error.

    N_ℤ(μ, σ²) has P(X − μ >= d) = S(d)/θ(0). For d <= 0, S(d) = θ(0) − S(1 − d) (symmetry),
    where S(1 − d) <= θ(0)/2: no cancellation. For d >= 1, a direct sum when at most
    :data:`MAX_DIRECT_TERMS` terms reach the bound (:func:`_tail_direct`), else Euler–Maclaurin
    (:func:`_tail_euler_maclaurin`).

    Args:
        d: An integer.
        sigma2: σ² > 0, finite.

    Returns:
        (S(d), a bound on its relative error), as mpf.

    Raises:
        ValueError: ``d`` not an integer, or ``sigma2`` not a finite number > 0.
    """
    d = check_int(d, "d")
    s2 = _check_sigma2(sigma2)
    with _guarded():
        if d <= 0:
            log_theta, theta_err = gaussian_log_theta(0, s2)
            theta = mpmath.exp(log_theta)
            rest, rest_err = _tail_positive(1 - d, s2)
            value = theta - rest
            return value, (theta_err * theta + rest_err * rest) / value
        return _tail_positive(d, s2)


def _tail_positive(d: int, s2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """S(d) for d >= 1: direct if the geometric bound is reached within MAX_DIRECT_TERMS terms.

    The terms needed: the smallest n with g(d + n) <= tol·g(d), i.e. (d + n)² − d² >= 2σ²L with
    L = log(1/tol) (plus the geometric factor σ²/(d + n), log1p(σ²) at most)."""
    log_target = -mpmath.log(SUM_RELATIVE_ERROR) + mpmath.log1p(s2)
    needed = mpmath.sqrt(mpmath.mpf(d) ** 2 + 2 * s2 * log_target) - d
    if needed <= MAX_DIRECT_TERMS:
        return _tail_direct(d, s2)
    return _tail_euler_maclaurin(d, s2)


def _tail_direct(d: int, s2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Σ_{k>=d} g(k) term by term, g(k + 1) = g(k)·e^{−(2k+1)/(2σ²)} (the ratio itself updated
    by the factor e^{−1/σ²}); after the terms d .. k − 1 the rest is at most
    g(k)/(1 − e^{−k/σ²}) (module docstring), compared with the partial sum (a lower bound)."""
    g = mpmath.exp(-(mpmath.mpf(d) ** 2) / (2 * s2))
    ratio = mpmath.exp(-(2 * d + 1) / (2 * s2))
    step = mpmath.exp(-1 / s2)
    total = mpmath.mpf(0)
    k = d
    for _ in range(2 * MAX_DIRECT_TERMS + 64):
        total += g
        g, ratio, k = g * ratio, ratio * step, k + 1
        if g <= SUM_RELATIVE_ERROR * total:  # necessary for the bound below (g <= the rest)
            bound = g / -mpmath.expm1(-k / s2)
            if bound <= SUM_RELATIVE_ERROR * total:
                # each product has relative error <= 10^-(DPS+GUARD): add it per term
                rounding = 4 * (k - d) * mpmath.mpf(10) ** -(DPS + _GUARD)
                return total + bound / 2, (bound / 2) / total + rounding
    raise _unreached("tail (direct)")  # pragma: no cover - the choice of path bounds the terms


def _tail_euler_maclaurin(d: int, s2: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Σ_{k>=d} f(k), f(x) = exp(−x²/(2σ²)), by the Euler–Maclaurin formula with q terms
    (e.g. DLMF §2.10(i), with b → ∞ where f and its derivatives vanish):

        S(d) = ∫_d^∞ f + f(d)/2 − Σ_{j=1}^{q} B_{2j}/(2j)!·f^{(2j−1)}(d) + R_q,
        |R_q| <= 2ζ(2q)/(2π)^{2q}·∫_d^∞ |f^{(2q)}|,

    (the periodic Bernoulli function is bounded by |B_{2q}| = 2(2q)!ζ(2q)/(2π)^{2q}). With
    u = d/σ, ∫_d^∞ f = σ√(π/2)·erfc(u/√2) and f^{(n)}(x) = (−σ)^{−n}He_n(x/σ)f(x) (He the
    probabilists' Hermite polynomials, He_{n+1}(x) = x·He_n(x) − n·He_{n−1}(x)), so

        ∫_d^∞ |f^{(2q)}| = σ^{1−2q}·∫_u^∞ |He_{2q}(y)|e^{−y²/2} dy,

    bounded in one of two ways:

    * for u >= 2√(2q) the integrand has no sign change: every zero of He_n is an eigenvalue of
      the Jacobi matrix of the recurrence (zero diagonal, off-diagonal √1 .. √(n − 1)), so by
      Gershgorin's theorem lies in (−2√n, 2√n); and d/dy[He_{n−1}(y)e^{−y²/2}] = −He_n(y)e^{−y²/2}
      gives the integral exactly, He_{2q−1}(u)·e^{−u²/2};
    * otherwise Cauchy–Schwarz against the standard normal Z (E[He_n(Z)²] = n!):
      ∫_u^∞ |He_n|e^{−y²/2} <= √(2π)·√(n!)·√P(Z >= u).

    S(d) >= ∫_d^∞ f (f decreases on [d, ∞)) turns the bound into a relative one; q grows until
    it is below :data:`SUM_RELATIVE_ERROR`. Used only for σ above ~200 and u below ~0.05σ, where
    the terms fall by ~(u/(2πσ))² each."""
    sigma = mpmath.sqrt(s2)
    u = d / sigma
    f = mpmath.exp(-(u**2) / 2)
    upper_normal = mpmath.erfc(u / mpmath.sqrt(2)) / 2  # P(Z >= u)
    integral = sigma * mpmath.sqrt(2 * mpmath.pi) * upper_normal
    total = integral + f / 2
    he_prev, he = mpmath.mpf(1), u  # He_0(u), He_1(u)
    n = 1  # he = He_n(u)
    for q in range(1, _MAX_ORDER + 1):
        # term q: −B_{2q}/(2q)!·f^{(2q−1)}(d) = B_{2q}/(2q)!·σ^{1−2q}·He_{2q−1}(u)·f
        scale = sigma ** (1 - 2 * q)
        total += mpmath.bernoulli(2 * q) / mpmath.factorial(2 * q) * scale * he * f
        if u**2 >= 8 * q:
            tail_integral = scale * he * f
        else:
            tail_integral = scale * mpmath.sqrt(
                2 * mpmath.pi * mpmath.factorial(2 * q) * upper_normal
            )
        remainder = 2 * mpmath.zeta(2 * q) / (2 * mpmath.pi) ** (2 * q) * tail_integral
        if remainder <= SUM_RELATIVE_ERROR * integral:
            return total, remainder / integral
        for _ in range(2):  # He_{2q−1} -> He_{2q+1}
            he_prev, he = he, u * he - n * he_prev
            n += 1
    raise _unreached("tail (Euler-Maclaurin)")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# The variance Σ k² g(k)/θ(0)
# --------------------------------------------------------------------------------------------


def gaussian_variance(sigma2: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Var[N_ℤ(0, σ²)] = Σ_k k²·g(k)/θ(0), with a bound on its relative error.

    For σ² >= 1, by the Poisson summation formula applied to x²g(x) (whose Fourier transform
    is σ³√(2π)(1 − 4π²σ²ξ²)e^{−2π²σ²ξ²}) and to g,

        Var = σ²·(1 − 4c·S₁/(1 + 2S₀)),  c = 2π²σ², S₀ = Σ_{j>=1} e^{−cj²}, S₁ = Σ_{j>=1} j²e^{−cj²},

    which is below σ² (CKS20 show Var[N_ℤ(0, σ²)] < σ²; their variance corollary in §2); the
    terms j >= J + 1 of S₁ sum to at most (J+1)²e^{−c(J+1)²}/(1 − ρ), ρ = 4e^{−c(2J+3)}
    bounding the ratio of consecutive terms (likewise S₀). For σ² < 1, a direct sum
    2Σ_{k=1}^{K} k²g(k) whose terms beyond K sum to at most (K+1)²g(K+1)/(1 − ρ),
    ρ = ((K+2)/(K+1))²e^{−(2K+3)/(2σ²)}, divided by θ(0) (:func:`gaussian_log_theta`).

    Args:
        sigma2: σ² > 0, finite.

    Returns:
        (the variance, a bound on its relative error), as mpf.

    Raises:
        ValueError: ``sigma2`` not a finite number > 0.
    """
    s2 = _check_sigma2(sigma2)
    with _guarded():
        if s2 >= 1:
            c = 2 * mpmath.pi**2 * s2
            s0 = s1 = mpmath.mpf(0)
            for j in range(1, 1000):
                w = mpmath.exp(-c * j * j)
                s0, s1 = s0 + w, s1 + j * j * w
                rho = 4 * mpmath.exp(-c * (2 * j + 3))
                rest = (j + 1) ** 2 * mpmath.exp(-c * (j + 1) ** 2) / (1 - rho)
                # errors <= rest in S0 and S1 move the bracket (>= 1/2) by <= 12c·rest
                if 24 * c * rest <= SUM_RELATIVE_ERROR:
                    bracket = 1 - 4 * c * s1 / (1 + 2 * s0)
                    return s2 * bracket, 24 * c * rest
            raise _unreached("variance (Poisson)")  # pragma: no cover
        half_rate = 1 / (2 * s2)
        moment = mpmath.mpf(0)
        for k in range(1, 10_000):
            moment += 2 * k * k * mpmath.exp(-half_rate * k * k)
            rho = (mpmath.mpf(k + 2) / (k + 1)) ** 2 * mpmath.exp(-(2 * k + 3) * half_rate)
            rest = 2 * (k + 1) ** 2 * mpmath.exp(-half_rate * (k + 1) ** 2) / (1 - rho)
            if rho < 1 and rest <= SUM_RELATIVE_ERROR * moment:
                log_theta, theta_err = gaussian_log_theta(0, s2)
                return moment / mpmath.exp(log_theta), rest / moment + 2 * theta_err
        raise _unreached("variance (direct)")  # pragma: no cover


__all__ = [
    "MAX_DIRECT_TERMS",
    "SUM_RELATIVE_ERROR",
    "gaussian_log_theta",
    "gaussian_tail",
    "gaussian_variance",
]
