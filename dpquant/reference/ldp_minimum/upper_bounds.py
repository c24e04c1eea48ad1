"""Theorems 4 and 5 of fukuchi19: the upper bounds on Algorithm 2's error (Eqs. 7–11, 41–46).

Notation: u = ε/L, a = e^u, e_γ = exp(−(a − 1)²γ²N/(4(a + 1)a)) (the Lemma 2 bound at distance
γ, :mod:`.concentration`), F α-fat with constants C and x̄ (Definition 1), and the rising
factorial (x)^{s↑} = Γ(x + s)/Γ(x).

* **Theorem 4** (fixed data, Eq. 8) and **Theorem 5** (i.i.d. data, Eq. 10), under
  2γ < C(x̄ − x_min)^α (Eqs. 7, 9; :func:`theorem_4_condition`), as printed
  (:func:`theorem_4_bound_printed`, :func:`theorem_5_bound_printed`) and corrected
  (:func:`theorem_4_bound_corrected`, :func:`theorem_5_bound_corrected`). Both printed forms are
  false because Lemma 1 is (:mod:`.search_error`); the counterexamples are in
  ``notes/fukuchi19.md`` (errata).
* **Eqs. 45–46** (:func:`beta_order_statistic_moment`, E[U_(k)^{1/α}] for a uniform order
  statistic), **Eq. 11** (:func:`eq_11_ratio`) and :func:`rising_factorial`.

The corrected statements (proofs in the functions' docstrings):

* Theorem 4′ (fixed data, N >= 2, 0 < 2γ <= 1, x_(⌈2γN⌉) <= x̄, e.g. x̄ the support maximum as
  in Example 1): Err <= 2(2γN/((N − 1)C))^{1/α} + 2^{−L} + 2(1 − (1 − e_γ)^L).
* Theorem 5′ (i.i.d. data, 0 < 2γ <= 1, F(x) >= C(x − x_min)^α on the whole support, i.e. x̄
  the support maximum): Err <= 2C^{−1/α}(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑} + 2^{−L}
  + 2(1 − (1 − e_γ)^L).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import DPS, to_mpf, workdps
from dpquant.reference.ldp_minimum.bound_inputs import (
    exact_real,
    finite_mp,
    positive_mp,
    rounds_factor,
)
from dpquant.reference.ldp_minimum.round_statistic import Exact
from dpquant.reference.ldp_minimum.schedules import check_count
from dpquant.reference.ldp_minimum.search_error import far_mistake_term
from dpquant.reference.validation import check_finite, check_fraction, check_int, check_positive


def _rf_ratio(k: Any, m: Any, s: mpmath.mpf) -> mpmath.mpf:
    """(k)^{s↑}/(m)^{s↑} = Γ(k + s)Γ(m)/(Γ(k)Γ(m + s)), at a precision that keeps k + s and
    m + s exact however large s is (s <= 2·10^323, so at most ~390 digits)."""
    extra = max(0, int(mpmath.log10(s))) if s > 1 else 0
    with mpmath.workdps(DPS + extra + 10):
        value = mpmath.rf(k, s) / mpmath.rf(m, s)
    with workdps():
        return +value


def theorem_4_condition(gamma: Any, c: Any, alpha: Any, x_bar_minus_x_min: Any) -> bool:
    """Eq. 7 (= Eq. 9): 2γ < C(x̄ − x_min)^α, at the working precision."""
    g, cc = positive_mp(gamma, "gamma"), positive_mp(c, "c")
    al, span = positive_mp(alpha, "alpha"), positive_mp(x_bar_minus_x_min, "x_bar_minus_x_min")
    with workdps():
        return bool(2 * g < cc * span**al)


def _theorem_inputs(
    gamma: Any, c: Any, alpha: Any, n: int
) -> tuple[Fraction, mpmath.mpf, mpmath.mpf, int]:
    g = check_fraction(gamma, "gamma", positive=True)
    return g, positive_mp(c, "c"), positive_mp(alpha, "alpha"), check_count(n, "n")


def _e_gamma(n: int, g: Fraction, a: Exact) -> mpmath.mpf:
    """e_γ for the per-round factor a = e^u (exact rational or mpf), at the working precision."""
    with workdps():
        a = to_mpf(a)
        return mpmath.exp(-((a - 1) ** 2) * to_mpf(g) ** 2 * n / (4 * (a + 1) * a))


def theorem_4_bound_printed(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Theorem 4 as printed (Eq. 8): 2(2γ/C)^{1/α} + e_γ + 2^{−L}, u = ε/L.

    False in general (``notes/fukuchi19.md``, errata: Theorem 4): N = 2, Beta(0.5, 1), Δ = 0.02, data (0.98, 1.0), L = 8, ε = 1,
    γ = 0.3033 gives Err = 1.414 > 1.018. Use :func:`theorem_4_bound_corrected`.
    """
    g, c, alpha, n = _theorem_inputs(gamma, c, alpha, n)
    a = rounds_factor(levels, epsilon, exp_u)
    with workdps():
        e = _e_gamma(n, g, a)
        first = 2 * (2 * to_mpf(g) / to_mpf(c)) ** (1 / to_mpf(alpha))
        return finite_mp(first + e + mpmath.mpf(2) ** -levels, "gamma, c, alpha")


def theorem_4_bound_corrected(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Corrected Theorem 4 (``notes/fukuchi19.md``, errata): 2(2γN/((N − 1)C))^{1/α} + 2^{−L} + 2(1 − (1 − e_γ)^L).

    Valid for fixed data x_(i) = F*((i − 1)/(N − 1)), N >= 2, 0 < 2γ <= 1 (implied by Eq. 7) and
    x_(⌈2γN⌉) <= x̄ (always when x̄ is the support maximum, as in Example 1; in general implied by
    2γN/(N − 1) <= C(x̄ − x_min)^α). Proof: with q = x_(⌈γN⌉), q₂ = x_(⌈2γN⌉) and
    δ = max(q₂ − q, q − x_(1)), every τ with |τ − q| > δ has F̃(τ) >= 2γ or F̃(τ) = 0, so a far
    mistake there has conditional probability <= e_γ (Lemma 2, Eqs. 15–16, also for ">=");
    corrected Lemma 1 (:mod:`.search_error`) gives E|x̃ − q| <= δ + 2^{−L} + 2(1 − (1 − e_γ)^L); and
    |q − x_(1)| + δ <= 2(q₂ − x_(1)) <= 2(((⌈2γN⌉ − 1)/(N − 1))/C)^{1/α} by α-fatness.
    """
    g, c, alpha, n = _theorem_inputs(gamma, c, alpha, n)
    if n < 2:
        raise ParameterError("n", "must be an integer >= 2 (fixed data need N >= 2)", n)
    a = rounds_factor(levels, epsilon, exp_u)
    with workdps():
        e = _e_gamma(n, g, a)
        ratio = to_mpf(2 * g * n) / (to_mpf(n - 1) * to_mpf(c))
        first = 2 * ratio ** (1 / to_mpf(alpha))
        total = first + mpmath.mpf(2) ** -levels + far_mistake_term(e, levels)
        return finite_mp(total, "gamma, c, alpha")


def rising_factorial(x: Any, a: Any) -> mpmath.mpf:
    """(x)^{a↑} = Γ(x + a)/Γ(x) (Theorem 5's notation), x > 0, at the working precision."""
    x, a = check_positive(x, "x"), check_finite(a, "a")
    with workdps():
        return finite_mp(mpmath.rf(to_mpf(x), to_mpf(a)), "x, a (a pole of Γ(x + a))")


def _order_index(gamma: Fraction, n: int, factor: int) -> int:
    """⌈factor·γ·N⌉ exactly (γ read as its exact binary value)."""
    return math.ceil(factor * gamma * n)


def beta_order_statistic_moment(k: int, n: int, alpha: Any) -> mpmath.mpf:
    """E[U_(k)^{1/α}] for the k-th of N uniform order statistics, U_(k) ~ Beta(k, N − k + 1):
    B(k + 1/α, N − k + 1)/B(k, N − k + 1) = Γ(k + 1/α)Γ(N + 1)/(Γ(N + 1 + 1/α)Γ(k))
    = (k)^{(1/α)↑}/(N + 1)^{(1/α)↑} (Eqs. 45–46)."""
    n = check_count(n, "n")
    k = check_int(k, "k", minimum=1)
    if k > n:
        raise ParameterError("k", f"must lie in [1, {n}]", k)
    alpha = positive_mp(alpha, "alpha")
    with mpmath.workdps(400):
        s = 1 / to_mpf(alpha)
    return _rf_ratio(k, n + 1, s)


def _theorem_5_terms(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, epsilon: Any, exp_u: Any
) -> tuple[mpmath.mpf, Any]:
    """(2C^{−1/α}(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑}, e_γ): the two terms Eq. 10 and its
    correction share (Eqs. 41–46)."""
    g, c, alpha, n = _theorem_inputs(gamma, c, alpha, n)
    j = _order_index(g, n, 2)
    if j > n:
        raise ParameterError("gamma", "must satisfy ⌈2γN⌉ <= N (2γ <= 1)", f"⌈2γN⌉ = {j} > N = {n}")
    a = rounds_factor(levels, epsilon, exp_u)
    with workdps():
        e = _e_gamma(n, g, a)
        first = 2 * to_mpf(c) ** (-1 / to_mpf(alpha)) * beta_order_statistic_moment(j, n, alpha)
    return first, e


def theorem_5_bound_printed(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Theorem 5 as printed (Eq. 10, without its stray ")"):
    2(1/C)^{1/α}·(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑} + e_γ + 2^{−L}. False in general (Lemma 1)."""
    first, e = _theorem_5_terms(gamma, c, alpha, n, levels, epsilon, exp_u)
    with workdps():
        return finite_mp(first + e + mpmath.mpf(2) ** -levels, "gamma, c, alpha")


def theorem_5_bound_corrected(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Corrected Theorem 5: 2C^{−1/α}(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑} + 2^{−L} + 2(1 − (1 − e_γ)^L).

    Valid for i.i.d. data when 0 < 2γ <= 1 and F(x) >= C(x − x_min)^α on the whole support (x̄ the
    support maximum, as in Example 1). Same proof as :func:`theorem_4_bound_corrected`, conditional
    on the data, then E[q₂ − x_min] = E[F*(U_(⌈2γN⌉)) − x_min] <= C^{−1/α}E[U_(⌈2γN⌉)^{1/α}]
    (Eqs. 41–46). With a smaller x̄ add 2(x_sup − x_min)·P{U_(⌈2γN⌉) >= C(x̄ − x_min)^α}: Eq. 44 needs
    F*(U) < x̄, which fails with positive probability.
    """
    first, e = _theorem_5_terms(gamma, c, alpha, n, levels, epsilon, exp_u)
    with workdps():
        total = first + mpmath.mpf(2) ** -levels + far_mistake_term(e, levels)
        return finite_mp(total, "gamma, c, alpha")


def eq_11_ratio(gamma: Any, n: int, alpha: Any) -> mpmath.mpf:
    """(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑}·((N + 1)/(2γN))^{1/α} (Eq. 11; → 1 when γ = ω(1/N)).

    γ may be an mpf (e.g. N^{−1/2} at the working precision) or anything exact; ⌈2γN⌉ is taken at
    the working precision.
    """
    n = check_count(n, "n")
    alpha = positive_mp(alpha, "alpha")
    with workdps():
        g = to_mpf(exact_real(gamma, "gamma"))
        if not g > 0:
            raise ParameterError("gamma", "must be > 0", gamma)
        j = int(mpmath.ceil(2 * g * n))
    with mpmath.workdps(400):
        s = 1 / to_mpf(alpha)
    ratio = _rf_ratio(j, n + 1, s)
    with workdps():
        ratio = ratio * ((n + 1) / (2 * g * n)) ** s
        return finite_mp(ratio, "gamma, n, alpha")


__all__ = [
    "beta_order_statistic_moment",
    "eq_11_ratio",
    "rising_factorial",
    "theorem_4_bound_corrected",
    "theorem_4_bound_printed",
    "theorem_4_condition",
    "theorem_5_bound_corrected",
    "theorem_5_bound_printed",
]
