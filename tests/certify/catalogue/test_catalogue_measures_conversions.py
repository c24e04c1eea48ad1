"""The catalogue's KOV15 expressions are the hockey-stick terms of the implementation's laws."""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.certify.catalogue.measures_conversions import FOUR_OUTCOME_TERMS, RR_TERMS
from dpquant.certify.expressions import enclose
from dpquant.reference.distributions import DiscreteLaw, hockey_stick
from dpquant.reference.exact.mp import workdps
from dpquant.reference.measures.conversions import approximate_delta, pure_delta


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _fraction(x: mpmath.mpf) -> Fraction:
    return Fraction(mpmath.nstr(x, 45, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


def _positive_parts(terms: tuple[str, ...], point: dict[str, Fraction]) -> float:
    return sum(max(float(enclose(t, point).mid()), 0.0) for t in terms)


@settings(max_examples=30, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=10),
    st.fractions(min_value=0, max_value=10),
)
def test_kov15_pure_terms_are_randomised_responses_hockey_stick_and_pure_delta(
    eps0: Fraction, eps: Fraction
) -> None:
    """At p = e^{−ε₀}, r = e^{−ε}: the positive parts of RR_TERMS sum to hockey_stick of
    ε₀-randomised response and to pure_delta(ε₀, ε)."""
    with workdps():
        e0, e = _mp(eps0), _mp(eps)
        p, q = DiscreteLaw([0, 1], [e0, mpmath.mpf(0)]), DiscreteLaw([0, 1], [mpmath.mpf(0), e0])
        exact, implemented = hockey_stick(p, q, e), pure_delta(e0, e)
        point = {"p": _fraction(mpmath.exp(-e0)), "r": _fraction(mpmath.exp(-e))}
    mine = _positive_parts(RR_TERMS, point)
    assert abs(mine - float(exact)) <= 1e-12 and abs(mine - float(implemented)) <= 1e-12
    assert float(enclose(RR_TERMS[1], point).mid()) <= 0


@settings(max_examples=30, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=10),
    st.fractions(min_value=0, max_value=Fraction(999, 1000)),
    st.fractions(min_value=0, max_value=10),
)
def test_kov15_approximate_terms_are_the_four_outcome_laws_hockey_stick_and_approximate_delta(
    eps0: Fraction, delta0: Fraction, eps: Fraction
) -> None:
    """The positive parts of FOUR_OUTCOME_TERMS sum to hockey_stick of the four-outcome law
    (both directions) and to approximate_delta(ε₀, δ₀, ε)."""
    with workdps():
        e0, d0, e = _mp(eps0), _mp(delta0), _mp(eps)
        rest = mpmath.log1p(-d0) - mpmath.log1p(mpmath.exp(e0))
        logp = [mpmath.log(d0) if d0 > 0 else -mpmath.inf, rest + e0, rest, -mpmath.inf]
        p, q = DiscreteLaw([0, 1, 2, 3], logp), DiscreteLaw([0, 1, 2, 3], logp[::-1])
        forward, backward = hockey_stick(p, q, e), hockey_stick(q, p, e)
        implemented = approximate_delta(e0, d0, e)
        point = {"p": _fraction(mpmath.exp(-e0)), "r": _fraction(mpmath.exp(-e)), "d": delta0}
    mine = _positive_parts(FOUR_OUTCOME_TERMS, point)
    for value in (forward, backward, implemented):
        assert abs(mine - float(value)) <= 1e-12


@settings(max_examples=30, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 10), max_value=10),
    st.fractions(min_value=Fraction(1, 10), max_value=10),
    st.fractions(min_value=-10, max_value=10),
)
def test_drs22_2_7_type_errors_are_gdp_tradeoff_at_the_implementations_mu(
    sigma: Fraction, delta: Fraction, t: Fraction
) -> None:
    """The threshold test's type I and II errors (mpmath's normal law) are the catalogue's, and
    the type II error is gdp_tradeoff(gaussian_mu(σ, Δ), type I); the log-likelihood ratio is
    the catalogue's."""
    from dpquant.certify.catalogue.measures_conversions import (
        DRS22_THEOREM_2_7,
        GAUSSIAN_TYPE_ONE,
        GAUSSIAN_TYPE_TWO,
    )
    from dpquant.reference.measures.conversions import gaussian_mu, gdp_tradeoff

    point = {"sigma": sigma, "Delta": delta, "t": t}
    with workdps():
        s, d, tt = _mp(sigma), _mp(delta), _mp(t)
        one, two = mpmath.ncdf(-tt / s), mpmath.ncdf((tt - d) / s)
        implemented = gdp_tradeoff(gaussian_mu(s, d), one)
        ratio = mpmath.log(mpmath.npdf(tt, d, s)) - mpmath.log(mpmath.npdf(tt, 0, s))
    assert abs(float(enclose(GAUSSIAN_TYPE_ONE, point).mid()) - float(one)) <= 1e-14
    assert abs(float(enclose(GAUSSIAN_TYPE_TWO, point).mid()) - float(two)) <= 1e-14
    assert abs(implemented - two) <= mpmath.mpf(10) ** -40
    llr = DRS22_THEOREM_2_7.parts[0].goal.expression.split(" - Delta*")[0]
    mine = enclose(llr, {"sigma": sigma, "Delta": delta, "x": t})
    assert abs(float(mine.mid()) - float(ratio)) <= 1e-12 * (1 + abs(float(ratio)))


@settings(max_examples=8, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 4), max_value=3),
    st.fractions(min_value=Fraction(11, 10), max_value=6),
    st.fractions(min_value=0, max_value=3),
)
def test_drs22_2_10_gaussian_renyi_is_alpha_times_the_implementations_rho(
    mu: Fraction, alpha: Fraction, eps: Fraction
) -> None:
    """The Gaussian pair's D_α (mpmath quadrature) is α·zcdp_of_gdp(μ), the catalogue's
    αμ²/2; the implementation's zCDP profile at that ρ is at least gdp_delta (the cited step)."""
    from dpquant.certify.catalogue.measures_conversions import DRS22_THEOREM_2_10
    from dpquant.reference.measures.conversions import gdp_delta, zcdp_delta, zcdp_of_gdp

    with mpmath.workdps(30):
        m, a = _mp(mu), _mp(alpha)
        integral = mpmath.quad(
            lambda x: mpmath.npdf(x) ** a * mpmath.npdf(x, m) ** (1 - a), [-mpmath.inf, 0, mpmath.inf]
        )
        renyi = mpmath.log(integral) / (a - 1)
    rho = zcdp_of_gdp(m)
    closed = enclose("alpha*(mu**2/2)", {"alpha": alpha, "mu": mu})
    assert abs(float(closed.mid()) - float(renyi)) <= 1e-12 * float(renyi)
    assert abs(float(closed.mid()) - float(a * rho)) <= 1e-15 * float(renyi)
    gap = enclose(DRS22_THEOREM_2_10.parts[1].goal.expression, {"alpha": alpha, "mu": mu})
    assert gap.contains(0)
    with workdps():
        assert zcdp_delta(rho, _mp(eps)) >= gdp_delta(m, _mp(eps))


@settings(max_examples=30, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 100), max_value=50),
    st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(999, 1000)),
    st.fractions(min_value=0, max_value=3),
    st.fractions(min_value=0, max_value=3),
)
def test_cks20_12_gaps_slopes_and_constant_are_renyi_to_delta(
    a: Fraction, s: Fraction, tau: Fraction, eps: Fraction
) -> None:
    """renyi_to_delta(α, τ, ε) is e^{(α−1)(τ−ε)}·C (C = CKS20_CONSTANT at a = α − 1, below 1);
    the gaps are ≥ 0 and their hand-written slopes are the central finite differences."""
    from dpquant.certify.catalogue.measures_conversions import (
        CKS20_CONSTANT,
        CKS20_GAPS,
        CKS20_SLOPES,
    )
    from dpquant.reference.measures.conversions import renyi_to_delta

    with workdps():
        implemented = renyi_to_delta(_mp(a) + 1, _mp(tau), _mp(eps))
        scale = mpmath.exp(_mp(a) * (_mp(tau) - _mp(eps)))
    constant = enclose(CKS20_CONSTANT, {"a": a})
    mine = float(scale) * float(constant.mid())
    assert abs(min(mine, 1.0) - float(implemented)) <= 1e-12 * (1 + mine)
    h = Fraction(1, 10**12)
    for gap, slope in zip(CKS20_GAPS, CKS20_SLOPES, strict=True):
        at = enclose(gap, {"a": a, "s": s})
        assert at.mid() >= -1e-30
        diff = (enclose(gap, {"a": a, "s": s + h}) - enclose(gap, {"a": a, "s": s - h})) / 2
        assert abs(float(diff.mid()) / float(h) - float(enclose(slope, {"a": a, "s": s}).mid())) <= (
            1e-6 * (1 + abs(float(enclose(slope, {"a": a, "s": s}).mid())))
        )
