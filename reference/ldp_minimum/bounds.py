"""The analytic statements of fukuchi19, as printed and corrected (spec §3, §5, §6).

Every function cites the equation it implements. Exact values are ``Fraction`` (rational e^u) or
mpmath at :data:`reference.exact.mp.DPS` digits; a few float versions are vectorised numpy.
Notation (spec §3): u = ε/L is the per-round budget, a = e^u, p = a/(1 + a), c = (a + 1)/(a − 1),
F̃(τ) = k/N with k = #{x_i <= τ}, q = F̃*(γ) = x_(⌈γN⌉), and

    e_γ = exp(−(a − 1)²γ²N / (4(a + 1)a))          (the Lemma 2 tail at distance γ).

Contents:

* **Lemma 2** (Eqs. 15–16): :func:`lemma_2_bound`, the exact tails of Φ′ (:func:`phi_tail_exact`,
  events ">", ">=", "<", "<=") and Hoeffding's bound exp(−2N(F̃ − γ)²/c²)
  (:func:`hoeffding_bound`), which is never weaker: its exponent is 8a/(a + 1) >= 4 times larger.
* **Theorem 4** (Eq. 8, fixed data) and **Theorem 5** (Eq. 10, i.i.d. data), as printed and
  corrected (:func:`theorem_4_bound_printed`, :func:`theorem_4_bound_corrected`,
  :func:`theorem_5_bound_printed`, :func:`theorem_5_bound_corrected`); both printed forms are
  false (spec §3) because Lemma 1 is.
* **Lemma 1** (Eq. 14): :func:`lemma_1_report` computes, by the exact tree, E|x̃ − q|, the printed
  right-hand side for a given δ, and the corrected one; :func:`lemma_1_printed_infimum` minimises the
  printed right-hand side over δ > 0.
* **Theorem 3** (Eq. 76) with the constructions F, F′ of Eqs. 71–72 / 77–78 and their TV
  (Eqs. 73–75, 79–80); **Theorem 7** (Eq. 70) as quoted.
* **Theorem 1**: the explicit constant 1/(1 + e^ε) derived from its proof.
* **Example 1** (Beta: ``min`` is right, the paper prints ``max``), **Example 2** (truncated
  normal), **Eqs. 45–46** (E[U_(k)^{1/α}]), **Eq. 11** (the rising-factorial ratio) and
  **Sec. 6.1**'s f(u) = e^u(1 + e^u)/(e^u − 1)², for which the paper's f(u) <= 2/u² is false for
  every u > 0.

The corrected statements (derived in the docstrings; spec §3 and /tmp/notes_bounds.md):

* Lemma 1′: for 0 < γ <= 1 and every δ >= 0,
  E|x̃ − q| <= δ + 2^{−L} + 2·P(some far mistake) <= δ + 2^{−L} + 2(1 − (1 − π_δ)^L), where a far
  mistake is a round whose τ_t has |τ_t − q| > δ and whose decision moves away from q, and π_δ is
  the largest conditional probability of such a mistake over the reachable τ.
* Theorem 4′ (fixed data, N >= 2, 0 < 2γ <= 1, x_(⌈2γN⌉) <= x̄, e.g. x̄ the support maximum as in
  Example 1): Err <= 2(2γN/((N − 1)C))^{1/α} + 2^{−L} + 2(1 − (1 − e_γ)^L).
* Theorem 5′ (i.i.d. data, 0 < 2γ <= 1, F(x) >= C(x − x_min)^α on the whole support, i.e. x̄ the
  support maximum): Err <= 2C^{−1/α}(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑} + 2^{−L} + 2(1 − (1 − e_γ)^L).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from reference.exact.mp import DPS, to_mpf, workdps
from reference.ldp_minimum.round_statistic import (
    Exact,
    RoundRule,
    ceil_crossing,
    check_exact_work,
    check_exp_u,
    check_rule,
    left_probability_exact,
)
from reference.ldp_minimum.schedules import check_count, check_levels
from reference.ldp_minimum.search import _counts, _midpoints, check_unit_data
from reference.validation import (
    check_choice,
    check_finite,
    check_fraction,
    check_int,
    check_positive,
    check_real,
    check_real_array,
)

THEOREM_3_MAX_EPSILON = Fraction(22, 35)
EVENTS = (">", ">=", "<", "<=")
BETA_FORMS = ("min", "paper_max")
MAX_TREE_LEVELS = 12  # the exact path-by-path tree of Lemma 1 has 2^L leaves
MAX_INFIMUM_WORK = 5 * 10**6
""":func:`lemma_1_printed_infimum` evaluates the printed right-hand side at every distance of
the tree: (distances × paths × L) at most this (about 10 s)."""
MAX_POINTS = 10**7
MAX_BETA_SHAPE = 1000
"""The most values :func:`theorem_1_neighbours` and :func:`beta_fixed_data` build."""


def _finite_mp(value: mpmath.mpf, what: str) -> mpmath.mpf:
    """``value`` unless it is NaN or infinite (a pole, or an overflow of mpmath), which is
    refused naming ``what`` (the parameters)."""
    if not mpmath.isfinite(value):
        raise ValueError(f"{what}: the value is not a finite number here ({value})")
    return value


def _check_float_arrays(**arrays: Any) -> tuple[np.ndarray, ...]:
    """Finite float arrays of the vectorised functions, broadcast together."""
    out = [check_real_array(v, name) for name, v in arrays.items()]
    try:
        np.broadcast_shapes(*(a.shape for a in out))
    except ValueError:
        raise ValueError(f"{', '.join(arrays)} must broadcast to one shape") from None
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Per-round factor e^u
# --------------------------------------------------------------------------------------------


def per_round_factor(u: Any = None, exp_u: Any = None) -> Exact:
    """a = e^u exactly: the given rational ``exp_u`` (> 1), or exp(u) at the working precision.

    Give exactly one of ``u`` (a float > 0) and ``exp_u`` (an int or Fraction > 1).
    """
    if (u is None) == (exp_u is None):
        raise ValueError("give exactly one of u (a float > 0) and exp_u (an int or Fraction > 1)")
    if exp_u is not None:
        return check_exp_u(exp_u)
    u = check_positive(u, "u")
    with workdps():
        return mpmath.exp(to_mpf(u))


def rounds_factor(levels: int, epsilon: Any = None, exp_u: Any = None) -> Exact:
    """a = e^{ε/L} for the theorems stated with ε and L (Eqs. 8, 10), or the given ``exp_u``."""
    levels = check_levels(levels)
    if (epsilon is None) == (exp_u is None):
        raise ValueError("give exactly one of epsilon (a float > 0) and exp_u (an int or Fraction)")
    if exp_u is not None:
        return check_exp_u(exp_u)
    epsilon = check_positive(epsilon, "epsilon")
    with workdps():
        return mpmath.exp(to_mpf(epsilon) / levels)


# --------------------------------------------------------------------------------------------
# Lemma 2 (Eqs. 15–16), Hoeffding, e_γ
# --------------------------------------------------------------------------------------------


def _real(x: Any, name: str) -> Fraction | mpmath.mpf:
    """An exact real: an mpf is kept, anything else is read exactly as a Fraction."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be a finite real number, got {x}")
        return x
    return check_fraction(x, name)


def lemma_2_bound(
    n: int, f_tilde: Any, gamma: Any, *, u: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """exp(−(a − 1)²(F̃(τ) − γ)²N / (4(a + 1)a)), a = e^u (Lemma 2, Eqs. 15–16).

    Eq. 15 bounds P{Φ′ > γ} when γ > F̃(τ); Eq. 16 bounds P{Φ′ < γ} when γ < F̃(τ) (the paper writes
    Φ for Φ′ and ε for the per-round u). With F̃ = 0 it is e_γ. Returned as an mpf.
    """
    n = check_count(n, "n")
    a = per_round_factor(u, exp_u)
    f, g = _real(f_tilde, "f_tilde"), _real(gamma, "gamma")
    with workdps():
        a, d = to_mpf(a), to_mpf(f) - to_mpf(g)
        return mpmath.exp(-((a - 1) ** 2) * d**2 * n / (4 * (a + 1) * a))


def e_gamma_exact(n: int, gamma: Any, *, u: Any = None, exp_u: Any = None) -> mpmath.mpf:
    """e_γ = exp(−(a − 1)²γ²N/(4(a + 1)a)), the Lemma 2 bound at |F̃(τ) − γ| = γ (Eqs. 8, 10)."""
    return lemma_2_bound(n, 0, gamma, u=u, exp_u=exp_u)


def hoeffding_bound(
    n: int, f_tilde: Any, gamma: Any, *, u: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """exp(−2N(F̃(τ) − γ)²/c²), c = (a + 1)/(a − 1): Hoeffding for Φ′, a mean of N independent
    terms (c·z′_i + 1)/2 with range c. Its exponent is 8a/(a + 1) >= 4 times Lemma 2's (spec §3).
    """
    n = check_count(n, "n")
    a = per_round_factor(u, exp_u)
    f, g = _real(f_tilde, "f_tilde"), _real(gamma, "gamma")
    with workdps():
        a, d = to_mpf(a), to_mpf(f) - to_mpf(g)
        return mpmath.exp(-2 * n * d**2 * ((a - 1) / (a + 1)) ** 2)


def _float_bound_inputs(n: Any, f_tilde: Any, gamma: Any, u: Any) -> tuple[np.ndarray, ...]:
    n, f, g, u = _check_float_arrays(n=n, f_tilde=f_tilde, gamma=gamma, u=u)
    if np.any(u <= 0):
        raise ValueError("u must be > 0")
    if np.any(n < 1):
        raise ValueError("n must be >= 1")
    return n, f, g, u


def _exp_neg(log_terms: list[np.ndarray]) -> np.ndarray:
    """exp(−Π exp(t_i)) from the logarithms t_i of the factors (no overflow, no 0·inf)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.exp(-np.exp(sum(log_terms)))


def lemma_2_bound_float(n: Any, f_tilde: Any, gamma: Any, u: Any) -> np.ndarray:
    """Vectorised float Lemma 2 bound, stable form (a − 1)²/(a(a + 1)) = expm1(−u)²/(1 + e^{−u})
    (evaluated through logarithms: no overflow or underflow in the intermediate products)."""
    n, f, g, u = _float_bound_inputs(n, f_tilde, gamma, u)
    with np.errstate(over="ignore", divide="ignore"):
        return _exp_neg(
            [
                2 * np.log(-np.expm1(-u)),
                2 * np.log(np.abs(f - g)),
                np.log(n),
                -np.log(4.0 * (1.0 + np.exp(-u))),
            ]
        )


def hoeffding_bound_float(n: Any, f_tilde: Any, gamma: Any, u: Any) -> np.ndarray:
    """Vectorised float Hoeffding bound exp(−2N(F̃ − γ)²·tanh²(u/2)) (through logarithms)."""
    n, f, g, u = _float_bound_inputs(n, f_tilde, gamma, u)
    with np.errstate(over="ignore", divide="ignore"):
        return _exp_neg(
            [np.log(2.0 * n), 2 * np.log(np.abs(f - g)), 2 * np.log(np.tanh(u / 2.0))]
        )


def _binomial_pmf(trials: int, p: Exact) -> list[Exact]:
    if isinstance(p, Fraction):
        q = 1 - p
        return [math.comb(trials, j) * p**j * q ** (trials - j) for j in range(trials + 1)]
    return [mpmath.binomial(trials, j) * p**j * (1 - p) ** (trials - j) for j in range(trials + 1)]


def _crossing_ceil(n: int, gamma: Fraction, u: float | None, a: Exact) -> tuple[int, bool]:
    """(⌈x⌉, whether x is an integer) for x = N(1 + (2γ − 1)·tanh(u/2))/2: Φ′ >= γ ⇔ P >= x,
    P the number of "+1" reports.

    Exact for rational a = e^u or γ = 1/2; otherwise tanh(u/2) is irrational for a rational
    u != 0 and the ceiling is decided at relative precision
    (:func:`.round_statistic.ceil_crossing`)."""
    if gamma == Fraction(1, 2):
        x = Fraction(n, 2)
        return math.ceil(x), x.denominator == 1
    if isinstance(a, Fraction):
        x = Fraction(n, 2) * (1 + (2 * gamma - 1) * (a - 1) / (a + 1))
        return math.ceil(x), x.denominator == 1
    return ceil_crossing(Fraction(n, 2), 2 * gamma - 1, Fraction(u), "u"), False


def _count_range(event: str, ceil_x: int, integral: bool, n: int) -> tuple[int, int]:
    """The P-range [lo, hi] (inclusive) of the event Φ′ (event) γ, given P >= x ⇔ Φ′ >= γ."""
    floor_x = ceil_x if integral else ceil_x - 1
    if event == ">=":
        return max(ceil_x, 0), n
    if event == ">":
        return max(floor_x + 1, 0), n
    if event == "<":
        return 0, min(ceil_x - 1, n)
    return 0, min(floor_x, n)  # "<="


def phi_tail_exact(
    n: int, k: int, gamma: Any, event: str, *, u: Any = None, exp_u: Any = None
) -> Exact:
    """P{Φ′ (event) γ} exactly, for N users of whom k have x_i <= τ (Lemma 2's left-hand sides).

    Φ′ = (c/(2N))(2P − N) + 1/2 with P = Bin(k, p) ⊛ Bin(N − k, 1 − p) (spec §6); ``event`` is one
    of ">", ">=", "<", "<=". Fractions for rational e^u, else mpf (60 digits). Each tail is summed
    directly (no 1 − x).
    """
    n = check_count(n, "n")
    k = check_int(k, "k", minimum=0)
    if k > n:
        raise ValueError(f"k must lie in [0, {n}], got {k}")
    check_choice(event, "event", EVENTS)
    g = check_fraction(gamma, "gamma")
    a = per_round_factor(u, exp_u)
    check_exact_work(n, 1, a if isinstance(a, Fraction) else None, "n")
    with workdps():
        p = a / (1 + a)
        u_float = None if exp_u is not None else check_positive(u, "u")
        lo, hi = _count_range(event, *_crossing_ceil(n, g, u_float, a), n)
        zero = Fraction(0) if isinstance(p, Fraction) else mpmath.mpf(0)
        if lo > hi:
            return zero
        first = _binomial_pmf(k, p)
        second = _binomial_pmf(n - k, 1 - p)
        # cumulative sums of the second law: cum[j] = P(B <= j − 1)
        cum = [zero]
        for w in second:
            cum.append(cum[-1] + w)
        total = zero
        for i, w in enumerate(first):
            j_lo, j_hi = max(lo - i, 0), min(hi - i, n - k)
            if j_lo <= j_hi:
                total += w * (cum[j_hi + 1] - cum[j_lo])
        return total


# --------------------------------------------------------------------------------------------
# Theorems 4 and 5 (Eqs. 7–10) and the rising factorial (Eqs. 45–46, 11)
# --------------------------------------------------------------------------------------------


def far_mistake_term(e: Any, levels: int) -> mpmath.mpf:
    """2(1 − (1 − e)^L): twice the chance of at least one far mistake in L rounds when each round
    errs with conditional probability at most e (corrected Lemma 1)."""
    levels = check_levels(levels)
    e = _real(e, "e")
    with workdps():
        e = to_mpf(e)
        if not 0 <= e <= 1:
            raise ValueError(f"e must lie in [0, 1], got {e}")
        return 2 * (1 - (1 - e) ** levels)


def _positive_mp(x: Any, name: str) -> mpmath.mpf:
    """A finite real > 0 as an mpf: mpf kept, Fractions rounded once, floats and ints exact;
    at least the smallest positive float (5e-324)."""
    value = _real(x, name)
    with workdps():
        value = to_mpf(value)
    if not value > 0:
        raise ValueError(f"{name} must be a finite number > 0, got {x!r:.80}")
    if value < _TINY:
        raise ValueError(f"{name} must be at least 5e-324 (the smallest positive float)")
    return value


_TINY = mpmath.mpf(5e-324)


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
    g, cc = _positive_mp(gamma, "gamma"), _positive_mp(c, "c")
    al, span = _positive_mp(alpha, "alpha"), _positive_mp(x_bar_minus_x_min, "x_bar_minus_x_min")
    with workdps():
        return bool(2 * g < cc * span**al)


def _theorem_inputs(
    gamma: Any, c: Any, alpha: Any, n: int
) -> tuple[Fraction, mpmath.mpf, mpmath.mpf, int]:
    g = check_fraction(gamma, "gamma", positive=True)
    return g, _positive_mp(c, "c"), _positive_mp(alpha, "alpha"), check_count(n, "n")


def theorem_4_bound_printed(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Theorem 4 as printed (Eq. 8): 2(2γ/C)^{1/α} + e_γ + 2^{−L}, u = ε/L.

    False in general (spec §3): N = 2, Beta(0.5, 1), Δ = 0.02, data (0.98, 1.0), L = 8, ε = 1,
    γ = 0.3033 gives Err = 1.414 > 1.018. Use :func:`theorem_4_bound_corrected`.
    """
    g, c, alpha, n = _theorem_inputs(gamma, c, alpha, n)
    a = rounds_factor(levels, epsilon, exp_u)
    with workdps():
        e = _e_gamma(n, g, a)
        first = 2 * (2 * to_mpf(g) / to_mpf(c)) ** (1 / to_mpf(alpha))
        return _finite_mp(first + e + mpmath.mpf(2) ** -levels, "gamma, c, alpha")


def _e_gamma(n: int, g: Fraction, a: Exact) -> mpmath.mpf:
    """e_γ for the per-round factor a = e^u (exact rational or mpf), at the working precision."""
    with workdps():
        a = to_mpf(a)
        return mpmath.exp(-((a - 1) ** 2) * to_mpf(g) ** 2 * n / (4 * (a + 1) * a))


def theorem_4_bound_corrected(
    gamma: Any, c: Any, alpha: Any, n: int, levels: int, *, epsilon: Any = None, exp_u: Any = None
) -> mpmath.mpf:
    """Corrected Theorem 4 (spec §3): 2(2γN/((N − 1)C))^{1/α} + 2^{−L} + 2(1 − (1 − e_γ)^L).

    Valid for fixed data x_(i) = F*((i − 1)/(N − 1)), N >= 2, 0 < 2γ <= 1 (implied by Eq. 7) and
    x_(⌈2γN⌉) <= x̄ (always when x̄ is the support maximum, as in Example 1; in general implied by
    2γN/(N − 1) <= C(x̄ − x_min)^α). Proof: with q = x_(⌈γN⌉), q₂ = x_(⌈2γN⌉) and
    δ = max(q₂ − q, q − x_(1)), every τ with |τ − q| > δ has F̃(τ) >= 2γ or F̃(τ) = 0, so a far
    mistake there has conditional probability <= e_γ (Lemma 2, Eqs. 15–16, also for ">=");
    corrected Lemma 1 gives E|x̃ − q| <= δ + 2^{−L} + 2(1 − (1 − e_γ)^L); and
    |q − x_(1)| + δ <= 2(q₂ − x_(1)) <= 2(((⌈2γN⌉ − 1)/(N − 1))/C)^{1/α} by α-fatness.
    """
    g, c, alpha, n = _theorem_inputs(gamma, c, alpha, n)
    if n < 2:
        raise ValueError(f"n must be an integer >= 2 (fixed data need N >= 2), got {n}")
    a = rounds_factor(levels, epsilon, exp_u)
    with workdps():
        e = _e_gamma(n, g, a)
        ratio = to_mpf(2 * g * n) / (to_mpf(n - 1) * to_mpf(c))
        first = 2 * ratio ** (1 / to_mpf(alpha))
        total = first + mpmath.mpf(2) ** -levels + far_mistake_term(e, levels)
        return _finite_mp(total, "gamma, c, alpha")


def rising_factorial(x: Any, a: Any) -> mpmath.mpf:
    """(x)^{a↑} = Γ(x + a)/Γ(x) (Theorem 5's notation), x > 0, at the working precision."""
    x, a = check_positive(x, "x"), check_finite(a, "a")
    with workdps():
        return _finite_mp(mpmath.rf(to_mpf(x), to_mpf(a)), "x, a (a pole of Γ(x + a))")


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
        raise ValueError(f"k must lie in [1, {n}], got {k}")
    alpha = _positive_mp(alpha, "alpha")
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
        raise ValueError(f"gamma must satisfy ⌈2γN⌉ <= N (2γ <= 1), got ⌈2γN⌉ = {j} > N = {n}")
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
        return _finite_mp(first + e + mpmath.mpf(2) ** -levels, "gamma, c, alpha")


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
        return _finite_mp(total, "gamma, c, alpha")


def eq_11_ratio(gamma: Any, n: int, alpha: Any) -> mpmath.mpf:
    """(⌈2γN⌉)^{(1/α)↑}/(N + 1)^{(1/α)↑}·((N + 1)/(2γN))^{1/α} (Eq. 11; → 1 when γ = ω(1/N)).

    γ may be an mpf (e.g. N^{−1/2} at the working precision) or anything exact; ⌈2γN⌉ is taken at
    the working precision.
    """
    n = check_count(n, "n")
    alpha = _positive_mp(alpha, "alpha")
    with workdps():
        g = to_mpf(_real(gamma, "gamma"))
        if not g > 0:
            raise ValueError(f"gamma must be > 0, got {gamma}")
        j = int(mpmath.ceil(2 * g * n))
    with mpmath.workdps(400):
        s = 1 / to_mpf(alpha)
    ratio = _rf_ratio(j, n + 1, s)
    with workdps():
        ratio = ratio * ((n + 1) / (2 * g * n)) ** s
        return _finite_mp(ratio, "gamma, n, alpha")


# --------------------------------------------------------------------------------------------
# Lemma 1 (Eq. 14) by the exact tree, path by path
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lemma1Report:
    """The two sides of Lemma 1 (Eq. 14) for fixed data, one rule and one δ, exactly.

    ``error`` = E|x̃ − q|, q = F̃*(γ); ``printed_rhs`` = δ + E[max_t P{M_t | τ_t}·1{|q − τ_t| > δ}]
    + 2^{−L} (P{M_t} read as the conditional mistake probability given the history, as in the
    proof's Eq. 36); ``far_mistake_probability`` = P(some round with |τ_t − q| > δ moves away from
    q); ``max_far_mistake`` = π_δ, the largest conditional probability of such a mistake over the
    reachable τ; ``corrected_rhs`` = δ + 2^{−L} + 2(1 − (1 − π_δ)^L); ``tight_rhs`` = δ + 2^{−L}
    + 2·far_mistake_probability (corrected Lemma 1, first form).
    """

    quantile: Fraction
    delta: Exact
    error: Exact
    printed_rhs: Exact
    far_mistake_probability: Exact
    max_far_mistake: Exact
    corrected_rhs: Exact
    tight_rhs: Exact


@dataclass(frozen=True)
class _Path:
    mass: Exact
    leaf: Fraction
    distances: tuple[Fraction, ...]  # |τ_t − q|
    mistakes: tuple[Exact, ...]  # P(M_t | τ_t): moving away from q
    erred: tuple[bool, ...]  # whether this path moved away from q at round t


def empirical_quantile(data: Any, gamma: Any) -> Fraction:
    """q = F̃*(γ) = x_(⌈γN⌉) for 0 < γ <= 1, exactly (the float datum as a Fraction)."""
    x = np.sort(check_unit_data(data))
    g = check_fraction(gamma, "gamma", positive=True)
    if g > 1:
        raise ValueError(f"gamma must lie in (0, 1] for F̃*(γ) to be a data point, got {gamma}")
    return Fraction(float(x[math.ceil(g * x.size) - 1]))


def _paths(data: Any, rule: RoundRule, q: Fraction) -> list[_Path]:
    """Every root-to-leaf path of Algorithm 2's tree with its exact probability."""
    x = np.sort(check_unit_data(data))
    if not isinstance(rule, RoundRule) or rule.n != x.size:
        raise ValueError("rule must be a RoundRule built for N = len(data) users")
    levels = rule.levels
    if levels > MAX_TREE_LEVELS:
        raise ValueError(f"levels must be at most {MAX_TREE_LEVELS} here, got {levels}")
    taus = np.concatenate(
        [_midpoints(d, np.arange(2 ** (d - 1), dtype=np.int64)) for d in range(1, levels + 1)]
    )
    check_exact_work(x.size, int(np.unique(_counts(x, taus)).size), rule.exp_u, "data, rule")
    cache: dict[int, Exact] = {}

    def left(k: int) -> Exact:
        if k not in cache:
            cache[k] = left_probability_exact(rule, k)
        return cache[k]

    one: Exact = Fraction(1) if isinstance(rule.keep_exact(), Fraction) else mpmath.mpf(1)
    paths = [_Path(one, Fraction(0), (), (), ())]  # leaf holds the current interval's lower end
    with workdps():
        for depth in range(1, levels + 1):
            half = Fraction(2) ** (1 - depth)
            nxt: list[_Path] = []
            for path in paths:
                lo = Fraction(-1) + path.leaf
                tau = lo + half
                k = int(_counts(x, float(tau)))
                pl = left(k)
                pr = 1 - pl
                wrong_left = tau < q  # going left moves away from q
                wrong_right = tau > q
                mistake = pl if wrong_left else (pr if wrong_right else 0 * pl)
                for went_left, prob in ((True, pl), (False, pr)):
                    if prob == 0:
                        continue
                    erred = wrong_left if went_left else wrong_right
                    offset = path.leaf if went_left else path.leaf + half
                    nxt.append(
                        _Path(
                            path.mass * prob,
                            offset,
                            (*path.distances, abs(tau - q)),
                            (*path.mistakes, mistake),
                            (*path.erred, erred),
                        )
                    )
            paths = nxt
    leaf_half = Fraction(2) ** (-levels)
    return [
        _Path(p.mass, Fraction(-1) + p.leaf + leaf_half, p.distances, p.mistakes, p.erred)
        for p in paths
    ]


READINGS = ("conditional", "marginal")


def _mistake_values(paths: list[_Path], reading: str) -> list[tuple[Exact, ...]]:
    """P{M_t} along each path: conditional on the history (P(M_t | τ_t), the proof's Eq. 36) or
    the marginal probability of a mistake at round t (the same number on every path)."""
    if reading == "conditional":
        return [p.mistakes for p in paths]
    if reading != "marginal":
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    levels = len(paths[0].erred)
    marginal = tuple(
        sum((p.mass for p in paths if p.erred[t]), 0 * paths[0].mass) for t in range(levels)
    )
    return [marginal] * len(paths)


def _printed_expectation(paths: list[_Path], delta: Fraction, reading: str) -> Exact:
    """E[max_t P{M_t}·1{|q − τ_t| > δ}] over the paths (Eq. 14's middle term)."""
    total = 0 * paths[0].mass
    for p, values in zip(paths, _mistake_values(paths, reading), strict=True):
        far = [m for d, m in zip(p.distances, values, strict=True) if d > delta]
        if far:
            total += p.mass * max(far)
    return total


def _as_number(x: Fraction, exact: bool) -> Exact:
    return x if exact else to_mpf(x)


def lemma_1_report(
    data: Any, rule: RoundRule, delta: Any, reading: str = "conditional"
) -> Lemma1Report:
    """Both sides of Lemma 1 (Eq. 14) and of its corrected form, exactly (2^L paths, L <= 12).

    ``delta`` >= 0 (a Fraction, int or float; read exactly). ``reading`` picks what P{M_t} means in
    the printed right-hand side: ``"conditional"`` (default; given the history) or ``"marginal"``.
    Fractions when e^u is rational or ε = inf, mpf otherwise.
    """
    check_choice(reading, "reading", READINGS)
    rule = check_rule(rule)
    q = empirical_quantile(data, rule.gamma)
    d = check_fraction(delta, "delta", nonnegative=True)
    paths = _paths(data, rule, q)
    levels = rule.levels
    exact = isinstance(paths[0].mass, Fraction)
    zero = 0 * paths[0].mass
    with workdps():
        dd = _as_number(d, exact)
        tail = _as_number(Fraction(1, 2**levels), exact)
        error = sum((p.mass * _as_number(abs(p.leaf - q), exact) for p in paths), zero)
        printed = dd + _printed_expectation(paths, d, reading) + tail
        far_prob = sum(
            (
                p.mass
                for p in paths
                if any(e and dist > d for e, dist in zip(p.erred, p.distances, strict=True))
            ),
            zero,
        )
        far_values = [
            m for p in paths for dist, m in zip(p.distances, p.mistakes, strict=True) if dist > d
        ]
        pi = max(far_values) if far_values else zero
        corrected = dd + tail + 2 * (1 - (1 - pi) ** levels)
        tight = dd + tail + 2 * far_prob
    return Lemma1Report(q, dd, error, printed, far_prob, pi, corrected, tight)


def lemma_1_printed_infimum(
    data: Any, rule: RoundRule, reading: str = "conditional"
) -> tuple[Exact, Fraction]:
    """inf over δ > 0 of Eq. 14's right-hand side, and a δ where it is attained (or approached).

    RHS(δ) = δ + A(δ) + 2^{−L} with A non-increasing and constant between the distances
    d = |τ − q| of the tree, so the infimum is min(A(0+) + 2^{−L}, min_d (d + A(d) + 2^{−L})); the
    returned δ is 0 for the limit δ → 0+ (the right-hand side exceeds the infimum by δ there).
    """
    check_choice(reading, "reading", READINGS)
    rule = check_rule(rule)
    q = empirical_quantile(data, rule.gamma)
    paths = _paths(data, rule, q)
    exact = isinstance(paths[0].mass, Fraction)
    candidates = sorted({d for p in paths for d in p.distances if d > 0})
    work = len(candidates) * len(paths) * rule.levels
    if work > MAX_INFIMUM_WORK:
        raise ValueError(
            f"rule: the infimum over δ needs {work:.3g} steps (distances × paths × L), above "
            f"the limit {MAX_INFIMUM_WORK:.3g} (about 10 s): use fewer levels"
        )
    with workdps():
        tail = _as_number(Fraction(1, 2**rule.levels), exact)
        best = _printed_expectation(paths, Fraction(0), reading) + tail
        best_delta = Fraction(0)
        for d in candidates:
            value = _as_number(d, exact) + _printed_expectation(paths, d, reading) + tail
            if value < best:
                best, best_delta = value, d
    return best, best_delta


# --------------------------------------------------------------------------------------------
# Theorem 3 (Eq. 76), its constructions (Eqs. 71–80) and Theorem 7 (Eq. 70)
# --------------------------------------------------------------------------------------------


def _theorem_3_inputs(epsilon: Any, n: int, alpha: Any) -> tuple[Fraction, int, mpmath.mpf]:
    eps = check_fraction(epsilon, "epsilon", positive=True)
    if eps > THEOREM_3_MAX_EPSILON:
        raise ValueError(f"epsilon must lie in (0, 22/35] for Theorem 3, got {float(eps)}")
    n = check_count(n, "n")
    if 16 * eps**2 * n < 1:
        value = float(16 * eps**2 * n)
        raise ValueError(f"epsilon and n must satisfy 16·epsilon²·n >= 1 (2δ <= 1), got {value}")
    return eps, n, _positive_mp(alpha, "alpha")


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
            to_mpf(_real(v, name))
            for v, name in ((delta, "delta"), (epsilon, "epsilon"), (tv, "tv"))
        )
        if not e > 0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
        if not 0 <= t <= 1:
            raise ValueError(f"tv must lie in [0, 1] (a total variation distance), got {tv!r}")
        return abs(d) * (mpmath.mpf(1) / 2 - mpmath.sqrt(n * e**2 * t**2))


def _check_construction(alpha: Any, delta: Any) -> tuple[float, float]:
    alpha = check_positive(alpha, "alpha")
    delta = check_positive(delta, "delta")
    if delta >= 0.5:
        raise ValueError(f"delta must lie in (0, 1/2) (so that −1 + 2δ < 0), got {delta}")
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
        raise ValueError(f"delta must lie in (0, 1/2) (so that −1 + 2δ < 0), got {delta}")
    return -1.0, -1.0 + 2.0 * delta


def lower_bound_tv(alpha: Any, delta: Any) -> mpmath.mpf:
    """TV(F, F′) = (2δ)^α (Eqs. 75, 80); δ may be an mpf (e.g. :func:`theorem_3_delta`)."""
    al, d = _positive_mp(alpha, "alpha"), _positive_mp(delta, "delta")
    if not d < mpmath.mpf(1) / 2:
        raise ValueError(f"delta must lie in (0, 1/2) (so that −1 + 2δ < 0), got {delta}")
    with workdps():
        return (2 * d) ** al


QUADRATURE_ALPHA = (0.25, 10.0)
"""The α range where :func:`lower_bound_tv_quadrature` is accurate to about 1e-16 in absolute
terms (1e-30 for α >= 1/2; checked against :func:`lower_bound_tv`); the endpoint singularity
t^{α−1} defeats the quadrature for smaller α."""


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
        raise ValueError(
            f"alpha must lie in [{lo_a}, {hi_a}] for the quadrature (use lower_bound_tv for the "
            f"closed form), got {alpha!r}"
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


# --------------------------------------------------------------------------------------------
# Theorem 1
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Examples 1 and 2, fixed data, Sec. 6.1
# --------------------------------------------------------------------------------------------


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
        return _finite_mp(value / to_mpf(width) ** al, "alpha, beta, width")


def beta_cdf_exact(y: Any, alpha: Any, beta: Any) -> mpmath.mpf:
    """I_y(α, β), the Beta(α, β) CDF at y ∈ [0, 1], at the working precision."""
    alpha, beta = check_positive(alpha, "alpha"), check_positive(beta, "beta")
    if max(alpha, beta) > MAX_BETA_SHAPE:
        raise ValueError(
            f"alpha and beta must be at most {MAX_BETA_SHAPE} here (mpmath's incomplete Beta "
            f"function does not converge in reasonable time beyond), got ({alpha!r}, {beta!r})"
        )
    with workdps():
        yy = to_mpf(_real(y, "y"))
        if not 0 <= yy <= 1:
            raise ValueError(f"y must lie in [0, 1], got {y}")
        try:
            value = mpmath.betainc(to_mpf(alpha), to_mpf(beta), 0, yy, regularized=True)
        except (mpmath.libmp.NoConvergence, ValueError, ZeroDivisionError):
            raise ValueError(
                f"y, alpha, beta: mpmath's incomplete Beta function does not converge at "
                f"({y!r}, {alpha!r}, {beta!r})"
            ) from None
        return _finite_mp(value, "y, alpha, beta")


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
            raise ValueError(f"{name} must be a real number, got nan")
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
        raise ValueError(f"x_min must be < x_max, got ({lo}, {hi})")
    with workdps():
        a = (to_mpf(lo) - to_mpf(mu)) / to_mpf(sigma)
        b = (to_mpf(hi) - to_mpf(mu)) / to_mpf(sigma)
        mass = normal_mass(a, b)
        if not mass > 0:
            raise ValueError("mu, sigma, x_min, x_max: the truncation interval has no mass")
        value = min(mpmath.npdf(a), mpmath.npdf(b)) / (to_mpf(sigma) * mass)
        return _finite_mp(value, "mu, sigma, x_min, x_max")


def beta_fixed_data(n: int, alpha: Any, beta: Any, x_min: Any, width: Any) -> np.ndarray:
    """Fixed data of spec §1/§4.1: x_(i) = x_min + Δ·BetaPPF((i − 1)/(N − 1); α, β), clipped to
    [−1, 1] against rounding; N >= 2."""
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
        uu = to_mpf(_real(u, "u"))
        if not uu > 0:
            raise ValueError(f"u must be > 0, got {u}")
        return mpmath.exp(uu) * (1 + mpmath.exp(uu)) / mpmath.expm1(uu) ** 2


def section_6_1_f_float(u: Any) -> np.ndarray:
    """Vectorised f(u) = (1 + e^{−u})/expm1(−u)² (the same function, stable for large u)."""
    u = check_real_array(u, "u")
    if np.any(~(u > 0)):
        raise ValueError("u must be > 0")
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        out = (1.0 + np.exp(-u)) / np.expm1(-u) ** 2
    if not np.all(np.isfinite(out)):
        raise ValueError("u must be at least about 2e-154 (f(u) ≈ 2/u² must fit a float)")
    return out


def section_6_1_series_coefficient(n: int) -> Fraction:
    """The n-th Taylor coefficient of g(u) = u²(e^u + e^{2u}) − 2e^{2u} + 4e^u − 2:
    [n(n − 1) + 4 + 2^{n−2}(n(n − 1) − 8)]/n! for n >= 3, and 0 for n <= 2 (see section_6_1_f)."""
    n = check_int(n, "n", minimum=0, maximum=10_000)
    if n <= 2:
        return Fraction(0)
    return Fraction(n * (n - 1) + 4 + 2 ** (n - 2) * (n * (n - 1) - 8), math.factorial(n))


__all__ = [
    "BETA_FORMS",
    "EVENTS",
    "MAX_BETA_SHAPE",
    "MAX_INFIMUM_WORK",
    "MAX_POINTS",
    "QUADRATURE_ALPHA",
    "THEOREM_3_MAX_EPSILON",
    "READINGS",
    "Lemma1Report",
    "beta_cdf_exact",
    "beta_fatness_constant",
    "beta_fixed_data",
    "beta_order_statistic_moment",
    "e_gamma_exact",
    "empirical_quantile",
    "eq_11_ratio",
    "far_mistake_term",
    "hoeffding_bound",
    "hoeffding_bound_float",
    "lemma_1_printed_infimum",
    "lemma_1_report",
    "lemma_2_bound",
    "lemma_2_bound_float",
    "lower_bound_cdfs",
    "lower_bound_minima",
    "lower_bound_tv",
    "lower_bound_tv_quadrature",
    "normal_mass",
    "per_round_factor",
    "phi_tail_exact",
    "rising_factorial",
    "rounds_factor",
    "section_6_1_f",
    "section_6_1_f_float",
    "section_6_1_series_coefficient",
    "theorem_1_constant",
    "theorem_1_neighbours",
    "theorem_3_delta",
    "theorem_3_lower_bound",
    "theorem_4_bound_corrected",
    "theorem_4_bound_printed",
    "theorem_4_condition",
    "theorem_5_bound_corrected",
    "theorem_5_bound_printed",
    "theorem_7_bound",
    "truncated_normal_fatness_constant",
]
