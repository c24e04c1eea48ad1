"""Machine checks of fukuchi19's analytic claims, one block per claim (errata and reference values in
``notes/fukuchi19.md``).

* Sec. 4 unbiasedness of Φ′ and Var Φ′ = e^u/(N(e^u − 1)²) (sympy, exact Fractions);
* Algorithm 1's 2^{−L} accuracy and the ε = inf metamorphic checks;
* Theorem 2's identity e_γ = e^{−h_N} (sympy);
* Lemma 2 against the exact binomial tail, and Hoeffding;
* Theorem 1's explicit constant 1/(1 + e^ε) by the exact tree law;
* Theorem 3 (Eq. 76): arithmetic (sympy), TV by quadrature, the reference numbers, and a statistical
  check of Algorithm 2 against the lower bound on the F/F′ constructions;
* Theorem 4 (refuted: the reference counterexample) and its corrected form; Theorem 5 (refuted by the
  exact i.i.d. law) and its corrected form (exact tiny cases and a seeded Monte Carlo);
* Lemma 1 (refuted: smallest counterexample N = 1, L = 2) and its corrected form;
* Example 1 (min, not max), Example 2, Eqs. 45–46, Eq. 11 and Sec. 6.1's false f(u) <= 2/u².

Exact means Fractions (rational e^u) or mpmath at 60 digits; an inequality is asserted with a
margin far above the numerical error (1e-40 at 60 digits). Statistical tests are seeded; each
states the probability that a correct implementation fails.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum import (
    concentration,
    exact_law,
    fatness,
    lower_bounds,
    round_statistic,
    schedules,
    search,
    search_error,
    section_6_1,
    upper_bounds,
)

F = Fraction
MARGIN = mpmath.mpf(10) ** -40  # far above the 60-digit rounding error, far below any gap
RATIONAL_EXP_U = [F(11, 10), F(5, 4), F(3, 2), F(2), F(3), F(5), F(9)]

unit_floats = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


def _mp(x) -> mpmath.mpf:
    with workdps():
        return to_mpf(x)


# ======================================================================= Sec. 4: Φ′ is unbiased


def test_phi_prime_is_unbiased_and_has_variance_e_u_over_n_e_u_minus_one_squared() -> None:
    """Sympy: with k of N bits +1, E Φ′ = k/N and Var Φ′ = a/(N(a − 1)²), a = e^u, for all k."""
    a, n, k = sp.symbols("a N k", positive=True)
    p = a / (1 + a)
    c = (a + 1) / (a - 1)
    mean_z_plus = 2 * p - 1  # E z′ for a true +1 (and minus that for a true −1)
    mean_phi = c / (2 * n) * (k - (n - k)) * mean_z_plus + sp.Rational(1, 2)
    var_phi = c**2 / (4 * n**2) * n * (1 - mean_z_plus**2)
    assert sp.simplify(mean_phi - k / n) == 0
    assert sp.simplify(var_phi - a / (n * (a - 1) ** 2)) == 0


@given(st.integers(1, 20), st.data(), st.sampled_from(RATIONAL_EXP_U))
def test_phi_prime_mean_and_variance_are_exact_on_the_binomial_law(n, data, a) -> None:
    k = data.draw(st.integers(0, n))
    rule = round_statistic.round_rule(n, 1, 0.5, exp_u=a)
    pmf = round_statistic.plus_count_pmf_exact(rule, k)
    c = (a + 1) / (a - 1)
    phis = [c * (2 * j - n) / (2 * n) + F(1, 2) for j in range(n + 1)]
    mean = sum(w * v for w, v in zip(pmf, phis, strict=True))
    var = sum(w * (v - mean) ** 2 for w, v in zip(pmf, phis, strict=True))
    assert sum(pmf) == 1
    assert mean == F(k, n)
    assert var == a / (n * (a - 1) ** 2)


# ===================================================================== Algorithm 1 and ε = inf


@given(st.lists(unit_floats, min_size=1, max_size=30), st.integers(1, 50))
def test_algorithm_1_is_within_two_to_the_minus_l_of_the_minimum(data, levels) -> None:
    out = search.algorithm_1(data, levels)
    assert abs(F(out) - F(min(data))) <= F(1, 2**levels)


@given(st.lists(unit_floats, min_size=1, max_size=30), st.integers(1, 50), st.data())
def test_algorithm_2_without_noise_and_gamma_at_most_one_over_n_is_algorithm_1(
    data, levels, draw
) -> None:
    n = len(data)
    gamma = draw.draw(st.floats(1e-6, 1.0)) / n
    assume(F(gamma) * n <= 1)  # the float 1.0/n may exceed 1/N
    rule = round_statistic.round_rule(n, levels, gamma, epsilon=math.inf)
    want = search.algorithm_1(data, levels)
    rng = np.random.default_rng(0)
    assert np.all(search.sample_binomial(data, rule, 3, rng) == want)
    assert np.all(search.sample_per_user(data, rule, 2, rng) == want)


@given(st.lists(unit_floats, min_size=1, max_size=30), st.integers(1, 50), st.floats(1e-6, 1.0))
def test_algorithm_2_without_noise_finds_the_gamma_quantile_within_two_to_the_minus_l(
    data, levels, gamma
) -> None:
    """ε = inf: go left ⇔ k >= γN exactly, so x̃ is within 2^{−L} of x_(⌈γN⌉) (γ read exactly)."""
    n = len(data)
    rule = round_statistic.round_rule(n, levels, gamma, epsilon=math.inf)
    out = search.sample_binomial(data, rule, 1, np.random.default_rng(1))[0]
    q = sorted(data)[math.ceil(F(gamma) * n) - 1]
    assert abs(F(out) - F(q)) <= F(1, 2**levels)


# ============================================================== Theorem 2: e_γ = e^{−h_N}


def test_theorem_2_gamma_makes_e_gamma_equal_e_to_the_minus_h_n() -> None:
    a, h, n = sp.symbols("a h N", positive=True)
    gamma_sq = 4 * a * (1 + a) * h / ((a - 1) ** 2 * n)
    exponent = (a - 1) ** 2 * gamma_sq * n / (4 * (a + 1) * a)
    assert sp.simplify(exponent - h) == 0


@pytest.mark.parametrize(("eps", "levels", "n", "h"), [(1.0, 5, 1024, 3.5), (4.0, 21, 2**20, 13.9)])
def test_theorem_2_gamma_makes_e_gamma_equal_e_to_the_minus_h_n_numerically(
    eps, levels, n, h
) -> None:
    gamma = schedules.theorem_2_gamma_mp(eps, levels, n, h)
    with workdps():
        a = mpmath.exp(to_mpf(eps) / levels)
        direct = mpmath.exp(-((a - 1) ** 2) * gamma**2 * n / (4 * (a + 1) * a))
        assert abs(direct - mpmath.exp(-to_mpf(h))) < MARGIN
    # the float u = ε/L is rounded once: agreement to double precision only
    assert math.isclose(
        float(concentration.e_gamma_exact(n, gamma, u=eps / levels)), math.exp(-h), rel_tol=1e-12
    )
    assert math.isclose(schedules.theorem_2_gamma(eps, levels, n, h), float(gamma), rel_tol=1e-12)


# ====================================================================================== Lemma 2


def _tail_case(n: int, k: int, gamma: float) -> list[str]:
    """The Lemma 2 events that apply: Eq. 15 (and ">=") if γ > F̃, Eq. 16 (and "<=") if γ < F̃."""
    if F(gamma) > F(k, n):
        return [">", ">="]
    if F(gamma) < F(k, n):
        return ["<", "<="]
    return []


def _draw_tail_case(data: st.DataObject, n: int, gamma: float) -> tuple[int, list[str]]:
    """A count k in [0, n] drawn from ``data``, and its Lemma 2 events (none: the case is
    skipped)."""
    k = data.draw(st.integers(0, n))
    events = _tail_case(n, k, gamma)
    assume(events)
    return k, events


@given(st.integers(1, 300), st.data(), st.floats(0.05, 4.0), st.floats(-0.5, 1.5))
def test_lemma_2_bounds_the_exact_binomial_tail(n, data, u, gamma) -> None:
    """Eqs. 15–16 (and the ">=", "<=" versions the algorithm uses) against the exact tail of
    Φ′ = cS/(2N) + 1/2, S = 2(Bin(k, p) + Bin(N − k, 1 − p)) − N, at 60 digits."""
    k, events = _draw_tail_case(data, n, gamma)
    bound = concentration.lemma_2_bound(n, F(k, n), gamma, u=u)
    for event in events:
        tail = concentration.phi_tail_exact(n, k, gamma, event, u=u)
        assert tail <= bound * (1 - MARGIN), (event, tail, bound)


@given(st.integers(1, 120), st.data(), st.sampled_from(RATIONAL_EXP_U), st.floats(-0.5, 1.5))
def test_lemma_2_bounds_the_exact_binomial_tail_in_rationals(n, data, a, gamma) -> None:
    k, events = _draw_tail_case(data, n, gamma)
    bound = concentration.lemma_2_bound(n, F(k, n), gamma, exp_u=a)
    for event in events:
        tail = concentration.phi_tail_exact(n, k, gamma, event, exp_u=a)
        assert isinstance(tail, Fraction)
        assert _mp(tail) <= bound * (1 - MARGIN)


def test_lemma_2_exact_tail_matches_the_round_rule_decision() -> None:
    """P{Φ′ >= γ} here is the probability that round_statistic sends the search left."""
    from dpquant.reference.ldp_minimum.round_statistic import left_probability_exact

    for n, k, gamma, a in [(7, 3, 0.3, F(3)), (12, 0, 0.25, F(5, 4)), (30, 29, 0.9, F(2))]:
        rule = round_statistic.round_rule(n, 1, gamma, exp_u=a)
        assert concentration.phi_tail_exact(n, k, gamma, ">=", exp_u=a) == left_probability_exact(
            rule, k
        )
        assert concentration.phi_tail_exact(
            n, k, gamma, "<", exp_u=a
        ) == 1 - left_probability_exact(rule, k)


@given(st.integers(1, 300), st.data(), st.floats(0.05, 4.0), st.floats(-0.5, 1.5))
def test_hoeffding_is_at_least_as_strong_as_lemma_2_and_bounds_the_exact_tail(
    n, data, u, gamma
) -> None:
    """exp(−2N(F̃ − γ)²/c²) <= Lemma 2's bound (exponent ratio 8e^u/(e^u + 1) >= 4), and it is a
    valid bound on the exact tail."""
    k = data.draw(st.integers(0, n))
    lemma = concentration.lemma_2_bound(n, F(k, n), gamma, u=u)
    hoeff = concentration.hoeffding_bound(n, F(k, n), gamma, u=u)
    assert hoeff <= lemma
    with workdps():
        a = mpmath.exp(to_mpf(u))
        if mpmath.log(lemma) < -(mpmath.mpf(10) ** -20):  # exponent ratio (skip if it underflows)
            ratio = mpmath.log(hoeff) / mpmath.log(lemma)
            assert abs(ratio - 8 * a / (a + 1)) < mpmath.mpf(10) ** -30
            assert ratio >= 4
    for event in _tail_case(n, k, gamma):
        assert concentration.phi_tail_exact(n, k, gamma, event, u=u) <= hoeff * (1 - MARGIN)


def test_lemma_2_and_hoeffding_float_versions_match_the_exact_ones() -> None:
    n = np.array([10, 300, 1000])
    f = np.array([0.0, 0.2, 0.9])
    g = np.array([0.3, 0.1, 0.5])
    u = np.array([0.05, 1.0, 4.0])
    lf, hf = (
        concentration.lemma_2_bound_float(n, f, g, u),
        concentration.hoeffding_bound_float(n, f, g, u),
    )
    for i in range(3):
        args = (int(n[i]), float(f[i]), float(g[i]))
        assert math.isclose(
            lf[i], float(concentration.lemma_2_bound(*args, u=float(u[i]))), rel_tol=1e-12
        )
        assert math.isclose(
            hf[i], float(concentration.hoeffding_bound(*args, u=float(u[i]))), rel_tol=1e-12
        )


# ==================================================================================== Theorem 1

THEOREM_1_GRID = [
    (n, eps, levels, gamma)
    for n in (1, 2, 10, 100)
    for eps in (0.5, 1.0, 4.0)
    for levels in (1, 3, 8)
    for gamma in (0.01, 0.1, 0.5)
] + [(1000, eps, 8, 0.1) for eps in (0.5, 1.0, 4.0)]


def test_theorem_1_constant_one_over_one_plus_e_eps_bounds_algorithm_2_exactly() -> None:
    """max(E|x̃ − 1| on X₀ = (1, …, 1), E|x̃ + 1| on X₁ = (−1, 1, …, 1)) >= 1/(1 + e^ε), by the exact
    tree law (60 digits) on the grid THEOREM_1_GRID (N = 1000 on a subset, to keep the file fast)."""
    for n, eps, levels, gamma in THEOREM_1_GRID:
        x0, x1 = lower_bounds.theorem_1_neighbours(n)
        rule = round_statistic.round_rule(n, levels, gamma, epsilon=eps)
        e0 = exact_law.mean_absolute_error_exact(
            exact_law.leaf_probabilities_exact(x0, rule), levels, 1
        )
        e1 = exact_law.mean_absolute_error_exact(
            exact_law.leaf_probabilities_exact(x1, rule), levels, -1
        )
        assert max(e0, e1) - lower_bounds.theorem_1_constant(eps) > MARGIN, (n, eps, levels, gamma)


def test_theorem_1_constant_is_the_minimax_of_the_proofs_two_inequalities() -> None:
    """The proof gives E₀ >= e^{−ε}s and E₁ >= 1 − s with s = P₁(x̃ <= 0); the smallest possible
    max(e^{−ε}s, 1 − s) over s is 1/(1 + e^ε), attained only at s = 1/(1 + e^{−ε})."""
    for eps in (0.5, 1.0, 4.0):
        with workdps():
            e = mpmath.exp(to_mpf(eps))
            s = 1 / (1 + 1 / e)
            assert abs(max(s / e, 1 - s) - lower_bounds.theorem_1_constant(eps)) < MARGIN
            for s2 in (s * (1 - mpmath.mpf(10) ** -6), s * (1 + mpmath.mpf(10) ** -6)):
                assert (
                    max(s2 / e, 1 - s2) - lower_bounds.theorem_1_constant(eps)
                    > mpmath.mpf(10) ** -8
                )


# ==================================================================================== Theorem 3


def test_theorem_3_delta_and_tv_give_eq_76_exactly() -> None:
    """Sympy: δ = (16ε²N)^{−1/(2α)}/2, TV = (2δ)^α ⇒ δ(1/2 − sqrt(Nε²TV²)) = (1/8)(16ε²N)^{−1/(2α)}."""
    eps, n, alpha = sp.symbols("epsilon N alpha", positive=True)
    delta = (16 * eps**2 * n) ** (-1 / (2 * alpha)) / 2
    tv = (2 * delta) ** alpha
    lhs = delta * (sp.Rational(1, 2) - sp.sqrt(n * eps**2 * tv**2))
    rhs = sp.Rational(1, 8) * (16 * eps**2 * n) ** (-1 / (2 * alpha))
    assert sp.simplify(sp.powsimp(sp.expand_power_base(lhs - rhs, force=True), force=True)) == 0


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize(("eps", "n"), [(0.5, 2**10), (0.6, 2**20), (0.25, 16)])
def test_theorem_3_bound_is_theorem_7_at_the_chosen_delta(alpha, eps, n) -> None:
    delta = lower_bounds.theorem_3_delta(eps, n, alpha)
    tv = lower_bounds.lower_bound_tv(alpha, delta)
    with workdps():
        tv_mp = (2 * delta) ** to_mpf(alpha)
        value = lower_bounds.theorem_7_bound(delta, n, eps, tv)
        assert abs(tv - tv_mp) < MARGIN * tv_mp
        assert abs(value / lower_bounds.theorem_3_lower_bound(eps, n, alpha) - 1) < MARGIN


@pytest.mark.parametrize("alpha", [0.3, 0.5, 0.9, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("delta", [0.001, 0.05, 0.3])
def test_theorem_3_constructions_have_total_variation_two_delta_to_the_alpha(alpha, delta) -> None:
    """Eqs. 73–75 (α < 1) and 79–80 (α >= 1): TV(F, F′) = (2δ)^α, by quadrature."""
    quad = lower_bounds.lower_bound_tv_quadrature(alpha, delta)
    exact = lower_bounds.lower_bound_tv(alpha, delta)
    assert abs(quad - exact) < mpmath.mpf(10) ** -15 * exact  # tanh-sinh near x^(α−1) cusps


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 4.0])
def test_theorem_3_constructions_are_alpha_fat_with_c_one_and_separated_by_two_delta(alpha) -> None:
    delta = 0.05
    f, f_prime = lower_bounds.lower_bound_cdfs(alpha, delta)
    lo, lo_prime = lower_bounds.lower_bound_minima(delta)
    assert lo_prime - lo == pytest.approx(2 * delta)
    x = np.linspace(-1.0, 1.0, 4001)
    assert np.all(np.diff(f(x)) >= 0) and np.all(np.diff(f_prime(x)) >= 0)
    assert f(1.0) == 1.0 and f_prime(1.0) == 1.0
    assert np.all(f_prime(x[x < lo_prime]) == 0) and np.all(f(x[x > -1]) > 0)
    inside = x[(x > lo_prime) & (x < 0)]
    assert np.all(f(inside) >= (inside + 1) ** alpha * (1 - 1e-12))
    assert np.all(f_prime(inside) >= (inside - lo_prime) ** alpha * (1 - 1e-12) - 1e-15)


REF_LB = {  # reference values (notes): ε = 0.5, N = 2^10 / 2^15 / 2^20 (digits as printed)
    1: ("1.95e-3", "3.45e-4", "6.1e-5"),
    2: ("1.56e-2", "6.57e-3", "2.76e-3"),
    4: ("4.42e-2", "2.87e-2", "1.86e-2"),
}


@pytest.mark.parametrize("alpha", [1, 2, 4])
def test_theorem_3_lower_bound_matches_the_reference_values(alpha) -> None:
    for n, printed in zip((2**10, 2**15, 2**20), REF_LB[alpha], strict=True):
        mantissa_digits = len(printed.split("e")[0].replace(".", ""))
        value = float(lower_bounds.theorem_3_lower_bound(0.5, n, alpha))
        assert float(f"{value:.{mantissa_digits - 1}e}") == float(printed)


@pytest.mark.parametrize(
    ("eps", "n"), [(0.63, 2**10), (1.0, 2**10), (0.0, 100), (-0.1, 100), (0.01, 100)]
)
def test_theorem_3_rejects_epsilon_above_22_35_or_sixteen_eps_sq_n_below_one(eps, n) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        lower_bounds.theorem_3_lower_bound(eps, n, 1.0)


def test_theorem_3_accepts_epsilon_exactly_22_35() -> None:
    assert lower_bounds.theorem_3_lower_bound(F(22, 35), 100, 1.0) > 0


# Alg. 2 on the constructions, i.i.d. data, lazy sampler. M = 20,000 runs per law; errors lie in
# [0, 2], so Hoeffding gives P(mean <= true mean − t) <= exp(−M t²/2) = 1e-7 at t = sqrt(32.3/M)
# (= 0.040). The test fails only if the larger of the two means plus t is below the bound: for a
# correct implementation (and a true Theorem 3) that has probability <= 8·1e-7 < 1e-6 over the 8
# configurations (it is also far from happening: the bound is < 0.05 and the errors are > 0.1).
THEOREM_3_RUNS = 20_000
THEOREM_3_T = math.sqrt(2 * math.log(1e7) / THEOREM_3_RUNS)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize(("eps", "n"), [(0.5, 2**10), (0.6, 2**16)])
def test_algorithm_2_respects_theorem_3_lower_bound_on_the_constructions(alpha, eps, n) -> None:
    rng = np.random.default_rng(19_000 + int(alpha * 10) + n)
    bound = float(lower_bounds.theorem_3_lower_bound(eps, n, alpha))
    delta = float(lower_bounds.theorem_3_delta(eps, n, alpha))
    f, f_prime = lower_bounds.lower_bound_cdfs(alpha, delta)
    lo, lo_prime = lower_bounds.lower_bound_minima(delta)
    s = schedules.schedule("lower_alpha", n, eps, alpha0=alpha)
    rule = round_statistic.round_rule(n, s.levels, s.gamma, epsilon=eps)
    err_f = np.abs(search.sample_iid(f, rule, THEOREM_3_RUNS, rng) - lo).mean()
    err_fp = np.abs(search.sample_iid(f_prime, rule, THEOREM_3_RUNS, rng) - lo_prime).mean()
    assert max(err_f, err_fp) + THEOREM_3_T >= bound


# ==================================================================================== Theorem 4

# the reference counterexample (notes, errata: Theorem 4): N = 2, Beta(0.5, 1), Δ = 0.02, x_min = 0.98, L = 8, ε = 1, γ = 0.3033
CE = {"n": 2, "alpha": 0.5, "beta": 1.0, "width": 0.02, "x_min": 0.98, "levels": 8, "eps": 1.0}
CE_GAMMA = 0.3033


def test_theorem_4_printed_bound_fails_on_the_reference_counterexample() -> None:
    """Eq. 8 is false: exact Err = 1.414 > 1.018 = 2(2γ/C)^{1/α} + e_γ + 2^{−L} while Eq. 7 holds."""
    data = section_6_1.beta_fixed_data(CE["n"], CE["alpha"], CE["beta"], CE["x_min"], CE["width"])
    assert data.tolist() == [0.98, 1.0]
    c = fatness.beta_fatness_constant(CE["alpha"], CE["beta"], CE["width"])
    assert upper_bounds.theorem_4_condition(CE_GAMMA, c, CE["alpha"], CE["width"])  # 2γ < CΔ^α = 1
    rule = round_statistic.round_rule(CE["n"], CE["levels"], CE_GAMMA, epsilon=CE["eps"])
    err = exact_law.mean_absolute_error_exact(
        exact_law.leaf_probabilities_exact(data, rule), CE["levels"], 0.98
    )
    printed = upper_bounds.theorem_4_bound_printed(
        CE_GAMMA, c, CE["alpha"], CE["n"], CE["levels"], epsilon=1.0
    )
    assert abs(err - mpmath.mpf("1.414")) < 5e-4  # the reference value
    assert abs(printed - mpmath.mpf("1.018")) < 5e-4
    assert err - printed > mpmath.mpf("0.39")
    corrected = upper_bounds.theorem_4_bound_corrected(
        CE_GAMMA, c, CE["alpha"], CE["n"], CE["levels"], epsilon=1.0
    )
    assert corrected - err > mpmath.mpf("0.5")


ALPHAS = [0.5, 0.9, 1.0, 2.0, 4.0]


@st.composite
def fixed_cases(draw, max_n: int, max_levels: int):
    n = draw(st.one_of(st.integers(2, 16), st.integers(2, max_n)))
    levels = draw(st.integers(1, max_levels))
    eps = draw(st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]))
    alpha = draw(st.sampled_from(ALPHAS))
    beta = draw(st.sampled_from([1.0, 2.0]))
    width = draw(st.floats(0.01, 1.0))
    x_min = draw(st.floats(-1.0, 1.0 - width))
    return n, levels, eps, alpha, beta, width, x_min


@given(fixed_cases(10, 7), st.floats(0.01, 0.999))
def test_theorem_4_corrected_bound_holds_on_exact_fixed_data_laws(case, frac) -> None:
    """Err <= 2(2γN/((N − 1)C))^{1/α} + 2^{−L} + 2(1 − (1 − e_γ)^L) whenever Eq. 7 holds (exact)."""
    n, levels, eps, alpha, beta, width, x_min = case
    c = fatness.beta_fatness_constant(alpha, beta, width)
    gamma = float(frac * c * mpmath.mpf(width) ** alpha / 2)
    assume(gamma > 0 and upper_bounds.theorem_4_condition(gamma, c, alpha, width))
    data = section_6_1.beta_fixed_data(n, alpha, beta, x_min, width)
    rule = round_statistic.round_rule(n, levels, gamma, epsilon=eps)
    err = exact_law.mean_absolute_error_exact(
        exact_law.leaf_probabilities_exact(data, rule), levels, float(data[0])
    )
    bound = upper_bounds.theorem_4_bound_corrected(gamma, c, alpha, n, levels, epsilon=eps)
    assert bound - err > MARGIN


@given(
    fixed_cases(2, 10),
    st.sampled_from([0.5, 1.0, 2.0, 4.0, 8.0]),
    st.floats(0.2, 0.999),
    st.floats(1.0, 4.0),
)
def test_theorem_4_printed_bound_holds_when_e_gamma_is_at_most_0_2(case, u, frac, spread) -> None:
    """The printed Eq. 8 holds whenever e_γ <= 0.2 (no counterexample there in the reference
    search; ``notes/fukuchi19.md``, errata: Theorem 4). Here γ satisfies Eq. 7 and N is drawn
    above the smallest N with e_γ <= 0.2 (float tree law; pruned mass counted as 2)."""
    _, levels, _, alpha, beta, width, x_min = case
    eps = u * levels
    c = float(fatness.beta_fatness_constant(alpha, beta, width))
    gamma = frac * c * width**alpha / 2
    a = math.exp(u)
    n_min = math.log(5) * 4 * a * (a + 1) / ((a - 1) ** 2 * gamma**2)
    n = max(2, math.ceil(n_min * spread))
    assume(n <= 4096 and upper_bounds.theorem_4_condition(gamma, c, alpha, width))
    assert float(concentration.e_gamma_exact(n, gamma, u=eps / levels)) <= 0.2
    data = section_6_1.beta_fixed_data(n, alpha, beta, x_min, width)
    law = exact_law.leaf_probabilities(
        data, round_statistic.round_rule(n, levels, gamma, epsilon=eps)
    )
    err = law.mean_absolute_error(float(data[0])) + 2 * law.pruned
    printed = float(upper_bounds.theorem_4_bound_printed(gamma, c, alpha, n, levels, epsilon=eps))
    assert err <= printed * (1 - 1e-9)


# ==================================================================================== Theorem 5


def _beta_cdf_mp(x_min: float, width: float, alpha: float):
    """Exact CDF of x_min + width·Beta(α, 1) on dyadic Fractions (mpf values)."""

    def cdf(x: Fraction) -> mpmath.mpf:
        with workdps():
            z = (to_mpf(x) - to_mpf(x_min)) / to_mpf(width)
            if z <= 0:
                return mpmath.mpf(0)
            return mpmath.mpf(1) if z >= 1 else z ** to_mpf(alpha)

    return cdf


def _beta_cdf_np(x_min: float, width: float, alpha: float):
    def cdf(x):
        return np.clip((np.asarray(x, dtype=float) - x_min) / width, 0.0, 1.0) ** alpha

    return cdf


def test_theorem_5_printed_bound_fails_on_the_exact_iid_law() -> None:
    """Eq. 10 is false too: i.i.d. Beta(0.5, 1) on [0.98, 1], N = 2, L = 8, ε = 1, γ = 0.3033 (Eq. 9
    holds) has exact Err = 1.414 > 1.024 = the printed bound; the corrected bound (2.024) holds."""
    rule = round_statistic.round_rule(2, 8, CE_GAMMA, epsilon=1.0)
    probs = exact_law.iid_leaf_probabilities_exact(_beta_cdf_mp(0.98, 0.02, 0.5), rule)
    err = exact_law.mean_absolute_error_exact(probs, 8, 0.98)
    c = fatness.beta_fatness_constant(0.5, 1.0, 0.02)
    assert upper_bounds.theorem_4_condition(CE_GAMMA, c, 0.5, 0.02)
    printed = upper_bounds.theorem_5_bound_printed(CE_GAMMA, c, 0.5, 2, 8, epsilon=1.0)
    corrected = upper_bounds.theorem_5_bound_corrected(CE_GAMMA, c, 0.5, 2, 8, epsilon=1.0)
    assert err - printed > mpmath.mpf("0.38")
    assert corrected - err > mpmath.mpf("0.6")


@given(
    st.integers(1, 5),
    st.integers(1, 5),
    st.sampled_from([0.5, 1.0, 4.0, 16.0]),
    st.sampled_from(ALPHAS),
    st.floats(0.01, 1.0),
    st.floats(0.0, 0.999),
    st.floats(0.01, 0.999),
)
def test_theorem_5_corrected_bound_holds_on_exact_iid_laws(
    n, levels, eps, alpha, width, pos, frac
) -> None:
    """i.i.d. Beta(α, 1) (x̄ = support maximum): exact Err <= corrected Eq. 10 (tiny N, L)."""
    x_min = -1.0 + pos * (2.0 - width)
    c = fatness.beta_fatness_constant(alpha, 1.0, width)
    gamma = float(frac * c * mpmath.mpf(width) ** alpha / 2)
    assume(gamma > 0 and math.ceil(2 * F(gamma) * n) <= n)
    rule = round_statistic.round_rule(n, levels, gamma, epsilon=eps)
    probs = exact_law.iid_leaf_probabilities_exact(_beta_cdf_mp(x_min, width, alpha), rule)
    err = exact_law.mean_absolute_error_exact(probs, levels, x_min)
    bound = upper_bounds.theorem_5_bound_corrected(gamma, c, alpha, n, levels, epsilon=eps)
    assert bound - err > MARGIN


# Monte Carlo: M = 40,000 runs of the lazy i.i.d. sampler per configuration; errors in [0, 2], so
# P(mean >= true mean + t) <= exp(−M t²/2) = 1e-7 at t = sqrt(32.3/M) (= 0.028). A correct
# implementation of a true bound fails (mean − t > bound) with probability <= 4e-7 over the 4 cases.
THEOREM_5_RUNS = 40_000
THEOREM_5_T = math.sqrt(2 * math.log(1e7) / THEOREM_5_RUNS)


@pytest.mark.parametrize(
    ("n", "levels", "eps", "alpha", "width", "x_min", "gamma"),
    [
        (2, 8, 1.0, 0.5, 0.02, 0.98, CE_GAMMA),  # the counterexample of the printed form
        (64, 6, 4.0, 1.0, 0.3, -1.0, 0.12),
        (1024, 5, 4.0, 1.0, 0.3, -0.32, 0.2544),  # Lower-α schedule's γ at N = 2^10
        (4096, 6, 4.0, 2.0, 0.9, -1.0, 0.1611),
    ],
)
def test_theorem_5_corrected_bound_holds_by_monte_carlo(
    n, levels, eps, alpha, width, x_min, gamma
) -> None:
    c = fatness.beta_fatness_constant(alpha, 1.0, width)
    assert upper_bounds.theorem_4_condition(gamma, c, alpha, width)
    rule = round_statistic.round_rule(n, levels, gamma, epsilon=eps)
    rng = np.random.default_rng(5_000 + n)
    out = search.sample_iid(_beta_cdf_np(x_min, width, alpha), rule, THEOREM_5_RUNS, rng)
    mean = float(np.abs(out - x_min).mean())
    bound = float(upper_bounds.theorem_5_bound_corrected(gamma, c, alpha, n, levels, epsilon=eps))
    assert mean - THEOREM_5_T <= bound


def test_theorem_5_printed_bound_fails_by_monte_carlo_too() -> None:
    """The same counterexample by the lazy sampler: mean − t > printed bound (t as above, so a
    correct sampler of a law with Err <= the printed bound would pass here w.p. <= 1e-7)."""
    rule = round_statistic.round_rule(2, 8, CE_GAMMA, epsilon=1.0)
    out = search.sample_iid(
        _beta_cdf_np(0.98, 0.02, 0.5), rule, THEOREM_5_RUNS, np.random.default_rng(7)
    )
    c = fatness.beta_fatness_constant(0.5, 1.0, 0.02)
    printed = float(upper_bounds.theorem_5_bound_printed(CE_GAMMA, c, 0.5, 2, 8, epsilon=1.0))
    assert float(np.abs(out - 0.98).mean()) - THEOREM_5_T > printed


# ====================================================================================== Lemma 1

# Smallest counterexample (exhaustive over N = 1, 2, L = 1, 2, 3, e^u ∈ RATIONAL_EXP_U, γ and data
# on a grid; L = 1 never violates it, see the next test): N = 1, x = 1, L = 2, e^u = 3, γ = 1/2.
# Every τ < q = 1 is "far", each round goes left (a mistake) w.p. 1/4, so the printed right-hand
# side is δ + 1/4 + 1/4 for small δ, while E|x̃ − q| = (7 + 15 + 9 + 9)/64 = 5/8.


@pytest.mark.parametrize("reading", ["conditional", "marginal"])
def test_lemma_1_printed_bound_fails_on_the_smallest_counterexample(reading) -> None:
    rule = round_statistic.round_rule(1, 2, 0.5, exp_u=3)
    report = search_error.lemma_1_report([1.0], rule, F(1, 16), reading=reading)
    assert report.error == F(5, 8)
    assert report.printed_rhs == F(9, 16)  # 1/16 + 1/4 + 1/4
    assert report.error > report.printed_rhs
    infimum, delta = search_error.lemma_1_printed_infimum([1.0], rule, reading=reading)
    assert (infimum, delta) == (F(1, 2), 0)  # approached as δ → 0+
    # the corrected forms hold
    assert report.error <= report.tight_rhs <= report.corrected_rhs


def test_lemma_1_printed_bound_fails_for_two_users_too() -> None:
    """A fixed-data case (N = 2, data (1, 1), L = 2, e^u = 2, γ = 1/4): E|x̃ − q| − inf RHS = 5/18."""
    rule = round_statistic.round_rule(2, 2, 0.25, exp_u=2)
    report = search_error.lemma_1_report([1.0, 1.0], rule, 0)
    infimum, _ = search_error.lemma_1_printed_infimum([1.0, 1.0], rule)
    assert report.error - infimum == F(5, 18)


@given(
    st.lists(unit_floats, min_size=1, max_size=4),
    st.sampled_from(RATIONAL_EXP_U),
    st.floats(1e-3, 1.0),
)
def test_lemma_1_printed_bound_cannot_fail_with_one_round(data, a, gamma) -> None:
    """With L = 1, E|x̃ − q| <= inf_δ RHS always (so L = 2 is the smallest counterexample)."""
    rule = round_statistic.round_rule(len(data), 1, gamma, exp_u=a)
    report = search_error.lemma_1_report(data, rule, 0)
    infimum, _ = search_error.lemma_1_printed_infimum(data, rule)
    assert report.error <= infimum


@given(
    st.lists(unit_floats, min_size=1, max_size=5),
    st.integers(1, 5),
    st.sampled_from(RATIONAL_EXP_U),
    st.floats(1e-3, 1.0),
    st.fractions(0, 2, max_denominator=64),
)
def test_lemma_1_corrected_bound_holds_exactly(data, levels, a, gamma, delta) -> None:
    """E|x̃ − q| <= δ + 2^{−L} + 2·P(far mistake) <= δ + 2^{−L} + 2(1 − (1 − π_δ)^L) (Fractions)."""
    rule = round_statistic.round_rule(len(data), levels, gamma, exp_u=a)
    report = search_error.lemma_1_report(data, rule, delta)
    assert report.error <= report.tight_rhs <= report.corrected_rhs
    assert report.far_mistake_probability <= 1 - (1 - report.max_far_mistake) ** levels


# ==================================================================================== Example 1

EXAMPLE_1_GRID = [
    (0.5, 1.0),
    (0.9, 1.0),
    (1.0, 1.0),
    (2.0, 1.0),
    (4.0, 1.0),
    (0.5, 2.0),
    (0.9, 2.0),
    (1.0, 2.0),
    (2.0, 2.0),
    (4.0, 2.0),
    (0.5, 3.0),
    (2.0, 0.5),
    (3.0, 3.0),
]


def _y_grid() -> list[mpmath.mpf]:
    with workdps():
        return [mpmath.mpf(10) ** -e for e in range(12, 0, -1)] + [
            mpmath.mpf(j) / 64 for j in range(1, 65)
        ]


@pytest.mark.parametrize(("alpha", "beta"), EXAMPLE_1_GRID)
def test_example_1_beta_is_alpha_fat_with_the_min_constant_and_it_is_the_best(alpha, beta) -> None:
    """I_y(α, β) >= C·y^α on (0, 1] with C = min{1, 1/(αB)}, and no larger C works (Δ = 1)."""
    c = fatness.beta_fatness_constant(alpha, beta)
    with workdps():
        ratios = [
            fatness.beta_cdf_exact(y, alpha, beta) / (c * y ** to_mpf(alpha)) for y in _y_grid()
        ]
        assert min(ratios) >= 1 - MARGIN
        assert min(ratios) <= 1 + mpmath.mpf(10) ** -6  # attained as y → 0 or at y = 1


@pytest.mark.parametrize(("alpha", "beta"), EXAMPLE_1_GRID)
def test_example_1_paper_max_constant_fails_unless_alpha_b_equals_one(alpha, beta) -> None:
    """With the printed max, I_y >= C·y^α fails somewhere iff αB(α, β) != 1 (i.e. β != 1 here)."""
    c_max = fatness.beta_fatness_constant(alpha, beta, form="paper_max")
    with workdps():
        a_b = to_mpf(alpha) * mpmath.beta(alpha, beta)
        worst = min(
            fatness.beta_cdf_exact(y, alpha, beta) - c_max * y ** to_mpf(alpha) for y in _y_grid()
        )
        if abs(a_b - 1) < MARGIN:
            assert worst >= -MARGIN
        else:
            assert worst < -(mpmath.mpf(10) ** -14)


def test_example_1_max_counterexample_alpha_1_beta_2() -> None:
    """α = 1, β = 2: F(y) = 2y − y² < 2y = C_max·y for every y ∈ (0, 1]."""
    assert abs(fatness.beta_fatness_constant(1.0, 2.0, form="paper_max") - 2) < MARGIN
    assert abs(fatness.beta_fatness_constant(1.0, 2.0) - 1) < MARGIN
    with workdps():
        for y in _y_grid():
            assert abs(fatness.beta_cdf_exact(y, 1.0, 2.0) - (2 * y - y**2)) < MARGIN
            assert 2 * y - fatness.beta_cdf_exact(y, 1.0, 2.0) > y**2 / 2


def test_example_1_constant_scales_with_the_width() -> None:
    """C(Δ) = C(1)/Δ^α: x_min + ΔX has F(x) = I_{(x − x_min)/Δ}."""
    for alpha, beta in EXAMPLE_1_GRID:
        assert (
            abs(
                fatness.beta_fatness_constant(alpha, beta, 0.3) * _mp(0.3) ** alpha
                - fatness.beta_fatness_constant(alpha, beta)
            )
            < MARGIN
        )


# ==================================================================================== Example 2


def test_example_2_truncated_normal_constant_is_0_354437_on_minus_one_one() -> None:
    c = fatness.truncated_normal_fatness_constant(0.0, 1.0, -1.0, 1.0)
    assert abs(c - mpmath.mpf("0.354437")) < 5e-7
    with workdps():
        mass = mpmath.ncdf(1) - mpmath.ncdf(-1)
        xs = [mpmath.mpf(-1) + mpmath.mpf(10) ** -e for e in range(12, 0, -1)]
        xs += [mpmath.mpf(j) / 32 - 1 for j in range(1, 65)]
        ratios = [(mpmath.ncdf(x) - mpmath.ncdf(-1)) / mass / (x + 1) for x in xs]
        assert min(ratios) >= c * (1 - MARGIN)
        assert min(ratios) <= c * (1 + mpmath.mpf(10) ** -6)  # = min F(x)/(x + 1), as x → −1


@given(
    st.floats(-1.0, 1.0),
    st.floats(0.05, 3.0),
    st.floats(-1.0, 0.9),
    st.floats(0.05, 1.0),
)
def test_example_2_truncated_normal_is_one_fat_with_the_printed_constant(mu, sigma, lo, w) -> None:
    hi = min(lo + w, 1.0)
    c = fatness.truncated_normal_fatness_constant(mu, sigma, lo, hi)
    with workdps():
        a, b = (to_mpf(lo) - to_mpf(mu)) / to_mpf(sigma), (to_mpf(hi) - to_mpf(mu)) / to_mpf(sigma)
        mass = fatness.normal_mass(a, b)
        for j in range(1, 41):
            x = to_mpf(lo) + (to_mpf(hi) - to_mpf(lo)) * j / 40
            cdf = fatness.normal_mass(a, (x - to_mpf(mu)) / to_mpf(sigma)) / mass
            assert cdf >= c * (x - to_mpf(lo)) * (1 - MARGIN)


def test_example_2_remark_any_truncated_distribution_needs_a_density_bounded_away_from_zero() -> (
    None
):
    """'Any truncated distribution is 1-fat' fails for Gamma(2, 1) truncated to [0, 1] (density
    x·e^{−x}/Z vanishes at x_min = 0): F(x)/x → 0, so no C > 0 works."""
    with workdps():
        z = mpmath.gammainc(2, 0, 1)

        def cdf(x):
            return mpmath.gammainc(2, 0, x) / z

        ratios = [cdf(mpmath.mpf(10) ** -e) / mpmath.mpf(10) ** -e for e in range(1, 12)]
        assert all(r2 < r1 for r1, r2 in zip(ratios, ratios[1:], strict=False))
        assert ratios[-1] < mpmath.mpf(10) ** -10


# =============================================================================== Eqs. 45–46, 11


@pytest.mark.parametrize(
    ("k", "n", "alpha"), [(1, 1, 1.0), (1, 10, 0.5), (3, 10, 2.0), (7, 20, 0.9), (50, 64, 4.0)]
)
def test_eqs_45_46_beta_order_statistic_moment_matches_quadrature(k, n, alpha) -> None:
    """E[U_(k)^{1/α}] = Γ(k + 1/α)Γ(N + 1)/(Γ(N + 1 + 1/α)Γ(k)), U_(k) ~ Beta(k, N − k + 1)."""
    moment = upper_bounds.beta_order_statistic_moment(k, n, alpha)
    with workdps():
        s = 1 / to_mpf(alpha)
        norm = mpmath.beta(k, n - k + 1)
        quad = mpmath.quad(lambda t: t**s * t ** (k - 1) * (1 - t) ** (n - k), [0, 1]) / norm
        ratio = mpmath.beta(k + s, n - k + 1) / norm
        assert abs(quad - moment) < mpmath.mpf(10) ** -30
        assert abs(ratio - moment) < MARGIN


def test_eq_11_ratio_tends_to_one_at_the_reference_values() -> None:
    """γ = N^{−1/2}, α = 0.5: 1.0390, 1.0033, 1.0003, 1.00003 at N = 10^3, 10^5, 10^7, 10^9."""
    expected = {10**3: "1.0390", 10**5: "1.0033", 10**7: "1.0003", 10**9: "1.00003"}
    previous = None
    for n, printed in expected.items():
        with workdps():
            value = upper_bounds.eq_11_ratio(1 / mpmath.sqrt(n), n, 0.5)
        decimals = len(printed.split(".")[1])
        assert abs(value - mpmath.mpf(printed)) <= mpmath.mpf(10) ** -decimals / 2
        assert previous is None or abs(value - 1) < abs(previous - 1)
        previous = value


# =============================================================================== Sec. 6.1: f(u)


def test_section_6_1_f_exceeds_two_over_u_squared_by_its_power_series() -> None:
    """u²f(u) − 2 = g(u)/(e^u − 1)², g = u²(e^u + e^{2u}) − 2e^{2u} + 4e^u − 2 = Σ g_n u^n with
    g_0 = g_1 = g_2 = 0 and g_n = [n(n − 1) + 4 + 2^{n−2}(n(n − 1) − 8)]/n! > 0 for n >= 3, so
    f(u) > 2/u² for every u > 0: the bound (f(u))^{1/(2α)} <= (2L²/ε²)^{1/(2α)} never holds."""
    u = sp.symbols("u", positive=True)
    g = u**2 * (sp.exp(u) + sp.exp(2 * u)) - 2 * sp.exp(2 * u) + 4 * sp.exp(u) - 2
    f = sp.exp(u) * (1 + sp.exp(u)) / (sp.exp(u) - 1) ** 2
    assert sp.simplify(u**2 * f - 2 - g / (sp.exp(u) - 1) ** 2) == 0
    series = sp.series(g, u, 0, 25).removeO()
    for n in range(25):
        coefficient = F(str(sp.Rational(series.coeff(u, n))))
        assert coefficient == section_6_1.section_6_1_series_coefficient(n)
    n = sp.symbols("n", integer=True)
    # for n >= 4: n(n − 1) − 8 >= 4 > 0, so every summand is positive; n = 3 gives 6/3! = 1
    assert sp.solve_univariate_inequality(n * (n - 1) - 8 > 0, n, relational=False).contains(4)
    assert section_6_1.section_6_1_series_coefficient(3) == 1
    assert all(section_6_1.section_6_1_series_coefficient(m) > 0 for m in range(3, 400))


def test_section_6_1_u_squared_f_is_above_two_with_margin_and_increasing() -> None:
    """u²f(u) − 2 > u/2 on a log grid of u ∈ [1e-8, 700] (the series gives u + u²/3 + …), and
    u²f(u) increases, so f(u) <= K/u² for u <= u₀ with K = u₀²f(u₀)."""
    grid = np.logspace(-8, math.log10(700.0), 300)
    values = []
    with workdps():
        for x in grid:
            u = to_mpf(float(x))
            v = u**2 * section_6_1.section_6_1_f(float(x))
            assert v - 2 > u / 2
            values.append(v)
    assert all(b > a for a, b in zip(values, values[1:], strict=False))


def test_section_6_1_u_squared_f_matches_the_reference_values() -> None:
    for u, printed in [
        (0.01, "2.01"),
        (0.2, "2.21"),
        (0.5, "2.594"),
        (1.0, "3.423"),
        (2.0, "6.07"),
    ]:
        with workdps():
            value = to_mpf(u) ** 2 * section_6_1.section_6_1_f(u)
        decimals = len(printed.split(".")[1])
        assert abs(value - mpmath.mpf(printed)) <= mpmath.mpf(10) ** -decimals / 2


def test_section_6_1_float_f_matches_the_exact_one() -> None:
    u = np.array([1e-6, 0.01, 0.5, 1.0, 4.0, 30.0, 700.0])
    vf = section_6_1.section_6_1_f_float(u)
    for i, x in enumerate(u):
        assert math.isclose(vf[i], float(section_6_1.section_6_1_f(float(x))), rel_tol=1e-9)


# ================================================================================= bad input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: concentration.lemma_2_bound(10, 0.1, 0.5), "exactly one"),
        (lambda: concentration.lemma_2_bound(10, 0.1, 0.5, u=-1.0), "u"),
        (lambda: concentration.lemma_2_bound(0, 0.1, 0.5, u=1.0), "n"),
        (lambda: concentration.phi_tail_exact(10, 11, 0.5, ">", u=1.0), "k"),
        (lambda: concentration.phi_tail_exact(10, 1, 0.5, "!=", u=1.0), "event"),
        (lambda: upper_bounds.theorem_4_bound_corrected(0.1, 1.0, 1.0, 1, 3, epsilon=1.0), "n"),
        (lambda: upper_bounds.theorem_5_bound_printed(0.6, 1.0, 1.0, 10, 3, epsilon=1.0), "gamma"),
        (lambda: fatness.beta_fatness_constant(1.0, 2.0, form="max"), "form"),
        (lambda: lower_bounds.lower_bound_cdfs(1.0, 0.5), "delta"),
        (lambda: section_6_1.section_6_1_f_float([0.0, 1.0]), "u"),
        (lambda: fatness.truncated_normal_fatness_constant(0.0, 1.0, 1.0, -1.0), "x_min"),
    ],
)
def test_bounds_reject_bad_input_naming_the_parameter(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()
