"""Lower bounds of fukuchi19: Theorem 1 (hardness), Theorem 3 with its construction, Theorem 7.

* **Theorem 1** (Sec. 5; proof in App. C.1, Eqs. 18–26): no ε-LDP mechanism estimates the minimum
  with o(1) error on every F. :func:`theorem_1_constant` is the explicit constant 1/(1 + e^ε)
  derived from the proof, on the neighbours of :func:`theorem_1_neighbours`.
* **Theorem 3** (Eq. 6; proof in App. C.3): for ε ∈ [0, 22/35] every ε-LDP mechanism has
  Err >= (1/8)(1/(16ε²N))^{1/(2α)} (Eq. 76; :func:`theorem_3_lower_bound`) on one of two α-fat
  distributions F, F′ (Eqs. 71–72 for α < 1, 77–78 for α >= 1; :func:`lower_bound_cdfs`) whose
  minima are 2δ apart (:func:`theorem_3_delta`, :func:`lower_bound_minima`) and whose total
  variation is (2δ)^α (Eqs. 73–75, 79–80; :func:`lower_bound_tv`, checked by quadrature in
  :func:`lower_bound_tv_quadrature`).
* **Theorem 7** (Eq. 70, quoted from Duchi et al. 2016): :func:`theorem_7_bound`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import MAX_POINTS, exact_real, positive_mp
from dpquant.reference.ldp_minimum.schedules import check_count
from dpquant.reference.validation import check_fraction, check_int, check_positive, check_real_array

THEOREM_3_MAX_EPSILON = Fraction(22, 35)
"""The largest ε Theorem 3 (and the quoted Theorem 7) covers: ε ∈ [0, 22/35]."""


QUADRATURE_ALPHA = (0.25, 10.0)
"""The α range where :func:`lower_bound_tv_quadrature` is accurate to about 1e-16 in absolute
terms (1e-30 for α >= 1/2; checked against :func:`lower_bound_tv`); the endpoint singularity
t^{α−1} defeats the quadrature for smaller α."""


def theorem_1_constant(epsilon: Any) -> mpmath.mpf:
    """1/(1 + e^ε): for every ε-DP output in [−1, 1], max(E|x̃ − 1| on X₀, E|x̃ + 1| on X₁)
    >= 1/(1 + e^ε), X₀ = (1, …, 1), X₁ = (−1, 1, …, 1) (from the proof of Theorem 1, Eqs. 18–26).

    With A = {x̃ <= 0}: E₀|x̃ − 1| >= P₀(A) >= e^{−ε}P₁(A) and E₁|x̃ + 1| >= 1 − P₁(A); the larger of
    e^{−ε}s and 1 − s is smallest at s = 1/(1 + e^{−ε}), where it equals 1/(1 + e^ε).
    """
    epsilon = check_positive(epsilon, "epsilon")
    with workdps():
        return 1 / (1 + mpmath.exp(to_mpf(epsilon)))


def theorem_1_neighbours(n: int) -> tuple[np.ndarray, np.ndarray]:
    """X₀ = (1, …, 1) and X₁ = (−1, 1, …, 1), the neighbours of Theorem 1's proof (N values)."""
    n = check_int(n, "n", minimum=1, maximum=MAX_POINTS)
    x0 = np.ones(n)
    x1 = np.ones(n)
    x1[0] = -1.0
    return x0, x1


def _theorem_3_inputs(epsilon: Any, n: int, alpha: Any) -> tuple[Fraction, int, mpmath.mpf]:
    eps = check_fraction(epsilon, "epsilon", positive=True)
    if eps > THEOREM_3_MAX_EPSILON:
        raise ParameterError("epsilon", "must lie in (0, 22/35] for Theorem 3", float(eps))
    n = check_count(n, "n")
    if 16 * eps**2 * n < 1:
        value = float(16 * eps**2 * n)
        raise ValueError(f"epsilon and n must satisfy 16·epsilon²·n >= 1 (2δ <= 1), got {value}")
    return eps, n, positive_mp(alpha, "alpha")


def theorem_3_delta(epsilon: Any, n: int, alpha: Any) -> mpmath.mpf:
    """δ = (16ε²N)^{−1/(2α)}/2, the separation used in the proof of Theorem 3 (before Eq. 76)."""
    eps, n, alpha = _theorem_3_inputs(epsilon, n, alpha)
    with workdps():
        return (to_mpf(16 * eps**2 * n)) ** (-1 / (2 * to_mpf(alpha))) / 2


def theorem_3_lower_bound(epsilon: Any, n: int, alpha: Any) -> mpmath.mpf:
    """(1/8)(1/(16ε²N))^{1/(2α)} (Eq. 76), for ε ∈ (0, 22/35] and 16ε²N >= 1 (ValueError else).

    = δ(1/2 − sqrt(Nε²TV²)) at δ = :func:`theorem_3_delta`, TV = (2δ)^α (Eq. 70).
    """
    eps, n, alpha = _theorem_3_inputs(epsilon, n, alpha)
    with workdps():
        return (to_mpf(16 * eps**2 * n)) ** (-1 / (2 * to_mpf(alpha))) / 8


def theorem_7_bound(delta: Any, n: int, epsilon: Any, tv: Any) -> mpmath.mpf:
    """|δ|(1/2 − sqrt(Nε²TV(F, F′)²)) (Theorem 7, Eq. 70, quoted from Duchi et al. 2016)."""
    n = check_count(n, "n")
    with workdps():
        d, e, t = (
            to_mpf(exact_real(v, name))
            for v, name in ((delta, "delta"), (epsilon, "epsilon"), (tv, "tv"))
        )
        if not e > 0:
            raise ParameterError("epsilon", "must be > 0", repr(epsilon))
        if not 0 <= t <= 1:
            raise ParameterError("tv", "must lie in [0, 1] (a total variation distance)", repr(tv))
        return abs(d) * (mpmath.mpf(1) / 2 - mpmath.sqrt(n * e**2 * t**2))


def _check_construction(alpha: Any, delta: Any) -> tuple[float, float]:
    alpha = check_positive(alpha, "alpha")
    delta = check_positive(delta, "delta")
    if delta >= 0.5:
        raise ParameterError("delta", "must lie in (0, 1/2) (so that −1 + 2δ < 0)", delta)
    return alpha, delta


def lower_bound_cdfs(
    alpha: Any, delta: Any
) -> tuple[Callable[[Any], np.ndarray], Callable[[Any], np.ndarray]]:
    """The pair (F, F′) of Theorem 3's proof, vectorised on [−1, 1] (right-continuous).

    F(x) = (x + 1)^α on [−1, 0], 1 after (Eqs. 71, 77); minimum −1. F′ has minimum −1 + 2δ:
    α < 1 (Eq. 72): (x + 1 − 2δ)^α on [−1 + 2δ, 2δ], 1 after; α >= 1 (Eq. 78):
    (x + 1)^α − (2δ)^α on [−1 + 2δ, 0), 1 from 0 on (an atom of mass (2δ)^α at 0). Both satisfy
    Definition 1 with C = 1 (for α >= 1 by superadditivity (a + b)^α >= a^α + b^α).
    """
    alpha, delta = _check_construction(alpha, delta)
    two_d = 2.0 * delta

    def f(x: Any) -> np.ndarray:
        x = check_real_array(x, "x", allow_inf=True)
        return np.where(x >= 0.0, 1.0, np.clip(x + 1.0, 0.0, 1.0) ** alpha)

    if alpha < 1:

        def f_prime(x: Any) -> np.ndarray:
            x = check_real_array(x, "x", allow_inf=True)
            inner = np.clip(x + 1.0 - two_d, 0.0, 1.0) ** alpha
            return np.where(x >= two_d, 1.0, np.where(x < -1.0 + two_d, 0.0, inner))

    else:

        def f_prime(x: Any) -> np.ndarray:
            x = check_real_array(x, "x", allow_inf=True)
            inner = np.clip(np.clip(x + 1.0, 0.0, 1.0) ** alpha - two_d**alpha, 0.0, 1.0)
            return np.where(x >= 0.0, 1.0, np.where(x < -1.0 + two_d, 0.0, inner))

    return f, f_prime


def lower_bound_minima(delta: Any) -> tuple[float, float]:
    """x_min of F and of F′ in Theorem 3's construction: −1 and −1 + 2δ, δ ∈ (0, 1/2)."""
    delta = check_positive(delta, "delta")
    if delta >= 0.5:
        raise ParameterError("delta", "must lie in (0, 1/2) (so that −1 + 2δ < 0)", delta)
    return -1.0, -1.0 + 2.0 * delta


def lower_bound_tv(alpha: Any, delta: Any) -> mpmath.mpf:
    """TV(F, F′) = (2δ)^α (Eqs. 75, 80); δ may be an mpf (e.g. :func:`theorem_3_delta`)."""
    al, d = positive_mp(alpha, "alpha"), positive_mp(delta, "delta")
    if not d < mpmath.mpf(1) / 2:
        raise ParameterError("delta", "must lie in (0, 1/2) (so that −1 + 2δ < 0)", delta)
    with workdps():
        return (2 * d) ** al


def lower_bound_tv_quadrature(alpha: Any, delta: Any) -> mpmath.mpf:
    """TV(F, F′) by quadrature: ½∫|f − f′| + ½·|atom differences| (checks Eqs. 73–75, 79–80).

    Densities f = α(x + 1)^{α−1} on (−1, 0); f′ = α(x + 1 − 2δ)^{α−1} on (−1 + 2δ, 2δ) for α < 1,
    f′ = α(x + 1)^{α−1} on (−1 + 2δ, 0) plus the atom (2δ)^α at 0 for α >= 1. Integrated in
    t = x + 1 (no cancellation in −1 + 2δ however small δ is), split at 0, 2δ, 1, 1 + 2δ
    (tanh-sinh handles the integrable endpoint singularities). α must lie in
    :data:`QUADRATURE_ALPHA`; the result is accurate to about 1e-16 in absolute terms (1e-30
    for α >= 1/2): a TV much smaller than that, e.g. at δ = 1e-300, is not resolved relatively.
    """
    alpha, delta = _check_construction(alpha, delta)
    lo_a, hi_a = QUADRATURE_ALPHA
    if not lo_a <= alpha <= hi_a:
        raise ParameterError(
            "alpha",
            f"must lie in [{lo_a}, {hi_a}] for the quadrature (use lower_bound_tv for the closed "
            "form)",
            repr(alpha),
        )
    with workdps():
        al, d2 = to_mpf(alpha), 2 * to_mpf(delta)
        one = mpmath.mpf(1)

        def dens_f(t: mpmath.mpf) -> mpmath.mpf:
            return al * t ** (al - 1) if 0 < t < 1 else mpmath.mpf(0)

        if alpha < 1:

            def dens_fp(t: mpmath.mpf) -> mpmath.mpf:
                return al * (t - d2) ** (al - 1) if d2 < t < 1 + d2 else mpmath.mpf(0)

            atoms = mpmath.mpf(0)
        else:

            def dens_fp(t: mpmath.mpf) -> mpmath.mpf:
                return al * t ** (al - 1) if d2 < t < 1 else mpmath.mpf(0)

            atoms = d2**al
        cuts = sorted({mpmath.mpf(0), d2, one, one + d2})
        integral = mpmath.fsum(
            mpmath.quad(lambda t: abs(dens_f(t) - dens_fp(t)), [lo, hi])
            for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)
        )
        return (integral + atoms) / 2


__all__ = [
    "QUADRATURE_ALPHA",
    "THEOREM_3_MAX_EPSILON",
    "lower_bound_cdfs",
    "lower_bound_minima",
    "lower_bound_tv",
    "lower_bound_tv_quadrature",
    "theorem_1_constant",
    "theorem_1_neighbours",
    "theorem_3_delta",
    "theorem_3_lower_bound",
    "theorem_7_bound",
]
