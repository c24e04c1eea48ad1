"""The catalogue's fukuchi19 expressions are the implementation's quantities (and the exact laws
of Algorithm 2 that it writes out are the implementation's exact laws)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue import fukuchi19 as cat
from dpquant.certify.catalogue import fukuchi19_laws as laws
from dpquant.certify.expressions import enclose
from dpquant.reference.ldp_minimum import (
    concentration,
    exact_law,
    fatness,
    lower_bounds,
    round_statistic,
    search_error,
    section_6_1,
    upper_bounds,
)

F = Fraction
RATIONAL_EXP_U = [F(5, 4), F(3, 2), F(2), F(3), F(9)]
CE_GAMMA = 0.3033  # the ledger's counterexample, the float whose m* is the catalogue's


def _value(text: str, point: dict[str, Fraction]) -> mpmath.mpf:
    return mpmath.mpf(enclose(text, point, precision=200).mid().str(50, radius=False))


def _close(a: mpmath.mpf, b: mpmath.mpf, tol: float = 1e-12) -> bool:
    return bool(abs(a - b) <= tol * max(1, abs(b)))


@settings(max_examples=20)
@given(st.floats(0.2, 5.0), st.floats(0.01, 22 / 35), st.integers(1, 2**20))
def test_theorem_3_expressions_are_the_implementations_delta_and_bounds(
    alpha: float, eps: float, n: int
) -> None:
    assume(16 * F(eps) ** 2 * n >= 1 and lower_bounds.theorem_3_delta(eps, n, alpha) < 0.5)
    point = {"alpha": F(alpha), "eps": F(eps), "N": F(n)}
    delta = lower_bounds.theorem_3_delta(eps, n, alpha)
    tv = lower_bounds.lower_bound_tv(alpha, delta)
    with mpmath.workdps(40):
        assert _close(_value(cat.THEOREM_3_DELTA, point), delta)
        assert _close(_value(cat.THEOREM_3_TV, point), tv)
        assert _close(_value(cat.THEOREM_7_BOUND, point), lower_bounds.theorem_7_bound(delta, n, eps, tv))
        assert _close(_value(cat.THEOREM_3_BOUND, point), lower_bounds.theorem_3_lower_bound(eps, n, alpha))


@settings(max_examples=20)
@given(st.floats(0.01, 10.0), st.integers(1, 500), st.floats(0, 1), st.floats(-0.5, 1.5))
def test_lemma_2_rates_are_the_implementations_exponents(u: float, n: int, f: float, g: float) -> None:
    """At w = e^{−u}: N(F̃ − γ)²·rate is −ln of Lemma 2's bound and of Hoeffding's, and the goal
    is their difference over (1 − w)²."""
    assume(abs(f - g) > 1e-3)
    with mpmath.workdps(60):
        w = F(mpmath.nstr(mpmath.exp(-mpmath.mpf(u)), 50))
        scale = n * (mpmath.mpf(f) - mpmath.mpf(g)) ** 2
        lemma = _value(cat.LEMMA_2_RATE, {"w": w}) * scale
        hoeffding = _value(cat.HOEFFDING_RATE, {"w": w}) * scale
        assert _close(lemma, -mpmath.log(concentration.lemma_2_bound(n, f, g, u=u)), 1e-9)
        assert _close(hoeffding, -mpmath.log(concentration.hoeffding_bound(n, f, g, u=u)), 1e-9)
        goal = _value(cat.LEMMA_2.parts[0].goal.expression, {"w": w})
        one_minus = 1 - mpmath.mpf(w.numerator) / w.denominator
        assert _close(goal * one_minus**2 * scale, hoeffding - lemma, 1e-9)


@settings(max_examples=20)
@given(st.integers(1, 60), st.data(), st.floats(0.2, 5.0))
def test_eqs_45_46_expressions_are_the_implementations_moment(n: int, data: st.DataObject, alpha: float) -> None:
    k = data.draw(st.integers(1, n))
    point = {"alpha": F(alpha), "k": F(k), "N": F(n)}
    moment = upper_bounds.beta_order_statistic_moment(k, n, alpha)
    with mpmath.workdps(40):
        for text in (cat.EQ_45_BETA_RATIO, cat.EQ_46_GAMMA_FORM, cat.EQ_46_RISING):
            assert _close(_value(text, point), moment)
        rising = upper_bounds.rising_factorial(k, 1 / alpha) / upper_bounds.rising_factorial(n + 1, 1 / alpha)
        assert _close(_value(cat.EQ_46_RISING, point), rising, 1e-9)  # 1/α rounded once here


@settings(max_examples=20)
@given(st.integers(1, 20), st.data(), st.sampled_from(RATIONAL_EXP_U))
def test_phi_prime_mean_expression_is_the_exact_mean_of_the_rounds_law(
    n: int, data: st.DataObject, a: Fraction
) -> None:
    k = data.draw(st.integers(0, n))
    rule = round_statistic.round_rule(n, 1, 0.5, exp_u=a)
    pmf = round_statistic.plus_count_pmf_exact(rule, k)
    c = (a + 1) / (a - 1)
    mean = sum(w * (c * (2 * j - n) / (2 * n) + F(1, 2)) for j, w in enumerate(pmf))
    with mpmath.workdps(40):
        value = _value(cat.PHI_PRIME_MEAN, {"a": a, "N": F(n), "k": F(k)})
        assert abs(value - mpmath.mpf(mean.numerator) / mean.denominator) < mpmath.mpf(10) ** -35


@settings(max_examples=20)
@given(st.floats(1e-3, 700.0))
def test_section_6_1_expression_is_the_implementations_f(u: float) -> None:
    with mpmath.workdps(40):
        assert _close(_value(cat.SECTION_6_1_F, {"u": F(u)}), section_6_1.section_6_1_f(u))


def test_section_6_1_series_is_the_implementations_and_bounds_g_over_u_cubed() -> None:
    for n in range(40):
        assert cat.series_coefficient(n) == section_6_1.section_6_1_series_coefficient(n)
    lower = cat.SECTION_6_1_BOUND.parts[0].goal.expression
    with mpmath.workdps(60):
        for u in (F(1, 1000), F(1, 10), F(1, 2), F(1)):
            x = mpmath.mpf(u.numerator) / u.denominator
            g = x**2 * (mpmath.exp(x) + mpmath.exp(2 * x)) - 2 * mpmath.exp(2 * x) + 4 * mpmath.exp(x) - 2
            assert 0 < _value(lower, {"u": u}) <= g / x**3


def test_example_1_expressions_are_the_printed_constant_and_the_beta_cdf() -> None:
    point = {"alpha": F(1), "beta": F(2), "y": F(1, 2)}
    with mpmath.workdps(40):
        assert _close(_value(cat.EXAMPLE_1_C_PRINTED, point),
                      fatness.beta_fatness_constant(1.0, 2.0, form="paper_max"))
        assert _close(_value(cat.EXAMPLE_1_CDF, point), fatness.beta_cdf_exact(0.5, 1.0, 2.0))


def test_example_2_remark_expressions_are_the_truncated_gamma_law() -> None:
    """1 − e^{−x}(1 + x) is P(X <= x), X ~ Gamma(2, 1) (the law of the ledger's check); the
    Taylor coefficients are sympy's; the goal near 0 bounds (x²/2 − P(X <= x))/x³ from below."""
    x = sp.symbols("x")
    series = sp.series(sp.exp(-x) * (1 + x), x, 0, 20).removeO()
    for n in range(20):
        assert cat.remark_coefficient(n) == F(str(sp.Rational(series.coeff(x, n))))
    lower = cat.EXAMPLE_2_REMARK.parts[0].goal.expression
    with mpmath.workdps(60):
        for t in (F(1, 1000), F(1, 7), F(1, 2), F(1)):
            v = mpmath.mpf(t.numerator) / t.denominator
            mass = mpmath.gammainc(2, 0, v)
            assert _close(_value(cat.GAMMA_2_MASS, {"x": t}), mass, 1e-30)
            if t <= F(1, 2):
                assert 0 < _value(lower, {"x": t}) <= (v**2 / 2 - mass) / v**3

def test_lemma_1_goals_are_the_implementations_exact_gap() -> None:
    """At N = 1, x = 1, L = 2, e^u = 3, γ = 1/2, δ = 1/16 both goals are E|x̃ − q| − RHS = 1/16."""
    rule = round_statistic.round_rule(1, 2, 0.5, exp_u=3)
    for part, reading in zip(cat.LEMMA_1.parts, ("conditional", "marginal"), strict=True):
        report = search_error.lemma_1_report([1.0], rule, F(1, 16), reading=reading)
        gap = report.error - report.printed_rhs
        assert gap == F(1, 16)
        value = enclose(part.goal.expression, {k: F(v) for k, v in part.points[0].items()})
        assert abs(float(value.mid()) - float(gap)) < 1e-30 and float(value.rad()) < 1e-30


def test_theorem_4_expressions_are_the_implementations_law_and_bound() -> None:
    data = section_6_1.beta_fixed_data(2, 0.5, 1.0, 0.98, 0.02)
    assert [F(x) for x in data] == [F(0.98), F(1)]
    rule = round_statistic.round_rule(2, cat.LEVELS, CE_GAMMA, epsilon=1.0)
    assert rule.threshold == cat.CE_THRESHOLD
    point = {k: F(v) for k, v in cat.CE_POINT.items()}
    err = exact_law.mean_absolute_error_exact(exact_law.leaf_probabilities_exact(data, rule), 8, 0.98)
    c = fatness.beta_fatness_constant(0.5, 1.0, 0.02)
    printed = upper_bounds.theorem_4_bound_printed(CE_GAMMA, c, 0.5, 2, 8, epsilon=1.0)
    with mpmath.workdps(40):
        assert _close(_value(cat.THEOREM_4_ERROR, point), err, 1e-14)
        assert _close(_value(cat.THEOREM_4_PRINTED, point), printed, 1e-14)
        assert _close(_value(cat.C_FAT, point), c, 1e-14)


def test_theorem_5_expressions_are_the_implementations_iid_law_and_bound() -> None:
    def cdf(x: Fraction) -> mpmath.mpf:
        z = min(max((x - cat.CE_X_MIN) / cat.CE_WIDTH, F(0)), F(1))
        return mpmath.sqrt(mpmath.mpf(z.numerator) / z.denominator)

    rule = round_statistic.round_rule(2, cat.LEVELS, CE_GAMMA, epsilon=1.0)
    point = {k: F(v) for k, v in cat.CE_POINT.items()}
    with mpmath.workdps(60):
        probs = exact_law.iid_leaf_probabilities_exact(cdf, rule)
        err = exact_law.mean_absolute_error_exact(probs, 8, cat.CE_X_MIN)
    c = fatness.beta_fatness_constant(0.5, 1.0, 0.02)
    printed = upper_bounds.theorem_5_bound_printed(CE_GAMMA, c, 0.5, 2, 8, epsilon=1.0)
    with mpmath.workdps(40):
        assert _close(_value(cat.THEOREM_5_ERROR, point), err, 1e-14)
        assert _close(_value(cat.THEOREM_5_PRINTED, point), printed, 1e-14)


@settings(max_examples=25)
@given(
    st.lists(st.integers(-64, 64), min_size=1, max_size=3),
    st.integers(1, 5),
    st.sampled_from(RATIONAL_EXP_U),
    st.floats(0.05, 1.0),
    st.integers(-64, 64),
)
def test_tree_builder_is_the_implementations_exact_fixed_data_law(
    grid: list[int], levels: int, a: Fraction, gamma: float, target: int
) -> None:
    """The written-out law (closed form on subtrees without data or target) is the exact tree law."""
    data = [F(g, 64) for g in grid]
    rule = round_statistic.round_rule(len(data), levels, gamma, exp_u=a)
    keep, flip = f"({laws.q(a)}/(1 + {laws.q(a)}))", f"(1/(1 + {laws.q(a)}))"
    text = laws.fixed_data_error(data, levels, rule.threshold, keep, flip, F(target, 64))
    probs = exact_law.leaf_probabilities_exact(np.array([float(x) for x in data]), rule)
    exact = exact_law.mean_absolute_error_exact(probs, levels, F(target, 64))
    value = enclose(text, {}, precision=200)
    assert abs(float(value.mid()) - float(exact)) < 1e-15 and float(value.rad()) < 1e-30


@settings(max_examples=10)
@given(st.integers(1, 2), st.integers(1, 4), st.sampled_from(RATIONAL_EXP_U), st.floats(0.05, 1.0),
       st.integers(-16, 14), st.integers(1, 16))
def test_iid_builder_is_the_implementations_exact_iid_law(
    n: int, levels: int, a: Fraction, gamma: float, lo16: int, width16: int
) -> None:
    """Uniform data on [lo, hi] (a rational CDF): the mixture is the exact i.i.d. tree law."""
    lo, hi = F(lo16, 16), min(F(lo16 + width16, 16), F(1))
    assume(hi > lo)
    rule = round_statistic.round_rule(n, levels, gamma, exp_u=a)
    assume(any(lo <= t < hi for _, t in laws.tree_nodes(levels)))

    def cdf(x: Fraction) -> Fraction:
        return min(max((x - lo) / (hi - lo), F(0)), F(1))

    keep, flip = f"({laws.q(a)}/(1 + {laws.q(a)}))", f"(1/(1 + {laws.q(a)}))"
    text = laws.iid_error(n, levels, rule.threshold, keep, flip, lambda t: laws.q(cdf(t)), (lo, hi), lo)
    probs = exact_law.iid_leaf_probabilities_exact(cdf, rule)
    exact = exact_law.mean_absolute_error_exact(probs, levels, lo)
    value = enclose(text, {}, precision=200)
    assert abs(float(value.mid()) - float(exact)) < 1e-15 and float(value.rad()) < 1e-30

