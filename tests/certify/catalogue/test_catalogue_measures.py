"""The catalogue's measures expressions are the implementation's quantities (or the exact law's)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue.measures import (
    BW18_THEOREM_8,
    DISCRETE_GAUSSIAN_NOT_GDP,
    theta_upper,
)
from dpquant.certify.expressions import enclose
from dpquant.reference.exact.mp import workdps
from dpquant.reference.measures.conversions import gdp_delta
from dpquant.reference.primitives.discrete_gaussian import DiscreteGaussianLaw


def _fraction(x: mpmath.mpf) -> Fraction:
    return Fraction(mpmath.nstr(x, 45, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


def test_discrete_gaussian_counterexample_is_the_laws_total_variation_against_gdp_delta() -> None:
    """At σ = 2: 1/θ_upper is the discrete Gaussian's mass at its centre (the pair's total
    variation) to 1e-20, and erf(1/(2√2σ)) is gdp_delta(1/σ, 0); the certified goal is their
    difference."""
    law = DiscreteGaussianLaw(2)
    shifted = DiscreteGaussianLaw(2, loc=1)
    with workdps():
        tv = sum(max(law.pmf_mp(k) - shifted.pmf_mp(k), 0) for k in range(-60, 61))
        assert abs(tv - law.pmf_mp(0)) < mpmath.mpf(10) ** -40
        profile = gdp_delta(mpmath.mpf(1) / 2, 0)
    point = {"sigma": Fraction(2)}
    bound = enclose(f"1/({theta_upper('sigma')})", point)
    assert abs(float(bound.mid()) - float(tv)) <= 1e-20 and float(bound.mid()) <= float(tv)
    assert abs(float(enclose("erf(1/(2*sqrt(2)*sigma))", point).mid()) - float(profile)) <= 1e-15
    goal = enclose(DISCRETE_GAUSSIAN_NOT_GDP.parts[0].goal.expression, point)
    assert abs(float(goal.mid()) - float(tv - profile)) <= 1e-15 and goal > 0


@settings(max_examples=30)
@given(st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=1e-30, max_value=0.999))
def test_bw18_expressions_are_delta_minus_the_implementations_profile_at_the_classical_sigma(
    eps: float, delta: float
) -> None:
    """At s = 1/sqrt(2 ln(1.25/δ)), the direct goal is δ − gdp_delta(1/σ_classical, ε), and the
    tail-bound goal times e^{−L} is at most it (it bounds the profile from above)."""
    classical = math.sqrt(2 * math.log(1.25 / delta)) / eps
    with workdps():
        implemented = gdp_delta(1 / mpmath.mpf(classical), eps)
        s_mp = 1 / (mpmath.mpf(classical) * eps)  # s = μ/ε = 1/sqrt(2L) at the implementation's μ
        s = _fraction(s_mp)
        L = 1 / (2 * s_mp**2)
        direct = _fraction(mpmath.mpf(5) / 4 * mpmath.exp(-L) - implemented)
    point = {"eps": Fraction(eps), "s": s}
    goal = enclose(BW18_THEOREM_8.parts[2].goal.expression, point)
    assert abs(float(goal.mid()) - float(direct)) <= 1e-10 * delta
    if s <= Fraction(1, 2):
        mills = enclose(BW18_THEOREM_8.parts[1].goal.expression, point)
        with workdps():
            scaled = mpmath.mpf(float(mills.mid())) * mpmath.exp(-L)
        assert scaled <= mpmath.mpf(float(direct)) * (1 + mpmath.mpf(10) ** -9)


@settings(max_examples=30)
@given(
    st.fractions(min_value=Fraction(1001, 1000), max_value=100),
    st.fractions(min_value=Fraction(1, 100), max_value=100),
    st.fractions(min_value=Fraction(1, 100), max_value=10),
    st.fractions(min_value=-10, max_value=10),
)
def test_bs16_gaussian_renyi_identities_give_the_implementations_alpha_rho(
    alpha: Fraction, sigma: Fraction, delta: Fraction, x: Fraction
) -> None:
    """The completed square vanishes at exact points, and the second identity's αΔ²/(2σ²) is
    α·zcdp_of_gdp(gaussian_mu(σ, Δ)), the implementation's Rényi bound of the Gaussian."""
    from dpquant.certify.catalogue.measures import BS16_PROPOSITION_1_6
    from dpquant.reference.measures.conversions import gaussian_mu, zcdp_of_gdp

    square = enclose(BS16_PROPOSITION_1_6.parts[0].goal.expression,
                     {"alpha": alpha, "x": x, "Delta": delta})
    assert square.contains(0) and square.rad() < 1e-30
    closed = enclose("alpha*Delta**2/(2*sigma**2)", {"alpha": alpha, "sigma": sigma, "Delta": delta})
    with workdps():
        implemented = alpha.numerator / mpmath.mpf(alpha.denominator) * zcdp_of_gdp(
            gaussian_mu(mpmath.mpf(sigma.numerator) / sigma.denominator,
                        mpmath.mpf(delta.numerator) / delta.denominator))
    assert abs(float(closed.mid()) - float(implemented)) <= 1e-12 * float(implemented)


@settings(max_examples=30, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=20),
    st.fractions(min_value=Fraction(1001, 1000), max_value=200),
)
def test_bs16_1_4_expressions_are_randomised_responses_renyi_divergence(
    eps: Fraction, alpha: Fraction
) -> None:
    """(α − 1)·D_α of the catalogue is renyi_divergence of ε₀-randomised response (the laws
    the implementation's test uses), and the first part's (p, w) give (α − 1)(ε₀ − D_α)."""
    from dpquant.certify.catalogue.measures import (
        BS16_PROPOSITION_1_4,
        RR_RENYI_TIMES_ORDER_MINUS_1,
    )
    from dpquant.reference.distributions import DiscreteLaw, renyi_divergence

    with workdps():
        e0 = mpmath.mpf(eps.numerator) / eps.denominator
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        p, q = DiscreteLaw([0, 1], [e0, mpmath.mpf(0)]), DiscreteLaw([0, 1], [mpmath.mpf(0), e0])
        implemented = (a - 1) * renyi_divergence(p, q, a)
        w = mpmath.exp(-2 * (a - 1) * e0)
        gap = (a - 1) * e0 - implemented
    point = {"alpha": alpha, "eps": eps}
    mine = enclose(RR_RENYI_TIMES_ORDER_MINUS_1, point)
    assert abs(float(mine.mid()) - float(implemented)) <= 1e-12 * (1 + abs(float(implemented)))
    first = enclose(BS16_PROPOSITION_1_4.parts[0].goal.expression,
                    {"p": _fraction(mpmath.exp(-e0)), "w": _fraction(w)})
    assert abs(float(first.mid()) - float(gap)) <= 1e-12 * (1 + abs(float(gap)))


@settings(max_examples=25, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 100), max_value=5),
    st.fractions(min_value=0, max_value=5),
)
def test_drs22_2_13_expressions_are_gdp_delta_and_its_slope_in_mu(mu: Fraction, eps: Fraction) -> None:
    """GDP_DELTA is gdp_delta(μ, ε), and GDP_DELTA_SLOPE its derivative in μ (mpmath.diff)."""
    from dpquant.certify.catalogue.measures import GDP_DELTA, GDP_DELTA_SLOPE

    point = {"mu": mu, "eps": eps}
    with workdps():
        m = mpmath.mpf(mu.numerator) / mu.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        value = gdp_delta(m, e)
        h = mpmath.mpf(10) ** -20
        slope = (gdp_delta(m + h, e) - gdp_delta(m - h, e)) / (2 * h)
    assert abs(float(enclose(GDP_DELTA, point).mid()) - float(value)) <= 1e-14
    assert abs(float(enclose(GDP_DELTA_SLOPE, point).mid()) - float(slope)) <= 1e-10


@settings(max_examples=25, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 100), max_value=5),
    st.fractions(min_value=0, max_value=5),
    st.fractions(min_value=-6, max_value=6),
)
def test_drs22_2_12_conjugate_at_z_is_one_minus_e_eps_x_minus_the_implementations_tradeoff(
    mu: Fraction, eps: Fraction, z: Fraction
) -> None:
    """At x = Φ(−z): 1 − e^ε x − gdp_tradeoff(μ, x) is the catalogue's V(z) (its second part
    uses V at z* = ε/μ + μ/2), never above gdp_delta, and equal to it at z*."""
    from dpquant.certify.catalogue.measures import GDP_CONJUGATE
    from dpquant.reference.measures.conversions import gdp_tradeoff

    v_z, v_of_star = GDP_CONJUGATE.format(z="z"), GDP_CONJUGATE.format(z="(eps/mu + mu/2)")
    with workdps():
        m = mpmath.mpf(mu.numerator) / mu.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        zz = mpmath.mpf(z.numerator) / z.denominator
        x = mpmath.ncdf(-zz)
        implemented = 1 - mpmath.exp(e) * x - gdp_tradeoff(m, x)
        delta = gdp_delta(m, e)
        star = e / m + m / 2
        at_star = 1 - mpmath.exp(e) * mpmath.ncdf(-star) - gdp_tradeoff(m, mpmath.ncdf(-star))
    assert abs(float(enclose(v_z, {"mu": mu, "eps": eps, "z": z}).mid()) - float(implemented)) <= 1e-12
    assert implemented <= delta + mpmath.mpf(10) ** -30
    assert abs(float(enclose(v_of_star, {"mu": mu, "eps": eps}).mid()) - float(at_star)) <= 1e-12
    assert abs(at_star - delta) <= mpmath.mpf(10) ** -25
