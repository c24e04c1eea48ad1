"""The exact law of the discrete Gaussian N_ℤ(μ, σ²) (CKS20, Definition 1) and the exact Rényi
divergence of two of them (CKS20, Proposition 5): total mass, pmf, tails and finite images
against direct summation, the proposition's inequality and its equality cases, and the refusal
of bad parameters."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw, renyi_divergence
from dpquant.reference.primitives import DiscreteGaussianLaw, discrete_gaussian_renyi

TOL = mpmath.mpf(10) ** -50
SIGMAS = [0.05, 0.4, 1.0, Fraction(7, 3), 6.5, 40.0]


def _g(x, s2):
    return mpmath.exp(-(mpmath.mpf(x) ** 2) / (2 * s2))


def _s2(law: DiscreteGaussianLaw):
    return mpmath.mpf(law.sigma2.numerator) / law.sigma2.denominator


@pytest.mark.parametrize("sigma", SIGMAS, ids=str)
def test_law_sums_to_one_within_its_rigorous_bound(sigma) -> None:
    """Σ_{|k|<=K} P(X = loc + k) <= 1 <= the same plus the geometric bound of the rest,
    2·g(K+1)/(1 − e^{-(K+1)/σ²})/θ(0), each up to the normaliser's proved error (60 digits)."""
    law = DiscreteGaussianLaw(sigma, loc=-3)
    assert 0 <= law.normalizer_error <= mpmath.mpf(10) ** -70
    with mpmath.workdps(60):
        s2 = _s2(law)
        for radius in (0, 1, 3, int(4 * law.sigma), int(25 * law.sigma) + 2):
            inside = mpmath.fsum(law.pmf_mp(k) for k in range(-3 - radius, -2 + radius))
            a = radius + 1
            rest = 2 * _g(a, s2) / -mpmath.expm1(-a / s2) / mpmath.exp(law.log_normalizer_mp)
            slack = law.normalizer_error + mpmath.mpf(10) ** -55
            assert inside <= 1 + slack
            assert inside + rest >= 1 - slack
        assert abs(inside - 1) <= mpmath.mpf(10) ** -55  # the rest is below 10^-100 at 25σ


@pytest.mark.parametrize("sigma", SIGMAS, ids=str)
def test_pmf_matches_direct_summation(sigma) -> None:
    """P(X = k) = g(k − loc)/Σ_j g(j), the normaliser summed term by term at 90 digits."""
    law = DiscreteGaussianLaw(sigma, loc=5)
    with mpmath.workdps(90):
        s2 = _s2(law)
        w = int(22 * math.sqrt(float(law.sigma2))) + 10
        z = mpmath.fsum(_g(j, s2) for j in range(-w, w + 1))
    with mpmath.workdps(60):
        for k in (5, 6, 2, 5 + int(3 * law.sigma) + 1):
            assert (
                abs(law.logpmf_mp(k) - (-(mpmath.mpf(k - 5) ** 2) / (2 * s2) - mpmath.log(z))) < TOL
            )
        floats = law.logpmf(np.array([5.0, 6.0, 7.5, np.inf]))
        assert floats[0] == pytest.approx(float(law.logpmf_mp(5)), rel=1e-12)
        assert floats[1] == pytest.approx(float(law.logpmf_mp(6)), rel=1e-12)
        assert floats[2] == -np.inf and floats[3] == -np.inf


@pytest.mark.parametrize("sigma", [0.4, Fraction(7, 3), 40.0], ids=str)
def test_cdf_sf_and_tail_mass_agree_with_the_pmf(sigma) -> None:
    law = DiscreteGaussianLaw(sigma, loc=2)
    w = int(22 * law.sigma) + 5
    with mpmath.workdps(60):
        for k in (-w // 3, 0, 2, 3, 2 + int(2 * law.sigma)):
            below = mpmath.fsum(law.pmf_mp(j) for j in range(2 - w, k + 1))
            above = mpmath.fsum(law.pmf_mp(j) for j in range(k + 1, 2 + w))
            assert abs(law.cdf_mp(k) - below) < TOL
            assert abs(law.sf_mp(k) - above) < TOL
            assert abs(law.cdf_mp(k) + law.sf_mp(k) - 1) < TOL
        for r in (-1, 0, 1, int(law.sigma)):
            inside = (
                mpmath.fsum(law.pmf_mp(j) for j in range(2 - max(r, -1), 3 + r)) if r >= 0 else 0
            )
            assert abs(law.tail_mass_mp(r) - (1 - inside)) < TOL


@pytest.mark.parametrize("sigma", [0.4, Fraction(7, 3), 40.0], ids=str)
@pytest.mark.parametrize(("lo", "hi"), [(-3, 7), (2, 2), (10, 30), (-200, -150)])
def test_clamped_law_piles_the_tails_on_its_ends(sigma, lo, hi) -> None:
    """clamped(lo, hi): P(X <= lo) on lo, P(X >= hi) on hi, the pmf in between; total mass 1."""
    law = DiscreteGaussianLaw(sigma, loc=2)
    image = law.clamped(lo, hi)
    assert isinstance(image, DiscreteLaw) and image.support == tuple(range(lo, hi + 1))
    with mpmath.workdps(60):
        if lo == hi:
            assert image.logp[0] == 0
            return
        rel = mpmath.mpf(10) ** -45
        expected = [law.cdf_mp(lo), *(law.pmf_mp(k) for k in range(lo + 1, hi)), law.sf_mp(hi - 1)]
        for got, want in zip(image.logp, expected, strict=True):
            assert abs(got - mpmath.log(want)) <= rel * max(1, abs(got))


def test_truncated_law_is_the_pmf_renormalised_on_the_window() -> None:
    law = DiscreteGaussianLaw(1.7, loc=-1)
    image = law.truncated(4)
    assert image.support == tuple(range(-5, 4))
    with mpmath.workdps(60):
        kept = mpmath.log(1 - law.tail_mass_mp(4))
        for k, lp in zip(image.support, image.logp, strict=True):
            assert abs(lp - (law.logpmf_mp(k) - kept)) < TOL
        probs = law.probabilities_within(4)
        assert probs[-1] == pytest.approx(float(law.pmf_mp(-1)), rel=1e-14)


def test_variance_is_below_sigma2_and_matches_the_sums() -> None:
    """CKS20: Var[N_ℤ(0, σ²)] < σ²; strictly so where 60 digits resolve the gap (σ <= 2)."""
    for sigma in (0.1, 0.5, 1.0, 1.5, 2.0):
        var = DiscreteGaussianLaw(sigma, loc=7).variance_mp()
        assert 0 < var < mpmath.mpf(sigma) ** 2
    with mpmath.workdps(60):
        law = DiscreteGaussianLaw(1.3)
        direct = mpmath.fsum(k * k * law.pmf_mp(k) for k in range(-60, 61))
        assert abs(law.variance_mp() - direct) < TOL


# --------------------------------------------------------------------------------------------
# CKS20 Proposition 5
# --------------------------------------------------------------------------------------------

ALPHAS = [Fraction(1, 3), Fraction(1, 2), Fraction(5, 4), Fraction(3, 2), 2, Fraction(7, 3), 3, 4.3]


def _renyi_by_direct_sum(sigma: float, k: int, alpha: Fraction):
    """D_α(N_ℤ(k, σ²) ‖ N_ℤ(0, σ²)) from Σ_x p(x)^α q(x)^{1−α} summed term by term (90 digits)."""
    law = DiscreteGaussianLaw(sigma)
    with mpmath.workdps(90):
        s2 = _s2(law)
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        w = int(25 * math.sqrt(float(law.sigma2)) + 4 * abs(k) * float(alpha)) + 10
        z = mpmath.fsum(_g(x, s2) for x in range(-w, w + 1))
        total = mpmath.fsum(
            mpmath.exp(-(a * (x - k) ** 2 + (1 - a) * mpmath.mpf(x) ** 2) / (2 * s2))
            for x in range(-w, w + 1)
        )
        return mpmath.log(total / z) / (a - 1)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("k", [1, 2, -3])
def test_proposition_5_discrete_gaussian_renyi_bound(sigma, k) -> None:
    """CKS20 Proposition 5: D_α(N_ℤ(μ+k, σ²) ‖ N_ℤ(μ, σ²)) <= αk²/(2σ²) for α > 1, with equality
    exactly when (α − 1)k is an integer; the inequality reverses for α < 1. The exact value also
    matches a term-by-term sum of the divergence."""
    for alpha in ALPHAS:
        a = Fraction(alpha)
        got = discrete_gaussian_renyi(sigma, k, alpha)
        with mpmath.workdps(60):
            bound = mpmath.mpf(a.numerator) / a.denominator * k * k / (2 * mpmath.mpf(sigma) ** 2)
            assert abs(got - _renyi_by_direct_sum(sigma, k, a)) < TOL * max(1, bound)
            integer = ((a - 1) * k).denominator == 1
            if integer:
                assert abs(got - bound) < TOL * max(1, bound)
            elif a > 1:
                assert got <= bound + TOL
                if sigma <= 1:  # the gap, about e^{-2π²σ²}, resolved at 60 digits
                    assert got < bound - mpmath.mpf(10) ** -12
            else:
                assert got >= bound - TOL


def test_proposition_5_kl_and_infinite_order() -> None:
    """α = 1: KL = k²/(2σ²); α = ∞: infinite (the log-ratio is unbounded in x); k = 0: 0."""
    with mpmath.workdps(60):
        assert abs(discrete_gaussian_renyi(1.5, 2, 1) - mpmath.mpf(4) / (2 * 2.25)) < TOL
    assert discrete_gaussian_renyi(1.5, 2, math.inf) == mpmath.inf
    assert discrete_gaussian_renyi(1.5, 0, math.inf) == 0
    assert discrete_gaussian_renyi(1.5, 0, 3) == 0


@pytest.mark.parametrize("alpha", [Fraction(1, 2), 1, 2, Fraction(5, 2)], ids=str)
def test_renyi_of_clamped_images_is_a_lower_bound_that_converges(alpha) -> None:
    """Data processing: the divergence of the clamped laws (a post-processing) is at most the
    exact one, and reaches it once the window holds all the mass that matters."""
    p, q = DiscreteGaussianLaw(1.2, loc=1), DiscreteGaussianLaw(1.2, loc=0)
    exact = p.renyi_divergence(-1, alpha)  # D(N(0) ‖ N(1)) = D(N(1) ‖ N(0)) by symmetry
    assert abs(exact - discrete_gaussian_renyi(1.2, 1, alpha)) < TOL
    for lo, hi, close in ((-1, 2, False), (-30, 30, True)):
        lower = renyi_divergence(q.clamped(lo, hi), p.clamped(lo, hi), alpha)
        assert lower <= exact + TOL
        if close:
            assert abs(lower - exact) < mpmath.mpf(10) ** -40
        else:
            assert lower < exact - mpmath.mpf(10) ** -6


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

BAD_SIGMAS = [math.nan, math.inf, -math.inf, 0, 0.0, -1.0, True, "1", None, 1e308, 1e-300, 10**400]


@pytest.mark.parametrize("sigma", BAD_SIGMAS, ids=repr)
def test_bad_sigma_is_refused_naming_sigma(sigma) -> None:
    with pytest.raises(ParameterError, match="sigma") as info:
        DiscreteGaussianLaw(sigma)
    assert info.value.parameter == "sigma"
    with pytest.raises(ParameterError, match="sigma"):
        discrete_gaussian_renyi(sigma, 1, 2)


@pytest.mark.parametrize(
    "sigma2", [0, -2, math.nan, True, "2", Fraction(1, 2**1001), 2**1001], ids=repr
)
def test_bad_sigma2_is_refused_naming_sigma2(sigma2) -> None:
    with pytest.raises(ParameterError, match="sigma2"):
        DiscreteGaussianLaw(sigma2=sigma2)


def test_sigma_and_sigma2_together_or_neither_are_refused() -> None:
    with pytest.raises(ParameterError, match="sigma"):
        DiscreteGaussianLaw()
    with pytest.raises(ParameterError, match="sigma"):
        DiscreteGaussianLaw(1.0, sigma2=1)
    assert DiscreteGaussianLaw(sigma2=Fraction(9, 4)).sigma2 == DiscreteGaussianLaw(1.5).sigma2


@pytest.mark.parametrize("loc", [1.5, 2.0, "0", True, None, 2**60])
def test_non_integer_or_huge_loc_is_refused_naming_loc(loc) -> None:
    with pytest.raises(ParameterError, match="loc"):
        DiscreteGaussianLaw(1.0, loc=loc)


@pytest.mark.parametrize(
    "alpha",
    [0, -1, math.nan, "2", True, None, Fraction(1) + Fraction(1, 10**30), -math.inf],
    ids=repr,
)
def test_bad_alpha_is_refused_naming_alpha(alpha) -> None:
    with pytest.raises(ParameterError, match="alpha"):
        discrete_gaussian_renyi(1.0, 1, alpha)


def test_bad_images_are_refused_naming_the_parameter() -> None:
    law = DiscreteGaussianLaw(1.0)
    for bad, name in ((-1, "radius"), (50_001, "radius"), (1.5, "radius")):
        with pytest.raises(ParameterError, match=name):
            law.truncated(bad)
    with pytest.raises(ParameterError, match="hi"):
        law.clamped(3, 1)
    with pytest.raises(ParameterError, match="hi"):
        law.clamped(0, 100_001)
    with pytest.raises(ParameterError, match="shift"):
        law.renyi_divergence(0.5, 2)
